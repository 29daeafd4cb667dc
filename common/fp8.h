/*
 * fp8.h - the course's number formats: one table, one codec.
 *
 * Formats (OCP 8-bit Floating Point spec "OFP8" rev 1.0, and OCP
 * Microscaling Formats spec "MX" v1.0):
 *
 *   name  bits  exp man bias  max finite   inf    NaN
 *   e4m3   8    4   3    7    448          none   S.1111.111 (0x7F/0xFF)
 *   e5m2   8    5   2   15    57344        S.11111.00     S.11111.{01,10,11}
 *   e8m0   8    8   0  127    2^127        none   0xFF; no sign, no zero
 *   e2m1   4    2   1    1    6            none   none
 *   e3m2   6    3   2    3    28           none   none
 *   e2m3   6    2   3    1    7.5          none   none
 *
 * A code is held in the low `bits` bits of a uint8_t, the sign (where there
 * is one) in its top bit: E2M1 -1.5 is 0x0B, E3M2 -28 is 0x3F.
 *
 * Every conversion reads the parameters from that one table (fp8_info); no
 * format has code of its own, except E8M0's lack of a zero.
 *
 * Encoding (float -> code), the contract tests/oracle checks for all 2^32
 * floats against NVIDIA's host conversions in the CUDA Toolkit:
 *   - rounding: to nearest, ties to even (FP8_ROUND_NEAREST_EVEN), or toward
 *     zero, or away from zero (both on the magnitude), or stochastic;
 *   - values below half the smallest subnormal become a zero of the same sign;
 *   - overflow (a finite value past max after rounding, or +-inf):
 *       saturate = true : +-max finite;
 *       saturate = false: +-inf where the format has inf (E5M2), otherwise
 *                         the NaN code with the input's sign (E4M3: 0xFF for
 *                         negative), as __nv_cvt_float_to_fp8 does;
 *     a finite value never overflows under rounding toward zero (IEEE 754);
 *     formats with neither inf nor NaN (E2M1, E3M2, E2M3) always saturate;
 *   - NaN: the canonical NaN, 0x7F for E4M3 and E5M2, 0xFF for E8M0; the
 *     formats without NaN give +max (as __nv_cvt_float_to_fp6/fp4 do);
 *   - E8M0 has no sign and no zero: it encodes |x|, and its smallest code,
 *     0x00 = 2^-127, stands in for everything smaller, zero included (below
 *     2^-126 rounding toward zero always gives 0x00; rounding to nearest
 *     gives 0x01 only above the midpoint 1.5 x 2^-127).
 *
 * Decoding (code -> float) is exact: every value of every format is a float.
 *
 * The encoders assume C's default floating-point environment, in particular
 * its rounding mode, to nearest (fesetround changes it; fp8.c rounds the
 * subnormal range with one float addition).
 *
 * Not for: scaling (x * scale happens before encode, in the labs), or
 * packing several sub-byte codes into one byte.
 */
#ifndef FP8LAB_FP8_H
#define FP8LAB_FP8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "rng.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fp8_format {
    FP8_E4M3 = 0, /* OCP E4M3FN */
    FP8_E5M2,
    FP8_E8M0,     /* MX shared scale */
    FP8_E2M1,     /* MXFP4 element */
    FP8_E3M2,     /* MXFP6 element */
    FP8_E2M3,     /* MXFP6 element */
    FP8_FORMAT_COUNT
} fp8_format;

typedef enum fp8_rounding {
    FP8_ROUND_NEAREST_EVEN = 0,
    FP8_ROUND_TOWARD_ZERO,     /* truncate the magnitude (cudaRoundZero) */
    FP8_ROUND_AWAY_FROM_ZERO,  /* round the magnitude up; for E8M0 this is
                                  cudaRoundPosInf of |x| */
    FP8_ROUNDING_COUNT
} fp8_rounding;

/* How a format spells NaN. */
typedef enum fp8_nan_kind {
    FP8_NAN_NONE = 0,    /* no NaN (E2M1, E3M2, E2M3) */
    FP8_NAN_ALL_ONES,    /* only exponent and mantissa all ones (E4M3, E8M0) */
    FP8_NAN_IEEE         /* exponent all ones, mantissa != 0 (E5M2) */
} fp8_nan_kind;

