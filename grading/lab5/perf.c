/*
 * lab5/perf.c - lab5's performance tests (README §7): the memory-bound
 * kernels against a device-to-device copy and the fastest tensor-core GEMM
 * against cuBLASLt's FP8 GEMM, timed in the same run, each only once its
 * result on the same input is right. The tiers and their reasons are in
 * lab5/rubric.c.
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
    /* What every timed batch must leave (LAB5_SPLIT): each output, poisoned
     * before the batch, must then hold what the untimed check got; a GEMM's
     * D is checked at sampled elements against the host operands. */
    struct {
        void *dev;
        const void *want;
        size_t bytes;
    } outs[2];
    int nouts;
    const uint8_t *hA, *hB;
    float sab;
    /* LAB5_SPLIT: makes the inputs of the next timed batch new (and what
     * it must leave), so that no answer kept from an earlier call is right */
    void (*refresh)(void *ctx);
    void *ctx;
} perf_job;

/* A time, and how it was taken. */
typedef struct perf_time {
    double ms;      /* one run's */
    int runs;       /* how many were timed: 1 when too slow to repeat */
    int reps;       /* LAB5_SPLIT: the runs of one batch */
    double rtt_ms;  /* LAB5_SPLIT: a round trip to the subject */
} perf_time;

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

#define PERF_SLOW_MS 200.0 /* a run this slow is timed once: no tier is near */
#define PERF_GEMM 4096     /* M = N = K of the timed GEMMs */

#ifndef LAB5_SPLIT
static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The median time of one run of j, in ms, and in *runs how many were
 * timed: one run to warm up, timed (when it takes PERF_SLOW_MS or more,
 * that is the answer), PERF_WARMUP - 1 more, then PERF_RUNS each between
 * two events, all queued back to back so that the GPU does not wait for
 * the host between them. */
static perf_time perf_median_events(const perf_job *j, cudaStream_t st)
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
    perf_time t = {0, 1, 1, 0};
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
        t.runs = PERF_RUNS;
    }
    for (int i = 0; i < 2 * PERF_RUNS; i++)
        cuda_check(cudaEventDestroy(ev[i]), "cudaEventDestroy");
    if (t.runs == 1) {
        t.ms = (double)ms[0];
        return t;
    }
    qsort(ms, PERF_RUNS, sizeof ms[0], cmp_float);
    t.ms = 0.5 * ((double)ms[PERF_RUNS / 2 - 1] + (double)ms[PERF_RUNS / 2]);
    return t;
}
#endif

#ifdef LAB5_SPLIT
#include <time.h>

#include "channel.h"
#include "lab5_calls.h"

#define PERF_BATCH_MS 20.0 /* a timed batch lasts this long at least, */
#define PERF_RTT_SHARE 50  /* and this many round trips to the subject */
#define PERF_BATCHES 5

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int judges_own(const perf_job *j) { return j->kind == RUN_COPY || j->kind == RUN_BASELINE; }

static void perf_gemm_samples(const perf_job *j, const float *D, gr_mismatches *m);

/* After a timed batch of the submission's: its outputs are those of the
 * work, all of it (a subject that answered before the work was done, or
 * did less, fails here). */
static void batch_outputs(const perf_job *j, const char *call)
{
    for (int o = 0; o < j->nouts; o++) {
        unsigned char *got = xmalloc(j->outs[o].bytes);
        const unsigned char *want = j->outs[o].want;
        from_dev(got, j->outs[o].dev, j->outs[o].bytes);
        size_t at = 0;
        while (at < j->outs[o].bytes && got[at] == want[at])
            at++;
        unsigned g = at < j->outs[o].bytes ? got[at] : 0, w = at < j->outs[o].bytes ? want[at] : 0;
        free(got);
        if (at < j->outs[o].bytes)
            ck_abort_msg("%s: what a timed batch of runs left is not right (byte %zu of the "
                         "output: 0x%02x, expected 0x%02x): each timed batch runs on inputs "
                         "of its own, and what it leaves is checked", call, at, g, w);
    }
    if (j->kind == RUN_GEMM && j->hA) {
        size_t nd = (size_t)j->M * (size_t)j->N;
        float *D = xmalloc(nd * sizeof(float));
        from_dev(D, j->D, nd * sizeof(float));
        gr_mismatches m = {0};
        perf_gemm_samples(j, D, &m);
        free(D);
        if (m.count)
            ck_abort_msg("%s: what a timed batch of runs left is wrong at %zu of %zu sampled "
                         "elements of D: the results of timed runs are checked too\n%.*s",
                         call, m.count, m.checked, (int)m.len, m.text);
    }
}

