/*
 * test_model.c - lab6's given transformer (labs/lab6/model.c), checked by
 * things other than itself:
 *   - its forward pass, loss and every gradient against PyTorch's autograd
 *     on the same weights and tokens, in float64 (tests/lab6/torch_model.py
 *     made data/golden/lab6/model);
 *   - two AdamW steps against torch.optim.AdamW with gradient clipping;
 *   - its gradients against central finite differences of its own loss, at
 *     the largest coordinate of every tensor and at random ones;
 *   - causality: a token changes no logit before it;
 *   - a checkpoint: saved and loaded whole, another model's refused, a
 *     truncated file refused with nothing changed;
 *   - the text: the split, the vocabulary, and a clear error for a file that
 *     is missing or holds a byte outside it; a configuration that cannot
 *     be built is refused, naming the field.
 *
 *   build/tests/lab6/test_model [DATA_DIR]    (default data/golden/lab6/model)
 */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "golden_load.h"
#include "model.h"
#include "npy.h"

static const char *dir = "data/golden/lab6/model";

enum { B = 2, T = 8 };

static gpt_config tiny(void)
{
    gpt_config c = gpt_config_default();
    c.d_model = 16;
    c.n_layer = 2;
    c.n_head = 4;
    c.n_kv_head = 2;
    c.d_ff = 24;
    c.ctx = 8;
    return c;
}

static void *load(const char *name, npy_dtype dtype, size_t n)
{
    return golden_load(dir, name, dtype, n);
}

typedef struct golden_case {
    gpt_model m;
    uint8_t *tokens, *targets;
} golden_case;

static void golden_model(golden_case *g)
{
    gpt_config c = tiny();
    rng_state rng;
    lab_error err;
    rng_seed(&rng, 1, 1);
    ck_assert_msg(gpt_init(&g->m, &c, B * T, &rng, &err) == 0, "%s", err.msg);
    float *p = load("params.npy", NPY_F32, g->m.n_params);
    memcpy(g->m.params, p, g->m.n_params * sizeof(float));
    free(p);
    g->tokens = load("tokens.npy", NPY_U8, B * T);
    g->targets = load("targets.npy", NPY_U8, B * T);
}

static void golden_free(golden_case *g)
{
    gpt_free(&g->m);
    free(g->tokens);
    free(g->targets);
}

/* Every value of got within tol * (the largest |want| of the tensor) + abs of
 * want; names the first that is not. */
static void expect_close(const char *what, const float *got, const float *want, size_t n,
                         double rel, double abs_tol)
{
    double scale = 0.0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs((double)want[i]));
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i] - (double)want[i]);
        ck_assert_msg(diff <= rel * scale + abs_tol,
                      "%s[%zu]: %.9g, PyTorch %.9g (difference %.3g; the tensor's largest %.3g)",
                      what, i, (double)got[i], (double)want[i], diff, scale);
    }
}

START_TEST(forward_matches_torch)
{
    golden_case g;
    golden_model(&g);
    float loss = gpt_forward(&g.m, g.tokens, g.targets, B, T);
    float *want_loss = load("loss.npy", NPY_F32, 1);
    ck_assert_msg(fabs((double)loss - (double)want_loss[0]) <= 1e-5 * fabs((double)want_loss[0]),
                  "loss %.9g, PyTorch %.9g", (double)loss, (double)want_loss[0]);
    float *want = load("logits.npy", NPY_F32, (size_t)B * T * GPT_VOCAB);
    expect_close("logits", gpt_logits(&g.m), want, (size_t)B * T * GPT_VOCAB, 2e-6, 0.0);
    free(want);
    free(want_loss);
    golden_free(&g);
}
END_TEST

START_TEST(gradients_match_torch)
{
    golden_case g;
    golden_model(&g);
    gpt_forward(&g.m, g.tokens, g.targets, B, T);
    gpt_backward(&g.m);
    float *want = load("grads.npy", NPY_F32, g.m.n_params);
    for (int k = 0; k < g.m.n_tensors; k++) {
        const gpt_tensor *t = &g.m.tensors[k];
        char what[64];
        snprintf(what, sizeof what, "d %s", t->name);
        expect_close(what, t->g, want + (t->g - g.m.grads), t->rows * t->cols, 1e-5, 1e-9);
    }
    free(want);
    golden_free(&g);
}
END_TEST

