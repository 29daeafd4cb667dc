/*
 * test_plot.c - checks common/plot.c: the .dat and .gp it writes, its errors,
 * what it does without gnuplot, and (with gnuplot) the images and previews
 * gnuplot draws from them.
 *
 * Skipping: the tests in the "gnuplot" case need a gnuplot with the pngcairo
 * and dumb terminals. When plot_gnuplot_available() says there is none, they
 * are not run: each prints "SKIP: gnuplot not found (<test>)", and main()
 * returns 77, the automake code for a skipped test, provided every test that
 * did run passed. So: 0 all passed, 77 passed but the gnuplot tests were
 * skipped, 1 something failed.
 *
 * The tests change environment variables and the working folder; they rely
 * on Check's default fork mode to keep those changes inside one test (the
 * fixture restores them too).
 *
 * The "script runs from anywhere" test needs gnuplot 5.4 or later (ARG0).
 *
 * The "signals" case kills children (SIGINT, SIGTERM, SIGHUP, SIGPIPE) in
 * the middle of writing files and checks that no temporary file is left.
 *
 * Not for: judging how a plot looks (that is for a person, once); the tests
 * check that an image is drawn, what the text files say, and that each
 * series gets its own colour, point type and preview characters.
 */
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "atomic_file.h"
#include "plot.h"

#define PATH_SIZE 4096

static char tmp[PATH_SIZE];     /* a fresh folder for each test */
static char saved_cwd[PATH_SIZE];
static char *saved_gnuplot, *saved_path;

/* ---- helpers ------------------------------------------------------------ */

static char *dup_env(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

static void restore_env(const char *name, char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    free(value);
}

static void setup(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/fp8lab-plot-XXXXXX",
             base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    ck_assert_ptr_nonnull(getcwd(saved_cwd, sizeof saved_cwd));
    saved_gnuplot = dup_env("GNUPLOT");
    saved_path = dup_env("PATH");
}

static void teardown(void)
{
    ck_assert_int_eq(chdir(saved_cwd), 0);
    restore_env("GNUPLOT", saved_gnuplot);
    restore_env("PATH", saved_path);
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

/* The rest of f from its start, NUL-terminated (malloc'd). */
static char *slurp_stream(FILE *f)
{
    rewind(f);
    size_t cap = 4096, len = 0, got;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    while ((got = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            s = realloc(s, cap *= 2);
            ck_assert_ptr_nonnull(s);
        }
    }
    s[len] = '\0';
    return s;
}

/* The whole file (malloc'd); fails the test when it cannot be read. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    char *s = slurp_stream(f);
    fclose(f);
    return s;
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
}


/* Points $GNUPLOT at a shell script with the given body. Its arguments are
 * those plot_render passes: -d -e "out = '<file>'" <script>. */
static void fake_gnuplot(const char *body)
{
    char text[1024];
    ck_assert_int_eq(mkdir(in_tmp("bin"), 0777), 0);
    const char *prog = in_tmp("bin/fake-gnuplot");
    snprintf(text, sizeof text, "#!/bin/sh\n%s", body);
    write_text(prog, text, 0755);
    setenv("GNUPLOT", prog, 1);
}

/* Makes plot_render find no gnuplot. */
static void no_gnuplot(void)
{
    setenv("GNUPLOT", in_tmp("no-such-gnuplot"), 1);
}

/* Number of entries in folder dir, "." and ".." left out. */
static int count_entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* A four-point plot at tmp/name. */
static plot *small_plot(const char *name)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp(name), "amax per step", "step",
                       "amax (absolute value)", &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    const double y[4] = { 1, 2, 4, 3 };
    ck_assert_int_eq(plot_add_series(p, "amax", NULL, y, 4, &err), 0);
    return p;
}

/* Renders p (then frees it), which must succeed. */
static void render_ok(plot *p, const plot_options *opt)
{
    lab_error err = {{0}};
    int rc = plot_render(p, opt, &err);
    ck_assert_msg(rc == 0, "plot_render returned %d: %s", rc, err.msg);
    plot_free(p);
}

/* Renders p (then frees it) without gnuplot; returns the script's text. */
static char *script_of(plot *p, const char *name)
{
    lab_error err = {{0}};
    char gp[PATH_SIZE];
    no_gnuplot();
    ck_assert_int_eq(plot_render(p, NULL, &err), PLOT_NO_GNUPLOT);
    plot_free(p);
    ck_assert_int_lt(snprintf(gp, sizeof gp, "%s/%s.gp", tmp, name),
                     (int)sizeof gp);
    return slurp(gp);
}

static void assert_contains(const char *text, const char *part)
{
    ck_assert_msg(strstr(text, part) != NULL, "missing [%s] in:\n%s", part,
                  text);
}

/* Checks the PNG signature and, when width is not 0, the IHDR size. */
static void assert_png(const char *path, unsigned width, unsigned height)
{
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no image %s", path);
    size_t got = fread(b, 1, sizeof b, f);
    fclose(f);
    ck_assert_uint_eq(got, sizeof b);
    ck_assert_msg(memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0,
                  "%s lacks the PNG signature", path);
    if (width == 0)
        return;
    unsigned w = (unsigned)b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19];
    unsigned h = (unsigned)b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];
    ck_assert_uint_eq(w, width);
    ck_assert_uint_eq(h, height);
}

/* ---- the data file ------------------------------------------------------ */

START_TEST(test_dat_exact)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("d"), "tiny", "step", "y (units)", &err);
    ck_assert_ptr_nonnull(p);
    const double x[3] = { 0, 1, 2.5 };
    const double y0[3] = { 0.5, NAN, -1e-3 };
    const double y1[3] = { INFINITY, -INFINITY, 0.1 + 0.2 };
    const double y2[3] = { 1.0 / 3.0, 1e300, NAN };
    ck_assert_int_eq(plot_add_series(p, "a", x, y0, 3, &err), 0);
    ck_assert_int_eq(plot_add_series(p, NULL, x, y1, 3, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "b", NULL, y2, 3, &err), 0);
    no_gnuplot();
    ck_assert_int_eq(plot_render(p, NULL, &err), PLOT_NO_GNUPLOT);
    plot_free(p);

    /* A missing row is followed by one blank line, where gnuplot breaks the
     * line; never two (that would start a new index), so none after a
     * block's last row. */
    char *dat = slurp(in_tmp("d.dat"));
    ck_assert_str_eq(dat,
                     "# tiny\n"
                     "# x: step\n"
                     "# y: y (units)\n"
                     "# series 0: a\n"
                     "0 0.5\n"
                     "1 NaN\n"
                     "\n"
                     "2.5 -0.001\n"
                     "\n\n"
                     "# series 1\n"
                     "0 NaN\n"
                     "\n"
                     "1 NaN\n"
                     "\n"
                     "2.5 0.30000000000000004\n"
                     "\n\n"
                     "# series 2: b\n"
                     "0 0.3333333333333333\n"
                     "1 1e+300\n"
                     "2 NaN\n");
    free(dat);
}
END_TEST

START_TEST(test_series_data_is_copied)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("c"), NULL, NULL, NULL, &err);
    ck_assert_ptr_nonnull(p);
    double x[2] = { 1, 2 }, y[2] = { 10, 20 };
    ck_assert_int_eq(plot_add_series(p, "s", x, y, 2, &err), 0);
    x[0] = y[0] = -7; /* after the copy: must not show */
    char *gp = script_of(p, "c");
    free(gp);
    char *dat = slurp(in_tmp("c.dat"));
    ck_assert_str_eq(dat, "# series 0: s\n1 10\n2 20\n");
    free(dat);
}
END_TEST

