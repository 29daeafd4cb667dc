/*
 * main.c - lab1's demo: delayed scaling against its alternatives on the
 * lab's tensor stream (README §9), computed with the lab1.c it is built with.
 *
 *   make lab1 && ./build/lab1/lab1     your lab1.c (build/lab1/plots)
 *   make plots                         the reference solution's plots
 *                                      (build/plots/lab1)
 *
 * Two tensors from stream.h, N_ELEMS elements each, for LAB1_STREAM_STEPS
 * steps: an activation cast to E4M3 (a drift, a one-step spike, a slow
 * growth and the sudden drop after it) and a gradient cast to E5M2 (tiny
 * values, all zero for 20 steps). Seven strategies each run over every step
 * of both tensors, with one state per tensor: delayed scaling with four
 * histories and margins (README §5, §6), current scaling and its power-of-two
 * variant (§7), and the moving average (§8). Then it
 *
 *   1. prints a table, one row per strategy and tensor: the SQNR of the round
 *      trip x -> FP8 -> decode * scale_inv (mean, worst, at the spike), the
 *      saturated elements and the elements flushed to zero;
 *   2. prints what delayed scaling's lag costs, read from the run;
 *   3. draws amax_scale (the activation's amax and four strategies' scales),
 *      saturation, underflow and sqnr (per step, every strategy, the
 *      activation), and underflow_grad and sqnr_grad (the same, gradient).
 *
 * Each plot is written as DIR/NAME.png with the gnuplot script and data
 * beside it (DIR is build/lab1/plots unless -o says otherwise), and drawn
 * as text on the terminal unless --no-preview. The command line and the
 * drawing are common/demo.c's, the same in every lab's demo.
 *
 * Not for: grading. It shows whatever the functions do, skipping what cannot
 * be computed and saying so; `./grader lab1` says whether they are right.
 */
#include "lab1.h"
#include "demo.h"
#include "plot.h"
#include "stats.h"
#include "stream.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_DIR "build/lab1/plots"
#define PLOT_WIDTH 1400             /* of each PNG, in pixels */
#define N_ELEMS 4096                /* elements per tensor */
#define N_STEPS LAB1_STREAM_STEPS   /* steps of the stream */
#define SPIKE LAB1_STREAM_SPIKE_STEP

/* ---- the strategies and the tensors -------------------------------------- */

typedef enum method { DELAYED, CURRENT, EMA } method;

/* A scaling strategy; the fields its method does not read are 0. */
typedef struct strategy {
    const char *name;
    method method;
    lab1_amax_algo algo; /* DELAYED: which amax of the history */
    int history_len;     /* DELAYED: L */
    int margin;          /* DELAYED, EMA: the scale is divided by 2^margin */
    int pow2;            /* CURRENT: round the scale down to a power of two */
    float momentum;      /* EMA: the weight kept on the old scale */
} strategy;

static const strategy STRATEGIES[] = {
    {"delayed max L=16 m=0", DELAYED, LAB1_AMAX_MAX, 16, 0, 0, 0.0f},
    {"delayed max L=16 m=2", DELAYED, LAB1_AMAX_MAX, 16, 2, 0, 0.0f},
    {"delayed max L=1024 m=0", DELAYED, LAB1_AMAX_MAX, LAB1_MAX_HISTORY, 0, 0, 0.0f},
    {"delayed recent L=1 m=0", DELAYED, LAB1_AMAX_MOST_RECENT, 1, 0, 0, 0.0f},
    {"current", CURRENT, LAB1_AMAX_MAX, 0, 0, 0, 0.0f},
    {"current pow2", CURRENT, LAB1_AMAX_MAX, 0, 0, 1, 0.0f},
    {"EMA m=0.9", EMA, LAB1_AMAX_MAX, 0, 0, 0, 0.9f},
};
#define N_STRATEGIES 7
#define LAG_STRATEGY 0 /* the one whose lag is printed: delayed max L=16 m=0 */

