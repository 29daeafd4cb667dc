/*
 * main.c - lab4's demo: MX block scaling against one scale per tensor on
 * tensors with outliers (README §8), computed with the lab4.c it is built
 * with.
 *
 *   make lab4 && ./build/lab4/lab4     your lab4.c (build/lab4/plots)
 *   make plots                         the reference solution's plots
 *                                      (build/plots/lab4)
 *
 * Three ROWS x COLS tensors, made from one seed, each from the one before:
 * "gaussian" (N(0, 1)), "outliers" (the same, with 0.1% of its elements
 * multiplied by 100, as in LLM activations) and "channels" (the outliers
 * tensor with each row multiplied by 2^u, u uniform in [-8, 8]: rows of very
 * different magnitude). Lab3's real tensors are not in the course yet; these
 * stand in for them. Each scheme of SCHEMES quantizes and dequantizes every
 * tensor: one E4M3 scale for the whole tensor, MX with each element format
 * and both scale rules (README §3), MX with four block sizes, and NVFP4
 * (§7). Then it
 *
 *   1. works the handout's block (README §3) with lab4_mx_quantize under
 *      both scale rules: the scale, each element's code and value, the error;
 *   2. prints a table, one row per scheme: bits per element (scales
 *      included), the SQNR of x against dequantize(quantize(x)) on each
 *      tensor, and the elements clipped on "outliers";
 *   3. prints, for "channels", each scheme's SQNR on its worst and its
 *      median row;
 *   4. draws sqnr_bits (SQNR against bits per element, "outliers"),
 *      block_error (SQNR against block size, "channels") and row_error
 *      (the rows of "channels" grouped by magnitude, each group's median
 *      row SQNR).
 *
 * Each plot is written as DIR/NAME.png with the gnuplot script and data
 * beside it (DIR is build/lab4/plots unless -o says otherwise), and drawn
 * as text on the terminal unless --no-preview. The command line and the
 * drawing are common/demo.c's, the same in every lab's demo.
 *
 * Not for: grading. It shows whatever the functions do, garbage included,
 * and never trusts what they return to be in range; `./grader lab4` says
 * whether they are right.
 */
#include "lab4.h"
#include "demo.h"
#include "plot.h"
#include "rng.h"
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DIR "build/lab4/plots"
#define PLOT_WIDTH 1400           /* of each PNG, in pixels */
#define ROWS 256
#define COLS 1024
#define N_ELEMS (ROWS * COLS)
#define SEED 4                    /* rng_seed(&rng, SEED, SEED_STREAM) */
#define SEED_STREAM 8
#define OUTLIER_ONE_IN 1000       /* each element is an outlier with p = 1/1000 */
#define OUTLIER_FACTOR 100.0f     /* ... and multiplied by this */
#define ROW_LOG2_MAX 8.0f         /* channels: row r times 2^u[r], |u| <= this */
#define MIN_BLOCK LAB4_NVFP4_BLOCK
#define MAX_SCALES (N_ELEMS / MIN_BLOCK) /* scales of the smallest block */

/* ---- the tensors ----------------------------------------------------------- */

static const char *const TENSOR_NAMES[] = {"gaussian", "outliers", "channels"};
#define N_TENSORS 3
#define GAUSSIAN 0
#define OUTLIERS 1
#define CHANNELS 2

typedef struct tensors {
    float x[N_TENSORS][N_ELEMS];
    float row_log2[ROWS]; /* channels: u[r], row r was multiplied by 2^u[r] */
    size_t outliers;      /* how many elements were multiplied by OUTLIER_FACTOR */
} tensors;

static void make_tensors(tensors *t)
{
    rng_state rng;
    rng_seed(&rng, SEED, SEED_STREAM);
    rng_fill_normal(&rng, t->x[GAUSSIAN], N_ELEMS, 0.0f, 1.0f);
    t->outliers = 0;
    for (size_t i = 0; i < N_ELEMS; i++) {
        bool outlier = rng_below(&rng, OUTLIER_ONE_IN) == 0;
        t->x[OUTLIERS][i] = outlier ? t->x[GAUSSIAN][i] * OUTLIER_FACTOR : t->x[GAUSSIAN][i];
        t->outliers += outlier;
    }
    rng_fill_uniform(&rng, t->row_log2, ROWS, -ROW_LOG2_MAX, ROW_LOG2_MAX);
    for (size_t r = 0; r < ROWS; r++) {
        float row_scale = exp2f(t->row_log2[r]);
        for (size_t c = 0; c < COLS; c++)
            t->x[CHANNELS][r * COLS + c] = t->x[OUTLIERS][r * COLS + c] * row_scale;
    }
}

