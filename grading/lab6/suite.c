/*
 * lab6/suite.c - lab6's tests: the student's FP8 linear layer, fine-grained
 * quantizer and stochastic rounding. Points and sections are in
 * grading/lab6/rubric.c.
 *
 * Where each expected value comes from:
 *   - casts: the course's codec (fp8_encode, checked against NVIDIA's
 *     conversions by tests/oracle) on x times the scale lab6.h gives, and
 *     lab 1's delayed_record and delayed_update for the scalers;
 *   - the FP8 GEMMs: the exact sum, in double, of the products of the
 *     decoded codes, within the error bound of float summation in any
 *     order, |got - want| <= 2 (K + 2) 2^-24 S |sinv| (S the sum of the
 *     products' magnitudes), as lab 3 (README §11 of lab 3); and bit for
 *     bit where the sum has one term, so that the order of the scale_invs'
 *     product is seen;
 *   - the fine-grained quantizer and its GEMM: data/golden/lab6/finegrained,
 *     written by an independent NumPy implementation
 *     (tests/lab6/numpy_finegrained.py), and, for the shapes and values it
 *     does not hold (a NaN in a tile, one column, the hidden inputs), the
 *     reference solution linked into the judge as ref_*;
 *   - stochastic rounding: the rule of lab6.h written here from the
 *     format's neighbours (fp8_neighbours, the float's bits for BF16), the
 *     library's fp8_encode_stochastic on random bits, and for sr_unbiased
 *     the mean over many random streams against x itself.
 * Each test sets up its layer by itself (backward from the reference's
 * forward), so one mistake costs the tests aimed at it. tests/lab6/TRAPS.md
 * lists the mutants that check this suite can fail.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "delayed.h"
#include "lab6.h"
#include "suite.h"

extern __typeof__(lab6_fp8_forward) ref_lab6_fp8_forward;
extern __typeof__(lab6_quantize_tiles) ref_lab6_quantize_tiles;
extern __typeof__(lab6_quantize_blocks) ref_lab6_quantize_blocks;
extern __typeof__(lab6_gemm_tiles) ref_lab6_gemm_tiles;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    ck_assert_msg(p != NULL, "out of memory");
    return p;
}

static const char *fmt_name(fp8_format fmt) { return fp8_info(fmt)->name; }

/* ---- §4 the cast ------------------------------------------------------------------ */

/* A scaler of fmt with the given scale and a history whose slot 0 is h0 and
 * slots 1 .. 15 a few other amaxes. */
static delayed_scaler scaler(fp8_format fmt, float scale, float h0)
{
    delayed_scaler s;
    delayed_init(&s, fmt, false, 16, 0);
    s.scale = scale;
    s.scale_inv = 1.0f / scale;
    s.history[0] = h0;
    for (int i = 1; i < 16; i++)
        s.history[i] = ldexpf(1.0f + (float)i / 16.0f, i % 5 - 2);
    return s;
}

/* lab6.h's current scale for an amax: fmt's largest / amax in float, 1 for
 * an amax 0, infinite or NaN, FLT_MAX where the division overflows. */
static float current_scale(float amax, float max)
{
    if (amax == 0.0f || isinf(amax) || isnan(amax))
        return 1.0f;
    float s = max / amax;
    return isinf(s) ? FLT_MAX : s;
}

/* What a cast of x (n values) with `before` must give. */
typedef struct cast_want {
    delayed_scaler s; /* the scaler afterwards */
    uint8_t *codes;
    float scale_inv;
    size_t saturated, flushed;
} cast_want;

static cast_want cast_expected(const delayed_scaler *before, int current, const float *x,
                               size_t n)
{
    cast_want w = {.s = *before, .codes = xcalloc(n, 1)};
    float amax = 0.0f, max = fp8_info(before->fmt)->max_finite;
    for (size_t i = 0; i < n; i++)
        if (fabsf(x[i]) > amax) /* false for a NaN */
            amax = fabsf(x[i]);
    delayed_record(&w.s, amax);
    if (current) {
        w.s.scale = current_scale(amax, max);
        w.s.scale_inv = 1.0f / w.s.scale;
    }
    w.scale_inv = w.s.scale_inv;
    for (size_t i = 0; i < n; i++) {
        float v = x[i] * w.s.scale;
        w.codes[i] = fp8_encode(v, before->fmt, true);
        w.saturated += fabsf(v) > max;
        w.flushed += x[i] != 0.0f && fp8_is_zero(w.codes[i], before->fmt);
    }
    return w;
}

/* The scaler got against want: scale, scale_inv and the history, bit for bit. */
static void expect_scaler(gr_mismatches *m, const char *what, const delayed_scaler *want,
                          const delayed_scaler *got)
{
    int ok = f32_bits(want->scale) == f32_bits(got->scale) &&
             f32_bits(want->scale_inv) == f32_bits(got->scale_inv);
    int slot = -1;
    for (int i = 0; i < want->history_len && slot < 0; i++)
        if (f32_bits(want->history[i]) != f32_bits(got->history[i]))
            slot = i;
    gr_expect(m, ok && slot < 0,
              "%s\n  the scaler afterwards: scale expected %s, got %s\n"
              "  scale_inv expected %s, got %s\n  history[%d] expected %s, got %s",
              what, gr_f32(want->scale), gr_f32(got->scale), gr_f32(want->scale_inv),
              gr_f32(got->scale_inv), slot < 0 ? 0 : slot,
              gr_f32(want->history[slot < 0 ? 0 : slot]), gr_f32(got->history[slot < 0 ? 0 : slot]));
    /* what no function of lab6.h changes */
    gr_expect(m, want->fmt == got->fmt && want->most_recent == got->most_recent &&
                     want->history_len == got->history_len && want->margin == got->margin,
              "%s\n  the scaler's settings changed: fmt %d, most_recent %d, history_len %d, "
              "margin %d; they were %d, %d, %d, %d", what, (int)got->fmt, (int)got->most_recent,
              got->history_len, got->margin, (int)want->fmt, (int)want->most_recent,
              want->history_len, want->margin);
}

/* What backward and update leave as forward left it: the scalers of x and
 * W (update: moved by delayed_update only, checked apart), the mode, and
 * the scale_invs forward kept. */
static void expect_layer_kept(gr_mismatches *m, const char *what, const lab6_fp8_linear *want,
                              const lab6_fp8_linear *got, int scalers)
{
    char sub[320];
    if (scalers) {
        snprintf(sub, sizeof sub, "%s: L->sx", what);
        expect_scaler(m, sub, &want->sx, &got->sx);
        snprintf(sub, sizeof sub, "%s: L->sw", what);
        expect_scaler(m, sub, &want->sw, &got->sw);
    }
    gr_expect(m, want->current == got->current &&
                     f32_bits(want->x_scale_inv) == f32_bits(got->x_scale_inv) &&
                     f32_bits(want->w_scale_inv) == f32_bits(got->w_scale_inv),
              "%s\n  changed what it does not own: current %d (was %d), x_scale_inv %s (was %s), "
              "w_scale_inv %s (was %s)", what, got->current, want->current,
              gr_f32(got->x_scale_inv), gr_f32(want->x_scale_inv), gr_f32(got->w_scale_inv),
              gr_f32(want->w_scale_inv));
}

/* Codes got against want, bit for bit but any NaN for a NaN. */
static void expect_codes(gr_mismatches *m, const char *what, const float *x, const uint8_t *want,
                         const uint8_t *got, size_t n, fp8_format fmt, float scale)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        int ok = want[i] == got[i] || (fp8_is_nan(want[i], fmt) && fp8_is_nan(got[i], fmt));
        if (!ok && bad++ == 0)
            first = i;
    }
    char times[96] = "";
    if (!isnan(scale))
        snprintf(times, sizeof times, ", times the scale %s", gr_f32(scale));
    gr_expect(m, bad == 0,
              "%s\n  code %zu: x = %s%s\n  expected %s\n  got      %s\n"
              "  (%zu of %zu codes differ)",
              what, first, gr_f32(n ? x[first] : 0.0f), times,
              gr_code(n ? want[first] : 0, fmt), gr_code(n ? got[first] : 0, fmt), bad, n);
}

