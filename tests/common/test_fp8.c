/*
 * test_fp8.c - unit tests of the course codec, common/fp8.c, against the
 * contract in common/fp8.h, the OCP OFP8 / MX specifications, hand-worked
 * values and the independent reference codec in fp8_ref.c.
 *
 * What is checked: the format table; decoding of every code; encoding of
 * hand-worked values (rounding, ties, underflow, overflow, NaN, signed zero)
 * in every rounding and saturation mode; round trips; stochastic rounding
 * (neighbours, determinism, statistics, one draw per call); the bulk
 * functions against the scalar ones; fp8_neighbours; and a strided sweep of
 * the float bit patterns, plus the patterns around every code and every
 * midpoint, against the reference.
 *
 * Hand-worked expectations are checked against the reference codec too, so
 * a wrong reference cannot silently pass the sweep.
 *
 * Build from the repository root with test_fp8.c, fp8_ref.c, common/fp8.c,
 * common/rng.c and common/error.c, -Icommon -Itests/common, and
 * `pkg-config --cflags --libs check` -lm; run with no arguments (about 4 s
 * at -O2). Exit status 0 iff every test passes.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "fp8.h"
#include "fp8_ref.h"
#include "rng.h"

/* In loops, fail only on a mismatch: ck_assert_msg marks a point (a write to
 * the runner's pipe) on every success, far too slow for a sweep. */
#define CHECK(cond, ...)                 \
    do {                                 \
        if (!(cond))                     \
            ck_abort_msg(__VA_ARGS__);   \
    } while (0)

/* ---- the specifications, written out ------------------------------------- */

/* One row per format, from OCP OFP8 rev 1.0 (E4M3, E5M2) and OCP MX v1.0
 * (E8M0, E2M1, E3M2, E2M3), plus what fp8.h says encoding gives for NaN and
 * overflow. */
typedef struct spec_row {
    const char *name;
    int bits, exp_bits, man_bits, bias;
    bool has_sign, has_zero, has_subnormals, has_inf;
    fp8_nan_kind nan_kind;
    uint8_t max_code, inf_code, nan_code;
    int emax, emin;
    double max_finite, min_normal, min_subnormal;
    uint8_t sign_bit;         /* 0 for unsigned E8M0 */
    uint8_t nan_result;       /* encode(NaN) */
    uint8_t overflow_sat;     /* encode(+huge), saturate = true */
    uint8_t overflow_nonsat;  /* encode(+huge), saturate = false */
} spec_row;

static const spec_row k_spec[FP8_FORMAT_COUNT] = {
    /* E4M3: max 1.1111.110 = 1.75 * 2^(15-7) = 448; 2^-6 min normal, 2^-9 =
     * 0.001 x 2^-6 min subnormal; S.1111.111 NaN; overflow without
     * saturation is the NaN code. */
    [FP8_E4M3] = {"e4m3", 8, 4, 3, 7, true, true, true, false, FP8_NAN_ALL_ONES,
                  0x7E, 0x00, 0x7F, 8, -6, 448.0, 0x1p-6, 0x1p-9,
                  0x80, 0x7F, 0x7E, 0x7F},
    /* E5M2: max 0.11110.11 = 1.75 * 2^15 = 57344; exponent 11111 is inf
     * (mantissa 00) or NaN; min normal 2^-14, min subnormal 0.01 x 2^-14. */
    [FP8_E5M2] = {"e5m2", 8, 5, 2, 15, true, true, true, true, FP8_NAN_IEEE,
                  0x7B, 0x7C, 0x7F, 15, -14, 57344.0, 0x1p-14, 0x1p-16,
                  0x80, 0x7F, 0x7B, 0x7C},
    /* E8M0: a bare biased exponent, 2^(code-127); 0xFF NaN; no sign, no
     * zero, no subnormals: 0x00 = 2^-127 is the smallest value. */
    [FP8_E8M0] = {"e8m0", 8, 8, 0, 127, false, false, false, false, FP8_NAN_ALL_ONES,
                  0xFE, 0x00, 0xFF, 127, -127, 0x1p127, 0x1p-127, 0x1p-127,
                  0x00, 0xFF, 0xFE, 0xFF},
    /* E2M1: 0, 0.5, 1, 1.5, 2, 3, 4, 6; no inf, no NaN. */
    [FP8_E2M1] = {"e2m1", 4, 2, 1, 1, true, true, true, false, FP8_NAN_NONE,
                  0x07, 0x00, 0x00, 2, 0, 6.0, 1.0, 0.5,
                  0x08, 0x07, 0x07, 0x07},
    /* E3M2: max 1.11 x 2^(7-3) = 28; min normal 2^-2, min subnormal
     * 0.01 x 2^-2 = 0.0625. */
    [FP8_E3M2] = {"e3m2", 6, 3, 2, 3, true, true, true, false, FP8_NAN_NONE,
                  0x1F, 0x00, 0x00, 4, -2, 28.0, 0.25, 0.0625,
                  0x20, 0x1F, 0x1F, 0x1F},
    /* E2M3: max 1.111 x 2^(3-1) = 7.5; min normal 1, min subnormal 0.125. */
    [FP8_E2M3] = {"e2m3", 6, 2, 3, 1, true, true, true, false, FP8_NAN_NONE,
                  0x1F, 0x00, 0x00, 2, 0, 7.5, 1.0, 0.125,
                  0x20, 0x1F, 0x1F, 0x1F},
};

static const char *const k_rnd_name[FP8_ROUNDING_COUNT] = {
    "nearest-even", "toward-zero", "away-from-zero"};

static uint8_t overflow_code(fp8_format fmt, bool negative, bool saturate)
{
    const spec_row *s = &k_spec[fmt];
    uint8_t c = saturate ? s->overflow_sat : s->overflow_nonsat;
    return (uint8_t)(negative ? (c | s->sign_bit) : c);
}

/* ---- small helpers ----------------------------------------------------------- */

static unsigned code_count(fp8_format fmt)
{
    return 1u << k_spec[fmt].bits;
}

/* Same float, or both NaN. */
static bool same_float(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return f32_bits(a) == f32_bits(b);
}

/* Checks the library (fp8_encode_rounded, and fp8_encode for nearest-even)
 * and the reference against a hand-worked code. */
static void expect_encode_at(int line, float x, fp8_format fmt, bool sat, fp8_rounding rnd,
                             uint8_t want)
{
    uint8_t got = fp8_encode_rounded(x, fmt, sat, rnd);
    uint8_t ref = ref_encode(x, fmt, sat, rnd);

    CHECK(ref == want, "line %d: reference: %s %s sat=%d x=%a (0x%08x): want 0x%02x, ref 0x%02x",
          line, k_spec[fmt].name, k_rnd_name[rnd], sat, (double)x, f32_bits(x), want, ref);
    CHECK(got == want, "line %d: %s %s sat=%d x=%a (0x%08x): want 0x%02x, got 0x%02x",
          line, k_spec[fmt].name, k_rnd_name[rnd], sat, (double)x, f32_bits(x), want, got);
    if (rnd == FP8_ROUND_NEAREST_EVEN) {
        got = fp8_encode(x, fmt, sat);
        CHECK(got == want, "line %d: fp8_encode %s sat=%d x=%a (0x%08x): want 0x%02x, got 0x%02x",
              line, k_spec[fmt].name, sat, (double)x, f32_bits(x), want, got);
    }
}

#define ENC(x, fmt, sat, rnd, want) expect_encode_at(__LINE__, (x), (fmt), (sat), (rnd), (want))
/* Both saturation modes give the same code. */
#define ENC2(x, fmt, rnd, want)                      \
    do {                                             \
        ENC((x), (fmt), true, (rnd), (want));        \
        ENC((x), (fmt), false, (rnd), (want));       \
    } while (0)
/* Nearest-even, both saturation modes. */
#define NEAR(x, fmt, want) ENC2((x), (fmt), FP8_ROUND_NEAREST_EVEN, (want))

static float up(float x) { return nextafterf(x, INFINITY); }
static float down(float x) { return nextafterf(x, -INFINITY); }

/* ==== the format table ======================================================== */

START_TEST(test_info_rows)
{
    fp8_format fmt = (fp8_format)_i;
    const spec_row *s = &k_spec[fmt];
    const fp8_format_info *in = fp8_info(fmt);
    const ref_params *rp = ref_params_of(fmt);

    ck_assert_ptr_nonnull(in);
    ck_assert_str_eq(in->name, s->name);
    ck_assert_ptr_nonnull(in->title);
    ck_assert_ptr_nonnull(in->source);
    ck_assert_int_eq(in->bits, s->bits);
    ck_assert_int_eq(in->exp_bits, s->exp_bits);
    ck_assert_int_eq(in->man_bits, s->man_bits);
    ck_assert_int_eq(in->bias, s->bias);
    ck_assert_int_eq(in->has_sign, s->has_sign);
    ck_assert_int_eq(in->has_zero, s->has_zero);
    ck_assert_int_eq(in->has_subnormals, s->has_subnormals);
    ck_assert_int_eq(in->has_inf, s->has_inf);
    ck_assert_int_eq(in->nan_kind, s->nan_kind);
    ck_assert_uint_eq(in->max_code, s->max_code);
    if (s->has_inf)
        ck_assert_uint_eq(in->inf_code, s->inf_code);
    if (s->nan_kind != FP8_NAN_NONE)
        ck_assert_uint_eq(in->nan_code, s->nan_code);
    ck_assert_int_eq(in->emax, s->emax);
    ck_assert_int_eq(in->emin, s->emin);
    ck_assert_msg((double)in->max_finite == s->max_finite, "%s max_finite %a", s->name,
                  (double)in->max_finite);
    ck_assert_msg((double)in->min_normal == s->min_normal, "%s min_normal %a", s->name,
                  (double)in->min_normal);
    ck_assert_msg((double)in->min_subnormal == s->min_subnormal, "%s min_subnormal %a",
                  s->name, (double)in->min_subnormal);
    /* 1 + exp + man bits (no sign bit in E8M0) fill the code. */
    ck_assert_int_eq(in->bits, (s->has_sign ? 1 : 0) + in->exp_bits + in->man_bits);
    /* min_normal is 2^emin; max_finite is the value of max_code. */
    ck_assert(ldexp(1.0, s->emin) == s->min_normal);
    ck_assert(ref_decode(s->max_code, fmt) == s->max_finite);
    ck_assert_uint_eq(fp8_code_count(fmt), code_count(fmt));

    /* The reference carries the same parameters. */
    ck_assert_str_eq(rp->name, s->name);
    ck_assert_int_eq(rp->bits, s->bits);
    ck_assert_int_eq(rp->exp_bits, s->exp_bits);
    ck_assert_int_eq(rp->man_bits, s->man_bits);
    ck_assert_int_eq(rp->bias, s->bias);
    ck_assert_int_eq(rp->has_sign, s->has_sign);
    ck_assert_int_eq(rp->has_inf, s->has_inf);
    ck_assert_int_eq(rp->has_nan, s->nan_kind != FP8_NAN_NONE);
    ck_assert_int_eq(rp->has_zero, s->has_zero);
}
END_TEST

