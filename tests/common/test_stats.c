/*
 * test_stats.c - checks common/stats.c on small arrays worked by hand, on
 * closed forms, and on every NaN, infinity and signed-zero case that the
 * rules in stats.h name.
 *
 * Expected values are worked out in the comments beside them; none comes
 * from running the code under test.
 *
 * Not for: speed, or large random arrays.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static float bits_to_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

#define NAN_QUIET_POS bits_to_float(0x7fc00000u)
#define NAN_QUIET_NEG bits_to_float(0xffc00000u)
#define NAN_PAYLOAD bits_to_float(0x7f800001u)

/* ---- max abs / max rel -------------------------------------------------- */

START_TEST(test_max_abs_err_hand)
{
    /* |1.5-1| = 0.5, |-2-(-2)| = 0, |2-3| = 1, 0: max 1. */
    const float ref[] = {1.0f, -2.0f, 3.0f, 0.5f};
    const float got[] = {1.5f, -2.0f, 2.0f, 0.5f};
    ck_assert_double_eq(stats_max_abs_err(ref, got, 4), 1.0);
    /* The first two only: 0.5. */
    ck_assert_double_eq(stats_max_abs_err(ref, got, 2), 0.5);
}
END_TEST

START_TEST(test_max_abs_err_in_double)
{
    /* FLT_MAX - (-FLT_MAX) overflows float but not double: 2 * FLT_MAX. */
    const float ref[] = {-FLT_MAX};
    const float got[] = {FLT_MAX};
    ck_assert_double_eq(stats_max_abs_err(ref, got, 1), 2.0 * (double)FLT_MAX);
}
END_TEST

START_TEST(test_max_abs_err_special)
{
    const float ref[] = {1.0f, 5.0f};
    const float nan_first[] = {NAN, 5.0f};
    const float nan_last[] = {9.0f, NAN};  /* a NaN after a large error */
    ck_assert(isnan(stats_max_abs_err(ref, nan_first, 2)));
    ck_assert(isnan(stats_max_abs_err(ref, nan_last, 2)));
    ck_assert(isnan(stats_max_abs_err(nan_first, ref, 2)));

    const float inf[] = {INFINITY}, ninf[] = {-INFINITY}, one[] = {1.0f};
    const float pz[] = {0.0f}, nz[] = {-0.0f};
    ck_assert_double_eq(stats_max_abs_err(inf, inf, 1), 0.0);
    ck_assert_double_infinite(stats_max_abs_err(inf, ninf, 1));
    ck_assert_double_infinite(stats_max_abs_err(one, inf, 1));
    ck_assert_double_eq(stats_max_abs_err(pz, nz, 1), 0.0);
}
END_TEST

START_TEST(test_max_rel_err_hand)
{
    /* |5-4|/4 = 0.25, |-5-(-8)|/8 = 0.375, 0: max 0.375. */
    const float ref[] = {4.0f, -8.0f, 10.0f};
    const float got[] = {5.0f, -5.0f, 10.0f};
    ck_assert_double_eq(stats_max_rel_err(ref, got, 3), 0.375);
}
END_TEST

START_TEST(test_max_rel_err_zero_ref)
{
    /* ref 0 and got 0 (of either sign): 0. ref 0 and got nonzero: +inf. */
    const float ref[] = {0.0f, 0.0f, 2.0f};
    const float ok[] = {-0.0f, 0.0f, 3.0f};    /* 0, 0, 0.5 */
    const float bad[] = {0.0f, 1e-30f, 2.0f};  /* 0, inf, 0 */
    ck_assert_double_eq(stats_max_rel_err(ref, ok, 3), 0.5);
    ck_assert_double_infinite(stats_max_rel_err(ref, bad, 3));
    ck_assert(stats_max_rel_err(ref, bad, 3) > 0);
}
END_TEST

