/*
 * fp8.c - the format table and the one codec that reads it (see fp8.h).
 *
 * Encoding works on the bits of the float. A finite magnitude a is a
 * significand sig (24 bits with the implicit one) times a power of two; the
 * code we want is sig shifted right by s bits, rounded:
 *
 *   q   = sig >> s        the code, rounded toward zero
 *   rem = sig mod 2^s     what the shift drops
 *   up  = rounding rule applied to (q, rem, s)
 *
 * For a value in the format's normal range the float's own bits already hold
 * "exponent field, mantissa" in the right order, so the shift is applied to
 * the float bits directly (s = 23 - man_bits) and a carry out of the mantissa
 * moves into the exponent by itself; subtracting the difference of the biases
 * then gives the code. Below the smallest normal the code is the value in
 * units of the smallest subnormal, which is the same shift of sig by a larger
 * amount. Overflow, NaN and sign are applied last, from the table.
 *
 * encode_nearest_fast() is the same computation for round-to-nearest-even in
 * a form a compiler vectorizes: the subnormal range is rounded by the FPU,
 * adding a constant whose ulp is the format's smallest subnormal. It assumes
 * the default floating-point environment (round to nearest, no flush to zero).
 *
 * Not for: scaling, packing sub-byte codes, or anything device-side.
 */
#include "fp8.h"

#include "bits.h"

#include <math.h>
#include <pthread.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FP8_AVX2 1 /* the bulk codec's AVX2 loops, chosen at run time */
#endif
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the table ------------------------------------------------------------ */

#define OFP8 "OCP 8-bit Floating Point Specification (OFP8) rev 1.0"
#define MX "OCP Microscaling Formats (MX) Specification v1.0"
#define IEEE754 "IEEE 754-2019, binary16"
#define BF16 "bfloat16: the top 16 bits of a binary32 (NVIDIA cuda_bf16.h, Intel BF16 spec)"

/* The 16-bit rows follow the 8-bit ones; fp16_info(k) is TABLE[W16 + k]. */
#define W16 FP8_FORMAT_COUNT

static const fp8_format_info TABLE[FP8_FORMAT_COUNT + FP16_FORMAT_COUNT] = {
    [FP8_E4M3] = {
        .name = "e4m3", .title = "E4M3 (OCP E4M3FN)", .source = OFP8,
        .bits = 8, .exp_bits = 4, .man_bits = 3, .bias = 7,
        .has_sign = true, .has_zero = true, .has_subnormals = true,
        .has_inf = false, .nan_kind = FP8_NAN_ALL_ONES,
        .max_code = 0x7E, .inf_code = 0, .nan_code = 0x7F,
        .emax = 8, .emin = -6,
        .max_finite = 448.0f, .min_normal = 0x1p-6f, .min_subnormal = 0x1p-9f,
    },
    [FP8_E5M2] = {
        .name = "e5m2", .title = "E5M2", .source = OFP8,
        .bits = 8, .exp_bits = 5, .man_bits = 2, .bias = 15,
        .has_sign = true, .has_zero = true, .has_subnormals = true,
        .has_inf = true, .nan_kind = FP8_NAN_IEEE,
        .max_code = 0x7B, .inf_code = 0x7C, .nan_code = 0x7F,
        .emax = 15, .emin = -14,
        .max_finite = 57344.0f, .min_normal = 0x1p-14f, .min_subnormal = 0x1p-16f,
    },
    [FP8_E8M0] = {
        .name = "e8m0", .title = "E8M0 (MX shared scale)", .source = MX ", scale data type",
        .bits = 8, .exp_bits = 8, .man_bits = 0, .bias = 127,
        .has_sign = false, .has_zero = false, .has_subnormals = false,
        .has_inf = false, .nan_kind = FP8_NAN_ALL_ONES,
        .max_code = 0xFE, .inf_code = 0, .nan_code = 0xFF,
        .emax = 127, .emin = -127,
        .max_finite = 0x1p127f, .min_normal = 0x1p-127f, .min_subnormal = 0x1p-127f,
    },
    [FP8_E2M1] = {
        .name = "e2m1", .title = "E2M1 (MXFP4 element)", .source = MX ", FP4 element type",
        .bits = 4, .exp_bits = 2, .man_bits = 1, .bias = 1,
        .has_sign = true, .has_zero = true, .has_subnormals = true,
        .has_inf = false, .nan_kind = FP8_NAN_NONE,
        .max_code = 0x7, .inf_code = 0, .nan_code = 0,
        .emax = 2, .emin = 0,
        .max_finite = 6.0f, .min_normal = 1.0f, .min_subnormal = 0.5f,
    },
    [FP8_E3M2] = {
        .name = "e3m2", .title = "E3M2 (MXFP6 element)", .source = MX ", FP6 element type",
        .bits = 6, .exp_bits = 3, .man_bits = 2, .bias = 3,
        .has_sign = true, .has_zero = true, .has_subnormals = true,
        .has_inf = false, .nan_kind = FP8_NAN_NONE,
        .max_code = 0x1F, .inf_code = 0, .nan_code = 0,
        .emax = 4, .emin = -2,
        .max_finite = 28.0f, .min_normal = 0.25f, .min_subnormal = 0.0625f,
    },
    [FP8_E2M3] = {
        .name = "e2m3", .title = "E2M3 (MXFP6 element)", .source = MX ", FP6 element type",
        .bits = 6, .exp_bits = 2, .man_bits = 3, .bias = 1,
        .has_sign = true, .has_zero = true, .has_subnormals = true,
        .has_inf = false, .nan_kind = FP8_NAN_NONE,
        .max_code = 0x1F, .inf_code = 0, .nan_code = 0,
        .emax = 2, .emin = 0,
        .max_finite = 7.5f, .min_normal = 1.0f, .min_subnormal = 0.125f,
    },
    [W16 + FP16_HALF] = {
        .name = "fp16", .title = "FP16 (IEEE binary16)", .source = IEEE754,
        .bits = 16, .exp_bits = 5, .man_bits = 10, .bias = 15,
        .has_sign = true, .has_zero = true, .has_subnormals = true,
        .has_inf = true, .nan_kind = FP8_NAN_IEEE,
        .max_code = 0x7BFF, .inf_code = 0x7C00, .nan_code = 0x7FFF,
        .emax = 15, .emin = -14,
        .max_finite = 65504.0f, .min_normal = 0x1p-14f, .min_subnormal = 0x1p-24f,
    },
    [W16 + FP16_BF16] = {
        .name = "bf16", .title = "BF16 (bfloat16)", .source = BF16,
        .bits = 16, .exp_bits = 8, .man_bits = 7, .bias = 127,
        .has_sign = true, .has_zero = true, .has_subnormals = true,
        .has_inf = true, .nan_kind = FP8_NAN_IEEE,
        .max_code = 0x7F7F, .inf_code = 0x7F80, .nan_code = 0x7FFF,
        .emax = 127, .emin = -126,
        .max_finite = 0x1.FEp127f, .min_normal = 0x1p-126f, .min_subnormal = 0x1p-133f,
    },
};

