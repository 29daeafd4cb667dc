/*
 * cuda_standin.c - a stand-in for the few CUDA runtime and cuBLASLt calls
 * that lab5's tests (grading/lab5/suite.c) make, so that the real suite can
 * run on a machine without a GPU: device memory is host memory, a stream or
 * an event is a token, a copy is memcpy, and every "kernel" (the lab5_*
 * functions and cublasLtMatmul) returns success having written nothing;
 * events time nothing (every interval is 1 ms).
 *
 * What it is for:
 *   - measuring the tests' own host work (inputs, references, tolerances,
 *     comparisons), which must not depend on how fast the grading machine
 *     is (tests/lab5/test_host_time.c, with the kernels of
 *     standin_kernels.c, which write nothing: a test run against them
 *     fails after doing the same host work as for a right one);
 *   - the grader's lab5 apart from the submission (LAB5_SPLIT=1) tested
 *     without a GPU: built with CUDA_STANDIN=1, the grader links this file
 *     into the judge and into every subject, whose "kernels" are host code
 *     (tests/lab5/test_split.sh). There a device-to-device copy runs
 *     STANDIN_COPY_PASSES times (STANDIN_SLOW_COPY): the stand-in device
 *     copies slowly, so that host code that does the work once reaches
 *     the performance tiers and code that sleeps does not.
 *
 * Not for: anything numerical about CUDA. It is linked only into test
 * programs and the stand-in grader, never into the grader or a lab.
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

#ifdef STANDIN_SLOW_COPY
#define STANDIN_COPY_PASSES 16
#else
#define STANDIN_COPY_PASSES 1
#endif

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    (void)stream;
    for (int pass = 1; pass < STANDIN_COPY_PASSES && kind == cudaMemcpyDeviceToDevice; pass++)
        cudaMemcpy(dst, src, bytes, kind);
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

/* ---- what nvcc's host code calls to register its (empty) fat binary ---------- */

void **__cudaRegisterFatBinary(void *fat)
{
    static void *handle;
    handle = fat;
    return &handle;
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
void __cudaUnregisterFatBinary(void **handle) { (void)handle; }
char __cudaInitModule(void **handle)
{
    (void)handle;
    return 0;
}
