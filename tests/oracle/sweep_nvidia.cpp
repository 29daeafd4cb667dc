/*
 * sweep_nvidia.cpp - the codec of common/fp8.h against NVIDIA's host
 * conversions, for every float.
 *
 * For each of the 2^32 float bit patterns (E4M3, E5M2; the other formats
 * on the rounding cover below, unless FP8LAB_SWEEP_STRIDE=1), and for each
 * conversion that
 * fp8.h claims to share with the CUDA Toolkit headers (cuda_fp8.h,
 * cuda_fp6.h, cuda_fp4.h), this checks that the bulk encoder
 * (fp8_encode_array / fp8_encode_array_rounded) gives NVIDIA's code, bit for
 * bit, and that the scalar encoder (fp8_encode / fp8_encode_rounded) does
 * too. FP8LAB_SWEEP_SCALAR_EVERY=N checks the scalar encoder on only one chunk
 * of 65536 consecutive bit patterns in every N (an odd N keeps the chunks
 * checked from lining up with the fields of a float), for a quicker run.
 * Every code of every format is also decoded by fp8_decode, fp8_decode_array
 * (fp16_decode, fp16_decode_array, for all 65536 codes of the 16-bit ones)
 * and NVIDIA: NaN must meet NaN and every other value must match bit for bit
 * (so -0 is not +0).
 *
 * A Check suite with one test case per format family:
 *   fp8   E4M3 and E5M2, saturating and not          __nv_cvt_float_to_fp8
 *   e8m0  toward zero and away from zero, saturating and not
 *                                                    __nv_cvt_float_to_e8m0
 *   fp6   E2M3 and E3M2, nearest-even and toward zero __nv_cvt_float_to_fp6
 *   fp4   E2M1, nearest-even and toward zero          __nv_cvt_float_to_fp4
 *   fp16  FP16 and BF16, nearest-even and toward zero __float2half_rn/_rz,
 *         (fp16_encode, fp16_encode_array,            __float2bfloat16_rn/_rz
 *         fp16_encode_rounded, bf16_truncate)
 * Every mode prints its mismatch counts and first five counterexamples.
 *
 * Build (make does this): this file as C++17 against the library, with the
 * CUDA include directory given as -isystem, since NVIDIA's headers are not
 * clean under -Wextra:
 *   g++ -std=c++17 -O2 -Icommon -isystem CUDA_INCLUDE_DIR \
 *       tests/oracle/sweep_nvidia.cpp libfp8lab.a \
 *       $(pkg-config --cflags --libs check) -lpthread
 *
 * Run:
 *   ./oracle_sweep_nvidia                   E4M3 and E5M2 on every float, the
 *                                           other formats on the rounding cover
 *                                           (1 float in 21.3), on 2 threads
 *   FP8LAB_SWEEP_STRIDE=1 ./oracle_sweep_nvidia
 *                                           every format on every float
 *   FP8LAB_THREADS=4 ./oracle_sweep_nvidia  on 4 threads
 *   FP8LAB_SWEEP_STRIDE=61 ./oracle_sweep_nvidia
 *                                           1 bit pattern in 61 (for sanitizer
 *                                           builds): NOT exhaustive, and says
 *                                           so; an odd stride reaches every
 *                                           pattern of the low bits
 *   CK_RUN_CASE=e8m0 ./oracle_sweep_nvidia  one family
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include <check.h>

#include "bits.h"
#include "fp8.h"
#include "nvidia.h"

namespace {

/* ---- settings ------------------------------------------------------------ */

const uint64_t kPatterns = 1ULL << 32; /* float bit patterns */
const size_t kChunk = 1u << 16;        /* inputs handed to a thread at a time */
const int kExamples = 5;               /* counterexamples shown per mode */

/* A positive integer from the environment, or fallback when unset. Exits on
 * a malformed value rather than quietly sweeping something else. */
uint64_t env_count(const char *name, uint64_t fallback, uint64_t max)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return fallback;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > max) {
        fprintf(stderr, "%s=%s: expected an integer from 1 to %" PRIu64 "\n", name, s, max);
        exit(2);
    }
    return v;
}

unsigned thread_count(void) { return (unsigned)env_count("FP8LAB_THREADS", 2, 256); }
/* FP8LAB_SWEEP_STRIDE, or 0 where unset (each family's own inputs, below). */
uint64_t sweep_stride(void) { return env_count("FP8LAB_SWEEP_STRIDE", 0, kPatterns - 1); }
uint64_t scalar_every(void) { return env_count("FP8LAB_SWEEP_SCALAR_EVERY", 1, 1u << 16); }

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Two decoded values agree: both NaN, or the same bits. */
bool same_value(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return f32_bits(a) == f32_bits(b);
}

/* ---- NVIDIA's encoders, one function per mode ---------------------------- */

uint8_t nv_e4m3_sat(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }
uint8_t nv_e4m3_nosat(float x) { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3); }
uint8_t nv_e5m2_sat(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2); }
uint8_t nv_e5m2_nosat(float x) { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2); }

