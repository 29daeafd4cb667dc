/*
 * plot.c - writes a plot's data and gnuplot script, and runs gnuplot on it
 * (see plot.h for the files and their formats).
 *
 * Not for: drawing anything itself. Every pixel comes from gnuplot, run as a
 * child process with its stderr captured; this file only writes text files,
 * creates folders and renames gnuplot's output into place.
 */
#include "plot.h"

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_IMAGE_PIXELS 10000 /* per side */
#define MAX_PREVIEW_CHARS 1000 /* per side */
#define STDERR_KEEP 4096       /* bytes of gnuplot's stderr kept for errors */

typedef struct plot_series {
    char *label;    /* "" for none */
    double *x;      /* NULL: 0, 1, ..., n-1 */
    double *y;
    size_t n;
    plot_marks marks;
} plot_series;

typedef struct plot_marker {
    bool vertical;  /* a vline at x = at, otherwise an hline at y = at */
    bool emphasis;  /* solid, thick, dark red (plot_emphasize_line) */
    double at;
    char *label;    /* "" for none */
} plot_marker;

/* How series k is drawn: STYLES[k % N_STYLES], so that the first N_STYLES
 * series differ in colour, point type and (five by five) dash pattern. The
 * colours are Okabe and Ito's colour-blind-safe set without its yellow,
 * which is too faint on white, and three darker ones; the point types are
 * filled then open shapes, which the text preview draws as the letters
 * G E I M K F D H L J (gnuplot's dumb terminal writes point type t as the
 * t-th letter). */
static const struct {
    const char *color;
    int point;
} STYLES[] = {
    { "#0072B2", 7 },  /* blue, filled circle */
    { "#D55E00", 5 },  /* vermillion, filled square */
    { "#009E73", 9 },  /* bluish green, filled triangle */
    { "#CC79A7", 13 }, /* reddish purple, filled diamond */
    { "#000000", 11 }, /* black, filled triangle down */
    { "#E69F00", 6 },  /* orange, open circle */
    { "#56B4E9", 4 },  /* sky blue, open square */
    { "#8C510A", 8 },  /* brown, open triangle */
    { "#7B3294", 12 }, /* violet, open diamond */
    { "#808000", 10 }, /* olive, open triangle down */
};
#define N_STYLES (sizeof STYLES / sizeof STYLES[0])

/* The dash patterns series k cycles through (k % N_DASHES): solid first,
 * so that a later series lying on an earlier one shows both colours. A
 * bare line (PLOT_MARKS_NONE: a comb, a staircase) is solid: dashes would
 * break its teeth. */
static const char *const DASHES[] = { "solid", "(14,6)", "(5,5)", "(16,5,4,5)",
                                      "(28,8)" };
#define N_DASHES (sizeof DASHES / sizeof DASHES[0])

/* The text preview draws gnuplot's line type t with the t-th character of
 * "*#$%@&=" (cycling): series k gets type k % 6 + 1, and the hlines type 7,
 * '=', which no series has. */
#define N_TEXT_LINETYPES 6
#define HLINE_LINETYPE 7

/* PLOT_MARKS_AUTO: a marker on every point of a series this short, about
 * AUTO_MARKS evenly spaced markers on a longer one. */
#define AUTO_ALL_MAX 30
#define AUTO_MARKS 12

/* The key positions plot_set_key takes, and what gnuplot is told for each.
 * The first is the default. */
static const struct {
    const char *name;
    const char *gnuplot;
} KEY_POSITIONS[] = {
    { "top right", "top right opaque" },
    { "top left", "top left opaque" },
    { "bottom left", "bottom left opaque" },
    { "bottom right", "bottom right opaque" },
    { "outside", "outside right top" },
    { "below", "below center horizontal Left reverse samplen 3 width 2 "
               "spacing 1.2 height 1" },
};
#define N_KEY_POSITIONS (sizeof KEY_POSITIONS / sizeof KEY_POSITIONS[0])

struct plot {
    char *stem;
    char *title, *xlabel, *ylabel;
    bool log_y;
    double x_lo, x_hi, y_lo, y_hi; /* fixed range ends; NaN: gnuplot's */
    size_t key;                    /* index into KEY_POSITIONS */
    plot_series *series;
    size_t n_series, cap_series;
    plot_marker *markers;
    size_t n_markers, cap_markers;
};

/* ---- strings ------------------------------------------------------------ */

/* A malloc'd printf; NULL when out of memory. */
static char *str_printf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0)
        return NULL;
    char *s = malloc((size_t)len + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    va_end(ap);
    return s;
}

