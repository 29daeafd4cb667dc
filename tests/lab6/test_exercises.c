/*
 * test_exercises.c - lab6's reference solution (solutions/lab6/lab6.c),
 * checked by things other than itself:
 *   - stochastic rounding to FP8 against the library's own
 *     (fp8_encode_stochastic, given the same 32 random bits), over floats
 *     of every magnitude and both formats;
 *   - stochastic rounding to BF16 against its closed form: the neighbours
 *     from the library's BF16 codec, the decision's boundary at exactly
 *     p * 2^32, and over 2^16 evenly spread streams a mean equal to x
 *     exactly (a rounding biased by one step in 2^16 fails it); and a
 *     random stream's mean within a 6-sigma bound;
 *   - the FP8 linear layer: each cast against the library's codec with the
 *     scale its mode calls for (delayed: the scaler's; current: from the
 *     tensor, by hand), its counts by definition, the three GEMMs against
 *     the exact products of the FP8 values within an FP32 sum's bound, the
 *     update against common/delayed;
 *   - the fine-grained quantizer and its GEMM against NumPy's
 *     (tests/lab6/numpy_finegrained.py made data/golden/lab6/finegrained),
 *     bit for bit; the scale's special cases by hand.
 *
 *   build/tests/lab6/test_exercises [DATA_DIR]    (default data/golden/lab6)
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "golden_load.h"
#include "fp8.h"
#include "lab6.h"
#include "npy.h"
#include "rng.h"

static const char *dir = "data/golden/lab6";

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* A float of any magnitude: random bits, exponent field drawn whole. */
static float any_float(rng_state *rng)
{
    return from_bits(rng_u32(rng));
}

/* The SQNR of a cast: a tie worked by hand (1.0625 goes to E4M3's 1:
 * 20 log10 17), nothing lost (INFINITY), a NaN left out, and 64 values of
 * [1, 2) at scale 1 against E4M3's grid there, multiples of 1/8 (nearbyint
 * rounds half to even, and an even multiple is an even mantissa), the sums
 * in double. */
START_TEST(cast_sqnr_closed_form)
{
    const float one[1] = {1.0625f};
    ck_assert(fabs(lab6_cast_sqnr(one, 1, FP8_E4M3, 1.0f) - 20.0 * log10(17.0)) < 1e-12);
    const float exact[3] = {1.0f, NAN, -0.375f};
    ck_assert(isinf(lab6_cast_sqnr(exact, 3, FP8_E4M3, 1.0f)));
    ck_assert(isinf(lab6_cast_sqnr(exact, 0, FP8_E5M2, 1.0f)));
    float x[64];
    double sig = 0.0, err = 0.0;
    for (int i = 0; i < 64; i++) {
        x[i] = 1.0f + (float)i / 64.0f;
        double d = (double)x[i] - nearbyint(8.0 * x[i]) / 8.0;
        sig += (double)x[i] * x[i];
        err += d * d;
    }
    double want = 10.0 * log10(sig / err), got = lab6_cast_sqnr(x, 64, FP8_E4M3, 1.0f);
    ck_assert_msg(fabs(got - want) < 1e-12, "SQNR of [1, 2) in steps of 1/64: %.12g, %.12g",
                  got, want);
}
END_TEST

START_TEST(sr_fp8_matches_library)
{
    rng_state vals, draws;
    rng_seed(&vals, 61, 1);
    rng_seed(&draws, 62, 2);
    fp8_format fmts[2] = {FP8_E4M3, FP8_E5M2};
    for (int f = 0; f < 2; f++)
        for (long i = 0; i < 400000; i++) {
            float x;
            if (i % 4 == 0)
                x = any_float(&vals);
            else /* near the format's range: 2^-20 .. 2^17 */
                x = ldexpf(rng_uniform(&vals) * 2.0f - 1.0f, (int)rng_below(&vals, 38) - 20);
            rng_state copy = draws;
            uint32_t r = rng_u32(&draws);
            uint8_t want = fp8_encode_stochastic(x, fmts[f], true, &copy);
            uint8_t got = lab6_sr_fp8(x, fmts[f], r);
            ck_assert_msg(got == want || (fp8_is_nan(got, fmts[f]) && fp8_is_nan(want, fmts[f])),
                          "%s x=%a (0x%08x) r=0x%08x: 0x%02x, the library 0x%02x",
                          fp8_info(fmts[f])->name, (double)x, to_bits(x), r, got, want);
        }
}
END_TEST