START_TEST(test_control_chars_become_spaces)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("cc"), "two\nlines", "x\tunit", "y", &err);
    ck_assert_ptr_nonnull(p);
    const double y[1] = { 1 };
    ck_assert_int_eq(plot_add_series(p, "a\r\nb", NULL, y, 1, &err), 0);
    char *gp = script_of(p, "cc");
    assert_contains(gp, "set title 'two lines'\n");
    assert_contains(gp, "set xlabel 'x unit'\n");
    assert_contains(gp, "title 'a  b'");
    free(gp);
    char *dat = slurp(in_tmp("cc.dat"));
    ck_assert_str_eq(dat, "# two lines\n# x: x unit\n# y: y\n"
                          "# series 0: a  b\n0 1\n");
    free(dat);
}
END_TEST

/* ---- the script --------------------------------------------------------- */

START_TEST(test_script_quotes_texts)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("q"), "say \"hi\" \\ it's `touch pwned`",
                       "o'clock", "back\\slash", &err);
    ck_assert_ptr_nonnull(p);
    const double y[2] = { 1, 2 };
    ck_assert_int_eq(plot_add_series(p, "it's", NULL, y, 2, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 1, "a'b\"c", &err), 0);
    char *gp = script_of(p, "q");
    assert_contains(gp, "set title 'say \"hi\" \\ it''s `touch pwned`'\n");
    assert_contains(gp, "set xlabel 'o''clock'\n");
    assert_contains(gp, "set ylabel 'back\\slash'\n");
    assert_contains(gp, "title 'it''s'");
    assert_contains(gp, "set label 'a''b\"c' at first 1,");
    free(gp);
}
END_TEST

START_TEST(test_script_layout)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("lay"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    const double y[3] = { 3, 2, 1 };
    ck_assert_int_eq(plot_add_series(p, "train", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "eval", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "", NULL, y, 1, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 120, "spike", &err), 0);
    ck_assert_int_eq(plot_add_vline(p, -5, NULL, &err), 0);
    ck_assert_int_eq(plot_add_hline(p, 448, "E4M3 max", &err), 0);
    char *gp = script_of(p, "lay");
    assert_contains(gp, "set datafile missing 'NaN'\n");
    assert_contains(gp, "set terminal pngcairo noenhanced size 960, 600\n");
    assert_contains(gp, "dat = dir.'lay'.'.dat'\n");
    assert_contains(gp, "set xrange [*<-5 : 120<*]\n");
    assert_contains(gp, "set arrow from first 120, graph 0 to first 120, "
                        "graph 1 nohead");
    assert_contains(gp, "set arrow from first -5, graph 0");
    assert_contains(gp, "set label 'spike' at first 120, graph 0.96");
    assert_contains(gp, "set label 'E4M3 max' at graph 0.01, first 448");
    /* in drawing order: hlines, lines, markers, then the key's entries */
    assert_contains(gp, "\nplot 448 with lines linetype 7 dashtype 3 "
                        "linecolor rgb '#606060' notitle, \\\n");
    assert_contains(gp, "     dat index 0 using 1:2 with lines linestyle 1 "
                        "notitle, \\\n"
                        "     dat index 1 using 1:2 with lines linestyle 2 "
                        "notitle, \\\n"
                        "     dat index 0 using 1:2 with points linestyle 1 "
                        "notitle, \\\n"
                        "     dat index 1 using 1:2 with points linestyle 2 "
                        "notitle, \\\n"
                        "     dat index 2 using 1:2 with points linestyle 3 "
                        "notitle, \\\n"
                        "     keyentry with linespoints linestyle 1 title "
                        "'train', \\\n"
                        "     keyentry with linespoints linestyle 2 title "
                        "'eval'\n");
    ck_assert_ptr_null(strstr(gp, "linestyle 3 title")); /* unlabelled */
    ck_assert_ptr_null(strstr(gp, "logscale"));
    ck_assert_ptr_null(strstr(gp, "no finite data"));
    free(gp);
}
END_TEST

START_TEST(test_script_log_y)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("log"), "t", "step", "amax", &err);
    ck_assert_ptr_nonnull(p);
    const double y[3] = { 1, 10, 100 };
    ck_assert_int_eq(plot_add_series(p, "amax", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_add_hline(p, 0, "zero", &err), 0);
    ck_assert_int_eq(plot_add_hline(p, 448, NULL, &err), 0);
    plot_set_log_y(p, true);
    char *gp = script_of(p, "log");
    assert_contains(gp, "set logscale y\n");
    assert_contains(gp, "448 with lines");
    /* y = 0 cannot sit on a log axis: neither line nor label */
    ck_assert_ptr_null(strstr(gp, "'zero'"));
    ck_assert_ptr_null(strstr(gp, "0 with lines"));
    free(gp);
}
END_TEST

START_TEST(test_script_nothing_drawable)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("nan"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    const double x[3] = { 2, 3, 4 };
    const double y[3] = { NAN, INFINITY, NAN };
    ck_assert_int_eq(plot_add_series(p, "loss", x, y, 3, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 10, "end", &err), 0);
    char *gp = script_of(p, "nan");
    assert_contains(gp, "set xrange [2:10]\n");
    assert_contains(gp, "set yrange [0:1]\n");
    assert_contains(gp, "no finite data to plot");
    free(gp);

    /* on a log axis, values <= 0 are not drawable either */
    p = plot_new(in_tmp("neg"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    const double y2[2] = { 0, -1 };
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y2, 2, &err), 0);
    plot_set_log_y(p, true);
    gp = script_of(p, "neg");
    assert_contains(gp, "set xrange [0:1]\n");
    assert_contains(gp, "set yrange [1:10]\n");
    free(gp);
}
END_TEST

START_TEST(test_script_ranges)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("r"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    const double y[3] = { 3, 20, 1 };
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_set_xrange(p, 0, 10, &err), 0);
    ck_assert_int_eq(plot_set_yrange(p, NAN, 100, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 5, "in", &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 20, "far right", &err), 0);
    ck_assert_int_eq(plot_add_hline(p, 50, "mid", &err), 0);
    ck_assert_int_eq(plot_add_hline(p, 200, "far up", &err), 0);
    char *gp = script_of(p, "r");
    assert_contains(gp, "set xrange [0 : 10]\n");
    assert_contains(gp, "set yrange [* : 100]\n");
    assert_contains(gp, "set arrow from first 5, graph 0");
    assert_contains(gp, "set label 'in' at first 5,");
    assert_contains(gp, "set label 'mid' at graph 0.01, first 50");
    assert_contains(gp, "50 with lines linetype 7 dashtype 3");
    /* lines outside a fixed range are left out, labels included */
    ck_assert_ptr_null(strstr(gp, "first 20"));
    ck_assert_ptr_null(strstr(gp, "far right"));
    ck_assert_ptr_null(strstr(gp, "200"));
    ck_assert_ptr_null(strstr(gp, "far up"));
    free(gp);

    /* a free end still stretches to hold the vlines */
    p = plot_new(in_tmp("h"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, -5, NULL, &err), 0);
    ck_assert_int_eq(plot_set_xrange(p, NAN, 10, &err), 0);
    ck_assert_int_eq(plot_set_yrange(p, 0.5, NAN, &err), 0);
    gp = script_of(p, "h");
    assert_contains(gp, "set xrange [*<-5 : 10]\n");
    assert_contains(gp, "set yrange [0.5 : *]\n");
    free(gp);

    /* NaN, NaN gives the choice back to gnuplot */
    p = plot_new(in_tmp("n"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_set_xrange(p, 0, 10, &err), 0);
    ck_assert_int_eq(plot_set_xrange(p, NAN, NAN, &err), 0);
    ck_assert_int_eq(plot_set_yrange(p, 0, 10, &err), 0);
    ck_assert_int_eq(plot_set_yrange(p, NAN, NAN, &err), 0);
    gp = script_of(p, "n");
    ck_assert_ptr_null(strstr(gp, "range"));
    free(gp);
}
END_TEST