START_TEST(test_max_rel_err_special)
{
    const float inf[] = {INFINITY}, one[] = {1.0f}, nan[] = {NAN};
    ck_assert_double_eq(stats_max_rel_err(inf, inf, 1), 0.0);
    ck_assert_double_infinite(stats_max_rel_err(inf, one, 1));
    ck_assert_double_infinite(stats_max_rel_err(one, inf, 1));
    ck_assert(isnan(stats_max_rel_err(one, nan, 1)));
    ck_assert(isnan(stats_max_rel_err(nan, one, 1)));
    ck_assert(isnan(stats_max_rel_err(nan, nan, 1)));
}
END_TEST

/* ---- mse / sqnr --------------------------------------------------------- */

START_TEST(test_mse_hand)
{
    /* Differences 0, 1, -2, 0; squares 0 + 1 + 4 + 0 = 5; / 4 = 1.25. */
    const float ref[] = {1.0f, 2.0f, 3.0f, 4.0f};
    const float got[] = {1.0f, 3.0f, 1.0f, 4.0f};
    ck_assert_double_eq(stats_mse(ref, got, 4), 1.25);
    ck_assert_double_eq(stats_mse(ref, ref, 4), 0.0);
}
END_TEST

START_TEST(test_mse_special)
{
    const float one[] = {1.0f}, nan[] = {NAN}, inf[] = {INFINITY};
    ck_assert(isnan(stats_mse(one, nan, 1)));
    ck_assert(isnan(stats_mse(nan, one, 1)));
    ck_assert_double_infinite(stats_mse(one, inf, 1));
    ck_assert_double_eq(stats_mse(inf, inf, 1), 0.0);
}
END_TEST

START_TEST(test_sqnr_closed_forms)
{
    /* ref {3, 4}, got {3.5, 4}: signal 9 + 16 = 25, noise 0.25;
     * 10 log10(100) = 20 dB. */
    const float ref[] = {3.0f, 4.0f};
    const float got[] = {3.5f, 4.0f};
    ck_assert_double_eq_tol(stats_sqnr_db(ref, got, 2), 20.0, 1e-12);

    /* ref {1, -1}, got {0, 0}: signal 2, noise 2: 0 dB. got = -ref: noise
     * 4 + 4 = 8, 10 log10(2/8) = -6.0206 dB. */
    const float pm[] = {1.0f, -1.0f}, zeros[] = {0.0f, 0.0f}, mp[] = {-1.0f, 1.0f};
    ck_assert_double_eq_tol(stats_sqnr_db(pm, zeros, 2), 0.0, 1e-12);
    ck_assert_double_eq_tol(stats_sqnr_db(pm, mp, 2), -6.020599913279624, 1e-12);
}
END_TEST

START_TEST(test_sqnr_all_ones)
{
    /* ref all 1, got all 1.1f over n: 10 log10(n / (n d^2)) with
     * d = 1.1f - 1 = 0.100000024 (1.1f is 1.10000002384...), so
     * 20 - 20 log10(1.00000024) = 20 - 2.07e-6 dB. */
    enum { N = 1000 };
    float ref[N], got[N];
    for (int i = 0; i < N; i++) {
        ref[i] = 1.0f;
        got[i] = 1.1f;
    }
    double sqnr = stats_sqnr_db(ref, got, N);
    ck_assert_double_eq_tol(sqnr, 20.0, 1e-5);
    ck_assert(sqnr < 20.0);
}
END_TEST

START_TEST(test_sqnr_special)
{
    const float one[] = {1.0f}, zero[] = {0.0f}, nan[] = {NAN}, two[] = {2.0f};
    /* no noise: +inf, with or without signal */
    ck_assert(stats_sqnr_db(one, one, 1) == INFINITY);
    ck_assert(stats_sqnr_db(zero, zero, 1) == INFINITY);
    /* zero signal, nonzero noise: -inf */
    ck_assert(stats_sqnr_db(zero, two, 1) == -INFINITY);
    /* NaN anywhere: NaN */
    ck_assert(isnan(stats_sqnr_db(one, nan, 1)));
    ck_assert(isnan(stats_sqnr_db(nan, one, 1)));
    ck_assert(isnan(stats_sqnr_db(nan, nan, 1)));
}
END_TEST

