/* Lists folders with glob(3), a library call no name check forbids, to
   find a classmate's files: the library opens the folder, which the
   filter stops. */
#include <glob.h>

float lab0_decode(const lab0_format *f, uint8_t code)
{
    glob_t g;
    if (glob("../../../*/*", 0, 0, &g) == 0)
        globfree(&g);
    return solution_decode(f, code);
}
