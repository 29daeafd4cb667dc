/*
 * lab5/memory.c - lab5's tests of the memory-bound kernels (README §2-§4):
 * lab5_amax, lab5_scale_cast and lab5_mx_quantize, byte for byte against
 * the course library, and the checks the performance tests reuse
 * (check_amax, check_cast, check_mx). What they test and why is at the top
 * of lab5/suite.c.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "bits.h"
#include "lab5.h"
#include "lab5_bound.h"
#include "mx.h"
#include "suite.h"
#include "tests.h"

static const char *const rule_names[2] = {"MX_SCALE_FLOOR", "MX_SCALE_CEIL"};

/* An E8M0 code as "0x7f (2^0)". */
static const char *e8m0_str(uint8_t s)
{
    static char ring[4][32];
    static int k;
    char *b = ring[k++ % 4];
    if (s == 0xFF)
        snprintf(b, 32, "0xff (NaN)");
    else
        snprintf(b, 32, "0x%02x (2^%d)", s, (int)s - 127);
    return b;
}

/* ---- §2 amax ------------------------------------------------------------------------ */

static float run_amax(const float *d_x, size_t n, float *d_amax, cudaStream_t st,
                      const char *call)
{
    dev_fill(d_amax, float_poison(), sizeof(float));
    after_call(call, lab5_amax(d_x, n, d_amax, st), st);
    float got;
    from_dev(&got, d_amax, sizeof got);
    return got;
}

/* lab5_amax on d_x (x[0 .. n) on the host) against stats_amax. */
void check_amax(gr_mismatches *m, cudaStream_t st, const float *x, const float *d_x,
                       size_t n, float *d_amax, const char *what)
{
    char call[320]; /* what (its callers': under 256 bytes) and n */
    snprintf(call, sizeof call, "lab5_amax(%s, n = %zu)", what, n);
    float want = stats_amax(x, n, NULL);
    float got = run_amax(d_x, n, d_amax, st, call);
    expect_float(m, call, "*amax", want, got);
}

#define AMAX_NMAX (((size_t)1 << 26) + 5)

/* Hidden inputs: three sizes and their values drawn from the seed. */
static void amax_hidden(gr_mismatches *m, cudaStream_t st, float *x, float *d_x,
                        float *d_amax)
{
    rng_state rng;
    if (!gr_hidden_rng(&rng, 51))
        return;
    size_t sizes[3] = {1 + rng_below(&rng, 100), 1 + rng_below(&rng, 1u << 16),
                       ((size_t)1 << 20) + rng_below(&rng, 1u << 24)};
    for (int s = 0; s < 3; s++) {
        size_t n = sizes[s];
        for (size_t i = 0; i < n; i++)
            x[i] = rng_below(&rng, 1000) == 0 ? NAN : gr_hidden_float(&rng, -40, 80);
        to_dev(d_x, x, n * sizeof(float));
        check_amax(m, st, x, d_x, n, d_amax, "hidden tensor");
    }
}

void test_amax(void)
{
    cudaStream_t st = gpu_begin();
    static const size_t sizes[] = {1000, 4093, 65537, ((size_t)1 << 22) + 3,
                                   ((size_t)1 << 25) + 7, ((size_t)1 << 26) - 1, AMAX_NMAX};
    float *x = xmalloc(AMAX_NMAX * sizeof(float));
    rng_state rng;
    rng_seed(&rng, 5, 1);
    fill_tensor(&rng, x, AMAX_NMAX);
    float *d_x = dev_alloc(AMAX_NMAX * sizeof(float)), *d_amax = dev_alloc(sizeof(float));
    to_dev(d_x, x, AMAX_NMAX * sizeof(float));
    float top = 2.0f * stats_amax(x, AMAX_NMAX, NULL); /* beyond every |x[i]| */
    gr_mismatches m = {0};
    char what[160];

    for (size_t n = 1; n <= 70; n++) {
        check_amax(&m, st, x, d_x, n, d_amax, "random x");
        float old = set_elem(x, d_x, n - 1, -top);
        snprintf(what, sizeof what, "random x, the largest |x| last, x[%zu] = %s", n - 1,
                 gr_f32(-top));
        check_amax(&m, st, x, d_x, n, d_amax, what);
        set_elem(x, d_x, n - 1, old);
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        check_amax(&m, st, x, d_x, n, d_amax, "random x");
        size_t at[3] = {0, n - 1, rng_below(&rng, (uint32_t)n)};
        for (int p = 0; p < 3; p++) {
            float v = p == 1 ? -top : top;
            float old = set_elem(x, d_x, at[p], v);
            snprintf(what, sizeof what, "random x, the largest |x| at x[%zu] = %s", at[p],
                     gr_f32(v));
            check_amax(&m, st, x, d_x, n, d_amax, what);
            set_elem(x, d_x, at[p], old);
        }
    }
    amax_hidden(&m, st, x, d_x, d_amax);
    dev_free(d_x);
    dev_free(d_amax);
    free(x);
    gr_finish(&m, "amaxes");
}

/* A case worked by hand: want, not stats_amax, is what it must give. */
static void amax_hand(gr_mismatches *m, cudaStream_t st, const float *x, size_t n, float *d_x,
                      float *d_amax, float want, const char *what)
{
    if (n)
        to_dev(d_x, x, n * sizeof(float));
    char call[320]; /* what (its callers': under 256 bytes) and n */
    snprintf(call, sizeof call, "lab5_amax(%s, n = %zu)", what, n);
    float got = run_amax(d_x, n, d_amax, st, call);
    expect_float(m, call, "*amax", want, got);
}

