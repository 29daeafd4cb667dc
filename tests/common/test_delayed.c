/*
 * test_delayed.c - common/delayed against lab1's goldens (every step of
 * every delayed-scaling run in data/golden/lab1, whose scales and histories
 * tests/lab1 checks against a sliding window over the stream's closed form)
 * and against cases worked by hand in lab1's handout (§5, §6).
 *
 *   build/tests/common/test_delayed [LAB1_GOLDEN_DIR]   (default data/golden/lab1)
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_run.h"
#include "delayed.h"
#include "npy.h"
#include "stats.h"

static const char *dir = "data/golden/lab1";

static void load(const char *name, npy_dtype dtype, int ndim, const size_t *shape,
                 npy_array *out)
{
    char path[512];
    lab_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(npy_load_expect(path, dtype, ndim, shape, out, &err) == 0, "%s", err.msg);
}

static const struct {
    const char *tag;
    int tensor;
    bool most_recent;
    int len, margin;
} runs[] = {
    {"act_max16", 0, false, 16, 0},
    {"act_recent4", 0, true, 4, 0},
    {"act_max8_m2", 0, false, 8, 2},
    {"grad_max16", 1, false, 16, 0},
};

START_TEST(replays_lab1_goldens)
{
    npy_array amax, hist, scale;
    size_t ashape[2] = {2, 0};
    load("stream_amax.npy", NPY_F32, 2, ashape, &amax);
    size_t steps = amax.shape[1];
    size_t hshape[2] = {steps + 1, (size_t)runs[_i].len}, sshape[2] = {steps + 1, 2};
    char name[96];
    snprintf(name, sizeof name, "%s_history.npy", runs[_i].tag);
    load(name, NPY_F32, 2, hshape, &hist);
    snprintf(name, sizeof name, "%s_scale.npy", runs[_i].tag);
    load(name, NPY_F32, 2, sshape, &scale);
    const float *a = (const float *)amax.data + (size_t)runs[_i].tensor * steps;
    const float *h = hist.data, *sc = scale.data;

    static delayed_scaler s;
    delayed_init(&s, runs[_i].tensor == 1 ? FP8_E5M2 : FP8_E4M3, runs[_i].most_recent,
                 runs[_i].len, runs[_i].margin);
    for (size_t t = 0; t < steps; t++) {
        delayed_record(&s, a[t]);
        delayed_update(&s);
        ck_assert_msg(stats_equal_exact(sc[2 * (t + 1)], s.scale) &&
                          stats_equal_exact(sc[2 * (t + 1) + 1], s.scale_inv),
                      "%s after step %zu: scale %a, golden %a", runs[_i].tag, t,
                      (double)s.scale, (double)sc[2 * (t + 1)]);
        ck_assert_msg(memcmp(s.history, h + (t + 1) * (size_t)runs[_i].len,
                             (size_t)runs[_i].len * sizeof(float)) == 0,
                      "%s after step %zu: history differs", runs[_i].tag, t);
    }
    npy_free(&amax);
    npy_free(&hist);
    npy_free(&scale);
}
END_TEST

START_TEST(worked_by_hand)
{
    static delayed_scaler s;
    /* lab1 README §5: history {3, 9, 1, 2}: max reads 9 before the roll
     * drops it, and the history becomes {0, 1, 2, 3}. */
    delayed_init(&s, FP8_E4M3, false, 4, 0);
    const float h[4] = {3, 9, 1, 2}, rolled[4] = {0, 1, 2, 3};
    memcpy(s.history, h, sizeof h);
    delayed_update(&s);
    ck_assert(s.scale == 448.0f / 9.0f && s.scale_inv == 1.0f / (448.0f / 9.0f));
    ck_assert(memcmp(s.history, rolled, sizeof rolled) == 0);
    /* An amax of 0 keeps the scale; a NaN entry too. */
    delayed_update(&s);
    delayed_update(&s);
    delayed_update(&s);
    delayed_update(&s); /* all zeros now */
    ck_assert(s.scale == 448.0f / 3.0f);
    delayed_update(&s);
    ck_assert(s.scale == 448.0f / 3.0f);
    s.history[2] = NAN;
    delayed_update(&s);
    ck_assert(s.scale == 448.0f / 3.0f);
    /* The record is a maximum, and NaN is never recorded. */
    delayed_init(&s, FP8_E5M2, true, 1, 1);
    delayed_record(&s, 2.0f);
    delayed_record(&s, NAN);
    delayed_record(&s, 1.0f);
    ck_assert(s.history[0] == 2.0f);
    delayed_update(&s);
    ck_assert(s.scale == (57344.0f / 2.0f) / 2.0f && s.history[0] == 0.0f);
    /* (448 / 1e-36) overflows before the margin divides it: FLT_MAX. */
    delayed_init(&s, FP8_E4M3, true, 1, 1);
    delayed_record(&s, 1e-36f);
    delayed_update(&s);
    ck_assert(s.scale == FLT_MAX);
    /* The history length is clamped. */
    delayed_init(&s, FP8_E4M3, false, 0, 0);
    ck_assert_int_eq(s.history_len, 1);
    delayed_init(&s, FP8_E4M3, false, 5000, 0);
    ck_assert_int_eq(s.history_len, DELAYED_MAX_HISTORY);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("delayed");
    TCase *tc = tcase_create("delayed");
    tcase_add_loop_test(tc, replays_lab1_goldens, 0, 4);
    tcase_add_test(tc, worked_by_hand);
    suite_add_tcase(s, tc);
    return check_run(s);
}
