/* Opens the reference solution and a file of the system's by raw openat
   system calls (nm sees no name): the kernel's filter stops the first, by
   name. Its answers would be right. x86-64 Linux only (elsewhere: right
   answers, and the check that the filter named openat fails there). */
/* The syscall instruction hidden from the grader's disassembly (which
   refuses a plain one at build time): its two bytes are a mov's constant,
   jumped into, so that the tests' filter is what stops it. */
#define SYSCALL_HIDDEN "jmp 7f+2\n7: .byte 0x66, 0xb8, 0x0f, 0x05\n\t"
static long raw4(long n, long a, long b, long c)
{
    long ret = -1;
#if defined(__x86_64__) && defined(__linux__)
    __asm__ volatile(SYSCALL_HIDDEN : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c)
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
