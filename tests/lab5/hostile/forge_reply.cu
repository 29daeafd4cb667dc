/* Writes the subject's "done" on the reply descriptor itself, then
   computes: the judge and its subject lose step, and the calls it touches
   fail; the others keep their points. */
#include <unistd.h>

extern "C" cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    if (write(4, "d", 1) < 0)
        return cudaErrorUnknown;
    return good_amax(x, n, amax, stream);
}