START_TEST(adamw_matches_torch)
{
    golden_case g;
    golden_model(&g);
    float *grads = load("grads.npy", NPY_F32, g.m.n_params);
    float *want = load("adamw2.npy", NPY_F32, g.m.n_params);
    gpt_adamw o;
    ck_assert(gpt_adamw_init(&o, &g.m, 0.01f) == 0);
    double norm = 0.0;
    for (size_t i = 0; i < g.m.n_params; i++)
        norm += (double)grads[i] * grads[i];
    ck_assert_msg(sqrt(norm) > 1.5, "the golden's gradient norm %.3g does not test clipping",
                  sqrt(norm));
    for (int step = 0; step < 2; step++) {
        memcpy(g.m.grads, grads, g.m.n_params * sizeof(float));
        float n = gpt_adamw_step(&o, &g.m);
        ck_assert_msg(fabs((double)n - sqrt(norm)) <= 1e-5 * sqrt(norm), "norm %.9g, want %.9g",
                      (double)n, sqrt(norm));
    }
    for (int k = 0; k < g.m.n_tensors; k++) {
        const gpt_tensor *t = &g.m.tensors[k];
        char what[64];
        snprintf(what, sizeof what, "%s after 2 steps", t->name);
        expect_close(what, t->w, want + (t->w - g.m.params), t->rows * t->cols, 1e-6, 1e-7);
    }
    gpt_adamw_free(&o);
    free(grads);
    free(want);
    golden_free(&g);
}
END_TEST

START_TEST(gradients_match_finite_differences)
{
    golden_case g;
    golden_model(&g);
    gpt_forward(&g.m, g.tokens, g.targets, B, T);
    gpt_backward(&g.m);
    float *grads = malloc(g.m.n_params * sizeof(float));
    ck_assert(grads != NULL);
    memcpy(grads, g.m.grads, g.m.n_params * sizeof(float));
    rng_state rng;
    rng_seed(&rng, 7, 7);
    const float h = 1e-2f;
    for (int k = 0; k < g.m.n_tensors; k++) {
        const gpt_tensor *t = &g.m.tensors[k];
        size_t n = t->rows * t->cols, off = (size_t)(t->w - g.m.params), top = 0;
        for (size_t i = 1; i < n; i++)
            top = fabsf(grads[off + i]) > fabsf(grads[off + top]) ? i : top;
        for (int j = 0; j < 4; j++) {
            size_t i = j == 0 ? top : rng_below(&rng, (uint32_t)n);
            float keep = t->w[i];
            t->w[i] = keep + h;
            double up = gpt_forward(&g.m, g.tokens, g.targets, B, T);
            t->w[i] = keep - h;
            double down = gpt_forward(&g.m, g.tokens, g.targets, B, T);
            t->w[i] = keep;
            double fd = (up - down) / (2.0 * (double)h), an = grads[off + i];
            ck_assert_msg(fabs(fd - an) <= 2e-3 * fabs(an) + 2e-4,
                          "d %s[%zu]: backward %.6g, finite difference %.6g", t->name, i, an, fd);
        }
    }
    free(grads);
    golden_free(&g);
}
END_TEST

START_TEST(causal)
{
    golden_case g;
    golden_model(&g);
    const size_t V = GPT_VOCAB;
    gpt_forward(&g.m, g.tokens, NULL, B, T);
    float *before = malloc((size_t)B * T * V * sizeof(float));
    ck_assert(before != NULL);
    memcpy(before, gpt_logits(&g.m), (size_t)B * T * V * sizeof(float));
    g.tokens[5] = (uint8_t)((g.tokens[5] + 1) % V);
    gpt_forward(&g.m, g.tokens, NULL, B, T);
    const float *after = gpt_logits(&g.m);
    ck_assert_msg(memcmp(before, after, 5 * V * sizeof(float)) == 0,
                  "changing token 5 changed the logits of an earlier position");
    ck_assert_msg(memcmp(before + 5 * V, after + 5 * V, V * sizeof(float)) != 0,
                  "changing token 5 did not change its own logits");
    ck_assert_msg(memcmp(before + T * V, after + T * V, T * V * sizeof(float)) == 0,
                  "changing a token of sequence 0 changed sequence 1");
    /* a shorter sequence gives the first positions' logits of a longer one */
    gpt_forward(&g.m, g.tokens, NULL, 1, 5);
    ck_assert_msg(memcmp(gpt_logits(&g.m), after, 5 * V * sizeof(float)) == 0,
                  "5 tokens alone gave other logits than the first 5 of 8");
    free(before);
    golden_free(&g);
}
END_TEST

