/*
 * policy.c - the subject's seccomp filters and Landlock ruleset (policy.h).
 */
#define _GNU_SOURCE
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>


#if defined(__x86_64__)
#define AUDIT_ARCH_THIS AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_THIS AUDIT_ARCH_AARCH64
#else
#error "the grader's seccomp policy knows x86-64 and AArch64 only"
#endif

#define CLONE_THREAD_FLAG 0x00010000u /* CLONE_THREAD, linux/sched.h */

#define NR_OFF offsetof(struct seccomp_data, nr)
#define ARCH_OFF offsetof(struct seccomp_data, arch)
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (ARG_LO(i) + 4)

/* Computing: what a running subject may always do. */
static const long computing[] = {
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_close, SYS_lseek, SYS_fstat,
    SYS_mmap, SYS_munmap, SYS_mremap, SYS_brk, SYS_mprotect,
    SYS_exit, SYS_exit_group, SYS_rt_sigreturn, SYS_rt_sigprocmask, SYS_restart_syscall,
    SYS_getpid, SYS_gettid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid, SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday,
    SYS_nanosleep, SYS_clock_nanosleep, SYS_futex, SYS_getrandom, SYS_sched_yield,
    SYS_sched_getaffinity, SYS_getrusage, SYS_times,
    /* glibc's qsort asks the machine's memory (sysinfo) before its first
     * large sort */
    SYS_sysinfo,
#ifdef SYS_time
    SYS_time,
#endif
};

/* What a static program's start-up adds (glibc's, OpenBLAS's constructor,
 * and the subject's SIGSYS handler): never needed once main runs. */
static const long start_up[] = {
#ifdef SYS_arch_prctl
    SYS_arch_prctl,
#endif
    SYS_set_tid_address, SYS_set_robust_list, SYS_rseq, SYS_rt_sigaction,
    SYS_seccomp,
};

/* What a dynamically linked subject's loader and the CUDA runtime's start
 * (cudaFree(0), a stream, cuBLASLt's handle) add: the loader opens the
 * libraries, and the runtime opens /dev/nvidia*, talks to the driver with
 * ioctl, maps device memory, starts threads and reads some of /proc and
 * /sys; Landlock confines every open (channel.c). This list has not yet
 * run on a GPU: a call missing from it stops the start-up as a forbidden
 * system call, reported by name. */
static const long cuda_start[] = {
    SYS_openat, SYS_pread64, SYS_ioctl, SYS_statx, SYS_faccessat, SYS_readlinkat,
    SYS_getdents64, SYS_uname, SYS_getcwd, SYS_fcntl, SYS_dup, SYS_dup3, SYS_pipe2,
    SYS_eventfd2, SYS_ppoll, SYS_epoll_create1, SYS_epoll_ctl, SYS_epoll_pwait,
    SYS_sched_setaffinity, SYS_get_mempolicy, SYS_prctl, SYS_sigaltstack, SYS_membarrier,
    SYS_getppid, SYS_sched_getparam, SYS_sched_getscheduler, SYS_mincore,
#ifdef SYS_newfstatat
    SYS_newfstatat,
#endif
#ifdef SYS_access
    SYS_access,
#endif
#ifdef SYS_readlink
    SYS_readlink,
#endif
#ifdef SYS_poll
    SYS_poll,
#endif
#ifdef SYS_epoll_wait
    SYS_epoll_wait,
#endif
};

/* What a running CUDA subject may do besides computing (gr_policy_lock_cuda
 * adds ioctl and mmap on the device files, and threads). */
static const long cuda_running[] = {
    SYS_ppoll, SYS_epoll_pwait, SYS_get_mempolicy, SYS_sigaltstack, SYS_membarrier,
    SYS_set_robust_list, SYS_rseq, SYS_sched_getaffinity,
#ifdef SYS_poll
    SYS_poll,
#endif
#ifdef SYS_epoll_wait
    SYS_epoll_wait,
#endif
};

typedef struct prog {
    struct sock_filter op[512];
    int n;
} prog;

static void emit(prog *p, struct sock_filter f)
{
    if (p->n < (int)(sizeof p->op / sizeof p->op[0]))
        p->op[p->n] = f;
    p->n++;
}

#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP(code, k, jt, jf))

