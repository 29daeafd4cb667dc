/*
 * lab5/tests.h - what lab5's test files share (suite.c, memory.c, gemm.c,
 * perf.c): the CUDA wrappers and comparison helpers of suite.c, the checks
 * of memory.c and the GEMM references of gemm.c that perf.c reuses, and
 * every test function, for suite.c's table.
 */
#ifndef FP8LAB_LAB5_TESTS_H
#define FP8LAB_LAB5_TESTS_H

#include <stddef.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "lab5.h"
#include "rng.h"
#include "suite.h"

extern const grader_lab lab5_rubric;

typedef __typeof__(lab5_gemm_naive) *gemm_fn;

#define GUARD 16 /* bytes after every output that must stay as poisoned */
#ifdef LAB5_SPLIT
#define SPLIT 1 /* the tests and the submission in two processes (lab5/calls.c) */
#else
#define SPLIT 0
#endif
#define WORKSPACE_BYTES ((size_t)32 << 20) /* cuBLASLt's, as Hopper wants */

typedef struct cast_bufs {
    float *d_x, *d_scale, *d_amax;
    uint8_t *d_q, *q; /* the codes on the device, and their copy; cap + GUARD bytes */
    size_t cap;
} cast_bufs;

typedef struct mx_bufs {
    float *d_x;
    uint8_t *d_codes, *d_scales;
    uint8_t *codes, *scales, *wc, *ws; /* what came back (with GUARD), what should have */
} mx_bufs;

/* suite.c: comparisons, the CUDA calls every test makes, inputs. */
void *xmalloc(size_t n);
const char *fmt_name(fp8_format fmt);
int tally(gr_mismatches *m, int ok);
void expect_float(gr_mismatches *m, const char *call, const char *what, float want,
                  float got);
void expect_guard(gr_mismatches *m, const char *call, const char *array, size_t end,
                  const uint8_t *got, uint8_t poison);
void cuda_check(cudaError_t e, const char *what);
cudaStream_t gpu_begin(void);
void *dev_alloc(size_t bytes);
void dev_free(void *p);
void to_dev(void *d, const void *h, size_t bytes);
void from_dev(void *h, const void *d, size_t bytes);
void dev_fill(void *d, int byte, size_t bytes);
void synced(const char *call, cudaStream_t st, int own_launches);
void after_call(const char *call, cudaError_t rc, cudaStream_t st);
/* After a call that returned an error: what waiting for the stream gave
 * (a crash of what it queued); the last error is not the caller's. */
cudaError_t stream_error(cudaStream_t st);
/* The compute capability of the GPU the submission runs on. */
void device_cc(int *major, int *minor);
/* The judge's own CUDA, for the baselines (the copy, cuBLASLt): with
 * LAB5_SPLIT a context of the judge's, apart from the subject's; in one
 * process the same as gpu_begin, dev_alloc, ... */
cudaStream_t local_begin(void);
void *local_alloc(size_t bytes);
void local_free(void *p);
void local_put(void *d, const void *h, size_t bytes);
void local_fill(void *d, int byte, size_t bytes);
void local_synced(const char *call, cudaStream_t st);
int float_poison(void);
void fill_tensor(rng_state *rng, float *x, size_t n);
uint64_t unpredictable_seed(void);
float set_elem(float *x, float *d_x, size_t i, float v);

/* memory.c: the memory-bound kernels' checks. */
void check_amax(gr_mismatches *m, cudaStream_t st, const float *x, const float *d_x, size_t n,
                float *d_amax, const char *what);
void cast_open(cast_bufs *b, size_t cap);
void cast_close(cast_bufs *b);
void check_cast(gr_mismatches *m, cudaStream_t st, cast_bufs *b, const float *x, size_t n,
                float scale, fp8_format fmt, const char *what);
void mx_open(mx_bufs *b, size_t max_elems, size_t max_scales);
void mx_close(mx_bufs *b);
void check_mx(gr_mismatches *m, cudaStream_t st, mx_bufs *b, const float *x, size_t rows,
              size_t cols, fp8_format fmt, mx_scale_rule rule, const char *what);

/* gemm.c: the GEMMs' operands and references. */
void fill_codes(rng_state *rng, uint8_t *c, size_t n, int top_exp);
void e4m3_table(double tab[256]);
void element_reference(const double *a, const double *b, int K, float sab, int tensor_cores,
                       double *p, double *ref, double *tol);
cublasLtHandle_t lt_create(void);

/* The tests, one a rubric entry (rubric.c), in suite.c's table. */
void test_builds(void);
void test_amax(void);
void test_amax_special(void);
void test_amax_race(void);
void test_cast_e4m3(void);
void test_cast_e5m2(void);
void test_cast_tail(void);
void test_cast_saturate(void);
void test_cast_amax(void);
void test_mx_e4m3(void);
void test_mx_e5m2(void);
void test_mx_tail(void);
void test_mx_special(void);
void test_gemm_naive(void);
void test_gemm_tiled(void);
void test_gemm_mma(void);
void test_gemm_wgmma_tile(void);
void test_gemm_wgmma(void);
void test_gemm_cublaslt_fp8(void);
void test_perf_amax_50(void);
void test_perf_amax_70(void);
void test_perf_amax_85(void);
void test_perf_cast_50(void);
void test_perf_cast_70(void);
void test_perf_cast_85(void);
void test_perf_mx_50(void);
void test_perf_mx_65(void);
void test_perf_mx_80(void);
void test_perf_gemm_10(void);
void test_perf_gemm_50(void);
void test_builds(void);

#endif
