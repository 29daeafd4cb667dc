/*
 * channel.c - the judge's side of the channel (channel.h): starts the
 * subject, passes calls, and says what went wrong when the subject does not
 * come back.
 */
#define _GNU_SOURCE
#include "channel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <linux/landlock.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "landlock.h"
#include "policy.h"
#include "suite.h"

/* Bytes after each output block that the call must leave as they were. */
#define GUARD_BYTES 64
#define FILL 0xCD

static struct {
    pid_t pid;
    int call_fd, reply_fd;
    unsigned char *base;
} subject = {-1, -1, -1, NULL};

/* fd moved to 10 or above, close-on-exec (out of the way of 3, 4, 5). */
static int high_fd(int fd)
{
    int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return h;
}

static sj_header *header(void);

/* Debian's nobody, for a subject the judge would start as root. */
#define NOBODY 65534

/* Whether err is the machine running short for a moment. */
static int short_of_resources(int err)
{
    return err == EAGAIN || err == ENOMEM || err == EMFILE || err == ENFILE;
}

/* The judge ran short of processes or memory: its error, not the test's
 * (suite.h). */
static void judge_short(const char *what)
{
    fprintf(stderr, "grader: the judge could not %s: %s\n", what, strerror(errno));
    fflush(NULL);
    _exit(GRADER_JUDGE_SHORT);
}

/* fork, tried again for 50 ms to 1.6 s while the machine is short. For the
 * grader's own tests, FP8LAB_TEST_JUDGE_SHORT=N fails the first N tries as
 * if it were. */
static pid_t fork_patiently(void)
{
    const char *test = getenv("FP8LAB_TEST_JUDGE_SHORT");
    int fail = test ? atoi(test) : 0;
    pid_t pid = -1;
    for (int tries = 0; tries < 7; tries++) {
        if (tries > 0) {
            struct timespec wait = {0, (50L * 1000 * 1000) << (tries < 5 ? tries - 1 : 4)};
            wait.tv_sec = wait.tv_nsec / 1000000000L;
            wait.tv_nsec %= 1000000000L;
            nanosleep(&wait, NULL);
        }
        if (tries < fail) {
            errno = EAGAIN;
            continue;
        }
        pid = fork();
        if (pid >= 0 || !short_of_resources(errno))
            break;
    }
    return pid;
}

/* Whether this process has no capability, and none that an execve could
 * give back (its bounding set is empty). */
static int powerless(void)
{
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &head, data) != 0)
        return 0;
    for (int i = 0; i < 2; i++)
        if (data[i].effective || data[i].permitted || data[i].inheritable)
            return 0;
    for (int cap = 0; cap < 64; cap++)
        if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
            return 0;
    return 1;
}

/* Gives up every capability: for good (root's execve gives none back:
 * SECBIT_NOROOT, locked) and from the bounding set. Best effort: powerless
 * says whether it worked. */
static void drop_capabilities(void)
{
    prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
          0, 0, 0);
    for (int cap = 0; cap < 64; cap++)
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[2];
    memset(none, 0, sizeof none);
    syscall(SYS_capset, &head, none);
}

/* Whether the subject is lab5's, a dynamic program with a CUDA context
 * (lab5/calls.c defines this: the folders of the libraries it loads,
 * separated by spaces). */
extern const char sj_cuda_libdirs[] __attribute__((weak));
static int cuda_subject(void) { return sj_cuda_libdirs != NULL; }

/* Where a CUDA subject may read, besides its own file: the loader's cache
 * and the system's libraries, the CUDA libraries' folders, its own /proc
 * entry and what the driver reads of /proc and /sys; and read, write and
 * ioctl on the NVIDIA device files. Returns 0, or -1. */
