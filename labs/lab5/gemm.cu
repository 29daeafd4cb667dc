/*
 * gemm.cu - lab5, the FP8 GEMM progression: your kernels for §5-§6 of lab5.h.
 *
 * Every version computes the same product (lab5.h §5, README §5.1):
 *   D[i*N + j] = (sum_k decode(A[i*K + k]) * decode(B[j*K + k]))
 *                * (a_scale_inv[0] * b_scale_inv[0])
 * with A (M x K) and B (N x K) E4M3 codes, both row-major, so both K-major
 * ("TN", the only layout Hopper's FP8 tensor cores read), D FP32 row-major.
 *
 * Build (what `make lab5` does, and the grader; -Xptxas -v adds the register
 * report, -Werror all-warnings -Xcompiler -Werror makes warnings stop it):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_89,code=sm_89 \
 *        -gencode arch=compute_90a,code=sm_90a \
 *        -Xcompiler -Wall,-Wextra -Icommon -Ilabs/lab5 \
 *        -c labs/lab5/gemm.cu
 * and link with -lcublasLt -lcudart (not -lcuda: see tensor_map_encoder).
 *
 * The versions, each one step of the lesson, each a TODO below:
 *   1. naive (README §5.2): one thread per element of D.
 *   2. tiled (README §5.3): tiles of A and B in shared memory, several
 *      elements of D per thread.
 *   3. mma (README §5.4): the warp-level FP8 tensor-core instruction
 *      mma.sync.m16n8k32.e4m3 (sm_89+).
 *   4a. wgmma_tile (README §5.5): Hopper's FP8 path on sm_90a, one step:
 *      TMA, mbarriers, wgmma.mma_async, one warpgroup and one tile a block.
 *   4b. wgmma (README §5.5, the challenge): the same, at speed: a pipeline
 *      of producer and consumers, a persistent grid.
 *   5. cuBLASLt (README §6): the library's FP8 GEMM with an E4M3 output; the
 *      BF16 baseline at the end of this file is given, as the worked example.
 *
 * Measured speed, M = N = K = 8192 (TFLOP/s, and the fraction of cuBLASLt
 * FP8): not measured yet. Fill it in from `./lab5 --bench` once your
 * versions pass the tests.
 *
 * Rules the grader checks: only the lab5_* functions may be global symbols
 * (make every kernel, helper and constant static); nothing prints, nothing
 * synchronizes, nothing allocates device memory; every function returns
 * cudaGetLastError() after its launches. Sizes follow lab5.h: a negative
 * size is cudaErrorInvalidValue, a size of 0 queues nothing and returns
 * cudaSuccess.
 */
/* The debug build (README §5.5): uncomment to make a wait in lab5_mbar_wait
 * (given below) that lasts more than 2 s print which barrier and parity it
 * waited for, and trap, instead of hanging until the test's time limit. */
/* #define LAB5_DEBUG_SPIN 2000000000 */
#include "lab5.h"

#include <cuda.h>         /* CUtensorMap and its enums: types only, no -lcuda */
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled */
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Guards for device code that only some targets can compile. The build
 * makes two device passes, sm_89 and sm_90a (and a host pass where
 * __CUDA_ARCH__ is not defined):
 *   #if LAB5_SM89    mma.sync with E4M3 operands (compute capability 8.9+)
 *   #if LAB5_SM90A   wgmma, setmaxnreg: only the sm_90a pass has them
 * Put a kernel's body (and its inline-PTX helpers) inside the guard; the
 * kernel itself must exist in every pass so that the host can launch it. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LAB5_SM90A 1
#else
#define LAB5_SM90A 0
#endif

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
#define LAB5_SM89 1
#else
#define LAB5_SM89 0
#endif

/* ==== 1. naive: one thread per element of D ========================================== */

/*
 * TODO (README §5.2): a kernel where thread (x, y) of the grid computes one
 * element D[i][j]: j, the column, from the x direction (blockIdx.x: N) and
 * i, the row, from y (blockIdx.y: M); threads outside M x N do nothing.
 * Decode each code with cuda_fp8.h: an __nv_fp8_e4m3 whose __x is the code
 * converts to float exactly. Sum the products over k in an FP32 FMA chain,
 * then D[i*N + j] = acc * (a_scale_inv[0] * b_scale_inv[0]).
 * Any M, N, K >= 1. Index with size_t: M * N and M * K pass 2^31.
 */
