/*
 * lab5/suite.c - lab5's tests: the student's CUDA kernels (kernels.cu and
 * gemm.cu) against the course library on the CPU, and their speed against
 * a device-to-device copy and cuBLASLt timed in the same run. Points,
 * sections and time limits are in lab5/rubric.c; every test but `builds`
 * runs only where there is a GPU (compute capability 7.5 or later; the
 * lab's gpu_needs, rubric.c, say which need 8.9 or 9.0), in a
 * process of its own that starts CUDA itself. Built with LAB5_SPLIT (make
 * LAB5_SPLIT=1), that process is the judge and never runs the submission:
 * the lab functions are lab5/calls.c's proxies, the device buffers the
 * subject's (dev_alloc, to_dev, ... below), and the baselines of the
 * performance tests run in CUDA of the judge's own (local_*).
 *
 * This file holds what every test shares (comparisons, the CUDA calls,
 * inputs), the `builds` test and the suite's table; the tests are in
 * memory.c (§2-§4), gemm.c (§5-§6) and perf.c (§7), and tests.h is what
 * they share. What they check, and why, is below.
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
 *     A product of more than 2^27 multiplications (1024 x 2048 x 1024,
 *     2048 x 4224 x 1280) is checked for NaN poison everywhere and against
 *     the reference at sampled elements: the four edges whole, 2 in every
 *     row and every column, the 4 around each point where 128 x 128 tiles
 *     meet, 24 in every 128 x 128 block (sample_elements), the random ones
 *     drawn afresh each run from a seed no submission can know. The host work
 *     of every test stays under a quarter of its time limit, whatever the
 *     GPU (tests/lab5/test_host_time.c measures it without one).
 * A wrong element, a missing scale, a skipped k tile, all miss by far more.
 * gemm_cublaslt_fp8: with v = t d_scale (t = acc a_scale_inv b_scale_inv)
 * and tol the tensor-core tolerance times d_scale, D's code must decode to
 * within tol plus half an E4M3 step (at |v| + tol) of v clamped to +-448;
 * *d_amax within the largest tensor-core tolerance of max |t|. a_scale_inv
 * 0.5, b_scale_inv 3, d_scale 0.25: a scale left out shows.
 *
 * perf_* (README §7): timed only once the result on the same input is
 * right. (With LAB5_SPLIT, timed from the judge instead, in batches that
 * each run on inputs of their own and whose outputs are checked: perf.c.) Memory-bound: 2^26 floats (256 MiB, far beyond L2); 3 runs to warm
 * up, then 20 each between two cudaEvents, all queued back to back; the
 * median (a run of 200 ms or more is timed once: no tier is near). The
 * bytes a kernel moves (amax 4n, cast 5n, MXFP8 5n + n/32) over its time,
 * against a cudaMemcpyAsync device to device of as many bytes, timed the
 * same way, counting what the copy reads and writes. GEMM: M = N = K =
 * 4096, the faster of lab5_gemm_wgmma and lab5_gemm_mma that succeeds and
 * is right on 4096 elements sampled afresh each time (and no element is
 * NaN), against cuBLASLt's FP8 GEMM like for
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
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "bits.h"
#include "lab5.h"
#include "lab5_bound.h"
#include "mx.h"
#include "suite.h"
#include "tests.h"
#ifdef LAB5_SPLIT
#include "lab5_calls.h"
#endif

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    ck_assert_msg(p != NULL, "out of memory");
    return p;
}

const char *fmt_name(fp8_format fmt)
{
    return fmt == FP8_E4M3 ? "FP8_E4M3" : "FP8_E5M2";
}

/*
 * Records one compared element without describing it: a pass, or a
 * mismatch past those gr_expect describes (formatting each of 2^26 wrong
 * elements would take minutes). Returns 1 when the caller should describe
 * the mismatch with gr_expect instead.
 */
int tally(gr_mismatches *m, int ok)
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

void expect_float(gr_mismatches *m, const char *call, const char *what, float want,
                         float got)
{
    gr_expect(m, stats_equal_exact(want, got), "%s: %s\n  expected %s\n  got      %s", call,
              what, gr_f32(want), gr_f32(got));
}

/* Every byte of got[0 .. GUARD) is still the poison. */
void expect_guard(gr_mismatches *m, const char *call, const char *array, size_t end,
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

void cuda_check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        ck_abort_msg("%s failed: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* What waiting for a call's stream gave (sync), then the last error: a
 * kernel fault (a sticky error) fails the test, and, when own_launches, a
 * launch that failed without being reported. Calls into cuBLASLt are not
 * held to the last-error rule (the library's own runtime calls may leave an
 * error there). */
static void check_reply(const char *call, cudaError_t sync, cudaError_t last, int own_launches)
{
    if (sync != cudaSuccess)
        ck_abort_msg("%s crashed: its kernels failed with %s: %s", call, cudaGetErrorName(sync),
                     cudaGetErrorString(sync));
    if (last != cudaSuccess && own_launches)
        ck_abort_msg("%s: a launch failed that it did not report: %s: %s (lab5.h: "
                     "cudaGetLastError after each launch, and return its error)",
                     call, cudaGetErrorName(last), cudaGetErrorString(last));
}

#ifdef LAB5_SPLIT
/* Apart from the submission (lab5/calls.c): every device buffer of the
 * tests' but the baselines' is the subject's, and every call's kernels
 * were waited for in the subject before it answered. The judge starts
 * CUDA only for the baselines (local_begin). */
cudaStream_t gpu_begin(void) { return NULL; }
void *dev_alloc(size_t bytes) { return lab5_remote_alloc(bytes); }
void dev_free(void *p) { lab5_remote_free(p); }
void to_dev(void *d, const void *h, size_t bytes) { lab5_remote_put(d, h, bytes); }
void from_dev(void *h, const void *d, size_t bytes) { lab5_remote_get(h, d, bytes); }
void dev_fill(void *d, int byte, size_t bytes) { lab5_remote_fill(d, byte, bytes); }

void synced(const char *call, cudaStream_t st, int own_launches)
{
    (void)st;
    const lab5_reply *r = lab5_last_reply();
    check_reply(call, (cudaError_t)r->sync, (cudaError_t)r->last, own_launches);
}

cudaError_t stream_error(cudaStream_t st)
{
    (void)st;
    return (cudaError_t)lab5_last_reply()->sync;
}

void device_cc(int *major, int *minor) { lab5_remote_cc(major, minor); }

cudaStream_t local_begin(void)
{
    static cudaStream_t st;
    static int started;
    if (!started) {
        cuda_check(cudaFree(NULL), "starting CUDA in the judge (cudaFree(0))");
        cuda_check(cudaStreamCreate(&st), "cudaStreamCreate");
        started = 1;
    }
    return st;
}

void *local_alloc(size_t bytes)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess)
        ck_abort_msg("the judge's cudaMalloc(%zu bytes) failed: %s: %s", bytes,
                     cudaGetErrorName(e), cudaGetErrorString(e));
    return p;
}

