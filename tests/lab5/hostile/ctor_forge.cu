/* A start-up hook with no constructor attribute: a static object whose
   constructor would run as the program loads, before any call, write
   result lines on every descriptor and end the process. Refused at build
   (an early, friendly check: apart from the judge, no descriptor of the
   subject leads to the results; forge_results.cu tries it from a call). */
#include <unistd.h>

namespace {
struct Forge {
    Forge()
    {
        for (int fd = 0; fd < 64; fd++)
            if (write(fd, "amax:passed\n", 12) < 0)
                continue;
        _exit(0);
    }
};
}
static Forge forge;

extern "C" cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    return good_amax(x, n, amax, stream);
}