/* Points that are all outside the fixed ranges: gnuplot would stop ("x
 * range is invalid", "all points y value undefined"), so both ranges are
 * fixed, as for a plot with nothing finite. */
START_TEST(test_script_nothing_in_range)
{
    lab_error err = {{0}};
    const double y[3] = { 1, 2, 3 };
    plot *p = plot_new(in_tmp("out"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_set_xrange(p, 10, 20, &err), 0);
    char *gp = script_of(p, "out");
    assert_contains(gp, "set xrange [10:20]\n");
    assert_contains(gp, "set yrange [0:1]\n");
    assert_contains(gp, "no data inside the fixed range");
    free(gp);

    /* one end fixed: the other goes one unit past it */
    p = plot_new(in_tmp("left"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_set_xrange(p, NAN, -3, &err), 0);
    gp = script_of(p, "left");
    assert_contains(gp, "set xrange [-4:-3]\n");
    free(gp);

    /* ... a factor 10 on a log axis */
    p = plot_new(in_tmp("log"), "t", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_set_yrange(p, 100, NAN, &err), 0);
    plot_set_log_y(p, true);
    gp = script_of(p, "log");
    assert_contains(gp, "set xrange [0:2]\n");
    assert_contains(gp, "set yrange [100:1000]\n");
    free(gp);
}
END_TEST

START_TEST(test_script_key)
{
    static const char *const positions[][2] = {
        { "top right", "set key top right opaque\n" },
        { "top left", "set key top left opaque\n" },
        { "bottom left", "set key bottom left opaque\n" },
        { "bottom right", "set key bottom right opaque\n" },
        { "outside", "set key outside right top\n" },
        { "below", "set key below center horizontal Left reverse" },
    };
    char *gp = script_of(small_plot("default"), "default");
    assert_contains(gp, "set key top right opaque\n");
    free(gp);
    for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
        lab_error err = {{0}};
        plot *p = small_plot("k");
        ck_assert_msg(plot_set_key(p, positions[i][0], &err) == 0,
                      "'%s': %s", positions[i][0], err.msg);
        gp = script_of(p, "k");
        char *key = strstr(gp, "set key");
        ck_assert_ptr_eq(key, strstr(gp, positions[i][1]));
        ck_assert_ptr_null(strstr(key + 1, "set key")); /* just the one */
        free(gp);
    }
}
END_TEST

/* ---- folders ------------------------------------------------------------ */

START_TEST(test_creates_folders)
{
    lab_error err = {{0}};
    plot *p = small_plot("a/b/c/amax");
    no_gnuplot();
    ck_assert_int_eq(plot_render(p, NULL, &err), PLOT_NO_GNUPLOT);
    plot_free(p);
    ck_assert(exists(in_tmp("a/b/c/amax.dat")));
    ck_assert(exists(in_tmp("a/b/c/amax.gp")));
    ck_assert(!exists(in_tmp("a/b/c/amax.png")));
    ck_assert_int_eq(count_entries(in_tmp("a/b/c")), 2); /* no temp files */
}
END_TEST

START_TEST(test_folder_blocked_by_file)
{
    lab_error err = {{0}};
    write_text(in_tmp("f"), "a file\n", 0644);
    plot *p = small_plot("f/sub/amax");
    no_gnuplot();
    ck_assert_int_eq(plot_render(p, NULL, &err), -1);
    plot_free(p);
    char want[PATH_SIZE + 64];
    snprintf(want, sizeof want, "plot: cannot create folder %s: a file of "
             "that name is in the way", in_tmp("f"));
    ck_assert_str_eq(err.msg, want);
}
END_TEST

/* ---- without gnuplot ---------------------------------------------------- */

START_TEST(test_missing_gnuplot_by_env)
{
    lab_error err = {{0}};
    no_gnuplot();
    ck_assert(!plot_gnuplot_available());
    write_text(in_tmp("amax.png"), "an old image\n", 0644);
    plot *p = small_plot("amax");
    plot_options opt = { .preview = stdout };
    ck_assert_int_eq(plot_render(p, &opt, &err), PLOT_NO_GNUPLOT);
    plot_free(p);
    assert_contains(err.msg, "gnuplot not found");
    assert_contains(err.msg, "sudo apt-get install gnuplot-nox");
    assert_contains(err.msg, in_tmp("no-such-gnuplot"));
    assert_contains(err.msg, in_tmp("amax.dat"));
    assert_contains(err.msg, in_tmp("amax.gp"));
    ck_assert(exists(in_tmp("amax.dat")));
    ck_assert(exists(in_tmp("amax.gp")));
    ck_assert(!exists(in_tmp("amax.png"))); /* the old one is gone */
}
END_TEST

START_TEST(test_missing_gnuplot_on_path)
{
    lab_error err = {{0}};
    unsetenv("GNUPLOT");
    setenv("PATH", tmp, 1); /* an empty folder */
    ck_assert(!plot_gnuplot_available());
    plot *p = small_plot("amax");
    ck_assert_int_eq(plot_render(p, NULL, &err), PLOT_NO_GNUPLOT);
    plot_free(p);
    char want[3 * PATH_SIZE];
    snprintf(want, sizeof want, "gnuplot not found: install it with `sudo "
             "apt-get install gnuplot-nox` (data and script written to %s, "
             "%s)", in_tmp("amax.dat"), in_tmp("amax.gp"));
    ck_assert_str_eq(err.msg, want);
}
END_TEST

START_TEST(test_gnuplot_not_executable)
{
    write_text(in_tmp("gnuplot"), "#!/bin/sh\nexit 0\n", 0644);
    setenv("GNUPLOT", in_tmp("gnuplot"), 1);
    ck_assert(!plot_gnuplot_available());
    unsetenv("GNUPLOT");
    setenv("PATH", tmp, 1);
    ck_assert(!plot_gnuplot_available());
    ck_assert_int_eq(chmod(in_tmp("gnuplot"), 0755), 0);
    ck_assert(plot_gnuplot_available()); /* found on $PATH now */
}
END_TEST

/* ---- gnuplot failing (a stand-in program) ------------------------------- */

START_TEST(test_gnuplot_error_reported)
{
    lab_error err = {{0}};
    fake_gnuplot("echo >&2\n"
                 "echo 'plot foo' >&2\n"
                 "echo '     ^' >&2\n"
                 "echo \"\\\"$4\\\" line 3: warning: just a warning\" >&2\n"
                 "echo \"\\\"$4\\\" line 7: undefined variable: foo\" >&2\n"
                 "exit 1\n");
    write_text(in_tmp("amax.png"), "an old image\n", 0644);
    plot *p = small_plot("amax");
    ck_assert_int_eq(plot_render(p, NULL, &err), -1);
    plot_free(p);
    char want[PATH_SIZE + 64];
    snprintf(want, sizeof want, "gnuplot failed on %s: line 7: undefined "
             "variable: foo", in_tmp("amax.gp"));
    ck_assert_str_eq(err.msg, want);
    ck_assert(!exists(in_tmp("amax.png")));
    ck_assert_int_eq(count_entries(tmp), 3); /* bin, amax.dat, amax.gp */
}
END_TEST

START_TEST(test_gnuplot_error_without_message)
{
    lab_error err = {{0}};
    fake_gnuplot("exit 3\n");
    plot *p = small_plot("amax");
    ck_assert_int_eq(plot_render(p, NULL, &err), -1);
    plot_free(p);
    assert_contains(err.msg, "gnuplot failed on ");
    assert_contains(err.msg, ": exit status 3");
}
END_TEST

START_TEST(test_gnuplot_writes_nothing)
{
    lab_error err = {{0}};
    fake_gnuplot("exit 0\n");
    plot *p = small_plot("amax");
    ck_assert_int_eq(plot_render(p, NULL, &err), -1);
    plot_free(p);
    assert_contains(err.msg, "it wrote nothing");
    ck_assert(!exists(in_tmp("amax.png")));
}
END_TEST

START_TEST(test_gnuplot_writes_junk)
{
    lab_error err = {{0}};
    /* $3 is: out = '<file>' */
    fake_gnuplot("out=$(printf '%s' \"$3\" | "
                 "sed \"s/^out = '\\(.*\\)'$/\\1/\")\n"
                 "echo 'not an image' > \"$out\"\n"
                 "exit 0\n");
    plot *p = small_plot("amax");
    ck_assert_int_eq(plot_render(p, NULL, &err), -1);
    plot_free(p);
    assert_contains(err.msg, "its output is not a PNG image");
    ck_assert(!exists(in_tmp("amax.png")));
    ck_assert_int_eq(count_entries(tmp), 3); /* the junk is removed too */
}
END_TEST

/* ---- bad arguments ------------------------------------------------------ */

START_TEST(test_new_rejects_bad_stems)
{
    lab_error err = {{0}};
    ck_assert_ptr_null(plot_new(NULL, "t", "x", "y", &err));
    ck_assert_str_eq(err.msg, "plot_new: the output stem is empty");
    err.msg[0] = '\0';
    ck_assert_ptr_null(plot_new("", "t", "x", "y", &err));
    ck_assert_str_eq(err.msg, "plot_new: the output stem is empty");
    ck_assert_ptr_null(plot_new("build/plots/", "t", "x", "y", &err));
    assert_contains(err.msg, "stem 'build/plots/' names a folder");
    ck_assert_ptr_null(plot_new("build/a\nb", "t", "x", "y", &err));
    assert_contains(err.msg, "contains a control character");
    ck_assert_ptr_null(plot_new(NULL, "t", "x", "y", NULL)); /* no err */
}
END_TEST

START_TEST(test_add_series_rejects)
{
    lab_error err = {{0}};
    const double y[2] = { 1, 2 };
    ck_assert_int_eq(plot_add_series(NULL, "s", NULL, y, 2, &err), -1);
    ck_assert_str_eq(err.msg, "plot_add_series: no plot (NULL) for series "
                              "'s'");
    plot *p = plot_new("build/x", "t", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_add_series(p, "s", NULL, NULL, 2, &err), -1);
    ck_assert_str_eq(err.msg, "plot_add_series: series 's' of build/x has "
                              "no y values (NULL)");
    ck_assert_int_eq(plot_add_series(p, "s", NULL, y, 0, &err), -1);
    ck_assert_str_eq(err.msg, "plot_add_series: series 's' of build/x has "
                              "no points (n = 0)");
    ck_assert_int_eq(plot_add_series(p, "s", NULL, y, 0, NULL), -1);
    plot_free(p);
}
END_TEST

START_TEST(test_markers_reject_non_finite)
{
    lab_error err = {{0}};
    plot *p = plot_new("build/x", "t", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_add_vline(p, NAN, "spike", &err), -1);
    assert_contains(err.msg, "plot_add_vline: line 'spike' of build/x is at "
                             "nan; it must be finite");
    ck_assert_int_eq(plot_add_hline(p, -INFINITY, NULL, &err), -1);
    assert_contains(err.msg, "plot_add_hline:");
    ck_assert_int_eq(plot_add_vline(NULL, 1, NULL, &err), -1);
    ck_assert_str_eq(err.msg, "plot_add_vline: no plot (NULL)");
    plot_set_log_y(NULL, true); /* harmless */
    plot_free(NULL);
    plot_free(p);
}
END_TEST

START_TEST(test_ranges_reject)
{
    lab_error err = {{0}};
    plot *p = plot_new("build/x", "t", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_set_xrange(p, 5, 1, &err), -1);
    ck_assert_str_eq(err.msg, "plot_set_xrange: range [5 : 1] of build/x is "
                              "empty or reversed; it needs lo < hi");
    ck_assert_int_eq(plot_set_yrange(p, 2, 2, &err), -1);
    ck_assert_str_eq(err.msg, "plot_set_yrange: range [2 : 2] of build/x is "
                              "empty or reversed; it needs lo < hi");
    ck_assert_int_eq(plot_set_xrange(p, -INFINITY, 1, &err), -1);
    ck_assert_str_eq(err.msg, "plot_set_xrange: range [-inf : 1] of build/x: "
                              "each end must be finite, or NaN to let "
                              "gnuplot choose it");
    ck_assert_int_eq(plot_set_yrange(p, NAN, INFINITY, &err), -1);
    assert_contains(err.msg, "plot_set_yrange: range [nan : inf]");
    ck_assert_int_eq(plot_set_xrange(NULL, 0, 1, &err), -1);
    ck_assert_str_eq(err.msg, "plot_set_xrange: no plot (NULL)");
    ck_assert_int_eq(plot_set_yrange(NULL, 0, 1, NULL), -1); /* no err */
    plot_free(p);
}
END_TEST

START_TEST(test_rejected_range_keeps_the_old_one)
{
    lab_error err = {{0}};
    plot *p = small_plot("keep");
    ck_assert_int_eq(plot_set_xrange(p, 1, 2, &err), 0);
    ck_assert_int_eq(plot_set_xrange(p, 3, 0, &err), -1);
    ck_assert_int_eq(plot_set_key(p, "bottom left", &err), 0);
    ck_assert_int_eq(plot_set_key(p, "middle", &err), -1);
    char *gp = script_of(p, "keep");
    assert_contains(gp, "set xrange [1 : 2]\n");
    assert_contains(gp, "set key bottom left opaque\n");
    free(gp);
}
END_TEST

START_TEST(test_key_rejects)
{
    lab_error err = {{0}};
    plot *p = plot_new("build/x", "t", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_set_key(p, "middle", &err), -1);
    ck_assert_str_eq(err.msg, "plot_set_key: unknown key position 'middle' "
                              "for build/x; it takes one of 'top right', "
                              "'top left', 'bottom left', 'bottom right', "
                              "'outside', 'below'");
    /* exact names only: no other case, no gnuplot options passed through */
    ck_assert_int_eq(plot_set_key(p, "Top Left", &err), -1);
    assert_contains(err.msg, "unknown key position 'Top Left'");
    ck_assert_int_eq(plot_set_key(p, "top left; system 'ls'", &err), -1);
    ck_assert_int_eq(plot_set_key(p, "top right opaque", &err), -1);
    ck_assert_int_eq(plot_set_key(p, "", &err), -1);
    assert_contains(err.msg, "unknown key position ''");
    ck_assert_int_eq(plot_set_key(p, NULL, &err), -1);
    assert_contains(err.msg, "plot_set_key: no key position (NULL) for "
                             "build/x; it takes one of 'top right',");
    ck_assert_int_eq(plot_set_key(NULL, "top left", &err), -1);
    ck_assert_str_eq(err.msg, "plot_set_key: no plot (NULL)");
    ck_assert_int_eq(plot_set_key(p, "x", NULL), -1); /* no err */
    plot_free(p);
}
END_TEST

START_TEST(test_render_rejects_log_range)
{
    lab_error err = {{0}};
    plot *p = small_plot("lr");
    ck_assert_int_eq(plot_set_yrange(p, 0, 10, &err), 0);
    plot_set_log_y(p, true);
    no_gnuplot();
    ck_assert_int_eq(plot_render(p, NULL, &err), -1);
    char want[PATH_SIZE + 128];
    snprintf(want, sizeof want, "plot_render: y range [0 : 10] of %s is on "
             "a log axis; its fixed ends must be > 0", in_tmp("lr"));
    ck_assert_str_eq(err.msg, want);
    ck_assert(!exists(in_tmp("lr.gp")));
    ck_assert_int_eq(plot_set_yrange(p, NAN, -1, &err), 0);
    ck_assert_int_eq(plot_render(p, NULL, &err), -1);
    assert_contains(err.msg, "y range [nan : -1]");
    plot_set_log_y(p, false); /* fine on a linear axis */
    ck_assert_int_eq(plot_render(p, NULL, &err), PLOT_NO_GNUPLOT);
    plot_free(p);
}
END_TEST

START_TEST(test_render_rejects)
{
    lab_error err = {{0}};
    ck_assert_int_eq(plot_render(NULL, NULL, &err), -1);
    ck_assert_str_eq(err.msg, "plot_render: no plot (NULL)");
    plot *p = plot_new(in_tmp("e"), "t", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_render(p, NULL, &err), -1);
    assert_contains(err.msg, "has no series");
    ck_assert(!exists(in_tmp("e.dat")));
    const double y[1] = { 1 };
    ck_assert_int_eq(plot_add_series(p, "s", NULL, y, 1, &err), 0);
    plot_options opt = { .width = -1 };
    ck_assert_int_eq(plot_render(p, &opt, &err), -1);
    assert_contains(err.msg, "image size -1x600");
    opt = (plot_options){ .preview_cols = 3 };
    ck_assert_int_eq(plot_render(p, &opt, &err), -1);
    assert_contains(err.msg, "preview size 3x30");
    plot_free(p);
}
END_TEST

/* ---- with gnuplot ------------------------------------------------------- */

START_TEST(test_png_written)
{
    render_ok(small_plot("out/amax"), NULL);
    assert_png(in_tmp("out/amax.png"), PLOT_DEFAULT_WIDTH,
               PLOT_DEFAULT_HEIGHT);
    ck_assert_int_eq(count_entries(in_tmp("out")), 3); /* dat, gp, png */

    plot_options opt = { .width = 640, .height = 400 };
    render_ok(small_plot("out/amax"), &opt); /* over the old files */
    assert_png(in_tmp("out/amax.png"), 640, 400);
    ck_assert_int_eq(count_entries(in_tmp("out")), 3);
}
END_TEST

START_TEST(test_preview_has_title)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    plot_options opt = { .preview = f, .preview_cols = 80,
                         .preview_rows = 24 };
    render_ok(small_plot("amax"), &opt);
    assert_png(in_tmp("amax.png"), PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT);
    char *text = slurp_stream(f);
    fclose(f);
    assert_contains(text, "amax per step");
    assert_contains(text, "step");
    ck_assert_int_ne(text[0], '\f');
    int lines = 0;
    for (char *line = text; *line; lines++) {
        size_t len = strcspn(line, "\n");
        ck_assert_msg(len <= 80, "preview line %d is %zu wide", lines, len);
        line += len + (line[len] == '\n');
    }
    ck_assert_int_ge(lines, 20);
    ck_assert_int_le(lines, 25);
    free(text);
    ck_assert(!exists(in_tmp("amax.txt")));
    ck_assert_int_eq(count_entries(tmp), 3);
}
END_TEST

