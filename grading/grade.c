/*
 * grade.c - grades one submission: pristine tree, build (builder.c), run, collect.
 *
 * The pristine tree is a fresh folder under <build>/grade/ holding only the
 * lab's student files, copied from the submission, and the course's own
 * copies of everything else (the lab's header), so a submission cannot
 * replace a test file. The submission is compiled there and linked with the
 * lab's suite (grading/labN_suite.c, built by make) into a test runner
 * (runner.c), which runs the tests under Check and sends Check's results
 * back on a pipe.
 *
 * What a submission can do wrong and where it is reported:
 *   does not build              every test NOT RUN, the compiler's first
 *                               messages in the report
 *   uses a forbidden symbol     the same, the symbol named in the build log
 *   (nm; processes, files,      (check_symbols: the list every lab shares,
 *   sockets, the codec in lab0) and the lab's own in its rubric)
 *   crashes, exits, hangs       that test, from Check's record (fork mode
 *                               and the rubric's time limit)
 *   allocates too much          malloc fails under the runner's address-
 *                               space limit, and the test crashes or fails
 *   prints without end          that test: its output goes to a file of its
 *                               own, capped at GR_OUTPUT_LIMIT by
 *                               RLIMIT_FSIZE (SIGXFSZ)
 *   breaks the runner itself    that test is NOT RUN, with how the runner
 *                               ended
 * Each test runs in a runner of its own: a test child can damage the files
 * Check keeps for its parent, and that must cost only the test it is in. A
 * watchdog here kills the runner a few seconds past the test's limit, and
 * RLIMIT_CPU backs it up.
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
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grade.h"
#include "builder.h"
#include "channel.h"
#include "sandbox.h"
#include "spawn.h"

/* Set by the Makefile (as for builder.c): a sanitized grader's runners. */
#ifndef GRADER_SANITIZE
#define GRADER_SANITIZE 0
#endif

#define MAX_SOURCE_BYTES (4L << 20) /* a student file larger than this is refused */
#define LOG_LINES 40               /* of the compiler's messages, in the report */
#define OUTPUT_SHOWN 2048          /* bytes of a test's output, in the report */

char *gr_asprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    return s;
}


/* ---- the pristine tree ------------------------------------------------------------ */

