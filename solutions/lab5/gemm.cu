/*
 * gemm.cu - lab5, the FP8 GEMM progression: the reference solution of §5-§6
 * of lab5.h.
 *
 * Every version computes the same product (lab5.h §5, README §5.1):
 *   D[i*N + j] = (sum_k decode(A[i*K + k]) * decode(B[j*K + k]))
 *                * (a_scale_inv[0] * b_scale_inv[0])
 * with A (M x K) and B (N x K) E4M3 codes, both row-major, so both K-major
 * ("TN", the only layout Hopper's FP8 tensor cores read), D FP32 row-major.
 *
 * Build (the flags the course uses; -Xptxas -v adds the register report):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_89,code=sm_89 \
 *        -gencode arch=compute_90a,code=sm_90a -Werror all-warnings \
 *        -Xcompiler -Wall,-Wextra,-Werror -Icommon -Ilabs/lab5 \
 *        -c solutions/lab5/gemm.cu
 * and link with -lcublasLt -lcudart (never -lcuda: the one driver function
 * used, cuTensorMapEncodeTiled, is fetched through the runtime).
 *
 * The versions, each one step of the lesson:
 *   1. naive (README §5.2): one thread per element of D, FP8 decoded to FP32,
 *      a K-long chain of FMAs. Every operand byte is read from memory M or N
 *      times over.
 *   2. tiled (README §5.3): 64x64 tiles of A and B decoded once into shared
 *      memory; each thread computes 4x4 elements of D from registers.
 *   3. mma (README §5.4): the warp-level FP8 tensor-core instruction
 *      mma.sync.m16n8k32.e4m3 (sm_89+), fragments loaded with ldmatrix from
 *      a double buffer that cp.async fills.
 *   4a. wgmma_tile (README §5.5): one warpgroup, one 128x128 tile a block,
 *      TMA into a 2-stage ring, wgmma.m64n128k32; nothing overlapped but
 *      the next slice's copy.
 *   4b. wgmma (README §5.5, the challenge): Hopper's native FP8 path on
 *      sm_90a. TMA copies 128-byte-swizzled tiles into a 4-stage ring, one
 *      producer thread and two consumer warpgroups synchronize through
 *      mbarriers, wgmma.mma_async reads both operands from shared memory;
 *      a persistent grid of one block per SM.
 *   5. cuBLASLt (README §6): the library's FP8 GEMM with an E4M3 output, its
 *      scale and its amax, as Transformer Engine calls it; and the BF16
 *      baseline, given to students as the worked example.
 *
 * Measured speed, M = N = K = 8192 on one H100 (TFLOP/s, and the fraction of
 * cuBLASLt FP8):
 *   PLACEHOLDER: NOT MEASURED YET. Nothing in this file has been run on a
 *   GPU; the table is to be filled from `make bench` (tests/bench/bench_lab5.sh).
 *
 * Numerics. Each product of two E4M3 values is exact in FP32 (4 + 4 bits of
 * significand), so versions 1 and 2 differ from the exact sum only by the
 * FP32 rounding of a running sum in k order. Versions 3 and 4 add inside the
 * tensor cores, into FP32 accumulators (the PTX types say .f32), but in an
 * order and with internal precision of their own: Hopper's FP8 wgmma keeps
 * fewer bits while it adds the 32 products of one instruction to the
 * accumulator (README §5.1 models it: about 14 bits kept per k32 step).
 * This file promotes nothing: all K/32 chunks go into the wgmma accumulator
 * itself, with no second FP32 sum on the CUDA cores (the "promotion" of
 * DeepGEMM, and of cuBLASLt with FAST_ACCUM off, as version 5 runs it).
 *
 * Only the lab5_* functions are global symbols; every kernel, helper and
 * constant is static.
 */
#include "lab5.h"

#include <cuda.h>         /* CUtensorMap and its enums: types only, no -lcuda */
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled */
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#ifdef LAB5_DEBUG_SPIN
#include <cstdio> /* the debug build's one message before it traps */
#endif

/* The wgmma kernel exists only in the sm_90a compilation: wgmma, setmaxnreg
 * and the arch-specific features are not in plain sm_90 nor in sm_89.
 * nvcc defines __CUDA_ARCH_FEAT_SM90_ALL when it compiles for compute_90a. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LAB5_SM90A 1
#else
#define LAB5_SM90A 0
#endif

/* mma.sync with E4M3 operands needs compute capability 8.9 (Ada) or later. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
#define LAB5_SM89 1
#else
#define LAB5_SM89 0
#endif

static constexpr int MAX_DEVICES = 64;

/* ---- shared pieces ------------------------------------------------------------------- */

/* One E4M3 code as a float: exact (every E4M3 value is a float). cuda_fp8.h's
 * conversion is one instruction on sm_89+; 0x7F and 0xFF decode to NaN. */
static __device__ __forceinline__ float e4m3_to_float(uint8_t code)
{
    __nv_fp8_e4m3 v;
    v.__x = code;
    return static_cast<float>(v);
}

/* lab5.h's size conventions for the CUDA kernels: a negative size is an
 * error, a size of 0 queues nothing and succeeds. */
static bool negative(int M, int N, int K)
{
    return M < 0 || N < 0 || K < 0;
}

static bool empty(int M, int N, int K)
{
    return M == 0 || N == 0 || K == 0;
}

/* ==== 1. naive: one thread per element of D ========================================== */

/* Thread (x, y) of the grid computes D[i][j], j = the column (the N
 * direction, blockIdx.x), i = the row (the M direction, blockIdx.y). Its K
 * loop reads row i of A and row j of B, one byte at a time, and adds the
 * products with FMAs in k order. */
static __global__ void gemm_naive_kernel(const uint8_t *A, const uint8_t *B,
                                         const float *a_scale_inv, const float *b_scale_inv,
                                         float *D, int M, int N, int K)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    const uint8_t *a = A + (size_t)i * K;
    const uint8_t *b = B + (size_t)j * K;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc = fmaf(e4m3_to_float(a[k]), e4m3_to_float(b[k]), acc);
    D[(size_t)i * N + j] = acc * (a_scale_inv[0] * b_scale_inv[0]);
}

cudaError_t lab5_gemm_naive(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                            const float *b_scale_inv, float *D, int M, int N, int K,
                            cudaStream_t stream)
{
    if (negative(M, N, K))
        return cudaErrorInvalidValue;
    if (empty(M, N, K))
        return cudaSuccess;
    const dim3 block(16, 16);
    const dim3 grid((N + 15) / 16, (M + 15) / 16);
    gemm_naive_kernel<<<grid, block, 0, stream>>>(A, B, a_scale_inv, b_scale_inv, D, M, N, K);
    return cudaGetLastError();
}

