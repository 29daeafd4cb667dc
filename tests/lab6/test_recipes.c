/*
 * test_recipes.c - lab6's given recipes (labs/lab6/recipes.c): each
 * recipe's three products of a linear layer against the exact (double)
 * products of operands rounded here, independently, as recipes.h says:
 * BF16 by the library's codec, MXFP8 by common/mx.h's mx_quantize and
 * mx_dequantize along the product's inner dimension, fine-grained by the
 * reference's lab6_quantize_tiles and _blocks (tiles along the inner
 * dimension, the weight's 128 x 128 blocks); the LM head left in FP32 by
 * default and put in FP8 by fp8_head; the master-less steps' rounding back
 * to BF16 (nearest even; stochastic: one of the two neighbours, both
 * seen) and their count of lost updates; the rounding of the tensors
 * outside the linear layers (fp8_sites) against the library's codec.
 *
 *   build/tests/lab6/test_recipes
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fp8.h"
#include "lab6.h"
#include "model.h"
#include "mx.h"
#include "recipes.h"

/* A model big enough for two tiles along d_ff (K = 300 is not a multiple of
 * 128 or 32); the products are tested on linear layer GPT_DOWN of layer 0,
 * whose weight is d_model x d_ff. */
static gpt_config cfg(void)
{
    gpt_config c = gpt_config_default();
    c.d_model = 136;
    c.n_head = 4;
    c.n_kv_head = 2;
    c.d_ff = 300;
    c.n_layer = 1;
    c.ctx = 8;
    return c;
}
enum { M = 40, N = 136, K = 300 };

static void fill(float *x, size_t n, rng_state *rng)
{
    for (size_t i = 0; i < n; i++)
        x[i] = ldexpf(rng_normal(rng), (int)rng_below(rng, 16) - 8);
}

static void transpose(const float *in, size_t rows, size_t cols, float *out)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            out[j * rows + i] = in[i * cols + j];
}

/* in (rows x cols) rounded along its rows as recipe kind does an
 * activation (weight: a weight's blocks), dequantized into out. */
static void rounded(lab6_recipe_kind kind, int weight, const float *in, size_t rows, size_t cols,
                    float *out)
{
    size_t n = rows * cols, nt = (cols + 127) / 128;
    uint8_t *codes = malloc(n);
    float *sinv = malloc(((rows + 127) / 128 * 128) * nt * sizeof(float));
    ck_assert(codes && sinv);
    if (kind == RECIPE_MXFP8) {
        uint8_t *scales = malloc(rows * ((cols + 31) / 32));
        ck_assert(scales != NULL);
        mx_quantize(in, rows, cols, 32, FP8_E4M3, MX_SCALE_CEIL, codes, scales);
        mx_dequantize(codes, scales, rows, cols, 32, FP8_E4M3, out);
        free(scales);
    } else if (kind == RECIPE_FP8_BLOCKWISE) {
        if (weight)
            lab6_quantize_blocks(in, rows, cols, codes, sinv);
        else
            lab6_quantize_tiles(in, rows, cols, codes, sinv);
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                out[i * cols + j] = fp8_decode(codes[i * cols + j], FP8_E4M3) *
                                    sinv[(weight ? i / 128 : i) * nt + j / 128];
    } else if (kind == RECIPE_BF16 || kind == RECIPE_BF16_RNE || kind == RECIPE_BF16_SR) {
        fp16_round_array(in, out, n, FP16_BF16);
    } else {
        memcpy(out, in, n * sizeof(float));
    }
    free(codes);
    free(sinv);
}

/* c (rows x cols) against a b^T (a: rows x inner, b: cols x inner) in
 * double, within an FP32 sum's bound. */
static void check_product(const char *what, const float *c, const float *a, const float *b,
                          size_t rows, size_t cols, size_t inner)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            double sum = 0.0, mag = 0.0;
            for (size_t k = 0; k < inner; k++) {
                double t = (double)a[i * inner + k] * (double)b[j * inner + k];
                sum += t, mag += fabs(t);
            }
            double bound = 2.0 * (double)(inner + 2) * 0x1p-24 * mag + 1e-30;
            ck_assert_msg(fabs((double)c[i * cols + j] - sum) <= bound,
                          "%s[%zu][%zu]: %.9g, the rounded operands' product %.9g (bound %.3g)",
                          what, i, j, (double)c[i * cols + j], sum, bound);
        }
}

