/*
 * lab1/suite.c - lab1's tests: the student's scaling functions against the
 * goldens in data/golden/lab1 and against cases worked by hand (README).
 * Points and sections are in grading/lab1/rubric.c.
 *
 * The stream tests replay one step at a time from the golden state: before
 * step t the state is set to the golden one (history, scale, scale_inv), the
 * student's function runs once, and what it leaves is compared with the
 * golden state after step t. A mistake shows at the first step where it
 * changes a bit, and never compounds into a drifted trajectory.
 *
 * The goldens (made by grading/lab1/goldens.c from the reference solution)
 * and how they are checked independently: tests/lab1/.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab1.h"
#include "suite.h"

/* ---- the stream ---------------------------------------------------------------- */

enum { ACT = 0, GRAD = 1 };
static const char *const tensor_name[2] = {"activation", "gradient"};

typedef struct stream {
    npy_array base, magnitude, amax;
    size_t n, steps;
    float *x; /* one step's tensor */
} stream;

static void stream_load(stream *s)
{
    size_t bshape[2] = {2, 0}, mshape[2] = {2, 0};
    gr_golden("stream_base.npy", NPY_F32, 2, bshape, &s->base);
    s->n = s->base.shape[1];
    gr_golden("stream_magnitude.npy", NPY_F32, 2, mshape, &s->magnitude);
    s->steps = s->magnitude.shape[1];
    mshape[1] = s->steps;
    gr_golden("stream_amax.npy", NPY_F32, 2, mshape, &s->amax);
    s->x = malloc(s->n * sizeof *s->x);
    ck_assert_msg(s->x != NULL, "out of memory");
}

static void stream_free(stream *s)
{
    npy_free(&s->base);
    npy_free(&s->magnitude);
    npy_free(&s->amax);
    free(s->x);
}

/* Step t's tensor of tensor w, into s->x: magnitude * base, as stream.h. */
static const float *stream_at(stream *s, int w, size_t t)
{
    const float *base = (const float *)s->base.data + (size_t)w * s->n;
    float mag = ((const float *)s->magnitude.data)[(size_t)w * s->steps + t];
    for (size_t i = 0; i < s->n; i++)
        s->x[i] = mag * base[i];
    return s->x;
}

static float stream_amax(const stream *s, int w, size_t t)
{
    return ((const float *)s->amax.data)[(size_t)w * s->steps + t];
}

/* ---- a golden delayed-scaling run ---------------------------------------------- */

typedef struct run {
    const char *tag;
    int tensor;
    lab1_amax_algo algo;
    int history_len, margin;
    npy_array history, scale, q, counts; /* q and counts only for with_q */
    int with_q;
} run;

static const char *const algo_name[2] = {"max", "most_recent"};

static void run_load(run *r, stream *s)
{
    char name[128];
    size_t hshape[2] = {s->steps + 1, (size_t)r->history_len}, sshape[2] = {s->steps + 1, 2};
    snprintf(name, sizeof name, "%s_history.npy", r->tag);
    gr_golden(name, NPY_F32, 2, hshape, &r->history);
    snprintf(name, sizeof name, "%s_scale.npy", r->tag);
    gr_golden(name, NPY_F32, 2, sshape, &r->scale);
    if (r->with_q) {
        size_t qshape[2] = {s->steps, s->n}, cshape[2] = {s->steps, 2};
        snprintf(name, sizeof name, "%s_q.npy", r->tag);
        gr_golden(name, NPY_U8, 2, qshape, &r->q);
        snprintf(name, sizeof name, "%s_counts.npy", r->tag);
        gr_golden(name, NPY_I32, 2, cshape, &r->counts);
    }
}

static void run_free(run *r)
{
    npy_free(&r->history);
    npy_free(&r->scale);
    if (r->with_q) {
        npy_free(&r->q);
        npy_free(&r->counts);
    }
}

static const float *run_history(const run *r, size_t t)
{
    return (const float *)r->history.data + t * (size_t)r->history_len;
}

static const float *run_scale(const run *r, size_t t)
{
    return (const float *)r->scale.data + 2 * t;
}

/* Step t's golden count: which 0 saturated, 1 flushed. */
static size_t golden_count(const run *r, size_t t, int which)
{
    return (size_t)((const int32_t *)r->counts.data)[2 * t + (size_t)which];
}

/* The golden state before step t, in a fresh struct. */
static void run_state(const run *r, size_t t, fp8_format fmt, lab1_delayed *s)
{
    memset(s, 0, sizeof *s);
    s->fmt = fmt;
    s->algo = r->algo;
    s->history_len = r->history_len;
    s->margin = r->margin;
    memcpy(s->history, run_history(r, t), (size_t)r->history_len * sizeof(float));
    s->scale = run_scale(r, t)[0];
    s->scale_inv = run_scale(r, t)[1];
}

static const char *run_desc(const run *r)
{
    static char buf[160];
    snprintf(buf, sizeof buf, "%s stream, algo %s, L=%d, margin %d", tensor_name[r->tensor],
             algo_name[r->algo], r->history_len, r->margin);
    return buf;
}

static run act_max16 = {"act_max16", ACT, LAB1_AMAX_MAX, 16, 0, {0}, {0}, {0}, {0}, 1};
static run act_recent4 = {"act_recent4", ACT, LAB1_AMAX_MOST_RECENT, 4, 0, {0}, {0}, {0}, {0}, 0};
static run act_max8_m2 = {"act_max8_m2", ACT, LAB1_AMAX_MAX, 8, 2, {0}, {0}, {0}, {0}, 0};
static run grad_max16 = {"grad_max16", GRAD, LAB1_AMAX_MAX, 16, 0, {0}, {0}, {0}, {0}, 1};

/* ---- comparing ------------------------------------------------------------------- */

static void expect_f32(gr_mismatches *m, float want, float got, const char *where,
                       const char *field)
{
    gr_expect(m, stats_equal_exact(want, got), "%s\n  %s: expected %s\n  %*s  got      %s",
              where, field, gr_f32(want), (int)strlen(field), "", gr_f32(got));
}

/* The first slot of history[0 .. len-1] that differs, if any, as one mismatch. */
static void expect_history(gr_mismatches *m, const float *want, const float *got, int len,
                           const char *where)
{
    for (int i = 0; i < len; i++) {
        if (!stats_equal_exact(want[i], got[i])) {
            char field[32];
            snprintf(field, sizeof field, "history[%d]", i);
            expect_f32(m, want[i], got[i], where, field);
            return;
        }
    }
    gr_expect(m, 1, "%s", "");
}

static void expect_scales(gr_mismatches *m, const float *want, const lab1_delayed *s,
                          const char *where)
{
    expect_f32(m, want[0], s->scale, where, "scale");
    expect_f32(m, want[1], s->scale_inv, where, "scale_inv");
}

