/*
 * kernels.cu - lab5, the memory-bound kernels: the reference solution.
 *
 * Each function follows lab5.h and the handout (labs/lab5/README.md §2-§4),
 * bit for bit with the course library on the CPU: the same codes as
 * fp8_encode(x * scale, fmt, true), the same amax as stats_amax, the same
 * scales and codes as mx_quantize.
 *
 * Build, warnings as errors, for both of the course's targets (Ada sm_89,
 * Hopper sm_90a); -Xptxas -v adds each kernel's registers and spills:
 *   nvcc -std=c++17 -O3 -gencode arch=compute_89,code=sm_89 \
 *        -gencode arch=compute_90a,code=sm_90a -Werror all-warnings \
 *        -Xcompiler -Wall,-Wextra,-Werror -Icommon -Ilabs/lab5 \
 *        -c solutions/lab5/kernels.cu
 *
 * In this file:
 *   1. the launch shape: threads, blocks per SM, the grid from the SM count;
 *   2. device helpers: |x| maxima, warp and block reductions, FP8 encoding;
 *   3. lab5_amax (README §2): a grid-stride max, one atomic per block;
 *   4. lab5_scale_cast (README §3): the same pass, also writing the codes;
 *   5. lab5_mx_quantize (README §4): 8 lanes per 32-element block when
 *      cols % 32 == 0, otherwise a warp per block.
 *
 * Every kernel is memory-bound: a few operations per 16 bytes read. What
 * makes them fast is the memory access, not the arithmetic: 16-byte loads,
 * coalesced across the warp, several in flight in each thread, and a grid
 * that fills the GPU once and loops over the rest.
 *
 * Only the lab5_* functions are global symbols; everything else is static.
 */
#include "lab5.h"

#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

/* ---- 1. the launch shape ---------------------------------------------------------- */

/* 256 threads a block and 4 blocks an SM: 1024 threads an SM, each with
 * UNROLL 16-byte loads in flight, 64 KB an SM. An H100 SM's share of the
 * bandwidth is ~25 bytes/ns, the latency under load ~1 us: by Little's law
 * ~25 KB must be in flight, so 64 KB is enough with room to spare.
 * __launch_bounds__(THREADS, BLOCKS_PER_SM) makes the compiler fit 4 blocks
 * an SM (at most 64 registers a thread), so the grid of SMs * BLOCKS_PER_SM
 * blocks is resident all at once: one wave, no block waits for another. */
static constexpr int THREADS = 256;
static constexpr int BLOCKS_PER_SM = 4;
static constexpr int UNROLL = 4;
static constexpr int WARP = 32;
static constexpr int MAX_DEVICES = 64;

/* The current device's SM count, asked once per device and kept. */
static cudaError_t sm_count(int *count)
{
    static int known[MAX_DEVICES]; /* 0: not asked yet */
    int dev;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess)
        return err;
    if (dev < MAX_DEVICES && known[dev] > 0) {
        *count = known[dev];
        return cudaSuccess;
    }
    err = cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, dev);
    if (err == cudaSuccess && dev < MAX_DEVICES)
        known[dev] = *count;
    return err;
}

/* Blocks for `items` pieces of work, one a thread: enough to fill the GPU
 * once and no more (the kernels loop over the rest), fewer when there is
 * less work, at least one. */
static cudaError_t grid_for(size_t items, unsigned *grid)
{
    int sms;
    cudaError_t err = sm_count(&sms);
    if (err != cudaSuccess)
        return err;
    size_t full = (size_t)sms * BLOCKS_PER_SM;
    size_t need = (items + THREADS - 1) / THREADS;
    *grid = (unsigned)(need < 1 ? 1 : need > full ? full : need);
    return cudaSuccess;
}

/* ---- 2. device helpers ------------------------------------------------------------- */

/* max(acc, |v.x|, |v.y|, |v.z|, |v.w|), NaNs skipped: fmaxf returns the other
 * operand when one is NaN, and acc starts at +0 so it is never NaN. */
