/* Writes, into the arena's header (the page before the format it was
   given), what the subject would write at a forbidden system call, or what
   once meant "the subject never started", then ends itself: the judge takes
   neither as the grader's word. It reports an early exit against the
   submission, never a grader error. */
#include <unistd.h>

float lab0_decode(const lab0_format *f, uint8_t code)
{
    (void)code;
    /* sj_header.syscall: after fn, nargs and 16 arguments */
    *(volatile long long *)((const char *)f - 4096 + 136) = -1000 - 13;
    _exit(1);
}