/* ---- the rounding sites (model.h's gpt_rounding) -------------------------------------- */

/* A rounding that records its calls and, for `action`, changes the tensor:
 * 0 nothing; 1 doubles q and halves k (QK), halves P and doubles v (PV):
 * the products stay the same to the bit; 2 adds 0.5 to the scores (SOFTMAX):
 * softmax is the same but for rounding; 3 zeroes the embedding rows; 4
 * zeroes dS (QK_GRAD), 5 dO (PV_GRAD). */
typedef struct call_log {
    int n, action;
    struct { gpt_site site; int layer; size_t rows, cols, stride; } c[64];
} call_log;

static void logging_round(void *ctx, gpt_site site, int layer, float *x, size_t rows,
                          size_t cols, size_t stride)
{
    call_log *log = ctx;
    if (log->n < 64)
        log->c[log->n] = (__typeof__(log->c[0])){site, layer, rows, cols, stride};
    log->n++;
    int first_of_two = log->n >= 2 && log->c[log->n - 2].site == site ? 0 : 1;
    float f = 1.0f;
    if (log->action == 1 && site == GPT_SITE_QK)
        f = first_of_two ? 2.0f : 0.5f;
    if (log->action == 1 && site == GPT_SITE_PV)
        f = first_of_two ? 0.5f : 2.0f;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            float *v = &x[i * stride + j];
            if (log->action == 2 && site == GPT_SITE_SOFTMAX)
                *v += 0.5f;
            else if ((log->action == 3 && site == GPT_SITE_EMBED) ||
                     (log->action == 4 && site == GPT_SITE_QK_GRAD) ||
                     (log->action == 5 && site == GPT_SITE_PV_GRAD))
                *v = 0.0f;
            else
                *v *= f;
        }
}

static float *logits_copy(const gpt_model *m)
{
    size_t n = (size_t)B * T * GPT_VOCAB;
    float *l = malloc(n * sizeof(float));
    ck_assert(l != NULL);
    memcpy(l, gpt_logits(m), n * sizeof(float));
    return l;
}

