/* Writes a file outside its build folder: refused at build time (fopen). */
#include <stdio.h>
lab0_limits lab0_format_limits(const lab0_format *f)
{
    FILE *out = fopen("/tmp/fp8lab-hostile-was-here", "w");
    if (out)
        fclose(out);
    return solution_format_limits(f);
}
