/* exit_group(93) by a raw system call (inline assembly: no name for nm to
   see), from inside lab0_decode: as exit93.c, and no library involved.
   x86-64 Linux only (elsewhere: a wrong answer). */
float lab0_decode(const lab0_format *f, uint8_t code)
{
    (void)f, (void)code;
#if defined(__x86_64__) && defined(__linux__)
    __asm__ volatile("syscall" : : "a"(231L), "D"(93L) : "rcx", "r11", "memory");
#endif
    return -1.0f;
}
