/*
 * stats.c - error statistics and comparators (see stats.h for the rules on
 * NaN, infinities, signed zeros and empty arrays).
 *
 * Every statistic is built on pair_abs_err / pair_rel_err, so the rules for
 * special values live in one place.
 *
 * Not for: new rules about special values; those are decided in stats.h
 * first. Nothing here allocates, prints or can fail.
 */
#include "stats.h"

#include "bits.h"

#include <math.h>
#include <string.h>

/* ---- error between a reference and a result --------------------------- */

static double pair_abs_err(float ref, float got)
{
    if (isnan(ref) || isnan(got))
        return NAN;
    if (ref == got)
        return 0.0;
    return fabs((double)got - (double)ref);
}

static double pair_rel_err(float ref, float got)
{
    double abs_err = pair_abs_err(ref, got);
    if (isnan(abs_err) || abs_err == 0.0)
        return abs_err;
    if (ref == 0.0f || isinf(ref))
        return INFINITY;
    return abs_err / fabs((double)ref);
}

/* Written out rather than with fmax, which drops NaN operands. */
static double max_propagating_nan(double acc, double x)
{
    if (isnan(acc) || isnan(x))
        return NAN;
    return x > acc ? x : acc;
}

double stats_max_abs_err(const float *ref, const float *got, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++)
        worst = max_propagating_nan(worst, pair_abs_err(ref[i], got[i]));
    return worst;
}

double stats_max_rel_err(const float *ref, const float *got, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++)
        worst = max_propagating_nan(worst, pair_rel_err(ref[i], got[i]));
    return worst;
}

static double sum_sq_err(const float *ref, const float *got, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = pair_abs_err(ref[i], got[i]);
        sum += e * e;
    }
    return sum;
}

double stats_mse(const float *ref, const float *got, size_t n)
{
    if (n == 0)
        return 0.0;
    return sum_sq_err(ref, got, n) / (double)n;
}

double stats_sqnr_db(const float *ref, const float *got, size_t n)
{
    double signal = 0.0;
    for (size_t i = 0; i < n; i++)
        signal += (double)ref[i] * (double)ref[i];
    /* A NaN anywhere makes noise NaN, which the rest carries through. */
    double noise = sum_sq_err(ref, got, n);
    if (noise == 0.0)
        return INFINITY;
    return 10.0 * log10(signal / noise);
}

/* ---- one array --------------------------------------------------------- */

float stats_amax(const float *x, size_t n, size_t *nan_count)
{
    float amax = 0.0f;
    size_t nans = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            nans++;
        else if (fabsf(x[i]) > amax)
            amax = fabsf(x[i]);
    }
    if (nan_count)
        *nan_count = nans;
    return amax;
}

double stats_mean(const float *x, size_t n)
{
    if (n == 0)
        return 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

double stats_variance(const float *x, size_t n)
{
    if (n == 0)
        return 0.0;
    double mean = stats_mean(x, n), sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)x[i] - mean;
        sum += d * d;
    }
    return sum / (double)n;
}

size_t stats_count_nonzero(const float *x, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += x[i] != 0.0f;
    return count;
}

/* ---- ulps ----------------------------------------------------------------- */

/* A position on the ordered float line: the magnitude's bits, negated for
 * negative values, so -0 and +0 both land on 0. */
static int64_t ordered_key(float x)
{
    uint32_t bits = f32_bits(x);
    int64_t magnitude = (int64_t)(bits & 0x7fffffffu);
    return (bits & 0x80000000u) ? -magnitude : magnitude;
}

uint64_t stats_ulp_distance(float a, float b)
{
    if (isnan(a) || isnan(b))
        return UINT64_MAX;
    int64_t ka = ordered_key(a), kb = ordered_key(b);
    return ka > kb ? (uint64_t)(ka - kb) : (uint64_t)(kb - ka);
}

/* ---- comparators ------------------------------------------------------- */

bool stats_equal_exact(float expected, float got)
{
    if (isnan(expected) || isnan(got))
        return isnan(expected) && isnan(got);
    return f32_bits(expected) == f32_bits(got);
}

bool stats_equal_tol(float expected, float got, double atol, double rtol)
{
    if (isnan(expected) || isnan(got))
        return isnan(expected) && isnan(got);
    if (isinf(expected) || isinf(got))
        return expected == got;
    double diff = fabs((double)got - (double)expected);
    /* Written so that a NaN tolerance fails the test instead of passing it. */
    return diff <= atol + rtol * fabs((double)expected);
}

bool stats_equal(float expected, float got, stats_cmp cmp)
{
    if (cmp.mode == STATS_CMP_TOLERANCE)
        return stats_equal_tol(expected, got, cmp.atol, cmp.rtol);
    return stats_equal_exact(expected, got);
}

/* Records a mismatch at i. */
static void note_mismatch(stats_mismatch *m, size_t i)
{
    if (m->count == 0)
        m->first = i;
    m->count++;
}

stats_mismatch stats_find_mismatch(const float *expected, const float *got, size_t n,
                                   stats_cmp cmp)
{
    stats_mismatch m = {0, n};
    for (size_t i = 0; i < n; i++)
        if (!stats_equal(expected[i], got[i], cmp))
            note_mismatch(&m, i);
    return m;
}

stats_mismatch stats_find_mismatch_exact(const float *expected, const float *got, size_t n)
{
    stats_cmp cmp = {STATS_CMP_BITS, 0.0, 0.0};
    return stats_find_mismatch(expected, got, n, cmp);
}

stats_mismatch stats_find_mismatch_tol(const float *expected, const float *got, size_t n,
                                       double atol, double rtol)
{
    stats_cmp cmp = {STATS_CMP_TOLERANCE, atol, rtol};
    return stats_find_mismatch(expected, got, n, cmp);
}

stats_mismatch stats_find_mismatch_u8(const uint8_t *expected, const uint8_t *got, size_t n)
{
    stats_mismatch m = {0, n};
    for (size_t i = 0; i < n; i++)
        if (expected[i] != got[i])
            note_mismatch(&m, i);
    return m;
}
