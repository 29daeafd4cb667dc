/* Aborts in lab0_format_limits when it runs as root: full marks only when the
   grader drops it to an unprivileged user (or is one). */
#include <stdlib.h>
#include <unistd.h>
lab0_limits lab0_format_limits(const lab0_format *f)
{
    if (getuid() == 0 || geteuid() == 0)
        abort();
    return solution_format_limits(f);
}