#define SPECIAL_N (((size_t)1 << 20) + 3)

void test_amax_special(void)
{
    cudaStream_t st = gpu_begin();
    const float nan_big = f32_from_bits(0x7FFFFFFFu), nan_neg = f32_from_bits(0xFFC00000u);
    const float snan = f32_from_bits(0x7F800001u), nan_all = f32_from_bits(0xFFFFFFFFu);
    const float nans[4] = {nan_big, nan_neg, snan, nan_all};
    float *x = xmalloc(SPECIAL_N * sizeof(float));
    float *d_x = dev_alloc(SPECIAL_N * sizeof(float)), *d_amax = dev_alloc(sizeof(float));
    gr_mismatches m = {0};
    rng_state rng;
    rng_seed(&rng, 5, 2);

    const float a[] = {1.0f, NAN, -3.0f, 2.0f};
    amax_hand(&m, st, a, 4, d_x, d_amax, 3.0f, "{1, NaN, -3, 2}");
    const float b[] = {NAN};
    amax_hand(&m, st, b, 1, d_x, d_amax, 0.0f, "{NaN}");
    const float c[] = {nan_big, nan_neg, snan, nan_all, -NAN};
    amax_hand(&m, st, c, 5, d_x, d_amax, 0.0f,
              "{NaN 0x7fffffff, NaN 0xffc00000, NaN 0x7f800001, NaN 0xffffffff, -NaN}");
    const float d[] = {1.0f, -INFINITY, 2.0f};
    amax_hand(&m, st, d, 3, d_x, d_amax, INFINITY, "{1, -inf, 2}");
    const float e[] = {nan_big, -INFINITY, NAN};
    amax_hand(&m, st, e, 3, d_x, d_amax, INFINITY, "{NaN 0x7fffffff, -inf, NaN}");
    const float f[] = {INFINITY};
    amax_hand(&m, st, f, 1, d_x, d_amax, INFINITY, "{inf}");
    const float g[] = {-0.0f, 0.0f, -0.0f};
    amax_hand(&m, st, g, 3, d_x, d_amax, 0.0f, "{-0, +0, -0}: +0 expected");
    const float h[] = {-0.0f};
    amax_hand(&m, st, h, 1, d_x, d_amax, 0.0f, "{-0}: +0 expected");
    const float sub[] = {0x1p-149f, -0x1p-130f, 0x1p-140f};
    amax_hand(&m, st, sub, 3, d_x, d_amax, 0x1p-130f,
              "{2^-149, -2^-130, 2^-140}, subnormals (not flushed to zero)");
    amax_hand(&m, st, a, 0, d_x, d_amax, 0.0f, "n == 0: *amax = 0");

    /* Large ones, against stats_amax. */
    size_t n = 100003;
    rng_fill_normal(&rng, x, n, 0.0f, 1.0f);
    for (size_t i = 3; i < n; i += 7)
        x[i] = nans[(i / 7) % 4];
    x[n - 1] = -8.0f;
    to_dev(d_x, x, n * sizeof(float));
    check_amax(&m, st, x, d_x, n, d_amax, "N(0, 1) with a NaN in every 7 (some of them "
               "0x7fffffff, above inf as an integer), the largest |x| last");

    n = SPECIAL_N;
    for (size_t i = 0; i < n; i++)
        x[i] = nans[i % 4];
    to_dev(d_x, x, n * sizeof(float));
    check_amax(&m, st, x, d_x, n, d_amax, "every element NaN");
    size_t at = rng_below(&rng, (uint32_t)n);
    set_elem(x, d_x, at, -INFINITY);
    check_amax(&m, st, x, d_x, n, d_amax, "every element NaN but one -inf");

    for (size_t i = 0; i < n; i++)
        x[i] = -0.0f;
    to_dev(d_x, x, n * sizeof(float));
    check_amax(&m, st, x, d_x, n, d_amax, "every element -0");

    for (size_t i = 0; i < n; i++)
        x[i] = f32_from_bits((rng_u32(&rng) & 0x807FFFFFu) | 1u);
    to_dev(d_x, x, n * sizeof(float));
    check_amax(&m, st, x, d_x, n, d_amax, "random subnormals");

    rng_fill_normal(&rng, x, n, 0.0f, 1.0f);
    to_dev(d_x, x, n * sizeof(float));
    float old = set_elem(x, d_x, 0, -100.0f);
    check_amax(&m, st, x, d_x, n, d_amax, "N(0, 1), the largest |x| first, x[0] = -100");
    set_elem(x, d_x, 0, old);
    set_elem(x, d_x, n - 1, -100.0f);
    check_amax(&m, st, x, d_x, n, d_amax, "N(0, 1), the largest |x| last, x[n-1] = -100");

    dev_free(d_x);
    dev_free(d_amax);
    free(x);
    gr_finish(&m, "amaxes");
}

#define RACE_BITS 24
#define RACE_N ((size_t)1 << RACE_BITS)
#define RACE_RUNS 30