/* Casts x with a copy of `before` and checks the codes, the scale_inv it
 * returns and the scaler afterwards (values), and the two counts (counts),
 * as asked. NULL counts when `null_counts`. */
static void check_cast(gr_mismatches *m, const char *what, const delayed_scaler *before,
                       int current, const float *x, size_t n, int values, int counts,
                       int null_counts)
{
    cast_want w = cast_expected(before, current, x, n);
    delayed_scaler s = *before;
    uint8_t *codes = xcalloc(n, 1);
    memset(codes, 0xA5, n);
    size_t sat = 12345, flush = 12345;
    char call[256];
    snprintf(call, sizeof call, "lab6_fp8_cast(%s, %s, %s scaling, n = %zu%s)", what,
             fmt_name(before->fmt), current ? "current" : "delayed", n,
             null_counts ? ", saturated = flushed = NULL" : "");
    float ret = lab6_fp8_cast(&s, current, x, n, codes, null_counts ? NULL : &sat,
                              null_counts ? NULL : &flush);
    if (values) {
        expect_codes(m, call, x, w.codes, codes, n, before->fmt, w.s.scale);
        gr_expect(m, f32_bits(ret) == f32_bits(w.scale_inv),
                  "%s\n  returned %s; expected the scale_inv it used, %s", call, gr_f32(ret),
                  gr_f32(w.scale_inv));
        expect_scaler(m, call, &w.s, &s);
    }
    if (counts && !null_counts)
        gr_expect(m, sat == w.saturated && flush == w.flushed,
                  "%s\n  saturated: expected %zu, got %zu\n  flushed: expected %zu, got %zu",
                  call, w.saturated, sat, w.flushed, flush);
    free(w.codes);
    free(codes);
}

/* A tensor of n values over 2^lo .. 2^(lo + binades), with a NaN, both
 * infinities, zeros of both signs, and values that saturate and flush at
 * scale 1 (when `specials`). */
static float *tensor(rng_state *rng, size_t n, int lo, int binades, int specials)
{
    float *x = xcalloc(n, sizeof(float));
    for (size_t i = 0; i < n; i++)
        x[i] = gr_hidden_float(rng, lo, binades);
    if (specials && n >= 12) {
        x[1] = NAN, x[3] = -0.0f, x[4] = 0.0f, x[5] = 1e6f, x[6] = -1e6f;
        x[7] = 1e-12f, x[8] = -3e-9f, x[9] = -NAN;
    }
    return x;
}

#define CAST_N 3000 /* more than one chunk of 1024, in case one is used */

/* The public casts of cast_delayed, cast_current and cast_counts. */
static void check_casts(gr_mismatches *m, int current, int values, int counts)
{
    rng_state rng;
    rng_seed(&rng, 6, 1);
    float *act = tensor(&rng, CAST_N, -6, 14, 1);   /* activations, 2^-6 .. 2^8 */
    float *grad = tensor(&rng, CAST_N, -30, 20, 1); /* gradients, 2^-30 .. 2^-10 */
    float *inf = tensor(&rng, 40, -2, 4, 0);
    inf[17] = -INFINITY;
    const struct {
        const char *name;
        const float *x;
        size_t n;
        fp8_format fmt;
        float scale, h0;
        int margin; /* a cast never uses it; current scaling neither (lab6.h) */
    } cases[] = {
        {"activations over 2^-6 .. 2^8 with specials", act, CAST_N, FP8_E4M3, 1.5f, 0.25f, 0},
        {"activations over 2^-6 .. 2^8 with specials", act, CAST_N, FP8_E4M3, 0.7f, 1e7f, 2},
        {"gradients over 2^-30 .. 2^-10 with specials", grad, CAST_N, FP8_E5M2, 0x1p20f, 0.0f, 0},
        {"gradients over 2^-30 .. 2^-10 with specials", grad, CAST_N, FP8_E4M3, 0x1p26f, 0.0f, 1},
        {"a tensor with -inf", inf, 40, FP8_E5M2, 3.0f, 2.0f, 0},
        {"an empty tensor", act, 0, FP8_E4M3, 2.0f, 0.5f, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        delayed_scaler s = scaler(cases[k].fmt, cases[k].scale, cases[k].h0);
        s.margin = cases[k].margin;
        check_cast(m, cases[k].name, &s, current, cases[k].x, cases[k].n, values, counts, 0);
    }
    /* NULL counts (lab6.h: either may be NULL) */
    delayed_scaler s = scaler(FP8_E4M3, 1.5f, 0.25f);
    check_cast(m, "activations", &s, current, act, 200, values, 0, 1);
    free(act), free(grad), free(inf);
}

/* Hidden inputs (./grader --seed): tensors drawn from the seed, each with a
 * scaler of a random scale and history slot 0, E4M3 and E5M2. */
static void check_casts_hidden(gr_mismatches *m, int current, int values, int counts)
{
    rng_state rng;
    if (!gr_hidden_rng(&rng, 6))
        return;
    for (int t = 0; t < 4; t++) {
        size_t n = 500 + rng_below(&rng, 2000);
        int lo = (int)rng_below(&rng, 30) - 25;
        float *x = tensor(&rng, n, lo, 1 + (int)rng_below(&rng, 20), 0);
        for (size_t i = 0; i < n; i += 97 + rng_below(&rng, 50))
            x[i] = NAN;
        fp8_format fmt = t % 2 ? FP8_E5M2 : FP8_E4M3;
        delayed_scaler s = scaler(fmt, fabsf(gr_hidden_float(&rng, -lo - 4, 12)),
                                  fabsf(gr_hidden_float(&rng, lo, 20)));
        char what[64];
        snprintf(what, sizeof what, "hidden tensor %d", t);
        check_cast(m, what, &s, current, x, n, values, counts, 0);
        free(x);
    }
}

static void test_cast_delayed(void)
{
    gr_mismatches m = {0};
    check_casts(&m, 0, 1, 0);
    check_casts_hidden(&m, 0, 1, 0);
    gr_finish(&m, "checks");
}

/* current scaling's amaxes at their edges: 448 (scale 1), all zeros, an
 * infinity, only NaNs (scale 1), one too small for 448 / amax (FLT_MAX),
 * and 1.9486 (0x3ff96d58), for which 448 x (1 / amax) is a float above
 * 448 / amax, and the amax times it above 448 (saturated). */
static void check_current_edges(gr_mismatches *m, int values, int counts)
{
    float x[8];
    const struct {
        const char *name;
        float v0, v1;
        fp8_format fmt;
    } cases[] = {
        {"{448, -3, ...}: amax 448", 448.0f, -3.0f, FP8_E4M3},
        {"{-57344, 2, ...}: amax 57344", -57344.0f, 2.0f, FP8_E5M2},
        {"all zeros", 0.0f, -0.0f, FP8_E4M3},
        {"{inf, 1, ...}", INFINITY, 1.0f, FP8_E4M3},
        {"only NaNs", NAN, -NAN, FP8_E5M2},
        {"{1e-38, -2e-39, ...}: 448 / amax overflows", 1e-38f, -2e-39f, FP8_E4M3},
        {"{3, 1, ...}", 3.0f, 1.0f, FP8_E4M3},
        {"{1.9486, -1, ...}", 0x1.f2dabp+0f, -1.0f, FP8_E4M3},
        {"{-1.9486 x 2^10, 1, ...}", -0x1.f2dabp+10f, 1.0f, FP8_E5M2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int i = 0; i < 8; i++)
            x[i] = i % 2 ? cases[k].v1 : (i == 0 ? cases[k].v0 : cases[k].v1 * 0.5f);
        delayed_scaler s = scaler(cases[k].fmt, 5.0f, 0.125f);
        check_cast(m, cases[k].name, &s, 1, x, 8, values, counts, 0);
    }
}

static void test_cast_current(void)
{
    gr_mismatches m = {0};
    check_casts(&m, 1, 1, 0);
    check_current_edges(&m, 1, 0);
    check_casts_hidden(&m, 1, 1, 0);
    gr_finish(&m, "checks");
}

/* Counts worked by hand: E4M3 at scale 1. 449 and 500 are above 448
 * (saturated, though 449 encodes as 448), 448 is not; an infinity is;
 * a NaN is neither. 2^-10 is half the smallest subnormal 2^-9 and rounds to
 * even, zero (flushed), as does 2^-11; 0.75 x 2^-9 rounds up to 2^-9; a
 * zero is never flushed. */
static void check_counts_by_hand(gr_mismatches *m)
{
    const float x[] = {449.0f, 500.0f, 448.0f, -INFINITY, NAN, 0x1p-10f, -0x1p-11f,
                       0x1.8p-10f, 0.0f, -0.0f, 1.0f, -1000.0f};
    for (int current = 0; current < 2; current++) {
        delayed_scaler s = scaler(FP8_E4M3, 1.0f, 0.0f);
        size_t sat = 0, flush = 0;
        uint8_t codes[12];
        lab6_fp8_cast(&s, current, x, 12, codes, &sat, &flush);
        /* under current scaling the amax is infinite: scale 1 too */
        gr_expect(m, sat == 4 && flush == 2,
                  "lab6_fp8_cast({449, 500, 448, -inf, NaN, 2^-10, -2^-11, 0.75 x 2^-9, 0, -0, "
                  "1, -1000}, E4M3, %s scaling at scale 1)\n  saturated: expected 4, got %zu\n"
                  "  flushed: expected 2, got %zu",
                  current ? "current" : "delayed", sat, flush);
    }
}

static void test_cast_counts(void)
{
    gr_mismatches m = {0};
    check_counts_by_hand(&m);
    check_casts(&m, 0, 0, 1);
    check_casts(&m, 1, 0, 1);
    check_current_edges(&m, 0, 1);
    check_casts_hidden(&m, 0, 0, 1);
    check_casts_hidden(&m, 1, 0, 1);
    gr_finish(&m, "checks");
}

/* ---- §4 forward and backward ---------------------------------------------------------- */

/* A layer of capacity M x K and N x K codes, delayed (scales sx_scale,
 * sw_scale, sdy_scale) or current. */
static lab6_fp8_linear layer(int current, size_t M, size_t N, size_t K, float sx_scale,
                             float sw_scale, float sdy_scale)
{
    lab6_fp8_linear L;
    memset(&L, 0, sizeof L);
    L.sx = scaler(FP8_E4M3, sx_scale, 0.5f);
    L.sw = scaler(FP8_E4M3, sw_scale, 0.25f);
    L.sdy = scaler(FP8_E5M2, sdy_scale, 0.0f);
    L.current = current;
    L.cap_x = M * K, L.cap_w = N * K;
    L.xq = xcalloc(L.cap_x, 1), L.wq = xcalloc(L.cap_w, 1);
    memset(L.xq, 0xA5, L.cap_x);
    memset(L.wq, 0xA5, L.cap_w);
    return L;
}

static void layer_free(lab6_fp8_linear *L)
{
    free(L->xq);
    free(L->wq);
}

/* The tolerance of one element of a product of FP8 values, scaled by sinv:
 * 2 (K + 2) 2^-24 S |sinv| (S the sum of the K products' magnitudes), and
 * none when K is 1 (one exact product, then one rounding). */
static double gemm_tol(double mag, size_t k, float sinv)
{
    return k == 1 ? 0.0 : 2.0 * (double)(k + 2) * 0x1p-24 * mag * fabs((double)sinv);
}

/* out (rows x cols) against out[i][j] = (sum_t a[i][t] b[j][t]) * sinv, a
 * and b decoded codes (rows x k and cols x k, strides as given), the sum in
 * double; within gemm_tol, bit for bit when k is 1. */
static void expect_product(gr_mismatches *m, const char *what, const float *out, size_t rows,
                           size_t cols, size_t k, const float *a, size_t a_row, size_t a_t,
                           const float *b, size_t b_row, size_t b_t, float sinv)
{
    size_t bad = 0, first = 0;
    double fw = 0, ftol = 0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            double s = 0.0, mag = 0.0;
            for (size_t t = 0; t < k; t++) {
                double p = (double)a[i * a_row + t * a_t] * b[j * b_row + t * b_t];
                s += p, mag += fabs(p);
            }
            double want = k == 1 ? (double)((float)s * sinv) : s * sinv;
            double tol = gemm_tol(mag, k, sinv) + (k == 1 ? 0.0 : 0x1p-140);
            float got = out[i * cols + j];
            int ok = k == 1 ? f32_bits((float)want) == f32_bits(got)
                            : fabs((double)got - want) <= tol;
            if (!ok && bad++ == 0)
                first = i * cols + j, fw = want, ftol = tol;
        }
    gr_expect(m, bad == 0,
              "%s\n  element [%zu, %zu]\n  expected %s\n  got      %s\n  tolerance %.3g (%s); "
              "%zu of %zu outside it",
              what, cols ? first / cols : 0, cols ? first % cols : 0, gr_f32((float)fw),
              gr_f32(rows * cols != 0 ? out[first] : 0.0f), ftol,
              k == 1 ? "one product: exact" : "float summation in any order", bad, rows * cols);
}