/* ---- the schemes ----------------------------------------------------------- */

typedef enum kind { PER_TENSOR, MX, NVFP4 } kind;

/* A way to quantize a tensor; the fields its kind does not read are 0. */
typedef struct scheme {
    const char *name;
    kind kind;
    fp8_format elem;      /* the element format (NVFP4: always E2M1) */
    lab4_scale_rule rule; /* MX */
    size_t block;         /* MX, NVFP4: elements per scale */
} scheme;

static const scheme SCHEMES[] = {
    {"per-tensor FP8 E4M3", PER_TENSOR, FP8_E4M3, LAB4_SCALE_FLOOR, 0},
    {"MXFP8 E4M3 floor, block 32", MX, FP8_E4M3, LAB4_SCALE_FLOOR, 32},
    {"MXFP8 E4M3 ceil, block 32", MX, FP8_E4M3, LAB4_SCALE_CEIL, 32},
    {"MXFP8 E5M2 floor, block 32", MX, FP8_E5M2, LAB4_SCALE_FLOOR, 32},
    {"MXFP6 E3M2 floor, block 32", MX, FP8_E3M2, LAB4_SCALE_FLOOR, 32},
    {"MXFP6 E2M3 floor, block 32", MX, FP8_E2M3, LAB4_SCALE_FLOOR, 32},
    {"MXFP4 E2M1 floor, block 32", MX, FP8_E2M1, LAB4_SCALE_FLOOR, 32},
    {"MXFP4 E2M1 ceil, block 32", MX, FP8_E2M1, LAB4_SCALE_CEIL, 32},
    {"NVFP4 E2M1, E4M3 scale, block 16", NVFP4, FP8_E2M1, LAB4_SCALE_FLOOR,
     LAB4_NVFP4_BLOCK},
    {"MXFP8 E4M3 floor, block 16", MX, FP8_E4M3, LAB4_SCALE_FLOOR, 16},
    {"MXFP8 E4M3 floor, block 64", MX, FP8_E4M3, LAB4_SCALE_FLOOR, 64},
    {"MXFP8 E4M3 floor, block 128", MX, FP8_E4M3, LAB4_SCALE_FLOOR, 128},
    {"MXFP4 E2M1 floor, block 16", MX, FP8_E2M1, LAB4_SCALE_FLOOR, 16},
    {"MXFP4 E2M1 floor, block 64", MX, FP8_E2M1, LAB4_SCALE_FLOOR, 64},
    {"MXFP4 E2M1 floor, block 128", MX, FP8_E2M1, LAB4_SCALE_FLOOR, 128},
};
#define N_SCHEMES 15
#define S_PER_TENSOR 0     /* indices in SCHEMES */
#define S_E4M3_FLOOR 1
#define S_E4M3_CEIL 2
#define S_E5M2 3
#define S_E3M2 4
#define S_E2M3 5
#define S_E2M1_FLOOR 6
#define S_E2M1_CEIL 7
#define S_NVFP4 8
#define S_E4M3_B16 9       /* the block sizes other than 32 */
#define S_E4M3_B64 10
#define S_E4M3_B128 11
#define S_E2M1_B16 12
#define S_E2M1_B64 13
#define S_E2M1_B128 14

/* The block sweeps, smallest block first, for block_error and sqnr_bits. */
#define N_BLOCKS 4
static const int E4M3_SWEEP[N_BLOCKS] = {S_E4M3_B16, S_E4M3_FLOOR, S_E4M3_B64, S_E4M3_B128};
static const int E2M1_SWEEP[N_BLOCKS] = {S_E2M1_B16, S_E2M1_FLOOR, S_E2M1_B64, S_E2M1_B128};