static int make_dir(const char *path, lab_error *err)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return lab_errorf(err, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

/* Copies a regular file of at most MAX_SOURCE_BYTES. Returns 0, or -1 with
 * err saying what is wrong with `from` (missing, a link, too large). */
static int copy_file(const char *from, const char *to, lab_error *err)
{
    struct stat st;
    if (lstat(from, &st) != 0)
        return lab_errorf(err, "%s: not found", from);
    if (!S_ISREG(st.st_mode))
        return lab_errorf(err, "%s: not a regular file", from);
    if (st.st_size > MAX_SOURCE_BYTES)
        return lab_errorf(err, "%s: larger than %ld MiB", from, MAX_SOURCE_BYTES >> 20);
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    if (!in || !out) {
        lab_errorf(err, "%s: cannot copy: %s", in ? to : from, strerror(errno));
        if (in)
            fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    int bad = ferror(in);
    fclose(in);
    if (fclose(out) != 0 || bad)
        return lab_errorf(err, "%s: cannot copy to %s", from, to);
    return 0;
}

/* ---- running the tests ------------------------------------------------------------------ */

/* Reads the runner's results channel until it closes or the deadline. */
static char *read_results(int fd, double deadline, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        int wait_ms = (int)((deadline - gr_now()) * 1000);
        if (wait_ms <= 0)
            break;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, wait_ms < 100 ? wait_ms : 100);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        if (n == cap) {
            if (cap >= (8u << 20))
                break; /* no honest runner says this much */
            cap *= 2;
            char *b = realloc(buf, cap + 1);
            if (!b)
                break;
            buf = b;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

static void unescape(char *s)
{
    char *d = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *d++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *d++ = *s;
        }
    }
    *d = '\0';
}

static double timeout_multiplier(void)
{
    const char *s = getenv("CK_TIMEOUT_MULTIPLIER");
    char *end;
    double m = s ? strtod(s, &end) : 1.0;
    return s && end != s && *end == '\0' && m >= 0 ? m : 1.0;
}

/* Says in words what Check's message for a test that did not pass means. */
static char *explain(const gr_options *o, const grader_test *t, const char *check_msg)
{
    int sig;
    if (strcmp(check_msg, "Test timeout expired") == 0)
        return gr_asprintf("timed out: still running after the %g s limit "
                         "(scaled by CK_TIMEOUT_MULTIPLIER=%g); look for a loop "
                         "that never ends",
                         t->timeout_s, timeout_multiplier());
    if (sscanf(check_msg, "Received signal %d", &sig) == 1) {
        if (sig == SIGXFSZ)
            return gr_asprintf("output flood: printed more than %ld MiB (the limit per "
                             "test) and was stopped",
                             GR_OUTPUT_LIMIT >> 20);
        if (sig == SIGSEGV || sig == SIGBUS)
            return gr_asprintf("crashed: signal %d (%s) in the code under test: a pointer "
                             "past an array's end, or a NULL one; memory is limited to %ld "
                             "MiB, so a huge malloc returns NULL",
                             sig, strsignal(sig), o->lab->mem_limit_mib);
        if (sig == SIGABRT)
            return gr_asprintf("crashed: signal %d (%s) in the code under test: abort(), a "
                             "failed assert, or the C library stopping it (a double free, a "
                             "heap written past a block's end)",
                             sig, strsignal(sig));
        if (sig == SIGFPE)
            return gr_asprintf("crashed: signal %d (%s) in the code under test: an integer "
                             "division by zero (a float one gives inf or NaN, not this)",
                             sig, strsignal(sig));
        return gr_asprintf("crashed: signal %d (%s) in the code under test", sig,
                           strsignal(sig));
    }
    int code;
    if (sscanf(check_msg, "Early exit with return value %d", &code) == 1)
        return gr_asprintf("exited early with status %d: the code under test called exit() "
                         "(or _exit) instead of returning",
                         code);
    return gr_xstrdup(check_msg);
}

static int runner_status_text(char *buf, size_t n, int status, int timed_out, double limit)
{
    if (timed_out)
        return snprintf(buf, n, "was stopped after %.0f s, past the test's limit", limit);
    if (WIFSIGNALED(status))
        return snprintf(buf, n, "was killed by signal %d (%s)", WTERMSIG(status),
                        strsignal(WTERMSIG(status)));
    return snprintf(buf, n, "exited with status %d", WEXITSTATUS(status));
}

/* Fills res from the runner's lines: only the result for res's own test
 * counts. Returns 1 when there was one, 0 when not, -1 with err set when the
 * runner reported a setup error. */
static int parse_result(const gr_options *o, gr_result *res, char *text, lab_error *err)
{
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *fields[4] = {0};
        int nf = 0;
        for (char *p = line; p && nf < 4; nf++) {
            fields[nf] = p;
            p = nf < 3 ? strchr(p, '\t') : NULL;
            if (p)
                *p++ = '\0';
        }
        if (strcmp(fields[0], "error") == 0 && nf >= 2) {
            unescape(fields[1]);
            return lab_errorf(err, "the %s test runner failed: %s", o->lab->name, fields[1]);
        }
        if (strcmp(fields[0], "result") != 0 || nf < 4)
            continue;
        unescape(fields[1]);
        unescape(fields[3]);
        if (strcmp(res->test->name, fields[1]) != 0)
            continue;
        char short_of[64];
        snprintf(short_of, sizeof short_of, "Early exit with return value %d", GRADER_JUDGE_SHORT);
        if (strcmp(fields[2], "error") == 0 && strcmp(fields[3], short_of) == 0)
            return 2; /* the judge's own failing, not the test's (suite.h) */
        if (strcmp(fields[2], "pass") == 0) {
            res->status = GR_PASS;
        } else if (strcmp(fields[2], "failure") == 0) {
            res->status = GR_FAIL;
            res->message = gr_xstrdup(fields[3]);
        } else {
            res->status = GR_ERROR;
            res->message = explain(o, res->test, fields[3]);
        }
        return 1;
    }
    return 0;
}

/* A test whose output reached the limit failed, whatever Check says. The
 * output of a test that did not pass goes into the report: what it printed,
 * or else what the runner printed. */