/* The bytes of one cast: the first that differs, as one mismatch. */
static void expect_bytes(gr_mismatches *m, const uint8_t *want, const uint8_t *got,
                         const float *x, float scale, size_t n, fp8_format fmt,
                         const char *where)
{
    stats_mismatch d = stats_find_mismatch_u8(want, got, n);
    gr_expect(m, d.count == 0,
              "%s\n  q[%zu] for x = %s, x * scale = %s\n  expected %s\n  got      %s\n"
              "  (%zu of %zu bytes of this step differ)",
              where, d.first, d.count ? gr_f32(x[d.first]) : "", d.count ?
              gr_f32(x[d.first] * scale) : "", d.count ? gr_code(want[d.first], fmt) : "",
              d.count ? gr_code(got[d.first], fmt) : "", d.count, n);
}

/* README §4's classes of one element, from the definitions and the codec. */
static int want_saturated(float y, fp8_format fmt)
{
    if (isnan(y))
        return 0;
    uint8_t code = fp8_encode(y, fmt, false);
    return fp8_is_inf(code, fmt) || fp8_is_nan(code, fmt);
}

static const char *class_name(size_t saturated, size_t flushed)
{
    if (saturated && flushed)
        return "saturated and flushed";
    return saturated ? "saturated" : flushed ? "flushed" : "neither saturated nor flushed";
}

/* When the counts of a cast are wrong: the first element that
 * lab1_scaled_cast, given it alone, puts in the wrong class, into buf. */
static void find_misclassified(char *buf, size_t len, const float *x, size_t n, float scale,
                               fp8_format fmt)
{
    for (size_t i = 0; i < n; i++) {
        float y = x[i] * scale;
        size_t ws = (size_t)want_saturated(y, fmt);
        size_t wf = x[i] != 0.0f && !isnan(x[i]) && fp8_is_zero(fp8_encode(y, fmt, true), fmt);
        uint8_t q1 = 0xA5;
        lab1_cast_counts c = lab1_scaled_cast(&x[i], 1, scale, fmt, &q1);
        if (c.saturated != ws || c.flushed != wf) {
            snprintf(buf, len,
                     "\n  element x[%zu] = %s, x * scale = %s (cast alone):\n"
                     "    expected %s\n    got      %s (saturated %zu, flushed %zu)",
                     i, gr_f32(x[i]), gr_f32(y), class_name(ws, wf),
                     class_name(c.saturated, c.flushed), c.saturated, c.flushed);
            return;
        }
    }
    snprintf(buf, len, "\n  (each element cast alone is counted right: the counts of the whole "
                       "cast are not the sum of its elements' counts)");
}

/* The counts of a cast of x[0 .. n-1] at scale; when wrong, the message
 * names one element put in the wrong class. */
static void expect_counts(gr_mismatches *m, size_t saturated, size_t flushed,
                          lab1_cast_counts got, const float *x, size_t n, float scale,
                          fp8_format fmt, const char *where)
{
    int ok = got.saturated == saturated && got.flushed == flushed;
    char elem[384] = "";
    if (!ok && m->count < (size_t)gr_show())
        find_misclassified(elem, sizeof elem, x, n, scale, fmt);
    gr_expect(m, ok,
              "%s\n  counts: expected saturated %zu, flushed %zu\n"
              "          got      saturated %zu, flushed %zu%s",
              where, saturated, flushed, got.saturated, got.flushed, elem);
}

/* ---- §2 format ------------------------------------------------------------------- */

static void test_format_hybrid(void)
{
    static const struct {
        lab1_tensor kind;
        const char *name;
        fp8_format want;
    } kinds[] = {{LAB1_ACTIVATION, "LAB1_ACTIVATION", FP8_E4M3},
                 {LAB1_WEIGHT, "LAB1_WEIGHT", FP8_E4M3},
                 {LAB1_GRADIENT, "LAB1_GRADIENT", FP8_E5M2}};
    gr_mismatches m = {0};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        fp8_format got = lab1_format_for(kinds[i].kind);
        const fp8_format_info *info = fp8_info(got);
        gr_expect(&m, got == kinds[i].want, "lab1_format_for(%s)\n  expected %s\n  got      %s",
                  kinds[i].name, fp8_info(kinds[i].want)->title,
                  info ? info->title : "not a format");
    }
    gr_finish(&m, "formats");
}

/* ---- §3 amax ---------------------------------------------------------------------- */

static void expect_amax(gr_mismatches *m, const float *x, size_t n, float want, const char *what)
{
    float got = lab1_amax(x, n);
    gr_expect(m, stats_equal_exact(want, got), "lab1_amax(%s)\n  expected %s\n  got      %s",
              what, gr_f32(want), gr_f32(got));
}

static void test_amax(void)
{
    stream s;
    stream_load(&s);
    gr_mismatches m = {0};
    char what[96];
    for (int w = 0; w < 2; w++) {
        for (size_t t = 0; t < s.steps; t++) {
            snprintf(what, sizeof what, "%s stream, step %zu", tensor_name[w], t);
            expect_amax(&m, stream_at(&s, w, t), s.n, stream_amax(&s, w, t), what);
        }
    }
    const float mixed[] = {1.0f, -3.0f, 2.0f, -0.0f};
    expect_amax(&m, mixed, 4, 3.0f, "{1, -3, 2, -0}");
    expect_amax(&m, mixed, 0, 0.0f, "n = 0");
    const float zeros[] = {-0.0f, 0.0f};
    expect_amax(&m, zeros, 2, 0.0f, "{-0, 0}");
    stream_free(&s);
    gr_finish(&m, "amaxes");
}

static void test_amax_ignores_nan(void)
{
    gr_mismatches m = {0};
    const float a[] = {NAN, 1.0f, -3.0f};
    expect_amax(&m, a, 3, 3.0f, "{NaN, 1, -3}");
    const float b[] = {1.0f, -NAN, -3.0f, 2.0f};
    expect_amax(&m, b, 4, 3.0f, "{1, -NaN, -3, 2}");
    const float c[] = {-3.0f, NAN};
    expect_amax(&m, c, 2, 3.0f, "{-3, NaN}");
    const float d[] = {NAN, NAN};
    expect_amax(&m, d, 2, 0.0f, "{NaN, NaN}");
    const float e[] = {1.0f, -INFINITY, NAN};
    expect_amax(&m, e, 3, INFINITY, "{1, -inf, NaN}");

    /* The stream's tensors with NaNs dropped in: the amax must not move. */
    stream s;
    stream_load(&s);
    char what[96];
    for (int w = 0; w < 2; w++) {
        for (size_t t = 0; t < s.steps; t += 7) {
            float *x = (float *)stream_at(&s, w, t);
            x[1] = NAN;
            x[s.n / 2] = -NAN;
            x[s.n - 1] = NAN;
            snprintf(what, sizeof what, "%s stream, step %zu, NaN at 1, %zu and %zu",
                     tensor_name[w], t, s.n / 2, s.n - 1);
            expect_amax(&m, x, s.n, stream_amax(&s, w, t), what);
        }
    }
    stream_free(&s);
    gr_finish(&m, "amaxes");
}

/* ---- §4 the scaled cast ------------------------------------------------------------- */

