/*
 * test_goldens.c - lab1's goldens, checked by something other than the
 * solution that made them:
 *   - the stream's amax sequence against its closed form (stream.h's
 *     formulas written out again here, and amax == magnitude because
 *     base[0] = +-1 and every |base[i]| <= 1);
 *   - every delayed-scaling scale against a sliding window over that amax
 *     sequence (no rolling buffer: the last L amaxes, directly), and every
 *     history against the same window as a multiset;
 *   - every cast count against the rounding thresholds of the OCP OFP8
 *     spec (E4M3 overflows above 464, the tie between 448 and 480 goes to
 *     448; E5M2 from 61440 up; a magnitude at most half the smallest
 *     subnormal rounds to zero) and every cast byte against common/'s codec
 *     (itself checked against NVIDIA's for every float; the bytes are also
 *     checked against cuda_fp8.h directly in tests/oracle/goldens_lab1.cpp);
 *   - current scaling against 448 / amax and, for power-of-2 scales, the
 *     power of two frexp finds below it;
 *   - a few steps worked by hand (README §5, §9).
 *
 *   build/tests/lab1/test_goldens [DATA_DIR]    (default data/golden/lab1)
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fp8.h"
#include "npy.h"
#include "stats.h"

static const char *dir = "data/golden/lab1";

enum { T = 300, N = 256, WINDOW_MAX = 16 };

static void load(const char *name, npy_dtype dtype, int ndim, const size_t *shape,
                 npy_array *out)
{
    char path[512];
    lab_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(npy_load_expect(path, dtype, ndim, shape, out, &err) == 0, "%s", err.msg);
}

static float amax_seq[2][T], base[2][N];

static void load_stream(void)
{
    npy_array a, b;
    size_t ashape[2] = {2, T}, bshape[2] = {2, N};
    load("stream_amax.npy", NPY_F32, 2, ashape, &a);
    load("stream_base.npy", NPY_F32, 2, bshape, &b);
    memcpy(amax_seq, a.data, sizeof amax_seq);
    memcpy(base, b.data, sizeof base);
    npy_free(&a);
    npy_free(&b);
}

/* The magnitudes, from the handout's formulas (README §9). */
static double closed_form(int w, int t)
{
    const double pi = 3.14159265358979323846;
    if (w == 1)
        return (t >= 150 && t < 170) ? 0.0 : (1.0 + 0.25 * sin(2 * pi * t / 40)) / 4096.0;
    if (t >= 200 && t < 260)
        return pow(1.05, t - 200);
    return (1.0 + 0.5 * sin(2 * pi * t / 50)) * (t == 120 ? 3.0 : 1.0);
}

START_TEST(amax_is_the_closed_form)
{
    npy_array m;
    size_t shape[2] = {2, T};
    load("stream_magnitude.npy", NPY_F32, 2, shape, &m);
    load_stream();
    const float *mag = m.data;
    for (int w = 0; w < 2; w++) {
        ck_assert(fabsf(base[w][0]) == 1.0f);
        for (int i = 0; i < N; i++)
            ck_assert_msg(fabsf(base[w][i]) <= 1.0f, "base[%d][%d] = %g", w, i,
                          (double)base[w][i]);
        for (int t = 0; t < T; t++) {
            float want = (float)closed_form(w, t);
            ck_assert_msg(stats_equal_exact(mag[w * T + t], amax_seq[w][t]),
                          "tensor %d step %d: amax %a, magnitude %a", w, t,
                          (double)amax_seq[w][t], (double)mag[w * T + t]);
            /* libm may round sin() differently by an ulp; the goldens are
             * what the grader uses, so one ulp is allowed here. */
            ck_assert_msg(stats_ulp_distance(want, amax_seq[w][t]) <= 1,
                          "tensor %d step %d: amax %a, closed form %a", w, t,
                          (double)amax_seq[w][t], (double)want);
        }
    }
    /* The spike is three times its neighbours' level; the gradient's zero
     * phase is exactly zero. */
    ck_assert(amax_seq[0][120] > 2.5f * amax_seq[0][119]);
    ck_assert(amax_seq[1][150] == 0.0f && amax_seq[1][169] == 0.0f && amax_seq[1][170] > 0.0f);
    npy_free(&m);
}
END_TEST

/* ---- delayed scaling, against a sliding window -------------------------------------- */

static const struct {
    const char *tag;
    int tensor, most_recent, len, margin;
} runs[] = {
    {"act_max16", 0, 0, 16, 0},
    {"act_recent4", 0, 1, 4, 0},
    {"act_max8_m2", 0, 0, 8, 2},
    {"grad_max16", 1, 0, 16, 0},
};

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