uint8_t nv_e8m0_rz_sat(float x) { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero); }
uint8_t nv_e8m0_rz_nosat(float x) { return __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero); }
uint8_t nv_e8m0_ru_sat(float x) { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf); }
uint8_t nv_e8m0_ru_nosat(float x) { return __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf); }

uint8_t nv_e2m3_rn(float x) { return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest); }
uint8_t nv_e2m3_rz(float x) { return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundZero); }
uint8_t nv_e3m2_rn(float x) { return __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest); }
uint8_t nv_e3m2_rz(float x) { return __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundZero); }

uint8_t nv_e2m1_rn(float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest); }
uint8_t nv_e2m1_rz(float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundZero); }

uint16_t nv_half_rn(float x) { return __half_as_ushort(__float2half_rn(x)); }
uint16_t nv_half_rz(float x) { return __half_as_ushort(__float2half_rz(x)); }
uint16_t nv_bf16_rn(float x) { return __bfloat16_as_ushort(__float2bfloat16_rn(x)); }
uint16_t nv_bf16_rz(float x) { return __bfloat16_as_ushort(__float2bfloat16_rz(x)); }

/* NVIDIA's value of a code, as a float (half and bfloat16 convert exactly). */
float nv_decode(uint8_t code, fp8_format fmt)
{
    switch (fmt) {
    case FP8_E4M3: return half_to_float(__nv_cvt_fp8_to_halfraw(code, __NV_E4M3).x);
    case FP8_E5M2: return half_to_float(__nv_cvt_fp8_to_halfraw(code, __NV_E5M2).x);
    case FP8_E8M0: return f32_from_bits((uint32_t)__nv_cvt_e8m0_to_bf16raw(code).x << 16);
    case FP8_E2M3: return half_to_float(__nv_cvt_fp6_to_halfraw(code, __NV_E2M3).x);
    case FP8_E3M2: return half_to_float(__nv_cvt_fp6_to_halfraw(code, __NV_E3M2).x);
    case FP8_E2M1: return half_to_float(__nv_cvt_fp4_to_halfraw(code, __NV_E2M1).x);
    default: break;
    }
    return NAN;
}

/* ---- the encoding modes ----------------------------------------------------- */

/* Fills want[0..n) with NVIDIA's codes for in[0..n) (8- or 16-bit codes). */
typedef void (*OracleFill)(const float *in, uint16_t *want, size_t n);

/* One loop per oracle, so that NVIDIA's conversion is inlined into it. */
template <typename Code, Code (*Oracle)(float)>
void oracle_fill(const float *in, uint16_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        want[i] = Oracle(in[i]);
}

/* What the library is asked and whom it must agree with. Rounding to
 * nearest even goes through fp8_encode / fp8_encode_array, the other
 * roundings through fp8_encode_rounded / fp8_encode_array_rounded; for a
 * 16-bit format (wide), fp16_encode / fp16_encode_array and
 * fp16_encode_rounded (and bf16_truncate for BF16 toward zero). */
struct EncodeMode {
    const char *name;
    fp8_format fmt;
    bool saturate;
    fp8_rounding rnd;
    const char *oracle_name;
    OracleFill oracle;
    bool wide;
    fp16_format wfmt;
};

#define NV_FP8(args) "__nv_cvt_float_to_fp8(x, " args ")"
#define NV_E8M0(args) "__nv_cvt_float_to_e8m0(x, " args ")"
#define NV_FP6(args) "__nv_cvt_float_to_fp6(x, " args ")"
#define NV_FP4(args) "__nv_cvt_float_to_fp4(x, " args ")"

const EncodeMode kFp8Modes[] = {
    {"e4m3 nearest sat", FP8_E4M3, true, FP8_ROUND_NEAREST_EVEN,
     NV_FP8("__NV_SATFINITE, __NV_E4M3"), oracle_fill<uint8_t, nv_e4m3_sat>, false, FP16_HALF},
    {"e4m3 nearest nosat", FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN,
     NV_FP8("__NV_NOSAT, __NV_E4M3"), oracle_fill<uint8_t, nv_e4m3_nosat>, false, FP16_HALF},
    {"e5m2 nearest sat", FP8_E5M2, true, FP8_ROUND_NEAREST_EVEN,
     NV_FP8("__NV_SATFINITE, __NV_E5M2"), oracle_fill<uint8_t, nv_e5m2_sat>, false, FP16_HALF},
    {"e5m2 nearest nosat", FP8_E5M2, false, FP8_ROUND_NEAREST_EVEN,
     NV_FP8("__NV_NOSAT, __NV_E5M2"), oracle_fill<uint8_t, nv_e5m2_nosat>, false, FP16_HALF},
};