/* The scaled cast of every step of a golden run, at the run's golden scale. */
static void replay_scaled_cast(run *r, int check_bytes, int check_counts, gr_mismatches *m)
{
    stream s;
    stream_load(&s);
    run_load(r, &s);
    fp8_format fmt = r->tensor == GRAD ? FP8_E5M2 : FP8_E4M3;
    uint8_t *q = malloc(s.n);
    ck_assert_msg(q != NULL, "out of memory");
    char where[256];
    for (size_t t = 0; t < s.steps; t++) {
        const float *x = stream_at(&s, r->tensor, t);
        float scale = run_scale(r, t)[0];
        memset(q, 0xA5, s.n);
        lab1_cast_counts c = lab1_scaled_cast(x, s.n, scale, fmt, q);
        snprintf(where, sizeof where, "%s stream, step %zu: lab1_scaled_cast(x, %zu, %s, %s, q)",
                 tensor_name[r->tensor], t, s.n, gr_f32(scale), fp8_info(fmt)->name);
        if (check_bytes)
            expect_bytes(m, (const uint8_t *)r->q.data + t * s.n, q, x, scale, s.n, fmt, where);
        if (check_counts)
            expect_counts(m, golden_count(r, t, 0), golden_count(r, t, 1), c, x, s.n, scale, fmt,
                          where);
    }
    free(q);
    run_free(r);
    stream_free(&s);
}

static void test_scaled_cast(void)
{
    gr_mismatches m = {0};
    replay_scaled_cast(&act_max16, 1, 0, &m);
    gr_finish(&m, "steps");
}

/* The reference solution, linked in as ref_* (suite.h, gr_seed). */
extern __typeof__(lab1_scaled_cast) ref_lab1_scaled_cast;

/* Hidden inputs (./grader --seed): HIDDEN_CASTS tensors drawn from the seed
 * (magnitudes over 24 binades, a few zeros, NaNs, infinities and float
 * subnormals) and a scale each, cast to both formats; bytes and counts
 * against the reference. The last tensor's scale is drawn from [2^-150,
 * 2^-138), subnormal scales among them, so that every finite nonzero element
 * flushes and the smaller products underflow in float itself (y == 0 for an
 * x that is not). */
#define HIDDEN_CASTS 8
#define HIDDEN_N 1024
static void check_cast_hidden(gr_mismatches *m)
{
    rng_state rng;
    if (!gr_hidden_rng(&rng, 1))
        return;
    static float x[HIDDEN_N];
    static uint8_t q[HIDDEN_N], want[HIDDEN_N];
    static const float special[7] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 0x1p-140f,
                                     -0x1p-149f};
    for (int t = 0; t < HIDDEN_CASTS; t++) {
        for (size_t i = 0; i < HIDDEN_N; i++) {
            x[i] = gr_hidden_float(&rng, -12, 24);
            if (rng_below(&rng, 64) == 0)
                x[i] = special[rng_below(&rng, 7)];
        }
        float scale = t == HIDDEN_CASTS - 1 ? fabsf(gr_hidden_float(&rng, -150, 12))
                                            : fabsf(gr_hidden_float(&rng, -6, 16));
        for (int k = 0; k < 2; k++) {
            fp8_format fmt = k ? FP8_E5M2 : FP8_E4M3;
            lab1_cast_counts wc = ref_lab1_scaled_cast(x, HIDDEN_N, scale, fmt, want);
            memset(q, 0xA5, sizeof q);
            lab1_cast_counts c = lab1_scaled_cast(x, HIDDEN_N, scale, fmt, q);
            char where[160];
            snprintf(where, sizeof where, "hidden tensor %d: lab1_scaled_cast(x, %d, scale %s, %s)",
                     t, HIDDEN_N, gr_f32(scale), fp8_info(fmt)->name);
            expect_bytes(m, want, q, x, scale, HIDDEN_N, fmt, where);
            expect_counts(m, wc.saturated, wc.flushed, c, x, HIDDEN_N, scale, fmt, where);
        }
    }
}

/* One cast worked by hand (README §4): the counts, and every byte against
 * the codec's saturating encode of x * scale. */
static void hand_cast(gr_mismatches *m, const char *what, const float *x, size_t n, float scale,
                      fp8_format fmt, size_t saturated, size_t flushed)
{
    uint8_t q[16], want[16];
    for (size_t i = 0; i < n; i++)
        want[i] = fp8_encode(x[i] * scale, fmt, true);
    memset(q, 0xA5, sizeof q);
    lab1_cast_counts c = lab1_scaled_cast(x, n, scale, fmt, q);
    char where[256];
    snprintf(where, sizeof where, "lab1_scaled_cast(%s, scale %s, %s)", what, gr_f32(scale),
             fp8_info(fmt)->name);
    expect_bytes(m, want, q, x, scale, n, fmt, where);
    expect_counts(m, saturated, flushed, c, x, n, scale, fmt, where);
}

static void test_cast_counts(void)
{
    gr_mismatches m = {0};
    /* E4M3, scale 2: 300 -> 600 and -300 -> -600 saturate, inf saturates,
     * 232 -> 464 rounds to 448 without saturating (a tie, to even), 1e-4 ->
     * 2e-4 is below 2^-10 and flushes; zeros and NaN count as neither. */
    const float e4[] = {300.0f, 232.0f, 1e-4f, 0.0f, -0.0f, NAN, -300.0f, INFINITY, 1.0f};
    hand_cast(&m, "{300, 232, 1e-4, 0, -0, NaN, -300, inf, 1}", e4, 9, 2.0f, FP8_E4M3, 3, 1);
    /* E5M2, scale 1: 61440 is the tie above 57344 and rounds up past max
     * (saturated); 60000 rounds to 57344; 1e-6 and 2^-17 (a tie, to the even
     * zero) flush; a hair above 2^-17 rounds up to 2^-16. */
    const float e5[] = {61440.0f, 60000.0f, 1e-6f, 0x1p-17f, 0x1.000002p-17f, -61440.0f};
    hand_cast(&m, "{61440, 60000, 1e-6, 2^-17, 2^-17 + ulp, -61440}", e5, 6, 1.0f, FP8_E5M2, 2,
              2);
    /* n = 0: nothing to cast, nothing counted. */
    hand_cast(&m, "{} (n = 0)", e4, 0, 2.0f, FP8_E4M3, 0, 0);
    /* Float subnormals: x = 2^-140 and -2^-149 are neither zero nor NaN, and
     * flush (x * 2^100 = 2^-40 and -2^-49); 3 * 2^-100 maps to 3, 2^-90 to
     * 1024 (saturated). */
    const float sub[] = {0x1p-140f, -0x1p-149f, 0x1.8p-99f, 0x1p-90f};
    hand_cast(&m, "{2^-140, -2^-149, 3 * 2^-100, 2^-90}", sub, 4, 0x1p100f, FP8_E4M3, 1, 2);
    /* Products that underflow in float, from normal x, scale 2^-40: 2^-115
     * -> 2^-155 and -2^-111 -> -2^-151 round to +-0, 2^-110 -> 2^-150 is the
     * tie between 0 and 2^-149 (to the even 0); all flush, as does 2^23 ->
     * 2^-17 (E5M2's tie, to the even zero). 2^25 -> 2^-15 is kept; 2^56 ->
     * 2^16 = 65536 saturates. */
    const float under[] = {0x1p-115f, -0x1p-111f, 0x1p-110f, 0x1p23f, 0x1p25f, 0x1p56f};
    hand_cast(&m, "{2^-115, -2^-111, 2^-110, 2^23, 2^25, 2^56}", under, 6, 0x1p-40f, FP8_E5M2, 1,
              4);
    /* Scale 0: inf * 0 and -inf * 0 are NaN (neither class); 1 and -2 go to
     * +-0 and flush. */
    const float s0[] = {1.0f, -2.0f, INFINITY, -INFINITY, NAN, 0.0f, -0.0f};
    hand_cast(&m, "{1, -2, inf, -inf, NaN, 0, -0}", s0, 7, 0.0f, FP8_E4M3, 0, 2);
    /* Scale inf: 0 * inf and -0 * inf are NaN (neither class); 1, -3 and
     * 2^-149 go to +-inf and saturate. */
    const float sinf[] = {1.0f, 0.0f, -0.0f, NAN, -3.0f, 0x1p-149f};
    hand_cast(&m, "{1, 0, -0, NaN, -3, 2^-149}", sinf, 6, INFINITY, FP8_E5M2, 3, 0);
    replay_scaled_cast(&act_max16, 0, 1, &m);
    replay_scaled_cast(&grad_max16, 0, 1, &m);
    check_cast_hidden(&m);
    gr_finish(&m, "casts");
}

