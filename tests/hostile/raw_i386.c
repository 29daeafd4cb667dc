/* Opens a file through the 32-bit system call gate (int $0x80: i386's
   numbers, where 5 is open): a filter that looked only at x86-64's numbers
   would let it through. The filter ends the subject there; a kernel built
   without 32-bit emulation has no gate, and the instruction faults (a
   crash, test_hostile.sh says which to expect). x86-64 Linux only. */
float lab0_decode(const lab0_format *f, uint8_t code)
{
#if defined(__x86_64__) && defined(__linux__)
    static const char path[] = "/etc/hostname";
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(5L), "b"(path), "c"(0L) : "memory");
    (void)ret;
#endif
    return solution_decode(f, code);
}