const EncodeMode kE8m0Modes[] = {
    {"e8m0 toward-zero sat", FP8_E8M0, true, FP8_ROUND_TOWARD_ZERO,
     NV_E8M0("__NV_SATFINITE, cudaRoundZero"), oracle_fill<uint8_t, nv_e8m0_rz_sat>, false, FP16_HALF},
    {"e8m0 toward-zero nosat", FP8_E8M0, false, FP8_ROUND_TOWARD_ZERO,
     NV_E8M0("__NV_NOSAT, cudaRoundZero"), oracle_fill<uint8_t, nv_e8m0_rz_nosat>, false, FP16_HALF},
    {"e8m0 away-from-zero sat", FP8_E8M0, true, FP8_ROUND_AWAY_FROM_ZERO,
     NV_E8M0("__NV_SATFINITE, cudaRoundPosInf"), oracle_fill<uint8_t, nv_e8m0_ru_sat>, false, FP16_HALF},
    {"e8m0 away-from-zero nosat", FP8_E8M0, false, FP8_ROUND_AWAY_FROM_ZERO,
     NV_E8M0("__NV_NOSAT, cudaRoundPosInf"), oracle_fill<uint8_t, nv_e8m0_ru_nosat>, false, FP16_HALF},
};

/* NVIDIA's FP6 and FP4 conversions always saturate, and the library must
 * ignore saturate = false for these formats, so both settings meet the same
 * oracle. (Consecutive modes with one oracle share its codes.) */
const EncodeMode kFp6Modes[] = {
    {"e2m3 nearest sat", FP8_E2M3, true, FP8_ROUND_NEAREST_EVEN,
     NV_FP6("__NV_E2M3, cudaRoundNearest"), oracle_fill<uint8_t, nv_e2m3_rn>, false, FP16_HALF},
    {"e2m3 nearest nosat", FP8_E2M3, false, FP8_ROUND_NEAREST_EVEN,
     NV_FP6("__NV_E2M3, cudaRoundNearest"), oracle_fill<uint8_t, nv_e2m3_rn>, false, FP16_HALF},
    {"e2m3 toward-zero sat", FP8_E2M3, true, FP8_ROUND_TOWARD_ZERO,
     NV_FP6("__NV_E2M3, cudaRoundZero"), oracle_fill<uint8_t, nv_e2m3_rz>, false, FP16_HALF},
    {"e3m2 nearest sat", FP8_E3M2, true, FP8_ROUND_NEAREST_EVEN,
     NV_FP6("__NV_E3M2, cudaRoundNearest"), oracle_fill<uint8_t, nv_e3m2_rn>, false, FP16_HALF},
    {"e3m2 nearest nosat", FP8_E3M2, false, FP8_ROUND_NEAREST_EVEN,
     NV_FP6("__NV_E3M2, cudaRoundNearest"), oracle_fill<uint8_t, nv_e3m2_rn>, false, FP16_HALF},
    {"e3m2 toward-zero sat", FP8_E3M2, true, FP8_ROUND_TOWARD_ZERO,
     NV_FP6("__NV_E3M2, cudaRoundZero"), oracle_fill<uint8_t, nv_e3m2_rz>, false, FP16_HALF},
};

const EncodeMode kFp4Modes[] = {
    {"e2m1 nearest sat", FP8_E2M1, true, FP8_ROUND_NEAREST_EVEN,
     NV_FP4("__NV_E2M1, cudaRoundNearest"), oracle_fill<uint8_t, nv_e2m1_rn>, false, FP16_HALF},
    {"e2m1 nearest nosat", FP8_E2M1, false, FP8_ROUND_NEAREST_EVEN,
     NV_FP4("__NV_E2M1, cudaRoundNearest"), oracle_fill<uint8_t, nv_e2m1_rn>, false, FP16_HALF},
    {"e2m1 toward-zero sat", FP8_E2M1, true, FP8_ROUND_TOWARD_ZERO,
     NV_FP4("__NV_E2M1, cudaRoundZero"), oracle_fill<uint8_t, nv_e2m1_rz>, false, FP16_HALF},
};

/* The 16-bit formats overflow to inf (saturate false): NVIDIA's host
 * conversions have no saturating form. */
const EncodeMode kFp16Modes[] = {
    {"fp16 nearest", FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, "__float2half_rn(x)",
     oracle_fill<uint16_t, nv_half_rn>, true, FP16_HALF},
    {"fp16 toward-zero", FP8_E4M3, false, FP8_ROUND_TOWARD_ZERO, "__float2half_rz(x)",
     oracle_fill<uint16_t, nv_half_rz>, true, FP16_HALF},
    {"bf16 nearest", FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, "__float2bfloat16_rn(x)",
     oracle_fill<uint16_t, nv_bf16_rn>, true, FP16_BF16},
    {"bf16 toward-zero", FP8_E4M3, false, FP8_ROUND_TOWARD_ZERO, "__float2bfloat16_rz(x)",
     oracle_fill<uint16_t, nv_bf16_rz>, true, FP16_BF16},
};

/* ---- checking one chunk ------------------------------------------------------- */

/* A counterexample: the input and the answers. */
struct Example {
    uint64_t index; /* position in the sweep, for ordering */
    uint32_t bits;
    uint16_t want, bulk;
    int scalar; /* -1 where the scalar encoder was not asked */
    int width;  /* hex digits of a code */
};

/* What one thread has seen of one mode. Chunks reach a thread in increasing
 * order, so its first examples are its earliest. */
