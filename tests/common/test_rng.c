/*
 * test_rng.c - checks common/rng.c against PCG32's published demo output,
 * against values worked out from its recipes, and statistically.
 *
 * The statistical checks use fixed seeds, so they are deterministic; their
 * tolerances are several standard errors wide (each states its own), wide
 * enough that a correct generator passes and narrow enough that a wrong
 * range, scale or bias fails.
 *
 * Not for: judging PCG32's quality as a generator (TestU01 and PractRand
 * have done that), nor timing.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define N_STAT 1000000

/* pcg32-demo (pcg-c-basic) seeds pcg32_srandom_r(&rng, 42, 54) and prints
 * Round 1: six pcg32_random_r, then 65 coins (pcg32_boundedrand_r(&rng, 2),
 * H for 1), then 33 rolls (pcg32_boundedrand_r(&rng, 6) + 1). */
static const uint32_t demo_u32[6] = {
    0xa15c02b7u, 0x7b47f409u, 0xba1d3330u, 0x83d2f293u, 0xbfa4784bu, 0xcbed606eu,
};
static const char demo_coins[] =
    "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT";
static const int demo_rolls[33] = {
    3, 4, 1, 1, 2, 2, 3, 2, 4, 3, 2, 4, 3, 3, 5, 2, 3,
    1, 3, 1, 5, 1, 4, 1, 5, 6, 4, 6, 6, 2, 6, 3, 3,
};

/* A state whose next output is 0xffffffff, worked out by hand from XSH-RR:
 * bits 41..58 set gives ((s >> 18) ^ s) >> 27 == 0xffffffff in its low 32
 * bits, and s >> 59 == 0, so no rotation. */
static const uint64_t state_before_all_ones = 0x07fffe0000000000ull;

/* ---- the published stream ------------------------------------------------ */

START_TEST(test_published_u32)
{
    rng_state r;
    rng_seed(&r, 42, 54);
    for (int i = 0; i < 6; i++)
        ck_assert_msg(rng_u32(&r) == demo_u32[i], "draw %d", i);
}
END_TEST

START_TEST(test_published_coins_and_rolls)
{
    rng_state r;
    rng_seed(&r, 42, 54);
    for (int i = 0; i < 6; i++)
        rng_u32(&r);
    for (int i = 0; i < 65; i++) {
        char c = rng_below(&r, 2) ? 'H' : 'T';
        ck_assert_msg(c == demo_coins[i], "coin %d: got %c", i, c);
    }
    for (int i = 0; i < 33; i++) {
        int roll = (int)rng_below(&r, 6) + 1;
        ck_assert_msg(roll == demo_rolls[i], "roll %d: got %d, want %d", i, roll,
                      demo_rolls[i]);
    }
}
END_TEST

START_TEST(test_seed_is_srandom)
{
    /* pcg32_srandom_r by hand for (42, 54): inc = 109, state after the first
     * step is inc, then += 42, then one more step. */
    rng_state r;
    rng_seed(&r, 42, 54);
    uint64_t inc = (54u << 1) | 1u;
    uint64_t state = (inc + 42u) * 6364136223846793005ull + inc;
    ck_assert_uint_eq(r.inc, inc);
    ck_assert_uint_eq(r.state, state);
}
END_TEST

START_TEST(test_other_streams_differ)
{
    rng_state a, b, c;
    rng_seed(&a, 42, 54);
    rng_seed(&b, 42, 55); /* same initstate, next stream */
    rng_seed(&c, 43, 54); /* same stream, other initstate */
    int same_b = 0, same_c = 0;
    for (int i = 0; i < 1000; i++) {
        uint32_t x = rng_u32(&a);
        same_b += rng_u32(&b) == x;
        same_c += rng_u32(&c) == x;
    }
    /* Chance agreement is 2^-32 a draw; allow one. */
    ck_assert_int_le(same_b, 1);
    ck_assert_int_le(same_c, 1);
}
END_TEST

