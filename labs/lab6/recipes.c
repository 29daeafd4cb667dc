/*
 * recipes.c - lab6's training recipes (recipes.h).
 */
#include "recipes.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "mx.h"

static const char *const names[RECIPE_COUNT] = {
    "fp32", "bf16", "fp8-delayed", "fp8-current", "fp8-blockwise", "mxfp8", "bf16-rne", "bf16-sr",
};

const char *recipe_name(lab6_recipe_kind k)
{
    return (unsigned)k < RECIPE_COUNT ? names[k] : "?";
}

int recipe_from_name(const char *name)
{
    for (int k = 0; k < RECIPE_COUNT; k++)
        if (strcmp(name, names[k]) == 0)
            return k;
    return -1;
}

/* The shape N x K of linear layer id's weight. */
static void linear_dims(const gpt_config *c, int id, size_t *N, size_t *K)
{
    size_t D = (size_t)c->d_model, hd = D / (size_t)c->n_head;
    size_t Qd = (size_t)(c->n_head + 2 * c->n_kv_head) * hd, F = (size_t)c->d_ff;
    if (id == c->n_layer * GPT_KINDS) {
        *N = (size_t)c->vocab, *K = D;
        return;
    }
    switch (id % GPT_KINDS) {
    case GPT_QKV:
        *N = Qd, *K = D;
        break;
    case GPT_O:
        *N = D, *K = D;
        break;
    case GPT_GU:
        *N = 2 * F, *K = D;
        break;
    default:
        *N = D, *K = F;
        break;
    }
}

static bool masterless(lab6_recipe_kind k)
{
    return k == RECIPE_BF16_RNE || k == RECIPE_BF16_SR;
}

static bool per_tensor_fp8(lab6_recipe_kind k)
{
    return k == RECIPE_FP8_DELAYED || k == RECIPE_FP8_CURRENT;
}

int recipe_init(lab6_recipe *r, lab6_recipe_kind kind, bool fp8_head, gpt_model *m,
                uint64_t seed)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->fp8_head = fp8_head;
    size_t n_linear = (size_t)m->cfg.n_layer * GPT_KINDS + 1;
    r->n_linear = (int)n_linear;
    r->max_tokens = m->max_tokens;
    size_t most = 0;
    for (int id = 0; id < r->n_linear; id++) {
        size_t N, K;
        linear_dims(&m->cfg, id, &N, &K);
        size_t big = N * K;
        big = big > m->max_tokens * K ? big : m->max_tokens * K;
        big = big > m->max_tokens * N ? big : m->max_tokens * N;
        most = big > most ? big : most;
    }
    r->buf_len = most;
    /* three operands, and a scale for each group of one (at most one per value) */
    r->buf = malloc(4 * most * sizeof(float));
    r->codes = malloc(most);
    r->linear = calloc(n_linear, sizeof *r->linear);
    if (!r->buf || !r->codes || !r->linear) {
        recipe_free(r);
        return -1;
    }
    for (int id = 0; id < r->n_linear; id++) {
        lab6_fp8_linear *L = &r->linear[id];
        size_t N, K;
        linear_dims(&m->cfg, id, &N, &K);
        delayed_init(&L->sx, FP8_E4M3, false, 16, 0);
        delayed_init(&L->sw, FP8_E4M3, false, 16, 0);
        delayed_init(&L->sdy, FP8_E5M2, false, 16, 0);
        L->current = kind == RECIPE_FP8_CURRENT;
        if (per_tensor_fp8(kind)) {
            L->cap_x = m->max_tokens * K;
            L->cap_w = N * K;
            L->xq = malloc(L->cap_x);
            L->wq = malloc(L->cap_w);
            if (!L->xq || !L->wq) {
                recipe_free(r);
                return -1;
            }
        }
    }
    rng_seed(&r->sr, seed, 0x5eed);
    if (masterless(kind))
        fp16_round_array(m->params, m->params, m->n_params, FP16_BF16);
    return 0;
}

