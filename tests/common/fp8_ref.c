/*
 * fp8_ref.c - the tests' reference codec: closed-form decode and encode by
 * enumerating every finite code (see fp8_ref.h for the method).
 *
 * Deliberately plain: a table of every finite value built from the closed
 * form, a bisection over it, and all arithmetic in double, where every value
 * of every format and every midpoint between two neighbours is exact. No
 * static mutable data.
 */
#include "fp8_ref.h"

#include <math.h>
#include <stddef.h>

/* Parameters from the OCP OFP8 rev 1.0 and MX v1.0 specifications. */
static const ref_params k_params[FP8_FORMAT_COUNT] = {
    [FP8_E4M3] = {"e4m3", 8, 4, 3, 7, true, false, true, true},
    [FP8_E5M2] = {"e5m2", 8, 5, 2, 15, true, true, true, true},
    [FP8_E8M0] = {"e8m0", 8, 8, 0, 127, false, false, true, false},
    [FP8_E2M1] = {"e2m1", 4, 2, 1, 1, true, false, false, true},
    [FP8_E3M2] = {"e3m2", 6, 3, 2, 3, true, false, false, true},
    [FP8_E2M3] = {"e2m3", 6, 2, 3, 1, true, false, false, true},
};

const ref_params *ref_params_of(fp8_format fmt)
{
    if ((int)fmt < 0 || fmt >= FP8_FORMAT_COUNT)
        return NULL;
    return &k_params[fmt];
}

/* The closed form of a sign-less field pattern, ignoring special codes; the
 * exponent field may exceed its width (used for the value past max). */
static double closed_form(const ref_params *p, unsigned magnitude)
{
    unsigned mant_mask = (1u << p->man_bits) - 1u;
    int e = (int)(magnitude >> p->man_bits);
    double m = (double)(magnitude & mant_mask);
    double frac = ldexp(m, -p->man_bits); /* m / 2^M */

    if (p->man_bits == 0) /* E8M0: a bare biased exponent */
        return ldexp(1.0, e - p->bias);
    if (e == 0) /* subnormal: 0.m x 2^(1 - bias) */
        return ldexp(frac, 1 - p->bias);
    return ldexp(1.0 + frac, e - p->bias); /* normal: 1.m x 2^(e - bias) */
}

double ref_decode(uint8_t code, fp8_format fmt)
{
    const ref_params *p = ref_params_of(fmt);
    unsigned width_mask = (1u << p->bits) - 1u;
    unsigned c = code & width_mask;
    unsigned magnitude = c;
    bool negative = false;

    if (p->has_sign) {
        unsigned sign_bit = 1u << (p->bits - 1);
        negative = (c & sign_bit) != 0;
        magnitude = c & ~sign_bit;
    }

    unsigned exp_all_ones = (1u << p->exp_bits) - 1u;
    unsigned e = magnitude >> p->man_bits;
    unsigned m = magnitude & ((1u << p->man_bits) - 1u);
    double v;

    switch (fmt) {
    case FP8_E4M3: /* only S.1111.111 is NaN; no inf */
        if (e == exp_all_ones && m == 7u)
            return NAN;
        break;
    case FP8_E5M2: /* IEEE-like: exponent all ones is inf or NaN */
        if (e == exp_all_ones)
            return m == 0u ? (negative ? -INFINITY : INFINITY) : NAN;
        break;
    case FP8_E8M0: /* 0xFF is NaN */
        if (c == 0xFFu)
            return NAN;
        break;
    default: /* E2M1, E3M2, E2M3: every code is a number */
        break;
    }

    v = closed_form(p, magnitude);
    return negative ? -v : v;
}

static bool finite_code(fp8_format fmt, unsigned c)
{
    double v = ref_decode((uint8_t)c, fmt);
    return !isnan(v) && !isinf(v);
}