/* ---- one array ---------------------------------------------------------- */

START_TEST(test_amax)
{
    size_t nans = 99;
    const float x[] = {-3.0f, 2.0f, NAN, -0.5f};
    ck_assert_float_eq(stats_amax(x, 4, &nans), 3.0f);
    ck_assert_uint_eq(nans, 1);
    ck_assert_float_eq(stats_amax(x, 4, NULL), 3.0f);

    const float only_nan[] = {NAN, NAN_QUIET_NEG};
    ck_assert_float_eq(stats_amax(only_nan, 2, &nans), 0.0f);
    ck_assert_uint_eq(nans, 2);

    const float with_inf[] = {1.0f, -INFINITY, NAN};
    ck_assert_float_infinite(stats_amax(with_inf, 3, &nans));
    ck_assert_uint_eq(nans, 1);

    const float tiny[] = {-0.0f, -FLT_TRUE_MIN};
    ck_assert_float_eq(stats_amax(tiny, 2, NULL), FLT_TRUE_MIN);
}
END_TEST

START_TEST(test_mean_variance_hand)
{
    /* mean (1+2+3+4)/4 = 2.5; deviations -1.5 -0.5 0.5 1.5, squares
     * 2.25 + 0.25 + 0.25 + 2.25 = 5, / 4 = 1.25. */
    const float x[] = {1.0f, 2.0f, 3.0f, 4.0f};
    ck_assert_double_eq(stats_mean(x, 4), 2.5);
    ck_assert_double_eq(stats_variance(x, 4), 1.25);
    const float c[] = {7.0f, 7.0f, 7.0f};
    ck_assert_double_eq(stats_variance(c, 3), 0.0);
}
END_TEST

START_TEST(test_mean_accumulates_in_double)
{
    /* In float, 2^24 + 1 rounds back to 2^24, so a float sum of these is
     * 2^24; in double it is 2^24 + 3 = 16777219, mean 4194304.75. */
    const float x[] = {16777216.0f, 1.0f, 1.0f, 1.0f};
    ck_assert_double_eq(stats_mean(x, 4), 4194304.75);
}
END_TEST

START_TEST(test_mean_variance_special)
{
    const float with_nan[] = {1.0f, NAN};
    const float with_inf[] = {1.0f, INFINITY};
    ck_assert(isnan(stats_mean(with_nan, 2)));
    ck_assert(isnan(stats_variance(with_nan, 2)));
    ck_assert_double_infinite(stats_mean(with_inf, 2));
    ck_assert(isnan(stats_variance(with_inf, 2)));
}
END_TEST

START_TEST(test_count_nonzero)
{
    /* 0 and -0 are zero; 1, NaN, -2, inf are not: 4. */
    const float x[] = {0.0f, -0.0f, 1.0f, NAN, -2.0f, INFINITY};
    ck_assert_uint_eq(stats_count_nonzero(x, 6), 4);
}
END_TEST

/* ---- ulps --------------------------------------------------------------- */