/* The BF16 neighbours of a finite x in magnitude, from the library's codec. */
static void bf16_neighbours(float x, double *lo, double *hi, uint16_t *lo_bits)
{
    uint16_t t = bf16_truncate(x);
    *lo_bits = t;
    *lo = fabs((double)fp16_decode(t, FP16_BF16));
    *hi = fabs((double)fp16_decode((uint16_t)(t + 1), FP16_BF16));
}

START_TEST(sr_bf16_closed_form)
{
    rng_state vals;
    rng_seed(&vals, 63, 3);
    for (long i = 0; i < 20000; i++) {
        float x = i % 2 ? any_float(&vals) : ldexpf(rng_uniform(&vals) + 0.5f,
                                                   (int)rng_below(&vals, 60) - 30);
        if (!isfinite(x))
            continue;
        double lo, hi;
        uint16_t lo_bits;
        bf16_neighbours(x, &lo, &hi, &lo_bits);
        if (isinf(hi))
            continue; /* past the largest finite BF16: sr_special_values */
        double p = (fabs((double)x) - lo) / (hi - lo);
        if (p == 0.0) {
            for (int k = 0; k < 4; k++) {
                uint32_t r = rng_u32(&vals);
                ck_assert_msg(lab6_sr_bf16(x, r) == lo_bits, "x=%a is BF16 but r=0x%08x moved it",
                              (double)x, r);
            }
            continue;
        }
        /* the boundary: hi for r below p * 2^32, lo from it on */
        uint32_t edge = (uint32_t)ldexp(p, 32);
        ck_assert_msg((double)edge == ldexp(p, 32), "p=%.17g is not a multiple of 2^-32", p);
        ck_assert_msg(lab6_sr_bf16(x, edge - 1) == (uint16_t)(lo_bits + 1) &&
                          lab6_sr_bf16(x, edge) == lo_bits && lab6_sr_bf16(x, 0) ==
                          (uint16_t)(lo_bits + 1) && lab6_sr_bf16(x, UINT32_MAX) == lo_bits,
                      "x=%a (p=%.9g): r=0x%08x gave 0x%04x, r=0x%08x 0x%04x; want 0x%04x then 0x%04x",
                      (double)x, p, edge - 1, lab6_sr_bf16(x, edge - 1), edge,
                      lab6_sr_bf16(x, edge), lo_bits + 1, lo_bits);
        /* 2^16 evenly spread streams, for one x in 16: the mean is x, exactly */
        if (i % 16 > 1)
            continue;
        double sum = 0.0;
        for (uint32_t k = 0; k < 65536; k++)
            sum += fabs((double)fp16_decode(lab6_sr_bf16(x, k << 16 | (k * 2654435761u >> 16)),
                                            FP16_BF16));
        ck_assert_msg(sum / 65536.0 == fabs((double)x),
                      "x=%a: the mean over 2^16 even streams is %.17g", (double)x, sum / 65536.0);
    }
}
END_TEST

START_TEST(sr_bf16_random_stream_unbiased)
{
    rng_state r;
    rng_seed(&r, 64, 4);
    /* x a third of the way through its gap: p = 1/3 to 2^-16 */
    float xs[3] = {1.0f + 1.0f / 384.0f, -3.0e-3f, 7.1e10f};
    for (int i = 0; i < 3; i++) {
        double lo, hi;
        uint16_t lo_bits;
        bf16_neighbours(xs[i], &lo, &hi, &lo_bits);
        double p = (fabs((double)xs[i]) - lo) / (hi - lo);
        const long n = 200000;
        double sum = 0.0;
        for (long k = 0; k < n; k++)
            sum += fabs((double)fp16_decode(lab6_sr_bf16(xs[i], rng_u32(&r)), FP16_BF16));
        double mean = sum / (double)n, sigma = (hi - lo) * sqrt(p * (1.0 - p) / (double)n);
        ck_assert_msg(fabs(mean - fabs((double)xs[i])) <= 6.0 * sigma,
                      "x=%a: mean of %ld roundings %.9g, off by %.3g sigma", (double)xs[i], n,
                      mean, (mean - fabs((double)xs[i])) / sigma);
    }
}
END_TEST