START_TEST(test_deterministic)
{
    rng_state a, b;
    rng_seed(&a, 2024, 7);
    rng_seed(&b, 2024, 7);
    long differ = 0;
    for (int i = 0; i < 10000; i++) {
        differ += rng_u32(&a) != rng_u32(&b);
        float u = rng_uniform(&a), v = rng_uniform(&b);
        differ += memcmp(&u, &v, sizeof u) != 0;
        differ += rng_below(&a, 1000) != rng_below(&b, 1000);
        float x = rng_normal(&a), y = rng_normal(&b);
        differ += memcmp(&x, &y, sizeof x) != 0;
    }
    ck_assert_int_eq(differ, 0);
}
END_TEST

/* ---- rng_below ---------------------------------------------------------- */

START_TEST(test_below_one_is_zero_and_one_draw)
{
    rng_state a, b;
    rng_seed(&a, 5, 6);
    rng_seed(&b, 5, 6);
    for (int i = 0; i < 100; i++) {
        ck_assert_uint_eq(rng_below(&a, 1), 0);
        rng_u32(&b);
    }
    ck_assert_uint_eq(a.state, b.state);
}
END_TEST

START_TEST(test_below_zero_draws_nothing)
{
    rng_state a, b;
    rng_seed(&a, 5, 6);
    b = a;
    ck_assert_uint_eq(rng_below(&a, 0), 0);
    ck_assert_uint_eq(a.state, b.state);
}
END_TEST

START_TEST(test_below_power_of_two_is_low_bits)
{
    /* 2^32 % 2^k == 0: nothing is rejected, the result is r mod 2^k. */
    rng_state a, b;
    rng_seed(&a, 11, 12);
    rng_seed(&b, 11, 12);
    for (int i = 0; i < 1000; i++) {
        ck_assert_uint_eq(rng_below(&a, 256), rng_u32(&b) & 0xffu);
        ck_assert_uint_eq(rng_below(&a, 0x80000000u), rng_u32(&b) & 0x7fffffffu);
    }
}
END_TEST

START_TEST(test_below_bounds)
{
    static const uint32_t bounds[] = {2, 3, 7, 10, 1000, 0x80000001u, 0xc0000000u,
                                      0xfffffffeu, 0xffffffffu};
    rng_state r;
    rng_seed(&r, 99, 1);
    for (size_t k = 0; k < sizeof bounds / sizeof bounds[0]; k++) {
        long out_of_range = 0;
        for (int i = 0; i < 10000; i++)
            out_of_range += rng_below(&r, bounds[k]) >= bounds[k];
        ck_assert_msg(out_of_range == 0, "bound %u: %ld out of range", bounds[k],
                      out_of_range);
    }
}
END_TEST

START_TEST(test_below_chi_square)
{
    /* 70000 draws in [0, 7): 10000 expected per cell; chi-square with 6
     * degrees of freedom exceeds 22.46 with probability 0.001. */
    enum { CELLS = 7, DRAWS = 70000 };
    long count[CELLS] = {0};
    rng_state r;
    rng_seed(&r, 12345, 678);
    for (int i = 0; i < DRAWS; i++)
        count[rng_below(&r, CELLS)]++;
    double expected = (double)DRAWS / CELLS, chi2 = 0.0;
    for (int c = 0; c < CELLS; c++)
        chi2 += (count[c] - expected) * (count[c] - expected) / expected;
    ck_assert_msg(chi2 < 22.46, "chi-square %g", chi2);
}
END_TEST

START_TEST(test_below_unbiased_for_large_bound)
{
    /* bound = 3 * 2^30. Plain r % bound maps two of every 2^32 outputs onto
     * each value below 2^30 and one onto the rest, so a third of the range
     * would get half the draws. Unbiased, it gets 1/3; over 100000 draws the
     * standard error is 0.0015, tolerance 0.01. */
    enum { DRAWS = 100000 };
    rng_state r;
    rng_seed(&r, 31, 41);
    long low = 0;
    for (int i = 0; i < DRAWS; i++)
        low += rng_below(&r, 0xc0000000u) < 0x40000000u;
    double frac = (double)low / DRAWS;
    ck_assert_msg(fabs(frac - 1.0 / 3.0) < 0.01, "fraction below 2^30: %g", frac);
}
END_TEST