/* The strategies whose scale amax_scale draws: delayed max with a short and
 * a long history, delayed most recent (the previous step's amax) and current
 * (this step's own). */
static const int SCALE_PLOT_STRATEGIES[] = {0, 2, 3, 4};
#define N_SCALE_PLOT_STRATEGIES 4

/* The stream's tensors: stream.h's name, lab1.h's kind, a name to print. */
static const struct {
    lab1_stream_tensor stream;
    lab1_tensor kind;
    const char *name;
    const char *kind_name;
} TENSORS[] = {
    {LAB1_STREAM_ACTIVATION, LAB1_ACTIVATION, "activation", "LAB1_ACTIVATION"},
    {LAB1_STREAM_GRADIENT, LAB1_GRADIENT, "gradient", "LAB1_GRADIENT"},
};
#define N_TENSORS 2
#define ACT 0  /* index of the activation in TENSORS */
#define GRAD 1 /* and of the gradient */

/* What one strategy did to one tensor, step by step; NaN where nothing was
 * computed. */
typedef struct run {
    double scale[N_STEPS];         /* what the step's cast multiplied by */
    double saturated_pct[N_STEPS]; /* saturated elements, % of N_ELEMS */
    double underflow_pct[N_STEPS]; /* flushed elements, % of the nonzero ones */
    double sqnr_db[N_STEPS];       /* of the round trip; NaN for an all-zero x */
    size_t saturated[N_STEPS];     /* saturated elements */
} run;

typedef struct results {
    bool ran[N_TENSORS];           /* false: lab1_format_for gave no format */
    double amax[N_TENSORS][N_STEPS];
    run runs[N_TENSORS][N_STRATEGIES];
} results;

/* What the demo does, for --help (common/demo.c prints the rest). */
static const char ABOUT[] =
    "Runs delayed, current and moving-average scaling over lab1's tensor\n"
    "stream with your lab1.c, prints what each lost (SQNR, saturation,\n"
    "underflow) and draws six plots: amax_scale, saturation, underflow,\n"
    "underflow_grad, sqnr and sqnr_grad (.png).";

/* ---- running the strategies ---------------------------------------------- */

/* One strategy's state on one tensor. */
typedef struct scaler {
    const strategy *st;
    fp8_format fmt;        /* the tensor's format, lab1_format_for(kind) */
    lab1_delayed delayed;  /* DELAYED */
    lab1_ema ema;          /* EMA */
} scaler;

static void scaler_init(scaler *sc, const strategy *st, lab1_tensor kind, fp8_format fmt)
{
    /* Zeros first, so that an init that is not written yet leaves zeros in
     * the state rather than garbage. */
    memset(sc, 0, sizeof *sc);
    sc->st = st;
    sc->fmt = fmt;
    if (st->method == DELAYED)
        lab1_delayed_init(&sc->delayed, kind, st->algo, st->history_len, st->margin);
    else if (st->method == EMA)
        lab1_ema_init(&sc->ema, kind, st->momentum, st->margin);
}

/* What one step's cast did. */
typedef struct cast {
    float scale;             /* what it multiplied x by */
    lab1_cast_counts counts; /* what it lost */
} cast;

/* One step: casts x into q with the strategy's scale, and updates the state
 * for the next step. */
static cast scaler_step(scaler *sc, const float *x, uint8_t *q)
{
    cast c = {NAN, {0, 0}};
    switch (sc->st->method) {
    case DELAYED: /* README §5: the scale from earlier steps; this amax is for later */
        c.scale = sc->delayed.scale;
        c.counts = lab1_delayed_cast(&sc->delayed, x, N_ELEMS, q);
        lab1_delayed_update(&sc->delayed);
        break;
    case CURRENT: /* README §7: the scale from this step's own amax */
        c.scale = lab1_current_scale(lab1_amax(x, N_ELEMS), sc->fmt, 0.0f, sc->st->pow2);
        c.counts = lab1_scaled_cast(x, N_ELEMS, c.scale, sc->fmt, q);
        break;
    case EMA: /* README §8: the average so far, then this amax moves it */
        c.scale = sc->ema.scale;
        c.counts = lab1_scaled_cast(x, N_ELEMS, c.scale, sc->fmt, q);
        lab1_ema_update(&sc->ema, lab1_amax(x, N_ELEMS));
        break;
    }
    return c;
}