START_TEST(test_info_out_of_range)
{
    ck_assert_ptr_null(fp8_info(FP8_FORMAT_COUNT));
    ck_assert_ptr_null(fp8_info((fp8_format)-1));
    ck_assert_ptr_null(fp8_info((fp8_format)100));
}
END_TEST

START_TEST(test_format_from_name)
{
    static const struct {
        const char *name;
        fp8_format fmt;
    } good[] = {
        {"e4m3", FP8_E4M3}, {"e5m2", FP8_E5M2}, {"e8m0", FP8_E8M0},
        {"e2m1", FP8_E2M1}, {"e3m2", FP8_E3M2}, {"e2m3", FP8_E2M3},
        /* case does not matter */
        {"E4M3", FP8_E4M3}, {"E5M2", FP8_E5M2}, {"E8M0", FP8_E8M0},
        {"E2M1", FP8_E2M1}, {"E3M2", FP8_E3M2}, {"E2M3", FP8_E2M3},
        /* the "fp8_" spelling of the 8-bit element formats */
        {"fp8_e4m3", FP8_E4M3}, {"fp8_e5m2", FP8_E5M2},
    };
    static const char *const bad[] = {"", "e4m4", "e4m3x", "fp16", "e5", "bogus", "4m3"};

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        fp8_format out = FP8_FORMAT_COUNT;
        int rc = fp8_format_from_name(good[i].name, &out);
        ck_assert_msg(rc == 0, "fp8_format_from_name(\"%s\") = %d", good[i].name, rc);
        ck_assert_msg(out == good[i].fmt, "\"%s\" gave %d, want %d", good[i].name, (int)out,
                      (int)good[i].fmt);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fp8_format out = FP8_E4M3;
        ck_assert_msg(fp8_format_from_name(bad[i], &out) == -1,
                      "fp8_format_from_name(\"%s\") accepted", bad[i]);
    }
    /* Every table name finds its own row. */
    for (int f = 0; f < FP8_FORMAT_COUNT; f++) {
        fp8_format out = FP8_FORMAT_COUNT;
        ck_assert_int_eq(fp8_format_from_name(fp8_info((fp8_format)f)->name, &out), 0);
        ck_assert_int_eq(out, f);
    }
}
END_TEST

/* ==== decoding ================================================================ */

START_TEST(test_decode_all_codes)
{
    fp8_format fmt = (fp8_format)_i;

    for (unsigned c = 0; c < code_count(fmt); c++) {
        double r = ref_decode((uint8_t)c, fmt);
        float want = (float)r; /* every value is a float: exact */
        float got = fp8_decode((uint8_t)c, fmt);

        CHECK(isnan(r) || (double)want == r, "reference value of %s 0x%02x not a float",
              k_spec[fmt].name, c);
        CHECK(same_float(got, want), "%s decode(0x%02x): want %a (0x%08x), got %a (0x%08x)",
              k_spec[fmt].name, c, (double)want, f32_bits(want), (double)got, f32_bits(got));
    }
}
END_TEST

/* Values stated by the specifications, hand-decoded. */
START_TEST(test_decode_literals)
{
    static const struct {
        fp8_format fmt;
        uint8_t code;
        double value;
    } lit[] = {
        {FP8_E4M3, 0x7E, 448.0},     /* 0.1111.110 = 1.75 * 2^8 */
        {FP8_E4M3, 0x01, 0x1p-9},    /* 0.0000.001 = 1/8 * 2^-6 */
        {FP8_E4M3, 0x08, 0x1p-6},    /* 0.0001.000 = 2^(1-7) */
        {FP8_E4M3, 0x07, 0x1.cp-7},  /* 0.0000.111 = 7/8 * 2^-6, largest subnormal */
        {FP8_E4M3, 0x38, 1.0},       /* exponent 0111 = bias */
        {FP8_E4M3, 0xC0, -2.0},      /* 1.1000.000 = -2^1 */
        {FP8_E4M3, 0xFE, -448.0},
        {FP8_E5M2, 0x7B, 57344.0},   /* 0.11110.11 = 1.75 * 2^15 */
        {FP8_E5M2, 0x01, 0x1p-16},   /* 0.00000.01 = 1/4 * 2^-14 */
        {FP8_E5M2, 0x04, 0x1p-14},   /* 0.00001.00 */
        {FP8_E5M2, 0x3C, 1.0},       /* exponent 01111 = bias */
        {FP8_E5M2, 0x7C, INFINITY},  /* 0.11111.00 */
        {FP8_E5M2, 0xFC, -INFINITY},
        {FP8_E8M0, 0x7F, 1.0},       /* 2^(127-127) */
        {FP8_E8M0, 0x00, 0x1p-127},  /* no zero: the smallest code is 2^-127 */
        {FP8_E8M0, 0xFE, 0x1p127},
        {FP8_E8M0, 0x80, 2.0},
        {FP8_E2M1, 0x07, 6.0},       /* 0.11.1 = 1.5 * 2^2 */
        {FP8_E2M1, 0x0F, -6.0},
        {FP8_E2M1, 0x01, 0.5},       /* 0.00.1 = 1/2 * 2^0 */
        {FP8_E2M1, 0x0B, -1.5},      /* 1.01.1, the header's example */
        {FP8_E3M2, 0x1F, 28.0},      /* 0.111.11 = 1.75 * 2^4 */
        {FP8_E3M2, 0x3F, -28.0},     /* the header's example */
        {FP8_E3M2, 0x01, 0.0625},    /* 0.000.01 = 1/4 * 2^-2 */
        {FP8_E2M3, 0x1F, 7.5},       /* 0.11.111 = 1.875 * 2^2 */
        {FP8_E2M3, 0x01, 0.125},     /* 0.00.001 = 1/8 * 2^0 */
    };

    for (size_t i = 0; i < sizeof lit / sizeof lit[0]; i++) {
        float got = fp8_decode(lit[i].code, lit[i].fmt);
        double ref = ref_decode(lit[i].code, lit[i].fmt);
        ck_assert_msg((double)got == lit[i].value, "%s 0x%02x: want %a, got %a",
                      k_spec[lit[i].fmt].name, lit[i].code, lit[i].value, (double)got);
        ck_assert_msg(ref == lit[i].value, "reference %s 0x%02x: want %a, got %a",
                      k_spec[lit[i].fmt].name, lit[i].code, lit[i].value, ref);
    }

    /* NaN codes: E4M3 only S.1111.111; E5M2 S.11111.{01,10,11}; E8M0 0xFF. */
    static const struct {
        fp8_format fmt;
        uint8_t code;
    } nans[] = {{FP8_E4M3, 0x7F}, {FP8_E4M3, 0xFF}, {FP8_E5M2, 0x7D}, {FP8_E5M2, 0x7E},
                {FP8_E5M2, 0x7F}, {FP8_E5M2, 0xFD}, {FP8_E5M2, 0xFE}, {FP8_E5M2, 0xFF},
                {FP8_E8M0, 0xFF}};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        ck_assert_msg(isnan(fp8_decode(nans[i].code, nans[i].fmt)), "%s 0x%02x not NaN",
                      k_spec[nans[i].fmt].name, nans[i].code);
        ck_assert(isnan(ref_decode(nans[i].code, nans[i].fmt)));
    }

    /* Negative zeros decode to -0.0f: the sign bit is set. */
    static const struct {
        fp8_format fmt;
        uint8_t code;
    } negz[] = {{FP8_E4M3, 0x80}, {FP8_E5M2, 0x80}, {FP8_E2M1, 0x08}, {FP8_E3M2, 0x20},
                {FP8_E2M3, 0x20}};
    for (size_t i = 0; i < sizeof negz / sizeof negz[0]; i++) {
        float z = fp8_decode(negz[i].code, negz[i].fmt);
        ck_assert_msg(f32_bits(z) == 0x80000000u, "%s 0x%02x: want -0.0f, got 0x%08x",
                      k_spec[negz[i].fmt].name, negz[i].code, f32_bits(z));
        z = fp8_decode(0x00, negz[i].fmt);
        ck_assert_msg(f32_bits(z) == 0x00000000u, "%s 0x00: want +0.0f, got 0x%08x",
                      k_spec[negz[i].fmt].name, f32_bits(z));
    }
}
END_TEST

/* Sub-byte codes: bits above the format's width are ignored. */
START_TEST(test_decode_ignores_high_bits)
{
    for (int f = FP8_E2M1; f <= FP8_E2M3; f++) {
        fp8_format fmt = (fp8_format)f;
        unsigned n = code_count(fmt);
        for (unsigned c = 0; c < n; c++) {
            for (unsigned hi = 1; hi < 256u / n; hi++) {
                uint8_t dirty = (uint8_t)(c | (hi * n));
                float a = fp8_decode((uint8_t)c, fmt);
                float b = fp8_decode(dirty, fmt);
                CHECK(same_float(a, b), "%s: decode(0x%02x) = %a but decode(0x%02x) = %a",
                      k_spec[f].name, c, (double)a, dirty, (double)b);
            }
        }
    }
}
END_TEST

/* fp8_is_nan/inf/zero/subnormal and fp8_split against the field layout. */
START_TEST(test_classify_and_split)
{
    fp8_format fmt = (fp8_format)_i;
    const spec_row *s = &k_spec[fmt];

    for (unsigned c = 0; c < code_count(fmt); c++) {
        double v = ref_decode((uint8_t)c, fmt);
        bool nan = isnan(v), inf = isinf(v);
        bool zero = !nan && v == 0.0;

        CHECK(fp8_is_nan((uint8_t)c, fmt) == nan, "%s is_nan(0x%02x)", s->name, c);
        CHECK(fp8_is_inf((uint8_t)c, fmt) == inf, "%s is_inf(0x%02x)", s->name, c);
        CHECK(fp8_is_zero((uint8_t)c, fmt) == zero, "%s is_zero(0x%02x)", s->name, c);
        if (!nan && !inf && !zero) {
            bool sub = s->has_subnormals && fabs(v) < s->min_normal;
            CHECK(fp8_is_subnormal((uint8_t)c, fmt) == sub, "%s is_subnormal(0x%02x)", s->name,
                  c);
        }

        fp8_fields fl = fp8_split((uint8_t)c, fmt);
        unsigned sign = s->has_sign ? (c >> (s->bits - 1)) & 1u : 0u;
        unsigned exponent = (c >> s->man_bits) & ((1u << s->exp_bits) - 1u);
        unsigned mantissa = c & ((1u << s->man_bits) - 1u);
        CHECK(fl.sign == sign && fl.exponent == exponent && fl.mantissa == mantissa,
              "%s split(0x%02x) = {%u, %u, %u}, want {%u, %u, %u}", s->name, c, fl.sign,
              fl.exponent, fl.mantissa, sign, exponent, mantissa);
    }
}
END_TEST

