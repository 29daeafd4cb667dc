/*
 * formats.c - lab3's format comparison (formats.h): the 16-bit step and the
 * gradient casts' tallies. Given, not graded.
 */
#include "formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const lab3_kind_info KINDS[KIND_COUNT] = {
    [KIND_FP32] = {"FP32", "fp32", LAB3_FP32, false, FP16_HALF, true},
    [KIND_BF16] = {"BF16", "bf16", LAB3_FP32, true, FP16_BF16, false},
    [KIND_FP16] = {"FP16", "fp16", LAB3_FP32, true, FP16_HALF, false},
    [KIND_FP16_LS] = {"FP16+LS", "fp16ls", LAB3_FP32, true, FP16_HALF, true},
    [KIND_FP8] = {"FP8", "fp8", LAB3_FP8, false, FP16_HALF, true},
};

const lab3_kind_info *lab3_kind_of(lab3_kind k)
{
    return (unsigned)k < KIND_COUNT ? &KINDS[k] : NULL;
}

int lab3_wide_buffers_init(lab3_wide_buffers *b, size_t hidden, size_t max_batch)
{
    memset(b, 0, sizeof *b);
    /* codes holds the BF16 codes of whichever tensor is being rounded */
    size_t sizes[] = {max_batch * LAB3_INPUTS, hidden * LAB3_INPUTS, max_batch * hidden,
                      LAB3_CLASSES * hidden, max_batch * LAB3_CLASSES};
    size_t most = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        most = sizes[i] > most ? sizes[i] : most;
    b->x = malloc(max_batch * LAB3_INPUTS * sizeof(float));
    b->w1 = malloc(hidden * LAB3_INPUTS * sizeof(float));
    b->w2 = malloc(LAB3_CLASSES * hidden * sizeof(float));
    b->a = malloc(max_batch * hidden * sizeof(float));
    b->dy2 = malloc(max_batch * LAB3_CLASSES * sizeof(float));
    b->dy1 = malloc(max_batch * hidden * sizeof(float));
    b->codes = malloc(most * sizeof(uint16_t));
    if (!b->x || !b->w1 || !b->w2 || !b->a || !b->dy2 || !b->dy1 || !b->codes) {
        lab3_wide_buffers_free(b);
        return -1;
    }
    return 0;
}

void lab3_wide_buffers_free(lab3_wide_buffers *b)
{
    free(b->x);
    free(b->w1);
    free(b->w2);
    free(b->a);
    free(b->dy2);
    free(b->dy1);
    free(b->codes);
    memset(b, 0, sizeof *b);
}

void lab3_no_loss_scaling(lab3_mlp *m)
{
    m->gs.scale = 1.0f;
    m->gs.growth_factor = 1.0f;
    m->gs.backoff_factor = 1.0f;
}

/* out = in rounded to fmt: BF16 by the student's cast, FP16 by the codec. */
static void round_to(fp16_format fmt, const float *in, float *out, size_t n, uint16_t *codes)
{
    if (fmt == FP16_BF16) {
        lab3_to_bf16(in, n, codes);
        fp16_decode_array(codes, out, n, FP16_BF16);
    } else {
        fp16_round_array(in, out, n, fmt);
    }
}

/* Adds the cast of the n gradients dy into q to *t; q is in dy's units
 * times scale. An element overflowed when it became inf, or, for FP8's
 * saturating cast (max finite), when dy times scale was past max. */
static void tally(const float *dy, const float *q, size_t n, float scale, float max,
                  lab3_cast_tally *t)
{
    for (size_t i = 0; i < n; i++) {
        if (dy[i] == 0.0f || !isfinite(dy[i]))
            continue;
        t->nonzero++;
        t->flushed += q[i] == 0.0f;
        t->overflowed += isinf(q[i]) || fabsf(dy[i]) * scale > max;
    }
}

/* y = layer(x) with its operands rounded: x into xr, W into wr, the master
 * weight put back after. */
static void forward_rounded(lab3_linear *L, fp16_format fmt, const float *x, size_t batch,
                            float *xr, float *wr, uint16_t *codes, float *y)
{
    round_to(fmt, x, xr, batch * L->in, codes);
    round_to(fmt, L->w, wr, L->out * L->in, codes);
    float *master = L->w;
    L->w = wr;
    lab3_linear_forward(L, xr, batch, LAB3_FP32, y);
    L->w = master;
}

lab3_step lab3_wide_step(lab3_mlp *m, fp16_format fmt, const float *x, const uint8_t *labels,
                         size_t batch, lab3_wide_buffers *b, lab3_cast_tally *t)
{
    lab3_linear *l1 = &m->l1, *l2 = &m->l2;
    size_t nh = batch * m->hidden, nl = batch * LAB3_CLASSES;
    lab3_step st = {0.0f, false};

    memset(l1->dw, 0, l1->out * l1->in * sizeof(float));
    memset(l1->db, 0, l1->out * sizeof(float));
    memset(l2->dw, 0, l2->out * l2->in * sizeof(float));
    memset(l2->db, 0, l2->out * sizeof(float));

    forward_rounded(l1, fmt, x, batch, b->x, b->w1, b->codes, m->h);
    for (size_t i = 0; i < nh; i++)
        m->a[i] = m->h[i] > 0.0f ? m->h[i] : 0.0f;
    forward_rounded(l2, fmt, m->a, batch, b->a, b->w2, b->codes, m->logits);
    st.loss = lab3_softmax_xent(m->logits, labels, batch, m->gs.scale, m->dlogits);

    /* wq and xq hold the rounded operands forward multiplied */
    round_to(fmt, m->dlogits, b->dy2, nl, b->codes);
    tally(m->dlogits, b->dy2, nl, 1.0f, INFINITY, t);
    lab3_linear_backward(l2, b->dy2, batch, LAB3_FP32, m->da);
    for (size_t i = 0; i < nh; i++)
        m->dh[i] = m->h[i] > 0.0f ? m->da[i] : 0.0f;
    round_to(fmt, m->dh, b->dy1, nh, b->codes);
    tally(m->dh, b->dy1, nh, 1.0f, INFINITY, t);
    lab3_linear_backward(l1, b->dy1, batch, LAB3_FP32, NULL);

    bool found_inf = false;
    found_inf |= lab3_unscale(l1->dw, l1->out * l1->in, m->gs.scale);
    found_inf |= lab3_unscale(l1->db, l1->out, m->gs.scale);
    found_inf |= lab3_unscale(l2->dw, l2->out * l2->in, m->gs.scale);
    found_inf |= lab3_unscale(l2->db, l2->out, m->gs.scale);
    if (!found_inf) {
        lab3_sgd_step(l1, m->lr, m->momentum);
        lab3_sgd_step(l2, m->lr, m->momentum);
    }
    lab3_scaler_update(&m->gs, found_inf);
    st.skipped = found_inf;
    return st;
}

void lab3_tally_fp8(const lab3_mlp *m, size_t batch, float s1, float s2, lab3_cast_tally *t)
{
    tally(m->dlogits, m->l2.dyq, batch * LAB3_CLASSES, s2,
          fp8_info(m->l2.sdy.fmt)->max_finite, t);
    tally(m->dh, m->l1.dyq, batch * m->hidden, s1, fp8_info(m->l1.sdy.fmt)->max_finite, t);
}