/* One batch of reps runs of j, in ms, timed from the judge: from its
 * request to the subject's answer, which comes once the subject's stream
 * is done (lab5/calls.c); the judge's own baselines from their first launch
 * to the end of their stream. The submission's outputs are poisoned before
 * and checked after. */
static double perf_batch_ms(const perf_job *j, int reps)
{
    char call[192];
    snprintf(call, sizeof call, "%s (being timed, %d run%s)", j->name, reps, reps == 1 ? "" : "s");
    if (judges_own(j)) {
        /* the subject stopped meanwhile: threads it left spinning would
         * slow the baseline, and so flatter the submission */
        cudaStream_t st = local_begin();
        sj_pause();
        double t0 = now_ms();
        for (int r = 0; r < reps; r++)
            perf_enqueue(j, st);
        local_synced(call, st);
        double ms = now_ms() - t0;
        sj_resume();
        return ms;
    }
    if (j->refresh)
        j->refresh(j->ctx);
    for (int o = 0; o < j->nouts; o++)
        dev_fill(j->outs[o].dev, 0xFF, j->outs[o].bytes);
    if (j->kind == RUN_GEMM)
        dev_fill(j->D, 0xFF, (size_t)j->M * (size_t)j->N * sizeof(float));
    lab5_remote_reps = reps;
    double t0 = now_ms();
    perf_enqueue(j, NULL);
    double ms = now_ms() - t0;
    lab5_remote_reps = 1;
    synced(call, NULL, 1);
    batch_outputs(j, call);
    return ms;
}

/* What a refresh changes, for each kind of test. The values come from a
 * seed no submission can know. */
typedef struct fresh {
    rng_state rng;
    float *x, *d_x; /* the input, on the host and in the subject */
    size_t n, rows, cols;
    float top;      /* amax: beyond every |x[i]| */
    size_t at;      /* amax: the element planted last, and what was there */
    float old;
    int planted;
    float *want_amax;
    float *d_scale; /* cast: a new scale each time, and every code again */
    uint8_t *want_q;
    uint8_t *want_codes, *want_scales; /* MXFP8: one element changed, its row again */
    uint8_t *A;     /* GEMM: a new A (host, subject), M = N = K = PERF_GEMM */
    void *dA;
} fresh;

/* amax: the element planted last back, a new one, larger than all the
 * others, somewhere else. */
static void refresh_amax(void *ctx)
{
    fresh *f = ctx;
    if (f->planted)
        set_elem(f->x, f->d_x, f->at, f->old);
    f->at = rng_below(&f->rng, (uint32_t)f->n);
    float v = f->top * (1.0f + rng_uniform(&f->rng));
    v = rng_u32(&f->rng) & 1 ? -v : v;
    f->old = set_elem(f->x, f->d_x, f->at, v);
    f->planted = 1;
    *f->want_amax = fabsf(v);
}

/* cast: a new scale near 2^-4, and so every code anew. */
static void refresh_cast(void *ctx)
{
    fresh *f = ctx;
    float scale = 0x1p-4f * (1.0f + 0.125f * rng_uniform(&f->rng));
    to_dev(f->d_scale, &scale, sizeof scale);
    enum { PART = 1 << 16 };
    float *prod = xmalloc(PART * sizeof(float));
    for (size_t i = 0; i < f->n; i += PART) {
        size_t len = f->n - i < PART ? f->n - i : PART;
        for (size_t k = 0; k < len; k++)
            prod[k] = f->x[i + k] * scale; /* one float multiplication, as the kernel's */
        fp8_encode_array(prod, f->want_q + i, len, FP8_E4M3, true);
    }
    free(prod);
}

/* MXFP8: one element anew, of any magnitude from 2^-20 to 2^20, and its
 * row's codes and scales again. */
