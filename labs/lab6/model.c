/*
 * model.c - lab6's transformer in FP32 (model.h): forward, backward, AdamW,
 * the text and sampling. Matrix products go through cblas_sgemm; the
 * linear layers' through the model's gpt_gemms.
 */
#include "model.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"

gpt_config gpt_config_default(void)
{
    gpt_config c = {.vocab = GPT_VOCAB, .d_model = 128, .n_layer = 2, .n_head = 4,
                    .n_kv_head = 2, .d_ff = 384, .ctx = 128, .rope_theta = 10000.0f,
                    .norm_eps = 1e-5f};
    return c;
}

/* ---- the FP32 products ---------------------------------------------------------- */

static void fp32_forward(void *ctx, int id, const float *x, const float *w, float *y, size_t M,
                         size_t N, size_t K)
{
    (void)ctx, (void)id;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K, 1.0f, x, (int)K,
                w, (int)K, 0.0f, y, (int)N);
}

static void fp32_backward(void *ctx, int id, const float *dy, const float *x, const float *w,
                          float *dx, float *dw, size_t M, size_t N, size_t K)
{
    (void)ctx, (void)id;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)K, (int)N, 1.0f, dy,
                (int)N, w, (int)K, 0.0f, dx, (int)K);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)N, (int)K, (int)M, 1.0f, dy, (int)N,
                x, (int)K, 0.0f, dw, (int)K);
}

gpt_gemms gpt_gemms_fp32(void)
{
    gpt_gemms g = {fp32_forward, fp32_backward, NULL};
    return g;
}

/* ---- sizes and buffers ------------------------------------------------------------ */

typedef struct dims {
    size_t D, L, H, KV, hd, Qd, F, V, C;
} dims;

static dims dims_of(const gpt_config *c)
{
    dims d;
    d.D = (size_t)c->d_model;
    d.L = (size_t)c->n_layer;
    d.H = (size_t)c->n_head;
    d.KV = (size_t)c->n_kv_head;
    d.hd = d.D / d.H;
    d.Qd = (d.H + 2 * d.KV) * d.hd;
    d.F = (size_t)c->d_ff;
    d.V = (size_t)c->vocab;
    d.C = (size_t)c->ctx;
    return d;
}

/* One block's saved activations, each max_tokens rows (P: max_tokens x
 * n_head x ctx). */
typedef struct block_acts {
    float *res_in, *rstd1, *h1, *qkv, *P, *att, *res_mid, *rstd2, *h2, *gu, *act;
} block_acts;

static size_t block_floats(const dims *d, size_t T)
{
    return T * (d->D * 6 + 2 + d->Qd + d->H * d->C + 3 * d->F);
}

static block_acts block_at(const gpt_model *m, size_t l)
{
    dims d = dims_of(&m->cfg);
    size_t T = m->max_tokens;
    float *p = m->acts + l * block_floats(&d, T);
    block_acts a;
    a.res_in = p, p += T * d.D;
    a.rstd1 = p, p += T;
    a.h1 = p, p += T * d.D;
    a.qkv = p, p += T * d.Qd;
    a.P = p, p += T * d.H * d.C;
    a.att = p, p += T * d.D;
    a.res_mid = p, p += T * d.D;
    a.rstd2 = p, p += T;
    a.h2 = p, p += T * d.D;
    a.gu = p, p += T * 2 * d.F;
    a.act = p;
    return a;
}

/* After the blocks: the last residual, its norm and the logits. */
typedef struct head_acts {
    float *res, *rstd, *h, *logits;
} head_acts;

static head_acts head_at(const gpt_model *m)
{
    dims d = dims_of(&m->cfg);
    size_t T = m->max_tokens;
    float *p = m->acts + d.L * block_floats(&d, T);
    head_acts a;
    a.res = p, p += T * d.D;
    a.rstd = p, p += T;
    a.h = p, p += T * d.D;
    a.logits = p;
    return a;
}

static size_t acts_floats(const dims *d, size_t T)
{
    return d->L * block_floats(d, T) + T * (2 * d->D + 1 + d->V);
}

/* The backward pass's buffers. */
typedef struct grads_scratch {
    float *dres, *dh, *dtmp, *dqkv, *datt, *dS, *dgu, *dact, *dlogits;
} grads_scratch;

static size_t scratch_floats(const dims *d, size_t T)
{
    return T * (4 * d->D + d->Qd + 3 * d->F + d->V) + T * d->H * d->C;
}

static grads_scratch scratch_at(const gpt_model *m)
{
    dims d = dims_of(&m->cfg);
    size_t T = m->max_tokens;
    float *p = m->scratch;
    grads_scratch s;
    s.dres = p, p += T * d.D;
    s.dh = p, p += T * d.D;
    s.dtmp = p, p += T * d.D;
    s.dqkv = p, p += T * d.Qd;
    s.datt = p, p += T * d.D;
    s.dgu = p, p += T * 2 * d.F;
    s.dact = p, p += T * d.F;
    s.dlogits = p, p += T * d.V;
    s.dS = p;
    return s;
}