static __device__ float absmax4(float acc, float4 v)
{
    acc = fmaxf(acc, fabsf(v.x));
    acc = fmaxf(acc, fabsf(v.y));
    acc = fmaxf(acc, fabsf(v.z));
    return fmaxf(acc, fabsf(v.w));
}

/* The max of v over the 32 lanes of the warp, in every lane: a butterfly,
 * after the exchanges at distances 16, 8, 4, 2, 1 each lane has seen all 32. */
static __device__ float warp_max(float v)
{
    for (int d = WARP / 2; d > 0; d /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, d));
    return v;
}

/* *amax = max(*amax, the max of acc over the block): each warp reduces its
 * 32 values, warp 0 reduces the 8 warps' maxima, and one thread does one
 * atomic for the whole block. Every thread of the block must call it.
 *
 * Why atomicMax on unsigned ints is a float max here: every value is a |x|,
 * so >= +0 and never NaN, and for non-negative floats the IEEE 754 bit
 * patterns read as unsigned integers are in the same order as the values
 * (the exponent field sits above the mantissa, and +inf, 0x7F800000, is
 * above every finite value). It would fail for a negative float (the sign
 * bit makes it the largest integer) or a NaN (above +inf). */
static __device__ void block_max_to(float acc, float *amax)
{
    __shared__ float warp_maxima[THREADS / WARP];
    const unsigned lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    acc = warp_max(acc);
    if (lane == 0)
        warp_maxima[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = warp_max(lane < THREADS / WARP ? warp_maxima[lane] : 0.0f);
        if (lane == 0)
            atomicMax(reinterpret_cast<unsigned int *>(amax), __float_as_uint(acc));
    }
}

/* The codes of x * scale for 4 floats, in one word with v.x's code in the
 * low byte: the order of the 4 bytes in memory (little-endian). Each
 * __nv_cvt_float2_to_fp8x2 is one instruction (cvt.rn.satfinite.e4m3x2.f32,
 * F2FP in the SASS) that rounds two floats to nearest even, saturates to
 * +-fp8_max and sends NaN to 0x7F: fp8_encode(v, fmt, true). __fmul_rn is
 * one IEEE multiply that the compiler may not fuse into an FMA. */
template <__nv_fp8_interpretation_t FMT>
static __device__ uint32_t encode4(float4 v, float scale)
{
    float2 lo = make_float2(__fmul_rn(v.x, scale), __fmul_rn(v.y, scale));
    float2 hi = make_float2(__fmul_rn(v.z, scale), __fmul_rn(v.w, scale));
    uint32_t b01 = __nv_cvt_float2_to_fp8x2(lo, __NV_SATFINITE, FMT);
    uint32_t b23 = __nv_cvt_float2_to_fp8x2(hi, __NV_SATFINITE, FMT);
    return b01 | b23 << 16;
}

/* The code of x * scale, one float. */
template <__nv_fp8_interpretation_t FMT>
static __device__ uint8_t encode1(float x, float scale)
{
    return __nv_cvt_float_to_fp8(__fmul_rn(x, scale), __NV_SATFINITE, FMT);
}

/* Calls f(v, i) for every v = x4[i], i < n4: a grid-stride loop in which
 * each thread issues UNROLL independent loads before it uses the first, so
 * it waits one memory latency per UNROLL loads instead of one per load.
 * Consecutive threads read consecutive float4s: a warp reads 512
 * contiguous bytes per load instruction (LDG.E.128). */
template <class F>
static __device__ void for_each_float4(const float4 *__restrict__ x4, size_t n4, F f)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = x4[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            f(v[u], i + u * stride);
    }
    for (; i < n4; i += stride) /* the last round, fewer than UNROLL each */
        f(x4[i], i);
}

/* ---- 3. amax (README §2) ----------------------------------------------------------- */