/* ==== 2. tiled: shared-memory tiles, a 4x4 register tile per thread ================== */

/* A block computes a 64x64 tile of D with 256 threads, 16 elements each. For
 * every 32-wide slice of K it decodes a 64x32 tile of A and one of B into
 * shared memory (each code decoded once per block instead of once per use),
 * then each thread runs 32 steps of 4 + 4 shared loads and 16 FMAs.
 *
 * Thread (tx, ty) = (tid % 16, tid / 16) owns rows ty + 16*r and columns
 * tx + 16*c (r, c = 0..3) of the tile: a warp's 32 lanes are 2 rows of 16
 * consecutive columns, so its stores to D are 64-byte runs, and its loads
 * of the B tile are 16 consecutive words (no bank conflict) while those of
 * the A tile are 2 words (broadcast).
 *
 * The tiles are stored k-major (As[k][row]) with one word of padding: the
 * loader's warp writes 32 consecutive k of one row, words 65 apart, in 32
 * different banks.
 *
 * blockIdx.x runs over the N direction (columns of D), blockIdx.y over M
 * (rows). Swapping the two is wrong for every M != N: the tests use
 * non-square shapes so that such a swap fails. Any M, N, K >= 1: the tiles
 * at the edges are filled with zeros beyond M, N or K and their stores are
 * masked. */
static constexpr int TILE_BM = 64, TILE_BN = 64, TILE_BK = 32;
static constexpr int TILE_THREADS = 256, TILE_R = 4; /* 16 x 16 threads, 4 x 4 each */
static_assert(TILE_BM == TILE_BN, "one loop loads both tiles");

static __global__ void __launch_bounds__(TILE_THREADS)
gemm_tiled_kernel(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                  const float *b_scale_inv, float *D, int M, int N, int K)
{
    __shared__ float As[TILE_BK][TILE_BM + 1];
    __shared__ float Bs[TILE_BK][TILE_BN + 1];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * TILE_BM, n0 = blockIdx.x * TILE_BN;

    float acc[TILE_R][TILE_R] = {};
    for (int k0 = 0; k0 < K; k0 += TILE_BK) {
        /* 64 rows x 32 bytes of each operand; a warp reads 32 consecutive
         * bytes of one row (element e: row e / 32, k e % 32). */
        for (int e = tid; e < TILE_BM * TILE_BK; e += TILE_THREADS) {
            const int r = e / TILE_BK, k = e % TILE_BK, gk = k0 + k;
            const int gm = m0 + r, gn = n0 + r;
            As[k][r] = (gm < M && gk < K) ? e4m3_to_float(A[(size_t)gm * K + gk]) : 0.0f;
            Bs[k][r] = (gn < N && gk < K) ? e4m3_to_float(B[(size_t)gn * K + gk]) : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < TILE_BK; k++) {
            float a[TILE_R], b[TILE_R];
#pragma unroll
            for (int r = 0; r < TILE_R; r++) {
                a[r] = As[k][ty + 16 * r];
                b[r] = Bs[k][tx + 16 * r];
            }
#pragma unroll
            for (int r = 0; r < TILE_R; r++)
#pragma unroll
                for (int c = 0; c < TILE_R; c++)
                    acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
        }
        __syncthreads(); /* the tiles are overwritten next */
    }

    const float ab_scale_inv = a_scale_inv[0] * b_scale_inv[0];
#pragma unroll
    for (int r = 0; r < TILE_R; r++) {
        const int row = m0 + ty + 16 * r;
#pragma unroll
        for (int c = 0; c < TILE_R; c++) {
            const int col = n0 + tx + 16 * c;
            if (row < M && col < N)
                D[(size_t)row * N + col] = acc[r][c] * ab_scale_inv;
        }
    }
}

cudaError_t lab5_gemm_tiled(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                            const float *b_scale_inv, float *D, int M, int N, int K,
                            cudaStream_t stream)
{
    if (negative(M, N, K))
        return cudaErrorInvalidValue;
    if (empty(M, N, K))
        return cudaSuccess;
    const dim3 grid((N + TILE_BN - 1) / TILE_BN, (M + TILE_BM - 1) / TILE_BM);
    gemm_tiled_kernel<<<grid, TILE_THREADS, 0, stream>>>(A, B, a_scale_inv, b_scale_inv, D,
                                                         M, N, K);
    return cudaGetLastError();
}

/* ==== 3. mma: warp-level FP8 tensor cores (mma.sync, sm_89+) ========================= */

/* mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32: a warp multiplies a
 * 16x32 tile of A by a 32x8 tile of B^T and adds to a 16x8 FP32 tile of D.
 * The PTX ISA's fragment layouts (g = lane / 4, t = lane % 4; each .b32
 * register holds 4 consecutive codes of one row, lowest k in the low byte):
 *   A: a0 = row g,   k 4t..4t+3      a1 = row g+8, k 4t..4t+3
 *      a2 = row g,   k 16+4t..       a3 = row g+8, k 16+4t..
 *   B: b0 = column g, k 4t..4t+3     b1 = column g, k 16+4t..
 *   D: d0, d1 = row g, columns 2t, 2t+1;  d2, d3 = row g+8, the same columns
 * Both A and B fragments are 4 consecutive bytes of a K-major row: our A and
 * B exactly as they lie in memory, no transposition anywhere.
 *
 * ldmatrix.x4 loads four 8x8 matrices of 16-bit elements, i.e. four blocks
 * of 8 rows x 16 bytes; lanes 8i..8i+7 give the row addresses of block i and
 * lane L receives, for each block, the 4 bytes at row L/4, bytes 4(L%4)..+3:
 * precisely the fragment layout above. For an A fragment the four blocks
 * are (rows 0-7, k 0-15), (rows 8-15, k 0-15), (rows 0-7, k 16-31),
 * (rows 8-15, k 16-31); for two B fragments (columns n..n+15) they are
 * (n 0-7, k 0-15), (n 0-7, k 16-31), (n 8-15, k 0-15), (n 8-15, k 16-31).
 *
 * The block: 128x128 of D, 8 warps as 2 (M) x 4 (N), each warp 64x32 =
 * 4 x 4 mma tiles (64 FP32 accumulators a thread). K advances 64 at a time
 * through two shared-memory stages: while the warps compute on one, cp.async
 * fills the other. A shared row is 64 bytes + 16 of padding: the 8 rows an
 * ldmatrix phase reads then start in 8 different 16-byte bank groups.
 *
 * blockIdx.x runs over N, blockIdx.y over M. M, N, K multiples of 128. */