START_TEST(sr_special_values)
{
    /* BF16 */
    ck_assert_uint_eq(lab6_sr_bf16(INFINITY, 0), 0x7F80);
    ck_assert_uint_eq(lab6_sr_bf16(-INFINITY, 0), 0xFF80);
    ck_assert_uint_eq(lab6_sr_bf16(-0.0f, 0), 0x8000);
    ck_assert_uint_eq(lab6_sr_bf16(from_bits(0x7F800001u), 0) & 0x7FC0, 0x7FC0);
    ck_assert_uint_eq(lab6_sr_bf16(from_bits(0xFF800001u), 0), 0xFFC0);
    ck_assert_uint_eq(lab6_sr_bf16(FLT_MAX, 0), 0x7F80);          /* up: past the largest */
    ck_assert_uint_eq(lab6_sr_bf16(FLT_MAX, UINT32_MAX), 0x7F7F); /* down */
    ck_assert_uint_eq(lab6_sr_bf16(from_bits(0x00000001u), 0), 0x0001); /* the least subnormal up */
    ck_assert_uint_eq(lab6_sr_bf16(from_bits(0x00000001u), 0x00010000u), 0x0000);
    /* FP8: saturating, NaN of x's sign */
    ck_assert_uint_eq(lab6_sr_fp8(1000.0f, FP8_E4M3, 0), 0x7E);
    ck_assert_uint_eq(lab6_sr_fp8(-INFINITY, FP8_E4M3, 0), 0xFE);
    ck_assert_uint_eq(lab6_sr_fp8(INFINITY, FP8_E5M2, 0), 0x7B);
    ck_assert(fp8_is_nan(lab6_sr_fp8(NAN, FP8_E4M3, 0), FP8_E4M3));
    ck_assert_uint_eq(lab6_sr_fp8(-0.0f, FP8_E5M2, 0), 0x80);
    /* 1 + 1/16 in E4M3 is half a gap above 1: r below 2^31 rounds up */
    ck_assert_uint_eq(lab6_sr_fp8(1.0625f, FP8_E4M3, 0x7FFFFFFFu), 0x39);
    ck_assert_uint_eq(lab6_sr_fp8(1.0625f, FP8_E4M3, 0x80000000u), 0x38);
    /* far below the least subnormal, p * 2^32 is not whole: p = 2^-21 (1 + 2^-23)
     * for E4M3, whose gap there is 2^-9; p * 2^32 = 2048 + 2^-12, rounded down */
    float tiny = ldexpf(1.0f + 0x1p-23f, -30);
    ck_assert_uint_eq(lab6_sr_fp8(tiny, FP8_E4M3, 2047), 0x01);
    ck_assert_uint_eq(lab6_sr_fp8(tiny, FP8_E4M3, 2048), 0x00);
    ck_assert_uint_eq(lab6_sr_fp8(-tiny, FP8_E4M3, 2047), 0x81);
}
END_TEST

static void *load(const char *name, npy_dtype dtype, size_t n)
{
    char sub[512];
    snprintf(sub, sizeof sub, "%s/finegrained", dir);
    return golden_load(sub, name, dtype, n);
}

static void same_floats(const char *what, const float *got, const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(to_bits(got[i]) == to_bits(want[i]), "%s[%zu]: %a, NumPy %a", what, i,
                      (double)got[i], (double)want[i]);
}

static void same_codes(const char *what, const uint8_t *got, const uint8_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "%s[%zu]: 0x%02x, NumPy 0x%02x", what, i, got[i],
                      want[i]);
}

