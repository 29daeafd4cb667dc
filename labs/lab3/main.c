/*
 * main.c - lab3's demo: an MLP trained on Fashion-MNIST in FP32 and in FP8,
 * side by side (README §9), with the lab3.c it is built with.
 *
 *   make lab3 && ./build/lab3/lab3     your lab3.c on the course's subset
 *                                      (build/lab3/plots)
 *   ./build/lab3/lab3 --full --epochs 15   the full set, as the handout runs it
 *   make plots                         the reference solution's plots
 *                                      (build/plots/lab3)
 *
 * Two 784 -> hidden (ReLU) -> 10 MLPs (model.h), one with every GEMM in FP32
 * and one with E4M3 forward and E5M2 backward casts under delayed scaling,
 * start from the same weights (one seed) and train on the same batches in
 * the same order, an epoch of one, then the same epoch of the other, with
 * lab3_train_step. Then it
 *
 *   1. prints a line per epoch and model: the mean training loss, the test
 *      accuracy (lab3_evaluate), the wall-clock time of the epoch's steps,
 *      the steps skipped for an inf or NaN gradient and the loss scale;
 *   2. prints a table: each model's final and best accuracy, mean epoch
 *      time, the FP8/FP32 time ratio (what emulating FP8 on a CPU costs:
 *      every cast runs fp8_encode and fp8_decode per element), skipped
 *      steps, and the six delayed scalers' final scales;
 *   3. draws loss (the training loss per step, smoothed), accuracy (test
 *      accuracy per epoch) and scales (the FP8 model's six scales per step);
 *   4. writes both models' trained weights as .npy (fp32_w1.npy ...), and
 *      the tensors one model's GEMMs saw at its first, middle and last step
 *      (capture_stepNNNNN_l1_x.npy ...): the FP32 model's unless
 *      --capture fp8. lab2's format recommender reads these; the set it is
 *      graded on, data/captures, is made by `make captures`.
 *
 * Each plot is written as DIR/NAME.png with the gnuplot script and data
 * beside it (DIR is build/lab3/plots unless -o says otherwise), and drawn
 * as text on the terminal unless --no-preview; the .npy files go to DIR too.
 * The command line's common part (-o, --no-preview, --help) and the drawing
 * are common/demo.c's; the training options are parsed here.
 *
 * Not for: grading. It shows whatever the functions do, skipping nothing
 * and saying when the training did nothing; `./grader lab3` says whether
 * they are right.
 */
#include "lab3.h"
#include "formats.h"
#include "model.h"
#include "demo.h"
#include "npy.h"
#include "plot.h"
#include "rng.h"

#include <cblas.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_DIR "build/lab3/plots"
#define DEFAULT_DATA "data/fashion-mnist"           /* the course's subset */
#define FULL_DATA "/usr/share/datasets/fashion-mnist" /* Debian's dataset-fashion-mnist */
#define PLOT_WIDTH 1400        /* of each PNG, in pixels */
#define SEED_STREAM 3          /* rng_seed(&rng, seed, SEED_STREAM): the weights */
#define SHUFFLE_STREAM 33      /* ... and the order of the batches */
#define SMOOTH_STEPS 50        /* the loss plot: the mean of the last this many steps */
#define N_CAPTURES 3           /* first, middle and last step (of --capture's model) */
#define MAX_MODELS KIND_COUNT  /* FP32 and FP8, or with --formats all five (formats.h) */

/* What the demo does, and its own options, for --help (common/demo.c prints
 * the usage line and the common options around it). */
static const char ABOUT[] =
    "Trains a 784 -> hidden -> 10 MLP on Fashion-MNIST twice, in FP32 and in\n"
    "FP8, from the same initial weights, with your lab3.c; prints the loss,\n"
    "test accuracy, time, skipped steps and loss scale of each epoch and a\n"
    "summary, draws three plots: loss, accuracy and scales (.png), and writes\n"
    "the trained weights (fp32_w1.npy ...) and one model's tensors at three\n"
    "steps for lab2's format recommender (capture_step*.npy) to DIR.\n"
    "Data that cannot be read (missing, corrupt) exits 1, naming the file.\n"
    "\n"
    "Training options, in any order with those below:\n"
    "  --data DIR        the Fashion-MNIST IDX files (default " DEFAULT_DATA ",\n"
    "                    the course's subset: 4000 training, 1000 test images)\n"
    "  --full            --data " FULL_DATA "\n"
    "                    (the full set, 60000 + 10000; `make deps` installs it)\n"
    "  --epochs N        passes over the training set (default 5)\n"
    "  --hidden H        units in the hidden layer (default 256)\n"
    "  --batch B         images per step (default 64)\n"
    "  --lr X            the SGD learning rate (default 0.05)\n"
    "  --lr-decay X      multiply the learning rate by X after each epoch\n"
    "                    (default 0.85; 1: constant)\n"
    "  --momentum X      the SGD momentum (default 0.9)\n"
    "  --seed N          the initial weights and the batches' order (default 1)\n"
    "  --threads N       threads OpenBLAS runs each GEMM on (default 1, or\n"
    "                    OPENBLAS_NUM_THREADS when that is set; README §9)\n"
    "  --capture MODEL   whose tensors capture_step*.npy hold: fp32 (the\n"
    "                    default, the reference run) or fp8 (what the casts saw)\n"
    "  --formats         train five models instead of two: FP32, BF16, FP16\n"
    "                    without loss scaling, FP16 with the GradScaler, FP8\n"
    "                    (README §10); adds what each gradient cast flushed to\n"
    "                    zero or overflowed, and a plot of it";

/* ---- the command line ---------------------------------------------------------- */

/* What to train, from the command line. */
typedef struct train_options {
    const char *data;
    int epochs;
    size_t hidden, batch;
    float lr, lr_decay, momentum;
    uint64_t seed;
    lab3_kind capture;      /* the model whose tensors are captured: KIND_FP32 or KIND_FP8 */
    int threads;            /* OpenBLAS's threads; 0: the default (blas_threads) */
    bool formats;           /* --formats: the five models of README §10 */
} train_options;

