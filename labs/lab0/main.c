/*
 * main.c - lab0's demo: what E4M3 and E5M2 can represent, computed with the
 * lab0.c it is built with (`make lab0` builds it as build/lab0/lab0).
 *
 *   1. a table of both formats' limits, from lab0_format_limits (README §7);
 *   2. plot "values": every positive finite value of each format, from
 *      lab0_decode, on a log2 axis (README §2, §4);
 *   3. plot "rel_error": the relative error |decode(encode(x)) - x| / |x| of
 *      2000 inputs from 2^-18 to 2^17, saturating, from lab0_encode and
 *      lab0_decode, against each format's bound (README §3, §5, §7).
 *
 * Each plot is written as DIR/NAME.png with the gnuplot script and data
 * beside it (DIR is build/lab0/plots unless -o says otherwise), and drawn
 * as text on the terminal unless --no-preview. The command line and the
 * drawing are common/demo.c's, the same in every lab's demo.
 *
 * Not for: grading. It draws whatever the functions return, skipping what
 * cannot be drawn and saying so; `./grader lab0` says whether it is right.
 */
#include "lab0.h"
#include "demo.h"
#include "plot.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_DIR "build/lab0/plots"
#define N_INPUTS 2000      /* inputs of the relative-error plot */
#define LOG2_LO (-18.0)    /* ... from 2^-18 */
#define LOG2_HI 17.0       /* ... to 2^17 */

static const lab0_format *const FORMATS[] = {&LAB0_E4M3, &LAB0_E5M2};
#define N_FORMATS 2

/* What the demo does, for --help (common/demo.c prints the rest). */
static const char ABOUT[] =
    "Prints the limits of E4M3 and E5M2 and draws two plots, all computed\n"
    "with your lab0.c: every representable value (values.png) and the\n"
    "relative error of rounding (rel_error.png).";

/* ---- the limits table ---------------------------------------------------- */

/* v as a decimal and as a power of two: "448 = 1.75 x 2^8", "0.125 = 2^-3".
 * A value that is not positive and finite is shown as it is. */
static void format_value(char *buf, size_t n, double v)
{
    if (!(v > 0) || !isfinite(v)) {
        snprintf(buf, n, "%.8g", v);
        return;
    }
    int e;
    double s = 2 * frexp(v, &e); /* v = s * 2^(e-1), 1 <= s < 2 */
    if (s == 1)
        snprintf(buf, n, "%.8g = 2^%d", v, e - 1);
    else
        snprintf(buf, n, "%.8g = %.8g x 2^%d", v, s, e - 1);
}

#define NAME_W 18 /* width of the first column */
#define CELL_W 34 /* width of the others */

/* One line of the table: a name, then one cell per format. */
static void print_cells(const char *name, char cells[N_FORMATS][96])
{
    printf("  %-*s", NAME_W, name);
    for (int k = 0; k < N_FORMATS; k++)
        printf(k + 1 < N_FORMATS ? "  %-*s" : "  %.*s\n", CELL_W, cells[k]);
}

/* A row of limits; percent adds "(6.25%)". */
static void print_value_row(const char *name, const double v[N_FORMATS], bool percent)
{
    char cells[N_FORMATS][96];
    for (int k = 0; k < N_FORMATS; k++) {
        char buf[64];
        format_value(buf, sizeof buf, v[k]);
        if (percent && v[k] > 0 && isfinite(v[k]))
            snprintf(cells[k], sizeof cells[k], "%s (%.3g%%)", buf, 100 * v[k]);
        else
            snprintf(cells[k], sizeof cells[k], "%s", buf);
    }
    print_cells(name, cells);
}

static bool limits_all_zero(const lab0_limits lim[N_FORMATS])
{
    for (int k = 0; k < N_FORMATS; k++)
        if (lim[k].max != 0 || lim[k].min_normal != 0 || lim[k].min_subnormal != 0 ||
            lim[k].epsilon != 0 || lim[k].rel_error_bound != 0)
            return false;
    return true;
}

