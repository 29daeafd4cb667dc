/*
 * bench_codec.cpp - throughput of the codec of common/fp8.h against the
 * memory's limit and NVIDIA's host conversions (cuda_fp8.h), on the same
 * inputs, on one core.
 *
 * For E4M3 and E5M2 (saturating, round to nearest even) it times, best of 5
 * rounds (each round runs every contender once, in turn, so that a change in
 * the machine's load falls on all of them):
 *   encode  the memory limit: a streaming pass over the same arrays that
 *           reads the 4 bytes of each float and writes 1 byte (its top
 *           byte), vectorized so that memory, not arithmetic, bounds it;
 *           fp8_encode in a loop, fp8_encode_array, and
 *           __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...) in a loop;
 *   decode  the memory limit: reads 1 byte and writes 4 (the byte widened);
 *           fp8_decode in a loop, fp8_decode_array, and
 *           __nv_cvt_fp8_to_halfraw followed by __half2float in a loop;
 * then checks that the library's outputs have the same bits as NVIDIA's
 * (without cuda_fp8.h: the bulk ones against fp8_encode and fp8_decode,
 * which tests/oracle checks against NVIDIA for every float; the NVIDIA
 * column is then skipped, and the run says so). Inputs: 2^24 floats drawn
 * from N(0, sigma) with sigma = max finite / 4 for the format (PCG32, fixed
 * seed), which spans the format's range with a few values past max (they
 * saturate) and a few in its subnormal range; the counts are printed.
 *
 * 2^24 floats are 64 MiB, more than a CPU's last-level cache, so both the
 * limit and the codec stream from and to memory.
 *
 * Prints a table and the course's targets (the bulk encoder and decoder at
 * least 80% of the memory limit; encode at least 2x NVIDIA; decode at least
 * 1.5 G elements/s) with whether each is met. Timings never fail the run; a
 * correctness mismatch does (exit status 1).
 *
 * Build and run:  make bench
 * (this file as C++17 against libfp8lab.a; where the build finds cuda_fp8.h
 * it defines FP8LAB_HAVE_CUDA_FP8 and gives the CUDA include directory as
 * -isystem).
 */
#ifdef FP8LAB_HAVE_CUDA_FP8
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <functional>
#include <vector>

#include "bits.h"
#include "fp8.h"

