/*
 * subject.c - the subject's main: the only process where a submission's
 * code runs (channel.h, policy.h).
 *
 * The grader links this file, the lab's call table (labN_calls.c with
 * GR_SUBJECT), the course's library and the submission's objects, and
 * nothing else, into one static program. The judge starts it with the
 * channel on descriptors 3 (calls), 4 (replies) and 5 (the arena), and the
 * first filter already in place (gr_policy_start). It maps the arena, sets
 * its SIGSYS handler, lets the call table start what it needs (sj_start),
 * locks itself down (gr_policy_lock, or the call table's own filter), then
 * runs calls until the call pipe closes.
 *
 * lab5's subject is the one exception to "one static program": it links
 * the CUDA libraries dynamically, and its call table starts CUDA and
 * installs the filter a CUDA context needs (lab5/calls.c, policy.h).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "channel.h"
#include "policy.h"

static unsigned char *arena;

void *sj_ptr(uint64_t a)
{
    if (a == 0 || a - 1 >= SJ_ARENA_BYTES)
        return NULL;
    return arena + (a - 1);
}

void sj_fix(void *field)
{
    uint64_t a;
    memcpy(&a, field, sizeof a);
    void *p = sj_ptr(a);
    memcpy(field, &p, sizeof p);
}

float sj_float(uint64_t a)
{
    uint32_t bits = (uint32_t)a;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void *sj_ret(void) { return ((sj_header *)arena)->ret; }

/* A call the kernel refused: its number goes to the judge, then the
 * subject ends. */
static void on_sigsys(int sig, siginfo_t *info, void *context)
{
    (void)sig, (void)context;
    ((volatile sj_header *)arena)->syscall = info->si_syscall;
    _exit(SIGSYS + 128);
}

/* What a lab's call table does before the first call, when it needs to
 * (lab5's starts CUDA): returns 1 when it has locked the subject itself,
 * 0 when gr_policy_lock should, -1 on failure. */
__attribute__((weak)) int sj_start(void) { return 0; }

static int read_full(int fd, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r <= 0)
            return -1;
        p += r, n -= (size_t)r;
    }
    return 0;
}

int main(void)
{
    arena = mmap(NULL, SJ_ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, SJ_ARENA_FD, 0);
    if (arena == MAP_FAILED)
        return 120;
    close(SJ_ARENA_FD);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0)
        return 121;
    int locked = sj_start();
    if (locked < 0 || (locked == 0 && gr_policy_lock() != 0))
        return 121;
    sj_header *h = (sj_header *)arena;
    for (;;) {
        sj_token call;
        if (read_full(SJ_CALL_FD, &call, sizeof call) != 0)
            return 0;
        h->syscall = -1;
        uint64_t a[SJ_MAX_ARGS];
        memcpy(a, h->args, sizeof a);
        sj_token reply = {sj_dispatch(call.word, a) == 0 ? 'd' : '?', call.seq};
        /* what it printed reaches its test's output before the judge goes
         * on (and may end it) */
        fflush(NULL);
        if (write(SJ_REPLY_FD, &reply, sizeof reply) != (ssize_t)sizeof reply)
            return 0;
    }
}