/* A number option: its name, its range, whether it must be whole, and an
 * example for the message when it is wrong. */
typedef struct number_option {
    const char *name;
    double lo, hi;
    bool whole;
    const char *example;
} number_option;

static const number_option NUMBER_OPTIONS[] = {
    {"--epochs", 1, 1000, true, "5"},
    {"--hidden", 1, 4096, true, "256"},
    {"--batch", 1, 4096, true, "64"},
    {"--lr", 1e-6, 10, false, "0.05"},
    {"--lr-decay", 1e-3, 1, false, "0.85"},
    {"--momentum", 0, 0.999, false, "0.9"},
    {"--seed", 0, 4294967295.0, true, "1"},
    {"--threads", 1, 256, true, "1"},
};
#define N_NUMBER_OPTIONS 8

/* s as a number in [opt->lo, opt->hi] (whole when opt->whole) into *v.
 * Returns 0, or 2 with a message on stderr. */
static int parse_number(const number_option *opt, const char *s, double *v)
{
    char *end = NULL;
    *v = s ? strtod(s, &end) : NAN;
    bool ok = s && end != s && *end == '\0' && *v >= opt->lo && *v <= opt->hi &&
              (!opt->whole || *v == floor(*v));
    if (ok)
        return 0;
    fprintf(stderr, "lab3: %s needs %s from %g to %g, e.g. %s %s%s%s%s\n", opt->name,
            opt->whole ? "a whole number" : "a number", opt->lo, opt->hi, opt->name,
            opt->example, s ? " (got '" : "", s ? s : "", s ? "')" : "");
    return 2;
}

static void set_number(train_options *t, const char *name, double v)
{
    if (!strcmp(name, "--epochs"))
        t->epochs = (int)v;
    else if (!strcmp(name, "--hidden"))
        t->hidden = (size_t)v;
    else if (!strcmp(name, "--batch"))
        t->batch = (size_t)v;
    else if (!strcmp(name, "--lr"))
        t->lr = (float)v;
    else if (!strcmp(name, "--lr-decay"))
        t->lr_decay = (float)v;
    else if (!strcmp(name, "--momentum"))
        t->momentum = (float)v;
    else if (!strcmp(name, "--threads"))
        t->threads = (int)v;
    else
        t->seed = (uint64_t)v;
}

/* Takes the training options out of argv into *t and copies the others, in
 * order, into rest (argv[0] first), for demo_parse_args: common/demo.c has
 * no hook for a lab's own options. The word after -o or --output is copied
 * as it is, whatever it looks like. Returns 0, or 2 with a message on stderr
 * (a number out of range, a missing value). */
static int take_train_args(int argc, char **argv, train_options *t, char **rest, int *n_rest)
{
    *t = (train_options){DEFAULT_DATA, 5, 256, 64, 0.05f, 0.85f, 0.9f, 1, KIND_FP32, 0, false};
    *n_rest = 0;
    rest[(*n_rest)++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const number_option *num = NULL;
        for (int k = 0; k < N_NUMBER_OPTIONS; k++)
            if (!strcmp(a, NUMBER_OPTIONS[k].name))
                num = &NUMBER_OPTIONS[k];
        if (num) {
            double v;
            if (parse_number(num, i + 1 < argc ? argv[++i] : NULL, &v) != 0)
                return 2;
            set_number(t, a, v);
        } else if (!strcmp(a, "--data")) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                fprintf(stderr, "lab3: --data needs a folder, e.g. --data %s\n", DEFAULT_DATA);
                return 2;
            }
            t->data = argv[++i];
        } else if (!strcmp(a, "--full")) {
            t->data = FULL_DATA;
        } else if (!strcmp(a, "--capture")) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "fp32") != 0 && strcmp(v, "fp8") != 0) {
                fprintf(stderr, "lab3: --capture needs fp32 or fp8 (got '%s')\n", v);
                return 2;
            }
            t->capture = !strcmp(v, "fp8") ? KIND_FP8 : KIND_FP32;
        } else if (!strcmp(a, "--formats")) {
            t->formats = true;
        } else {
            rest[(*n_rest)++] = argv[i];
            if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
                rest[(*n_rest)++] = argv[++i];
        }
    }
    rest[*n_rest] = NULL;
    return 0;
}

/* Sets the threads OpenBLAS runs each GEMM on, and returns how many: --threads
 * N; otherwise what OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS) told OpenBLAS;
 * otherwise 1. One is the default because a step's GEMMs are small (the
 * largest, 64 x 784 x 256, takes under half a millisecond on one core): a
 * second thread halves them on an idle machine, but on a busy one it waits
 * for a core, and the default must never be slower than one thread
 * (README §9 has the figures; tests/bench/bench_lab3.sh measures both). */
static int blas_threads(const train_options *t)
{
    int n = t->threads;
    if (n == 0)
        n = getenv("OPENBLAS_NUM_THREADS") || getenv("OMP_NUM_THREADS")
                ? openblas_get_num_threads()
                : 1;
    openblas_set_num_threads(n);
    return openblas_get_num_threads();
}

/* ---- the data ---------------------------------------------------------------------- */

/* Loads both splits from dir. Returns 0, or -1 with the loader's message
 * (it names the file) and where the data comes from printed. */
static int load_data(const char *dir, lab3_data *train, lab3_data *test)
{
    lab_error err = {{0}};
    if (lab3_data_load(dir, "train", train, &err) == 0) {
        if (lab3_data_load(dir, "t10k", test, &err) == 0)
            return 0;
        lab3_data_free(train);
    }
    fprintf(stderr,
            "lab3: %s\n"
            "lab3: the course's subset is %s, the default, a path from the\n"
            "      course's top folder: run from there, or give --data its path.\n"
            "      The full set (--full, %s) comes with\n"
            "      `make deps` (or `sudo apt-get install dataset-fashion-mnist`).\n",
            err.msg, DEFAULT_DATA, FULL_DATA);
    return -1;
}

