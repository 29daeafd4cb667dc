/*
 * lab5/calls.c - lab5's call table (channel.h): the judge's proxies of
 * lab5.h's functions and, with GR_SUBJECT, the subject's side, which holds
 * its own CUDA context and runs the submission's kernels in it.
 *
 * Device pointers never cross processes. The judge's "device buffers" are
 * address ranges it reserves and never touches (PROT_NONE), each the image
 * of one cudaMalloc in the subject: a pointer into one travels as the
 * buffer's number and an offset (remote_ptr), and the subject adds the
 * offset to its own device pointer, so that every alignment the test chose
 * is kept (cudaMalloc's 256 bytes, as lab5.h promises, plus the offset).
 * Host data moves through the arena: the judge's to_dev and dev_fill put
 * bytes into a buffer, from_dev gets them back, in chunks the arena holds.
 *
 * A call of a lab function runs it `reps` times back to back on the
 * subject's stream, then waits for the stream; the reply carries what the
 * first call that failed returned (or the last's), the stream's error and
 * cudaGetLastError's. The performance tests time such a batch from the
 * judge's side (lab5/perf.c), each batch on inputs of its own (changed
 * where no submission can know beforehand), with its outputs poisoned
 * before and checked after: a subject that answers before the work is
 * done, skips it, or gives an answer kept from an earlier call, fails. Not
 * stopped: one that does the work once a batch (the repeats of a batch
 * find the outputs right already), or that answers the channel itself and
 * does the work while answering the calls that are not timed (the upload
 * of the inputs); closing that needs inputs that only the timed request
 * makes (a seed the call table expands on the device) and an answer that
 * carries a digest of each launch's outputs computed on the device in the
 * same window. A
 * cuBLASLt handle and stream are the subject's own: the proxies take the
 * judge's and pass neither.
 *
 * Built into the judge and the subject only with LAB5_SPLIT (the Makefile's
 * LAB5_SPLIT=1); without it lab5's tests run in one process with the
 * submission (lab5/suite.c).
 */
#include <stdint.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "channel.h"
#include "lab5.h"
#include "lab5_calls.h"

enum { OP_ALLOC = 1, OP_FREE, OP_PUT, OP_GET, OP_FILL, OP_CALL, OP_INFO, OP_PING };
enum { F_AMAX = 1, F_CAST, F_MX, F_NAIVE, F_TILED, F_MMA, F_WGMMA_TILE, F_WGMMA, F_LT_FP8,
       F_LT_BF16 };

#define MAX_BUFS 256
#define OFF_BITS 40
#define OFF_MASK ((UINT64_C(1) << OFF_BITS) - 1)

#ifdef GR_SUBJECT

#include "policy.h"

static void *dev[MAX_BUFS + 1];
static size_t dev_bytes[MAX_BUFS + 1];
static cudaStream_t stream;
static cublasLtHandle_t lt;
static int start_error; /* what starting CUDA returned, reported on every call */

/* CUDA started, its stream and cuBLASLt's handle made, then the filter
 * that lets it go on working and nothing more (policy.h); all before the
 * first lab function runs. Returns 1: the subject is locked. */
int sj_start(void)
{
    cudaError_t e = cudaFree(NULL);
    if (e == cudaSuccess)
        e = cudaStreamCreate(&stream);
    if (e == cudaSuccess && cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS)
        e = cudaErrorInitializationError;
    (void)cudaGetLastError();
    start_error = (int)e;
    return gr_policy_lock_cuda() == 0 ? 1 : -1;
}

/* The subject's address of remote pointer r (NULL for 0, or for one that
 * is not inside a buffer the judge allocated). */
static void *P(uint64_t r)
{
    uint64_t id = r >> OFF_BITS, off = r & OFF_MASK;
    if (r == 0 || id == 0 || id > MAX_BUFS || !dev[id] || off > dev_bytes[id])
        return NULL;
    return (unsigned char *)dev[id] + off;
}

/* Bytes from r on, when all of them are inside its buffer. */
static void *span(uint64_t r, size_t bytes)
{
    uint64_t id = r >> OFF_BITS, off = r & OFF_MASK;
    void *p = P(r);
    return p && bytes <= dev_bytes[id] - off ? p : NULL;
}

