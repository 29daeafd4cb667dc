/*
 * test_host_time.c - the host work of every lab5 test, measured without a
 * GPU: lab5's real suite (grading/lab5/suite.c) linked with the grader's
 * runner and a stand-in for CUDA (tests/lab5/cuda_standin.c: host memory,
 * kernels that write nothing, events that time nothing) into
 * standin_runner, beside this program. Each test is run in that runner, as
 * the grader runs it (and again with hidden inputs, GRADER_SEED, when the
 * rubric lists it among those that draw them), and the
 * processor time it used (user + system, its processes together) is its
 * host work: making the inputs, the CPU references and tolerances, the
 * comparisons. On a GPU the same work is done around the kernels.
 *
 * A test's verdict must not depend on how fast the grading machine's
 * processor is, so each test's host work must stay under a quarter of its
 * time limit (grading/lab5/rubric.c); under the sanitizers, which slow it several
 * times, under the whole limit. A test that crashed or timed out in the
 * runner fails here too. The table printed is each test's host time.
 *
 *   build/tests/lab5/test_host_time    (exit 77 where the stand-in runner
 *                                       was not built: no CUDA headers)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rubric.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

extern const grader_lab lab5_rubric;

typedef struct run {
    const grader_test *test;
    int seeded;
    pid_t pid;
    int fd;          /* the results channel's read end */
    double started;  /* wall clock */
    double cpu_s;    /* user + system */
    double wall_s;
    char status[32]; /* pass, failure, error, or what went wrong */
    char message[240];
} run;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char out_dir[] = "/tmp/fp8lab-hosttime.XXXXXX";

/* Starts the runner on r's test, results on a pipe. */
static int start(run *r, const char *runner)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    r->started = now_s();
    r->pid = fork();
    if (r->pid < 0)
        return -1;
    if (r->pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 3) < 0)
            _exit(126);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        char env_out[300];
        snprintf(env_out, sizeof env_out, "GRADER_OUT_DIR=%s", out_dir);
        /* A slow machine or the sanitizers must not end a test before its
         * host time is known: the limit here is a generous ten times. */
        char *env[] = {env_out, "CK_TIMEOUT_MULTIPLIER=10", "LC_ALL=C",
                       r->seeded ? "GRADER_SEED=host-time" : NULL, NULL};
        char *argv[] = {(char *)runner, "3", (char *)r->test->name, NULL};
        execve(runner, argv, env);
        _exit(127);
    }
    close(fds[1]);
    r->fd = fds[0];
    return 0;
}

/* Reads r's results to the end, waits for it, and fills in its times and
 * its result. */