static void print_limits(const lab0_limits lim[N_FORMATS])
{
    char cells[N_FORMATS][96];
    double v[N_FORMATS];

    printf("Limits of the FP8 formats, from your lab0_format_limits (README §7)\n\n");
    for (int k = 0; k < N_FORMATS; k++)
        snprintf(cells[k], sizeof cells[k], "%s (%d exp, %d man bits)",
                 FORMATS[k]->name, FORMATS[k]->exp_bits, FORMATS[k]->man_bits);
    print_cells("", cells);

#define ROW(label, field, percent)                                  \
    do {                                                            \
        for (int k = 0; k < N_FORMATS; k++) v[k] = lim[k].field;    \
        print_value_row(label, v, percent);                         \
    } while (0)
    ROW("max finite", max, false);
    ROW("min normal", min_normal, false);
    ROW("min subnormal", min_subnormal, false);
    ROW("machine epsilon", epsilon, false);
    ROW("rel. error bound", rel_error_bound, true);
#undef ROW

    for (int k = 0; k < N_FORMATS; k++) {
        double range = log2((double)lim[k].max / lim[k].min_subnormal);
        if (lim[k].min_subnormal > 0 && isfinite(range) && range > 0)
            snprintf(cells[k], sizeof cells[k], "%.1f binades", range);
        else
            snprintf(cells[k], sizeof cells[k], "n/a");
    }
    print_cells("dynamic range", cells);

    printf("\n  Each value is exactly its power-of-two form; decimals show 8 digits.\n"
           "  The error bound is relative, on |decode(encode(x)) - x| / |x| over the\n"
           "  normal range. The dynamic range is max / min subnormal in binades\n"
           "  (factors of 2).\n");
    if (limits_all_zero(lim))
        printf("  (All zero: lab0_format_limits is not written yet, README §7.)\n");
    printf("\n");
}

/* ---- plot 1: every representable value ----------------------------------- */

/*
 * A format's values are drawn as a comb: a base line at y = base with a
 * tooth up to y = top at each value. One series is one connected line, so
 * each tooth goes up and back down before the base line moves on.
 */
static void add_tooth(double *xs, double *ys, size_t *n, double x, double base, double top)
{
    xs[*n] = x;  ys[*n] = base;  (*n)++;
    xs[*n] = x;  ys[*n] = top;   (*n)++;
    xs[*n] = x;  ys[*n] = base;  (*n)++;
}

/* A comb series, drawn as a bare line (a marker at each tooth's three
 * points would hide the teeth), or one undrawable point (so its key entry
 * stays) when there are no values. */
static int add_comb(plot *p, const char *label, const double *xs, const double *ys,
                    size_t n, lab_error *err)
{
    static const double none = NAN;
    if (n == 0)
        return plot_add_series(p, label, &none, &none, 1, err);
    if (plot_add_series(p, label, xs, ys, n, err) != 0)
        return -1;
    return plot_set_marks(p, PLOT_MARKS_NONE, err);
}

/* The combs of one format around y = row: normal values with long teeth,
 * subnormal ones with short teeth. Prints how many values it found. */
static int add_format_values(plot *p, const lab0_format *f, double row, lab_error *err)
{
    /* At most 128 positive codes, 3 points per tooth. */
    double nx[3 * 128], ny[3 * 128], sx[3 * 128], sy[3 * 128];
    size_t nn = 0, ns = 0;
    int count = 0, not_increasing = 0;
    double last = 0;

    for (unsigned code = 0x00; code <= 0x7F; code++) {
        double v = lab0_decode(f, (uint8_t)code);
        if (!(v > 0) || !isfinite(v))
            continue; /* zero, inf, NaN, or a value that cannot be on a log axis */
        if (count > 0 && v <= last)
            not_increasing++;
        last = v;
        count++;
        bool subnormal = (code >> f->man_bits) == 0; /* exponent field 0 */
        if (subnormal)
            add_tooth(sx, sy, &ns, log2(v), row - 0.3, row);
        else
            add_tooth(nx, ny, &nn, log2(v), row - 0.3, row + 0.3);
    }

    printf("  %s: %d positive finite values from codes 0x00-0x7f", f->name, count);
    if (count == 0)
        printf(": nothing to draw (is lab0_decode written yet? README §2)");
    printf("\n");
    if (not_increasing > 0)
        printf("  %s: %d values are not larger than the one before; a larger code "
               "should mean a larger value (README §2)\n", f->name, not_increasing);

    char label[64];
    snprintf(label, sizeof label, "%s normal values", f->name);
    if (add_comb(p, label, nx, ny, nn, err) != 0)
        return -1;
    snprintf(label, sizeof label, "%s subnormal values", f->name);
    return add_comb(p, label, sx, sy, ns, err);
}

/* A vline at log2(v) labelled text, when v is positive and finite; says so
 * otherwise. */
static int add_log2_vline(plot *p, const char *fmt_name, const char *what, double v,
                          const char *text, lab_error *err)
{
    if (!(v > 0) || !isfinite(v)) {
        printf("  %s %s = %g: no line drawn (not a positive number; README §7)\n",
               fmt_name, what, v);
        return 0;
    }
    return plot_add_vline(p, log2(v), text, err);
}

