/* Opens the reference solution and a file of the system's by raw openat
   system calls (nm sees no name): the kernel's filter stops the first, by
   name. Its answers would be right. x86-64 Linux only (elsewhere: right
   answers, and the check that the filter named openat fails there). */
static long raw4(long n, long a, long b, long c)
{
    long ret = -1;
#if defined(__x86_64__) && defined(__linux__)
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
#else
    (void)n, (void)a, (void)b, (void)c;
#endif
    return ret;
}

extern "C" cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    /* openat(AT_FDCWD, path, O_RDONLY) */
    raw4(257, -100, (long)"@ROOT@/solutions/lab5/kernels.cu", 0);
    raw4(257, -100, (long)"/etc/hostname", 0);
    return good_amax(x, n, amax, stream);
}