START_TEST(rounding_sites)
{
    golden_case g;
    golden_model(&g);
    size_t D = 16, hd = 4, H = 4, KV = 2, Qd = (H + 2 * KV) * hd, L = 2, n = (size_t)B * T;
    float loss0 = gpt_forward(&g.m, g.tokens, g.targets, B, T);
    float *base = logits_copy(&g.m);

    /* where and on what each site is called, in the forward pass's order */
    call_log log = {0};
    g.m.rounding = (gpt_rounding){logging_round, &log};
    float loss1 = gpt_forward(&g.m, g.tokens, g.targets, B, T);
    ck_assert_msg(memcmp(base, gpt_logits(&g.m), n * GPT_VOCAB * sizeof(float)) == 0 &&
                      loss1 == loss0, "a rounding that changes nothing changed the logits");
    struct { gpt_site site; int layer; size_t rows, cols, stride; } want[64];
    int k = 0;
    want[k++] = (__typeof__(want[0])){GPT_SITE_EMBED, 0, n, D, D};
    for (int l = 0; l < (int)L; l++) {
        want[k++] = (__typeof__(want[0])){GPT_SITE_NORM, l, n, D, D};
        want[k++] = (__typeof__(want[0])){GPT_SITE_QK, l, n, H * hd, Qd};
        want[k++] = (__typeof__(want[0])){GPT_SITE_QK, l, n, KV * hd, Qd};
        want[k++] = (__typeof__(want[0])){GPT_SITE_SOFTMAX, l, B * H * T, T, T};
        want[k++] = (__typeof__(want[0])){GPT_SITE_PV, l, B * H * T, T, T};
        want[k++] = (__typeof__(want[0])){GPT_SITE_PV, l, n, KV * hd, Qd};
        want[k++] = (__typeof__(want[0])){GPT_SITE_NORM, l, n, D, D};
    }
    want[k++] = (__typeof__(want[0])){GPT_SITE_NORM, (int)L, n, D, D};
    ck_assert_int_eq(log.n, k);
    for (int i = 0; i < k; i++)
        ck_assert_msg(log.c[i].site == want[i].site && log.c[i].layer == want[i].layer &&
                          log.c[i].rows == want[i].rows && log.c[i].cols == want[i].cols &&
                          log.c[i].stride == want[i].stride,
                      "call %d: site %d layer %d, %zu x %zu stride %zu; expected site %d layer "
                      "%d, %zu x %zu stride %zu", i, log.c[i].site, log.c[i].layer,
                      log.c[i].rows, log.c[i].cols, log.c[i].stride, want[i].site,
                      want[i].layer, want[i].rows, want[i].cols, want[i].stride);

    /* q and k, P and v are the operands the products use: x2 and /2 cancel
     * exactly, so QK's and PV's tensors are the right ones */
    log = (call_log){.action = 1};
    gpt_forward(&g.m, g.tokens, g.targets, B, T);
    ck_assert_msg(memcmp(base, gpt_logits(&g.m), n * GPT_VOCAB * sizeof(float)) == 0,
                  "q x 2, k / 2, P / 2, v x 2 changed the logits: not the products' operands");
    /* the scores are softmax's input: a shift changes nothing but rounding */
    log = (call_log){.action = 2};
    gpt_forward(&g.m, g.tokens, g.targets, B, T);
    expect_close("logits with the scores shifted by 0.5", gpt_logits(&g.m), base,
                 n * GPT_VOCAB, 1e-5, 0.0);
    /* the embedding rows are what the blocks read */
    log = (call_log){.action = 3};
    float loss3 = gpt_forward(&g.m, g.tokens, g.targets, B, T);
    ck_assert_msg(fabsf(loss3 - loss0) > 1e-3f, "zeroed embeddings changed nothing");
    /* the backward pass runs on what forward rounded (here unchanged) */
    log = (call_log){0};
    gpt_forward(&g.m, g.tokens, g.targets, B, T);
    gpt_backward(&g.m);
    float *want_g = load("grads.npy", NPY_F32, g.m.n_params);
    expect_close("gradients with a rounding that changes nothing", g.m.grads, want_g,
                 g.m.n_params, 1e-5, 0.0);
    free(want_g);
    /* backward: dO, then dS, of each block from the last */
    ck_assert_int_eq(log.n, k + 2 * (int)L);
    for (int l = (int)L - 1, i = k; l >= 0; l--, i += 2) {
        ck_assert_msg(log.c[i].site == GPT_SITE_PV_GRAD && log.c[i].layer == l &&
                          log.c[i].rows == n && log.c[i].cols == D && log.c[i].stride == D,
                      "backward call %d: site %d layer %d, %zu x %zu stride %zu; expected dO "
                      "(site %d) of layer %d", i - k, log.c[i].site, log.c[i].layer,
                      log.c[i].rows, log.c[i].cols, log.c[i].stride, GPT_SITE_PV_GRAD, l);
        ck_assert_msg(log.c[i + 1].site == GPT_SITE_QK_GRAD && log.c[i + 1].layer == l &&
                          log.c[i + 1].rows == B * H * T && log.c[i + 1].cols == (size_t)T &&
                          log.c[i + 1].stride == (size_t)T,
                      "backward call %d: site %d layer %d, %zu x %zu stride %zu; expected dS "
                      "(site %d) of layer %d", i + 1 - k, log.c[i + 1].site, log.c[i + 1].layer,
                      log.c[i + 1].rows, log.c[i + 1].cols, log.c[i + 1].stride,
                      GPT_SITE_QK_GRAD, l);
    }
    /* they are the products' gradients: with dS zero, q's and k's gradients
     * are zero and v's are not; with dO zero, all three are (the QKV
     * weight's gradient, rows q, k, then v, tells) */
    for (int action = 4; action <= 5; action++) {
        log = (call_log){.action = action};
        gpt_forward(&g.m, g.tokens, g.targets, B, T);
        gpt_backward(&g.m);
        for (size_t l = 0; l < L; l++) {
            char name[32];
            snprintf(name, sizeof name, "layer%zu.w_qkv", l);
            const gpt_tensor *w = NULL;
            for (int t = 0; t < g.m.n_tensors; t++)
                if (strcmp(g.m.tensors[t].name, name) == 0)
                    w = &g.m.tensors[t];
            ck_assert_msg(w != NULL && w->rows == Qd, "no tensor %s of %zu rows", name, Qd);
            size_t qk = (H + KV) * hd * D, zero_qk = 0, zero_v = 0;
            for (size_t i = 0; i < Qd * D; i++)
                *(i < qk ? &zero_qk : &zero_v) += w->g[i] == 0.0f;
            ck_assert_msg(zero_qk == qk, "%s: dS or dO zero, yet %zu of q's and k's %zu weight "
                          "gradients are not", name, qk - zero_qk, qk);
            ck_assert_msg(action == 5 ? zero_v == Qd * D - qk : zero_v < (Qd * D - qk) / 2,
                          "%s: %s zero, and %zu of v's %zu weight gradients are zero", name,
                          action == 5 ? "dO" : "dS", zero_v, Qd * D - qk);
        }
    }
    free(base);
    golden_free(&g);
}
END_TEST

