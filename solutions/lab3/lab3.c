/*
 * lab3.c - lab3, the FP8 MLP training loop: the reference solution.
 *
 * Each function follows lab3.h and the handout (labs/lab3/README.md). The
 * grader's goldens (data/golden/lab3) are made from this file by
 * grading/lab3_goldens.c; tests/lab3/ checks them independently (finite
 * differences, a double-precision model, hand-worked scaler steps).
 */
#include "lab3.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

void lab3_cast(delayed_scaler *s, const float *x, size_t n, float *q)
{
    /* Four running maxima, so the comparisons need not wait on each other;
     * a > m is false for a NaN, which is thus skipped. */
    float m[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++)
            m[k] = fabsf(x[i + k]) > m[k] ? fabsf(x[i + k]) : m[k];
    for (; i < n; i++)
        m[0] = fabsf(x[i]) > m[0] ? fabsf(x[i]) : m[0];
    delayed_record(s, fmaxf(fmaxf(m[0], m[1]), fmaxf(m[2], m[3])));
    /* In chunks through the library's bulk codec, which vectorizes: the
     * same bits as fp8_decode(fp8_encode(x * scale)) one at a time. */
    enum { CHUNK = 1024 };
    uint8_t codes[CHUNK];
    for (size_t first = 0; first < n; first += CHUNK) {
        size_t len = n - first < CHUNK ? n - first : CHUNK;
        for (size_t i = 0; i < len; i++)
            q[first + i] = x[first + i] * s->scale;
        fp8_encode_array(q + first, codes, len, s->fmt, true);
        fp8_decode_array(codes, q + first, len, s->fmt);
    }
}

void lab3_linear_forward(lab3_linear *L, const float *x, size_t batch, lab3_mode mode,
                         float *y)
{
    size_t in = L->in, out = L->out;
    if (mode == LAB3_FP8) {
        lab3_cast(&L->sx, x, batch * in, L->xq);
        lab3_cast(&L->sw, L->w, out * in, L->wq);
        L->xq_scale_inv = L->sx.scale_inv;
        L->wq_scale_inv = L->sw.scale_inv;
    } else {
        memcpy(L->xq, x, batch * in * sizeof(float));
        memcpy(L->wq, L->w, out * in * sizeof(float));
        L->xq_scale_inv = 1.0f;
        L->wq_scale_inv = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)batch, (int)out, (int)in, 1.0f,
                L->xq, (int)in, L->wq, (int)in, 0.0f, y, (int)out);
    float s = L->xq_scale_inv * L->wq_scale_inv;
    for (size_t r = 0; r < batch; r++)
        for (size_t o = 0; o < out; o++)
            y[r * out + o] = y[r * out + o] * s + L->b[o];
}

void lab3_linear_backward(lab3_linear *L, const float *dy, size_t batch, lab3_mode mode,
                          float *dx)
{
    size_t in = L->in, out = L->out;
    float sinv_dy = 1.0f;
    if (mode == LAB3_FP8) {
        lab3_cast(&L->sdy, dy, batch * out, L->dyq);
        sinv_dy = L->sdy.scale_inv;
    } else {
        memcpy(L->dyq, dy, batch * out * sizeof(float));
    }
    if (dx)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)batch, (int)in, (int)out,
                    sinv_dy * L->wq_scale_inv, L->dyq, (int)out, L->wq, (int)in, 0.0f, dx,
                    (int)in);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)out, (int)in, (int)batch,
                sinv_dy * L->xq_scale_inv, L->dyq, (int)out, L->xq, (int)in, 1.0f, L->dw,
                (int)in);
    for (size_t r = 0; r < batch; r++)
        for (size_t o = 0; o < out; o++)
            L->db[o] += dy[r * out + o];
}