START_TEST(finegrained_matches_numpy)
{
    enum { M = 3, N = 130, K = 300, NT = 3, NBR = 2 };
    float *x = load("x.npy", NPY_F32, M * K), *w = load("w.npy", NPY_F32, N * K);
    uint8_t *xc = load("x_codes.npy", NPY_U8, M * K), *wc = load("w_codes.npy", NPY_U8, N * K);
    float *xs = load("x_scale_inv.npy", NPY_F32, M * NT);
    float *ws = load("w_scale_inv.npy", NPY_F32, NBR * NT);
    float *y = load("y.npy", NPY_F32, M * N);
    static uint8_t gxc[M * K], gwc[N * K];
    static float gxs[M * NT], gws[NBR * NT], gy[M * N];
    lab6_quantize_tiles(x, M, K, gxc, gxs);
    same_codes("x codes", gxc, xc, M * K);
    same_floats("x scale_inv", gxs, xs, M * NT);
    lab6_quantize_blocks(w, N, K, gwc, gws);
    same_codes("w codes", gwc, wc, N * K);
    same_floats("w scale_inv", gws, ws, NBR * NT);
    lab6_gemm_tiles(xc, xs, wc, ws, gy, M, N, K);
    same_floats("y", gy, y, M * N);
    /* the golden has what it claims: a zero tile, an outlier's block */
    ck_assert(xs[1 * NT + 1] == 1.0f);
    ck_assert(ws[0 * NT + 0] == 50.0f / 448.0f);
    free(x), free(w), free(xc), free(wc), free(xs), free(ws), free(y);
}
END_TEST

START_TEST(tile_scale_cases)
{
    ck_assert(lab6_tile_scale(0.0f) == 1.0f);
    ck_assert(lab6_tile_scale(INFINITY) == 1.0f);
    ck_assert(lab6_tile_scale(NAN) == 1.0f);
    ck_assert(lab6_tile_scale(448.0f) == 1.0f);
    ck_assert(lab6_tile_scale(3.0f) == 448.0f / 3.0f);
    ck_assert(lab6_tile_scale(1e-40f) == FLT_MAX); /* 448 / a subnormal overflows */
    /* a NaN in a tile is ignored for its scale and encoded as NaN */
    float x[130];
    for (int i = 0; i < 130; i++)
        x[i] = (float)(i % 7) - 3.0f;
    x[127] = NAN; /* last: an amax that took it would end NaN */
    uint8_t codes[130];
    float inv[2];
    lab6_quantize_tiles(x, 1, 130, codes, inv);
    ck_assert(inv[0] == 1.0f / (448.0f / 3.0f));
    ck_assert(fp8_is_nan(codes[127], FP8_E4M3));
    ck_assert_uint_eq(codes[6], 0x7E); /* 3 * 448/3 rounds to 448 */
    ck_assert_uint_eq(codes[3], 0x00);
}
END_TEST

/* ---- the FP8 linear layer ---------------------------------------------------------- */

static lab6_fp8_linear fresh_linear(int current, size_t cap_x, size_t cap_w)
{
    lab6_fp8_linear L;
    memset(&L, 0, sizeof L);
    delayed_init(&L.sx, FP8_E4M3, false, 16, 0);
    delayed_init(&L.sw, FP8_E4M3, false, 16, 0);
    delayed_init(&L.sdy, FP8_E5M2, false, 16, 0);
    L.current = current;
    L.cap_x = cap_x;
    L.cap_w = cap_w;
    L.xq = malloc(cap_x);
    L.wq = malloc(cap_w);
    ck_assert(L.xq && L.wq);
    return L;
}

static void fill(float *x, size_t n, float scale, rng_state *rng)
{
    for (size_t i = 0; i < n; i++)
        x[i] = scale * rng_normal(rng);
}

