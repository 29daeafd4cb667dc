/*
 * stats.h - error statistics and array comparators for the labs and the
 * grader's failure messages.
 *
 * Conventions shared by every function here:
 *   - sums and differences are taken in double (each float converts to double
 *     exactly), so a statistic over a million floats does not lose to float
 *     accumulation error;
 *   - a statistic never hides a NaN: any NaN in its input makes the result
 *     NaN (stats_amax, which is meant to skip NaNs, counts them instead);
 *   - a comparator never lets a NaN pass by accident: a NaN matches only a
 *     NaN, in every mode (the classic bug `if (fabs(e - g) > tol) fail;`
 *     lets NaN through, since every comparison with NaN is false);
 *   - an empty array (n == 0) is not an error: statistics of nothing are 0
 *     (stats_sqnr_db: +inf), and nothing mismatches.
 *
 * In the two-array functions the first array is the reference (expected) and
 * the second is the result under test (got); the arrays may be NULL only
 * when n == 0.
 *
 * Not for: statistical tests of random streams (tests/common/test_rng.c
 * does its own), nor anything on the GPU; copy device results to the host
 * first.
 */
#ifndef FP8LAB_STATS_H
#define FP8LAB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error between a reference and a result --------------------------- */

/* The error of one pair, used by the statistics below:
 *   - NaN if either value is NaN;
 *   - 0 if ref == got (so +0 vs -0 is 0, and equal infinities are 0);
 *   - otherwise |got - ref| in double (+inf if either value is infinite).
 * Relative error divides that by |ref|, and is +inf when ref is 0 or
 * infinite and got differs from it (a nonzero result where zero was expected
 * is infinitely wrong relative to it, not skipped). */

/* max_i |got[i] - ref[i]|. */
double stats_max_abs_err(const float *ref, const float *got, size_t n);

/* max_i |got[i] - ref[i]| / |ref[i]|, with the zero and infinite ref rules
 * above. */
double stats_max_rel_err(const float *ref, const float *got, size_t n);

/* Mean squared error: sum_i (got[i] - ref[i])^2 / n. */
double stats_mse(const float *ref, const float *got, size_t n);

/* Signal to quantization noise ratio in decibels:
 *   10 * log10(sum_i ref[i]^2 / sum_i (got[i] - ref[i])^2).
 * Zero noise (got equals ref everywhere, or n == 0) gives +inf, even when
 * the signal is zero too: a perfect result is infinitely good. An all-zero
 * signal with nonzero noise gives -inf. NaN if any value is NaN, or if both
 * sums are infinite. */
double stats_sqnr_db(const float *ref, const float *got, size_t n);

/* ---- one array --------------------------------------------------------- */

/* max_i |x[i]| over the values that are not NaN (+inf if any is infinite);
 * 0 when there are none. When nan_count is not NULL, *nan_count receives
 * the number of NaNs skipped. The result is exact (it is one of the |x[i]|). */
float stats_amax(const float *x, size_t n, size_t *nan_count);

/* Arithmetic mean, sum in double; 0 when n == 0. */
double stats_mean(const float *x, size_t n);

/* Population variance sum_i (x[i] - mean)^2 / n, two passes in double;
 * 0 when n == 0. An infinite x[i] gives NaN (inf - inf), as does a NaN. */
double stats_variance(const float *x, size_t n);

/* How many x[i] != 0 (so a NaN counts as nonzero, and -0 as zero). */
size_t stats_count_nonzero(const float *x, size_t n);

/* ---- ulps ----------------------------------------------------------------- */

/* Steps from a to b along the ordered line of floats, each step to the
 * adjacent float: 0 when a == b, 1 between neighbours. +0 and -0 are the same
 * point (0 apart), so the smallest positive and smallest negative subnormal are 2
 * apart, and FLT_MAX and +inf are 1 apart. UINT64_MAX if either is NaN. */
uint64_t stats_ulp_distance(float a, float b);

/* ---- comparators ------------------------------------------------------- */

typedef enum stats_cmp_mode {
    STATS_CMP_BITS = 0,   /* stats_equal_exact */
    STATS_CMP_TOLERANCE   /* stats_equal_tol with atol, rtol */
} stats_cmp_mode;

/* How a check compares float arrays; atol and rtol are read only in
 * STATS_CMP_TOLERANCE mode. */
typedef struct stats_cmp {
    stats_cmp_mode mode;
    double atol;
    double rtol;
} stats_cmp;

/* The outcome of comparing two arrays: count mismatching elements, the
 * first at index `first`; first == n when there are none. */
typedef struct stats_mismatch {
    size_t count;
    size_t first;
} stats_mismatch;

/* Equal iff the same bits, except that any NaN equals any NaN (0x7fc00000
 * and 0xffc00000 are equal). +0 and -0 differ. */
bool stats_equal_exact(float expected, float got);

/* Equal iff
 *   - both NaN; a NaN never equals a number, in either direction;
 *   - or both the same infinity (+inf only +inf, -inf only -inf);
 *   - or both finite and |got - expected| <= atol + rtol * |expected| in
 *     double, so +0 and -0 are equal.
 * atol and rtol should be >= 0; a NaN tolerance makes every finite pair
 * unequal rather than every pair equal. */
bool stats_equal_tol(float expected, float got, double atol, double rtol);

/* Element i compared by cmp's mode. */
bool stats_equal(float expected, float got, stats_cmp cmp);

stats_mismatch stats_find_mismatch(const float *expected, const float *got, size_t n,
                                   stats_cmp cmp);
stats_mismatch stats_find_mismatch_exact(const float *expected, const float *got, size_t n);
stats_mismatch stats_find_mismatch_tol(const float *expected, const float *got, size_t n,
                                       double atol, double rtol);

/* Byte for byte, for arrays of format codes. */
stats_mismatch stats_find_mismatch_u8(const uint8_t *expected, const uint8_t *got, size_t n);

#ifdef __cplusplus
}
#endif

#endif