/* Records step t of a run: the scale, the counts as percentages, and the
 * SQNR of x against its round trip y = decode(q) * scale_inv. */
static void record_step(run *r, int t, const float *x, size_t nonzero, const uint8_t *q,
                        fp8_format fmt, cast c)
{
    static float y[N_ELEMS];
    float scale_inv = 1.0f / c.scale;
    for (size_t i = 0; i < N_ELEMS; i++)
        y[i] = fp8_decode(q[i], fmt) * scale_inv;
    r->scale[t] = c.scale;
    r->saturated[t] = c.counts.saturated;
    r->saturated_pct[t] = 100.0 * c.counts.saturated / N_ELEMS;
    r->underflow_pct[t] = nonzero > 0 ? 100.0 * c.counts.flushed / nonzero : 0.0;
    /* An all-zero x has no signal, so no signal-to-noise ratio. */
    r->sqnr_db[t] = nonzero > 0 ? stats_sqnr_db(x, y, N_ELEMS) : NAN;
}

static void fill_nan(double *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = NAN;
}

/* Runs every strategy over every step of tensor k. Returns false, with a
 * note printed and the runs left NaN, when lab1_format_for gives no format
 * for it: every cast and every decode needs one. */
static bool run_tensor(int k, double amax[N_STEPS], run runs[N_STRATEGIES])
{
    static float base[N_ELEMS], x[N_ELEMS];
    static uint8_t q[N_ELEMS];
    static scaler sc[N_STRATEGIES];

    memset(runs, 0, N_STRATEGIES * sizeof *runs);
    for (int s = 0; s < N_STRATEGIES; s++) {
        fill_nan(runs[s].scale, N_STEPS);
        fill_nan(runs[s].saturated_pct, N_STEPS);
        fill_nan(runs[s].underflow_pct, N_STEPS);
        fill_nan(runs[s].sqnr_db, N_STEPS);
    }
    /* stream.h: amax(x_t) is the magnitude, exactly. */
    for (int t = 0; t < N_STEPS; t++)
        amax[t] = lab1_stream_magnitude(TENSORS[k].stream, t);

    fp8_format fmt = lab1_format_for(TENSORS[k].kind);
    if (!fp8_info(fmt)) {
        printf("Note: lab1_format_for(%s) returned %d, which is not a format, so\n"
               "the %s could not be cast: is it written yet? (README §2)\n\n",
               TENSORS[k].kind_name, (int)fmt, TENSORS[k].name);
        return false;
    }
    for (int s = 0; s < N_STRATEGIES; s++)
        scaler_init(&sc[s], &STRATEGIES[s], TENSORS[k].kind, fmt);
    lab1_stream_base(TENSORS[k].stream, base, N_ELEMS);
    for (int t = 0; t < N_STEPS; t++) {
        lab1_stream_tensor_at(base, N_ELEMS, lab1_stream_magnitude(TENSORS[k].stream, t), x);
        size_t nonzero = stats_count_nonzero(x, N_ELEMS);
        for (int s = 0; s < N_STRATEGIES; s++) {
            cast c = scaler_step(&sc[s], x, q);
            record_step(&runs[s], t, x, nonzero, q, fmt, c);
        }
    }
    return true;
}

/* ---- the summary table --------------------------------------------------- */