struct Tally {
    uint64_t bulk_bad, scalar_bad, scalar_checked;
    uint64_t round_bad; /* 16-bit nearest: fp16_round_array against NVIDIA's code's value */
    double seconds; /* thread time spent on the mode */
    int n_examples;
    Example examples[kExamples];
};

void note(Tally *t, uint64_t index, float x, unsigned want, unsigned bulk, int scalar, int width)
{
    if (bulk != want)
        t->bulk_bad++;
    if (scalar >= 0 && (unsigned)scalar != want)
        t->scalar_bad++;
    if (t->n_examples < kExamples)
        t->examples[t->n_examples++] =
            Example{index, f32_bits(x), (uint16_t)want, (uint16_t)bulk, scalar, width};
}

/* The library's scalar answer for x in mode m. */
int scalar_code(const EncodeMode &m, float x)
{
    if (m.wide) {
        if (m.rnd == FP8_ROUND_NEAREST_EVEN)
            return fp16_encode(x, m.wfmt);
        if (m.wfmt == FP16_BF16 && m.rnd == FP8_ROUND_TOWARD_ZERO)
            return bf16_truncate(x);
        return fp16_encode_rounded(x, m.wfmt, m.saturate, m.rnd);
    }
    return m.rnd == FP8_ROUND_NEAREST_EVEN ? fp8_encode(x, m.fmt, m.saturate)
                                           : fp8_encode_rounded(x, m.fmt, m.saturate, m.rnd);
}

/* Checks the bulk encoder on in[0..n) against NVIDIA's codes want[0..n), and
 * the scalar encoder too where with_scalar. A 16-bit format toward zero has
 * no bulk encoder: fp16_encode_rounded stands in for it, and the scalar check
 * asks bf16_truncate (BF16) or the same function again. */
void check_chunk(const EncodeMode &m, const float *in, const uint16_t *want, uint16_t *bulk,
                 uint8_t *bulk8, float *rounded, size_t n, uint64_t first_index, bool with_scalar,
                 Tally *t)
{
    const int width = m.wide ? 4 : 2;
    if (m.wide && m.rnd == FP8_ROUND_NEAREST_EVEN) {
        fp16_encode_array(in, bulk, n, m.wfmt);
        fp16_round_array(in, rounded, n, m.wfmt);
        for (size_t i = 0; i < n; i++)
            if (!same_value(rounded[i], fp16_decode(want[i], m.wfmt)) && t->round_bad++ == 0)
                printf("      fp16_round_array(0x%08" PRIX32 ") = %a, NVIDIA's code 0x%04X is %a\n",
                       f32_bits(in[i]), (double)rounded[i], want[i],
                       (double)fp16_decode(want[i], m.wfmt));
    } else if (m.wide) {
        for (size_t i = 0; i < n; i++)
            bulk[i] = fp16_encode_rounded(in[i], m.wfmt, m.saturate, m.rnd);
    } else {
        if (m.rnd == FP8_ROUND_NEAREST_EVEN)
            fp8_encode_array(in, bulk8, n, m.fmt, m.saturate);
        else
            fp8_encode_array_rounded(in, bulk8, n, m.fmt, m.saturate, m.rnd);
        for (size_t i = 0; i < n; i++)
            bulk[i] = bulk8[i];
    }

    if (!with_scalar) {
        if (memcmp(bulk, want, n * sizeof *want) != 0)
            for (size_t i = 0; i < n; i++)
                if (bulk[i] != want[i])
                    note(t, first_index + i, in[i], want[i], bulk[i], -1, width);
        return;
    }
    t->scalar_checked += n;
    for (size_t i = 0; i < n; i++) {
        int scalar = scalar_code(m, in[i]);
        if ((scalar != (int)want[i]) | (bulk[i] != want[i]))
            note(t, first_index + i, in[i], want[i], bulk[i], scalar, width);
    }
}

/* ---- the threaded sweep ------------------------------------------------------ */

const size_t kMaxModes = 8;

/* ---- which floats a family meets --------------------------------------------- */

/* E4M3 and E5M2, the course's formats, meet every float. The other families
 * meet the rounding cover: every pattern of a float's top 24 bits (sign,
 * exponent and the top 15 of the 23 mantissa bits), each with 12 patterns
 * of the low 8: none, each bit alone, 0x7F, all, and one drawn from the top
 * bits. None of those formats keeps more than 10 mantissa bits (FP16), so
 * the bit that decides a rounding and every kept bit are among the top 24,
 * in the normal range and, higher still, in the subnormal; what the low 8
 * add is only whether any of them is set (the sticky bit), and the cover
 * has that with the top 24 bits alone set, and each low bit alone: an
 * encoder that loses any one of them from the sticky bit is caught. It is
 * 1 float in 21.3; FP8LAB_SWEEP_STRIDE=1 sweeps every family over every
 * float (5.5 minutes on 2 cores). */
const uint32_t kCoverLow[] = {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x7F, 0xFF};
const uint64_t kCoverPerTop = sizeof kCoverLow / sizeof kCoverLow[0] + 1;
const uint64_t kCoverInputs = (1ULL << 24) * kCoverPerTop;

