/*
 * spawn.c - the grader's child processes under limits and in the sandbox
 * (spawn.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grade.h"
#include "sandbox.h"
#include "spawn.h"

double gr_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

char *gr_xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    return d;
}

/* The first max_lines lines (and at most max_bytes bytes) of a file, or
 * NULL when it is missing or empty. */
char *gr_read_head(const char *path, int max_lines, size_t max_bytes)
{
    /* A test may have left a link or a FIFO in its place: never followed,
     * never waited on, regular files only. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *buf = malloc(max_bytes + 64);
    size_t n = buf ? fread(buf, 1, max_bytes, f) : 0;
    int more = buf && fgetc(f) != EOF;
    fclose(f);
    if (!buf || n == 0) {
        free(buf);
        return NULL;
    }
    size_t end = 0;
    int lines = 0;
    while (end < n && lines < max_lines)
        if (buf[end++] == '\n')
            lines++;
    more = more || end < n;
    while (end > 0 && buf[end - 1] == '\n')
        end--;
    strcpy(buf + end, more ? "\n[...]" : "");
    return buf;
}

char *gr_read_file(const char *path, size_t max_bytes, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char *text = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (size_t)st.st_size <= max_bytes && (text = malloc((size_t)st.st_size + 1)) != NULL) {
        size_t n = 0;
        ssize_t got;
        while (n < (size_t)st.st_size && (got = read(fd, text + n, (size_t)st.st_size - n)) > 0)
            n += (size_t)got;
        text[n] = '\0';
        *len = n;
    }
    if (fd >= 0)
        close(fd);
    return text;
}

/* Splits a space-separated list of flags onto argv at *argc. */
void gr_push_words(char **argv, int *argc, int max, char *words)
{
    for (char *w = strtok(words, " "); w && *argc < max - 1; w = strtok(NULL, " "))
        argv[(*argc)++] = w;
}

/* ---- child processes ----------------------------------------------------------------- */

/* Whether this grading run's processes go into the sandbox (gr_grade says). */
static int sandboxed;

void gr_spawn_use_sandbox(int on) { sandboxed = on; }

/* How many processes user me runs now, from /proc; -1 if unknown. */
static long user_processes(uid_t me)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    long count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        struct stat st;
        snprintf(path, sizeof path, "/proc/%s", e->d_name);
        if (stat(path, &st) == 0 && st.st_uid == me)
            count++;
    }
    closedir(d);
    return count;
}

static void set_limits(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit r = {soft, hard > soft ? hard : soft};
    setrlimit(resource, &r);
}

static void set_limit(int resource, rlim_t value) { set_limits(resource, value, value); }

/*
 * Starts argv in a process group of its own, stdin from /dev/null, stdout
 * and stderr to log, under lim; results_fd (when >= 0) becomes its fd 3.
 * Returns the pid, or -1.
 */
pid_t gr_spawn(char *const argv[], char *const envp[], const char *log, int results_fd,
                   const gr_limits *lim)
{
    pid_t pid;
    /* Out of processes or memory for a moment is the machine's failing,
     * not the submission's: wait and try again, 50 ms to 1.6 s. */
    for (int tries = 0; (pid = fork()) < 0 && (errno == EAGAIN || errno == ENOMEM) && tries < 6;
         tries++) {
        struct timespec wait = {0, (50L * 1000 * 1000) << (tries < 4 ? tries : 4)};
        wait.tv_sec = wait.tv_nsec / 1000000000L;
        wait.tv_nsec %= 1000000000L;
        nanosleep(&wait, NULL);
    }
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    /* The log is the grader's: in a folder no sandbox writes, and even so
     * never through a link or into a FIFO. */
    int out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0644);
    struct stat st;
    if (in < 0 || out < 0 || fstat(out, &st) != 0 || !S_ISREG(st.st_mode))
        _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    if (results_fd >= 0 && dup2(results_fd, 3) < 0)
        _exit(126);
    for (int fd = results_fd >= 0 ? 4 : 3; fd < 1024; fd++)
        close(fd);
    /* Whatever allocates comes before the limits: a sanitized grader's
     * allocator cannot work under an address-space limit. */
    const gr_sandbox *sb = gr_sandbox_get(NULL);
    int boxed_on = sandboxed && sb->on && lim->jail;
    char **boxed = boxed_on ? gr_sandbox_argv(sb, lim->jail, lim->view, envp, argv) : NULL;
    /* In bwrap or under Landlock alike, a step runs as the sandbox's user. */
    int drop = lim->jail && (boxed_on || !sb->on) && sb->drop;
    uid_t who = drop ? sb->uid : getuid();
    long procs = lim->nproc > 0 && who != 0 ? user_processes(who) : -1;
    set_limit(RLIMIT_CORE, 0);
    if (lim->as_mib > 0)
        set_limit(RLIMIT_AS, (rlim_t)lim->as_mib << 20);
    if (lim->fsize_bytes > 0)
        set_limits(RLIMIT_FSIZE, (rlim_t)lim->fsize_bytes, (rlim_t)lim->fsize_hard);
    if (lim->cpu_s > 0)
        set_limit(RLIMIT_CPU, (rlim_t)lim->cpu_s);
    if (lim->nofile > 0)
        set_limit(RLIMIT_NOFILE, (rlim_t)lim->nofile);
    if (drop && gr_sandbox_enter(sb) != 0) {
        dprintf(2, "cannot become the sandbox's user: %s\n", strerror(errno));
        _exit(126);
    }
    /* RLIMIT_NPROC counts every process of the user, and root is exempt
     * from it: it bounds a fork bomb only under an unprivileged user. */
    if (procs >= 0)
        set_limit(RLIMIT_NPROC, (rlim_t)(procs + lim->nproc));
    if (boxed_on) {
        /* bwrap itself gets no environment: inside, its process is pid 1,
         * whose environment the submission could read (/proc/1/environ).
         * What runs in it gets envp alone (--clearenv, --setenv). bwrap is
         * still looked for on the grader's PATH. */
        static char *const nothing[] = {NULL};
        if (boxed)
            execvpe(boxed[0], boxed, nothing);
        dprintf(2, "cannot run bwrap: %s\n", strerror(errno));
        _exit(127);
    }
    /* No bwrap: the kernel's Landlock shows it the same view. */
    if (lim->jail && gr_sandbox_restrict(sb, lim->view, lim->jail) != 0) {
        dprintf(2, "cannot restrict it with Landlock: %s\n", strerror(errno));
        _exit(126);
    }
    execve(argv[0], argv, envp);
    execvpe(argv[0], argv, envp);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Waits for pid until deadline (a gr_now() time), then kills its group.
 * Returns the wait status; *timed_out says whether it was killed. */
int gr_wait_until(pid_t pid, double deadline, int *timed_out)
{
    int status = 0;
    *timed_out = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (gr_now() > deadline) {
            *timed_out = 1;
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        struct timespec ms = {0, 5 * 1000 * 1000};
        nanosleep(&ms, NULL);
    }
    kill(-pid, SIGKILL); /* anything the child left in its group */
    return status;
}
