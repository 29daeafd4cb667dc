/*
 * lab3/calls.c - lab3's call table (channel.h): the judge's proxies of
 * lab3.h's functions and, with GR_SUBJECT, the subject's side that runs
 * the submission's.
 *
 * A layer (lab3_linear) goes with all nine of its buffers, sized from in,
 * out and max_batch as lab3.h allocates them; those the function may
 * update come back, the others are inputs only. The model (lab3_mlp) goes
 * with both layers' and its own six, sized from hidden and max_batch.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "channel.h"
#include "lab3.h"

enum { CAST = 1, LINEAR_FORWARD, LINEAR_BACKWARD, SOFTMAX_XENT, UNSCALE, SCALER_UPDATE,
       SGD_STEP, TRAIN_STEP, TO_BF16 };

/* A layer's buffers, in this order. */
#define LAYER_BUFFERS 9
static void layer_fields(lab3_linear *L, float **f[LAYER_BUFFERS])
{
    float **all[LAYER_BUFFERS] = {&L->w,  &L->b,  &L->dw, &L->db, &L->mw,
                                  &L->mb, &L->xq, &L->wq, &L->dyq};
    memcpy(f, all, sizeof all);
}

/* The model's own buffers. */
#define MODEL_BUFFERS 6
static void model_fields(lab3_mlp *m, float **f[MODEL_BUFFERS])
{
    float **all[MODEL_BUFFERS] = {&m->h, &m->a, &m->logits, &m->dlogits, &m->da, &m->dh};
    memcpy(f, all, sizeof all);
}

#ifdef GR_SUBJECT

/* The layer at L, its buffers made the subject's addresses. */
static lab3_linear *fix_layer(lab3_linear *L)
{
    float **f[LAYER_BUFFERS];
    if (L) {
        layer_fields(L, f);
        for (int i = 0; i < LAYER_BUFFERS; i++)
            sj_fix(f[i]);
    }
    return L;
}

static lab3_linear *layer(uint64_t a) { return fix_layer(sj_ptr(a)); }

static lab3_mlp *model(uint64_t a)
{
    lab3_mlp *m = sj_ptr(a);
    float **f[MODEL_BUFFERS];
    if (m) {
        fix_layer(&m->l1);
        fix_layer(&m->l2);
        model_fields(m, f);
        for (int i = 0; i < MODEL_BUFFERS; i++)
            sj_fix(f[i]);
    }
    return m;
}

int sj_dispatch(uint32_t fn, const uint64_t *a)
{
    switch (fn) {
    case CAST: lab3_cast(sj_ptr(a[0]), sj_ptr(a[1]), a[2], sj_ptr(a[3])); return 0;
    case LINEAR_FORWARD:
        lab3_linear_forward(layer(a[0]), sj_ptr(a[1]), a[2], (lab3_mode)a[3], sj_ptr(a[4]));
        return 0;
    case LINEAR_BACKWARD:
        lab3_linear_backward(layer(a[0]), sj_ptr(a[1]), a[2], (lab3_mode)a[3], sj_ptr(a[4]));
        return 0;
    case SOFTMAX_XENT:
        SJ_RETURN(float, lab3_softmax_xent(sj_ptr(a[0]), sj_ptr(a[1]), a[2], sj_float(a[3]),
                                           sj_ptr(a[4])));
        return 0;
    case UNSCALE: SJ_RETURN(int, lab3_unscale(sj_ptr(a[0]), a[1], sj_float(a[2]))); return 0;
    case SCALER_UPDATE: lab3_scaler_update(sj_ptr(a[0]), a[1] != 0); return 0;
    case SGD_STEP: lab3_sgd_step(layer(a[0]), sj_float(a[1]), sj_float(a[2])); return 0;
    case TRAIN_STEP:
        SJ_RETURN(lab3_step, lab3_train_step(model(a[0]), sj_ptr(a[1]), sj_ptr(a[2]), a[3]));
        return 0;
    case TO_BF16: lab3_to_bf16(sj_ptr(a[0]), a[1], sj_ptr(a[2])); return 0;
    }
    return -1;
}