static constexpr int MMA_BM = 128, MMA_BN = 128, MMA_BK = 64;
[[maybe_unused]] static constexpr int MMA_PITCH = MMA_BK + 16; /* bytes per shared row */
static constexpr int MMA_THREADS = 256;
static constexpr int MMA_ALIGN = 128; /* lab5.h: M, N and K multiples of 128 */

#if LAB5_SM89
static __device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/* 16 bytes global -> shared, asynchronously (bypassing L1: .cg). */
static __device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

static __device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most N of this thread's cp.async groups are still pending. */
template <int N>
static __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

static __device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* d += a * b for one 16x8x32 tile (d is both C and D of the instruction). */
static __device__ __forceinline__ void mma_e4m3_16832(float (&d)[4], const uint32_t (&a)[4],
                                                      const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* One stage: rows 0..127 x bytes k0..k0+63 of the block's A and B tiles,
 * 512 chunks of 16 bytes each, 2 + 2 per thread. */
static __device__ __forceinline__ void mma_load_stage(uint32_t sa, uint32_t sb,
                                                      const uint8_t *gA, const uint8_t *gB,
                                                      int K, int k0, int tid)
{
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int chunk = tid + i * MMA_THREADS;
        const int row = chunk / (MMA_BK / 16), part = chunk % (MMA_BK / 16);
        const size_t src = (size_t)row * K + k0 + 16 * part;
        const uint32_t dst = row * MMA_PITCH + 16 * part;
        cp_async_16(sa + dst, gA + src);
        cp_async_16(sb + dst, gB + src);
    }
}
#endif /* LAB5_SM89 */

static __global__ void __launch_bounds__(MMA_THREADS)
gemm_mma_kernel(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                const float *b_scale_inv, float *D, int M, int N, int K)
{
#if LAB5_SM89
    __shared__ __align__(128) uint8_t sA[2][MMA_BM * MMA_PITCH];
    __shared__ __align__(128) uint8_t sB[2][MMA_BN * MMA_PITCH];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = warp / 4, wn = warp % 4; /* the warp's 64x32 piece of the block */
    const int m0 = blockIdx.y * MMA_BM, n0 = blockIdx.x * MMA_BN;
    const uint8_t *gA = A + (size_t)m0 * K, *gB = B + (size_t)n0 * K;

    /* This lane's ldmatrix row and column offsets (see the comment above). */
    const int a_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_col = (lane >> 4) * 16;
    const int b_row = (lane & 7) + (lane >> 4) * 8, b_col = ((lane >> 3) & 1) * 16;

    float acc[4][4][4] = {}; /* [m16 tile][n8 tile][fragment] */
    const int k_tiles = K / MMA_BK;

    mma_load_stage(smem_u32(sA[0]), smem_u32(sB[0]), gA, gB, K, 0, tid);
    cp_async_commit();
    for (int kt = 0; kt < k_tiles; kt++) {
        const int cur = kt & 1;
        if (kt + 1 < k_tiles) {
            /* Stage cur ^ 1 was last read in iteration kt - 1, which ended
             * with __syncthreads: it is free to refill. */
            mma_load_stage(smem_u32(sA[cur ^ 1]), smem_u32(sB[cur ^ 1]), gA, gB, K,
                           (kt + 1) * MMA_BK, tid);
            cp_async_commit();
            cp_async_wait<1>(); /* this thread's copies for stage cur are done */
        } else {
            cp_async_wait<0>();
        }
        __syncthreads(); /* ... and every other thread's */

        const uint32_t sa = smem_u32(sA[cur]), sb = smem_u32(sB[cur]);
#pragma unroll
        for (int kk = 0; kk < MMA_BK; kk += 32) {
            uint32_t a[4][4], b[4][2];
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
                ldmatrix_x4(a[mi], sa + (wm * 64 + mi * 16 + a_row) * MMA_PITCH + kk + a_col);
#pragma unroll
            for (int nj = 0; nj < 2; nj++) {
                uint32_t r[4];
                ldmatrix_x4(r, sb + (wn * 32 + nj * 16 + b_row) * MMA_PITCH + kk + b_col);
                b[2 * nj][0] = r[0];
                b[2 * nj][1] = r[1];
                b[2 * nj + 1][0] = r[2];
                b[2 * nj + 1][1] = r[3];
            }
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++)
                    mma_e4m3_16832(acc[mi][ni], a[mi], b[ni]);
        }
        __syncthreads(); /* stage cur is refilled in the next iteration */
    }

    /* The D fragment layout: d0, d1 at (g, 2t..2t+1), d2, d3 at (g+8, ...). */
    const float ab_scale_inv = a_scale_inv[0] * b_scale_inv[0];
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int mi = 0; mi < 4; mi++) {
        const int row = m0 + wm * 64 + mi * 16 + g;
#pragma unroll
        for (int ni = 0; ni < 4; ni++) {
            const int col = n0 + wn * 32 + ni * 8 + 2 * t;
            float *d = D + (size_t)row * N + col;
            *reinterpret_cast<float2 *>(d) =
                make_float2(acc[mi][ni][0] * ab_scale_inv, acc[mi][ni][1] * ab_scale_inv);
            *reinterpret_cast<float2 *>(d + 8 * (size_t)N) =
                make_float2(acc[mi][ni][2] * ab_scale_inv, acc[mi][ni][3] * ab_scale_inv);
        }
    }
#else
    (void)A, (void)B, (void)a_scale_inv, (void)b_scale_inv, (void)D, (void)M, (void)N, (void)K;
#endif
}

/* Device dev's compute capability as one number (89 for 8.9) and its SM
 * count. */
static cudaError_t device_cc(int dev, int *cc, int *sms)
{
    int major = 0, minor = 0;
    cudaError_t err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
    *cc = major * 10 + minor;
    return err;
}

/* cudaSuccess when the current device has compute capability 8.9 or later
 * (mma.sync with E4M3 operands), cudaErrorNotSupported when not: below it
 * the kernel above compiles to nothing. */
static cudaError_t mma_device(void)
{
    int dev, cc = 0, sms = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = device_cc(dev, &cc, &sms);
    if (err != cudaSuccess)
        return err;
    return cc >= 89 ? cudaSuccess : cudaErrorNotSupported;
}

cudaError_t lab5_gemm_mma(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                          const float *b_scale_inv, float *D, int M, int N, int K,
                          cudaStream_t stream)
{
    if (negative(M, N, K) || M % MMA_ALIGN != 0 || N % MMA_ALIGN != 0 || K % MMA_ALIGN != 0)
        return cudaErrorInvalidValue;
    cudaError_t err = mma_device();
    if (err != cudaSuccess)
        return err;
    if (empty(M, N, K))
        return cudaSuccess;
    const dim3 grid(N / MMA_BN, M / MMA_BM);
    gemm_mma_kernel<<<grid, MMA_THREADS, 0, stream>>>(A, B, a_scale_inv, b_scale_inv, D, M, N, K);
    return cudaGetLastError();
}

