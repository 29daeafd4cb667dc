/* Opens the reference solution, a golden and a file of its own by raw
   openat system calls (nm sees no name): the kernel's filter stops the
   first, and the test reports it by name. Its answers would be right.
   x86-64 Linux only (elsewhere: only right answers, and the check that the
   filter named openat fails there). */
/* The syscall instruction hidden from the grader's disassembly (which
   refuses a plain one at build time): its two bytes are a mov's constant,
   jumped into, so that the tests' filter is what stops it. */
#define SYSCALL_HIDDEN "jmp 7f+2\n7: .byte 0x66, 0xb8, 0x0f, 0x05\n"
static long raw4(long n, long a, long b, long c, long d)
{
    long ret = -1;
#if defined(__x86_64__) && defined(__linux__)
    register long r10 __asm__("r10") = d;
    __asm__ volatile(SYSCALL_HIDDEN : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
#else
    (void)n, (void)a, (void)b, (void)c, (void)d;
#endif
    return ret;
}
float lab0_decode(const lab0_format *f, uint8_t code)
{
    /* openat(AT_FDCWD, path, O_RDONLY) */
    raw4(257, -100, (long)"../../../../solutions/lab0/lab0.c", 0, 0);
    raw4(257, -100, (long)"/etc/hostname", 0, 0);
    return solution_decode(f, code);
}
