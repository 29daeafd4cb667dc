/* A plain syscall instruction in inline assembly (getpid; no name for nm to
   see): the build's disassembly of the object finds it and refuses the
   build by name, before any test runs (raw_*.c hide theirs from it, so that
   the tests' filter is what stops them). x86-64 only (elsewhere: right
   answers, and the check that the build was refused fails there). */
float lab0_decode(const lab0_format *f, uint8_t code)
{
#if defined(__x86_64__) && defined(__linux__)
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(39L) : "rcx", "r11", "memory");
    (void)ret;
#endif
    return solution_decode(f, code);
}