namespace {

const size_t kN = (size_t)1 << 24; /* elements per run */
const int kReps = 5;               /* timings taken; the best is reported */
const uint64_t kSeed = 42, kStream = 54;

const double kEncodeTarget = 2.0; /* library bulk encode / NVIDIA */
const double kDecodeTarget = 1.5; /* G elements/s, library bulk decode */
const double kLimitTarget = 0.8;  /* library bulk, fraction of the memory limit */

#ifdef FP8LAB_HAVE_CUDA_FP8
const bool kHaveNvidia = true;
#else
const bool kHaveNvidia = false;
#endif

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Everything the timed loops write is folded in here and printed, so no
 * loop's work can be left out. */
uint64_t g_checksum = 0;

void consume_bytes(const uint8_t *p, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s = s * 31 + p[i];
    g_checksum ^= s;
}

void consume_floats(const float *p, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s = s * 31 + f32_bits(p[i]);
    g_checksum ^= s;
}

/* One contender: a body to time and a consume() that reads its output. */
struct Contender {
    std::function<void()> body, consume;
    double best;
};

/* kReps rounds; each round times every contender once, in order, and after
 * each call consume() reads the output. Leaves each one's best in best. */
void time_rounds(std::vector<Contender> &cs)
{
    for (Contender &c : cs)
        c.best = INFINITY;
    for (int r = 0; r < kReps; r++) {
        for (Contender &c : cs) {
            double t0 = now_seconds();
            c.body();
            double t = now_seconds() - t0;
            c.consume();
            if (t < c.best)
                c.best = t;
        }
    }
}

/* The memory limit of an encode: read 4 bytes, write 1 (the float's top
 * byte), 16 elements a step in SSE2 (every x86-64 has it), so that the loop
 * is bound by the memory and not by its arithmetic. */
void stream_4_to_1(const float *in, uint8_t *out, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    for (const size_t body = n - n % 16; i < body; i += 16) {
        const __m128i *p = (const __m128i *)(const void *)(in + i);
        __m128i a = _mm_srli_epi32(_mm_loadu_si128(p), 24);
        __m128i b = _mm_srli_epi32(_mm_loadu_si128(p + 1), 24);
        __m128i c = _mm_srli_epi32(_mm_loadu_si128(p + 2), 24);
        __m128i d = _mm_srli_epi32(_mm_loadu_si128(p + 3), 24);
        _mm_storeu_si128((__m128i *)(void *)(out + i),
                         _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
    }
#endif
    for (; i < n; i++)
        out[i] = (uint8_t)(f32_bits(in[i]) >> 24);
}

/* The memory limit of a decode: read 1 byte, write 4 (the byte, widened). */
void stream_1_to_4(const uint8_t *in, float *out, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (const size_t body = n - n % 16; i < body; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
        __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
        __m128i *p = (__m128i *)(void *)(out + i);
        _mm_storeu_si128(p, _mm_unpacklo_epi16(lo, zero));
        _mm_storeu_si128(p + 1, _mm_unpackhi_epi16(lo, zero));
        _mm_storeu_si128(p + 2, _mm_unpacklo_epi16(hi, zero));
        _mm_storeu_si128(p + 3, _mm_unpackhi_epi16(hi, zero));
    }
#endif
    for (; i < n; i++)
        out[i] = f32_from_bits(in[i]);
}

#ifdef FP8LAB_HAVE_CUDA_FP8
__nv_fp8_interpretation_t nv_kind(fp8_format fmt)
{
    return fmt == FP8_E4M3 ? __NV_E4M3 : __NV_E5M2;
}
#endif

/* Runs one thread on the core it started on, so that the figures are one
 * core's. Returns the core, or -1 when it could not be pinned. */
int pin_to_one_core(void)
{
    int cpu = sched_getcpu();
    if (cpu < 0)
        return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "bench_codec: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

/* Index of the first difference of two byte arrays and their count. */
size_t count_byte_mismatches(const uint8_t *a, const uint8_t *b, size_t n, size_t *first)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i] && bad++ == 0)
            *first = i;
    return bad;
}

/* The same for decoded values: NaN meets any NaN, otherwise bits must match. */
size_t count_value_mismatches(const float *a, const float *b, size_t n, size_t *first)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        bool same = (isnan(a[i]) && isnan(b[i])) || f32_bits(a[i]) == f32_bits(b[i]);
        if (!same && bad++ == 0)
            *first = i;
    }
    return bad;
}

/* One row: rate, time per element, bytes moved per second (5 per element),
 * the fraction of the memory limit's rate, and NVIDIA's time over this
 * one's ("skipped" without cuda_fp8.h; nvidia_seconds 0). */
void print_row(const char *fmt_name, const char *op, const char *impl, double seconds,
               double limit_seconds, double nvidia_seconds)
{
    double rate = (double)kN / seconds;
    printf("  %-5s %-7s %-44s %9.1f %8.3f %7.2f %7.0f%%", fmt_name, op, impl, rate * 1e-6,
           seconds * 1e9 / (double)kN, rate * 5e-9, 100.0 * limit_seconds / seconds);
    if (nvidia_seconds > 0)
        printf(" %8.2fx\n", nvidia_seconds / seconds);
    else
        printf(" %9s\n", kHaveNvidia ? "" : "skipped");
}

struct Result {
    double encode_ratio;   /* library bulk over NVIDIA (0 without it) */
    double decode_rate;    /* library bulk, elements/s */
    double encode_of_limit, decode_of_limit; /* library bulk, fraction of the limit */
    bool identical;
};

