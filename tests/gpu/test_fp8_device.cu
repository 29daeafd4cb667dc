/*
 * test_fp8_device.cu - the course codec (common/fp8.h) against the GPU's own
 * FP8 conversions, for every float.
 *
 * A kernel converts each of the 2^32 float bit patterns with the device
 * functions of cuda_fp8.h, 2^28 patterns per launch; the codes come back to
 * the host, where a few threads compare them with the host library's
 * fp8_encode (E4M3, E5M2) and fp8_encode_rounded (E8M0). Modes:
 *
 *   e4m3/e5m2 satfinite  __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...): on
 *                        sm_89 and later the instruction
 *                        cvt.rn.satfinite.{e4m3,e5m2}x2.f32
 *   e4m3/e5m2 nosat      __nv_cvt_float_to_fp8(x, __NV_NOSAT, ...): PTX has
 *                        no non-saturating form, so this is the header's C
 *                        code, compiled for the device
 *   e8m0 rz/rp, satfinite and nosat
 *                        __nv_cvt_float_to_e8m0(x, sat, cudaRoundZero or
 *                        cudaRoundPosInf): cvt.{rz,rp}{.satfinite}.ue8m0x2.f32
 *                        when the device code was built for a family-specific
 *                        Blackwell target (sm_100f, sm_120f ...); for other
 *                        targets the header falls back to its C code, which
 *                        is what runs, and the report says so
 *
 * and the other direction, every one of the 256 codes decoded on the device
 * (__nv_cvt_fp8_to_halfraw, then half -> float, for E4M3 and E5M2;
 * __nv_cvt_e8m0_to_bf16raw, then bfloat16 -> float, for E8M0) against
 * fp8_decode: NaN must meet NaN, anything else must match bit for bit.
 *
 * Each mode prints its mismatch count, its first five counterexamples (input
 * bits, expected code, device code) and its time; the total time comes last.
 *
 * Exit status: 0 when everything agrees, 1 on any mismatch or CUDA error,
 * 77 ("SKIP: <reason>" as the last line) when there is no usable GPU: no
 * driver, no device, or none of compute capability 7.5 or later (below
 * 8.9 the conversions are cuda_fp8.h's C code on the device, checked the
 * same way).
 *
 * Build (the Makefile does this; libfp8lab.a holds the host codec, compiled
 * as C11):
 *   nvcc -std=c++17 -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
 *        --generate-code arch=compute_89,code=[compute_89,sm_89] \
 *        --generate-code arch=compute_90,code=sm_90 \
 *        -Icommon tests/gpu/test_fp8_device.cu build/libfp8lab.a -lpthread \
 *        -o build/tests/gpu_test_fp8_device
 * Adding --generate-code arch=compute_100f,code=sm_100f puts the hardware
 * E8M0 conversions into the binary for the sm_100 family (B200, B300).
 *
 * Run:
 *   build/tests/gpu_test_fp8_device                   host side on all cores
 *   FP8LAB_THREADS=4 build/tests/gpu_test_fp8_device  on 4 threads
 */
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <thread>
#include <vector>

#include "bits.h"
#include "cuda_check.h"
#include "fp8.h"

namespace {

/* ---- settings ------------------------------------------------------------ */

const uint64_t kPatterns = 1ULL << 32;   /* float bit patterns */
const uint32_t kChunk = 1u << 28;        /* patterns per kernel launch */
const uint32_t kWords = kChunk / 4;      /* a thread packs 4 codes into a word */
const int kBlock = 256;                  /* threads per block */
const int kExamples = 5;                 /* counterexamples kept per mode */
const int kSkip = 77;                    /* "skipped", as automake has it */

/* ---- small helpers ---------------------------------------------------------- */

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/* FP8LAB_THREADS, or one thread per core. Exits on a malformed value rather
 * than silently running something else. */
unsigned thread_count(void)
{
    const char *s = getenv("FP8LAB_THREADS");
    if (s == NULL || *s == '\0') {
        unsigned n = std::thread::hardware_concurrency();
        return n ? n : 1;
    }
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > 256) {
        printf("FP8LAB_THREADS=%s: expected an integer from 1 to 256\n", s);
        exit(EXIT_FAILURE);
    }
    return (unsigned)v;
}

/* ---- the conversions under test --------------------------------------------- */

enum Mode {
    E4M3_SAT,
    E4M3_NOSAT,
    E5M2_SAT,
    E5M2_NOSAT,
    E8M0_RZ_SAT,
    E8M0_RZ_NOSAT,
    E8M0_RP_SAT,
    E8M0_RP_NOSAT,
    MODE_COUNT
};

/* What the host library is asked for each mode, and the instruction that
 * cuda_fp8.h uses on the device where it has one (NULL: none exists). */
struct ModeSpec {
    const char *name;
    fp8_format fmt;
    bool saturate;
    fp8_rounding rnd;
    const char *instruction;
};