START_TEST(test_below_rejects_low_draws)
{
    /* For bound = 3 * 2^30 the threshold 2^32 % bound is 2^30: draws below
     * it are skipped, the others reduced mod bound. */
    rng_state a, b;
    rng_seed(&a, 8, 9);
    rng_seed(&b, 8, 9);
    int rejected = 0;
    for (int i = 0; i < 1000; i++) {
        uint32_t got = rng_below(&a, 0xc0000000u);
        uint32_t r = rng_u32(&b);
        while (r < 0x40000000u) {
            r = rng_u32(&b);
            rejected++;
        }
        ck_assert_uint_eq(got, r % 0xc0000000u);
    }
    ck_assert_int_gt(rejected, 100); /* about 1000 / 3 expected */
}
END_TEST

/* ---- rng_uniform -------------------------------------------------------- */

START_TEST(test_uniform_first_value)
{
    /* 0xa15c02b7 >> 8 = 0xa15c02 = 10575874; / 2^24 = 0.6303101778030396. */
    rng_state r;
    rng_seed(&r, 42, 54);
    ck_assert_float_eq(rng_uniform(&r), 0.6303101778030396f);
}
END_TEST

START_TEST(test_uniform_top_is_below_one)
{
    /* The largest draw gives (2^24 - 1) / 2^24, never 1. */
    rng_state r = {state_before_all_ones, 1};
    ck_assert_float_eq(rng_uniform(&r), 1.0f - 0x1p-24f);
}
END_TEST

START_TEST(test_uniform_moments)
{
    /* U[0,1): mean 1/2 (standard error sqrt(1/12/N) = 2.9e-4, tolerance
     * 2e-3), variance 1/12 (standard error sqrt((1/80 - 1/144)/N) = 7.5e-5,
     * tolerance 1e-3). Every value a multiple of 2^-24 in [0, 1). */
    rng_state r;
    rng_seed(&r, 2718, 28);
    double sum = 0.0, sumsq = 0.0;
    long bad = 0;
    for (int i = 0; i < N_STAT; i++) {
        float u = rng_uniform(&r);
        bad += !(u >= 0.0f && u < 1.0f) || u * 0x1p24f != floorf(u * 0x1p24f);
        sum += u;
        sumsq += (double)u * u;
    }
    double mean = sum / N_STAT, var = sumsq / N_STAT - mean * mean;
    ck_assert_int_eq(bad, 0);
    ck_assert_msg(fabs(mean - 0.5) < 2e-3, "mean %g", mean);
    ck_assert_msg(fabs(var - 1.0 / 12.0) < 1e-3, "variance %g", var);
}
END_TEST

/* ---- rng_normal --------------------------------------------------------- */

START_TEST(test_normal_first_values)
{
    /* From the published draws and the recipe, evaluated in 50-digit
     * arithmetic and rounded to float (each at least 0.09 float ulp from a
     * rounding boundary):
     *   u1 = (0xa15c02b7 + 1) / 2^32, u2 = 0x7b47f409 / 2^32: -0.954336976535...
     *   u1 = (0xba1d3330 + 1) / 2^32, u2 = 0x83d2f293 / 2^32: -0.795006342694...
     *   u1 = (0xbfa4784b + 1) / 2^32, u2 = 0xcbed606e / 2^32:  0.219600537520... */
    rng_state r;
    rng_seed(&r, 42, 54);
    ck_assert_float_eq(rng_normal(&r), -0x1.e89edcp-1f);
    ck_assert_float_eq(rng_normal(&r), -0x1.970b12p-1f);
    ck_assert_float_eq(rng_normal(&r), 0x1.c1bdeep-3f);
}
END_TEST

START_TEST(test_normal_extremes)
{
    /* State 0 with inc 1 outputs 0 and then 0 (XSH-RR of 0 and of 1 is 0):
     * u1 = 2^-32, u2 = 0, z = sqrt(64 ln 2) = 6.66043688926... the largest
     * value the recipe can give. A first draw of 0xffffffff gives u1 = 1,
     * log(u1) = 0 and z = 0 whatever u2 is. */
    rng_state r = {0, 1};
    ck_assert_float_eq(rng_normal(&r), 0x1.aa449ap+2f);
    r = (rng_state){state_before_all_ones, 1};
    ck_assert_float_eq(rng_normal(&r), 0.0f);
}
END_TEST