const fp8_format_info *fp8_info(fp8_format fmt)
{
    if ((unsigned)fmt >= FP8_FORMAT_COUNT)
        return NULL;
    return &TABLE[fmt];
}

int fp8_format_from_name(const char *name, fp8_format *out)
{
    if (!name)
        return -1;
    if (strncasecmp(name, "fp8_", 4) == 0 || strncasecmp(name, "fp6_", 4) == 0 ||
        strncasecmp(name, "fp4_", 4) == 0)
        name += 4;
    for (int i = 0; i < FP8_FORMAT_COUNT; i++) {
        if (strcasecmp(name, TABLE[i].name) == 0) {
            *out = (fp8_format)i;
            return 0;
        }
    }
    if (strcasecmp(name, "e4m3fn") == 0) {
        *out = FP8_E4M3;
        return 0;
    }
    return -1;
}

unsigned fp8_code_count(fp8_format fmt)
{
    const fp8_format_info *f = fp8_info(fmt);
    return f ? 1u << f->bits : 0;
}

/* One copy of BODY per format, with f the format's table row as a constant,
 * so that the compiler can fold the row's fields into BODY. */
#define FOR_EACH_FORMAT(fmt, BODY)                                             \
    switch (fmt) {                                                             \
    case FP8_E4M3: { const fp8_format_info *f = &TABLE[FP8_E4M3]; BODY; } break; \
    case FP8_E5M2: { const fp8_format_info *f = &TABLE[FP8_E5M2]; BODY; } break; \
    case FP8_E8M0: { const fp8_format_info *f = &TABLE[FP8_E8M0]; BODY; } break; \
    case FP8_E2M1: { const fp8_format_info *f = &TABLE[FP8_E2M1]; BODY; } break; \
    case FP8_E3M2: { const fp8_format_info *f = &TABLE[FP8_E3M2]; BODY; } break; \
    case FP8_E2M3: { const fp8_format_info *f = &TABLE[FP8_E2M3]; BODY; } break; \
    default: break;                                                            \
    }

/* ---- helpers on bits ------------------------------------------------------- */

#define F32_INF 0x7F800000u

/* The bit that holds a code's sign, or 0 for an unsigned format. */
static inline uint32_t sign_bit(const fp8_format_info *f)
{
    return f->has_sign ? 1u << (f->bits - 1) : 0;
}

/* The code for a NaN input: the canonical NaN, or +max where there is none. */
static inline uint32_t nan_result(const fp8_format_info *f)
{
    return f->nan_kind != FP8_NAN_NONE ? f->nan_code : f->max_code;
}

/* The code for a magnitude past max when not saturating. */
static inline uint32_t overflow_code(const fp8_format_info *f, bool saturate)
{
    if (saturate)
        return f->max_code;
    if (f->has_inf)
        return f->inf_code;
    return f->nan_kind != FP8_NAN_NONE ? f->nan_code : f->max_code;
}

/* ---- the generic encoder (any rounding) ------------------------------------- */

enum { MODE_STOCHASTIC = FP8_ROUNDING_COUNT };

/* Whether to add one to q, the code rounded toward zero, given the dropped
 * bits rem of width s (1 <= s <= 63) and, for stochastic rounding, 32
 * random bits r: rounds up with probability rem / 2^s (resolution 2^-32). */
