/* Opens a file through the 32-bit system call gate (int $0x80: i386's
   numbers, where 5 is open), then through x32's numbers (bit 30 set): a
   filter that looked only at x86-64's numbers would let both through. The
   filter ends the subject at the first. x86-64 Linux only. */
float lab0_decode(const lab0_format *f, uint8_t code)
{
#if defined(__x86_64__) && defined(__linux__)
    static const char path[] = "/etc/hostname";
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(5L), "b"(path), "c"(0L) : "memory");
    __asm__ volatile("syscall" : "=a"(ret) : "a"(0x40000000L | 257L), "D"(-100L), "S"(path), "d"(0L)
                     : "rcx", "r11", "memory");
    (void)ret;
#endif
    return solution_decode(f, code);
}