START_TEST(test_ulp_distance)
{
    ck_assert_uint_eq(stats_ulp_distance(1.0f, 1.0f), 0);
    ck_assert_uint_eq(stats_ulp_distance(1.0f, nextafterf(1.0f, 2.0f)), 1);
    ck_assert_uint_eq(stats_ulp_distance(1.0f, nextafterf(1.0f, 0.0f)), 1);
    ck_assert_uint_eq(stats_ulp_distance(nextafterf(1.0f, 2.0f), 1.0f), 1);
    /* [1, 2) holds 2^23 floats. */
    ck_assert_uint_eq(stats_ulp_distance(1.0f, 2.0f), 8388608u);
    ck_assert_uint_eq(stats_ulp_distance(-1.0f, -2.0f), 8388608u);
    /* smallest subnormals either side of zero: 2 steps, through 0 */
    ck_assert_uint_eq(stats_ulp_distance(bits_to_float(0x00000001u),
                                         bits_to_float(0x80000001u)), 2);
    ck_assert_uint_eq(stats_ulp_distance(0.0f, FLT_TRUE_MIN), 1);
    ck_assert_uint_eq(stats_ulp_distance(-0.0f, FLT_TRUE_MIN), 1);
    ck_assert_uint_eq(stats_ulp_distance(-0.0f, 0.0f), 0);
    ck_assert_uint_eq(stats_ulp_distance(FLT_MAX, INFINITY), 1);
    ck_assert_uint_eq(stats_ulp_distance(-FLT_MAX, -INFINITY), 1);
    /* -inf to +inf: 0x7f800000 steps each side of zero. */
    ck_assert_uint_eq(stats_ulp_distance(-INFINITY, INFINITY), 2u * 0x7f800000u);
}
END_TEST

START_TEST(test_ulp_distance_nan)
{
    ck_assert(stats_ulp_distance(NAN, 1.0f) == UINT64_MAX);
    ck_assert(stats_ulp_distance(1.0f, NAN) == UINT64_MAX);
    ck_assert(stats_ulp_distance(NAN, NAN) == UINT64_MAX);
    ck_assert(stats_ulp_distance(NAN_PAYLOAD, INFINITY) == UINT64_MAX);
}
END_TEST

/* ---- exact comparator --------------------------------------------------- */

START_TEST(test_equal_exact)
{
    ck_assert(stats_equal_exact(1.0f, 1.0f));
    ck_assert(!stats_equal_exact(1.0f, nextafterf(1.0f, 2.0f)));
    ck_assert(stats_equal_exact(NAN_QUIET_POS, NAN_QUIET_NEG));
    ck_assert(stats_equal_exact(NAN_QUIET_POS, NAN_PAYLOAD));
    ck_assert(!stats_equal_exact(NAN, 1.0f));
    ck_assert(!stats_equal_exact(1.0f, NAN));
    ck_assert(!stats_equal_exact(NAN, INFINITY));
    ck_assert(!stats_equal_exact(INFINITY, NAN));
    ck_assert(stats_equal_exact(INFINITY, INFINITY));
    ck_assert(!stats_equal_exact(INFINITY, -INFINITY));
    ck_assert(!stats_equal_exact(-0.0f, 0.0f));
    ck_assert(!stats_equal_exact(0.0f, -0.0f));
    ck_assert(stats_equal_exact(-0.0f, -0.0f));
}
END_TEST

START_TEST(test_find_mismatch_exact)
{
    /* index: 0 equal, 1 NaN vs NaN equal, 2 +0 vs -0 differs,
     * 3 number vs NaN differs, 4 +inf vs -inf differs, 5 NaN vs number
     * differs: 4 mismatches, the first at 2. */
    const float e[] = {1.0f, NAN_QUIET_POS, 0.0f, 2.0f, INFINITY, NAN};
    const float g[] = {1.0f, NAN_QUIET_NEG, -0.0f, NAN, -INFINITY, 3.0f};
    stats_mismatch m = stats_find_mismatch_exact(e, g, 6);
    ck_assert_uint_eq(m.count, 4);
    ck_assert_uint_eq(m.first, 2);
    /* The first two alone match: first == n. */
    m = stats_find_mismatch_exact(e, g, 2);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(m.first, 2);
}
END_TEST

/* ---- tolerance comparator ----------------------------------------------- */

