/*
 * lab5_suite.c - lab5's tests: the student's CUDA kernels (kernels.cu and
 * gemm.cu) against the course library on the CPU, and their speed against
 * a device-to-device copy and cuBLASLt timed in the same run. Points,
 * sections and time limits are in lab5_rubric.c; every test but `builds`
 * runs only where there is a GPU (compute capability 8.9 or later), in a
 * process of its own that starts CUDA itself.
 *
 * The bit-exact tests (amax, cast, mx; README §1) compare every byte with
 * the course library: stats_amax(x, n, NULL) for an amax, fp8_encode(x *
 * scale, fmt, true) for a cast code (the product one float multiplication,
 * as the kernel's), mx_quantize(x, rows, cols, 32, fmt, rule) for MXFP8
 * codes and scales. Every output is poisoned before the call so that an
 * element the function does not write fails: 0xA5 bytes for codes and
 * scales, 0xFF bytes (a NaN) for a float and for cuBLASLt's E4M3 output.
 * *amax is poisoned alternately with 0xFF bytes (a NaN, and -1 as a signed
 * integer) and 0x7F bytes (3.4e38, a large integer), so a kernel that
 * takes a max with what was there fails whether it compares floats or
 * their bits. The GUARD bytes
 * after every output must stay as poisoned: nothing may be written past
 * the end. A float is compared with stats_equal_exact: the same bits (+0
 * is not -0), and a NaN never passes for a number.
 *
 * Sizes: every n up to 70 (the tails of float4 loads and of warps), and
 * 1000, 4093, 65537, 2^22 + 3, up to 2^26 + 5 (many blocks, grid-stride
 * loops), the largest |x| planted first, last and at random. The tensors
 * are N(0, 2^k) in chunks of 1024 with k in -30..30 (mixed signs, every
 * magnitude an FP8 cast meets) for their first 2^22 elements, and beyond
 * that random bits in the same binades (as varied, and 20 times faster to
 * draw than normals).
 *
 * amax_race: the 2^24 consecutive floats from 1 up (bit patterns
 * 0x3f800000 + j, all in [1, 4)), j placed by a pseudo-random permutation
 * and signs random, so that every block's own max is distinct and close
 * to the others' and a "read, compare, write" max loses the race somewhere
 * in 30 runs, each with the largest somewhere else.
 *
 * The GEMMs (README §5.1) are compared with a CPU sum in double of the same
 * decoded operands. That sum is exact: each product of two E4M3 values is a
 * multiple of 2^-18 and no sum here reaches 2^34, so 52 bits hold it. With
 * S_ij = |sa sb| sum_k |a_ik b_jk| (sa sb the float product of the two
 * scale_invs, as the kernel's), D[i][j] passes iff it is not NaN and
 *   FP32 accumulation (naive, tiled): |got - ref| <= (K + 2) 2^-23 S_ij + 1e-30
 *     recursive summation of K exact products in FP32 errs by at most
 *     (K - 1) u S_ij with u = 2^-24 (Higham, Accuracy and Stability of
 *     Numerical Algorithms, §4.2) in any order, with FMA or without; the
 *     scale multiplications add a few u S_ij; the bound is doubled;
 *   tensor cores (mma, wgmma_tile, wgmma, cuBLASLt): |got - ref| <= tol_ij
 *     from lab5_bound.h: twice the worst case of a model of Hopper's FP8
 *     accumulation (each k32 step's 33 addends aligned to the largest
 *     exponent and cut to 14 significant bits), computed from the exact
 *     partial sums of the element's own products in k order; it is checked
 *     against a CPU model of that accumulator in tests/lab5/test_tc_bound.c.
 *     Large shapes (2048 x 4224 x 1280) are checked on sampled elements,
 *     24 in every 128 x 128 block, and for NaN poison everywhere.
 * A wrong element, a missing scale, a skipped k tile, all miss by far more.
 * gemm_cublaslt_fp8: with v = t d_scale (t = acc a_scale_inv b_scale_inv)
 * and tol the tensor-core tolerance times d_scale, D's code must decode to
 * within tol plus half an E4M3 step (at |v| + tol) of v clamped to +-448;
 * *d_amax within the largest tensor-core tolerance of max |t|. a_scale_inv
 * 0.5, b_scale_inv 3, d_scale 0.25: a scale left out shows.
 *
 * perf_* (README §7): timed only once the result on the same input is
 * right. Memory-bound: 2^26 floats (256 MiB, far beyond L2); 3 runs to warm
 * up, then 20 each between two cudaEvents, all queued back to back; the
 * median (a run of 200 ms or more is timed once: no tier is near). The
 * bytes a kernel moves (amax 4n, cast 5n, MXFP8 5n + n/32) over its time,
 * against a cudaMemcpyAsync device to device of as many bytes, timed the
 * same way, counting what the copy reads and writes. GEMM: M = N = K =
 * 4096, the faster of lab5_gemm_wgmma and lab5_gemm_mma that succeeds and
 * is right on 4096 sampled elements, against cuBLASLt's FP8 GEMM like for
 * like: E4M3 in, FP32 out, fast accumulation (no promotion), its descriptors
 * and algorithm chosen once before the timing; 2 M N K flops a run.
 *
 * Hidden inputs (./grader --seed): amax, cast_e4m3, mx_e4m3 and gemm_tiled
 * also draw sizes and values from the seed and compare with the same CPU
 * references (the library is the contract here, not the reference solution).
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

extern const grader_lab lab5_rubric;

typedef __typeof__(lab5_gemm_naive) *gemm_fn;

#define GUARD 16 /* bytes after every output that must stay as poisoned */

static const char *const rule_names[2] = {"MX_SCALE_FLOOR", "MX_SCALE_CEIL"};

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    ck_assert_msg(p != NULL, "out of memory");
    return p;
}

static const char *fmt_name(fp8_format fmt)
{
    return fmt == FP8_E4M3 ? "FP8_E4M3" : "FP8_E5M2";
}

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

/*
 * Records one compared element without describing it: a pass, or a
 * mismatch past those gr_expect describes (formatting each of 2^26 wrong
 * elements would take minutes). Returns 1 when the caller should describe
 * the mismatch with gr_expect instead.
 */
static int tally(gr_mismatches *m, int ok)
{
    if (ok) {
        m->checked++;
        return 0;
    }
    static size_t show; /* gr_show() reads the environment: once */
    if (!show)
        show = (size_t)gr_show();
    if (m->count < show)
        return 1;
    m->checked++;
    m->count++;
    return 0;
}

static void expect_float(gr_mismatches *m, const char *call, const char *what, float want,
                         float got)
{
    gr_expect(m, stats_equal_exact(want, got), "%s: %s\n  expected %s\n  got      %s", call,
              what, gr_f32(want), gr_f32(got));
}

/* Every byte of got[0 .. GUARD) is still the poison. */
static void expect_guard(gr_mismatches *m, const char *call, const char *array, size_t end,
                         const uint8_t *got, uint8_t poison)
{
    for (size_t i = 0; i < GUARD; i++)
        if (tally(m, got[i] == poison))
            gr_expect(m, 0, "%s: byte %zu of %s, past its end (it holds %zu bytes)\n"
                      "  expected 0x%02x, as the test filled it (nothing may be written there)\n"
                      "  got      0x%02x", call, end + i, array, end, (unsigned)poison,
                      (unsigned)got[i]);
}

/* ---- CUDA ----------------------------------------------------------------------- */

static void cuda_check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        ck_abort_msg("%s failed: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* The test's first CUDA call, and the stream every call here runs on. */
static cudaStream_t gpu_begin(void)
{
    static cudaStream_t st;
    static int started;
    if (!started) {
        cuda_check(cudaFree(NULL), "starting CUDA (cudaFree(0))");
        cuda_check(cudaStreamCreate(&st), "cudaStreamCreate");
        started = 1;
    }
    return st;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess)
        ck_abort_msg("the test's cudaMalloc(%zu bytes) failed: %s: %s", bytes,
                     cudaGetErrorName(e), cudaGetErrorString(e));
    return p;
}

