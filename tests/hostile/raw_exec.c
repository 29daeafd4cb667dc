/* Runs a shell by a raw execve system call (nm sees no name), which would
   leave a mark in /tmp: the kernel's filter stops it. x86-64 Linux only. */
float lab0_decode(const lab0_format *f, uint8_t code)
{
#if defined(__x86_64__) && defined(__linux__)
    static const char *const argv[] = {"/bin/sh", "-c", "touch /tmp/fp8lab-hostile-was-here", 0};
    static const char *const envp[] = {0};
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(59L), "D"(argv[0]), "S"(argv), "d"(envp)
                     : "rcx", "r11", "memory");
    (void)ret;
#endif
    return solution_decode(f, code);
}