START_TEST(test_equal_tol_boundaries)
{
    /* atol 0.5, rtol 0 at 1: |1.5 - 1| = 0.5 <= 0.5 passes; the next float
     * above 1.5 fails. */
    ck_assert(stats_equal_tol(1.0f, 1.5f, 0.5, 0.0));
    ck_assert(!stats_equal_tol(1.0f, nextafterf(1.5f, 2.0f), 0.5, 0.0));
    /* atol 0, rtol 0.25 at -8: allowed 2; -6 passes, -5.5 fails. rtol
     * scales with |expected|, not |got|: expected 6, got 8 (diff 2, allowed
     * 1.5) fails. */
    ck_assert(stats_equal_tol(-8.0f, -6.0f, 0.0, 0.25));
    ck_assert(!stats_equal_tol(-8.0f, -5.5f, 0.0, 0.25));
    ck_assert(!stats_equal_tol(6.0f, 8.0f, 0.0, 0.25));
    /* atol 0.1 + rtol 0.01 * 10 = 0.2: 10.19 passes, 10.21 fails. */
    ck_assert(stats_equal_tol(10.0f, 10.19f, 0.1, 0.01));
    ck_assert(!stats_equal_tol(10.0f, 10.21f, 0.1, 0.01));
    /* zero tolerance is exact equality of values */
    ck_assert(stats_equal_tol(3.0f, 3.0f, 0.0, 0.0));
    ck_assert(!stats_equal_tol(3.0f, nextafterf(3.0f, 0.0f), 0.0, 0.0));
}
END_TEST

START_TEST(test_equal_tol_special)
{
    /* Even an infinite tolerance lets no NaN or infinity past. */
    const double big = INFINITY;
    ck_assert(!stats_equal_tol(NAN, 1.0f, big, big));
    ck_assert(!stats_equal_tol(1.0f, NAN, big, big));
    ck_assert(!stats_equal_tol(NAN, INFINITY, big, big));
    ck_assert(!stats_equal_tol(1.0f, INFINITY, big, big));
    ck_assert(!stats_equal_tol(INFINITY, 1.0f, big, big));
    ck_assert(!stats_equal_tol(INFINITY, -INFINITY, big, big));
    ck_assert(!stats_equal_tol(-INFINITY, INFINITY, 0.0, 0.0));
    ck_assert(stats_equal_tol(INFINITY, INFINITY, 0.0, 0.0));
    ck_assert(stats_equal_tol(-INFINITY, -INFINITY, 0.0, 0.0));
    ck_assert(stats_equal_tol(NAN_QUIET_POS, NAN_QUIET_NEG, 0.0, 0.0));
    /* signed zeros are equal here */
    ck_assert(stats_equal_tol(-0.0f, 0.0f, 0.0, 0.0));
    ck_assert(stats_equal_tol(0.0f, -0.0f, 0.0, 0.0));
    /* a NaN tolerance fails every finite pair */
    ck_assert(!stats_equal_tol(1.0f, 1.0f, NAN, 0.0));
    ck_assert(!stats_equal_tol(1.0f, 1.0f, 0.0, NAN));
}
END_TEST

START_TEST(test_find_mismatch_tol)
{
    /* atol 0.01, rtol 0: index 0 within, 1 NaN vs NaN, 2 -0 vs +0,
     * 3 number vs NaN, 4 +inf vs -inf, 5 NaN vs number, 6 off by 0.5:
     * mismatches 3, 4, 5, 6. */
    const float e[] = {1.0f, NAN, -0.0f, 2.0f, INFINITY, NAN, 1.0f};
    const float g[] = {1.005f, NAN_QUIET_NEG, 0.0f, NAN, -INFINITY, 3.0f, 1.5f};
    stats_mismatch m = stats_find_mismatch_tol(e, g, 7, 0.01, 0.0);
    ck_assert_uint_eq(m.count, 4);
    ck_assert_uint_eq(m.first, 3);
}
END_TEST

START_TEST(test_find_mismatch_by_mode)
{
    /* -0 vs +0 and 1 vs 1.0001: bits mode 2 mismatches, tolerance 1e-3 none. */
    const float e[] = {-0.0f, 1.0f};
    const float g[] = {0.0f, 1.0001f};
    stats_cmp bits = {STATS_CMP_BITS, 0.0, 0.0};
    stats_cmp tol = {STATS_CMP_TOLERANCE, 1e-3, 0.0};
    stats_mismatch m = stats_find_mismatch(e, g, 2, bits);
    ck_assert_uint_eq(m.count, 2);
    ck_assert_uint_eq(m.first, 0);
    m = stats_find_mismatch(e, g, 2, tol);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(m.first, 2);
    ck_assert(!stats_equal(-0.0f, 0.0f, bits));
    ck_assert(stats_equal(-0.0f, 0.0f, tol));
}
END_TEST