cudaError_t lab5_gemm_naive(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                            const float *b_scale_inv, float *D, int M, int N, int K,
                            cudaStream_t stream)
{
    (void)A, (void)B, (void)a_scale_inv, (void)b_scale_inv, (void)D;
    (void)M, (void)N, (void)K, (void)stream;
    return cudaSuccess; /* TODO: launch your kernel */
}

/* ==== 2. tiled: shared-memory tiles, a register tile per thread ====================== */

/*
 * TODO (README §5.3): a block computes a tile of D (64 x 64, say, with 256
 * threads of 4 x 4 elements each). For each slice of K (32, say) the block
 * decodes its tile of A and its tile of B into shared memory once, waits
 * (__syncthreads), and each thread accumulates its elements from shared
 * memory into registers; a second __syncthreads before the tiles are
 * overwritten. Use blockIdx.x for the N direction and blockIdx.y for M, as
 * in version 1: the tests use shapes with M != N.
 * Any M, N, K >= 1: fill the parts of a tile beyond M, N or K with zeros and
 * store only the elements of D that exist.
 */
cudaError_t lab5_gemm_tiled(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                            const float *b_scale_inv, float *D, int M, int N, int K,
                            cudaStream_t stream)
{
    (void)A, (void)B, (void)a_scale_inv, (void)b_scale_inv, (void)D;
    (void)M, (void)N, (void)K, (void)stream;
    return cudaSuccess; /* TODO: launch your kernel */
}

/* ==== 3. mma: warp-level FP8 tensor cores (mma.sync, sm_89+) ========================= */

/*
 * TODO (README §5.4): tensor cores through inline PTX,
 *   mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
 * a warp's 16x32 tile of A times a 32x8 tile of B^T into a 16x8 FP32 tile
 * of D. The PTX ISA gives the fragment layouts (which lane holds which
 * codes): both A and B fragments are 4 consecutive bytes of a K-major row,
 * so our A and B need no transposition. Load them from shared memory with
 * ldmatrix (.x4) or plain 32-bit loads; a block tile of 128 x 128 with
 * 8 warps and K in steps of 64 is a good start.
 * M, N and K multiples of 128, otherwise return cudaErrorInvalidValue
 * before launching anything. The kernel body compiles only #if LAB5_SM89;
 * on a GPU older than 8.9 return cudaErrorNotSupported (README §8).
 */
cudaError_t lab5_gemm_mma(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                          const float *b_scale_inv, float *D, int M, int N, int K,
                          cudaStream_t stream)
{
    (void)A, (void)B, (void)a_scale_inv, (void)b_scale_inv, (void)D;
    (void)M, (void)N, (void)K, (void)stream;
    return cudaSuccess; /* TODO: check the shape, launch your kernel */
}

/* ==== 4. wgmma: Hopper's FP8 path, TMA + mbarriers + warpgroup MMA (sm_90a) ========= */

/*
 * Given, plumbing: cuTensorMapEncodeTiled, the host function that makes a
 * TMA tensor map, belongs to the driver API (libcuda). Fetching it through
 * the runtime keeps the program free of -lcuda. NULL if the driver lacks it.
 */
[[maybe_unused]] static PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode; /* fetched once */
    if (encode == NULL) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                             cudaEnableDefault, &found) == cudaSuccess &&
            found == cudaDriverEntryPointSuccess)
            encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }
    return encode;
}

#if LAB5_SM90A
#ifdef LAB5_DEBUG_SPIN
#include <cstdio>
#endif
/* Given (README §5.5): wait until the phase of parity `parity` of the
 * mbarrier at shared address `bar` has completed. try_wait gives up after a
 * time limit of its own, hence the loop; a wait for a phase that never
 * completes spins for ever, unless LAB5_DEBUG_SPIN is defined. */
[[maybe_unused]] static __device__ __forceinline__ void lab5_mbar_wait(uint32_t bar,
                                                                       uint32_t parity)
{
    uint32_t done;
#ifdef LAB5_DEBUG_SPIN
    uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(start));
#endif
    do {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
#ifdef LAB5_DEBUG_SPIN
        asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(now));
        if (!done && now - start > (uint64_t)(LAB5_DEBUG_SPIN)) {
            printf("lab5 debug: block (%d, %d) thread %d waited %llu ns on the mbarrier at "
                   "shared address %u for parity %u: a parity or arrival-count bug (README "
                   "5.5)\n", (int)blockIdx.x, (int)blockIdx.y, (int)threadIdx.x,
                   (unsigned long long)(now - start), bar, parity);
            __trap();
        }