/* The float bit pattern of input i of the rounding cover. */
uint32_t cover_bits(uint64_t i)
{
    uint32_t top = (uint32_t)(i / kCoverPerTop);
    uint64_t k = i % kCoverPerTop;
    uint32_t low = k < kCoverPerTop - 1 ? kCoverLow[k] : (top * 2654435761u) >> 24;
    return top << 8 | low;
}

enum Inputs { kEveryFloat, kCover };

struct Sweep {
    const EncodeMode *modes;
    size_t n_modes;
    bool cover;                       /* input i is cover_bits(i), */
    uint64_t stride;                  /* else the bit pattern i * stride (mod 2^32) */
    uint64_t n_inputs;
    uint64_t n_chunks;
    uint64_t scalar_every;            /* the scalar encoder sees chunks 0, k, 2k, ... */
    std::atomic<uint64_t> next_chunk; /* handed out in increasing order */
};

struct Worker {
    pthread_t thread;
    Sweep *sweep;
    Tally tally[kMaxModes];
};

void *sweep_worker(void *arg)
{
    Worker *w = (Worker *)arg;
    Sweep *s = w->sweep;
    float *in = (float *)malloc(kChunk * sizeof *in);
    uint16_t *want = (uint16_t *)malloc(kChunk * sizeof *want);
    uint16_t *bulk = (uint16_t *)malloc(kChunk * sizeof *bulk);
    uint8_t *bulk8 = (uint8_t *)malloc(kChunk);
    float *rounded = (float *)malloc(kChunk * sizeof *rounded);
    if (in == NULL || want == NULL || bulk == NULL || bulk8 == NULL || rounded == NULL) {
        fprintf(stderr, "sweep: out of memory\n");
        abort();
    }
    for (;;) {
        uint64_t c = s->next_chunk.fetch_add(1);
        if (c >= s->n_chunks)
            break;
        uint64_t first = c * kChunk;
        size_t n = (size_t)std::min<uint64_t>(s->n_inputs - first, kChunk);
        for (size_t i = 0; i < n; i++)
            in[i] = f32_from_bits(s->cover ? cover_bits(first + i)
                                           : (uint32_t)((first + i) * s->stride));
        bool with_scalar = c % s->scalar_every == 0;
        OracleFill filled = NULL;
        for (size_t m = 0; m < s->n_modes; m++) {
            const EncodeMode &mode = s->modes[m];
            double t0 = now_seconds();
            if (mode.oracle != filled) {
                mode.oracle(in, want, n);
                filled = mode.oracle;
            }
            check_chunk(mode, in, want, bulk, bulk8, rounded, n, first, with_scalar,
                        &w->tally[m]);
            w->tally[m].seconds += now_seconds() - t0;
        }
    }
    free(in);
    free(want);
    free(bulk);
    free(bulk8);
    free(rounded);
    return NULL;
}

void print_example(const Example &e)
{
    float x = f32_from_bits(e.bits);
    printf("      x = 0x%08" PRIX32 " (%a, %g): NVIDIA 0x%0*X, bulk 0x%0*X%s", e.bits, (double)x,
           (double)x, e.width, e.want, e.width, e.bulk, e.bulk != e.want ? " (wrong)" : "");
    if (e.scalar >= 0)
        printf(", scalar 0x%0*X%s", e.width, e.scalar, e.scalar != e.want ? " (wrong)" : "");
    printf("\n");
}

/* Sweeps the inputs through every mode of a family; prints one line per mode
 * and returns the number of modes with a mismatch. */
