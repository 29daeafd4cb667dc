/*
 * lab3/goldens.c - makes lab3's goldens from the reference solution
 * (`make goldens` links it with solutions/lab3/lab3.c and labs/lab3/model.c):
 *
 *     lab3_goldens OUTDIR [DATA_DIR]     (DATA_DIR default data/fashion-mnist)
 *
 * A small MLP (784 -> 32 -> 10, batch 32, lr 0.05, momentum 0.9) is trained
 * in FP8 for 20 steps on the subset's first images; the state it reaches is
 * the "before" state, and the next batch the graded batch:
 *   batch_x.npy  float32 [32, 784]   batch_y.npy  uint8 [32]
 * A state is saved as <state>_<what>.npy:
 *   w1 [32, 784], b1 [32], w2 [10, 32], b2 [10], and mw1 mb1 mw2 mb2 (momentum)
 *   scalers [6, 18]: scale, scale_inv, history[16] of l1.sx, l1.sw, l1.sdy,
 *                    l2.sx, l2.sw, l2.sdy (history 16, algo max, margin 0)
 *   gs [5]: scale, growth_factor, backoff_factor, growth_interval,
 *           growth_tracker (as floats)
 * States: before, after (one FP8 step from before), fp32_after (one FP32
 * step from before), and skip_after (scalers and gs only: the FP8 step from
 * before on batch_x with pixel 300 made NaN, which must be skipped, leaving
 * the weights as they were).
 * The FP8 step from before, stage by stage (prefix step_), and the FP32 one
 * (prefix fp32_):
 *   xq1 [32, 784], wq1 [32, 784]: l1's saved input and weight (FP8 values;
 *   FP8 only)
 *   h [32, 32], a, logits [32, 10], loss [1], dlogits [32, 10] (times the
 *   loss scale), dyq2 [32, 10] (l2's saved dy), da [32, 32], dh, and the
 *   gradients dw1, db1, dw2, db2 before unscaling;
 *   step_skipped [1]: 0 (the FP8 step from before is taken).
 *
 * The expected outputs are the solution's alone; tests/lab3/ checks them
 * against finite differences of a double-precision model, the codec, and
 * the loss scaler's and SGD's closed forms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_io.h"
#include "model.h"

#define HIDDEN 32
#define BATCH 32
#define WARMUP 20
#define SKIP_NAN_AT 300 /* the pixel of batch_x made NaN for the skipped step */

static const char *dir;

static int save(const char *name, npy_dtype dtype, int ndim, size_t d0, size_t d1,
                const void *data)
{
    size_t shape[2] = {d0, d1};
    return golden_save(dir, name, dtype, ndim, shape, data);
}

static int save_state(const char *state, const lab3_mlp *m, bool weights)
{
    const lab3_linear *l1 = &m->l1, *l2 = &m->l2;
    char name[96];
    struct {
        const char *what;
        const float *v;
        size_t d0, d1;
    } parts[] = {
        {"w1", l1->w, HIDDEN, LAB3_INPUTS}, {"b1", l1->b, HIDDEN, 0},
        {"w2", l2->w, LAB3_CLASSES, HIDDEN}, {"b2", l2->b, LAB3_CLASSES, 0},
        {"mw1", l1->mw, HIDDEN, LAB3_INPUTS}, {"mb1", l1->mb, HIDDEN, 0},
        {"mw2", l2->mw, LAB3_CLASSES, HIDDEN}, {"mb2", l2->mb, LAB3_CLASSES, 0},
    };
    for (size_t i = 0; weights && i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(name, sizeof name, "%s_%s.npy", state, parts[i].what);
        if (save(name, NPY_F32, parts[i].d1 ? 2 : 1, parts[i].d0, parts[i].d1, parts[i].v) != 0)
            return -1;
    }
    const delayed_scaler *sc[6] = {&l1->sx, &l1->sw, &l1->sdy, &l2->sx, &l2->sw, &l2->sdy};
    float scalers[6][18];
    for (int k = 0; k < 6; k++) {
        scalers[k][0] = sc[k]->scale;
        scalers[k][1] = sc[k]->scale_inv;
        memcpy(scalers[k] + 2, sc[k]->history, 16 * sizeof(float));
    }
    snprintf(name, sizeof name, "%s_scalers.npy", state);
    if (save(name, NPY_F32, 2, 6, 18, scalers) != 0)
        return -1;
    float gs[5] = {m->gs.scale, m->gs.growth_factor, m->gs.backoff_factor,
                   (float)m->gs.growth_interval, (float)m->gs.growth_tracker};
    snprintf(name, sizeof name, "%s_gs.npy", state);
    return save(name, NPY_F32, 1, 5, 0, gs);
}