Result bench_format(fp8_format fmt, float *in, uint8_t *code_scalar, uint8_t *code_bulk,
                    uint8_t *code_nv, float *val_scalar, float *val_bulk, float *val_nv)
{
    const fp8_format_info *info = fp8_info(fmt);
#ifdef FP8LAB_HAVE_CUDA_FP8
    const __nv_fp8_interpretation_t kind = nv_kind(fmt);
#endif
    Result res = {0, 0, 0, 0, true};

    /* the inputs, and what they ask of the format */
    float sigma = info->max_finite / 4;
    rng_state rng;
    rng_seed(&rng, kSeed, kStream);
    rng_fill_normal(&rng, in, kN, 0.0f, sigma);
    size_t over = 0, sub = 0, under = 0;
    for (size_t i = 0; i < kN; i++) {
        float a = fabsf(in[i]);
        over += a > info->max_finite;
        sub += a < info->min_normal && a >= info->min_subnormal / 2;
        under += a < info->min_subnormal / 2;
    }
    printf("\n%s: %zu floats from N(0, %g) (sigma = max %g / 4; PCG32 seed %" PRIu64
           ", stream %" PRIu64 ")\n",
           info->title, kN, (double)sigma, (double)info->max_finite, kSeed, kStream);
    printf("  past +-max, saturated: %zu (%.4f%%); subnormal range: %zu (%.4f%%); "
           "to zero: %zu\n",
           over, 100.0 * (double)over / (double)kN, sub, 100.0 * (double)sub / (double)kN,
           under);
    printf("  %-5s %-7s %-44s %9s %8s %7s %8s %9s\n", "fmt", "op", "implementation", "M elem/s",
           "ns/elem", "GB/s", "of limit", "vs NVIDIA");

    /* encode: the limit, the scalar loop, the bulk encoder, NVIDIA's; the
     * limit writes where NVIDIA's codes go next (or the scalar ones) */
    std::vector<Contender> enc = {
        {[&] { stream_4_to_1(in, code_nv, kN); }, [&] { consume_bytes(code_nv, kN); }, 0},
        {[&] {
             for (size_t i = 0; i < kN; i++)
                 code_scalar[i] = fp8_encode(in[i], fmt, true);
         },
         [&] { consume_bytes(code_scalar, kN); }, 0},
        {[&] { fp8_encode_array(in, code_bulk, kN, fmt, true); },
         [&] { consume_bytes(code_bulk, kN); }, 0},
    };
#ifdef FP8LAB_HAVE_CUDA_FP8
    enc.push_back({[&] {
                       for (size_t i = 0; i < kN; i++)
                           code_nv[i] = __nv_cvt_float_to_fp8(in[i], __NV_SATFINITE, kind);
                   },
                   [&] { consume_bytes(code_nv, kN); }, 0});
#endif
    time_rounds(enc);
    double t_limit = enc[0].best, t_nv = kHaveNvidia ? enc[3].best : 0;
    print_row(info->name, "encode", "memory limit: read 4 B, write 1 B", t_limit, t_limit, t_nv);
    print_row(info->name, "encode", "fp8_encode, a loop", enc[1].best, t_limit, t_nv);
    print_row(info->name, "encode", "fp8_encode_array", enc[2].best, t_limit, t_nv);
    if (kHaveNvidia)
        print_row(info->name, "encode", "NVIDIA __nv_cvt_float_to_fp8, a loop", t_nv, t_limit,
                  t_nv);
    res.encode_ratio = kHaveNvidia ? t_nv / enc[2].best : 0;
    res.encode_of_limit = t_limit / enc[2].best;

    /* The reference codes: NVIDIA's, or without it the scalar encoder's
     * (which tests/oracle checks against NVIDIA's on every float). */
    const char *ref = kHaveNvidia ? "NVIDIA" : "fp8_encode";
    if (!kHaveNvidia)
        memcpy(code_nv, code_scalar, kN);
    size_t first = 0;
    size_t bad = kHaveNvidia ? count_byte_mismatches(code_scalar, code_nv, kN, &first) : 0;
    if (bad)
        printf("  encode: fp8_encode differs from NVIDIA on %zu inputs, first x = %a: 0x%02X, "
               "NVIDIA 0x%02X\n",
               bad, (double)in[first], code_scalar[first], code_nv[first]);
    size_t bad_bulk = count_byte_mismatches(code_bulk, code_nv, kN, &first);
    if (bad_bulk)
        printf("  encode: fp8_encode_array differs from %s on %zu inputs, first x = %a: "
               "0x%02X, %s 0x%02X\n",
               ref, bad_bulk, (double)in[first], code_bulk[first], ref, code_nv[first]);
    printf("  encode outputs bit-identical to %s: %s\n", ref, bad + bad_bulk == 0 ? "yes" : "NO");
    res.identical = res.identical && bad + bad_bulk == 0;

    /* decode the reference codes, a realistic mix; the limit writes where
     * NVIDIA's values go next (or the scalar ones) */
    std::vector<Contender> dec = {
        {[&] { stream_1_to_4(code_nv, val_nv, kN); }, [&] { consume_floats(val_nv, kN); }, 0},
        {[&] {
             for (size_t i = 0; i < kN; i++)
                 val_scalar[i] = fp8_decode(code_nv[i], fmt);
         },
         [&] { consume_floats(val_scalar, kN); }, 0},
        {[&] { fp8_decode_array(code_nv, val_bulk, kN, fmt); },
         [&] { consume_floats(val_bulk, kN); }, 0},
    };
#ifdef FP8LAB_HAVE_CUDA_FP8
    dec.push_back(
        {[&] {
             for (size_t i = 0; i < kN; i++)
                 val_nv[i] = __half2float(__half(__nv_cvt_fp8_to_halfraw(code_nv[i], kind)));
         },
         [&] { consume_floats(val_nv, kN); }, 0});
#endif
    time_rounds(dec);
    t_limit = dec[0].best;
    t_nv = kHaveNvidia ? dec[3].best : 0;
    print_row(info->name, "decode", "memory limit: read 1 B, write 4 B", t_limit, t_limit, t_nv);
    print_row(info->name, "decode", "fp8_decode, a loop", dec[1].best, t_limit, t_nv);
    print_row(info->name, "decode", "fp8_decode_array", dec[2].best, t_limit, t_nv);
    if (kHaveNvidia)
        print_row(info->name, "decode", "NVIDIA __nv_cvt_fp8_to_halfraw+__half2float", t_nv,
                  t_limit, t_nv);
    res.decode_rate = (double)kN / dec[2].best;
    res.decode_of_limit = t_limit / dec[2].best;

    if (!kHaveNvidia)
        memcpy(val_nv, val_scalar, kN * sizeof(float));
    ref = kHaveNvidia ? "NVIDIA" : "fp8_decode";
    bad = kHaveNvidia ? count_value_mismatches(val_scalar, val_nv, kN, &first) : 0;
    if (bad)
        printf("  decode: fp8_decode differs from NVIDIA on %zu codes, first 0x%02X: %a, "
               "NVIDIA %a\n",
               bad, code_nv[first], (double)val_scalar[first], (double)val_nv[first]);
    bad_bulk = count_value_mismatches(val_bulk, val_nv, kN, &first);
    if (bad_bulk)
        printf("  decode: fp8_decode_array differs from %s on %zu codes, first 0x%02X: %a, "
               "%s %a\n",
               ref, bad_bulk, code_nv[first], (double)val_bulk[first], ref,
               (double)val_nv[first]);
    printf("  decode outputs bit-identical to %s: %s\n", ref, bad + bad_bulk == 0 ? "yes" : "NO");
    res.identical = res.identical && bad + bad_bulk == 0;
    return res;
}

} /* namespace */