void test_amax_race(void)
{
    cudaStream_t st = gpu_begin();
    const uint32_t mask = (uint32_t)RACE_N - 1;
    float *x = xmalloc(RACE_N * sizeof(float));
    float *d_x = dev_alloc(RACE_N * sizeof(float)), *d_amax = dev_alloc(sizeof(float));
    gr_mismatches m = {0};
    char what[256];
    for (int run = 0; run < RACE_RUNS; run++) {
        rng_state rng;
        rng_seed(&rng, 5, 300 + (uint64_t)run);
        /* j(i): an odd multiply and an add, xorshift, an odd multiply, xorshift:
         * each a bijection of 24-bit numbers, so every j appears once. */
        uint32_t mul1 = rng_u32(&rng) | 1u, add = rng_u32(&rng), mul2 = rng_u32(&rng) | 1u;
        uint32_t signs = 0;
        size_t top = 0;
        for (size_t i = 0; i < RACE_N; i++) {
            uint32_t j = ((uint32_t)i * mul1 + add) & mask;
            j ^= j >> 12;
            j = (j * mul2) & mask;
            j ^= j >> 7;
            if ((i & 31) == 0)
                signs = rng_u32(&rng);
            x[i] = f32_from_bits((0x3F800000u + j) | ((signs >> (i & 31)) & 1u) << 31);
            if (j == mask)
                top = i;
        }
        size_t at = run == 0 ? RACE_N - 1 : run == 1 ? 0 : rng_below(&rng, (uint32_t)RACE_N);
        float t = x[top];
        x[top] = x[at];
        x[at] = t;
        to_dev(d_x, x, RACE_N * sizeof(float));
        snprintf(what, sizeof what, "run %d of %d: 2^24 distinct |x| in [1, 4), the largest "
                 "x[%zu] = %s", run + 1, RACE_RUNS, at, gr_f32(x[at]));
        check_amax(&m, st, x, d_x, RACE_N, d_amax, what);
    }
    dev_free(d_x);
    dev_free(d_amax);
    free(x);
    gr_finish(&m, "runs");
}

/* ---- §3 the fused scale-and-cast ------------------------------------------------------ */

void cast_open(cast_bufs *b, size_t cap)
{
    b->cap = cap;
    b->d_x = dev_alloc(cap * sizeof(float));
    b->d_scale = dev_alloc(sizeof(float));
    b->d_amax = dev_alloc(sizeof(float));
    b->d_q = dev_alloc(cap + GUARD);
    b->q = xmalloc(cap + GUARD);
}

void cast_close(cast_bufs *b)
{
    dev_free(b->d_x);
    dev_free(b->d_scale);
    dev_free(b->d_amax);
    dev_free(b->d_q);
    free(b->q);
}

/* lab5_scale_cast of b->d_x, which holds x[0 .. n): every code, the GUARD
 * bytes after them, and *amax. */
void check_cast(gr_mismatches *m, cudaStream_t st, cast_bufs *b, const float *x,
                       size_t n, float scale, fp8_format fmt, const char *what)
{
    char call[256];
    snprintf(call, sizeof call, "lab5_scale_cast(%s, n = %zu, scale = %s, %s)", what, n,
             gr_f32(scale), fmt_name(fmt));
    to_dev(b->d_scale, &scale, sizeof scale);
    dev_fill(b->d_q, 0xA5, n + GUARD);
    dev_fill(b->d_amax, float_poison(), sizeof(float));
    after_call(call, lab5_scale_cast(b->d_x, n, b->d_scale, fmt, b->d_q, b->d_amax, st), st);
    float amax;
    from_dev(b->q, b->d_q, n + GUARD);
    from_dev(&amax, b->d_amax, sizeof amax);
    /* the expected codes in chunks, through the codec's bulk encoder (the
     * same codes as fp8_encode's, every float checked: oracle_sweep_nvidia);
     * a chunk that matches whole is counted at once */
    enum { CHUNK = 4096 };
    size_t show = (size_t)gr_show();
    float product[CHUNK];
    uint8_t want[CHUNK];
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t len = n - i0 < CHUNK ? n - i0 : CHUNK;
        for (size_t j = 0; j < len; j++)
            product[j] = x[i0 + j] * scale; /* one float multiplication, rounded */
        fp8_encode_array(product, want, len, fmt, true);
        if (memcmp(b->q + i0, want, len) == 0) {
            m->checked += len;
            continue;
        }
        if (m->count >= show) { /* described enough: only counted, as tally would */
            size_t bad = 0;
            for (size_t j = 0; j < len; j++)
                bad += b->q[i0 + j] != want[j];
            m->checked += len;
            m->count += bad;
            continue;
        }
        for (size_t j = 0; j < len; j++) {
            size_t i = i0 + j;
            if (tally(m, b->q[i] == want[j]))
                gr_expect(m, 0, "%s\n  q[%zu]: x = %s, x * scale = %s\n  expected %s\n  got      %s",
                          call, i, gr_f32(x[i]), gr_f32(product[j]), gr_code(want[j], fmt),
                          gr_code(b->q[i], fmt));
        }
    }
    expect_guard(m, call, "q", n, b->q + n, 0xA5);
    expect_float(m, call, "*amax (max |x|, of x, not of x * scale)", stats_amax(x, n, NULL),
                 amax);
}

static const size_t cast_sizes[] = {1000, 4093, 65537, ((size_t)1 << 22) + 3, AMAX_NMAX};

/* Hidden inputs: three sizes, their values (a few of them 0, -0, NaN, inf)
 * and a scale drawn from the seed. */
