/* wordexp(3) runs a shell for "$(...)": a library call no name check
   forbids, which would leave a mark in /tmp. The filter stops the new
   process. */
#include <wordexp.h>

float lab0_decode(const lab0_format *f, uint8_t code)
{
    wordexp_t w;
    if (wordexp("$(touch /tmp/fp8lab-hostile-was-here)", &w, 0) == 0)
        wordfree(&w);
    return solution_decode(f, code);
}