/* ---- §5 delayed scaling ----------------------------------------------------------------- */

static void test_delayed_init(void)
{
    static const struct {
        lab1_tensor kind;
        const char *name;
        fp8_format fmt;
        lab1_amax_algo algo;
        int len, margin;
    } kinds[] = {
        {LAB1_ACTIVATION, "LAB1_ACTIVATION", FP8_E4M3, LAB1_AMAX_MAX, 1024, 0},
        {LAB1_WEIGHT, "LAB1_WEIGHT", FP8_E4M3, LAB1_AMAX_MOST_RECENT, 1, 3},
        {LAB1_GRADIENT, "LAB1_GRADIENT", FP8_E5M2, LAB1_AMAX_MAX, 16, 1},
        {LAB1_WEIGHT, "LAB1_WEIGHT", FP8_E4M3, LAB1_AMAX_MAX, 2, 32}, /* the largest margin */
    };
    gr_mismatches m = {0};
    static lab1_delayed s;
    char where[160];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        memset(&s, 0xAB, sizeof s); /* what an uninitialised struct might hold */
        lab1_delayed_init(&s, kinds[k].kind, kinds[k].algo, kinds[k].len, kinds[k].margin);
        snprintf(where, sizeof where, "lab1_delayed_init(&s, %s, %s, %d, %d)", kinds[k].name,
                 algo_name[kinds[k].algo], kinds[k].len, kinds[k].margin);
        gr_expect(&m, s.fmt == kinds[k].fmt && s.algo == kinds[k].algo &&
                          s.history_len == kinds[k].len && s.margin == kinds[k].margin,
                  "%s\n  fields: expected fmt %d, algo %d, history_len %d, margin %d\n"
                  "          got      fmt %d, algo %d, history_len %d, margin %d",
                  where, (int)kinds[k].fmt, (int)kinds[k].algo, kinds[k].len, kinds[k].margin,
                  (int)s.fmt, (int)s.algo, s.history_len, s.margin);
        expect_f32(&m, 1.0f, s.scale, where, "scale");
        expect_f32(&m, 1.0f, s.scale_inv, where, "scale_inv");
        static const float zeros[LAB1_MAX_HISTORY];
        expect_history(&m, zeros, s.history, LAB1_MAX_HISTORY, where);
    }
    gr_finish(&m, "checks");
}

/* Every step of a golden run through lab1_delayed_cast, from the golden state. */
static void test_delayed_cast(void)
{
    run *r = &act_max16;
    stream s;
    stream_load(&s);
    run_load(r, &s);
    gr_mismatches m = {0};
    static lab1_delayed st;
    uint8_t *q = malloc(s.n);
    ck_assert_msg(q != NULL, "out of memory");
    char where[256];
    float want[LAB1_MAX_HISTORY];

    for (size_t t = 0; t < s.steps; t++) {
        const float *x = stream_at(&s, r->tensor, t);
        run_state(r, t, FP8_E4M3, &st);
        memcpy(want, st.history, (size_t)r->history_len * sizeof(float));
        if (stream_amax(&s, r->tensor, t) > want[0])
            want[0] = stream_amax(&s, r->tensor, t);
        memset(q, 0xA5, s.n);
        lab1_cast_counts c = lab1_delayed_cast(&st, x, s.n, q);
        snprintf(where, sizeof where, "%s, step %zu: lab1_delayed_cast at scale %s",
                 run_desc(r), t, gr_f32(run_scale(r, t)[0]));
        expect_history(&m, want, st.history, r->history_len, where);
        expect_scales(&m, run_scale(r, t), &st, where);
        expect_bytes(&m, (const uint8_t *)r->q.data + t * s.n, q, x, run_scale(r, t)[0], s.n,
                     FP8_E4M3, where);
        expect_counts(&m, golden_count(r, t, 0), golden_count(r, t, 1), c, x, s.n,
                      run_scale(r, t)[0], FP8_E4M3, where);
    }

    /* By hand: the amax goes in by a maximum, and is that of x, not x * scale. */
    memset(&st, 0, sizeof st);
    st.fmt = FP8_E4M3;
    st.algo = LAB1_AMAX_MAX;
    st.history_len = 4;
    st.scale = 4.0f;
    st.scale_inv = 0.25f;
    st.history[0] = 5.0f;
    const float small[] = {2.0f, -3.0f}, big[] = {-7.0f, 1.0f};
    lab1_delayed_cast(&st, small, 2, q);
    expect_f32(&m, 5.0f, st.history[0],
               "history[0] = 5, scale 4, then lab1_delayed_cast of {2, -3}", "history[0]");
    lab1_delayed_cast(&st, big, 2, q);
    expect_f32(&m, 7.0f, st.history[0], "... then lab1_delayed_cast of {-7, 1}", "history[0]");
    /* An infinite element: lab1_amax gives inf, and inf > 7 goes in. */
    const float with_inf[] = {1.0f, -INFINITY};
    lab1_delayed_cast(&st, with_inf, 2, q);
    expect_f32(&m, INFINITY, st.history[0], "... then lab1_delayed_cast of {1, -inf}",
               "history[0]");
    /* A NaN already in slot 0 (lab1.h lets the history hold one): 3 > NaN is
     * false, so the NaN stays (fmaxf would drop it). */
    st.history[0] = NAN;
    lab1_delayed_cast(&st, small, 2, q);
    expect_f32(&m, NAN, st.history[0], "history[0] = NaN, then lab1_delayed_cast of {2, -3}",
               "history[0]");
    free(q);
    run_free(r);
    stream_free(&s);
    gr_finish(&m, "checks");
}

enum { CHECK_HISTORY = 1, CHECK_SCALE = 2 };

/* Every update of a golden run, from the golden state after step t's cast
 * (the state before it, with the step's amax recorded in slot 0). */
