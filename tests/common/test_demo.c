/*
 * test_demo.c - checks common/demo.c: the labs' demos' command line (options
 * set, return codes and every message, to the byte), the stem of a plot's
 * files, and what demo_render prints and returns, with and without gnuplot.
 *
 * What the functions print is captured by pointing stdout and stderr (file
 * descriptors 1 and 2) at temporary files around each call.
 *
 * Skipping: test_render_wrote needs a gnuplot with the pngcairo and dumb
 * terminals. Without one it is not run: it prints "SKIP: gnuplot not found
 * (test_render_wrote)", and main() returns 77, the automake code for a
 * skipped test, provided every test that did run passed.
 *
 * test_render_no_gnuplot sets $GNUPLOT; the fixture puts it back.
 *
 * Not for: the demos themselves (tests/labN/test_demo.sh runs them).
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch.h"
#include "demo.h"

#define PROG "lab9"
#define ABOUT "Does this to your lab9.c,\nand draws that (that.png)."
#define DEFAULT_DIR "build/lab9/plots"
#define TEXT_SIZE 16384
#define PATH_SIZE 4096

static char tmp[PATH_SIZE]; /* a fresh folder for each test */
static char *saved_gnuplot;  /* $GNUPLOT before the test, or NULL */

/* ---- helpers ------------------------------------------------------------ */

static void setup(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/fp8lab-demo-XXXXXX",
             base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    const char *gnuplot = getenv("GNUPLOT");
    saved_gnuplot = gnuplot ? strdup(gnuplot) : NULL;
}

static void teardown(void)
{
    if (saved_gnuplot)
        setenv("GNUPLOT", saved_gnuplot, 1);
    else
        unsetenv("GNUPLOT");
    free(saved_gnuplot);
    scratch_remove(tmp);
}

/* tmp/name, in a static buffer (one of four, used in turn). */
static const char *in_tmp(const char *name)
{
    static char bufs[4][PATH_SIZE];
    static int next;
    char *b = bufs[next++ % 4];
    ck_assert_int_lt(snprintf(b, PATH_SIZE, "%s/%s", tmp, name), PATH_SIZE);
    return b;
}

/* What a call printed. */
typedef struct printed {
    char out[TEXT_SIZE]; /* on stdout */
    char err[TEXT_SIZE]; /* on stderr */
} printed;

static FILE *capture_file[2]; /* [0] for stdout, [1] for stderr */
static int saved_fd[2];

/* From here to capture_end, stdout and stderr go to temporary files. */
static void capture_begin(void)
{
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < 2; k++) {
        int fd = k == 0 ? STDOUT_FILENO : STDERR_FILENO;
        capture_file[k] = tmpfile();
        ck_assert_ptr_nonnull(capture_file[k]);
        saved_fd[k] = dup(fd);
        ck_assert_int_ge(saved_fd[k], 0);
        ck_assert_int_ge(dup2(fileno(capture_file[k]), fd), 0);
    }
}

/* Puts stdout and stderr back, and what went to them into *pr. */
static void capture_end(printed *pr)
{
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < 2; k++) {
        int fd = k == 0 ? STDOUT_FILENO : STDERR_FILENO;
        char *text = k == 0 ? pr->out : pr->err;
        ck_assert_int_ge(dup2(saved_fd[k], fd), 0);
        close(saved_fd[k]);
        rewind(capture_file[k]);
        size_t n = fread(text, 1, TEXT_SIZE - 1, capture_file[k]);
        ck_assert_msg(feof(capture_file[k]), "more than %d bytes printed", TEXT_SIZE - 1);
        text[n] = '\0';
        fclose(capture_file[k]);
    }
}

/* demo_parse_args for PROG on args (NULL-terminated, argv[0] not included),
 * with what it prints in *pr. */
static int parse(char **args, demo_options *o, printed *pr)
{
    char *argv[16] = {PROG};
    int argc = 1;
    while (args[argc - 1]) {
        ck_assert_int_lt(argc, 15);
        argv[argc] = args[argc - 1];
        argc++;
    }
    capture_begin();
    int rc = demo_parse_args(argc, argv, PROG, ABOUT, DEFAULT_DIR, o);
    capture_end(pr);
    return rc;
}

#define ARGS(...) ((char *[]){__VA_ARGS__, NULL})

/* A usage error: rc 2, nothing on stdout, exactly message on stderr. */
static void assert_usage_error(char **args, const char *message)
{
    demo_options o;
    static printed pr;
    ck_assert_int_eq(parse(args, &o, &pr), 2);
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, message);
}