static void dev_free(void *p) { cuda_check(cudaFree(p), "cudaFree"); }

static void to_dev(void *d, const void *h, size_t bytes)
{
    cuda_check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

static void from_dev(void *h, const void *d, size_t bytes)
{
    cuda_check(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
}

static void dev_fill(void *d, int byte, size_t bytes)
{
    cuda_check(cudaMemset(d, byte, bytes), "cudaMemset");
}

/* Waits for what call queued on st: a kernel fault (a sticky error) shows
 * here, and, when own_launches, a launch that failed without being
 * reported. Calls into cuBLASLt are not held to the last-error rule (the
 * library's own runtime calls may leave an error there): it is cleared. */
static void synced(const char *call, cudaStream_t st, int own_launches)
{
    cudaError_t e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
        ck_abort_msg("%s crashed: its kernels failed with %s: %s", call, cudaGetErrorName(e),
                     cudaGetErrorString(e));
    e = cudaGetLastError();
    if (e != cudaSuccess && own_launches)
        ck_abort_msg("%s: a launch failed that it did not report: %s: %s (lab5.h: "
                     "cudaGetLastError after each launch, and return its error)",
                     call, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* After a call of a tested function: what it returned, then whether what it
 * queued ran. */
static void after_call(const char *call, cudaError_t rc, cudaStream_t st)
{
    if (rc != cudaSuccess)
        ck_abort_msg("%s returned %s: %s", call, cudaGetErrorName(rc), cudaGetErrorString(rc));
    synced(call, st, 1);
}

static unsigned poison_turn;

/* The poison of a float the function must set (see the top of the file). */
static int float_poison(void) { return poison_turn++ & 1 ? 0x7F : 0xFF; }

/* ---- inputs ------------------------------------------------------------------------ */

#define CHUNK 1024
#define NORMAL_HEAD ((size_t)1 << 22)

/* x[0 .. n): chunks of CHUNK elements of magnitude about 2^k, k uniform in
 * -30..30 (0 for the first chunk, so that small sizes see every kind of
 * code): N(0, 2^k) for the first NORMAL_HEAD elements, then random sign and
 * mantissa bits with exponents k - 4 .. k + 3. */
static void fill_tensor(rng_state *rng, float *x, size_t n)
{
    for (size_t c = 0; c < n; c += CHUNK) {
        size_t len = n - c < CHUNK ? n - c : CHUNK;
        int k = c == 0 ? 0 : (int)rng_below(rng, 61) - 30;
        if (c < NORMAL_HEAD) {
            rng_fill_normal(rng, x + c, len, 0.0f, ldexpf(1.0f, k));
            continue;
        }
        for (size_t i = 0; i < len; i++) {
            uint32_t r = rng_u32(rng);
            uint32_t e = (uint32_t)(127 + k - 4 + (int)((r >> 23) & 7));
            x[c + i] = f32_from_bits((r & 0x807FFFFFu) | e << 23);
        }
    }
}

/* Sets x[i] on the host and on the device; returns what was there. */
static float set_elem(float *x, float *d_x, size_t i, float v)
{
    float old = x[i];
    x[i] = v;
    to_dev(d_x + i, &v, sizeof v);
    return old;
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
static void check_amax(gr_mismatches *m, cudaStream_t st, const float *x, const float *d_x,
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

static void test_amax(void)
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

static void test_amax_special(void)
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

static void test_amax_race(void)
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

typedef struct cast_bufs {
    float *d_x, *d_scale, *d_amax;
    uint8_t *d_q, *q; /* the codes on the device, and their copy; cap + GUARD bytes */
    size_t cap;
} cast_bufs;

static void cast_open(cast_bufs *b, size_t cap)
{
    b->cap = cap;
    b->d_x = dev_alloc(cap * sizeof(float));
    b->d_scale = dev_alloc(sizeof(float));
    b->d_amax = dev_alloc(sizeof(float));
    b->d_q = dev_alloc(cap + GUARD);
    b->q = xmalloc(cap + GUARD);
}

static void cast_close(cast_bufs *b)
{
    dev_free(b->d_x);
    dev_free(b->d_scale);
    dev_free(b->d_amax);
    dev_free(b->d_q);
    free(b->q);
}

/* lab5_scale_cast of b->d_x, which holds x[0 .. n): every code, the GUARD
 * bytes after them, and *amax. */
static void check_cast(gr_mismatches *m, cudaStream_t st, cast_bufs *b, const float *x,
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
    for (size_t i = 0; i < n; i++) {
        float product = x[i] * scale; /* one float multiplication, rounded */
        uint8_t want = fp8_encode(product, fmt, true);
        if (tally(m, b->q[i] == want))
            gr_expect(m, 0, "%s\n  q[%zu]: x = %s, x * scale = %s\n  expected %s\n  got      %s",
                      call, i, gr_f32(x[i]), gr_f32(product), gr_code(want, fmt),
                      gr_code(b->q[i], fmt));
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

static void test_cast_e4m3(void)
{
    static const float scales[] = {1.0f, 0x1p-5f, 3.7e3f, 1.0f / 448.0f};
    cast_random(FP8_E4M3, scales, 4, 1);
}

static void test_cast_e5m2(void)
{
    static const float scales[] = {1.0f, 0x1p-5f, 3.7e3f, 1.0f / 57344.0f};
    cast_random(FP8_E5M2, scales, 4, 0);
}

/* Past the end of x: values far beyond its own, which a kernel that reads a
 * whole float4 there and counts it in the amax would report. */
static const float traps[8] = {1e30f, -2e30f, 3e30f, -4e30f, 5e30f, -6e30f, 7e30f, -8e30f};

static void test_cast_tail(void)
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

static void test_cast_saturate(void)
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

static void test_cast_amax(void)
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

typedef struct mx_bufs {
    float *d_x;
    uint8_t *d_codes, *d_scales;
    uint8_t *codes, *scales, *wc, *ws; /* what came back (with GUARD), what should have */
} mx_bufs;

static void mx_open(mx_bufs *b, size_t max_elems, size_t max_scales)
{
    b->d_x = dev_alloc(max_elems * sizeof(float));
    b->d_codes = dev_alloc(max_elems + GUARD);
    b->d_scales = dev_alloc(max_scales + GUARD);
    b->codes = xmalloc(max_elems + GUARD);
    b->scales = xmalloc(max_scales + GUARD);
    b->wc = xmalloc(max_elems);
    b->ws = xmalloc(max_scales);
}

static void mx_close(mx_bufs *b)
{
    dev_free(b->d_x);
    dev_free(b->d_codes);
    dev_free(b->d_scales);
    free(b->codes), free(b->scales), free(b->wc), free(b->ws);
}

/* lab5_mx_quantize of x (rows x cols) against mx_quantize: every scale,
 * every code, and the GUARD bytes after each array. */
static void check_mx(gr_mismatches *m, cudaStream_t st, mx_bufs *b, const float *x,
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

static void test_mx_e4m3(void)
{
    static const mx_shape shapes[] = {{64, 1024}, {7, 4096}, {1, 32}, {3, 96}, {2048, 2048}};
    mx_random(FP8_E4M3, shapes, 5, 1);
}

static void test_mx_e5m2(void)
{
    static const mx_shape shapes[] = {{64, 1024}, {7, 4096}, {1, 32}, {1024, 1024}};
    mx_random(FP8_E5M2, shapes, 4, 0);
}

static void test_mx_tail(void)
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

static void test_mx_special(void)
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

/* ---- §5 the GEMMs ----------------------------------------------------------------------- */

/* Random E4M3 codes, never NaN (0x7F, 0xFF), either sign: |value| < 2^(top_exp + 1)
 * (codes up to the exponent field top_exp + 7), or every finite code when
 * top_exp is 8. */
static void fill_codes(rng_state *rng, uint8_t *c, size_t n, int top_exp)
{
    uint32_t count = top_exp >= 8 ? 0x7F : (uint32_t)(top_exp + 8) << 3;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = rng_u32(rng);
        c[i] = (uint8_t)(((r >> 8) % count) | (r & 0x80u));
    }
}

static void e4m3_table(double tab[256])
{
    for (int c = 0; c < 256; c++)
        tab[c] = (double)fp8_decode((uint8_t)c, FP8_E4M3);
}

/* sum_k a[k] b[k] and sum_k |a[k] b[k]|, in double: exact here (see the top
 * of the file), so the order of the four partial sums does not matter. */
static void dot_k(const double *a, const double *b, int K, double *sum, double *mag)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    int k = 0;
    for (; k + 4 <= K; k += 4) {
        double p0 = a[k] * b[k], p1 = a[k + 1] * b[k + 1];
        double p2 = a[k + 2] * b[k + 2], p3 = a[k + 3] * b[k + 3];
        s0 += p0, s1 += p1, s2 += p2, s3 += p3;
        t0 += fabs(p0), t1 += fabs(p1), t2 += fabs(p2), t3 += fabs(p3);
    }
    for (; k < K; k++) {
        double p = a[k] * b[k];
        s0 += p;
        t0 += fabs(p);
    }
    *sum = (s0 + s1) + (s2 + s3);
    *mag = (t0 + t1) + (t2 + t3);
}

static double fp32_tolerance(int K, double bound)
{
    return (K + 2) * 0x1p-23 * bound + 1e-30;
}

/* One element: *ref = sum_k a[k] b[k] x sab, and *tol its tolerance (the
 * top of the file): FP32 accumulation's (K + 2) 2^-23 S, or the tensor
 * cores' from lab5_bound.h, which needs the products in k order (p: K
 * doubles of scratch). */
static void element_reference(const double *a, const double *b, int K, float sab,
                              int tensor_cores, double *p, double *ref, double *tol)
{
    double sabd = (double)sab;
    if (tensor_cores) {
        double sum;
        for (int k = 0; k < K; k++)
            p[k] = a[k] * b[k];
        *tol = lab5_tc_tolerance(p, K, fabs(sabd), &sum);
        *ref = sum * sabd;
    } else {
        double s, t;
        dot_k(a, b, K, &s, &t);
        *ref = s * sabd;
        *tol = fp32_tolerance(K, fabs(sabd) * t);
    }
}

/* The M x K codes A and the N x K codes B, decoded. */
static void decode_codes(const uint8_t *codes, size_t n, double *out)
{
    double tab[256];
    e4m3_table(tab);
    for (size_t i = 0; i < n; i++)
        out[i] = tab[codes[i]];
}

/* ref[i N + j] and tol[i N + j] for every element, by element_reference. */
static void gemm_reference(const uint8_t *A, const uint8_t *B, int M, int N, int K, float sab,
                           int tensor_cores, double *ref, double *tol)
{
    size_t ka = (size_t)M * (size_t)K, kb = (size_t)N * (size_t)K;
    double *a = xmalloc(ka * sizeof(double)), *b = xmalloc(kb * sizeof(double));
    double *p = xmalloc((size_t)K * sizeof(double));
    decode_codes(A, ka, a);
    decode_codes(B, kb, b);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            size_t o = (size_t)i * (size_t)N + (size_t)j;
            element_reference(a + (size_t)i * (size_t)K, b + (size_t)j * (size_t)K, K, sab,
                              tensor_cores, p, &ref[o], &tol[o]);
        }
    free(a), free(b), free(p);
}

/* The two wgmma versions run only on compute capability 9.0. */
static int needs_hopper(gemm_fn fn)
{
    return fn == lab5_gemm_wgmma || fn == lab5_gemm_wgmma_tile;
}

static void wgmma_unsupported(const char *name)
{
    int dev = 0, major = 0, minor = 0;
    cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev),
               "cudaDeviceGetAttribute");
    cuda_check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev),
               "cudaDeviceGetAttribute");
    if (major == 9 && minor == 0)
        ck_abort_msg("%s returned cudaErrorNotSupported, but this GPU has compute capability "
                     "9.0, where wgmma (sm_90a) runs (README §5.5)", name);
    ck_abort_msg("%s returned cudaErrorNotSupported: this GPU has compute capability %d.%d, "
                 "and wgmma needs 9.0 (sm_90a); this test cannot pass on it", name, major, minor);
}

typedef struct gemm_shape {
    int M, N, K;
} gemm_shape;

/* One GEMM of random codes (of exponents up to top_exp) with the given
 * scale_invs, run on the device into a D poisoned with 0xFF bytes (NaN),
 * GUARD bytes after it included. Returns D (nd elements and the guard, on
 * the host); *A and *B get the operands, call the call as the report names
 * it. The caller frees all three. */
static float *run_gemm(cudaStream_t st, const char *name, gemm_fn fn, gemm_shape s, float sa,
                       float sb, int top_exp, rng_state *rng, uint8_t **A_out, uint8_t **B_out,
                       char *call, size_t call_size)
{
    size_t ka = (size_t)s.M * (size_t)s.K, kb = (size_t)s.N * (size_t)s.K;
    size_t nd = (size_t)s.M * (size_t)s.N;
    uint8_t *A = xmalloc(ka), *B = xmalloc(kb);
    fill_codes(rng, A, ka, top_exp);
    fill_codes(rng, B, kb, top_exp);
    uint8_t *d_A = dev_alloc(ka), *d_B = dev_alloc(kb);
    float *d_sa = dev_alloc(sizeof(float)), *d_sb = dev_alloc(sizeof(float));
    float *d_D = dev_alloc(nd * sizeof(float) + GUARD);
    to_dev(d_A, A, ka);
    to_dev(d_B, B, kb);
    to_dev(d_sa, &sa, sizeof sa);
    to_dev(d_sb, &sb, sizeof sb);
    dev_fill(d_D, 0xFF, nd * sizeof(float) + GUARD);
    snprintf(call, call_size, "%s(M = %d, N = %d, K = %d)", name, s.M, s.N, s.K);
    cudaError_t rc = fn(d_A, d_B, d_sa, d_sb, d_D, s.M, s.N, s.K, st);
    if (rc == cudaErrorNotSupported && needs_hopper(fn))
        wgmma_unsupported(name);
    after_call(call, rc, st);
    float *D = xmalloc(nd * sizeof(float) + GUARD);
    from_dev(D, d_D, nd * sizeof(float) + GUARD);
    dev_free(d_A), dev_free(d_B), dev_free(d_sa), dev_free(d_sb), dev_free(d_D);
    *A_out = A, *B_out = B;
    return D;
}

/* One GEMM (run_gemm), every element of D against the reference, then the
 * GUARD bytes after D. */
static void check_gemm(gr_mismatches *m, cudaStream_t st, const char *name, gemm_fn fn,
                       int tensor_cores, gemm_shape s, float sa, float sb, int top_exp,
                       rng_state *rng)
{
    size_t nd = (size_t)s.M * (size_t)s.N;
    uint8_t *A, *B;
    char call[160];
    float *D = run_gemm(st, name, fn, s, sa, sb, top_exp, rng, &A, &B, call, sizeof call);

    float sab = sa * sb;
    double *ref = xmalloc(nd * sizeof(double)), *tols = xmalloc(nd * sizeof(double));
    gemm_reference(A, B, s.M, s.N, s.K, sab, tensor_cores, ref, tols);
    for (size_t o = 0; o < nd; o++) {
        double tol = tols[o];
        int ok = !isnan(D[o]) && fabs((double)D[o] - ref[o]) <= tol;
        if (tally(m, ok))
            gr_expect(m, 0, "%s: D[%zu][%zu] (M=%d, N=%d, K=%d; a_scale_inv %s, b_scale_inv "
                      "%s): expected %.9g (tolerance %.2g), got %s", name, o / (size_t)s.N,
                      o % (size_t)s.N, s.M, s.N, s.K, gr_f32(sa), gr_f32(sb), ref[o], tol,
                      gr_f32(D[o]));
    }
    expect_guard(m, call, "D", nd * sizeof(float), (const uint8_t *)(D + nd), 0xFF);
    free(ref), free(tols), free(D), free(A), free(B);
}

#define SAMPLES_PER_BLOCK 24 /* sampled elements in each 128 x 128 block of a large D */

/* A GEMM too large to check every element against the CPU: every element
 * of D must be written (no NaN poison left, nothing past the end), and in
 * each 128 x 128 block of D, SAMPLES_PER_BLOCK elements drawn at random
 * must be within the tensor cores' tolerance, so that every tile of every
 * block of a persistent grid is looked at. */
static void check_gemm_sampled(gr_mismatches *m, cudaStream_t st, const char *name, gemm_fn fn,
                               gemm_shape s, float sa, float sb, int top_exp, rng_state *rng)
{
    size_t nd = (size_t)s.M * (size_t)s.N;
    uint8_t *A, *B;
    char call[160];
    float *D = run_gemm(st, name, fn, s, sa, sb, top_exp, rng, &A, &B, call, sizeof call);

    size_t unwritten = 0, first = 0;
    for (size_t o = 0; o < nd; o++)
        if (isnan(D[o]) && unwritten++ == 0)
            first = o;
    gr_expect(m, unwritten == 0, "%s: %zu elements of D are NaN, the poison put there before "
              "the call (never written?), the first D[%zu][%zu]", call, unwritten,
              first / (size_t)s.N, first % (size_t)s.N);
    expect_guard(m, call, "D", nd * sizeof(float), (const uint8_t *)(D + nd), 0xFF);

    double tab[256], *a = xmalloc((size_t)s.K * sizeof(double));
    double *b = xmalloc((size_t)s.K * sizeof(double)), *p = xmalloc((size_t)s.K * sizeof(double));
    e4m3_table(tab);
    float sab = sa * sb;
    for (int bi = 0; bi < (s.M + 127) / 128; bi++)
        for (int bj = 0; bj < (s.N + 127) / 128; bj++)
            for (int t = 0; t < SAMPLES_PER_BLOCK; t++) {
                int rows = s.M - 128 * bi < 128 ? s.M - 128 * bi : 128;
                int cols = s.N - 128 * bj < 128 ? s.N - 128 * bj : 128;
                size_t i = 128 * (size_t)bi + rng_below(rng, (uint32_t)rows);
                size_t j = 128 * (size_t)bj + rng_below(rng, (uint32_t)cols);
                for (int k = 0; k < s.K; k++) {
                    a[k] = tab[A[i * (size_t)s.K + k]];
                    b[k] = tab[B[j * (size_t)s.K + k]];
                }
                double ref, tol;
                element_reference(a, b, s.K, sab, 1, p, &ref, &tol);
                float got = D[i * (size_t)s.N + j];
                int ok = !isnan(got) && fabs((double)got - ref) <= tol;
                if (tally(m, ok))
                    gr_expect(m, 0, "%s: D[%zu][%zu] (M=%d, N=%d, K=%d, a sampled element): "
                              "expected %.9g (tolerance %.2g), got %s", name, i, j, s.M, s.N,
                              s.K, ref, tol, gr_f32(got));
            }
    free(a), free(b), free(p), free(D), free(A), free(B);
}

/* A shape a tensor-core GEMM must refuse: cudaErrorInvalidValue, nothing
 * queued (D untouched). */
static void check_gemm_rejects(gr_mismatches *m, cudaStream_t st, const char *name, gemm_fn fn,
                               gemm_shape s, const char *why)
{
    size_t bytes = (size_t)256 * 256;
    size_t nd = (size_t)s.M * (size_t)s.N;
    uint8_t *d_A = dev_alloc(bytes), *d_B = dev_alloc(bytes);
    float *d_sa = dev_alloc(sizeof(float)), *d_sb = dev_alloc(sizeof(float));
    float *d_D = dev_alloc(nd * sizeof(float));
    const float one = 1.0f;
    dev_fill(d_A, 0x38, bytes);
    dev_fill(d_B, 0x38, bytes);
    to_dev(d_sa, &one, sizeof one);
    to_dev(d_sb, &one, sizeof one);
    dev_fill(d_D, 0xFF, nd * sizeof(float));
    char call[160];
    snprintf(call, sizeof call, "%s(M = %d, N = %d, K = %d)", name, s.M, s.N, s.K);
    cudaError_t rc = fn(d_A, d_B, d_sa, d_sb, d_D, s.M, s.N, s.K, st);
    if (rc == cudaErrorNotSupported && needs_hopper(fn))
        wgmma_unsupported(name);
    cudaError_t e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
        ck_abort_msg("%s crashed: its kernels failed with %s: %s", call, cudaGetErrorName(e),
                     cudaGetErrorString(e));
    (void)cudaGetLastError(); /* a refused launch of its own is not what this checks */
    gr_expect(m, rc == cudaErrorInvalidValue, "%s: %s\n  expected cudaErrorInvalidValue\n"
              "  got      %s", call, why, cudaGetErrorName(rc));
    uint8_t *D = xmalloc(nd * sizeof(float));
    from_dev(D, d_D, nd * sizeof(float));
    size_t written = 0;
    for (size_t i = 0; i < nd * sizeof(float); i++)
        written += D[i] != 0xFF;
    gr_expect(m, written == 0, "%s: %s, so it must queue nothing\n  but %zu bytes of D "
              "were written", call, why, written);
    free(D);
    dev_free(d_A), dev_free(d_B), dev_free(d_sa), dev_free(d_sb), dev_free(d_D);
}

static const gemm_shape any_shapes[] = {
    {1, 1, 1}, {37, 53, 19}, {130, 70, 257}, {256, 192, 512}, {64, 300, 33},
};

static const gemm_shape tc_shapes[] = {
    {128, 128, 128}, {256, 384, 512}, {512, 256, 1024}, {1024, 2048, 1024},
};

/* Hidden inputs: three shapes, every finite code, and scale_invs drawn
 * from the seed. */
static void gemm_hidden(gr_mismatches *m, cudaStream_t st, const char *name, gemm_fn fn)
{
    rng_state rng;
    if (!gr_hidden_rng(&rng, 54))
        return;
    for (int t = 0; t < 3; t++) {
        gemm_shape s = {1 + (int)rng_below(&rng, 300), 1 + (int)rng_below(&rng, 300),
                        1 + (int)rng_below(&rng, 700)};
        float sa = fabsf(gr_hidden_float(&rng, -8, 16)), sb = fabsf(gr_hidden_float(&rng, -8, 16));
        check_gemm(m, st, name, fn, 0, s, sa, sb, 8, &rng);
    }
}

static void gemm_fp32(const char *name, gemm_fn fn, int hidden)
{
    cudaStream_t st = gpu_begin();
    gr_mismatches m = {0};
    for (size_t i = 0; i < sizeof any_shapes / sizeof any_shapes[0]; i++) {
        rng_state rng;
        rng_seed(&rng, 5, 40 + (uint64_t)i);
        check_gemm(&m, st, name, fn, 0, any_shapes[i], 0.37f, 5.5f, 3, &rng);
    }
    if (hidden)
        gemm_hidden(&m, st, name, fn);
    gr_finish(&m, "elements");
}

static void test_gemm_naive(void) { gemm_fp32("lab5_gemm_naive", lab5_gemm_naive, 0); }
static void test_gemm_tiled(void) { gemm_fp32("lab5_gemm_tiled", lab5_gemm_tiled, 1); }

static void gemm_tensor_cores(const char *name, gemm_fn fn)
{
    cudaStream_t st = gpu_begin();
    gr_mismatches m = {0};
    for (size_t i = 0; i < sizeof tc_shapes / sizeof tc_shapes[0]; i++) {
        rng_state rng;
        rng_seed(&rng, 5, 50 + (uint64_t)i);
        check_gemm(&m, st, name, fn, 1, tc_shapes[i], 0.37f, 5.5f, 3, &rng);
    }
    static const gemm_shape bad[] = {{100, 128, 128}, {128, 200, 128}, {128, 128, 96}};
    static const char *const why[] = {"M = 100 is not a multiple of 128",
                                      "N = 200 is not a multiple of 128",
                                      "K = 96 is not a multiple of 128"};
    for (int i = 0; i < 3; i++)
        check_gemm_rejects(&m, st, name, fn, bad[i], why[i]);
    /* More tiles than SMs (several tiles per block of a persistent grid),
     * K / 128 = 10 slices (several trips round a ring of stages), and N a
     * multiple of 128 but not of 256 (a half-width last column of tiles). */
    rng_state rng;
    rng_seed(&rng, 5, 59);
    check_gemm_sampled(&m, st, name, fn, (gemm_shape){2048, 4224, 1280}, 0.37f, 5.5f, 3, &rng);
    gr_finish(&m, "checks");
}

static void test_gemm_mma(void) { gemm_tensor_cores("lab5_gemm_mma", lab5_gemm_mma); }
static void test_gemm_wgmma_tile(void)
{
    gemm_tensor_cores("lab5_gemm_wgmma_tile", lab5_gemm_wgmma_tile);
}
static void test_gemm_wgmma(void) { gemm_tensor_cores("lab5_gemm_wgmma", lab5_gemm_wgmma); }

/* ---- §6 cuBLASLt ----------------------------------------------------------------------- */

#define WORKSPACE_BYTES ((size_t)32 << 20)

static cublasLtHandle_t lt_create(void)
{
    cublasLtHandle_t h;
    cublasStatus_t s = cublasLtCreate(&h);
    if (s != CUBLAS_STATUS_SUCCESS)
        ck_abort_msg("the test's cublasLtCreate failed: %s: %s", cublasLtGetStatusName(s),
                     cublasLtGetStatusString(s));
    (void)cudaGetLastError(); /* whatever the library left there is not the submission's */
    return h;
}

/* Half the gap between the E4M3 values around y, 0 <= y <= 448: 2^-10
 * below the smallest normal 2^-6 (the subnormal step 2^-9), else
 * 2^(floor(log2 y) - 4). */
static double e4m3_half_step(double y)
{
    if (y < 0x1p-6)
        return 0x1p-10;
    int e;
    frexp(y, &e); /* y = f 2^e, f in [0.5, 1): floor(log2 y) = e - 1 */
    return ldexp(1.0, e - 5);
}

static void test_gemm_cublaslt_fp8(void)
{
    cudaStream_t st = gpu_begin();
    static const gemm_shape shapes[] = {{256, 512, 384}, {1024, 1024, 1024}, {128, 4096, 256}};
    const float sa = 0.5f, sb = 3.0f, ds = 0.25f, sab = sa * sb;
    cublasLtHandle_t h = lt_create();
    void *ws = dev_alloc(WORKSPACE_BYTES);
    float *d_sa = dev_alloc(sizeof(float)), *d_sb = dev_alloc(sizeof(float));
    float *d_ds = dev_alloc(sizeof(float)), *d_amax = dev_alloc(sizeof(float));
    to_dev(d_sa, &sa, sizeof sa);
    to_dev(d_sb, &sb, sizeof sb);
    to_dev(d_ds, &ds, sizeof ds);
    gr_mismatches m = {0};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        gemm_shape s = shapes[t];
        size_t ka = (size_t)s.M * (size_t)s.K, kb = (size_t)s.N * (size_t)s.K;
        size_t nd = (size_t)s.M * (size_t)s.N;
        rng_state rng;
        rng_seed(&rng, 5, 60 + (uint64_t)t);
        uint8_t *A = xmalloc(ka), *B = xmalloc(kb), *D = xmalloc(nd + GUARD);
        /* |values| < 4: t d_scale stays well inside E4M3's range, and a
         * scale left out still shows. */
        fill_codes(&rng, A, ka, 1);
        fill_codes(&rng, B, kb, 1);
        uint8_t *d_A = dev_alloc(ka), *d_B = dev_alloc(kb), *d_D = dev_alloc(nd + GUARD);
        to_dev(d_A, A, ka);
        to_dev(d_B, B, kb);
        dev_fill(d_D, 0xFF, nd + GUARD); /* E4M3's NaN: an unwritten code cannot pass */
        dev_fill(d_amax, float_poison(), sizeof(float));
        char call[256];
        snprintf(call, sizeof call, "lab5_gemm_cublaslt_fp8(M = %d, N = %d, K = %d, "
                 "a_scale_inv 0.5, b_scale_inv 3, d_scale 0.25)", s.M, s.N, s.K);
        cublasStatus_t status = lab5_gemm_cublaslt_fp8(h, d_A, d_B, d_sa, d_sb, d_ds, d_D,
                                                       d_amax, s.M, s.N, s.K, ws,
                                                       WORKSPACE_BYTES, st);
        if (status != CUBLAS_STATUS_SUCCESS)
            ck_abort_msg("%s returned %s: %s", call, cublasLtGetStatusName(status),
                         cublasLtGetStatusString(status));
        synced(call, st, 0);
        float amax;
        from_dev(D, d_D, nd + GUARD);
        from_dev(&amax, d_amax, sizeof amax);

        double *ref = xmalloc(nd * sizeof(double)), *tols = xmalloc(nd * sizeof(double));
        gemm_reference(A, B, s.M, s.N, s.K, sab, 1, ref, tols);
        double want_amax = 0, amax_tol = 0;
        for (size_t o = 0; o < nd; o++) {
            double tol = tols[o];
            want_amax = fmax(want_amax, fabs(ref[o]));
            amax_tol = fmax(amax_tol, tol);
            double v = ref[o] * (double)ds, vtol = tol * (double)ds;
            double clamped = fmax(-448.0, fmin(448.0, v));
            double allowed = e4m3_half_step(fmin(fabs(v) + vtol, 448.0)) + vtol;
            float got = fp8_decode(D[o], FP8_E4M3);
            int ok = !isnan(got) && fabs((double)got - clamped) <= allowed;
            if (tally(&m, ok))
                gr_expect(&m, 0, "%s\n  D[%zu][%zu]: t = acc x a_scale_inv x b_scale_inv = "
                          "%.9g, t x d_scale = %.9g\n  expected an E4M3 code within %.3g of "
                          "that (half an E4M3 step plus the tensor cores' tolerance)\n"
                          "  got      %s", call, o / (size_t)s.N, o % (size_t)s.N, ref[o], v,
                          allowed, gr_code(D[o], FP8_E4M3));
        }
        expect_guard(&m, call, "D", nd, D + nd, 0xFF);
        gr_expect(&m, !isnan(amax) && fabs((double)amax - want_amax) <= amax_tol,
                  "%s: *d_amax, max |t| over D (before d_scale)\n  expected %.9g (tolerance "
                  "%.2g)\n  got      %s", call, want_amax, amax_tol, gr_f32(amax));
        free(ref), free(tols), free(A), free(B), free(D);
        dev_free(d_A), dev_free(d_B), dev_free(d_D);
    }
    dev_free(ws), dev_free(d_sa), dev_free(d_sb), dev_free(d_ds), dev_free(d_amax);
    cublasStatus_t s = cublasLtDestroy(h);
    if (s != CUBLAS_STATUS_SUCCESS)
        ck_abort_msg("the test's cublasLtDestroy failed: %s", cublasLtGetStatusName(s));
    gr_finish(&m, "checks");
}

/* ---- §7 measuring --------------------------------------------------------------------- */

#define PERF_WARMUP 3
#define PERF_RUNS 20
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* perf_gemm's baseline, like for like with the kernels it is compared with:
 * E4M3 A and B, the same two scale_inv pointers, an FP32 D (no output
 * cast, no amax), FP32 accumulation with FAST_ACCUM = 1 (no promotion of
 * partial sums, as the course's kernels). Its descriptors and algorithm are
 * made once, before any timing, so that the time is the GEMM's alone. */
typedef struct lt_plan {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, d;
    cublasLtMatmulAlgo_t algo;
} lt_plan;

typedef enum perf_kind { RUN_COPY, RUN_AMAX, RUN_CAST, RUN_MX, RUN_GEMM, RUN_BASELINE } perf_kind;

/* One timed run: what to call, and with what. */
typedef struct perf_job {
    perf_kind kind;
    const char *name;
    const void *src; /* RUN_COPY */
    void *dst;
    size_t bytes;
    const float *x, *scale; /* RUN_AMAX, RUN_CAST, RUN_MX */
    size_t n, rows, cols;
    uint8_t *q, *scales;
    float *amax;
    gemm_fn gemm; /* RUN_GEMM */
    const uint8_t *A, *B;
    const float *sa, *sb, *ds;
    float *D;
    uint8_t *D8;
    int M, N, K;
    cublasLtHandle_t handle; /* RUN_BASELINE */
    const struct lt_plan *plan;
    void *ws;
} perf_job;

static void perf_enqueue(const perf_job *j, cudaStream_t st)
{
    cudaError_t rc = cudaSuccess;
    switch (j->kind) {
    case RUN_COPY:
        rc = cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, st);
        break;
    case RUN_AMAX:
        rc = lab5_amax(j->x, j->n, j->amax, st);
        break;
    case RUN_CAST:
        rc = lab5_scale_cast(j->x, j->n, j->scale, FP8_E4M3, j->q, j->amax, st);
        break;
    case RUN_MX:
        rc = lab5_mx_quantize(j->x, j->rows, j->cols, FP8_E4M3, MX_SCALE_FLOOR, j->q, j->scales,
                              st);
        break;
    case RUN_GEMM:
        rc = j->gemm(j->A, j->B, j->sa, j->sb, j->D, j->M, j->N, j->K, st);
        break;
    case RUN_BASELINE: {
        /* cuBLASLt's A is our B, its B our A (README §6); C = D, beta = 0. */
        const float alpha = 1.0f, beta = 0.0f;
        cublasStatus_t s = cublasLtMatmul(j->handle, j->plan->op, &alpha, j->B, j->plan->a, j->A,
                                          j->plan->b, &beta, j->D, j->plan->d, j->D, j->plan->d,
                                          &j->plan->algo, j->ws, WORKSPACE_BYTES, st);
        if (s != CUBLAS_STATUS_SUCCESS)
            ck_abort_msg("%s returned %s: %s (the grader's baseline: tell the course staff)",
                         j->name, cublasLtGetStatusName(s), cublasLtGetStatusString(s));
        return;
    }
    }
    if (rc != cudaSuccess)
        ck_abort_msg("%s returned %s while being timed: %s", j->name, cudaGetErrorName(rc),
                     cudaGetErrorString(rc));
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

#define PERF_SLOW_MS 200.0 /* a run this slow is timed once: no tier is near */

/* The median time of one run of j, in ms, and in *runs how many were
 * timed: one run to warm up, timed (when it takes PERF_SLOW_MS or more,
 * that is the answer), PERF_WARMUP - 1 more, then PERF_RUNS each between
 * two events, all queued back to back so that the GPU does not wait for
 * the host between them. */
static double perf_median_ms(const perf_job *j, cudaStream_t st, int *runs)
{
    cudaEvent_t ev[2 * PERF_RUNS];
    for (int i = 0; i < 2 * PERF_RUNS; i++)
        cuda_check(cudaEventCreate(&ev[i]), "cudaEventCreate");
    char call[160];
    snprintf(call, sizeof call, "%s (being timed)", j->name);
    float ms[PERF_RUNS];
    cuda_check(cudaEventRecord(ev[0], st), "cudaEventRecord");
    perf_enqueue(j, st);
    cuda_check(cudaEventRecord(ev[1], st), "cudaEventRecord");
    synced(call, st, j->kind != RUN_BASELINE);
    cuda_check(cudaEventElapsedTime(&ms[0], ev[0], ev[1]), "cudaEventElapsedTime");
    *runs = 1;
    if (ms[0] < PERF_SLOW_MS) {
        for (int w = 1; w < PERF_WARMUP; w++)
            perf_enqueue(j, st);
        for (int r = 0; r < PERF_RUNS; r++) {
            cuda_check(cudaEventRecord(ev[2 * r], st), "cudaEventRecord");
            perf_enqueue(j, st);
            cuda_check(cudaEventRecord(ev[2 * r + 1], st), "cudaEventRecord");
        }
        synced(call, st, j->kind != RUN_BASELINE);
        for (int r = 0; r < PERF_RUNS; r++)
            cuda_check(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]),
                       "cudaEventElapsedTime");
        *runs = PERF_RUNS;
    }
    for (int i = 0; i < 2 * PERF_RUNS; i++)
        cuda_check(cudaEventDestroy(ev[i]), "cudaEventDestroy");
    if (*runs == 1)
        return (double)ms[0];
    qsort(ms, PERF_RUNS, sizeof ms[0], cmp_float);
    return 0.5 * ((double)ms[PERF_RUNS / 2 - 1] + (double)ms[PERF_RUNS / 2]);
}

