/* Opens a file through x32's system call numbers (bit 30 set, 257 openat):
   a filter that looked only at x86-64's numbers would let it through. The
   filter ends the subject at it, on every x86-64 kernel (without x32
   support the kernel would refuse the call; the filter sees it first).
   x86-64 Linux only. */
/* The syscall instruction hidden from the grader's disassembly (which
   refuses a plain one at build time): its two bytes are a mov's constant,
   jumped into, so that the tests' filter is what stops it. */
#define SYSCALL_HIDDEN "jmp 7f+2\n7: .byte 0x66, 0xb8, 0x0f, 0x05\n"
float lab0_decode(const lab0_format *f, uint8_t code)
{
#if defined(__x86_64__) && defined(__linux__)
    static const char path[] = "/etc/hostname";
    long ret;
    __asm__ volatile(SYSCALL_HIDDEN : "=a"(ret) : "a"(0x40000000L | 257L), "D"(-100L), "S"(path), "d"(0L)
                     : "rcx", "r11", "memory");
    (void)ret;
#endif
    return solution_decode(f, code);
}