static int cuda_rules(int ruleset, int abi)
{
    const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    /* the libraries, and the loader, which the kernel runs (the program's
     * interpreter) */
    static const char *const libraries[] = {"/etc/ld.so.cache", "/etc/ld.so.conf",
                                            "/etc/ld.so.conf.d", "/lib", "/lib64", "/usr/lib",
                                            "/usr/lib64", "/usr/local/lib", NULL};
    static const char *const driver[] = {"/sys", "/proc/driver", "/proc/cpuinfo",
                                         "/proc/meminfo", "/proc/stat", "/proc/sys", NULL};
    for (int i = 0; libraries[i]; i++)
        if (gr_landlock_allow(ruleset, abi, libraries[i], read | LANDLOCK_ACCESS_FS_EXECUTE) != 0)
            return -1;
    for (int i = 0; driver[i]; i++)
        if (gr_landlock_allow(ruleset, abi, driver[i], read) != 0)
            return -1;
    char own[64];
    snprintf(own, sizeof own, "/proc/%d", (int)getpid());
    if (gr_landlock_allow(ruleset, abi, own, read) != 0)
        return -1;
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", sj_cuda_libdirs);
    for (char *save = NULL, *d = strtok_r(dirs, " ", &save); d; d = strtok_r(NULL, " ", &save))
        if (gr_landlock_allow(ruleset, abi, d, read) != 0)
            return -1;
    /* getdents64 on a buffer of its own: no malloc in a child that a
     * judge with threads (its own CUDA) may have forked */
    int dev = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char buf[8192];
    long got;
    int rc = 0;
    while (dev >= 0 && rc == 0 && (got = syscall(SYS_getdents64, dev, buf, sizeof buf)) > 0)
        for (long at = 0; at < got && rc == 0;) {
            struct dirent64 *e = (struct dirent64 *)(buf + at);
            at += e->d_reclen;
            if (strncmp(e->d_name, "nvidia", 6) != 0)
                continue;
            char path[300];
            snprintf(path, sizeof path, "/dev/%.255s", e->d_name);
            rc = gr_landlock_allow(ruleset, abi, path,
                                   read | LANDLOCK_ACCESS_FS_WRITE_FILE | (1ULL << 15));
        }
    if (dev >= 0)
        close(dev);
    return rc;
}

/* In the child: the subject's descriptors, limits, user and filters, then
 * the subject itself. A failure is written, as errno, to status_fd. */
static void run_subject(pid_t parent, const char *path, int call_fd, int reply_fd, int memfd,
                        long mem_mib, int status_fd)
{
    static char *const argv[] = {"subject", NULL};
    static char *envp[] = {"LC_ALL=C", "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", NULL,
                           NULL};
    /* which GPUs, as the instructor chose (grade.c) */
    static char gpus[256];
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (cuda_subject() && visible) {
        snprintf(gpus, sizeof gpus, "CUDA_VISIBLE_DEVICES=%s", visible);
        envp[3] = gpus;
    }
    int err = 0;
    signal(SIGPIPE, SIG_DFL);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(call_fd, SJ_CALL_FD) < 0 ||
        dup2(reply_fd, SJ_REPLY_FD) < 0 || dup2(memfd, SJ_ARENA_FD) < 0 ||
        dup2(status_fd, SJ_ARENA_FD + 1) < 0 || fcntl(SJ_ARENA_FD + 1, F_SETFD, FD_CLOEXEC) < 0)
        goto failed;
    status_fd = SJ_ARENA_FD + 1;
    /* nothing else of the judge's: not Check's own files */
    close_range(SJ_ARENA_FD + 2, ~0U, 0);
    /* The lab's memory limit, on the subject alone (a sanitized judge
     * cannot run under one; the subject is never sanitized). */
    if (mem_mib > 0) {
        struct rlimit as = {(rlim_t)mem_mib << 20, (rlim_t)mem_mib << 20};
        if (setrlimit(RLIMIT_AS, &as) != 0)
            goto failed;
    }
    /* The subject's file, opened here, while the judge's user can reach
     * it; then run from this descriptor (execveat), the only file Landlock
     * lets this process run, where the kernel has Landlock. */
    int exe = open(path, O_PATH | O_CLOEXEC);
    int abi = gr_landlock_abi();
    int ruleset = abi > 0 ? gr_landlock_ruleset(abi) : -1;
    if (exe < 0 || (abi > 0 && (ruleset < 0 ||
                                gr_landlock_allow_fd(ruleset, abi, exe,
                                                     LANDLOCK_ACCESS_FS_EXECUTE |
                                                         LANDLOCK_ACCESS_FS_READ_FILE) != 0 ||
                                (cuda_subject() && cuda_rules(ruleset, abi) != 0))))
        goto failed;
    /* A judge left as root (no sandbox to drop it: FP8LAB_SANDBOX=none, a
     * container) runs the subject as nobody, with no capability; where it
     * cannot change user (bwrap as root, in a user namespace that maps
     * uid 0 alone), as a uid 0 with no capability, now or after execve. */
    if (geteuid() == 0 &&
        (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0) &&
        (drop_capabilities(), !powerless()))
        goto failed;
    /* after any change of user, which clears it */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(126);
    if ((ruleset >= 0 && gr_landlock_enforce(ruleset) != 0) ||
        (cuda_subject() ? gr_policy_start_cuda(exe) : gr_policy_start(exe)) != 0)
        goto failed;
    syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
