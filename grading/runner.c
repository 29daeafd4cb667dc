/*
 * runner.c - the test runner's main, and the helpers of suite.h.
 *
 * The grader links this file with one lab's suite and a submission's object
 * files, then runs it as
 *
 *     runner RESULTS_FD [TEST]
 *
 * with these in the environment:
 *     GRADER_GOLDEN_DIR  the lab's goldens (data/golden/labN)
 *     GRADER_OUT_DIR     where each test's output goes, one file per test
 *     GRADER_SHOW        how many mismatches a failure lists (default 1)
 *     GRADER_SEED        hidden inputs, when set (gr_seed)
 *
 * It runs the suite under Check in fork mode and writes Check's own result
 * records to RESULTS_FD, one line each, then "end N":
 *
 *     result <TAB> test name <TAB> pass|failure|error <TAB> message
 *
 * with \\, \n and \t escaped in the message. Nothing the code under test
 * prints is read to find a result.
 *
 * Two of Check's traps are closed here:
 *   - In fork mode Check passes a test whose process exits with the status it
 *     expects, 0 by default, so a tested function that calls exit(0) would
 *     pass. Every test is registered with tcase_add_loop_exit_test to expect
 *     GRADER_SENTINEL instead, and only the trampoline below exits with it,
 *     after the test function has returned.
 *   - A selection that matches no test makes Check run nothing and report
 *     nothing wrong. The runner refuses: no test run is an error (exit 3).
 *     It also clears Check's environment variables that select tests or
 *     write logs, so the environment cannot make that selection either.
 * Check reads CK_TIMEOUT_MULTIPLIER in tcase_set_timeout, which scales every
 * test's limit.
 *
 * Each test's child closes the results channel before the test runs, so the
 * code under test cannot write to it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite.h"


static int results_fd = -1;
static struct stat results_stat;

/* ---- the helpers of suite.h ------------------------------------------------ */

void gr_golden(const char *file, npy_dtype dtype, int ndim, const size_t *shape,
               npy_array *out)
{
    const char *dir = getenv("GRADER_GOLDEN_DIR");
    char path[4096];
    lab_error err;

    snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", file);
    if (npy_load_expect(path, dtype, ndim, shape, out, &err) != 0)
        ck_abort_msg("cannot read the golden file: %s", err.msg);
}

int gr_seed(uint64_t *seed)
{
    const char *s = getenv("GRADER_SEED");
    if (!s || !*s)
        return 0;
    uint64_t h = 14695981039346656037ull; /* FNV-1a, 64 bits */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    *seed = h;
    return 1;
}

int gr_hidden_rng(rng_state *rng, uint64_t stream)
{
    uint64_t seed;
    if (!gr_seed(&seed))
        return 0;
    rng_seed(rng, seed, stream);
    return 1;
}

float gr_hidden_float(rng_state *rng, int lo, int binades)
{
    float mag = ldexpf(1.0f + rng_uniform(rng), lo + (int)rng_below(rng, (uint32_t)binades));
    return rng_u32(rng) & 1 ? -mag : mag;
}

int gr_show(void)
{
    const char *s = getenv("GRADER_SHOW");
    int n = s ? atoi(s) : 1;
    return n < 1 ? 1 : n > 50 ? 50 : n;
}

static char *ring_buffer(void)
{
    static char ring[8][64];
    static int next;
    next = (next + 1) % 8;
    return ring[next];
}

const char *gr_f32(float v)
{
    char *b = ring_buffer();
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    snprintf(b, 64, "%.9g [0x%08x]", (double)v, (unsigned)bits);
    return b;
}

const char *gr_code(uint8_t code, fp8_format fmt)
{
    char *b = ring_buffer();
    snprintf(b, 64, "0x%02x (%.9g)", (unsigned)code, (double)fp8_decode(code, fmt));
    return b;
}

void gr_mismatch(gr_mismatches *m, const char *fmt, ...)
{
    m->count++;
    if (m->count > (size_t)gr_show() || m->len >= sizeof m->text - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->text + m->len, sizeof m->text - m->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        m->len += (size_t)n;
    if (m->len < sizeof m->text - 1)
        m->text[m->len++] = '\n';
    if (m->len >= sizeof m->text)
        m->len = sizeof m->text - 1;
    m->text[m->len] = '\0';
}

void gr_finish(const gr_mismatches *m, const char *noun)
{
    if (m->count == 0)
        return;
    ck_abort_msg("%.*s%zu of %zu %s differ", (int)m->len, m->text, m->count, m->checked,
                 noun);
}

/* ---- in each test's child ---------------------------------------------------- */

/* Closes every descriptor open on the results channel, dups included. */
static void close_results_channel(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        close(results_fd);
        return;
    }
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || fd == self || fstat(fd, &st) != 0)
            continue;
        if (st.st_dev == results_stat.st_dev && st.st_ino == results_stat.st_ino)
            close(fd);
    }
    closedir(d);
}