/* A plot of one short series, with its files at stem. */
static plot *small_plot(const char *stem)
{
    static const double y[3] = {1, 4, 2};
    lab_error err = {{0}};
    plot *p = plot_new(stem, "a small plot", "step", "y (units)", &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    ck_assert_int_eq(plot_add_series(p, "y", NULL, y, 3, &err), 0);
    return p;
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* The size in the PNG's IHDR, after checking its signature. */
static void assert_png_size(const char *path, unsigned width, unsigned height)
{
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no image %s", path);
    size_t got = fread(b, 1, sizeof b, f);
    fclose(f);
    ck_assert_uint_eq(got, sizeof b);
    ck_assert_msg(memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0, "%s is not a PNG", path);
    ck_assert_uint_eq((unsigned)b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19], width);
    ck_assert_uint_eq((unsigned)b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23], height);
}

/* ---- the command line --------------------------------------------------- */

START_TEST(test_defaults)
{
    demo_options o;
    static printed pr;
    ck_assert_int_eq(parse(ARGS(NULL), &o, &pr), 0);
    ck_assert_str_eq(o.prog, PROG);
    ck_assert_str_eq(o.dir, DEFAULT_DIR);
    ck_assert(o.preview);
    ck_assert(!o.no_gnuplot);
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, "");
}
END_TEST

START_TEST(test_output_short)
{
    demo_options o;
    static printed pr;
    char **args = ARGS("-o", "out/plots");
    ck_assert_int_eq(parse(args, &o, &pr), 0);
    ck_assert_ptr_eq(o.dir, args[1]); /* argv's own string, not a copy */
    ck_assert(o.preview);
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, "");
}
END_TEST

START_TEST(test_output_long)
{
    demo_options o;
    static printed pr;
    ck_assert_int_eq(parse(ARGS("--output", "/tmp/x/"), &o, &pr), 0);
    ck_assert_str_eq(o.dir, "/tmp/x/");
    ck_assert(o.preview);
    ck_assert_str_eq(pr.err, "");
}
END_TEST

START_TEST(test_no_preview)
{
    demo_options o;
    static printed pr;
    ck_assert_int_eq(parse(ARGS("--no-preview"), &o, &pr), 0);
    ck_assert(!o.preview);
    ck_assert_str_eq(o.dir, DEFAULT_DIR);
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, "");
}
END_TEST

START_TEST(test_options_together)
{
    demo_options o;
    static printed pr;
    /* In any order; the last -o wins. */
    ck_assert_int_eq(parse(ARGS("-o", "a", "--no-preview", "--output", "b"), &o, &pr), 0);
    ck_assert_str_eq(o.dir, "b");
    ck_assert(!o.preview);
    ck_assert_str_eq(pr.err, "");
}
END_TEST

static const char USAGE[] =
    "usage: lab9 [-o DIR] [--no-preview]\n"
    "\n"
    "Does this to your lab9.c,\n"
    "and draws that (that.png).\n"
    "\n"
    "  -o, --output DIR  write the plots (PNG, gnuplot script, data) to DIR,\n"
    "                    created if missing (default build/lab9/plots)\n"
    "  --no-preview      do not draw the plots as text on the terminal\n"
    "  -h, --help        this help\n"
    "\n"
    "exit status: 0 on success (also when gnuplot is missing), 1 when a plot\n"
    "could not be written, 2 on a usage error\n";

START_TEST(test_help)
{
    demo_options o;
    static printed pr;
    ck_assert_int_eq(parse(ARGS("-h"), &o, &pr), 1);
    ck_assert_str_eq(pr.out, USAGE);
    ck_assert_str_eq(pr.err, "");

    /* --help too, and it stops there: what follows is not read. */
    ck_assert_int_eq(parse(ARGS("--no-preview", "--help", "--bogus"), &o, &pr), 1);
    ck_assert_str_eq(pr.out, USAGE);
    ck_assert_str_eq(pr.err, "");
}
END_TEST

START_TEST(test_output_without_folder)
{
    assert_usage_error(ARGS("-o"),
                       "lab9: -o needs a folder name, e.g. -o build/lab9/plots\n");
    assert_usage_error(ARGS("--no-preview", "--output"),
                       "lab9: --output needs a folder name, e.g. --output build/lab9/plots\n");
}
END_TEST

START_TEST(test_output_empty)
{
    assert_usage_error(ARGS("-o", ""),
                       "lab9: -o needs a folder name, e.g. -o build/lab9/plots\n");
    assert_usage_error(ARGS("--output", "", "x"),
                       "lab9: --output needs a folder name, e.g. --output build/lab9/plots\n");
}
END_TEST

