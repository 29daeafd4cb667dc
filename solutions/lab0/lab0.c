/*
 * lab0.c - reference solution of lab0, FP8 number formats (see lab0.h).
 *
 * Decodes and encodes any 1-sign, E-exponent, M-mantissa 8-bit format from
 * its parameters alone (lab0_format: exp_bits, man_bits, has_inf), with the
 * bias 2^(E-1) - 1. One code path serves E4M3 and E5M2: where the two formats
 * differ, a parameter says how. The README section next to each function
 * explains its rules.
 *
 * The encoder works on the float's bits with integer operations only, so it
 * gives the same answer whatever the floating-point rounding mode. Each step
 * is written out for reading next to the handout, not for speed.
 *
 * Not for: production use (common/fp8.h is the course's tested codec), or
 * formats without a sign bit or wider than 8 bits.
 */
#include "lab0.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------- */

/* README §1: bias = 2^(E-1) - 1 (7 for E4M3, 15 for E5M2). */
static int bias_of(const lab0_format *f)
{
    return (1 << (f->exp_bits - 1)) - 1;
}

/* The all-ones exponent field: 15 for E4M3, 31 for E5M2. */
static unsigned exp_all_ones(const lab0_format *f)
{
    return (1u << f->exp_bits) - 1;
}

/* The all-ones mantissa field: 7 for E4M3, 3 for E5M2. */
static unsigned man_all_ones(const lab0_format *f)
{
    return (1u << f->man_bits) - 1;
}

/*
 * README §5: the largest finite code, without its sign.
 * With infinities (E5M2) the whole top binade is inf and NaN, so the largest
 * finite number is the all-ones mantissa one binade lower: 0.11110.11 = 0x7B.
 * Without (E4M3FN) only the all-ones code is NaN, so the largest finite number
 * is the top binade's next-to-last code: 0.1111.110 = 0x7E.
 */
static unsigned max_finite_code(const lab0_format *f)
{
    if (f->has_inf)
        return ((exp_all_ones(f) - 1) << f->man_bits) | man_all_ones(f);
    return (exp_all_ones(f) << f->man_bits) | (man_all_ones(f) - 1);
}

/* README §6: the canonical NaN, 0.1..1.1..1 (0x7F for both formats). */
static uint8_t nan_code(const lab0_format *f)
{
    return (uint8_t)((exp_all_ones(f) << f->man_bits) | man_all_ones(f));
}

/* README §5: what an overflow gives; sign is 0x00 or 0x80. */
static uint8_t overflow_code(const lab0_format *f, uint8_t sign, int saturate)
{
    if (saturate)
        return (uint8_t)(sign | max_finite_code(f));
    if (f->has_inf)
        return (uint8_t)(sign | (exp_all_ones(f) << f->man_bits)); /* +-inf */
    return (uint8_t)(sign | nan_code(f));                           /* NaN, x's sign */
}

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* ---- Exercise 1: decode (README §2) ------------------------------------------ */

float lab0_decode(const lab0_format *f, uint8_t code)
{
    int M = f->man_bits;
    unsigned sign = code >> 7;
    unsigned e = (code >> M) & exp_all_ones(f);  /* biased exponent field */
    unsigned m = code & man_all_ones(f);         /* mantissa field */

    /* The top binade: inf and NaN (E5M2), or only NaN at m all ones (E4M3FN). */
    if (e == exp_all_ones(f)) {
        if (f->has_inf)
            return m == 0 ? (sign ? -INFINITY : INFINITY) : NAN;
        if (m == man_all_ones(f))
            return NAN;
    }

    /*
     * Normal:    (-1)^s * 2^(e - bias)  * (1 + m / 2^M) = (2^M + m) * 2^(e - bias - M)
     * Subnormal: (-1)^s * 2^(1 - bias) * (0 + m / 2^M) =        m  * 2^(1 - bias - M)
     * An integer times a power of two: ldexpf computes it exactly.
     */
    float value;
    if (e == 0)
        value = ldexpf((float)m, 1 - bias_of(f) - M);
    else
        value = ldexpf((float)((1u << M) + m), (int)e - bias_of(f) - M);
    return sign ? -value : value; /* 0x80 gives -0.0f */
}

/* ---- Exercise 2: encode (README §3-§6) ---------------------------------------- */