static void replay_update(run *r, int checks, gr_mismatches *m)
{
    stream s;
    stream_load(&s);
    run_load(r, &s);
    fp8_format fmt = r->tensor == GRAD ? FP8_E5M2 : FP8_E4M3;
    static lab1_delayed st;
    char where[256];
    for (size_t t = 0; t < s.steps; t++) {
        run_state(r, t, fmt, &st);
        float a = stream_amax(&s, r->tensor, t);
        if (a > st.history[0])
            st.history[0] = a;
        snprintf(where, sizeof where,
                 "%s, step %zu (amax %s, scale %s): lab1_delayed_update", run_desc(r), t,
                 gr_f32(a), gr_f32(st.scale));
        lab1_delayed_update(&st);
        if (checks & CHECK_HISTORY)
            expect_history(m, run_history(r, t + 1), st.history, r->history_len, where);
        if (checks & CHECK_SCALE)
            expect_scales(m, run_scale(r, t + 1), &st, where);
    }
    run_free(r);
    stream_free(&s);
}

/* One update worked by hand: L entries in, L entries and a scale out. Four
 * entries past L hold 42 and must be left alone. */
static void hand_update(gr_mismatches *m, const char *what, lab1_tensor kind,
                        lab1_amax_algo algo, int len, int margin, const float *in, float scale,
                        const float *want, float want_scale)
{
    static lab1_delayed s;
    float want_all[LAB1_MAX_HISTORY];
    memset(&s, 0, sizeof s); /* set here: init and the format are graded elsewhere */
    s.fmt = kind == LAB1_GRADIENT ? FP8_E5M2 : FP8_E4M3;
    s.algo = algo;
    s.history_len = len;
    s.margin = margin;
    memcpy(s.history, in, (size_t)len * sizeof(float));
    memcpy(want_all, want, (size_t)len * sizeof(float));
    for (int i = len; i < len + 4 && i < LAB1_MAX_HISTORY; i++)
        s.history[i] = want_all[i] = 42.0f;
    s.scale = scale;
    s.scale_inv = 1.0f / scale;
    lab1_delayed_update(&s);
    char where[256];
    snprintf(where, sizeof where, "lab1_delayed_update: %s, algo %s, L=%d, margin %d, scale %s",
             what, algo_name[algo], len, margin, gr_f32(scale));
    int shown = len + 4 < LAB1_MAX_HISTORY ? len + 4 : LAB1_MAX_HISTORY;
    expect_history(m, want_all, s.history, shown, where);
    float want_scales[2] = {want_scale, 1.0f / want_scale};
    expect_scales(m, want_scales, &s, where);
}

static void test_update_roll(void)
{
    gr_mismatches m = {0};
    const float h4[] = {5, 1, 2, 3}, r4[] = {0, 2, 3, 5};
    hand_update(&m, "history {5, 1, 2, 3}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 4, 0, h4, 1.0f, r4,
                448.0f / 5.0f);
    /* 9 sits in slot 1, the entry the roll drops: read after the roll, the
     * amax would be 3 (max) or 0 (most recent). */
    const float h9[] = {3, 9, 1, 2}, r9[] = {0, 1, 2, 3};
    hand_update(&m, "history {3, 9, 1, 2}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 4, 0, h9, 1.0f, r9,
                448.0f / 9.0f);
    hand_update(&m, "history {3, 9, 1, 2}", LAB1_ACTIVATION, LAB1_AMAX_MOST_RECENT, 4, 0, h9,
                1.0f, r9, 448.0f / 3.0f);
    const float h1[] = {7}, r1[] = {0};
    hand_update(&m, "history {7}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 0, h1, 1.0f, r1,
                448.0f / 7.0f);
    const float h2[] = {4, 6}, r2[] = {0, 4};
    hand_update(&m, "history {4, 6}", LAB1_ACTIVATION, LAB1_AMAX_MOST_RECENT, 2, 0, h2, 1.0f, r2,
                448.0f / 4.0f);
    /* L = 1024, the longest history lab1.h allows: {1, 2, ..., 1024}. */
    static float hl[LAB1_MAX_HISTORY], rl[LAB1_MAX_HISTORY];
    for (int i = 0; i < LAB1_MAX_HISTORY; i++) {
        hl[i] = (float)(i + 1);
        rl[i] = i == 0 ? 0.0f : i == LAB1_MAX_HISTORY - 1 ? 1.0f : (float)(i + 2);
    }
    hand_update(&m, "history {1, 2, ..., 1024}", LAB1_ACTIVATION, LAB1_AMAX_MAX,
                LAB1_MAX_HISTORY, 0, hl, 1.0f, rl, 448.0f / 1024.0f);
    replay_update(&act_max16, CHECK_HISTORY, &m);
    gr_finish(&m, "checks");
}

static void test_update_max(void)
{
    gr_mismatches m = {0};
    replay_update(&act_max16, CHECK_SCALE, &m);
    gr_finish(&m, "checks");
}

static void test_update_most_recent(void)
{
    gr_mismatches m = {0};
    replay_update(&act_recent4, CHECK_HISTORY | CHECK_SCALE, &m);
    gr_finish(&m, "checks");
}

/* ---- §6 the scale from amax ------------------------------------------------------------------ */

extern __typeof__(lab1_delayed_update) ref_lab1_delayed_update;

/* lab1_scale_from_amax through lab1_delayed_update (L = 1, algo max), against
 * the reference: both formats, margins from 0 to 32, amaxes from the smallest
 * float to the largest (scales that overflow to FLT_MAX, subnormal scales);
 * and called directly on the same amaxes (lab1.h fixes it bit for bit too,
 * so an update that computes the scale itself does not leave it untested). */
static void sweep_scale_from_amax(gr_mismatches *m)
{
    static const float amaxes[] = {0x1p-149f, 1e-38f, 1e-36f, 0x1p-100f, 1e-10f, 3e-3f,
                                   0.3f,      1.0f,   3.0f,   7.0f,      1000.0f, 172032.0f,
                                   1e20f,     1e36f,  1e38f,  FLT_MAX};
    static const int margins[] = {0, 1, 2, 5, 16, 31, 32};
    static lab1_delayed s, want;
    char where[192];
    for (int f = 0; f < 2; f++) {
        for (size_t j = 0; j < sizeof margins / sizeof margins[0]; j++) {
            for (size_t i = 0; i < sizeof amaxes / sizeof amaxes[0]; i++) {
                memset(&s, 0, sizeof s);
                s.fmt = f ? FP8_E5M2 : FP8_E4M3;
                s.algo = LAB1_AMAX_MAX;
                s.history_len = 1;
                s.margin = margins[j];
                s.history[0] = amaxes[i];
                s.scale = 3.0f;
                s.scale_inv = 1.0f / 3.0f;
                want = s;
                ref_lab1_delayed_update(&want);
                lab1_delayed_update(&s);
                snprintf(where, sizeof where,
                         "lab1_delayed_update: history {%s}, %s, algo max, L=1, margin %d",
                         gr_f32(amaxes[i]), fp8_info(s.fmt)->name, margins[j]);
                const float w[2] = {want.scale, want.scale_inv};
                expect_scales(m, w, &s, where);
                float got = lab1_scale_from_amax(amaxes[i], 3.0f, s.fmt, margins[j]);
                snprintf(where, sizeof where, "lab1_scale_from_amax(%s, prev_scale 3, %s, "
                         "margin %d)", gr_f32(amaxes[i]), fp8_info(s.fmt)->name, margins[j]);
                expect_f32(m, want.scale, got, where, "the scale");
            }
        }
    }
}