/* The rows order[first .. first+batch-1] of d, gathered into x and y. */
static void gather(const lab3_data *d, const size_t *order, size_t first, size_t batch,
                   float *x, uint8_t *y)
{
    for (size_t r = 0; r < batch; r++) {
        size_t i = order[first + r];
        memcpy(x + r * LAB3_INPUTS, d->x + i * LAB3_INPUTS, LAB3_INPUTS * sizeof(float));
        y[r] = d->y[i];
    }
}

/* A fresh random order of 0 .. n-1 (Fisher-Yates). */
static void shuffle(rng_state *rng, size_t *order, size_t n)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_below(rng, (uint32_t)i);
        size_t tmp = order[i - 1];
        order[i - 1] = order[j];
        order[j] = tmp;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- what training recorded ----------------------------------------------------------- */

/* The models a run trains, in this order: FP32 and FP8, or with --formats
 * the five of formats.h. */
static const lab3_kind TWO[] = {KIND_FP32, KIND_FP8};
static const lab3_kind FIVE[] = {KIND_FP32, KIND_BF16, KIND_FP16, KIND_FP16_LS, KIND_FP8};

#define N_SCALERS 6
static const char *const SCALER_NAMES[N_SCALERS] = {"l1.sx", "l1.sw", "l1.sdy",
                                                    "l2.sx", "l2.sw", "l2.sdy"};

/* The six delayed scalers of m, in SCALER_NAMES's order. */
static void scalers_of(const lab3_mlp *m, const delayed_scaler *s[N_SCALERS])
{
    const delayed_scaler *all[N_SCALERS] = {&m->l1.sx, &m->l1.sw, &m->l1.sdy,
                                            &m->l2.sx, &m->l2.sw, &m->l2.sdy};
    memcpy(s, all, sizeof all);
}

/* The tensors one model's GEMMs saw at one step, the batch's rows only,
 * for lab2: per layer its weight before the step (what forward cast), its
 * input activation, and its output's gradient (in loss-scaled units, as the
 * cast sees it). Layer 1's input is the batch of images, layer 2's is a =
 * ReLU(h); layer 2's gradient is dlogits, layer 1's is dh. */
typedef struct capture {
    size_t step, batch;
    float loss_scale;   /* the step's loss scale: dy is in units of it */
    float *w[2], *x[2], *dy[2];
} capture;

/* Everything the run records; the arrays per step hold total_steps values. */
typedef struct history {
    int epochs;
    size_t steps_per_epoch, total_steps;
    int n;                              /* models */
    lab3_kind kind[MAX_MODELS];         /* model k's kind */
    int fp8;                            /* the FP8 model's index */
    bool formats;                       /* --formats: the casts' tallies are shown */
    double *loss[MAX_MODELS];           /* per step */
    double *flushed[MAX_MODELS];        /* per step: % of the gradients' nonzero elements
                                           the casts flushed to zero */
    double *scale[N_SCALERS];           /* per step: the FP8 model's, as the step used them */
    double *epoch_loss[MAX_MODELS];     /* per epoch: the mean over its steps */
    double *accuracy[MAX_MODELS];       /* per epoch: on the test set, in % */
    double *seconds[MAX_MODELS];        /* per epoch: the wall-clock time of its steps */
    size_t *skipped[MAX_MODELS];        /* per epoch */
    lab3_cast_tally *casts[MAX_MODELS]; /* per epoch: the gradient casts' tallies */
    bool changed[MAX_MODELS];           /* the weights moved in training */
    capture cap[N_CAPTURES];
    int n_captures;
    int capture_model;                  /* whose tensors cap holds (an index) */
} history;

/* Model k's name in the tables and plots. */
static const char *name_of(const history *h, int k)
{
    return lab3_kind_of(h->kind[k])->name;
}

static void history_free(history *h)
{
    for (int k = 0; k < MAX_MODELS; k++) {
        free(h->loss[k]);
        free(h->flushed[k]);
        free(h->casts[k]);
        free(h->epoch_loss[k]);
        free(h->accuracy[k]);
        free(h->seconds[k]);
        free(h->skipped[k]);
    }
    for (int s = 0; s < N_SCALERS; s++)
        free(h->scale[s]);
    for (int c = 0; c < N_CAPTURES; c++)
        for (int l = 0; l < 2; l++) {
            free(h->cap[c].w[l]);
            free(h->cap[c].x[l]);
            free(h->cap[c].dy[l]);
        }
    memset(h, 0, sizeof *h);
}

/* The capture steps: the first, the middle and the last, without repeats. */
static void plan_captures(history *h)
{
    size_t want[N_CAPTURES] = {0, h->total_steps / 2, h->total_steps - 1};
    for (int c = 0; c < N_CAPTURES; c++) {
        if (h->n_captures > 0 && h->cap[h->n_captures - 1].step == want[c])
            continue;
        h->cap[h->n_captures++].step = want[c];
    }
}

