/*
 * test_goldens.c - lab3's goldens, checked by something other than the
 * solution that made them:
 *   - the FP32 gradients against central finite differences of the loss of
 *     a double-precision model written here (784 -> 32 -> 10, ReLU,
 *     softmax cross-entropy), and the FP32 forward pass and loss against
 *     the same model;
 *   - the FP8 casts against common/'s codec (checked against NVIDIA's for
 *     every float), and the FP8 forward pass against the exact
 *     (double-precision) product of the cast operands;
 *   - the step's bookkeeping in closed form: SGD with momentum, the loss
 *     scaler's tracker and backoff, and the six scalers' update replayed
 *     with common/delayed from the amaxes of the step's tensors;
 *   - a skipped step leaving the loss scale halved.
 *
 *   build/tests/lab3/test_goldens [DATA_DIR]    (default data/golden/lab3)
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "delayed.h"
#include "fp8.h"
#include "npy.h"
#include "stats.h"

static const char *dir = "data/golden/lab3";

enum { IN = 784, HID = 32, OUT = 10, B = 32 };
#define LOSS_SCALE 65536.0
#define LR 0.05f
#define MOMENTUM 0.9f

static float *load(const char *name, size_t n)
{
    char path[512];
    lab_error err;
    npy_array a;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(npy_load(path, &a, &err) == 0, "%s", err.msg);
    ck_assert_msg(a.dtype == NPY_F32 && a.count == n, "%s: %zu values, expected %zu", name,
                  a.count, n);
    float *v = malloc(n * sizeof(float));
    ck_assert(v != NULL);
    memcpy(v, a.data, n * sizeof(float));
    npy_free(&a);
    return v;
}

static uint8_t labels[B];

static void load_labels(void)
{
    char path[512];
    lab_error err;
    npy_array a;
    size_t shape[1] = {B};
    snprintf(path, sizeof path, "%s/batch_y.npy", dir);
    ck_assert_msg(npy_load_expect(path, NPY_U8, 1, shape, &a, &err) == 0, "%s", err.msg);
    memcpy(labels, a.data, B);
    npy_free(&a);
}

/* ---- the double-precision model --------------------------------------------------- */

typedef struct params {
    double w1[HID * IN], b1[HID], w2[OUT * HID], b2[OUT];
} params;

static void to_double(double *d, const float *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = f[i];
}

/* The mean loss over the batch; h and logits when not NULL. */
static double model_loss(const params *p, const float *x, double *h_out, double *logits_out)
{
    double total = 0.0;
    for (int r = 0; r < B; r++) {
        double a[HID], l[OUT];
        for (int j = 0; j < HID; j++) {
            double s = p->b1[j];
            for (int i = 0; i < IN; i++)
                s += x[r * IN + i] * p->w1[j * IN + i];
            a[j] = s > 0 ? s : 0;
            if (h_out)
                h_out[r * HID + j] = s;
        }
        double mx = -INFINITY;
        for (int c = 0; c < OUT; c++) {
            double s = p->b2[c];
            for (int j = 0; j < HID; j++)
                s += a[j] * p->w2[c * HID + j];
            l[c] = s;
            mx = fmax(mx, s);
            if (logits_out)
                logits_out[r * OUT + c] = s;
        }
        double sum = 0;
        for (int c = 0; c < OUT; c++)
            sum += exp(l[c] - mx);
        total += log(sum) + mx - l[labels[r]];
    }
    return total / B;
}

static params before;

static void load_before(void)
{
    float *w1 = load("before_w1.npy", HID * IN), *b1 = load("before_b1.npy", HID);
    float *w2 = load("before_w2.npy", OUT * HID), *b2 = load("before_b2.npy", OUT);
    to_double(before.w1, w1, HID * IN);
    to_double(before.b1, b1, HID);
    to_double(before.w2, w2, OUT * HID);
    to_double(before.b2, b2, OUT);
    free(w1);
    free(b1);
    free(w2);
    free(b2);
}

