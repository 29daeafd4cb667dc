/* Takes a second in lab0_format_limits: passes under the rubric's limit,
   times out when CK_TIMEOUT_MULTIPLIER scales the limit below a second. */
#include <time.h>

lab0_limits lab0_format_limits(const lab0_format *f)
{
    struct timespec t = {1, 0};
    while (nanosleep(&t, &t) != 0)
        ;
    return solution_format_limits(f);
}