void local_free(void *p) { cuda_check(cudaFree(p), "cudaFree"); }

void local_put(void *d, const void *h, size_t bytes)
{
    cuda_check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

void local_fill(void *d, int byte, size_t bytes)
{
    cuda_check(cudaMemset(d, byte, bytes), "cudaMemset");
}

void local_synced(const char *call, cudaStream_t st)
{
    cudaError_t sync = cudaStreamSynchronize(st);
    check_reply(call, sync, cudaGetLastError(), 0);
}
#else
/* The test's first CUDA call, and the stream every call here runs on. */
cudaStream_t gpu_begin(void)
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

void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess)
        ck_abort_msg("the test's cudaMalloc(%zu bytes) failed: %s: %s", bytes,
                     cudaGetErrorName(e), cudaGetErrorString(e));
    return p;
}

void dev_free(void *p) { cuda_check(cudaFree(p), "cudaFree"); }

void to_dev(void *d, const void *h, size_t bytes)
{
    cuda_check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

void from_dev(void *h, const void *d, size_t bytes)
{
    cuda_check(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
}

void dev_fill(void *d, int byte, size_t bytes)
{
    cuda_check(cudaMemset(d, byte, bytes), "cudaMemset");
}

/* Waits for what call queued on st (check_reply); the last error is
 * cleared either way. */
void synced(const char *call, cudaStream_t st, int own_launches)
{
    cudaError_t sync = cudaStreamSynchronize(st);
    check_reply(call, sync, cudaGetLastError(), own_launches);
}

cudaError_t stream_error(cudaStream_t st)
{
    cudaError_t e = cudaStreamSynchronize(st);
    (void)cudaGetLastError(); /* a refused launch of its own is not what the caller checks */
    return e;
}

void device_cc(int *major, int *minor)
{
    int dev = 0;
    cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, dev),
               "cudaDeviceGetAttribute");
    cuda_check(cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, dev),
               "cudaDeviceGetAttribute");
}

/* In one process, the baselines' buffers are the tests' own. */
cudaStream_t local_begin(void) { return gpu_begin(); }
void *local_alloc(size_t bytes) { return dev_alloc(bytes); }
void local_free(void *p) { dev_free(p); }
void local_put(void *d, const void *h, size_t bytes) { to_dev(d, h, bytes); }
void local_fill(void *d, int byte, size_t bytes) { dev_fill(d, byte, bytes); }
void local_synced(const char *call, cudaStream_t st) { synced(call, st, 0); }
#endif

/* After a call of a tested function: what it returned, then whether what it
 * queued ran. */
void after_call(const char *call, cudaError_t rc, cudaStream_t st)
{
    if (rc != cudaSuccess)
        ck_abort_msg("%s returned %s: %s", call, cudaGetErrorName(rc), cudaGetErrorString(rc));
    synced(call, st, 1);
}


static unsigned poison_turn;

/* The poison of a float the function must set (see the top of the file). */
int float_poison(void) { return poison_turn++ & 1 ? 0x7F : 0xFF; }

/* ---- inputs ------------------------------------------------------------------------ */

/* A seed from the kernel's random source (the clock where there is none):
 * for what the tests check of a result too large to check whole, never
 * for the inputs, which stay the same from run to run. */
uint64_t unpredictable_seed(void)
{
    uint64_t s;
    if (getrandom(&s, sizeof s, 0) == (ssize_t)sizeof s)
        return s;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15u ^ (uint64_t)t.tv_sec ^ (uint64_t)getpid();
}

#define CHUNK 1024
#define NORMAL_HEAD ((size_t)1 << 22)

/* x[0 .. n): chunks of CHUNK elements of magnitude about 2^k, k uniform in
 * -30..30 (0 for the first chunk, so that small sizes see every kind of
 * code): N(0, 2^k) for the first NORMAL_HEAD elements, then random sign and
 * mantissa bits with exponents k - 4 .. k + 3. */
void fill_tensor(rng_state *rng, float *x, size_t n)
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
float set_elem(float *x, float *d_x, size_t i, float v)
{
    float old = x[i];
    x[i] = v;
    to_dev(d_x + i, &v, sizeof v);
    return old;
}

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
void test_builds(void)
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
    {"perf_gemm_10", test_perf_gemm_10},
    {"perf_gemm_50", test_perf_gemm_50},
};

const grader_suite grader_this_suite = {&lab5_rubric, cases, GRADER_COUNT(cases)};