/* ==== 4. wgmma: Hopper's FP8 path, TMA + mbarriers + warpgroup MMA (sm_90a) ========= */

/*
 * A block computes 128x256 tiles of D with three warpgroups (384 threads):
 *
 *   warpgroup 0, the producer: one thread issues the TMA copies. For each
 *     128-wide slice of K it copies a 128x128-byte tile of A and a
 *     256x128-byte tile of B into one stage of a 4-stage ring.
 *   warpgroups 1 and 2, the consumers: warpgroup c multiplies rows 64c..64c+63
 *     of the A tile by the whole B tile with four
 *     wgmma.mma_async.m64n256k32.f32.e4m3.e4m3 (K = 4 x 32 = 128), into
 *     64 x 256 FP32 accumulators: 128 registers a thread.
 *
 * Why 128x256 rather than 128x128: per 128 bytes of K the block loads
 * (128 + 256) x 128 bytes and does 2 x 128 x 256 x 128 flops, 171 flops a
 * byte, against 128 for a 128x128 tile: a third less traffic from L2 for
 * the same work. It matters, because at FP8 rates L2 is the tight ceiling:
 * at the H100 SXM's dense peak (~1979 TFLOP/s) even 171 flops a byte would
 * need ~11.6 TB/s from L2 into the SMs. n256 is wgmma's widest shape, and
 * its 128 accumulators a thread fit because setmaxnreg gives the consumer
 * warpgroups 232 registers and the producer 40. A stage is 16 KB + 32 KB =
 * 48 KB; 4 stages are 192 KB of the 227 KB a block may have.
 *
 * The shared-memory layout is the one TMA writes with
 * CU_TENSOR_MAP_SWIZZLE_128B and the one wgmma reads with a 128-byte-swizzle
 * descriptor, K-major: row r of a tile is 128 bytes at offset 128 r, and its
 * 16-byte chunk j is stored at chunk j ^ (r % 8). The XOR is computed from
 * address bits, so every tile starts 1024-byte aligned (8 rows x 128 B, the
 * period of the pattern). A descriptor (PTX ISA, "matrix descriptor") says:
 *   bits  0-13  start address >> 4
 *   bits 16-29  leading-dimension byte offset >> 4: unused by K-major
 *               swizzled layouts whose K (32 bytes here) fits in one
 *               128-byte row; set to 1 (16 bytes) as is customary
 *   bits 32-45  stride-dimension byte offset >> 4: from one 8-row group to
 *               the next, 8 x 128 = 1024 bytes
 *   bits 49-51  base offset: 0, the tiles being 1024-byte aligned
 *   bits 62-63  swizzle mode: 1 = 128-byte swizzle
 * The k-th 32-byte slice of K (k = 0..3) is the same descriptor with its
 * start address moved by 32 k bytes: the hardware applies the swizzle to the
 * final address, as TMA did.
 *
 * The ring is synchronized by two mbarriers per stage:
 *   full[s]:  count 1. The producer's arrive.expect_tx(48 KB) is the one
 *             arrival; the two TMA copies complete the 48 KB of transactions.
 *             The phase completes when both copies have landed.
 *   empty[s]: count 8, one arrival per consumer warp once its wgmmas that
 *             read stage s have completed.
 * K slice number `it` of the block (counted over all its tiles, see the
 * persistent grid below) goes through stage s = it % 4 in round r = it / 4,
 * and round r is phase r of both barriers of the stage: the consumers wait
 * for phase r of full[s] (try_wait.parity with r & 1); before refilling the
 * stage for round r >= 1 the producer waits for phase r - 1 of empty[s].
 *
 * The consumers keep one wgmma group in flight: after committing the
 * group for slice it they wait until at most 1 group is pending (wait_group
 * 1), which means slice it - 1's group is done, and release its stage. So
 * the tensor cores work on slice it while the warps wait for slice it + 1's
 * data; waiting for all groups (wait_group 0) after each slice would drain
 * them every time. Only after a tile's last slice do the warps wait for
 * everything, before reading the accumulators.
 *
 * The epilogue writes D from the accumulator fragment of m64nNk32 (PTX ISA,
 * "wgmma register fragment, matrix D"): in warp w (0..3) of the warpgroup,
 * lane l holds, for i = 0 .. 31 (the instruction's N / 8),
 *   d[4i], d[4i+1]   at row 16w + l/4,     columns 8i + 2(l%4), +1
 *   d[4i+2], d[4i+3] at row 16w + l/4 + 8, the same columns,
 * scaled by a_scale_inv * b_scale_inv and stored as float2: each store of
 * a warp writes 8 rows x 32 consecutive bytes, whole 32-byte sectors.
 *
 * N need only be a multiple of 128: the last column tile may have 128
 * columns of B and D. TMA fills the rows of a box beyond N with zeros (and
 * still counts the whole box in the transaction bytes), so the wgmmas
 * compute zeros there, and the epilogue skips those columns.
 *
 * The grid is persistent: one block per SM (the 197 KB of shared memory
 * allow no second), each looping over tiles blockIdx.x, + gridDim.x, ...
 * The ring and its barriers carry on from one tile to the next: `it`
 * counts the K slices a block has gone through over all its tiles, slice
 * `it` uses stage it % 4 in round it / 4. So while the consumers write one
 * tile's D, the producer already loads the next tile's first stages, and
 * the cost of filling the pipeline is paid once per SM, not once per tile.
 * For that the consumers also release the stage of a tile's last slice,
 * once wait_group 0 has returned.
 *
 * The tiles are numbered in groups of 16 rows of tiles (column after column
 * within a group), so that the ~132 tiles in work at once share 16 A panels
 * and ~9 B panels (~35 MB at K = 8192), which stay in L2.
 */
static constexpr int WG_BM = 128, WG_BN = 256, WG_BK = 128; /* BK: 128 bytes = one swizzle row */
static constexpr int WG_STAGES = 4;
static constexpr int WG_CONSUMERS = 2;                      /* warpgroups computing */
static constexpr int WG_THREADS = 128 * (1 + WG_CONSUMERS); /* + one producer warpgroup */
static constexpr int WG_A_BYTES = WG_BM * WG_BK;            /* 16 KB */
static constexpr int WG_B_BYTES = WG_BN * WG_BK;            /* 32 KB */
static constexpr int WG_STAGE_BYTES = WG_A_BYTES + WG_B_BYTES;
static constexpr int WG_SMEM_BYTES = WG_STAGES * WG_STAGE_BYTES + 1024; /* + room to align */
static constexpr int WG_PRODUCER_REGS = 40, WG_CONSUMER_REGS = 232;
static constexpr int WG_ALIGN = 128; /* lab5.h: M, N and K multiples of 128 */
static_assert(WG_PRODUCER_REGS * 128 + WG_CONSUMER_REGS * 128 * WG_CONSUMERS <= 65536,
              "setmaxnreg: the warpgroups' registers must fit in the SM's 64K");