START_TEST(fp8_cast_delayed_and_current)
{
    rng_state rng;
    rng_seed(&rng, 65, 5);
    float x[1000];
    uint8_t codes[1000];
    fill(x, 1000, 3.0f, &rng);
    x[7] = 2000.0f;   /* saturates at scale 1 */
    x[8] = 1e-4f;     /* flushes at scale 1: below half of 2^-9 */
    x[9] = -0.0f;     /* a zero is not flushed */
    x[10] = -448.0f;  /* the largest value is not saturated */
    delayed_scaler s;
    delayed_init(&s, FP8_E4M3, false, 16, 0);
    size_t sat = 99, fl = 99;
    float inv = lab6_fp8_cast(&s, 0, x, 1000, codes, &sat, &fl);
    ck_assert(inv == 1.0f && s.scale == 1.0f);
    ck_assert_msg(s.history[0] == 2000.0f, "history[0] %g, want the amax 2000", (double)s.history[0]);
    size_t want_sat = 0, want_fl = 0;
    for (int i = 0; i < 1000; i++) {
        ck_assert_uint_eq(codes[i], fp8_encode(x[i], FP8_E4M3, true));
        want_sat += fabsf(x[i]) > 448.0f;
        want_fl += x[i] != 0.0f && fp8_is_zero(codes[i], FP8_E4M3);
    }
    ck_assert_uint_eq(sat, want_sat);
    ck_assert_uint_eq(fl, want_fl);
    ck_assert(sat >= 1 && fl >= 1);
    /* current scaling: 448 / 2000 from this tensor, before the cast */
    delayed_init(&s, FP8_E4M3, false, 16, 0);
    inv = lab6_fp8_cast(&s, 1, x, 1000, codes, NULL, NULL);
    float scale = 448.0f / 2000.0f;
    ck_assert_msg(s.scale == scale && s.scale_inv == 1.0f / scale && inv == 1.0f / scale,
                  "current: scale %a, scale_inv %a, returned %a; want %a, %a", (double)s.scale,
                  (double)s.scale_inv, (double)inv, (double)scale, (double)(1.0f / scale));
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(codes[i], fp8_encode(x[i] * scale, FP8_E4M3, true));
    /* current scaling's special amaxes: 0, infinite, tiny; E5M2's largest */
    float zeros[3] = {0.0f, -0.0f, 0.0f}, inf[2] = {1.0f, -INFINITY}, tiny[1] = {1e-40f};
    float big[2] = {1.0f, 8.0f};
    delayed_init(&s, FP8_E5M2, false, 16, 0);
    lab6_fp8_cast(&s, 1, zeros, 3, codes, NULL, NULL);
    ck_assert(s.scale == 1.0f);
    lab6_fp8_cast(&s, 1, inf, 2, codes, NULL, NULL);
    ck_assert(s.scale == 1.0f);
    lab6_fp8_cast(&s, 1, tiny, 1, codes, NULL, NULL);
    ck_assert(s.scale == FLT_MAX);
    lab6_fp8_cast(&s, 1, big, 2, codes, NULL, NULL);
    ck_assert(s.scale == 57344.0f / 8.0f);
    ck_assert_uint_eq(codes[1], 0x7B); /* 8 * 7168 = 57344 */
}
END_TEST

/* |got - want| within 2 (K + 2) 2^-24 times the sum of the terms'
 * magnitudes (lab3's bound for an FP32 sum in any order, and the scale). */
static void within_gemm_bound(const char *what, size_t i, float got, double want, double mag,
                              size_t K)
{
    double bound = 2.0 * (double)(K + 2) * 0x1p-24 * mag + 1e-30;
    ck_assert_msg(fabs((double)got - want) <= bound, "%s[%zu]: %.9g, exact %.9g (bound %.3g)", what,
                  i, (double)got, want, bound);
}