static float *decoded(const uint8_t *codes, size_t n, fp8_format fmt)
{
    float *v = xcalloc(n, sizeof(float));
    for (size_t i = 0; i < n; i++)
        v[i] = fp8_decode(codes[i], fmt);
    return v;
}

typedef struct shape {
    size_t M, N, K;
    int current;
    float sx, sw, sdy;
} shape;

/* The seed of values(): fixed for the public inputs, the hidden seed's
 * while a test checks hidden inputs (hidden_begin). */
static uint64_t value_seed = 66;

/* Random values over 2^lo .. 2^(lo + binades), from stream of value_seed. */
static float *values(uint64_t stream, size_t n, int lo, int binades)
{
    rng_state rng;
    rng_seed(&rng, value_seed, stream);
    return tensor(&rng, n, lo, binades, 0);
}

/* Hidden inputs (./grader --seed): 1, with *rng drawn from the seed on
 * stream and values() drawing from it too, until hidden_end; 0 without a
 * seed. */
static int hidden_begin(rng_state *rng, uint64_t stream)
{
    uint64_t seed;
    if (!gr_hidden_rng(rng, stream) || !gr_seed(&seed))
        return 0;
    value_seed = seed ^ 0x6c61623677ull;
    return 1;
}

static void hidden_end(void) { value_seed = 66; }

/* A hidden shape: M, N, K from 1 to 40, the mode and the delayed scales
 * drawn from rng. */
static shape hidden_shape(rng_state *rng)
{
    shape sh;
    sh.M = 1 + rng_below(rng, 40), sh.N = 1 + rng_below(rng, 40), sh.K = 1 + rng_below(rng, 40);
    sh.current = (int)rng_below(rng, 2);
    sh.sx = fabsf(gr_hidden_float(rng, -2, 6)), sh.sw = fabsf(gr_hidden_float(rng, 2, 8));
    sh.sdy = fabsf(gr_hidden_float(rng, 8, 10));
    return sh;
}


/* The forward shapes: M, N, K all different; one term (K = 1) for the
 * scale_invs' product bit for bit; both modes. */
static const shape FORWARD_SHAPES[] = {
    {5, 7, 3, 0, 9.5f, 37.0f, 1.0f},
    {33, 20, 48, 0, 0.75f, 300.0f, 1.0f},
    {16, 12, 1, 0, 13.7f, 101.3f, 1.0f},
    {33, 20, 48, 1, 1.0f, 1.0f, 1.0f},
    {16, 12, 1, 1, 1.0f, 1.0f, 1.0f},
};