int sweep_encode(const EncodeMode *modes, size_t n_modes, Inputs inputs)
{
    if (n_modes > kMaxModes) {
        fprintf(stderr, "sweep: too many modes\n");
        abort();
    }
    unsigned n_threads = thread_count();
    Sweep s;
    s.modes = modes;
    s.n_modes = n_modes;
    s.stride = sweep_stride();
    s.cover = s.stride == 0 && inputs == kCover;
    if (s.stride == 0)
        s.stride = 1;
    s.n_inputs = s.cover ? kCoverInputs : (kPatterns + s.stride - 1) / s.stride;
    s.n_chunks = (s.n_inputs + kChunk - 1) / kChunk;
    s.scalar_every = scalar_every();
    s.next_chunk = 0;

    std::vector<Worker> workers(n_threads);
    double t0 = now_seconds();
    for (Worker &w : workers) {
        w.sweep = &s;
        int rc = pthread_create(&w.thread, NULL, sweep_worker, &w);
        if (rc != 0) {
            fprintf(stderr, "sweep: pthread_create: %s\n", strerror(rc));
            abort();
        }
    }
    for (Worker &w : workers)
        pthread_join(w.thread, NULL);
    double elapsed = now_seconds() - t0;

    if (s.cover)
        printf("  encode: NOT EXHAUSTIVE: the rounding cover, every top 24 bits with %" PRIu64
               " patterns of the low 8, %" PRIu64 " of 2^32, %u threads, %.1f s\n",
               kCoverPerTop, s.n_inputs, n_threads, elapsed);
    else if (s.stride == 1)
        printf("  encode: all %" PRIu64 " float bit patterns (exhaustive), %u threads, %.1f s\n",
               s.n_inputs, n_threads, elapsed);
    else
        printf("  encode: NOT EXHAUSTIVE: 1 in %" PRIu64 " float bit patterns, %" PRIu64
               " of 2^32, %u threads, %.1f s\n",
               s.stride, s.n_inputs, n_threads, elapsed);

    int bad_modes = 0;
    for (size_t m = 0; m < n_modes; m++) {
        /* totals, and the earliest counterexamples of all threads */
        Tally total = Tally();
        std::vector<Example> examples;
        for (const Worker &w : workers) {
            const Tally &t = w.tally[m];
            total.bulk_bad += t.bulk_bad;
            total.scalar_bad += t.scalar_bad;
            total.scalar_checked += t.scalar_checked;
            total.round_bad += t.round_bad;
            total.seconds += t.seconds;
            examples.insert(examples.end(), t.examples, t.examples + t.n_examples);
        }
        std::sort(examples.begin(), examples.end(),
                  [](const Example &a, const Example &b) { return a.index < b.index; });
        if (examples.size() > (size_t)kExamples)
            examples.resize(kExamples);

        const EncodeMode &mode = modes[m];
        bool ok = total.bulk_bad == 0 && total.scalar_bad == 0 && total.round_bad == 0;
        printf("    %-26s vs %-60s %6.1f s  %s\n", mode.name, mode.oracle_name, total.seconds,
               ok ? "ok" : "MISMATCH");
        printf("      bulk: %" PRIu64 " of %" PRIu64 " wrong; scalar: %" PRIu64 " of %" PRIu64
               " wrong",
               total.bulk_bad, s.n_inputs, total.scalar_bad, total.scalar_checked);
        if (mode.wide && mode.rnd == FP8_ROUND_NEAREST_EVEN)
            printf("; fp16_round_array: %" PRIu64 " of %" PRIu64 " values wrong", total.round_bad,
                   s.n_inputs);
        printf("\n");
        if (!ok) {
            printf("      first %zu counterexamples:\n", examples.size());
            for (const Example &e : examples)
                print_example(e);
            bad_modes++;
        }
    }
    fflush(stdout);
    return bad_modes;
}

/* Decodes every byte value with fp8_decode and fp8_decode_array, and its low
 * `bits` bits with NVIDIA (so the bits above a code must be ignored). Returns
 * the number of mismatches, printing the first few. */
int sweep_decode(fp8_format fmt, const char *oracle_name)
{
    const fp8_format_info *info = fp8_info(fmt);
    unsigned count = 1u << info->bits;
    uint8_t codes[256];
    float bulk[256];
    for (unsigned c = 0; c < 256; c++)
        codes[c] = (uint8_t)c;
    fp8_decode_array(codes, bulk, 256, fmt);

    int bad = 0;
    char examples[kExamples][160];
    for (unsigned c = 0; c < 256; c++) {
        float want = nv_decode((uint8_t)(c & (count - 1)), fmt);
        float scalar = fp8_decode((uint8_t)c, fmt);
        if (same_value(want, scalar) && same_value(want, bulk[c]))
            continue;
        if (bad < kExamples)
            snprintf(examples[bad], sizeof examples[bad],
                     "code 0x%02X: NVIDIA %a (0x%08" PRIX32 "), scalar %a (0x%08" PRIX32
                     "), bulk %a (0x%08" PRIX32 ")",
                     c, (double)want, f32_bits(want), (double)scalar, f32_bits(scalar),
                     (double)bulk[c], f32_bits(bulk[c]));
        bad++;
    }
    printf("    decode %-19s vs %-60s %8s  %s (%u codes%s)\n", info->name, oracle_name, "",
           bad ? "MISMATCH" : "ok", count, count < 256 ? ", high bits ignored" : "");
    if (bad) {
        printf("      %d of 256 byte values wrong; first %d:\n", bad, std::min(bad, kExamples));
        for (int k = 0; k < std::min(bad, kExamples); k++)
            printf("      %s\n", examples[k]);
    }
    fflush(stdout);
    return bad;
}

/* NVIDIA's value of a 16-bit code. */
float nv_decode16(uint16_t code, fp16_format fmt)
{
    if (fmt == FP16_HALF)
        return __half2float(__ushort_as_half(code));
    return __bfloat162float(__ushort_as_bfloat16(code));
}

/* Decodes all 65536 codes of a 16-bit format with fp16_decode,
 * fp16_decode_array and NVIDIA, and rounds each value back with
 * fp16_round_array (a finite value or inf must come back unchanged, a NaN as
 * NaN). Returns the number of mismatches, printing the first few. */