/* Short label of a limit: "2^-9" for a power of two, else "448". */
static void short_label(char *buf, size_t n, double v)
{
    int e;
    double s = 2 * frexp(v, &e);
    if (v > 0 && isfinite(v) && s == 1)
        snprintf(buf, n, "2^%d", e - 1);
    else
        snprintf(buf, n, "%g", v);
}

static plot *make_values_plot(const char *stem, const lab0_limits lim[N_FORMATS],
                              lab_error *err)
{
    plot *p = plot_new(stem,
                       "Every positive finite FP8 value (dashed: min subnormal, "
                       "min normal, max of each format)",
                       "log2(value): 0 is 1.0, 8 is 256, -9 is 1/512",
                       "format (1 = E4M3, 2 = E5M2)", err);
    if (!p)
        return NULL;
    printf("Plot 1, every positive finite value (from your lab0_decode, README §2):\n");
    for (int k = 0; k < N_FORMATS; k++) {
        const lab0_format *f = FORMATS[k];
        const double at[3] = {lim[k].min_subnormal, lim[k].min_normal, lim[k].max};
        const char *what[3] = {"min_subnormal", "min_normal", "max"};
        if (add_format_values(p, f, k + 1.0, err) != 0)
            goto fail;
        for (int i = 0; i < 3; i++) {
            char text[32];
            short_label(text, sizeof text, at[i]);
            if (add_log2_vline(p, f->name, what[i], at[i], text, err) != 0)
                goto fail;
        }
    }
    /* The rows at y = 1 and 2 reach 0.3 either side; above them, room for
     * the lines' labels. The key goes below the graph, where it covers
     * neither a comb nor a line. */
    if (plot_set_yrange(p, 0.4, 2.8, err) != 0 || plot_set_key(p, "below", err) != 0)
        goto fail;
    return p;
fail:
    plot_free(p);
    return NULL;
}

/* ---- plot 2: relative error of rounding ---------------------------------- */

typedef struct error_stats {
    int exact;       /* error 0: nothing to draw on a log axis */
    int zero;        /* decode(encode(x)) == 0: error 100% */
    int not_finite;  /* decode(encode(x)) was NaN or inf */
    int in_normal;   /* inputs with min_normal <= x <= max */
    double max_normal; /* the largest relative error among those */
} error_stats;

/* y[i] = |decode(encode(x[i])) - x[i]| / x[i] for the saturating encoder;
 * NaN where it cannot be drawn. */
static void relative_errors(const lab0_format *f, const lab0_limits *lim,
                            const double *x, double *y, error_stats *st)
{
    memset(st, 0, sizeof *st);
    for (int i = 0; i < N_INPUTS; i++) {
        float xf = (float)x[i];
        double d = lab0_decode(f, lab0_encode(f, xf, 1));
        if (!isfinite(d)) {
            st->not_finite++;
            y[i] = NAN;
            continue;
        }
        y[i] = fabs(d - xf) / xf;
        if (y[i] == 0)
            st->exact++;
        if (d == 0)
            st->zero++;
        if (xf >= lim->min_normal && xf <= lim->max && lim->min_normal > 0) {
            st->in_normal++;
            st->max_normal = fmax(st->max_normal, y[i]);
        }
    }
}

static void print_error_stats(const lab0_format *f, const lab0_limits *lim,
                              const error_stats *st)
{
    printf("  %s: ", f->name);
    if (st->in_normal > 0)
        printf("largest relative error in the normal range %.4g (%.3g%%), "
               "bound %.4g", st->max_normal, 100 * st->max_normal,
               lim->rel_error_bound);
    else
        printf("no input in the normal range [min_normal, max] of your limits");
    if (st->zero > 0)
        printf("; %d rounded to 0 (100%% error)", st->zero);
    if (st->exact > 0)
        printf("; %d exact (error 0: not drawn on the log axis)", st->exact);
    if (st->not_finite > 0)
        printf("; %d skipped: decode(encode(x)) not finite (README §5)", st->not_finite);
    printf("\n");
}

/* The bound's line for one format, when the bound is a positive number. */
static int add_bound_line(plot *p, const lab0_format *f, double u, lab_error *err)
{
    if (!(u > 0) || !isfinite(u)) {
        printf("  %s rel_error_bound = %g: no line drawn (README §7)\n", f->name, u);
        return 0;
    }
    char text[64], pow2[32];
    short_label(pow2, sizeof pow2, u);
    snprintf(text, sizeof text, "%s bound %s", f->name, pow2);
    return plot_add_hline(p, u, text, err);
}