static void check_output(const char *stage, gr_result *res)
{
    char *path = gr_asprintf("%s/out/%s/%s.out", stage, res->test->name, res->test->name);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= GR_OUTPUT_LIMIT &&
        res->status != GR_NOT_RUN) {
        free(res->message);
        res->status = GR_ERROR;
        res->message = gr_asprintf("output flood: printed %ld MiB or more (the limit per "
                                 "test) and was stopped",
                                 GR_OUTPUT_LIMIT >> 20);
    }
    if (res->status != GR_PASS) {
        res->output = gr_read_head(path, 20, OUTPUT_SHOWN);
        if (!res->output) {
            free(path);
            path = gr_asprintf("%s/log/%s.runner", stage, res->test->name);
            res->output = gr_read_head(path, 20, OUTPUT_SHOWN);
        }
    }
    free(path);
}

/*
 * Runs one test in a runner of its own, so that whatever the code under test
 * does to the process (even to Check's own bookkeeping, which a child could
 * overwrite) costs only this test.
 */
static int run_one_try(const gr_options *o, const char *stage, char **envp, gr_result *res,
                       lab_error *err)
{
    double budget = 5.0 + res->test->timeout_s * timeout_multiplier();
    /* A split lab's runner is its judge, the same for every submission,
     * which starts the subject built from this one (channel.h). */
    char *runner = gr_split_lab(o->lab)
                       ? gr_asprintf("%s/grading/%s_judge", o->build, o->lab->name)
                       : gr_asprintf("%s/runner", stage);
    char *env_subject = gr_asprintf("GRADER_SUBJECT=%s/subject", stage);
    char *env_mem = gr_asprintf("GRADER_SUBJECT_MEM_MIB=%ld", o->lab->mem_limit_mib);
    char *log = gr_asprintf("%s/log/%s.runner", stage, res->test->name);
    /* The one folder this test may write, its own and new: no earlier test
     * can have left anything where this one's output goes. */
    char *scratch = gr_asprintf("%s/out/%s", stage, res->test->name);
    char *data = gr_asprintf("%s/data", o->root);
    const char *const view[] = {data, stage, runner, NULL};
    char *argv[] = {runner, "3", (char *)res->test->name, NULL};
    int fds[2], rc = 0, n = 0;
    char *env_out = gr_asprintf("GRADER_OUT_DIR=%s", scratch);
    char *env_temp = gr_asprintf("TEMP=%s", scratch);
    char *env[32];
    for (; envp[n] && n < 28; n++)
        env[n] = envp[n];
    env[n++] = env_out;
    env[n++] = env_temp;
    env[n++] = env_subject;
    env[n++] = env_mem;
    env[n] = NULL;

    if (mkdir(scratch, 0700) != 0 || gr_sandbox_own(gr_sandbox_get(NULL), scratch, err) != 0) {
        rc = lab_errorf(err, "%s: cannot create: %s", scratch, strerror(errno));
        goto out;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        rc = lab_errorf(err, "cannot create a pipe: %s", strerror(errno));
        goto out;
    }
    /* A CUDA lab's tests see the whole machine, read-only: the driver
     * reads much of /proc and /sys (sandbox.h). */
    gr_limits lim = {GRADER_SANITIZE ? 0 : o->lab->mem_limit_mib, GR_OUTPUT_LIMIT,
                  gr_split_lab(o->lab) ? (long)SJ_ARENA_BYTES : 0, (long)budget + 1, o->lab->cuda ? CUDA_RUNNER_NOFILE : RUNNER_NOFILE,
                  RUNNER_NPROC, scratch, o->lab->cuda ? NULL : view};
    pid_t pid = gr_spawn(argv, env, log, fds[1], &lim);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        rc = lab_errorf(err, "cannot start %s: %s", runner, strerror(errno));
        goto out;
    }
    double deadline = gr_now() + budget;
    size_t len;
    char *text = read_results(fds[0], deadline, &len);
    close(fds[0]);
    int timed_out;
    int status = gr_wait_until(pid, deadline, &timed_out);
    rc = text ? parse_result(o, res, text, err) : lab_errorf(err, "out of memory");
    free(text);
    if (rc == 2)
        goto out;
    if (rc == 0) {
        char why[160];
        runner_status_text(why, sizeof why, status, timed_out, budget);
        res->message = gr_asprintf("not run: the test program %s before this test reported "
                                 "(its output is shown with -v)",
                                 why);
    }
    if (rc >= 0) {
        check_output(stage, res);
        rc = 0;
    }