START_TEST(test_quoted_texts_render)
{
    lab_error err = {{0}};
    char title[PATH_SIZE + 64];
    snprintf(title, sizeof title, "say \"hi\" \\ it's `touch %s`",
             in_tmp("pwned"));
    plot *p = plot_new(in_tmp("q"), title, "o'clock \\n", "\"y\"", &err);
    ck_assert_ptr_nonnull(p);
    const double y[3] = { 1, 3, 2 };
    ck_assert_int_eq(plot_add_series(p, "it's \"q\"", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 1, "a'b\\", &err), 0);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    plot_options opt = { .preview = f, .preview_cols = 200 };
    render_ok(p, &opt);
    assert_png(in_tmp("q.png"), 0, 0);
    char *text = slurp_stream(f);
    fclose(f);
    assert_contains(text, title);
    assert_contains(text, "o'clock \\n");
    assert_contains(text, "it's \"q\"");
    assert_contains(text, "a'b\\");
    free(text);
    ck_assert(!exists(in_tmp("pwned")));
}
END_TEST

START_TEST(test_nan_data_renders)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("nan"), "with gaps", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    const double x[6] = { 0, 1, NAN, 3, 4, 5 };
    const double y[6] = { 1, NAN, 2, INFINITY, -INFINITY, 0.5 };
    const double all_nan[3] = { NAN, NAN, NAN };
    ck_assert_int_eq(plot_add_series(p, "loss", x, y, 6, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "diverged", NULL, all_nan, 3, &err),
                     0);
    plot_set_log_y(p, true);
    render_ok(p, NULL);
    assert_png(in_tmp("nan.png"), PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT);
}
END_TEST