START_TEST(test_normal_uses_two_draws)
{
    rng_state a, b;
    rng_seed(&a, 77, 3);
    rng_seed(&b, 77, 3);
    for (int i = 0; i < 1001; i++) {
        rng_normal(&a);
        rng_u32(&b);
        rng_u32(&b);
    }
    ck_assert_uint_eq(a.state, b.state);
}
END_TEST

START_TEST(test_normal_moments_and_tail)
{
    /* N(0,1) over 10^6 draws: mean 0 (standard error 1e-3, tolerance 5e-3);
     * variance 1 (standard error sqrt(2/N) = 1.4e-3, tolerance 1e-2);
     * P(|z| > 3) = erfc(3 / sqrt 2) = 0.0026998 (standard error 5.2e-5,
     * tolerance 4e-4). The recipe bounds |z| by sqrt(64 ln 2) = 6.66044. */
    rng_state r;
    rng_seed(&r, 314159, 26);
    double sum = 0.0, sumsq = 0.0;
    long tail = 0, bad = 0;
    for (int i = 0; i < N_STAT; i++) {
        float z = rng_normal(&r);
        bad += !(isfinite(z) && fabsf(z) <= 0x1.aa449ap+2f);
        sum += z;
        sumsq += (double)z * z;
        tail += fabsf(z) > 3.0f;
    }
    double mean = sum / N_STAT, var = sumsq / N_STAT - mean * mean;
    double frac = (double)tail / N_STAT;
    ck_assert_int_eq(bad, 0);
    ck_assert_msg(fabs(mean) < 5e-3, "mean %g", mean);
    ck_assert_msg(fabs(var - 1.0) < 1e-2, "variance %g", var);
    ck_assert_msg(fabs(frac - 0.0026998) < 4e-4, "tail fraction %g", frac);
}
END_TEST

/* ---- fill helpers ------------------------------------------------------- */

START_TEST(test_fill_uniform_first_value)
{
    /* -1 + 2 * 10575874 / 2^24 = 0.2606203556060791, exact in float. */
    float out[3];
    rng_state r;
    rng_seed(&r, 42, 54);
    rng_fill_uniform(&r, out, 3, -1.0f, 1.0f);
    ck_assert_float_eq(out[0], 0.2606203556060791f);
}
END_TEST

START_TEST(test_fill_uniform_stays_below_hi)
{
    /* With u = 1 - 2^-24, 1 + u rounds (ties to even) to 2.0f; the fill must
     * give the float below 2 instead. */
    float out[1];
    rng_state r = {state_before_all_ones, 1};
    rng_fill_uniform(&r, out, 1, 1.0f, 2.0f);
    ck_assert_float_eq(out[0], 2.0f - 0x1p-23f);
}
END_TEST