out:
    free(runner);
    free(env_subject);
    free(env_mem);
    free(log);
    free(scratch);
    free(data);
    free(env_out);
    free(env_temp);
    return rc;
}

/* run_one_try, again while the judge reports that it ran short of
 * processes or memory (suite.h): three times, then the grader's error. */
static int run_one(const gr_options *o, const char *stage, char **envp, gr_result *res,
                   lab_error *err)
{
    for (int tries = 0; tries < 3; tries++) {
        double start = gr_now();
        int rc = run_one_try(o, stage, envp, res, err);
        res->seconds = gr_now() - start;
        if (rc != 2)
            return rc;
        char *scratch = gr_asprintf("%s/out/%s", stage, res->test->name);
        gr_remove_tree(scratch);
        free(scratch);
    }
    return lab_errorf(err, "the %s judge could not start the submission's process for %s: "
                      "this machine was short of processes or memory, three times (a grader "
                      "error: grade it again)",
                      o->lab->name, res->test->name);
}

/* "CUDA_VISIBLE_DEVICES=..." as the grader has it (which GPUs a CUDA lab's
 * tests may use, as the instructor chose), or NULL when it is unset. */
static char *gpus_env(void)
{
    const char *gpus = getenv("CUDA_VISIBLE_DEVICES");
    return gpus ? gr_asprintf("CUDA_VISIBLE_DEVICES=%s", gpus) : NULL;
}

static int run_tests(const gr_options *o, const char *stage, gr_report *r, lab_error *err)
{
    char *env_golden = gr_asprintf("GRADER_GOLDEN_DIR=%s/data/golden/%s", o->root, o->lab->name);
    char *env_show = gr_asprintf("GRADER_SHOW=%d", o->show);
    char *env_mult = gr_asprintf("CK_TIMEOUT_MULTIPLIER=%g", timeout_multiplier());
    char *env_seed = o->seed ? gr_asprintf("GRADER_SEED=%s", o->seed) : NULL;
    char *env_gpus = gpus_env();
    /* One BLAS thread in the judge, as in the subject (channel.c): the same
     * sums on every machine, and no thread per core to start (16 on a GPU
     * node, where a judge that started them met the process limit). */
    char *envp[14] = {"PATH=/usr/bin:/bin", "LC_ALL=C", "OPENBLAS_NUM_THREADS=1",
                      "OMP_NUM_THREADS=1", env_golden, env_show, env_mult};
    int n = 7;
    /* The sanitizers' allocator cannot run under an address-space limit;
     * make a huge malloc fail as it would under one. */
    if (GRADER_SANITIZE)
        envp[n++] = "ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024:"
                    "detect_leaks=0:handle_segv=0:handle_abort=0:handle_sigbus=0";
    if (env_seed)
        envp[n++] = env_seed;
    if (env_gpus)
        envp[n++] = env_gpus;
    /* the grader's own tests: a judge that runs short (channel.c) */
    char *env_short = getenv("FP8LAB_TEST_JUDGE_SHORT")
                          ? gr_asprintf("FP8LAB_TEST_JUDGE_SHORT=%s", getenv("FP8LAB_TEST_JUDGE_SHORT"))
                          : NULL;
    if (env_short)
        envp[n++] = env_short;
    envp[n] = NULL;
    int rc = 0;
    for (int i = 0; i < r->nresults && rc == 0; i++)
        if (r->results[i].status != GR_SKIPPED)
            rc = run_one(o, stage, envp, &r->results[i], err);
    free(env_golden), free(env_show), free(env_mult), free(env_seed);
    free(env_gpus), free(env_short);
    return rc;
}

/*
 * Whether the tests can reach a GPU: build/bin/gpuprobe (common/gpuprobe.cu)
 * run the way the runner runs, in the sandbox, with the runner's
 * environment. Returns 1, with *cc the compute capability its line names
 * (as one number, 90 for 9.0) and why that line, or 0 with why saying why
 * not.
 */