/* Sends the test's stdout and stderr to GRADER_OUT_DIR/<name>.out. */
static void redirect_output(const char *name)
{
    const char *dir = getenv("GRADER_OUT_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.out", dir ? dir : ".", name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
}

/* Runs rubric test i: the Check test function of every test case. */
static void trampoline(int i)
{
    const grader_suite *s = &grader_this_suite;
    const char *name = s->lab->tests[i].name;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close_results_channel();
    redirect_output(name);
    for (int c = 0; c < s->ncases; c++) {
        if (strcmp(s->cases[c].name, name) == 0) {
            s->cases[c].fn();
            fflush(NULL);
            exit(GRADER_SENTINEL);
        }
    }
    ck_abort_msg("the suite has no test named %s", name);
}

static const TTest trampoline_test = {"trampoline", trampoline, __FILE__, __LINE__};

/* ---- the runner ----------------------------------------------------------------- */

static void put_escaped(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Every rubric test has exactly one case, and every case a rubric test. */
static int suite_matches_rubric(const grader_suite *s, char *why, size_t size)
{
    const grader_lab *lab = s->lab;
    for (int i = 0; i < lab->ntests; i++) {
        int found = 0;
        for (int c = 0; c < s->ncases; c++)
            found += strcmp(s->cases[c].name, lab->tests[i].name) == 0;
        if (found != 1) {
            snprintf(why, size, "%s: rubric test %s has %d test functions in the suite",
                     lab->name, lab->tests[i].name, found);
            return 0;
        }
    }
    for (int c = 0; c < s->ncases; c++) {
        if (!grader_find_test(lab, s->cases[c].name)) {
            snprintf(why, size, "%s: suite test %s is not in the rubric", lab->name,
                     s->cases[c].name);
            return 0;
        }
    }
    return 1;
}

static void runner_error(FILE *f, const char *msg)
{
    fputs("error\t", f);
    put_escaped(f, msg);
    fputs("\n", f);
    fclose(f);
    exit(3);
}

int main(int argc, char **argv)
{
    static const char *const check_env[] = {
        "CK_RUN_SUITE", "CK_RUN_CASE", "CK_INCLUDE_TAGS", "CK_EXCLUDE_TAGS",
        "CK_FORK", "CK_VERBOSITY", "CK_LOG_FILE_NAME", "CK_XML_LOG_FILE_NAME",
        "CK_TAP_LOG_FILE_NAME", "CK_DEFAULT_TIMEOUT", "CK_MAX_MSG_SIZE"};
    const grader_suite *s = &grader_this_suite;
    char why[512];

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s RESULTS_FD [TEST]\n", argv[0]);
        return 2;
    }
    results_fd = atoi(argv[1]);
    FILE *out = fdopen(results_fd, "w");
    if (!out || fstat(results_fd, &results_stat) != 0) {
        fprintf(stderr, "%s: results descriptor %s is not open\n", argv[0], argv[1]);
        return 2;
    }
    prctl(PR_SET_DUMPABLE, 0);
    for (size_t i = 0; i < sizeof check_env / sizeof check_env[0]; i++)
        unsetenv(check_env[i]);

    if (!suite_matches_rubric(s, why, sizeof why))
        runner_error(out, why);
    const char *only = argc == 3 ? argv[2] : NULL;
    if (only && !grader_find_test(s->lab, only)) {
        snprintf(why, sizeof why, "no test named %s in %s", only, s->lab->name);
        runner_error(out, why);
    }

    check_set_max_msg_size(8192);
    Suite *suite = suite_create(s->lab->name);
    for (int i = 0; i < s->lab->ntests; i++) {
        TCase *tc = tcase_create(s->lab->tests[i].name);
        tcase_set_timeout(tc, s->lab->tests[i].timeout_s);
        tcase_add_loop_exit_test(tc, &trampoline_test, GRADER_SENTINEL, i, i + 1);
        suite_add_tcase(suite, tc);
    }
    SRunner *sr = srunner_create(suite);
    srunner_set_fork_status(sr, CK_FORK);
    fflush(NULL);
    srunner_run(sr, s->lab->name, only, CK_SILENT);

    int n = srunner_ntests_run(sr);
    if (n == 0) {
        srunner_free(sr);
        snprintf(why, sizeof why, "no test ran (selection: %s)", only ? only : "all");
        runner_error(out, why);
    }
    TestResult **results = srunner_results(sr);
    for (int i = 0; i < n; i++) {
        int rtype = tr_rtype(results[i]);
        fputs("result\t", out);
        put_escaped(out, tr_tcname(results[i]));
        fprintf(out, "\t%s\t",
                rtype == CK_PASS ? "pass" : rtype == CK_FAILURE ? "failure" : "error");
        put_escaped(out, rtype == CK_PASS ? "" : tr_msg(results[i]));
        fputs("\n", out);
    }
    fprintf(out, "end\t%d\n", n);
    free(results);
    srunner_free(sr);
    return fclose(out) == 0 ? 0 : 3;
}