typedef struct summary {
    int sqnr_steps;           /* steps whose SQNR is defined (not NaN) */
    double sqnr_mean;         /* over those steps */
    double sqnr_worst;
    int saturated_steps;      /* steps with any saturated element */
    size_t saturated;         /* saturated elements over all steps */
    double underflow_pct;     /* mean over all steps */
} summary;

static summary summarize(const run *r)
{
    summary m = {0, 0.0, INFINITY, 0, 0, 0.0};
    for (int t = 0; t < N_STEPS; t++) {
        if (!isnan(r->sqnr_db[t])) {
            m.sqnr_steps++;
            m.sqnr_mean += r->sqnr_db[t];
            m.sqnr_worst = fmin(m.sqnr_worst, r->sqnr_db[t]);
        }
        m.saturated_steps += r->saturated[t] > 0;
        m.saturated += r->saturated[t];
        m.underflow_pct += r->underflow_pct[t] / N_STEPS;
    }
    m.sqnr_mean = m.sqnr_steps > 0 ? m.sqnr_mean / m.sqnr_steps : NAN;
    if (m.sqnr_steps == 0)
        m.sqnr_worst = NAN;
    return m;
}

/* v in a cell of width w, "n/a" when NaN. */
static void print_db(int w, double v)
{
    if (isnan(v))
        printf("  %*s", w, "n/a");
    else
        printf("  %*.2f", w, v);
}

#define TENSOR_W 10   /* "activation" */
#define NAME_W 22     /* "delayed max L=1024 m=0" */
#define NUM_W 7       /* the number columns */

static void print_row(int k, int s, const summary *m, double spike_db)
{
    printf("  %-*s  %-*s", TENSOR_W, TENSORS[k].name, NAME_W, STRATEGIES[s].name);
    print_db(NUM_W, m->sqnr_mean);
    print_db(NUM_W, m->sqnr_worst);
    printf("  %*d  %*zu  %*.2f", NUM_W, m->saturated_steps, NUM_W + 2, m->saturated,
           NUM_W + 2, m->underflow_pct);
    if (k == ACT)
        print_db(NUM_W + 1, spike_db);
    printf("\n");
}

static void print_table(const results *res)
{
    bool any_undefined = false;
    printf("Lab1's stream (README §9): N = %d elements per tensor, T = %d steps,\n"
           "spike at step %d; SQNR of the round trip x -> FP8 -> decode * scale_inv\n\n",
           N_ELEMS, N_STEPS, SPIKE);
    printf("  %-*s  %-*s  %*s  %*s  %*s  %*s\n", TENSOR_W, "", NAME_W, "",
           2 * NUM_W + 2, "SQNR (dB)", 2 * NUM_W + 4, "saturated", NUM_W + 2, "underflow",
           NUM_W + 1, "SQNR (dB)");
    printf("  %-*s  %-*s  %*s  %*s  %*s  %*s  %*s  %*s\n", TENSOR_W, "tensor", NAME_W,
           "strategy", NUM_W, "mean", NUM_W, "worst", NUM_W, "steps", NUM_W + 2, "elements",
           NUM_W + 2, "mean (%)", NUM_W + 1, "at spike");
    for (int k = 0; k < N_TENSORS; k++) {
        if (!res->ran[k]) {
            printf("  %-*s  (not run: no format, see the note above)\n", TENSOR_W,
                   TENSORS[k].name);
            continue;
        }
        for (int s = 0; s < N_STRATEGIES; s++) {
            summary m = summarize(&res->runs[k][s]);
            any_undefined = any_undefined || m.sqnr_steps == 0;
            print_row(k, s, &m, res->runs[k][s].sqnr_db[SPIKE]);
        }
    }
    printf("\n  Mean and worst SQNR are over the steps where x is not all zero.\n"
           "  Saturated: elements clamped to +-max (steps with any, and how many in\n"
           "  all). Underflow: nonzero elements flushed to zero, %% per step.\n");
    if (any_undefined)
        printf("  n/a: no step gave a number, as when the casts are not written yet\n"
               "  (README §4 to §8).\n");
    printf("\n");
}

