/*
 * cuda_standin.c - a stand-in for the few CUDA runtime and cuBLASLt calls
 * that lab5's tests (grading/lab5/suite.c) make, so that the real suite can
 * run on a machine without a GPU: device memory is host memory, a stream or
 * an event is a token, a copy is memcpy, and every "kernel" (the lab5_*
 * functions and cublasLtMatmul) returns success having written nothing;
 * events time nothing (every interval is 1 ms).
 *
 * What it is for: measuring the tests' own host work (inputs, references,
 * tolerances, comparisons), which must not depend on how fast the grading
 * machine is (tests/lab5/test_host_time.c). A test run against it fails, as
 * it would for a submission that writes nothing, after doing the same host
 * work as for a right one: every comparison runs to the end either way.
 *
 * Not for: anything numerical about CUDA. It is linked only into test
 * programs, never into the grader or a lab.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "lab5.h"

/* ---- the runtime ----------------------------------------------------------------- */

static int token; /* what a stream, an event or a handle points to */

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    /* cudaMalloc's alignment, as lab5.h promises */
    *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    (void)kind;
    memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void *p, int byte, size_t bytes)
{
    memset(p, byte, bytes);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    *stream = (cudaStream_t)(void *)&token;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void) { return cudaSuccess; }

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaError (stand-in)";
    }
}

const char *cudaGetErrorString(cudaError_t e) { return cudaGetErrorName(e); }

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    *event = (cudaEvent_t)(void *)&token;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    (void)event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    (void)event, (void)stream;
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    (void)start, (void)end;
    *ms = 1.0f;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

/* A Hopper GPU: compute capability 9.0. */
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    (void)device;
    *value = attr == cudaDevAttrComputeCapabilityMajor ? 9 : 0;
    return cudaSuccess;
}

/* ---- cuBLASLt ------------------------------------------------------------------------ */

const char *cublasLtGetStatusName(cublasStatus_t status)
{
    return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS (stand-in)";
}

const char *cublasLtGetStatusString(cublasStatus_t status) { return cublasLtGetStatusName(status); }

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    *handle = (cublasLtHandle_t)(void *)&token;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    (void)handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc, cublasComputeType_t compute,
                                        cudaDataType_t scale)
{
    (void)compute, (void)scale;
    *desc = (cublasLtMatmulDesc_t)(void *)&token;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc)
{
    (void)desc;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t size)
{
    (void)desc, (void)attr, (void)buf, (void)size;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld)
{
    (void)type, (void)rows, (void)cols, (void)ld;
    *layout = (cublasLtMatrixLayout_t)(void *)&token;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(const cublasLtMatrixLayout_t layout)
{
    (void)layout;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    *pref = (cublasLtMatmulPreference_t)(void *)&token;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    (void)pref;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t size)
{
    (void)pref, (void)attr, (void)buf, (void)size;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t op,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                              cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                              cublasLtMatmulPreference_t pref, int requested,
                                              cublasLtMatmulHeuristicResult_t results[],
                                              int *found)
{
    (void)handle, (void)op, (void)a, (void)b, (void)c, (void)d, (void)pref;
    if (requested > 0)
        memset(&results[0], 0, sizeof results[0]);
    *found = requested > 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t op, const void *alpha,
                              const void *A, cublasLtMatrixLayout_t a, const void *B,
                              cublasLtMatrixLayout_t b, const void *beta, const void *C,
                              cublasLtMatrixLayout_t c, void *D, cublasLtMatrixLayout_t d,
                              const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspace_bytes, cudaStream_t stream)
{
    (void)handle, (void)op, (void)alpha, (void)A, (void)a, (void)B, (void)b, (void)beta;
    (void)C, (void)c, (void)D, (void)d, (void)algo, (void)workspace, (void)workspace_bytes;
    (void)stream;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- lab5.h: kernels that write nothing ------------------------------------------- */

cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    (void)x, (void)n, (void)amax, (void)stream;
    return cudaSuccess;
}

cudaError_t lab5_scale_cast(const float *x, size_t n, const float *scale, fp8_format fmt,
                            uint8_t *q, float *amax, cudaStream_t stream)
{
    (void)x, (void)n, (void)scale, (void)fmt, (void)q, (void)amax, (void)stream;
    return cudaSuccess;
}

cudaError_t lab5_mx_quantize(const float *x, size_t rows, size_t cols, fp8_format fmt,
                             mx_scale_rule rule, uint8_t *codes, uint8_t *scales,
                             cudaStream_t stream)
{
    (void)x, (void)rows, (void)cols, (void)fmt, (void)rule, (void)codes, (void)scales;
    (void)stream;
    return cudaSuccess;
}

#define GEMM_STANDIN(name)                                                                   \
    cudaError_t name(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,            \
                     const float *b_scale_inv, float *D, int M, int N, int K,                 \
                     cudaStream_t stream)                                                     \
    {                                                                                         \
        (void)A, (void)B, (void)a_scale_inv, (void)b_scale_inv, (void)D, (void)M, (void)N;    \
        (void)K, (void)stream;                                                                \
        return cudaSuccess;                                                                   \
    }
GEMM_STANDIN(lab5_gemm_naive)
GEMM_STANDIN(lab5_gemm_tiled)
GEMM_STANDIN(lab5_gemm_mma)
GEMM_STANDIN(lab5_gemm_wgmma_tile)
GEMM_STANDIN(lab5_gemm_wgmma)

cublasStatus_t lab5_gemm_cublaslt_fp8(cublasLtHandle_t handle, const uint8_t *A,
                                      const uint8_t *B, const float *a_scale_inv,
                                      const float *b_scale_inv, const float *d_scale,
                                      uint8_t *D, float *d_amax, int M, int N, int K,
                                      void *workspace, size_t workspace_bytes,
                                      cudaStream_t stream)
{
    (void)handle, (void)A, (void)B, (void)a_scale_inv, (void)b_scale_inv, (void)d_scale;
    (void)D, (void)d_amax, (void)M, (void)N, (void)K, (void)workspace, (void)workspace_bytes;
    (void)stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t lab5_gemm_cublaslt_bf16(cublasLtHandle_t handle, const uint16_t *A,
                                       const uint16_t *B, uint16_t *D, int M, int N, int K,
                                       void *workspace, size_t workspace_bytes,
                                       cudaStream_t stream)
{
    (void)handle, (void)A, (void)B, (void)D, (void)M, (void)N, (void)K, (void)workspace;
    (void)workspace_bytes, (void)stream;
    return CUBLAS_STATUS_SUCCESS;
}
