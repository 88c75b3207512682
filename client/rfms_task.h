/* The RFMS manual's C interface for task programs (A.5 §2), over the client library: a program
 * defines transforms, position equations and motion records, and requests moves, from a function
 * named pumatask() that the library's main() calls once the link to the controller is up.
 *
 *   #include "rfms_task.h"
 *   void pumatask(void) {
 *     TRSF *t2 = gentr_trsl("t2", 203.2, -126.23, 203.2);
 *     PST *home = makepst("home", RIGHT, DOWN, FLIP, t6, EQ, t2, TL, t6);
 *     MOT *mjnt = makemot(2.0, 0.2, JNT, 0);
 *     waitmove(move(home, mjnt));
 *   }
 *
 * Units are the manual's: millimetres and degrees. Names follow the manual; what RFMS lacked and
 * this adds is synchronisation (waitmove, waitall) and answers: every call is answered by the
 * supervisor, and a refused one prints the reason, returns NULL (or 0 / -1) and changes nothing.
 * Link it with rfms_task_main for the manual's main(), or call rfms_open/rfms_close around your
 * own code. Not thread-safe: one task program, one thread, as in RFMS. */
#ifndef RFMS_TASK_H
#define RFMS_TASK_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rfms_trsf TRSF; /* a named transform */
typedef struct rfms_pst PST;   /* a position equation */
typedef struct rfms_mot MOT;   /* a motion record */
typedef struct {
  double x, y, z;
} VECT;

/* The arm's own transform, to write in position equations. */
extern TRSF* const t6;

/* makepst()'s markers: EQ ends the left-hand side; TL is followed by the tool (the transform
 * written right after t6, or t6 itself for none) and ends the list. */
extern TRSF* const rfms_eq_marker;
extern TRSF* const rfms_tl_marker;
#define EQ rfms_eq_marker
#define TL rfms_tl_marker

/* The PUMA's configuration, one of each pair, in makepst()'s order: arm, elbow, wrist. */
enum { RIGHT = 1, LEFT = 2, UP = 3, DOWN = 4, FLIP = 5, NOFLIP = 6 };
/* Motion modes for makemot(). */
enum { JNT = 0, CAR = 1 };
/* Compliance bits for makemot() (the manual's Figure 1): along and about the base axes. */
enum { COMPLY_X = 0x01, COMPLY_Y = 0x02, COMPLY_Z = 0x04, COMPLY_RX = 0x08, COMPLY_RY = 0x10, COMPLY_RZ = 0x20 };

/* Transforms: a translation (x, y, z in mm) times a rotation. Giving a name again redefines that
 * transform, and positions using it follow, also during a move (a conveyor, a camera). */
TRSF* gentr_trsl(const char* name, double x, double y, double z);
TRSF* gentr_rot(const char* name, double x, double y, double z, const VECT* axis, double angle);
TRSF* gentr_eul(const char* name, double x, double y, double z, double phi, double theta, double psi);
TRSF* gentr_rpy(const char* name, double x, double y, double z, double roll, double pitch, double yaw);

/* A position equation: transforms of the left-hand side, EQ, those of the right-hand side, then TL
 * and the tool. t6 stands once, on either side; e.g.
 *   makepst("grasp", RIGHT, UP, NOFLIP, z, t6, grip, EQ, conv, obj, TL, grip)
 * The list must end with TL and one transform. */
PST* makepst(const char* name, int arm, int elbow, int wrist, ...);

/* A motion record: segment and acceleration time in seconds, JNT or CAR, compliance bits. */
MOT* makemot(double segment, double accel, int mode, int compliance);

/* Queues a move and returns its number (> 0) at once, or 0 when it was refused. */
long move(PST* position, MOT* motion);
/* Until that move has ended: 0 when it completed, -1 when it was aborted, refused or lost. */
int waitmove(long move);
/* Until every move queued so far has ended: 0 when all completed, -1 otherwise. */
int waitall(void);

/* The link to the controller, for programs with their own main(). bridge is host:port (NULL:
 * 127.0.0.1:47031), key_file this client's key (NULL: $RFMS_KEY). rfms_open begins a task of
 * that name and calibrates the arm when it is not; rfms_close waits for every move and ends the
 * task. Each returns 0, or -1 after printing why. */
int rfms_open(const char* bridge, const char* key_file, const char* task);
int rfms_close(void);
/* How many calls were refused so far, and the last reason ("" when none). */
int rfms_refusals(void);
const char* rfms_last_refusal(void);
/* The kind of the last refusal, to branch on: the supervisor's code (the numbers are the link's
 * and are never reused), RFMS_REFUSED_INVALID for an argument this library refused itself, and
 * RFMS_REFUSED_NONE when nothing was refused or the last failure was no refusal (the link). */
enum {
  RFMS_REFUSED_NONE = 0,
  RFMS_REFUSED_TRY_AGAIN = 1,
  RFMS_REFUSED_INVALID = 2,
  RFMS_REFUSED_UNKNOWN_NAME = 3,
  RFMS_REFUSED_NAME_IN_USE = 4,
  RFMS_REFUSED_TABLE_FULL = 5,
  RFMS_REFUSED_WRONG_STATE = 6,
  RFMS_REFUSED_NOT_CALIBRATED = 7,
  RFMS_REFUSED_UNREACHABLE = 8,
  RFMS_REFUSED_UNSTABLE = 9,
  RFMS_REFUSED_CANNOT_ACT = 10,
  RFMS_REFUSED_SCENE_LACKS = 11,
  RFMS_REFUSED_NOT_PERMITTED = 12,
  RFMS_REFUSED_ARM_TAKEN = 13,
  RFMS_REFUSED_NO_TASK = 14,
  RFMS_REFUSED_OUT_OF_ORDER = 15,
  RFMS_REFUSED_WRONG_CLIENT = 16,
  RFMS_REFUSED_LOG_STOPPED = 17,
  RFMS_REFUSED_UNSPECIFIED = 18,
};
int rfms_last_refusal_code(void);
/* A code's name ("unknown_name"), as rfms-client and the Python package spell it. */
const char* rfms_refusal_name(int code);

/* Written by the user; rfms_task_main's main() calls it between rfms_open and rfms_close. */
void pumatask(void);

#ifdef __cplusplus
}
#endif

#endif /* RFMS_TASK_H */
