/*
 * lab2.c - lab2, the format recommender: YOUR CODE GOES HERE.
 *
 * Write the functions declared in lab2.h: the magnitudes of a tensor and
 * their percentiles, its statistics, the per-tensor scale, what a scaled
 * cast to E4M3 or E5M2 does to it, and the recommendation.
 *
 * Rules:
 *   - Use the course's codec for the casts: fp8_encode, fp8_decode,
 *     fp8_is_zero, fp8_is_nan, fp8_is_inf and fp8_info (common/fp8.h,
 *     included by lab2.h).
 *   - Anything from the C standard library is fine: <math.h> (isnan, isinf,
 *     isfinite, fabsf, log2, log10), <stdlib.h> (qsort, malloc), <stdio.h>
 *     (snprintf). Not common/stats.h: computing the statistics is the lab.
 *   - The order of float operations is part of each spec (lab2.h).
 *   - Add as many static helper functions as you like: static, since only
 *     lab2_* names may be global (the grader refuses others).
 *
 * Test as you go:
 *   make lab2 && ./grader lab2                  every test, and your score
 *   ./grader lab2 --test cast_error -v          one test, more detail
 *   ./build/lab2/lab2                           the report on every tensor (README §8)
 *
 * Not for: anything but lab2.h's functions; do not add a main() here.
 */
#include "lab2.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * lab2_magnitudes - |x[i]| of the finite, nonzero elements, sorted ascending.
 *   {3, -1, 0, NaN, -inf, 2} -> mag = {1, 2, 3}, returns 3
 *   Handout: README §3. Graded by: magnitudes.
 */
size_t lab2_magnitudes(const float *x, size_t n, float *mag)
{
    (void)x;
    (void)n;
    (void)mag;
    /* TODO: README §3. qsort with a comparison of two floats. */
    return 0;
}

/*
 * lab2_percentile - mag[k - 1], k = ceil(m * per_mille / 1000), at least 1.
 *   m = 1001, per_mille = 999 -> k = 1000 (999.999 rounds up)
 *   Handout: README §3. Graded by: percentile.
 */
float lab2_percentile(const float *mag, size_t m, unsigned per_mille)
{
    (void)mag;
    (void)m;
    (void)per_mille;
    /* TODO: README §3. Integers only: (a + b - 1) / b is ceil(a / b). */
    return 0.0f;
}

/*
 * lab2_tensor_stats - every field of lab2_stats.
 *   {NaN, inf, 0, -0, 1, -4} -> nan 1, inf 1, zeros 2, nonzero 2, amax 4,
 *                               min_nonzero 1, range_bits 2
 *   Handout: README §2, §3. Graded by: stats_counts, stats_extremes,
 *   stats_range.
 */
int lab2_tensor_stats(const float *x, size_t n, lab2_stats *s)
{
    (void)x;
    *s = (lab2_stats){.n = n};
    /* TODO: README §2 and §3. */
    return 0;
}

/*
 * lab2_tensor_scale - fp8_max / amax; 1 for amax 0, inf or NaN; FLT_MAX on
 * overflow.
 *   (448, E4M3) -> 1     (2, E5M2) -> 28672     (0, E4M3) -> 1
 *   Handout: README §4. Graded by: tensor_scale.
 */
float lab2_tensor_scale(float amax, fp8_format fmt)
{
    (void)amax;
    (void)fmt;
    /* TODO: README §4. */
    return 1.0f;
}

/*
 * lab2_cast_stats - saturated and underflow fractions, MSE and SQNR of the
 * round trip x -> q -> x' (x' = decode(q) * (1 / scale)).
 *   {1, 2} to E4M3 at scale 1 -> every field 0 but sqnr_db = +inf
 *   Handout: README §4. Graded by: cast_saturation, cast_underflow,
 *   cast_error.
 */
void lab2_cast_stats(const float *x, size_t n, fp8_format fmt, float scale, lab2_cast *c)
{
    (void)x;
    (void)n;
    *c = (lab2_cast){.fmt = fmt, .scale = scale};
    /* TODO: README §4. */
}

/*
 * lab2_recommend - E4M3 if it is acceptable, else E5M2 if it is, else keep.
 *   e4m3 underflow 0.2, e5m2 underflow 0.001 (both SQNR 25 dB) -> LAB2_E5M2
 *   Handout: README §5. Graded by: recommend_rule, recommend_synthetic,
 *   recommend_real.
 */
lab2_choice lab2_recommend(const lab2_stats *t, const lab2_cast *e4m3, const lab2_cast *e5m2,
                           char *why, size_t size)
{
    (void)t;
    (void)e4m3;
    (void)e5m2;
    if (size > 0)
        snprintf(why, size, "TODO: README §5");
    /* TODO: README §5. */
    return LAB2_KEEP;
}
