/*
 * test_mx.c - common/mx.c, the MX block quantizer lab5's GPU kernels are
 * compared with, checked against what it did not make:
 *   - every shared scale against log2 taken in double precision (floor for
 *     OCP's rule, ceil of log2(amax / elem_max) for the round-up rule),
 *     over a sweep of positive floats that includes every binade's edges,
 *     the subnormals and each format's max times every power of two;
 *   - every code and scale of lab4's golden matrices (data/golden/lab4, made
 *     by lab4's reference solution and checked by tests/lab4/test_goldens.c
 *     and tests/oracle/goldens_lab4.cpp), byte for byte;
 *   - the dequantized goldens, value for value.
 *
 *   build/tests/common/test_mx [LAB4_GOLDEN_DIR]    (default data/golden/lab4)
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "check_run.h"
#include "fp8.h"
#include "mx.h"
#include "npy.h"
#include "stats.h"

static const char *dir = "data/golden/lab4";

/* The E8M0 code of the scale by log2 in double: log2 of a float is exact
 * enough in double for floor and ceil to land right, since the double result
 * of log2 of a power of two is exact and no float lies within 2^-30 of one
 * without being it. */
static uint8_t scale_by_log2(float amax, fp8_format elem, mx_scale_rule rule)
{
    if (isnan(amax) || isinf(amax))
        return 0xFF;
    if (amax == 0.0f)
        return 0x00;
    double a = fabs((double)amax);
    double e = rule == MX_SCALE_CEIL ? ceil(log2(a / fp8_info(elem)->max_finite))
                                     : floor(log2(a)) - fp8_info(elem)->emax;
    if (e < -127)
        return 0x00;
    return e > 127 ? 0xFE : (uint8_t)(e + 127);
}

static void expect_scale(float amax, fp8_format elem, mx_scale_rule rule)
{
    uint8_t want = scale_by_log2(amax, elem, rule), got = mx_shared_scale(amax, elem, rule);
    ck_assert_msg(got == want, "mx_shared_scale(%a [0x%08x], %s, %s): 0x%02x, log2 says 0x%02x",
                  (double)amax, f32_bits(amax), fp8_info(elem)->name,
                  rule == MX_SCALE_CEIL ? "ceil" : "floor", got, want);
}

static const fp8_format formats[] = {FP8_E4M3, FP8_E5M2, FP8_E3M2, FP8_E2M3, FP8_E2M1};

START_TEST(scale_sweep)
{
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        for (int rule = 0; rule < 2; rule++) {
            /* Every 4099th positive float, and the first 4096 of them. */
            for (uint64_t u = 1; u < 0x7F800000u; u += u < 4096 ? 1 : 4099)
                expect_scale(f32_from_bits((uint32_t)u), formats[f], (mx_scale_rule)rule);
            /* Around every power of two and every max x 2^k. */
            float max = fp8_info(formats[f])->max_finite;
            for (int k = -160; k <= 127; k++) {
                float edges[2] = {ldexpf(1.0f, k), ldexpf(max, k - fp8_info(formats[f])->emax)};
                for (int i = 0; i < 2; i++) {
                    if (edges[i] == 0.0f || isinf(edges[i]))
                        continue;
                    expect_scale(edges[i], formats[f], (mx_scale_rule)rule);
                    expect_scale(nextafterf(edges[i], 0.0f), formats[f], (mx_scale_rule)rule);
                    expect_scale(nextafterf(edges[i], INFINITY), formats[f], (mx_scale_rule)rule);
                    expect_scale(-edges[i], formats[f], (mx_scale_rule)rule);
                }
            }
            expect_scale(NAN, formats[f], (mx_scale_rule)rule);
            expect_scale(INFINITY, formats[f], (mx_scale_rule)rule);
            expect_scale(0.0f, formats[f], (mx_scale_rule)rule);
            expect_scale(3.4028235e38f, formats[f], (mx_scale_rule)rule);
        }
    }
}
END_TEST

START_TEST(block_amax)
{
    const float a[] = {1.0f, -3.0f, 2.0f}, b[] = {1.0f, NAN, -3.0f}, c[] = {-INFINITY, 1.0f};
    ck_assert(stats_equal_exact(3.0f, mx_block_amax(a, 3)));
    ck_assert(isnan(mx_block_amax(b, 3)));
    ck_assert(stats_equal_exact(INFINITY, mx_block_amax(c, 2)));
    ck_assert(stats_equal_exact(0.0f, mx_block_amax(a, 0)));
    /* a block of 32 and one of 13 (whole runs of 4, then a tail): the
     * largest magnitude, or a NaN, at each place in turn, against a plain
     * loop over the values */
    for (size_t n = 13; n <= 32; n += 19)
        for (size_t at = 0; at < n; at++) {
            float x[32];
            for (size_t i = 0; i < n; i++)
                x[i] = (i % 3 == 0 ? -1.0f : 1.0f) * ldexpf(1.0f + (float)i / 64, (int)i % 7 - 3);
            x[at] = at % 2 ? -1e30f : 0x1p-149f * (float)(at + 1); /* largest, or tiny */
            float want = 0.0f;
            for (size_t i = 0; i < n; i++)
                want = fabsf(x[i]) > want ? fabsf(x[i]) : want;
            ck_assert_msg(stats_equal_exact(want, mx_block_amax(x, n)), "n %zu, at %zu: %a, want %a",
                          n, at, (double)mx_block_amax(x, n), (double)want);
            x[at] = -NAN;
            ck_assert_msg(isnan(mx_block_amax(x, n)), "n %zu, NaN at %zu", n, at);
            x[at] = -INFINITY;
            ck_assert(stats_equal_exact(INFINITY, mx_block_amax(x, n)));
            x[at] = -0.0f;
            for (size_t i = 0; i < n; i++)
                x[i] = -0.0f;
            ck_assert(f32_bits(mx_block_amax(x, n)) == 0); /* +0, not -0 */
        }
}
END_TEST