static void refresh_mx(void *ctx)
{
    fresh *f = ctx;
    size_t r = rng_below(&f->rng, (uint32_t)f->rows), c = rng_below(&f->rng, (uint32_t)f->cols);
    float v = ldexpf(1.0f + rng_uniform(&f->rng), (int)rng_below(&f->rng, 41) - 20);
    set_elem(f->x, f->d_x, r * f->cols + c, rng_u32(&f->rng) & 1 ? -v : v);
    size_t nb = f->cols / LAB5_MX_BLOCK;
    mx_quantize(f->x + r * f->cols, 1, f->cols, LAB5_MX_BLOCK, FP8_E4M3, MX_SCALE_FLOOR,
                f->want_codes + r * f->cols, f->want_scales + r * nb);
}

/* GEMM: a new A (the sampled check reads it from the host copy). */
static void refresh_gemm(void *ctx)
{
    fresh *f = ctx;
    size_t nk = (size_t)PERF_GEMM * PERF_GEMM;
    fill_codes(&f->rng, f->A, nk, 3);
    to_dev(f->dA, f->A, nk);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One run's time: a batch of one to warm up and measure (when it takes
 * PERF_SLOW_MS or more, that is the answer), then PERF_BATCHES batches of
 * as many runs as last PERF_BATCH_MS and PERF_RTT_SHARE round trips to the
 * subject, each batch's time over its runs; the median. */
static perf_time perf_median_ms(const perf_job *j, cudaStream_t st)
{
    (void)st;
    perf_time t = {0, 1, 1, 0};
    double one = perf_batch_ms(j, 1);
    if (one >= PERF_SLOW_MS) {
        t.ms = one;
        return t;
    }
    one = fmin(one, perf_batch_ms(j, 1));
    if (!judges_own(j)) {
        t.rtt_ms = INFINITY;
        for (int k = 0; k < 5; k++) {
            double t0 = now_ms();
            lab5_remote_ping();
            t.rtt_ms = fmin(t.rtt_ms, now_ms() - t0);
        }
    }
    double want = fmax(PERF_BATCH_MS, PERF_RTT_SHARE * t.rtt_ms);
    double reps = ceil(want / fmax(one - t.rtt_ms, 1e-4));
    t.reps = (int)fmin(fmax(reps, 2.0), 100000.0);
    double per[PERF_BATCHES];
    for (int b = 0; b < PERF_BATCHES; b++)
        per[b] = perf_batch_ms(j, t.reps) / t.reps;
    qsort(per, PERF_BATCHES, sizeof per[0], cmp_double);
    t.ms = per[PERF_BATCHES / 2];
    t.runs = PERF_BATCHES * t.reps;
    return t;
}

/* How a time was taken, for a message. */
static const char *runs_str(perf_time t, char *buf, size_t size)
{
    if (t.runs == 1)
        return "one run, too slow to repeat";
    if (t.rtt_ms > 0)
        snprintf(buf, size, "the median of %d batches of %d runs, timed from the judge; a round "
                 "trip to the submission's process %.1f us, %.2f%% of a batch", PERF_BATCHES,
                 t.reps, t.rtt_ms * 1e3, 100.0 * t.rtt_ms / (t.ms * t.reps));
    else
        snprintf(buf, size, "the median of %d batches of %d runs", PERF_BATCHES, t.reps);
    return buf;
}
#else
static perf_time perf_median_ms(const perf_job *j, cudaStream_t st)
{
    return perf_median_events(j, st);
}

/* How a time was taken, for a message. */
static const char *runs_str(perf_time t, char *buf, size_t size)
{
    (void)buf, (void)size;
    return t.runs == 1 ? "one run, too slow to repeat"
                       : "the median of " STRINGIFY(PERF_RUNS) " runs";
}
#endif

/* A wrong result is not timed. */
static void untimed(const gr_mismatches *m, const char *noun)
{
    if (m->count)
        ck_abort_msg("not timed: the result is wrong:\n%.*s%zu of %zu %s differ", (int)m->len,
                     m->text, m->count, m->checked, noun);
}

#define PERF_N ((size_t)1 << 26)

/* A memory-bound kernel's bandwidth against a device-to-device copy. */
/* tests/lab5/verify_split.sh builds the grader with LAB5_SHOW_FIGURES to
 * compare its figures with another's: every tier is then out of reach, so
 * that each test fails with its figures in its message. */
#ifdef LAB5_SHOW_FIGURES
#define REACH(tier) ((void)(tier), INFINITY)
#else
#define REACH(tier) (tier)
#endif