/* How a time was taken, for a message. */
static const char *runs_str(int runs)
{
    return runs == 1 ? "one run, too slow to repeat"
                     : "the median of " STRINGIFY(PERF_RUNS) " runs";
}

/* A wrong result is not timed. */
static void untimed(const gr_mismatches *m, const char *noun)
{
    if (m->count)
        ck_abort_msg("not timed: the result is wrong:\n%.*s%zu of %zu %s differ", (int)m->len,
                     m->text, m->count, m->checked, noun);
}

#define PERF_N ((size_t)1 << 26)

/* A memory-bound kernel's bandwidth against a device-to-device copy. */
static void perf_memory(perf_kind kind, double tier)
{
    cudaStream_t st = gpu_begin();
    const size_t n = PERF_N, rows = 8192, cols = PERF_N / 8192;
    float *x = xmalloc(n * sizeof(float));
    rng_state rng;
    rng_seed(&rng, 5, 70);
    fill_tensor(&rng, x, n);
    perf_job job = {0};
    job.kind = kind;
    job.n = n;
    job.rows = rows;
    job.cols = cols;
    gr_mismatches m = {0};
    cast_bufs cb;
    mx_bufs mb;
    float *d_x = NULL, *d_amax = NULL;
    size_t bytes = 0;
    if (kind == RUN_AMAX) {
        job.name = "lab5_amax";
        bytes = 4 * n;
        d_x = dev_alloc(n * sizeof(float));
        d_amax = dev_alloc(sizeof(float));
        to_dev(d_x, x, n * sizeof(float));
        for (int twice = 0; twice < 2; twice++) /* under both poisons of *amax */
            check_amax(&m, st, x, d_x, n, d_amax, "random x");
        job.x = d_x;
        job.amax = d_amax;
    } else if (kind == RUN_CAST) {
        job.name = "lab5_scale_cast";
        bytes = 5 * n;
        cast_open(&cb, n);
        to_dev(cb.d_x, x, n * sizeof(float));
        for (int twice = 0; twice < 2; twice++) /* under both poisons of *amax */
            check_cast(&m, st, &cb, x, n, 0x1p-4f, FP8_E4M3, "random x");
        job.x = cb.d_x;
        job.scale = cb.d_scale;
        job.q = cb.d_q;
        job.amax = cb.d_amax;
    } else {
        job.name = "lab5_mx_quantize";
        bytes = 5 * n + n / LAB5_MX_BLOCK;
        mx_open(&mb, n, n / LAB5_MX_BLOCK);
        check_mx(&m, st, &mb, x, rows, cols, FP8_E4M3, MX_SCALE_FLOOR, "random x");
        job.x = mb.d_x;
        job.q = mb.d_codes;
        job.scales = mb.d_scales;
    }
    untimed(&m, "checks");

    perf_job copy = {0};
    copy.kind = RUN_COPY;
    copy.name = "the device-to-device copy";
    copy.bytes = bytes;
    copy.src = dev_alloc(bytes);
    copy.dst = dev_alloc(bytes);
    dev_fill(copy.dst, 0, bytes);
    dev_fill((void *)copy.src, 0, bytes);
    int copy_runs, kernel_runs;
    double copy_ms = perf_median_ms(&copy, st, &copy_runs);
    double kernel_ms = perf_median_ms(&job, st, &kernel_runs);
    double copy_gbs = 2.0 * (double)bytes / (copy_ms * 1e-3) / 1e9;
    double kernel_gbs = (double)bytes / (kernel_ms * 1e-3) / 1e9;
    double fraction = kernel_gbs / copy_gbs;
    if (fraction < tier)
        ck_abort_msg("%s: %.0f GB/s = %.1f%% of a device-to-device copy (%.0f GB/s) in this run;"
                     " this tier needs %.0f%%\n  (n = %zu floats: %.0f MB read and written in "
                     "%.3f ms, %s; the copy: %.0f MB each way in %.3f ms, %s)",
                     job.name, kernel_gbs, 100.0 * fraction, copy_gbs, 100.0 * tier, n,
                     (double)bytes / 1e6, kernel_ms, runs_str(kernel_runs), (double)bytes / 1e6,
                     copy_ms, runs_str(copy_runs));
    dev_free((void *)copy.src);
    dev_free(copy.dst);
    if (kind == RUN_AMAX)
        dev_free(d_x), dev_free(d_amax);
    else if (kind == RUN_CAST)
        cast_close(&cb);
    else
        mx_close(&mb);
    free(x);
}