static void check_forward(gr_mismatches *m, const shape *sh, int index)
{
    size_t M = sh->M, N = sh->N, K = sh->K;
    float *x = values(10 + (uint64_t)index, M * K, -4, 8);
    float *w = values(20 + (uint64_t)index, N * K, -8, 6);
    /* an outlier: saturated at the delayed scales; under current scaling,
     * the amax 1.9486 x 2^6 of check_current_edges */
    x[0] = sh->current ? -0x1.f2dabp+6f : -x[0] * 64.0f;
    lab6_fp8_linear L = layer(sh->current, M, N, K, sh->sx, sh->sw, sh->sdy);
    cast_want wx = cast_expected(&L.sx, sh->current, x, M * K);
    cast_want ww = cast_expected(&L.sw, sh->current, w, N * K);
    float *y = xcalloc(M * N, sizeof(float));
    memset(y, 0xA5, M * N * sizeof(float));
    delayed_scaler sdy = L.sdy;
    lab6_fp8_forward(&L, x, w, y, M, N, K);

    char call[200];
    snprintf(call, sizeof call, "lab6_fp8_forward(M = %zu, N = %zu, K = %zu, %s scaling)", M,
             N, K, sh->current ? "current" : "delayed");
    char what[300];
    snprintf(what, sizeof what, "%s: L->xq, the E4M3 codes of x", call);
    expect_codes(m, what, x, wx.codes, L.xq, M * K, FP8_E4M3, wx.s.scale);
    snprintf(what, sizeof what, "%s: L->wq, the E4M3 codes of W", call);
    expect_codes(m, what, w, ww.codes, L.wq, N * K, FP8_E4M3, ww.s.scale);
    gr_expect(m, f32_bits(L.x_scale_inv) == f32_bits(wx.scale_inv) &&
                     f32_bits(L.w_scale_inv) == f32_bits(ww.scale_inv),
              "%s\n  L->x_scale_inv expected %s, got %s\n  L->w_scale_inv expected %s, got %s",
              call, gr_f32(wx.scale_inv), gr_f32(L.x_scale_inv), gr_f32(ww.scale_inv),
              gr_f32(L.w_scale_inv));
    snprintf(what, sizeof what, "%s: L->sx", call);
    expect_scaler(m, what, &wx.s, &L.sx);
    snprintf(what, sizeof what, "%s: L->sw", call);
    expect_scaler(m, what, &ww.s, &L.sw);
    snprintf(what, sizeof what, "%s: L->sdy (forward does not cast dy)", call);
    expect_scaler(m, what, &sdy, &L.sdy);
    gr_expect(m, L.n_cast[0] == M * K && L.n_cast[1] == N * K &&
                     L.n_saturated[0] == wx.saturated && L.n_saturated[1] == ww.saturated &&
                     L.n_flushed[0] == wx.flushed && L.n_flushed[1] == ww.flushed,
              "%s\n  counts of x: n_cast %zu, n_saturated %zu, n_flushed %zu; expected %zu, "
              "%zu, %zu\n  counts of W: %zu, %zu, %zu; expected %zu, %zu, %zu",
              call, L.n_cast[0], L.n_saturated[0], L.n_flushed[0], M * K, wx.saturated,
              wx.flushed, L.n_cast[1], L.n_saturated[1], L.n_flushed[1], N * K, ww.saturated,
              ww.flushed);

    float *xd = decoded(wx.codes, M * K, FP8_E4M3), *wd = decoded(ww.codes, N * K, FP8_E4M3);
    snprintf(what, sizeof what, "%s: y = (xq wq^T) (x_scale_inv w_scale_inv)", call);
    expect_product(m, what, y, M, N, K, xd, K, 1, wd, K, 1, wx.scale_inv * ww.scale_inv);
    free(xd), free(wd), free(wx.codes), free(ww.codes), free(x), free(w), free(y);
    layer_free(&L);
}

static void test_forward(void)
{
    gr_mismatches m = {0};
    for (int i = 0; i < (int)(sizeof FORWARD_SHAPES / sizeof FORWARD_SHAPES[0]); i++)
        check_forward(&m, &FORWARD_SHAPES[i], i);
    rng_state rng;
    if (hidden_begin(&rng, 20)) {
        for (int i = 0; i < 3; i++) {
            shape sh = hidden_shape(&rng);
            check_forward(&m, &sh, 100 + i);
        }
        hidden_end();
    }
    gr_finish(&m, "checks");
}

/* The backward shapes: M = N = 1 makes both sums one term (bit for bit). */
static const shape BACKWARD_SHAPES[] = {
    {6, 9, 4, 0, 9.5f, 37.0f, 0x1p14f},
    {40, 24, 33, 0, 0.75f, 300.0f, 0x1p12f},
    {1, 1, 16, 0, 13.7f, 101.3f, 1234.5f},
    {40, 24, 33, 1, 1.0f, 1.0f, 1.0f},
    {1, 1, 16, 1, 1.0f, 1.0f, 1.0f},
};

#define PREFILL 1000.0f /* what dx and dw hold before backward writes them */

/* Backward after the reference's forward; checks dx and the dy scaler and
 * counts (dx) or dw (dw). */
static void check_backward(gr_mismatches *m, const shape *sh, int index, int dx_side)
{
    size_t M = sh->M, N = sh->N, K = sh->K;
    float *x = values(30 + (uint64_t)index, M * K, -4, 8);
    float *w = values(40 + (uint64_t)index, N * K, -8, 6);
    float *dy = values(50 + (uint64_t)index, M * N, -16, 8);
    /* saturated at the delayed scales; under current scaling the amax
     * 1.9486 x 2^2 of check_current_edges */
    dy[0] = sh->current ? 0x1.f2dabp+2f : 100.0f;
    lab6_fp8_linear L = layer(sh->current, M, N, K, sh->sx, sh->sw, sh->sdy);
    float *y = xcalloc(M * N, sizeof(float));
    ref_lab6_fp8_forward(&L, x, w, y, M, N, K);
    lab6_fp8_linear after = L;
    uint8_t *xq = xcalloc(M * K, 1), *wq = xcalloc(N * K, 1);
    memcpy(xq, L.xq, M * K);
    memcpy(wq, L.wq, N * K);
    cast_want wd = cast_expected(&L.sdy, sh->current, dy, M * N);

    float *dx = xcalloc(M * K, sizeof(float)), *dw = xcalloc(N * K, sizeof(float));
    for (size_t i = 0; i < M * K; i++)
        dx[i] = PREFILL;
    for (size_t i = 0; i < N * K; i++)
        dw[i] = PREFILL;
    lab6_fp8_backward(&L, dy, dx, dw, M, N, K);

    char call[200], what[300];
    snprintf(call, sizeof call, "lab6_fp8_backward(M = %zu, N = %zu, K = %zu, %s scaling; dx and "
             "dw held %g before)", M, N, K, sh->current ? "current" : "delayed", PREFILL);
    float *dyd = decoded(wd.codes, M * N, FP8_E5M2);
    if (dx_side) {
        float *wdd = decoded(wq, N * K, FP8_E4M3);
        snprintf(what, sizeof what, "%s: dx = (dyq wq) (sinv_dy w_scale_inv)", call);
        /* dx[m][k] = sum_n dyq[m][n] wq[n][k] */
        expect_product(m, what, dx, M, K, N, dyd, N, 1, wdd, 1, K,
                       wd.scale_inv * after.w_scale_inv);
        snprintf(what, sizeof what, "%s: L->sdy", call);
        expect_scaler(m, what, &wd.s, &L.sdy);
        expect_layer_kept(m, call, &after, &L, 1);
        gr_expect(m, L.n_cast[2] == M * N && L.n_saturated[2] == wd.saturated &&
                         L.n_flushed[2] == wd.flushed,
                  "%s\n  counts of dy: n_cast %zu, n_saturated %zu, n_flushed %zu; expected "
                  "%zu, %zu, %zu",
                  call, L.n_cast[2], L.n_saturated[2], L.n_flushed[2], M * N, wd.saturated,
                  wd.flushed);
        free(wdd);
    } else {
        float *xdd = decoded(xq, M * K, FP8_E4M3);
        snprintf(what, sizeof what, "%s: dw = (dyq^T xq) (sinv_dy x_scale_inv)", call);
        /* dw[n][k] = sum_m dyq[m][n] xq[m][k] */
        expect_product(m, what, dw, N, K, M, dyd, 1, N, xdd, 1, K,
                       wd.scale_inv * after.x_scale_inv);
        free(xdd);
    }
    free(dyd), free(wd.codes), free(xq), free(wq), free(x), free(w), free(dy), free(y);
    free(dx), free(dw);
    layer_free(&L);
}

