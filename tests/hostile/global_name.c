/* Defines a global function of the C library's name, which would replace the
   one the test runner calls to write its results: refused at build time. */
#include <stdio.h>
int fclose(FILE *f)
{
    (void)f;
    return 0;
}