void recipe_free(lab6_recipe *r)
{
    if (r->linear)
        for (int id = 0; id < r->n_linear; id++) {
            free(r->linear[id].xq);
            free(r->linear[id].wq);
        }
    free(r->linear);
    free(r->buf);
    free(r->codes);
    free(r->site_buf);
    free(r->site_codes);
    memset(r, 0, sizeof *r);
}

/* ---- the operands' rounding ---------------------------------------------------- */

typedef enum operand_kind { OP_ACT, OP_WEIGHT } operand_kind;

/* out (cols x rows) = in (rows x cols) transposed, a square of 16 x 16 at a
 * time: a row of the activations is 2048 floats here, and going down one in
 * steps of 8 KiB misses the cache at every value. */
static void transpose(const float *in, size_t rows, size_t cols, float *out)
{
    enum { T = 16 };
    for (size_t i0 = 0; i0 < rows; i0 += T)
        for (size_t j0 = 0; j0 < cols; j0 += T) {
            size_t i1 = i0 + T < rows ? i0 + T : rows, j1 = j0 + T < cols ? j0 + T : cols;
            for (size_t j = j0; j < j1; j++)
                for (size_t i = i0; i < i1; i++)
                    out[j * rows + i] = in[i * cols + j];
        }
}

/* What an MX block's shared scale s (E8M0) does: multiply by down before
 * the cast, by up after; a NaN block (s = 0xFF) decodes to NaN. */
typedef struct mx_powers {
    float down[256], up[256], dec[256];
} mx_powers;

static const mx_powers *mx_table(void)
{
    static mx_powers p;
    static bool done;
    if (!done) {
        for (int c = 0; c < 256; c++) {
            p.down[c] = ldexpf(1.0f, 127 - c);
            p.up[c] = c == 0xFF ? NAN : ldexpf(1.0f, c - 127);
            p.dec[c] = fp8_decode((uint8_t)c, FP8_E4M3);
        }
        done = true;
    }
    return &p;
}

/* mx_quantize then mx_dequantize (common/mx.h: E4M3, blocks of 32 along the
 * rows, TE's rounding of the scale up), through the codec's bulk encoder:
 * a product by the power of two 2^(127 - s) rounds as ldexpf does. */
static void mx_round(const float *in, size_t rows, size_t cols, float *out)
{
    const mx_powers *p = mx_table();
    float v[32];
    uint8_t codes[32];
    for (size_t i = 0; i < rows; i++)
        for (size_t j0 = 0; j0 < cols; j0 += 32) {
            const float *x = in + i * cols + j0;
            float *y = out + i * cols + j0;
            size_t n = cols - j0 < 32 ? cols - j0 : 32;
            uint8_t s = mx_shared_scale(mx_block_amax(x, n), FP8_E4M3, MX_SCALE_CEIL);
            for (size_t j = 0; j < n; j++)
                v[j] = x[j] * p->down[s];
            fp8_encode_array(v, codes, n, FP8_E4M3, true);
            for (size_t j = 0; j < n; j++)
                y[j] = p->dec[codes[j]] * p->up[s];
        }
}

/* t[j] = the larger of t[j] and |x[j]|'s bits, j < n: a magnitude's bits
 * order as its value (as a signed int too), and a NaN's are above
 * infinity's (0x7F800000). In runs of 32, which the compiler turns into
 * vector code at -O2. */
static void max_bits(const float *restrict x, int32_t *restrict t, size_t n)
{
    size_t j = 0;
    for (; j + 32 <= n; j += 32)
        for (size_t k = j; k < j + 32; k++) {
            int32_t u = (int32_t)(f32_bits(x[k]) & 0x7FFFFFFFu);
            t[k] = u > t[k] ? u : t[k];
        }
    for (; j < n; j++) {
        int32_t u = (int32_t)(f32_bits(x[j]) & 0x7FFFFFFFu);
        t[j] = u > t[j] ? u : t[j];
    }
}