static_assert(WG_BK == 128, "one K tile is one 128-byte swizzle row");

#if LAB5_SM90A
/* (Constants only the device code of sm_90a uses.) */
static constexpr int WG_K_STEP = 32;     /* K of one wgmma */
static constexpr int WG_GROUP_M = 16;    /* rows of tiles in a group of the visiting order */
static constexpr int WG_ACC = WG_BN / 2; /* 64 x 256 / 128 threads: FP32 accumulators a thread */

static __device__ __forceinline__ uint32_t wg_smem_u32(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/* -- mbarriers (PTX ISA "mbarrier"), addressed by their shared-memory address -- */

static __device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* Makes the initialized barriers visible to the async proxy (TMA). */
static __device__ __forceinline__ void mbar_fence_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* One arrival, and `bytes` more transactions expected in the current phase. */
static __device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}

static __device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* Wait until the phase of parity `parity` has completed (acquire). try_wait
 * may give up after a time limit of its own, hence the loop. A wait for the
 * wrong parity, or for an arrival that never comes, spins for ever: the
 * test then hangs until its time limit. Built with LAB5_DEBUG_SPIN defined
 * to a number of nanoseconds (README §5.5), a wait that lasts longer says
 * which barrier and parity it was waiting for and traps. */
static __device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
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
            printf("lab5 debug: block %d thread %d waited %llu ns on the mbarrier at shared "
                   "address %u for parity %u: a parity or arrival-count bug (README 5.5)\n",
                   (int)blockIdx.x, (int)threadIdx.x, (unsigned long long)(now - start), bar,
                   parity);
            __trap();
        }
#endif
    } while (!done);
}

/* -- TMA: one box of a 2-D tensor map into shared memory, completing on an mbarrier.
 * c0 is the innermost coordinate (k, in elements = bytes), c1 the row. */
static __device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, int c0,
                                                   int c1, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}

/* -- warpgroup register budgets (setmaxnreg: a warpgroup-wide instruction) -- */

template <int REGS>
static __device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

template <int REGS>
static __device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

/* -- wgmma -- */

/* The shared-memory matrix descriptor of a K-major, 128-byte-swizzled tile
 * starting at `addr` (see the comment above the constants). */
static __device__ __forceinline__ uint64_t wgmma_desc(uint32_t addr)
{
    return lab5_wgmma_desc_sw128(addr); /* lab5.h: the bit fields, tested on the CPU */
}

/* Orders the wgmmas after this thread's earlier accesses to their registers. */
static __device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/* Closes the group of wgmmas issued since the last commit. */
static __device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Waits until at most N committed groups are pending. */
template <int N>
static __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Tells the compiler the accumulators may change here (they do, behind its
 * back, while wgmmas are in flight): no read or copy of them moves across
 * this point. It emits no instruction. */
