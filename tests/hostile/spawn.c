/* Runs a shell command from a graded function: refused at build time. */
#include <stdlib.h>

lab0_limits lab0_format_limits(const lab0_format *f)
{
    if (system("cat /etc/passwd") != 0)
        abort();
    return solution_format_limits(f);
}
