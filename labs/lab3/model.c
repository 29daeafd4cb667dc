/*
 * model.c - lab3's given parts (model.h).
 */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idx.h"

void lab3_linear_free(lab3_linear *L)
{
    float *bufs[] = {L->w, L->b, L->dw, L->db, L->mw, L->mb, L->xq, L->wq, L->dyq};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    memset(L, 0, sizeof *L);
}

int lab3_linear_init(lab3_linear *L, size_t in, size_t out, size_t max_batch, rng_state *rng)
{
    memset(L, 0, sizeof *L);
    L->in = in;
    L->out = out;
    L->max_batch = max_batch;
    float **bufs[] = {&L->w, &L->dw, &L->mw, &L->wq};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        *bufs[i] = calloc(out * in, sizeof(float));
    L->b = calloc(out, sizeof(float));
    L->db = calloc(out, sizeof(float));
    L->mb = calloc(out, sizeof(float));
    L->xq = calloc(max_batch * in, sizeof(float));
    L->dyq = calloc(max_batch * out, sizeof(float));
    if (!L->w || !L->dw || !L->mw || !L->wq || !L->b || !L->db || !L->mb || !L->xq || !L->dyq) {
        lab3_linear_free(L);
        return -1;
    }
    float bound = 1.0f / sqrtf((float)in);
    rng_fill_uniform(rng, L->w, out * in, -bound, bound);
    delayed_init(&L->sx, FP8_E4M3, false, 16, 0);
    delayed_init(&L->sw, FP8_E4M3, false, 16, 0);
    delayed_init(&L->sdy, FP8_E5M2, false, 16, 0);
    L->xq_scale_inv = L->wq_scale_inv = 1.0f;
    return 0;
}

void lab3_mlp_free(lab3_mlp *m)
{
    lab3_linear_free(&m->l1);
    lab3_linear_free(&m->l2);
    float *bufs[] = {m->h, m->a, m->logits, m->dlogits, m->da, m->dh};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    memset(m, 0, sizeof *m);
}

int lab3_mlp_init(lab3_mlp *m, lab3_mode mode, size_t hidden, size_t max_batch, float lr,
                  float momentum, rng_state *rng)
{
    memset(m, 0, sizeof *m);
    m->mode = mode;
    m->hidden = hidden;
    m->max_batch = max_batch;
    m->lr = lr;
    m->momentum = momentum;
    m->gs = (lab3_grad_scaler){65536.0f, 2.0f, 0.5f, 2000, 0};
    if (lab3_linear_init(&m->l1, LAB3_INPUTS, hidden, max_batch, rng) != 0 ||
        lab3_linear_init(&m->l2, hidden, LAB3_CLASSES, max_batch, rng) != 0)
        goto fail;
    m->h = calloc(max_batch * hidden, sizeof(float));
    m->a = calloc(max_batch * hidden, sizeof(float));
    m->da = calloc(max_batch * hidden, sizeof(float));
    m->dh = calloc(max_batch * hidden, sizeof(float));
    m->logits = calloc(max_batch * LAB3_CLASSES, sizeof(float));
    m->dlogits = calloc(max_batch * LAB3_CLASSES, sizeof(float));
    if (m->h && m->a && m->da && m->dh && m->logits && m->dlogits)
        return 0;
fail:
    lab3_mlp_free(m);
    return -1;
}

double lab3_evaluate(lab3_mlp *m, const float *x, const uint8_t *labels, size_t n)
{
    /* Forward casts record amaxes; evaluation must not move the scales. */
    delayed_scaler saved[4] = {m->l1.sx, m->l1.sw, m->l2.sx, m->l2.sw};
    size_t right = 0;
    for (size_t first = 0; first < n; first += m->max_batch) {
        size_t batch = n - first < m->max_batch ? n - first : m->max_batch;
        lab3_linear_forward(&m->l1, x + first * LAB3_INPUTS, batch, m->mode, m->h);
        for (size_t i = 0; i < batch * m->hidden; i++)
            m->a[i] = m->h[i] > 0.0f ? m->h[i] : 0.0f;
        lab3_linear_forward(&m->l2, m->a, batch, m->mode, m->logits);
        for (size_t r = 0; r < batch; r++) {
            const float *l = m->logits + r * LAB3_CLASSES;
            int best = 0;
            for (int c = 1; c < LAB3_CLASSES; c++)
                if (l[c] > l[best])
                    best = c;
            right += best == labels[first + r];
        }
        m->l1.sx = saved[0];
        m->l1.sw = saved[1];
        m->l2.sx = saved[2];
        m->l2.sw = saved[3];
    }
    return n ? (double)right / (double)n : 0.0;
}

void lab3_data_free(lab3_data *d)
{
    free(d->x);
    free(d->y);
    memset(d, 0, sizeof *d);
}

int lab3_data_load(const char *dir, const char *split, lab3_data *d, lab_error *err)
{
    char ipath[4096], lpath[4096];
    idx_array im = {0}, lb = {0};
    size_t ishape[3] = {0, 28, 28};
    memset(d, 0, sizeof *d);
    snprintf(ipath, sizeof ipath, "%s/%s-images-idx3-ubyte.gz", dir, split);
    snprintf(lpath, sizeof lpath, "%s/%s-labels-idx1-ubyte.gz", dir, split);
    if (idx_load_expect(ipath, 3, ishape, &im, err) != 0)
        return -1;
    if (idx_load_expect(lpath, 1, NULL, &lb, err) != 0) {
        idx_free(&im);
        return -1;
    }
    int rc = -1;
    if (lb.shape[0] != im.shape[0]) {
        lab_errorf(err, "%s: %zu labels for the %zu images of %s", lpath, lb.shape[0],
                   im.shape[0], ipath);
        goto out;
    }
    for (size_t i = 0; i < lb.count; i++) {
        if (lb.data[i] >= LAB3_CLASSES) {
            lab_errorf(err, "%s: label %zu is %u, not a class 0..9", lpath, i, lb.data[i]);
            goto out;
        }
    }
    d->n = im.shape[0];
    d->x = malloc(im.count * sizeof(float));
    d->y = malloc(d->n ? d->n : 1);
    if (!d->x || !d->y) {
        lab_errorf(err, "%s: out of memory", ipath);
        lab3_data_free(d);
        goto out;
    }
    for (size_t i = 0; i < im.count; i++)
        d->x[i] = (float)im.data[i] / 255.0f;
    memcpy(d->y, lb.data, d->n);
    rc = 0;
out:
    idx_free(&im);
    idx_free(&lb);
    return rc;
}
