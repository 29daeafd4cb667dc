/* Reads the reference solution's source: refused at build time (fopen). */
#include <stdio.h>
uint8_t lab0_encode(const lab0_format *f, float x, int saturate)
{
    FILE *s = fopen("../../../solutions/lab0/lab0.c", "r");
    if (s)
        fclose(s);
    return solution_encode(f, x, saturate);
}