static __global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    amax_kernel(const float *__restrict__ x, size_t n, float *amax)
{
    const size_t n4 = n / 4; /* cudaMalloc's alignment: x is float4-aligned */
    float acc = 0.0f;
    for_each_float4(reinterpret_cast<const float4 *>(x), n4,
                    [&](float4 v, size_t) { acc = absmax4(acc, v); });
    if (blockIdx.x == 0 && threadIdx.x < n % 4) /* the last n % 4 elements */
        acc = fmaxf(acc, fabsf(x[4 * n4 + threadIdx.x]));
    block_max_to(acc, amax);
}

/* Two operations on the stream: *amax = +0 (bits 0), then the kernel's
 * atomic maxima onto it. The result is one of the |x[i]|, exactly: a max
 * never rounds, and it does not depend on the order the blocks finish in. */
cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(amax, 0, sizeof *amax, stream);
    if (err != cudaSuccess || n == 0)
        return err;
    unsigned grid;
    err = grid_for(n / 4, &grid);
    if (err != cudaSuccess)
        return err;
    amax_kernel<<<grid, THREADS, 0, stream>>>(x, n, amax);
    return cudaGetLastError();
}

/* ---- 4. the fused scale-and-cast (README §3) --------------------------------------- */

/* One read of x gives both outputs: q (a word of 4 codes per float4) and
 * amax of x itself, not of x * scale (delayed scaling's history: lab1).
 * Bytes moved: 4n read, n written. */
template <__nv_fp8_interpretation_t FMT>
static __global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    scale_cast_kernel(const float *__restrict__ x, size_t n, const float *__restrict__ scale_ptr,
                      uint8_t *__restrict__ q, float *amax)
{
    const float scale = *scale_ptr;
    const size_t n4 = n / 4;
    uint32_t *q4 = reinterpret_cast<uint32_t *>(q); /* q[4i .. 4i+3] as one word */
    float acc = 0.0f;
    for_each_float4(reinterpret_cast<const float4 *>(x), n4, [&](float4 v, size_t i) {
        acc = absmax4(acc, v);
        q4[i] = encode4<FMT>(v, scale);
    });
    if (blockIdx.x == 0 && threadIdx.x < n % 4) { /* the last n % 4 elements */
        size_t i = 4 * n4 + threadIdx.x;
        acc = fmaxf(acc, fabsf(x[i]));
        q[i] = encode1<FMT>(x[i], scale);
    }
    block_max_to(acc, amax);
}

cudaError_t lab5_scale_cast(const float *x, size_t n, const float *scale, fp8_format fmt,
                            uint8_t *q, float *amax, cudaStream_t stream)
{
    if (fmt != FP8_E4M3 && fmt != FP8_E5M2)
        return cudaErrorInvalidValue;
    cudaError_t err = cudaMemsetAsync(amax, 0, sizeof *amax, stream);
    if (err != cudaSuccess || n == 0)
        return err;
    unsigned grid;
    err = grid_for(n / 4, &grid);
    if (err != cudaSuccess)
        return err;
    if (fmt == FP8_E4M3)
        scale_cast_kernel<__NV_E4M3><<<grid, THREADS, 0, stream>>>(x, n, scale, q, amax);
    else
        scale_cast_kernel<__NV_E5M2><<<grid, THREADS, 0, stream>>>(x, n, scale, q, amax);
    return cudaGetLastError();
}

/* ---- 5. MXFP8 block quantization (README §4) ---------------------------------------- */

/* The bits of |x|, sign cleared. As unsigned integers these are in the order
 * of the values, and every NaN (0x7F800001 and up) is above +inf
 * (0x7F800000): an integer max over them is the block amax with a NaN
 * winning, as mx_block_amax wants (unlike amax above, which skips NaNs). */
static __device__ uint32_t abs_bits(float x)
{
    return __float_as_uint(x) & 0x7FFFFFFFu;
}