static plot *make_error_plot(const char *stem, const lab0_limits lim[N_FORMATS],
                             lab_error *err)
{
    static double x[N_INPUTS], t[N_INPUTS], y[N_FORMATS][N_INPUTS];
    plot *p = plot_new(stem,
                       "Relative error of rounding to FP8 (nearest even, "
                       "saturating); dotted: each format's bound",
                       "log2(x), x the input: 0 is 1.0, 10 is 1024, -10 is 1/1024",
                       "relative error |decode(encode(x)) - x| / |x| (log scale)",
                       err);
    if (!p)
        return NULL;
    plot_set_log_y(p, true);
    for (int i = 0; i < N_INPUTS; i++) {
        t[i] = LOG2_LO + (LOG2_HI - LOG2_LO) * i / (N_INPUTS - 1);
        x[i] = (float)exp2(t[i]);
        t[i] = log2(x[i]); /* where the float input really is */
    }

    printf("Plot 2, relative error of %d inputs from 2^%g to 2^%g (from your "
           "lab0_encode and lab0_decode, README §3, §7):\n", N_INPUTS, LOG2_LO, LOG2_HI);
    for (int k = 0; k < N_FORMATS; k++) {
        error_stats st;
        relative_errors(FORMATS[k], &lim[k], x, y[k], &st);
        print_error_stats(FORMATS[k], &lim[k], &st);
    }
    /* Last format first, so that E4M3's smaller errors are drawn on top.
     * No markers: each curve is N_INPUTS samples of a sawtooth, and a
     * marker on one says nothing; the colours tell them apart. */
    for (int k = N_FORMATS - 1; k >= 0; k--)
        if (plot_add_series(p, FORMATS[k]->name, t, y[k], N_INPUTS, err) != 0 ||
            plot_set_marks(p, PLOT_MARKS_NONE, err) != 0 ||
            add_bound_line(p, FORMATS[k], lim[k].rel_error_bound, err) != 0)
            goto fail;
    /* x from 2^-25: room left of the curves for the bounds' labels. y from
     * 1e-4 (the smallest error drawn is 1.1e-4; deeper dips are cut off) to
     * a decade above the largest error, at least 10: room above the curves
     * for the key, and the same axes whenever no error is above 100%. */
    double top = 10;
    for (int k = 0; k < N_FORMATS; k++)
        for (int i = 0; i < N_INPUTS; i++)
            while (isfinite(y[k][i]) && 10 * y[k][i] > top)
                top *= 10;
    if (plot_set_xrange(p, -25, NAN, err) != 0 || plot_set_yrange(p, 1e-4, top, err) != 0 ||
        plot_set_key(p, "top right", err) != 0)
        goto fail;
    return p;
fail:
    plot_free(p);
    return NULL;
}

/* ---- drawing ------------------------------------------------------------- */

typedef plot *(*plot_maker)(const char *stem, const lab0_limits lim[N_FORMATS],
                            lab_error *err);

/* The plots, in order: file name, how to make it, PNG width in pixels. */
static const struct {
    const char *name;
    plot_maker make;
    int width;
} PLOTS[] = {
    {"values", make_values_plot, 1600}, /* wide: room for six labels */
    {"rel_error", make_error_plot, 1400},
};
#define N_PLOTS 2

/* Makes and renders one plot as DIR/name.png. Returns 0, PLOT_NO_GNUPLOT,
 * or -1 (message printed). */
static int draw_plot(int i, const lab0_limits lim[N_FORMATS], demo_options *o)
{
    char stem[DEMO_STEM_SIZE];
    if (demo_stem(o, PLOTS[i].name, stem, sizeof stem) != 0)
        return -1;
    lab_error err = {{0}};
    plot *p = PLOTS[i].make(stem, lim, &err); /* NULL: err says why */
    return demo_render(o, p, stem, PLOTS[i].width, &err);
}

int main(int argc, char **argv)
{
    demo_options o;
    int rc = demo_parse_args(argc, argv, "lab0", ABOUT, DEFAULT_DIR, &o);
    if (rc != 0)
        return rc == 1 ? 0 : 2; /* 1: after --help */

    lab0_limits lim[N_FORMATS];
    for (int k = 0; k < N_FORMATS; k++)
        lim[k] = lab0_format_limits(FORMATS[k]);
    print_limits(lim);

    for (int i = 0; i < N_PLOTS; i++)
        if (draw_plot(i, lim, &o) == -1)
            return 1;
    demo_note_no_gnuplot(&o); /* when gnuplot was missing */
    return 0;
}