/* The lag of LAG_STRATEGY on each tensor that ran, read from its run: the
 * saturated elements at a jump in amax and at the step after it. The
 * activation jumps at the spike; the gradient when it comes back after its
 * zeros, to a scale kept from before them. */
static void print_lag(const results *res)
{
    if (!res->ran[ACT] && !res->ran[GRAD])
        return;
    printf("The lag of delayed scaling (%s): each step is cast with a scale\n"
           "from the amax of the steps before it, so a jump in amax saturates until\n"
           "the next step.\n", STRATEGIES[LAG_STRATEGY].name);
    if (res->ran[ACT]) {
        const size_t *n = res->runs[ACT][LAG_STRATEGY].saturated;
        printf("  activation: %zu elements saturated at step %d (the spike), %zu at step %d\n",
               n[SPIKE], SPIKE, n[SPIKE + 1], SPIKE + 1);
    }
    if (res->ran[GRAD]) {
        const size_t *n = res->runs[GRAD][LAG_STRATEGY].saturated;
        int t = LAB1_STREAM_ZERO_END;
        printf("  gradient: %zu elements saturated at step %d (after the zeros), %zu at step %d\n",
               n[t], t, n[t + 1], t + 1);
    }
    printf("\n");
}

/* ---- the plots ----------------------------------------------------------- */

typedef enum metric { SCALE, SATURATED, UNDERFLOW, SQNR } metric;

/* One plot: its file name, which tensor, what per step, its texts, and the
 * y axis: log or not, and a floor for log axes (0: none) where values below
 * it, 0 included, are drawn on the floor, at the bottom edge. */
typedef struct plot_spec {
    const char *name;
    int tensor;
    metric metric;
    const char *title;
    const char *ylabel;
    bool log_y;
    double floor;
} plot_spec;

static const plot_spec PLOTS[] = {
    {"amax_scale", ACT, SCALE,
     "Activation (E4M3): its amax, and the scale four strategies cast each step with",
     "amax, scale (log scale)", true, 0},
    {"saturation", ACT, SATURATED,
     "Activation (E4M3): elements clamped to +-448 by the cast, per step",
     "saturated elements (% of the tensor, log scale; 0 at the bottom edge)", true, 0.01},
    {"underflow", ACT, UNDERFLOW,
     "Activation (E4M3): nonzero elements flushed to zero by the cast, per step",
     "flushed elements (% of the nonzero ones)", false, 0},
    {"underflow_grad", GRAD, UNDERFLOW,
     "Gradient (E5M2): nonzero elements flushed to zero by the cast, per step",
     "flushed elements (% of the nonzero ones, log scale; 0 at the bottom edge)", true, 0.01},
    {"sqnr", ACT, SQNR,
     "Activation (E4M3): SQNR of the round trip x -> FP8 -> decode * scale_inv",
     "SQNR (dB, higher is better)", false, 0},
    {"sqnr_grad", GRAD, SQNR,
     "Gradient (E5M2): SQNR of the round trip (none while the tensor is all zero)",
     "SQNR (dB, higher is better)", false, 0},
};
#define N_PLOTS 6

static const double *metric_of(const run *r, metric m)
{
    switch (m) {
    case SCALE:
        return r->scale;
    case SATURATED:
        return r->saturated_pct;
    case UNDERFLOW:
        return r->underflow_pct;
    case SQNR:
        return r->sqnr_db;
    }
    return r->scale;
}

/* The stream's events as dashed lines: the spike and the growth phase of
 * the activation, the all-zero phase of the gradient. */