/* ==== encoding: hand-worked values ============================================ */

START_TEST(test_e4m3_values)
{
    NEAR(1.0f, FP8_E4M3, 0x38);      /* 2^0: exponent 0111 (= bias), mantissa 000 */
    NEAR(-2.0f, FP8_E4M3, 0xC0);     /* -2^1: sign 1, exponent 1000, mantissa 000 */
    NEAR(3.0f, FP8_E4M3, 0x44);      /* 1.5 * 2^1: exponent 1000, mantissa 100 */
    /* In [2, 4) the step is 2/8 = 0.25: 3.14 lies between 3.0 (0x44) and 3.25
     * (0x45), past their midpoint 3.125, so it goes up to 3.25. */
    NEAR(3.14f, FP8_E4M3, 0x45);
    NEAR(3.1f, FP8_E4M3, 0x44);      /* below 3.125: down to 3.0 */
    /* 0.1 in [2^-4, 2^-3), step 2^-7: 0.1 / 2^-7 = 12.8, nearest 13 =
     * 1.101b * 2^-4: exponent 0011, mantissa 101. */
    NEAR(0.1f, FP8_E4M3, 0x1D);
    NEAR(448.0f, FP8_E4M3, 0x7E);    /* max: 1.110b * 2^8 */
    NEAR(-448.0f, FP8_E4M3, 0xFE);
    NEAR(0x1p-9f, FP8_E4M3, 0x01);   /* min subnormal */
    NEAR(0x1p-6f, FP8_E4M3, 0x08);   /* min normal */
    NEAR(0x1.cp-7f, FP8_E4M3, 0x07); /* 7 * 2^-9, the largest subnormal */
    /* 17 is the midpoint of 16 (0x58, mantissa 000, even) and 18 (0x59):
     * ties-to-even gives 16. */
    NEAR(17.0f, FP8_E4M3, 0x58);
    /* 19 is the midpoint of 18 (0x59, mantissa 001, odd) and 20 (0x5A,
     * even): ties-to-even gives 20. */
    NEAR(19.0f, FP8_E4M3, 0x5A);
    /* 248 is the midpoint of 240 (0x77 = 1.111b * 2^7, odd) and 256 (0x78,
     * next binade, mantissa 000): the tie carries into the exponent. */
    NEAR(248.0f, FP8_E4M3, 0x78);
    /* 7.5 * 2^-9 is the midpoint of the largest subnormal 7 * 2^-9 (0x07,
     * odd) and the min normal 8 * 2^-9 (0x08, even): up to the normal. */
    NEAR(0x1.ep-7f, FP8_E4M3, 0x08);
    /* 1.5 * 2^-9 is the midpoint of 2^-9 (0x01, odd) and 2^-8 (0x02, even). */
    NEAR(0x1.8p-9f, FP8_E4M3, 0x02);
    /* 2.5 * 2^-9: between 0x02 (even) and 0x03 (odd): down to 0x02. */
    NEAR(0x1.4p-8f, FP8_E4M3, 0x02);
}
END_TEST

START_TEST(test_e4m3_overflow)
{
    /* 464 = 448 + 16 is the midpoint between 448 (0x7E, mantissa 110, even)
     * and 480 (which would be 0x7F, the NaN code, odd): ties-to-even keeps
     * 448 in both modes. */
    NEAR(464.0f, FP8_E4M3, 0x7E);
    NEAR(-464.0f, FP8_E4M3, 0xFE);
    NEAR(down(464.0f), FP8_E4M3, 0x7E);
    /* Just above 464 rounds to 480, past max: overflow. Saturating gives max;
     * otherwise the NaN code, carrying the input's sign. */
    ENC(up(464.0f), FP8_E4M3, true, FP8_ROUND_NEAREST_EVEN, 0x7E);
    ENC(up(464.0f), FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, 0x7F);
    ENC(-up(464.0f), FP8_E4M3, true, FP8_ROUND_NEAREST_EVEN, 0xFE);
    ENC(-up(464.0f), FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, 0xFF);
    ENC(480.0f, FP8_E4M3, true, FP8_ROUND_NEAREST_EVEN, 0x7E);
    ENC(480.0f, FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, 0x7F);
    ENC(1e30f, FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, 0x7F);
    ENC(FLT_MAX, FP8_E4M3, true, FP8_ROUND_NEAREST_EVEN, 0x7E);
    ENC(FLT_MAX, FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, 0x7F);
    ENC(-FLT_MAX, FP8_E4M3, false, FP8_ROUND_NEAREST_EVEN, 0xFF);
    /* inf has no code: it overflows like a huge finite value, in every
     * rounding mode. */
    for (int r = 0; r < FP8_ROUNDING_COUNT; r++) {
        ENC(INFINITY, FP8_E4M3, true, (fp8_rounding)r, 0x7E);
        ENC(INFINITY, FP8_E4M3, false, (fp8_rounding)r, 0x7F);
        ENC(-INFINITY, FP8_E4M3, true, (fp8_rounding)r, 0xFE);
        ENC(-INFINITY, FP8_E4M3, false, (fp8_rounding)r, 0xFF);
    }
}
END_TEST

START_TEST(test_e5m2_values)
{
    NEAR(1.0f, FP8_E5M2, 0x3C);      /* exponent 01111 (= bias), mantissa 00 */
    NEAR(5.0f, FP8_E5M2, 0x45);      /* 1.25 * 2^2: exponent 10001, mantissa 01 */
    /* 0.3 in [0.25, 0.5), step 0.0625: 0.3 / 0.0625 = 4.8, nearest 5 =
     * 0.3125 = 1.01b * 2^-2: exponent 01101, mantissa 01. */
    NEAR(0.3f, FP8_E5M2, 0x35);
    NEAR(57344.0f, FP8_E5M2, 0x7B);  /* max: 1.11b * 2^15 */
    NEAR(0x1p-16f, FP8_E5M2, 0x01);  /* min subnormal: 0.01b * 2^-14 */
    NEAR(0x1p-14f, FP8_E5M2, 0x04);  /* min normal */
    /* 1.125 is the midpoint of 1.0 (0x3C, even) and 1.25 (0x3D). */
    NEAR(1.125f, FP8_E5M2, 0x3C);
    /* 1.375 is the midpoint of 1.25 (0x3D, odd) and 1.5 (0x3E, even). */
    NEAR(1.375f, FP8_E5M2, 0x3E);

    /* 61440 = 57344 + 4096 is the midpoint between 57344 (0x7B, mantissa
     * 11, odd) and 65536 (0x7C, the inf code, even): ties-to-even goes up,
     * past max: overflow. Saturating gives max, otherwise inf. */
    ENC(61440.0f, FP8_E5M2, true, FP8_ROUND_NEAREST_EVEN, 0x7B);
    ENC(61440.0f, FP8_E5M2, false, FP8_ROUND_NEAREST_EVEN, 0x7C);
    ENC(-61440.0f, FP8_E5M2, true, FP8_ROUND_NEAREST_EVEN, 0xFB);
    ENC(-61440.0f, FP8_E5M2, false, FP8_ROUND_NEAREST_EVEN, 0xFC);
    /* Just below the tie: nearer 57344. */
    NEAR(down(61440.0f), FP8_E5M2, 0x7B);
    NEAR(-down(61440.0f), FP8_E5M2, 0xFB);
    ENC(1e10f, FP8_E5M2, false, FP8_ROUND_NEAREST_EVEN, 0x7C);
    for (int r = 0; r < FP8_ROUNDING_COUNT; r++) {
        ENC(INFINITY, FP8_E5M2, true, (fp8_rounding)r, 0x7B);
        ENC(INFINITY, FP8_E5M2, false, (fp8_rounding)r, 0x7C);
        ENC(-INFINITY, FP8_E5M2, true, (fp8_rounding)r, 0xFB);
        ENC(-INFINITY, FP8_E5M2, false, (fp8_rounding)r, 0xFC);
    }
}
END_TEST

/* A NaN of either sign and any payload gives the canonical NaN (E4M3, E5M2:
 * 0x7F; E8M0: 0xFF), or +max in the formats without NaN. */
START_TEST(test_nan_inputs)
{
    static const uint32_t nan_bits[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                                        0xFF800001u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x7FA5A5A5u};
    for (int f = 0; f < FP8_FORMAT_COUNT; f++)
        for (int r = 0; r < FP8_ROUNDING_COUNT; r++)
            for (size_t i = 0; i < sizeof nan_bits / sizeof nan_bits[0]; i++)
                ENC2(f32_from_bits(nan_bits[i]), (fp8_format)f, (fp8_rounding)r,
                     k_spec[f].nan_result);
}
END_TEST

/* +0 -> 0x00 and -0 -> the sign bit alone; E8M0 has no sign and no zero, so
 * both zeros go to its smallest code 0x00 (2^-127). */
START_TEST(test_signed_zero)
{
    for (int f = 0; f < FP8_FORMAT_COUNT; f++) {
        for (int r = 0; r < FP8_ROUNDING_COUNT; r++) {
            ENC2(0.0f, (fp8_format)f, (fp8_rounding)r, 0x00);
            ENC2(-0.0f, (fp8_format)f, (fp8_rounding)r, k_spec[f].sign_bit);
        }
    }
    /* Spelled out for the record. */
    NEAR(-0.0f, FP8_E4M3, 0x80);
    NEAR(-0.0f, FP8_E5M2, 0x80);
    NEAR(-0.0f, FP8_E2M1, 0x08);
    NEAR(-0.0f, FP8_E3M2, 0x20);
    NEAR(-0.0f, FP8_E2M3, 0x20);
    NEAR(-0.0f, FP8_E8M0, 0x00);
}
END_TEST

/* Below half the smallest subnormal: a zero of the input's sign. Exactly half
 * is the midpoint of 0 (even) and the min subnormal (code 0x01, odd): zero.
 * Just above half: the min subnormal. */