static inline uint32_t round_up(uint64_t q, uint64_t rem, unsigned s, int mode, uint32_t r)
{
    uint64_t half = 1ull << (s - 1);
    switch (mode) {
    case FP8_ROUND_NEAREST_EVEN:
        return rem > half || (rem == half && (q & 1));
    case FP8_ROUND_TOWARD_ZERO:
        return 0;
    case FP8_ROUND_AWAY_FROM_ZERO:
        return rem != 0;
    default: /* MODE_STOCHASTIC */
        return (uint64_t)r < ((rem << 32) >> s);
    }
}

/* E8M0 below 2^-126, where its only code is 0x00 = 2^-127 and there is no
 * zero below it. a is the float's magnitude bits, in units of 2^-149; code
 * 0x00 is 2^22 such units and code 0x01 is 2^23. */
static uint32_t e8m0_tiny(uint32_t a, int mode, uint32_t r)
{
    const uint32_t one = 1u << 22;
    if (a <= one)
        return 0;
    return round_up(0, a - one, 22, mode, r);
}

/* The magnitude code of the finite magnitude a (float bits, sign cleared). */
static uint32_t magnitude_code(uint32_t a, const fp8_format_info *f, int mode, uint32_t r)
{
    const unsigned man = (unsigned)f->man_bits;
    uint32_t e = a >> 23;
    uint32_t min_normal_bits = (uint32_t)(127 + f->emin) << 23;

    if (!f->has_subnormals && e == 0)
        return e8m0_tiny(a, mode, r);
    if (a >= min_normal_bits || !f->has_subnormals) {
        unsigned s = 23 - man;
        uint32_t q = a >> s;
        uint32_t up = round_up(q, a & ((1u << s) - 1), s, mode, r);
        return q + up - ((uint32_t)(127 - f->bias) << man);
    }
    /* Subnormal range: value = sig * 2^(e_eff - 150), code = value / 2^(1 - bias - man). */
    uint32_t sig = (a & 0x7FFFFFu) | (e ? 0x800000u : 0);
    int e_eff = e ? (int)e : 1;
    int s = 151 - f->bias - (int)man - e_eff;
    if (s > 63)
        s = 63;
    uint64_t q = s >= 32 ? 0 : sig >> s;
    uint64_t rem = s >= 32 ? sig : sig & ((1u << s) - 1);
    return (uint32_t)q + round_up(q, rem, (unsigned)s, mode, r);
}

static uint32_t encode_generic(float x, const fp8_format_info *f, bool saturate, int mode,
                               uint32_t r)
{
    uint32_t u = f32_bits(x);
    uint32_t a = u & 0x7FFFFFFFu;
    uint32_t sign = (u >> 31) ? sign_bit(f) : 0;

    if (a > F32_INF)
        return nan_result(f);
    if (a == F32_INF)
        return overflow_code(f, saturate) | sign;

    uint32_t code = magnitude_code(a, f, mode, r);
    if (code > f->max_code) {
        /* IEEE 754: rounding toward zero never turns a finite value infinite. */
        bool clamp = saturate || mode == FP8_ROUND_TOWARD_ZERO;
        code = overflow_code(f, clamp);
    }
    return code | sign;
}

/* ---- the fast nearest-even encoder ----------------------------------------- */

/* Round to nearest even for formats with a zero and subnormals (all but
 * E8M0). Written without branches so that a loop of it vectorizes. */
static inline uint32_t encode_nearest_fast(float x, const fp8_format_info *f, bool saturate)
{
    const unsigned man = (unsigned)f->man_bits;
    const unsigned s = 23 - man;
    const uint32_t min_normal_bits = (uint32_t)(127 + f->emin) << 23;
    /* 2^(emin + 23 - man): its ulp is the format's smallest subnormal. */
    const uint32_t magic_bits = (uint32_t)(127 + f->emin + 23 - (int)man) << 23;

    uint32_t u = f32_bits(x);
    uint32_t a = u & 0x7FFFFFFFu;
    uint32_t sign = (u >> 31) ? sign_bit(f) : 0;

    uint32_t normal = ((a + ((1u << (s - 1)) - 1) + ((a >> s) & 1)) >> s) -
                      ((uint32_t)(127 - f->bias) << man);
    uint32_t sub = f32_bits(f32_from_bits(a) + f32_from_bits(magic_bits)) - magic_bits;
    uint32_t code = a < min_normal_bits ? sub : normal;
    code = code > f->max_code ? overflow_code(f, saturate) : code;
    code |= sign;
    return a > F32_INF ? nan_result(f) : code;
}

/* ---- public encoders -------------------------------------------------------- */

uint8_t fp8_encode(float x, fp8_format fmt, bool saturate)
{
    FOR_EACH_FORMAT(fmt, return (uint8_t)(f->has_subnormals
                                              ? encode_nearest_fast(x, f, saturate)
                                              : encode_generic(x, f, saturate,
                                                               FP8_ROUND_NEAREST_EVEN, 0)));
    return 0;
}

uint8_t fp8_encode_rounded(float x, fp8_format fmt, bool saturate, fp8_rounding rnd)
{
    const fp8_format_info *f = fp8_info(fmt);
    if (!f || (unsigned)rnd >= FP8_ROUNDING_COUNT)
        return 0;
    if (rnd == FP8_ROUND_NEAREST_EVEN && f->has_subnormals)
        return (uint8_t)encode_nearest_fast(x, f, saturate);
    return (uint8_t)encode_generic(x, f, saturate, (int)rnd, 0);
}