static void products_as_described(lab6_recipe_kind kind)
{
    gpt_config c = cfg();
    gpt_model m;
    rng_state rng;
    lab_error err;
    rng_seed(&rng, 70, (uint64_t)kind);
    ck_assert_msg(gpt_init(&m, &c, M, &rng, &err) == 0, "%s", err.msg);
    lab6_recipe r;
    ck_assert(recipe_init(&r, kind, false, &m, 1) == 0);
    gpt_gemms g = recipe_gemms(&r);
    float *x = malloc(M * K * 4), *w = malloc(N * K * 4), *y = malloc(M * N * 4),
          *dy = malloc(M * N * 4), *dx = malloc(M * K * 4), *dw = malloc(N * K * 4);
    float *xa = malloc(M * K * 4), *wa = malloc(N * K * 4), *da = malloc(M * N * 4),
          *t1 = malloc(N * K * 4), *t2 = malloc(N * K * 4), *t3 = malloc(M * K * 4);
    ck_assert(x && w && y && dy && dx && dw && xa && wa && da && t1 && t2 && t3);
    fill(x, M * K, &rng);
    fill(w, N * K, &rng);
    fill(dy, M * N, &rng);
    int id = GPT_DOWN;
    g.forward(g.ctx, id, x, w, y, M, N, K);
    if (kind == RECIPE_FP8_DELAYED || kind == RECIPE_FP8_CURRENT) {
        /* your lab6_fp8_forward and _backward on that layer's scalers, as they
         * are (test_exercises checks what they compute) */
        lab6_fp8_linear L = r.linear[id];
        uint8_t *xq = malloc(M * K), *wq = malloc(N * K);
        ck_assert(xq && wq);
        delayed_init(&L.sx, FP8_E4M3, false, 16, 0);
        delayed_init(&L.sw, FP8_E4M3, false, 16, 0);
        delayed_init(&L.sdy, FP8_E5M2, false, 16, 0);
        L.xq = xq, L.wq = wq;
        lab6_fp8_forward(&L, x, w, xa, M, N, K);
        ck_assert_msg(memcmp(xa, y, M * N * sizeof(float)) == 0,
                      "%s: the forward is not lab6_fp8_forward's", recipe_name(kind));
        ck_assert(r.linear[id].sx.history[0] == L.sx.history[0]);
        g.backward(g.ctx, id, dy, x, w, dx, dw, M, N, K);
        lab6_fp8_backward(&L, dy, t3, t1, M, N, K);
        ck_assert_msg(memcmp(t3, dx, M * K * sizeof(float)) == 0 &&
                          memcmp(t1, dw, N * K * sizeof(float)) == 0,
                      "%s: the backward is not lab6_fp8_backward's", recipe_name(kind));
        free(xq), free(wq);
        goto done;
    }
    rounded(kind, 0, x, M, K, xa);
    rounded(kind, 1, w, N, K, wa);
    check_product("y", y, xa, wa, M, N, K);
    g.backward(g.ctx, id, dy, x, w, dx, dw, M, N, K);
    /* dx = dy W: inner N; W's columns rounded (MX: down each column) */
    rounded(kind, 0, dy, M, N, da);
    if (kind == RECIPE_MXFP8) {
        transpose(w, N, K, t1);
        rounded(kind, 0, t1, K, N, t2); /* t2 = W^T rounded, K x N: b rows for dx */
    } else {
        rounded(kind, 1, w, N, K, t1);
        transpose(t1, N, K, t2);
    }
    check_product("dx", dx, da, t2, M, K, N);
    /* dw = dy^T x: inner M, down the columns of both */
    transpose(dy, M, N, t1);
    rounded(kind, 0, t1, N, M, t2);
    transpose(x, M, K, t3);
    rounded(kind, 0, t3, K, M, t1);
    check_product("dw", dw, t2, t1, N, K, M);
done:
    free(x), free(w), free(y), free(dy), free(dx), free(dw);
    free(xa), free(wa), free(da), free(t1), free(t2), free(t3);
    recipe_free(&r);
    gpt_free(&m);
}

START_TEST(products)
{
    products_as_described((lab6_recipe_kind)_i);
}
END_TEST

