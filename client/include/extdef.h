/* The manual's include files (A.5 §2.2: datdef.h for the data types, extdef.h for the functions,
 * condef.h for the constants) are one header here; these three let the manual's example keep its
 * #include lines. */
#include "client/rfms_task.h"