/* The E8M0 scale bits s of a block, from a = abs_bits(its amax), as
 * mx_shared_scale (common/mx.c) computes them, with integer operations only
 * (a log2f would round). Writing amax = sig * 2^(exp - 23) with sig in
 * [2^23, 2^24), floor(log2 amax) = exp exactly, and
 *   e = exp - emax                  (MX_SCALE_FLOOR, OCP MX v1.0)
 *   e = e + 1 if sig > fp8_max's    (MX_SCALE_CEIL: amax / 2^e > fp8_max)
 *   s = e + 127, 0x00 when e < -127; 0xFF for NaN or inf; 0x00 for amax 0.
 * fp8_max = 1.75 * 2^emax in both formats (448 = 1.75 * 2^8, 57344 =
 * 1.75 * 2^15): its significand is 0xE00000 (binary 1.11), and only emax
 * differs. */
template <__nv_fp8_interpretation_t FMT>
static __device__ uint32_t mx_scale_bits(uint32_t a, bool ceil_rule)
{
    constexpr int emax = FMT == __NV_E4M3 ? 8 : 15;
    constexpr uint32_t fp8_max_sig = 0xE00000u;
    if (a >= 0x7F800000u) /* inf or NaN */
        return 0xFF;
    if (a == 0)
        return 0x00;
    int exp;
    uint32_t sig;
    if (a >= 0x00800000u) { /* normal: the implicit one at bit 23 */
        exp = (int)(a >> 23) - 127;
        sig = (a & 0x7FFFFFu) | 0x800000u;
    } else { /* subnormal, 0.f * 2^-126: shift the leading one up to bit 23 */
        int shift = __clz((int)a) - 8;
        exp = -126 - shift;
        sig = a << shift;
    }
    int e = exp - emax;
    if (ceil_rule && sig > fp8_max_sig)
        e += 1;
    if (e < -127)
        return 0x00;
    return e > 127 ? 0xFE : (uint32_t)(e + 127);
}

/* 2^(127 - s) as a float, s in [0x00, 0xFE]: x * mx_pow2(s) is exactly
 * ldexpf(x, 127 - s).
 *
 * Why one multiply is ldexpf: ldexpf(x, k) is x * 2^k taken exactly, then
 * rounded once to float; an IEEE multiply is the exact product rounded
 * once. So the two agree whenever 2^k is itself a float, and for every
 * k = 127 - s in [-127, 127] it is: 2^127 is the largest power of two a
 * float holds, 2^-126 the smallest normal, and 2^-127 (s = 0xFE) is the
 * subnormal 0x00400000, still exact. The product is exact except when it
 * falls below 2^-126 (or past FLT_MAX), and there both round once, to
 * nearest even, to the same float. Two traps avoided: building 2^k from the exponent field
 * alone gives 0 for k = -127, and splitting 2^k in two multiplies (x *
 * 2^-64 * 2^-63) can round twice in the subnormal range. The multiply must
 * keep subnormals, operand and result: no -ftz=true, no --use_fast_math.
 * (For a finite amax, e <= 127 - emax + 1, so s <= 0xF7 and the factor is
 * never the subnormal one; the code is right for every s all the same.) */
static __device__ float mx_pow2(uint32_t s)
{
    return s == 0xFE ? __uint_as_float(0x00400000u) : __uint_as_float((254u - s) << 23);
}

/* 5a. cols % 32 == 0. Then every row is nb = cols / 32 whole blocks, and the
 * matrix is rows * nb blocks back to back: block g (row g / nb, block g % nb
 * of it) is float4s 8g .. 8g+7 of x, code words 8g .. 8g+7, and scale byte
 * g. Rows need no attention at all.
 *
 * A block is 8 consecutive lanes, each with one float4 (lanes 8b .. 8b+7 of
 * a warp hold elements 0-3, 4-7, ..., 28-31 of one block). The xor
 * shuffles at distances 1, 2, 4 stay inside each group of 8 lanes, so after
 * them each lane has its block's amax. Every lane of the warp must call this
 * together (the shuffles); `in` says whether its float4 exists, and only
 * those lanes write: their 4 codes as one word, and the block's first lane
 * the scale byte. */