static bool has_control_char(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* A copy of text (NULL reads as "") with control characters made spaces. */
static char *copy_text(const char *text)
{
    if (!text)
        text = "";
    char *s = strdup(text);
    if (!s)
        return NULL;
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    return s;
}

/* Writes s as a gnuplot single-quoted string: nothing inside one is special
 * (no backslash escapes, no `command` substitution) except the quote, which
 * is doubled. s holds no control characters (see copy_text). */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v; NaN for NaN and
 * +-inf, gnuplot's missing value in these files. */
static void format_number(char buf[32], double v)
{
    if (!isfinite(v)) {
        strcpy(buf, "NaN");
        return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static void put_number(FILE *f, double v)
{
    char buf[32];
    format_number(buf, v);
    fputs(buf, f);
}

/* ---- building a plot ---------------------------------------------------- */

plot *plot_new(const char *stem, const char *title, const char *xlabel,
               const char *ylabel, lab_error *err)
{
    if (!stem || !*stem) {
        lab_errorf(err, "plot_new: the output stem is empty");
        return NULL;
    }
    if (stem[strlen(stem) - 1] == '/') {
        lab_errorf(err, "plot_new: stem '%s' names a folder; it needs a file "
                   "name without extension, e.g. build/plots/amax", stem);
        return NULL;
    }
    if (has_control_char(stem)) {
        lab_errorf(err, "plot_new: stem '%s' contains a control character",
                   stem);
        return NULL;
    }
    plot *p = calloc(1, sizeof *p);
    if (p) {
        p->stem = strdup(stem);
        p->title = copy_text(title);
        p->xlabel = copy_text(xlabel);
        p->ylabel = copy_text(ylabel);
        p->x_lo = p->x_hi = p->y_lo = p->y_hi = NAN;
    }
    if (!p || !p->stem || !p->title || !p->xlabel || !p->ylabel) {
        plot_free(p);
        lab_errorf(err, "plot_new: out of memory for plot '%s'", stem);
        return NULL;
    }
    return p;
}

/* Makes room for one more element in a growable array. */
static int grow(void **items, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return 0;
    size_t new_cap = *cap ? 2 * *cap : 4;
    void *bigger = realloc(*items, new_cap * size);
    if (!bigger)
        return -1;
    *items = bigger;
    *cap = new_cap;
    return 0;
}

static double *copy_doubles(const double *v, size_t n)
{
    double *c = malloc(n * sizeof *c);
    if (c)
        memcpy(c, v, n * sizeof *c);
    return c;
}

int plot_add_series(plot *p, const char *label, const double *x,
                    const double *y, size_t n, lab_error *err)
{
    const char *name = label ? label : "";
    if (!p)
        return lab_errorf(err, "plot_add_series: no plot (NULL) for series "
                          "'%s'", name);
    if (!y)
        return lab_errorf(err, "plot_add_series: series '%s' of %s has no "
                          "y values (NULL)", name, p->stem);
    if (n == 0)
        return lab_errorf(err, "plot_add_series: series '%s' of %s has no "
                          "points (n = 0)", name, p->stem);
    if (n > SIZE_MAX / sizeof(double))
        return lab_errorf(err, "plot_add_series: series '%s' of %s is too "
                          "long (%zu points)", name, p->stem, n);

    plot_series s = { copy_text(label), x ? copy_doubles(x, n) : NULL,
                      copy_doubles(y, n), n, PLOT_MARKS_AUTO };
    if (!s.label || (x && !s.x) || !s.y ||
        grow((void **)&p->series, &p->cap_series, p->n_series,
             sizeof *p->series) != 0) {
        free(s.label);
        free(s.x);
        free(s.y);
        return lab_errorf(err, "plot_add_series: out of memory for series "
                          "'%s' of %s (%zu points)", name, p->stem, n);
    }
    p->series[p->n_series++] = s;
    return 0;
}

int plot_set_marks(plot *p, plot_marks marks, lab_error *err)
{
    if (!p)
        return lab_errorf(err, "plot_set_marks: no plot (NULL)");
    if (p->n_series == 0)
        return lab_errorf(err, "plot_set_marks: plot %s has no series yet; "
                          "it sets the marks of the one added last", p->stem);
    if (marks != PLOT_MARKS_AUTO && marks != PLOT_MARKS_ALL &&
        marks != PLOT_MARKS_NONE)
        return lab_errorf(err, "plot_set_marks: unknown marks %d for %s",
                          (int)marks, p->stem);
    p->series[p->n_series - 1].marks = marks;
    return 0;
}

void plot_set_log_y(plot *p, bool on)
{
    if (p)
        p->log_y = on;
}

/* Checks lo and hi and stores them in *to_lo, *to_hi; fn names the caller
 * in messages. */
static int set_range(plot *p, double lo, double hi, double *to_lo,
                     double *to_hi, const char *fn, lab_error *err)
{
    if (!p)
        return lab_errorf(err, "%s: no plot (NULL)", fn);
    if (isinf(lo) || isinf(hi))
        return lab_errorf(err, "%s: range [%g : %g] of %s: each end must be "
                          "finite, or NaN to let gnuplot choose it", fn, lo,
                          hi, p->stem);
    if (lo >= hi) /* false when either is NaN */
        return lab_errorf(err, "%s: range [%g : %g] of %s is empty or "
                          "reversed; it needs lo < hi", fn, lo, hi, p->stem);
    *to_lo = lo;
    *to_hi = hi;
    return 0;
}

int plot_set_xrange(plot *p, double lo, double hi, lab_error *err)
{
    return set_range(p, lo, hi, p ? &p->x_lo : NULL, p ? &p->x_hi : NULL,
                     "plot_set_xrange", err);
}

int plot_set_yrange(plot *p, double lo, double hi, lab_error *err)
{
    return set_range(p, lo, hi, p ? &p->y_lo : NULL, p ? &p->y_hi : NULL,
                     "plot_set_yrange", err);
}

int plot_set_key(plot *p, const char *position, lab_error *err)
{
    if (!p)
        return lab_errorf(err, "plot_set_key: no plot (NULL)");
    for (size_t i = 0; position && i < N_KEY_POSITIONS; i++) {
        if (strcmp(position, KEY_POSITIONS[i].name) == 0) {
            p->key = i;
            return 0;
        }
    }
    char names[160] = "";
    for (size_t i = 0; i < N_KEY_POSITIONS; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names),
                 "%s'%s'", i ? ", " : "", KEY_POSITIONS[i].name);
    if (!position)
        return lab_errorf(err, "plot_set_key: no key position (NULL) for %s; "
                          "it takes one of %s", p->stem, names);
    return lab_errorf(err, "plot_set_key: unknown key position '%s' for %s; "
                      "it takes one of %s", position, p->stem, names);
}

static int add_marker(plot *p, bool vertical, double at, const char *label,
                      const char *fn, lab_error *err)
{
    if (!p)
        return lab_errorf(err, "%s: no plot (NULL)", fn);
    if (!isfinite(at))
        return lab_errorf(err, "%s: line '%s' of %s is at %g; it must be "
                          "finite", fn, label ? label : "", p->stem, at);
    plot_marker m = { vertical, false, at, copy_text(label) };
    if (!m.label || grow((void **)&p->markers, &p->cap_markers, p->n_markers,
                         sizeof *p->markers) != 0) {
        free(m.label);
        return lab_errorf(err, "%s: out of memory for %s", fn, p->stem);
    }
    p->markers[p->n_markers++] = m;
    return 0;
}

int plot_add_vline(plot *p, double x, const char *label, lab_error *err)
{
    return add_marker(p, true, x, label, "plot_add_vline", err);
}

int plot_add_hline(plot *p, double y, const char *label, lab_error *err)
{
    return add_marker(p, false, y, label, "plot_add_hline", err);
}

int plot_emphasize_line(plot *p, lab_error *err)
{
    if (!p)
        return lab_errorf(err, "plot_emphasize_line: no plot (NULL)");
    if (p->n_markers == 0)
        return lab_errorf(err, "plot_emphasize_line: plot %s has no line yet; "
                          "it emphasizes the one added last", p->stem);
    p->markers[p->n_markers - 1].emphasis = true;
    return 0;
}

void plot_free(plot *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_series; i++) {
        free(p->series[i].label);
        free(p->series[i].x);
        free(p->series[i].y);
    }
    for (size_t i = 0; i < p->n_markers; i++)
        free(p->markers[i].label);
    free(p->series);
    free(p->markers);
    free(p->stem);
    free(p->title);
    free(p->xlabel);
    free(p->ylabel);
    free(p);
}

/* ---- what the data looks like ------------------------------------------- */

static double series_x(const plot_series *s, size_t i)
{
    return s->x ? s->x[i] : (double)i;
}

/* Whether point i of s is missing: x or y NaN or +-inf. */
static bool missing(const plot_series *s, size_t i)
{
    return !isfinite(series_x(s, i)) || !isfinite(s->y[i]);
}

/* Whether v is inside [lo, hi], either end NaN for none. */
static bool in_range(double v, double lo, double hi)
{
    return !(v < lo) && !(v > hi);
}

/* Whether gnuplot will draw point i of s: not missing, y > 0 on a log axis,
 * inside the fixed range ends. */
static bool drawable(const plot *p, const plot_series *s, size_t i)
{
    double x = series_x(s, i), y = s->y[i];
    return !missing(s, i) && (!p->log_y || y > 0) &&
           in_range(x, p->x_lo, p->x_hi) && in_range(y, p->y_lo, p->y_hi);
}

/* Whether any point is finite (drawable but for the fixed ranges). */
static bool has_finite_point(const plot *p)
{
    for (size_t k = 0; k < p->n_series; k++)
        for (size_t i = 0; i < p->series[k].n; i++)
            if (!missing(&p->series[k], i) &&
                (!p->log_y || p->series[k].y[i] > 0))
                return true;
    return false;
}

static bool has_drawable_point(const plot *p)
{
    for (size_t k = 0; k < p->n_series; k++)
        for (size_t i = 0; i < p->series[k].n; i++)
            if (drawable(p, &p->series[k], i))
                return true;
    return false;
}

/* Whether hline m can be drawn (not at y <= 0 on a log axis, not outside
 * a fixed y range). */
static bool hline_shown(const plot *p, const plot_marker *m)
{
    return !m->vertical && (!p->log_y || m->at > 0) &&
           in_range(m->at, p->y_lo, p->y_hi);
}

/* Whether vline m can be drawn (not outside a fixed x range). */
static bool vline_shown(const plot *p, const plot_marker *m)
{
    return m->vertical && in_range(m->at, p->x_lo, p->x_hi);
}

/* The range of the finite x values, [0, 1] when there are none, widened by
 * one on each side when it is a single value. */
static void x_extent(const plot *p, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t k = 0; k < p->n_series; k++) {
        for (size_t i = 0; i < p->series[k].n; i++) {
            double x = series_x(&p->series[k], i);
            if (isfinite(x)) {
                *lo = fmin(*lo, x);
                *hi = fmax(*hi, x);
            }
        }
    }
    if (*lo > *hi) {
        *lo = 0;
        *hi = 1;
    } else if (*lo == *hi) {
        *lo -= 1;
        *hi += 1;
    }
}

