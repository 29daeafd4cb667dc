/*
 * spawn.h - the grader's child processes: the compiler, nm and the test
 * runners, each started under limits (time, memory, files, processes) and,
 * when the grading run has one, in the sandbox (sandbox.h); with the small
 * helpers building and running share (a clock, a log's first lines).
 *
 * Not for: what is built or run (builder.c, grade.c).
 */
#ifndef FP8LAB_SPAWN_H
#define FP8LAB_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

typedef struct gr_limits {
    long as_mib;      /* 0: none */
    long fsize_bytes; /* 0: none */
    long fsize_hard;  /* the hard limit, when above fsize_bytes: a judge
                         raises its own for the channel's arena (channel.c) */
    long cpu_s;       /* 0: none */
    long nofile;      /* open files; 0: none */
    long nproc;       /* processes beyond those the user runs already (see
                         EXTRA_PROCS); 0: none */
    const char *jail; /* the one folder it may write (in bwrap, or under Landlock) */
    const char *const *view; /* what else it may read (sandbox.h); NULL: the whole machine */
} gr_limits;

/* Open files a test runner may hold (Check's, the results pipe, the log)
 * and processes it may start (Check forks one per test), with room. */
#define RUNNER_NOFILE 64
/* A CUDA lab's: the CUDA runtime holds a file for each device node, and more. */
#define CUDA_RUNNER_NOFILE 1024
#define RUNNER_NPROC EXTRA_PROCS

/* RLIMIT_NPROC counts every process of the user: under nobody, every
 * submission graded at once. A margin this wide keeps one submission's
 * compiler (or bwrap's two processes) from failing when another starts
 * processes at the same moment, and still stops a fork bomb. */
#define EXTRA_PROCS 128

/* Whether this grading run's processes go into the sandbox. */
void gr_spawn_use_sandbox(int on);

/*
 * Starts argv in a process group of its own, stdin from /dev/null, stdout
 * and stderr to log, under lim; results_fd (when >= 0) becomes its fd 3.
 * Returns the pid, or -1.
 */
pid_t gr_spawn(char *const argv[], char *const envp[], const char *log, int results_fd,
               const gr_limits *lim);

/* Waits for pid until deadline (a gr_now() time), then kills its group.
 * Returns the wait status; *timed_out says whether it was killed. */
int gr_wait_until(pid_t pid, double deadline, int *timed_out);

/* A monotonic clock, in seconds. */
double gr_now(void);

/* strdup, or the grader's exit (2) when out of memory; NULL gives "". */
char *gr_xstrdup(const char *s);

/* The first max_lines lines (and at most max_bytes bytes) of a file, or
 * NULL when it is missing or empty: never through a link, regular files
 * only. */
char *gr_read_head(const char *path, int max_lines, size_t max_bytes);

/* The whole of a file, NUL-terminated, its length in *len; NULL when it is
 * missing, not a regular file (never through a link) or larger than
 * max_bytes. */
char *gr_read_file(const char *path, size_t max_bytes, size_t *len);

/* Splits a space-separated list of flags onto argv at *argc. */
void gr_push_words(char **argv, int *argc, int max, char *words);

#endif