START_TEST(test_nothing_drawable_renders)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("none"), "all NaN", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    const double y[3] = { NAN, INFINITY, NAN };
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 1, "spike", &err), 0);
    ck_assert_int_eq(plot_add_hline(p, 2, "ref", &err), 0);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    plot_options opt = { .preview = f };
    render_ok(p, &opt);
    assert_png(in_tmp("none.png"), PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT);
    char *text = slurp_stream(f);
    fclose(f);
    assert_contains(text, "no finite data to plot");
    free(text);

    p = plot_new(in_tmp("neg"), "log of <= 0", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    const double y2[3] = { 0, -1, -2 };
    ck_assert_int_eq(plot_add_series(p, "loss", NULL, y2, 3, &err), 0);
    ck_assert_int_eq(plot_add_hline(p, -1, "below zero", &err), 0);
    plot_set_log_y(p, true);
    render_ok(p, NULL);
    assert_png(in_tmp("neg.png"), PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT);
}
END_TEST

START_TEST(test_ranges_and_keys_render)
{
    static const char *const keys[] = { "top right", "top left",
                                        "bottom left", "bottom right",
                                        "outside", "below" };
    plot_options opt = { .width = 320, .height = 200 };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        lab_error err = {{0}};
        plot *p = small_plot("key");
        ck_assert_int_eq(plot_set_key(p, keys[i], &err), 0);
        ck_assert_int_eq(plot_set_xrange(p, -1, NAN, &err), 0);
        ck_assert_int_eq(plot_set_yrange(p, NAN, 10, &err), 0);
        render_ok(p, &opt);
        assert_png(in_tmp("key.png"), 320, 200);
    }

    /* no point inside the fixed ranges: still axes, not a gnuplot error */
    lab_error err = {{0}};
    plot *p = small_plot("outside");
    ck_assert_int_eq(plot_set_xrange(p, 10, NAN, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 12, "v", &err), 0);
    render_ok(p, &opt);
    assert_png(in_tmp("outside.png"), 320, 200);
    p = small_plot("above");
    ck_assert_int_eq(plot_set_yrange(p, 100, NAN, &err), 0);
    plot_set_log_y(p, true);
    render_ok(p, &opt);
    assert_png(in_tmp("above.png"), 320, 200);
}
END_TEST

/* Runs the script gp with gnuplot's `set table` on, which writes the
 * points of each line it draws as text ("x y type", a blank line wherever
 * the line breaks), and returns the line of series k (of n_curves drawn) as
 * "x,y x,y | x,y", its segments split by " | " (malloc'd). */