/* Bits per element, the scales included: an element code, plus a scale
 * code of 8 bits per block. The per-tensor scales (one float for the whole
 * tensor, per-tensor FP8's and NVFP4's second level) add 32 / N_ELEMS:
 * nothing worth printing. */
static double bits_per_element(const scheme *s)
{
    double elem_bits = fp8_info(s->elem)->bits;
    return s->kind == PER_TENSOR ? elem_bits : elem_bits + 8.0 / (double)s->block;
}

/* What one scheme did to one tensor. */
typedef struct outcome {
    double sqnr_db;   /* of x against y = dequantize(quantize(x)) */
    size_t saturated; /* elements clipped to +-elem_max by the encode */
} outcome;

/* Everything run_all computes; "channels" is also looked at row by row. */
typedef struct results {
    outcome out[N_SCHEMES][N_TENSORS];
    double row_sqnr_db[N_SCHEMES][ROWS]; /* of each row of "channels" */
} results;

/* Per-tensor FP8 (lab1's current scaling, no lab4 function): scale = 448 /
 * amax, q = encode(x * scale), y = decode(q) * scale_inv. */
static size_t per_tensor(const float *x, float *y)
{
    float fp8_max = fp8_info(FP8_E4M3)->max_finite;
    float amax = stats_amax(x, N_ELEMS, NULL);
    float scale = fp8_max / amax;
    float scale_inv = 1.0f / scale;
    size_t saturated = 0;
    for (size_t i = 0; i < N_ELEMS; i++) {
        float v = x[i] * scale;
        saturated += fabsf(v) > fp8_max;
        y[i] = fp8_decode(fp8_encode(v, FP8_E4M3, true), FP8_E4M3) * scale_inv;
    }
    return saturated;
}

/* The elements of x that the encode in lab4_mx_quantize clipped: those with
 * |x / X| > elem_max, X = 2^(s - 127) their block's scale (README §3). A
 * block with scale 0xFF (NaN) clips nothing. */
static size_t mx_saturated(const float *x, const uint8_t *scales, size_t block,
                           fp8_format elem)
{
    float elem_max = fp8_info(elem)->max_finite;
    size_t nb = (COLS + block - 1) / block, saturated = 0;
    for (size_t r = 0; r < ROWS; r++) {
        for (size_t c = 0; c < COLS; c++) {
            int s = scales[r * nb + c / block];
            saturated += s != 0xFF && fabsf(ldexpf(x[r * COLS + c], 127 - s)) > elem_max;
        }
    }
    return saturated;
}

/* Quantizes x (ROWS x COLS) with scheme s and dequantizes it into y.
 * Returns the clipped elements. The outputs are zeroed first, so that
 * functions not written yet leave zeros rather than garbage. */
static size_t run_scheme(const scheme *s, const float *x, float *y)
{
    static uint8_t codes[N_ELEMS], scales[MAX_SCALES];
    memset(codes, 0, sizeof codes);
    memset(scales, 0, sizeof scales);
    memset(y, 0, N_ELEMS * sizeof *y);
    switch (s->kind) {
    case PER_TENSOR:
        return per_tensor(x, y);
    case MX:
        lab4_mx_quantize(x, ROWS, COLS, s->block, s->elem, s->rule, codes, scales);
        lab4_mx_dequantize(codes, scales, ROWS, COLS, s->block, s->elem, y);
        return mx_saturated(x, scales, s->block, s->elem);
    case NVFP4: {
        float tensor_scale = lab4_nvfp4_tensor_scale(stats_amax(x, N_ELEMS, NULL));
        lab4_nvfp4_quantize(x, ROWS, COLS, tensor_scale, codes, scales);
        lab4_nvfp4_dequantize(codes, scales, ROWS, COLS, tensor_scale, y);
        return 0; /* not counted: see print_table */
    }
    }
    return 0;
}