static int gpu_usable(const gr_options *o, const char *stage, char *why, size_t size, int *cc)
{
    char *probe = gr_asprintf("%s/bin/gpuprobe", o->build);
    char *log = gr_asprintf("%s/log/gpuprobe.out", stage);
    char *scratch = gr_asprintf("%s/tmp", stage);
    char *env_gpus = gpus_env();
    char *envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", env_gpus, NULL};
    char *argv[] = {probe, NULL};
    int ok = 0;
    if (access(probe, X_OK) != 0) {
        snprintf(why, size, "%s was not built (no nvcc when the course was built)", probe);
    } else {
        gr_limits lim = {0, GR_OUTPUT_LIMIT, 0, 60, CUDA_RUNNER_NOFILE, RUNNER_NPROC, scratch, NULL};
        int timed_out = 0, status = -1;
        pid_t pid = gr_spawn(argv, envp, log, -1, &lim);
        if (pid > 0)
            status = gr_wait_until(pid, gr_now() + 60, &timed_out);
        ok = pid > 0 && !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        char *said = gr_read_head(log, 1, 300);
        snprintf(why, size, "%s", said ? said : timed_out ? "gpuprobe hung" : "gpuprobe failed");
        const char *at = said ? strstr(said, "compute capability ") : NULL;
        int major = 0, minor = 0;
        if (ok && !(at && sscanf(at, "compute capability %d.%d", &major, &minor) == 2 &&
                    major > 0 && minor >= 0 && minor <= 9)) {
            ok = 0;
            snprintf(why, size, "gpuprobe did not name the GPU's compute capability: %s",
                     said ? said : "(nothing)");
        }
        *cc = major * 10 + minor;
        free(said);
    }
    free(probe), free(log), free(env_gpus), free(scratch);
    return ok;
}

/* Marks the tests that need a GPU SKIPPED, saying why. */
static void skip_gpu_tests(gr_report *r, const char *why)
{
    for (int i = 0; i < r->nresults; i++) {
        gr_result *res = &r->results[i];
        if (!res->test->gpu)
            continue;
        free(res->message);
        res->status = GR_SKIPPED;
        res->message = gr_asprintf("it needs a GPU, and the tests found none they can use: %s", why);
    }
}

/* Marks SKIPPED the tests that a GPU of compute capability cc cannot run
 * (the lab's gpu_needs: an older GPU, or one other than the code's own),
 * each saying what it needs: "needs compute capability 8.9 or later
 * (mma.sync with E4M3 operands); this GPU is 8.0 (README §1)". */
static void skip_beyond_gpu(gr_report *r, int cc)
{
    for (int k = 0; k < r->lab->ngpu_needs; k++) {
        const grader_gpu_need *need = &r->lab->gpu_needs[k];
        if (cc >= need->min && (!need->max || cc <= need->max))
            continue;
        for (int i = 0; i < r->nresults; i++) {
            gr_result *res = &r->results[i];
            if (strcmp(res->test->name, need->test) != 0 || res->status == GR_SKIPPED)
                continue;
            char upto[32] = "";
            if (need->max && need->max != need->min)
                snprintf(upto, sizeof upto, " to %d.%d", need->max / 10, need->max % 10);
            else if (!need->max)
                snprintf(upto, sizeof upto, " or later");
            free(res->message);
            res->status = GR_SKIPPED;
            res->message = gr_asprintf("needs compute capability %d.%d%s (%s); this GPU is "
                                       "%d.%d (README §1)",
                                       need->min / 10, need->min % 10, upto, need->why,
                                       cc / 10, cc % 10);
        }
    }
}

static int needs_gpu(const gr_report *r)
{
    for (int i = 0; i < r->nresults; i++)
        if (r->results[i].test->gpu)
            return 1;
    return 0;
}

/* ---- the whole run ----------------------------------------------------------------------- */

int gr_test_selected(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *t = list; *t; t += strcspn(t, ",") + (t[strcspn(t, ",")] != 0))
        if (strcspn(t, ",") == n && strncmp(t, name, n) == 0)
            return 1;
    return 0;
}

