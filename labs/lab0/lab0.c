/*
 * lab0.c - lab0, FP8 number formats: YOUR CODE GOES HERE.
 *
 * Write the three functions declared in lab0.h: decode a code, encode a
 * float, and the limits of a format. Each one works for ANY format described
 * by a lab0_format (exp_bits E, man_bits M, has_inf), so E4M3 and E5M2 share
 * one code path: where they differ, use the parameters, not the name.
 *
 * Rules:
 *   - Do not call the course's codec (common/fp8.h): the point is to write
 *     it yourself. The grader compiles this file against lab0.h alone, and
 *     refuses a lab0.c that calls an fp8_* function.
 *   - Anything from the C standard library is fine: <math.h> (ldexpf, isnan,
 *     INFINITY, NAN), <string.h> (memcpy to read a float's bits), ...
 *   - Add as many static helper functions as you like (static: only lab0_*
 *     names may be global, the grader refuses others). Some that help:
 *       static int bias_of(const lab0_format *f);          README §1
 *       static unsigned max_finite_code(const lab0_format *f);  README §5
 *       static uint32_t bits_of(float x);  the float's 32 bits, via memcpy
 *   - Integer work on the float's bits is the recommended way to encode
 *     (README §3 and §4 show it step by step); it is exact by construction.
 *
 * Test as you go:
 *   make lab0 && ./grader lab0                  every test, and your score
 *   ./grader lab0 --test decode_e4m3 -v         one test, more detail
 *   ./build/bin/fp8 explain 464 --format e4m3   what the right answer is, and why
 *
 * Not for: anything but lab0.h's three functions. main.c (the demo) and the
 * grader call them; do not add a main() here.
 */
#include "lab0.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/*
 * lab0_decode - the exact value of an 8-bit code in format f.
 *
 *   Fields: bit 7 is the sign s, the next E bits the exponent field e, the
 *   low M bits the mantissa field m. With bias = 2^(E-1) - 1:
 *     e == 0                 subnormal (or zero): (-1)^s * 2^(1 - bias) * (m / 2^M)
 *     0 < e < all ones       normal:  (-1)^s * 2^(e - bias) * (1 + m / 2^M)
 *     e == all ones          depends on f->has_inf (README §2 and §6)
 *
 *   Examples:
 *     lab0_decode(&LAB0_E4M3, 0x38) == 1.0f        0 0111 000: 2^(7-7) * 1
 *     lab0_decode(&LAB0_E4M3, 0x7E) == 448.0f      0 1111 110: the largest E4M3
 *     lab0_decode(&LAB0_E4M3, 0x01) == 0x1p-9f     0 0000 001: smallest subnormal
 *     lab0_decode(&LAB0_E4M3, 0x80) == -0.0f       (the sign of zero counts)
 *     lab0_decode(&LAB0_E4M3, 0x7F) is a NaN       E4M3's only NaN (with 0xFF)
 *     lab0_decode(&LAB0_E5M2, 0x7B) == 57344.0f    0 11110 11: the largest E5M2
 *     lab0_decode(&LAB0_E5M2, 0xFC) == -INFINITY
 *     lab0_decode(&LAB0_E5M2, 0x7D) is a NaN
 *
 *   Handout: README §1 (fields, bias), §2 (decoding), §6 (NaN).
 *   Graded by: decode_e4m3, decode_e5m2 (all 256 codes of each format).
 */
float lab0_decode(const lab0_format *f, uint8_t code)
{
    (void)f;
    (void)code;
    /* TODO: split code into s, e, m; handle the all-ones exponent field
     * (inf/NaN, README §2 and §6), then the subnormal and the normal formula
     * above. ldexpf(v, k) computes v * 2^k exactly. */
    return 0.0f;
}