static void run_all(const tensors *t, results *res)
{
    static float y[N_ELEMS];
    for (int s = 0; s < N_SCHEMES; s++) {
        for (int k = 0; k < N_TENSORS; k++) {
            const float *x = t->x[k];
            outcome *o = &res->out[s][k];
            o->saturated = run_scheme(&SCHEMES[s], x, y);
            o->sqnr_db = stats_sqnr_db(x, y, N_ELEMS);
            if (k != CHANNELS)
                continue;
            for (size_t r = 0; r < ROWS; r++)
                res->row_sqnr_db[s][r] = stats_sqnr_db(x + r * COLS, y + r * COLS, COLS);
        }
    }
}

/* ---- the handout's block --------------------------------------------------- */

/* README §3's block: these values, then zeros up to LAB4_MX_BLOCK. */
static const float HAND_BLOCK[] = {485.0f, 475.0f, 400.0f, -485.0f,
                                   -475.0f, -450.0f, 0x1p-6f, -0x1p-6f};
#define N_HAND 8

/* One rule on the handout's block, with the student's functions: the
 * block's amax and scale, each nonzero element's code and value, and the
 * sum of squared errors over all LAB4_MX_BLOCK elements. */
static void print_hand_rule(lab4_scale_rule rule, const char *title)
{
    float x[LAB4_MX_BLOCK] = {0}, y[LAB4_MX_BLOCK] = {0};
    uint8_t codes[LAB4_MX_BLOCK] = {0}, scale = 0;
    memcpy(x, HAND_BLOCK, sizeof HAND_BLOCK);
    lab4_mx_quantize(x, 1, LAB4_MX_BLOCK, LAB4_MX_BLOCK, FP8_E4M3, rule, codes, &scale);
    lab4_mx_dequantize(codes, &scale, 1, LAB4_MX_BLOCK, LAB4_MX_BLOCK, FP8_E4M3, y);

    printf("  %s: amax %g, scale code 0x%02x", title, lab4_block_amax(x, LAB4_MX_BLOCK),
           scale);
    if (scale == 0xFF)
        printf(" (NaN: the block is NaN)\n");
    else
        printf(" = 2^%d = %g\n", scale - 127, lab4_e8m0_decode(scale));
    printf("  %12s  %6s  %9s  %12s  %9s\n", "x", "code", "element", "element * X", "error");
    double sse = 0.0;
    for (int i = 0; i < LAB4_MX_BLOCK; i++) {
        double err = (double)y[i] - x[i];
        sse += err * err;
        if (i < N_HAND)
            printf("  %12g    0x%02x  %9g  %12g  %9g\n", x[i], codes[i],
                   fp8_decode(codes[i], FP8_E4M3), y[i], err);
    }
    printf("  %12s  (and %d zeros)\n", "...", LAB4_MX_BLOCK - N_HAND);
    printf("  sum of squared errors (SSE): %.10g\n\n", sse);
}

static void print_hand_block(void)
{
    printf("The handout's block (README §3), E4M3 elements, block %d: the %d values\n"
           "below, then %d zeros. X is the shared scale, element the decoded code.\n\n",
           LAB4_MX_BLOCK, N_HAND, LAB4_MX_BLOCK - N_HAND);
    print_hand_rule(LAB4_SCALE_FLOOR, "floor rule (OCP MX v1.0)");
    print_hand_rule(LAB4_SCALE_CEIL, "ceil rule (Transformer Engine)");
    printf("  Floor puts the amax's binade at E4M3's top binade, 256 to 448, so an\n"
           "  amax above 448 x 2^e is clipped; ceil takes one power of two more when\n"
           "  it must: nothing is clipped, and every element's step doubles.\n\n");
}

/* ---- the tables ------------------------------------------------------------ */

/* v in a cell of width w, "n/a" when NaN. */
static void print_db(int w, double v)
{
    if (isnan(v))
        printf("  %*s", w, "n/a");
    else
        printf("  %*.2f", w, v);
}

#define NAME_W 32 /* "NVFP4 E2M1, E4M3 scale, block 16" */
#define NUM_W 8   /* the number columns */