uint8_t fp8_encode_stochastic(float x, fp8_format fmt, bool saturate, rng_state *rng)
{
    const fp8_format_info *f = fp8_info(fmt);
    uint32_t r = rng_u32(rng);
    if (!f)
        return 0;
    return (uint8_t)encode_generic(x, f, saturate, MODE_STOCHASTIC, r);
}

/*
 * The bulk encoder's table. For every format here the rounding position is
 * bit 16 of the float or above (22 - man_bits >= 16 in the normal range,
 * higher in the subnormal one), so the low 16 bits of a float only ever act
 * as a sticky bit: the code of x depends on its top 16 bits and on whether
 * the low 16 are all zero, nothing else (a NaN, too: exponent all ones and
 * any mantissa bit set). Entry i holds the code of i << 16 in its low byte
 * and of (i << 16) | 1 in its high byte, both from encode_nearest_fast, so
 * the table is exact by construction; tests/oracle/sweep_nvidia.cpp checks
 * the bulk encoder on every float all the same. One lookup costs a fraction
 * of the arithmetic, and lab3's casts of a whole weight every step need it.
 * Built on first use, once per format and mode (128 KiB each).
 */
static uint16_t *nearest_table[FP8_FORMAT_COUNT][2];
static pthread_once_t nearest_once[FP8_FORMAT_COUNT][2] = {
#define ONCE2 {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT}
    ONCE2, ONCE2, ONCE2, ONCE2, ONCE2, ONCE2,
#undef ONCE2
};

static void build_nearest_table(fp8_format fmt, bool saturate)
{
    uint16_t *t = malloc(65536 * sizeof *t);
    if (!t)
        return; /* the arithmetic path stands in */
    const fp8_format_info *f = &TABLE[fmt];
    for (uint32_t i = 0; i < 65536; i++) {
        uint32_t lo = encode_nearest_fast(f32_from_bits(i << 16), f, saturate);
        uint32_t hi = encode_nearest_fast(f32_from_bits((i << 16) | 1u), f, saturate);
        t[i] = (uint16_t)(lo | hi << 8);
    }
    nearest_table[fmt][saturate] = t;
}

#define ONCE_FN(fmt, sat) \
    static void once_##fmt##_##sat(void) { build_nearest_table(fmt, sat); }
ONCE_FN(FP8_E4M3, 0) ONCE_FN(FP8_E4M3, 1) ONCE_FN(FP8_E5M2, 0) ONCE_FN(FP8_E5M2, 1)
ONCE_FN(FP8_E2M1, 0) ONCE_FN(FP8_E2M1, 1) ONCE_FN(FP8_E3M2, 0) ONCE_FN(FP8_E3M2, 1)
ONCE_FN(FP8_E2M3, 0) ONCE_FN(FP8_E2M3, 1)
#undef ONCE_FN

static const uint16_t *nearest_table_for(fp8_format fmt, bool saturate)
{
    static void (*const builders[FP8_FORMAT_COUNT][2])(void) = {
        [FP8_E4M3] = {once_FP8_E4M3_0, once_FP8_E4M3_1},
        [FP8_E5M2] = {once_FP8_E5M2_0, once_FP8_E5M2_1},
        [FP8_E2M1] = {once_FP8_E2M1_0, once_FP8_E2M1_1},
        [FP8_E3M2] = {once_FP8_E3M2_0, once_FP8_E3M2_1},
        [FP8_E2M3] = {once_FP8_E2M3_0, once_FP8_E2M3_1},
    };
    if (!builders[fmt][saturate])
        return NULL;
    pthread_once(&nearest_once[fmt][saturate], builders[fmt][saturate]);
    return nearest_table[fmt][saturate];
}

#ifdef FP8_AVX2
/*
 * The bulk codec in AVX2, eight elements at a time, for CPUs that have it
 * (checked once, at run time; the library itself is built for plain
 * x86-64). The encoder is encode_nearest_fast above, lane by lane: the same
 * integer and float operations on the same bits, so the same codes (and
 * tests/oracle/sweep_nvidia.cpp checks it on every float, like the scalar
 * encoder). Its output, 32 codes a round, is packed from 32-bit lanes to
 * bytes. Only addition is used on floats (no fused multiply-add).
 */
typedef struct avx2_encoder {
    __m256i half, one, bias_adj, min_normal, magic_bits, max_code, overflow, inf, nan,
        abs_mask, sign_mask;
    __m256 magic;
    __m128i s, sign_shift;
} avx2_encoder;