START_TEST(test_find_mismatch_u8)
{
    const uint8_t e[] = {1, 2, 3, 4, 0x7f};
    const uint8_t g[] = {1, 0, 3, 5, 0x7f};
    stats_mismatch m = stats_find_mismatch_u8(e, g, 5);
    ck_assert_uint_eq(m.count, 2);
    ck_assert_uint_eq(m.first, 1);
    m = stats_find_mismatch_u8(e, e, 5);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(m.first, 5);
}
END_TEST

/* ---- empty arrays ------------------------------------------------------- */

START_TEST(test_empty)
{
    size_t nans = 99;
    ck_assert_double_eq(stats_max_abs_err(NULL, NULL, 0), 0.0);
    ck_assert_double_eq(stats_max_rel_err(NULL, NULL, 0), 0.0);
    ck_assert_double_eq(stats_mse(NULL, NULL, 0), 0.0);
    ck_assert(stats_sqnr_db(NULL, NULL, 0) == INFINITY);
    ck_assert_float_eq(stats_amax(NULL, 0, &nans), 0.0f);
    ck_assert_uint_eq(nans, 0);
    ck_assert_double_eq(stats_mean(NULL, 0), 0.0);
    ck_assert_double_eq(stats_variance(NULL, 0), 0.0);
    ck_assert_uint_eq(stats_count_nonzero(NULL, 0), 0);

    stats_mismatch m = stats_find_mismatch_exact(NULL, NULL, 0);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(m.first, 0);
    m = stats_find_mismatch_tol(NULL, NULL, 0, 0.0, 0.0);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(m.first, 0);
    m = stats_find_mismatch_u8(NULL, NULL, 0);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(m.first, 0);
}
END_TEST

static Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");

    TCase *err = tcase_create("errors");
    tcase_add_test(err, test_max_abs_err_hand);
    tcase_add_test(err, test_max_abs_err_in_double);
    tcase_add_test(err, test_max_abs_err_special);
    tcase_add_test(err, test_max_rel_err_hand);
    tcase_add_test(err, test_max_rel_err_zero_ref);
    tcase_add_test(err, test_max_rel_err_special);
    tcase_add_test(err, test_mse_hand);
    tcase_add_test(err, test_mse_special);
    tcase_add_test(err, test_sqnr_closed_forms);
    tcase_add_test(err, test_sqnr_all_ones);
    tcase_add_test(err, test_sqnr_special);
    suite_add_tcase(s, err);

    TCase *one = tcase_create("one_array");
    tcase_add_test(one, test_amax);
    tcase_add_test(one, test_mean_variance_hand);
    tcase_add_test(one, test_mean_accumulates_in_double);
    tcase_add_test(one, test_mean_variance_special);
    tcase_add_test(one, test_count_nonzero);
    suite_add_tcase(s, one);

    TCase *ulp = tcase_create("ulp");
    tcase_add_test(ulp, test_ulp_distance);
    tcase_add_test(ulp, test_ulp_distance_nan);
    suite_add_tcase(s, ulp);

    TCase *cmp = tcase_create("compare");
    tcase_add_test(cmp, test_equal_exact);
    tcase_add_test(cmp, test_find_mismatch_exact);
    tcase_add_test(cmp, test_equal_tol_boundaries);
    tcase_add_test(cmp, test_equal_tol_special);
    tcase_add_test(cmp, test_find_mismatch_tol);
    tcase_add_test(cmp, test_find_mismatch_by_mode);
    tcase_add_test(cmp, test_find_mismatch_u8);
    tcase_add_test(cmp, test_empty);
    suite_add_tcase(s, cmp);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stats_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