/* ---- files and folders -------------------------------------------------- */

/* mkdir -p dir. */
static int make_dirs(const char *dir, lab_error *err)
{
    char *path = strdup(dir);
    if (!path)
        return lab_errorf(err, "plot: out of memory creating folder %s", dir);
    int rc = 0;
    for (char *c = path + 1; rc == 0; c++) {
        bool end = (*c == '\0');
        if (*c != '/' && !end)
            continue;
        *c = '\0';
        struct stat st;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            rc = lab_errorf(err, "plot: cannot create folder %s: %s", path,
                            strerror(errno));
        else if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = lab_errorf(err, "plot: cannot create folder %s: a file of "
                            "that name is in the way", path);
        if (end)
            break;
        *c = '/';
    }
    free(path);
    return rc;
}

/* A "# key: text" comment line ("# text" without a key); none for "". */
static void put_comment(FILE *f, const char *key, const char *text)
{
    if (text[0])
        fprintf(f, "# %s%s%s\n", key, key[0] ? ": " : "", text);
}

static void write_dat(FILE *f, const plot *p)
{
    put_comment(f, "", p->title);
    put_comment(f, "x", p->xlabel);
    put_comment(f, "y", p->ylabel);
    for (size_t k = 0; k < p->n_series; k++) {
        const plot_series *s = &p->series[k];
        if (k > 0)
            fputs("\n\n", f);
        if (s->label[0])
            fprintf(f, "# series %zu: %s\n", k, s->label);
        else
            fprintf(f, "# series %zu\n", k);
        for (size_t i = 0; i < s->n; i++) {
            put_number(f, series_x(s, i));
            fputc(' ', f);
            put_number(f, s->y[i]);
            fputc('\n', f);
            /* gnuplot skips the NaN row but would join its neighbours; a
             * blank line breaks the line. One only: two end the block. */
            if (missing(s, i) && i + 1 < s->n)
                fputc('\n', f);
        }
    }
}