static void test_perf_amax_50(void) { perf_memory(RUN_AMAX, 0.50); }
static void test_perf_amax_70(void) { perf_memory(RUN_AMAX, 0.70); }
static void test_perf_amax_85(void) { perf_memory(RUN_AMAX, 0.85); }
static void test_perf_cast_50(void) { perf_memory(RUN_CAST, 0.50); }
static void test_perf_cast_70(void) { perf_memory(RUN_CAST, 0.70); }
static void test_perf_cast_85(void) { perf_memory(RUN_CAST, 0.85); }
static void test_perf_mx_50(void) { perf_memory(RUN_MX, 0.50); }
static void test_perf_mx_65(void) { perf_memory(RUN_MX, 0.65); }
static void test_perf_mx_80(void) { perf_memory(RUN_MX, 0.80); }

#define PERF_GEMM 4096
#define PERF_SAMPLES 4096

static void lt_check(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        ck_abort_msg("the test's baseline: %s failed: %s: %s (tell the course staff)", what,
                     cublasLtGetStatusName(s), cublasLtGetStatusString(s));
}

static void lt_plan_make(lt_plan *p, cublasLtHandle_t h, const float *sa, const float *sb,
                         int M, int N, int K)
{
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const int8_t fast_accum = 1;
    const void *lt_a_scale = sb, *lt_b_scale = sa; /* cuBLASLt's A is our B */
    const uint64_t ws = WORKSPACE_BYTES;
    lt_check(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "DescCreate");
    lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
             "TRANSA");
    lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
             "TRANSB");
    lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                            &lt_a_scale, sizeof lt_a_scale), "A_SCALE_POINTER");
    lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                            &lt_b_scale, sizeof lt_b_scale), "B_SCALE_POINTER");
    lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                            sizeof fast_accum), "FAST_ACCUM");
    lt_check(cublasLtMatrixLayoutCreate(&p->a, CUDA_R_8F_E4M3, K, N, K), "layout A");
    lt_check(cublasLtMatrixLayoutCreate(&p->b, CUDA_R_8F_E4M3, K, M, K), "layout B");
    lt_check(cublasLtMatrixLayoutCreate(&p->d, CUDA_R_32F, N, M, N), "layout D");
    cublasLtMatmulPreference_t pref;
    lt_check(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate");
    lt_check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &ws, sizeof ws), "MAX_WORKSPACE_BYTES");
    cublasLtMatmulHeuristicResult_t r;
    int found = 0;
    lt_check(cublasLtMatmulAlgoGetHeuristic(h, p->op, p->a, p->b, p->d, p->d, pref, 1, &r,
                                            &found), "AlgoGetHeuristic");
    lt_check(found ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED, "AlgoGetHeuristic");
    p->algo = r.algo;
    lt_check(cublasLtMatmulPreferenceDestroy(pref), "PreferenceDestroy");
}

