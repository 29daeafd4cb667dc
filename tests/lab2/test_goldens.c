/*
 * test_goldens.c - lab2's goldens, checked by something other than the
 * solution that made them (tests/oracle/goldens_lab2.cpp recomputes every
 * one of them with NVIDIA's conversions; this file checks what a
 * recomputation cannot vouch for, that the numbers are the right ones):
 *   - the synthetic tensors against the closed forms of their
 *     distributions (grading/lab2/data.h): every cast fraction at a fixed
 *     scale against the probability of its event, within 5 binomial
 *     standard deviations and one element; every percentile, amax and
 *     min_nonzero against the distribution of its order statistic (below);
 *   - the 48 special values and the 8 nonfinite ones worked by hand: the
 *     counts, the extremes, every saturated and underflowed element, and
 *     every element's decoded value at scale 1 (so the MSE and SQNR too);
 *   - every tensor, real ones included: the stats' n is its input's element
 *     count and the counts add up to it; the fractions are counts over their
 *     denominators; the tensor scale is fp8_max / amax and never saturates;
 *     range_bits, range_bits_pct and outlier_ratio follow from the floats;
 *     the SQNR follows from the MSE and the input's energy; the choice
 *     follows from the golden's own cast rows under lab2.h's rule.
 *
 * The order statistics. For a continuous distribution with CDF F, the k-th
 * smallest of m draws X_(k) has F(X_(k)) ~ Beta(k, m + 1 - k): mean
 * p = k / (m + 1), standard deviation sqrt(p (1 - p) / (m + 2)). A golden
 * percentile q (rank k = ceil(m per_mille / 1000)) passes when
 * |F(q) - p| <= 5 sd + 1/m, that is when q lies between the closed-form
 * quantiles F^-1(p -+ (5 sd + 1/m)). For the 0.1th and 99.9th percentiles
 * of m = 65536 that is F within 6.3e-4 of p; in x, for gauss_w (sigma 0.02),
 * that is p_lo within 2.52e-5 +- 1.6e-5 and p_hi within 0.0630 .. 0.0712
 * around 0.0658 (the delta method's standard errors are 3.1e-6 and
 * 6.9e-4). amax (k = m) passes when P(max <= amax) = F(amax)^m
 * is neither below 2.9e-7 nor above 1 - 2.9e-7 (5 sd of a normal, two
 * sided); min_nonzero likewise with (1 - F)^m.
 *
 *   build/tests/lab2/test_goldens [-v] [DATA_DIR [CAPTURES]]
 *       (defaults data/golden/lab2 and DATA_DIR/../../captures; -v prints
 *       every closed-form comparison)
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../labs/lab2/lab2.h"
#include "check_run.h"
#include "lab2/data.h"
#include "npy.h"

static const char *dir = "data/golden/lab2";
static char captures[4096];
static bool verbose;

/* E4M3 and E5M2 at scale 1 (OCP OFP8): the largest finite values; the
 * overflow thresholds of round to nearest even (E4M3: 464, halfway between
 * 448 and 480, goes to 448, so above 464 overflows; E5M2: 61440, halfway
 * between 57344 and 65536, goes to the even 65536 = inf, so 61440 and above
 * overflow); the underflow thresholds (half the smallest subnormal, 2^-9 and
 * 2^-16, ties to the even zero, so |x| <= 2^-10 and 2^-17 give zero). */
#define E4M3_MAX 448.0f
#define E5M2_MAX 57344.0f
#define E4M3_OVERFLOW 464.0
#define E5M2_OVERFLOW 61440.0
#define E4M3_UNDERFLOW 0x1p-10
#define E5M2_UNDERFLOW 0x1p-17
/* rng_normal's largest |z|, sqrt(-2 ln 2^-32) = 6.66044 (rng.h), and a
 * float rounding above it. */
#define NORMAL_BOUND (sqrt(64.0 * log(2.0)) * (1.0 + 0x1p-23))

/* The stats fields (LAB2_STATS_FIELDS) and cast columns (LAB2_CAST_FIELDS). */
enum { S_N, S_NAN, S_INF, S_ZEROS, S_NONZERO, S_AMAX, S_MIN, S_PLO, S_PHI, S_RANGE, S_RANGE_PCT,
       S_OUTLIER };
enum { C_FMT, C_SCALE, C_SAT, C_UNDER, C_MSE, C_SQNR };
/* The cast rows. */
enum { R_E4M3, R_E5M2, R_E4M3_FIXED, R_E5M2_FIXED };

typedef struct golden {
    double s[LAB2_STATS_LEN];
    double c[4][LAB2_CAST_COLS];
    int choice;
} golden;

static void load(const char *path, npy_dtype dtype, int ndim, const size_t *shape, npy_array *out)
{
    lab_error err;
    ck_assert_msg(npy_load_expect(path, dtype, ndim, shape, out, &err) == 0, "%s", err.msg);
}

static void load_golden(const char *name, golden *g)
{
    char path[4200];
    npy_array a;
    size_t sshape[1] = {LAB2_STATS_LEN}, cshape[2] = {4, LAB2_CAST_COLS}, one[1] = {1};
    snprintf(path, sizeof path, "%s/%s_stats.npy", dir, name);
    load(path, NPY_F64, 1, sshape, &a);
    memcpy(g->s, a.data, sizeof g->s);
    npy_free(&a);
    snprintf(path, sizeof path, "%s/%s_casts.npy", dir, name);
    load(path, NPY_F64, 2, cshape, &a);
    memcpy(g->c, a.data, sizeof g->c);
    npy_free(&a);
    snprintf(path, sizeof path, "%s/%s_choice.npy", dir, name);
    load(path, NPY_I32, 1, one, &a);
    g->choice = *(const int32_t *)a.data;
    npy_free(&a);
}

/* The 25 tensors: the golden's name and the input's path. */
static const char *const synthetic[LAB2_N_SYNTHETIC] = {LAB2_SYNTHETIC_NAMES};