static int history_init(history *h, const train_options *t, size_t n_train)
{
    memset(h, 0, sizeof *h);
    h->epochs = t->epochs;
    h->formats = t->formats;
    h->n = t->formats ? (int)(sizeof FIVE / sizeof FIVE[0]) : (int)(sizeof TWO / sizeof TWO[0]);
    for (int k = 0; k < h->n; k++) {
        h->kind[k] = t->formats ? FIVE[k] : TWO[k];
        if (h->kind[k] == KIND_FP8)
            h->fp8 = k;
        if (h->kind[k] == t->capture)
            h->capture_model = k;
    }
    h->steps_per_epoch = (n_train + t->batch - 1) / t->batch;
    h->total_steps = h->steps_per_epoch * (size_t)t->epochs;
    size_t e = (size_t)t->epochs, n = h->total_steps;
    bool ok = true;
    for (int k = 0; k < h->n; k++) {
        ok = ok && (h->loss[k] = calloc(n, sizeof(double))) &&
             (h->flushed[k] = calloc(n, sizeof(double))) &&
             (h->casts[k] = calloc(e, sizeof(lab3_cast_tally))) &&
             (h->epoch_loss[k] = calloc(e, sizeof(double))) &&
             (h->accuracy[k] = calloc(e, sizeof(double))) &&
             (h->seconds[k] = calloc(e, sizeof(double))) &&
             (h->skipped[k] = calloc(e, sizeof(size_t)));
    }
    for (int s = 0; s < N_SCALERS; s++)
        ok = ok && (h->scale[s] = calloc(n, sizeof(double)));
    plan_captures(h);
    for (int c = 0; c < h->n_captures; c++) {
        capture *cp = &h->cap[c];
        size_t sizes[2][3] = {{t->hidden * LAB3_INPUTS, t->batch * LAB3_INPUTS,
                               t->batch * t->hidden},
                              {LAB3_CLASSES * t->hidden, t->batch * t->hidden,
                               t->batch * LAB3_CLASSES}};
        for (int l = 0; l < 2; l++)
            ok = ok && (cp->w[l] = calloc(sizes[l][0], sizeof(float))) &&
                 (cp->x[l] = calloc(sizes[l][1], sizeof(float))) &&
                 (cp->dy[l] = calloc(sizes[l][2], sizeof(float)));
    }
    if (!ok) {
        fprintf(stderr, "lab3: out of memory for %zu steps\n", n);
        history_free(h);
        return -1;
    }
    return 0;
}

/* The capture planned at step, or NULL. */
static capture *capture_at(history *h, size_t step)
{
    for (int c = 0; c < h->n_captures; c++)
        if (h->cap[c].step == step)
            return &h->cap[c];
    return NULL;
}

/* ---- training ---------------------------------------------------------------------------- */

/* The state of the run: both models, the data, a batch's buffers. */
typedef struct run {
    int n;                   /* models, as in history */
    lab3_mlp model[MAX_MODELS];
    lab3_wide_buffers wide;  /* the 16-bit models' rounded operands */
    float *w1_initial;       /* layer 1's initial weights, to see whether they moved */
    const lab3_data *train, *test;
    size_t *order;           /* this epoch's order of the training images */
    float *xb;               /* batch x LAB3_INPUTS */
    uint8_t *yb;
} run;

static void run_free(run *r)
{
    for (int k = 0; k < r->n; k++)
        lab3_mlp_free(&r->model[k]);
    lab3_wide_buffers_free(&r->wide);
    free(r->w1_initial);
    free(r->order);
    free(r->xb);
    free(r->yb);
}

/* Every model of h from the same seed (so the same initial weights), and
 * the buffers. Returns 0, or -1 with a message printed. */
static int run_init(run *r, const train_options *t, const history *h, const lab3_data *train,
                    const lab3_data *test)
{
    memset(r, 0, sizeof *r);
    r->train = train;
    r->test = test;
    bool ok = true;
    for (int k = 0; k < h->n && ok; k++) {
        const lab3_kind_info *ki = lab3_kind_of(h->kind[k]);
        rng_state rng;
        rng_seed(&rng, t->seed, SEED_STREAM);
        ok = lab3_mlp_init(&r->model[k], ki->mode, t->hidden, t->batch, t->lr, t->momentum,
                           &rng) == 0;
        r->n = k + 1; /* what run_free frees */
        if (ok && !ki->loss_scaling)
            lab3_no_loss_scaling(&r->model[k]);
    }
    ok = ok && (!t->formats || lab3_wide_buffers_init(&r->wide, t->hidden, t->batch) == 0);
    size_t nw = t->hidden * LAB3_INPUTS;
    ok = ok && (r->w1_initial = malloc(nw * sizeof(float))) &&
         (r->order = malloc(train->n * sizeof(size_t))) &&
         (r->xb = malloc(t->batch * LAB3_INPUTS * sizeof(float))) &&
         (r->yb = malloc(t->batch));
    if (!ok) {
        fprintf(stderr, "lab3: out of memory for the models (hidden %zu, batch %zu)\n",
                t->hidden, t->batch);
        run_free(r);
        return -1;
    }
    memcpy(r->w1_initial, r->model[h->fp8].l1.w, nw * sizeof(float));
    return 0;
}

/* Copies what the cast saw at this step into cp; w1, w2 are the weights
 * from before the step (the step has updated the model's since). */
static void take_capture(capture *cp, const lab3_mlp *m, const float *x, size_t batch)
{
    size_t hid = m->hidden;
    cp->batch = batch;
    memcpy(cp->x[0], x, batch * LAB3_INPUTS * sizeof(float));
    memcpy(cp->x[1], m->a, batch * hid * sizeof(float));
    memcpy(cp->dy[0], m->dh, batch * hid * sizeof(float));
    memcpy(cp->dy[1], m->dlogits, batch * LAB3_CLASSES * sizeof(float));
}

/* One epoch of model k over r->order, into h: each step's loss (and the FP8
 * model's scales), the epoch's mean loss, skipped steps and wall-clock time
 * (of its steps, gathering the batches included; evaluation comes after). */