static void test_backward(int dx_side)
{
    gr_mismatches m = {0};
    for (int i = 0; i < (int)(sizeof BACKWARD_SHAPES / sizeof BACKWARD_SHAPES[0]); i++)
        check_backward(&m, &BACKWARD_SHAPES[i], i, dx_side);
    rng_state rng;
    if (hidden_begin(&rng, 21)) {
        for (int i = 0; i < 3; i++) {
            shape sh = hidden_shape(&rng);
            check_backward(&m, &sh, 100 + i, dx_side);
        }
        hidden_end();
    }
    gr_finish(&m, "checks");
}

static void test_backward_dx(void) { test_backward(1); }
static void test_backward_dw(void) { test_backward(0); }

/* ---- §4 the update ---------------------------------------------------------------- */

static void test_update(void)
{
    gr_mismatches m = {0};
    for (int current = 0; current < 2; current++) {
        lab6_fp8_linear L = layer(current, 4, 4, 4, 3.0f, 5.0f, 7.0f);
        /* three different histories */
        L.sx.history[0] = 100.0f, L.sw.history[7] = 0.01f, L.sdy.history[15] = 1e-6f;
        L.sw.history[0] = 0.0f;
        lab6_fp8_linear want = L;
        if (!current) {
            delayed_update(&want.sx);
            delayed_update(&want.sw);
            delayed_update(&want.sdy);
        }
        lab6_fp8_update(&L);
        const char *names[3] = {"sx", "sw", "sdy"};
        const delayed_scaler *ws[3] = {&want.sx, &want.sw, &want.sdy};
        const delayed_scaler *gs[3] = {&L.sx, &L.sw, &L.sdy};
        for (int k = 0; k < 3; k++) {
            char what[160];
            snprintf(what, sizeof what, "lab6_fp8_update, %s scaling: L->%s%s",
                     current ? "current" : "delayed", names[k],
                     current ? " (current scaling has no history to move)" : "");
            expect_scaler(&m, what, ws[k], gs[k]);
        }
        expect_layer_kept(&m, current ? "lab6_fp8_update, current scaling"
                                      : "lab6_fp8_update, delayed scaling", &want, &L, 0);
        layer_free(&L);
    }
    gr_finish(&m, "scalers");
}

/* ---- §4 the fused QKV: a cast's SQNR ------------------------------------------------- */

/* lab6.h's SQNR, written here from its words: the cast and back in float,
 * the sums in double in order, NaNs left out, INFINITY for no error. */
static double sqnr_want(const float *x, size_t n, fp8_format fmt, float scale)
{
    float sinv = 1.0f / scale;
    double sig = 0.0, err = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != x[i])
            continue;
        uint8_t code = fp8_encode(x[i] * scale, fmt, true);
        float back = fp8_decode(code, fmt) * sinv;
        double d = (double)x[i] - (double)back;
        sig += (double)x[i] * (double)x[i];
        err += d * d;
    }
    return err > 0.0 ? 10.0 * log10(sig / err) : INFINITY;
}

/* The student's SQNR against want, to 1e-9 dB (log10 is the C library's). */
static void expect_sqnr(gr_mismatches *m, const char *what, const float *x, size_t n,
                        fp8_format fmt, float scale, double want)
{
    double got = lab6_cast_sqnr(x, n, fmt, scale);
    int ok = isinf(want) ? isinf(got) && got > 0 : fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want));
    gr_expect(m, ok, "lab6_cast_sqnr(%s, n = %zu, %s, scale %s)\n  expected %.10g dB\n"
              "  got      %.10g dB", what, n, fmt_name(fmt), gr_f32(scale), want, got);
}

static void test_cast_sqnr(void)
{
    gr_mismatches m = {0};
    /* by hand: 1.0625 is the tie between E4M3's 1 and 1.125, and goes to
     * the even 1: 10 log10(1.0625^2 / 0.0625^2) = 20 log10(17) */
    const float one[1] = {1.0625f};
    expect_sqnr(&m, "{1.0625}", one, 1, FP8_E4M3, 1.0f, 20.0 * log10(17.0));
    /* nothing lost: values of the format, a NaN left out; and n = 0 */
    const float exact[4] = {1.0f, -2.0f, NAN, 0.375f};
    expect_sqnr(&m, "{1, -2, NaN, 0.375}", exact, 4, FP8_E4M3, 1.0f, INFINITY);
    expect_sqnr(&m, "no values", exact, 0, FP8_E5M2, 1.0f, INFINITY);
    /* saturated: 500 at scale 1 comes back 448; a NaN beside it left out */
    const float sat[3] = {500.0f, NAN, 100.0f};
    expect_sqnr(&m, "{500, NaN, 100}", sat, 3, FP8_E4M3, 1.0f, sqnr_want(sat, 3, FP8_E4M3, 1.0f));

    /* a fused QKV weight: Q, K and V parts, V's values 2^-14 of Q's, under
     * one scale for the whole and under each part's own (448 / its amax);
     * the scale_inv 1 / scale is not a power of two here */
    enum { ROWS = 24, COLS = 40 };
    float *w = values(60, ROWS * COLS, -8, 6);
    for (size_t i = 16 * COLS; i < ROWS * COLS; i++)
        w[i] = ldexpf(w[i], -14);
    const struct { const char *name; size_t first, rows; } part[3] = {
        {"Q (rows 0-7 of a fused QKV weight)", 0, 8},
        {"K (rows 8-15)", 8, 8},
        {"V (rows 16-23, 2^-14 of Q's size)", 16, 8}};
    float whole = 0.0f;
    for (size_t i = 0; i < ROWS * COLS; i++)
        whole = fmaxf(whole, fabsf(w[i]));
    for (int p = 0; p < 3; p++) {
        const float *x = w + part[p].first * COLS;
        size_t n = part[p].rows * COLS;
        float amax = 0.0f;
        for (size_t i = 0; i < n; i++)
            amax = fmaxf(amax, fabsf(x[i]));
        float s_one = 448.0f / whole, s_own = 448.0f / amax;
        expect_sqnr(&m, part[p].name, x, n, FP8_E4M3, s_one, sqnr_want(x, n, FP8_E4M3, s_one));
        expect_sqnr(&m, part[p].name, x, n, FP8_E4M3, s_own, sqnr_want(x, n, FP8_E4M3, s_own));
    }
    /* a gradient's in E5M2, 2000 values, at a scale that saturates some */
    float *g = values(61, 2000, -30, 16);
    expect_sqnr(&m, "a gradient over 2^-30 .. 2^-14", g, 2000, FP8_E5M2, 0x1.8p+30f,
                sqnr_want(g, 2000, FP8_E5M2, 0x1.8p+30f));
    free(w), free(g);
    rng_state h;
    if (hidden_begin(&h, 25)) {
        for (int t = 0; t < 4; t++) {
            size_t n = 1 + rng_below(&h, 3000);
            int lo = (int)rng_below(&h, 40) - 30;
            float *x = values(70 + (uint64_t)t, n, lo, 1 + (int)rng_below(&h, 16));
            fp8_format fmt = t % 2 ? FP8_E5M2 : FP8_E4M3;
            float scale = fabsf(gr_hidden_float(&h, -lo - 2, 10));
            expect_sqnr(&m, "a hidden tensor", x, n, fmt, scale, sqnr_want(x, n, fmt, scale));
            free(x);
        }
        hidden_end();
    }
    gr_finish(&m, "checks");
}

/* ---- §5 fine-grained scaling ---------------------------------------------------------- */

static void expect_tile_scale(gr_mismatches *m, float amax, float want)
{
    float got = lab6_tile_scale(amax);
    gr_expect(m, f32_bits(got) == f32_bits(want), "lab6_tile_scale(%s)\n  expected %s\n  got      %s",
              gr_f32(amax), gr_f32(want), gr_f32(got));
}