static void perf_memory(perf_kind kind, double tier)
{
    tier = REACH(tier);
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
    float *d_x = NULL, *d_amax = NULL, want_amax = 0;
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
        want_amax = stats_amax(x, n, NULL);
        job.outs[job.nouts].dev = d_amax, job.outs[job.nouts].want = &want_amax;
        job.outs[job.nouts++].bytes = sizeof(float);
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
        want_amax = stats_amax(x, n, NULL);
        job.outs[job.nouts].dev = cb.d_q, job.outs[job.nouts].want = cb.q; /* as checked */
        job.outs[job.nouts++].bytes = n;
        job.outs[job.nouts].dev = cb.d_amax, job.outs[job.nouts].want = &want_amax;
        job.outs[job.nouts++].bytes = sizeof(float);
    } else {
        job.name = "lab5_mx_quantize";
        bytes = 5 * n + n / LAB5_MX_BLOCK;
        mx_open(&mb, n, n / LAB5_MX_BLOCK);
        check_mx(&m, st, &mb, x, rows, cols, FP8_E4M3, MX_SCALE_FLOOR, "random x");
        job.x = mb.d_x;
        job.q = mb.d_codes;
        job.scales = mb.d_scales;
        job.outs[job.nouts].dev = mb.d_codes, job.outs[job.nouts].want = mb.codes;
        job.outs[job.nouts++].bytes = n;
        job.outs[job.nouts].dev = mb.d_scales, job.outs[job.nouts].want = mb.scales;
        job.outs[job.nouts++].bytes = n / LAB5_MX_BLOCK;
    }
    untimed(&m, "checks");
#ifdef LAB5_SPLIT
    /* each timed batch on inputs of its own */
    fresh f = {0};
    rng_seed(&f.rng, unpredictable_seed(), 71);
    f.x = x, f.n = n, f.rows = rows, f.cols = cols;
    job.ctx = &f;
    if (kind == RUN_AMAX) {
        f.d_x = d_x, f.top = 2.0f * stats_amax(x, n, NULL), f.want_amax = &want_amax;
        job.refresh = refresh_amax;
    } else if (kind == RUN_CAST) {
        f.d_scale = cb.d_scale, f.want_q = xmalloc(n);
        job.outs[0].want = f.want_q;
        job.refresh = refresh_cast;
    } else {
        f.d_x = mb.d_x, f.want_codes = mb.codes, f.want_scales = mb.scales;
        job.refresh = refresh_mx;
    }
#endif

    perf_job copy = {0};
    copy.kind = RUN_COPY;
    copy.name = "the device-to-device copy";
    copy.bytes = bytes;
    copy.src = local_alloc(bytes);
    copy.dst = local_alloc(bytes);
    local_fill(copy.dst, 0, bytes);
    local_fill((void *)copy.src, 0, bytes);
    perf_time copy_t = perf_median_ms(&copy, local_begin());
    perf_time kernel_t = perf_median_ms(&job, st);
    double copy_ms = copy_t.ms, kernel_ms = kernel_t.ms;
    char how[2][256];
    double copy_gbs = 2.0 * (double)bytes / (copy_ms * 1e-3) / 1e9;
    double kernel_gbs = (double)bytes / (kernel_ms * 1e-3) / 1e9;
    double fraction = kernel_gbs / copy_gbs;
    if (fraction < tier)
        ck_abort_msg("%s: %.0f GB/s = %.1f%% of a device-to-device copy (%.0f GB/s) in this run;"
                     " this tier needs %.0f%%\n  (n = %zu floats: %.0f MB read and written in "
                     "%.3f ms, %s; the copy: %.0f MB each way in %.3f ms, %s)",
                     job.name, kernel_gbs, 100.0 * fraction, copy_gbs, 100.0 * tier, n,
                     (double)bytes / 1e6, kernel_ms, runs_str(kernel_t, how[0], sizeof how[0]),
                     (double)bytes / 1e6, copy_ms, runs_str(copy_t, how[1], sizeof how[1]));
    local_free((void *)copy.src);
    local_free(copy.dst);
#ifdef LAB5_SPLIT
    free(f.want_q);
#endif
    if (kind == RUN_AMAX)
        dev_free(d_x), dev_free(d_amax);
    else if (kind == RUN_CAST)
        cast_close(&cb);
    else
        mx_close(&mb);
    free(x);
}