static void train_epoch(run *r, int k, int epoch, history *h)
{
    lab3_mlp *m = &r->model[k];
    const lab3_kind_info *ki = lab3_kind_of(h->kind[k]);
    lab3_cast_tally *epoch_casts = &h->casts[k][epoch];
    size_t n = r->train->n, batch = m->max_batch;
    const delayed_scaler *sc[N_SCALERS];
    scalers_of(m, sc);
    double loss_sum = 0.0;
    size_t steps = 0, skipped = 0;
    double t0 = now_s();
    for (size_t first = 0; first < n; first += batch, steps++) {
        size_t b = n - first < batch ? n - first : batch;
        size_t step = (size_t)epoch * h->steps_per_epoch + steps;
        gather(r->train, r->order, first, b, r->xb, r->yb);
        capture *cp = k == h->capture_model ? capture_at(h, step) : NULL;
        if (cp) {
            memcpy(cp->w[0], m->l1.w, m->hidden * LAB3_INPUTS * sizeof(float));
            memcpy(cp->w[1], m->l2.w, LAB3_CLASSES * m->hidden * sizeof(float));
            cp->loss_scale = m->gs.scale;
        }
        if (k == h->fp8)
            for (int s = 0; s < N_SCALERS; s++)
                h->scale[s][step] = sc[s]->scale;
        lab3_cast_tally c = {0, 0, 0};
        lab3_step st;
        if (ki->wide) {
            st = lab3_wide_step(m, ki->fmt, r->xb, r->yb, b, &r->wide, &c);
        } else {
            float s1 = m->l1.sdy.scale, s2 = m->l2.sdy.scale;
            st = lab3_train_step(m, r->xb, r->yb, b);
            if (ki->mode == LAB3_FP8)
                lab3_tally_fp8(m, b, s1, s2, &c);
        }
        h->flushed[k][step] = c.nonzero ? 100.0 * (double)c.flushed / (double)c.nonzero : 0.0;
        epoch_casts->nonzero += c.nonzero;
        epoch_casts->flushed += c.flushed;
        epoch_casts->overflowed += c.overflowed;
        if (cp)
            take_capture(cp, m, r->xb, b);
        h->loss[k][step] = st.loss;
        loss_sum += st.loss;
        skipped += st.skipped;
    }
    double seconds = now_s() - t0;
    h->epoch_loss[k][epoch] = loss_sum / (double)steps;
    h->skipped[k][epoch] = skipped;
    h->seconds[k][epoch] = seconds;
}

/* A loss scale as "2^16" when it is a power of two, as GradScaler's are;
 * otherwise as %g. */
static const char *pow2_text(float v, char *buf, size_t size)
{
    int e;
    if (isfinite(v) && v > 0 && frexpf(v, &e) == 0.5f)
        snprintf(buf, size, "2^%d", e - 1);
    else
        snprintf(buf, size, "%g", (double)v);
    return buf;
}

/* The mode column's width: "FP16+LS" with --formats. */
static int mode_width(const history *h)
{
    return h->formats ? 7 : 4;
}

/* A gradient cast's percentage of flushed elements. */
static double flushed_pct(const lab3_cast_tally *c)
{
    return c->nonzero ? 100.0 * (double)c->flushed / (double)c->nonzero : 0.0;
}

static void print_epoch_header(const history *h)
{
    printf("  %5s  %-*s  %10s  %13s  %8s  %7s  %10s  %8s", "epoch", mode_width(h), "mode",
           "train loss", "test acc (%)", "time (s)", "skipped", "loss scale", "lr");
    if (h->formats)
        printf("  %11s  %10s", "flushed (%)", "overflowed");
    printf("\n");
}

static void print_epoch_line(const run *r, const history *h, int k, int e)
{
    const lab3_mlp *m = &r->model[k];
    double loss = h->epoch_loss[k][e];
    char scale[32];
    /* A loss that ran away (1e17, from gradients left loss-scaled) keeps the
     * column's width. */
    printf(fabs(loss) < 1e5 ? "  %5d  %-*s  %10.4f" : "  %5d  %-*s  %10.3g", e + 1,
           mode_width(h), name_of(h, k), loss);
    printf("  %13.2f  %8.2f  %7zu  %10s  %8.4g", h->accuracy[k][e], h->seconds[k][e],
           h->skipped[k][e], pow2_text(m->gs.scale, scale, sizeof scale), (double)m->lr);
    if (h->formats)
        printf("  %11.4f  %10zu", flushed_pct(&h->casts[k][e]), h->casts[k][e].overflowed);
    printf("\n");
    fflush(stdout); /* a line as each epoch ends, also into a pipe */
}

/* Every epoch: a new order of the images, then that epoch of each model in
 * turn (so a change in the machine's load falls on both), its test
 * accuracy, and its line. */
static void train_all(run *r, const train_options *t, history *h, int threads)
{
    rng_state rng;
    rng_seed(&rng, t->seed, SHUFFLE_STREAM);
    printf("Training on %zu images (%zu steps of %zu an epoch, the last %zu), testing on\n"
           "%zu; hidden %zu, lr %g, momentum %g, lr decay %g an epoch, seed %llu.\n"
           "Time: the wall clock over an epoch's steps (evaluation not counted), the\n"
           "GEMMs on %d thread%s (--threads).\n\n",
           r->train->n, h->steps_per_epoch, t->batch,
           r->train->n - (h->steps_per_epoch - 1) * t->batch, r->test->n, t->hidden,
           (double)t->lr, (double)t->momentum, (double)t->lr_decay,
           (unsigned long long)t->seed, threads, threads == 1 ? "" : "s");
    if (h->formats)
        printf("flushed: the share of the gradients' nonzero elements (dlogits and dh,\n"
               "as the casts saw them) that a cast made zero; overflowed: how many it made\n"
               "inf (FP8, which saturates: how many were past its max). README §10.\n\n");
    print_epoch_header(h);
    for (int e = 0; e < t->epochs; e++) {
        shuffle(&rng, r->order, r->train->n);
        for (int k = 0; k < h->n; k++) {
            train_epoch(r, k, e, h);
            lab3_mlp *m = &r->model[k];
            h->accuracy[k][e] = 100.0 * lab3_evaluate(m, r->test->x, r->test->y, r->test->n);
            print_epoch_line(r, h, k, e);
            m->lr = m->lr * t->lr_decay; /* for the next epoch */
        }
    }
    size_t nw = t->hidden * LAB3_INPUTS;
    for (int k = 0; k < h->n; k++)
        h->changed[k] = memcmp(r->model[k].l1.w, r->w1_initial, nw * sizeof(float)) != 0;
    printf("\n");
}