float lab3_softmax_xent(const float *logits, const uint8_t *labels, size_t batch,
                        float loss_scale, float *dlogits)
{
    double total = 0.0;
    float g = loss_scale / (float)batch;
    for (size_t r = 0; r < batch; r++) {
        const float *l = logits + r * LAB3_CLASSES;
        float *d = dlogits + r * LAB3_CLASSES;
        float m = l[0];
        for (int c = 1; c < LAB3_CLASSES; c++)
            m = fmaxf(m, l[c]);
        float sum = 0.0f;
        for (int c = 0; c < LAB3_CLASSES; c++) {
            d[c] = expf(l[c] - m);
            sum += d[c];
        }
        total += (double)logf(sum) - (double)(l[labels[r]] - m);
        for (int c = 0; c < LAB3_CLASSES; c++)
            d[c] = (d[c] / sum - (c == labels[r] ? 1.0f : 0.0f)) * g;
    }
    return (float)(total / (double)batch);
}

bool lab3_unscale(float *g, size_t n, float scale)
{
    float inv = (float)(1.0 / (double)scale);
    bool found_inf = false;
    for (size_t i = 0; i < n; i++) {
        g[i] = g[i] * inv;
        if (!isfinite(g[i]))
            found_inf = true;
    }
    return found_inf;
}

void lab3_scaler_update(lab3_grad_scaler *s, bool found_inf)
{
    if (found_inf) {
        s->scale = s->scale * s->backoff_factor;
        s->growth_tracker = 0;
        return;
    }
    int successful = s->growth_tracker + 1;
    if (successful == s->growth_interval) {
        float grown = s->scale * s->growth_factor;
        if (isfinite(grown))
            s->scale = grown;
        s->growth_tracker = 0;
    } else {
        s->growth_tracker = successful;
    }
}

static void sgd(float *w, float *m, const float *g, size_t n, float lr, float momentum)
{
    for (size_t i = 0; i < n; i++) {
        m[i] = momentum * m[i] + g[i];
        w[i] = w[i] - lr * m[i];
    }
}

void lab3_sgd_step(lab3_linear *L, float lr, float momentum)
{
    sgd(L->w, L->mw, L->dw, L->out * L->in, lr, momentum);
    sgd(L->b, L->mb, L->db, L->out, lr, momentum);
}

lab3_step lab3_train_step(lab3_mlp *m, const float *x, const uint8_t *labels, size_t batch)
{
    lab3_linear *l1 = &m->l1, *l2 = &m->l2;
    size_t nh = batch * m->hidden;
    lab3_step st = {0.0f, false};

    memset(l1->dw, 0, l1->out * l1->in * sizeof(float));
    memset(l1->db, 0, l1->out * sizeof(float));
    memset(l2->dw, 0, l2->out * l2->in * sizeof(float));
    memset(l2->db, 0, l2->out * sizeof(float));

    lab3_linear_forward(l1, x, batch, m->mode, m->h);
    for (size_t i = 0; i < nh; i++)
        m->a[i] = m->h[i] > 0.0f ? m->h[i] : 0.0f;
    lab3_linear_forward(l2, m->a, batch, m->mode, m->logits);
    st.loss = lab3_softmax_xent(m->logits, labels, batch, m->gs.scale, m->dlogits);

    lab3_linear_backward(l2, m->dlogits, batch, m->mode, m->da);
    for (size_t i = 0; i < nh; i++)
        m->dh[i] = m->h[i] > 0.0f ? m->da[i] : 0.0f;
    lab3_linear_backward(l1, m->dh, batch, m->mode, NULL);

    bool found_inf = lab3_unscale(l1->dw, l1->out * l1->in, m->gs.scale);
    found_inf |= lab3_unscale(l1->db, l1->out, m->gs.scale);
    found_inf |= lab3_unscale(l2->dw, l2->out * l2->in, m->gs.scale);
    found_inf |= lab3_unscale(l2->db, l2->out, m->gs.scale);
    if (!found_inf) {
        lab3_sgd_step(l1, m->lr, m->momentum);
        lab3_sgd_step(l2, m->lr, m->momentum);
    }
    lab3_scaler_update(&m->gs, found_inf);
    if (m->mode == LAB3_FP8) {
        delayed_scaler *all[6] = {&l1->sx, &l1->sw, &l1->sdy, &l2->sx, &l2->sw, &l2->sdy};
        for (int i = 0; i < 6; i++)
            delayed_update(all[i]);
    }
    st.skipped = found_inf;
    return st;
}