START_TEST(test_unknown_option)
{
    assert_usage_error(ARGS("--bogus"), "lab9: unknown option '--bogus' (try lab9 --help)\n");
    assert_usage_error(ARGS("-"), "lab9: unknown option '-' (try lab9 --help)\n");
    /* A usage error before -h is an error: the arguments are read in order. */
    assert_usage_error(ARGS("-x", "-h"), "lab9: unknown option '-x' (try lab9 --help)\n");
}
END_TEST

START_TEST(test_stray_argument)
{
    assert_usage_error(ARGS("stray"),
                       "lab9: unexpected argument 'stray' (try lab9 --help)\n");
    assert_usage_error(ARGS("-o", "d", "e"),
                       "lab9: unexpected argument 'e' (try lab9 --help)\n");
}
END_TEST

/* ---- the stem ----------------------------------------------------------- */

/* demo_stem of name in dir, into stem[size]; what it prints in *pr. */
static int stem_of(const char *dir, const char *name, char *stem, size_t size, printed *pr)
{
    demo_options o = {.prog = PROG, .dir = dir, .preview = true};
    capture_begin();
    int rc = demo_stem(&o, name, stem, size);
    capture_end(pr);
    return rc;
}

START_TEST(test_stem)
{
    static printed pr;
    char stem[DEMO_STEM_SIZE];
    ck_assert_int_eq(stem_of("out/plots", "values", stem, sizeof stem, &pr), 0);
    ck_assert_str_eq(stem, "out/plots/values");
    ck_assert_int_eq(stem_of("out/plots/", "values", stem, sizeof stem, &pr), 0);
    ck_assert_str_eq(stem, "out/plots/values"); /* the '/' is not doubled */
    ck_assert_int_eq(stem_of("/", "values", stem, sizeof stem, &pr), 0);
    ck_assert_str_eq(stem, "/values");
    ck_assert_int_eq(stem_of("", "values", stem, sizeof stem, &pr), 0);
    ck_assert_str_eq(stem, "values");
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, "");
}
END_TEST

START_TEST(test_stem_too_long)
{
    static printed pr;
    char stem[9];
    ck_assert_int_eq(stem_of("ab", "cdefg", stem, 9, &pr), 0); /* "ab/cdefg" and '\0' */
    ck_assert_str_eq(stem, "ab/cdefg");
    ck_assert_int_eq(stem_of("ab/", "cdefg", stem, 9, &pr), 0);
    ck_assert_int_eq(stem_of("ab", "cdefg", stem, 8, &pr), -1);
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, "lab9: output folder name too long: ab\n");

    /* A folder as long as DEMO_STEM_SIZE, as a demo would be given. */
    static char dir[DEMO_STEM_SIZE + 1], big[DEMO_STEM_SIZE], want[DEMO_STEM_SIZE + 64];
    memset(dir, 'd', DEMO_STEM_SIZE);
    ck_assert_int_eq(stem_of(dir, "values", big, sizeof big, &pr), -1);
    snprintf(want, sizeof want, "lab9: output folder name too long: %s\n", dir);
    ck_assert_str_eq(pr.err, want);
}
END_TEST

/* ---- rendering ---------------------------------------------------------- */

START_TEST(test_render_null_plot)
{
    static printed pr;
    demo_options o = {.prog = PROG, .dir = tmp, .preview = false};
    lab_error err = {"plot_new: out of memory"};
    capture_begin();
    int rc = demo_render(&o, NULL, in_tmp("values"), 1400, &err);
    capture_end(&pr);
    ck_assert_int_eq(rc, -1);
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, "lab9: plot_new: out of memory\n");
}
END_TEST

START_TEST(test_render_no_gnuplot)
{
    static printed pr;
    ck_assert_int_eq(setenv("GNUPLOT", in_tmp("no-such-gnuplot"), 1), 0);
    demo_options o = {.prog = PROG, .dir = tmp, .preview = true};
    const char *stem = in_tmp("values");
    lab_error err = {{0}};
    capture_begin();
    int rc = demo_render(&o, small_plot(stem), stem, 1400, &err);
    capture_end(&pr);
    /* Quiet: the demo says it once, at the end, with demo_note_no_gnuplot. */
    ck_assert_int_eq(rc, PLOT_NO_GNUPLOT);
    ck_assert(o.no_gnuplot);
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, "");
    ck_assert(exists(in_tmp("values.dat")));
    ck_assert(exists(in_tmp("values.gp")));
    ck_assert(!exists(in_tmp("values.png")));
}
END_TEST