static void finish(run *r)
{
    char buf[16384];
    size_t len = 0;
    ssize_t n;
    while ((n = read(r->fd, buf + len, sizeof buf - 1 - len)) > 0 ||
           (n < 0 && errno == EINTR))
        if (n > 0)
            len += (size_t)n;
    buf[len] = '\0';
    close(r->fd);
    int st;
    struct rusage ru;
    while (wait4(r->pid, &st, 0, &ru) < 0 && errno == EINTR) {
    }
    r->wall_s = now_s() - r->started;
    r->cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
               (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    snprintf(r->status, sizeof r->status, "no result");
    char *line = strstr(buf, "result\t");
    if (line) {
        char *name = line + 7, *status = strchr(name, '\t');
        char *msg = status ? strchr(status + 1, '\t') : NULL;
        if (msg) {
            snprintf(r->status, sizeof r->status, "%.*s", (int)(msg - status - 1), status + 1);
            snprintf(r->message, sizeof r->message, "%.*s", (int)strcspn(msg + 1, "\n"),
                     msg + 1);
        }
    } else if (strncmp(buf, "error\t", 6) == 0) {
        snprintf(r->message, sizeof r->message, "%.*s", (int)strcspn(buf + 6, "\n"), buf + 6);
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        snprintf(r->status, sizeof r->status, "runner %s %d",
                 WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

int main(int argc, char **argv)
{
    (void)argc;
    char runner[4096];
    const char *slash = strrchr(argv[0], '/');
    snprintf(runner, sizeof runner, "%.*s/standin_runner", slash ? (int)(slash - argv[0]) : 1,
             slash ? argv[0] : ".");
    if (access(runner, X_OK) != 0) {
        printf("test_host_time: skipped: %s was not built (no CUDA headers: lab5's suite "
               "needs cuda_runtime_api.h and cublasLt.h)\n", runner);
        return 77;
    }
    if (!mkdtemp(out_dir)) {
        perror("mkdtemp");
        return 1;
    }
    const grader_lab *lab = &lab5_rubric;
    const double share = SANITIZED ? 1.0 : 0.25;
    int nruns = 0, failed = 0;
    run *runs = calloc(2 * (size_t)lab->ntests, sizeof *runs);
    /* test i's public run, and its --seed run (or its public run again) */
    int *public_at = calloc((size_t)lab->ntests, sizeof *public_at);
    int *seeded_at = calloc((size_t)lab->ntests, sizeof *seeded_at);
    if (!runs || !public_at || !seeded_at)
        return 1;
    for (int i = 0; i < lab->ntests; i++) {
        public_at[i] = seeded_at[i] = nruns;
        runs[nruns++].test = &lab->tests[i];
        for (int h = 0; lab->hidden && lab->hidden[h]; h++)
            if (strcmp(lab->hidden[h], lab->tests[i].name) == 0) {
                seeded_at[i] = nruns;
                runs[nruns].test = &lab->tests[i];
                runs[nruns++].seeded = 1;
            }
    }
    /* Two at a time: the processor time of each is its own. */
    for (int i = 0; i < nruns; i += 2) {
        int k = i + 1 < nruns ? 2 : 1;
        for (int j = 0; j < k; j++)
            if (start(&runs[i + j], runner) != 0) {
                perror("starting the runner");
                return 1;
            }
        for (int j = 0; j < k; j++)
            finish(&runs[i + j]);
    }

    printf("lab5's host work per test (stand-in CUDA; processor time, user + system), "
           "against %s of each limit%s\n", SANITIZED ? "the whole" : "a quarter",
           SANITIZED ? " (sanitizers)" : "");
    printf("%-20s %7s %9s %9s %9s %9s  %s\n", "test", "limit", "allowed", "public", "--seed",
           "wall max", "verdict");
    double total = 0;
    for (int i = 0; i < lab->ntests; i++) {
        run *a = &runs[public_at[i]], *b = &runs[seeded_at[i]];
        double limit = a->test->timeout_s, allowed = share * limit;
        double worst = a->cpu_s > b->cpu_s ? a->cpu_s : b->cpu_s;
        double wall = a->wall_s > b->wall_s ? a->wall_s : b->wall_s;
        total += a->cpu_s + (b != a ? b->cpu_s : 0);
        const char *verdict = "ok";
        const run *bad = NULL;
        for (int s = 0; s < 2; s++) {
            run *r = s ? b : a;
            if (strcmp(r->status, "pass") != 0 && strcmp(r->status, "failure") != 0)
                bad = r;
        }
        if (bad)
            verdict = "crashed or timed out";
        else if (worst > allowed)
            verdict = "TOO SLOW";
        char seeded[16] = "        -";
        if (b != a)
            snprintf(seeded, sizeof seeded, "%8.2fs", b->cpu_s);
        printf("%-20s %6.0fs %8.2fs %8.2fs %9s %8.2fs  %s\n", a->test->name, limit, allowed,
               a->cpu_s, seeded, wall, verdict);
        if (bad)
            printf("    %s%s: %s: %s\n", bad->test->name, bad->seeded ? " (--seed)" : "",
                   bad->status, bad->message);
        failed += strcmp(verdict, "ok") != 0;
    }
    printf("total host time %.1f s; %d of %d tests past their share\n", total, failed,
           lab->ntests);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", out_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", out_dir);
    free(runs);
    free(public_at);
    free(seeded_at);
    return failed ? 1 : 0;
}
