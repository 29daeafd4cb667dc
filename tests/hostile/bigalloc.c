/* Asks for 64 GiB in lab0_format_limits and writes all of it without
   checking: under the runner's address-space limit malloc fails, and the
   write crashes. */
#include <stdlib.h>
#include <string.h>

lab0_limits lab0_format_limits(const lab0_format *f)
{
    size_t n = (size_t)64 << 30;
    char *volatile p = malloc(n);
    memset(p, 1, n);
    lab0_limits l = solution_format_limits(f);
    l.max += (float)p[n - 1] - 1.0f;
    free(p);
    return l;
}