START_TEST(test_render_error)
{
    static printed pr;
    FILE *f = fopen(in_tmp("file"), "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    demo_options o = {.prog = PROG, .dir = in_tmp("file"), .preview = false};
    const char *stem = in_tmp("file/values"); /* under a file: no folder there */
    lab_error err = {{0}};
    capture_begin();
    int rc = demo_render(&o, small_plot(stem), stem, 1400, &err);
    capture_end(&pr);
    ck_assert_int_eq(rc, -1);
    ck_assert(!o.no_gnuplot);
    ck_assert_str_eq(pr.out, "");
    /* plot_render's message, on one line, after the program's name. */
    ck_assert_msg(err.msg[0] != '\0', "no message in err");
    char want[sizeof err.msg + 16];
    snprintf(want, sizeof want, "lab9: %s\n", err.msg);
    ck_assert_str_eq(pr.err, want);
    ck_assert_ptr_eq(strchr(pr.err, '\n'), pr.err + strlen(pr.err) - 1);
}
END_TEST

START_TEST(test_render_wrote)
{
    static printed pr;
    static char want[2 * PATH_SIZE];
    demo_options o = {.prog = PROG, .dir = tmp, .preview = false};
    const char *stem = in_tmp("values");
    lab_error err = {{0}};
    capture_begin();
    int rc = demo_render(&o, small_plot(stem), stem, 700, &err);
    capture_end(&pr);
    ck_assert_msg(rc == 0, "demo_render returned %d: %s", rc, err.msg);
    ck_assert(!o.no_gnuplot);
    snprintf(want, sizeof want, "  wrote %s.png (and %s.gp, its gnuplot script)\n\n",
             stem, stem);
    ck_assert_str_eq(pr.out, want);
    ck_assert_str_eq(pr.err, "");
    assert_png_size(in_tmp("values.png"), 700, 600);

    /* With the preview: on stdout, before that line, at most 110 wide. */
    o.preview = true;
    capture_begin();
    rc = demo_render(&o, small_plot(stem), stem, 700, &err);
    capture_end(&pr);
    ck_assert_msg(rc == 0, "demo_render returned %d: %s", rc, err.msg);
    size_t len = strlen(pr.out), tail = strlen(want);
    ck_assert_uint_gt(len, tail);
    ck_assert_str_eq(pr.out + len - tail, want);
    ck_assert_msg(strstr(pr.out, "a small plot") != NULL, "no preview in:\n%s", pr.out);
    int lines = 0;
    for (const char *line = pr.out; line < pr.out + len - tail; lines++) {
        size_t n = strcspn(line, "\n");
        ck_assert_msg(n <= 110, "preview line %d is %zu wide", lines, n);
        line += n + (line[n] == '\n');
    }
    ck_assert_int_ge(lines, 28);
    ck_assert_int_le(lines, 33);
}
END_TEST

/* ---- the closing note ---------------------------------------------------- */

START_TEST(test_note_no_gnuplot)
{
    static printed pr;
    demo_options o = {.prog = PROG, .dir = "out/plots", .preview = true};
    capture_begin();
    demo_note_no_gnuplot(&o); /* every plot was drawn: nothing to say */
    capture_end(&pr);
    ck_assert_str_eq(pr.out, "");
    ck_assert_str_eq(pr.err, "");

    o.no_gnuplot = true;
    capture_begin();
    demo_note_no_gnuplot(&o);
    capture_end(&pr);
    ck_assert_str_eq(pr.out,
        "\ngnuplot is missing (not found on $PATH), so no plots were drawn;\n"
        "their data and gnuplot scripts are in out/plots. Install it with\n"
        "`make deps` (or `sudo apt-get install gnuplot-nox`) and run this again.\n");
    ck_assert_str_eq(pr.err, "");
}
END_TEST

#define CORE_TESTS(X)                                                         \
    X(test_defaults) X(test_output_short) X(test_output_long)                 \
    X(test_no_preview) X(test_options_together) X(test_help)                  \
    X(test_output_without_folder) X(test_output_empty) X(test_unknown_option) \
    X(test_stray_argument) X(test_stem) X(test_stem_too_long)                 \
    X(test_render_null_plot) X(test_render_no_gnuplot) X(test_render_error)   \
    X(test_note_no_gnuplot)

int main(void)
{
    Suite *s = suite_create("demo");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, teardown);
#define ADD(t) tcase_add_test(core, t);
    CORE_TESTS(ADD)
    suite_add_tcase(s, core);

    int skipped = 0;
    if (plot_gnuplot_available()) {
        TCase *g = tcase_create("gnuplot");
        tcase_add_checked_fixture(g, setup, teardown);
        tcase_set_timeout(g, 60);
        tcase_add_test(g, test_render_wrote);
        suite_add_tcase(s, g);
    } else {
        printf("SKIP: gnuplot not found (test_render_wrote)\n");
        skipped++;
    }

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed != 0)
        return EXIT_FAILURE;
    return skipped ? 77 : EXIT_SUCCESS;
}