#endif
    } while (!done);
}
#endif /* LAB5_SM90A */

/*
 * TODO (README §5.5): the first step onto Hopper's native FP8 path, one
 * 128 x 128 tile of D per block of one warpgroup (128 threads), no
 * persistence, no warp specialization:
 *   - two tensor maps (tensor_map_encoder() above; lab5_kmajor_tma in lab5.h
 *     gives the dimensions, stride and box) read 128 x 128-byte boxes of A
 *     and B with CU_TENSOR_MAP_SWIZZLE_128B into a ring of 2 stages in
 *     dynamic shared memory, each tile 1024-byte aligned;
 *   - one mbarrier per stage: thread 0 announces the stage's bytes with
 *     mbarrier.arrive.expect_tx and issues cp.async.bulk.tensor.2d; every
 *     thread waits with mbarrier.try_wait.parity, slice kt on stage
 *     lab5_ring_stage(kt, 2) for parity lab5_ring_parity(kt, 2). A wrong
 *     parity hangs: build with LAB5_DEBUG_SPIN (README §5.5) to trap instead;
 *   - per slice, wgmma.fence, 2 x 4 wgmma.mma_async.m64n128k32 (rows 0-63 and
 *     64-127; k = 0, 32, 64, 96) with descriptors from lab5_wgmma_desc_sw128,
 *     commit_group, wait_group 0, __syncthreads, then refill the stage;
 *   - the epilogue from the m64nNk32 accumulator layout (README §5.5).
 * Shapes, errors and LAB5_SM90A as for lab5_gemm_wgmma below.
 */
cudaError_t lab5_gemm_wgmma_tile(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                                 const float *b_scale_inv, float *D, int M, int N, int K,
                                 cudaStream_t stream)
{
    (void)A, (void)B, (void)a_scale_inv, (void)b_scale_inv, (void)D;
    (void)M, (void)N, (void)K, (void)stream;
    return cudaSuccess; /* TODO: check the shape and the device, launch your kernel */
}

/*
 * TODO (README §5.5, the challenge): Hopper's native FP8 path at speed.
 *   - wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3 with both operands
 *     in shared memory, K-major, described by 64-bit matrix descriptors
 *     with the 128-byte swizzle (PTX ISA: "matrix descriptor").
 *   - The tiles arrive by TMA (cp.async.bulk.tensor.2d) from tensor maps made
 *     on the host with tensor_map_encoder() above (CU_TENSOR_MAP_SWIZZLE_128B,
 *     K tiles of 128 bytes), passed to the kernel as
 *     `const __grid_constant__ CUtensorMap` parameters. The swizzle is
 *     computed from address bits: start each tile 1024-byte aligned.
 *   - A ring of stages in shared memory with a "full" and an "empty"
 *     mbarrier per stage: a producer (one thread is enough) issues the
 *     copies, consumer warpgroups issue the wgmmas (wgmma.fence,
 *     commit_group, wait_group) and release each stage when its wgmmas are
 *     done. Keep a group in flight rather than waiting for all after each.
 *   - The epilogue writes D, row-major, scaled, from the accumulator
 *     fragment layout of the PTX ISA.
 *   - More than 48 KB of dynamic shared memory needs cudaFuncSetAttribute
 *     (cudaFuncAttributeMaxDynamicSharedMemorySize) before the launch.
 * M, N and K multiples of 128, otherwise cudaErrorInvalidValue; on a device
 * whose compute capability is not 9.0, cudaErrorNotSupported (ask
 * cudaDeviceGetAttribute, and keep the answer per device). The kernel body
 * compiles only #if LAB5_SM90A. The goal of the challenge: at least 50% of
 * cuBLASLt FP8's rate on an H100 (the grader's perf_gemm tests time the
 * fastest of your mma, wgmma_tile and wgmma at M = N = K = 4096: 10% and
 * 50%).
 */
cudaError_t lab5_gemm_wgmma(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                            const float *b_scale_inv, float *D, int M, int N, int K,
                            cudaStream_t stream)
{
    (void)A, (void)B, (void)a_scale_inv, (void)b_scale_inv, (void)D;
    (void)M, (void)N, (void)K, (void)stream;
    return cudaSuccess; /* TODO: check the shape and the device, launch your kernel */
}

/* ==== 5. cuBLASLt: the baselines ====================================================== */