static void load_nr(prog *p) { emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, NR_OFF)); }

static void allow_list(prog *p, const long *nrs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nrs[i], 0, 1));
        emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    }
}

/* Call nr gets result when argument arg equals value (all 64 bits), and
 * SECCOMP_RET_TRAP otherwise. Leaves nr loaded. */
static void when_arg(prog *p, long nr, int arg, uint64_t value, uint32_t result)
{
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 6));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)value, 0, 3));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(arg)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(value >> 32), 0, 1));
    emit(p, STMT(BPF_RET | BPF_K, result));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
    load_nr(p);
}

/* Call nr is allowed when argument arg, as an unsigned 64-bit number, is
 * at most max; SECCOMP_RET_TRAP otherwise. Leaves nr loaded. */
static void when_arg_at_most(prog *p, long nr, int arg, uint32_t max)
{
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 6));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(arg)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
    emit(p, JUMP(BPF_JMP | BPF_JGT | BPF_K, max, 1, 0));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
    load_nr(p);
}

/* Call nr gets result, whatever its arguments. */
static void always(prog *p, long nr, uint32_t result)
{
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1));
    emit(p, STMT(BPF_RET | BPF_K, result));
}

/* The filter's head: another architecture's calls are killed (their
 * numbers mean other calls), and so are x32's on x86-64. */
static void head(prog *p)
{
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARCH_OFF));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_THIS, 1, 0));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    load_nr(p);
#ifdef __x86_64__
    emit(p, JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
}

/* The computing calls, and those allowed with one argument fixed. */
static void computing_calls(prog *p)
{
    allow_list(p, computing, sizeof computing / sizeof computing[0]);
    /* stdio asks whether its output is a terminal */
    when_arg(p, SYS_ioctl, 1, TCGETS, SECCOMP_RET_ALLOW);
    /* No call that takes a path: fstat (SYS_fstat, above) takes a
     * descriptor. glibc's fstat (2.33 and later) is newfstatat(fd, "",
     * AT_EMPTY_PATH) instead, whose path a filter cannot read and the
     * kernel follows whenever it is not empty: it is answered ENOSYS
     * without reaching the kernel (stdio then buffers as for a pipe), and
     * any other is forbidden, as statx is. */
#ifdef SYS_newfstatat
    when_arg(p, SYS_newfstatat, 3, AT_EMPTY_PATH, SECCOMP_RET_ERRNO | ENOSYS);
#endif
    /* abort() signals the caller itself, and only itself */
    when_arg(p, SYS_tgkill, 0, (uint64_t)getpid(), SECCOMP_RET_ALLOW);
    /* getrlimit, never setting one */
    when_arg(p, SYS_prlimit64, 2, 0, SECCOMP_RET_ALLOW);
    /* advice about its own memory (malloc's), up to MADV_POPULATE_WRITE
     * (23): not MADV_HWPOISON or MADV_SOFT_OFFLINE (100, 101), which a
     * subject left with root's capabilities could use on the machine */
    when_arg_at_most(p, SYS_madvise, 2, 23);
    /* OpenBLAS binds its buffer at its first product: a memory policy for
     * its own pages, flags 0 (no MPOL_MF_MOVE_ALL, which moves pages that
     * other processes share) */
    when_arg(p, SYS_mbind, 5, 0, SECCOMP_RET_ALLOW);
}

/* Installs p; a filter installed after the subject has started (a lock)
 * is put on every thread of it at once (TSYNC: one started before the lock,
 * the CUDA runtime's or any other, gets no more than the others). */
static int install(prog *p, int set_no_new_privs)
{
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
    if (p->n > (int)(sizeof p->op / sizeof p->op[0])) {
        errno = E2BIG;
        return -1;
    }
    struct sock_fprog f = {(unsigned short)p->n, p->op};
    if (set_no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                      set_no_new_privs ? 0 : SECCOMP_FILTER_FLAG_TSYNC, &f);
    if (rc > 0) /* the thread that could not take it */
        errno = EPERM;
    return rc == 0 ? 0 : -1;
}

/* The one execveat: of the subject's file, open on exe_fd, which is closed
 * once it runs; with AT_EMPTY_PATH, no path is looked up. Leaves nr
 * loaded. */