/* The same rounding with the blocks of 32 down the columns (the operand of
 * a product whose inner dimension runs down them): what transposing,
 * mx_round and transposing back give, a band of 32 rows at a time, each
 * column's amax as mx_block_amax finds it. */
static void mx_round_cols(const float *in, size_t rows, size_t cols, float *out)
{
    const mx_powers *p = mx_table();
    int32_t *top = malloc(cols * sizeof *top);
    float *down = malloc(cols * sizeof *down), *up = malloc(cols * sizeof *up);
    float *v = malloc(cols * sizeof *v);
    uint8_t *codes = malloc(cols);
    if (!top || !down || !up || !v || !codes)
        abort();
    for (size_t i0 = 0; i0 < rows; i0 += 32) {
        size_t i1 = rows - i0 < 32 ? rows : i0 + 32;
        memset(top, 0, cols * sizeof *top);
        for (size_t i = i0; i < i1; i++)
            max_bits(in + i * cols, top, cols);
        for (size_t j = 0; j < cols; j++) {
            float amax = top[j] > 0x7F800000 ? NAN : f32_from_bits((uint32_t)top[j]);
            uint8_t s = mx_shared_scale(amax, FP8_E4M3, MX_SCALE_CEIL);
            down[j] = p->down[s];
            up[j] = p->up[s];
        }
        for (size_t i = i0; i < i1; i++) {
            const float *x = in + i * cols;
            for (size_t j = 0; j < cols; j++)
                v[j] = x[j] * down[j];
            fp8_encode_array(v, codes, cols, FP8_E4M3, true);
            for (size_t j = 0; j < cols; j++)
                out[i * cols + j] = p->dec[codes[j]] * up[j];
        }
    }
    free(top);
    free(down);
    free(up);
    free(v);
    free(codes);
}

/* out = the recipe's rounding of in (rows x cols, grouped along its rows),
 * dequantized; out may be in. */
static void round_operand(lab6_recipe *r, lab6_recipe_kind kind, operand_kind op,
                          const float *in, size_t rows, size_t cols, float *out)
{
    size_t n = rows * cols;
    float *sinv = r->buf + 3 * r->buf_len;
    if (kind == RECIPE_FP8_BLOCKWISE) {
        size_t nt = (cols + LAB6_TILE - 1) / LAB6_TILE;
        float dec[256];
        for (int c = 0; c < 256; c++)
            dec[c] = fp8_decode((uint8_t)c, FP8_E4M3);
        if (op == OP_WEIGHT)
            lab6_quantize_blocks(in, rows, cols, r->codes, sinv);
        else
            lab6_quantize_tiles(in, rows, cols, r->codes, sinv);
        for (size_t i = 0; i < rows; i++)
            for (size_t t = 0; t < nt; t++) {
                float s = sinv[(op == OP_WEIGHT ? i / LAB6_TILE : i) * nt + t];
                size_t j1 = (t + 1) * LAB6_TILE < cols ? (t + 1) * LAB6_TILE : cols;
                for (size_t j = t * LAB6_TILE; j < j1; j++)
                    out[i * cols + j] = dec[r->codes[i * cols + j]] * s;
            }
    } else if (kind == RECIPE_MXFP8) {
        mx_round(in, rows, cols, out);
    } else if (kind == RECIPE_FP32) {
        if (out != in)
            memcpy(out, in, n * sizeof(float));
    } else { /* the BF16 recipes */
        fp16_round_array(in, out, n, FP16_BF16);
    }
}

/* The kind of product linear layer id gets under r. */
static lab6_recipe_kind product_kind(const lab6_recipe *r, int id)
{
    if (id == r->n_linear - 1 && !r->fp8_head && r->kind != RECIPE_BF16 && !masterless(r->kind))
        return RECIPE_FP32;
    if (masterless(r->kind))
        return RECIPE_BF16;
    return r->kind;
}