uint8_t lab0_encode(const lab0_format *f, float x, int saturate)
{
    const int M = f->man_bits;
    uint32_t u = bits_of(x);
    uint8_t sign = (uint8_t)((u >> 24) & 0x80); /* the float's sign, at bit 7 */
    uint32_t mag = u & 0x7FFFFFFFu;            /* |x| */

    /* §6: any NaN gives the canonical NaN; §5: +-inf is an overflow. */
    if (mag > 0x7F800000u)
        return nan_code(f);
    if (mag == 0x7F800000u)
        return overflow_code(f, sign, saturate);

    /*
     * Step 1, the float's parts: |x| = sig * 2^(exp - 23), sig < 2^24.
     * A normal float has the implicit leading 1 at bit 23; a subnormal float
     * (exponent field 0) has none and the exponent of the smallest normal.
     */
    int float_exp = (int)(mag >> 23);
    uint32_t sig = mag & 0x7FFFFFu;
    int exp;
    if (float_exp == 0) {
        exp = 1 - 127;
    } else {
        exp = float_exp - 127;
        sig |= 1u << 23;
    }

    /*
     * Step 2, how many of sig's bits to drop. A normal FP8 result keeps the
     * leading 1 and M mantissa bits: drop 23 - M. Below the smallest normal,
     * 2^(1 - bias), the exponent cannot go lower, so every binade below costs
     * one more mantissa bit (§4): drop 23 - M + (1 - bias - exp) bits.
     */
    int biased = exp + bias_of(f); /* the FP8 exponent field, if normal */
    int shift = 23 - M;
    if (biased < 1) {
        shift += 1 - biased;
        biased = 0;  /* subnormal: exponent field 0 */
    }
    /* sig < 2^24: with 25 or more bits dropped, nothing is kept and even
     * the guard bit (bit shift - 1) is 0, so |x| is below half the smallest
     * subnormal and rounds to zero. (This also keeps the shifts below under
     * 32 bits, where C leaves them undefined.) */
    if (shift > 24)
        return sign;

    /*
     * Step 3, round to nearest, ties to even (§3): q is what is kept, rest
     * what is dropped, and half is half of one unit of q, on rest's scale.
     * rest > half: round up; rest == half: a tie, up only if q is odd.
     */
    uint32_t q = sig >> shift;
    uint32_t rest = sig & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1)))
        q += 1;

    /*
     * Step 4, assemble the code. A normal q holds the implicit 1 at bit M;
     * take it away to get the mantissa field. If rounding carried q up to
     * 2^(M+1), the carry lands in the exponent field: exactly the next binade.
     * A subnormal q is the mantissa field itself; if it rounded up to 2^M it
     * reads as exponent field 1, mantissa 0: the smallest normal, as it should.
     */
    uint32_t code;
    if (biased == 0)
        code = q;
    else
        code = ((uint32_t)biased << M) + (q - (1u << M));

    /* Step 5, overflow (§5): past the largest finite code after rounding. */
    if (code > max_finite_code(f))
        return overflow_code(f, sign, saturate);
    return (uint8_t)(sign | code);
}

/* ---- Exercise 3: limits (README §7) ------------------------------------------- */

lab0_limits lab0_format_limits(const lab0_format *f)
{
    int M = f->man_bits;
    int emin = 1 - bias_of(f);                   /* exponent of the smallest normal */
    int top = (int)exp_all_ones(f) - bias_of(f); /* exponent of the top binade */

    lab0_limits l;
    if (f->has_inf) /* top binade is inf/NaN: 1.11..1b one binade lower */
        l.max = ldexpf(2.0f - ldexpf(1.0f, -M), top - 1);
    else            /* top binade, but 1.11..1b is NaN: 1.11..10b */
        l.max = ldexpf(2.0f - ldexpf(1.0f, 1 - M), top);
    l.min_normal = ldexpf(1.0f, emin);
    l.min_subnormal = ldexpf(1.0f, emin - M);  /* 0.00..1b x 2^emin */
    l.epsilon = ldexpf(1.0f, -M);              /* 1.00..1b - 1 */
    l.rel_error_bound = ldexpf(1.0f, -(M + 1)); /* half a step at 1, over 1 */
    return l;
}