/*
 * lab0_encode - the code nearest to x in format f.
 *
 *   Round to nearest, ties to even, through the subnormal range; a result
 *   of zero keeps x's sign. Overflow (the rounded magnitude is past the
 *   largest finite value, or x is +-inf):
 *     saturate != 0   +-max          (E4M3 0x7E / 0xFE, E5M2 0x7B / 0xFB)
 *     saturate == 0   +-inf (E5M2 0x7C / 0xFC) where the format has one,
 *                     otherwise NaN with x's sign (E4M3 0x7F / 0xFF)
 *   Any NaN input gives 0x7F, in both modes.
 *
 *   Examples (E4M3):
 *     lab0_encode(&LAB0_E4M3, 1.0f, 1)     == 0x38
 *     lab0_encode(&LAB0_E4M3, 17.0f, 1)    == 0x58   a tie: 16 and 18, to the even 16
 *     lab0_encode(&LAB0_E4M3, 19.0f, 1)    == 0x5A   a tie: 18 and 20, to the even 20
 *     lab0_encode(&LAB0_E4M3, 464.0f, 1)   == 0x7E   a tie that rounds to the even 448
 *     lab0_encode(&LAB0_E4M3, 500.0f, 1)   == 0x7E   saturates to 448
 *     lab0_encode(&LAB0_E4M3, 500.0f, 0)   == 0x7F   overflow without saturation: NaN
 *     lab0_encode(&LAB0_E4M3, -500.0f, 0)  == 0xFF   ... with x's sign
 *     lab0_encode(&LAB0_E4M3, 0x1p-10f, 1) == 0x00   half the smallest subnormal: a tie, to 0
 *     lab0_encode(&LAB0_E4M3, -1e-9f, 1)   == 0x80   -0
 *     lab0_encode(&LAB0_E4M3, NAN, 0)      == 0x7F
 *   Examples (E5M2):
 *     lab0_encode(&LAB0_E5M2, 61440.0f, 0)  == 0x7C  a tie that rounds up past max: +inf
 *     lab0_encode(&LAB0_E5M2, 61440.0f, 1)  == 0x7B  ... or 57344 when saturating
 *     lab0_encode(&LAB0_E5M2, -INFINITY, 1) == 0xFB
 *
 *   Handout: README §3 (rounding), §4 (subnormals), §5 (overflow), §6 (NaN).
 *   Graded by: encode_exact, encode_rne, encode_subnormal, encode_saturate,
 *   encode_overflow_nosat, encode_nan, encode_random.
 */
uint8_t lab0_encode(const lab0_format *f, float x, int saturate)
{
    (void)f;
    (void)x;
    (void)saturate;
    /* TODO: follow README §3-§6: take the float's sign, exponent and
     * significand from its bits; handle NaN and +-inf first; work out how
     * many low bits of the significand to drop (more in the subnormal
     * range, §4); round what is kept to nearest, ties to even (§3); build
     * the code, letting a rounding carry move into the exponent field; and
     * check the result against the largest finite code (§5). */
    return 0;
}

/*
 * lab0_format_limits - the limits of format f, each an exact float.
 *
 *   max              largest finite value
 *   min_normal       smallest positive normal value
 *   min_subnormal    smallest positive subnormal value
 *   epsilon          (the next value above 1.0) - 1.0
 *   rel_error_bound  the bound on |decode(encode(x)) - x| / |x| over the
 *                    normal range, rounding to nearest (the unit roundoff)
 *
 *   Examples:
 *     lab0_format_limits(&LAB0_E4M3).max == 448.0f
 *     lab0_format_limits(&LAB0_E5M2).max == 57344.0f
 *   (The other values are the table you fill in in README §7.)
 *
 *   Handout: README §7 (and §5 for max). Compute them from E, M, has_inf
 *   and the bias, not by typing in numbers for two format names.
 *   Graded by: limits, rel_error_bound.
 */
lab0_limits lab0_format_limits(const lab0_format *f)
{
    (void)f;
    lab0_limits l = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    /* TODO: fill in l from the table you derive in README §7: each value
     * from E, M, the bias and has_inf, exactly (ldexpf makes powers of 2). */
    return l;
}