/* ---- the gnuplot script ------------------------------------------------- */

/* Where the script's files are, as the script itself sees them. */
typedef struct script_paths {
    const char *base;    /* file name of the stem: "amax" */
    const char *abs_dir; /* absolute folder with a trailing '/', or "" */
    int width, height;
} script_paths;

static void write_script_header(FILE *f, const script_paths *sp)
{
    const char *b = sp->base;
    fprintf(f,
        "# %s.gp - draws %s.png from the data in %s.dat, both next to this\n"
        "# script. Run it from any folder: gnuplot path/to/%s.gp\n"
        "# Options, given with -e before the script's name:\n"
        "#   -e \"preview=1\"       draw it as text on the terminal instead\n"
        "#                        (cols=100; rows=30 set its size; color=1\n"
        "#                        colours it for a terminal)\n"
        "#   -e \"out='x.png'\"     write the image (or text) to x.png\n"
        "# Needs gnuplot 5.2.6 or later (keyentry).\n\n", b, b, b, b);

    /* ARG0 (gnuplot 5.4) is the script's path as given on the command line;
     * its folder is where the .dat is. Otherwise use the recorded folder. */
    fputs("me = ", f);
    put_quoted(f, b);
    fputs(".'.gp'\ndir = ", f);
    put_quoted(f, sp->abs_dir);
    fputs("  # where it was written\n"
          "if (exists(\"ARG0\")) {\n"
          "    k = strlen(ARG0) - strlen(me)\n"
          "    if (k == 0 && ARG0 eq me) { dir = '' }\n"
          "    if (k > 0) {\n"
          "        if (ARG0[k+1:] eq me && ARG0[k:k] eq '/') "
          "{ dir = ARG0[1:k] }\n"
          "    }\n"
          "}\n"
          "dat = dir.", f);
    put_quoted(f, b);
    fputs(".'.dat'\n\n", f);

    fprintf(f,
        "if (!exists(\"preview\")) preview = 0\n"
        "if (!exists(\"cols\")) cols = %d\n"
        "if (!exists(\"rows\")) rows = %d\n"
        "if (!exists(\"color\")) color = 0\n"
        "if (preview) {\n"
        "    if (color) { set terminal dumb noenhanced ansirgb size cols, rows } "
        "else { set terminal dumb noenhanced mono size cols, rows }\n"
        "    if (exists(\"out\")) { set output out } else { set output }\n"
        "} else {\n"
        "    set terminal pngcairo noenhanced size %d, %d\n"
        "    if (exists(\"out\")) { set output out } "
        "else { set output dir.",
        PLOT_DEFAULT_PREVIEW_COLS, PLOT_DEFAULT_PREVIEW_ROWS,
        sp->width, sp->height);
    put_quoted(f, b);
    fputs(".'.png' }\n}\n\n", f);
}

static void write_script_axes(FILE *f, const plot *p)
{
    fputs("# NaN rows are skipped; the blank line after each breaks the "
          "line there\nset datafile missing 'NaN'\nset title ", f);
    put_quoted(f, p->title);
    fputs("\nset xlabel ", f);
    put_quoted(f, p->xlabel);
    fputs("\nset ylabel ", f);
    put_quoted(f, p->ylabel);
    fprintf(f, "\nset grid\nset key %s\n", KEY_POSITIONS[p->key].gnuplot);
    if (p->log_y) /* ticks as 1e-05, 0.001, 10: gnuplot's default prints 0.000010 */
        fputs("set logscale y\nset format y '%g'\n", f);
}

/* Moves [*lo, *hi] to the plot's fixed ends (NaN: none), keeping lo < hi:
 * an end that is not fixed moves one unit (a factor 10 on a log axis) past
 * the fixed one when it has to. */
static void apply_fixed_ends(double *lo, double *hi, double fixed_lo,
                             double fixed_hi, bool log)
{
    if (!isnan(fixed_lo))
        *lo = fixed_lo;
    if (!isnan(fixed_hi))
        *hi = fixed_hi;
    if (*lo < *hi)
        return;
    if (!isnan(fixed_lo))
        *hi = log ? *lo * 10 : *lo + 1;
    else
        *lo = log ? *hi / 10 : *hi - 1;
}

/* With no point to draw, gnuplot cannot autoscale and would fail: fixed
 * ranges (holding the x values there are and the marker lines, or the
 * plot's own fixed ends) instead. */
static void write_script_empty_ranges(FILE *f, const plot *p)
{
    double lo, hi, ylo = p->log_y ? 1 : 0, yhi = p->log_y ? 10 : 1;
    x_extent(p, &lo, &hi);
    for (size_t i = 0; i < p->n_markers; i++) {
        const plot_marker *m = &p->markers[i];
        if (vline_shown(p, m)) {
            lo = fmin(lo, m->at);
            hi = fmax(hi, m->at);
        } else if (hline_shown(p, m)) {
            ylo = fmin(ylo, m->at);
            yhi = fmax(yhi, m->at);
        }
    }
    apply_fixed_ends(&lo, &hi, p->x_lo, p->x_hi, false);
    apply_fixed_ends(&ylo, &yhi, p->y_lo, p->y_hi, p->log_y);
    fputs("# nothing to draw: fixed ranges, so that gnuplot draws the axes\n"
          "set xrange [", f);
    put_number(f, lo);
    fputc(':', f);
    put_number(f, hi);
    fputs("]\nset yrange [", f);
    put_number(f, ylo);
    fputc(':', f);
    put_number(f, yhi);
    fputs("]\n", f);
    fprintf(f, "set label '%s' at graph 0.5, graph 0.5 center front\n",
            has_finite_point(p) ? "no data inside the fixed range"
                                : "no finite data to plot");
}