/* ---- the tables --------------------------------------------------------------------- */

static double mean_of(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return n > 0 ? s / n : NAN;
}

/* The largest of v[0..n-1], NaN when any is NaN. */
static double max_of(const double *v, int n)
{
    double best = -INFINITY;
    for (int i = 0; i < n; i++)
        best = isnan(v[i]) || isnan(best) ? NAN : fmax(best, v[i]);
    return best;
}

static size_t sum_of(const size_t *v, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* Says so when the training did nothing or went wrong, as with functions
 * not written yet. */
static void print_notes(const history *h)
{
    bool all_zero = true, any_nonfinite = false, all_changed = true;
    for (int k = 0; k < h->n; k++)
        all_changed = all_changed && h->changed[k];
    for (int k = 0; k < h->n; k++)
        for (size_t i = 0; i < h->total_steps; i++) {
            all_zero = all_zero && h->loss[k][i] == 0.0;
            any_nonfinite = any_nonfinite || !isfinite(h->loss[k][i]);
        }
    if (all_zero)
        printf("Note: every step's loss was 0: lab3_train_step (README §8) or\n"
               "lab3_softmax_xent (§5) is not written yet.\n");
    if (!all_changed) {
        printf("Note: training did not change the weights of the");
        for (int k = 0, said = 0; k < h->n; k++)
            if (!h->changed[k])
                printf("%s %s", said++ ? "," : "", name_of(h, k));
        printf(" model, so\n"
               "the accuracy is the untrained model's (about 10%%; an unwritten\n"
               "forward leaves logits of 0, which picks class 0): lab3_train_step\n"
               "(README §8) or lab3_sgd_step (§7) is not written yet, or every step\n"
               "was skipped.\n");
    }
    if (any_nonfinite)
        printf("Note: a step's loss was inf or NaN: see README §5 (the max\n"
               "subtracted before exponentiating) and §6 (skipped steps).\n");
    if (all_zero || !all_changed || any_nonfinite)
        printf("\n");
}

static void print_summary(const run *r, const history *h)
{
    int e = h->epochs;
    const int w = mode_width(h), fp8 = h->fp8; /* FP32 is model 0 */
    double sec32 = mean_of(h->seconds[0], e);
    printf("Summary after %d epoch%s (accuracy on the %zu test images):\n\n", e,
           e == 1 ? "" : "s", r->test->n);
    printf("  %-*s  %9s  %9s  %11s  %12s  %13s\n", w, "", "final", "best", "mean epoch",
           "epoch time", "skipped steps");
    printf("  %-*s  %9s  %9s  %11s  %12s  %13s\n", w, "mode", "acc (%)", "acc (%)", "time (s)",
           "vs FP32", "(of all)");
    for (int k = 0; k < h->n; k++) {
        double sec = mean_of(h->seconds[k], e);
        char skipped[48];
        snprintf(skipped, sizeof skipped, "%zu/%zu", sum_of(h->skipped[k], e), h->total_steps);
        printf("  %-*s  %9.2f  %9.2f  %11.3f  %11.2fx  %13s\n", w, name_of(h, k),
               h->accuracy[k][e - 1], max_of(h->accuracy[k], e), sec, sec / sec32, skipped);
    }
    printf("\n");
    for (int k = 1; k < h->n; k++)
        printf("  %s - FP32: %+.2f points final, %+.2f points best.\n", name_of(h, k),
               h->accuracy[k][e - 1] - h->accuracy[0][e - 1],
               max_of(h->accuracy[k], e) - max_of(h->accuracy[0], e));
    printf("  The time ratio is what emulating %s costs on a CPU: each cast rounds\n"
           "  every element to the format and back in software, and the products are\n"
           "  FP32 GEMMs either way; on a GPU the %s GEMM itself is the faster one.\n\n",
           h->formats ? "a format" : "FP8", h->formats ? "low-precision" : "FP8");
    if (h->formats) {
        printf("The gradient casts (dlogits and dh, in loss-scaled units):\n\n");
        printf("  %-*s  %11s  %11s  %11s  %11s  %12s\n", w, "", "flushed (%)", "flushed (%)",
               "flushed (%)", "flushed (%)", "overflowed");
        printf("  %-*s  %11s  %11s  %11s  %11s  %12s\n", w, "mode", "first step", "epoch 1",
               "last epoch", "last step", "(elements)");
        for (int k = 0; k < h->n; k++) {
            size_t over = 0;
            for (int i = 0; i < e; i++)
                over += h->casts[k][i].overflowed;
            printf("  %-*s  %11.4f  %11.4f  %11.4f  %11.4f  %12zu\n", w, name_of(h, k),
                   h->flushed[k][0], flushed_pct(&h->casts[k][0]),
                   flushed_pct(&h->casts[k][e - 1]), h->flushed[k][h->total_steps - 1], over);
        }
        printf("\n  FP32 casts nothing. BF16 has float's exponent range; FP16's smallest\n"
               "  subnormal is 2^-24 (5.96e-08) and it flushes below half of that unless\n"
               "  the loss scale lifts the gradients; FP8 scales each tensor (E5M2: 2^-16\n"
               "  = 1.53e-05 after its scale). README §10.\n\n");
    }

    printf("Final scales (the FP32 model casts nothing: its scalers stay fresh, 1):\n\n");
    printf("  %-*s", w, "mode");
    for (int s = 0; s < N_SCALERS; s++)
        printf("  %10s", SCALER_NAMES[s]);
    printf("  %10s\n", "loss scale");
    for (int k = 0; k < h->n; k++) {
        if (k != 0 && k != fp8)
            continue; /* the 16-bit models have no delayed scalers */
        const delayed_scaler *sc[N_SCALERS];
        scalers_of(&r->model[k], sc);
        printf("  %-*s", w, name_of(h, k));
        for (int s = 0; s < N_SCALERS; s++)
            printf("  %10.4g", (double)sc[s]->scale);
        char scale[32];
        printf("  %10s\n", pow2_text(r->model[k].gs.scale, scale, sizeof scale));
    }
    printf("\n  sx, sw: E4M3 (max 448) for the input and the weight; sdy: E5M2 (max\n"
           "  57344) for the output's gradient, in loss-scaled units. scale =\n"
           "  fp8_max / the largest amax of the last 16 steps (lab1's README §5, §6).\n\n");
}

/* ---- the plots ------------------------------------------------------------------------ */

/* Adds, for models first .. h->n - 1, per-step values v[k] as the mean of
 * the last SMOOTH_STEPS steps against the epoch (step / steps per epoch). */
static int add_smoothed(plot *p, const history *h, double *const *v, int first,
                        lab_error *err)
{
    size_t n = h->total_steps;
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    int rc = x && y ? 0 : lab_errorf(err, "lab3: out of memory for a plot");
    for (int k = first; k < h->n && rc == 0; k++) {
        double sum = 0.0;
        for (size_t i = 0; i < n; i++) {
            sum += v[k][i];
            if (i >= SMOOTH_STEPS)
                sum -= v[k][i - SMOOTH_STEPS];
            size_t w = i + 1 < SMOOTH_STEPS ? i + 1 : SMOOTH_STEPS;
            x[i] = (double)(i + 1) / (double)h->steps_per_epoch;
            y[i] = sum / (double)w;
        }
        rc = plot_add_series(p, name_of(h, k), x, y, n, err);
    }
    free(x);
    free(y);
    return rc;
}

/* loss: each model's training loss per step, smoothed. */
static int fill_loss(plot *p, const history *h, lab_error *err)
{
    return add_smoothed(p, h, h->loss, 0, err);
}

/* flushed: each model's share of flushed gradient elements per step,
 * smoothed (FP32, model 0, which casts nothing, left out). */
static int fill_flushed(plot *p, const history *h, lab_error *err)
{
    int rc = add_smoothed(p, h, h->flushed, 1, err);
    return rc == 0 ? plot_set_key(p, "top left", err) : rc;
}

/* accuracy: each model's test accuracy after each epoch. */
static int fill_accuracy(plot *p, const history *h, lab_error *err)
{
    double *x = malloc((size_t)h->epochs * sizeof(double));
    if (!x)
        return lab_errorf(err, "lab3: out of memory for the accuracy plot");
    for (int e = 0; e < h->epochs; e++)
        x[e] = e + 1;
    int rc = 0;
    for (int k = 0; k < h->n && rc == 0; k++)
        rc = plot_add_series(p, name_of(h, k), x, h->accuracy[k], (size_t)h->epochs, err);
    free(x);
    return rc == 0 ? plot_set_key(p, "bottom right", err) : rc; /* accuracy rises */
}

/* scales: the FP8 model's six scales per step, as each step's casts used
 * them, log y. */
static int fill_scales(plot *p, const history *h, lab_error *err)
{
    plot_set_log_y(p, true);
    for (int s = 0; s < N_SCALERS; s++)
        if (plot_add_series(p, SCALER_NAMES[s], NULL, h->scale[s], h->total_steps, err) != 0)
            return -1;
    return plot_set_key(p, "below", err);
}

typedef struct plot_spec {
    const char *name;
    const char *title;
    const char *formats_title; /* with --formats; NULL: the plot is only drawn without */
    const char *xlabel;
    const char *ylabel;
    int (*fill)(plot *p, const history *h, lab_error *err);
} plot_spec;

static const plot_spec PLOTS[] = {
    {"loss", "Training loss, FP32 and FP8 (the mean of the last 50 steps)",
     "Training loss of each format (the mean of the last 50 steps)",
     "epoch (steps / steps per epoch)", "cross-entropy loss (mean over the batch)", fill_loss},
    {"accuracy", "Test accuracy after each epoch, FP32 and FP8",
     "Test accuracy after each epoch, each format", "epoch", "test accuracy (%)",
     fill_accuracy},
    {"scales", "The FP8 model's six delayed scales, as each step's casts used them",
     "The FP8 model's six delayed scales, as each step's casts used them", "training step",
     "scale (log scale; E4M3: 448 / amax, E5M2: 57344 / amax)", fill_scales},
    {"flushed", NULL,
     "Gradient elements each cast flushed to zero (the mean of the last 50 steps)",
     "epoch (steps / steps per epoch)", "nonzero elements of dlogits and dh made 0 (%)",
     fill_flushed},
};
#define N_PLOTS 4

/* Makes and renders plot i as DIR/name.png. Returns 0, PLOT_NO_GNUPLOT, or
 * -1 (message printed). */
static int draw_plot(int i, const history *h, demo_options *o)
{
    const char *title = h->formats ? PLOTS[i].formats_title : PLOTS[i].title;
    if (!title)
        return 0; /* not this run's */
    char stem[DEMO_STEM_SIZE];
    if (demo_stem(o, PLOTS[i].name, stem, sizeof stem) != 0)
        return -1;
    lab_error err = {{0}};
    plot *p = plot_new(stem, title, PLOTS[i].xlabel, PLOTS[i].ylabel, &err);
    if (p && PLOTS[i].fill(p, h, &err) != 0) {
        plot_free(p);
        p = NULL; /* err says why */
    }
    if (p)
        printf("Plot %d, %s:\n", i + 1, title);
    return demo_render(o, p, stem, PLOT_WIDTH, &err);
}

/* ---- the .npy files ----------------------------------------------------------------- */

/* Writes DIR/name as a float32 array of shape rows x cols (cols 0: a
 * vector of rows). Returns 0, or -1 with a message on stderr. */
static int save(const demo_options *o, const char *name, const float *v, size_t rows,
                size_t cols)
{
    char path[DEMO_STEM_SIZE];
    if (demo_stem(o, name, path, sizeof path) != 0)
        return -1;
    size_t shape[2] = {rows, cols};
    lab_error err = {{0}};
    if (npy_save(path, NPY_F32, cols ? 2 : 1, shape, v, &err) != 0) {
        fprintf(stderr, "lab3: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Each model's trained weights: fp32_w1.npy (hidden x 784), fp32_b1.npy,
 * fp32_w2.npy (10 x hidden), fp32_b2.npy, and fp8_* (with --formats also
 * bf16_*, fp16_*, fp16ls_*). */
static int save_weights(const demo_options *o, const run *r, const history *h)
{
    char name[64];
    for (int k = 0; k < h->n; k++) {
        const char *prefix = lab3_kind_of(h->kind[k])->prefix;
        const lab3_mlp *m = &r->model[k];
        const lab3_linear *l[2] = {&m->l1, &m->l2};
        for (int i = 0; i < 2; i++) {
            snprintf(name, sizeof name, "%s_w%d.npy", prefix, i + 1);
            if (save(o, name, l[i]->w, l[i]->out, l[i]->in) != 0)
                return -1;
            snprintf(name, sizeof name, "%s_b%d.npy", prefix, i + 1);
            if (save(o, name, l[i]->b, l[i]->out, 0) != 0)
                return -1;
        }
    }
    return 0;
}

/* The captures, for lab2's format recommender: capture_stepNNNNN_lL_w.npy
 * (out x in), _x.npy (batch x in), _dy.npy (batch x out) for L = 1, 2. */
static int save_captures(const demo_options *o, const history *h, size_t hidden)
{
    size_t in[2] = {LAB3_INPUTS, hidden}, out[2] = {hidden, LAB3_CLASSES};
    char name[64];
    for (int c = 0; c < h->n_captures; c++) {
        const capture *cp = &h->cap[c];
        for (int l = 0; l < 2; l++) {
            snprintf(name, sizeof name, "capture_step%05zu_l%d_w.npy", cp->step, l + 1);
            if (save(o, name, cp->w[l], out[l], in[l]) != 0)
                return -1;
            snprintf(name, sizeof name, "capture_step%05zu_l%d_x.npy", cp->step, l + 1);
            if (save(o, name, cp->x[l], cp->batch, in[l]) != 0)
                return -1;
            snprintf(name, sizeof name, "capture_step%05zu_l%d_dy.npy", cp->step, l + 1);
            if (save(o, name, cp->dy[l], cp->batch, out[l]) != 0)
                return -1;
        }
    }
    return 0;
}

static int save_all(const demo_options *o, const run *r, const history *h)
{
    if (save_weights(o, r, h) != 0 || save_captures(o, h, r->model[h->fp8].hidden) != 0)
        return -1;
    printf("Wrote to %s:\n"
           "  fp32_w1.npy, fp32_b1.npy, fp32_w2.npy, fp32_b2.npy  the FP32 model's trained\n"
           "      weights (w1: %zu x %d, w2: %d x %zu; float32), and fp8_*.npy the FP8 model's;\n%s"
           "  capture_stepNNNNN_l{1,2}_{w,x,dy}.npy  for lab2's format recommender, which\n"
           "      reads these: what the %s model's GEMMs saw at steps",
           o->dir, r->model[h->fp8].hidden, LAB3_INPUTS, LAB3_CLASSES, r->model[h->fp8].hidden,
           h->formats ? "  bf16_*, fp16_*, fp16ls_*.npy  the 16-bit models' trained weights;\n" : "",
           name_of(h, h->capture_model));
    for (int c = 0; c < h->n_captures; c++)
        printf("%s %zu", c == 0 ? "" : c + 1 == h->n_captures ? " and" : ",", h->cap[c].step);
    printf(",\n"
           "      in FP32 (what a cast to FP8 would see), per layer: w the weight (out x in), x the input\n"
           "      (batch x in), dy the output's gradient (batch x out) times the loss scale\n"
           "      (");
    for (int c = 0; c < h->n_captures; c++) {
        char scale[32];
        printf("%s%s", c == 0 ? "" : ", ", pow2_text(h->cap[c].loss_scale, scale, sizeof scale));
    }
    printf(" at those steps).\n");
    return 0;
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    train_options t;
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    int n_rest = 0;
    if (!rest) {
        fprintf(stderr, "lab3: out of memory\n");
        return 1;
    }
    int rc = take_train_args(argc, argv, &t, rest, &n_rest);
    demo_options o;
    if (rc == 0)
        rc = demo_parse_args(n_rest, rest, "lab3", ABOUT, DEFAULT_DIR, &o);
    free(rest);
    if (rc != 0)
        return rc == 1 ? 0 : 2; /* 1: after --help */

    lab3_data train, test;
    if (load_data(t.data, &train, &test) != 0)
        return 1;
    printf("Fashion-MNIST from %s: %zu training and %zu test images.\n", t.data, train.n,
           test.n);
    run r;
    history h;
    rc = 1;
    if (history_init(&h, &t, train.n) != 0)
        goto out_data;
    if (run_init(&r, &t, &h, &train, &test) != 0)
        goto out_history;

    train_all(&r, &t, &h, blas_threads(&t));
    print_notes(&h);
    print_summary(&r, &h);
    for (int i = 0; i < N_PLOTS; i++)
        if (draw_plot(i, &h, &o) == -1)
            goto out_run;
    if (save_all(&o, &r, &h) != 0)
        goto out_run;
    demo_note_no_gnuplot(&o); /* when gnuplot was missing */
    rc = 0;
out_run:
    run_free(&r);
out_history:
    history_free(&h);
out_data:
    lab3_data_free(&train);
    lab3_data_free(&test);
    return rc;
}