__attribute__((target("avx2"))) static avx2_encoder avx2_encoder_of(const fp8_format_info *f,
                                                                    bool saturate)
{
    const unsigned man = (unsigned)f->man_bits, s = 23 - man;
    avx2_encoder k;
    k.half = _mm256_set1_epi32((int)((1u << (s - 1)) - 1));
    k.one = _mm256_set1_epi32(1);
    k.bias_adj = _mm256_set1_epi32((int)((uint32_t)(127 - f->bias) << man));
    k.min_normal = _mm256_set1_epi32((int)((uint32_t)(127 + f->emin) << 23));
    k.magic_bits = _mm256_set1_epi32((int)((uint32_t)(127 + f->emin + 23 - (int)man) << 23));
    k.magic = _mm256_castsi256_ps(k.magic_bits);
    k.max_code = _mm256_set1_epi32(f->max_code);
    k.overflow = _mm256_set1_epi32(overflow_code(f, saturate));
    k.inf = _mm256_set1_epi32((int)F32_INF);
    k.nan = _mm256_set1_epi32(nan_result(f));
    k.abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
    k.sign_mask = _mm256_set1_epi32((int)0x80000000u);
    k.s = _mm_cvtsi32_si128((int)s);
    k.sign_shift = _mm_cvtsi32_si128(32 - f->bits); /* the float's sign to the code's */
    return k;
}

/* The codes of eight floats, one per 32-bit lane. */
__attribute__((target("avx2"))) static inline __m256i avx2_encode8(const float *in,
                                                                   const avx2_encoder *k)
{
    __m256i u = _mm256_loadu_si256((const __m256i *)(const void *)in);
    __m256i a = _mm256_and_si256(u, k->abs_mask);
    __m256i sign = _mm256_srl_epi32(_mm256_and_si256(u, k->sign_mask), k->sign_shift);
    __m256i lsb = _mm256_and_si256(_mm256_srl_epi32(a, k->s), k->one);
    __m256i normal = _mm256_sub_epi32(
        _mm256_srl_epi32(_mm256_add_epi32(_mm256_add_epi32(a, k->half), lsb), k->s),
        k->bias_adj);
    __m256i sub = _mm256_sub_epi32(
        _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), k->magic)), k->magic_bits);
    __m256i code = _mm256_blendv_epi8(normal, sub, _mm256_cmpgt_epi32(k->min_normal, a));
    code = _mm256_blendv_epi8(code, k->overflow, _mm256_cmpgt_epi32(code, k->max_code));
    code = _mm256_or_si256(code, sign);
    return _mm256_blendv_epi8(code, k->nan, _mm256_cmpgt_epi32(a, k->inf));
}

__attribute__((target("avx2"))) static size_t avx2_encode(const float *in, uint8_t *out,
                                                          size_t n, const fp8_format_info *f,
                                                          bool saturate)
{
    const avx2_encoder k = avx2_encoder_of(f, saturate);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i c0 = avx2_encode8(in + i, &k), c1 = avx2_encode8(in + i + 8, &k);
        __m256i c2 = avx2_encode8(in + i + 16, &k), c3 = avx2_encode8(in + i + 24, &k);
        /* codes are 0..255: the saturating packs keep them; the packs work
         * per 128-bit half, and the permutation puts the groups in order */
        __m256i p = _mm256_packus_epi16(_mm256_packs_epi32(c0, c1), _mm256_packs_epi32(c2, c3));
        _mm256_storeu_si256((__m256i *)(void *)(out + i), _mm256_permutevar8x32_epi32(p, order));
    }
    return i;
}

/* The values of E4M3 or E5M2 codes (8 bits, a sign, subnormals), eight at a
 * time: the code's seven magnitude bits shifted into a float's exponent and
 * mantissa fields (its mantissa on top of the float's) make a float whose
 * value is the code's divided by 2^(127 - bias), subnormals included (as a
 * float subnormal); multiplying by 2^(127 - bias) is exact. The sign is
 * moved over; the codes past max (E4M3's NaN, E5M2's inf and NaNs) are read
 * from the table, which has what fp8_decode gives for them. */
__attribute__((target("avx2"))) static size_t avx2_decode(const uint8_t *in, float *out,
                                                          size_t n, const fp8_format_info *f,
                                                          const float *lut)
{
    const unsigned man = (unsigned)f->man_bits;
    const __m128i shift = _mm_cvtsi32_si128((int)(23 - man));
    const __m256 pow = _mm256_castsi256_ps(_mm256_set1_epi32((127 + 127 - f->bias) << 23));
    const __m256i mag_mask = _mm256_set1_epi32(0x7F), sign_bit = _mm256_set1_epi32(0x80);
    const __m256i max_code = _mm256_set1_epi32(f->max_code);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(in + i)));
        __m256i m = _mm256_and_si256(c, mag_mask);
        __m256 v = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_sll_epi32(m, shift)), pow);
        __m256i bits = _mm256_or_si256(_mm256_castps_si256(v),
                                       _mm256_slli_epi32(_mm256_and_si256(c, sign_bit), 24));
        /* exponent field all ones: inf or NaN, from the table */
        __m256i special = _mm256_cmpgt_epi32(m, max_code);
        if (!_mm256_testz_si256(special, special))
            bits = _mm256_blendv_epi8(bits, _mm256_i32gather_epi32((const int *)(const void *)lut,
                                                                    c, 4),
                                      special);
        _mm256_storeu_si256((__m256i *)(void *)(out + i), bits);
    }
    return i;
}

static bool have_avx2(void)
{
    static int known = -1; /* the same answer from every thread */
    if (known < 0)
        known = __builtin_cpu_supports("avx2") ? 1 : 0;
    return known == 1;
}
#endif