typedef struct golden {
    const char *set, *elem;
    fp8_format fmt;
    mx_scale_rule rule;
    size_t block;
} golden;

static const golden goldens[] = {
    {"main", "e4m3", FP8_E4M3, MX_SCALE_FLOOR, 32}, {"main", "e5m2", FP8_E5M2, MX_SCALE_FLOOR, 32},
    {"main", "e3m2", FP8_E3M2, MX_SCALE_FLOOR, 32}, {"main", "e2m3", FP8_E2M3, MX_SCALE_FLOOR, 32},
    {"main", "e2m1", FP8_E2M1, MX_SCALE_FLOOR, 32}, {"main", "e4m3", FP8_E4M3, MX_SCALE_CEIL, 32},
    {"main", "e2m1", FP8_E2M1, MX_SCALE_CEIL, 32},  {"main", "e4m3", FP8_E4M3, MX_SCALE_FLOOR, 16},
    {"tail", "e4m3", FP8_E4M3, MX_SCALE_FLOOR, 32}, {"tail", "e4m3", FP8_E4M3, MX_SCALE_CEIL, 32},
    {"special", "e4m3", FP8_E4M3, MX_SCALE_FLOOR, 32},
    {"special", "e2m1", FP8_E2M1, MX_SCALE_CEIL, 32},
};

static void load(const char *name, npy_dtype dtype, int ndim, const size_t *shape, npy_array *out)
{
    char path[512];
    lab_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(npy_load_expect(path, dtype, ndim, shape, out, &err) == 0, "%s", err.msg);
}

START_TEST(lab4_goldens)
{
    const golden *g = &goldens[_i];
    char name[200], stem[160];
    npy_array x, codes, scales, deq;
    snprintf(name, sizeof name, "mx_%s_x.npy", g->set);
    size_t xshape[2] = {0, 0};
    load(name, NPY_F32, 2, xshape, &x);
    size_t rows = x.shape[0], cols = x.shape[1], nb = (cols + g->block - 1) / g->block;
    snprintf(stem, sizeof stem, "mx_%s_%s_%s_b%zu", g->set, g->elem,
             g->rule == MX_SCALE_CEIL ? "ceil" : "floor", g->block);
    size_t cshape[2] = {rows, cols}, sshape[2] = {rows, nb};
    snprintf(name, sizeof name, "%s_codes.npy", stem);
    load(name, NPY_U8, 2, cshape, &codes);
    snprintf(name, sizeof name, "%s_scales.npy", stem);
    load(name, NPY_U8, 2, sshape, &scales);
    snprintf(name, sizeof name, "%s_deq.npy", stem);
    load(name, NPY_F32, 2, cshape, &deq);

    uint8_t *c = malloc(rows * cols), *s = malloc(rows * nb);
    float *d = malloc(rows * cols * sizeof *d);
    ck_assert(c && s && d);
    mx_quantize(x.data, rows, cols, g->block, g->fmt, g->rule, c, s);
    stats_mismatch ms = stats_find_mismatch_u8(scales.data, s, rows * nb);
    ck_assert_msg(ms.count == 0, "%s: scale %zu: 0x%02x, golden 0x%02x (%zu differ)", stem,
                  ms.first, s[ms.first], ((uint8_t *)scales.data)[ms.first], ms.count);
    stats_mismatch mc = stats_find_mismatch_u8(codes.data, c, rows * cols);
    ck_assert_msg(mc.count == 0, "%s: code %zu: 0x%02x, golden 0x%02x (%zu differ)", stem,
                  mc.first, c[mc.first], ((uint8_t *)codes.data)[mc.first], mc.count);
    mx_dequantize(codes.data, scales.data, rows, cols, g->block, g->fmt, d);
    stats_mismatch md = stats_find_mismatch_exact(deq.data, d, rows * cols);
    ck_assert_msg(md.count == 0, "%s: dequantized %zu: %a, golden %a (%zu differ)", stem,
                  md.first, (double)d[md.first], (double)((float *)deq.data)[md.first], md.count);
    free(c), free(s), free(d);
    npy_free(&x), npy_free(&codes), npy_free(&scales), npy_free(&deq);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("mx");
    TCase *tc = tcase_create("mx");
    /* scale_sweep took 16 s with two other tests at work on 2 cores: a
     * limit 19 times that (tests/bench/bench_margins.sh measures it) */
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, scale_sweep);
    tcase_add_test(tc, block_amax);
    tcase_add_loop_test(tc, lab4_goldens, 0, (int)(sizeof goldens / sizeof goldens[0]));
    suite_add_tcase(s, tc);
    return check_run(s);
}