START_TEST(delayed_scales_follow_the_window)
{
    int r = _i;
    int L = runs[r].len, w = runs[r].tensor;
    float fp8_max = w == 0 ? 448.0f : 57344.0f;
    char name[128];
    npy_array h, s;
    size_t hshape[2] = {T + 1, (size_t)L}, sshape[2] = {T + 1, 2};
    snprintf(name, sizeof name, "%s_history.npy", runs[r].tag);
    load(name, NPY_F32, 2, hshape, &h);
    snprintf(name, sizeof name, "%s_scale.npy", runs[r].tag);
    load(name, NPY_F32, 2, sshape, &s);
    load_stream();
    const float *hist = h.data, *sc = s.data;

    ck_assert(sc[0] == 1.0f && sc[1] == 1.0f); /* the first step runs unscaled */
    float scale = 1.0f;
    for (int t = 0; t < T; t++) {
        /* The amax the update after step t uses: the last L steps' maximum,
         * or step t's own. */
        float a = amax_seq[w][t];
        if (!runs[r].most_recent)
            for (int k = t - L + 1; k <= t; k++)
                if (k >= 0 && amax_seq[w][k] > a)
                    a = amax_seq[w][k];
        if (a > 0.0f)
            scale = (fp8_max / a) / ldexpf(1.0f, runs[r].margin);
        ck_assert_msg(sc[2 * (t + 1)] == scale && sc[2 * (t + 1) + 1] == 1.0f / scale,
                      "%s after step %d: golden scale %a / %a, window gives %a", runs[r].tag, t,
                      (double)sc[2 * (t + 1)], (double)sc[2 * (t + 1) + 1], (double)scale);

        /* The history after the update: slot 0 cleared, and the other L-1
         * slots the amaxes of steps t-L+2 .. t (0 before step 0), in some
         * order. */
        float want[WINDOW_MAX] = {0}, got[WINDOW_MAX] = {0};
        for (int k = 0; k < L - 1; k++) {
            int step = t - (L - 2) + k;
            want[k] = step >= 0 ? amax_seq[w][step] : 0.0f;
        }
        memcpy(got, hist + (size_t)(t + 1) * (size_t)L + 1, (size_t)(L - 1) * sizeof(float));
        ck_assert_msg(hist[(size_t)(t + 1) * (size_t)L] == 0.0f, "%s after step %d: slot 0",
                      runs[r].tag, t);
        qsort(want, (size_t)(L - 1), sizeof(float), cmp_float);
        qsort(got, (size_t)(L - 1), sizeof(float), cmp_float);
        ck_assert_msg(memcmp(want, got, (size_t)(L - 1) * sizeof(float)) == 0,
                      "%s after step %d: the history is not the last %d amaxes", runs[r].tag, t,
                      L - 1);
    }
    npy_free(&h);
    npy_free(&s);
}
END_TEST

/* saturated / flushed from the spec's thresholds, not from an encoder. */
static int overflows(float y, int w)
{
    return w == 0 ? fabsf(y) > 464.0f : fabsf(y) >= 61440.0f;
}

static int underflows(float y, int w)
{
    return y != 0.0f && fabsf(y) <= (w == 0 ? 0x1p-10f : 0x1p-17f);
}

START_TEST(casts_match_codec_and_thresholds)
{
    int r = _i == 0 ? 0 : 3;
    int w = runs[r].tensor;
    fp8_format fmt = w == 0 ? FP8_E4M3 : FP8_E5M2;
    char name[128];
    npy_array s, q, c;
    size_t sshape[2] = {T + 1, 2}, qshape[2] = {T, N}, cshape[2] = {T, 2};
    snprintf(name, sizeof name, "%s_scale.npy", runs[r].tag);
    load(name, NPY_F32, 2, sshape, &s);
    snprintf(name, sizeof name, "%s_q.npy", runs[r].tag);
    load(name, NPY_U8, 2, qshape, &q);
    snprintf(name, sizeof name, "%s_counts.npy", runs[r].tag);
    load(name, NPY_I32, 2, cshape, &c);
    load_stream();
    npy_array m;
    size_t mshape[2] = {2, T};
    load("stream_magnitude.npy", NPY_F32, 2, mshape, &m);
    const float *sc = s.data, *mag = m.data;
    const uint8_t *qs = q.data;
    const int32_t *cs = c.data;
    int any_saturated = 0;
    for (int t = 0; t < T; t++) {
        int sat = 0, flushed = 0;
        for (int i = 0; i < N; i++) {
            float x = mag[w * T + t] * base[w][i];
            float y = x * sc[2 * t];
            ck_assert_msg(qs[(size_t)t * N + i] == fp8_encode(y, fmt, true),
                          "%s step %d, element %d: golden 0x%02x, codec 0x%02x", runs[r].tag, t,
                          i, qs[(size_t)t * N + i], fp8_encode(y, fmt, true));
            sat += overflows(y, w);
            flushed += underflows(y, w) && x != 0.0f;
        }
        ck_assert_msg(cs[2 * t] == sat && cs[2 * t + 1] == flushed,
                      "%s step %d: golden counts %d %d, thresholds give %d %d", runs[r].tag, t,
                      cs[2 * t], cs[2 * t + 1], sat, flushed);
        any_saturated += sat > 0;
    }
    ck_assert_msg(any_saturated > 0, "%s: the stream never saturates", runs[r].tag);
    npy_free(&s);
    npy_free(&q);
    npy_free(&c);
    npy_free(&m);
}
END_TEST