static void tensor_names(int t, char *name, size_t nsize, char *input, size_t isize)
{
    static const unsigned steps[LAB2_N_REAL_STEPS] = {LAB2_REAL_STEP_LIST};
    static const char *const kinds[3] = {LAB2_REAL_KIND_NAMES};
    if (t < LAB2_N_SYNTHETIC) {
        snprintf(name, nsize, "syn_%s", synthetic[t]);
        snprintf(input, isize, "%s/syn_%s_x.npy", dir, synthetic[t]);
        return;
    }
    int r = t - LAB2_N_SYNTHETIC, s = r / 6, l = 1 + (r / 3) % 2, k = r % 3;
    snprintf(name, nsize, "real_step%05u_l%d_%s", steps[s], l, kinds[k]);
    snprintf(input, isize, "%s/capture_step%05u_l%d_%s.npy", captures, steps[s], l, kinds[k]);
}

static void load_synthetic(const char *tag, golden *g, npy_array *x)
{
    char name[128], path[4200];
    snprintf(name, sizeof name, "syn_%s", tag);
    load_golden(name, g);
    if (x) {
        snprintf(path, sizeof path, "%s/syn_%s_x.npy", dir, tag);
        load(path, NPY_F32, 1, NULL, x);
    }
}

/* ---- closed forms ------------------------------------------------------------------- */

typedef double (*cdf_fn)(double q); /* P(|x| <= q) over the nonzero elements */

static double phi(double z) /* the standard normal CDF */
{
    return 0.5 * erfc(-z / M_SQRT2);
}

static double gauss_cdf(double q)
{
    return erf(q / ((double)LAB2_GAUSS_SIGMA * M_SQRT2));
}

/* relu_act's nonzero elements: a half-normal N(0, 1) element, times
 * LAB2_OUTLIER_GAIN with probability LAB2_OUTLIER_P. */
static double relu_cdf(double q)
{
    return (1.0 - LAB2_OUTLIER_P) * erf(q / M_SQRT2) +
           LAB2_OUTLIER_P * erf(q / ((double)LAB2_OUTLIER_GAIN * M_SQRT2));
}

/* Student-t with one degree of freedom is Cauchy: P(|x| <= q) = (2/pi) atan(q / scale). */
static double cauchy_cdf(double q)
{
    return 2.0 / M_PI * atan(q / (double)LAB2_T_SCALE);
}

static double lognormal_cdf(double q)
{
    return phi(log(q) / (double)LAB2_LOGN_SIGMA);
}

/* |x| = 2^u, u uniform on [LO, 0]: P(|x| <= q) = (log2 q - LO) / -LO. */
static double wide_cdf(double q)
{
    double lo = LAB2_WIDE_LO, p = (log2(q) - lo) / -lo;
    return p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
}