static void cast_hidden(gr_mismatches *m, cudaStream_t st, cast_bufs *b, float *x)
{
    rng_state rng;
    if (!gr_hidden_rng(&rng, 52))
        return;
    static const float special[5] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY};
    size_t sizes[3] = {1 + rng_below(&rng, 100), 1 + rng_below(&rng, 1u << 16),
                       ((size_t)1 << 20) + rng_below(&rng, 1u << 22)};
    for (int s = 0; s < 3; s++) {
        size_t n = sizes[s];
        for (size_t i = 0; i < n; i++)
            x[i] = rng_below(&rng, 500) == 0 ? special[rng_below(&rng, 5)]
                                              : gr_hidden_float(&rng, -30, 60);
        float scale = fabsf(gr_hidden_float(&rng, -12, 24));
        to_dev(b->d_x, x, n * sizeof(float));
        check_cast(m, st, b, x, n, scale, FP8_E4M3, "hidden tensor");
    }
}

static void cast_random(fp8_format fmt, const float *scales, int nscales, int hidden)
{
    cudaStream_t st = gpu_begin();
    float *x = xmalloc(AMAX_NMAX * sizeof(float));
    rng_state rng;
    rng_seed(&rng, 5, fmt == FP8_E4M3 ? 10 : 11);
    fill_tensor(&rng, x, AMAX_NMAX);
    cast_bufs b;
    cast_open(&b, AMAX_NMAX);
    to_dev(b.d_x, x, AMAX_NMAX * sizeof(float));
    gr_mismatches m = {0};
    for (size_t n = 1; n <= 70; n++)
        for (int s = 0; s < nscales; s++)
            check_cast(&m, st, &b, x, n, scales[s], fmt, "random x");
    for (size_t k = 0; k < sizeof cast_sizes / sizeof cast_sizes[0]; k++)
        for (int s = 0; s < nscales; s++)
            check_cast(&m, st, &b, x, cast_sizes[k], scales[s], fmt, "random x");
    if (hidden)
        cast_hidden(&m, st, &b, x);
    cast_close(&b);
    free(x);
    gr_finish(&m, "checks");
}

void test_cast_e4m3(void)
{
    static const float scales[] = {1.0f, 0x1p-5f, 3.7e3f, 1.0f / 448.0f};
    cast_random(FP8_E4M3, scales, 4, 1);
}

void test_cast_e5m2(void)
{
    static const float scales[] = {1.0f, 0x1p-5f, 3.7e3f, 1.0f / 57344.0f};
    cast_random(FP8_E5M2, scales, 4, 0);
}

/* Past the end of x: values far beyond its own, which a kernel that reads a
 * whole float4 there and counts it in the amax would report. */
static const float traps[8] = {1e30f, -2e30f, 3e30f, -4e30f, 5e30f, -6e30f, 7e30f, -8e30f};

void test_cast_tail(void)
{
    cudaStream_t st = gpu_begin();
    static const size_t large[] = {((size_t)1 << 20) + 1, ((size_t)1 << 20) + 2,
                                   ((size_t)1 << 20) + 3, ((size_t)1 << 22) + 1,
                                   ((size_t)1 << 22) + 2, ((size_t)1 << 22) + 3};
    size_t cap = ((size_t)1 << 22) + 3 + 8;
    float *x = xmalloc(cap * sizeof(float)), xs[67 + 8];
    rng_state rng;
    rng_seed(&rng, 5, 12);
    fill_tensor(&rng, x, cap);
    cast_bufs b;
    cast_open(&b, cap);
    gr_mismatches m = {0};
    for (size_t n = 1; n <= 67; n++) {
        for (int f = 0; f < 2; f++) {
            rng_fill_normal(&rng, xs, n, 0.0f, f == 0 ? 64.0f : 4096.0f);
            memcpy(xs + n, traps, sizeof traps);
            to_dev(b.d_x, xs, (n + 8) * sizeof(float));
            check_cast(&m, st, &b, xs, n, f == 0 ? 1.0f : 0x1p-5f, f == 0 ? FP8_E4M3 : FP8_E5M2,
                       "random x, then 1e30s past its end");
        }
    }
    to_dev(b.d_x, x, cap * sizeof(float));
    for (size_t k = 0; k < sizeof large / sizeof large[0]; k++) {
        size_t n = large[k];
        float saved[8];
        for (int t = 0; t < 8; t++)
            saved[t] = set_elem(x, b.d_x, n + (size_t)t, traps[t]);
        check_cast(&m, st, &b, x, n, 0x1p-3f, k % 2 ? FP8_E5M2 : FP8_E4M3,
                   "random x, then 1e30s past its end");
        for (int t = 0; t < 8; t++)
            set_elem(x, b.d_x, n + (size_t)t, saved[t]);
    }
    cast_close(&b);
    free(x);
    gr_finish(&m, "checks");
}