static __device__ __forceinline__ void acc_fence(float (&d)[WG_ACC])
{
#pragma unroll
    for (int i = 0; i < WG_ACC; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* d += A (64x32, K-major) * B (256x32, K-major)^T, both from shared memory.
 * FP8 shapes take no transpose immediates: the operands are K-major. The
 * scale-d predicate is 1 (accumulate: d starts at zero); imm-scale-a/b are
 * 1 (no negation). */
#define LAB5_ACC4(i) "+f"(d[(i)]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3])
#define LAB5_ACC16(i) LAB5_ACC4(i), LAB5_ACC4((i) + 4), LAB5_ACC4((i) + 8), LAB5_ACC4((i) + 12)
#define LAB5_ACC64(i) LAB5_ACC16(i), LAB5_ACC16((i) + 16), LAB5_ACC16((i) + 32), LAB5_ACC16((i) + 48)
static __device__ __forceinline__ void wgmma_m64n256k32_e4m3(float (&d)[WG_ACC], uint64_t desc_a,
                                                             uint64_t desc_b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "
        "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "
        "%125, %126, %127}, %128, %129, p, 1, 1;\n"
        "}\n"
        : LAB5_ACC64(0), LAB5_ACC64(64)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
/* d += A (64x32) * B (128x32)^T: the m64n128k32 form, 64 accumulators. */
static __device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[64], uint64_t desc_a,
                                                             uint64_t desc_b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1;\n"
        "}\n"
        : LAB5_ACC64(0)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

static __device__ __forceinline__ void acc_fence64(float (&d)[64])
{
#pragma unroll
    for (int i = 0; i < 64; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}
#undef LAB5_ACC64
#undef LAB5_ACC16
#undef LAB5_ACC4

/* The first row and column of D of tile number `tile`, numbered in groups
 * of WG_GROUP_M rows of tiles, column after column within a group (the last
 * group may have fewer rows). */
static __device__ __forceinline__ void wg_tile_origin(int tile, int tiles_m, int tiles_n, int *m0,
                                                      int *n0)
{
    const int per_group = WG_GROUP_M * tiles_n;
    const int group = tile / per_group, in_group = tile % per_group;
    const int first_m = group * WG_GROUP_M;
    const int group_m = min(tiles_m - first_m, WG_GROUP_M);
    *m0 = (first_m + in_group % group_m) * WG_BM;
    *n0 = (in_group / group_m) * WG_BN;
}
#endif /* LAB5_SM90A */

/*
 * 4a. wgmma_tile (README §5.5): the first step onto the native path, with
 * the pieces of the full kernel below but none of its scheduling. One block
 * of one warpgroup (128 threads) computes one 128 x 128 tile of D
 * (blockIdx.x over N, blockIdx.y over M). A ring of 2 stages, each a
 * 128 x 128-byte tile of A and one of B (32 KB), is filled by TMA; thread 0
 * issues the copies and every thread waits on the stage's one mbarrier:
 * slice kt uses stage kt % 2 and waits for parity (kt / 2) & 1
 * (lab5_ring_stage, lab5_ring_parity). Per slice the warpgroup issues
 * 2 x 4 wgmma.m64n128k32 (rows 0-63 and 64-127 of the tile, k = 0, 32, 64,
 * 96), commits and waits for them all; after a __syncthreads the stage is
 * free, and thread 0 refills it with slice kt + 2. The accumulators: 2 x 64
 * floats a thread, the m64nNk32 fragment of the big kernel with N = 128.
 */
static constexpr int WT_BM = 128, WT_BN = 128, WT_BK = 128, WT_STAGES = 2, WT_THREADS = 128;
static constexpr int WT_TILE_BYTES = WT_BM * WT_BK; /* one 128 x 128-byte tile, A or B */
static constexpr int WT_STAGE_BYTES = 2 * WT_TILE_BYTES;
static constexpr int WT_SMEM_BYTES = WT_STAGES * WT_STAGE_BYTES + 1024; /* + room to align */

static __global__ void __launch_bounds__(WT_THREADS, 1)
gemm_wgmma_tile_kernel(const __grid_constant__ CUtensorMap tmap_a,
                       const __grid_constant__ CUtensorMap tmap_b, const float *a_scale_inv,
                       const float *b_scale_inv, float *D, int N, int K)
{
#if LAB5_SM90A
    __shared__ __align__(8) uint64_t full_bar[WT_STAGES];
    extern __shared__ uint8_t wt_smem[];
    const uint32_t ring = (wg_smem_u32(wt_smem) + 1023u) & ~1023u; /* 1024-byte aligned */
    const int m0 = blockIdx.y * WT_BM, n0 = blockIdx.x * WT_BN;
    const int k_tiles = K / WT_BK;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;

    if (tid == 0) {
        for (int s = 0; s < WT_STAGES; s++)
            mbar_init(wg_smem_u32(&full_bar[s]), 1);
        mbar_fence_init();
        for (int kt = 0; kt < WT_STAGES && kt < k_tiles; kt++) {
            const uint32_t stage = ring + kt * WT_STAGE_BYTES, full = wg_smem_u32(&full_bar[kt]);
            mbar_arrive_expect_tx(full, WT_STAGE_BYTES);
            tma_load_2d(stage, &tmap_a, kt * WT_BK, m0, full);
            tma_load_2d(stage + WT_TILE_BYTES, &tmap_b, kt * WT_BK, n0, full);
        }
    }
    __syncthreads(); /* the barriers are initialized before anyone waits on them */

    float acc[2][64];
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int i = 0; i < 64; i++)
            acc[h][i] = 0.0f;

    for (int kt = 0; kt < k_tiles; kt++) {
        const uint32_t s = lab5_ring_stage(kt, WT_STAGES);
        const uint32_t a_tile = ring + s * WT_STAGE_BYTES, b_tile = a_tile + WT_TILE_BYTES;
        mbar_wait(wg_smem_u32(&full_bar[s]), lab5_ring_parity(kt, WT_STAGES));
        acc_fence64(acc[0]);
        acc_fence64(acc[1]);
        wgmma_fence();
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int k = 0; k < WT_BK / 32; k++)
                wgmma_m64n128k32_e4m3(acc[h], wgmma_desc(a_tile + h * 64 * WT_BK + 32 * k),
                                      wgmma_desc(b_tile + 32 * k));
        wgmma_commit();
        wgmma_wait<0>();
        acc_fence64(acc[0]);
        acc_fence64(acc[1]);
        __syncthreads(); /* every warp's wgmmas have read stage s: it may be refilled */
        if (tid == 0 && kt + WT_STAGES < k_tiles) {
            const uint32_t full = wg_smem_u32(&full_bar[s]);
            mbar_arrive_expect_tx(full, WT_STAGE_BYTES);
            tma_load_2d(a_tile, &tmap_a, (kt + WT_STAGES) * WT_BK, m0, full);
            tma_load_2d(b_tile, &tmap_b, (kt + WT_STAGES) * WT_BK, n0, full);
        }
    }

    /* Rows 64h + 16 warp + lane / 4 (+ 8), columns 8i + 2 (lane % 4) (+ 1). */
    const float ab_scale_inv = a_scale_inv[0] * b_scale_inv[0];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int row = m0 + 64 * h + 16 * warp + lane / 4;
        float *d0 = D + (size_t)row * N + n0 + 2 * (lane % 4);
        float *d8 = d0 + 8 * (size_t)N;
#pragma unroll
        for (int i = 0; i < 16; i++) {
            *reinterpret_cast<float2 *>(d0 + 8 * i) =
                make_float2(acc[h][4 * i] * ab_scale_inv, acc[h][4 * i + 1] * ab_scale_inv);
            *reinterpret_cast<float2 *>(d8 + 8 * i) =
                make_float2(acc[h][4 * i + 2] * ab_scale_inv, acc[h][4 * i + 3] * ab_scale_inv);
        }
    }
#else
    (void)tmap_a, (void)tmap_b, (void)a_scale_inv, (void)b_scale_inv, (void)D, (void)N, (void)K;
#endif
}

static __global__ void __launch_bounds__(WG_THREADS, 1)
gemm_wgmma_kernel(const __grid_constant__ CUtensorMap tmap_a,
                  const __grid_constant__ CUtensorMap tmap_b, const float *a_scale_inv,
                  const float *b_scale_inv, float *D, int M, int N, int K)
{
#if LAB5_SM90A
    __shared__ __align__(8) uint64_t full_bar[WG_STAGES];  /* TMA -> consumers: stage filled */
    __shared__ __align__(8) uint64_t empty_bar[WG_STAGES]; /* consumers -> TMA: stage free */
    extern __shared__ uint8_t wg_smem[];
    const uint32_t ring = (wg_smem_u32(wg_smem) + 1023u) & ~1023u; /* 1024-byte aligned */

    const int tiles_m = M / WG_BM, tiles_n = (N + WG_BN - 1) / WG_BN;
    const int tiles = tiles_m * tiles_n;
    const int k_tiles = K / WG_BK;
    const int warpgroup = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < WG_STAGES; s++) {
            mbar_init(wg_smem_u32(&full_bar[s]), 1);
            mbar_init(wg_smem_u32(&empty_bar[s]), WG_CONSUMERS * 4);
        }
        mbar_fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        /* The producer. Its 128 threads give registers back to the consumers;
         * one of them issues every copy. */
        setmaxnreg_dec<WG_PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            int it = 0; /* K slices so far, over all of this block's tiles */
            for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
                int m0, n0;
                wg_tile_origin(tile, tiles_m, tiles_n, &m0, &n0);
                for (int kt = 0; kt < k_tiles; kt++, it++) {
                    const int s = it % WG_STAGES;
                    const uint32_t stage = ring + s * WG_STAGE_BYTES;
                    const uint32_t full = wg_smem_u32(&full_bar[s]);
                    if (it >= WG_STAGES) /* round it / 4 >= 1: wait for round - 1's release */
                        mbar_wait(wg_smem_u32(&empty_bar[s]), (it / WG_STAGES - 1) & 1);
                    mbar_arrive_expect_tx(full, WG_STAGE_BYTES);
                    tma_load_2d(stage, &tmap_a, kt * WG_BK, m0, full);
                    tma_load_2d(stage + WG_A_BYTES, &tmap_b, kt * WG_BK, n0, full);
                }
            }
        }
    } else {
        /* A consumer: rows 64c..64c+63 of each of the block's tiles. */
        setmaxnreg_inc<WG_CONSUMER_REGS>();
        const int c = warpgroup - 1;
        const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
        const float ab_scale_inv = a_scale_inv[0] * b_scale_inv[0];
        float acc[WG_ACC];

        int it = 0; /* the same count as the producer's */
        for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            int m0, n0;
            wg_tile_origin(tile, tiles_m, tiles_n, &m0, &n0);
#pragma unroll
            for (int i = 0; i < WG_ACC; i++)
                acc[i] = 0.0f;

            for (int kt = 0; kt < k_tiles; kt++, it++) {
                const int s = it % WG_STAGES;
                const uint32_t a_tile = ring + s * WG_STAGE_BYTES + c * 64 * WG_BK;
                const uint32_t b_tile = ring + s * WG_STAGE_BYTES + WG_A_BYTES;
                mbar_wait(wg_smem_u32(&full_bar[s]), (it / WG_STAGES) & 1);
                acc_fence(acc);
                wgmma_fence();
#pragma unroll
                for (int k = 0; k < WG_BK / WG_K_STEP; k++)
                    wgmma_m64n256k32_e4m3(acc, wgmma_desc(a_tile + k * WG_K_STEP),
                                          wgmma_desc(b_tile + k * WG_K_STEP));
                wgmma_commit();
                acc_fence(acc);
                wgmma_wait<1>(); /* slice it - 1's group is done: release its stage */
                if (kt > 0 && lane == 0)
                    mbar_arrive(wg_smem_u32(&empty_bar[(it - 1) % WG_STAGES]));
            }
            wgmma_wait<0>(); /* the tile's last group too: release its stage */
            acc_fence(acc);
            if (lane == 0)
                mbar_arrive(wg_smem_u32(&empty_bar[(it - 1) % WG_STAGES]));

            const int row = m0 + 64 * c + 16 * warp + lane / 4;
            float *d0 = D + (size_t)row * N + n0 + 2 * (lane % 4);
            float *d8 = d0 + 8 * (size_t)N;
#pragma unroll
            for (int i = 0; i < WG_ACC / 4; i++) {
                if (n0 + 8 * i < N) { /* the last column tile may be 128 wide */
                    *reinterpret_cast<float2 *>(d0 + 8 * i) =
                        make_float2(acc[4 * i] * ab_scale_inv, acc[4 * i + 1] * ab_scale_inv);
                    *reinterpret_cast<float2 *>(d8 + 8 * i) =
                        make_float2(acc[4 * i + 2] * ab_scale_inv, acc[4 * i + 3] * ab_scale_inv);
                }
            }
        }
    }