START_TEST(test_underflow)
{
    for (int f = 0; f < FP8_FORMAT_COUNT; f++) {
        const spec_row *s = &k_spec[f];
        fp8_format fmt = (fp8_format)f;
        if (!s->has_zero)
            continue;
        float half = (float)(s->min_subnormal / 2);
        uint8_t neg = s->sign_bit;

        NEAR(half, fmt, 0x00);
        NEAR(-half, fmt, neg);
        NEAR(down(half), fmt, 0x00);
        NEAR(-down(half), fmt, neg);
        NEAR(up(half), fmt, 0x01);
        NEAR(-up(half), fmt, neg | 0x01);
        NEAR(FLT_TRUE_MIN, fmt, 0x00);   /* float subnormals underflow too */
        NEAR(-FLT_TRUE_MIN, fmt, neg);
        NEAR(FLT_MIN, fmt, 0x00);

        /* Toward zero: anything below the min subnormal is zero. */
        ENC2(down((float)s->min_subnormal), fmt, FP8_ROUND_TOWARD_ZERO, 0x00);
        ENC2(-down((float)s->min_subnormal), fmt, FP8_ROUND_TOWARD_ZERO, neg);
        ENC2((float)s->min_subnormal, fmt, FP8_ROUND_TOWARD_ZERO, 0x01);
        /* Away from zero: any nonzero magnitude is at least the min
         * subnormal. */
        ENC2(FLT_TRUE_MIN, fmt, FP8_ROUND_AWAY_FROM_ZERO, 0x01);
        ENC2(-FLT_TRUE_MIN, fmt, FP8_ROUND_AWAY_FROM_ZERO, neg | 0x01);
        ENC2(half, fmt, FP8_ROUND_AWAY_FROM_ZERO, 0x01);
    }
    /* The same, hand-written for E4M3 and E5M2. */
    NEAR(0x1p-10f, FP8_E4M3, 0x00);          /* 2^-10 = half of 2^-9 */
    NEAR(0x1.000002p-10f, FP8_E4M3, 0x01);   /* one float ulp above */
    NEAR(-0x1p-10f, FP8_E4M3, 0x80);
    NEAR(0x1p-17f, FP8_E5M2, 0x00);          /* half of 2^-16 */
    NEAR(0x1.000002p-17f, FP8_E5M2, 0x01);
    NEAR(0.25f, FP8_E2M1, 0x00);             /* half of 0.5 */
    NEAR(0.03125f, FP8_E3M2, 0x00);          /* half of 0.0625 */
    NEAR(0.0625f, FP8_E2M3, 0x00);           /* half of 0.125 */
}
END_TEST

/* For each pair of neighbouring values (in every binade, the subnormals and
 * the step from zero included) the exact midpoint goes to the even code and
 * one float ulp either side to the nearer value. The pair (max, the value
 * past max) is included: there "up" means overflow. */
START_TEST(test_ties_to_even)
{
    fp8_format fmt = (fp8_format)_i;
    ref_codebook cb;
    ref_codebook_build(&cb, fmt);

    for (int i = 0; i < cb.count; i++) {
        bool last = i == cb.count - 1;
        double lo = cb.value[i];
        double hi = last ? cb.beyond : cb.value[i + 1];
        unsigned lo_code = cb.code[i];
        unsigned hi_code = last ? cb.beyond_code : cb.code[i + 1];
        double mid = (lo + hi) / 2.0;
        float midf = (float)mid;

        ck_assert_msg((double)midf == mid, "%s: midpoint %a is not a float", k_spec[fmt].name,
                      mid);
        ck_assert(lo < mid && mid < hi);
        ck_assert_uint_eq(hi_code, lo_code + 1u); /* neighbours are neighbouring codes */

        for (int neg = 0; neg <= 1; neg++) {
            if (neg && !k_spec[fmt].has_sign)
                continue;
            float sgn = neg ? -1.0f : 1.0f;
            uint8_t sb = neg ? k_spec[fmt].sign_bit : 0u;
            for (int sat = 0; sat <= 1; sat++) {
                uint8_t lo_want = (uint8_t)(lo_code | sb);
                uint8_t hi_want = last ? overflow_code(fmt, neg, sat) : (uint8_t)(hi_code | sb);
                uint8_t tie_want = (lo_code & 1u) == 0u ? lo_want : hi_want;

                ENC(sgn * midf, fmt, sat, FP8_ROUND_NEAREST_EVEN, tie_want);
                ENC(sgn * down(midf), fmt, sat, FP8_ROUND_NEAREST_EVEN, lo_want);
                ENC(sgn * up(midf), fmt, sat, FP8_ROUND_NEAREST_EVEN, hi_want);
                /* The directed modes from the same point. */
                ENC(sgn * midf, fmt, sat, FP8_ROUND_TOWARD_ZERO, lo_want);
                ENC(sgn * midf, fmt, sat, FP8_ROUND_AWAY_FROM_ZERO, hi_want);
            }
        }
    }
}
END_TEST

START_TEST(test_e8m0)
{
    const fp8_rounding TZ = FP8_ROUND_TOWARD_ZERO, AZ = FP8_ROUND_AWAY_FROM_ZERO;
    const fp8_format E = FP8_E8M0;

    /* Toward zero: code = floor(log2|x|) + 127, clamped to [0, 254]. */
    ENC2(1.0f, E, TZ, 0x7F);           /* 2^0 */
    ENC2(down(2.0f), E, TZ, 0x7F);     /* just below 2: still 2^0 */
    ENC2(2.0f, E, TZ, 0x80);
    ENC2(3.0f, E, TZ, 0x80);
    ENC2(-3.0f, E, TZ, 0x80);          /* no sign: |x| */
    ENC2(0.75f, E, TZ, 0x7E);          /* 2^-1 */
    ENC2(0x1p-126f, E, TZ, 0x01);
    ENC2(down(0x1p-126f), E, TZ, 0x00); /* below 2^-126: 0x00 */
    ENC2(0x1p-127f, E, TZ, 0x00);
    ENC2(FLT_TRUE_MIN, E, TZ, 0x00);   /* below 2^-127: clamped to 0x00 */
    ENC2(0.0f, E, TZ, 0x00);
    ENC2(0x1p127f, E, TZ, 0xFE);
    ENC2(FLT_MAX, E, TZ, 0xFE);        /* floor(log2 FLT_MAX) = 127: no overflow */
    ENC2(-FLT_MAX, E, TZ, 0xFE);
    ENC(INFINITY, E, true, TZ, 0xFE);  /* inf follows the saturate flag */
    ENC(INFINITY, E, false, TZ, 0xFF);
    ENC(-INFINITY, E, false, TZ, 0xFF);

    /* Away from zero: ceil(log2|x|) + 127. */
    ENC2(1.0f, E, AZ, 0x7F);
    ENC2(up(1.0f), E, AZ, 0x80);
    ENC2(3.0f, E, AZ, 0x81);           /* up to 4 = 2^2 */
    ENC2(-3.0f, E, AZ, 0x81);
    ENC2(0.0f, E, AZ, 0x00);
    ENC2(FLT_TRUE_MIN, E, AZ, 0x00);   /* <= 2^-127 */
    ENC2(0x1p-127f, E, AZ, 0x00);
    ENC2(up(0x1p-127f), E, AZ, 0x01);  /* (2^-127, 2^-126] -> 2^-126 */
    ENC2(0x1p-126f, E, AZ, 0x01);
    ENC2(up(0x1p-126f), E, AZ, 0x02);
    ENC2(0x1p127f, E, AZ, 0xFE);
    ENC(up(0x1p127f), E, true, AZ, 0xFE);  /* would be 2^128: overflow */
    ENC(up(0x1p127f), E, false, AZ, 0xFF);
    ENC(FLT_MAX, E, false, AZ, 0xFF);
    ENC(INFINITY, E, true, AZ, 0xFE);
    ENC(INFINITY, E, false, AZ, 0xFF);

    /* Nearest, ties to even: between 2^k and 2^(k+1) the midpoint is
     * 1.5 * 2^k. */
    NEAR(1.5f, E, 0x80);               /* 1 (0x7F, odd) or 2 (0x80, even): 2 */
    NEAR(down(1.5f), E, 0x7F);
    NEAR(3.0f, E, 0x80);               /* 2 (0x80, even) or 4 (0x81): 2 */
    NEAR(up(3.0f), E, 0x81);
    NEAR(6.0f, E, 0x82);               /* 4 (0x81, odd) or 8 (0x82, even): 8 */
    NEAR(1.0f, E, 0x7F);
    NEAR(0.0f, E, 0x00);
    NEAR(-1.0f, E, 0x7F);
    /* 1.5 * 2^127 is the midpoint of 2^127 (0xFE, even) and 2^128 (would be
     * 0xFF, odd): stays at 0xFE. Above it: overflow. */
    NEAR(0x1.8p127f, E, 0xFE);
    ENC(up(0x1.8p127f), E, true, FP8_ROUND_NEAREST_EVEN, 0xFE);
    ENC(up(0x1.8p127f), E, false, FP8_ROUND_NEAREST_EVEN, 0xFF);
    ENC(INFINITY, E, true, FP8_ROUND_NEAREST_EVEN, 0xFE);
    ENC(INFINITY, E, false, FP8_ROUND_NEAREST_EVEN, 0xFF);
    /* 1.5 * 2^-127 is the midpoint of 2^-127 (0x00, even) and 2^-126
     * (0x01): 0x00; a float ulp above, 0x01. */
    NEAR(0x1.8p-127f, E, 0x00);
    NEAR(up(0x1.8p-127f), E, 0x01);
}
END_TEST