static int check_config(const gpt_config *c, lab_error *err)
{
    if (c->vocab != GPT_VOCAB)
        return lab_errorf(err, "gpt config: vocab %d, expected %d", c->vocab, GPT_VOCAB);
    if (c->d_model < 2 || c->n_layer < 1 || c->n_head < 1 || c->n_kv_head < 1 || c->d_ff < 1 ||
        c->ctx < 1)
        return lab_errorf(err, "gpt config: every size must be positive (d_model %d, n_layer %d, "
                               "n_head %d, n_kv_head %d, d_ff %d, ctx %d)",
                          c->d_model, c->n_layer, c->n_head, c->n_kv_head, c->d_ff, c->ctx);
    if (c->d_model % c->n_head || (c->d_model / c->n_head) % 2)
        return lab_errorf(err, "gpt config: d_model %d is not n_head %d times an even head_dim",
                          c->d_model, c->n_head);
    if (c->n_head % c->n_kv_head)
        return lab_errorf(err, "gpt config: n_kv_head %d does not divide n_head %d",
                          c->n_kv_head, c->n_head);
    if (!(c->rope_theta > 1.0f) || !(c->norm_eps > 0.0f))
        return lab_errorf(err, "gpt config: rope_theta %g must be above 1 and norm_eps %g above 0",
                          (double)c->rope_theta, (double)c->norm_eps);
    return 0;
}

