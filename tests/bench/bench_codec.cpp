/*
 * bench_codec.cpp - throughput of the codec of common/fp8.h against NVIDIA's
 * host conversions (cuda_fp8.h), on the same inputs, on one core.
 *
 * For E4M3 and E5M2 (saturating, round to nearest even) it times, best of 5:
 *   encode  fp8_encode in a loop, fp8_encode_array, and
 *           __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...) in a loop;
 *   decode  fp8_decode in a loop, fp8_decode_array, and
 *           __nv_cvt_fp8_to_halfraw followed by __half2float in a loop;
 * then checks that all three gave the same bits. Inputs: 2^24 floats drawn
 * from N(0, sigma) with sigma = max finite / 4 for the format (PCG32, fixed
 * seed), which spans the format's range with a few values past max (they
 * saturate) and a few in its subnormal range; the counts are printed.
 *
 * Prints a table and the course's targets (encode at least 2x NVIDIA,
 * decode at least 1.5 G elements/s) with whether each is met. Timings never
 * fail the run; a correctness mismatch does (exit status 1).
 *
 * Build and run:  make bench
 * (this file as C++17 against libfp8lab.a, with the CUDA include directory
 * given as -isystem by the build).
 */
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bits.h"
#include "fp8.h"

namespace {

const size_t kN = (size_t)1 << 24; /* elements per run */
const int kReps = 5;               /* timings taken; the best is reported */
const uint64_t kSeed = 42, kStream = 54;

const double kEncodeTarget = 2.0; /* library bulk encode / NVIDIA */
const double kDecodeTarget = 1.5; /* G elements/s, library bulk decode */

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

/* Best-of-kReps time of one call of body, in seconds; after each call
 * consume() reads the output. */
template <typename Body, typename Consume>
double best_time(Body body, Consume consume)
{
    double best = INFINITY;
    for (int r = 0; r < kReps; r++) {
        double t0 = now_seconds();
        body();
        double t = now_seconds() - t0;
        consume();
        if (t < best)
            best = t;
    }
    return best;
}

__nv_fp8_interpretation_t nv_kind(fp8_format fmt)
{
    return fmt == FP8_E4M3 ? __NV_E4M3 : __NV_E5M2;
}

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

void print_row(const char *fmt_name, const char *op, const char *impl, double seconds,
               double nvidia_seconds)
{
    double rate = (double)kN / seconds;
    printf("  %-5s %-7s %-44s %9.1f %8.2f %8.2fx\n", fmt_name, op, impl, rate * 1e-6,
           seconds * 1e9 / (double)kN, nvidia_seconds / seconds);
}

struct Result {
    double encode_ratio; /* library bulk over NVIDIA */
    double decode_rate;  /* library bulk, elements/s */
    bool identical;
};

Result bench_format(fp8_format fmt, float *in, uint8_t *code_scalar, uint8_t *code_bulk,
                    uint8_t *code_nv, float *val_scalar, float *val_bulk, float *val_nv)
{
    const fp8_format_info *info = fp8_info(fmt);
    const __nv_fp8_interpretation_t kind = nv_kind(fmt);
    Result res = {0, 0, true};

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
    printf("  %-5s %-7s %-44s %9s %8s %9s\n", "fmt", "op", "implementation", "M elem/s",
           "ns/elem", "vs NVIDIA");

    /* encode */
    double t_nv = best_time(
        [&] {
            for (size_t i = 0; i < kN; i++)
                code_nv[i] = __nv_cvt_float_to_fp8(in[i], __NV_SATFINITE, kind);
        },
        [&] { consume_bytes(code_nv, kN); });
    double t_scalar = best_time(
        [&] {
            for (size_t i = 0; i < kN; i++)
                code_scalar[i] = fp8_encode(in[i], fmt, true);
        },
        [&] { consume_bytes(code_scalar, kN); });
    double t_bulk = best_time([&] { fp8_encode_array(in, code_bulk, kN, fmt, true); },
                              [&] { consume_bytes(code_bulk, kN); });
    print_row(info->name, "encode", "fp8_encode, a loop", t_scalar, t_nv);
    print_row(info->name, "encode", "fp8_encode_array", t_bulk, t_nv);
    print_row(info->name, "encode", "NVIDIA __nv_cvt_float_to_fp8, a loop", t_nv, t_nv);
    res.encode_ratio = t_nv / t_bulk;

    size_t first = 0;
    size_t bad = count_byte_mismatches(code_scalar, code_nv, kN, &first);
    if (bad)
        printf("  encode: fp8_encode differs from NVIDIA on %zu inputs, first x = %a: 0x%02X, "
               "NVIDIA 0x%02X\n",
               bad, (double)in[first], code_scalar[first], code_nv[first]);
    size_t bad_bulk = count_byte_mismatches(code_bulk, code_nv, kN, &first);
    if (bad_bulk)
        printf("  encode: fp8_encode_array differs from NVIDIA on %zu inputs, first x = %a: "
               "0x%02X, NVIDIA 0x%02X\n",
               bad_bulk, (double)in[first], code_bulk[first], code_nv[first]);
    printf("  encode outputs bit-identical: %s\n", bad + bad_bulk == 0 ? "yes" : "NO");
    res.identical = res.identical && bad + bad_bulk == 0;

    /* decode the codes NVIDIA produced: a realistic mix of codes */
    t_nv = best_time(
        [&] {
            for (size_t i = 0; i < kN; i++)
                val_nv[i] = __half2float(__half(__nv_cvt_fp8_to_halfraw(code_nv[i], kind)));
        },
        [&] { consume_floats(val_nv, kN); });
    t_scalar = best_time(
        [&] {
            for (size_t i = 0; i < kN; i++)
                val_scalar[i] = fp8_decode(code_nv[i], fmt);
        },
        [&] { consume_floats(val_scalar, kN); });
    t_bulk = best_time([&] { fp8_decode_array(code_nv, val_bulk, kN, fmt); },
                       [&] { consume_floats(val_bulk, kN); });
    print_row(info->name, "decode", "fp8_decode, a loop", t_scalar, t_nv);
    print_row(info->name, "decode", "fp8_decode_array", t_bulk, t_nv);
    print_row(info->name, "decode", "NVIDIA __nv_cvt_fp8_to_halfraw+__half2float", t_nv, t_nv);
    res.decode_rate = (double)kN / t_bulk;

    bad = count_value_mismatches(val_scalar, val_nv, kN, &first);
    if (bad)
        printf("  decode: fp8_decode differs from NVIDIA on %zu codes, first 0x%02X: %a, "
               "NVIDIA %a\n",
               bad, code_nv[first], (double)val_scalar[first], (double)val_nv[first]);
    bad_bulk = count_value_mismatches(val_bulk, val_nv, kN, &first);
    if (bad_bulk)
        printf("  decode: fp8_decode_array differs from NVIDIA on %zu codes, first 0x%02X: "
               "%a, NVIDIA %a\n",
               bad_bulk, code_nv[first], (double)val_bulk[first], (double)val_nv[first]);
    printf("  decode outputs bit-identical: %s\n", bad + bad_bulk == 0 ? "yes" : "NO");
    res.identical = res.identical && bad + bad_bulk == 0;
    return res;
}

} /* namespace */