START_TEST(test_subbyte)
{
    /* E2M1: 0 0.5 1 1.5 2 3 4 6 are codes 0..7. */
    static const float e2m1[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    for (unsigned c = 0; c < 8; c++) {
        NEAR(e2m1[c], FP8_E2M1, (uint8_t)c);
        NEAR(-e2m1[c], FP8_E2M1, (uint8_t)(c | 0x08));
    }
    NEAR(0.75f, FP8_E2M1, 0x02);  /* tie 0.5 (0x01, odd) / 1 (0x02, even) */
    NEAR(1.25f, FP8_E2M1, 0x02);  /* tie 1 (0x02, even) / 1.5 (0x03) */
    NEAR(2.5f, FP8_E2M1, 0x04);   /* tie 2 (0x04, even) / 3 (0x05) */
    NEAR(3.5f, FP8_E2M1, 0x06);   /* tie 3 (0x05, odd) / 4 (0x06, even) */
    NEAR(5.0f, FP8_E2M1, 0x06);   /* tie 4 (0x06, even) / 6 (0x07) */
    NEAR(-5.0f, FP8_E2M1, 0x0E);
    /* 7 is the tie of 6 (0x07, odd) and 8 (past max): overflow, and E2M1
     * always saturates. */
    NEAR(7.0f, FP8_E2M1, 0x07);
    NEAR(-7.0f, FP8_E2M1, 0x0F);
    NEAR(up(6.0f), FP8_E2M1, 0x07);

    NEAR(1.0f, FP8_E3M2, 0x0C);   /* exponent 011 (= bias), mantissa 00 */
    NEAR(28.0f, FP8_E3M2, 0x1F);
    NEAR(30.0f, FP8_E3M2, 0x1F);  /* tie 28 / 32 (past max): saturates */
    NEAR(-28.0f, FP8_E3M2, 0x3F);
    NEAR(0.0625f, FP8_E3M2, 0x01);
    NEAR(0.09375f, FP8_E3M2, 0x02); /* tie 1/16 (0x01) / 2/16 (0x02, even) */

    NEAR(1.0f, FP8_E2M3, 0x08);   /* exponent 01 (= bias), mantissa 000 */
    NEAR(7.5f, FP8_E2M3, 0x1F);
    NEAR(7.75f, FP8_E2M3, 0x1F);  /* tie 7.5 / 8 (past max): saturates */
    NEAR(-7.75f, FP8_E2M3, 0x3F);
    NEAR(0.125f, FP8_E2M3, 0x01);
    NEAR(1.0625f, FP8_E2M3, 0x08); /* tie 1 (0x08, even) / 1.125 (0x09) */

    /* No inf and no NaN: huge values and inf saturate whatever `saturate`
     * says, in every rounding mode. */
    for (int f = FP8_E2M1; f <= FP8_E2M3; f++) {
        fp8_format fmt = (fp8_format)f;
        uint8_t mx = k_spec[f].max_code, sb = k_spec[f].sign_bit;
        for (int r = 0; r < FP8_ROUNDING_COUNT; r++) {
            fp8_rounding rnd = (fp8_rounding)r;
            ENC2(100.0f, fmt, rnd, mx);
            ENC2(-100.0f, fmt, rnd, (uint8_t)(mx | sb));
            ENC2(FLT_MAX, fmt, rnd, mx);
            ENC2(INFINITY, fmt, rnd, mx);
            ENC2(-INFINITY, fmt, rnd, (uint8_t)(mx | sb));
            ENC2(up((float)k_spec[f].max_finite), fmt, rnd, mx);
        }
    }
}
END_TEST

/* Rounding toward zero: a finite value never overflows (IEEE 754), inf still
 * does. */
START_TEST(test_toward_zero)
{
    const fp8_rounding TZ = FP8_ROUND_TOWARD_ZERO;

    ENC2(1000.0f, FP8_E4M3, TZ, 0x7E);
    ENC2(-1000.0f, FP8_E4M3, TZ, 0xFE);
    ENC2(FLT_MAX, FP8_E4M3, TZ, 0x7E);
    ENC2(up(464.0f), FP8_E4M3, TZ, 0x7E);
    /* 447 in [256, 512), step 32: truncates to 416 = 1.101b * 2^8. */
    ENC2(447.0f, FP8_E4M3, TZ, 0x7D);
    ENC2(3.24f, FP8_E4M3, TZ, 0x44);   /* 3.0, not the nearer 3.25 */
    ENC2(-3.24f, FP8_E4M3, TZ, 0xC4);
    ENC(INFINITY, FP8_E4M3, false, TZ, 0x7F);

    ENC2(65000.0f, FP8_E5M2, TZ, 0x7B);
    ENC2(-1e20f, FP8_E5M2, TZ, 0xFB);
    ENC2(61440.0f, FP8_E5M2, TZ, 0x7B);
    ENC2(1.45f, FP8_E5M2, TZ, 0x3D);   /* 1.25 */
    ENC(INFINITY, FP8_E5M2, false, TZ, 0x7C);
    ENC(-INFINITY, FP8_E5M2, false, TZ, 0xFC);

    ENC2(5.9f, FP8_E2M1, TZ, 0x06);    /* 4 */
    ENC2(0.49f, FP8_E2M1, TZ, 0x00);
    ENC2(-0.49f, FP8_E2M1, TZ, 0x08);
}
END_TEST

/* Rounding away from zero: the magnitude goes up to the next value; past max
 * that is overflow. */
START_TEST(test_away_from_zero)
{
    const fp8_rounding AZ = FP8_ROUND_AWAY_FROM_ZERO;

    ENC2(up(1.0f), FP8_E4M3, AZ, 0x39);    /* 1.125 */
    ENC2(-up(1.0f), FP8_E4M3, AZ, 0xB9);
    ENC2(3.01f, FP8_E4M3, AZ, 0x45);       /* 3.25 */
    ENC2(448.0f, FP8_E4M3, AZ, 0x7E);
    ENC(up(448.0f), FP8_E4M3, true, AZ, 0x7E);
    ENC(up(448.0f), FP8_E4M3, false, AZ, 0x7F);
    ENC(-up(448.0f), FP8_E4M3, false, AZ, 0xFF);

    ENC2(57344.0f, FP8_E5M2, AZ, 0x7B);
    ENC(up(57344.0f), FP8_E5M2, true, AZ, 0x7B);
    ENC(up(57344.0f), FP8_E5M2, false, AZ, 0x7C);
    ENC2(up(1.0f), FP8_E5M2, AZ, 0x3D);     /* 1.25 */

    ENC2(4.1f, FP8_E2M1, AZ, 0x07);         /* 6 */
    ENC2(6.1f, FP8_E2M1, AZ, 0x07);         /* past max: saturates */
    ENC2(0.01f, FP8_E2M1, AZ, 0x01);
    ENC2(-0.01f, FP8_E2M1, AZ, 0x09);
}
END_TEST

/* encode(decode(c)) == c for every finite code, every mode. */
START_TEST(test_round_trip)
{
    fp8_format fmt = (fp8_format)_i;

    for (unsigned c = 0; c < code_count(fmt); c++) {
        float v = fp8_decode((uint8_t)c, fmt);
        if (isnan(v) || isinf(v))
            continue;
        for (int r = 0; r < FP8_ROUNDING_COUNT; r++) {
            for (int sat = 0; sat <= 1; sat++) {
                uint8_t got = fp8_encode_rounded(v, fmt, sat, (fp8_rounding)r);
                CHECK(got == c, "%s %s sat=%d: encode(decode(0x%02x) = %a) = 0x%02x",
                      k_spec[fmt].name, k_rnd_name[r], sat, c, (double)v, got);
                uint8_t ref = ref_encode(v, fmt, sat, (fp8_rounding)r);
                CHECK(ref == c, "reference %s: round trip of 0x%02x gave 0x%02x",
                      k_spec[fmt].name, c, ref);
            }
        }
    }
}
END_TEST

/* ==== stochastic rounding ===================================================== */

/* Fills *a, *b with two random neighbouring values of fmt (a < b). */
static void random_pair(const ref_codebook *cb, rng_state *r, double *a, double *b)
{
    int i = (int)rng_below(r, (uint32_t)(cb->count - 1));
    *a = cb->value[i];
    *b = cb->value[i + 1];
}

START_TEST(test_stochastic_neighbours)
{
    fp8_format fmt = (fp8_format)_i;
    ref_codebook cb;
    rng_state pick, sr;

    ref_codebook_build(&cb, fmt);
    rng_seed(&pick, 2024, 1);
    rng_seed(&sr, 7, 3);
    for (int k = 0; k < 20000; k++) {
        double a, b;
        random_pair(&cb, &pick, &a, &b);
        float x = (float)(a + (b - a) * (double)rng_uniform(&pick));
        if (k_spec[fmt].has_sign && (rng_u32(&pick) & 1u))
            x = -x;
        bool sat = (k & 1) != 0;
        uint8_t lo = ref_encode_with(&cb, x, sat, FP8_ROUND_TOWARD_ZERO);
        uint8_t hi = ref_encode_with(&cb, x, sat, FP8_ROUND_AWAY_FROM_ZERO);
        uint8_t got = fp8_encode_stochastic(x, fmt, sat, &sr);
        CHECK(got == lo || got == hi,
              "%s stochastic x=%a (0x%08x): got 0x%02x, not 0x%02x or 0x%02x",
              k_spec[fmt].name, (double)x, f32_bits(x), got, lo, hi);
    }
}
END_TEST

START_TEST(test_stochastic_representable)
{
    fp8_format fmt = (fp8_format)_i;
    rng_state r;

    rng_seed(&r, 99, 5);
    for (unsigned c = 0; c < code_count(fmt); c++) {
        float v = (float)ref_decode((uint8_t)c, fmt);
        if (isnan(v) || isinf(v))
            continue;
        for (int k = 0; k < 16; k++) {
            uint8_t got = fp8_encode_stochastic(v, fmt, k & 1, &r);
            CHECK(got == c, "%s stochastic of representable 0x%02x (%a) gave 0x%02x",
                  k_spec[fmt].name, c, (double)v, got);
        }
    }
}
END_TEST

START_TEST(test_stochastic_deterministic)
{
    fp8_format fmt = (fp8_format)_i;
    rng_state gen, r1, r2;

    rng_seed(&gen, 1, 1);
    rng_seed(&r1, 31337, 11);
    rng_seed(&r2, 31337, 11);
    for (int k = 0; k < 5000; k++) {
        float x = rng_normal(&gen) * (float)k_spec[fmt].max_finite / 4.0f;
        uint8_t a = fp8_encode_stochastic(x, fmt, true, &r1);
        uint8_t b = fp8_encode_stochastic(x, fmt, true, &r2);
        CHECK(a == b, "%s: same seed, different results at draw %d", k_spec[fmt].name, k);
    }
    ck_assert(r1.state == r2.state && r1.inc == r2.inc);
}
END_TEST

/* x = a + p (b - a) between neighbours a < b is rounded up with probability
 * p; the test uses p = 0.25 exactly. Over N draws the fraction rounded up has
 * standard deviation sqrt(p (1 - p) / N) = sqrt(0.1875 / 100000) = 0.00137;
 * the tolerance is 5 sigma = 0.0068 (a false failure about once in 1.7
 * million runs; the seed is fixed, so the test is deterministic anyway). */
#define SR_N 100000
static const struct {
    fp8_format fmt;
    double a, b;
} k_sr_cases[] = {
    {FP8_E4M3, 1.0, 1.125},       /* 0x38 / 0x39 */
    {FP8_E4M3, 0x1p-9, 0x1p-8},   /* subnormals 0x01 / 0x02 */
    {FP8_E4M3, 416.0, 448.0},     /* the top step */
    {FP8_E5M2, 1.0, 1.25},
    {FP8_E5M2, 0x1p-16, 0x1p-15},
    {FP8_E8M0, 2.0, 4.0},         /* 2.5 is a quarter of the way */
    {FP8_E8M0, 0x1p-127, 0x1p-126},
    {FP8_E2M1, 2.0, 3.0},
    {FP8_E2M1, 0.0, 0.5},         /* from zero to the min subnormal */
    {FP8_E3M2, 24.0, 28.0},
    {FP8_E2M3, 0.125, 0.25},
};

START_TEST(test_stochastic_fraction)
{
    const double p = 0.25;
    const double tol = 5.0 * sqrt(p * (1.0 - p) / SR_N);
    fp8_format fmt = k_sr_cases[_i].fmt;
    double a = k_sr_cases[_i].a, b = k_sr_cases[_i].b;
    float x = (float)(a + p * (b - a));
    rng_state r;

    ck_assert((double)x == a + p * (b - a)); /* exact */
    for (int neg = 0; neg <= (k_spec[fmt].has_sign ? 1 : 0); neg++) {
        float xs = neg ? -x : x;
        uint8_t lo = ref_encode(neg ? -a : a, fmt, true, FP8_ROUND_NEAREST_EVEN);
        uint8_t hi = ref_encode(neg ? -b : b, fmt, true, FP8_ROUND_NEAREST_EVEN);
        long n_up = 0;

        rng_seed(&r, 20240601u + (uint64_t)_i, 17);
        for (int k = 0; k < SR_N; k++) {
            uint8_t q = fp8_encode_stochastic(xs, fmt, true, &r);
            CHECK(q == lo || q == hi, "%s: stochastic(%a) = 0x%02x", k_spec[fmt].name,
                  (double)xs, q);
            n_up += q == hi;
        }
        double frac = (double)n_up / SR_N;
        ck_assert_msg(fabs(frac - p) <= tol, "%s x=%a: fraction rounded up %.5f, want %.2f +- %.5f",
                      k_spec[fmt].name, (double)xs, frac, p, tol);
    }
}
END_TEST

/* E[decode(q)] = x: the mean of N decoded results is within 5 sigma of x,
 * sigma = (b - a) sqrt(p (1 - p) / N), here with p ~ 0.3 (whatever the float
 * nearest a + 0.3 (b - a) gives). */
START_TEST(test_stochastic_unbiased)
{
    fp8_format fmt = k_sr_cases[_i].fmt;
    double a = k_sr_cases[_i].a, b = k_sr_cases[_i].b;
    float x = (float)(a + 0.3 * (b - a));
    double p = ((double)x - a) / (b - a);
    double tol = 5.0 * (b - a) * sqrt(p * (1.0 - p) / SR_N);
    double sum = 0.0;
    rng_state r;

    rng_seed(&r, 777u + (uint64_t)_i, 23);
    for (int k = 0; k < SR_N; k++)
        sum += fp8_decode(fp8_encode_stochastic(x, fmt, true, &r), fmt);
    double mean = sum / SR_N;
    ck_assert_msg(fabs(mean - (double)x) <= tol, "%s x=%a: mean %.9g, want %.9g +- %.3g",
                  k_spec[fmt].name, (double)x, mean, (double)x, tol);
}
END_TEST

/* Exactly one rng_u32 per call, whatever the input. */
START_TEST(test_stochastic_one_draw)
{
    fp8_format fmt = (fp8_format)_i;
    const float xs[] = {1.03125f, 1.0f, 0.0f, -0.0f, NAN, -NAN, INFINITY, -INFINITY,
                        1e30f, -1e30f, FLT_TRUE_MIN, 3.3f, -0.7f, 448.0f, 0x1p-127f,
                        (float)k_spec[fmt].max_finite};
    rng_state r, shadow;

    rng_seed(&r, 5, 8);
    rng_seed(&shadow, 5, 8);
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            (void)fp8_encode_stochastic(xs[i], fmt, round & 1, &r);
            (void)rng_u32(&shadow);
            ck_assert_msg(r.state == shadow.state && r.inc == shadow.inc,
                          "%s: stochastic(%a) did not draw exactly once", k_spec[fmt].name,
                          (double)xs[i]);
        }
    }
}
END_TEST