#else
    /* Not sm_90a: no kernel. The host side launches it only on compute
     * capability 9.0, where the sm_90a code is the one that runs, provided
     * the build has an sm_90a target: built for plain sm_90 instead, this
     * empty body is what would run, and D would be left unwritten. */
    (void)tmap_a, (void)tmap_b, (void)a_scale_inv, (void)b_scale_inv, (void)D;
    (void)M, (void)N, (void)K;
#endif
}

/* The current device's SM count in *sms when its compute capability is 9.0
 * (the only one that runs sm_90a code), cudaErrorNotSupported when not;
 * asked once per device and kept. */
static cudaError_t wgmma_device(int *sms)
{
    static int known[MAX_DEVICES]; /* 0: not asked, -1: not 9.0, else the SM count */
    int dev, cc = 0, count = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess)
        return err;
    if (dev >= MAX_DEVICES || known[dev] == 0) {
        err = device_cc(dev, &cc, &count);
        if (err != cudaSuccess)
            return err;
        const int answer = (cc == 90 && count > 0) ? count : -1;
        if (dev >= MAX_DEVICES) {
            *sms = answer;
            return answer > 0 ? cudaSuccess : cudaErrorNotSupported;
        }
        known[dev] = answer;
    }
    *sms = known[dev];
    return known[dev] > 0 ? cudaSuccess : cudaErrorNotSupported;
}

/* cuTensorMapEncodeTiled is a driver function; fetching it through the
 * runtime keeps the program free of -lcuda. NULL if the driver lacks it. */
static PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder(void)
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

/* The TMA map of a rows x K byte matrix, row-major (K-major), read in boxes
 * of box_rows x 128 bytes with the 128-byte swizzle. Dimension 0 is the
 * innermost (k); the one stride given is that of dimension 1, in bytes. Rows
 * beyond `rows` read as zeros. */