static void test_tile_scale(void)
{
    gr_mismatches m = {0};
    expect_tile_scale(&m, 3.0f, 448.0f / 3.0f); /* 149.333328, the handout's */
    expect_tile_scale(&m, 448.0f, 1.0f);
    expect_tile_scale(&m, 0.0f, 1.0f);
    expect_tile_scale(&m, INFINITY, 1.0f);
    expect_tile_scale(&m, NAN, 1.0f);
    expect_tile_scale(&m, 1e-40f, FLT_MAX);       /* a subnormal: 448 / amax overflows */
    expect_tile_scale(&m, 0x1.2p-120f, FLT_MAX);  /* 448 / 2^-119.8 is past FLT_MAX */
    expect_tile_scale(&m, FLT_MAX, 448.0f / FLT_MAX);
    rng_state rng;
    rng_seed(&rng, 6, 5);
    for (int i = 0; i < 2000; i++) {
        float a = fabsf(gr_hidden_float(&rng, -140, 268));
        float s = 448.0f / a;
        expect_tile_scale(&m, a, isinf(s) ? FLT_MAX : s);
    }
    rng_state h;
    if (gr_hidden_rng(&h, 22))
        for (int i = 0; i < 500; i++) {
            float a = fabsf(gr_hidden_float(&h, -140, 268)), s = 448.0f / a;
            expect_tile_scale(&m, a, isinf(s) ? FLT_MAX : s);
        }
    gr_finish(&m, "scales");
}

/* The NumPy case (tests/lab6/numpy_finegrained.py): x 3 x 300, w 130 x 300. */
enum { FG_M = 3, FG_N = 130, FG_K = 300, FG_NT = 3, FG_NBR = 2 };

static void *finegrained(const char *name, npy_dtype dtype, size_t rows, size_t cols,
                         npy_array *a)
{
    char file[96];
    size_t shape[2] = {rows, cols};
    snprintf(file, sizeof file, "finegrained/%s", name);
    gr_golden(file, dtype, 2, shape, a);
    return a->data;
}

/* Codes and scale_invs of a quantization against want. */
static void expect_quantized(gr_mismatches *m, const char *call, const float *x, size_t rows,
                             size_t cols, const uint8_t *want_codes, const uint8_t *codes,
                             size_t nscales, size_t scale_cols, const float *want_inv,
                             const float *inv)
{
    for (size_t i = 0; i < nscales; i++)
        gr_expect(m, f32_bits(want_inv[i]) == f32_bits(inv[i]),
                  "%s\n  scale_inv[%zu] (row %zu, column %zu of the scales)\n  expected %s\n"
                  "  got      %s",
                  call, i, i / scale_cols, i % scale_cols, gr_f32(want_inv[i]), gr_f32(inv[i]));
    char what[400];
    snprintf(what, sizeof what, "%s: the codes (%zu x %zu)", call, rows, cols);
    expect_codes(m, what, x, want_codes, codes, rows * cols, FP8_E4M3, NAN);
}

/* Quantizes x (rows x cols) as tiles (blocks 0) or blocks (1) with the
 * student's function against want (NULL: the reference's). */
static void check_quantize(gr_mismatches *m, const char *what, const float *x, size_t rows,
                           size_t cols, int blocks, const uint8_t *want_codes,
                           const float *want_inv)
{
    size_t nt = (cols + LAB6_TILE - 1) / LAB6_TILE, nbr = (rows + LAB6_TILE - 1) / LAB6_TILE;
    size_t ns = blocks ? nbr * nt : rows * nt;
    uint8_t *codes = xcalloc(rows * cols, 1), *rc = NULL;
    float *inv = xcalloc(ns, sizeof(float)), *ri = NULL;
    if (!want_codes) {
        rc = xcalloc(rows * cols, 1), ri = xcalloc(ns, sizeof(float));
        (blocks ? ref_lab6_quantize_blocks : ref_lab6_quantize_tiles)(x, rows, cols, rc, ri);
        want_codes = rc, want_inv = ri;
    }
    memset(codes, 0xA5, rows * cols);
    memset(inv, 0xA5, ns * sizeof(float));
    (blocks ? lab6_quantize_blocks : lab6_quantize_tiles)(x, rows, cols, codes, inv);
    char call[300];
    snprintf(call, sizeof call, "%s(%s, %zu x %zu)",
             blocks ? "lab6_quantize_blocks" : "lab6_quantize_tiles", what, rows, cols);
    expect_quantized(m, call, x, rows, cols, want_codes, codes, ns, nt, want_inv, inv);
    free(codes), free(inv), free(rc), free(ri);
}

/* A matrix whose rows span magnitudes, with NaNs and an all-zero stretch.
 * A NaN is last of the group it is in (row 0's second tile; block (0, 0)'s
 * last value), where an amax that takes NaNs in ends NaN. */
static float *crafted(size_t rows, size_t cols, uint64_t stream)
{
    float *x = values(stream, rows * cols, -6, 4);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            x[r * cols + c] = ldexpf(x[r * cols + c], (int)(r * 7 % 30) - 15);
    if (cols >= 256)
        x[255] = NAN;
    if (rows >= 128 && cols >= 128)
        x[127 * cols + 127] = NAN;
    for (size_t c = 0; c < cols && c < 128; c++)
        x[(rows - 1) * cols + c] = 0.0f;
    return x;
}

static void test_quantize_tiles(void)
{
    gr_mismatches m = {0};
    npy_array a, b, c;
    const float *x = finegrained("x.npy", NPY_F32, FG_M, FG_K, &a);
    check_quantize(&m, "finegrained/x.npy", x, FG_M, FG_K, 0,
                   finegrained("x_codes.npy", NPY_U8, FG_M, FG_K, &b),
                   finegrained("x_scale_inv.npy", NPY_F32, FG_M, FG_NT, &c));
    npy_free(&a), npy_free(&b), npy_free(&c);
    /* one column; exactly one tile; many rows with a NaN and a zero tile */
    float *y = crafted(5, 1, 1), *z = crafted(4, 128, 2), *v = crafted(9, 520, 3);
    check_quantize(&m, "a 5 x 1 matrix", y, 5, 1, 0, NULL, NULL);
    check_quantize(&m, "a 4 x 128 matrix", z, 4, 128, 0, NULL, NULL);
    check_quantize(&m, "a 9 x 520 matrix with a NaN and a zero tile", v, 9, 520, 0, NULL, NULL);
    free(y), free(z), free(v);
    rng_state rng;
    if (gr_hidden_rng(&rng, 7)) {
        size_t rows = 2 + rng_below(&rng, 10), cols = 1 + rng_below(&rng, 600);
        float *h = xcalloc(rows * cols, sizeof(float));
        int lo = (int)rng_below(&rng, 40) - 30;
        for (size_t i = 0; i < rows * cols; i++)
            h[i] = gr_hidden_float(&rng, lo + (int)(i / 128 % 7), 6);
        check_quantize(&m, "a hidden matrix", h, rows, cols, 0, NULL, NULL);
        free(h);
    }
    gr_finish(&m, "checks");
}

static void test_quantize_blocks(void)
{
    gr_mismatches m = {0};
    npy_array a, b, c;
    const float *w = finegrained("w.npy", NPY_F32, FG_N, FG_K, &a);
    check_quantize(&m, "finegrained/w.npy", w, FG_N, FG_K, 1,
                   finegrained("w_codes.npy", NPY_U8, FG_N, FG_K, &b),
                   finegrained("w_scale_inv.npy", NPY_F32, FG_NBR, FG_NT, &c));
    npy_free(&a), npy_free(&b), npy_free(&c);
    /* more block rows than block columns, and the other way round */
    float *y = crafted(300, 129, 4), *z = crafted(5, 400, 5);
    check_quantize(&m, "a 300 x 129 matrix", y, 300, 129, 1, NULL, NULL);
    check_quantize(&m, "a 5 x 400 matrix", z, 5, 400, 1, NULL, NULL);
    free(y), free(z);
    rng_state h;
    if (hidden_begin(&h, 24)) {
        size_t rows = 1 + rng_below(&h, 300), cols = 1 + rng_below(&h, 300);
        float *v = crafted(rows, cols, 6);
        check_quantize(&m, "a hidden matrix", v, rows, cols, 1, NULL, NULL);
        free(v);
        hidden_end();
    }
    gr_finish(&m, "checks");
}