/* The range of the vlines' x that are drawn; false when there are none. */
static bool vline_extent(const plot *p, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < p->n_markers; i++) {
        if (vline_shown(p, &p->markers[i])) {
            *lo = fmin(*lo, p->markers[i].at);
            *hi = fmax(*hi, p->markers[i].at);
        }
    }
    return *lo <= *hi;
}

/* One end of a `set xrange [lo : hi]`: the fixed end, or gnuplot's choice
 * ("*"), when hold is not NaN stretched to reach it: "*<-5" for a low end
 * (at most -5), "120<*" for a high one (at least 120). */
static void put_range_end(FILE *f, double fixed, double hold, bool low)
{
    if (!isnan(fixed)) {
        put_number(f, fixed);
    } else if (isnan(hold)) {
        fputc('*', f);
    } else if (low) {
        fputs("*<", f);
        put_number(f, hold);
    } else {
        put_number(f, hold);
        fputs("<*", f);
    }
}

/* The ranges when there are points to draw: the fixed ends, and an x range
 * that stretches to hold the vlines (the hlines, being functions in the
 * plot command, stretch the y range themselves). */
static void write_script_ranges(FILE *f, const plot *p)
{
    double lo, hi;
    bool vlines = vline_extent(p, &lo, &hi);
    if (vlines || !isnan(p->x_lo) || !isnan(p->x_hi)) {
        fputs("set xrange [", f);
        put_range_end(f, p->x_lo, vlines ? lo : NAN, true);
        fputs(" : ", f);
        put_range_end(f, p->x_hi, vlines ? hi : NAN, false);
        fputs("]\n", f);
    }
    if (!isnan(p->y_lo) || !isnan(p->y_hi)) {
        fputs("set yrange [", f);
        put_range_end(f, p->y_lo, NAN, true);
        fputs(" : ", f);
        put_range_end(f, p->y_hi, NAN, false);
        fputs("]\n", f);
    }
}

/* How a vline (an arrow) or an hline (a function) is drawn. */
#define EMPHASIS_COLOR "#B00000"
#define EMPHASIS_LINE "linewidth 3 dashtype solid linecolor rgb '" \
                      EMPHASIS_COLOR "'"
#define REFERENCE_VLINE "dashtype 2 linecolor rgb '#606060'"
#define REFERENCE_HLINE "dashtype 3 linecolor rgb '#606060'"

/* Vlines are arrows from the bottom to the top of the graph. Hlines are
 * constant functions in the plot command (so that the y range holds them,
 * log axes included); here go their labels. */
static void write_script_markers(FILE *f, const plot *p)
{
    for (size_t i = 0; i < p->n_markers; i++) {
        const plot_marker *m = &p->markers[i];
        if (!vline_shown(p, m) && !hline_shown(p, m))
            continue;
        char at[32];
        format_number(at, m->at);
        if (m->vertical)
            fprintf(f, "set arrow from first %s, graph 0 to first %s, "
                    "graph 1 nohead %s\n", at, at,
                    m->emphasis ? EMPHASIS_LINE : REFERENCE_VLINE);
        if (!m->label[0])
            continue;
        fputs("set label ", f);
        put_quoted(f, m->label);
        if (m->vertical) /* an emphasized line's a row lower: its own */
            fprintf(f, " at first %s, graph %s left offset character "
                    "0.5, 0 front", at, m->emphasis ? "0.90" : "0.96");
        else
            fprintf(f, " at graph 0.01, first %s left offset 0, character "
                    "0.6 front", at);
        fputs(m->emphasis ? " textcolor rgb '" EMPHASIS_COLOR "'\n" : "\n", f);
    }
}

/* Line style k + 1 for series k (see STYLES, DASHES). */
static void write_script_styles(FILE *f, const plot *p)
{
    fputs("\n# one style per series: colour, point type (a letter in the text "
          "preview), dashes\n", f);
    for (size_t k = 0; k < p->n_series; k++)
        fprintf(f, "set style line %zu linetype %zu linecolor rgb '%s' "
                "linewidth 2 dashtype %s pointtype %d pointsize 1.3\n", k + 1,
                k % N_TEXT_LINETYPES + 1, STYLES[k % N_STYLES].color,
                p->series[k].marks == PLOT_MARKS_NONE ? "solid"
                                                      : DASHES[k % N_DASHES],
                STYLES[k % N_STYLES].point);
}

/* Whether series k gets markers, and at which points: every step-th from
 * the first-th (gnuplot's `every step::first`, which counts again from 0
 * after each break in the line). */
static bool series_marks(const plot *p, size_t k, size_t *step, size_t *first)
{
    const plot_series *s = &p->series[k];
    *step = 1;
    *first = 0;
    if (s->n == 1)
        return true; /* a lone point has no line to show it */
    if (s->marks == PLOT_MARKS_NONE)
        return false;
    if (s->marks == PLOT_MARKS_ALL || s->n <= AUTO_ALL_MAX)
        return true;
    /* Staggered between series: where lines lie on top of each other,
     * each one's markers still show. */
    *step = (s->n + AUTO_MARKS - 1) / AUTO_MARKS;
    *first = k * *step / p->n_series;
    return true;
}

static void next_item(FILE *f, bool *first)
{
    fputs(*first ? "\nplot " : ", \\\n     ", f);
    *first = false;
}