void ref_codebook_build(ref_codebook *cb, fp8_format fmt)
{
    const ref_params *p = ref_params_of(fmt);
    unsigned ncodes = 1u << p->bits;

    cb->fmt = fmt;
    cb->p = *p;
    cb->count = 0;
    cb->sign_bit = p->has_sign ? (uint8_t)(1u << (p->bits - 1)) : 0u;

    /* Every finite code without its sign bit set, inserted in value order
     * (insertion sort: no assumption that codes are monotonic). */
    for (unsigned c = 0; c < ncodes; c++) {
        if ((c & cb->sign_bit) != 0u || !finite_code(fmt, c))
            continue;
        double v = ref_decode((uint8_t)c, fmt);
        int i = cb->count++;
        while (i > 0 && cb->value[i - 1] > v) {
            cb->value[i] = cb->value[i - 1];
            cb->code[i] = cb->code[i - 1];
            i--;
        }
        cb->value[i] = v;
        cb->code[i] = (uint8_t)c;
    }

    cb->max_code = cb->code[cb->count - 1];
    cb->beyond_code = cb->max_code + 1u;
    cb->beyond = closed_form(p, cb->beyond_code);

    cb->nan_code = 0;
    cb->inf_code = 0;
    if (fmt == FP8_E4M3 || fmt == FP8_E5M2)
        cb->nan_code = 0x7F;
    else if (fmt == FP8_E8M0)
        cb->nan_code = 0xFF;
    if (fmt == FP8_E5M2)
        cb->inf_code = 0x7C;
}

void ref_bracket(const ref_codebook *cb, double x, int *lo, int *hi)
{
    double a = fabs(x);
    int l = -1, h = cb->count;

    *lo = -1;
    *hi = -1;
    if (isnan(x))
        return;
    /* Bisection keeping value[l] <= a < value[h] (value[-1] = -inf,
     * value[count] = +inf) until l and h are adjacent. */
    while (h - l > 1) {
        int mid = l + (h - l) / 2;
        if (cb->value[mid] <= a)
            l = mid;
        else
            h = mid;
    }
    *lo = l;
    /* The smallest value >= a: value[l] itself when a is representable. */
    *hi = (l >= 0 && cb->value[l] == a) ? l : h;
}

/* Overflow, by the rules of fp8.h. */
static uint8_t overflow_code(const ref_codebook *cb, bool negative, bool saturate)
{
    uint8_t sign = negative ? cb->sign_bit : 0u;

    if (!cb->p.has_inf && !cb->p.has_nan) /* E2M1, E3M2, E2M3 */
        return (uint8_t)(cb->max_code | sign);
    if (saturate)
        return (uint8_t)(cb->max_code | sign);
    if (cb->p.has_inf)
        return (uint8_t)(cb->inf_code | sign);
    return (uint8_t)(cb->nan_code | sign); /* E4M3: 0x7F / 0xFF; E8M0: 0xFF */
}

uint8_t ref_encode_with(const ref_codebook *cb, double x, bool saturate, fp8_rounding rnd)
{
    bool negative = cb->p.has_sign && signbit(x);
    uint8_t sign = negative ? cb->sign_bit : 0u;
    int lo, hi;

    if (isnan(x)) {
        if (cb->p.has_nan)
            return cb->nan_code;
        return cb->max_code; /* no NaN: +max, whatever the sign */
    }
    if (isinf(x))
        return overflow_code(cb, negative, saturate);

    ref_bracket(cb, x, &lo, &hi);
    double a = fabs(x);

    if (lo < 0) /* E8M0 below 2^-127: the smallest code is the only choice */
        return (uint8_t)(cb->code[0] | sign);
    if (cb->value[lo] == a) /* representable */
        return (uint8_t)(cb->code[lo] | sign);

    /* Strictly between value[lo] and the value above (or beyond max). */
    bool past_max = hi == cb->count;
    double above = past_max ? cb->beyond : cb->value[hi];
    unsigned above_code = past_max ? cb->beyond_code : cb->code[hi];
    bool take_above;

    switch (rnd) {
    case FP8_ROUND_TOWARD_ZERO:
        take_above = false;
        break;
    case FP8_ROUND_AWAY_FROM_ZERO:
        take_above = true;
        break;
    case FP8_ROUND_NEAREST_EVEN:
    default: {
        double mid = (cb->value[lo] + above) / 2.0; /* exact in double */
        if (a < mid)
            take_above = false;
        else if (a > mid)
            take_above = true;
        else /* a tie: the code with a 0 in its lowest bit */
            take_above = (above_code & 1u) == 0u;
        break;
    }
    }

    if (!take_above)
        return (uint8_t)(cb->code[lo] | sign);
    if (past_max)
        return overflow_code(cb, negative, saturate);
    return (uint8_t)(cb->code[hi] | sign);
}

uint8_t ref_encode(double x, fp8_format fmt, bool saturate, fp8_rounding rnd)
{
    ref_codebook cb;
    ref_codebook_build(&cb, fmt);
    return ref_encode_with(&cb, x, saturate, rnd);
}