static void sgemm_nt(const float *a, const float *b, float *c, size_t M, size_t N, size_t K)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K, 1.0f, a, (int)K,
                b, (int)K, 0.0f, c, (int)N);
}

static void r_forward(void *ctx, int id, const float *x, const float *w, float *y, size_t M,
                      size_t N, size_t K)
{
    lab6_recipe *r = ctx;
    lab6_recipe_kind kind = product_kind(r, id);
    if (per_tensor_fp8(kind)) {
        lab6_fp8_forward(&r->linear[id], x, w, y, M, N, K);
        return;
    }
    float *xd = r->buf, *wd = r->buf + r->buf_len;
    round_operand(r, kind, OP_ACT, x, M, K, xd);
    round_operand(r, kind, OP_WEIGHT, w, N, K, wd);
    sgemm_nt(xd, wd, y, M, N, K);
}

static void r_backward(void *ctx, int id, const float *dy, const float *x, const float *w,
                       float *dx, float *dw, size_t M, size_t N, size_t K)
{
    lab6_recipe *r = ctx;
    lab6_recipe_kind kind = product_kind(r, id);
    if (per_tensor_fp8(kind)) {
        lab6_fp8_backward(&r->linear[id], dy, dx, dw, M, N, K);
        return;
    }
    float *a = r->buf, *b = r->buf + r->buf_len;
    bool grouped = kind == RECIPE_FP8_BLOCKWISE;
    /* dgrad, dx = dy W: the inner dimension is N, along dy's rows and W's
     * columns (a 128 x 128 block is the same either way; an MX block of W
     * runs down its column) */
    round_operand(r, kind, OP_ACT, dy, M, N, a);
    if (kind == RECIPE_MXFP8)
        mx_round_cols(w, N, K, b);
    else
        round_operand(r, kind, OP_WEIGHT, w, N, K, b);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)K, (int)N, 1.0f, a, (int)N,
                b, (int)K, 0.0f, dx, (int)K);
    /* wgrad, dw = dy^T x: the inner dimension is M, down the columns of both
     * (DeepSeek's 1 x 128 tiles through the student's lab6_quantize_tiles on
     * the transposes, MX's blocks in place) */
    if (kind == RECIPE_MXFP8) {
        mx_round_cols(dy, M, N, a);
        mx_round_cols(x, M, K, b);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)N, (int)K, (int)M, 1.0f, a,
                    (int)N, b, (int)K, 0.0f, dw, (int)K);
    } else if (grouped) {
        transpose(dy, M, N, a);
        round_operand(r, kind, OP_ACT, a, N, M, a);
        transpose(x, M, K, b);
        round_operand(r, kind, OP_ACT, b, K, M, b);
        sgemm_nt(a, b, dw, N, K, M);
    } else {
        round_operand(r, kind, OP_ACT, dy, M, N, a);
        round_operand(r, kind, OP_ACT, x, M, K, b);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)N, (int)K, (int)M, 1.0f, a,
                    (int)N, b, (int)K, 0.0f, dw, (int)K);
    }
}

gpt_gemms recipe_gemms(lab6_recipe *r)
{
    gpt_gemms g = {r_forward, r_backward, r};
    return g;
}