START_TEST(fp32_forward_matches_double_model)
{
    load_labels();
    load_before();
    float *x = load("batch_x.npy", B * IN);
    float *h = load("fp32_h.npy", B * HID), *logits = load("fp32_logits.npy", B * OUT);
    float *loss = load("fp32_loss.npy", 1);
    static double hd[B * HID], ld[B * OUT];
    double l = model_loss(&before, x, hd, ld);
    for (int i = 0; i < B * HID; i++)
        ck_assert_msg(fabs(h[i] - hd[i]) <= 1e-5 * (1 + fabs(hd[i])), "h[%d]: %g vs %g", i,
                      (double)h[i], hd[i]);
    for (int i = 0; i < B * OUT; i++)
        ck_assert_msg(fabs(logits[i] - ld[i]) <= 1e-5 * (1 + fabs(ld[i])), "logits[%d]", i);
    ck_assert_msg(fabs(loss[0] - l) <= 1e-5 * l, "loss %g vs %g", (double)loss[0], l);
    free(x);
    free(h);
    free(logits);
    free(loss);
}
END_TEST

/* dL/dp by central differences, step eps, for the parameter at *p. */
static double central_difference(params *p, double *param, const float *x)
{
    const double eps = 1e-4;
    double keep = *param;
    *param = keep + eps;
    double up = model_loss(p, x, NULL, NULL);
    *param = keep - eps;
    double down = model_loss(p, x, NULL, NULL);
    *param = keep;
    return (up - down) / (2 * eps);
}

START_TEST(fp32_gradients_match_finite_differences)
{
    load_labels();
    load_before();
    float *x = load("batch_x.npy", B * IN);
    float *dw1 = load("fp32_dw1.npy", HID * IN), *db1 = load("fp32_db1.npy", HID);
    float *dw2 = load("fp32_dw2.npy", OUT * HID), *db2 = load("fp32_db2.npy", OUT);
    struct {
        double *param;
        const float *grad;
        size_t n, stride;
        const char *name;
    } groups[] = {
        {before.w1, dw1, HID * IN, 97, "w1"}, /* every 97th weight of layer 1 */
        {before.b1, db1, HID, 1, "b1"},
        {before.w2, dw2, OUT * HID, 1, "w2"},
        {before.b2, db2, OUT, 1, "b2"},
    };
    size_t checked = 0;
    for (size_t g = 0; g < 4; g++) {
        for (size_t i = 0; i < groups[g].n; i += groups[g].stride) {
            double fd = central_difference(&before, &groups[g].param[i], x);
            double got = groups[g].grad[i] / LOSS_SCALE; /* the goldens hold scaled gradients */
            /* The finite difference errs by O(eps^2) and by the kinks of
             * ReLU; 1e-4 of the typical gradient covers both. */
            ck_assert_msg(fabs(got - fd) <= 1e-4 + 1e-3 * fabs(fd),
                          "d loss / d %s[%zu]: golden %.9g, finite difference %.9g",
                          groups[g].name, i, got, fd);
            checked++;
        }
    }
    ck_assert_uint_gt(checked, 600);
    free(x);
    free(dw1);
    free(db1);
    free(dw2);
    free(db2);
}
END_TEST

/* ---- FP8 ----------------------------------------------------------------------------- */

static float *load_scalers(const char *state)
{
    char name[64];
    snprintf(name, sizeof name, "%s_scalers.npy", state);
    return load(name, 6 * 18);
}

START_TEST(fp8_casts_and_forward)
{
    float *sc = load_scalers("before");
    float *x = load("batch_x.npy", B * IN), *w1 = load("before_w1.npy", HID * IN);
    float *b1 = load("before_b1.npy", HID);
    float *xq = load("step_xq1.npy", B * IN), *wq = load("step_wq1.npy", HID * IN);
    float *h = load("step_h.npy", B * HID);
    float *dl = load("step_dlogits.npy", B * OUT), *dyq = load("step_dyq2.npy", B * OUT);
    for (int i = 0; i < B * IN; i++)
        ck_assert(stats_equal_exact(xq[i], fp8_decode(fp8_encode(x[i] * sc[0], FP8_E4M3, true),
                                                      FP8_E4M3)));
    for (int i = 0; i < HID * IN; i++)
        ck_assert(stats_equal_exact(wq[i], fp8_decode(fp8_encode(w1[i] * sc[18], FP8_E4M3, true),
                                                      FP8_E4M3)));
    for (int i = 0; i < B * OUT; i++)
        ck_assert(stats_equal_exact(dyq[i], fp8_decode(fp8_encode(dl[i] * sc[5 * 18],
                                                                  FP8_E5M2, true), FP8_E5M2)));
    /* h = (xq wq^T) sinv_x sinv_w + b: exact in double, float's rounding in
     * the golden. */
    double s = (double)(sc[1] * sc[19]);
    for (int r = 0; r < B; r++) {
        for (int j = 0; j < HID; j++) {
            double acc = 0, abs_acc = 0;
            for (int i = 0; i < IN; i++) {
                acc += (double)xq[r * IN + i] * wq[j * IN + i];
                abs_acc += fabs((double)xq[r * IN + i] * wq[j * IN + i]);
            }
            double want = acc * s + b1[j];
            double tol = (IN + 2) * 0x1p-24 * (abs_acc * s + fabs(b1[j]));
            ck_assert_msg(fabs(h[r * HID + j] - want) <= tol, "step_h[%d][%d]: %g vs %g", r, j,
                          (double)h[r * HID + j], want);
        }
    }
    float *frees[] = {sc, x, w1, b1, xq, wq, h, dl, dyq};
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++)
        free(frees[i]);
}
END_TEST