START_TEST(fp8_linear_matches_exact_products)
{
    enum { M = 9, N = 7, K = 40 };
    rng_state rng;
    rng_seed(&rng, 66, 6);
    float x[M * K], w[N * K], y[M * N], dy[M * N], dx[M * K], dw[N * K];
    for (int current = 0; current < 2; current++) {
        lab6_fp8_linear L = fresh_linear(current, M * K, N * K);
        for (int step = 0; step < 3; step++) {
            fill(x, M * K, 20.0f, &rng);
            fill(w, N * K, 0.05f, &rng);
            fill(dy, M * N, 1e-3f, &rng);
            float sx = L.sx.scale, sw = L.sw.scale; /* delayed: the scales the casts use */
            lab6_fp8_forward(&L, x, w, y, M, N, K);
            if (current) {
                sx = L.sx.scale;
                sw = L.sw.scale;
            }
            for (int i = 0; i < M * K; i++)
                ck_assert_uint_eq(L.xq[i], fp8_encode(x[i] * sx, FP8_E4M3, true));
            for (int i = 0; i < N * K; i++)
                ck_assert_uint_eq(L.wq[i], fp8_encode(w[i] * sw, FP8_E4M3, true));
            ck_assert(L.x_scale_inv == 1.0f / sx && L.w_scale_inv == 1.0f / sw);
            ck_assert(L.n_cast[0] == M * K && L.n_cast[1] == N * K);
            float s = L.x_scale_inv * L.w_scale_inv;
            for (int m = 0; m < M; m++)
                for (int n = 0; n < N; n++) {
                    double sum = 0.0, mag = 0.0;
                    for (int k = 0; k < K; k++) {
                        double t = (double)fp8_decode(L.xq[m * K + k], FP8_E4M3) *
                                   (double)fp8_decode(L.wq[n * K + k], FP8_E4M3);
                        sum += t, mag += fabs(t);
                    }
                    within_gemm_bound("y", (size_t)(m * N + n), y[m * N + n], sum * (double)s,
                                      mag * (double)s, K);
                }
            float sdy = L.sdy.scale;
            lab6_fp8_backward(&L, dy, dx, dw, M, N, K);
            if (current)
                sdy = L.sdy.scale;
            uint8_t dyq[M * N];
            for (int i = 0; i < M * N; i++)
                dyq[i] = fp8_encode(dy[i] * sdy, FP8_E5M2, true);
            float sinv_dy = 1.0f / sdy, s_dx = sinv_dy * L.w_scale_inv,
                  s_dw = sinv_dy * L.x_scale_inv;
            for (int m = 0; m < M; m++)
                for (int k = 0; k < K; k++) {
                    double sum = 0.0, mag = 0.0;
                    for (int n = 0; n < N; n++) {
                        double t = (double)fp8_decode(dyq[m * N + n], FP8_E5M2) *
                                   (double)fp8_decode(L.wq[n * K + k], FP8_E4M3);
                        sum += t, mag += fabs(t);
                    }
                    within_gemm_bound("dx", (size_t)(m * K + k), dx[m * K + k],
                                      sum * (double)s_dx, mag * (double)s_dx, N);
                }
            for (int n = 0; n < N; n++)
                for (int k = 0; k < K; k++) {
                    double sum = 0.0, mag = 0.0;
                    for (int m = 0; m < M; m++) {
                        double t = (double)fp8_decode(dyq[m * N + n], FP8_E5M2) *
                                   (double)fp8_decode(L.xq[m * K + k], FP8_E4M3);
                        sum += t, mag += fabs(t);
                    }
                    within_gemm_bound("dw", (size_t)(n * K + k), dw[n * K + k],
                                      sum * (double)s_dw, mag * (double)s_dw, M);
                }
            /* the update: the scalers move as common/delayed moves a copy */
            delayed_scaler want[3] = {L.sx, L.sw, L.sdy};
            lab6_fp8_update(&L);
            if (!current)
                for (int t = 0; t < 3; t++)
                    delayed_update(&want[t]);
            ck_assert_msg(L.sx.scale == want[0].scale && L.sw.scale == want[1].scale &&
                              L.sdy.scale == want[2].scale &&
                              memcmp(L.sdy.history, want[2].history, sizeof want[2].history) == 0,
                          "step %d (%s): the scalers after lab6_fp8_update", step,
                          current ? "current" : "delayed");
            if (!current && step == 0)
                ck_assert_msg(L.sx.scale != 1.0f && L.sdy.scale != 1.0f,
                              "delayed: the first update left the scale at 1");
        }
        free(L.xq);
        free(L.wq);
    }
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab6 exercises (reference)");
    TCase *tc = tcase_create("exercises");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, cast_sqnr_closed_form);
    tcase_add_test(tc, sr_fp8_matches_library);
    tcase_add_test(tc, sr_bf16_closed_form);
    tcase_add_test(tc, sr_bf16_random_stream_unbiased);
    tcase_add_test(tc, sr_special_values);
    tcase_add_test(tc, finegrained_matches_numpy);
    tcase_add_test(tc, tile_scale_cases);
    tcase_add_test(tc, fp8_cast_delayed_and_current);
    tcase_add_test(tc, fp8_linear_matches_exact_products);
    suite_add_tcase(s, tc);
    return check_run(s);
}