/* F^-1(p), by bisection on log q (for the messages). */
static double quantile(cdf_fn cdf, double p)
{
    if (p <= 0.0)
        return 0.0;
    if (p >= 1.0)
        return INFINITY;
    double lo = log(1e-45), hi = log(1e12);
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (cdf(exp(mid)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return exp(hi);
}

/* A golden fraction of denom elements whose event has probability p. */
static void check_binomial(const char *what, double frac, double p, double denom)
{
    double sd = sqrt(p * (1.0 - p) / denom), tol = 5.0 * sd + 1.0 / denom;
    if (verbose)
        printf("  %-42s golden %-12.6g closed form %-12.6g (5 sd %.3g)\n", what, frac, p,
               5.0 * sd);
    ck_assert_msg(fabs(frac - p) <= tol,
                  "%s: golden %.8g, closed form %.8g, off by %.2f binomial sd (%.3g each, of "
                  "%.0f elements); allowed 5 sd and one element",
                  what, frac, p, fabs(frac - p) / sd, sd, denom);
}

/* k = ceil(m per_mille / 1000), at least 1 (lab2.h, lab2_percentile). */
static size_t rank_of(size_t m, unsigned per_mille)
{
    size_t k = m * per_mille / 1000 + (m * per_mille % 1000 != 0);
    return k < 1 ? 1 : k;
}

/* A golden nearest-rank percentile of m draws from cdf. */
static void check_percentile(const char *what, double q, cdf_fn cdf, double m, unsigned per_mille)
{
    size_t k = rank_of((size_t)m, per_mille);
    double p = (double)k / (m + 1.0), sd = sqrt(p * (1.0 - p) / (m + 2.0));
    double tol = 5.0 * sd + 1.0 / m, f = cdf(q);
    if (verbose)
        printf("  %-42s golden %-12.6g closed form %-12.6g (5-sd band %.6g .. %.6g)\n", what, q,
               quantile(cdf, p), quantile(cdf, p - tol), quantile(cdf, p + tol));
    ck_assert_msg(fabs(f - p) <= tol,
                  "%s: golden %.8g sits at F = %.8g; the rank-%zu of %.0f order statistic has "
                  "F = %.8g +- %.3g (sd), closed-form quantile %.8g, 5-sd band %.8g .. %.8g",
                  what, q, f, k, m, p, sd, quantile(cdf, p), quantile(cdf, p - tol),
                  quantile(cdf, p + tol));
}

/* The largest (or smallest) of m draws from cdf. */
static void check_extreme(const char *what, double q, cdf_fn cdf, double m, bool largest)
{
    const double alpha = 2.9e-7; /* each side: 5 sd of a normal */
    double f = cdf(q);
    double below = largest ? exp(m * log(f)) : 1.0 - exp(m * log1p(-f)); /* P(extreme <= q) */
    if (verbose)
        printf("  %-42s golden %-12.6g closed form %-12.6g (median; P(<= golden) = %.3g)\n",
               what, q, quantile(cdf, largest ? pow(0.5, 1.0 / m) : 1.0 - pow(0.5, 1.0 / m)),
               below);
    ck_assert_msg(below >= alpha && below <= 1.0 - alpha,
                  "%s: golden %.8g; the %s of %.0f draws is at most that with probability %.3g",
                  what, q, largest ? "largest" : "smallest", m, below);
}

static void check_counts(const char *name, const golden *g, double n, double nan, double inf,
                         double zeros)
{
    ck_assert_msg(g->s[S_N] == n && g->s[S_NAN] == nan && g->s[S_INF] == inf &&
                      g->s[S_ZEROS] == zeros && g->s[S_NONZERO] == n - nan - inf - zeros,
                  "%s: golden n %g, nan %g, inf %g, zeros %g, nonzero %g; expected %g, %g, %g, "
                  "%g, %g",
                  name, g->s[S_N], g->s[S_NAN], g->s[S_INF], g->s[S_ZEROS], g->s[S_NONZERO], n,
                  nan, inf, zeros, n - nan - inf - zeros);
}

/* The fixed-scale rows' fractions against their events' probabilities:
 * saturated over the finite elements, underflow over the nonzero ones. */
static void check_fixed_rows(const char *name, const golden *g, double sat_e4m3,
                             double under_e4m3, double sat_e5m2, double under_e5m2)
{
    char what[96];
    const double finite = g->s[S_N] - g->s[S_NAN] - g->s[S_INF], nonzero = g->s[S_NONZERO];
    snprintf(what, sizeof what, "%s E4M3 fixed saturated", name);
    check_binomial(what, g->c[R_E4M3_FIXED][C_SAT], sat_e4m3, finite);
    snprintf(what, sizeof what, "%s E4M3 fixed underflow", name);
    check_binomial(what, g->c[R_E4M3_FIXED][C_UNDER], under_e4m3, nonzero);
    snprintf(what, sizeof what, "%s E5M2 fixed saturated", name);
    check_binomial(what, g->c[R_E5M2_FIXED][C_SAT], sat_e5m2, finite);
    snprintf(what, sizeof what, "%s E5M2 fixed underflow", name);
    check_binomial(what, g->c[R_E5M2_FIXED][C_UNDER], under_e5m2, nonzero);
}

static void check_percentiles(const char *name, const golden *g, cdf_fn cdf)
{
    char what[96];
    snprintf(what, sizeof what, "%s p_lo", name);
    check_percentile(what, g->s[S_PLO], cdf, g->s[S_NONZERO], LAB2_LO_PER_MILLE);
    snprintf(what, sizeof what, "%s p_hi", name);
    check_percentile(what, g->s[S_PHI], cdf, g->s[S_NONZERO], LAB2_HI_PER_MILLE);
}

static void check_extremes(const char *name, const golden *g, cdf_fn cdf)
{
    char what[96];
    snprintf(what, sizeof what, "%s amax", name);
    check_extreme(what, g->s[S_AMAX], cdf, g->s[S_NONZERO], true);
    snprintf(what, sizeof what, "%s min_nonzero", name);
    check_extreme(what, g->s[S_MIN], cdf, g->s[S_NONZERO], false);
}

/* gauss_w, N(0, sigma^2) at the fixed scales s that put 2.5 sigma at each
 * format's largest value: P(|x| s > T) = erfc(T / (s sigma sqrt 2)). */
START_TEST(gauss_w_closed_forms)
{
    golden g;
    load_synthetic("gauss_w", &g, NULL);
    check_counts("gauss_w", &g, LAB2_SYN_N, 0, 0, 0); /* a float normal is never 0 */
    const double sigma = LAB2_GAUSS_SIGMA;
    const double s4 = LAB2_FIXED_GAUSS_E4M3, s5 = LAB2_FIXED_GAUSS_E5M2;
    ck_assert(g.c[R_E4M3_FIXED][C_SCALE] == s4 && g.c[R_E5M2_FIXED][C_SCALE] == s5);
    check_fixed_rows("gauss_w", &g, erfc(E4M3_OVERFLOW / (s4 * sigma * M_SQRT2)),
                     erf(E4M3_UNDERFLOW / (s4 * sigma * M_SQRT2)),
                     erfc(E5M2_OVERFLOW / (s5 * sigma * M_SQRT2)),
                     erf(E5M2_UNDERFLOW / (s5 * sigma * M_SQRT2)));
    check_percentiles("gauss_w", &g, gauss_cdf);
    check_extremes("gauss_w", &g, gauss_cdf);
    /* No element beyond rng_normal's bound. */
    ck_assert_double_le(g.s[S_AMAX], NORMAL_BOUND * sigma);
}
END_TEST

/* relu_act: half the elements are 0 (a normal is <= 0 with probability
 * 1/2); the rest are half-normal, 0.1% of them times 64. */
START_TEST(relu_act_closed_forms)
{
    golden g;
    load_synthetic("relu_act", &g, NULL);
    const double n = LAB2_SYN_N;
    ck_assert(g.s[S_N] == n && g.s[S_NAN] == 0 && g.s[S_INF] == 0 &&
              g.s[S_NONZERO] == n - g.s[S_ZEROS]);
    check_binomial("relu_act zeros / n", g.s[S_ZEROS] / n, 0.5, n);
    /* saturation is over all the (finite) elements, half of them nonzero;
     * underflow over the nonzero ones */
    check_fixed_rows("relu_act", &g, 0.5 * (1.0 - relu_cdf(E4M3_OVERFLOW)),
                     relu_cdf(E4M3_UNDERFLOW), 0.5 * (1.0 - relu_cdf(E5M2_OVERFLOW)),
                     relu_cdf(E5M2_UNDERFLOW));
    check_percentiles("relu_act", &g, relu_cdf);
    /* amax is beyond rng_normal's bound, so it is an outlier. An outlier-free
     * normal tensor has outlier_ratio at most the bound over its p_hi, about
     * 6.66 / 3.15 = 2.1 (3.15: the 5-sd low end of the 99.9th percentile);
     * with the outliers it is above 3 in each of 3000 seeds tried (32 here). */
    ck_assert_double_gt(g.s[S_AMAX], NORMAL_BOUND);
    if (verbose)
        printf("  %-42s golden %-12.6g (amax %g, p_hi %g)\n", "relu_act outlier_ratio",
               g.s[S_OUTLIER], g.s[S_AMAX], g.s[S_PHI]);
    ck_assert_double_gt(g.s[S_OUTLIER], 2.5);
}
END_TEST

/* student_t_grad, LAB2_T_SCALE times a Student-t with one degree of
 * freedom: Cauchy. */
START_TEST(student_t_grad_closed_forms)
{
    ck_assert_msg(LAB2_T_NU == 1, "the closed forms here are Cauchy's, for LAB2_T_NU = 1");
    golden g, gauss;
    load_synthetic("student_t_grad", &g, NULL);
    load_synthetic("gauss_w", &gauss, NULL);
    check_counts("student_t_grad", &g, LAB2_SYN_N, 0, 0, 0);
    /* At scale 1: E4M3 loses |x| <= 2^-10 = 97.7 scales: (2/pi) atan(97.66)
     * = 0.99348; E5M2 |x| <= 2^-17 = 0.763 scales: (2/pi) atan(0.763) =
     * 0.4150; saturation needs |x| > 464 = 4.6e7 scales: 1.4e-8. */
    check_fixed_rows("student_t_grad", &g, 1.0 - cauchy_cdf(E4M3_OVERFLOW),
                     cauchy_cdf(E4M3_UNDERFLOW), 1.0 - cauchy_cdf(E5M2_OVERFLOW),
                     cauchy_cdf(E5M2_UNDERFLOW));
    check_percentiles("student_t_grad", &g, cauchy_cdf);
    check_extremes("student_t_grad", &g, cauchy_cdf);
    /* The heavy tail: the largest of 65536 Cauchy draws sits about
     * 65.5 / -ln U above the 99.9th percentile (P(ratio < 5) ~ e^-13). */
    if (verbose)
        printf("  %-42s golden %-12.6g (gauss_w's %g)\n", "student_t_grad outlier_ratio",
               g.s[S_OUTLIER], gauss.s[S_OUTLIER]);
    ck_assert_double_gt(g.s[S_OUTLIER], 5.0);
    ck_assert_double_gt(g.s[S_OUTLIER], 4.0 * gauss.s[S_OUTLIER]);
}
END_TEST

/* lognormal, a random sign times exp(N(0, sigma^2)), at scale 1:
 * P(|x| <= t) = Phi(ln t / sigma). */
START_TEST(lognormal_closed_forms)
{
    golden g;
    load_synthetic("lognormal", &g, NULL);
    check_counts("lognormal", &g, LAB2_SYN_N, 0, 0, 0);
    const double sigma = LAB2_LOGN_SIGMA;
    check_fixed_rows("lognormal", &g, 1.0 - phi(log(E4M3_OVERFLOW) / sigma),
                     phi(log(E4M3_UNDERFLOW) / sigma), 1.0 - phi(log(E5M2_OVERFLOW) / sigma),
                     phi(log(E5M2_UNDERFLOW) / sigma));
    check_percentiles("lognormal", &g, lognormal_cdf);
    check_extremes("lognormal", &g, lognormal_cdf);
}
END_TEST

/* wide, a random sign times 2^u, u uniform on [LO, 0] (LO = -44): at scale
 * 1 the underflow fraction is (log2 T - LO) / -LO exactly in distribution;
 * nothing reaches 464; range_bits_pct = -LO (F(p_hi) - F(p_lo)). */
START_TEST(wide_closed_forms)
{
    golden g;
    load_synthetic("wide", &g, NULL);
    check_counts("wide", &g, LAB2_SYN_N, 0, 0, 0);
    const double lo = LAB2_WIDE_LO, m = g.s[S_NONZERO];
    ck_assert(g.c[R_E4M3_FIXED][C_SAT] == 0.0 && g.c[R_E5M2_FIXED][C_SAT] == 0.0);
    check_fixed_rows("wide", &g, 0.0, (log2(E4M3_UNDERFLOW) - lo) / -lo, 0.0,
                     (log2(E5M2_UNDERFLOW) - lo) / -lo);
    check_percentiles("wide", &g, wide_cdf);
    check_extremes("wide", &g, wide_cdf);
    /* F(p_lo) and F(p_hi) are the order statistics U_(i), U_(j) of the
     * uniform: their difference has mean (j - i) / (m + 1) (0.998 nearly)
     * and variance (p_i (1 - p_i) + p_j (1 - p_j) - 2 p_i (1 - p_j)) / (m + 2). */
    double i = (double)rank_of((size_t)m, LAB2_LO_PER_MILLE);
    double j = (double)rank_of((size_t)m, LAB2_HI_PER_MILLE);
    double pi = i / (m + 1), pj = j / (m + 1);
    double mean = -lo * (pj - pi);
    double sd = -lo * sqrt((pi * (1 - pi) + pj * (1 - pj) - 2 * pi * (1 - pj)) / (m + 2));
    if (verbose)
        printf("  %-42s golden %-12.6g closed form %-12.6g (5 sd %.3g)\n",
               "wide range_bits_pct", g.s[S_RANGE_PCT], mean, 5 * sd);
    ck_assert_msg(fabs(g.s[S_RANGE_PCT] - mean) <= 5 * sd + 1e-9,
                  "wide range_bits_pct: golden %.10g, closed form %.10g +- %.3g (sd)",
                  g.s[S_RANGE_PCT], mean, sd);
    ck_assert_double_le(g.s[S_RANGE], -lo); /* every |x| is in [2^LO, 1] */
}
END_TEST

/* ---- worked by hand ---------------------------------------------------------------- */

/* The special tensor (grading/lab2/goldens.c's SPECIAL), with each
 * element's decoded value at scale 1, worked out by hand:
 *   E4M3: subnormals k 2^-9 (k = 1..7), normals 2^-6 .. 448, 3 mantissa
 *         bits (in [2^e, 2^e+1) a step of 2^(e-3)); |x| <= 2^-10 gives 0,
 *         |x| > 464 saturates to 448;
 *   E5M2: subnormals k 2^-16 (k = 1..3), normals 2^-14 .. 57344, 2 mantissa
 *         bits (a step of 2^(e-2)); |x| <= 2^-17 gives 0, |x| >= 61440
 *         saturates to 57344.
 * The float constants: 0x1.000002p-10 = 2^-10 + 2^-33, 0x1.d00002p8 = 464 +
 * 2^-15, 0x1.dffffep15 = 61440 - 2^-8, 0x1.e00002p15 = 61440 + 2^-8; 0.3f =
 * 0.300000011920928955078125, 0.1f = 0.100000001490116119384765625. */
enum { SAT4 = 1, SAT5 = 2 }; /* the element saturates in E4M3, in E5M2 */
static const struct {
    float x, e4m3, e5m2;
    int sat;
} SPECIAL[LAB2_SPECIAL_N] = {
    {NAN, 0, 0, 0}, {-NAN, 0, 0, 0}, {INFINITY, 0, 0, 0}, {-INFINITY, 0, 0, 0}, /* not finite */
    {0.0f, 0, 0, 0}, {-0.0f, 0, 0, 0}, {0.0f, 0, 0, 0}, {-0.0f, 0, 0, 0},       /* zeros, exact */
    /* far below either format's smallest subnormal: zero in both */
    {FLT_TRUE_MIN, 0, 0, 0}, {-FLT_TRUE_MIN, 0, 0, 0}, {FLT_MIN, 0, 0, 0}, {-0x1p-100f, 0, 0, 0},
    /* 2^-10: E4M3's tie between 0 and 2^-9, to the even 0; an E5M2 normal */
    {0x1p-10f, 0, 0x1p-10f, 0}, {-0x1p-10f, -0.0f, -0x1p-10f, 0},
    /* just above the tie: E4M3 2^-9; E5M2 rounds the 2^-33 away (step 2^-12) */
    {0x1.000002p-10f, 0x1p-9f, 0x1p-10f, 0},
    {0x1p-9f, 0x1p-9f, 0x1p-9f, 0},
    /* 2^-17: E5M2's tie between 0 and 2^-16, to 0; below E4M3's threshold */
    {0x1p-17f, 0, 0, 0}, {-0x1p-17f, -0.0f, -0.0f, 0},
    {0x1.000002p-17f, 0, 0x1p-16f, 0}, /* above E5M2's tie: 2^-16 */
    {0x1p-16f, 0, 0x1p-16f, 0},         /* E5M2's smallest subnormal */
    {0x1p-7f, 0x1p-7f, 0x1p-7f, 0},     /* E4M3 4 x 2^-9; an E5M2 normal */
    /* 1.5 x 2^-9: E4M3 between subnormals 1 and 2 (x 2^-9), to the even 2;
     * E5M2 1.10b x 2^-9 exactly */
    {0x1.8p-9f, 0x1p-8f, 0x1.8p-9f, 0},
    /* 0.3 in [0.25, 0.5): E4M3 step 2^-5, 0.3 / 2^-5 = 9.6 -> 10 -> 0.3125;
     * E5M2 step 2^-4, 4.8 -> 5 -> 0.3125 */
    {0.3f, 0.3125f, 0.3125f, 0}, {-0.3f, -0.3125f, -0.3125f, 0},
    {1.0f, 1.0f, 1.0f, 0}, {-1.0f, -1.0f, -1.0f, 0}, {2.0f, 2.0f, 2.0f, 0}, {3.0f, 3.0f, 3.0f, 0},
    /* 0.1 in [2^-4, 2^-3): E4M3 step 2^-7, 12.8 -> 13 -> 0.1015625; E5M2
     * step 2^-6, 6.4 -> 6 -> 0.09375 */
    {0.1f, 0.1015625f, 0.09375f, 0},
    {-7.0f, -7.0f, -7.0f, 0}, /* 1.11b x 4, exact in both */
    /* 100 in [64, 128): E4M3 step 8, 12.5 -> the even 12 -> 96; E5M2 step 16,
     * 6.25 -> 6 -> 96 */
    {100.0f, 96.0f, 96.0f, 0},
    /* 250 in [128, 256): E4M3 step 16, 15.625 -> 16 -> 256; E5M2 step 32,
     * 7.8125 -> 8 -> 256 */
    {-250.0f, -256.0f, -256.0f, 0},
    {448.0f, 448.0f, 448.0f, 0}, {-448.0f, -448.0f, -448.0f, 0}, /* 7 x 64 in E5M2 too */
    /* 464: E4M3's tie between 448 and 480, to 448 (1.110b); E5M2 step 64,
     * 7.25 -> 7 -> 448 */
    {464.0f, 448.0f, 448.0f, 0},
    {0x1.d00002p8f, 448.0f, 448.0f, SAT4}, /* E4M3 overflows: saturated to 448 */
    /* 480: E4M3 saturates; E5M2 7.5 x 64, the tie to the even 8 -> 512 */
    {-480.0f, -448.0f, -512.0f, SAT4},
    /* 1000: E4M3 saturates; E5M2 in [512, 1024) step 128, 7.8125 -> 1024 */
    {1000.0f, 448.0f, 1024.0f, SAT4},
    {57344.0f, 448.0f, 57344.0f, SAT4}, {-57344.0f, -448.0f, -57344.0f, SAT4},
    /* 61440: E5M2's tie between 57344 and 65536 (inf), to the even 65536:
     * overflows, saturated; 2^-8 below it rounds down to 57344 (not
     * saturated); 2^-8 above overflows */
    {61440.0f, 448.0f, 57344.0f, SAT4 | SAT5}, {0x1.dffffep15f, 448.0f, 57344.0f, SAT4},
    {-0x1.e00002p15f, -448.0f, -57344.0f, SAT4 | SAT5}, {65536.0f, 448.0f, 57344.0f, SAT4 | SAT5},
    {1.0e6f, 448.0f, 57344.0f, SAT4 | SAT5}, {-3.0e5f, -448.0f, -57344.0f, SAT4 | SAT5},
    /* 12345 in [8192, 16384): E4M3 saturates; E5M2 step 2048, 6.03 -> 6 -> 12288 */
    {12345.0f, 448.0f, 12288.0f, SAT4},
    {0.0625f, 0.0625f, 0.0625f, 0},
};

START_TEST(special_by_hand)
{
    golden g;
    npy_array x;
    load_synthetic("special", &g, &x);
    ck_assert_uint_eq(x.count, LAB2_SPECIAL_N);
    const float *xs = x.data;
    for (int i = 0; i < LAB2_SPECIAL_N; i++)
        ck_assert_msg(isnan(xs[i]) ? isnan(SPECIAL[i].x) : !memcmp(&xs[i], &SPECIAL[i].x, 4),
                      "syn_special_x[%d] is %a, this table has %a", i, (double)xs[i],
                      (double)SPECIAL[i].x);

    /* Counts: 2 NaNs, 2 infinities, 4 zeros (two of each sign); so 44
     * finite and 40 finite nonzero elements. */
    check_counts("special", &g, 48, 2, 2, 4);
    /* amax 1e6; min_nonzero FLT_TRUE_MIN = 2^-149. With m = 40, the 0.1th
     * percentile's rank is ceil(0.04) = 1 (the smallest) and the 99.9th's
     * ceil(39.96) = 40 (the largest): p_lo = 2^-149, p_hi = 1e6. So
     * range_bits = range_bits_pct = log2(1e6 x 2^149) = 149 + log2(1e6)
     * (a float quotient would overflow: the quotient is in double), and
     * outlier_ratio = 1. */
    ck_assert(g.s[S_AMAX] == 1.0e6 && g.s[S_MIN] == 0x1p-149);
    ck_assert(g.s[S_PLO] == 0x1p-149 && g.s[S_PHI] == 1.0e6);
    double bits = 149.0 + log2(1.0e6);
    ck_assert_double_eq_tol(g.s[S_RANGE], bits, 1e-12 * bits);
    ck_assert_double_eq_tol(g.s[S_RANGE_PCT], bits, 1e-12 * bits);
    ck_assert(g.s[S_OUTLIER] == 1.0);

    /* Scale 1, E4M3. Saturated (|x| > 464): 464 + 2^-15, 480, 1000, 57344
     * twice, 61440, 61440 - 2^-8, 61440 + 2^-8, 65536, 1e6, 3e5, 12345: 12
     * of 44 (448 and 464 itself round to 448). Underflow (0 < |x| <= 2^-10):
     * +-2^-149, 2^-126, 2^-100, +-2^-10, +-2^-17, 2^-17 + 2^-40, 2^-16: 10
     * of 40 (2^-10 + 2^-33 rounds up to 2^-9). */
    ck_assert(g.c[R_E4M3_FIXED][C_FMT] == 0 && g.c[R_E4M3_FIXED][C_SCALE] == 1.0);
    ck_assert(g.c[R_E4M3_FIXED][C_SAT] == 12.0 / 44.0);
    ck_assert(g.c[R_E4M3_FIXED][C_UNDER] == 10.0 / 40.0);
    /* Scale 1, E5M2. Saturated (|x| >= 61440): 61440, 61440 + 2^-8, 65536,
     * 1e6, 3e5: 5 of 44 (61440 - 2^-8 rounds down to 57344). Underflow
     * (0 < |x| <= 2^-17): +-2^-149, 2^-126, 2^-100, +-2^-17: 6 of 40
     * (2^-17 + 2^-40 rounds up to 2^-16). */
    ck_assert(g.c[R_E5M2_FIXED][C_FMT] == 1 && g.c[R_E5M2_FIXED][C_SCALE] == 1.0);
    ck_assert(g.c[R_E5M2_FIXED][C_SAT] == 5.0 / 44.0);
    ck_assert(g.c[R_E5M2_FIXED][C_UNDER] == 6.0 / 40.0);

    /* The table's decoded values say the same, and give the MSE and the SQNR
     * at scale 1 (x' = decode(q) x 1.0f, errors squared and summed in double
     * in element order). */
    for (int f = 0; f < 2; f++) {
        const double *row = g.c[f == 0 ? R_E4M3_FIXED : R_E5M2_FIXED];
        const float max = f == 0 ? E4M3_MAX : E5M2_MAX;
        double signal = 0.0, noise = 0.0;
        int finite = 0, nonzero = 0, sat = 0, under = 0;
        for (int i = 0; i < LAB2_SPECIAL_N; i++) {
            float v = SPECIAL[i].x, d = f == 0 ? SPECIAL[i].e4m3 : SPECIAL[i].e5m2;
            if (!isfinite(v))
                continue;
            finite++;
            nonzero += v != 0.0f;
            under += v != 0.0f && d == 0.0f;
            sat += (SPECIAL[i].sat & (f == 0 ? SAT4 : SAT5)) != 0;
            /* a saturated element decodes to the format's largest value */
            ck_assert(!(SPECIAL[i].sat & (f == 0 ? SAT4 : SAT5)) || fabsf(d) == max);
            double e = (double)v - (double)d;
            signal += (double)v * v;
            noise += e * e;
        }
        ck_assert_int_eq(finite, 44);
        ck_assert_int_eq(nonzero, 40);
        ck_assert_int_eq(sat, f == 0 ? 12 : 5);
        ck_assert_int_eq(under, f == 0 ? 10 : 6);
        double mse = noise / 44.0, sqnr = 10.0 * log10(signal / noise);
        if (verbose)
            printf("  special %s at scale 1: mse golden %.10g, by hand %.10g; sqnr golden %.10g, "
                   "by hand %.10g\n",
                   f == 0 ? "E4M3" : "E5M2", row[C_MSE], mse, row[C_SQNR], sqnr);
        ck_assert_msg(fabs(row[C_MSE] - mse) <= 1e-12 * mse,
                      "special %s mse: golden %.17g, by hand %.17g", f == 0 ? "E4M3" : "E5M2",
                      row[C_MSE], mse);
        ck_assert_msg(fabs(row[C_SQNR] - sqnr) <= 1e-9 * fabs(sqnr),
                      "special %s sqnr_db: golden %.17g, by hand %.17g", f == 0 ? "E4M3" : "E5M2",
                      row[C_SQNR], sqnr);
    }

    /* The tensor scales: 448 / 1e6 and 57344 / 1e6 in float. E4M3 at 4.48e-4
     * loses |x| <= 2^-10 / 4.48e-4 = 2.18: the 14 elements from 2^-149 to
     * 1.5 x 2^-9, +-0.3, +-1, 2, 0.1, 0.0625: 21 of 40 (3 x 4.48e-4 =
     * 1.34e-3 rounds to 2^-9). E5M2 at 0.057344 loses |x| <= 2^-17 /
     * 0.057344 = 1.33e-4: +-2^-149, 2^-126, 2^-100, +-2^-17, 2^-17 + 2^-40,
     * 2^-16: 8 of 40. Both above 1%: keep. */
    ck_assert(g.c[R_E4M3][C_SCALE] == (double)(E4M3_MAX / 1.0e6f));
    ck_assert(g.c[R_E5M2][C_SCALE] == (double)(E5M2_MAX / 1.0e6f));
    ck_assert(g.c[R_E4M3][C_SAT] == 0.0 && g.c[R_E5M2][C_SAT] == 0.0);
    ck_assert(g.c[R_E4M3][C_UNDER] == 21.0 / 40.0);
    ck_assert(g.c[R_E5M2][C_UNDER] == 8.0 / 40.0);
    ck_assert_int_eq(g.choice, LAB2_KEEP);
    npy_free(&x);
}
END_TEST

/* nonfinite: NaN, inf, -inf, 0, -0, -NaN, 0, -0. Nothing finite is nonzero:
 * every statistic 0 but the counts; the scale 1 (amax 0); no saturation
 * (4 finite zeros), no underflow (no nonzero element: 0), no error (MSE 0,
 * SQNR +inf); E4M3 (any format holds zeros). */
START_TEST(nonfinite_by_hand)
{
    golden g;
    npy_array x;
    load_synthetic("nonfinite", &g, &x);
    ck_assert_uint_eq(x.count, 8);
    check_counts("nonfinite", &g, 8, 2, 2, 4);
    for (int j = S_AMAX; j < LAB2_STATS_LEN; j++)
        ck_assert_msg(g.s[j] == 0.0, "nonfinite stats[%d] = %g, expected 0", j, g.s[j]);
    for (int r = 0; r < 4; r++) {
        ck_assert(g.c[r][C_FMT] == (double)(r % 2));
        ck_assert(g.c[r][C_SCALE] == 1.0);
        ck_assert(g.c[r][C_SAT] == 0.0 && g.c[r][C_UNDER] == 0.0 && g.c[r][C_MSE] == 0.0);
        ck_assert(isinf(g.c[r][C_SQNR]) && g.c[r][C_SQNR] > 0);
    }
    ck_assert_int_eq(g.choice, LAB2_E4M3);
    npy_free(&x);
}
END_TEST

/* ---- every tensor: what the golden must say of itself --------------------------------- */

static bool is_count_over(double frac, double denom)
{
    double k = nearbyint(frac * denom);
    return denom == 0.0 ? frac == 0.0 : k >= 0 && k <= denom && k / denom == frac;
}

START_TEST(goldens_consistent)
{
    char name[128], input[4200];
    tensor_names(_i, name, sizeof name, input, sizeof input);
    golden g;
    load_golden(name, &g);
    npy_array x;
    lab_error err;
    ck_assert_msg(npy_load(input, &x, &err) == 0, "%s", err.msg);
    ck_assert_msg(x.dtype == NPY_F32, "%s: not float32", input);
    const float *xs = x.data;
    const double *s = g.s;

    /* The counts: whole numbers; n is the input's element count; they add up. */
    for (int j = S_N; j <= S_NONZERO; j++)
        ck_assert_msg(s[j] >= 0 && s[j] == nearbyint(s[j]), "%s: stats[%d] = %.17g, not a count",
                      name, j, s[j]);
    ck_assert_msg(s[S_N] == (double)x.count, "%s: golden n %g, the input has %zu elements", name,
                  s[S_N], x.count);
    ck_assert_msg(s[S_NAN] + s[S_INF] + s[S_ZEROS] + s[S_NONZERO] == s[S_N],
                  "%s: nan + inf + zeros + nonzero != n", name);
    const double finite = s[S_N] - s[S_NAN] - s[S_INF], m = s[S_NONZERO];

    /* The floats' order and the quantities made of them. */
    if (m > 0) {
        ck_assert(0 < s[S_MIN] && s[S_MIN] <= s[S_PLO] && s[S_PLO] <= s[S_PHI] &&
                  s[S_PHI] <= s[S_AMAX]);
        ck_assert_double_eq_tol(s[S_RANGE], log2(s[S_AMAX] / s[S_MIN]),
                                1e-12 * fabs(s[S_RANGE]) + 1e-300);
        ck_assert_double_eq_tol(s[S_RANGE_PCT], log2(s[S_PHI] / s[S_PLO]),
                                1e-12 * fabs(s[S_RANGE_PCT]) + 1e-300);
        ck_assert_double_eq_tol(s[S_OUTLIER], s[S_AMAX] / s[S_PHI], 1e-12 * s[S_OUTLIER]);
    }

    double signal = 0.0;
    for (size_t i = 0; i < x.count; i++)
        if (isfinite(xs[i]))
            signal += (double)xs[i] * xs[i];

    const bool gauss = !strcmp(name, "syn_gauss_w");
    const float fixed[2] = {gauss ? LAB2_FIXED_GAUSS_E4M3 : 1.0f,
                            gauss ? LAB2_FIXED_GAUSS_E5M2 : 1.0f};
    const float max[2] = {E4M3_MAX, E5M2_MAX};
    for (int r = 0; r < 4; r++) {
        const double *c = g.c[r];
        int f = r % 2;
        ck_assert_msg(c[C_FMT] == f, "%s row %d: fmt %g", name, r, c[C_FMT]);
        /* Rows 0, 1: fp8_max / amax in float (1 for amax 0); rows 2, 3 the fixed scale. */
        float want = r >= 2 ? fixed[f] : s[S_AMAX] == 0 ? 1.0f : max[f] / (float)s[S_AMAX];
        if (isinf(want))
            want = FLT_MAX;
        ck_assert_msg(c[C_SCALE] == want, "%s row %d: scale %.9g, expected %.9g", name, r,
                      c[C_SCALE], (double)want);
        /* amax x (fp8_max / amax) is within two roundings of fp8_max, far
         * below the overflow threshold: the tensor scale never saturates. */
        if (r < 2)
            ck_assert_msg(c[C_SAT] == 0.0, "%s row %d: saturated %g at the tensor scale", name, r,
                          c[C_SAT]);
        ck_assert_msg(is_count_over(c[C_SAT], finite), "%s row %d: saturated %.17g is not k / %g",
                      name, r, c[C_SAT], finite);
        ck_assert_msg(is_count_over(c[C_UNDER], m), "%s row %d: underflow %.17g is not k / %g",
                      name, r, c[C_UNDER], m);
        /* sqnr_db = 10 log10(sum x^2 / (mse x finite)), +inf when mse is 0. */
        ck_assert_msg(c[C_MSE] >= 0.0, "%s row %d: mse %g", name, r, c[C_MSE]);
        if (c[C_MSE] == 0.0) {
            ck_assert_msg(isinf(c[C_SQNR]) && c[C_SQNR] > 0, "%s row %d: mse 0, sqnr %g", name,
                          r, c[C_SQNR]);
        } else {
            double sqnr = 10.0 * log10(signal / (c[C_MSE] * finite));
            ck_assert_msg(fabs(c[C_SQNR] - sqnr) <= 1e-9 * fmax(1.0, fabs(sqnr)),
                          "%s row %d: sqnr_db %.12g, but its mse and the input's energy give "
                          "%.12g",
                          name, r, c[C_SQNR], sqnr);
        }
    }

    /* lab2.h's rule on the golden's own rows 0 and 1. */
    bool ok4 = g.c[0][C_UNDER] <= LAB2_MAX_UNDERFLOW && g.c[0][C_SQNR] >= LAB2_MIN_SQNR_DB;
    bool ok5 = g.c[1][C_UNDER] <= LAB2_MAX_UNDERFLOW && g.c[1][C_SQNR] >= LAB2_MIN_SQNR_DB;
    int want = m == 0 || ok4 ? LAB2_E4M3 : ok5 ? LAB2_E5M2 : LAB2_KEEP;
    if (verbose)
        printf("  %-32s %-5s (E4M3 underflow %.4f, %.1f dB; E5M2 %.4f, %.1f dB)\n", name,
               lab2_choice_name((lab2_choice)g.choice), g.c[0][C_UNDER], g.c[0][C_SQNR],
               g.c[1][C_UNDER], g.c[1][C_SQNR]);
    ck_assert_msg(g.choice == want,
                  "%s: golden choice %d (%s), but its rows say %d (%s): E4M3 underflow %g, "
                  "SQNR %g dB; E5M2 underflow %g, SQNR %g dB",
                  name, g.choice, lab2_choice_name((lab2_choice)g.choice), want,
                  lab2_choice_name((lab2_choice)want), g.c[0][C_UNDER], g.c[0][C_SQNR],
                  g.c[1][C_UNDER], g.c[1][C_SQNR]);
    npy_free(&x);
}
END_TEST

int main(int argc, char **argv)
{
    int a = 1;
    if (a < argc && !strcmp(argv[a], "-v"))
        verbose = true, a++;
    if (a < argc)
        dir = argv[a++];
    if (a < argc)
        snprintf(captures, sizeof captures, "%s", argv[a++]);
    else
        snprintf(captures, sizeof captures, "%s/../../captures", dir);
    Suite *s = suite_create("lab2 goldens");
    TCase *tc = tcase_create("closed forms");
    tcase_add_test(tc, gauss_w_closed_forms);
    tcase_add_test(tc, relu_act_closed_forms);
    tcase_add_test(tc, student_t_grad_closed_forms);
    tcase_add_test(tc, lognormal_closed_forms);
    tcase_add_test(tc, wide_closed_forms);
    suite_add_tcase(s, tc);
    tc = tcase_create("by hand");
    tcase_add_test(tc, special_by_hand);
    tcase_add_test(tc, nonfinite_by_hand);
    suite_add_tcase(s, tc);
    tc = tcase_create("consistent");
    tcase_add_loop_test(tc, goldens_consistent, 0, LAB2_N_SYNTHETIC + LAB2_N_REAL);
    suite_add_tcase(s, tc);
    return check_run(s);
}