void gr_remove_tree(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/rm", "rm", "-rf", "--", path, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

static void not_run_all(gr_report *r, const char *why)
{
    for (int i = 0; i < r->nresults; i++) {
        free(r->results[i].message);
        r->results[i].status = GR_NOT_RUN;
        r->results[i].message = gr_xstrdup(why);
    }
}

/* Whether folder holds a regular file named name but for case ("Lab1.c"
 * for lab1.c); its name goes into near. */
static int named_but_for_case(const char *folder, const char *name, char near[256])
{
    DIR *d = opendir(folder);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        struct stat st;
        char *path = gr_asprintf("%s/%s", folder, e->d_name);
        found = strcasecmp(e->d_name, name) == 0 && strcmp(e->d_name, name) != 0 &&
                lstat(path, &st) == 0 && S_ISREG(st.st_mode) && strlen(e->d_name) < 256;
        if (found)
            snprintf(near, 256, "%s", e->d_name);
        free(path);
    }
    if (d)
        closedir(d);
    return found;
}

/* Copies the course's files and the student's into stage/src. Returns -1 on a
 * setup error; sets r->build_log and returns 1 when a student file is
 * missing or refused. */
static int stage_files(const gr_options *o, const char *stage, gr_report *r, lab_error *err)
{
    const grader_lab *lab = o->lab;
    for (int i = 0; lab->provided_files[i]; i++) {
        char *from = gr_asprintf("%s/labs/%s/%s", o->root, lab->name, lab->provided_files[i]);
        char *to = gr_asprintf("%s/src/%s", stage, lab->provided_files[i]);
        int rc = copy_file(from, to, err);
        free(from), free(to);
        if (rc != 0)
            return -1;
    }
    for (int i = 0; lab->student_files[i]; i++) {
        lab_error why;
        const char *name = lab->student_files[i];
        char *from = gr_asprintf("%s/%s", o->source_dir, name);
        char *to = gr_asprintf("%s/src/%s", stage, name);
        struct stat st;
        /* The submission's own failings name the file, not where it was. */
        char near[256];
        int rc = lstat(from, &st) != 0 && named_but_for_case(o->source_dir, name, near)
                     ? lab_errorf(&why, "no %s in the submission, but a %s: file names are "
                                        "case-sensitive; rename it %s", name, near, name)
                 : lstat(from, &st) != 0  ? lab_errorf(&why, "no %s in the submission", name)
                 : !S_ISREG(st.st_mode)   ? lab_errorf(&why, "%s in the submission is not a "
                                                             "regular file (a link?)", name)
                 : st.st_size == 0        ? lab_errorf(&why, "%s in the submission is empty (0 "
                                                             "bytes): no code was uploaded; "
                                                             "submit the file you wrote", name)
                                          : copy_file(from, to, &why);
        free(from), free(to);
        if (rc != 0) {
            r->build_log = gr_xstrdup(why.msg);
            return 1;
        }
    }
    return 0;
}