static void expect_gemm(gr_mismatches *m, const char *what, const uint8_t *xc, const float *xs,
                        const uint8_t *wc, const float *ws, size_t M, size_t N, size_t K,
                        const float *want)
{
    float *y = xcalloc(M * N, sizeof(float));
    memset(y, 0xA5, M * N * sizeof(float));
    lab6_gemm_tiles(xc, xs, wc, ws, y, M, N, K);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < M * N; i++)
        if (!stats_equal_exact(want[i], y[i]) && bad++ == 0)
            first = i;
    gr_expect(m, bad == 0,
              "lab6_gemm_tiles(%s: M = %zu, N = %zu, K = %zu)\n  y[%zu][%zu]\n  expected %s\n"
              "  got      %s\n  (%zu of %zu differ)",
              what, M, N, K, first / N, first % N, gr_f32(want[first]), gr_f32(y[first]), bad,
              M * N);
    free(y);
}

/* The reference's quantization of two crafted matrices, multiplied. */
static void check_gemm_ref(gr_mismatches *m, size_t M, size_t N, size_t K, uint64_t stream)
{
    size_t nt = (K + 127) / 128, nbr = (N + 127) / 128;
    float *x = crafted(M, K, stream), *w = values(stream + 100, N * K, -3, 5);
    x[0] = 0.0f; /* no NaN: a NaN's row and column would be NaN either way */
    for (size_t i = 0; i < M * K; i++)
        if (isnan(x[i]))
            x[i] = 1.0f;
    uint8_t *xc = xcalloc(M * K, 1), *wc = xcalloc(N * K, 1);
    float *xs = xcalloc(M * nt, sizeof(float)), *ws = xcalloc(nbr * nt, sizeof(float));
    float *want = xcalloc(M * N, sizeof(float));
    ref_lab6_quantize_tiles(x, M, K, xc, xs);
    ref_lab6_quantize_blocks(w, N, K, wc, ws);
    ref_lab6_gemm_tiles(xc, xs, wc, ws, want, M, N, K);
    expect_gemm(m, "the reference's quantization of crafted matrices", xc, xs, wc, ws, M, N, K,
                want);
    free(x), free(w), free(xc), free(wc), free(xs), free(ws), free(want);
}

static void test_gemm_tiles(void)
{
    gr_mismatches m = {0};
    npy_array a, b, c, d, e;
    expect_gemm(&m, "finegrained/x_codes.npy etc.",
                finegrained("x_codes.npy", NPY_U8, FG_M, FG_K, &a),
                finegrained("x_scale_inv.npy", NPY_F32, FG_M, FG_NT, &b),
                finegrained("w_codes.npy", NPY_U8, FG_N, FG_K, &c),
                finegrained("w_scale_inv.npy", NPY_F32, FG_NBR, FG_NT, &d), FG_M, FG_N, FG_K,
                finegrained("y.npy", NPY_F32, FG_M, FG_N, &e));
    npy_free(&a), npy_free(&b), npy_free(&c), npy_free(&d), npy_free(&e);
    check_gemm_ref(&m, 4, 260, 129, 7);
    check_gemm_ref(&m, 2, 3, 1, 8);
    rng_state h;
    if (hidden_begin(&h, 23)) {
        check_gemm_ref(&m, 1 + rng_below(&h, 8), 1 + rng_below(&h, 300), 1 + rng_below(&h, 400),
                       9);
        hidden_end();
    }
    gr_finish(&m, "checks");
}

/* ---- §6 stochastic rounding --------------------------------------------------------- */

/* lab6.h's BF16 rule on the float's bits: the dropped 16 bits are p x 2^16,
 * so up iff r < (bits & 0xFFFF) << 16; up is the bits + 1 (magnitude). */
static uint16_t sr_bf16_want(float x, uint32_t r)
{
    uint32_t u = f32_bits(x);
    if (isnan(x))
        return (uint16_t)((u >> 16) | 0x0040u);
    uint32_t low = u & 0xFFFFu;
    return (uint16_t)((u >> 16) + ((uint64_t)r < ((uint64_t)low << 16)));
}

/* The four draws of r that matter for x: 0, just below and at the
 * threshold t (up iff r < t), and the largest. */
static int draws(uint64_t t, uint32_t r[4])
{
    int n = 0;
    r[n++] = 0;
    if (t > 0)
        r[n++] = (uint32_t)(t - 1);
    if (t <= 0xFFFFFFFFu)
        r[n++] = (uint32_t)t;
    r[n++] = 0xFFFFFFFFu;
    return n;
}

static void expect_sr_bf16(gr_mismatches *m, float x, uint32_t r)
{
    uint16_t want = sr_bf16_want(x, r), got = lab6_sr_bf16(x, r);
    int ok = want == got || (isnan(x) && (got & 0x7F80u) == 0x7F80u && (got & 0x7Fu) &&
                             (got & 0x8000u) == (want & 0x8000u));
    gr_expect(m, ok, "lab6_sr_bf16(%s, r = 0x%08x)\n  expected 0x%04x (%s)\n  got      0x%04x (%s)",
              gr_f32(x), r, want, gr_f32(f32_from_bits((uint32_t)want << 16)), got,
              gr_f32(f32_from_bits((uint32_t)got << 16)));
}

static void check_sr_bf16_value(gr_mismatches *m, float x)
{
    uint32_t r[4];
    int n = draws((uint64_t)(f32_bits(x) & 0xFFFFu) << 16, r);
    for (int i = 0; i < n; i++)
        expect_sr_bf16(m, x, r[i]);
}

static void test_sr_bf16(void)
{
    gr_mismatches m = {0};
    /* the handout's: 1 + 2^-9 */
    expect_sr_bf16(&m, 0x1.008p+0f, 0x3FFFFFFFu);
    expect_sr_bf16(&m, 0x1.008p+0f, 0x40000000u);
    const float special[] = {0.0f, -0.0f, 1.0f, -1.5f, INFINITY, -INFINITY, NAN, -NAN,
                             f32_from_bits(0x7F7FFFFFu), f32_from_bits(0xFF7F8001u), f32_from_bits(0x7F7F0001u),
                             f32_from_bits(0x00000001u), f32_from_bits(0x8000FFFFu), f32_from_bits(0x7FC00001u),
                             f32_from_bits(0x7F800001u), f32_from_bits(0xFF80ABCDu)};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        check_sr_bf16_value(&m, special[i]);
    rng_state rng;
    rng_seed(&rng, 6, 9);
    for (int i = 0; i < 600; i++)
        check_sr_bf16_value(&m, f32_from_bits(rng_u32(&rng)));
    for (int i = 0; i < 600; i++)
        check_sr_bf16_value(&m, gr_hidden_float(&rng, -20, 40));
    if (gr_hidden_rng(&rng, 8))
        for (int i = 0; i < 1500; i++) {
            float x = i % 3 ? gr_hidden_float(&rng, -30, 60) : f32_from_bits(rng_u32(&rng));
            if (i % 2)
                expect_sr_bf16(&m, x, rng_u32(&rng));
            else
                check_sr_bf16_value(&m, x);
        }
    gr_finish(&m, "roundings");
}

/* lab6.h's FP8 rule from the format's neighbours of |x| (fp8_neighbours):
 * the threshold floor(p 2^32), p = (|x| - lo) / (hi - lo); and the two
 * codes. Returns 0 where x needs no random bits (NaN, past the largest,
 * or a value of the format), its code in *lo_code. */
static int sr_fp8_threshold(float x, fp8_format fmt, uint64_t *t, uint8_t *lo_code,
                            uint8_t *hi_code)
{
    const fp8_format_info *f = fp8_info(fmt);
    float a = fabsf(x), below, above;
    *lo_code = fp8_encode(x, fmt, true);
    if (isnan(x) || a >= f->max_finite)
        return 0;
    fp8_neighbours(a, fmt, &below, &above);
    if (below == a)
        return 0;
    uint8_t sign = signbit(x) ? 0x80 : 0x00;
    *lo_code = (uint8_t)(fp8_encode(below, fmt, true) | sign);
    *hi_code = (uint8_t)(fp8_encode(above, fmt, true) | sign);
    double p = ((double)a - below) / ((double)above - below);
    *t = (uint64_t)floor(ldexp(p, 32));
    return 1;
}