/* In the order of enum Mode. */
const ModeSpec kModes[MODE_COUNT] = {
    {"e4m3 satfinite", FP8_E4M3, true, FP8_ROUND_NEAREST_EVEN, "cvt.rn.satfinite.e4m3x2.f32"},
    {"e4m3 nosat", FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, NULL},
    {"e5m2 satfinite", FP8_E5M2, true, FP8_ROUND_NEAREST_EVEN, "cvt.rn.satfinite.e5m2x2.f32"},
    {"e5m2 nosat", FP8_E5M2, false, FP8_ROUND_NEAREST_EVEN, NULL},
    {"e8m0 rz satfinite", FP8_E8M0, true, FP8_ROUND_TOWARD_ZERO,
     "cvt.rz.satfinite.ue8m0x2.f32"},
    {"e8m0 rz nosat", FP8_E8M0, false, FP8_ROUND_TOWARD_ZERO, "cvt.rz.ue8m0x2.f32"},
    {"e8m0 rp satfinite", FP8_E8M0, true, FP8_ROUND_AWAY_FROM_ZERO,
     "cvt.rp.satfinite.ue8m0x2.f32"},
    {"e8m0 rp nosat", FP8_E8M0, false, FP8_ROUND_AWAY_FROM_ZERO, "cvt.rp.ue8m0x2.f32"},
};

/* The host library's answer. */
uint8_t host_encode(float x, int mode)
{
    const ModeSpec &m = kModes[mode];
    if (m.rnd == FP8_ROUND_NEAREST_EVEN)
        return fp8_encode(x, m.fmt, m.saturate);
    return fp8_encode_rounded(x, m.fmt, m.saturate, m.rnd);
}

/* The device's answer. `mode` is the same for every thread of a launch, so
 * the switch does not diverge. */
__device__ uint8_t device_encode(float x, int mode)
{
    switch (mode) {
    case E4M3_SAT: return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    case E4M3_NOSAT: return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3);
    case E5M2_SAT: return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
    case E5M2_NOSAT: return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2);
    case E8M0_RZ_SAT: return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero);
    case E8M0_RZ_NOSAT: return __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero);
    case E8M0_RP_SAT: return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf);
    case E8M0_RP_NOSAT: return __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf);
    default: return 0;
    }
}

/* ---- kernels ------------------------------------------------------------------ */

/* Which device code is running: __CUDA_ARCH__ of the code the driver picked
 * for this GPU, and whether cuda_fp8.h used the E8M0 instructions there. */
__global__ void build_info_kernel(int *info)
{
#ifdef __CUDA_ARCH__
    info[0] = __CUDA_ARCH__;
#ifdef __CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__
    info[1] = __CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__;
#else
    info[1] = 0;
#endif
#endif
}

/* Thread t converts the patterns first + 4t ... first + 4t + 3 and stores
 * their codes as one little-endian word, so that byte i of `out` is the code
 * of pattern first + i. first + 4t + 3 <= 2^32 - 1 in every chunk, so the
 * pattern arithmetic never wraps. */
__global__ void encode_kernel(uint32_t *out, uint32_t first, uint32_t words, int mode)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= words)
        return;
    uint32_t base = first + 4u * t;
    uint32_t packed = 0;
    for (uint32_t k = 0; k < 4; k++) {
        uint8_t code = device_encode(__uint_as_float(base + k), mode);
        packed |= (uint32_t)code << (8u * k);
    }
    out[t] = packed;
}

/* Every code decoded, as float bits: out[0..255] E4M3, out[256..511] E5M2,
 * out[512..767] E8M0. One block of 256 threads. */
__global__ void decode_kernel(uint32_t *out)
{
    __nv_fp8_storage_t code = (__nv_fp8_storage_t)threadIdx.x;
    __half e4m3 = __half(__nv_cvt_fp8_to_halfraw(code, __NV_E4M3));
    __half e5m2 = __half(__nv_cvt_fp8_to_halfraw(code, __NV_E5M2));
    __nv_bfloat16 e8m0 = __nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(code));
    out[threadIdx.x] = __float_as_uint(__half2float(e4m3));
    out[256 + threadIdx.x] = __float_as_uint(__half2float(e5m2));
    out[512 + threadIdx.x] = __float_as_uint(__bfloat162float(e8m0));
}

/* ---- is there a GPU to test? -------------------------------------------------- */

/* Picks the first device of compute capability >= 8.9 and makes a context
 * on it. Returns false, with the reason in `why`, when there is none. */