failed:
    err = errno;
    if (write(status_fd, &err, sizeof err) < 0)
        _exit(127);
    _exit(126);
}

static void start(void)
{
    const char *env = getenv("GRADER_SUBJECT");
    if (!env || !*env)
        ck_abort_msg("grader error: GRADER_SUBJECT is not set");
    const char *mem = getenv("GRADER_SUBJECT_MEM_MIB");
    long mem_mib = mem ? atol(mem) : 0;
    static char path[4096];
    snprintf(path, sizeof path, "%s", env);

    int call[2], reply[2];
    int memfd = memfd_create("arena", MFD_CLOEXEC);
    if (memfd < 0 && short_of_resources(errno))
        judge_short("create the channel's arena");
    /* The arena is a file: the limit on a test's output would stop it. The
     * grader leaves room for it in the hard limit; the subject, which
     * cannot change its limits (policy.h), keeps the soft one. */
    struct rlimit fsize;
    getrlimit(RLIMIT_FSIZE, &fsize);
    rlim_t soft = fsize.rlim_cur;
    fsize.rlim_cur = fsize.rlim_max;
    setrlimit(RLIMIT_FSIZE, &fsize);
    int sized = memfd >= 0 ? ftruncate(memfd, (off_t)SJ_ARENA_BYTES) : -1;
    fsize.rlim_cur = soft;
    setrlimit(RLIMIT_FSIZE, &fsize);
    int piped = memfd >= 0 && sized == 0 && pipe(call) == 0 && pipe(reply) == 0;
    if (memfd >= 0 && sized == 0 && !piped && short_of_resources(errno))
        judge_short("create the channel's pipes");
    if (!piped)
        ck_abort_msg("grader error: cannot set up the channel: %s", strerror(errno));
    memfd = high_fd(memfd);
    for (int i = 0; i < 2; i++)
        call[i] = high_fd(call[i]), reply[i] = high_fd(reply[i]);
    subject.base = mmap(NULL, SJ_ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (subject.base == MAP_FAILED && errno == ENOMEM)
        judge_short("map the channel's arena");
    if (memfd < 0 || call[0] < 0 || call[1] < 0 || reply[0] < 0 || reply[1] < 0 ||
        subject.base == MAP_FAILED)
        ck_abort_msg("grader error: cannot set up the channel: %s", strerror(errno));
    /* Judge and subject take turns, never run at once: on one CPU, each
     * wakes the other without a trip across CPUs (on a virtual machine,
     * 100 us against 7). The subject inherits it, and cannot change it. */
    int cpu = cuda_subject() ? -1 : sched_getcpu(); /* lab5's: a call is long, and the CUDA
                                                     * runtime's threads are its own */
    cpu_set_t one;
    CPU_ZERO(&one);
    if (cpu >= 0 && cpu < CPU_SETSIZE) {
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
    }
    header()->syscall = -1;
    /* What went wrong before the subject ran, from its child: an errno on
     * a pipe that a successful execve closes. The subject can write the
     * arena, so the arena never says it. */
    int status_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) != 0 || (status_pipe[0] = high_fd(status_pipe[0])) < 0 ||
        (status_pipe[1] = high_fd(status_pipe[1])) < 0) {
        if (short_of_resources(errno))
            judge_short("create the channel's pipes");
        ck_abort_msg("grader error: cannot set up the channel: %s", strerror(errno));
    }
    /* a write to a subject that has ended fails; it does not end the judge */
    signal(SIGPIPE, SIG_IGN);
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork_patiently();
    if (pid < 0 && short_of_resources(errno))
        judge_short("start the subject");
    if (pid == 0)
        run_subject(parent, path, call[0], reply[1], memfd, mem_mib, status_pipe[1]);
    if (pid < 0)
        ck_abort_msg("grader error: cannot start the subject: %s", strerror(errno));
    close(memfd), close(call[0]), close(reply[1]), close(status_pipe[1]);
    subject.pid = pid, subject.call_fd = call[1], subject.reply_fd = reply[0];
    int child_errno = 0;
    ssize_t n;
    do
        n = read(status_pipe[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(status_pipe[0]);
    if (n == (ssize_t)sizeof child_errno) {
        waitpid(pid, NULL, 0);
        subject.pid = -1;
        if (short_of_resources(child_errno)) {
            errno = child_errno;
            judge_short("start the subject");
        }
        ck_abort_msg("grader error: cannot start the subject: %s (seccomp, Landlock or the "
                     "drop to nobody refused, or the program is missing)",
                     strerror(child_errno));
    }
}

static sj_header *header(void) { return (sj_header *)subject.base; }

void sj_begin(sj_call *c, uint32_t fn, const char *name)
{
    if (subject.pid < 0)
        start();
    memset(c, 0, sizeof *c);
    c->fn = fn, c->name = name, c->used = SJ_DATA_OFFSET;
}

size_t sj_size(size_t a, size_t b) { return a && b > SIZE_MAX / a ? SIZE_MAX : a * b; }

static void push(sj_call *c, uint64_t v)
{
    if (c->nargs >= SJ_MAX_ARGS)
        ck_abort_msg("grader error: %s has more than %d arguments", c->name, SJ_MAX_ARGS);
    c->args[c->nargs++] = v;
}

void sj_val(sj_call *c, uint64_t v) { push(c, v); }

void sj_f32(sj_call *c, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    push(c, bits);
}

/* A block of bytes in the arena, followed by a guard; its judge address. */
static unsigned char *block(sj_call *c, size_t bytes)
{
    size_t at = (c->used + 63) & ~(size_t)63;
    if (bytes > SJ_ARENA_BYTES || at + bytes + GUARD_BYTES > SJ_ARENA_BYTES)
        ck_abort_msg("grader error: %s's data (%zu bytes) do not fit the channel", c->name,
                     bytes);
    c->used = at + bytes + GUARD_BYTES;
    memset(subject.base + at + bytes, FILL, GUARD_BYTES);
    return subject.base + at;
}

void *sj_block(sj_call *c, void *p, size_t bytes, sj_dir dir)
{
    if (!p)
        return NULL;
    unsigned char *b = block(c, bytes);
    if (dir == SJ_OUT)
        memset(b, FILL, bytes);
    else if (bytes)
        memcpy(b, p, bytes);
    if (dir != SJ_IN) {
        if (c->nouts >= (int)(sizeof c->outs / sizeof c->outs[0]))
            ck_abort_msg("grader error: %s has too many outputs", c->name);
        c->outs[c->nouts++] = (sj_out_region){p, (size_t)(b - subject.base), bytes};
    }
    return b;
}

void *sj_in(sj_call *c, const void *p, size_t bytes)
{
    void *b = sj_block(c, (void *)p, bytes, SJ_IN);
    sj_arg_block(c, b);
    return b;
}

void *sj_out(sj_call *c, void *p, size_t bytes)
{
    void *b = sj_block(c, p, bytes, SJ_OUT);
    sj_arg_block(c, b);
    return b;
}

void *sj_inout(sj_call *c, void *p, size_t bytes)
{
    void *b = sj_block(c, p, bytes, SJ_INOUT);
    sj_arg_block(c, b);
    return b;
}

static uint64_t encode(const void *copy)
{
    return copy ? (uint64_t)((const unsigned char *)copy - subject.base) + 1 : 0;
}

void sj_link(sj_call *c, void *field, const void *copy)
{
    (void)c;
    uint64_t v = encode(copy);
    memcpy(field, &v, sizeof v);
}

void sj_arg_block(sj_call *c, const void *copy) { push(c, encode(copy)); }

/* Says why the subject did not come back, and fails the test. */
static void subject_lost(const sj_call *c)
{
    int status = 0;
    pid_t r = 0;
    for (int i = 0; i < 100 && r == 0; i++) {
        r = waitpid(subject.pid, &status, WNOHANG);
        if (r == 0)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (r == 0) { /* it closed the channel and went on */
        kill(subject.pid, SIGKILL);
        r = waitpid(subject.pid, &status, 0);
    }
    subject.pid = -1;
    long nr = header()->syscall;
    if (r > 0 && ((WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGSYS) ||
                  (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS))) {
        const char *name = nr >= 0 ? gr_syscall_name(nr) : NULL;
        char num[32];
        snprintf(num, sizeof num, "number %ld", nr);
        ck_abort_msg("forbidden system call: %s, in %s (%s)",
                     name ? name : nr >= 0 ? num : "(not known)", c->name,
                     cuda_subject()
                         ? "a lab function may compute, allocate memory, print, use the CUDA "
                           "runtime and return; it may not open files, start processes or "
                           "signal (README, the grader's rules)"
                         : "a lab function may compute, allocate memory, print and return; "
                           "it may not open files, start processes or threads, or signal");
    }
    /* A crash or an exit is reported as if the test's own process had
     * crashed or exited (Check: an error, "Received signal N" or "Early
     * exit with return value N"), but never with the status that means a
     * test returned (suite.h): that one is a failure. */
    if (r > 0 && WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        fprintf(stderr, "grader: %s crashed: %s (signal %d)\n", c->name, strsignal(sig), sig);
        fflush(NULL);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    if (r > 0 && WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        fprintf(stderr, "grader: %s ended the program with exit status %d\n", c->name, code);
        fflush(NULL);
        if (code != GRADER_SENTINEL && code != GRADER_JUDGE_SHORT)
            _exit(code);
        ck_abort_msg("exited early with status %d: the code under test (%s) called exit() (or "
                     "_exit) instead of returning",
                     code, c->name);
    }
    ck_abort_msg("%s did not return (the grader lost its process)", c->name);
}

void sj_run(sj_call *c)
{
    sj_header *h = header();
    h->fn = c->fn;
    h->nargs = c->nargs;
    memcpy(h->args, c->args, sizeof h->args);
    memset(h->ret, 0, sizeof h->ret);
    static uint32_t seq;
    sj_token call = {c->fn, ++seq}, reply = {0, 0};
    if (write(subject.call_fd, &call, sizeof call) != (ssize_t)sizeof call)
        subject_lost(c);
    unsigned char *r = (unsigned char *)&reply;
    size_t got = 0;
    while (got < sizeof reply) {
        ssize_t n = read(subject.reply_fd, r + got, sizeof reply - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            subject_lost(c);
        got += (size_t)n;
    }
    /* '?' is the subject's "no such call", which the grader's own tests
     * would show; the submission can write it too, so it is not taken as
     * the grader's error. An answer to another call (the submission's, or
     * one late) is not this call's. */
    if (reply.word != 'd' || reply.seq != call.seq)
        ck_abort_msg("%s did not answer as the subject does (reply 0x%02x, to call %u of %u): "
                     "the call is not in the subject, or the code wrote into the grader's "
                     "channel (descriptor %d)",
                     c->name, (unsigned)(reply.word & 0xFF), (unsigned)reply.seq,
                     (unsigned)call.seq, SJ_REPLY_FD);
    for (int i = 0; i < c->nouts; i++) {
        const sj_out_region *o = &c->outs[i];
        memcpy(o->to, subject.base + o->off, o->bytes);
    }
    for (int i = 0; i < c->nouts; i++) {
        const unsigned char *g = subject.base + c->outs[i].off + c->outs[i].bytes;
        for (int k = 0; k < GUARD_BYTES; k++)
            if (g[k] != FILL)
                ck_abort_msg("%s wrote past the end of an output of %zu bytes (byte %d after "
                             "it)",
                             c->name, c->outs[i].bytes, k);
    }
}

void sj_pause(void)
{
    if (subject.pid <= 0 || kill(subject.pid, SIGSTOP) != 0)
        return;
    /* until it has stopped (or ended: left to be reaped where it is lost) */
    siginfo_t info;
    while (waitid(P_PID, (id_t)subject.pid, &info, WSTOPPED | WEXITED | WNOWAIT) != 0 &&
           errno == EINTR)
        ;
}

void sj_resume(void)
{
    if (subject.pid > 0)
        kill(subject.pid, SIGCONT);
}

const void *sj_result(const sj_call *c)
{
    (void)c;
    return header()->ret;
}