static void add_tensor(gpt_model *m, size_t *off, const char *name, size_t rows, size_t cols,
                       int decay)
{
    gpt_tensor *t = &m->tensors[m->n_tensors++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->w = m->params + *off;
    t->g = m->grads + *off;
    t->rows = rows;
    t->cols = cols;
    t->decay = decay;
    *off += rows * cols;
}

static void fill_normal(float *w, size_t n, float sd, rng_state *rng)
{
    for (size_t i = 0; i < n; i++)
        w[i] = sd * rng_normal(rng);
}

int gpt_init(gpt_model *m, const gpt_config *cfg, size_t max_tokens, rng_state *rng,
             lab_error *err)
{
    memset(m, 0, sizeof *m);
    if (check_config(cfg, err))
        return -1;
    if (max_tokens < 1)
        return lab_errorf(err, "gpt_init: max_tokens must be positive");
    m->cfg = *cfg;
    m->max_tokens = max_tokens;
    m->gemms = gpt_gemms_fp32();
    dims d = dims_of(cfg);
    m->n_params = d.V * d.D * 2 + d.D +
                  d.L * (2 * d.D + d.Qd * d.D + d.D * d.D + 2 * d.F * d.D + d.D * d.F);
    m->params = malloc(m->n_params * sizeof(float));
    m->grads = calloc(m->n_params, sizeof(float));
    m->tensors = calloc(3 + 6 * d.L, sizeof(gpt_tensor));
    m->acts = calloc(acts_floats(&d, max_tokens), sizeof(float));
    m->scratch = calloc(scratch_floats(&d, max_tokens), sizeof(float));
    m->rope_cos = malloc(d.C * d.hd / 2 * sizeof(float));
    m->rope_sin = malloc(d.C * d.hd / 2 * sizeof(float));
    if (!m->params || !m->grads || !m->tensors || !m->acts || !m->scratch || !m->rope_cos ||
        !m->rope_sin) {
        gpt_free(m);
        return lab_errorf(err, "gpt_init: out of memory");
    }
    size_t off = 0;
    char name[32];
    add_tensor(m, &off, "wte", d.V, d.D, 1);
    static const char *const parts[6] = {"attn_norm", "w_qkv", "w_o", "mlp_norm", "w_gu", "w_down"};
    for (int l = 0; l < cfg->n_layer; l++) {
        size_t rows[6] = {1, d.Qd, d.D, 1, 2 * d.F, d.D}, cols[6] = {d.D, d.D, d.D, d.D, d.D, d.F};
        for (int k = 0; k < 6; k++) {
            snprintf(name, sizeof name, "layer%d.%s", l, parts[k]);
            add_tensor(m, &off, name, rows[k], cols[k], rows[k] > 1);
        }
    }
    add_tensor(m, &off, "norm_f", 1, d.D, 0);
    add_tensor(m, &off, "lm_head", d.V, d.D, 1);
    float resid_sd = 0.02f / sqrtf(2.0f * (float)d.L);
    for (int i = 0; i < m->n_tensors; i++) {
        gpt_tensor *t = &m->tensors[i];
        size_t n = t->rows * t->cols;
        if (!t->decay)
            for (size_t j = 0; j < n; j++)
                t->w[j] = 1.0f;
        else
            fill_normal(t->w, n, strstr(t->name, "w_o") || strstr(t->name, "w_down") ? resid_sd
                                                                                      : 0.02f,
                        rng);
    }
    for (size_t t = 0; t < d.C; t++)
        for (size_t i = 0; i < d.hd / 2; i++) {
            double angle = (double)t * pow((double)cfg->rope_theta, -2.0 * (double)i / (double)d.hd);
            m->rope_cos[t * d.hd / 2 + i] = (float)cos(angle);
            m->rope_sin[t * d.hd / 2 + i] = (float)sin(angle);
        }
    return 0;
}

void gpt_free(gpt_model *m)
{
    free(m->params);
    free(m->grads);
    free(m->tensors);
    free(m->acts);
    free(m->scratch);
    free(m->rope_cos);
    free(m->rope_sin);
    memset(m, 0, sizeof *m);
}

gpt_tensor *gpt_find(gpt_model *m, const char *name)
{
    for (int i = 0; i < m->n_tensors; i++)
        if (strcmp(m->tensors[i].name, name) == 0)
            return &m->tensors[i];
    return NULL;
}

static gpt_tensor *tensor_of(gpt_model *m, size_t l, int which)
{
    /* 0 attn_norm, 1 w_qkv, 2 w_o, 3 mlp_norm, 4 w_gu, 5 w_down */
    return &m->tensors[1 + 6 * l + (size_t)which];
}

/* ---- the pieces, forward and backward ----------------------------------------------- */

static void rmsnorm_forward(const float *x, const float *g, float *y, float *rstd, size_t T,
                            size_t D, float eps)
{
    for (size_t t = 0; t < T; t++) {
        const float *xr = x + t * D;
        double ss = 0.0;
        for (size_t i = 0; i < D; i++)
            ss += (double)xr[i] * xr[i];
        float r = (float)(1.0 / sqrt(ss / (double)D + (double)eps));
        rstd[t] = r;
        for (size_t i = 0; i < D; i++)
            y[t * D + i] = xr[i] * r * g[i];
    }
}

/* dx = (dy's gradient through the norm), written; dg accumulated. */
static void rmsnorm_backward(const float *dy, const float *x, const float *g, const float *rstd,
                             float *dx, float *dg, size_t T, size_t D)
{
    for (size_t t = 0; t < T; t++) {
        const float *xr = x + t * D, *dyr = dy + t * D;
        float r = rstd[t];
        double dot = 0.0;
        for (size_t i = 0; i < D; i++) {
            dot += (double)dyr[i] * g[i] * xr[i];
            dg[i] += dyr[i] * xr[i] * r;
        }
        float c = (float)(dot / (double)D) * r * r * r;
        for (size_t i = 0; i < D; i++)
            dx[t * D + i] = dyr[i] * g[i] * r - xr[i] * c;
    }
}

/* Turns each head's pairs in rows of width stride, n_heads heads from col;
 * sign -1 turns back (the backward pass). */
static void rope_apply(const gpt_model *m, float *x, size_t batch, size_t seq, size_t stride,
                       size_t col, size_t n_heads, float sign)
{
    size_t hd = (size_t)(m->cfg.d_model / m->cfg.n_head), half = hd / 2;
    for (size_t b = 0; b < batch; b++)
        for (size_t t = 0; t < seq; t++) {
            const float *c = m->rope_cos + t * half, *s = m->rope_sin + t * half;
            float *row = x + (b * seq + t) * stride + col;
            for (size_t h = 0; h < n_heads; h++) {
                float *v = row + h * hd;
                for (size_t i = 0; i < half; i++) {
                    float a = v[i], bb = v[i + half], sn = sign * s[i];
                    v[i] = a * c[i] - bb * sn;
                    v[i + half] = bb * c[i] + a * sn;
                }
            }
        }
}

/* The tensor at x (rows x cols, stride apart) rounded at site, when the
 * model rounds there. */
static void round_at(const gpt_model *m, gpt_site site, size_t layer, float *x, size_t rows,
                     size_t cols, size_t stride)
{
    if (m->rounding.round)
        m->rounding.round(m->rounding.ctx, site, (int)layer, x, rows, cols, stride);
}

/* rmsnorm of x into y, x first rounded at GPT_SITE_NORM (into y, which the
 * norm then reads: the saved x is the one before the rounding). */
static void norm_forward(const gpt_model *m, size_t layer, const float *x, const float *g,
                         float *y, float *rstd, size_t T, size_t D)
{
    if (m->rounding.round) {
        memcpy(y, x, T * D * sizeof(float));
        round_at(m, GPT_SITE_NORM, layer, y, T, D, D);
        x = y;
    }
    rmsnorm_forward(x, g, y, rstd, T, D, m->cfg.norm_eps);
}

/* The scores of every head first, then the softmax of every row, then the
 * products with v: each phase's tensor whole where a site rounds it. */
static void attention_forward(const gpt_model *m, const block_acts *a, size_t layer, size_t batch,
                              size_t seq)
{
    dims d = dims_of(&m->cfg);
    float scale = 1.0f / sqrtf((float)d.hd);
    size_t group = d.H / d.KV, T = batch * seq;
    round_at(m, GPT_SITE_QK, layer, a->qkv, T, d.H * d.hd, d.Qd);
    round_at(m, GPT_SITE_QK, layer, a->qkv + d.H * d.hd, T, d.KV * d.hd, d.Qd);
    for (size_t b = 0; b < batch; b++)
        for (size_t h = 0; h < d.H; h++) {
            const float *q = a->qkv + b * seq * d.Qd + h * d.hd;
            const float *k = a->qkv + b * seq * d.Qd + (d.H + h / group) * d.hd;
            float *P = a->P + (b * d.H + h) * seq * seq;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)seq, (int)seq, (int)d.hd,
                        scale, q, (int)d.Qd, k, (int)d.Qd, 0.0f, P, (int)seq);
            for (size_t t = 0; t < seq; t++)
                for (size_t s = t + 1; s < seq; s++)
                    P[t * seq + s] = 0.0f;
        }
    round_at(m, GPT_SITE_SOFTMAX, layer, a->P, batch * d.H * seq, seq, seq);
    for (size_t r = 0; r < batch * d.H * seq; r++) {
        size_t t = r % seq;
        float *row = a->P + r * seq, mx = row[0];
        for (size_t s = 1; s <= t; s++)
            mx = row[s] > mx ? row[s] : mx;
        float sum = 0.0f;
        for (size_t s = 0; s <= t; s++)
            sum += row[s] = expf(row[s] - mx);
        float inv = 1.0f / sum;
        for (size_t s = 0; s <= t; s++)
            row[s] *= inv;
        for (size_t s = t + 1; s < seq; s++)
            row[s] = 0.0f; /* whatever a rounding of the scores made of them */
    }
    round_at(m, GPT_SITE_PV, layer, a->P, batch * d.H * seq, seq, seq);
    round_at(m, GPT_SITE_PV, layer, a->qkv + (d.H + d.KV) * d.hd, T, d.KV * d.hd, d.Qd);
    for (size_t b = 0; b < batch; b++)
        for (size_t h = 0; h < d.H; h++) {
            const float *v = a->qkv + b * seq * d.Qd + (d.H + d.KV + h / group) * d.hd;
            const float *P = a->P + (b * d.H + h) * seq * seq;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)seq, (int)d.hd, (int)seq,
                        1.0f, P, (int)seq, v, (int)d.Qd, 0.0f, a->att + b * seq * d.D + h * d.hd,
                        (int)d.D);
        }
}