int main(void)
{
    int cpu = pin_to_one_core();
    printf("bench_codec: codec throughput, one thread%s, best of %d rounds of %zu elements;\n"
           "M elem/s = 10^6 elements per second; GB/s = the 5 bytes each element reads and\n"
           "writes, per second; of limit = the memory limit's time / this time (the limit\n"
           "is measured in the same rounds); vs NVIDIA = NVIDIA's time / this time\n",
           cpu >= 0 ? " pinned to one core" : " (not pinned: sched_setaffinity failed)", kReps,
           kN);
    if (!kHaveNvidia)
        printf("NVIDIA's host conversions: skipped (built without cuda_fp8.h, the CUDA "
               "Toolkit's);\nthe bulk outputs are checked against fp8_encode and fp8_decode "
               "instead\n");

    float *in = (float *)checked_malloc(kN * sizeof(float));
    uint8_t *code_scalar = (uint8_t *)checked_malloc(kN);
    uint8_t *code_bulk = (uint8_t *)checked_malloc(kN);
    uint8_t *code_nv = (uint8_t *)checked_malloc(kN);
    float *val_scalar = (float *)checked_malloc(kN * sizeof(float));
    float *val_bulk = (float *)checked_malloc(kN * sizeof(float));
    float *val_nv = (float *)checked_malloc(kN * sizeof(float));

    const fp8_format formats[] = {FP8_E4M3, FP8_E5M2};
    Result results[2];
    bool identical = true;
    for (int k = 0; k < 2; k++) {
        results[k] = bench_format(formats[k], in, code_scalar, code_bulk, code_nv, val_scalar,
                                  val_bulk, val_nv);
        identical = identical && results[k].identical;
    }

    printf("\ntargets (reported, never failed on):\n");
    for (int k = 0; k < 2; k++) {
        const char *name = fp8_info(formats[k])->name;
        printf("  %s encode, fp8_encode_array >= %.0f%% of the memory limit: %5.0f%%  %s\n",
               name, 100 * kLimitTarget, 100 * results[k].encode_of_limit,
               results[k].encode_of_limit >= kLimitTarget ? "met" : "NOT met");
        printf("  %s decode, fp8_decode_array >= %.0f%% of the memory limit: %5.0f%%  %s\n",
               name, 100 * kLimitTarget, 100 * results[k].decode_of_limit,
               results[k].decode_of_limit >= kLimitTarget ? "met" : "NOT met");
        if (kHaveNvidia)
            printf("  %s encode, fp8_encode_array >= %.1fx NVIDIA:  %5.2fx  %s\n", name,
                   kEncodeTarget, results[k].encode_ratio,
                   results[k].encode_ratio >= kEncodeTarget ? "met" : "NOT met");
        else
            printf("  %s encode, fp8_encode_array >= %.1fx NVIDIA:  skipped (no cuda_fp8.h)\n",
                   name, kEncodeTarget);
        printf("  %s decode, fp8_decode_array >= %.1f G elem/s: %5.2f G elem/s  %s\n", name,
               kDecodeTarget, results[k].decode_rate * 1e-9,
               results[k].decode_rate * 1e-9 >= kDecodeTarget ? "met" : "NOT met");
    }
    printf("checksum of all outputs: %016" PRIx64 "\n", g_checksum);
    printf("outputs bit-identical to %s: %s\n",
           kHaveNvidia ? "NVIDIA" : "fp8_encode and fp8_decode",
           identical ? "yes" : "NO (see above)");

    free(in);
    free(code_scalar);
    free(code_bulk);
    free(code_nv);
    free(val_scalar);
    free(val_bulk);
    free(val_nv);
    return identical ? EXIT_SUCCESS : EXIT_FAILURE;
}