bool find_gpu(cudaDeviceProp *prop, char *why, size_t why_size)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    int driver = 0;
    if (rc == cudaErrorInsufficientDriver &&
        (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)) {
        snprintf(why, why_size, "no GPU: cudaGetDeviceCount: no CUDA driver is installed (%s)",
                 cudaGetErrorString(rc));
        return false;
    }
    if (rc != cudaSuccess) {
        snprintf(why, why_size, "no GPU: cudaGetDeviceCount: %s", cudaGetErrorString(rc));
        return false;
    }
    if (count <= 0) {
        snprintf(why, why_size, "no GPU: cudaGetDeviceCount: no CUDA device found");
        return false;
    }
    for (int dev = 0; dev < count; dev++) {
        rc = cudaGetDeviceProperties(prop, dev);
        if (rc != cudaSuccess) {
            snprintf(why, why_size, "no GPU: cudaGetDeviceProperties: %s", cudaGetErrorString(rc));
            return false;
        }
        if (prop->major > 7 || (prop->major == 7 && prop->minor >= 5)) {
            rc = cudaSetDevice(dev);
            if (rc == cudaSuccess)
                rc = cudaFree(0); /* makes the context */
            if (rc != cudaSuccess) {
                snprintf(why, why_size, "no usable GPU: %s: %s", prop->name,
                         cudaGetErrorString(rc));
                return false;
            }
            return true;
        }
    }
    snprintf(why, why_size,
             "GPU too old: %s is compute capability %d.%d; the course needs 7.5 or later",
             prop->name, prop->major, prop->minor);
    return false;
}

/* ---- comparing on the host ----------------------------------------------------- */

struct Example {
    uint32_t bits;
    uint8_t expected, got;
};

/* Mismatches seen in one slice of patterns, the first ones kept. */
struct Tally {
    uint64_t mismatches;
    int n_examples;
    Example examples[kExamples];
};

/* codes[i] is the device's code for pattern first + i, i in [lo, hi). */
void compare_slice(int mode, uint32_t first, const uint8_t *codes, uint32_t lo, uint32_t hi,
                   Tally *t)
{
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t bits = first + i;
        uint8_t expected = host_encode(f32_from_bits(bits), mode);
        if (expected == codes[i])
            continue;
        if (t->n_examples < kExamples)
            t->examples[t->n_examples++] = Example{bits, expected, codes[i]};
        t->mismatches++;
    }
}

/* Compares one chunk on `threads` threads and adds the result to *total. The
 * slices are in increasing order and so are the chunks, so appending each
 * slice's examples in turn keeps the smallest inputs. */
void compare_chunk(int mode, uint32_t first, const uint8_t *codes, unsigned threads, Tally *total)
{
    std::vector<Tally> tallies(threads, Tally{});
    std::vector<std::thread> pool;
    uint32_t per = (kChunk + threads - 1) / threads;
    for (unsigned k = 0; k < threads; k++) {
        uint32_t lo = k * per < kChunk ? k * per : kChunk;
        uint32_t hi = lo + per < kChunk ? lo + per : kChunk;
        pool.emplace_back(compare_slice, mode, first, codes, lo, hi, &tallies[k]);
    }
    for (std::thread &th : pool)
        th.join();
    for (const Tally &t : tallies) {
        total->mismatches += t.mismatches;
        for (int e = 0; e < t.n_examples && total->n_examples < kExamples; e++)
            total->examples[total->n_examples++] = t.examples[e];
    }
}

/* ---- the two directions ---------------------------------------------------------- */

/* What ran on the device for each mode, for the report. */
const char *encode_path(int mode, int arch, bool e8m0_ptx)
{
    const ModeSpec &m = kModes[mode];
    bool hardware = m.fmt == FP8_E8M0 ? e8m0_ptx : arch >= 890;
    return hardware && m.instruction ? m.instruction : "cuda_fp8.hpp C code on the device";
}

/* Sweeps all 2^32 patterns through one mode. Returns the mismatch count. */
uint64_t sweep_mode(int mode, uint32_t *d_codes, uint8_t *h_codes, unsigned threads, int arch,
                    bool e8m0_ptx)
{
    auto t0 = std::chrono::steady_clock::now();
    Tally total = Tally{};
    const unsigned blocks = (kWords + kBlock - 1) / kBlock;
    for (uint64_t first = 0; first < kPatterns; first += kChunk) {
        encode_kernel<<<blocks, kBlock>>>(d_codes, (uint32_t)first, kWords, mode);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(h_codes, d_codes, kChunk, cudaMemcpyDeviceToHost));
        compare_chunk(mode, (uint32_t)first, h_codes, threads, &total);
    }
    const ModeSpec &m = kModes[mode];
    printf("%-18s %-34s %" PRIu64 " mismatches in 2^32 inputs (%.1f s)\n", m.name,
           encode_path(mode, arch, e8m0_ptx), total.mismatches, seconds_since(t0));
    for (int e = 0; e < total.n_examples; e++) {
        const Example &x = total.examples[e];
        printf("    input 0x%08" PRIx32 " (%.9g): expected 0x%02x, got 0x%02x\n", x.bits,
               (double)f32_from_bits(x.bits), x.expected, x.got);
    }
    return total.mismatches;
}