START_TEST(lm_head_precision)
{
    gpt_config c = cfg();
    enum { V = GPT_VOCAB };
    for (int head = 0; head < 2; head++) {
        gpt_model m;
        rng_state rng;
        lab_error err;
        rng_seed(&rng, 71, 1);
        ck_assert_msg(gpt_init(&m, &c, M, &rng, &err) == 0, "%s", err.msg);
        lab6_recipe r;
        ck_assert(recipe_init(&r, RECIPE_FP8_CURRENT, head, &m, 1) == 0);
        gpt_gemms g = recipe_gemms(&r);
        float x[M * N], w[V * N], y[M * V];
        fill(x, M * N, &rng);
        fill(w, V * N, &rng);
        int id = c.n_layer * GPT_KINDS;
        g.forward(g.ctx, id, x, w, y, M, V, N);
        size_t casts = r.linear[id].n_cast[0];
        ck_assert_msg(head ? casts == (size_t)M * N : casts == 0,
                      "fp8_head %d: the LM head's forward cast %zu values of x", head, casts);
        if (!head)
            check_product("the LM head's y, FP32", y, x, w, M, V, N);
        recipe_free(&r);
        gpt_free(&m);
    }
}
END_TEST

/* One weight in 5 gets no gradient, and no update to lose. */
/* FP8 outside the linear layers (recipe_rounding): a site in fp8_sites
 * casts its tensor to E4M3 with one current scale, 448 / amax (the library's
 * codec here), and leaves what lies between its rows alone; a site not in
 * fp8_sites, and a recipe with none, round nothing; the flushed values are
 * counted for the step. */
START_TEST(rounding_outside_linear)
{
    gpt_config c = cfg();
    gpt_model m;
    lab6_recipe r;
    rng_state rng;
    lab_error err;
    rng_seed(&rng, 6, 2);
    ck_assert_msg(gpt_init(&m, &c, 8, &rng, &err) == 0, "%s", err.msg);
    ck_assert(recipe_init(&r, RECIPE_FP32, false, &m, 1) == 0);
    ck_assert_msg(recipe_rounding(&r).round == NULL, "no site in FP8, yet a rounding");
    /* a forward tensor in E4M3, a gradient (dS) in E5M2, one current scale */
    for (int grad = 0; grad < 2; grad++) {
        gpt_site site = grad ? GPT_SITE_QK_GRAD : GPT_SITE_SOFTMAX;
        gpt_site other = grad ? GPT_SITE_PV_GRAD : GPT_SITE_PV;
        fp8_format fmt = grad ? FP8_E5M2 : FP8_E4M3;
        r.fp8_sites = 1u << site;
        gpt_rounding g = recipe_rounding(&r);
        ck_assert(g.round != NULL);
        enum { ROWS = 5, COLS = 7, STRIDE = 9 };
        float x[ROWS * STRIDE], orig[ROWS * STRIDE];
        for (int i = 0; i < ROWS * STRIDE; i++)
            x[i] = ldexpf(rng_normal(&rng), (int)rng_below(&rng, 30) - 20);
        x[3] = 1e-30f; /* flushed at any scale these amaxes give */
        memcpy(orig, x, sizeof x);
        g.round(g.ctx, other, 0, x, ROWS, COLS, STRIDE);
        ck_assert_msg(memcmp(x, orig, sizeof x) == 0, "a site not in fp8_sites was rounded");
        g.round(g.ctx, site, 1, x, ROWS, COLS, STRIDE);
        float amax = 0.0f;
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++)
                amax = fmaxf(amax, fabsf(orig[i * STRIDE + j]));
        float scale = (grad ? 57344.0f : 448.0f) / amax, inv = 1.0f / scale;
        size_t flushed = 0, differ_e4m3 = 0;
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < STRIDE; j++) {
                float o = orig[i * STRIDE + j], got = x[i * STRIDE + j];
                float want = j < COLS ? fp8_decode(fp8_encode(o * scale, fmt, true), fmt) * inv : o;
                flushed += j < COLS && o != 0.0f && want == 0.0f;
                differ_e4m3 += want != fp8_decode(fp8_encode(o * scale, FP8_E4M3, true),
                                                  FP8_E4M3) * inv;
                ck_assert_msg(got == want, "site %d [%d][%d] = %a: %a, expected %a", site, i, j,
                              (double)o, (double)got, (double)want);
            }
        ck_assert(flushed >= 1 && differ_e4m3 >= 1);
        ck_assert_uint_eq(r.site_n[site], ROWS * COLS);
        ck_assert_uint_eq(r.site_flushed[site], flushed);
    }
    recipe_free(&r);
    gpt_free(&m);
}
END_TEST

static float grad_of(size_t i)
{
    return i % 5 == 0 ? 0.0f : i % 3 ? 1e-3f : -1e-3f;
}