void test_cast_saturate(void)
{
    cudaStream_t st = gpu_begin();
    /* Around both formats' max (448, 57344) and the midpoints to the next
     * step (464, 61440); inf, NaN, signed zeros; the FP8 subnormal ranges
     * and their ties (E4M3 2^-9, E5M2 2^-16); FP32 subnormals, which a
     * kernel that flushes them loses once scale 2^120 brings them in range;
     * and x = 1.0625 - 2^-23, 1.125 - 2^-23: times 1 + 2^-23 they round in
     * FP32 to the ties 1.0625 and 1.125 (to even: 1.0), but an unrounded
     * product would round up. */
    const float special[] = {
        448.0f, -448.0f, 464.0f, 464.5f, 465.0f, 480.0f, 500.0f, -500.0f, 1e30f, FLT_MAX,
        -FLT_MAX, 57344.0f, 61439.0f, 61440.0f, 61441.0f, -1e5f, 3.3e38f,
        INFINITY, -INFINITY, NAN, -NAN, f32_from_bits(0x7FFFFFFFu), 0.0f, -0.0f,
        0x1p-6f, 0x1p-7f, 0x1p-9f, -0x1p-9f, 0x1p-10f, 0x1.8p-10f, 0x1.8p-9f, 0x1.4p-9f,
        -0x1p-10f, 0x1p-14f, 0x1p-16f, 0x1p-17f, 0x1.8p-17f, -0x1.8p-16f, 0x1p-18f,
        0x1p-127f, 0x1.8p-127f, -0x1.4p-128f, 0x1.fffffcp-127f, 0x1p-135f, 0x1.8p-136f,
        0x1p-149f, -0x1p-149f, 0x1p-130f,
        0x1.0ffffep0f, 0x1.1ffffep0f, 1.0625f, 1.1875f, 1.125f, -1.0625f, 0x1.0ffffep-1f,
        0x1.7p0f, 0x1.9p0f,
    };
    const size_t len = sizeof special / sizeof special[0];
    _Static_assert(sizeof special / sizeof special[0] % 2 == 1,
                   "an odd count, so that repeating the list moves every value across lanes");
    /* 1 and 2^-5; 2^120 (FP32 subnormals into range, the rest to inf);
     * 2^-140 (products that are FP32 subnormals); 1 + 2^-23 (the ties);
     * 3.7e3; 0 (0 x inf is NaN); inf; NaN. */
    const float scales[] = {1.0f, 0x1p-5f, 0x1p120f, 0x1p-140f, 0x1.000002p0f, 3.7e3f,
                            0.0f, INFINITY, NAN};
    const size_t nscales = sizeof scales / sizeof scales[0];
    /* The list five times over and three more (its length is odd, so each
     * value lands in every lane of a float4), then each value alone. */
    size_t n = 5 * len + 3;
    float *x = xmalloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        x[i] = special[i % len];
    cast_bufs b;
    cast_open(&b, n);
    gr_mismatches m = {0};
    for (int f = 0; f < 2; f++) {
        fp8_format fmt = f == 0 ? FP8_E4M3 : FP8_E5M2;
        to_dev(b.d_x, x, n * sizeof(float));
        for (size_t s = 0; s < nscales; s++)
            check_cast(&m, st, &b, x, n, scales[s], fmt, "special values");
        for (size_t i = 0; i < len; i++) {
            to_dev(b.d_x, &special[i], sizeof(float));
            char what[96];
            snprintf(what, sizeof what, "{%s}", gr_f32(special[i]));
            for (size_t s = 0; s < nscales; s++)
                check_cast(&m, st, &b, &special[i], 1, scales[s], fmt, what);
        }
    }
    cast_close(&b);
    free(x);
    gr_finish(&m, "checks");
}

void test_cast_amax(void)
{
    cudaStream_t st = gpu_begin();
    size_t cap = ((size_t)1 << 24) + 3;
    float *x = xmalloc(cap * sizeof(float));
    rng_state rng;
    rng_seed(&rng, 5, 13);
    cast_bufs b;
    cast_open(&b, cap);
    gr_mismatches m = {0};
    const float nans[3] = {NAN, f32_from_bits(0x7FFFFFFFu), f32_from_bits(0xFFC00000u)};

    /* scale != 1: the amax is of x, not of x * scale. 1e38 makes products
     * overflow to inf where x does not. */
    size_t n = 100003;
    rng_fill_normal(&rng, x, n, 0.0f, 1000.0f);
    to_dev(b.d_x, x, n * sizeof(float));
    check_cast(&m, st, &b, x, n, 0x1p-7f, FP8_E4M3, "N(0, 1000^2)");
    check_cast(&m, st, &b, x, n, 0.37f, FP8_E5M2, "N(0, 1000^2)");
    check_cast(&m, st, &b, x, n, 1e38f, FP8_E4M3, "N(0, 1000^2)");
    check_cast(&m, st, &b, x, n, 0.0f, FP8_E4M3, "N(0, 1000^2)");

    /* NaNs skipped, the largest at a random place. */
    for (size_t i = 5; i < n; i += 11)
        x[i] = nans[(i / 11) % 3];
    x[rng_below(&rng, (uint32_t)n)] = -1e5f;
    to_dev(b.d_x, x, n * sizeof(float));
    check_cast(&m, st, &b, x, n, 0x1p-9f, FP8_E4M3, "N(0, 1000^2) with a NaN in every 11");
    check_cast(&m, st, &b, x, n, 4.0f, FP8_E5M2, "N(0, 1000^2) with a NaN in every 11");

    /* Every element NaN; every element -0; n == 0. */
    for (size_t i = 0; i < 1000; i++)
        x[i] = nans[i % 3];
    to_dev(b.d_x, x, 1000 * sizeof(float));
    check_cast(&m, st, &b, x, 1000, 2.0f, FP8_E4M3, "every element NaN");
    for (size_t i = 0; i < 1000; i++)
        x[i] = -0.0f;
    to_dev(b.d_x, x, 1000 * sizeof(float));
    check_cast(&m, st, &b, x, 1000, 2.0f, FP8_E4M3, "every element -0");
    check_cast(&m, st, &b, x, 0, 2.0f, FP8_E4M3, "n == 0, *amax = 0");

    /* Many blocks, the largest last and first. */
    n = cap;
    fill_tensor(&rng, x, n);
    to_dev(b.d_x, x, n * sizeof(float));
    float top = 2.0f * stats_amax(x, n, NULL);
    float old = set_elem(x, b.d_x, n - 1, -top);
    check_cast(&m, st, &b, x, n, 0x1p-20f, FP8_E4M3, "random x, the largest |x| last");
    set_elem(x, b.d_x, n - 1, old);
    set_elem(x, b.d_x, 0, top);
    check_cast(&m, st, &b, x, n, 0x1p-20f, FP8_E5M2, "random x, the largest |x| first");
    cast_close(&b);
    free(x);
    gr_finish(&m, "checks");
}