template <__nv_fp8_interpretation_t FMT>
static __device__ void mx_quantize_float4(float4 v, size_t i, bool in, bool ceil_rule,
                                          uint32_t *codes4, uint8_t *scales)
{
    uint32_t a = max(max(abs_bits(v.x), abs_bits(v.y)), max(abs_bits(v.z), abs_bits(v.w)));
    for (int d = 1; d < 8; d *= 2)
        a = max(a, __shfl_xor_sync(0xFFFFFFFFu, a, d));
    uint32_t s = mx_scale_bits<FMT>(a, ceil_rule);
    if (!in)
        return;
    codes4[i] = s == 0xFF ? 0u : encode4<FMT>(v, mx_pow2(s));
    if (i % 8 == 0)
        scales[i / 8] = (uint8_t)s;
}

/* The grid-stride loop of for_each_float4, but run by whole warps: the loop
 * goes on while the warp's first float4 (i - lane) exists, the same test in
 * all 32 lanes, so they all reach the shuffles; lanes past the end load
 * zeros and write nothing. n4 is a multiple of 8, so a block's 8 lanes are
 * all in or all out. */
template <__nv_fp8_interpretation_t FMT>
static __global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    mx_quantize_aligned(const float4 *__restrict__ x4, size_t n4, bool ceil_rule,
                        uint32_t *__restrict__ codes4, uint8_t *__restrict__ scales)
{
    const size_t stride = (size_t)gridDim.x * THREADS;
    const unsigned lane = threadIdx.x % WARP;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i - lane < n4;
         i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = i + u * stride < n4 ? x4[i + u * stride] : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            mx_quantize_float4<FMT>(v[u], i + u * stride, i + u * stride < n4, ceil_rule,
                                    codes4, scales);
    }
}

/* 5b. Any cols: a warp per block, lane l holding element l of it; lanes past
 * the end of a short last block hold 0, which changes no amax, and write
 * nothing. Block (r, j) is j of row r, its scale at r * nb + j. Simpler
 * than 5a and slower: 4-byte loads, byte stores, and the scale worked out
 * by all 32 lanes instead of 8, so it spends more instructions per byte. */
struct mx_pos {
    size_t r, j;
};

/* Warp w takes blocks g = w, w + nwarps, w + 2 nwarps, ... in the order
 * g = r * nb + j. Finding (r, j) = (g / nb, g % nb) is a 64-bit division,
 * some hundred instructions: done once, then each step adds
 * (nwarps / nb, nwarps % nb) with a carry from j into r. */
static __device__ mx_pos mx_next(mx_pos p, mx_pos step, size_t nb)
{
    p.r += step.r;
    p.j += step.j;
    if (p.j >= nb) {
        p.j -= nb;
        p.r += 1;
    }
    return p;
}

/* Element `lane` of block p, or 0 when there is none. */
static __device__ float mx_load(const float *__restrict__ x, mx_pos p, size_t rows,
                                size_t cols, unsigned lane)
{
    size_t c = p.j * LAB5_MX_BLOCK + lane;
    return p.r < rows && c < cols ? x[p.r * cols + c] : 0.0f;
}

/* The max of a over the 32 lanes, in every lane. __reduce_max_sync is the
 * butterfly of warp_max done by the hardware (one REDUX instruction,
 * compute capability 8.0 and later); before 8.0, the butterfly itself. */
static __device__ uint32_t warp_max_bits(uint32_t a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xFFFFFFFFu, a);
#else
    for (int d = WARP / 2; d > 0; d /= 2)
        a = max(a, __shfl_xor_sync(0xFFFFFFFFu, a, d));
    return a;
#endif
}

/* Block p, one element a lane; the whole warp calls it. The block amax is
 * an integer max of abs_bits, as above. */