static char *drawn_segments(const char *gp, int k, int n_curves)
{
    const char *prog = getenv("GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    char table[PATH_SIZE + 16], out[PATH_SIZE + 16];
    snprintf(table, sizeof table, "set table '%s'", in_tmp("table.txt"));
    snprintf(out, sizeof out, "out = '%s'", in_tmp("ignored"));
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        execlp(prog, prog, "-d", "-e", table, "-e", out, gp, (char *)NULL);
        _exit(127);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    char *text = slurp(in_tmp("table.txt"));
    char head[64];
    snprintf(head, sizeof head, "# Curve %d of %d,", k, n_curves);
    char *line = strstr(text, head);
    ck_assert_msg(line != NULL, "no [%s] in the table:\n%s", head, text);
    char *end = line; /* the next "# Curve 1 of 3", not "# Curve title" */
    while ((end = strstr(end + 1, "# Curve ")) && !isdigit(end[8]))
        ;
    if (end)
        *end = '\0';
    char *segs = malloc(8 * strlen(line) + 1);
    ck_assert_ptr_nonnull(segs);
    size_t len = 0;
    bool any = false, broken = false;
    segs[0] = '\0';
    while (*line) {
        size_t n = strcspn(line, "\n");
        bool last = line[n] == '\0';
        line[n] = '\0';
        double x, y;
        if (line[0] != '#' && sscanf(line, "%lf %lf", &x, &y) == 2) {
            if (any)
                len += (size_t)sprintf(segs + len, broken ? " | " : " ");
            len += (size_t)sprintf(segs + len, "%g,%g", x, y);
            any = true;
            broken = false;
        } else if (line[strspn(line, " \t")] == '\0') {
            broken = true;
        }
        line += n + !last;
    }
    free(text);
    return segs;
}

START_TEST(test_missing_point_breaks_line)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("gap"), "gaps", "step", "loss", &err);
    ck_assert_ptr_nonnull(p);
    const double y0[4] = { 1, NAN, 3, 4 };
    const double x1[7] = { 0, 1, 2, NAN, 4, 5, 6 };
    const double y1[7] = { NAN, 5, INFINITY, 8, 6, 7, -INFINITY };
    const double y2[2] = { 8, 9 };
    ck_assert_int_eq(plot_add_series(p, "one gap", NULL, y0, 4, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "gaps", x1, y1, 7, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "none", NULL, y2, 2, &err), 0);
    render_ok(p, NULL);

    char gp[PATH_SIZE];
    snprintf(gp, sizeof gp, "%s", in_tmp("gap.gp"));
    /* curves 0-2 the lines, 3-5 the markers, 6-8 the key's entries */
    char *segs = drawn_segments(gp, 0, 9);
    ck_assert_str_eq(segs, "0,1 | 2,3 3,4"); /* not "0,1 2,3 3,4" */
    free(segs);
    /* two missing points in a row, and missing ends: still one series */
    segs = drawn_segments(gp, 1, 9);
    ck_assert_str_eq(segs, "1,5 | 4,6 5,7");
    free(segs);
    segs = drawn_segments(gp, 2, 9);
    ck_assert_str_eq(segs, "0,8 1,9");
    free(segs);
}
END_TEST

/* Runs gnuplot on script from folder cwd, as a person would; exit status. */
static int run_gnuplot_in(const char *cwd, const char *script)
{
    const char *prog = getenv("GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (chdir(cwd) != 0)
            _exit(126);
        execlp(prog, prog, script, (char *)NULL);
        _exit(127);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(test_script_runs_from_anywhere)
{
    render_ok(small_plot("out/amax"), NULL);
    char gp[PATH_SIZE];
    snprintf(gp, sizeof gp, "%s", in_tmp("out/amax.gp"));

    ck_assert_int_eq(unlink(in_tmp("out/amax.png")), 0);
    ck_assert_int_eq(run_gnuplot_in("/", gp), 0);
    assert_png(in_tmp("out/amax.png"), PLOT_DEFAULT_WIDTH,
               PLOT_DEFAULT_HEIGHT);

    ck_assert_int_eq(unlink(in_tmp("out/amax.png")), 0);
    ck_assert_int_eq(run_gnuplot_in(in_tmp("out"), "amax.gp"), 0);
    assert_png(in_tmp("out/amax.png"), PLOT_DEFAULT_WIDTH,
               PLOT_DEFAULT_HEIGHT);

    /* moved: the folder recorded in the script is gone */
    ck_assert_int_eq(unlink(in_tmp("out/amax.png")), 0);
    ck_assert_int_eq(rename(in_tmp("out"), in_tmp("moved")), 0);
    ck_assert_int_eq(run_gnuplot_in(tmp, "moved/amax.gp"), 0);
    assert_png(in_tmp("moved/amax.png"), PLOT_DEFAULT_WIDTH,
               PLOT_DEFAULT_HEIGHT);
    ck_assert(!exists(in_tmp("out")));
}
END_TEST

START_TEST(test_gnuplot_named_on_path)
{
    setenv("GNUPLOT", "gnuplot", 1); /* a name, looked up on $PATH */
    ck_assert(plot_gnuplot_available());
    render_ok(small_plot("amax"), NULL);
    assert_png(in_tmp("amax.png"), 0, 0);
}
END_TEST

/* ---- styles ------------------------------------------------------------- */

/* The n "set style line" lines of gp, as their colour, point type and line
 * type, checked against the series they belong to. */
static void parse_styles(const char *gp, int n, char colors[][16],
                         int points[], int linetypes[], char dashes[][24])
{
    for (int k = 0; k < n; k++) {
        char head[48];
        snprintf(head, sizeof head, "set style line %d linetype ", k + 1);
        const char *line = strstr(gp, head);
        ck_assert_msg(line != NULL, "no [%s] in:\n%s", head, gp);
        int got = sscanf(line + strlen(head), "%d linecolor rgb '%15[^']' "
                         "linewidth 2 dashtype %23s pointtype %d",
                         &linetypes[k], colors[k], dashes[k], &points[k]);
        ck_assert_msg(got == 4, "style line %d reads as %d fields: %.120s",
                      k + 1, got, line);
    }
}

/* Ten series, ten looks: no two share a colour or a point type, the six
 * first their preview line character (line type), neighbours their dashes;
 * no pale yellow; each labelled series has its key entry in its own style. */
START_TEST(test_series_styles_distinct)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("ten"), "t", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    const double y[3] = { 1, 2, 3 };
    for (int k = 0; k < 10; k++) {
        char label[16];
        snprintf(label, sizeof label, "s%d", k);
        ck_assert_int_eq(plot_add_series(p, label, NULL, y, 3, &err), 0);
    }
    char *gp = script_of(p, "ten");
    char colors[10][16], dashes[10][24];
    int points[10], linetypes[10];
    parse_styles(gp, 10, colors, points, linetypes, dashes);
    for (int a = 0; a < 10; a++) {
        ck_assert_msg(strcasecmp(colors[a], "#F0E442") != 0 &&
                      strcasecmp(colors[a], "#FFFF00") != 0,
                      "series %d is yellow", a);
        if (a + 1 < 10)
            ck_assert_str_ne(dashes[a], dashes[a + 1]);
        for (int b = a + 1; b < 10; b++) {
            ck_assert_msg(strcasecmp(colors[a], colors[b]) != 0,
                          "series %d and %d are both %s", a, b, colors[a]);
            ck_assert_int_ne(points[a], points[b]);
            if (b < 6)
                ck_assert_int_ne(linetypes[a], linetypes[b]);
        }
        /* an hline's line type (7, '=') is no series' */
        ck_assert_int_ne(linetypes[a] % 7, 0);
        char entry[64];
        snprintf(entry, sizeof entry, "keyentry with linespoints linestyle "
                 "%d title 's%d'", a + 1, a);
        assert_contains(gp, entry);
    }
    free(gp);
}
END_TEST

/* Markers: every point of a short series, about 12 staggered ones on a long
 * one, none on a bare line (solid, whatever its place), and plot_set_marks
 * on the series added last. */
START_TEST(test_marks)
{
    lab_error err = {{0}};
    static double y[300];
    for (int i = 0; i < 300; i++)
        y[i] = i % 7;
    plot *p = plot_new(in_tmp("m"), "t", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_set_marks(p, PLOT_MARKS_ALL, &err), -1);
    assert_contains(err.msg, "has no series yet");
    ck_assert_int_eq(plot_add_series(p, "long a", NULL, y, 300, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "long b", NULL, y, 300, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "all", NULL, y, 300, &err), 0);
    ck_assert_int_eq(plot_set_marks(p, PLOT_MARKS_ALL, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "bare", NULL, y, 300, &err), 0);
    ck_assert_int_eq(plot_set_marks(p, PLOT_MARKS_NONE, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "short", NULL, y, 30, &err), 0);
    ck_assert_int_eq(plot_set_marks(p, (plot_marks)7, &err), -1);
    assert_contains(err.msg, "unknown marks 7");
    char *gp = script_of(p, "m");
    /* 300 points: every 25th, series k of 5 from k * 25 / 5 */
    assert_contains(gp, "dat index 0 using 1:2 every 25::0 with points "
                        "linestyle 1 notitle");
    assert_contains(gp, "dat index 1 using 1:2 every 25::5 with points "
                        "linestyle 2 notitle");
    assert_contains(gp, "dat index 2 using 1:2 with points linestyle 3");
    ck_assert_ptr_null(strstr(gp, "dat index 3 using 1:2 with points"));
    ck_assert_ptr_null(strstr(gp, "dat index 3 using 1:2 every"));
    assert_contains(gp, "dat index 4 using 1:2 with points linestyle 5");
    assert_contains(gp, "keyentry with lines linestyle 4 title 'bare'");
    assert_contains(gp, "keyentry with linespoints linestyle 5 title 'short'");
    char colors[5][16], dashes[5][24];
    int points[5], linetypes[5];
    parse_styles(gp, 5, colors, points, linetypes, dashes);
    ck_assert_str_eq(dashes[0], "solid");
    ck_assert_str_ne(dashes[1], "solid");
    ck_assert_str_eq(dashes[3], "solid"); /* bare: solid */
    ck_assert_str_ne(dashes[4], "solid");
    free(gp);
}
END_TEST

START_TEST(test_emphasized_line)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("em"), "t", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_emphasize_line(p, &err), -1);
    assert_contains(err.msg, "has no line yet");
    const double y[3] = { 1, 2, 3 };
    ck_assert_int_eq(plot_add_series(p, "s", NULL, y, 3, &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 1, "subnormal", &err), 0);
    ck_assert_int_eq(plot_add_vline(p, 0.5, "flush", &err), 0);
    ck_assert_int_eq(plot_emphasize_line(p, &err), 0);
    ck_assert_int_eq(plot_add_hline(p, 2.5, "limit", &err), 0);
    ck_assert_int_eq(plot_emphasize_line(p, &err), 0);
    char *gp = script_of(p, "em");
    assert_contains(gp, "set arrow from first 1, graph 0 to first 1, graph 1 "
                        "nohead dashtype 2 linecolor rgb '#606060'\n");
    assert_contains(gp, "set arrow from first 0.5, graph 0 to first 0.5, "
                        "graph 1 nohead linewidth 3 dashtype solid linecolor "
                        "rgb '#B00000'\n");
    assert_contains(gp, "set label 'subnormal' at first 1, graph 0.96 ");
    assert_contains(gp, "set label 'flush' at first 0.5, graph 0.90 left "
                        "offset character 0.5, 0 front textcolor rgb "
                        "'#B00000'\n");
    assert_contains(gp, "2.5 with lines linetype 7 linewidth 3 dashtype solid "
                        "linecolor rgb '#B00000' notitle");
    free(gp);
}
END_TEST

