/* Fills the sandbox's private /tmp (memory, as a tmpfs) with raw system
 * calls, a file of 1000 KiB after another, and answers wrongly only if it
 * could write more than the 64 MiB the sandbox gives it: full marks mean the
 * limit held. x86-64 Linux only. */
/* The syscall instruction hidden from the grader's disassembly (which
   refuses a plain one at build time): its two bytes are a mov's constant,
   jumped into, so that the tests' filter is what stops it. */
#define SYSCALL_HIDDEN "jmp 7f+2\n7: .byte 0x66, 0xb8, 0x0f, 0x05\n"
#if defined(__x86_64__) && defined(__linux__)
static long raw3(long n, long a, long b, long c)
{
    long ret;
    __asm__ volatile(SYSCALL_HIDDEN : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}
/* Files of 1000 KiB each, under the 1 MiB a test may write to one file. */
static long fill(void)
{
    static char block[1000 << 10];
    char name[] = "/tmp/fill-000";
    long total = 0;
    for (int i = 0; i < 200; i++) {
        name[10] = (char)('0' + i / 100), name[11] = (char)('0' + i / 10 % 10);
        name[12] = (char)('0' + i % 10);
        long fd = raw3(2, (long)name, 01 | 0100 | 01000, 0644);
        if (fd < 0)
            break;
        long n = raw3(1, fd, (long)block, sizeof block);
        raw3(3, fd, 0, 0);
        if (n <= 0)
            break;
        total += n;
        if (n < (long)sizeof block)
            break;
    }
    return total;
}
#else
static long fill(void) { return 0; }
#endif
lab0_limits lab0_format_limits(const lab0_format *f)
{
    lab0_limits l = solution_format_limits(f);
    if (fill() > (64L << 20))
        l.max = 0;
    return l;
}