float recipe_step(lab6_recipe *r, gpt_adamw *o, gpt_model *m)
{
    float *old = NULL;
    if (masterless(r->kind)) {
        old = malloc(m->n_params * sizeof(float));
        if (!old)
            abort();
        memcpy(old, m->params, m->n_params * sizeof(float));
    }
    float norm = gpt_adamw_step(o, m);
    if (old) {
        size_t updates = 0, lost = 0;
        double moved = 0.0, kept = 0.0;
        for (size_t i = 0; i < m->n_params; i++) {
            float v = m->params[i], back;
            uint16_t h = r->kind == RECIPE_BF16_SR ? lab6_sr_bf16(v, rng_u32(&r->sr))
                                                   : fp16_encode(v, FP16_BF16);
            back = fp16_decode(h, FP16_BF16);
            m->params[i] = back;
            updates += v != old[i];
            lost += v != old[i] && back == old[i];
            double move = (double)v - (double)old[i];
            moved += fabs(move);
            kept += move > 0 ? (double)back - old[i] : move < 0 ? (double)old[i] - back : 0.0;
        }
        r->updates = updates;
        r->lost = lost;
        r->kept = moved > 0.0 ? kept / moved : 1.0;
        free(old);
    }
    if (per_tensor_fp8(r->kind))
        for (int id = 0; id < r->n_linear; id++)
            lab6_fp8_update(&r->linear[id]);
    memcpy(r->last_n, r->site_n, sizeof r->last_n);
    memcpy(r->last_flushed, r->site_flushed, sizeof r->last_flushed);
    memset(r->site_n, 0, sizeof r->site_n);
    memset(r->site_flushed, 0, sizeof r->site_flushed);
    return norm;
}

/* ---- FP8 outside the linear layers ------------------------------------------------ */

/* One tensor at a site, rows x cols values stride apart: gathered, cast
 * with its own current scale by lab6_fp8_cast (E4M3; a gradient, at the
 * _GRAD sites, E5M2, as HYBRID has it), decoded, scaled back and put where
 * it was. */
static void site_round(void *ctx, gpt_site site, int layer, float *x, size_t rows, size_t cols,
                       size_t stride)
{
    lab6_recipe *r = ctx;
    size_t n = rows * cols;
    (void)layer;
    if (!(r->fp8_sites >> site & 1u) || n == 0)
        return;
    if (n > r->site_cap) {
        free(r->site_buf);
        free(r->site_codes);
        r->site_buf = malloc(n * sizeof(float));
        r->site_codes = malloc(n);
        if (!r->site_buf || !r->site_codes)
            abort();
        r->site_cap = n;
    }
    for (size_t i = 0; i < rows; i++)
        memcpy(r->site_buf + i * cols, x + i * stride, cols * sizeof(float));
    fp8_format fmt = site == GPT_SITE_QK_GRAD || site == GPT_SITE_PV_GRAD ? FP8_E5M2 : FP8_E4M3;
    delayed_scaler s;
    delayed_init(&s, fmt, false, 1, 0);
    size_t flushed = 0;
    float sinv = lab6_fp8_cast(&s, 1, r->site_buf, n, r->site_codes, NULL, &flushed);
    float dec[256];
    for (int c = 0; c < 256; c++)
        dec[c] = fp8_decode((uint8_t)c, fmt);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            x[i * stride + j] = dec[r->site_codes[i * cols + j]] * sinv;
    r->site_n[site] += n;
    r->site_flushed[site] += flushed;
}

gpt_rounding recipe_rounding(lab6_recipe *r)
{
    gpt_rounding g = {NULL, NULL};
    if (r->fp8_sites & ((1u << GPT_SITES) - 1u))
        g.round = site_round, g.ctx = r;
    return g;
}

double recipe_site_flushed(const lab6_recipe *r, gpt_site site)
{
    return r->last_n[site] ? (double)r->last_flushed[site] / (double)r->last_n[site] : 0.0;
}

void recipe_cast_shares(const lab6_recipe *r, double saturated[3], double flushed[3])
{
    for (int t = 0; t < 3; t++) {
        size_t n = 0, s = 0, f = 0;
        if (per_tensor_fp8(r->kind))
            for (int id = 0; id < r->n_linear; id++) {
                n += r->linear[id].n_cast[t];
                s += r->linear[id].n_saturated[t];
                f += r->linear[id].n_flushed[t];
            }
        saturated[t] = n ? (double)s / (double)n : 0.0;
        flushed[t] = n ? (double)f / (double)n : 0.0;
    }
}