static void test_update_margin(void)
{
    gr_mismatches m = {0};
    const float h[] = {3.5f}, r[] = {0};
    hand_update(&m, "history {3.5}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 1, h, 1.0f, r, 64.0f);
    hand_update(&m, "history {3.5}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 3, h, 1.0f, r, 16.0f);
    const float h3[] = {3.0f};
    hand_update(&m, "history {3}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 2, h3, 1.0f, r,
                (448.0f / 3.0f) / 4.0f);
    /* margin 32, the largest lab1.h allows: 128 / 2^32 = 2^-25, exactly. */
    hand_update(&m, "history {3.5}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 32, h, 1.0f, r, 0x1p-25f);
    /* The order at the top of the float range: 448 / 1e38 = 4.48000025e-36
     * [0x04be8ee2], / 4 = 1.12000006e-36 [0x03be8ee2]; amax * 2^margin first
     * would overflow (4e38 = inf) and give 448 / inf = 0. */
    const float huge[] = {1e38f};
    hand_update(&m, "history {1e38}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 2, huge, 1.0f, r,
                0x1.7d1dc4p-120f);
    /* ... and where the scale is subnormal: 448 / 1e36 rounds to
     * 0x1.29bf4p-111, and / 2^21 lands exactly halfway between the subnormals
     * 0x2537e and 0x2537f times 2^-149: the even one, 2.13622346e-40
     * [0x0002537e]. Any other order rounds the exact quotient once, just above
     * that halfway point: 0x0002537f. (scale_inv = 1 / scale is inf.) */
    const float big[] = {1e36f};
    hand_update(&m, "history {1e36}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 21, big, 1.0f, r,
                0x1.29bfp-132f);
    sweep_scale_from_amax(&m);
    replay_update(&act_max8_m2, CHECK_HISTORY | CHECK_SCALE, &m);
    gr_finish(&m, "checks");
}

static void test_update_amax_zero(void)
{
    gr_mismatches m = {0};
    const float z3[] = {0, 0, 0}, r3[] = {0, 0, 0};
    hand_update(&m, "history {0, 0, 0}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 3, 0, z3, 5.0f, r3,
                5.0f);
    /* most_recent reads slot 0 only: 0, so the scale stays though older
     * entries are not zero; the history still rolls. */
    const float h[] = {0, 7, 8}, r[] = {0, 8, 0};
    hand_update(&m, "history {0, 7, 8}", LAB1_ACTIVATION, LAB1_AMAX_MOST_RECENT, 3, 0, h, 5.0f,
                r, 5.0f);
    const float z1[] = {0};
    hand_update(&m, "history {0}", LAB1_GRADIENT, LAB1_AMAX_MAX, 1, 1, z1, 0x1p20f, z1, 0x1p20f);
    gr_finish(&m, "checks");
}

static void test_update_amax_inf_nan(void)
{
    gr_mismatches m = {0};
    const float hi[] = {INFINITY, 2.0f}, ri[] = {0, INFINITY};
    hand_update(&m, "history {inf, 2}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 2, 0, hi, 3.0f, ri, 3.0f);
    hand_update(&m, "history {inf, 2}", LAB1_ACTIVATION, LAB1_AMAX_MOST_RECENT, 2, 0, hi, 3.0f, ri,
                3.0f);
    const float hn[] = {NAN, 2.0f}, rn[] = {0, NAN};
    hand_update(&m, "history {NaN, 2}", LAB1_GRADIENT, LAB1_AMAX_MOST_RECENT, 2, 0, hn, 3.0f, rn,
                3.0f);
    /* A NaN anywhere in the history makes algo max's amax NaN (torch.max),
     * in slot 0 too. */
    const float hm[] = {2.0f, NAN, 1.0f}, rm[] = {0, 1.0f, 2.0f};
    hand_update(&m, "history {2, NaN, 1}", LAB1_GRADIENT, LAB1_AMAX_MAX, 3, 0, hm, 3.0f, rm, 3.0f);
    hand_update(&m, "history {NaN, 2}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 2, 0, hn, 3.0f, rn, 3.0f);
    gr_finish(&m, "checks");
}

static void test_update_scale_overflow(void)
{
    gr_mismatches m = {0};
    const float r[] = {0};
    const float tiny[] = {1e-38f}; /* 448 / 1e-38 is past FLT_MAX */
    hand_update(&m, "history {1e-38}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 0, tiny, 1.0f, r,
                FLT_MAX);
    const float sub[] = {0x1p-149f}; /* the smallest float */
    hand_update(&m, "history {2^-149}", LAB1_GRADIENT, LAB1_AMAX_MAX, 1, 0, sub, 1.0f, r,
                FLT_MAX);
    /* With a margin the order matters: 448 / 1e-36 overflows before the
     * division by 2 (Transformer Engine's fused kernel, (448 / 2) / 1e-36,
     * would give 2.24e38). */
    const float small[] = {1e-36f};
    hand_update(&m, "history {1e-36}", LAB1_ACTIVATION, LAB1_AMAX_MAX, 1, 1, small, 1.0f, r,
                FLT_MAX);
    gr_finish(&m, "checks");
}

/* The gradient stream, E5M2 from lab1_delayed_init: every cast and update. */
static void test_stream_gradient(void)
{
    run *r = &grad_max16;
    stream s;
    stream_load(&s);
    run_load(r, &s);
    gr_mismatches m = {0};
    static lab1_delayed st;
    lab1_delayed_init(&st, LAB1_GRADIENT, r->algo, r->history_len, r->margin);
    fp8_format fmt = st.fmt;
    uint8_t *q = malloc(s.n);
    ck_assert_msg(q != NULL, "out of memory");
    char where[256];
    for (size_t t = 0; t < s.steps; t++) {
        const float *x = stream_at(&s, r->tensor, t);
        run_state(r, t, fmt, &st);
        memset(q, 0xA5, s.n);
        lab1_cast_counts c = lab1_delayed_cast(&st, x, s.n, q);
        snprintf(where, sizeof where, "%s, step %zu: lab1_delayed_cast at scale %s",
                 run_desc(r), t, gr_f32(run_scale(r, t)[0]));
        expect_bytes(&m, (const uint8_t *)r->q.data + t * s.n, q, x, run_scale(r, t)[0], s.n,
                     FP8_E5M2, where);
        expect_counts(&m, golden_count(r, t, 0), golden_count(r, t, 1), c, x, s.n,
                      run_scale(r, t)[0], fmt, where);
        snprintf(where, sizeof where, "%s, step %zu (amax %s): lab1_delayed_update",
                 run_desc(r), t, gr_f32(stream_amax(&s, r->tensor, t)));
        lab1_delayed_update(&st);
        expect_history(&m, run_history(r, t + 1), st.history, r->history_len, where);
        expect_scales(&m, run_scale(r, t + 1), &st, where);
    }
    free(q);
    run_free(r);
    stream_free(&s);
    gr_finish(&m, "checks");
}

/* ---- §7 current scaling ----------------------------------------------------------------------- */

static void expect_current(gr_mismatches *m, float amax, fp8_format fmt, float eps, int pow2,
                           float want)
{
    float got = lab1_current_scale(amax, fmt, eps, pow2);
    gr_expect(m, stats_equal_exact(want, got),
              "lab1_current_scale(%s, %s, epsilon %s, pow2 %d)\n  expected %s\n  got      %s",
              gr_f32(amax), fp8_info(fmt)->name, gr_f32(eps), pow2, gr_f32(want), gr_f32(got));
}

static void replay_current(int pow2, gr_mismatches *m)
{
    stream s;
    stream_load(&s);
    npy_array want;
    size_t shape[3] = {2, s.steps, 2};
    gr_golden("current_scale.npy", NPY_F32, 3, shape, &want);
    for (int w = 0; w < 2; w++)
        for (size_t t = 0; t < s.steps; t++)
            expect_current(m, stream_amax(&s, w, t), w == GRAD ? FP8_E5M2 : FP8_E4M3, 0.0f, pow2,
                           ((const float *)want.data)[((size_t)w * s.steps + t) * 2 + pow2]);
    npy_free(&want);
    stream_free(&s);
}

static void test_current_scale(void)
{
    gr_mismatches m = {0};
    expect_current(&m, 3.5f, FP8_E4M3, 0.0f, 0, 128.0f);
    expect_current(&m, 3.0f, FP8_E4M3, 0.0f, 0, 448.0f / 3.0f);
    expect_current(&m, 0x1p-12f, FP8_E5M2, 0.0f, 0, 57344.0f * 4096.0f);
    replay_current(0, &m);
    gr_finish(&m, "scales");
}

static void test_current_edge_cases(void)
{
    gr_mismatches m = {0};
    expect_current(&m, 1e-3f, FP8_E4M3, 0.01f, 0, 448.0f / 0.01f); /* amax raised to epsilon */
    expect_current(&m, 0.0f, FP8_E4M3, 1e-3f, 0, 448.0f / 1e-3f);  /* ... even from 0 */
    expect_current(&m, 0.0f, FP8_E4M3, 0.0f, 0, 1.0f);
    expect_current(&m, INFINITY, FP8_E5M2, 0.0f, 0, 1.0f);
    expect_current(&m, NAN, FP8_E4M3, 0.0f, 0, 1.0f);
    expect_current(&m, NAN, FP8_E4M3, 1e-3f, 0, 1.0f); /* NaN < epsilon is false */
    expect_current(&m, 1e-38f, FP8_E4M3, 0.0f, 0, FLT_MAX);
    expect_current(&m, 2.0f, FP8_E4M3, 1.0f, 0, 224.0f); /* above epsilon: untouched */
    gr_finish(&m, "scales");
}

static void test_current_pow2(void)
{
    gr_mismatches m = {0};
    expect_current(&m, 3.0f, FP8_E4M3, 0.0f, 1, 128.0f);   /* 149.33 down to 2^7 */
    expect_current(&m, 448.0f, FP8_E4M3, 0.0f, 1, 1.0f);  /* already a power of 2 */
    expect_current(&m, 500.0f, FP8_E4M3, 0.0f, 1, 0.5f);  /* 0.896 down to 2^-1 */
    expect_current(&m, 1e-38f, FP8_E4M3, 0.0f, 1, 0x1p127f); /* FLT_MAX down to 2^127 */
    expect_current(&m, 0.0f, FP8_E5M2, 0.0f, 1, 1.0f);
    /* Just below a power of two: 448 / 3.50000024 = 127.999992 [0x42ffffff]
     * goes down to 64, not to 128 (log2f rounds it up to 7). */
    expect_current(&m, 0x1.c00002p+1f, FP8_E4M3, 0.0f, 1, 64.0f);
    /* Any pow2 other than 0 rounds: 2 and -1 as 1. */
    expect_current(&m, 3.0f, FP8_E4M3, 0.0f, 2, 128.0f);
    expect_current(&m, 3.0f, FP8_E5M2, 0.0f, -1, 16384.0f); /* 19114.666 down to 2^14 */
    replay_current(1, &m);
    gr_finish(&m, "scales");
}

/* ---- §8 the moving average ------------------------------------------------------------------- */

static void expect_ema(gr_mismatches *m, const lab1_ema *s, const float *want, const char *where)
{
    expect_f32(m, want[0], s->scale, where, "scale");
    expect_f32(m, want[1], s->scale_inv, where, "scale_inv");
}

/* lab1_ema_init into a struct filled with garbage: every field. */
static void init_ema(gr_mismatches *m, lab1_tensor kind, const char *kind_name, float momentum,
                     int margin, fp8_format fmt)
{
    lab1_ema s;
    char where[128];
    memset(&s, 0xAB, sizeof s);
    lab1_ema_init(&s, kind, momentum, margin);
    snprintf(where, sizeof where, "lab1_ema_init(&s, %s, %.9g, %d)", kind_name, (double)momentum,
             margin);
    const float one[2] = {1.0f, 1.0f};
    expect_ema(m, &s, one, where);
    gr_expect(m, s.fmt == fmt && stats_equal_exact(momentum, s.momentum) && s.margin == margin,
              "%s\n  fields: expected fmt %d, momentum %.9g, margin %d\n"
              "          got      fmt %d, momentum %.9g, margin %d",
              where, (int)fmt, (double)momentum, margin, (int)s.fmt, (double)s.momentum, s.margin);
}

/* One update worked by hand, from the state given: scale want, and
 * scale_inv 1 / want. */
static void hand_ema(gr_mismatches *m, fp8_format fmt, float momentum, int margin, float scale,
                     float amax, float want)
{
    lab1_ema s = {fmt, momentum, margin, scale, 1.0f / scale};
    char where[192];
    snprintf(where, sizeof where, "%s, momentum %.9g, margin %d, scale %s: lab1_ema_update(&s, %s)",
             fp8_info(fmt)->name, (double)momentum, margin, gr_f32(scale), gr_f32(amax));
    lab1_ema_update(&s, amax);
    const float w[2] = {want, 1.0f / want};
    expect_ema(m, &s, w, where);
}

extern __typeof__(lab1_ema_update) ref_lab1_ema_update;

/* Every momentum from 0 to the largest float below 1 (those whose 1 - m is
 * inexact in float among them), margins 0, 1 and 32, both formats, amaxes
 * that keep the scale, ask for FLT_MAX or for an ordinary target: against
 * the reference. */
static void sweep_ema(gr_mismatches *m)
{
    static const float momenta[] = {0.0f, 0x1p-24f, 0.1f, 0.2f, 0.3f, 0.4f,
                                    0.5f, 0.75f,    0.9f, 0.99f, 0x1.fffffep-1f};
    static const int margins[] = {0, 1, 32};
    static const struct {
        float scale, amax;
    } cases[] = {{1.0f, 1.0f},  {38.0f, 3.5f},      {448.0f, 3.0f},   {100.0f, 14.0f},
                 {1.0f, 1e-38f}, {FLT_MAX, 0x1p-149f}, {0.3f, 1e30f},  {5.0f, 0.0f},
                 {5.0f, INFINITY}, {5.0f, NAN}};
    char where[192];
    for (int f = 0; f < 2; f++) {
        for (size_t i = 0; i < sizeof momenta / sizeof momenta[0]; i++) {
            for (size_t j = 0; j < sizeof margins / sizeof margins[0]; j++) {
                for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
                    float sc = cases[k].scale;
                    lab1_ema s = {f ? FP8_E5M2 : FP8_E4M3, momenta[i], margins[j], sc,
                                  1.0f / sc};
                    lab1_ema want = s;
                    ref_lab1_ema_update(&want, cases[k].amax);
                    lab1_ema_update(&s, cases[k].amax);
                    snprintf(where, sizeof where,
                             "%s, momentum %.9g, margin %d, scale %s: lab1_ema_update(&s, %s)",
                             fp8_info(s.fmt)->name, (double)momenta[i], margins[j], gr_f32(sc),
                             gr_f32(cases[k].amax));
                    const float w[2] = {want.scale, want.scale_inv};
                    expect_ema(m, &s, w, where);
                }
            }
        }
    }
}

static void test_ema(void)
{
    gr_mismatches m = {0};
    init_ema(&m, LAB1_GRADIENT, "LAB1_GRADIENT", 0.75f, 1, FP8_E5M2);
    init_ema(&m, LAB1_WEIGHT, "LAB1_WEIGHT", 0.0f, 32, FP8_E4M3);
    init_ema(&m, LAB1_ACTIVATION, "LAB1_ACTIVATION", 0x1.fffffep-1f, 0, FP8_E4M3);

    /* By hand: momentum 0.75, E4M3, margin 0, scale 8, amax 3.5: the target
     * is 128; 0.75 * 8 + 0.25 * 128 = 6 + 32 = 38. */
    lab1_ema s = {FP8_E4M3, 0.75f, 0, 8.0f, 0.125f};
    lab1_ema_update(&s, 3.5f);
    const float h1[2] = {38.0f, 1.0f / 38.0f};
    expect_ema(&m, &s, h1, "scale 8, momentum 0.75: lab1_ema_update(&s, 3.5)");
    lab1_ema_update(&s, 0.0f);
    expect_ema(&m, &s, h1, "... then lab1_ema_update(&s, 0)");
    lab1_ema_update(&s, NAN);
    expect_ema(&m, &s, h1, "... then lab1_ema_update(&s, NaN)");
    /* amax inf keeps the scale, where m * s + (1 - m) * s would not:
     * 0.1f * 448 + 0.9f * 448 = 44.7999992 + 403.199982 = 447.999969. */
    hand_ema(&m, FP8_E4M3, 0.1f, 0, 448.0f, INFINITY, 448.0f);
    /* 1 - m inexact in float: 1.0f - 0.1f = 0.899999976 [0x3f666666], so
     * keep = 0.100000001, move = 0.899999976 * 448 = 403.199982 [0x43c99999],
     * scale = 403.299988 [0x43c9a666] (with 1.0 - m in double, move would be
     * 403.200012 and the scale 403.300018). */
    hand_ema(&m, FP8_E4M3, 0.1f, 0, 1.0f, 1.0f, 0x1.934cccp+8f);
    /* Two roundings, then the sum: keep = 0.2f * 100 = 20, move = 0.8f * 32
     * = 25.6000004 [0x41cccccd], scale = 45.5999985 [0x42366666] (fused, the
     * sum would round once: 45.6000023). */
    hand_ema(&m, FP8_E4M3, 0.2f, 0, 100.0f, 14.0f, 0x1.6cccccp+5f);
    /* The largest momentum below 1, 1 - 2^-24: keep = 0.99999994, move =
     * 2^-24 * 448 = 2.67028809e-05, scale = 1.0000267 [0x3f8000e0]. */
    hand_ema(&m, FP8_E4M3, 0x1.fffffep-1f, 0, 1.0f, 1.0f, 0x1.0001cp+0f);
    /* The margin is in the target: E5M2, margin 3, amax 7: (57344 / 7) / 8 =
     * 1024, and 0.5 * 1024 + 0.5 * 1024 = 1024. */
    hand_ema(&m, FP8_E5M2, 0.5f, 3, 1024.0f, 7.0f, 1024.0f);
    /* Momentum 0 and margin 32: the scale is the target, 128 / 2^32 = 2^-25. */
    hand_ema(&m, FP8_E4M3, 0.0f, 32, 5.0f, 3.5f, 0x1p-25f);
    /* An infinite sum becomes FLT_MAX. From scales that init and update
     * leave (at most FLT_MAX) the sum never overflows: with scale = target =
     * FLT_MAX it stays finite for every float momentum in [0, 1), and it only
     * grows with either. A state whose scale is already inf gets there:
     * keep = 0.5 * inf = inf, move = 0.5 * 128 = 64, inf + 64 = inf. */
    hand_ema(&m, FP8_E4M3, 0.5f, 0, INFINITY, 3.5f, FLT_MAX);
    sweep_ema(&m);

    /* Both streams, one update at a time from the golden scale. */
    stream st;
    stream_load(&st);
    char name[64], where[160];
    for (int w = 0; w < 2; w++) {
        npy_array want;
        size_t shape[2] = {st.steps + 1, 2};
        snprintf(name, sizeof name, "ema_%s_scale.npy", w == GRAD ? "grad" : "act");
        gr_golden(name, NPY_F32, 2, shape, &want);
        const float *ws = want.data;
        for (size_t t = 0; t < st.steps; t++) {
            s = (lab1_ema){w == GRAD ? FP8_E5M2 : FP8_E4M3, 0.9f, 0, ws[2 * t], ws[2 * t + 1]};
            float a = stream_amax(&st, w, t);
            snprintf(where, sizeof where, "%s stream, step %zu, momentum 0.9, scale %s: "
                     "lab1_ema_update(&s, %s)", tensor_name[w], t, gr_f32(ws[2 * t]), gr_f32(a));
            lab1_ema_update(&s, a);
            expect_ema(&m, &s, ws + 2 * (t + 1), where);
        }
        npy_free(&want);
    }
    stream_free(&st);
    gr_finish(&m, "checks");
}

extern const grader_lab lab1_rubric;

static const grader_case cases[] = {
    {"format_hybrid", test_format_hybrid},
    {"amax", test_amax},
    {"amax_ignores_nan", test_amax_ignores_nan},
    {"scaled_cast", test_scaled_cast},
    {"cast_counts", test_cast_counts},
    {"delayed_init", test_delayed_init},
    {"delayed_cast", test_delayed_cast},
    {"update_roll", test_update_roll},
    {"update_max", test_update_max},
    {"update_most_recent", test_update_most_recent},
    {"update_margin", test_update_margin},
    {"update_amax_zero", test_update_amax_zero},
    {"update_amax_inf_nan", test_update_amax_inf_nan},
    {"update_scale_overflow", test_update_scale_overflow},
    {"stream_gradient", test_stream_gradient},
    {"current_scale", test_current_scale},
    {"current_edge_cases", test_current_edge_cases},
    {"current_pow2", test_current_pow2},
    {"ema", test_ema},
};

const grader_suite grader_this_suite = {&lab1_rubric, cases, GRADER_COUNT(cases)};
