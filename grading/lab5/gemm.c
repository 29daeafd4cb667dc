/*
 * lab5/gemm.c - lab5's tests of the GEMMs (README §5-§6): the naive, tiled,
 * mma.sync and wgmma kernels against a CPU sum in double with the
 * tolerances of lab5_bound.h, the shapes they must refuse, and
 * lab5_gemm_cublaslt_fp8's E4M3 output and amax. What they test and why is
 * at the top of lab5/suite.c.
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

/* ---- §5 the GEMMs ----------------------------------------------------------------------- */

/* Random E4M3 codes, never NaN (0x7F, 0xFF), either sign: |value| < 2^(top_exp + 1)
 * (codes up to the exponent field top_exp + 7), or every finite code when
 * top_exp is 8. */
void fill_codes(rng_state *rng, uint8_t *c, size_t n, int top_exp)
{
    uint32_t count = top_exp >= 8 ? 0x7F : (uint32_t)(top_exp + 8) << 3;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = rng_u32(rng);
        c[i] = (uint8_t)(((r >> 8) % count) | (r & 0x80u));
    }
}

void e4m3_table(double tab[256])
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
void element_reference(const double *a, const double *b, int K, float sab,
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
    int major = 0, minor = 0;
    device_cc(&major, &minor);
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

/* A product up to this many multiplications (M N K) is checked at every
 * element; a larger one at the elements sample_elements picks. */
#define FULL_CHECK_PRODUCTS ((size_t)1 << 27)
#define SAMPLES_PER_LINE 2   /* sampled elements in each row and each column */
#define SAMPLES_PER_BLOCK 24 /* and in each 128 x 128 block of D */
#define TILE 128

/* The elements of an M x N product too large to check everywhere (as
 * offsets i N + j, *count of them, malloc'd): the four edges whole (row 0,
 * row M - 1, column 0, column N - 1); SAMPLES_PER_LINE random ones in every
 * row and in every column; the four elements around each point where
 * 128 x 128 tiles meet (rows 128 b - 1 and 128 b, columns 128 c - 1 and
 * 128 c); and SAMPLES_PER_BLOCK random ones in every 128 x 128 block, so
 * that every tile of every block of a persistent grid is looked at. */
static size_t *sample_elements(int M, int N, size_t *count)
{
    /* where, from a seed no submission can know: a GEMM that computed only
     * the elements a fixed seed picks would pass */
    rng_state picks, *rng = &picks;
    rng_seed(rng, unpredictable_seed(), 41);
    size_t m = (size_t)M, n = (size_t)N, bm = (m + TILE - 1) / TILE, bn = (n + TILE - 1) / TILE;
    size_t cap = 2 * (m + n) + SAMPLES_PER_LINE * (m + n) + 4 * bm * bn +
                 SAMPLES_PER_BLOCK * bm * bn;
    size_t *at = xmalloc(cap * sizeof *at), k = 0;
    for (size_t j = 0; j < n; j++) {
        at[k++] = j;
        at[k++] = (m - 1) * n + j;
        for (int t = 0; t < SAMPLES_PER_LINE; t++)
            at[k++] = rng_below(rng, (uint32_t)m) * n + j;
    }
    for (size_t i = 0; i < m; i++) {
        at[k++] = i * n;
        at[k++] = i * n + n - 1;
        for (int t = 0; t < SAMPLES_PER_LINE; t++)
            at[k++] = i * n + rng_below(rng, (uint32_t)n);
    }
    for (size_t bi = 1; bi < bm; bi++)
        for (size_t bj = 1; bj < bn; bj++)
            for (size_t d = 0; d < 4; d++)
                at[k++] = (TILE * bi - 1 + d / 2) * n + TILE * bj - 1 + d % 2;
    for (size_t bi = 0; bi < bm; bi++)
        for (size_t bj = 0; bj < bn; bj++) {
            size_t rows = m - TILE * bi < TILE ? m - TILE * bi : TILE;
            size_t cols = n - TILE * bj < TILE ? n - TILE * bj : TILE;
            for (int t = 0; t < SAMPLES_PER_BLOCK; t++)
                at[k++] = (TILE * bi + rng_below(rng, (uint32_t)rows)) * n + TILE * bj +
                          rng_below(rng, (uint32_t)cols);
        }
    *count = k;
    return at;
}

/* One GEMM (run_gemm) against the reference: every element of D when the
 * product is small enough (FULL_CHECK_PRODUCTS), else every element for the
 * NaN poison (never written) and the elements sample_elements picks against
 * the reference; then the GUARD bytes after D. */
static void check_gemm(gr_mismatches *m, cudaStream_t st, const char *name, gemm_fn fn,
                       int tensor_cores, gemm_shape s, float sa, float sb, int top_exp,
                       rng_state *rng)
{
    size_t nd = (size_t)s.M * (size_t)s.N, K = (size_t)s.K;
    uint8_t *A, *B;
    char call[160];
    float *D = run_gemm(st, name, fn, s, sa, sb, top_exp, rng, &A, &B, call, sizeof call);
    int full = nd * K <= FULL_CHECK_PRODUCTS;
    size_t count = nd, *at = NULL;
    if (!full) {
        size_t unwritten = 0, first = 0;
        for (size_t o = 0; o < nd; o++)
            if (isnan(D[o]) && unwritten++ == 0)
                first = o;
        gr_expect(m, unwritten == 0, "%s: %zu elements of D are NaN, the poison put there "
                  "before the call (never written?), the first D[%zu][%zu]", call, unwritten,
                  first / (size_t)s.N, first % (size_t)s.N);
        at = sample_elements(s.M, s.N, &count);
    }
    double *a = xmalloc((size_t)s.M * K * sizeof(double));
    double *b = xmalloc((size_t)s.N * K * sizeof(double)), *p = xmalloc(K * sizeof(double));
    decode_codes(A, (size_t)s.M * K, a);
    decode_codes(B, (size_t)s.N * K, b);
    float sab = sa * sb;
    for (size_t t = 0; t < count; t++) {
        size_t o = full ? t : at[t], i = o / (size_t)s.N, j = o % (size_t)s.N;
        double ref, tol;
        element_reference(a + i * K, b + j * K, s.K, sab, tensor_cores, p, &ref, &tol);
        int ok = !isnan(D[o]) && fabs((double)D[o] - ref) <= tol;
        if (tally(m, ok))
            gr_expect(m, 0, "%s: D[%zu][%zu] (M=%d, N=%d, K=%d; a_scale_inv %s, b_scale_inv "
                      "%s%s): expected %.9g (tolerance %.2g), got %s", name, i, j, s.M, s.N,
                      s.K, gr_f32(sa), gr_f32(sb),
                      full ? "" : "; an element sampled: every row and column, the edges, "
                                  "the 128 x 128 tile boundaries", ref, tol, gr_f32(D[o]));
    }
    expect_guard(m, call, "D", nd * sizeof(float), (const uint8_t *)(D + nd), 0xFF);
    free(at), free(a), free(b), free(p), free(D), free(A), free(B);
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
    cudaError_t e = stream_error(st); /* a refused launch of its own is not what this checks */
    if (e != cudaSuccess)
        ck_abort_msg("%s crashed: its kernels failed with %s: %s", call, cudaGetErrorName(e),
                     cudaGetErrorString(e));
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

void test_gemm_naive(void) { gemm_fp32("lab5_gemm_naive", lab5_gemm_naive, 0); }
void test_gemm_tiled(void) { gemm_fp32("lab5_gemm_tiled", lab5_gemm_tiled, 1); }

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
    check_gemm(&m, st, name, fn, 1, (gemm_shape){2048, 4224, 1280}, 0.37f, 5.5f, 3, &rng);
    gr_finish(&m, "checks");
}

void test_gemm_mma(void) { gemm_tensor_cores("lab5_gemm_mma", lab5_gemm_mma); }
void test_gemm_wgmma_tile(void)
{
    gemm_tensor_cores("lab5_gemm_wgmma_tile", lab5_gemm_wgmma_tile);
}
void test_gemm_wgmma(void) { gemm_tensor_cores("lab5_gemm_wgmma", lab5_gemm_wgmma); }

/* ---- §6 cuBLASLt ----------------------------------------------------------------------- */

cublasLtHandle_t lt_create(void)
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

void test_gemm_cublaslt_fp8(void)
{
    cudaStream_t st = gpu_begin();
    /* M, N and K distinct in each shape, so that a leading dimension or a
     * transpose taken from the wrong one shows; every element is checked,
     * and *d_amax against the largest |t| of them all. */
    static const gemm_shape shapes[] = {{256, 512, 384}, {512, 384, 1024}, {128, 4096, 256}};
    const float sa = 0.5f, sb = 3.0f, ds = 0.25f, sab = sa * sb;
    /* apart from the submission, its handle is its own (lab5/calls.c) */
    cublasLtHandle_t h = SPLIT ? NULL : lt_create();
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
    cublasStatus_t s = h ? cublasLtDestroy(h) : CUBLAS_STATUS_SUCCESS;
    if (s != CUBLAS_STATUS_SUCCESS)
        ck_abort_msg("the test's cublasLtDestroy failed: %s", cublasLtGetStatusName(s));
    gr_finish(&m, "checks");
}

