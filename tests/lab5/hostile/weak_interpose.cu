/* A weak definition of a name libstdc++ exports, which the library's own
   code would call in its place (the whole program's: start-up included).
   Refused at build (grading/builder.c: the libraries' names). */
#include <unistd.h>

namespace std {
__attribute__((weak)) void __throw_bad_alloc()
{
    _exit(0);
}
}

extern "C" cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    return good_amax(x, n, amax, stream);
}