static void encode_nearest_array(const float *in, uint8_t *out, size_t n, fp8_format fmt,
                                 bool saturate)
{
#ifdef FP8_AVX2
    if (have_avx2()) {
        size_t done = avx2_encode(in, out, n, &TABLE[fmt], saturate);
        in += done;
        out += done;
        n -= done;
    }
#endif
    const uint16_t *t = nearest_table_for(fmt, saturate);
    if (t) {
        for (size_t i = 0; i < n; i++) {
            uint32_t u = f32_bits(in[i]);
            uint16_t e = t[u >> 16];
            out[i] = (uint8_t)((u & 0xFFFFu) ? e >> 8 : e);
        }
        return;
    }
    if (saturate) {
        FOR_EACH_FORMAT(fmt, for (size_t i = 0; i < n; i++)
                                 out[i] = (uint8_t)encode_nearest_fast(in[i], f, true));
    } else {
        FOR_EACH_FORMAT(fmt, for (size_t i = 0; i < n; i++)
                                 out[i] = (uint8_t)encode_nearest_fast(in[i], f, false));
    }
}

void fp8_encode_array(const float *in, uint8_t *out, size_t n, fp8_format fmt, bool saturate)
{
    fp8_encode_array_rounded(in, out, n, fmt, saturate, FP8_ROUND_NEAREST_EVEN);
}

void fp8_encode_array_rounded(const float *in, uint8_t *out, size_t n, fp8_format fmt,
                              bool saturate, fp8_rounding rnd)
{
    const fp8_format_info *f = fp8_info(fmt);
    if (!f || (unsigned)rnd >= FP8_ROUNDING_COUNT)
        return;
    if (rnd == FP8_ROUND_NEAREST_EVEN && f->has_subnormals) {
        encode_nearest_array(in, out, n, fmt, saturate);
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)encode_generic(in[i], f, saturate, (int)rnd, 0);
}

void fp8_encode_array_stochastic(const float *in, uint8_t *out, size_t n, fp8_format fmt,
                                 bool saturate, rng_state *rng)
{
    for (size_t i = 0; i < n; i++)
        out[i] = fp8_encode_stochastic(in[i], fmt, saturate, rng);
}

/* ---- decoding and classification ---------------------------------------------- */

/* The fields of a code of any width; bits above the format's width are ignored. */
static fp8_fields split_row(unsigned code, const fp8_format_info *f)
{
    fp8_fields fl;
    code &= (1u << f->bits) - 1;
    fl.sign = f->has_sign ? code >> (f->bits - 1) : 0;
    fl.exponent = (code >> f->man_bits) & ((1u << f->exp_bits) - 1);
    fl.mantissa = code & ((1u << f->man_bits) - 1);
    return fl;
}

static bool is_nan_row(unsigned code, const fp8_format_info *f)
{
    fp8_fields fl = split_row(code, f);
    unsigned exp_ones = (1u << f->exp_bits) - 1;
    unsigned man_ones = (1u << f->man_bits) - 1;
    switch (f->nan_kind) {
    case FP8_NAN_ALL_ONES:
        return fl.exponent == exp_ones && fl.mantissa == man_ones;
    case FP8_NAN_IEEE:
        return fl.exponent == exp_ones && fl.mantissa != 0;
    default:
        return false;
    }
}

static bool is_inf_row(unsigned code, const fp8_format_info *f)
{
    fp8_fields fl = split_row(code, f);
    return f->has_inf && fl.exponent == (1u << f->exp_bits) - 1 && fl.mantissa == 0;
}

static bool is_zero_row(unsigned code, const fp8_format_info *f)
{
    fp8_fields fl = split_row(code, f);
    return f->has_zero && fl.exponent == 0 && fl.mantissa == 0;
}

static bool is_subnormal_row(unsigned code, const fp8_format_info *f)
{
    fp8_fields fl = split_row(code, f);
    return f->has_subnormals && fl.exponent == 0 && fl.mantissa != 0;
}

fp8_fields fp8_split(uint8_t code, fp8_format fmt)
{
    const fp8_format_info *f = fp8_info(fmt);
    fp8_fields none = {0, 0, 0};
    return f ? split_row(code, f) : none;
}

bool fp8_is_nan(uint8_t code, fp8_format fmt)
{
    const fp8_format_info *f = fp8_info(fmt);
    return f && is_nan_row(code, f);
}

bool fp8_is_inf(uint8_t code, fp8_format fmt)
{
    const fp8_format_info *f = fp8_info(fmt);
    return f && is_inf_row(code, f);
}

bool fp8_is_zero(uint8_t code, fp8_format fmt)
{
    const fp8_format_info *f = fp8_info(fmt);
    return f && is_zero_row(code, f);
}

bool fp8_is_subnormal(uint8_t code, fp8_format fmt)
{
    const fp8_format_info *f = fp8_info(fmt);
    return f && is_subnormal_row(code, f);
}

/* The value of a code of any width; bits above the format's width are
 * ignored. Every value is a float, so each product below is exact. */