/* datt -> dqkv (written; q, k still turned), in two phases of every head
 * at once: dP = dO v^T, dv and softmax's backward into dS (a seq x seq
 * square per head); then dq and dk. So each gradient the two products take
 * is whole where a site rounds it: dO (datt, rounded in place) first, dS
 * between the phases. */
static void attention_backward(const gpt_model *m, const block_acts *a, float *datt, float *dqkv,
                               float *dS, size_t layer, size_t batch, size_t seq)
{
    dims d = dims_of(&m->cfg);
    float scale = 1.0f / sqrtf((float)d.hd);
    size_t group = d.H / d.KV, T = batch * seq;
    memset(dqkv, 0, T * d.Qd * sizeof(float));
    round_at(m, GPT_SITE_PV_GRAD, layer, datt, T, d.D, d.D);
    for (size_t b = 0; b < batch; b++)
        for (size_t h = 0; h < d.H; h++) {
            size_t base = b * seq * d.Qd;
            const float *v = a->qkv + base + (d.H + d.KV + h / group) * d.hd;
            float *dv = dqkv + base + (d.H + d.KV + h / group) * d.hd;
            const float *P = a->P + (b * d.H + h) * seq * seq;
            const float *dout = datt + b * seq * d.D + h * d.hd;
            float *dSh = dS + (b * d.H + h) * seq * seq;
            /* dP = dout v^T; dv += P^T dout */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)seq, (int)seq, (int)d.hd,
                        1.0f, dout, (int)d.D, v, (int)d.Qd, 0.0f, dSh, (int)seq);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)seq, (int)d.hd, (int)seq,
                        1.0f, P, (int)seq, dout, (int)d.D, 1.0f, dv, (int)d.Qd);
            /* dS = P * (dP - rowsum(dP * P)) */
            for (size_t t = 0; t < seq; t++) {
                float *row = dSh + t * seq;
                const float *prow = P + t * seq;
                float dot = 0.0f;
                for (size_t s = 0; s <= t; s++)
                    dot += row[s] * prow[s];
                for (size_t s = 0; s <= t; s++)
                    row[s] = prow[s] * (row[s] - dot);
                for (size_t s = t + 1; s < seq; s++)
                    row[s] = 0.0f;
            }
        }
    round_at(m, GPT_SITE_QK_GRAD, layer, dS, batch * d.H * seq, seq, seq);
    for (size_t b = 0; b < batch; b++)
        for (size_t h = 0; h < d.H; h++) {
            size_t base = b * seq * d.Qd;
            const float *q = a->qkv + base + h * d.hd;
            const float *k = a->qkv + base + (d.H + h / group) * d.hd;
            float *dq = dqkv + base + h * d.hd;
            float *dk = dqkv + base + (d.H + h / group) * d.hd;
            const float *dSh = dS + (b * d.H + h) * seq * seq;
            /* dq = scale dS k; dk += scale dS^T q */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)seq, (int)d.hd, (int)seq,
                        scale, dSh, (int)seq, k, (int)d.Qd, 0.0f, dq, (int)d.Qd);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)seq, (int)d.hd, (int)seq,
                        scale, dSh, (int)seq, q, (int)d.Qd, 1.0f, dk, (int)d.Qd);
        }
}