/* ---- §4 MXFP8 --------------------------------------------------------------------------- */

void mx_open(mx_bufs *b, size_t max_elems, size_t max_scales)
{
    b->d_x = dev_alloc(max_elems * sizeof(float));
    b->d_codes = dev_alloc(max_elems + GUARD);
    b->d_scales = dev_alloc(max_scales + GUARD);
    b->codes = xmalloc(max_elems + GUARD);
    b->scales = xmalloc(max_scales + GUARD);
    b->wc = xmalloc(max_elems);
    b->ws = xmalloc(max_scales);
}

void mx_close(mx_bufs *b)
{
    dev_free(b->d_x);
    dev_free(b->d_codes);
    dev_free(b->d_scales);
    free(b->codes), free(b->scales), free(b->wc), free(b->ws);
}

/* lab5_mx_quantize of x (rows x cols) against mx_quantize: every scale,
 * every code, and the GUARD bytes after each array. */
void check_mx(gr_mismatches *m, cudaStream_t st, mx_bufs *b, const float *x,
                     size_t rows, size_t cols, fp8_format fmt, mx_scale_rule rule,
                     const char *what)
{
    const size_t bs = LAB5_MX_BLOCK;
    size_t n = rows * cols, nb = (cols + bs - 1) / bs, ns = rows * nb;
    char call[256];
    snprintf(call, sizeof call, "lab5_mx_quantize(%s, rows = %zu, cols = %zu, %s, %s)", what,
             rows, cols, fmt_name(fmt), rule_names[rule]);
    to_dev(b->d_x, x, n * sizeof(float));
    dev_fill(b->d_codes, 0xA5, n + GUARD);
    dev_fill(b->d_scales, 0xA5, ns + GUARD);
    after_call(call, lab5_mx_quantize(b->d_x, rows, cols, fmt, rule, b->d_codes, b->d_scales,
                                      st), st);
    from_dev(b->codes, b->d_codes, n + GUARD);
    from_dev(b->scales, b->d_scales, ns + GUARD);
    mx_quantize(x, rows, cols, bs, fmt, rule, b->wc, b->ws);
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < nb; j++) {
            size_t i = r * nb + j, first = j * bs;
            size_t len = cols - first < bs ? cols - first : bs;
            if (tally(m, b->ws[i] == b->scales[i]))
                gr_expect(m, 0, "%s\n  scale of row %zu, block %zu (columns %zu..%zu, block "
                          "amax %s)\n  expected %s\n  got      %s", call, r, j, first,
                          first + len - 1, gr_f32(mx_block_amax(x + r * cols + first, len)),
                          e8m0_str(b->ws[i]), e8m0_str(b->scales[i]));
        }
    }
    for (size_t i = 0; i < n; i++) {
        size_t r = i / cols, c = i % cols;
        if (tally(m, b->wc[i] == b->codes[i]))
            gr_expect(m, 0, "%s\n  code of row %zu, column %zu (block %zu): x = %s, block "
                      "scale %s\n  expected %s\n  got      %s", call, r, c, c / bs,
                      gr_f32(x[i]), e8m0_str(b->ws[r * nb + c / bs]), gr_code(b->wc[i], fmt),
                      gr_code(b->codes[i], fmt));
    }
    expect_guard(m, call, "codes", n, b->codes + n, 0xA5);
    expect_guard(m, call, "scales", ns, b->scales + ns, 0xA5);
}

/* rows x cols: row r of magnitude 2^k_r, each block N(0, 2^(k_r + d)) with
 * d in -3..3; k_r uniform in lo..hi, or, when alternate, -9 and 12 by turns
 * (so that a block taken across two rows gets the wrong scale). */
static void fill_rows(rng_state *rng, float *x, size_t rows, size_t cols, int lo, int hi,
                      int alternate)
{
    for (size_t r = 0; r < rows; r++) {
        int k = alternate ? (r % 2 ? 12 : -9) : lo + (int)rng_below(rng, (uint32_t)(hi - lo + 1));
        for (size_t c = 0; c < cols; c += LAB5_MX_BLOCK) {
            size_t len = cols - c < LAB5_MX_BLOCK ? cols - c : LAB5_MX_BLOCK;
            int d = (int)rng_below(rng, 7) - 3;
            rng_fill_normal(rng, x + r * cols + c, len, 0.0f, ldexpf(1.0f, k + d));
        }
    }
}

typedef struct mx_shape {
    size_t rows, cols;
} mx_shape;