static int run_fn(uint32_t fn, const uint64_t *a)
{
    switch (fn) {
    case F_AMAX: return lab5_amax(P(a[0]), a[1], P(a[2]), stream);
    case F_CAST:
        return lab5_scale_cast(P(a[0]), a[1], P(a[2]), (fp8_format)a[3], P(a[4]), P(a[5]),
                               stream);
    case F_MX:
        return lab5_mx_quantize(P(a[0]), a[1], a[2], (fp8_format)a[3], (mx_scale_rule)a[4],
                                P(a[5]), P(a[6]), stream);
    case F_NAIVE: case F_TILED: case F_MMA: case F_WGMMA_TILE: case F_WGMMA: {
        static const gemm5_fn fns[] = {lab5_gemm_naive, lab5_gemm_tiled, lab5_gemm_mma,
                                       lab5_gemm_wgmma_tile, lab5_gemm_wgmma};
        return fns[fn - F_NAIVE](P(a[0]), P(a[1]), P(a[2]), P(a[3]), P(a[4]), (int)a[5],
                                 (int)a[6], (int)a[7], stream);
    }
    case F_LT_FP8:
        return lab5_gemm_cublaslt_fp8(lt, P(a[0]), P(a[1]), P(a[2]), P(a[3]), P(a[4]), P(a[5]),
                                      P(a[6]), (int)a[7], (int)a[8], (int)a[9], P(a[10]), a[11],
                                      stream);
    case F_LT_BF16:
        return lab5_gemm_cublaslt_bf16(lt, P(a[0]), P(a[1]), P(a[2]), (int)a[3], (int)a[4],
                                       (int)a[5], P(a[6]), a[7], stream);
    }
    return (int)cudaErrorInvalidValue;
}

int sj_dispatch(uint32_t fn, const uint64_t *a)
{
    lab5_reply r = {0};
    if (start_error && fn != OP_PING && fn != OP_INFO) {
        r.rc = start_error;
        memcpy(sj_ret(), &r, sizeof r);
        return 0;
    }
    switch (fn) {
    case OP_ALLOC: {
        uint64_t id = a[0];
        if (id == 0 || id > MAX_BUFS || dev[id])
            return -1;
        r.rc = (int)cudaMalloc(&dev[id], a[1] ? a[1] : 1);
        dev_bytes[id] = r.rc == 0 ? a[1] : 0;
        if (r.rc)
            dev[id] = NULL;
        break;
    }
    case OP_FREE:
        if (a[0] == 0 || a[0] > MAX_BUFS || !dev[a[0]])
            return -1;
        r.rc = (int)cudaFree(dev[a[0]]);
        dev[a[0]] = NULL, dev_bytes[a[0]] = 0;
        break;
    case OP_PUT: case OP_GET: case OP_FILL: {
        void *d = span(a[0], a[1]);
        if (!d)
            return -1;
        if (fn == OP_FILL)
            r.rc = (int)cudaMemset(d, (int)a[2], a[1]);
        else if (fn == OP_PUT)
            r.rc = (int)cudaMemcpy(d, sj_ptr(a[2]), a[1], cudaMemcpyHostToDevice);
        else
            r.rc = (int)cudaMemcpy(sj_ptr(a[2]), d, a[1], cudaMemcpyDeviceToHost);
        break;
    }
    case OP_CALL:
        for (uint64_t k = 0; k < a[1]; k++) {
            r.rc = run_fn((uint32_t)a[0], a + 2);
            r.done = (int)k + 1;
            if (r.rc)
                break;
        }
        r.sync = (int)cudaStreamSynchronize(stream);
        r.last = (int)cudaGetLastError();
        break;
    case OP_INFO: {
        int d = 0;
        r.rc = start_error;
        if (!r.rc && cudaGetDevice(&d) == cudaSuccess) {
            cudaDeviceGetAttribute(&r.major, cudaDevAttrComputeCapabilityMajor, d);
            cudaDeviceGetAttribute(&r.minor, cudaDevAttrComputeCapabilityMinor, d);
        }
        break;
    }
    case OP_PING: break;
    default: return -1;
    }
    memcpy(sj_ret(), &r, sizeof r);
    return 0;
}

#else

#include <check.h>
#include <stdio.h>
#include <sys/mman.h>

/* The judge's image of one of the subject's device buffers. */
static struct {
    unsigned char *base;
    size_t bytes, span;
} bufs[MAX_BUFS + 1];

/* The subject is a CUDA program: the folders of the libraries it loads,
 * which its Landlock rules let it read (channel.c). */
const char sj_cuda_libdirs[] = LAB5_LIBDIRS;

int lab5_remote_reps = 1;
static lab5_reply last;

const lab5_reply *lab5_last_reply(void) { return &last; }