static void lt_plan_free(lt_plan *p)
{
    lt_check(cublasLtMatrixLayoutDestroy(p->d), "LayoutDestroy");
    lt_check(cublasLtMatrixLayoutDestroy(p->b), "LayoutDestroy");
    lt_check(cublasLtMatrixLayoutDestroy(p->a), "LayoutDestroy");
    lt_check(cublasLtMatmulDescDestroy(p->op), "DescDestroy");
}

/* Checks fn's D at PERF_SAMPLES random elements; writes why not into note
 * and returns 0 when it fails or is wrong. */
static int perf_gemm_try(const perf_job *job, cudaStream_t st, const uint8_t *A,
                         const uint8_t *B, float sab, char *note, size_t size)
{
    const int n = PERF_GEMM;
    size_t nd = (size_t)n * n;
    dev_fill(job->D, 0xFF, nd * sizeof(float));
    char call[160];
    snprintf(call, sizeof call, "%s(M = N = K = %d)", job->name, n);
    cudaError_t rc = job->gemm(job->A, job->B, job->sa, job->sb, job->D, n, n, n, st);
    if (rc != cudaSuccess) {
        /* Nothing should be queued; a crash would still show here. */
        cudaError_t e = cudaStreamSynchronize(st);
        if (e != cudaSuccess)
            ck_abort_msg("%s crashed: its kernels failed with %s: %s", call,
                         cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        snprintf(note, size, "%s: not timed: it returned %s", job->name, cudaGetErrorName(rc));
        return 0;
    }
    synced(call, st, 1);
    float *D = xmalloc(nd * sizeof(float));
    from_dev(D, job->D, nd * sizeof(float));
    double tab[256];
    e4m3_table(tab);
    double *a = xmalloc((size_t)n * sizeof(double)), *b = xmalloc((size_t)n * sizeof(double));
    double *p = xmalloc((size_t)n * sizeof(double));
    rng_state rng;
    rng_seed(&rng, 5, 81);
    gr_mismatches m = {0};
    for (int t = 0; t < PERF_SAMPLES; t++) {
        size_t i = rng_below(&rng, n), j = rng_below(&rng, n);
        for (int k = 0; k < n; k++) {
            a[k] = tab[A[i * n + k]];
            b[k] = tab[B[j * n + k]];
        }
        double ref, tol;
        element_reference(a, b, n, sab, 1, p, &ref, &tol);
        float got = D[i * (size_t)n + j];
        int ok = !isnan(got) && fabs((double)got - ref) <= tol;
        if (tally(&m, ok))
            gr_expect(&m, 0, "D[%zu][%zu]: expected %.9g (tolerance %.2g), got %s", i, j, ref,
                      tol, gr_f32(got));
    }
    free(D), free(a), free(b), free(p);
    if (m.count) {
        snprintf(note, size, "%s: not timed: wrong at %zu of %zu sampled elements, e.g. %.*s",
                 job->name, m.count, m.checked, (int)(m.len && m.text[m.len - 1] == '\n'
                                                      ? m.len - 1 : m.len), m.text);
        return 0;
    }
    return 1;
}

/* The faster tensor-core GEMM against cuBLASLt's FP8 GEMM. */
static void perf_gemm(double tier)
{
    cudaStream_t st = gpu_begin();
    const int n = PERF_GEMM;
    size_t nk = (size_t)n * n;
    const float sa = 0.37f, sb = 5.5f, one = 1.0f, sab = sa * sb;
    uint8_t *A = xmalloc(nk), *B = xmalloc(nk);
    rng_state rng;
    rng_seed(&rng, 5, 80);
    fill_codes(&rng, A, nk, 3);
    fill_codes(&rng, B, nk, 3);
    perf_job base = {0};
    base.M = base.N = base.K = n;
    base.A = dev_alloc(nk);
    base.B = dev_alloc(nk);
    to_dev((void *)base.A, A, nk);
    to_dev((void *)base.B, B, nk);
    float *d_sa = dev_alloc(sizeof(float)), *d_sb = dev_alloc(sizeof(float));
    float *d_one = dev_alloc(sizeof(float));
    to_dev(d_sa, &sa, sizeof sa);
    to_dev(d_sb, &sb, sizeof sb);
    to_dev(d_one, &one, sizeof one);
    base.sa = d_sa;
    base.sb = d_sb;
    base.ds = d_one;
    base.D = dev_alloc(nk * sizeof(float));

    perf_job lt = base;
    lt.kind = RUN_BASELINE;
    lt.name = "cuBLASLt's FP8 GEMM (E4M3 in, FP32 out, fast accumulation)";
    lt.handle = lt_create();
    lt.ws = dev_alloc(WORKSPACE_BYTES);
    lt_plan plan;
    lt_plan_make(&plan, lt.handle, d_sa, d_sb, n, n, n);
    lt.plan = &plan;
    int runs;
    double lt_ms = perf_median_ms(&lt, st, &runs);

    static const char *const names[3] = {"lab5_gemm_mma", "lab5_gemm_wgmma_tile",
                                         "lab5_gemm_wgmma"};
    const gemm_fn fns[3] = {lab5_gemm_mma, lab5_gemm_wgmma_tile, lab5_gemm_wgmma};
    char notes[3][1024] = {"", "", ""};
    double best_ms = 0;
    int best = -1;
    for (int c = 0; c < 3; c++) {
        perf_job job = base;
        job.kind = RUN_GEMM;
        job.name = names[c];
        job.gemm = fns[c];
        if (!perf_gemm_try(&job, st, A, B, sab, notes[c], sizeof notes[c]))
            continue;
        double ms = perf_median_ms(&job, st, &runs);
        snprintf(notes[c], sizeof notes[c], "%s: %.0f TFLOPS (%.3f ms, %s)", names[c],
                 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12, ms, runs_str(runs));
        if (best < 0 || ms < best_ms)
            best = c, best_ms = ms;
    }
    double flops = 2.0 * n * n * (double)n;
    double lt_tflops = flops / (lt_ms * 1e-3) / 1e12;
    if (best < 0)
        ck_abort_msg("not timed: no tensor-core GEMM gave a right result at M = N = K = "
                     "%d\n  %s\n  %s\n  %s", n, notes[0], notes[1], notes[2]);
    double tflops = flops / (best_ms * 1e-3) / 1e12, ratio = tflops / lt_tflops;
    if (ratio < tier)
        ck_abort_msg("%s: %.0f TFLOPS = %.1f%% of cuBLASLt's FP8 GEMM (E4M3 in, FP32 out, "
                     "fast accumulation: %.0f TFLOPS, %.3f ms) in this run, M = N = K = %d; "
                     "this tier needs %.0f%%\n  %s\n  %s\n  %s", names[best], tflops,
                     100.0 * ratio, lt_tflops, lt_ms, n, 100.0 * tier, notes[0], notes[1],
                     notes[2]);
    lt_plan_free(&plan);
    cublasStatus_t s = cublasLtDestroy(lt.handle);
    if (s != CUBLAS_STATUS_SUCCESS)
        ck_abort_msg("the test's cublasLtDestroy failed: %s", cublasLtGetStatusName(s));
    dev_free((void *)base.A), dev_free((void *)base.B), dev_free(d_sa), dev_free(d_sb);
    dev_free(d_one), dev_free(base.D), dev_free(lt.ws);
    free(A), free(B);
}

static void test_perf_gemm_25(void) { perf_gemm(0.25); }
static void test_perf_gemm_50(void) { perf_gemm(0.50); }

/* ---- §1 builds ------------------------------------------------------------------------- */

typedef void (*any_fn)(void);

/* Every function of lab5.h: taking their addresses makes the link prove
 * they are all there. */
static const struct {
    const char *name;
    any_fn fn;
} lab5_functions[] = {
    {"lab5_amax", (any_fn)lab5_amax},
    {"lab5_scale_cast", (any_fn)lab5_scale_cast},
    {"lab5_mx_quantize", (any_fn)lab5_mx_quantize},
    {"lab5_gemm_naive", (any_fn)lab5_gemm_naive},
    {"lab5_gemm_tiled", (any_fn)lab5_gemm_tiled},
    {"lab5_gemm_mma", (any_fn)lab5_gemm_mma},
    {"lab5_gemm_wgmma_tile", (any_fn)lab5_gemm_wgmma_tile},
    {"lab5_gemm_wgmma", (any_fn)lab5_gemm_wgmma},
    {"lab5_gemm_cublaslt_fp8", (any_fn)lab5_gemm_cublaslt_fp8},
    {"lab5_gemm_cublaslt_bf16", (any_fn)lab5_gemm_cublaslt_bf16},
};

/* No GPU needed, and no CUDA call. */
static void test_builds(void)
{
    for (size_t i = 0; i < sizeof lab5_functions / sizeof lab5_functions[0]; i++) {
        any_fn volatile fn = lab5_functions[i].fn;
        ck_assert_msg(fn != NULL, "%s is not defined", lab5_functions[i].name);
    }
}

static const grader_case cases[] = {
    {"builds", test_builds},
    {"amax", test_amax},
    {"amax_special", test_amax_special},
    {"amax_race", test_amax_race},
    {"cast_e4m3", test_cast_e4m3},
    {"cast_e5m2", test_cast_e5m2},
    {"cast_tail", test_cast_tail},
    {"cast_saturate", test_cast_saturate},
    {"cast_amax", test_cast_amax},
    {"mx_e4m3", test_mx_e4m3},
    {"mx_e5m2", test_mx_e5m2},
    {"mx_tail", test_mx_tail},
    {"mx_special", test_mx_special},
    {"gemm_naive", test_gemm_naive},
    {"gemm_tiled", test_gemm_tiled},
    {"gemm_mma", test_gemm_mma},
    {"gemm_wgmma_tile", test_gemm_wgmma_tile},
    {"gemm_wgmma", test_gemm_wgmma},
    {"gemm_cublaslt_fp8", test_gemm_cublaslt_fp8},
    {"perf_amax_50", test_perf_amax_50},
    {"perf_amax_70", test_perf_amax_70},
    {"perf_amax_85", test_perf_amax_85},
    {"perf_cast_50", test_perf_cast_50},
    {"perf_cast_70", test_perf_cast_70},
    {"perf_cast_85", test_perf_cast_85},
    {"perf_mx_50", test_perf_mx_50},
    {"perf_mx_65", test_perf_mx_65},
    {"perf_mx_80", test_perf_mx_80},
    {"perf_gemm_25", test_perf_gemm_25},
    {"perf_gemm_50", test_perf_gemm_50},
};

const grader_suite grader_this_suite = {&lab5_rubric, cases, GRADER_COUNT(cases)};
