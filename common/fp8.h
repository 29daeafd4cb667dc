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
    int bits;              /* width of a code: 8, 6 or 4 (16 for fp16_info's rows) */
    int exp_bits;
    int man_bits;
    int bias;
    bool has_sign;
    bool has_zero;         /* false only for E8M0 */
    bool has_subnormals;   /* exponent field 0 means 0.m x 2^(1-bias) */
    bool has_inf;          /* exponent all ones, mantissa 0 (E5M2) */
    fp8_nan_kind nan_kind;
    uint16_t max_code;     /* largest finite positive code */
    uint16_t inf_code;     /* +inf, where has_inf */
    uint16_t nan_code;     /* canonical NaN, where nan_kind != FP8_NAN_NONE */
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

/* ---- the 16-bit formats, for comparison -------------------------------------
 *
 *   name  bits exp man bias  max finite         smallest normal  subnormal  inf    NaN
 *   fp16  16   5   10  15    65504              2^-14            2^-24      0x7C00 0x7FFF
 *   bf16  16   8   7   127   (2-2^-7) x 2^127   2^-126           2^-133     0x7F80 0x7FFF
 *
 * FP16 is IEEE 754-2019 binary16; BF16 is the top half of a binary32 (the
 * same exponent, 7 mantissa bits), as NVIDIA's cuda_bf16.h defines it.
 * They are further rows of the one format table, read by the one codec, with
 * an enum of their own because their codes are 16 bits wide (the fp8_*
 * functions take 8-bit codes). Both have IEEE infinities and NaNs (exponent
 * all ones) and subnormals.
 *
 * Encoding, the contract tests/oracle checks for all 2^32 floats against
 * __float2half_rn/_rz and __float2bfloat16_rn/_rz (the CUDA Toolkit's host
 * conversions): round to nearest even unless told otherwise; below half the
 * smallest subnormal, a zero of the input's sign; past max, +-inf (or +-max
 * with saturate, and always under rounding toward zero); NaN gives the
 * canonical 0x7FFF whatever its sign or payload.
 *
 * bf16_truncate keeps the float's top 16 bits (rounding toward zero), the
 * cheap cast that loses up to a whole unit in the last place instead of half
 * of one; only a NaN is treated apart (0x7FFF), since cutting the bits of a
 * NaN whose payload is all in the low half leaves an infinity.
 */
typedef enum fp16_format {
    FP16_HALF = 0,  /* IEEE binary16 */
    FP16_BF16,      /* bfloat16 */
    FP16_FORMAT_COUNT
} fp16_format;

/* The table row of a 16-bit format; NULL for a value outside the enum. */
const fp8_format_info *fp16_info(fp16_format fmt);

/* "fp16", "half", "binary16", "float16", "bf16", "bfloat16", any case; -1 if none. */
int fp16_format_from_name(const char *name, fp16_format *out);

/* Round to nearest even, overflow to inf. */
uint16_t fp16_encode(float x, fp16_format fmt);
/* Any deterministic rounding; saturate as for fp8_encode. */
uint16_t fp16_encode_rounded(float x, fp16_format fmt, bool saturate, fp8_rounding rnd);
/* BF16 by truncation: fp16_encode_rounded(x, FP16_BF16, false, FP8_ROUND_TOWARD_ZERO). */
uint16_t bf16_truncate(float x);
/* Exact value of a code. */
float fp16_decode(uint16_t code, fp16_format fmt);

void fp16_encode_array(const float *in, uint16_t *out, size_t n, fp16_format fmt);
void fp16_decode_array(const uint16_t *in, float *out, size_t n, fp16_format fmt);
/* out[i] = fp16_decode(fp16_encode(in[i], fmt), fmt); in == out is allowed. */
void fp16_round_array(const float *in, float *out, size_t n, fp16_format fmt);

fp8_fields fp16_split(uint16_t code, fp16_format fmt);
bool fp16_is_nan(uint16_t code, fp16_format fmt);
bool fp16_is_inf(uint16_t code, fp16_format fmt);
bool fp16_is_zero(uint16_t code, fp16_format fmt);
bool fp16_is_subnormal(uint16_t code, fp16_format fmt);
/* As fp8_neighbours. */
void fp16_neighbours(float x, fp16_format fmt, float *below, float *above);

#ifdef __cplusplus
}
#endif

#endif