/* The plot command, in drawing order: the hlines (under everything), each
 * series' line, each series' markers (over every line), then the key's
 * entries, one per labelled series, showing its line and marker. */
static void write_script_plot(FILE *f, const plot *p)
{
    bool first = true;
    for (size_t i = 0; i < p->n_markers; i++) {
        const plot_marker *m = &p->markers[i];
        if (!hline_shown(p, m))
            continue;
        next_item(f, &first);
        put_number(f, m->at);
        fprintf(f, " with lines linetype %d %s notitle", HLINE_LINETYPE,
                m->emphasis ? EMPHASIS_LINE : REFERENCE_HLINE);
    }
    for (size_t k = 0; k < p->n_series; k++) {
        if (p->series[k].n < 2)
            continue;
        next_item(f, &first);
        fprintf(f, "dat index %zu using 1:2 with lines linestyle %zu notitle",
                k, k + 1);
    }
    for (size_t k = 0; k < p->n_series; k++) {
        size_t step, from;
        if (!series_marks(p, k, &step, &from))
            continue;
        next_item(f, &first);
        fprintf(f, "dat index %zu using 1:2 ", k);
        if (step > 1)
            fprintf(f, "every %zu::%zu ", step, from);
        fprintf(f, "with points linestyle %zu notitle", k + 1);
    }
    for (size_t k = 0; k < p->n_series; k++) {
        const plot_series *s = &p->series[k];
        size_t step, from;
        if (!s->label[0])
            continue;
        bool marks = series_marks(p, k, &step, &from);
        next_item(f, &first);
        fprintf(f, "keyentry with %s linestyle %zu title ",
                s->n == 1 ? "points" : marks ? "linespoints" : "lines", k + 1);
        put_quoted(f, s->label);
    }
    fputc('\n', f);
}

static void write_script(FILE *f, const plot *p, const script_paths *sp)
{
    write_script_header(f, sp);
    write_script_axes(f, p);
    if (has_drawable_point(p))
        write_script_ranges(f, p);
    else
        write_script_empty_ranges(f, p);
    write_script_markers(f, p);
    write_script_styles(f, p);
    write_script_plot(f, p);
}

/* ---- finding and running gnuplot ---------------------------------------- */

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* The program to run: $GNUPLOT or gnuplot, looked up on $PATH unless it holds
 * a '/'. Returns a malloc'd path, or NULL when not found (or out of memory).
 * *asked is what was looked for. */
static char *find_gnuplot(const char **asked)
{
    const char *want = getenv("GNUPLOT");
    if (!want || !*want)
        want = "gnuplot";
    *asked = want;
    if (strchr(want, '/'))
        return is_executable_file(want) ? strdup(want) : NULL;

    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char *cand = len ? str_printf("%.*s/%s", (int)len, path, want)
                         : str_printf("./%s", want);
        if (cand && is_executable_file(cand))
            return cand;
        free(cand);
        path += len;
        if (*path == ':')
            path++;
    }
    return NULL;
}

bool plot_gnuplot_available(void)
{
    const char *asked;
    char *prog = find_gnuplot(&asked);
    free(prog);
    return prog != NULL;
}

/* The most telling line of gnuplot's stderr, copied into line: the first
 * error ("... line 12: msg", not a warning) with the quoted script name in
 * front of "line" dropped, otherwise the first line that is not blank and not
 * only a caret under the echoed command. */
static void pick_error_line(const char *text, char *line, size_t size)
{
    const char *first = NULL, *best = NULL;
    size_t first_len = 0, best_len = 0;
    for (const char *s = text; *s;) {
        size_t len = strcspn(s, "\n");
        size_t blank = strspn(s, " \t^\r");
        if (blank < len) {
            const char *tag = s;
            if (*s == '"') {          /* "x.gp" line 5: ... */
                const char *q = memchr(s + 1, '"', len - 1);
                if (q && strncmp(q, "\" line ", 7) == 0)
                    tag = q + 2;
            }
            int n = 0;
            unsigned lineno;
            bool is_error = sscanf(tag, "line %u:%n", &lineno, &n) == 1 &&
                            n > 0 && strncmp(tag + n, " warning:", 9) != 0;
            if (is_error && !best) {
                best = tag;
                best_len = len - (size_t)(tag - s);
            }
            if (!first) {
                first = s + blank;
                first_len = len - blank;
            }
        }
        s += len;
        if (*s == '\n')
            s++;
    }
    if (!best) {
        best = first ? first : "";
        best_len = first ? first_len : 0;
    }
    snprintf(line, size, "%.*s", (int)best_len, best);
}

/* Reads fd to its end, keeping the first size-1 bytes NUL-terminated. */
static void read_all(int fd, char *buf, size_t size)
{
    size_t used = 0;
    char sink[512];
    for (;;) {
        char *to = used + 1 < size ? buf + used : sink;
        size_t room = used + 1 < size ? size - 1 - used : sizeof sink;
        ssize_t got = read(fd, to, room);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        if (to != sink)
            used += (size_t)got;
    }
    buf[used] = '\0';
}

/* In the child: stdin and stdout from/to /dev/null, stderr into errfd. */
static void exec_gnuplot(const char *prog, const char *setup,
                         const char *script, int errfd)
{
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
    }
    dup2(errfd, STDERR_FILENO);
    char *argv[] = { (char *)prog, "-d", "-e", (char *)setup, (char *)script,
                     NULL };
    execv(prog, argv);
    static const char msg[] = "could not execute the program\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
}

