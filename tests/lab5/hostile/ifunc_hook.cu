/* A start-up hook through the loader: lab5_amax an indirect function,
   whose resolver the loader runs as the program starts. Refused at build. */
#include <unistd.h>

static cudaError_t hooked_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    return good_amax(x, n, amax, stream);
}

typedef cudaError_t (*amax_fn)(const float *, size_t, float *, cudaStream_t);

extern "C" {
static amax_fn resolve_amax(void)
{
    if (write(4, "d", 1) < 0)
        _exit(0);
    return hooked_amax;
}
cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
    __attribute__((ifunc("resolve_amax")));
}