START_TEST(test_fill_uniform_range_and_mean)
{
    /* U[-2,3): mean 0.5, standard deviation 5/sqrt(12) = 1.44; over 10^5
     * values the standard error is 4.6e-3, tolerance 0.03. */
    enum { N = 100000 };
    float *out = malloc(N * sizeof *out);
    ck_assert_ptr_nonnull(out);
    rng_state r;
    rng_seed(&r, 1, 2);
    rng_fill_uniform(&r, out, N, -2.0f, 3.0f);
    double sum = 0.0;
    long bad = 0;
    for (int i = 0; i < N; i++) {
        bad += !(out[i] >= -2.0f && out[i] < 3.0f);
        sum += out[i];
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_msg(fabs(sum / N - 0.5) < 0.03, "mean %g", sum / N);
    free(out);
}
END_TEST

START_TEST(test_fill_uniform_empty_interval)
{
    float out[4];
    rng_state r;
    rng_seed(&r, 1, 2);
    rng_fill_uniform(&r, out, 4, 1.5f, 1.5f);
    for (int i = 0; i < 4; i++)
        ck_assert_float_eq(out[i], 1.5f);
}
END_TEST

START_TEST(test_fill_normal_matches_calls)
{
    /* mean 0, stddev 1 is rng_normal itself, call for call. */
    enum { N = 1000 };
    float out[N];
    rng_state a, b;
    rng_seed(&a, 6, 28);
    rng_seed(&b, 6, 28);
    rng_fill_normal(&a, out, N, 0.0f, 1.0f);
    for (int i = 0; i < N; i++)
        ck_assert_float_eq(out[i], rng_normal(&b));
    ck_assert_uint_eq(a.state, b.state);
}
END_TEST

START_TEST(test_fill_normal_moments)
{
    /* N(3, 2^2) over 10^5: mean within 0.03 (standard error 6.3e-3), standard
     * deviation within 0.03 (standard error 4.5e-3). */
    enum { N = 100000 };
    float *out = malloc(N * sizeof *out);
    ck_assert_ptr_nonnull(out);
    rng_state r;
    rng_seed(&r, 3, 4);
    rng_fill_normal(&r, out, N, 3.0f, 2.0f);
    double sum = 0.0, sumsq = 0.0;
    for (int i = 0; i < N; i++) {
        sum += out[i];
        sumsq += (double)out[i] * out[i];
    }
    double mean = sum / N, sd = sqrt(sumsq / N - mean * mean);
    ck_assert_msg(fabs(mean - 3.0) < 0.03, "mean %g", mean);
    ck_assert_msg(fabs(sd - 2.0) < 0.03, "stddev %g", sd);
    free(out);
}
END_TEST

START_TEST(test_fill_zero_length)
{
    float out[1] = {42.0f};
    rng_state a, b;
    rng_seed(&a, 1, 1);
    b = a;
    rng_fill_uniform(&a, out, 0, 0.0f, 1.0f);
    rng_fill_normal(&a, out, 0, 0.0f, 1.0f);
    ck_assert_float_eq(out[0], 42.0f);
    ck_assert_uint_eq(a.state, b.state);
}
END_TEST

static Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");

    TCase *stream = tcase_create("stream");
    tcase_add_test(stream, test_published_u32);
    tcase_add_test(stream, test_published_coins_and_rolls);
    tcase_add_test(stream, test_seed_is_srandom);
    tcase_add_test(stream, test_other_streams_differ);
    tcase_add_test(stream, test_deterministic);
    suite_add_tcase(s, stream);

    TCase *below = tcase_create("below");
    tcase_add_test(below, test_below_one_is_zero_and_one_draw);
    tcase_add_test(below, test_below_zero_draws_nothing);
    tcase_add_test(below, test_below_power_of_two_is_low_bits);
    tcase_add_test(below, test_below_bounds);
    tcase_add_test(below, test_below_chi_square);
    tcase_add_test(below, test_below_unbiased_for_large_bound);
    tcase_add_test(below, test_below_rejects_low_draws);
    suite_add_tcase(s, below);

    TCase *real = tcase_create("uniform_normal");
    tcase_set_timeout(real, 60);
    tcase_add_test(real, test_uniform_first_value);
    tcase_add_test(real, test_uniform_top_is_below_one);
    tcase_add_test(real, test_uniform_moments);
    tcase_add_test(real, test_normal_first_values);
    tcase_add_test(real, test_normal_extremes);
    tcase_add_test(real, test_normal_uses_two_draws);
    tcase_add_test(real, test_normal_moments_and_tail);
    suite_add_tcase(s, real);

    TCase *fill = tcase_create("fill");
    tcase_add_test(fill, test_fill_uniform_first_value);
    tcase_add_test(fill, test_fill_uniform_stays_below_hi);
    tcase_add_test(fill, test_fill_uniform_range_and_mean);
    tcase_add_test(fill, test_fill_uniform_empty_interval);
    tcase_add_test(fill, test_fill_normal_matches_calls);
    tcase_add_test(fill, test_fill_normal_moments);
    tcase_add_test(fill, test_fill_zero_length);
    suite_add_tcase(s, fill);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rng_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
