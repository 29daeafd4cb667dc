/* Writes 100 MB to standard error from lab0_format_limits. */
#include <stdio.h>
lab0_limits lab0_format_limits(const lab0_format *f)
{
    static char line[1024];
    for (size_t i = 0; i + 1 < sizeof line; i++)
        line[i] = 'e';
    for (int i = 0; i < 100 * 1024; i++)
        fputs(line, stderr);
    return solution_format_limits(f);
}
