/*
 * fp8_ref.h - a slow, simple reference codec for the course's formats, used
 * only by the tests to check common/fp8.c independently.
 *
 * The reference is written straight from the OCP OFP8 and MX specifications:
 *
 *   decode: the closed form of each field pattern,
 *       normal     (-1)^s * 2^(e - bias) * (1 + m / 2^M)
 *       subnormal  (-1)^s * 2^(1 - bias) * (m / 2^M)        (e == 0)
 *       E8M0       2^(code - 127)                           (no sign, no zero)
 *     plus each format's special codes (E4M3 S.1111.111 NaN; E5M2 exponent
 *     all ones: mantissa 0 inf, otherwise NaN; E8M0 0xFF NaN);
 *
 *   encode: list every finite non-negative value of the format, find the
 *     largest one <= |x| and the smallest one >= |x| by bisecting the list, and
 *     pick between them by the rounding mode (nearest: compare |x| with the
 *     exact midpoint, a tie takes the code whose lowest bit is 0). Past the
 *     largest finite value the candidate above is the value the format would
 *     have if its exponent range were unbounded (IEEE 754's definition of
 *     overflow); choosing it means overflow, which is then resolved by the
 *     rules of common/fp8.h (saturate to +-max, or inf, or NaN with the
 *     input's sign; sub-byte formats always saturate).
 *
 * Nothing here is shared with common/fp8.c except the enums of fp8.h.
 *
 * Thread safety: there is no hidden state. ref_encode builds a codebook on
 * its own stack every call (slow). For sweeps, build a ref_codebook once per
 * format with ref_codebook_build and pass it, read-only, to
 * ref_encode_with from any number of threads.
 */
#ifndef FP8LAB_FP8_REF_H
#define FP8LAB_FP8_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "fp8.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format parameters as the specifications state them (not read from
 * fp8_info, so the tests can compare the library's table against them). */
typedef struct ref_params {
    const char *name;   /* "e4m3", ... */
    int bits;           /* code width */
    int exp_bits;
    int man_bits;
    int bias;
    bool has_sign;
    bool has_inf;       /* E5M2 only */
    bool has_nan;       /* E4M3, E5M2, E8M0 */
    bool has_zero;      /* all but E8M0 */
} ref_params;

/* The parameters of fmt; NULL outside the enum. */
const ref_params *ref_params_of(fp8_format fmt);

/* Exact value of a code of fmt (a valid format; bits above the format's
 * width ignored): a double
 * holding the closed form; NaN for NaN codes, +-inf for E5M2's inf codes,
 * -0.0 for the negative zero. */
double ref_decode(uint8_t code, fp8_format fmt);

/* Every finite non-negative value of a format, in increasing order. */
typedef struct ref_codebook {
    fp8_format fmt;
    ref_params p;
    int count;             /* entries in code[] / value[] */
    uint8_t code[256];     /* code[i] has value value[i]; value[] increasing */
    double value[256];
    uint8_t max_code;      /* code of the largest finite value */
    double beyond;         /* the value just past max with an unbounded
                              exponent range: max + one step */
    unsigned beyond_code;  /* the field pattern that value would have
                              (max_code + 1), for its parity on a tie */
    uint8_t sign_bit;      /* 0 for E8M0 */
    uint8_t nan_code;      /* canonical NaN, where has_nan */
    uint8_t inf_code;      /* +inf, where has_inf */
} ref_codebook;

/* Fills *cb for fmt (fmt must be a valid format). */
void ref_codebook_build(ref_codebook *cb, fp8_format fmt);

/* Encodes x (any double; floats convert exactly) with the given rounding. */
uint8_t ref_encode_with(const ref_codebook *cb, double x, bool saturate, fp8_rounding rnd);

/* The same, building the codebook on the stack first. */
uint8_t ref_encode(double x, fp8_format fmt, bool saturate, fp8_rounding rnd);

/* Brackets |x| in cb->value: *lo is the index of the largest value <= |x|,
 * or -1 when there is none (E8M0 below 2^-127); *hi the index of the
 * smallest value >= |x|, or cb->count when |x| is past max (then the value
 * above is cb->beyond, or inf). Both -1 for NaN. */
void ref_bracket(const ref_codebook *cb, double x, int *lo, int *hi);

#ifdef __cplusplus
}
#endif

#endif