template <__nv_fp8_interpretation_t FMT>
static __device__ void mx_quantize_lane(float v, mx_pos p, size_t cols, size_t nb, unsigned lane,
                                        bool ceil_rule, uint8_t *codes, uint8_t *scales)
{
    uint32_t a = warp_max_bits(abs_bits(v));
    uint32_t s = mx_scale_bits<FMT>(a, ceil_rule);
    size_t c = p.j * LAB5_MX_BLOCK + lane;
    if (c < cols)
        codes[p.r * cols + c] = s == 0xFF ? 0 : encode1<FMT>(v, mx_pow2(s));
    if (lane == 0)
        scales[p.r * nb + p.j] = (uint8_t)s;
}

/* UNROLL blocks a warp at a time, their loads issued first, as above. All
 * lanes of a warp share p, so every test on p is the same across the warp. */
template <__nv_fp8_interpretation_t FMT>
static __global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    mx_quantize_any(const float *__restrict__ x, size_t rows, size_t cols, bool ceil_rule,
                    uint8_t *__restrict__ codes, uint8_t *__restrict__ scales)
{
    const size_t nb = (cols + LAB5_MX_BLOCK - 1) / LAB5_MX_BLOCK;
    const unsigned lane = threadIdx.x % WARP;
    const size_t warp = ((size_t)blockIdx.x * THREADS + threadIdx.x) / WARP;
    const size_t nwarps = (size_t)gridDim.x * THREADS / WARP;
    const mx_pos step = {nwarps / nb, nwarps % nb};
    mx_pos p = {warp / nb, warp % nb};
    while (p.r < rows) {
        mx_pos at[UNROLL];
        float v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            at[u] = p;
            v[u] = mx_load(x, p, rows, cols, lane);
            p = mx_next(p, step, nb);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (at[u].r < rows)
                mx_quantize_lane<FMT>(v[u], at[u], cols, nb, lane, ceil_rule, codes, scales);
    }
}

/* Bytes moved: 4 rows cols read, rows cols codes and rows nb scales written. */
template <__nv_fp8_interpretation_t FMT>
static cudaError_t mx_quantize_as(const float *x, size_t rows, size_t cols, bool ceil_rule,
                                  uint8_t *codes, uint8_t *scales, cudaStream_t stream)
{
    unsigned grid;
    cudaError_t err;
    if (cols % LAB5_MX_BLOCK == 0) {
        size_t n4 = rows * cols / 4;
        if ((err = grid_for(n4, &grid)) != cudaSuccess)
            return err;
        mx_quantize_aligned<FMT><<<grid, THREADS, 0, stream>>>(
            reinterpret_cast<const float4 *>(x), n4, ceil_rule,
            reinterpret_cast<uint32_t *>(codes), scales);
    } else {
        size_t nb = (cols + LAB5_MX_BLOCK - 1) / LAB5_MX_BLOCK;
        if ((err = grid_for(rows * nb * WARP, &grid)) != cudaSuccess)
            return err;
        mx_quantize_any<FMT><<<grid, THREADS, 0, stream>>>(x, rows, cols, ceil_rule, codes,
                                                          scales);
    }
    return cudaGetLastError();
}

cudaError_t lab5_mx_quantize(const float *x, size_t rows, size_t cols, fp8_format fmt,
                             mx_scale_rule rule, uint8_t *codes, uint8_t *scales,
                             cudaStream_t stream)
{
    if ((fmt != FP8_E4M3 && fmt != FP8_E5M2) || (rule != MX_SCALE_FLOOR && rule != MX_SCALE_CEIL))
        return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0)
        return cudaSuccess;
    bool ceil_rule = rule == MX_SCALE_CEIL;
    if (fmt == FP8_E4M3)
        return mx_quantize_as<__NV_E4M3>(x, rows, cols, ceil_rule, codes, scales, stream);
    return mx_quantize_as<__NV_E5M2>(x, rows, cols, ceil_rule, codes, scales, stream);
}