/* Worked by hand (README §9): the spike at step 120 is cast with the scale
 * the history of steps 104..119 gave, so it saturates; the update after it
 * sets 448 / amax(120), and step 121 does not. */
START_TEST(spike_worked_by_hand)
{
    npy_array s, c;
    size_t sshape[2] = {T + 1, 2}, cshape[2] = {T, 2};
    load("act_max16_scale.npy", NPY_F32, 2, sshape, &s);
    load("act_max16_counts.npy", NPY_I32, 2, cshape, &c);
    load_stream();
    const float *sc = s.data;
    const int32_t *cs = c.data;
    ck_assert(cs[2 * 120] > 0 && cs[2 * 121] == 0);
    ck_assert(sc[2 * 121] == 448.0f / amax_seq[0][120]);
    /* 16 steps on, the spike leaves the window. */
    ck_assert(sc[2 * 136] == 448.0f / amax_seq[0][120]);
    ck_assert(sc[2 * 137] != 448.0f / amax_seq[0][120]);
    npy_free(&s);
    npy_free(&c);
}
END_TEST

/* ---- current scaling and the moving average ------------------------------------------- */

START_TEST(current_scales_closed_form)
{
    npy_array cur;
    size_t shape[3] = {2, T, 2};
    load("current_scale.npy", NPY_F32, 3, shape, &cur);
    load_stream();
    const float *v = cur.data;
    for (int w = 0; w < 2; w++) {
        float fp8_max = w == 0 ? 448.0f : 57344.0f;
        for (int t = 0; t < T; t++) {
            float a = amax_seq[w][t];
            float want = a > 0.0f ? fp8_max / a : 1.0f;
            int e;
            frexpf(want, &e); /* want = f * 2^e, 0.5 <= f < 1 */
            float want_pow2 = ldexpf(1.0f, e - 1);
            ck_assert_msg(v[(w * T + t) * 2] == want && v[(w * T + t) * 2 + 1] == want_pow2,
                          "tensor %d step %d: golden %a %a, closed form %a %a", w, t,
                          (double)v[(w * T + t) * 2], (double)v[(w * T + t) * 2 + 1],
                          (double)want, (double)want_pow2);
        }
    }
    npy_free(&cur);
}
END_TEST

START_TEST(ema_recurrence)
{
    load_stream();
    for (int w = 0; w < 2; w++) {
        npy_array e;
        size_t shape[2] = {T + 1, 2};
        load(w == 0 ? "ema_act_scale.npy" : "ema_grad_scale.npy", NPY_F32, 2, shape, &e);
        const float *v = e.data;
        float fp8_max = w == 0 ? 448.0f : 57344.0f, scale = 1.0f;
        for (int t = 0; t <= T; t++) {
            ck_assert_msg(v[2 * t] == scale && v[2 * t + 1] == 1.0f / scale,
                          "tensor %d step %d: golden %a, recurrence %a", w, t, (double)v[2 * t],
                          (double)scale);
            if (t < T && amax_seq[w][t] > 0.0f) {
                float keep = 0.9f * scale;
                float move = (1.0f - 0.9f) * (fp8_max / amax_seq[w][t]);
                scale = keep + move;
            }
        }
        npy_free(&e);
    }
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab1 goldens");
    TCase *tc = tcase_create("goldens");
    tcase_add_test(tc, amax_is_the_closed_form);
    tcase_add_loop_test(tc, delayed_scales_follow_the_window, 0, 4);
    tcase_add_loop_test(tc, casts_match_codec_and_thresholds, 0, 2);
    tcase_add_test(tc, spike_worked_by_hand);
    tcase_add_test(tc, current_scales_closed_form);
    tcase_add_test(tc, ema_recurrence);
    suite_add_tcase(s, tc);
    return check_run(s);
}