START_TEST(config_refused)
{
    static const struct {
        const char *field;
        size_t offset;
        int bad;
    } cases[] = {
        {"vocab", offsetof(gpt_config, vocab), 95},
        {"d_model", offsetof(gpt_config, d_model), 18},  /* not 4 heads */
        {"d_model", offsetof(gpt_config, d_model), 12},  /* head_dim 3: odd */
        {"n_kv_head", offsetof(gpt_config, n_kv_head), 3},
        {"n_layer", offsetof(gpt_config, n_layer), 0},
        {"ctx", offsetof(gpt_config, ctx), -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gpt_config c = tiny();
        memcpy((char *)&c + cases[k].offset, &cases[k].bad, sizeof(int));
        gpt_model m;
        rng_state rng;
        lab_error err = {{0}};
        rng_seed(&rng, 1, 1);
        ck_assert_msg(gpt_init(&m, &c, 16, &rng, &err) == -1, "%s %d was accepted",
                      cases[k].field, cases[k].bad);
        ck_assert_msg(strstr(err.msg, cases[k].field) != NULL, "%s %d: the error \"%s\"",
                      cases[k].field, cases[k].bad, err.msg);
    }
}
END_TEST

START_TEST(text_split_and_errors)
{
    char path[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/lab6_text.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp %s", path);
    FILE *f = fdopen(fd, "wb");
    ck_assert(f != NULL);
    uint32_t lcg = 12345;  /* characters that repeat no window of 16 */
    for (int i = 0; i < 10000; i++) {
        lcg = lcg * 1664525u + 1013904223u;
        fputc(i == 0 ? ' ' : i == 94 ? '~' : i % 100 == 99 ? '\n' : ' ' + (int)(lcg >> 16) % 95, f);
    }
    fclose(f);
    gpt_text t;
    lab_error err;
    ck_assert_msg(gpt_text_load(path, &t, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(t.n, 10000);
    ck_assert_uint_eq(t.n_train, 9000);
    ck_assert_uint_eq(t.tokens[0], 1);    /* ' ' */
    ck_assert_uint_eq(t.tokens[94], 95);  /* '~' */
    ck_assert_uint_eq(t.tokens[99], 0);   /* newline */
    for (int c = 0; c < 256; c++) {
        int tok = gpt_token(c);
        if (tok >= 0)
            ck_assert_int_eq(gpt_char(tok), c);
    }
    uint8_t x[4 * 16], y[4 * 16];
    rng_state rng;
    rng_seed(&rng, 3, 3);
    for (int val = 0; val < 2; val++)
        for (int r = 0; r < 200; r++) {
            gpt_text_batch(&t, val, 4, 16, &rng, x, y);
            for (int b = 0; b < 4; b++) {
                size_t off = 0;
                while (off + 16 <= t.n && memcmp(t.tokens + off, x + b * 16, 16) != 0)
                    off++;
                ck_assert(off + 16 <= t.n);
                ck_assert_msg(val ? off >= t.n_train : off + 16 < t.n_train,
                              "a %s window at %zu crosses the split at %zu",
                              val ? "validation" : "training", off, t.n_train);
                ck_assert(memcmp(y + b * 16, x + b * 16 + 1, 15) == 0);
            }
        }
    gpt_text_free(&t);

    f = fopen(path, "r+b");
    ck_assert(f != NULL);
    fseek(f, 4321, SEEK_SET);
    fputc('\t', f);
    fclose(f);
    ck_assert_int_eq(gpt_text_load(path, &t, &err), -1);
    ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "byte 4321") && strstr(err.msg, "0x09"),
                  "%s", err.msg);
    remove(path);
    ck_assert_int_eq(gpt_text_load(path, &t, &err), -1);
    ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "cannot open"), "%s", err.msg);
}
END_TEST