/* One row of the format table. */
typedef struct fp8_format_info {
    const char *name;      /* "e4m3": what the command line and files say */
    const char *title;     /* "E4M3 (OCP E4M3FN)" */
    const char *source;    /* where the parameters come from */
    int bits;              /* width of a code: 8, 6 or 4 */
    int exp_bits;
    int man_bits;
    int bias;
    bool has_sign;
    bool has_zero;         /* false only for E8M0 */
    bool has_subnormals;   /* exponent field 0 means 0.m x 2^(1-bias) */
    bool has_inf;          /* exponent all ones, mantissa 0 (E5M2) */
    fp8_nan_kind nan_kind;
    uint8_t max_code;      /* largest finite positive code */
    uint8_t inf_code;      /* +inf, where has_inf */
    uint8_t nan_code;      /* canonical NaN, where nan_kind != FP8_NAN_NONE */
    int emax;              /* unbiased exponent of max finite */
    int emin;              /* unbiased exponent of the smallest normal */
    float max_finite;      /* the value of max_code */
    float min_normal;      /* 2^emin */
    float min_subnormal;   /* 2^(emin - man_bits), or min_normal without subnormals
                              (E8M0: 2^-127, its code 0x00) */
} fp8_format_info;

/* The table row of fmt; NULL for a value outside the enum. */
const fp8_format_info *fp8_info(fp8_format fmt);

/* Looks a format up by name ("e4m3", "E5M2", "fp8_e4m3" ...); -1 if none. */
int fp8_format_from_name(const char *name, fp8_format *out);

/* Number of codes of a format: 1 << bits. */
unsigned fp8_code_count(fp8_format fmt);

/* ---- scalar conversions -------------------------------------------------- */

/* Round to nearest even. */
uint8_t fp8_encode(float x, fp8_format fmt, bool saturate);

/* Any deterministic rounding. */
uint8_t fp8_encode_rounded(float x, fp8_format fmt, bool saturate, fp8_rounding rnd);

/* Stochastic rounding: rounds |x| up with probability equal to the distance
 * from the magnitude below, in units of the gap between the two (so the
 * result is unbiased: E[decode(q)] = x where no overflow occurs). Draws one
 * rng_u32 from rng per call, whether or not x needs rounding, so a stream's
 * draws do not depend on its values. Overflow and NaN as in fp8_encode. */
uint8_t fp8_encode_stochastic(float x, fp8_format fmt, bool saturate, rng_state *rng);

/* Exact value of a code (bits above the format's width are ignored). */
float fp8_decode(uint8_t code, fp8_format fmt);

/* ---- classification of codes ---------------------------------------------- */

bool fp8_is_nan(uint8_t code, fp8_format fmt);
bool fp8_is_inf(uint8_t code, fp8_format fmt);
bool fp8_is_zero(uint8_t code, fp8_format fmt);
bool fp8_is_subnormal(uint8_t code, fp8_format fmt);

/* The fields of a code, for explaining it. */
typedef struct fp8_fields {
    unsigned sign;      /* 0 or 1 (0 for unsigned formats) */
    unsigned exponent;  /* biased exponent field */
    unsigned mantissa;  /* mantissa field */
} fp8_fields;
fp8_fields fp8_split(uint8_t code, fp8_format fmt);

/* ---- bulk conversions ------------------------------------------------------ */

/* out[i] = fp8_encode(in[i], fmt, saturate) for i < n. */
void fp8_encode_array(const float *in, uint8_t *out, size_t n, fp8_format fmt, bool saturate);
void fp8_encode_array_rounded(const float *in, uint8_t *out, size_t n, fp8_format fmt,
                              bool saturate, fp8_rounding rnd);
/* out[i] = fp8_encode_stochastic(in[i], ...) in order i = 0, 1, ... */
void fp8_encode_array_stochastic(const float *in, uint8_t *out, size_t n, fp8_format fmt,
                                 bool saturate, rng_state *rng);
/* out[i] = fp8_decode(in[i], fmt). */
void fp8_decode_array(const uint8_t *in, float *out, size_t n, fp8_format fmt);

/* The representable neighbours of x: *below is the largest finite value <= x
 * and *above the smallest finite value >= x (either may be -inf/+inf when x
 * is past the format's range; both NaN for NaN). For the explorer. */
void fp8_neighbours(float x, fp8_format fmt, float *below, float *above);

#ifdef __cplusplus
}
#endif

#endif