/* dst = src, every buffer and scaler (both built by lab3_mlp_init alike). */
static void copy_mlp(lab3_mlp *dst, const lab3_mlp *src)
{
    const lab3_linear *s[2] = {&src->l1, &src->l2};
    lab3_linear *d[2] = {&dst->l1, &dst->l2};
    for (int k = 0; k < 2; k++) {
        size_t nw = s[k]->out * s[k]->in, nb = s[k]->out;
        memcpy(d[k]->w, s[k]->w, nw * sizeof(float));
        memcpy(d[k]->mw, s[k]->mw, nw * sizeof(float));
        memcpy(d[k]->b, s[k]->b, nb * sizeof(float));
        memcpy(d[k]->mb, s[k]->mb, nb * sizeof(float));
        d[k]->sx = s[k]->sx;
        d[k]->sw = s[k]->sw;
        d[k]->sdy = s[k]->sdy;
    }
    dst->gs = src->gs;
}

/* Forward and backward of one batch from src's state, on dst (a copy),
 * in the order lab3_train_step takes them, saving every stage as
 * <prefix>_<stage>.npy. */
static int stages(lab3_mlp *dst, const lab3_mlp *src, lab3_mode mode, const float *x,
                  const uint8_t *y, const char *prefix)
{
    lab3_mlp *w = dst;
    copy_mlp(w, src);
    w->mode = mode;
    lab3_linear *l1 = &w->l1, *l2 = &w->l2;
    memset(l1->dw, 0, HIDDEN * LAB3_INPUTS * sizeof(float));
    memset(l1->db, 0, HIDDEN * sizeof(float));
    memset(l2->dw, 0, LAB3_CLASSES * HIDDEN * sizeof(float));
    memset(l2->db, 0, LAB3_CLASSES * sizeof(float));
    lab3_linear_forward(l1, x, BATCH, mode, w->h);
    for (size_t i = 0; i < BATCH * HIDDEN; i++)
        w->a[i] = w->h[i] > 0.0f ? w->h[i] : 0.0f;
    lab3_linear_forward(l2, w->a, BATCH, mode, w->logits);
    float loss = lab3_softmax_xent(w->logits, y, BATCH, w->gs.scale, w->dlogits);
    lab3_linear_backward(l2, w->dlogits, BATCH, mode, w->da);
    for (size_t i = 0; i < BATCH * HIDDEN; i++)
        w->dh[i] = w->h[i] > 0.0f ? w->da[i] : 0.0f;
    lab3_linear_backward(l1, w->dh, BATCH, mode, NULL);

    struct {
        const char *what;
        const float *v;
        size_t d0, d1;
    } parts[] = {
        {"xq1", l1->xq, BATCH, LAB3_INPUTS},     {"wq1", l1->wq, HIDDEN, LAB3_INPUTS},
        {"h", w->h, BATCH, HIDDEN},               {"a", w->a, BATCH, HIDDEN},
        {"logits", w->logits, BATCH, LAB3_CLASSES}, {"loss", &loss, 1, 0},
        {"dlogits", w->dlogits, BATCH, LAB3_CLASSES}, {"dyq2", l2->dyq, BATCH, LAB3_CLASSES},
        {"da", w->da, BATCH, HIDDEN},             {"dh", w->dh, BATCH, HIDDEN},
        {"dw1", l1->dw, HIDDEN, LAB3_INPUTS},     {"db1", l1->db, HIDDEN, 0},
        {"dw2", l2->dw, LAB3_CLASSES, HIDDEN},    {"db2", l2->db, LAB3_CLASSES, 0},
    };
    char name[96];
    for (size_t i = mode == LAB3_FP8 ? 0 : 2; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(name, sizeof name, "%s_%s.npy", prefix, parts[i].what);
        if (save(name, NPY_F32, parts[i].d1 ? 2 : 1, parts[i].d0, parts[i].d1, parts[i].v) != 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s OUTDIR [DATA_DIR]\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    const char *data_dir = argc > 2 ? argv[2] : "data/fashion-mnist";
    lab3_data tr;
    lab_error err;
    if (lab3_data_load(data_dir, "train", &tr, &err) != 0) {
        fprintf(stderr, "lab3_goldens: %s\n", err.msg);
        return 1;
    }
    rng_state rng;
    rng_seed(&rng, 2026, 3); /* lab3's goldens; any fixed seed would do */
    lab3_mlp m, w;
    if (lab3_mlp_init(&m, LAB3_FP8, HIDDEN, BATCH, 0.05f, 0.9f, &rng) != 0 ||
        lab3_mlp_init(&w, LAB3_FP8, HIDDEN, BATCH, 0.05f, 0.9f, &rng) != 0) {
        fprintf(stderr, "lab3_goldens: out of memory\n");
        return 1;
    }
    for (int s = 0; s < WARMUP; s++)
        lab3_train_step(&m, tr.x + (size_t)s * BATCH * LAB3_INPUTS, tr.y + (size_t)s * BATCH,
                        BATCH);
    const float *x = tr.x + (size_t)WARMUP * BATCH * LAB3_INPUTS;
    const uint8_t *y = tr.y + (size_t)WARMUP * BATCH;

    printf("lab3 goldens in %s:\n", dir);
    int rc = save("batch_x.npy", NPY_F32, 2, BATCH, LAB3_INPUTS, x) |
             save("batch_y.npy", NPY_U8, 1, BATCH, 0, y) | save_state("before", &m, true);

    /* The stages of one step, FP8 and FP32, each on a fresh copy. */
    rc |= stages(&w, &m, LAB3_FP8, x, y, "step") | stages(&w, &m, LAB3_FP32, x, y, "fp32");

    /* Whole steps: FP8, FP32, and one with a NaN pixel. */
    copy_mlp(&w, &m);
    w.mode = LAB3_FP8;
    lab3_step st = lab3_train_step(&w, x, y, BATCH);
    float skipped = st.skipped ? 1.0f : 0.0f;
    rc |= save("step_skipped.npy", NPY_F32, 1, 1, 0, &skipped) | save_state("after", &w, true);
    copy_mlp(&w, &m);
    w.mode = LAB3_FP32;
    lab3_train_step(&w, x, y, BATCH);
    rc |= save_state("fp32_after", &w, true);
    w.mode = LAB3_FP8;
    copy_mlp(&w, &m);
    static float xnan[BATCH * LAB3_INPUTS];
    memcpy(xnan, x, sizeof xnan);
    xnan[SKIP_NAN_AT] = NAN;
    st = lab3_train_step(&w, xnan, y, BATCH);
    if (!st.skipped) {
        fprintf(stderr, "lab3_goldens: the step with a NaN pixel was not skipped\n");
        rc = 1;
    }
    rc |= save_state("skip_after", &w, false);

    lab3_mlp_free(&w);
    lab3_data_free(&tr);
    lab3_mlp_free(&m);
    return rc ? 1 : 0;
}