void test_perf_amax_50(void) { perf_memory(RUN_AMAX, 0.50); }
void test_perf_amax_70(void) { perf_memory(RUN_AMAX, 0.70); }
void test_perf_amax_85(void) { perf_memory(RUN_AMAX, 0.85); }
void test_perf_cast_50(void) { perf_memory(RUN_CAST, 0.50); }
void test_perf_cast_70(void) { perf_memory(RUN_CAST, 0.70); }
void test_perf_cast_85(void) { perf_memory(RUN_CAST, 0.85); }
void test_perf_mx_50(void) { perf_memory(RUN_MX, 0.50); }
void test_perf_mx_65(void) { perf_memory(RUN_MX, 0.65); }
void test_perf_mx_80(void) { perf_memory(RUN_MX, 0.80); }

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

/* D (M = N = K = PERF_GEMM) at PERF_SAMPLES random elements, drawn afresh
 * each time from a seed no submission can know (a GEMM that computed only
 * the elements a fixed seed picks would look right and fast), against the
 * host operands j->hA, j->hB: the mismatches into m. Every element is
 * checked for the NaN poison too. */
static void perf_gemm_samples(const perf_job *j, const float *D, gr_mismatches *m)
{
    const int n = PERF_GEMM;
    for (size_t o = 0; o < (size_t)n * n; o++)
        if (isnan(D[o]) && tally(m, 0))
            gr_expect(m, 0, "D[%zu][%zu]: expected a number, got %s (unwritten?)", o / n,
                      o % n, gr_f32(D[o]));
    double tab[256];
    e4m3_table(tab);
    double *a = xmalloc((size_t)n * sizeof(double)), *b = xmalloc((size_t)n * sizeof(double));
    double *p = xmalloc((size_t)n * sizeof(double));
    rng_state rng;
    rng_seed(&rng, unpredictable_seed(), 81);
    for (int t = 0; t < PERF_SAMPLES; t++) {
        size_t i = rng_below(&rng, n), k2 = rng_below(&rng, n);
        for (int k = 0; k < n; k++) {
            a[k] = tab[j->hA[i * n + k]];
            b[k] = tab[j->hB[k2 * n + k]];
        }
        double ref, tol;
        element_reference(a, b, n, j->sab, 1, p, &ref, &tol);
        float got = D[i * (size_t)n + k2];
        int ok = !isnan(got) && fabs((double)got - ref) <= tol;
        if (tally(m, ok))
            gr_expect(m, 0, "D[%zu][%zu]: expected %.9g (tolerance %.2g), got %s", i, k2, ref,
                      tol, gr_f32(got));
    }
    free(a), free(b), free(p);
}

/* Checks the job's D at PERF_SAMPLES random elements; writes why not into
 * note and returns 0 when it fails or is wrong. */
static int perf_gemm_try(const perf_job *job, cudaStream_t st, char *note, size_t size)
{
    const int n = PERF_GEMM;
    size_t nd = (size_t)n * n;
    dev_fill(job->D, 0xFF, nd * sizeof(float));
    char call[160];
    snprintf(call, sizeof call, "%s(M = N = K = %d)", job->name, n);
    cudaError_t rc = job->gemm(job->A, job->B, job->sa, job->sb, job->D, n, n, n, st);
    if (rc != cudaSuccess) {
        /* Nothing should be queued; a crash would still show here. */
        cudaError_t e = stream_error(st);
        if (e != cudaSuccess)
            ck_abort_msg("%s crashed: its kernels failed with %s: %s", call,
                         cudaGetErrorName(e), cudaGetErrorString(e));
        snprintf(note, size, "%s: not timed: it returned %s", job->name, cudaGetErrorName(rc));
        return 0;
    }
    synced(call, st, 1);
    float *D = xmalloc(nd * sizeof(float));
    from_dev(D, job->D, nd * sizeof(float));
    gr_mismatches m = {0};
    perf_gemm_samples(job, D, &m);
    free(D);
    if (m.count) {
        snprintf(note, size, "%s: not timed: wrong at %zu of %zu sampled elements, e.g. %.*s",
                 job->name, m.count, m.checked, (int)(m.len && m.text[m.len - 1] == '\n'
                                                      ? m.len - 1 : m.len), m.text);
        return 0;
    }
    return 1;
}

