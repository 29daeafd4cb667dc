/*
 * standin_kernels.c - lab5.h's functions for the CUDA stand-in
 * (cuda_standin.c): each returns success having written nothing, so that
 * tests/lab5/test_host_time.c measures the tests' own host work.
 */
#include <stdint.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "lab5.h"

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