/* Hidden inputs: a matrix drawn from the seed (rows of magnitudes 2^-40 to
 * 2^40, a few zeros, NaNs and infinities), both rules. */
static void mx_hidden(gr_mismatches *m, cudaStream_t st, mx_bufs *b, float *x)
{
    rng_state rng;
    if (!gr_hidden_rng(&rng, 53))
        return;
    static const float special[4] = {0.0f, -0.0f, NAN, INFINITY};
    size_t rows = 1 + rng_below(&rng, 64), cols = LAB5_MX_BLOCK * (1 + rng_below(&rng, 256));
    for (size_t r = 0; r < rows; r++) {
        int e = (int)rng_below(&rng, 81) - 40;
        for (size_t c = 0; c < cols; c++) {
            float v = ldexpf(rng_normal(&rng), e + (int)rng_below(&rng, 9) - 4);
            x[r * cols + c] = rng_below(&rng, 300) == 0 ? special[rng_below(&rng, 4)] : v;
        }
    }
    for (int rule = 0; rule < 2; rule++)
        check_mx(m, st, b, x, rows, cols, FP8_E4M3, (mx_scale_rule)rule, "hidden matrix");
}

static void mx_random(fp8_format fmt, const mx_shape *shapes, int nshapes, int hidden)
{
    cudaStream_t st = gpu_begin();
    size_t max_elems = LAB5_MX_BLOCK * 256 * 64, max_scales = 256 * 64; /* the hidden one's */
    for (int s = 0; s < nshapes; s++) {
        size_t e = shapes[s].rows * shapes[s].cols;
        max_elems = e > max_elems ? e : max_elems;
        max_scales = e / LAB5_MX_BLOCK > max_scales ? e / LAB5_MX_BLOCK : max_scales;
    }
    float *x = xmalloc(max_elems * sizeof(float));
    mx_bufs b;
    mx_open(&b, max_elems, max_scales);
    rng_state rng;
    rng_seed(&rng, 5, fmt == FP8_E4M3 ? 20 : 21);
    gr_mismatches m = {0};
    for (int s = 0; s < nshapes; s++) {
        fill_rows(&rng, x, shapes[s].rows, shapes[s].cols, -20, 20, 0);
        for (int rule = 0; rule < 2; rule++)
            check_mx(&m, st, &b, x, shapes[s].rows, shapes[s].cols, fmt, (mx_scale_rule)rule,
                     "random rows of 2^-20 to 2^20");
    }
    if (hidden)
        mx_hidden(&m, st, &b, x);
    mx_close(&b);
    free(x);
    gr_finish(&m, "bytes");
}

void test_mx_e4m3(void)
{
    static const mx_shape shapes[] = {{64, 1024}, {7, 4096}, {1, 32}, {3, 96}, {2048, 2048}};
    mx_random(FP8_E4M3, shapes, 5, 1);
}

void test_mx_e5m2(void)
{
    static const mx_shape shapes[] = {{64, 1024}, {7, 4096}, {1, 32}, {1024, 1024}};
    mx_random(FP8_E5M2, shapes, 4, 0);
}

void test_mx_tail(void)
{
    cudaStream_t st = gpu_begin();
    static const size_t cols_list[] = {1, 31, 33, 100, 1000, 4095};
    size_t max_elems = 5 * 4095, max_scales = 5 * 128;
    float *x = xmalloc(max_elems * sizeof(float));
    mx_bufs b;
    mx_open(&b, max_elems, max_scales);
    rng_state rng;
    rng_seed(&rng, 5, 22);
    gr_mismatches m = {0};
    for (size_t k = 0; k < sizeof cols_list / sizeof cols_list[0]; k++) {
        size_t cols = cols_list[k];
        for (size_t rows = 1; rows <= 5; rows++) {
            fill_rows(&rng, x, rows, cols, 0, 0, 1);
            for (int rule = 0; rule < 2; rule++) {
                check_mx(&m, st, &b, x, rows, cols, FP8_E4M3, (mx_scale_rule)rule,
                         "rows of 2^-9 and 2^12 by turns");
                if (rows == 3)
                    check_mx(&m, st, &b, x, rows, cols, FP8_E5M2, (mx_scale_rule)rule,
                             "rows of 2^-9 and 2^12 by turns");
            }
        }
    }
    mx_close(&b);
    free(x);
    gr_finish(&m, "bytes");
}

#define MX_PATTERNS 20