/* NaN, inf and overflow behave as in fp8_encode; zeros keep their sign. */
START_TEST(test_stochastic_specials)
{
    fp8_format fmt = (fp8_format)_i;
    const spec_row *s = &k_spec[fmt];
    rng_state r;

    rng_seed(&r, 3, 4);
    for (int k = 0; k < 64; k++) {
        for (int sat = 0; sat <= 1; sat++) {
            ck_assert_uint_eq(fp8_encode_stochastic(NAN, fmt, sat, &r), s->nan_result);
            ck_assert_uint_eq(fp8_encode_stochastic(-NAN, fmt, sat, &r), s->nan_result);
            ck_assert_uint_eq(fp8_encode_stochastic(INFINITY, fmt, sat, &r),
                              overflow_code(fmt, false, sat));
            ck_assert_uint_eq(fp8_encode_stochastic(-INFINITY, fmt, sat, &r),
                              overflow_code(fmt, s->has_sign, sat));
            /* 1e30 is past max in every format but E8M0 (2^99.7 is an E8M0
             * neighbourhood like any other). */
            if (fmt != FP8_E8M0)
                ck_assert_uint_eq(fp8_encode_stochastic(1e30f, fmt, sat, &r),
                                  overflow_code(fmt, false, sat));
            ck_assert_uint_eq(fp8_encode_stochastic(0.0f, fmt, sat, &r), 0x00);
            ck_assert_uint_eq(fp8_encode_stochastic(-0.0f, fmt, sat, &r), s->sign_bit);
        }
    }
}
END_TEST

/* ==== bulk functions ========================================================== */

/* A mix of normals, subnormals, ties, overflow, NaN, inf and zeros for every
 * format, then random bit patterns and random normals. */
static size_t mixed_inputs(float *out, size_t cap)
{
    static const float fixed[] = {
        0.0f, -0.0f, 1.0f, -1.0f, 3.14f, -3.14f, 0.1f, 0x1p-9f, 0x1.4p-9f, 0x1p-10f,
        0x1.000002p-10f, 0x1p-16f, 0x1p-17f, 17.0f, 19.0f, 248.0f, 448.0f, 464.0f,
        0x1.d00002p8f /* just above 464 */, 480.0f, 57344.0f, 61440.0f, 0x1.dffffep15f,
        1e30f, -1e30f, FLT_MAX, -FLT_MAX, FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN,
        INFINITY, -INFINITY, NAN, -NAN, 0.25f, 0.75f, 1.25f, 2.5f, 5.0f, 7.0f, -7.0f,
        28.0f, 30.0f, 7.5f, 7.75f, 0.03125f, 0.0625f, 0x1p-127f, 0x1.8p-127f,
        0x1p127f, 0x1.8p127f, 1.5f, 3.0f, 6.0f, -6.0f, 100.0f};
    size_t n = 0;
    rng_state r;

    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && n < cap; i++)
        out[n++] = fixed[i];
    rng_seed(&r, 4242, 9);
    while (n < cap) {
        if (n & 1)
            out[n++] = f32_from_bits(rng_u32(&r));
        else
            out[n++] = rng_normal(&r) * ldexpf(1.0f, (int)rng_below(&r, 40) - 20);
    }
    return n;
}

#define BULK_N 1024

START_TEST(test_bulk_encode)
{
    fp8_format fmt = (fp8_format)_i;
    static float in[BULK_N];
    static uint8_t out[BULK_N];
    size_t n = mixed_inputs(in, BULK_N);

    for (int sat = 0; sat <= 1; sat++) {
        fp8_encode_array(in, out, n, fmt, sat);
        for (size_t i = 0; i < n; i++) {
            uint8_t want = fp8_encode(in[i], fmt, sat);
            CHECK(out[i] == want, "%s sat=%d encode_array[%zu] x=0x%08x: 0x%02x vs scalar 0x%02x",
                  k_spec[fmt].name, sat, i, f32_bits(in[i]), out[i], want);
        }
        for (int r = 0; r < FP8_ROUNDING_COUNT; r++) {
            fp8_encode_array_rounded(in, out, n, fmt, sat, (fp8_rounding)r);
            for (size_t i = 0; i < n; i++) {
                uint8_t want = fp8_encode_rounded(in[i], fmt, sat, (fp8_rounding)r);
                CHECK(out[i] == want,
                      "%s %s sat=%d encode_array_rounded[%zu] x=0x%08x: 0x%02x vs 0x%02x",
                      k_spec[fmt].name, k_rnd_name[r], sat, i, f32_bits(in[i]), out[i], want);
            }
        }
        /* Stochastic: the same draws in the same order as scalar calls. */
        rng_state ra, rb;
        rng_seed(&ra, 11, 12);
        rng_seed(&rb, 11, 12);
        fp8_encode_array_stochastic(in, out, n, fmt, sat, &ra);
        for (size_t i = 0; i < n; i++) {
            uint8_t want = fp8_encode_stochastic(in[i], fmt, sat, &rb);
            CHECK(out[i] == want, "%s sat=%d encode_array_stochastic[%zu]: 0x%02x vs 0x%02x",
                  k_spec[fmt].name, sat, i, out[i], want);
        }
        ck_assert(ra.state == rb.state && ra.inc == rb.inc);
    }
}
END_TEST

START_TEST(test_bulk_decode)
{
    fp8_format fmt = (fp8_format)_i;
    uint8_t in[512];
    float out[512];

    for (unsigned i = 0; i < 512; i++)
        in[i] = (uint8_t)(i * 37u + 5u);  /* every byte, twice, shuffled */
    fp8_decode_array(in, out, 512, fmt);
    for (unsigned i = 0; i < 512; i++) {
        float want = fp8_decode(in[i], fmt);
        CHECK(same_float(out[i], want), "%s decode_array[%u] (0x%02x): %a vs %a",
              k_spec[fmt].name, i, in[i], (double)out[i], (double)want);
    }
}
END_TEST

