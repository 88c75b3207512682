/* The RFMS manual's example task program (A.5 §2.2), as printed, with the changes a C compiler of
 * today forces: pumatask() declares its return type (implicit int is gone since C99), and its name
 * is spelt as the text around it spells it. Linked with rfms_task_main, which connects, calls
 * pumatask() and waits for its moves:
 *   rfms-example-pumatask-c --bridge 127.0.0.1:47031 --key RUN/keys/operator.key
 * It keeps the manual's layout, so the project's format is off here. */
/* clang-format off */
# include "../include/datdef.h"
# include "../include/extdef.h"
# include "../include/condef.h"

void pumatask()
{
    TRSF *t2;
    PST *home_pst;
    MOT *mjnt, *mwait, *mcart, *mcwait, *mcartcz, *mcartcx;

    t2 = gentr_trsl("t2", 203.2, -126.23, 203.2);      /* home */
    home_pst = makepst("home", RIGHT, DOWN, FLIP, t6, EQ, t2, TL, t6);
    mjnt = makemot(2.0, 0.2, JNT, 0);
    mcart = makemot(4.0, 0.3, CAR, 0);
    mcartcz = makemot(20.0, 0.5, CAR, 0x4);
    mcartcx = makemot(15.0, 0.5, CAR, 0x1);

    move(home_pst, mcartcz);
    move(home_pst, mjnt);
}
/* clang-format on */