int main(void)
{
    int cpu = pin_to_one_core();
    printf("bench_codec: codec throughput, one thread%s, best of %d runs of %zu elements;\n"
           "M elem/s = 10^6 elements per second; vs NVIDIA = NVIDIA's time / this time\n",
           cpu >= 0 ? " pinned to one core" : " (not pinned: sched_setaffinity failed)", kReps,
           kN);

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
        printf("  %s encode, fp8_encode_array >= %.1fx NVIDIA:  %5.2fx  %s\n", name,
               kEncodeTarget, results[k].encode_ratio,
               results[k].encode_ratio >= kEncodeTarget ? "met" : "NOT met");
        printf("  %s decode, fp8_decode_array >= %.1f G elem/s: %5.2f G elem/s  %s\n", name,
               kDecodeTarget, results[k].decode_rate * 1e-9,
               results[k].decode_rate * 1e-9 >= kDecodeTarget ? "met" : "NOT met");
    }
    printf("checksum of all outputs: %016" PRIx64 "\n", g_checksum);
    printf("outputs bit-identical to NVIDIA: %s\n", identical ? "yes" : "NO (see above)");

    free(in);
    free(code_scalar);
    free(code_bulk);
    free(code_nv);
    free(val_scalar);
    free(val_bulk);
    free(val_nv);
    return identical ? EXIT_SUCCESS : EXIT_FAILURE;
}