START_TEST(test_bulk_empty)
{
    float fin[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    uint8_t bout[4];
    uint8_t bin[4] = {1, 2, 3, 4};
    float fout[4];
    rng_state r, r0;

    rng_seed(&r, 1, 2);
    r0 = r;
    for (int f = 0; f < FP8_FORMAT_COUNT; f++) {
        fp8_format fmt = (fp8_format)f;
        memset(bout, 0xA5, sizeof bout);
        fp8_encode_array(fin, bout, 0, fmt, true);
        fp8_encode_array_rounded(fin, bout, 0, fmt, false, FP8_ROUND_TOWARD_ZERO);
        fp8_encode_array_stochastic(fin, bout, 0, fmt, true, &r);
        for (int i = 0; i < 4; i++)
            ck_assert_uint_eq(bout[i], 0xA5);
        ck_assert(r.state == r0.state && r.inc == r0.inc); /* no draws */
        for (int i = 0; i < 4; i++)
            fout[i] = 42.0f;
        fp8_decode_array(bin, fout, 0, fmt);
        for (int i = 0; i < 4; i++)
            ck_assert(fout[i] == 42.0f);
    }
}
END_TEST

/* ==== fp8_neighbours ========================================================== */

START_TEST(test_neighbours)
{
    static const struct {
        fp8_format fmt;
        float x;
        float below, above;
    } cases[] = {
        /* In [2, 4) E4M3 steps by 0.25: 3.14 lies in (3.0, 3.25). */
        {FP8_E4M3, 3.14f, 3.0f, 3.25f},
        {FP8_E4M3, -3.14f, -3.25f, -3.0f},
        {FP8_E4M3, 3.0f, 3.0f, 3.0f},            /* representable: both itself */
        {FP8_E4M3, 448.0f, 448.0f, 448.0f},
        {FP8_E4M3, 500.0f, 448.0f, INFINITY},    /* past max */
        {FP8_E4M3, -500.0f, -INFINITY, -448.0f},
        {FP8_E4M3, INFINITY, 448.0f, INFINITY},
        {FP8_E4M3, 1e-4f, 0.0f, 0x1p-9f},        /* below the min subnormal */
        {FP8_E4M3, 0x1.4p-9f, 0x1p-9f, 0x1p-8f}, /* between subnormals */
        /* In [64, 128) E5M2 steps by 16: 100 lies in (96, 112). */
        {FP8_E5M2, 100.0f, 96.0f, 112.0f},
        {FP8_E5M2, 60000.0f, 57344.0f, INFINITY},
        {FP8_E2M1, 2.5f, 2.0f, 3.0f},
        {FP8_E2M1, 5.0f, 4.0f, 6.0f},
        {FP8_E2M1, 7.0f, 6.0f, INFINITY},
        {FP8_E3M2, 27.0f, 24.0f, 28.0f},
        {FP8_E2M3, 7.3f, 7.0f, 7.5f},
        {FP8_E8M0, 3.0f, 2.0f, 4.0f},            /* powers of two */
        {FP8_E8M0, 1.0f, 1.0f, 1.0f},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float lo = 0.0f, hi = 0.0f;
        fp8_neighbours(cases[i].x, cases[i].fmt, &lo, &hi);
        ck_assert_msg(lo == cases[i].below && hi == cases[i].above,
                      "%s neighbours(%a) = (%a, %a), want (%a, %a)", k_spec[cases[i].fmt].name,
                      (double)cases[i].x, (double)lo, (double)hi, (double)cases[i].below,
                      (double)cases[i].above);
    }
    for (int f = 0; f < FP8_FORMAT_COUNT; f++) {
        float lo = 0.0f, hi = 0.0f;
        fp8_neighbours(NAN, (fp8_format)f, &lo, &hi);
        ck_assert_msg(isnan(lo) && isnan(hi), "%s neighbours(NaN)", k_spec[f].name);
    }
}
END_TEST

/* ==== sweep against the reference ============================================= */

/* Every 997th float bit pattern (a prime, so the low bits vary: about 4.3
 * million patterns, NaNs, infs and float subnormals among them), plus the
 * float patterns within SWEEP_NEAR ulps, both signs, of every non-negative
 * finite value of the format, every midpoint between neighbours, the
 * midpoint past max and the value past max. One test per (format, rounding),
 * both saturation modes each. */
#define SWEEP_STRIDE 997u
#define SWEEP_NEAR 4

static void sweep_one(const ref_codebook *cb, fp8_format fmt, fp8_rounding rnd, uint32_t u,
                      long *checked)
{
    float x = f32_from_bits(u);
    for (int sat = 0; sat <= 1; sat++) {
        uint8_t want = ref_encode_with(cb, x, sat, rnd);
        uint8_t got = fp8_encode_rounded(x, fmt, sat, rnd);
        CHECK(got == want, "%s %s sat=%d x=0x%08x (%a): reference 0x%02x, library 0x%02x",
              k_spec[fmt].name, k_rnd_name[rnd], sat, u, (double)x, want, got);
    }
    ++*checked;
}

static void sweep_around(const ref_codebook *cb, fp8_format fmt, fp8_rounding rnd, double v,
                         long *checked)
{
    uint32_t b = f32_bits((float)v);
    for (int k = -SWEEP_NEAR; k <= SWEEP_NEAR; k++) {
        uint32_t u = b + (uint32_t)k;
        sweep_one(cb, fmt, rnd, u, checked);
        sweep_one(cb, fmt, rnd, u ^ 0x80000000u, checked);
    }
}

START_TEST(test_sweep)
{
    fp8_format fmt = (fp8_format)(_i / FP8_ROUNDING_COUNT);
    fp8_rounding rnd = (fp8_rounding)(_i % FP8_ROUNDING_COUNT);
    ref_codebook cb;
    long checked = 0;

    ref_codebook_build(&cb, fmt);
    for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += SWEEP_STRIDE)
        sweep_one(&cb, fmt, rnd, (uint32_t)u, &checked);
    for (int i = 0; i < cb.count; i++) {
        double next = i + 1 < cb.count ? cb.value[i + 1] : cb.beyond;
        sweep_around(&cb, fmt, rnd, cb.value[i], &checked);
        sweep_around(&cb, fmt, rnd, (cb.value[i] + next) / 2.0, &checked);
    }
    sweep_around(&cb, fmt, rnd, cb.beyond, &checked);
    ck_assert(checked > (long)(0xFFFFFFFFu / SWEEP_STRIDE));
}
END_TEST

/* fp8_neighbours against the reference's bracket for one finite x. */
static void neighbours_one(const ref_codebook *cb, fp8_format fmt, float x)
{
    int lo, hi;
    ref_bracket(cb, x, &lo, &hi);
    double a = lo < 0 ? -INFINITY : cb->value[lo];
    double b = hi >= cb->count ? INFINITY : cb->value[hi];
    double want_below = x < 0 ? -b : a, want_above = x < 0 ? -a : b;
    float below, above;

    fp8_neighbours(x, fmt, &below, &above);
    CHECK((double)below == want_below && (double)above == want_above,
          "%s neighbours(0x%08x = %a) = (%a, %a), want (%a, %a)", k_spec[fmt].name,
          f32_bits(x), (double)x, (double)below, (double)above, want_below, want_above);
}

/* fp8_neighbours on every 199999th float pattern and around every value
 * (fp8_neighbours is for the explorer, not for speed: a coarser sweep).
 * Finite inputs; for E8M0, which has no sign and nothing below 2^-127, only
 * x >= 2^-127. */
START_TEST(test_neighbours_sweep)
{
    fp8_format fmt = (fp8_format)_i;
    bool e8m0 = !k_spec[fmt].has_sign;
    ref_codebook cb;

    ref_codebook_build(&cb, fmt);
    for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 199999u) {
        float x = f32_from_bits((uint32_t)u);
        if (isfinite(x) && (!e8m0 || x >= 0x1p-127f))
            neighbours_one(&cb, fmt, x);
    }
    for (int i = 0; i < cb.count; i++) {
        for (int k = -2; k <= 2; k++) {
            float x = f32_from_bits(f32_bits((float)cb.value[i]) + (uint32_t)k);
            if (isfinite(x) && (!e8m0 || x >= 0x1p-127f))
                neighbours_one(&cb, fmt, x);
            if (!e8m0 && isfinite(x))
                neighbours_one(&cb, fmt, -x);
        }
    }
}
END_TEST

/* ==== the 16-bit formats ======================================================= */

/* The table's rows against IEEE 754-2019 Table 3.5 (binary16: p = 11,
 * emax = 15) and bfloat16's definition (binary32's 8 exponent bits, 8 bits
 * of precision): the values are worked out by hand here, not read back. */
START_TEST(test_wide_rows)
{
    const fp8_format_info *h = fp16_info(FP16_HALF), *b = fp16_info(FP16_BF16);
    ck_assert_ptr_nonnull(h);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(fp16_info(FP16_FORMAT_COUNT));
    ck_assert_int_eq(h->bits, 16);
    ck_assert_int_eq(h->exp_bits + h->man_bits + 1, 16);
    ck_assert_int_eq(b->exp_bits + b->man_bits + 1, 16);
    ck_assert(h->max_finite == 65504.0f);                  /* (2 - 2^-10) 2^15 */
    ck_assert(h->min_normal == 6.103515625e-05f);          /* 2^-14 */
    ck_assert(h->min_subnormal == 5.9604644775390625e-08f); /* 2^-24 */
    ck_assert(b->max_finite == 3.3895313892515355e38f);    /* (2 - 2^-7) 2^127 */
    ck_assert(b->min_normal == 1.1754943508222875e-38f);   /* FLT_MIN */
    ck_assert(b->min_subnormal == 9.183549615799121e-41f); /* 2^-133 */
    ck_assert(fp16_decode(h->max_code, FP16_HALF) == h->max_finite);
    ck_assert(fp16_decode(b->max_code, FP16_BF16) == b->max_finite);
    ck_assert(isinf(fp16_decode(h->inf_code, FP16_HALF)));
    ck_assert(isnan(fp16_decode(h->nan_code, FP16_HALF)));
    ck_assert(isnan(fp16_decode(b->nan_code, FP16_BF16)));
    /* machine epsilon: the gap above 1 */
    ck_assert(fp16_decode(0x3C01, FP16_HALF) - 1.0f == 0x1p-10f);
    ck_assert(fp16_decode(0x3F81, FP16_BF16) - 1.0f == 0x1p-7f);

    fp16_format f = FP16_FORMAT_COUNT;
    ck_assert_int_eq(fp16_format_from_name("FP16", &f), 0);
    ck_assert_int_eq(f, FP16_HALF);
    ck_assert_int_eq(fp16_format_from_name("bfloat16", &f), 0);
    ck_assert_int_eq(f, FP16_BF16);
    ck_assert_int_eq(fp16_format_from_name("e4m3", &f), -1);
    ck_assert_int_eq(fp16_format_from_name(NULL, &f), -1);
}
END_TEST