/* n x n codes and scale_invs sa, sb into device buffers (the judge's own
 * when local), into j. */
static void gemm_operands(perf_job *j, int local, const uint8_t *A, const uint8_t *B, float sa,
                          float sb)
{
    const int n = PERF_GEMM;
    size_t nk = (size_t)n * n;
    void *(*alloc)(size_t) = local ? local_alloc : dev_alloc;
    void (*put)(void *, const void *, size_t) = local ? local_put : to_dev;
    const float one = 1.0f;
    uint8_t *dA = alloc(nk), *dB = alloc(nk);
    float *d_sa = alloc(sizeof(float)), *d_sb = alloc(sizeof(float)), *d_one = alloc(sizeof(float));
    put(dA, A, nk);
    put(dB, B, nk);
    put(d_sa, &sa, sizeof sa);
    put(d_sb, &sb, sizeof sb);
    put(d_one, &one, sizeof one);
    j->A = dA, j->B = dB, j->sa = d_sa, j->sb = d_sb, j->ds = d_one;
    j->D = alloc(nk * sizeof(float));
    j->M = j->N = j->K = n;
    j->hA = A, j->hB = B, j->sab = sa * sb;
}

static void gemm_operands_free(perf_job *j, int local)
{
    void (*release)(void *) = local ? local_free : dev_free;
    release((void *)j->A), release((void *)j->B), release((void *)j->sa);
    release((void *)j->sb), release((void *)j->ds), release(j->D);
}

/* The faster tensor-core GEMM against cuBLASLt's FP8 GEMM. */
static void perf_gemm(double tier)
{
    tier = REACH(tier);
    cudaStream_t st = gpu_begin();
    const int n = PERF_GEMM;
    size_t nk = (size_t)n * n;
    const float sa = 0.37f, sb = 5.5f;
    uint8_t *A = xmalloc(nk), *B = xmalloc(nk);
    rng_state rng;
    rng_seed(&rng, 5, 80);
    fill_codes(&rng, A, nk, 3);
    fill_codes(&rng, B, nk, 3);

    /* the submission's operands first: its process starts before the
     * judge's own CUDA does */
    perf_job base = {0};
    gemm_operands(&base, 0, A, B, sa, sb);
    /* the baseline, in the judge's own context */
    perf_job lt = {0};
    cudaStream_t lst = local_begin();
    gemm_operands(&lt, 1, A, B, sa, sb);
    lt.kind = RUN_BASELINE;
    lt.name = "cuBLASLt's FP8 GEMM (E4M3 in, FP32 out, fast accumulation)";
    lt.handle = lt_create();
    lt.ws = local_alloc(WORKSPACE_BYTES);
    lt_plan plan;
    lt_plan_make(&plan, lt.handle, lt.sa, lt.sb, n, n, n);
    lt.plan = &plan;
    perf_time lt_t = perf_median_ms(&lt, lst);
    double lt_ms = lt_t.ms;

#ifdef LAB5_SPLIT
    /* each timed batch on an A of its own */
    fresh f = {0};
    rng_seed(&f.rng, unpredictable_seed(), 82);
    f.A = A, f.dA = (void *)base.A;
    base.refresh = refresh_gemm, base.ctx = &f;
#endif
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
        if (!perf_gemm_try(&job, st, notes[c], sizeof notes[c]))
            continue;
        perf_time t = perf_median_ms(&job, st);
        char how[256];
        snprintf(notes[c], sizeof notes[c], "%s: %.0f TFLOPS (%.3f ms, %s)", names[c],
                 2.0 * n * n * (double)n / (t.ms * 1e-3) / 1e12, t.ms,
                 runs_str(t, how, sizeof how));
        if (best < 0 || t.ms < best_ms)
            best = c, best_ms = t.ms;
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
    gemm_operands_free(&lt, 1);
    local_free(lt.ws);
    gemm_operands_free(&base, 0);
    free(A), free(B);
}

/* The tiers' reasons are in grading/lab5/rubric.c: 10% is any tensor-core kernel
 * (mma.sync: 22% on an H200) and no CUDA-core one (tiled: 2%); 50%, wgmma. */
void test_perf_gemm_10(void) { perf_gemm(0.10); }
void test_perf_gemm_50(void) { perf_gemm(0.50); }