static float amax_of(const float *v, size_t n)
{
    float m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabsf(v[i]) > m)
            m = fabsf(v[i]);
    return m;
}

START_TEST(step_bookkeeping_in_closed_form)
{
    /* SGD: w' = w - lr (mu m + g), g = golden gradient / loss scale. */
    float *w = load("before_w2.npy", OUT * HID), *m = load("before_mw2.npy", OUT * HID);
    float *g = load("step_dw2.npy", OUT * HID), *w_after = load("after_w2.npy", OUT * HID);
    float *m_after = load("after_mw2.npy", OUT * HID);
    for (int i = 0; i < OUT * HID; i++) {
        float mm = MOMENTUM * m[i] + g[i] * (float)(1.0 / LOSS_SCALE);
        ck_assert(stats_equal_exact(m_after[i], mm));
        ck_assert(stats_equal_exact(w_after[i], w[i] - LR * mm));
    }
    /* The loss scaler: one clean step adds one to the tracker; the skipped
     * step halves the scale and resets it. */
    float *gs = load("before_gs.npy", 5), *gs_after = load("after_gs.npy", 5);
    float *gs_skip = load("skip_after_gs.npy", 5);
    ck_assert(gs_after[0] == gs[0] && gs_after[4] == gs[4] + 1);
    ck_assert(gs_skip[0] == gs[0] * 0.5f && gs_skip[4] == 0);

    /* The six scalers: record the amax of each tensor of the step, update. */
    float *sc = load_scalers("before"), *sc_after = load_scalers("after");
    float *x = load("batch_x.npy", B * IN), *w1 = load("before_w1.npy", HID * IN);
    float *dh = load("step_dh.npy", B * HID), *a = load("step_a.npy", B * HID);
    float *dl = load("step_dlogits.npy", B * OUT);
    float amax[6] = {amax_of(x, B * IN), amax_of(w1, HID * IN), amax_of(dh, B * HID),
                     amax_of(a, B * HID), amax_of(w, OUT * HID), amax_of(dl, B * OUT)};
    const fp8_format fmt[6] = {FP8_E4M3, FP8_E4M3, FP8_E5M2, FP8_E4M3, FP8_E4M3, FP8_E5M2};
    for (int k = 0; k < 6; k++) {
        static delayed_scaler s;
        delayed_init(&s, fmt[k], false, 16, 0);
        s.scale = sc[k * 18];
        s.scale_inv = sc[k * 18 + 1];
        memcpy(s.history, sc + k * 18 + 2, 16 * sizeof(float));
        delayed_record(&s, amax[k]);
        delayed_update(&s);
        ck_assert_msg(s.scale == sc_after[k * 18] && s.scale_inv == sc_after[k * 18 + 1] &&
                          memcmp(s.history, sc_after + k * 18 + 2, 16 * sizeof(float)) == 0,
                      "scaler %d after the step: golden scale %a, replayed %a", k,
                      (double)sc_after[k * 18], (double)s.scale);
    }
    float *frees[] = {w, m, g, w_after, m_after, gs, gs_after, gs_skip, sc, sc_after, x, w1,
                      dh, a, dl};
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++)
        free(frees[i]);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab3 goldens");
    TCase *tc = tcase_create("goldens");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, fp32_forward_matches_double_model);
    tcase_add_test(tc, fp32_gradients_match_finite_differences);
    tcase_add_test(tc, fp8_casts_and_forward);
    tcase_add_test(tc, step_bookkeeping_in_closed_form);
    suite_add_tcase(s, tc);
    return check_run(s);
}
