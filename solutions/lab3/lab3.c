/*
 * lab3.c - lab3, the FP8 MLP training loop: the reference solution.
 *
 * Each function follows lab3.h and the handout (labs/lab3/README.md). The
 * grader's goldens (data/golden/lab3) are made from this file by
 * grading/lab3/goldens.c; tests/lab3/ checks them independently (finite
 * differences, a double-precision model, hand-worked scaler steps).
 */
#include "lab3.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "bits.h"

/*
 * The reference does the handout's arithmetic four elements at a time, with
 * GCC's vector extensions (SSE2, which every x86-64 has; other machines get
 * the same code from the compiler's generic lowering). The loops below are
 * the plain ones of the handout with that one change; README §9 says why.
 */
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

static inline v4f load4(const float *p)
{
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store4(float *p, v4f v)
{
    memcpy(p, &v, sizeof v);
}

/* Where mask (all ones or all zeros per lane) is set, a; elsewhere b. */
static inline v4i select4(v4i mask, v4i a, v4i b)
{
    return (a & mask) | (b & ~mask);
}

/* fp8_decode(fp8_encode(y, fmt, true), fmt) for the four y, computed on the
 * float's bits without forming the code: the saturating cast to nearest,
 * ties to even, and back, of a format with subnormals (E4M3, E5M2). It is
 * the library's encoder (common/fp8.c, encode_nearest_fast) with the value
 * of its code kept in place of the code:
 *   |y| >= min normal  add half an ulp of the format (less one, plus the
 *                      kept bit: ties go to even), clear the dropped bits;
 *   |y| <  min normal  (|y| + magic) - magic, with magic = 2^(emin + 23 -
 *                      man), whose float ulp is the smallest subnormal: one
 *                      float addition rounds to it, to nearest even;
 *   past max, or inf   max (saturating); NaN  the NaN fp8_decode gives.
 * tests/lab3 and the grader check it against the library's codec. */
typedef struct round_params {
    int32_t half, keep_lsb_shift, drop_mask, min_normal, max, magic_bits;
    float magic;
} round_params;

static round_params round_params_of(const fp8_format_info *f)
{
    int s = 23 - f->man_bits;
    round_params p;
    p.half = (1 << (s - 1)) - 1;
    p.keep_lsb_shift = s;
    p.drop_mask = ~((1 << s) - 1);
    p.min_normal = (int32_t)f32_bits(f->min_normal);
    p.max = (int32_t)f32_bits(f->max_finite);
    p.magic_bits = (127 + f->emin + 23 - f->man_bits) << 23;
    p.magic = f32_from_bits((uint32_t)p.magic_bits);
    return p;
}

static inline v4f round4(v4f y, const round_params *p)
{
    v4i u = (v4i)y;
    v4i a = u & 0x7FFFFFFF;
    v4i sign = u & INT32_MIN;
    v4i normal = (a + p->half + ((a >> p->keep_lsb_shift) & 1)) & p->drop_mask;
    v4i sub = (v4i)(((v4f)a + p->magic) - p->magic);
    v4i mag = select4(a < p->min_normal, sub, normal);
    mag = select4(mag > p->max, (v4i){0} + p->max, mag);
    return (v4f)select4(a > 0x7F800000, (v4i){0} + (int32_t)f32_bits(NAN), mag | sign);
}

void lab3_cast(delayed_scaler *s, const float *x, size_t n, float *q)
{
    const fp8_format_info *f = fp8_info(s->fmt);
    const float scale = s->scale;
    /* amax by a running maximum per lane: a > m is false for a NaN, which
     * is thus skipped; the lanes' maxima are then combined the same way. */
    v4f m4 = {0.0f, 0.0f, 0.0f, 0.0f};
    size_t i = 0;
    if (f && f->has_subnormals && f->has_zero) {
        const round_params p = round_params_of(f);
        for (; i + 4 <= n; i += 4) {
            v4f v = load4(x + i);
            v4f a = (v4f)((v4i)v & 0x7FFFFFFF);
            m4 = (v4f)select4(a > m4, (v4i)a, (v4i)m4);
            store4(q + i, round4(v * scale, &p));
        }
    }
    float m = 0.0f;
    for (int k = 0; k < 4; k++)
        m = m4[k] > m ? m4[k] : m;
    for (size_t j = i; j < n; j++) {
        float a = fabsf(x[j]);
        m = a > m ? a : m;
        q[j] = fp8_decode(fp8_encode(x[j] * scale, s->fmt, true), s->fmt);
    }
    delayed_record(s, m);
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
    for (size_t r = 0; r < batch; r++) {
        float *yr = y + r * out;
        size_t o = 0;
        for (; o + 4 <= out; o += 4)
            store4(yr + o, load4(yr + o) * s + load4(L->b + o));
        for (; o < out; o++)
            yr[o] = yr[o] * s + L->b[o];
    }
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
    /* Not finite: exponent bits all ones, i.e. |g| > FLT_MAX as bits. */
    v4i bad4 = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4f v = load4(g + i) * inv;
        store4(g + i, v);
        bad4 |= ((v4i)v & 0x7FFFFFFF) > 0x7F7FFFFF;
    }
    bool found_inf = (bad4[0] | bad4[1] | bad4[2] | bad4[3]) != 0;
    for (; i < n; i++) {
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
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4f mi = momentum * load4(m + i) + load4(g + i);
        store4(m + i, mi);
        store4(w + i, load4(w + i) - lr * mi);
    }
    for (; i < n; i++) {
        m[i] = momentum * m[i] + g[i];
        w[i] = w[i] - lr * m[i];
    }
}

void lab3_sgd_step(lab3_linear *L, float lr, float momentum)
{
    sgd(L->w, L->mw, L->dw, L->out * L->in, lr, momentum);
    sgd(L->b, L->mb, L->db, L->out, lr, momentum);
}

/* out[i] = h[i] > 0 ? v[i] : 0: the ReLU (v = h) and its gradient (v = da). */
static void relu_mask(float *out, const float *v, const float *h, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        store4(out + i, (v4f)((v4i)load4(v + i) & (load4(h + i) > 0.0f)));
    for (; i < n; i++)
        out[i] = h[i] > 0.0f ? v[i] : 0.0f;
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
    relu_mask(m->a, m->h, m->h, nh);
    lab3_linear_forward(l2, m->a, batch, m->mode, m->logits);
    st.loss = lab3_softmax_xent(m->logits, labels, batch, m->gs.scale, m->dlogits);

    lab3_linear_backward(l2, m->dlogits, batch, m->mode, m->da);
    relu_mask(m->dh, m->da, m->h, nh);
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

void lab3_to_bf16(const float *x, size_t n, uint16_t *q)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u = f32_bits(x[i]);
        /* 0x7FFF is one less than half the dropped part's range; adding the
         * kept part's lowest bit makes an exact half round to even. A NaN
         * could carry into the sign (0x7FFFFFFF + 0x8000) or lose its
         * payload to an inf: it gets the canonical code instead. */
        if ((u & 0x7FFFFFFFu) > 0x7F800000u)
            q[i] = 0x7FFF;
        else
            q[i] = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    }
}