/* ---- temporary files and signals ---------------------------------------- */

/* The names in folder dir that hold ".tmp" (a temporary file left behind),
 * joined by spaces into a static buffer; "" when there are none. */
static const char *temp_files(const char *dir)
{
    static char names[2048];
    names[0] = '\0';
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".tmp"))
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s ", e->d_name);
    closedir(d);
    return names;
}

/* Waits up to 10 s for a name holding ".tmp" in dir; whether one came. */
static bool wait_for_temp(const char *dir)
{
    for (int i = 0; i < 1000; i++) {
        if (temp_files(dir)[0])
            return true;
        usleep(10000);
    }
    return false;
}

/* In a child: the signals at their default action, as in a program of its
 * own (Check's test process handles SIGINT and SIGTERM itself, and
 * atomic_file leaves a handled signal alone). */
static void default_signals(void)
{
    static const int sigs[] = { SIGHUP, SIGINT, SIGPIPE, SIGTERM };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
}

/* The child's exit, which must be death by signal sig. */
static void assert_killed_by(pid_t pid, int sig)
{
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig,
                  "the child %s %d, not killed by signal %d",
                  WIFSIGNALED(status) ? "was killed by signal" : "exited",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                  sig);
}

/* A signal while an atomic_file is open removes its temporary file and
 * kills the program, as the signal would have. */
START_TEST(test_signal_removes_atomic_temp)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        fflush(NULL);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            default_signals();
            lab_error err = {{0}};
            atomic_file af, other;
            if (atomic_file_open(&af, in_tmp("data.txt"), &err) != 0 ||
                atomic_file_open(&other, in_tmp("more.txt"), &err) != 0)
                _exit(3);
            fputs("half of it\n", af.f);
            fflush(af.f);
            raise(sigs[i]);
            _exit(4); /* not reached: the signal kills it */
        }
        assert_killed_by(pid, sigs[i]);
        ck_assert_str_eq(temp_files(tmp), "");
        ck_assert(!exists(in_tmp("data.txt")));
    }
    /* a forked child killed by a signal leaves its parent's files alone */
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        default_signals();
        lab_error err = {{0}};
        atomic_file af;
        if (atomic_file_open(&af, in_tmp("kept.txt"), &err) != 0)
            _exit(3);
        pid_t kid = fork();
        if (kid == 0) {
            raise(SIGTERM);
            _exit(4);
        }
        int st;
        if (kid < 0 || waitpid(kid, &st, 0) != kid || !WIFSIGNALED(st))
            _exit(5);
        fputs("whole\n", af.f);
        _exit(atomic_file_commit(&af, &err) == 0 ? 0 : 6);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the parent's file did not survive its child (status %d)",
                  status);
    char *kept = slurp(in_tmp("kept.txt"));
    ck_assert_str_eq(kept, "whole\n");
    free(kept);

    /* committed and aborted files leave the registry: more than it holds,
     * one after the other, all protected */
    for (int i = 0; i < 2 * ATOMIC_FILE_MAX_TRACKED; i++) {
        lab_error err = {{0}};
        atomic_file af;
        ck_assert_int_eq(atomic_file_open(&af, in_tmp("x.txt"), &err), 0);
        if (i % 2)
            atomic_file_abort(&af);
        else
            ck_assert_int_eq(atomic_file_commit(&af, &err), 0);
        ck_assert_int_eq(atomic_file_track(in_tmp("y")), 0);
        atomic_file_untrack(in_tmp("y"));
    }
    ck_assert_str_eq(temp_files(tmp), "");
}
END_TEST