/* Runs call c, which the subject answers with a lab5_reply. */
static lab5_reply exchange(sj_call *c)
{
    sj_run(c);
    lab5_reply r;
    memcpy(&r, sj_result(c), sizeof r);
    return r;
}

static uint64_t remote_ptr(const void *p, size_t bytes)
{
    if (!p)
        return 0;
    const unsigned char *q = p;
    for (uint64_t id = 1; id <= MAX_BUFS; id++)
        if (bufs[id].base && q >= bufs[id].base && q <= bufs[id].base + bufs[id].bytes) {
            size_t off = (size_t)(q - bufs[id].base);
            if (bytes > bufs[id].bytes - off)
                break;
            return id << OFF_BITS | off;
        }
    ck_abort_msg("grader error: %p (%zu bytes) is not inside a device buffer of the test's",
                 p, bytes);
    return 0;
}

static void transfer_failed(const char *what, size_t bytes, int rc)
{
    ck_abort_msg("the test's %s (%zu bytes, in the submission's process) failed: %s: %s",
                 what, bytes, cudaGetErrorName((cudaError_t)rc),
                 cudaGetErrorString((cudaError_t)rc));
}

void *lab5_remote_alloc(size_t bytes)
{
    uint64_t id = 1;
    while (id <= MAX_BUFS && bufs[id].base)
        id++;
    if (id > MAX_BUFS)
        ck_abort_msg("grader error: more than %d device buffers at once", MAX_BUFS);
    size_t span = (bytes + 4095) / 4096 * 4096 + 4096;
    void *base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        ck_abort_msg("grader error: cannot reserve %zu bytes of addresses", span);
    sj_call c;
    sj_begin(&c, OP_ALLOC, "cudaMalloc");
    sj_val(&c, id);
    sj_val(&c, bytes);
    lab5_reply r = exchange(&c);
    if (r.rc) {
        munmap(base, span);
        transfer_failed("cudaMalloc", bytes, r.rc);
    }
    bufs[id].base = base, bufs[id].bytes = bytes, bufs[id].span = span;
    return base;
}

void lab5_remote_free(void *p)
{
    uint64_t r = remote_ptr(p, 0), id = r >> OFF_BITS;
    sj_call c;
    sj_begin(&c, OP_FREE, "cudaFree");
    sj_val(&c, id);
    lab5_reply rep = exchange(&c);
    munmap(bufs[id].base, bufs[id].span);
    bufs[id].base = NULL;
    if (rep.rc)
        transfer_failed("cudaFree", 0, rep.rc);
}

/* What one transfer moves at most: a third of the arena. */
#define CHUNK ((size_t)64 << 20)

static void move(uint32_t op, void *h, const void *d, size_t bytes, int byte)
{
    uint64_t r = remote_ptr(d, bytes);
    for (size_t at = 0; at < bytes; at += CHUNK) {
        size_t n = bytes - at < CHUNK ? bytes - at : CHUNK;
        sj_call c;
        sj_begin(&c, op, op == OP_FILL ? "cudaMemset" : "cudaMemcpy");
        sj_val(&c, r + at);
        sj_val(&c, n);
        if (op == OP_FILL)
            sj_val(&c, (uint64_t)byte);
        else if (op == OP_PUT)
            sj_in(&c, (unsigned char *)h + at, n);
        else
            sj_out(&c, (unsigned char *)h + at, n);
        lab5_reply rep = exchange(&c);
        if (rep.rc)
            transfer_failed(op == OP_FILL ? "cudaMemset" : op == OP_PUT ? "copy to the device"
                                                                          : "copy from the device",
                            n, rep.rc);
    }
}

void lab5_remote_put(void *d, const void *h, size_t bytes) { move(OP_PUT, (void *)h, d, bytes, 0); }
void lab5_remote_get(void *h, const void *d, size_t bytes) { move(OP_GET, h, d, bytes, 0); }
void lab5_remote_fill(void *d, int byte, size_t bytes) { move(OP_FILL, NULL, d, bytes, byte); }

void lab5_remote_cc(int *major, int *minor)
{
    sj_call c;
    sj_begin(&c, OP_INFO, "cudaDeviceGetAttribute");
    lab5_reply r = exchange(&c);
    *major = r.major, *minor = r.minor;
}

void lab5_remote_ping(void)
{
    sj_call c;
    sj_begin(&c, OP_PING, "a round trip");
    (void)exchange(&c);
}