static void print_table(const tensors *t, const results *res)
{
    printf("Three %d x %d tensors (README §8), seed %d: gaussian, N(0, 1); outliers,\n"
           "the same with %zu elements (%.2f%%) times %g; channels, the outliers\n"
           "tensor with row r times 2^u[r], u uniform in [%g, %g]. All three are\n"
           "synthetic; README §8 says what each stands for.\n\n",
           ROWS, COLS, SEED, t->outliers, 100.0 * (double)t->outliers / N_ELEMS,
           OUTLIER_FACTOR, -ROW_LOG2_MAX, ROW_LOG2_MAX);
    printf("  %-*s  %*s  %*s  %*s\n", NAME_W, "", NUM_W, "bits per",
           3 * NUM_W + 4, "SQNR (dB)", NUM_W + 2, "saturated");
    printf("  %-*s  %*s", NAME_W, "scheme", NUM_W, "element");
    for (int k = 0; k < N_TENSORS; k++)
        printf("  %*s", NUM_W, TENSOR_NAMES[k]);
    printf("  %*s\n", NUM_W + 2, "(outliers)");
    bool any_undefined = false;
    for (int s = 0; s < N_SCHEMES; s++) {
        if (s == S_E4M3_B16)
            printf("  block sizes:\n");
        printf("  %-*s  %*.3f", NAME_W, SCHEMES[s].name, NUM_W, bits_per_element(&SCHEMES[s]));
        for (int k = 0; k < N_TENSORS; k++) {
            print_db(NUM_W, res->out[s][k].sqnr_db);
            any_undefined = any_undefined || isnan(res->out[s][k].sqnr_db);
        }
        if (SCHEMES[s].kind == NVFP4)
            printf("  %*s\n", NUM_W + 2, "-");
        else
            printf("  %*zu\n", NUM_W + 2, res->out[s][OUTLIERS].saturated);
    }
    printf("\n  SQNR = 10 log10(sum x^2 / sum (y - x)^2), y = dequantize(quantize(x)):\n"
           "  higher is better, about 6 dB per mantissa bit. Bits per element: the\n"
           "  element code and an 8-bit scale per block. Saturated: elements past\n"
           "  the element format's max once divided by their scale, so clipped to\n"
           "  it; the floor rule clips a block's amax when its mantissa is above\n"
           "  max's (E4M3, E5M2, E3M2: 1.75), the ceil rule never (README §3).\n"
           "  NVFP4's E4M3 block scale is not a power of two: not counted (§7).\n");
    if (any_undefined)
        printf("  n/a: a NaN in the dequantized tensor, as from functions not written\n"
               "  yet or a scale of 0xFF (README §3, §5).\n");
    printf("\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorted in place); NaN when n is 0 or any is NaN. */
static double median(double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (isnan(v[i]))
            return NAN; /* NaN has no place in an order */
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The schemes whose rows of "channels" print_rows and row_error show. */
static const int ROW_SCHEMES[] = {S_PER_TENSOR, S_E4M3_FLOOR, S_E4M3_CEIL, S_E2M1_FLOOR,
                                  S_NVFP4};
#define N_ROW_SCHEMES 5

/* Each scheme's SQNR on its worst row and its median row of "channels". */
static void print_rows(const results *res)
{
    printf("Channels, row by row (plot row_error): the SQNR of the worst row and\n"
           "of the median row of the %d.\n\n", ROWS);
    printf("  %-*s  %*s  %*s\n", NAME_W, "scheme", NUM_W, "worst", NUM_W, "median");
    for (int i = 0; i < N_ROW_SCHEMES; i++) {
        int s = ROW_SCHEMES[i];
        double sorted[ROWS];
        memcpy(sorted, res->row_sqnr_db[s], sizeof sorted);
        double mid = median(sorted, ROWS); /* sorts, unless there is a NaN */
        printf("  %-*s", NAME_W, SCHEMES[s].name);
        print_db(NUM_W, isnan(mid) ? NAN : sorted[0]);
        print_db(NUM_W, mid);
        printf("\n");
    }
    printf("\n  The SQNR of a whole tensor is ruled by its largest rows. One scale per\n"
           "  tensor maps the amax, an outlier in a large row, to 448: the smallest\n"
           "  rows land below E4M3's smallest subnormal, 2^-9, and flush to zero\n"
           "  (0 dB). NVFP4's E4M3 block scales, under one tensor scale, reach no\n"
           "  lower. An E8M0 scale per block follows each row down to 2^-127.\n\n");
}

/* ---- the plots --------------------------------------------------------------- */

/* A series of the n schemes idx[], x their bits per element and y their
 * SQNR on tensor k. */
static int add_schemes(plot *p, const char *label, const int *idx, int n, int k,
                       const results *res, lab_error *err)
{
    double x[N_BLOCKS], y[N_BLOCKS];
    for (int i = 0; i < n; i++) {
        x[i] = bits_per_element(&SCHEMES[idx[i]]);
        y[i] = res->out[idx[i]][k].sqnr_db;
    }
    return plot_add_series(p, label, x, y, (size_t)n, err);
}

/* sqnr_bits: one series per family, a line through each block sweep and a
 * point for each other scheme. */
static int fill_sqnr_bits(plot *p, const tensors *t, const results *res, lab_error *err)
{
    static const int SINGLE[] = {S_PER_TENSOR, S_E4M3_CEIL, S_E5M2, S_E3M2, S_E2M3,
                                 S_E2M1_CEIL, S_NVFP4};
    (void)t;
    if (add_schemes(p, "MXFP8 E4M3 floor, blocks 128 (left) to 16", E4M3_SWEEP, N_BLOCKS,
                    OUTLIERS, res, err) != 0 ||
        add_schemes(p, "MXFP4 E2M1 floor, blocks 128 (left) to 16", E2M1_SWEEP, N_BLOCKS,
                    OUTLIERS, res, err) != 0)
        return -1;
    for (size_t i = 0; i < sizeof SINGLE / sizeof SINGLE[0]; i++)
        if (add_schemes(p, SCHEMES[SINGLE[i]].name, &SINGLE[i], 1, OUTLIERS, res, err) != 0)
            return -1;
    return plot_set_xrange(p, 3.75, 8.75, err);
}

/* block_error: the two floor sweeps on "channels", the ceil rule at block
 * 32 as points, and per-tensor FP8 as a dotted line (it has no block). */
static int fill_block_error(plot *p, const tensors *t, const results *res, lab_error *err)
{
    double x[N_BLOCKS], e4m3[N_BLOCKS], e2m1[N_BLOCKS];
    (void)t;
    for (int i = 0; i < N_BLOCKS; i++) {
        x[i] = (double)SCHEMES[E4M3_SWEEP[i]].block;
        e4m3[i] = res->out[E4M3_SWEEP[i]][CHANNELS].sqnr_db;
        e2m1[i] = res->out[E2M1_SWEEP[i]][CHANNELS].sqnr_db;
    }
    double x32 = LAB4_MX_BLOCK;
    double per_tensor_db = res->out[S_PER_TENSOR][CHANNELS].sqnr_db;
    if (plot_add_series(p, "MXFP8 E4M3 floor", x, e4m3, N_BLOCKS, err) != 0 ||
        plot_add_series(p, "MXFP4 E2M1 floor", x, e2m1, N_BLOCKS, err) != 0 ||
        plot_add_series(p, "MXFP8 E4M3 ceil", &x32, &res->out[S_E4M3_CEIL][CHANNELS].sqnr_db,
                        1, err) != 0 ||
        plot_add_series(p, "MXFP4 E2M1 ceil", &x32, &res->out[S_E2M1_CEIL][CHANNELS].sqnr_db,
                        1, err) != 0 ||
        (isfinite(per_tensor_db) &&
         plot_add_hline(p, per_tensor_db, "per-tensor FP8 E4M3", err) != 0))
        return -1;
    return plot_set_xrange(p, 0, 136, err);
}

#define N_ROW_BINS 16 /* row_error groups the rows by u, in bins this many to [-8, 8) */

/* row_error: the rows of "channels" grouped by their u, and each group's
 * median row SQNR against the bin's middle. (One row alone is noisy: the
 * rounding of its outlier, if it has one, rules its SQNR.) */
static int fill_row_error(plot *p, const tensors *t, const results *res, lab_error *err)
{
    const double width = 2.0 * ROW_LOG2_MAX / N_ROW_BINS;
    double x[N_ROW_BINS], y[N_ROW_BINS], in_bin[ROWS];
    int bin_of[ROWS];
    for (int b = 0; b < N_ROW_BINS; b++)
        x[b] = -ROW_LOG2_MAX + (b + 0.5) * width;
    for (int r = 0; r < ROWS; r++) {
        int b = (int)floor((t->row_log2[r] + ROW_LOG2_MAX) / width);
        bin_of[r] = b < 0 ? 0 : b >= N_ROW_BINS ? N_ROW_BINS - 1 : b;
    }
    for (int i = 0; i < N_ROW_SCHEMES; i++) {
        int s = ROW_SCHEMES[i];
        for (int b = 0; b < N_ROW_BINS; b++) {
            int n = 0;
            for (int r = 0; r < ROWS; r++)
                if (bin_of[r] == b)
                    in_bin[n++] = res->row_sqnr_db[s][r];
            y[b] = median(in_bin, n); /* an empty bin: NaN, not drawn */
        }
        if (plot_add_series(p, SCHEMES[s].name, x, y, N_ROW_BINS, err) != 0)
            return -1;
    }
    return 0;
}

/* One plot: its file name, texts, and what draws its series. */
typedef struct plot_spec {
    const char *name;
    const char *title;
    const char *xlabel;
    int (*fill)(plot *p, const tensors *t, const results *res, lab_error *err);
} plot_spec;

static const plot_spec PLOTS[] = {
    {"sqnr_bits", "Outliers tensor: SQNR against bits per element, every scheme",
     "bits per element (element code + 8-bit scale per block)", fill_sqnr_bits},
    {"block_error",
     "Channels tensor: SQNR against block size (per-tensor FP8 dotted: one scale in all)",
     "block size (elements per scale)", fill_block_error},
    {"row_error",
     "Channels tensor: the median SQNR of its rows, grouped by magnitude 2^u (bins of 1 in u)",
     "u, log2 of the row's magnitude (row r of outliers times 2^u[r])", fill_row_error},
};
#define N_PLOTS 3

static plot *make_plot(const plot_spec *spec, const char *stem, const tensors *t,
                       const results *res, lab_error *err)
{
    plot *p = plot_new(stem, spec->title, spec->xlabel, "SQNR (dB, higher is better)", err);
    if (!p)
        return NULL;
    if (spec->fill(p, t, res, err) != 0 || plot_set_key(p, "below", err) != 0) {
        plot_free(p);
        return NULL;
    }
    return p;
}

/* Makes and renders plot i as DIR/name.png. Returns 0, PLOT_NO_GNUPLOT, or
 * -1 (message printed). */
static int draw_plot(int i, const tensors *t, const results *res, demo_options *o)
{
    char stem[DEMO_STEM_SIZE];
    if (demo_stem(o, PLOTS[i].name, stem, sizeof stem) != 0)
        return -1;
    lab_error err = {{0}};
    plot *p = make_plot(&PLOTS[i], stem, t, res, &err); /* NULL: err says why */
    if (p)
        printf("Plot %d, %s:\n", i + 1, PLOTS[i].title);
    return demo_render(o, p, stem, PLOT_WIDTH, &err);
}

/* What the demo does, for --help (common/demo.c prints the rest). */
static const char ABOUT[] =
    "Quantizes three tensors with outliers (gaussian, outliers, channels)\n"
    "with one FP8 scale per tensor and with MXFP8, MXFP6, MXFP4 and NVFP4\n"
    "blocks, using your lab4.c; works the handout's block under both scale\n"
    "rules, prints each scheme's bits per element and SQNR, and draws three\n"
    "plots: sqnr_bits, block_error and row_error (.png).";

int main(int argc, char **argv)
{
    demo_options o;
    int rc = demo_parse_args(argc, argv, "lab4", ABOUT, DEFAULT_DIR, &o);
    if (rc != 0)
        return rc == 1 ? 0 : 2; /* 1: after --help */

    static tensors t;
    static results res;
    make_tensors(&t);
    print_hand_block();
    run_all(&t, &res);
    print_table(&t, &res);
    print_rows(&res);

    for (int i = 0; i < N_PLOTS; i++)
        if (draw_plot(i, &t, &res, &o) == -1)
            return 1;
    demo_note_no_gnuplot(&o); /* when gnuplot was missing */
    return 0;
}