/* SIGTERM or SIGINT while gnuplot writes the image: the temporary image is
 * removed, and gnuplot is killed first, so it cannot write it again. The
 * fake gnuplot writes its output, then, a second later, again. */
START_TEST(test_signal_mid_render_leaves_no_temp)
{
    fake_gnuplot("out=$(printf '%s' \"$3\" | "
                 "sed \"s/^out = '\\(.*\\)'$/\\1/\")\n"
                 "echo first > \"$out\"\n"
                 "sleep 1\n"
                 "echo again > \"$out\"\n");
    ck_assert_int_eq(mkdir(in_tmp("plots"), 0777), 0);
    static const int sigs[] = { SIGTERM, SIGINT };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        fflush(NULL);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            default_signals();
            lab_error err = {{0}};
            plot_render(small_plot("plots/amax"), NULL, &err);
            _exit(5); /* not reached: killed mid-render */
        }
        ck_assert_msg(wait_for_temp(in_tmp("plots")), "no temporary file");
        kill(pid, sigs[i]);
        assert_killed_by(pid, sigs[i]);
        usleep(1500000); /* past the fake gnuplot's second write */
        ck_assert_str_eq(temp_files(in_tmp("plots")), "");
        ck_assert(!exists(in_tmp("plots/amax.png")));
    }
}
END_TEST

/* The reader of the preview goes away (`lab4 | head -1`): SIGPIPE while the
 * preview is copied out of its temporary file, which is removed. */
START_TEST(test_sigpipe_in_preview_leaves_no_temp)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    close(fds[0]); /* no reader */
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        default_signals();
        lab_error err = {{0}};
        FILE *out = fdopen(fds[1], "w");
        plot_options opt = { .preview = out };
        plot_render(small_plot("amax"), &opt, &err);
        _exit(6); /* not reached: SIGPIPE */
    }
    close(fds[1]);
    assert_killed_by(pid, SIGPIPE);
    ck_assert_str_eq(temp_files(tmp), "");
    assert_png(in_tmp("amax.png"), 0, 0); /* drawn before the preview */
}
END_TEST

/* The preview tells two series apart: the first's points are G (gnuplot's
 * point type 7) on a line of '*', the second's E (5) on '#'; in colour,
 * each in its own. */
START_TEST(test_preview_distinct_series)
{
    lab_error err = {{0}};
    plot *p = plot_new(in_tmp("two"), "two series", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    const double x[5] = { 0, 1, 2, 3, 4 };
    const double y0[5] = { 0, 1, 2, 3, 4 }, y1[5] = { 4, 3.5, 3, 2.5, 2 };
    ck_assert_int_eq(plot_add_series(p, "up", x, y0, 5, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "down", x, y1, 5, &err), 0);
    ck_assert_int_eq(plot_set_xrange(p, -1, 5, &err), 0); /* none on the */
    ck_assert_int_eq(plot_set_yrange(p, -1, 5, &err), 0); /* border */
    ck_assert_int_eq(plot_set_key(p, "below", &err), 0);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    plot_options opt = { .preview = f, .preview_cols = 80,
                         .preview_rows = 24 };
    render_ok(p, &opt);
    char *text = slurp_stream(f);
    fclose(f);
    int count[256] = { 0 };
    for (const char *c = text; *c; c++)
        count[(unsigned char)*c]++;
    /* five points each, one more in the key; they cross between points */
    ck_assert_msg(count['G'] >= 5 && count['E'] >= 5, "G %d, E %d in:\n%s",
                  count['G'], count['E'], text);
    ck_assert_msg(count['*'] >= 10 && count['#'] >= 10, "* %d, # %d in:\n%s",
                  count['*'], count['#'], text);
    ck_assert_ptr_null(strchr(text, '\x1b')); /* plain text */
    free(text);

    p = plot_new(in_tmp("two"), "two series", "x", "y", &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(plot_add_series(p, "up", x, y0, 5, &err), 0);
    ck_assert_int_eq(plot_add_series(p, "down", x, y1, 5, &err), 0);
    f = tmpfile();
    ck_assert_ptr_nonnull(f);
    opt.preview = f;
    opt.preview_color = true;
    render_ok(p, &opt);
    text = slurp_stream(f);
    fclose(f);
    assert_contains(text, "\x1b[38;2;0;114;178m");  /* #0072B2 */
    assert_contains(text, "\x1b[38;2;213;94;0m");   /* #D55E00 */
    free(text);
}
END_TEST

/* ---- running ------------------------------------------------------------ */

#define CORE_TESTS(X)                                                         \
    X(test_dat_exact) X(test_series_data_is_copied)                           \
    X(test_control_chars_become_spaces) X(test_script_quotes_texts)           \
    X(test_script_layout) X(test_script_log_y)                                \
    X(test_script_nothing_drawable) X(test_creates_folders)                   \
    X(test_folder_blocked_by_file) X(test_missing_gnuplot_by_env)             \
    X(test_missing_gnuplot_on_path) X(test_gnuplot_not_executable)            \
    X(test_gnuplot_error_reported) X(test_gnuplot_error_without_message)      \
    X(test_gnuplot_writes_nothing) X(test_gnuplot_writes_junk)                \
    X(test_new_rejects_bad_stems) X(test_add_series_rejects)                  \
    X(test_markers_reject_non_finite) X(test_render_rejects)                  \
    X(test_script_ranges) X(test_script_nothing_in_range)                     \
    X(test_script_key) X(test_ranges_reject)                                  \
    X(test_rejected_range_keeps_the_old_one) X(test_key_rejects)              \
    X(test_render_rejects_log_range) X(test_series_styles_distinct)          \
    X(test_marks) X(test_emphasized_line)

/* Killed children, a fake gnuplot that sleeps: a longer timeout. */
#define SIGNAL_TESTS(X)                                                       \
    X(test_signal_removes_atomic_temp) X(test_signal_mid_render_leaves_no_temp)

#define GNUPLOT_TESTS(X)                                                      \
    X(test_png_written) X(test_preview_has_title) X(test_quoted_texts_render) \
    X(test_nan_data_renders) X(test_nothing_drawable_renders)                 \
    X(test_script_runs_from_anywhere) X(test_gnuplot_named_on_path)           \
    X(test_missing_point_breaks_line) X(test_ranges_and_keys_render)         \
    X(test_sigpipe_in_preview_leaves_no_temp) X(test_preview_distinct_series)

int main(void)
{
    Suite *s = suite_create("plot");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, teardown);
#define ADD_CORE(t) tcase_add_test(core, t);
    CORE_TESTS(ADD_CORE)
    suite_add_tcase(s, core);
    TCase *sig = tcase_create("signals");
    tcase_add_checked_fixture(sig, setup, teardown);
    tcase_set_timeout(sig, 60);
#define ADD_SIGNAL(t) tcase_add_test(sig, t);
    SIGNAL_TESTS(ADD_SIGNAL)
    suite_add_tcase(s, sig);

    int skipped = 0;
    if (plot_gnuplot_available()) {
        TCase *g = tcase_create("gnuplot");
        tcase_add_checked_fixture(g, setup, teardown);
        tcase_set_timeout(g, 60);
#define ADD_GNUPLOT(t) tcase_add_test(g, t);
        GNUPLOT_TESTS(ADD_GNUPLOT)
        suite_add_tcase(s, g);
    } else {
#define SKIP(t) printf("SKIP: gnuplot not found (%s)\n", #t), skipped++;
        GNUPLOT_TESTS(SKIP)
    }

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed != 0)
        return EXIT_FAILURE;
    return skipped ? 77 : EXIT_SUCCESS;
}
