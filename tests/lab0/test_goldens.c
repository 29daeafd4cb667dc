/*
 * test_goldens.c - lab0's goldens, checked by something other than the
 * solution that made them:
 *   - every expected decode and encode against common/'s codec, which
 *     tests/oracle/sweep_nvidia.cpp checks against NVIDIA's cuda_fp8.h for
 *     all 2^32 floats (tests/oracle/goldens_lab0.cpp also checks the
 *     goldens against cuda_fp8.h directly);
 *   - cases worked out by hand from the OCP OFP8 spec, which must be among
 *     the inputs with the expected codes;
 *   - that each input set holds what its name says (the rne set has exact
 *     ties, the overflow set the threshold, the nan set only NaNs).
 *
 *   build/tests/lab0/test_goldens [DATA_DIR]    (default data/golden/lab0)
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "bits.h"
#include "fp8.h"
#include "npy.h"
#include "stats.h"

static const char *dir = "data/golden/lab0";
static const char *const sets[] = {"exact", "rne", "subnormal", "overflow", "nan", "random"};
static const fp8_format fmts[2] = {FP8_E4M3, FP8_E5M2};
static const char *const tags[2] = {"e4m3", "e5m2"};

typedef struct golden {
    npy_array x, q;
} golden;

static void load(golden *g, const char *set, int k)
{
    char path[512];
    lab_error err;
    snprintf(path, sizeof path, "%s/encode_%s_%s_x.npy", dir, set, tags[k]);
    ck_assert_msg(npy_load_expect(path, NPY_F32, 1, NULL, &g->x, &err) == 0, "%s", err.msg);
    size_t shape[2] = {g->x.count, 2};
    snprintf(path, sizeof path, "%s/encode_%s_%s_q.npy", dir, set, tags[k]);
    ck_assert_msg(npy_load_expect(path, NPY_U8, 2, shape, &g->q, &err) == 0, "%s", err.msg);
    ck_assert_msg(g->x.count > 0, "%s has no inputs", path);
}

static void release(golden *g)
{
    npy_free(&g->x);
    npy_free(&g->q);
}

/* The expected code for x in format k, mode col, or -1 if x is not an input. */
static int lookup(const char *set, int k, float x, int col)
{
    golden g;
    load(&g, set, k);
    int code = -1;
    const float *xs = g.x.data;
    for (size_t i = 0; i < g.x.count && code < 0; i++)
        if (f32_bits(xs[i]) == f32_bits(x))
            code = ((uint8_t *)g.q.data)[2 * i + (size_t)col];
    release(&g);
    return code;
}

START_TEST(decode_matches_codec)
{
    npy_array d;
    lab_error err;
    char path[512];
    size_t shape[2] = {2, 256};
    snprintf(path, sizeof path, "%s/decode.npy", dir);
    ck_assert_msg(npy_load_expect(path, NPY_F32, 2, shape, &d, &err) == 0, "%s", err.msg);
    const float *v = d.data;
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 256; c++)
            ck_assert_msg(stats_equal_exact(fp8_decode((uint8_t)c, fmts[k]), v[256 * k + c]),
                          "%s code 0x%02x: golden %g", tags[k], c, (double)v[256 * k + c]);
    npy_free(&d);
}
END_TEST

START_TEST(encode_matches_codec)
{
    int k = _i % 2;
    const char *set = sets[_i / 2];
    golden g;
    load(&g, set, k);
    const float *xs = g.x.data;
    const uint8_t *qs = g.q.data;
    for (size_t i = 0; i < g.x.count; i++) {
        uint8_t sat = fp8_encode(xs[i], fmts[k], true), nosat = fp8_encode(xs[i], fmts[k], false);
        ck_assert_msg(qs[2 * i] == sat && qs[2 * i + 1] == nosat,
                      "%s %s: x = %a: golden 0x%02x 0x%02x, codec 0x%02x 0x%02x", set, tags[k],
                      (double)xs[i], qs[2 * i], qs[2 * i + 1], sat, nosat);
    }
    release(&g);
}
END_TEST