int sweep_decode16(fp16_format fmt, const char *oracle_name)
{
    std::vector<uint16_t> codes(65536);
    std::vector<float> bulk(65536), round(65536);
    for (unsigned c = 0; c < 65536; c++)
        codes[c] = (uint16_t)c;
    fp16_decode_array(codes.data(), bulk.data(), 65536, fmt);
    fp16_round_array(bulk.data(), round.data(), 65536, fmt);

    int bad = 0;
    for (unsigned c = 0; c < 65536; c++) {
        float want = nv_decode16((uint16_t)c, fmt);
        float scalar = fp16_decode((uint16_t)c, fmt);
        if (same_value(want, scalar) && same_value(want, bulk[c]) && same_value(want, round[c]))
            continue;
        if (bad < kExamples)
            printf("      code 0x%04X: NVIDIA %a, scalar %a, bulk %a, rounded back %a\n", c,
                   (double)want, (double)scalar, (double)bulk[c], (double)round[c]);
        bad++;
    }
    printf("    decode %-19s vs %-60s %8s  %s (65536 codes)\n", fp16_info(fmt)->name,
           oracle_name, "", bad ? "MISMATCH" : "ok");
    if (bad)
        printf("      %d of 65536 codes wrong\n", bad);
    fflush(stdout);
    return bad;
}

/* ---- the tests ----------------------------------------------------------------- */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Runs one family; fails the test on any mismatch. */
void run_family(const char *title, const EncodeMode *modes, size_t n_modes, Inputs inputs,
                const fp8_format *decode_fmts, const char *const *decode_oracles,
                size_t n_decode)
{
    double t0 = now_seconds();
    printf("%s\n", title);
    int bad_modes = sweep_encode(modes, n_modes, inputs);
    int bad_codes = 0;
    for (size_t k = 0; k < n_decode; k++)
        bad_codes += sweep_decode(decode_fmts[k], decode_oracles[k]);
    printf("  %s: %.1f s\n", title, now_seconds() - t0);
    fflush(stdout);
    ck_assert_msg(bad_modes == 0 && bad_codes == 0,
                  "%s: %d encoding modes and %d decoded byte values disagree with NVIDIA", title,
                  bad_modes, bad_codes);
}

START_TEST(test_fp8)
{
    const fp8_format fmts[] = {FP8_E4M3, FP8_E5M2};
    const char *const oracles[] = {"__nv_cvt_fp8_to_halfraw(c, __NV_E4M3)",
                                   "__nv_cvt_fp8_to_halfraw(c, __NV_E5M2)"};
    run_family("fp8: E4M3, E5M2", kFp8Modes, COUNT(kFp8Modes), kEveryFloat, fmts, oracles, COUNT(fmts));
}
END_TEST

START_TEST(test_e8m0)
{
    const fp8_format fmts[] = {FP8_E8M0};
    const char *const oracles[] = {"__nv_cvt_e8m0_to_bf16raw(c)"};
    run_family("e8m0", kE8m0Modes, COUNT(kE8m0Modes), kCover, fmts, oracles, COUNT(fmts));
}
END_TEST

START_TEST(test_fp6)
{
    const fp8_format fmts[] = {FP8_E2M3, FP8_E3M2};
    const char *const oracles[] = {"__nv_cvt_fp6_to_halfraw(c, __NV_E2M3)",
                                   "__nv_cvt_fp6_to_halfraw(c, __NV_E3M2)"};
    run_family("fp6: E2M3, E3M2", kFp6Modes, COUNT(kFp6Modes), kCover, fmts, oracles, COUNT(fmts));
}
END_TEST

START_TEST(test_fp4)
{
    const fp8_format fmts[] = {FP8_E2M1};
    const char *const oracles[] = {"__nv_cvt_fp4_to_halfraw(c, __NV_E2M1)"};
    run_family("fp4: E2M1", kFp4Modes, COUNT(kFp4Modes), kCover, fmts, oracles, COUNT(fmts));
}
END_TEST

/* The 16-bit rows of the format table against NVIDIA's named constants:
 * the codes of max finite, the smallest subnormal, inf and the canonical
 * NaN, and the values of the first three (what the handouts quote).
 * Returns the number of disagreements, printing each. */
