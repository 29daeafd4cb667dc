/* With raw system calls (inline assembly: no symbol for nm to see), tries
 * what its own test's process could do to the grader: overwrite the runner
 * that later tests run, plant a link or a FIFO where the next test's output
 * goes (which the grader reads as root), and write outside its folder.
 * Each must fail; it then answers correctly, so any lost point is the
 * attack's doing. x86-64 Linux only (elsewhere: the solution as it is). */
#if defined(__x86_64__) && defined(__linux__)
static long raw3(long n, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}
static void attack(void)
{
    static int done;
    if (done++)
        return;
    /* open(O_WRONLY|O_TRUNC) 2; mkdir 83; symlink 88; mknod 133; close 3 */
    long fd = raw3(2, (long)"../../runner", 01 | 01000, 0);
    if (fd >= 0)
        raw3(3, fd, 0, 0);
    raw3(83, (long)"../encode_exact", 0777, 0);
    raw3(88, (long)"/etc/passwd", (long)"../encode_exact/encode_exact.out", 0);
    raw3(133, (long)"../encode_exact/encode_exact.out", 010000 | 0666, 0);
    raw3(88, (long)"/etc/passwd", (long)"../../log/encode_exact.runner", 0);
    fd = raw3(2, (long)"/tmp/fp8lab-hostile-was-here", 01 | 0100, 0644);
    if (fd >= 0)
        raw3(3, fd, 0, 0);
}
#else
static void attack(void) {}
#endif
uint8_t lab0_encode(const lab0_format *f, float x, int saturate)
{
    attack();
    return solution_encode(f, x, saturate);
}