/* Runs `prog -d -e setup gp` and turns a failure into err. */
static int run_gnuplot(const char *prog, const char *setup, const char *gp,
                       lab_error *err)
{
    /* A script path that starts with '-' would read as an option. */
    char *script = gp[0] == '-' ? str_printf("./%s", gp) : strdup(gp);
    int fds[2];
    if (!script)
        return lab_errorf(err, "gnuplot failed on %s: out of memory", gp);
    if (pipe(fds) != 0) {
        free(script);
        return lab_errorf(err, "gnuplot failed on %s: cannot make a pipe: %s",
                          gp, strerror(errno));
    }
    /* Recorded, so that a signal that kills this program kills gnuplot
     * before removing the temporary file it writes (atomic_file.h). */
    pid_t pid = (pid_t)atomic_file_fork();
    if (pid == 0) {
        close(fds[0]);
        exec_gnuplot(prog, setup, script, fds[1]);
    }
    int fork_errno = errno;
    free(script);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return lab_errorf(err, "gnuplot failed on %s: cannot start %s: %s",
                          gp, prog, strerror(fork_errno));
    }

    char text[STDERR_KEEP];
    read_all(fds[0], text, sizeof text);
    close(fds[0]);
    /* Wait without reaping, forget the child, then reap it: the signal
     * handler never kills a process id that may have been reused. */
    siginfo_t info;
    int status;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 &&
           errno == EINTR)
        ;
    atomic_file_forget_child();
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return lab_errorf(err, "gnuplot failed on %s: lost the process: "
                              "%s", gp, strerror(errno));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;

    char line[400];
    pick_error_line(text, line, sizeof line);
    if (line[0])
        return lab_errorf(err, "gnuplot failed on %s: %s", gp, line);
    if (WIFSIGNALED(status))
        return lab_errorf(err, "gnuplot failed on %s: killed by signal %d",
                          gp, WTERMSIG(status));
    return lab_errorf(err, "gnuplot failed on %s: exit status %d", gp,
                      WEXITSTATUS(status));
}

/* ---- rendering ---------------------------------------------------------- */

/* The `-e` commands that point the script's output at out. */
static char *setup_commands(const char *preview, const char *out)
{
    size_t len = strlen(out);
    char *quoted = malloc(2 * len + 3);
    if (!quoted)
        return NULL;
    char *q = quoted;
    *q++ = '\'';
    for (const char *c = out; *c; c++) {
        if (*c == '\'')
            *q++ = '\'';
        *q++ = *c;
    }
    *q++ = '\'';
    *q = '\0';
    char *setup = str_printf("%sout = %s", preview, quoted);
    free(quoted);
    return setup;
}

static bool starts_as_png(const char *path)
{
    static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
                                          0x1a, '\n' };
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return got == sizeof head && memcmp(head, sig, sizeof sig) == 0;
}

/* Runs the script with its output going to a temporary file; returns that
 * file's name (malloc'd), or NULL with err filled. The name is in
 * atomic_file's registry (removed if a signal kills the program) until
 * done_with_temp. */
static char *render_to_temp(const char *prog, const char *gp,
                            const char *final, const char *preview,
                            lab_error *err)
{
    char *tmp = str_printf("%s.tmp%ld", final, (long)getpid());
    char *setup = tmp ? setup_commands(preview, tmp) : NULL;
    if (!setup) {
        free(tmp);
        lab_errorf(err, "plot: out of memory rendering %s", gp);
        return NULL;
    }
    unlink(tmp);
    atomic_file_track(tmp); /* when the registry is full: unprotected */
    int rc = run_gnuplot(prog, setup, gp, err);
    free(setup);
    if (rc == 0 && access(tmp, F_OK) != 0)
        rc = lab_errorf(err, "gnuplot failed on %s: it wrote nothing", gp);
    if (rc != 0) {
        unlink(tmp);
        atomic_file_untrack(tmp);
        free(tmp);
        return NULL;
    }
    return tmp;
}

/* After tmp was renamed or removed. */
static void done_with_temp(char *tmp)
{
    atomic_file_untrack(tmp);
    free(tmp);
}

static int render_png(const char *prog, const char *gp, const char *png,
                      lab_error *err)
{
    char *tmp = render_to_temp(prog, gp, png, "", err);
    if (!tmp)
        return -1;
    int rc = 0;
    if (!starts_as_png(tmp))
        rc = lab_errorf(err, "gnuplot failed on %s: its output is not a PNG "
                        "image", gp);
    else if (rename(tmp, png) != 0)
        rc = lab_errorf(err, "plot: cannot rename %s to %s: %s", tmp, png,
                        strerror(errno));
    if (rc != 0)
        unlink(tmp);
    done_with_temp(tmp);
    return rc;
}

/* Copies the text file at path to out, without the dumb terminal's leading
 * form feed. */
static int copy_preview(const char *path, FILE *out, const char *gp,
                        lab_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return lab_errorf(err, "plot: cannot read the preview of %s: %s", gp,
                          strerror(errno));
    int c = fgetc(in);
    if (c != '\f' && c != EOF)
        fputc(c, out);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, got, out);
    bool failed = ferror(in) || ferror(out) || fflush(out) != 0;
    fclose(in);
    return failed ? lab_errorf(err, "plot: cannot write the preview of %s",
                               gp)
                  : 0;
}

static int render_preview(const char *prog, const char *gp,
                          const char *stem, const plot_options *o,
                          lab_error *err)
{
    char preview[80];
    snprintf(preview, sizeof preview, "preview = 1; cols = %d; rows = %d; "
             "color = %d; ", o->preview_cols, o->preview_rows,
             o->preview_color ? 1 : 0);
    char *txt = str_printf("%s.txt", stem);
    if (!txt)
        return lab_errorf(err, "plot: out of memory rendering %s", gp);
    char *tmp = render_to_temp(prog, gp, txt, preview, err);
    free(txt);
    if (!tmp)
        return -1;
    int rc = copy_preview(tmp, o->preview, gp, err);
    unlink(tmp);
    done_with_temp(tmp);
    return rc;
}

