/* Forks without end from lab0_decode: refused at build time (fork). */
#include <unistd.h>
float lab0_decode(const lab0_format *f, uint8_t code)
{
    for (;;)
        fork();
    return solution_decode(f, code);
}