/* Hand-worked conversions: what the handout puts through each format. */
START_TEST(test_wide_values)
{
    /* 1e-8 is below half FP16's smallest subnormal (2^-25 = 2.98e-8): +0 */
    ck_assert_uint_eq(fp16_encode(1e-8f, FP16_HALF), 0x0000);
    ck_assert_uint_eq(fp16_encode(-1e-8f, FP16_HALF), 0x8000);
    /* 2^-25 is the tie between 0 and 2^-24: to even, 0; just above: 2^-24 */
    ck_assert_uint_eq(fp16_encode(0x1p-25f, FP16_HALF), 0x0000);
    ck_assert_uint_eq(fp16_encode(nextafterf(0x1p-25f, 1.0f), FP16_HALF), 0x0001);
    /* 70000 > 65504 + half an ulp (65520): inf; 65519 rounds to max */
    ck_assert_uint_eq(fp16_encode(70000.0f, FP16_HALF), 0x7C00);
    ck_assert_uint_eq(fp16_encode(65520.0f, FP16_HALF), 0x7C00);
    ck_assert_uint_eq(fp16_encode(65519.0f, FP16_HALF), 0x7BFF);
    ck_assert_uint_eq(fp16_encode_rounded(70000.0f, FP16_HALF, true, FP8_ROUND_NEAREST_EVEN),
                      0x7BFF);
    ck_assert_uint_eq(fp16_encode_rounded(70000.0f, FP16_HALF, false, FP8_ROUND_TOWARD_ZERO),
                      0x7BFF);
    /* BF16 keeps both: 1e-8 = 0x322BCC77 -> 0x322C; 70000 = 0x4788B800 -> 0x4789 (70144) */
    ck_assert_uint_eq(fp16_encode(1e-8f, FP16_BF16), 0x322C);
    ck_assert_uint_eq(fp16_encode(70000.0f, FP16_BF16), 0x4789);
    ck_assert(fp16_decode(0x4789, FP16_BF16) == 70144.0f);
    /* ties to even on the bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 */
    ck_assert_uint_eq(fp16_encode(1.0f + 0x1p-8f, FP16_BF16), 0x3F80);
    ck_assert_uint_eq(fp16_encode(1.0f + 0x1p-7f + 0x1p-8f, FP16_BF16), 0x3F82);
    ck_assert_uint_eq(bf16_truncate(1.0f + 0x1p-7f + 0x1p-8f), 0x3F81);
    /* the largest float rounds past BF16's max: inf; truncated it is max */
    ck_assert_uint_eq(fp16_encode(FLT_MAX, FP16_BF16), 0x7F80);
    ck_assert_uint_eq(bf16_truncate(FLT_MAX), 0x7F7F);
    ck_assert_uint_eq(bf16_truncate(-FLT_MAX), 0xFF7F);
    /* NaN: the canonical 0x7FFF, whatever its sign and payload; a NaN whose
     * payload is all in the low 16 bits would truncate to inf, and one with
     * every low bit set would carry into the sign when rounded naively */
    ck_assert_uint_eq(fp16_encode(f32_from_bits(0x7F800001u), FP16_BF16), 0x7FFF);
    ck_assert_uint_eq(bf16_truncate(f32_from_bits(0x7F800001u)), 0x7FFF);
    ck_assert_uint_eq(fp16_encode(f32_from_bits(0x7FFFFFFFu), FP16_BF16), 0x7FFF);
    ck_assert_uint_eq(fp16_encode(f32_from_bits(0xFFC00000u), FP16_HALF), 0x7FFF);
    ck_assert_uint_eq(fp16_encode(-INFINITY, FP16_HALF), 0xFC00);
    ck_assert_uint_eq(fp16_encode(-0.0f, FP16_BF16), 0x8000);
    /* a float subnormal is a BF16 subnormal: 2^-133 is code 1 */
    ck_assert_uint_eq(fp16_encode(0x1p-133f, FP16_BF16), 0x0001);
    ck_assert_uint_eq(fp16_encode(0x1p-134f, FP16_BF16), 0x0000);
}
END_TEST

/* Every code: the fields and the class agree with the value, decoding and
 * re-encoding gives the code back (NaN: the canonical one), and the bulk
 * forms agree with the scalar ones. */
START_TEST(test_wide_all_codes)
{
    fp16_format fmt = (fp16_format)_i;
    const fp8_format_info *f = fp16_info(fmt);
    static uint16_t codes[65536], back[65536];
    static float vals[65536], rounded[65536];
    for (unsigned c = 0; c < 65536; c++)
        codes[c] = (uint16_t)c;
    fp16_decode_array(codes, vals, 65536, fmt);
    fp16_encode_array(vals, back, 65536, fmt);
    fp16_round_array(vals, rounded, 65536, fmt);
    for (unsigned c = 0; c < 65536; c++) {
        float v = fp16_decode((uint16_t)c, fmt);
        fp8_fields fl = fp16_split((uint16_t)c, fmt);
        ck_assert(same_float(v, vals[c]));
        ck_assert(same_float(v, rounded[c]));
        ck_assert_uint_eq(fl.sign, c >> 15);
        if (fp16_is_nan((uint16_t)c, fmt)) {
            ck_assert(isnan(v));
            ck_assert_uint_eq(back[c], f->nan_code);
            continue;
        }
        ck_assert_uint_eq(back[c], c);
        ck_assert_uint_eq(fp16_encode(v, fmt), c);
        ck_assert(fp16_is_inf((uint16_t)c, fmt) == (bool)isinf(v));
        ck_assert(fp16_is_zero((uint16_t)c, fmt) == (v == 0.0f));
        ck_assert(fp16_is_subnormal((uint16_t)c, fmt) ==
                  (v != 0.0f && fabsf(v) < f->min_normal));
        if (fl.exponent != 0 && !isinf(v)) /* value = (1 + m 2^-man) 2^(e - bias) */
            ck_assert(fabsf(v) == ldexpf(1.0f + ldexpf((float)fl.mantissa, -f->man_bits),
                                         (int)fl.exponent - f->bias));
    }
}
END_TEST

START_TEST(test_wide_neighbours)
{
    float lo, hi;
    fp16_neighbours(70000.0f, FP16_HALF, &lo, &hi);
    ck_assert(lo == 65504.0f && isinf(hi));
    fp16_neighbours(1e-8f, FP16_HALF, &lo, &hi);
    ck_assert(lo == 0.0f && hi == 0x1p-24f);
    fp16_neighbours(-1.0f - 0x1p-9f, FP16_BF16, &lo, &hi);
    ck_assert(lo == -1.0f - 0x1p-7f && hi == -1.0f);
    fp16_neighbours(3.0f, FP16_BF16, &lo, &hi);
    ck_assert(lo == 3.0f && hi == 3.0f);
    fp16_neighbours(NAN, FP16_BF16, &lo, &hi);
    ck_assert(isnan(lo) && isnan(hi));
}
END_TEST

/* ==== the runner ============================================================== */

static Suite *fp8_suite(void)
{
    Suite *s = suite_create("fp8");
    TCase *tc;

    tc = tcase_create("table");
    tcase_add_loop_test(tc, test_info_rows, 0, FP8_FORMAT_COUNT);
    tcase_add_test(tc, test_info_out_of_range);
    tcase_add_test(tc, test_format_from_name);
    suite_add_tcase(s, tc);

    tc = tcase_create("decode");
    tcase_add_loop_test(tc, test_decode_all_codes, 0, FP8_FORMAT_COUNT);
    tcase_add_test(tc, test_decode_literals);
    tcase_add_test(tc, test_decode_ignores_high_bits);
    tcase_add_loop_test(tc, test_classify_and_split, 0, FP8_FORMAT_COUNT);
    suite_add_tcase(s, tc);

    tc = tcase_create("encode");
    tcase_add_test(tc, test_e4m3_values);
    tcase_add_test(tc, test_e4m3_overflow);
    tcase_add_test(tc, test_e5m2_values);
    tcase_add_test(tc, test_nan_inputs);
    tcase_add_test(tc, test_signed_zero);
    tcase_add_test(tc, test_underflow);
    tcase_add_loop_test(tc, test_ties_to_even, 0, FP8_FORMAT_COUNT);
    tcase_add_test(tc, test_e8m0);
    tcase_add_test(tc, test_subbyte);
    tcase_add_test(tc, test_toward_zero);
    tcase_add_test(tc, test_away_from_zero);
    tcase_add_loop_test(tc, test_round_trip, 0, FP8_FORMAT_COUNT);
    suite_add_tcase(s, tc);

    tc = tcase_create("stochastic");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_stochastic_neighbours, 0, FP8_FORMAT_COUNT);
    tcase_add_loop_test(tc, test_stochastic_representable, 0, FP8_FORMAT_COUNT);
    tcase_add_loop_test(tc, test_stochastic_deterministic, 0, FP8_FORMAT_COUNT);
    tcase_add_loop_test(tc, test_stochastic_fraction, 0,
                        (int)(sizeof k_sr_cases / sizeof k_sr_cases[0]));
    tcase_add_loop_test(tc, test_stochastic_unbiased, 0,
                        (int)(sizeof k_sr_cases / sizeof k_sr_cases[0]));
    tcase_add_loop_test(tc, test_stochastic_one_draw, 0, FP8_FORMAT_COUNT);
    tcase_add_loop_test(tc, test_stochastic_specials, 0, FP8_FORMAT_COUNT);
    suite_add_tcase(s, tc);

    tc = tcase_create("bulk");
    tcase_add_loop_test(tc, test_bulk_encode, 0, FP8_FORMAT_COUNT);
    tcase_add_loop_test(tc, test_bulk_decode, 0, FP8_FORMAT_COUNT);
    tcase_add_test(tc, test_bulk_empty);
    tcase_add_test(tc, test_neighbours);
    suite_add_tcase(s, tc);

    tc = tcase_create("wide");
    /* all_codes took 1.5 s with two other tests at work on 2 cores, and
     * Check's 4 s default was once too little on a shared machine: 20
     * times that (tests/bench/bench_margins.sh measures it) */
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_wide_rows);
    tcase_add_test(tc, test_wide_values);
    tcase_add_loop_test(tc, test_wide_all_codes, 0, FP16_FORMAT_COUNT);
    tcase_add_test(tc, test_wide_neighbours);
    suite_add_tcase(s, tc);

    tc = tcase_create("sweep");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_sweep, 0, FP8_FORMAT_COUNT * FP8_ROUNDING_COUNT);
    tcase_add_loop_test(tc, test_neighbours_sweep, 0, FP8_FORMAT_COUNT);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fp8_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