/* The options with defaults filled in, or -1 when out of range. */
static int resolve_options(const plot_options *opt, plot_options *o,
                           lab_error *err)
{
    *o = opt ? *opt : (plot_options){ 0 };
    o->width = o->width ? o->width : PLOT_DEFAULT_WIDTH;
    o->height = o->height ? o->height : PLOT_DEFAULT_HEIGHT;
    o->preview_cols = o->preview_cols ? o->preview_cols
                                      : PLOT_DEFAULT_PREVIEW_COLS;
    o->preview_rows = o->preview_rows ? o->preview_rows
                                      : PLOT_DEFAULT_PREVIEW_ROWS;
    if (o->width < 1 || o->width > MAX_IMAGE_PIXELS || o->height < 1 ||
        o->height > MAX_IMAGE_PIXELS)
        return lab_errorf(err, "plot_render: image size %dx%d is not in "
                          "1..%d pixels", o->width, o->height,
                          MAX_IMAGE_PIXELS);
    if (o->preview_cols < 10 || o->preview_cols > MAX_PREVIEW_CHARS ||
        o->preview_rows < 5 || o->preview_rows > MAX_PREVIEW_CHARS)
        return lab_errorf(err, "plot_render: preview size %dx%d is not in "
                          "10x5..%dx%d characters", o->preview_cols,
                          o->preview_rows, MAX_PREVIEW_CHARS,
                          MAX_PREVIEW_CHARS);
    return 0;
}

/* The names a render uses, all malloc'd. */
typedef struct render_paths {
    char *dir;      /* folder of the stem, "" for the current one */
    char *abs_dir;  /* the same, absolute, with a trailing '/'; or "" */
    char *dat, *gp, *png;
    const char *base;
} render_paths;

static void free_paths(render_paths *rp)
{
    free(rp->dir);
    free(rp->abs_dir);
    free(rp->dat);
    free(rp->gp);
    free(rp->png);
}

static int make_paths(const char *stem, render_paths *rp, lab_error *err)
{
    const char *slash = strrchr(stem, '/');
    *rp = (render_paths){ 0 };
    rp->base = slash ? slash + 1 : stem;
    rp->dir = slash ? str_printf("%.*s", (int)(slash - stem + 1), stem)
                    : strdup("");
    rp->dat = str_printf("%s.dat", stem);
    rp->gp = str_printf("%s.gp", stem);
    rp->png = str_printf("%s.png", stem);
    if (!rp->dir || !rp->dat || !rp->gp || !rp->png) {
        free_paths(rp);
        return lab_errorf(err, "plot: out of memory for %s", stem);
    }
    return 0;
}

/* Fills rp->abs_dir once the folder exists. A folder whose absolute name
 * cannot be had, or could not sit in a script line, gets "". */
static int find_abs_dir(render_paths *rp, lab_error *err)
{
    char *real = realpath(rp->dir[0] ? rp->dir : ".", NULL);
    if (real && !has_control_char(real))
        rp->abs_dir = str_printf("%s%s", real,
                                 strcmp(real, "/") == 0 ? "" : "/");
    else
        rp->abs_dir = strdup("");
    free(real);
    return rp->abs_dir ? 0 : lab_errorf(err, "plot: out of memory");
}

static int write_files(const plot *p, const render_paths *rp,
                       const plot_options *o, lab_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, rp->dat, err) != 0)
        return -1;
    write_dat(af.f, p);
    if (atomic_file_commit(&af, err) != 0)
        return -1;

    script_paths sp = { rp->base, rp->abs_dir, o->width, o->height };
    if (atomic_file_open(&af, rp->gp, err) != 0)
        return -1;
    write_script(af.f, p, &sp);
    return atomic_file_commit(&af, err);
}

static int draw(const plot *p, const render_paths *rp, const plot_options *o,
                lab_error *err)
{
    const char *asked;
    char *prog = find_gnuplot(&asked);
    if (!prog) {
        lab_errorf(err, "gnuplot not found%s%s%s: install it with `sudo "
                   "apt-get install gnuplot-nox` (data and script written "
                   "to %s, %s)",
                   strcmp(asked, "gnuplot") ? " ($GNUPLOT is " : "",
                   strcmp(asked, "gnuplot") ? asked : "",
                   strcmp(asked, "gnuplot") ? ")" : "", rp->dat, rp->gp);
        unlink(rp->png); /* it would show older data */
        return PLOT_NO_GNUPLOT;
    }
    int rc = render_png(prog, rp->gp, rp->png, err);
    if (rc != 0)
        unlink(rp->png);
    else if (o->preview)
        rc = render_preview(prog, rp->gp, p->stem, o, err);
    free(prog);
    return rc;
}

int plot_render(const plot *p, const plot_options *opt, lab_error *err)
{
    if (!p)
        return lab_errorf(err, "plot_render: no plot (NULL)");
    if (p->n_series == 0)
        return lab_errorf(err, "plot_render: plot %s has no series; add one "
                          "with plot_add_series", p->stem);
    if (p->log_y && (p->y_lo <= 0 || p->y_hi <= 0)) /* false for NaN */
        return lab_errorf(err, "plot_render: y range [%g : %g] of %s is on a "
                          "log axis; its fixed ends must be > 0", p->y_lo,
                          p->y_hi, p->stem);
    plot_options o;
    render_paths rp;
    if (resolve_options(opt, &o, err) != 0 ||
        make_paths(p->stem, &rp, err) != 0)
        return -1;

    int rc = -1;
    if ((!rp.dir[0] || make_dirs(rp.dir, err) == 0) &&
        find_abs_dir(&rp, err) == 0) {
        if (write_files(p, &rp, &o, err) == 0)
            rc = draw(p, &rp, &o, err);
        else
            unlink(rp.png); /* stem.dat may hold the new data already */
    }
    free_paths(&rp);
    return rc;
}