#else

/* rows x cols floats, in bytes (more than the arena holds when that
 * overflows). */
static size_t floats(size_t rows, size_t cols)
{
    return sj_size(sj_size(rows, cols), sizeof(float));
}

/* Which of a layer's buffers (layer_fields' order) a function may update. */
enum { W = 1, B = 2, DW = 4, DB = 8, MW = 16, MB = 32, XQ = 64, WQ = 128, DYQ = 256 };

/* The buffers of the layer whose copy is at copy, linked from it: those
 * in `updated` both ways, the others in only. */
static void put_buffers(sj_call *c, lab3_linear *copy, unsigned updated)
{
    size_t w = floats(copy->out, copy->in), b = floats(copy->out, 1);
    size_t bytes[LAYER_BUFFERS] = {w, b, w, b, w, b, floats(copy->max_batch, copy->in), w,
                                   floats(copy->max_batch, copy->out)};
    float **f[LAYER_BUFFERS];
    layer_fields(copy, f);
    for (int i = 0; i < LAYER_BUFFERS; i++)
        sj_link(c, f[i], sj_block(c, *f[i], bytes[i], updated >> i & 1 ? SJ_INOUT : SJ_IN));
}

/* The layer L, and its buffers, as an argument. */
static void put_layer(sj_call *c, lab3_linear *L, unsigned updated)
{
    lab3_linear *copy = sj_inout(c, L, sizeof *L);
    if (copy)
        put_buffers(c, copy, updated);
}

/* After sj_run: L's own pointers back, from keep, where the copy-back
 * wrote the subject's; and its shape, which sizes the next call's copies:
 * a shape the subject changed would have the judge copy past the end of
 * its own buffers, into the arena. */
static void restore_layer(lab3_linear *L, lab3_linear *keep)
{
    float **f[LAYER_BUFFERS], **k[LAYER_BUFFERS];
    if (!L)
        return;
    L->in = keep->in, L->out = keep->out, L->max_batch = keep->max_batch;
    layer_fields(L, f);
    layer_fields(keep, k);
    for (int i = 0; i < LAYER_BUFFERS; i++)
        *f[i] = *k[i];
}

void lab3_cast(delayed_scaler *s, const float *x, size_t n, float *q)
{
    sj_call c;
    sj_begin(&c, CAST, "lab3_cast");
    sj_inout(&c, s, sizeof *s);
    sj_in(&c, x, floats(n, 1));
    sj_val(&c, n);
    sj_out(&c, q, floats(n, 1));
    sj_run(&c);
}

void lab3_linear_forward(lab3_linear *L, const float *x, size_t batch, lab3_mode mode,
                         float *y)
{
    sj_call c;
    lab3_linear keep = L ? *L : (lab3_linear){0};
    sj_begin(&c, LINEAR_FORWARD, "lab3_linear_forward");
    put_layer(&c, L, XQ | WQ);
    sj_in(&c, x, L ? floats(batch, L->in) : 0);
    sj_val(&c, batch);
    sj_val(&c, (uint64_t)mode);
    sj_out(&c, y, L ? floats(batch, L->out) : 0);
    sj_run(&c);
    restore_layer(L, &keep);
}

void lab3_linear_backward(lab3_linear *L, const float *dy, size_t batch, lab3_mode mode,
                          float *dx)
{
    sj_call c;
    lab3_linear keep = L ? *L : (lab3_linear){0};
    sj_begin(&c, LINEAR_BACKWARD, "lab3_linear_backward");
    put_layer(&c, L, DW | DB | DYQ);
    sj_in(&c, dy, L ? floats(batch, L->out) : 0);
    sj_val(&c, batch);
    sj_val(&c, (uint64_t)mode);
    sj_out(&c, dx, L ? floats(batch, L->in) : 0);
    sj_run(&c);
    restore_layer(L, &keep);
}