static int add_events(plot *p, int k, lab_error *err)
{
    if (k == GRAD)
        return (plot_add_vline(p, LAB1_STREAM_ZERO_FIRST, "zeros", err) != 0 ||
                plot_add_vline(p, LAB1_STREAM_ZERO_END, "zeros end", err) != 0) ? -1 : 0;
    return (plot_add_vline(p, SPIKE, "spike", err) != 0 ||
            plot_add_vline(p, LAB1_STREAM_GROWTH_FIRST, "growth", err) != 0 ||
            plot_add_vline(p, LAB1_STREAM_GROWTH_END, "growth ends", err) != 0) ? -1 : 0;
}

/* A series of N_STEPS values, those below floor drawn at floor (NaN stays
 * NaN: a step without a value). */
static int add_floored(plot *p, const char *label, const double *v, double floor,
                       lab_error *err)
{
    double y[N_STEPS];
    for (int t = 0; t < N_STEPS; t++)
        y[t] = v[t] < floor ? floor : v[t];
    return plot_add_series(p, label, NULL, y, N_STEPS, err);
}

/* The plot's series: for the scale plot, the amax and the scales of
 * SCALE_PLOT_STRATEGIES; otherwise every strategy's metric, the last
 * strategy first, so that where lines overlap the delayed ones are on top. */
static int add_strategy_series(plot *p, const plot_spec *spec, const results *res,
                               lab_error *err)
{
    const run *runs = res->runs[spec->tensor];
    if (spec->metric != SCALE) {
        for (int s = N_STRATEGIES - 1; s >= 0; s--)
            if (add_floored(p, STRATEGIES[s].name, metric_of(&runs[s], spec->metric),
                            spec->floor, err) != 0)
                return -1;
        return 0;
    }
    if (add_floored(p, "amax", res->amax[spec->tensor], spec->floor, err) != 0)
        return -1;
    for (int i = 0; i < N_SCALE_PLOT_STRATEGIES; i++) {
        int s = SCALE_PLOT_STRATEGIES[i];
        char label[64];
        snprintf(label, sizeof label, "scale, %s", STRATEGIES[s].name);
        if (add_floored(p, label, runs[s].scale, spec->floor, err) != 0)
            return -1;
    }
    return 0;
}

static plot *make_plot(const char *stem, const plot_spec *spec, const results *res,
                       lab_error *err)
{
    plot *p = plot_new(stem, spec->title, "step", spec->ylabel, err);
    if (!p)
        return NULL;
    plot_set_log_y(p, spec->log_y);
    if (add_strategy_series(p, spec, res, err) != 0 || add_events(p, spec->tensor, err) != 0 ||
        (spec->floor > 0 && plot_set_yrange(p, spec->floor, NAN, err) != 0) ||
        plot_set_key(p, "below", err) != 0) {
        plot_free(p);
        return NULL;
    }
    return p;
}

/* Makes and renders plot i as DIR/name.png. Returns 0, PLOT_NO_GNUPLOT, or
 * -1 (message printed). */
static int draw_plot(int i, const results *res, demo_options *o)
{
    char stem[DEMO_STEM_SIZE];
    if (demo_stem(o, PLOTS[i].name, stem, sizeof stem) != 0)
        return -1;
    lab_error err = {{0}};
    plot *p = make_plot(stem, &PLOTS[i], res, &err); /* NULL: err says why */
    if (p)
        printf("Plot %d, %s:\n", i + 1, PLOTS[i].title);
    return demo_render(o, p, stem, PLOT_WIDTH, &err);
}

int main(int argc, char **argv)
{
    demo_options o;
    int rc = demo_parse_args(argc, argv, "lab1", ABOUT, DEFAULT_DIR, &o);
    if (rc != 0)
        return rc == 1 ? 0 : 2; /* 1: after --help */

    static results res;
    for (int k = 0; k < N_TENSORS; k++)
        res.ran[k] = run_tensor(k, res.amax[k], res.runs[k]);
    print_table(&res);
    print_lag(&res);

    for (int i = 0; i < N_PLOTS; i++)
        if (draw_plot(i, &res, &o) == -1)
            return 1;
    demo_note_no_gnuplot(&o); /* when gnuplot was missing */
    return 0;
}