static void expect_sr_fp8(gr_mismatches *m, float x, fp8_format fmt, uint32_t r, uint8_t want)
{
    uint8_t got = lab6_sr_fp8(x, fmt, r);
    int ok = want == got || (fp8_is_nan(want, fmt) && fp8_is_nan(got, fmt) &&
                             (got & 0x80) == (want & 0x80));
    gr_expect(m, ok, "lab6_sr_fp8(%s, %s, r = 0x%08x)\n  expected %s\n  got      %s", gr_f32(x),
              fmt_name(fmt), r, gr_code(want, fmt), gr_code(got, fmt));
}

static void check_sr_fp8_value(gr_mismatches *m, float x, fp8_format fmt)
{
    uint64_t t = 0;
    uint8_t lo, hi;
    uint32_t r[4];
    if (!sr_fp8_threshold(x, fmt, &t, &lo, &hi)) {
        expect_sr_fp8(m, x, fmt, 0, lo);
        expect_sr_fp8(m, x, fmt, 0xFFFFFFFFu, lo);
        return;
    }
    int n = draws(t, r);
    for (int i = 0; i < n; i++)
        expect_sr_fp8(m, x, fmt, r[i], r[i] < t ? hi : lo);
}

/* x and random bits from rng, against the library's fp8_encode_stochastic
 * given the same bits. */
static void check_sr_fp8_library(gr_mismatches *m, float x, fp8_format fmt, rng_state *rng)
{
    rng_state copy = *rng;
    uint32_t r = rng_u32(rng);
    expect_sr_fp8(m, x, fmt, r, fp8_encode_stochastic(x, fmt, true, &copy));
}

static void test_sr_fp8(void)
{
    gr_mismatches m = {0};
    const fp8_format fmts[2] = {FP8_E4M3, FP8_E5M2};
    const float special[] = {0.0f, -0.0f, 1.0f, 1.0625f, -1.0625f, 447.0f, 448.0f, 449.0f,
                             -500.0f, 57000.0f, 60000.0f, INFINITY, -INFINITY, NAN, -NAN,
                             0x1p-10f, 0x1.8p-10f, -0x1p-17f, 0x1p-18f, 1e-30f, -1e-45f,
                             0x1.000002p-9f, 0x1.fffffep-9f,
                             /* p 2^32 = 1.75, rounded down to 1 (E4M3, then E5M2) */
                             0x1.cp-41f, -0x1.cp-48f};
    rng_state rng;
    rng_seed(&rng, 6, 10);
    for (int f = 0; f < 2; f++) {
        for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
            check_sr_fp8_value(&m, special[i], fmts[f]);
        for (int i = 0; i < 700; i++)
            check_sr_fp8_value(&m, gr_hidden_float(&rng, f ? -18 : -11, f ? 35 : 20), fmts[f]);
        for (int i = 0; i < 300; i++)
            check_sr_fp8_library(&m, gr_hidden_float(&rng, f ? -18 : -11, f ? 35 : 20), fmts[f],
                                 &rng);
    }
    rng_state h;
    if (gr_hidden_rng(&h, 9))
        for (int i = 0; i < 1500; i++) {
            fp8_format fmt = fmts[i % 2];
            float x = gr_hidden_float(&h, i % 2 ? -20 : -12, i % 2 ? 38 : 22);
            if (i % 3)
                check_sr_fp8_library(&m, x, fmt, &h);
            else
                check_sr_fp8_value(&m, x, fmt);
        }
    gr_finish(&m, "roundings");
}

/* The mean of DRAWS roundings of x with random bits against x: within 6
 * standard deviations of a mean of DRAWS independent draws, gap sqrt(p (1 -
 * p) / DRAWS), gap the distance between x's two neighbours. A rounding
 * biased by a tenth of a gap is about 10 of them away. fmt < 0 is BF16. */
#define DRAWS 4096

static void check_mean(gr_mismatches *m, float x, int fmt, rng_state *rng)
{
    double lo, hi, sum = 0.0;
    if (fmt < 0) {
        lo = f32_from_bits(f32_bits(x) & 0xFFFF0000u);
        hi = f32_from_bits((f32_bits(x) & 0xFFFF0000u) + 0x10000u);
    } else {
        float b, a;
        fp8_neighbours(fabsf(x), (fp8_format)fmt, &b, &a);
        lo = copysign(b, x), hi = copysign(a, x);
    }
    /* the first AGAIN draws' bits and results, asked again at the end in
     * the other order: a rounding is a function of x and r alone, and one
     * that keeps a state of its own (error diffusion, say) may be unbiased
     * without using r at all */
    enum { AGAIN = 64 };
    uint32_t rs[AGAIN];
    double got[AGAIN];
    for (int i = 0; i < DRAWS; i++) {
        uint32_t r = rng_u32(rng);
        double v = fmt < 0 ? (double)f32_from_bits((uint32_t)lab6_sr_bf16(x, r) << 16)
                           : (double)fp8_decode(lab6_sr_fp8(x, (fp8_format)fmt, r), (fp8_format)fmt);
        sum += v;
        if (i < AGAIN)
            rs[i] = r, got[i] = v;
    }
    for (int i = AGAIN - 1; i >= 0; i--) {
        double v = fmt < 0 ? (double)f32_from_bits((uint32_t)lab6_sr_bf16(x, rs[i]) << 16)
                           : (double)fp8_decode(lab6_sr_fp8(x, (fp8_format)fmt, rs[i]),
                                                (fp8_format)fmt);
        if (v != got[i]) {
            gr_expect(m, 0,
                      "%s of %s with r = 0x%08X gave %.9g, and %.9g when asked again with the "
                      "same r later: the result must depend on x and r alone",
                      fmt < 0 ? "lab6_sr_bf16" : "lab6_sr_fp8", gr_f32(x), rs[i], got[i], v);
            break;
        }
    }
    double mean = sum / DRAWS, gap = fabs(hi - lo), p = fabs(x - lo) / gap;
    double sd = gap * sqrt(p * (1.0 - p) / DRAWS);
    gr_expect(m, fabs(mean - x) <= 6.0 * sd + 1e-3 * gap,
              "%s of %s with %d random streams of bits\n  the mean is %.9g, x is %.9g: %.2f "
              "standard deviations away (at most 6)\n  its neighbours are %.9g and %.9g, p = %.4f",
              fmt < 0 ? "lab6_sr_bf16" : "lab6_sr_fp8", gr_f32(x), DRAWS, mean, (double)x,
              sd > 0 ? fabs(mean - x) / sd : INFINITY, lo, hi, p);
}

static void test_sr_unbiased(void)
{
    gr_mismatches m = {0};
    rng_state rng;
    rng_seed(&rng, 6, 11);
    /* BF16: the handout's weight update, 1 + 2^-9, p = 1/4; and p near 1/2, 3/4 */
    check_mean(&m, 0x1.008p+0f, -1, &rng);
    check_mean(&m, -0x1.3c8p-20f, -1, &rng);
    check_mean(&m, 0x1.7ecp+30f, -1, &rng);
    /* E4M3 and E5M2: normal, subnormal, negative */
    check_mean(&m, 0.3f, FP8_E4M3, &rng);
    check_mean(&m, -100.7f, FP8_E4M3, &rng);
    check_mean(&m, 0x1.4p-9f * 0.7f, FP8_E4M3, &rng);
    check_mean(&m, 1000.3f, FP8_E5M2, &rng);
    check_mean(&m, -0.0013f, FP8_E5M2, &rng);
    gr_finish(&m, "means");
}

extern const grader_lab lab6_rubric;

static const grader_case cases[] = {
    {"cast_delayed", test_cast_delayed},
    {"cast_current", test_cast_current},
    {"cast_counts", test_cast_counts},
    {"forward", test_forward},
    {"backward_dx", test_backward_dx},
    {"backward_dw", test_backward_dw},
    {"update", test_update},
    {"cast_sqnr", test_cast_sqnr},
    {"tile_scale", test_tile_scale},
    {"quantize_tiles", test_quantize_tiles},
    {"quantize_blocks", test_quantize_blocks},
    {"gemm_tiles", test_gemm_tiles},
    {"sr_bf16", test_sr_bf16},
    {"sr_fp8", test_sr_fp8},
    {"sr_unbiased", test_sr_unbiased},
};

const grader_suite grader_this_suite = {&lab6_rubric, cases, GRADER_COUNT(cases)};