/* Block pattern p in v[0 .. len): the special blocks of mx_special. */
static void special_block(rng_state *rng, float *v, size_t len, int p)
{
    rng_fill_normal(rng, v, len, 0.0f, 1.0f);
    size_t at = rng_below(rng, (uint32_t)len);
    switch (p) {
    case 0: /* all +0: scale 0x00 */
        for (size_t i = 0; i < len; i++)
            v[i] = 0.0f;
        break;
    case 1: /* all -0 */
        for (size_t i = 0; i < len; i++)
            v[i] = -0.0f;
        break;
    case 2: /* a NaN first: scale 0xFF, codes 0x00 */
        v[0] = NAN;
        break;
    case 3: /* a NaN last */
        v[len - 1] = NAN;
        break;
    case 4: /* large values and a negative NaN in the middle */
        for (size_t i = 0; i < len; i++)
            v[i] *= 0x1p20f;
        v[len / 2] = f32_from_bits(0xFFC00000u);
        break;
    case 5: /* +inf: scale 0xFF */
        v[at] = INFINITY;
        break;
    case 6: /* -inf last */
        v[len - 1] = -INFINITY;
        break;
    case 7: /* inf and NaN */
        v[0] = -INFINITY;
        v[len - 1] = NAN;
        break;
    case 8: /* FP32 subnormals only: amax subnormal, scale 0x00 */
        for (size_t i = 0; i < len; i++)
            v[i] = f32_from_bits((rng_u32(rng) & 0x807FFFFFu) | 1u);
        break;
    case 9: /* tiny normals, amax near 2^-120: e < -127, scale 0x00 */
        for (size_t i = 0; i < len; i++)
            v[i] *= 0x1p-122f;
        break;
    case 10: /* amax exactly 1.75 x 2^11 (E4M3 max 448 x 2^3, E5M2 max x 2^-4) */
        for (size_t i = 0; i < len; i++)
            v[i] *= 512.0f;
        v[at] = -0x1.cp11f;
        break;
    case 11: /* amax just above 1.75 x 2^-3: the two rules differ */
        for (size_t i = 0; i < len; i++)
            v[i] = 0x1.bp-3f * (i % 2 ? -1.0f : 1.0f);
        v[at] = nextafterf(0x1.cp-3f, INFINITY);
        break;
    case 12: /* amax 1.875 x 2^5: floor saturates it (480 is E4M3's NaN) */
        for (size_t i = 0; i < len; i++)
            v[i] = 0x1.ep5f - (float)i * 0.25f;
        break;
    case 13: /* amax FLT_MAX, others of every magnitude (some FP32 subnormal
              * after the scale, 2^-119) */
        for (size_t i = 0; i < len; i++)
            v[i] = ldexpf(v[i], (int)rng_below(rng, 250) - 125);
        v[at] = FLT_MAX;
        break;
    case 14: /* amax exactly 2^-127, an FP32 subnormal */
        for (size_t i = 0; i < len; i++)
            v[i] = f32_from_bits(rng_u32(rng) & 0x803FFFFFu);
        v[at] = 0x1p-127f;
        break;
    case 15: /* one large value, the rest far below: subnormal and zero codes */
        for (size_t i = 0; i < len; i++)
            v[i] *= 0x1p-20f;
        v[at] = 0x1p20f;
        break;
    case 16: /* all equal, negative */
        for (size_t i = 0; i < len; i++)
            v[i] = -1.0f;
        break;
    case 17: /* amax 448 (scale 2^0 in E4M3) and E4M3 subnormal ties */
        for (size_t i = 0; i < len; i++)
            v[i] = (float)(2 * (i % 8) + 1) * 0x1p-10f * (i % 3 ? 1.0f : -1.0f);
        v[at] = 448.0f;
        break;
    case 18: /* amax exactly 1.75 x 2^-20, then one ulp below */
        for (size_t i = 0; i < len; i++)
            v[i] = ldexpf(v[i], -22);
        v[at] = 0x1.cp-20f;
        if (len > 1)
            v[(at + 1) % len] = -nextafterf(0x1.cp-20f, 0.0f);
        break;
    default: /* a zero and a -0 among N(0, 1), the largest 1.75 x 2^k + 1 ulp */
        v[0] = 0.0f;
        v[len - 1] = -0.0f;
        v[at] = nextafterf(0x1.cp1f, INFINITY);
        break;
    }
}

void test_mx_special(void)
{
    cudaStream_t st = gpu_begin();
    /* 4 rows of 10 full blocks and one of 7: block (r, j) has pattern
     * (11 r + j) mod 20, so each appears in full blocks, some in a short
     * one, next to others; then each alone in a row of 32. */
    const size_t rows = 4, cols = 10 * LAB5_MX_BLOCK + 7, nb = 11;
    size_t max_elems = rows * cols > MX_PATTERNS * LAB5_MX_BLOCK ? rows * cols
                                                                  : MX_PATTERNS * LAB5_MX_BLOCK;
    size_t max_scales = rows * nb > MX_PATTERNS ? rows * nb : MX_PATTERNS;
    float *x = xmalloc(max_elems * sizeof(float));
    mx_bufs b;
    mx_open(&b, max_elems, max_scales);
    rng_state rng;
    rng_seed(&rng, 5, 23);
    gr_mismatches m = {0};
    for (int f = 0; f < 2; f++) {
        fp8_format fmt = f == 0 ? FP8_E4M3 : FP8_E5M2;
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < nb; j++) {
                size_t first = j * LAB5_MX_BLOCK;
                size_t len = cols - first < LAB5_MX_BLOCK ? cols - first : LAB5_MX_BLOCK;
                special_block(&rng, x + r * cols + first, len, (int)((11 * r + j) % MX_PATTERNS));
            }
        for (int rule = 0; rule < 2; rule++)
            check_mx(&m, st, &b, x, rows, cols, fmt, (mx_scale_rule)rule,
                     "special blocks side by side");
        for (int p = 0; p < MX_PATTERNS; p++)
            special_block(&rng, x + (size_t)p * LAB5_MX_BLOCK, LAB5_MX_BLOCK, p);
        for (int rule = 0; rule < 2; rule++)
            check_mx(&m, st, &b, x, MX_PATTERNS, LAB5_MX_BLOCK, fmt, (mx_scale_rule)rule,
                     "one special block a row");
    }
    mx_close(&b);
    free(x);
    gr_finish(&m, "bytes");
}