static float decode_row(unsigned code, const fp8_format_info *f)
{
    fp8_fields fl = split_row(code, f);
    int scale = (int)fl.exponent - f->bias - f->man_bits;
    float normal = ldexpf((float)((1u << f->man_bits) + fl.mantissa), scale); /* E8M0 0x00 too */
    float subnormal = ldexpf((float)fl.mantissa, f->emin - f->man_bits);
    float mag = fl.exponent == 0 && f->has_subnormals ? subnormal : normal;
    mag = is_inf_row(code, f) ? INFINITY : mag;
    mag = fl.sign ? -mag : mag;
    return is_nan_row(code, f) ? NAN : mag;
}

/* Every code's value, filled in before main() runs (the tables are small and
 * fill in microseconds), so that fp8_decode is one load. */
static float decoded[FP8_FORMAT_COUNT][256];

__attribute__((constructor)) static void fill_decoded(void)
{
    for (int fmt = 0; fmt < FP8_FORMAT_COUNT; fmt++)
        for (unsigned c = 0; c < 256; c++)
            decoded[fmt][c] = decode_row(c, &TABLE[fmt]);
}

float fp8_decode(uint8_t code, fp8_format fmt)
{
    if ((unsigned)fmt >= FP8_FORMAT_COUNT)
        return NAN;
    return decoded[fmt][code];
}

void fp8_decode_array(const uint8_t *in, float *out, size_t n, fp8_format fmt)
{
    if ((unsigned)fmt >= FP8_FORMAT_COUNT)
        return;
    const float *lut = decoded[fmt];
    size_t i = 0;
#ifdef FP8_AVX2
    const fp8_format_info *f = &TABLE[fmt];
    if (f->bits == 8 && f->has_sign && f->has_subnormals && have_avx2())
        i = avx2_decode(in, out, n, f, lut);
#endif
    for (; i < n; i++)
        out[i] = lut[in[i]];
}

/* ---- neighbours ------------------------------------------------------------- */

void fp8_neighbours(float x, fp8_format fmt, float *below, float *above)
{
    const fp8_format_info *f = fp8_info(fmt);
    float lo = -INFINITY, hi = INFINITY;
    if (!f || isnan(x)) {
        *below = *above = NAN;
        return;
    }
    for (unsigned c = 0; c < fp8_code_count(fmt); c++) {
        if (fp8_is_nan((uint8_t)c, fmt) || fp8_is_inf((uint8_t)c, fmt))
            continue;
        float v = fp8_decode((uint8_t)c, fmt);
        if (v <= x && v > lo)
            lo = v;
        if (v >= x && v < hi)
            hi = v;
    }
    *below = lo;
    *above = hi;
}

/* ---- the 16-bit formats ------------------------------------------------------ */

const fp8_format_info *fp16_info(fp16_format fmt)
{
    if ((unsigned)fmt >= FP16_FORMAT_COUNT)
        return NULL;
    return &TABLE[W16 + fmt];
}

int fp16_format_from_name(const char *name, fp16_format *out)
{
    static const struct {
        const char *name;
        fp16_format fmt;
    } names[] = {
        {"fp16", FP16_HALF}, {"half", FP16_HALF}, {"binary16", FP16_HALF},
        {"float16", FP16_HALF}, {"bf16", FP16_BF16}, {"bfloat16", FP16_BF16},
    };
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(name, names[i].name) == 0) {
            *out = names[i].fmt;
            return 0;
        }
    }
    return -1;
}

uint16_t fp16_encode(float x, fp16_format fmt)
{
    const fp8_format_info *f = fp16_info(fmt);
    return f ? (uint16_t)encode_nearest_fast(x, f, false) : 0;
}

uint16_t fp16_encode_rounded(float x, fp16_format fmt, bool saturate, fp8_rounding rnd)
{
    const fp8_format_info *f = fp16_info(fmt);
    if (!f || (unsigned)rnd >= FP8_ROUNDING_COUNT)
        return 0;
    if (rnd == FP8_ROUND_NEAREST_EVEN)
        return (uint16_t)encode_nearest_fast(x, f, saturate);
    return (uint16_t)encode_generic(x, f, saturate, (int)rnd, 0);
}

uint16_t bf16_truncate(float x)
{
    return fp16_encode_rounded(x, FP16_BF16, false, FP8_ROUND_TOWARD_ZERO);
}

/* Every 16-bit code's value, built on first use (256 KiB a format). */
static float *wide_decoded[FP16_FORMAT_COUNT];
static pthread_once_t wide_once[FP16_FORMAT_COUNT] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};

static void build_wide(fp16_format fmt)
{
    float *t = malloc(65536 * sizeof *t);
    if (!t)
        return; /* decode_row stands in */
    for (unsigned c = 0; c < 65536; c++)
        t[c] = decode_row(c, &TABLE[W16 + fmt]);
    wide_decoded[fmt] = t;
}

static void build_wide_half(void) { build_wide(FP16_HALF); }
static void build_wide_bf16(void) { build_wide(FP16_BF16); }

static const float *wide_table(fp16_format fmt)
{
    pthread_once(&wide_once[fmt], fmt == FP16_HALF ? build_wide_half : build_wide_bf16);
    return wide_decoded[fmt];
}

float fp16_decode(uint16_t code, fp16_format fmt)
{
    if ((unsigned)fmt >= FP16_FORMAT_COUNT)
        return NAN;
    const float *t = wide_table(fmt);
    return t ? t[code] : decode_row(code, &TABLE[W16 + fmt]);
}