static cudaError_t kmajor_tensor_map(CUtensorMap *map, PFN_cuTensorMapEncodeTiled_v12000 encode,
                                     const uint8_t *X, int rows, int K, int box_rows)
{
    lab5_tma_2d t; /* lab5.h: the arguments, checked on the CPU */
    if (lab5_kmajor_tma(rows, K, box_rows, &t) != 0)
        return cudaErrorInvalidValue;
    const cuuint64_t dims[2] = {t.dims[0], t.dims[1]};
    const cuuint64_t strides[1] = {t.stride[0]};
    const cuuint32_t box[2] = {t.box[0], t.box[1]};
    const cuuint32_t element_strides[2] = {t.elem_strides[0], t.elem_strides[1]};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<uint8_t *>(X), dims,
                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t lab5_gemm_wgmma_tile(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                                 const float *b_scale_inv, float *D, int M, int N, int K,
                                 cudaStream_t stream)
{
    if (negative(M, N, K) || M % WG_ALIGN != 0 || N % WG_ALIGN != 0 || K % WG_ALIGN != 0)
        return cudaErrorInvalidValue;
    if (empty(M, N, K))
        return cudaSuccess;
    int sms = 0;
    cudaError_t err = wgmma_device(&sms);
    if (err != cudaSuccess)
        return err;
    PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
    if (encode == NULL)
        return cudaErrorNotSupported;
    CUtensorMap tmap_a, tmap_b;
    err = kmajor_tensor_map(&tmap_a, encode, A, M, K, WT_BM);
    if (err == cudaSuccess)
        err = kmajor_tensor_map(&tmap_b, encode, B, N, K, WT_BN);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(gemm_wgmma_tile_kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, WT_SMEM_BYTES);
    if (err != cudaSuccess)
        return err;
    const dim3 grid(N / WT_BN, M / WT_BM);
    gemm_wgmma_tile_kernel<<<grid, WT_THREADS, WT_SMEM_BYTES, stream>>>(
        tmap_a, tmap_b, a_scale_inv, b_scale_inv, D, N, K);
    return cudaGetLastError();
}

cudaError_t lab5_gemm_wgmma(const uint8_t *A, const uint8_t *B, const float *a_scale_inv,
                            const float *b_scale_inv, float *D, int M, int N, int K,
                            cudaStream_t stream)
{
    if (negative(M, N, K) || M % WG_ALIGN != 0 || N % WG_ALIGN != 0 || K % WG_ALIGN != 0)
        return cudaErrorInvalidValue;
    if (empty(M, N, K))
        return cudaSuccess;
    int sms = 0;
    cudaError_t err = wgmma_device(&sms);
    if (err != cudaSuccess)
        return err;
    PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
    if (encode == NULL)
        return cudaErrorNotSupported;

    /* The maps are made per call: encoding is a host-only computation of a
     * 128-byte struct, and the kernel takes them by value. */
    CUtensorMap tmap_a, tmap_b;
    err = kmajor_tensor_map(&tmap_a, encode, A, M, K, WG_BM);
    if (err == cudaSuccess)
        err = kmajor_tensor_map(&tmap_b, encode, B, N, K, WG_BN);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(gemm_wgmma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   WG_SMEM_BYTES);
    if (err != cudaSuccess)
        return err;

    /* Persistent: one block per SM, or one per tile when there are fewer. */
    const long long tiles = (long long)(M / WG_BM) * ((N + WG_BN - 1) / WG_BN);
    if (tiles > INT32_MAX)
        return cudaErrorInvalidValue;
    const unsigned blocks = (unsigned)(tiles < sms ? tiles : sms);
    gemm_wgmma_kernel<<<blocks, WG_THREADS, WG_SMEM_BYTES, stream>>>(tmap_a, tmap_b, a_scale_inv,
                                                                     b_scale_inv, D, M, N, K);
    return cudaGetLastError();
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

/* Given (README §6): the BF16 baseline. */
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
 * Exercise 5 (README §6): FP8 in, FP8 out, as Transformer Engine runs it.
 * The BF16 call above with these differences:
 *   - A and B are CUDA_R_8F_E4M3; so is D.
 *   - The scales are device pointers in the operation descriptor: cuBLASLt
 *     multiplies the FP32 sum by A_SCALE * B_SCALE (alpha stays 1), takes
 *     *d_amax = max |that|, then multiplies by D_SCALE and encodes E4M3
 *     with saturation. cuBLASLt's A is our B, so A_SCALE_POINTER =
 *     b_scale_inv and B_SCALE_POINTER = a_scale_inv.
 *   - C must still be described even with beta = 0, and for an FP8 D its
 *     type must be CUDA_R_16BF or CUDA_R_16F (not FP8): BF16 here. C's type
 *     differs from D's, so C cannot be D (in place needs equal layouts): the
 *     pointer is NULL, which beta = 0 allows (Transformer Engine does the
 *     same).
 *   - FAST_ACCUM = 0: cuBLASLt promotes the tensor cores' partial sums to
 *     FP32 registers every few K steps (README §5.1).
 *   - cuBLASLt refuses a scale or amax pointer that is not 16-byte aligned,
 *     and only in cublasLtMatmul, after the heuristic accepted the call
 *     (CUBLAS_STATUS_NOT_SUPPORTED; README §6): lab5.h promises 256 bytes
 *     for every pointer, and a caller who broke that promise is told so
 *     first, with CUBLAS_STATUS_INVALID_VALUE, nothing queued.
 */
static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

cublasStatus_t lab5_gemm_cublaslt_fp8(cublasLtHandle_t handle, const uint8_t *A,
                                      const uint8_t *B, const float *a_scale_inv,
                                      const float *b_scale_inv, const float *d_scale,
                                      uint8_t *D, float *d_amax, int M, int N, int K,
                                      void *workspace, size_t workspace_bytes,
                                      cudaStream_t stream)
{
    if (M < 0 || N < 0 || K < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (M == 0 || N == 0 || K == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!aligned16(A) || !aligned16(B) || !aligned16(D) || !aligned16(a_scale_inv) ||
        !aligned16(b_scale_inv) || !aligned16(d_scale) || !aligned16(d_amax))
        return CUBLAS_STATUS_INVALID_VALUE;

    const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
    const uint64_t max_workspace = workspace != NULL ? workspace_bytes : 0;
    const float alpha = 1.0f, beta = 0.0f;
    const int8_t fast_accum = 0;
    const void *lt_a_scale = b_scale_inv; /* cuBLASLt's A is our B */
    const void *lt_b_scale = a_scale_inv;
    const void *lt_d_scale = d_scale;
    void *lt_d_amax = d_amax;
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t a_layout = NULL, b_layout = NULL, c_layout = NULL, d_layout = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t heuristic = {};
    int found = 0;

    cublasStatus_t st = cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                            sizeof(trans_a));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                            sizeof(trans_b));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &lt_a_scale,
                                            sizeof(lt_a_scale));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &lt_b_scale,
                                            sizeof(lt_b_scale));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &lt_d_scale,
                                            sizeof(lt_d_scale));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &lt_d_amax,
                                            sizeof(lt_d_amax));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                            sizeof(fast_accum));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&a_layout, CUDA_R_8F_E4M3, K, N, K);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&b_layout, CUDA_R_8F_E4M3, K, M, K);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&c_layout, CUDA_R_16BF, N, M, N);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&d_layout, CUDA_R_8F_E4M3, N, M, N);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulPreferenceCreate(&pref);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &max_workspace, sizeof(max_workspace));
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(handle, op, a_layout, b_layout, c_layout, d_layout,
                                            pref, 1, &heuristic, &found);
    if (st == CUBLAS_STATUS_SUCCESS && found == 0)
        st = CUBLAS_STATUS_NOT_SUPPORTED;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmul(handle, op, &alpha, B, a_layout, A, b_layout, &beta, NULL, c_layout, D,
                            d_layout, &heuristic.algo, workspace, max_workspace, stream);

    /* Destroy everything that was made, keeping the first failure. */
    if (pref != NULL)
        st = first_failure(st, cublasLtMatmulPreferenceDestroy(pref));
    if (d_layout != NULL)
        st = first_failure(st, cublasLtMatrixLayoutDestroy(d_layout));
    if (c_layout != NULL)
        st = first_failure(st, cublasLtMatrixLayoutDestroy(c_layout));
    if (b_layout != NULL)
        st = first_failure(st, cublasLtMatrixLayoutDestroy(b_layout));
    if (a_layout != NULL)
        st = first_failure(st, cublasLtMatrixLayoutDestroy(a_layout));
    if (op != NULL)
        st = first_failure(st, cublasLtMatmulDescDestroy(op));
    return st;
}