int check_constants16(void)
{
    struct {
        fp16_format fmt;
        const char *what;
        uint16_t ours, nvidia;
        float ours_value, nvidia_value;
    } rows[] = {
        {FP16_HALF, "CUDART_MAX_NORMAL_FP16", fp16_info(FP16_HALF)->max_code,
         __half_as_ushort(CUDART_MAX_NORMAL_FP16), fp16_info(FP16_HALF)->max_finite,
         __half2float(CUDART_MAX_NORMAL_FP16)},
        {FP16_HALF, "CUDART_MIN_DENORM_FP16", 0x0001, __half_as_ushort(CUDART_MIN_DENORM_FP16),
         fp16_info(FP16_HALF)->min_subnormal, __half2float(CUDART_MIN_DENORM_FP16)},
        {FP16_HALF, "CUDART_INF_FP16", fp16_info(FP16_HALF)->inf_code,
         __half_as_ushort(CUDART_INF_FP16), INFINITY, __half2float(CUDART_INF_FP16)},
        {FP16_HALF, "CUDART_NAN_FP16", fp16_info(FP16_HALF)->nan_code,
         __half_as_ushort(CUDART_NAN_FP16), 0.0f, 0.0f},
        {FP16_BF16, "CUDART_MAX_NORMAL_BF16", fp16_info(FP16_BF16)->max_code,
         __bfloat16_as_ushort(CUDART_MAX_NORMAL_BF16), fp16_info(FP16_BF16)->max_finite,
         __bfloat162float(CUDART_MAX_NORMAL_BF16)},
        {FP16_BF16, "CUDART_MIN_DENORM_BF16", 0x0001,
         __bfloat16_as_ushort(CUDART_MIN_DENORM_BF16), fp16_info(FP16_BF16)->min_subnormal,
         __bfloat162float(CUDART_MIN_DENORM_BF16)},
        {FP16_BF16, "CUDART_INF_BF16", fp16_info(FP16_BF16)->inf_code,
         __bfloat16_as_ushort(CUDART_INF_BF16), INFINITY, __bfloat162float(CUDART_INF_BF16)},
        {FP16_BF16, "CUDART_NAN_BF16", fp16_info(FP16_BF16)->nan_code,
         __bfloat16_as_ushort(CUDART_NAN_BF16), 0.0f, 0.0f},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bool ok = rows[i].ours == rows[i].nvidia &&
                  f32_bits(rows[i].ours_value) == f32_bits(rows[i].nvidia_value);
        if (!ok) {
            printf("    %s: NVIDIA 0x%04X (%a), the table 0x%04X (%a)\n", rows[i].what,
                   rows[i].nvidia, (double)rows[i].nvidia_value, rows[i].ours,
                   (double)rows[i].ours_value);
            bad++;
        }
    }
    printf("    constants %-16s vs CUDART_{MAX_NORMAL,MIN_DENORM,INF,NAN}_{FP16,BF16} %10s  %s\n",
           "fp16, bf16", "", bad ? "MISMATCH" : "ok");
    return bad;
}

START_TEST(test_fp16)
{
    double t0 = now_seconds();
    printf("fp16: FP16, BF16\n");
    int bad_constants = check_constants16();
    int bad_modes = sweep_encode(kFp16Modes, COUNT(kFp16Modes), kCover);
    int bad_codes = sweep_decode16(FP16_HALF, "__half2float(c)") +
                    sweep_decode16(FP16_BF16, "__bfloat162float(c)");
    printf("  fp16: FP16, BF16: %.1f s\n", now_seconds() - t0);
    fflush(stdout);
    ck_assert_msg(bad_modes == 0 && bad_codes == 0 && bad_constants == 0,
                  "fp16: %d encoding modes, %d decoded codes and %d constants disagree with "
                  "NVIDIA", bad_modes, bad_codes, bad_constants);
}
END_TEST

/* Seconds a family may take before Check stops it: far more than one
 * thread needs for an exhaustive run. Check multiplies it by
 * CK_TIMEOUT_MULTIPLIER itself. */
const double kTimeout = 3600;

Suite *sweep_suite(void)
{
    Suite *s = suite_create("sweep_nvidia");
    struct {
        const char *name;
        const TTest *test;
    } cases[] = {{"fp8", test_fp8}, {"e8m0", test_e8m0}, {"fp6", test_fp6}, {"fp4", test_fp4},
                {"fp16", test_fp16}};
    for (size_t k = 0; k < COUNT(cases); k++) {
        TCase *tc = tcase_create(cases[k].name);
        tcase_set_timeout(tc, kTimeout);
        tcase_add_test(tc, cases[k].test);
        suite_add_tcase(s, tc);
    }
    return s;
}

} /* namespace */

int main(void)
{
    uint64_t stride = sweep_stride();
    uint64_t every = scalar_every();
    unsigned threads = thread_count();
    if (stride == 0)
        printf("sweep_nvidia: E4M3 and E5M2 on every float bit pattern, the other formats on"
               " the rounding cover (NOT EXHAUSTIVE: FP8LAB_SWEEP_STRIDE=1 for every float),"
               " %u threads\n", threads);
    else if (stride == 1)
        printf("sweep_nvidia: every float bit pattern, %u threads\n", threads);
    else
        printf("sweep_nvidia: NOT EXHAUSTIVE: FP8LAB_SWEEP_STRIDE=%" PRIu64
               " checks 1 in %" PRIu64 " float bit patterns, %u threads\n",
               stride, stride, threads);
    if (every == 1)
        printf("sweep_nvidia: bulk and scalar encoders on every input\n");
    else
        printf("sweep_nvidia: bulk encoder on every input, scalar encoder on 1 chunk of %zu"
               " in %" PRIu64 " (FP8LAB_SWEEP_SCALAR_EVERY=1 for all)\n",
               kChunk, every);
    fflush(stdout);

    double t0 = now_seconds();
    SRunner *sr = srunner_create(sweep_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    printf("sweep_nvidia: %.1f s wall in all, %u threads%s\n", now_seconds() - t0, threads,
           stride == 1 ? "" : stride == 0 ? " (E4M3 and E5M2 exhaustive)" : " (NOT EXHAUSTIVE)");
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