void fp16_encode_array(const float *in, uint16_t *out, size_t n, fp16_format fmt)
{
    const fp8_format_info *f = fp16_info(fmt);
    if (!f)
        return;
    if (fmt == FP16_HALF) {
        for (size_t i = 0; i < n; i++)
            out[i] = (uint16_t)encode_nearest_fast(in[i], &TABLE[W16 + FP16_HALF], false);
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = (uint16_t)encode_nearest_fast(in[i], &TABLE[W16 + FP16_BF16], false);
    }
}

void fp16_decode_array(const uint16_t *in, float *out, size_t n, fp16_format fmt)
{
    if ((unsigned)fmt >= FP16_FORMAT_COUNT)
        return;
    for (size_t i = 0; i < n; i++)
        out[i] = fp16_decode(in[i], fmt);
}

/* The value encode_nearest_fast gives x for a 16-bit format (saturate
 * false), without the code: the same rounding kept in the float's own bits
 * (the dropped mantissa bits rounded off in the normal range; in the
 * subnormal range, one float addition of a constant whose ulp is the
 * format's smallest subnormal, then its subtraction, which is exact), past
 * max inf, a NaN the canonical NaN's value. Branch-free, so a loop of it
 * vectorizes; tests/oracle checks it against NVIDIA on every float. */
static inline float round_value_fast(float x, const fp8_format_info *f, uint32_t max_bits,
                                     float nan_value)
{
    const unsigned s = 23 - (unsigned)f->man_bits;
    const uint32_t min_normal_bits = (uint32_t)(127 + f->emin) << 23;
    const float magic = f32_from_bits((uint32_t)(127 + f->emin + 23 - f->man_bits) << 23);
    uint32_t u = f32_bits(x);
    uint32_t a = u & 0x7FFFFFFFu;
    uint32_t normal = (a + ((1u << (s - 1)) - 1) + ((a >> s) & 1)) & ~((1u << s) - 1);
    uint32_t sub = f32_bits((f32_from_bits(a) + magic) - magic);
    uint32_t mag = a < min_normal_bits ? sub : normal;
    mag = mag > max_bits ? F32_INF : mag;
    return a > F32_INF ? nan_value : f32_from_bits(mag | (u & 0x80000000u));
}

void fp16_round_array(const float *in, float *out, size_t n, fp16_format fmt)
{
    if ((unsigned)fmt >= FP16_FORMAT_COUNT)
        return;
    const fp8_format_info *f = &TABLE[W16 + fmt];
    const uint32_t max_bits = f32_bits(f->max_finite);
    const float nan_value = decode_row(f->nan_code, f);
    if (fmt == FP16_HALF) {
        for (size_t i = 0; i < n; i++)
            out[i] = round_value_fast(in[i], &TABLE[W16 + FP16_HALF], max_bits, nan_value);
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = round_value_fast(in[i], &TABLE[W16 + FP16_BF16], max_bits, nan_value);
    }
}

fp8_fields fp16_split(uint16_t code, fp16_format fmt)
{
    const fp8_format_info *f = fp16_info(fmt);
    fp8_fields none = {0, 0, 0};
    return f ? split_row(code, f) : none;
}

bool fp16_is_nan(uint16_t code, fp16_format fmt)
{
    const fp8_format_info *f = fp16_info(fmt);
    return f && is_nan_row(code, f);
}

bool fp16_is_inf(uint16_t code, fp16_format fmt)
{
    const fp8_format_info *f = fp16_info(fmt);
    return f && is_inf_row(code, f);
}

bool fp16_is_zero(uint16_t code, fp16_format fmt)
{
    const fp8_format_info *f = fp16_info(fmt);
    return f && is_zero_row(code, f);
}

bool fp16_is_subnormal(uint16_t code, fp16_format fmt)
{
    const fp8_format_info *f = fp16_info(fmt);
    return f && is_subnormal_row(code, f);
}

/* Neighbours from the float's own order: the positive finite codes of a
 * 16-bit format increase with their values, so the candidates are the codes
 * next to the truncated one. */
void fp16_neighbours(float x, fp16_format fmt, float *below, float *above)
{
    const fp8_format_info *f = fp16_info(fmt);
    if (!f || isnan(x)) {
        *below = *above = NAN;
        return;
    }
    float lo = -INFINITY, hi = INFINITY;
    uint16_t t = fp16_encode_rounded(x, fmt, true, FP8_ROUND_TOWARD_ZERO);
    float v = fp16_decode(t, fmt);          /* |v| <= |x|, the nearest such */
    uint16_t sign = (uint16_t)(t & 0x8000u), mag = (uint16_t)(t & 0x7FFFu);
    float away = mag < f->max_code ? fp16_decode((uint16_t)(sign | (mag + 1)), fmt)
                                   : (sign ? -INFINITY : INFINITY);
    if (v == x) {
        lo = hi = x;
    } else if (x > 0) {
        lo = v;
        hi = away;
    } else {
        hi = v;
        lo = away;
    }
    if (isinf(x) && x > 0)
        lo = f->max_finite;
    if (isinf(x) && x < 0)
        hi = -f->max_finite;
    *below = lo;
    *above = hi;
}