float lab3_softmax_xent(const float *logits, const uint8_t *labels, size_t batch,
                        float loss_scale, float *dlogits)
{
    sj_call c;
    sj_begin(&c, SOFTMAX_XENT, "lab3_softmax_xent");
    sj_in(&c, logits, floats(batch, LAB3_CLASSES));
    sj_in(&c, labels, batch);
    sj_val(&c, batch);
    sj_f32(&c, loss_scale);
    sj_out(&c, dlogits, floats(batch, LAB3_CLASSES));
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

bool lab3_unscale(float *g, size_t n, float scale)
{
    sj_call c;
    sj_begin(&c, UNSCALE, "lab3_unscale");
    sj_inout(&c, g, floats(n, 1));
    sj_val(&c, n);
    sj_f32(&c, scale);
    sj_run(&c);
    return SJ_RESULT(int, &c) != 0;
}

void lab3_scaler_update(lab3_grad_scaler *s, bool found_inf)
{
    sj_call c;
    sj_begin(&c, SCALER_UPDATE, "lab3_scaler_update");
    sj_inout(&c, s, sizeof *s);
    sj_val(&c, found_inf);
    sj_run(&c);
}

void lab3_sgd_step(lab3_linear *L, float lr, float momentum)
{
    sj_call c;
    lab3_linear keep = L ? *L : (lab3_linear){0};
    sj_begin(&c, SGD_STEP, "lab3_sgd_step");
    put_layer(&c, L, W | B | MW | MB);
    sj_f32(&c, lr);
    sj_f32(&c, momentum);
    sj_run(&c);
    restore_layer(L, &keep);
}

/* Every buffer of the model may change in a step: with the model itself,
 * 25 outputs, one more than an sj_call holds (channel.h). So the model
 * goes in as an input, and comes back from its copy by hand. */
lab3_step lab3_train_step(lab3_mlp *m, const float *x, const uint8_t *labels, size_t batch)
{
    sj_call c;
    sj_begin(&c, TRAIN_STEP, "lab3_train_step");
    lab3_mlp *copy = sj_in(&c, m, sizeof *m);
    if (copy) {
        put_buffers(&c, &copy->l1, W | B | DW | DB | MW | MB | XQ | WQ | DYQ);
        put_buffers(&c, &copy->l2, W | B | DW | DB | MW | MB | XQ | WQ | DYQ);
        size_t bytes[MODEL_BUFFERS] = {floats(m->max_batch, m->hidden),
                                       floats(m->max_batch, m->hidden),
                                       floats(m->max_batch, LAB3_CLASSES),
                                       floats(m->max_batch, LAB3_CLASSES),
                                       floats(m->max_batch, m->hidden),
                                       floats(m->max_batch, m->hidden)};
        float **f[MODEL_BUFFERS];
        model_fields(copy, f);
        for (int i = 0; i < MODEL_BUFFERS; i++)
            sj_link(&c, f[i], sj_block(&c, *f[i], bytes[i], SJ_INOUT));
    }
    sj_in(&c, x, floats(batch, LAB3_INPUTS));
    sj_in(&c, labels, batch);
    sj_val(&c, batch);
    sj_run(&c);
    if (m) {
        lab3_mlp keep = *m;
        float **f[MODEL_BUFFERS], **k[MODEL_BUFFERS];
        *m = *copy;
        m->hidden = keep.hidden, m->max_batch = keep.max_batch;
        restore_layer(&m->l1, &keep.l1);
        restore_layer(&m->l2, &keep.l2);
        model_fields(m, f);
        model_fields(&keep, k);
        for (int i = 0; i < MODEL_BUFFERS; i++)
            *f[i] = *k[i];
    }
    return SJ_RESULT(lab3_step, &c);
}

void lab3_to_bf16(const float *x, size_t n, uint16_t *q)
{
    sj_call c;
    sj_begin(&c, TO_BF16, "lab3_to_bf16");
    sj_in(&c, x, floats(n, 1));
    sj_val(&c, n);
    sj_out(&c, q, sj_size(n, sizeof *q));
    sj_run(&c);
}

#endif