/* Worked by hand: E4M3 has bias 7 and 3 mantissa bits, E5M2 bias 15 and 2. */
START_TEST(hand_worked_cases)
{
    /* 17 = 1.0001b x 2^4 is the tie between 16 (1.000b, even) and 18: 16 = 0x58. */
    ck_assert_int_eq(lookup("rne", 0, 17.0f, 0), 0x58);
    /* 19 is the tie between 18 (1.001b, odd) and 20 (1.010b, even): 20 = 0x5A. */
    ck_assert_int_eq(lookup("rne", 0, 19.0f, 0), 0x5A);
    /* 464 is the tie between 448 (1.110b x 2^8, even) and the missing 480: 0x7E,
       in both modes; the next float above it overflows. */
    ck_assert_int_eq(lookup("overflow", 0, 464.0f, 0), 0x7E);
    ck_assert_int_eq(lookup("overflow", 0, 464.0f, 1), 0x7E);
    ck_assert_int_eq(lookup("overflow", 0, nextafterf(464.0f, 1e9f), 0), 0x7E);
    ck_assert_int_eq(lookup("overflow", 0, nextafterf(464.0f, 1e9f), 1), 0x7F);
    ck_assert_int_eq(lookup("overflow", 0, -nextafterf(464.0f, 1e9f), 1), 0xFF);
    /* E5M2: 61440 is the tie between 57344 (1.11b x 2^15, odd) and 2^16 (even,
       past max): it overflows, to inf (0x7C) or to max (0x7B) when saturating. */
    ck_assert_int_eq(lookup("overflow", 1, 61440.0f, 0), 0x7B);
    ck_assert_int_eq(lookup("overflow", 1, 61440.0f, 1), 0x7C);
    ck_assert_int_eq(lookup("overflow", 1, nextafterf(61440.0f, 0), 1), 0x7B);
    ck_assert_int_eq(lookup("overflow", 1, -INFINITY, 0), 0xFB);
    ck_assert_int_eq(lookup("overflow", 1, -INFINITY, 1), 0xFC);
    /* E4M3's smallest subnormal is 2^-9 (0x01); half of it is a tie to the even 0. */
    ck_assert_int_eq(lookup("subnormal", 0, 0x1p-10f, 0), 0x00);
    ck_assert_int_eq(lookup("subnormal", 0, -0x1p-10f, 0), 0x80);
    ck_assert_int_eq(lookup("subnormal", 0, nextafterf(0x1p-10f, 1), 0), 0x01);
    /* 1.5 x 2^-9 is the tie between 0x01 (odd) and 0x02 (even). */
    ck_assert_int_eq(lookup("subnormal", 0, 0x1.8p-9f, 0), 0x02);
    /* E5M2's smallest subnormal is 2^-16. */
    ck_assert_int_eq(lookup("exact", 1, 0x1p-16f, 0), 0x01);
    ck_assert_int_eq(lookup("exact", 0, 448.0f, 1), 0x7E);
    ck_assert_int_eq(lookup("exact", 1, -57344.0f, 1), 0xFB);
    /* Any NaN gives 0x7F. */
    ck_assert_int_eq(lookup("nan", 0, f32_from_bits(0xffc00000u), 1), 0x7F);
    ck_assert_int_eq(lookup("nan", 1, f32_from_bits(0xffc00000u), 0), 0x7F);
}
END_TEST

START_TEST(sets_hold_what_they_say)
{
    for (int k = 0; k < 2; k++) {
        const fp8_format_info *info = fp8_info(fmts[k]);
        golden g;
        /* rne: normal range, and some inputs are exact ties (their value is
           exactly between the two codes around them). */
        load(&g, "rne", k);
        size_t ties = 0;
        for (size_t i = 0; i < g.x.count; i++) {
            float x = fabsf(((float *)g.x.data)[i]), lo, hi;
            ck_assert_msg(x >= info->min_normal && x <= info->max_finite, "rne %s: %g",
                          tags[k], (double)x);
            fp8_neighbours(x, fmts[k], &lo, &hi);
            ties += lo != hi && x - lo == hi - x;
        }
        ck_assert_msg(ties >= 100, "rne %s: only %zu ties", tags[k], ties);
        release(&g);
        /* subnormal: below the smallest normal. */
        load(&g, "subnormal", k);
        for (size_t i = 0; i < g.x.count; i++)
            ck_assert(fabsf(((float *)g.x.data)[i]) <= info->min_normal);
        release(&g);
        /* nan: only NaNs; exact: only the format's own values. */
        load(&g, "nan", k);
        for (size_t i = 0; i < g.x.count; i++)
            ck_assert(isnan(((float *)g.x.data)[i]));
        release(&g);
        load(&g, "exact", k);
        for (size_t i = 0; i < g.x.count; i++) {
            float x = ((float *)g.x.data)[i];
            ck_assert(stats_equal_exact(fp8_decode(fp8_encode(x, fmts[k], true), fmts[k]), x));
        }
        ck_assert_uint_eq(g.x.count, k == 0 ? 254 : 248); /* 256 less the NaN (and inf) codes */
        release(&g);
    }
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab0 goldens");
    TCase *tc = tcase_create("goldens");
    tcase_add_test(tc, decode_matches_codec);
    tcase_add_loop_test(tc, encode_matches_codec, 0, 12);
    tcase_add_test(tc, hand_worked_cases);
    tcase_add_test(tc, sets_hold_what_they_say);
    suite_add_tcase(s, tc);
    return check_run(s);
}
