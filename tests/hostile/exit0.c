/* Calls exit(0) inside lab0_decode: Check would count the decode tests as
   passed if they did not expect the runner's own exit status. */
#include <stdlib.h>

float lab0_decode(const lab0_format *f, uint8_t code)
{
    if (code == 0x42)
        exit(0);
    return solution_decode(f, code);
}
