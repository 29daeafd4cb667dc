/*
 * kernels.cu - lab5, the memory-bound kernels: YOUR CODE GOES HERE.
 *
 * Write the three functions of lab5.h §2-§4: the amax reduction, the fused
 * scale-and-cast, and MXFP8 block quantization, each a kernel (or two) and
 * the host function that launches it on `stream`.
 *
 * Build (`make lab5` does this; the grader the same, with its own copy of
 * lab5.h, and shows the warnings with -v):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_89,code=sm_89 \
 *        -gencode arch=compute_90a,code=sm_90a \
 *        -Xcompiler -Wall,-Wextra -Icommon -Ilabs/lab5 \
 *        -c labs/lab5/kernels.cu
 * Add -Werror all-warnings -Xcompiler -Werror to make every warning stop
 * the build, as the course's own tests do for this skeleton.
 * Add -Xptxas -v to see each kernel's registers and any spills.
 *
 * Rules:
 *   - Bit-exact with the course library (README §1): the codes are
 *     __nv_cvt_float_to_fp8(x * scale, __NV_SATFINITE, __NV_E4M3 or
 *     __NV_E5M2) (or the two-at-once __nv_cvt_float2_to_fp8x2), and
 *     x * scale is one plain float multiply: __fmul_rn(x, scale), which the
 *     compiler never fuses into an FMA.
 *   - The kernels are your own device code: common/'s functions (fp8_encode,
 *     mx_shared_scale, stats_amax...) are CPU code and do not run on the GPU.
 *   - Only the lab5_* functions may be global: every kernel and helper is
 *     static (a __global__ kernel too); nvcc keeps the names in an
 *     anonymous namespace global, so that is not enough.
 *   - Nothing allocates, prints or synchronizes; each function returns
 *     cudaGetLastError() after its launches.
 *   - For speed (README §7): 16-byte loads (float4), several in flight in
 *     each thread, a grid-stride loop over a grid of a few blocks per SM.
 *
 * Test as you go:
 *   ./grader lab5                      every test, and your score
 *   ./grader lab5 --test amax -v       one test, more detail
 *
 * Not for: the GEMMs (gemm.cu); do not add a main() here.
 */
#include "lab5.h"

#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

/* A launch shape to start from: 256 threads a block, a few blocks an SM. */
static constexpr int THREADS = 256;
static constexpr int BLOCKS_PER_SM = 4;

/* Blocks for `items` pieces of work, one a thread: enough to fill the GPU
 * once (the kernel's grid-stride loop does the rest), at least one. Asks
 * the device's SM count once and keeps it. */
[[maybe_unused]] static cudaError_t grid_for(size_t items, unsigned *grid)
{
    static int sms; /* 0: not asked yet */
    if (sms == 0) {
        int dev;
        cudaError_t err = cudaGetDevice(&dev);
        if (err == cudaSuccess)
            err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (err != cudaSuccess) {
            sms = 0;
            return err;
        }
    }
    size_t full = (size_t)sms * BLOCKS_PER_SM;
    size_t need = (items + THREADS - 1) / THREADS;
    *grid = (unsigned)(need < 1 ? 1 : need > full ? full : need);
    return cudaSuccess;
}

/*
 * lab5_amax - *amax = max |x[i]| over the elements that are not NaN.
 *   {1, -3, NaN} -> 3     {-inf, 2} -> inf     {} or {NaN} -> 0
 *   Handout: README §2. Graded by: amax, amax_special, amax_race, perf_amax_*.
 */
cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    (void)x;
    (void)n;
    (void)amax;
    (void)stream;
    /* TODO: README §2. *amax is set, not max-ed with what was there: clear it
     * on the stream first (n == 0 stops there). Then one kernel: each thread
     * a running max over its float4s (fmaxf skips a NaN), a warp-shuffle
     * reduction, one atomic per block. There is no atomicMax for float: the
     * handout says why one on the bits, as unsigned int, is right here. */
    return cudaSuccess;
}

/*
 * lab5_scale_cast - q[i] = FP8 code of x[i] * scale[0]; *amax = max |x[i]|.
 *   E4M3, scale 1: 1.0 -> 0x38, 500 -> 0x7E (saturated), NaN -> 0x7F
 *   Handout: README §3. Graded by: cast_*, perf_cast_*.
 */
cudaError_t lab5_scale_cast(const float *x, size_t n, const float *scale, fp8_format fmt,
                            uint8_t *q, float *amax, cudaStream_t stream)
{
    (void)x;
    (void)n;
    (void)scale;
    (void)fmt;
    (void)q;
    (void)amax;
    (void)stream;
    /* TODO: README §3. One pass over x writing both outputs: the codes of
     * x * scale (one float4 in, one uint32_t of 4 codes out, the first
     * element's code in the low byte) and the amax of x, as lab5_amax. The
     * n % 4 elements past the last whole float4 need handling too. */
    return cudaSuccess;
}

/*
 * lab5_mx_quantize - MXFP8: an E8M0 scale per 32 elements of a row, and the
 * element codes, byte for byte as mx_quantize (common/mx.h).
 *   E4M3, FLOOR, a block of amax 1.0: scale 0x77 (2^-8), 1.0 -> 0x78 (256)
 *   Handout: README §4. Graded by: mx_*, perf_mx_*.
 */
cudaError_t lab5_mx_quantize(const float *x, size_t rows, size_t cols, fp8_format fmt,
                             mx_scale_rule rule, uint8_t *codes, uint8_t *scales,
                             cudaStream_t stream)
{
    (void)x;
    (void)rows;
    (void)cols;
    (void)fmt;
    (void)rule;
    (void)codes;
    (void)scales;
    (void)stream;
    /* TODO: README §4. For each block of 32 (the last of a row may be
     * shorter): its amax (NaN if any element is), its scale bits s by
     * mx_shared_scale's rules from the bits of the amax (no log2f), then each
     * code from x * 2^(127 - s), or 0x00 when s == 0xFF. When cols % 32 == 0,
     * 8 lanes with a float4 each cover a block; otherwise start simpler. */
    return cudaSuccess;
}
