/*
 * lab5_bound.h - the tolerance of a tensor-core FP8 dot product (README §5.1),
 * the one place it is computed: the grader (grading/lab5/suite.c) checks
 * every tensor-core GEMM with it, the demo (main.cu) validates with it, and
 * tests/lab5/test_tc_bound.c checks it against a CPU model of the
 * accumulator.
 *
 * The model (Hopper's FP8 accumulation as DeepSeek-AI describe it, DeepSeek-V3
 * technical report, arXiv:2412.19437, §3.3.2, and as DeepGEMM's promotion to
 * FP32 exists to repair): one k32 instruction adds its 32 exact products to
 * the FP32 accumulator c by aligning all 33 addends to the largest exponent
 * among them, E, and keeping LAB5_TC_KEPT_BITS significant bits below and
 * including 2^E, the rest cut off (toward zero); the aligned sum is then
 * written back as an FP32 value.
 *
 * Its error, step by step. With q = 2^(E - KEPT + 1), the weight of the last
 * bit kept, each addend x loses less than min(|x|, q), with the sign of x. So
 * the products' losses lie between -sum_{p<0} min(|p|, q) and
 * +sum_{p>0} min(p, q), and c loses less than q either way:
 *     |err_step| < q + max(sum_{p>0} min(p, q), sum_{p<0} min(|p|, q))
 *                  + 2^-23 |result|                         (back into FP32)
 * 2^E is at most the largest addend, and the accumulator is at most the exact
 * partial sum C_t plus the error so far, so q <= lead_t 2^(1 - KEPT) with
 *     lead_t = max(|C_t| + err_so_far, max |p| of the step).
 * The sum of these over the K/32 steps bounds the accumulation error of one
 * accumulator fed in k order (what the course's kernels do); two more
 * roundings come from the scale: D = acc x (sa sb) in float.
 *
 * The tolerance is LAB5_TC_MARGIN times that: with a margin of 2 it is
 * exactly the same bound for an accumulator that keeps one bit fewer (13),
 * the low end of "about 13-14 bits". It depends on the data (the partial
 * sums), not only on K: same-sign products (partial sums that only grow)
 * earn a far larger tolerance than mixed signs, whose partial sums stay
 * near sqrt(K) times a product.
 */
#ifndef LAB5_BOUND_H
#define LAB5_BOUND_H

#include <math.h>

#define LAB5_TC_STEP 32      /* products per instruction (k32) */
#define LAB5_TC_KEPT_BITS 14 /* significant bits the accumulation keeps */
#define LAB5_TC_MARGIN 2.0   /* the tolerance over the model's worst case */

/* One dot product of the exact products p[0..K-1] (in k order): *sum the
 * exact sum (in double: exact for lab5's E4M3 products, see grading/lab5/suite.c),
 * and the return value the model's worst-case accumulation error with
 * `kept` significant bits, before any scale.
 *
 * The graders run it on millions of elements, so its loops call no library
 * function: |p|, the larger and the smaller of two values are comparisons,
 * and 2^(1 - kept) and 2^-23 are factors (a product by a power of two is the
 * same double as ldexp's, both correctly rounded). Every sum is taken in k
 * order, as the formulas above read. */
static inline double lab5_tc_model_error(const double *p, int K, int kept, double *sum)
{
    const double cut = ldexp(1.0, 1 - kept), back = 0x1p-23;
    double exact = 0, err = 0;
    for (int k0 = 0; k0 < K; k0 += LAB5_TC_STEP) {
        int n = K - k0 < LAB5_TC_STEP ? K - k0 : LAB5_TC_STEP;
        const double *s = p + k0;
        double pmax = 0, step = 0;
        for (int k = 0; k < n; k++) {
            double a = s[k] < 0 ? -s[k] : s[k];
            pmax = a > pmax ? a : pmax;
            step += s[k];
        }
        double now = (exact < 0 ? -exact : exact) + err;
        double q = (now > pmax ? now : pmax) * cut;
        /* The positive products' terms, then the others', each in k order:
         * gathered without a branch on the sign (as likely one way as the
         * other), then summed; a sum of +0 or more is the same double
         * without the +0 terms a branch would have added. */
        double up[LAB5_TC_STEP], down[LAB5_TC_STEP], pos = 0, neg = 0;
        int nu = 0, nd = 0;
        for (int k = 0; k < n; k++) {
            double a = s[k] < 0 ? -s[k] : s[k], m = a < q ? a : q;
            int positive = s[k] > 0;
            up[nu] = m;
            down[nd] = m;
            nu += positive;
            nd += 1 - positive;
        }
        for (int k = 0; k < nu; k++)
            pos += up[k];
        for (int k = 0; k < nd; k++)
            neg += down[k];
        exact += step;
        err += q + (pos > neg ? pos : neg);
        err += ((exact < 0 ? -exact : exact) + err) * back;
    }
    *sum = exact;
    return err;
}

/* The tolerance of D = acc x sab against ref = sum x sab, for |sab| = sab_abs:
 * the margin times the model's error scaled, plus the two float roundings of
 * the scale (sa x sb, then acc x that: 2^-23 of |D| covers both). */
static inline double lab5_tc_tolerance(const double *p, int K, double sab_abs, double *sum)
{
    double err = lab5_tc_model_error(p, K, LAB5_TC_KEPT_BITS, sum);
    return LAB5_TC_MARGIN * (err * sab_abs + (fabs(*sum) + err) * sab_abs * 0x1p-23) + 1e-30;
}

#endif /* LAB5_BOUND_H */