/* Both NaN, or the same bits (so -0 is not +0). */
bool same_value(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return f32_bits(a) == f32_bits(b);
}

/* Decodes every code on the device. Returns the mismatch count. */
uint64_t check_decode(int arch, bool e8m0_ptx)
{
    uint32_t *d_out = NULL;
    uint32_t h_out[3 * 256];
    CUDA_CHECK(cudaMalloc(&d_out, sizeof h_out));
    decode_kernel<<<1, 256>>>(d_out);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_out));

    const struct {
        const char *name;
        fp8_format fmt;
        const char *path;
    } formats[3] = {
        {"decode e4m3", FP8_E4M3,
         arch >= 890 ? "cvt.rn.f16x2.e4m3x2" : "cuda_fp8.hpp C code on the device"},
        {"decode e5m2", FP8_E5M2,
         arch >= 890 ? "cvt.rn.f16x2.e5m2x2" : "cuda_fp8.hpp C code on the device"},
        {"decode e8m0", FP8_E8M0,
         e8m0_ptx ? "cvt.rn.bf16x2.ue8m0x2" : "cuda_fp8.hpp C code on the device"},
    };
    uint64_t bad_total = 0;
    for (int f = 0; f < 3; f++) {
        int bad[256], n_bad = 0;
        for (int code = 0; code < 256; code++) {
            float want = fp8_decode((uint8_t)code, formats[f].fmt);
            if (!same_value(want, f32_from_bits(h_out[256 * f + code])))
                bad[n_bad++] = code;
        }
        printf("%-18s %-34s %d mismatches in 256 codes\n", formats[f].name, formats[f].path,
               n_bad);
        for (int e = 0; e < n_bad && e < kExamples; e++) {
            float want = fp8_decode((uint8_t)bad[e], formats[f].fmt);
            uint32_t got = h_out[256 * f + bad[e]];
            printf("    code 0x%02x: expected %.9g (0x%08" PRIx32 "), got %.9g (0x%08" PRIx32 ")\n",
                   bad[e], (double)want, f32_bits(want), (double)f32_from_bits(got), got);
        }
        bad_total += (uint64_t)n_bad;
    }
    return bad_total;
}

} // namespace

int main(void)
{
    auto t0 = std::chrono::steady_clock::now();
    unsigned threads = thread_count();

    /* No GPU is not a failure: say why and report "skipped". */
    cudaDeviceProp prop;
    char why[512];
    if (!find_gpu(&prop, why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return kSkip;
    }

    /* Which device code the driver chose. A driver older than the toolkit
     * cannot load its PTX: that is no usable GPU either. Any other failure
     * (no code for this GPU in the binary) is a build error. */
    int *d_info = NULL;
    int info[2] = {0, 0};
    CUDA_CHECK(cudaMalloc(&d_info, sizeof info));
    CUDA_CHECK(cudaMemset(d_info, 0, sizeof info));
    build_info_kernel<<<1, 1>>>(d_info);
    cudaError_t rc = cudaGetLastError();
    if (rc == cudaErrorUnsupportedPtxVersion || rc == cudaErrorInsufficientDriver) {
        printf("SKIP: %s: the CUDA driver cannot run this build: %s\n", prop.name,
               cudaGetErrorString(rc));
        return kSkip;
    }
    CUDA_CHECK(rc);
    CUDA_CHECK(cudaMemcpy(info, d_info, sizeof info, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_info));
    const int arch = info[0];
    const bool e8m0_ptx = info[1] != 0;

    printf("GPU: %s, compute capability %d.%d; device code for sm_%d; host side on %u threads\n",
           prop.name, prop.major, prop.minor, arch / 10, threads);
    if (!e8m0_ptx)
        printf("note: this build has no E8M0 instructions for this GPU; the e8m0 checks test "
               "cuda_fp8.hpp's C code compiled for the device\n");

    uint64_t mismatches = check_decode(arch, e8m0_ptx);

    uint32_t *d_codes = NULL;
    uint8_t *h_codes = NULL;
    CUDA_CHECK(cudaMalloc(&d_codes, kChunk));
    CUDA_CHECK(cudaMallocHost(&h_codes, kChunk));
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        mismatches += sweep_mode(mode, d_codes, h_codes, threads, arch, e8m0_ptx);
        fflush(stdout);
    }
    CUDA_CHECK(cudaFreeHost(h_codes));
    CUDA_CHECK(cudaFree(d_codes));

    printf("%s: %" PRIu64 " mismatches in total (%.1f s)\n", mismatches ? "FAIL" : "PASS",
           mismatches, seconds_since(t0));
    return mismatches ? EXIT_FAILURE : EXIT_SUCCESS;
}