static float sigmoidf(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

/* The sum of exp(z[i] - max z) over n values, and the max in *mx. */
static double exp_sum(const float *z, size_t n, float *mx)
{
    float m = z[0];
    for (size_t i = 1; i < n; i++)
        m = z[i] > m ? z[i] : m;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += exp((double)(z[i] - m));
    *mx = m;
    return sum;
}

/* ---- the model ------------------------------------------------------------------------ */

float gpt_forward(gpt_model *m, const uint8_t *tokens, const uint8_t *targets, size_t batch,
                  size_t seq)
{
    dims d = dims_of(&m->cfg);
    size_t T = batch * seq;
    if (T > m->max_tokens || seq > d.C || T == 0) {
        fprintf(stderr, "gpt_forward: %zu x %zu tokens, the model holds %zu with context %zu\n",
                batch, seq, m->max_tokens, d.C);
        abort();
    }
    m->batch = batch;
    m->seq = seq;
    m->tokens = tokens;
    m->targets = targets;
    block_acts first = block_at(m, 0);
    const float *wte = m->tensors[0].w;
    for (size_t t = 0; t < T; t++)
        memcpy(first.res_in + t * d.D, wte + (size_t)tokens[t] * d.D, d.D * sizeof(float));
    round_at(m, GPT_SITE_EMBED, 0, first.res_in, T, d.D, d.D);
    for (size_t l = 0; l < d.L; l++) {
        block_acts a = block_at(m, l);
        int id = (int)(l * GPT_KINDS);
        norm_forward(m, l, a.res_in, tensor_of(m, l, 0)->w, a.h1, a.rstd1, T, d.D);
        m->gemms.forward(m->gemms.ctx, id + GPT_QKV, a.h1, tensor_of(m, l, 1)->w, a.qkv, T, d.Qd,
                         d.D);
        rope_apply(m, a.qkv, batch, seq, d.Qd, 0, d.H + d.KV, 1.0f);
        attention_forward(m, &a, l, batch, seq);
        m->gemms.forward(m->gemms.ctx, id + GPT_O, a.att, tensor_of(m, l, 2)->w, a.res_mid, T, d.D,
                         d.D);
        for (size_t i = 0; i < T * d.D; i++)
            a.res_mid[i] += a.res_in[i];
        norm_forward(m, l, a.res_mid, tensor_of(m, l, 3)->w, a.h2, a.rstd2, T, d.D);
        m->gemms.forward(m->gemms.ctx, id + GPT_GU, a.h2, tensor_of(m, l, 4)->w, a.gu, T,
                         2 * d.F, d.D);
        for (size_t t = 0; t < T; t++)
            for (size_t i = 0; i < d.F; i++) {
                float g = a.gu[t * 2 * d.F + i], u = a.gu[t * 2 * d.F + d.F + i];
                a.act[t * d.F + i] = g * sigmoidf(g) * u;
            }
        float *out = l + 1 < d.L ? block_at(m, l + 1).res_in : head_at(m).res;
        m->gemms.forward(m->gemms.ctx, id + GPT_DOWN, a.act, tensor_of(m, l, 5)->w, out, T, d.D,
                         d.F);
        for (size_t i = 0; i < T * d.D; i++)
            out[i] += a.res_mid[i];
    }
    head_acts h = head_at(m);
    norm_forward(m, d.L, h.res, m->tensors[m->n_tensors - 2].w, h.h, h.rstd, T, d.D);
    m->gemms.forward(m->gemms.ctx, (int)(d.L * GPT_KINDS), h.h, m->tensors[m->n_tensors - 1].w,
                     h.logits, T, d.V, d.D);
    if (!targets)
        return 0.0f;
    double loss = 0.0;
    for (size_t t = 0; t < T; t++) {
        const float *z = h.logits + t * d.V;
        float mx;
        double sum = exp_sum(z, d.V, &mx);
        loss += log(sum) + (double)mx - (double)z[targets[t]];
    }
    return (float)(loss / (double)T);
}

const float *gpt_linear_input(const gpt_model *m, int id)
{
    if (id >= m->cfg.n_layer * GPT_KINDS)
        return head_at(m).h;
    block_acts a = block_at(m, (size_t)(id / GPT_KINDS));
    const float *in[GPT_KINDS] = {a.h1, a.att, a.h2, a.act};
    return in[id % GPT_KINDS];
}

const float *gpt_logits(const gpt_model *m)
{
    return head_at(m).logits;
}

void gpt_backward(gpt_model *m)
{
    dims d = dims_of(&m->cfg);
    size_t batch = m->batch, seq = m->seq, T = batch * seq;
    grads_scratch s = scratch_at(m);
    head_acts h = head_at(m);
    memset(m->grads, 0, m->n_params * sizeof(float));
    /* the loss: (softmax - onehot) / T */
    for (size_t t = 0; t < T; t++) {
        const float *z = h.logits + t * d.V;
        float *dz = s.dlogits + t * d.V, mx;
        double sum = exp_sum(z, d.V, &mx);
        for (size_t i = 0; i < d.V; i++)
            dz[i] = (float)(exp((double)(z[i] - mx)) / sum / (double)T);
        dz[m->targets[t]] -= 1.0f / (float)T;
    }
    gpt_tensor *norm_f = &m->tensors[m->n_tensors - 2], *lm = &m->tensors[m->n_tensors - 1];
    m->gemms.backward(m->gemms.ctx, (int)(d.L * GPT_KINDS), s.dlogits, h.h, lm->w, s.dh, lm->g, T,
                      d.V, d.D);
    rmsnorm_backward(s.dh, h.res, norm_f->w, h.rstd, s.dres, norm_f->g, T, d.D);
    for (size_t l = d.L; l-- > 0;) {
        block_acts a = block_at(m, l);
        int id = (int)(l * GPT_KINDS);
        /* the MLP: dres holds d(out) */
        m->gemms.backward(m->gemms.ctx, id + GPT_DOWN, s.dres, a.act, tensor_of(m, l, 5)->w,
                          s.dact, tensor_of(m, l, 5)->g, T, d.D, d.F);
        for (size_t t = 0; t < T; t++)
            for (size_t i = 0; i < d.F; i++) {
                float g = a.gu[t * 2 * d.F + i], u = a.gu[t * 2 * d.F + d.F + i];
                float sg = sigmoidf(g), da = s.dact[t * d.F + i];
                s.dgu[t * 2 * d.F + i] = da * u * sg * (1.0f + g * (1.0f - sg));
                s.dgu[t * 2 * d.F + d.F + i] = da * g * sg;
            }
        m->gemms.backward(m->gemms.ctx, id + GPT_GU, s.dgu, a.h2, tensor_of(m, l, 4)->w, s.dh,
                          tensor_of(m, l, 4)->g, T, 2 * d.F, d.D);
        rmsnorm_backward(s.dh, a.res_mid, tensor_of(m, l, 3)->w, a.rstd2, s.dtmp,
                         tensor_of(m, l, 3)->g, T, d.D);
        for (size_t i = 0; i < T * d.D; i++)
            s.dres[i] += s.dtmp[i];
        /* attention: dres holds d(res_mid) */
        m->gemms.backward(m->gemms.ctx, id + GPT_O, s.dres, a.att, tensor_of(m, l, 2)->w, s.datt,
                          tensor_of(m, l, 2)->g, T, d.D, d.D);
        attention_backward(m, &a, s.datt, s.dqkv, s.dS, l, batch, seq);
        rope_apply(m, s.dqkv, batch, seq, d.Qd, 0, d.H + d.KV, -1.0f);
        m->gemms.backward(m->gemms.ctx, id + GPT_QKV, s.dqkv, a.h1, tensor_of(m, l, 1)->w, s.dh,
                          tensor_of(m, l, 1)->g, T, d.Qd, d.D);
        rmsnorm_backward(s.dh, a.res_in, tensor_of(m, l, 0)->w, a.rstd1, s.dtmp,
                         tensor_of(m, l, 0)->g, T, d.D);
        for (size_t i = 0; i < T * d.D; i++)
            s.dres[i] += s.dtmp[i];
    }
    /* the embedding: each token's row of wte */
    float *dwte = m->tensors[0].g;
    for (size_t t = 0; t < T; t++) {
        size_t row = (size_t)m->tokens[t];
        for (size_t i = 0; i < d.D; i++)
            dwte[row * d.D + i] += s.dres[t * d.D + i];
    }
}

/* ---- AdamW ------------------------------------------------------------------------------ */

int gpt_adamw_init(gpt_adamw *o, const gpt_model *m, float lr)
{
    memset(o, 0, sizeof *o);
    o->lr = lr;
    o->beta1 = 0.9f;
    o->beta2 = 0.95f;
    o->eps = 1e-8f;
    o->weight_decay = 0.1f;
    o->clip = 1.0f;
    o->m1 = calloc(m->n_params, sizeof(float));
    o->m2 = calloc(m->n_params, sizeof(float));
    if (!o->m1 || !o->m2) {
        gpt_adamw_free(o);
        return -1;
    }
    return 0;
}

void gpt_adamw_free(gpt_adamw *o)
{
    free(o->m1);
    free(o->m2);
    o->m1 = o->m2 = NULL;
}

float gpt_adamw_step(gpt_adamw *o, gpt_model *m)
{
    double ss = 0.0;
    for (size_t i = 0; i < m->n_params; i++)
        ss += (double)m->grads[i] * m->grads[i];
    float norm = (float)sqrt(ss);
    /* torch.nn.utils.clip_grad_norm_: times clip / (norm + 1e-6) when that is below 1 */
    float gscale = 1.0f;
    if (o->clip > 0.0f && norm > o->clip)
        gscale = o->clip / (norm + 1e-6f);
    o->step++;
    double bc1 = 1.0 - pow((double)o->beta1, (double)o->step);
    double bc2 = 1.0 - pow((double)o->beta2, (double)o->step);
    float step_size = (float)((double)o->lr / bc1);
    float bc2_sqrt = (float)sqrt(bc2);
    for (int k = 0; k < m->n_tensors; k++) {
        const gpt_tensor *t = &m->tensors[k];
        size_t off = (size_t)(t->w - m->params), n = t->rows * t->cols;
        float decay = t->decay ? 1.0f - o->lr * o->weight_decay : 1.0f;
        for (size_t i = off; i < off + n; i++) {
            float g = m->grads[i] * gscale;
            o->m1[i] = o->beta1 * o->m1[i] + (1.0f - o->beta1) * g;
            o->m2[i] = o->beta2 * o->m2[i] + (1.0f - o->beta2) * g * g;
            m->params[i] *= decay;
            m->params[i] -= step_size * o->m1[i] / (sqrtf(o->m2[i]) / bc2_sqrt + o->eps);
        }
    }
    return norm;
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

static const char *const config_fields[8] = {"vocab", "d_model", "n_layer", "n_head",
                                             "n_kv_head", "d_ff", "ctx", "step"};

static void config_of(const gpt_model *m, long step, int32_t out[8])
{
    const gpt_config *c = &m->cfg;
    int32_t v[8] = {c->vocab, c->d_model, c->n_layer, c->n_head, c->n_kv_head, c->d_ff, c->ctx,
                    (int32_t)step};
    memcpy(out, v, sizeof v);
}

static void path_in(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

int gpt_save(const gpt_model *m, const gpt_adamw *o, const char *dir, lab_error *err)
{
    char path[4096];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return lab_errorf(err, "%s: cannot make the checkpoint's folder: %s", dir, strerror(errno));
    int32_t config[8];
    config_of(m, o->step, config);
    size_t eight = 8, n = m->n_params;
    path_in(path, sizeof path, dir, "config.npy");
    if (npy_save(path, NPY_I32, 1, &eight, config, err))
        return -1;
    const float *arrays[3] = {m->params, o->m1, o->m2};
    const char *names[3] = {"params.npy", "adam_m1.npy", "adam_m2.npy"};
    for (int i = 0; i < 3; i++) {
        path_in(path, sizeof path, dir, names[i]);
        if (npy_save(path, NPY_F32, 1, &n, arrays[i], err))
            return -1;
    }
    return 0;
}

int gpt_load(gpt_model *m, gpt_adamw *o, const char *dir, lab_error *err)
{
    char path[4096];
    npy_array a;
    size_t eight = 8, n = m->n_params;
    path_in(path, sizeof path, dir, "config.npy");
    if (npy_load_expect(path, NPY_I32, 1, &eight, &a, err))
        return -1;
    int32_t want[8], got[8];
    memcpy(got, a.data, sizeof got);
    npy_free(&a);
    config_of(m, 0, want);
    for (int i = 0; i < 7; i++)
        if (got[i] != want[i])
            return lab_errorf(err, "%s: %s is %d, this model's is %d", path, config_fields[i],
                              (int)got[i], (int)want[i]);
    if (got[7] < 0)
        return lab_errorf(err, "%s: step is %d, below 0", path, (int)got[7]);
    /* all three read before any is copied: a bad file changes nothing */
    float *arrays[3] = {m->params, o->m1, o->m2};
    const char *names[3] = {"params.npy", "adam_m1.npy", "adam_m2.npy"};
    npy_array read[3] = {{0}};
    int failed = 0;
    for (int i = 0; i < 3 && !failed; i++) {
        path_in(path, sizeof path, dir, names[i]);
        failed = npy_load_expect(path, NPY_F32, 1, &n, &read[i], err);
    }
    for (int i = 0; i < 3; i++) {
        if (!failed)
            memcpy(arrays[i], read[i].data, n * sizeof(float));
        npy_free(&read[i]);
    }
    if (failed)
        return -1;
    o->step = got[7];
    return 0;
}

/* ---- the text ------------------------------------------------------------------------------ */

int gpt_token(int c)
{
    if (c == '\n')
        return 0;
    if (c >= ' ' && c <= '~')
        return c - 31;
    return -1;
}

int gpt_char(int token)
{
    return token == 0 ? '\n' : token + 31;
}

int gpt_text_load(const char *path, gpt_text *t, lab_error *err)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f)
        return lab_errorf(err, "%s: cannot open it (lab6's text; it ships in data/lab6)", path);
    size_t cap = 1u << 20, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return lab_errorf(err, "%s: out of memory", path);
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return lab_errorf(err, "%s: read error", path);
    }
    for (size_t i = 0; i < n; i++) {
        int tok = gpt_token(buf[i]);
        if (tok < 0) {
            int c = buf[i];
            free(buf);
            return lab_errorf(err, "%s: byte %zu is 0x%02x, not newline or printable ASCII", path,
                              i, c);
        }
        buf[i] = (uint8_t)tok;
    }
    if (n < 2048) {
        free(buf);
        return lab_errorf(err, "%s: %zu bytes, too short to train on (at least 2048)", path, n);
    }
    t->tokens = buf;
    t->n = n;
    t->n_train = n / 10 * 9 + (n % 10) * 9 / 10;
    return 0;
}