/*
 * cuBLASLt is column-major. Our row-major D (M x N) is, read column-major,
 * D^T (N x M, leading dimension N); our row-major A (M x K) is A^T (K x M,
 * ld K) and B (N x K) is B^T (K x N, ld K). So D = A B^T is, column-major,
 *   D^T = B A^T = op(B^T) * A^T   with op = transpose:
 * cuBLASLt's "A" is our B, stored K x N with ld K and transposed (TRANSA =
 * T); its "B" is our A, K x M with ld K, not transposed (TRANSB = N);
 * m = N, n = M, k = K; D is N x M with ld N. This is "TN", the one layout
 * cuBLASLt's FP8 kernels accept.
 *
 * Every descriptor is destroyed before returning; the status returned is
 * the first one that was not CUBLAS_STATUS_SUCCESS.
 */

/* The first failure of two statuses: st unless it is a success, else next. */
static cublasStatus_t first_failure(cublasStatus_t st, cublasStatus_t next)
{
    return st != CUBLAS_STATUS_SUCCESS ? st : next;
}

/* Given (README §6): the BF16 baseline, the worked example for exercise 5. */
cublasStatus_t lab5_gemm_cublaslt_bf16(cublasLtHandle_t handle, const uint16_t *A,
                                       const uint16_t *B, uint16_t *D, int M, int N, int K,
                                       void *workspace, size_t workspace_bytes,
                                       cudaStream_t stream)
{
    if (M < 0 || N < 0 || K < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (M == 0 || N == 0 || K == 0)
        return CUBLAS_STATUS_SUCCESS;

    const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
    const uint64_t max_workspace = workspace != NULL ? workspace_bytes : 0;
    const float alpha = 1.0f, beta = 0.0f;
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t a_layout = NULL, b_layout = NULL, d_layout = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t heuristic = {};
    int found = 0;

    /* FP32 accumulation, FP32 alpha and beta. */
    cublasStatus_t st = cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                            sizeof(trans_a));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                            sizeof(trans_b));
    /* cuBLASLt's A = our B (K x N, ld K); its B = our A (K x M, ld K); D: N x M, ld N. */
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&a_layout, CUDA_R_16BF, K, N, K);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&b_layout, CUDA_R_16BF, K, M, K);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&d_layout, CUDA_R_16BF, N, M, N);
    /* The fastest algorithm that fits in the workspace we have. */
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulPreferenceCreate(&pref);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &max_workspace, sizeof(max_workspace));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(handle, op, a_layout, b_layout, d_layout, d_layout,
                                            pref, 1, &heuristic, &found);
    if (st == CUBLAS_STATUS_SUCCESS && found == 0)
        st = CUBLAS_STATUS_NOT_SUPPORTED;
    /* beta = 0: C is not read; C = D with D's layout, as cuBLASLt allows. */
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmul(handle, op, &alpha, B, a_layout, A, b_layout, &beta, D, d_layout, D,
                            d_layout, &heuristic.algo, workspace, max_workspace, stream);

    /* Destroy everything that was made, keeping the first failure. */
    if (pref != NULL)
        st = first_failure(st, cublasLtMatmulPreferenceDestroy(pref));
    if (d_layout != NULL)
        st = first_failure(st, cublasLtMatrixLayoutDestroy(d_layout));
    if (b_layout != NULL)
        st = first_failure(st, cublasLtMatrixLayoutDestroy(b_layout));
    if (a_layout != NULL)
        st = first_failure(st, cublasLtMatrixLayoutDestroy(a_layout));
    if (op != NULL)
        st = first_failure(st, cublasLtMatmulDescDestroy(op));
    return st;
}

/*
 * TODO (README §6): the same call with FP8 in and FP8 out, as Transformer
 * Engine runs it. Start from a copy of lab5_gemm_cublaslt_bf16 and change:
 *   - the types of A, B and D to CUDA_R_8F_E4M3;
 *   - the scales, device pointers set on the operation descriptor:
 *     CUBLASLT_MATMUL_DESC_A_SCALE_POINTER and _B_SCALE_POINTER (remember
 *     which of our matrices is cuBLASLt's A), _D_SCALE_POINTER = d_scale,
 *     _AMAX_D_POINTER = d_amax; alpha stays 1;
 *   - C: it must be described even with beta = 0, and cuBLASLt's table of
 *     FP8 type combinations decides its type when D is FP8 (not FP8 itself);
 *     a C whose type differs from D's cannot share D's pointer;
 *   - CUBLASLT_MATMUL_DESC_FAST_ACCUM = 0 (an int8_t): README §5.1 says why.
 */
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
    return CUBLAS_STATUS_SUCCESS; /* TODO: the FP8 call */
}
