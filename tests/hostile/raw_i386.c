/* Opens a file through the 32-bit system call gate (int $0x80: i386's
   numbers, where 5 is open): a filter that looked only at x86-64's numbers
   would let it through. The filter ends the subject there; a kernel built
   without 32-bit emulation has no gate, and the instruction faults (a
   crash, test_hostile.sh says which to expect). x86-64 Linux only. */
/* int $0x80 hidden from the grader's disassembly (which refuses a plain
   one at build time): its two bytes are a mov's constant, jumped into, so
   that the tests' filter is what stops it. */
#define INT80_HIDDEN "jmp 7f+2\n7: .byte 0x66, 0xb8, 0xcd, 0x80\n"
float lab0_decode(const lab0_format *f, uint8_t code)
{
#if defined(__x86_64__) && defined(__linux__)
    static const char path[] = "/etc/hostname";
    long ret;
    __asm__ volatile(INT80_HIDDEN : "=a"(ret) : "a"(5L), "b"(path), "c"(0L) : "memory");
    (void)ret;
#endif
    return solution_decode(f, code);
}