void gpt_text_free(gpt_text *t)
{
    free(t->tokens);
    memset(t, 0, sizeof *t);
}

void gpt_text_batch(const gpt_text *t, int val, size_t batch, size_t seq, rng_state *rng,
                    uint8_t *tokens, uint8_t *targets)
{
    size_t start = val ? t->n_train : 0, len = val ? t->n - t->n_train : t->n_train;
    for (size_t b = 0; b < batch; b++) {
        size_t off = start + rng_below(rng, (uint32_t)(len - seq));
        memcpy(tokens + b * seq, t->tokens + off, seq);
        memcpy(targets + b * seq, t->tokens + off + 1, seq);
    }
}

/* ---- sampling --------------------------------------------------------------------------------- */

void gpt_sample(gpt_model *m, const char *prompt, size_t n, float temperature, rng_state *rng,
                char *out)
{
    size_t C = (size_t)m->cfg.ctx, V = (size_t)m->cfg.vocab, len = 0;
    uint8_t *win = malloc(C);
    double *p = malloc(V * sizeof(double));
    if (!win || !p) {
        free(win);
        free(p);
        out[0] = '\0';
        return;
    }
    size_t have = 0;
    for (const char *c = prompt; *c; c++) {
        int tok = gpt_token((unsigned char)*c);
        if (tok < 0)
            continue;
        if (have == C) {
            memmove(win, win + 1, C - 1);
            have--;
        }
        win[have++] = (uint8_t)tok;
    }
    if (have == 0)
        win[have++] = 0;
    for (len = 0; len < n; len++) {
        gpt_forward(m, win, NULL, 1, have);
        const float *z = gpt_logits(m) + (have - 1) * V;
        size_t pick = 0;
        if (temperature <= 0.0f) {
            for (size_t i = 1; i < V; i++)
                pick = z[i] > z[pick] ? i : pick;
        } else {
            float mx = z[0];
            for (size_t i = 1; i < V; i++)
                mx = z[i] > mx ? z[i] : mx;
            double sum = 0.0;
            for (size_t i = 0; i < V; i++)
                sum += p[i] = exp((double)((z[i] - mx) / temperature));
            double u = (double)rng_uniform(rng) * sum;
            for (pick = 0; pick + 1 < V && u >= p[pick]; pick++)
                u -= p[pick];
        }
        out[len] = (char)gpt_char((int)pick);
        if (have == C) {
            memmove(win, win + 1, C - 1);
            have--;
        }
        win[have++] = (uint8_t)pick;
    }
    out[len] = '\0';
    free(win);
    free(p);
}