START_TEST(masterless_rounding)
{
    for (int sr = 0; sr < 2; sr++) {
        gpt_config c = cfg();
        gpt_model m;
        gpt_adamw o;
        rng_state rng;
        lab_error err;
        rng_seed(&rng, 72, 1);
        ck_assert_msg(gpt_init(&m, &c, M, &rng, &err) == 0, "%s", err.msg);
        lab6_recipe r;
        ck_assert(recipe_init(&r, sr ? RECIPE_BF16_SR : RECIPE_BF16_RNE, false, &m, 3) == 0);
        for (size_t i = 0; i < m.n_params; i++)
            ck_assert_msg(fp16_decode(fp16_encode(m.params[i], FP16_BF16), FP16_BF16) ==
                              m.params[i], "weight %zu is not BF16 after recipe_init", i);
        ck_assert(gpt_adamw_init(&o, &m, 1e-3f) == 0);
        o.clip = 0.0f;
        o.weight_decay = 0.0f;
        for (size_t i = 0; i < m.n_params; i++)  /* Adam's first step moves each by lr */
            m.grads[i] = grad_of(i);
        float *before = malloc(m.n_params * sizeof(float));
        ck_assert(before != NULL);
        memcpy(before, m.params, m.n_params * sizeof(float));
        recipe_step(&r, &o, &m);
        /* Adam's first step, as gpt_adamw_step computes it in float */
        float step_size = (float)(1e-3 / (1.0 - 0.9)), bc2_sqrt = (float)sqrt(1.0 - 0.95);
        size_t lost = 0, ups = 0, downs = 0, moved = 0;
        for (size_t i = 0; i < m.n_params; i++) {
            float g = grad_of(i);
            float m1 = (1.0f - 0.9f) * g, m2 = (1.0f - 0.95f) * g * g;
            float want = before[i] - step_size * m1 / (sqrtf(m2) / bc2_sqrt + 1e-8f);
            float got = m.params[i];
            if (!sr) {
                float rne = fp16_decode(fp16_encode(want, FP16_BF16), FP16_BF16);
                ck_assert_msg(got == rne, "rne: weight %zu is %a, want %a (from %a)", i,
                              (double)got, (double)rne, (double)want);
            } else {
                uint16_t t = bf16_truncate(want);
                float a = fp16_decode(t, FP16_BF16), b = fp16_decode((uint16_t)(t + 1), FP16_BF16);
                ck_assert_msg(got == a || got == b, "sr: weight %zu is %a, not a neighbour of %a",
                              i, (double)got, (double)want);
                double p = (fabs((double)want) - fabs((double)a)) / (fabs((double)b) - fabs((double)a));
                ups += got == b && p < 0.25; /* nearest would round these down */
                downs += got == a && p > 0.75;
            }
            lost += got == before[i] && g != 0.0f;
            moved += g != 0.0f;
        }
        ck_assert_msg(r.updates == moved, "updates %zu, want %zu", r.updates, moved);
        ck_assert_msg(r.lost == lost, "lost %zu, counted %zu", r.lost, lost);
        /* kept: the signed share of the moves' size the rounded weights kept */
        double moved_size = 0.0, kept_size = 0.0;
        for (size_t i = 0; i < m.n_params; i++) {
            float g = grad_of(i), m1 = (1.0f - 0.9f) * g, m2 = (1.0f - 0.95f) * g * g;
            float want = before[i] - step_size * m1 / (sqrtf(m2) / bc2_sqrt + 1e-8f);
            double move = (double)want - before[i];
            moved_size += fabs(move);
            kept_size += move > 0 ? (double)m.params[i] - before[i]
                                  : move < 0 ? (double)before[i] - m.params[i] : 0.0;
        }
        ck_assert_msg(fabs(r.kept - kept_size / moved_size) <= 1e-9,
                      "kept %.9f, counted %.9f", r.kept, kept_size / moved_size);
        if (sr)
            ck_assert_msg(ups > 0 && downs > 0, "sr: %zu of less than a quarter of the way rounded "
                          "up, %zu of more than three quarters down: not stochastic", ups, downs);
        free(before);
        gpt_adamw_free(&o);
        recipe_free(&r);
        gpt_free(&m);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lab6 recipes");
    TCase *tc = tcase_create("recipes");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, products, RECIPE_FP32, RECIPE_COUNT);
    tcase_add_test(tc, lm_head_precision);
    tcase_add_test(tc, masterless_rounding);
    tcase_add_test(tc, rounding_outside_linear);
    suite_add_tcase(s, tc);
    return check_run(s);
}