static void exec_of(prog *p, int exe_fd)
{
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SYS_execveat, 0, 8));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)exe_fd, 0, 5));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(0)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(4)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AT_EMPTY_PATH, 0, 1));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
    load_nr(p);
}

int gr_policy_start(int exe_fd)
{
    static prog p;
    p.n = 0;
    head(&p);
    exec_of(&p, exe_fd);
    computing_calls(&p);
    /* prlimit64 may only read here (above); start-up reads it too */
    allow_list(&p, start_up, sizeof start_up / sizeof start_up[0]);
    /* glibc's start-up reads /proc/self/exe, and OpenBLAS's the number of
     * processors: both go on without */
#ifdef SYS_readlink
    always(&p, SYS_readlink, SECCOMP_RET_ERRNO | ENOENT);
#endif
    always(&p, SYS_readlinkat, SECCOMP_RET_ERRNO | ENOENT);
    always(&p, SYS_openat, SECCOMP_RET_ERRNO | EACCES);
    return install(&p, 1);
}

int gr_policy_lock(void)
{
    static prog p;
    p.n = 0;
    head(&p);
    computing_calls(&p);
    /* no_new_privs is set already, inherited */
    return install(&p, 0);
}

/* clone: threads only (CLONE_THREAD in its flags, its first argument on
 * x86-64 and AArch64); clone3, whose flags a filter cannot read, says it
 * does not exist, and glibc falls back to clone. */
static void threads(prog *p)
{
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SYS_clone, 0, 4));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
    emit(p, JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD_FLAG, 0, 1));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
#ifdef SYS_clone3
    always(p, SYS_clone3, SECCOMP_RET_ERRNO | ENOSYS);
#endif
}

int gr_policy_start_cuda(int exe_fd)
{
    static prog p;
    p.n = 0;
    head(&p);
    exec_of(&p, exe_fd);
    threads(&p);
    /* a socket (the runtime looks for the multi-process service) is
     * refused, not fatal */
    always(&p, SYS_socket, SECCOMP_RET_ERRNO | EACCES);
    allow_list(&p, cuda_start, sizeof cuda_start / sizeof cuda_start[0]);
    computing_calls(&p);
    allow_list(&p, start_up, sizeof start_up / sizeof start_up[0]);
    return install(&p, 1);
}

/* The character devices open now but the memory devices (major 1:
 * /dev/null, /dev/zero, /dev/mem): those the CUDA runtime opened. */
static int device_fds(int *fds, int max)
{
    int n = 0;
    for (int fd = 0; fd < 1024 && n < max; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) != 1)
            fds[n++] = fd;
    }
    return n;
}

/* Call nr is allowed when argument arg (its low 32 bits: a descriptor) is
 * one of fds; otherwise the filter goes on. Leaves nr loaded. */
static void on_fds(prog *p, long nr, int arg, const int *fds, int n)
{
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, (uint8_t)(2 * n + 2)));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
    for (int i = 0; i < n; i++) {
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)fds[i], 0, 1));
        emit(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    }
    load_nr(p);
}

int gr_policy_lock_cuda(void)
{
    static prog p;
    int fds[32];
    int n = device_fds(fds, 32);
    p.n = 0;
    head(&p);
    /* ioctl on the device files the runtime opened (any other but TCGETS,
     * below, is forbidden) */
    on_fds(&p, SYS_ioctl, 0, fds, n);
    /* mmap: anonymous memory, or of those device files */
    emit(&p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SYS_mmap, 0, (uint8_t)(2 * n + 5)));
    emit(&p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3)));
    emit(&p, JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_ANONYMOUS, 0, 1));
    emit(&p, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(&p, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(4)));
    for (int i = 0; i < n; i++) {
        emit(&p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)fds[i], 0, 1));
        emit(&p, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    }
    emit(&p, STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
    threads(&p);
    allow_list(&p, cuda_running, sizeof cuda_running / sizeof cuda_running[0]);
    computing_calls(&p);
    /* no_new_privs is set already, inherited */
    return install(&p, 0);
}

#include "syscall_names.h"

const char *gr_syscall_name(long nr)
{
    for (size_t i = 0; i < sizeof syscall_names / sizeof syscall_names[0]; i++)
        if (syscall_names[i].nr == nr)
            return syscall_names[i].name;
    return NULL;
}