/* A call of lab function fn with args, lab5_remote_reps times. */
static int call(uint32_t fn, const char *name, int n, const uint64_t *args)
{
    sj_call c;
    sj_begin(&c, OP_CALL, name);
    sj_val(&c, fn);
    sj_val(&c, (uint64_t)(lab5_remote_reps > 0 ? lab5_remote_reps : 1));
    for (int i = 0; i < n; i++)
        sj_val(&c, args[i]);
    last = exchange(&c);
    return last.rc;
}

#define R(p, bytes) remote_ptr((p), (bytes))

cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    (void)stream;
    const uint64_t a[] = {R(x, n * sizeof(float)), n, R(amax, sizeof(float))};
    return (cudaError_t)call(F_AMAX, "lab5_amax", 3, a);
}

cudaError_t lab5_scale_cast(const float *x, size_t n, const float *scale, fp8_format fmt,
                            uint8_t *q, float *amax, cudaStream_t stream)
{
    (void)stream;
    const uint64_t a[] = {R(x, n * sizeof(float)), n, R(scale, sizeof(float)), (uint64_t)fmt,
                          R(q, n), R(amax, sizeof(float))};
    return (cudaError_t)call(F_CAST, "lab5_scale_cast", 6, a);
}

cudaError_t lab5_mx_quantize(const float *x, size_t rows, size_t cols, fp8_format fmt,
                             mx_scale_rule rule, uint8_t *codes, uint8_t *scales,
                             cudaStream_t stream)
{
    (void)stream;
    const uint64_t a[] = {R(x, 0), rows, cols, (uint64_t)fmt, (uint64_t)rule, R(codes, 0),
                          R(scales, 0)};
    return (cudaError_t)call(F_MX, "lab5_mx_quantize", 7, a);
}

#define GEMM_PROXY(fname, number)                                                              \
    cudaError_t fname(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,            \
                      const float *b_scale_inv, float *D, int M, int N, int K,                 \
                      cudaStream_t stream)                                                     \
    {                                                                                          \
        (void)stream;                                                                          \
        const uint64_t a[] = {R(A, 0), R(B, 0), R(a_scale_inv, 0), R(b_scale_inv, 0), R(D, 0), \
                              (uint64_t)(int64_t)M, (uint64_t)(int64_t)N,                       \
                              (uint64_t)(int64_t)K};                                           \
        return (cudaError_t)call(number, #fname, 8, a);                                        \
    }
GEMM_PROXY(lab5_gemm_naive, F_NAIVE)
GEMM_PROXY(lab5_gemm_tiled, F_TILED)
GEMM_PROXY(lab5_gemm_mma, F_MMA)
GEMM_PROXY(lab5_gemm_wgmma_tile, F_WGMMA_TILE)
GEMM_PROXY(lab5_gemm_wgmma, F_WGMMA)

cublasStatus_t lab5_gemm_cublaslt_fp8(cublasLtHandle_t handle, const uint8_t *A,
                                      const uint8_t *B, const float *a_scale_inv,
                                      const float *b_scale_inv, const float *d_scale,
                                      uint8_t *D, float *d_amax, int M, int N, int K,
                                      void *workspace, size_t workspace_bytes,
                                      cudaStream_t stream)
{
    (void)handle, (void)stream;
    const uint64_t a[] = {R(A, 0), R(B, 0), R(a_scale_inv, 0), R(b_scale_inv, 0),
                          R(d_scale, 0), R(D, 0), R(d_amax, 0), (uint64_t)(int64_t)M,
                          (uint64_t)(int64_t)N, (uint64_t)(int64_t)K,
                          R(workspace, workspace_bytes), workspace_bytes};
    return (cublasStatus_t)call(F_LT_FP8, "lab5_gemm_cublaslt_fp8", 12, a);
}

cublasStatus_t lab5_gemm_cublaslt_bf16(cublasLtHandle_t handle, const uint16_t *A,
                                       const uint16_t *B, uint16_t *D, int M, int N, int K,
                                       void *workspace, size_t workspace_bytes,
                                       cudaStream_t stream)
{
    (void)handle, (void)stream;
    const uint64_t a[] = {R(A, 0), R(B, 0), R(D, 0), (uint64_t)(int64_t)M,
                          (uint64_t)(int64_t)N, (uint64_t)(int64_t)K,
                          R(workspace, workspace_bytes), workspace_bytes};
    return (cublasStatus_t)call(F_LT_BF16, "lab5_gemm_cublaslt_bf16", 8, a);
}

#endif
