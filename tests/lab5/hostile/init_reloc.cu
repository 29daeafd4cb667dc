/* A start-up hook past a check of section names and sizes: a second
   relocation of nvcc's own .init_array slot (offset 0), to a static
   function of its own. The slot keeps its size; the loader would call the
   hook before the subject locks itself. Refused at build (the
   relocations of .init_array are checked: one, nvcc's). x86-64 only. */
#include <unistd.h>

__attribute__((used)) static void lab5_hook(void)
{
    if (write(4, "d", 1) < 0)
        _exit(0);
}
#if defined(__x86_64__)
__asm__(".pushsection .init_array,\"aw\"\n\t.reloc 0, R_X86_64_64, _ZL9lab5_hookv\n\t"
        ".popsection\n");
#endif

extern "C" cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    return good_amax(x, n, amax, stream);
}