START_TEST(checkpoint_round_trip_and_errors)
{
    golden_case g;
    golden_model(&g);
    gpt_adamw o;
    lab_error err;
    ck_assert(gpt_adamw_init(&o, &g.m, 1e-3f) == 0);
    gpt_forward(&g.m, g.tokens, g.targets, B, T);
    gpt_backward(&g.m);
    gpt_adamw_step(&o, &g.m);
    gpt_adamw_step(&o, &g.m);
    char dir[4096], cmd[4200];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/lab6_ckpt.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert(mkdtemp(dir) != NULL);
    ck_assert_msg(gpt_save(&g.m, &o, dir, &err) == 0, "%s", err.msg);
    size_t n = g.m.n_params * sizeof(float);
    float *p = malloc(n), *m1 = malloc(n), *m2 = malloc(n);
    ck_assert(p && m1 && m2);
    memcpy(p, g.m.params, n), memcpy(m1, o.m1, n), memcpy(m2, o.m2, n);
    /* a fresh model and optimizer, loaded, are the saved ones */
    golden_case h;
    golden_model(&h);
    gpt_adamw o2;
    ck_assert(gpt_adamw_init(&o2, &h.m, 1e-3f) == 0);
    ck_assert_msg(gpt_load(&h.m, &o2, dir, &err) == 0, "%s", err.msg);
    ck_assert(memcmp(h.m.params, p, n) == 0 && memcmp(o2.m1, m1, n) == 0 &&
              memcmp(o2.m2, m2, n) == 0 && o2.step == 2);
    /* and NumPy's format: params.npy is the flat weights */
    char path[4200];
    snprintf(path, sizeof path, "%s/params.npy", dir);
    float *flat = golden_load(dir, "params.npy", NPY_F32, g.m.n_params);
    ck_assert(memcmp(flat, p, n) == 0);
    free(flat);
    /* another model's checkpoint: refused, naming the file and the field */
    gpt_config c = tiny();
    c.d_ff = 32;
    gpt_model other;
    rng_state rng;
    rng_seed(&rng, 1, 1);
    ck_assert(gpt_init(&other, &c, B * T, &rng, &err) == 0);
    gpt_adamw o3;
    ck_assert(gpt_adamw_init(&o3, &other, 1e-3f) == 0);
    ck_assert(gpt_load(&other, &o3, dir, &err) == -1);
    ck_assert_msg(strstr(err.msg, "config.npy") && strstr(err.msg, "d_ff is 24, this model's is 32"),
                  "%s", err.msg);
    /* a truncated moment file: refused, and nothing changed */
    snprintf(path, sizeof path, "%s/adam_m2.npy", dir);
    ck_assert(truncate(path, 200) == 0);
    memset(h.m.params, 0, n);
    ck_assert(gpt_load(&h.m, &o2, dir, &err) == -1);
    ck_assert_msg(strstr(err.msg, "adam_m2.npy") != NULL, "%s", err.msg);
    for (size_t i = 0; i < h.m.n_params; i++)
        ck_assert_msg(h.m.params[i] == 0.0f, "a failed load changed weight %zu", i);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
    ck_assert(gpt_load(&h.m, &o2, dir, &err) == -1);
    ck_assert_msg(strstr(err.msg, "config.npy") != NULL, "%s", err.msg);
    free(p), free(m1), free(m2);
    gpt_adamw_free(&o), gpt_adamw_free(&o2), gpt_adamw_free(&o3);
    gpt_free(&other);
    golden_free(&g);
    golden_free(&h);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab6 model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, forward_matches_torch);
    tcase_add_test(tc, gradients_match_torch);
    tcase_add_test(tc, adamw_matches_torch);
    tcase_add_test(tc, gradients_match_finite_differences);
    tcase_add_test(tc, causal);
    tcase_add_test(tc, rounding_sites);
    tcase_add_test(tc, config_refused);
    tcase_add_test(tc, text_split_and_errors);
    tcase_add_test(tc, checkpoint_round_trip_and_errors);
    suite_add_tcase(s, tc);
    return check_run(s);
}
