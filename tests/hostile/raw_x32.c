/* Opens a file through x32's system call numbers (bit 30 set, 257 openat):
   a filter that looked only at x86-64's numbers would let it through. The
   filter ends the subject at it, on every x86-64 kernel (without x32
   support the kernel would refuse the call; the filter sees it first).
   x86-64 Linux only. */
float lab0_decode(const lab0_format *f, uint8_t code)
{
#if defined(__x86_64__) && defined(__linux__)
    static const char path[] = "/etc/hostname";
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(0x40000000L | 257L), "D"(-100L), "S"(path), "d"(0L)
                     : "rcx", "r11", "memory");
    (void)ret;
#endif
    return solution_decode(f, code);
}