int gr_grade(const gr_options *o, gr_report *r, lab_error *err)
{
    const grader_lab *lab = o->lab;
    double start = gr_now();
    char *stage = NULL;
    int rc = -1;

    memset(r, 0, sizeof *r);
    const char *const readable[] = {o->root, o->build, NULL};
    const gr_sandbox *sb = gr_sandbox_get(readable);
    gr_sandbox_warn(sb, o->sandbox_say);
    gr_spawn_use_sandbox(sb->on);
    r->lab = lab;
    r->hidden_inputs = o->seed != NULL;
    r->source = o->label ? o->label : o->source_dir;
    r->note = o->note;
    r->results = calloc((size_t)lab->ntests, sizeof *r->results);
    if (!r->results)
        return lab_errorf(err, "out of memory");
    for (int i = 0; i < lab->ntests; i++) {
        if (o->only_test && !gr_test_selected(o->only_test, lab->tests[i].name))
            continue;
        r->results[r->nresults].test = &lab->tests[i];
        r->results[r->nresults].status = GR_NOT_RUN;
        r->max_score += lab->tests[i].points;
        r->nresults++;
    }

    char *data = gr_asprintf("%s/data", o->root);
    char *folder = gr_asprintf("golden/%s", lab->name);
    int verified = lab->no_goldens ? 0 : gr_verify_goldens(data, folder, err);
    free(data), free(folder);
    if (verified != 0)
        return -1;

    char *grade_dir = gr_asprintf("%s/grade", o->build);
    if (make_dir(o->build, err) != 0 || make_dir(grade_dir, err) != 0) {
        free(grade_dir);
        return -1;
    }
    stage = gr_asprintf("%s/%s.XXXXXX", grade_dir, lab->name);
    free(grade_dir);
    if (!mkdtemp(stage)) {
        lab_errorf(err, "%s: cannot create: %s", stage, strerror(errno));
        free(stage);
        return -1;
    }
    /* src: the sources; out: a folder per test, its only writable one; log:
     * the runner's own messages, the grader's; tmp: the compiler's. */
    char *src = gr_asprintf("%s/src", stage), *out = gr_asprintf("%s/out", stage);
    char *logs = gr_asprintf("%s/log", stage), *tmp = gr_asprintf("%s/tmp", stage);
    int made = make_dir(src, err) == 0 && make_dir(out, err) == 0 &&
               make_dir(logs, err) == 0 && make_dir(tmp, err) == 0;
    free(src), free(out), free(logs), free(tmp);
    if (!made)
        goto done;

    int staged = stage_files(o, stage, r, err);
    if (staged < 0 || gr_sandbox_own(sb, stage, err) != 0)
        goto done;
    if (lab->cuda && GRADER_NVCC[0] == '\0') {
        /* Nothing to build it with: every test is skipped, none failed. */
        r->build_ok = 0;
        r->build_log = gr_asprintf("%s needs nvcc (the CUDA Toolkit), which was not found when "
                                   "the grader was built: install it (make deps), then make %s",
                                   lab->name, lab->name);
        for (int i = 0; i < r->nresults; i++) {
            free(r->results[i].message);
            r->results[i].status = GR_SKIPPED;
            r->results[i].message = gr_xstrdup("there is no nvcc to build it with");
        }
        rc = 0;
        goto done;
    }
    int usable = staged == 0 ? gr_toolchain_runs(o, stage, err) : 0;
    if (usable == -1)
        goto done;
    int built = staged == 0 && usable == 0 ? gr_build_runner(o, stage) : usable;
    if (built == -2) {
        lab_errorf(err, "the grader could not run the compiler: this machine was short of "
                        "processes or memory, three times (a grader error: grade it again)");
        goto done;
    }
    r->build_ok = staged == 0 && built == 0;
    /* Built: everything in the stage is the grader's again (the runner, its
     * objects, the logs), and no test can change it. */
    if (gr_sandbox_take_back(sb, stage, err) != 0 || chmod(stage, 0755) != 0)
        goto done;
    if (staged == 0) {
        char *log = gr_asprintf("%s/build.log", stage);
        r->build_log = gr_read_head(log, LOG_LINES, 8192);
        free(log);
    }
    if (!r->build_ok) {
        not_run_all(r, "not run: the submission did not build");
    } else {
        char why[400];
        int cc = 0;
        if (needs_gpu(r)) {
            if (!gpu_usable(o, stage, why, sizeof why, &cc))
                skip_gpu_tests(r, why);
            else
                skip_beyond_gpu(r, cc);
        }
        if (run_tests(o, stage, r, err) != 0)
            goto done;
    }
    for (int i = 0; i < r->nresults; i++) {
        gr_result *res = &r->results[i];
        res->points = res->status == GR_PASS ? res->test->points : 0;
        r->score += res->points;
    }
    gr_reweight(r, o->reweight);
    gr_late_penalty(r, o->late_penalty);
    if (gr_note_builds_on(r) != 0)
        fprintf(stderr, "grader: out of memory: the failures' causes are not named\n");
    rc = 0;
done:
    if (o->keep)
        fprintf(stderr, "grader: the pristine tree is kept in %s\n", stage);
    else
        gr_remove_tree(stage);
    free(stage);
    r->seconds = gr_now() - start;
    return rc;
}

void gr_report_free(gr_report *r)
{
    for (int i = 0; i < r->nresults; i++) {
        free(r->results[i].message);
        free(r->results[i].output);
    }
    free(r->results);
    free(r->build_log);
    memset(r, 0, sizeof *r);
}
