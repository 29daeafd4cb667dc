/*
 * main.c - lab6's demo: the same transformer trained under each recipe
 * (recipes.h), from the same initial weights on the same batches, side by
 * side: the training and validation loss, tokens per second, the FP8
 * casts' saturated and flushed shares, the weight updates that rounding
 * to BF16 undid, and a short text written by each model.
 *
 *   ./build/lab6/lab6 [--steps N] [--recipes a,b,...] [--fp8-head] [--fp8-also LIST] [--text FILE]
 *                     [--seed S] [--lr LR] [--sample N] [-o DIR] [--no-preview]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "demo.h"
#include "lab6.h"
#include "model.h"
#include "recipes.h"

#define DEFAULT_TEXT "data/lab6/corpus.txt"
#define DEFAULT_DIR "build/lab6/plots"
enum { BATCH = 16, SEQ = 128, VAL_BATCHES = 16, WARMUP = 30 };

typedef struct options {
    int steps;
    bool run[RECIPE_COUNT];
    bool fp8_head;
    unsigned fp8_sites; /* --fp8-also: 1 << gpt_site */
    const char *text;
    uint64_t seed;
    float lr;
    int sample;
    const char *dir; /* the plots' and checkpoints' folder */
} options;

typedef struct result {
    bool ran, diverged;
    int steps_done;
    double train_loss, val_loss, tokens_per_s;
    double saturated[3], flushed[3];
    double lost_share, kept_share;
    double site_flushed[GPT_SITES];
    char sample[512];
    /* per step: the training loss, the share of updates lost; fp8-delayed:
     * the amax each cast of layer 0 recorded (x and dy of QKV, O, GU, DOWN) */
    double *loss, *lost, *kept;
    double *amax[2 * GPT_KINDS];
    /* fp32: each channel's largest |value| over a validation batch, of the
     * last layer's attention output and SwiGLU output */
    double *chan_att, *chan_act;
} result;

static void result_free(result *r)
{
    free(r->loss);
    free(r->lost);
    free(r->kept);
    for (int i = 0; i < 2 * GPT_KINDS; i++)
        free(r->amax[i]);
    free(r->chan_att);
    free(r->chan_act);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What the demo does and its own options, for --help (common/demo.c prints
 * -o, --no-preview and --help). */
static const char ABOUT[] =
    "Trains lab6's transformer under each recipe (fp32, bf16, fp8-delayed,\n"
    "fp8-current, fp8-blockwise, mxfp8, bf16-rne, bf16-sr) from the same\n"
    "weights on the same batches, with your lab6.c; prints each one's losses,\n"
    "speed, FP8 casts and lost updates and a text it writes; resumes\n"
    "fp8-delayed's checkpoint in BF16 and back; draws loss, amax_history,\n"
    "channel_amax and update_stall (.png); checkpoints go to DIR too.\n"
    "  --steps N       training steps per recipe (default 300)\n"
    "  --recipes LIST  comma-separated recipes (default all)\n"
    "  --fp8-head      the LM head's products in FP8 too\n"
    "  --fp8-also LIST FP8 (E4M3, gradients E5M2, a current scale per tensor)\n"
    "                  outside the linear layers too, in every recipe: any of\n"
    "                  embed, norm, qk, softmax, pv (qk and pv: the product's\n"
    "                  operands and its gradient; qk-grad, pv-grad: the\n"
    "                  gradient alone), attention (qk, softmax and pv), head,\n"
    "                  all\n"
    "  --text FILE     the text (default " DEFAULT_TEXT ")\n"
    "  --seed S        the weights', batches' and samples' seed (default 1)\n"
    "  --lr LR         AdamW's peak learning rate (default 3e-3)\n"
    "  --sample N      characters each model writes (default 160)";

/* The sites outside the linear layers, by --fp8-also's names (model.h's
 * gpt_site order). */
static const char *const SITE_NAMES[GPT_SITES] = {"embed", "norm",    "qk",     "softmax",
                                                   "pv",    "qk-grad", "pv-grad"};

/* --fp8-also LIST into o->fp8_sites (and o->fp8_head for head). Returns 0,
 * or -1 with a message on stderr. */
static int parse_sites(const char *list, options *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int k = -1;
        for (int i = 0; i < GPT_SITES; i++)
            if (strcmp(w, SITE_NAMES[i]) == 0)
                k = i;
        /* a product in FP8 is its backward too: qk and pv take their
         * gradients' sites with them */
        if (k == GPT_SITE_QK || k == GPT_SITE_PV)
            o->fp8_sites |= 1u << k | 1u << (k == GPT_SITE_QK ? GPT_SITE_QK_GRAD : GPT_SITE_PV_GRAD);
        else if (k >= 0)
            o->fp8_sites |= 1u << k;
        else if (strcmp(w, "attention") == 0)
            o->fp8_sites |= 1u << GPT_SITE_QK | 1u << GPT_SITE_SOFTMAX | 1u << GPT_SITE_PV |
                            1u << GPT_SITE_QK_GRAD | 1u << GPT_SITE_PV_GRAD;
        else if (strcmp(w, "head") == 0)
            o->fp8_head = true;
        else if (strcmp(w, "all") == 0)
            o->fp8_sites = (1u << GPT_SITES) - 1u, o->fp8_head = true;
        else {
            fprintf(stderr, "lab6: --fp8-also: no place named '%s' (embed, norm, qk, softmax, pv, "
                    "qk-grad, pv-grad, attention, head, all)\n", w);
            return -1;
        }
    }
    return 0;
}

/* Takes lab6's own options out of argv into *o and copies the others, in
 * order, into rest (argv[0] first), for demo_parse_args. Returns 0, or 2
 * with a message on stderr. */
static int take_args(int argc, char **argv, options *o, char **rest, int *n_rest)
{
    *o = (options){300, {0}, false, 0, DEFAULT_TEXT, 1, 3e-3f, 160, DEFAULT_DIR};
    bool any = false;
    *n_rest = 0;
    rest[(*n_rest)++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const char *const own[] = {"--steps", "--recipes", "--text", "--seed", "--lr",
                                          "--sample", "--fp8-also"};
        bool takes_value = false;
        for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
            takes_value |= strcmp(a, own[k]) == 0;
        if (strcmp(a, "--fp8-head") == 0) {
            o->fp8_head = true;
            continue;
        }
        if (!takes_value) {
            rest[(*n_rest)++] = argv[i];
            if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && v)
                rest[(*n_rest)++] = argv[++i];
            continue;
        }
        if (!v) {
            fprintf(stderr, "lab6: %s needs a value (--help)\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--steps") == 0) {
            o->steps = atoi(v);
            if (o->steps < 1 || o->steps > 1000000) {
                fprintf(stderr, "lab6: --steps %s: 1 to 1000000\n", v);
                return 2;
            }
        } else if (strcmp(a, "--fp8-also") == 0) {
            if (parse_sites(v, o))
                return 2;
        } else if (strcmp(a, "--text") == 0) {
            o->text = v;
        } else if (strcmp(a, "--seed") == 0) {
            o->seed = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--lr") == 0) {
            o->lr = strtof(v, NULL);
            if (!(o->lr > 0.0f && o->lr < 1.0f)) {
                fprintf(stderr, "lab6: --lr %s: above 0 and below 1\n", v);
                return 2;
            }
        } else if (strcmp(a, "--sample") == 0) {
            o->sample = atoi(v);
            if (o->sample < 0 || o->sample > 500) {
                fprintf(stderr, "lab6: --sample %s: 0 to 500\n", v);
                return 2;
            }
        } else { /* --recipes */
            char list[256];
            snprintf(list, sizeof list, "%s", v);
            for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
                int k = recipe_from_name(t);
                if (k < 0) {
                    fprintf(stderr, "lab6: --recipes: no recipe named '%s' (--help lists them)\n",
                            t);
                    return 2;
                }
                o->run[k] = any = true;
            }
        }
    }
    if (!any)
        for (int k = 0; k < RECIPE_COUNT; k++)
            o->run[k] = true;
    return 0;
}

static bool masterless(lab6_recipe_kind k)
{
    return k == RECIPE_BF16_RNE || k == RECIPE_BF16_SR;
}

/* The learning rate at step s (from 1): a linear warmup, then a cosine to
 * a tenth of the peak. */
static float lr_at(const options *o, int s)
{
    if (s <= WARMUP)
        return o->lr * (float)s / WARMUP;
    double t = (double)(s - WARMUP) / (double)(o->steps > WARMUP ? o->steps - WARMUP : 1);
    return o->lr * (float)(0.1 + 0.9 * 0.5 * (1.0 + cos(3.14159265358979 * t)));
}

/* A run of a recipe: from the options' initial weights, or from the
 * checkpoint load (then for steps steps at the schedule's last learning
 * rate, on the batches after the first o->steps); saved to save when it
 * is not NULL. */
typedef struct phase {
    const char *load, *save;
    int steps;
    double first_loss; /* the first step's training loss */
    double loaded_val; /* the loaded weights' validation loss, before a step */
} phase;

static double val_loss(gpt_model *m, const gpt_text *text, uint64_t seed)
{
    static uint8_t x[BATCH * SEQ], y[BATCH * SEQ];
    rng_state val;
    rng_seed(&val, seed, 3);
    double vl = 0.0;
    for (int b = 0; b < VAL_BATCHES; b++) {
        gpt_text_batch(text, 1, BATCH, SEQ, &val, x, y);
        vl += gpt_forward(m, x, y, BATCH, SEQ);
    }
    return vl / VAL_BATCHES;
}

/* The fused QKV of layer 0: what the recipe's products saw at the last
 * step, kept by a wrapper around its gpt_gemms. */
typedef struct qkv_capture {
    gpt_gemms inner;
    float *dy;       /* the QKV output's gradient, tokens x qkv */
    size_t rows;
} qkv_capture;

static void capture_forward(void *ctx, int id, const float *x, const float *w, float *y, size_t M,
                            size_t N, size_t K)
{
    qkv_capture *c = ctx;
    c->inner.forward(c->inner.ctx, id, x, w, y, M, N, K);
}

static void capture_backward(void *ctx, int id, const float *dy, const float *x, const float *w,
                             float *dx, float *dw, size_t M, size_t N, size_t K)
{
    qkv_capture *c = ctx;
    if (id == GPT_QKV && c->dy) {
        memcpy(c->dy, dy, M * N * sizeof(float));
        c->rows = M;
    }
    c->inner.backward(c->inner.ctx, id, dy, x, w, dx, dw, M, N, K);
}

/* n doubles, all NaN (a step not taken is not drawn); out of memory ends
 * the demo. */
static double *doubles(size_t n)
{
    double *d = malloc((n ? n : 1) * sizeof(double));
    if (!d) {
        fprintf(stderr, "lab6: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        d[i] = NAN;
    return d;
}

/* The SQNR (dB) of the rows x cols values of x from column col (rows
 * stride apart) cast to fmt with the current scale of amax: your
 * lab6_cast_sqnr on a copy of them. */
static double part_sqnr(const float *x, size_t rows, size_t stride, size_t col, size_t cols,
                        fp8_format fmt, float amax)
{
    float max = fp8_info(fmt)->max_finite, scale = amax > 0.0f ? max / amax : 1.0f;
    float *part = malloc(rows * cols * sizeof(float));
    if (!part)
        return NAN;
    for (size_t r = 0; r < rows; r++)
        memcpy(part + r * cols, x + r * stride + col, cols * sizeof(float));
    double sqnr = lab6_cast_sqnr(part, rows * cols, fmt, scale);
    free(part);
    return sqnr;
}

static float part_amax(const float *x, size_t rows, size_t stride, size_t col, size_t cols)
{
    float a = 0.0f;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = col; c < col + cols; c++)
            a = fmaxf(a, fabsf(x[r * stride + c]));
    return a;
}

/* The fused QKV question (§4): one scale over [Q K V], or one per part, for
 * layer 0's weight (its rows, E4M3) and its output's gradient (its
 * columns, E5M2), at fp8-delayed's last step; current scales, so that the
 * choice of scale is the only difference. */
static void fused_qkv(gpt_model *m, const float *dy, size_t rows)
{
    const gpt_tensor *w = gpt_find(m, "layer0.w_qkv");
    size_t hd = (size_t)(m->cfg.d_model / m->cfg.n_head), Qd = w->rows, D = w->cols;
    size_t width[3] = {(size_t)m->cfg.n_head * hd, (size_t)m->cfg.n_kv_head * hd,
                       (size_t)m->cfg.n_kv_head * hd};
    float w_all = part_amax(w->w, Qd, D, 0, D), dy_all = part_amax(dy, rows, Qd, 0, Qd);
    printf("\nThe fused QKV of layer 0 at fp8-delayed's last step: one scale over [Q K V], or one"
           " per part (SQNR in dB; higher is better)\n");
    printf("  %-22s %-4s %10s %12s %12s\n", "tensor", "part", "amax", "one scale", "own scale");
    static const char *const part[3] = {"Q", "K", "V"};
    size_t at = 0;
    for (int p = 0; p < 3; p++) {
        /* the weight's rows [at, at + width) */
        float a = part_amax(w->w + at * D, width[p], D, 0, D);
        printf("  %-22s %-4s %10.3g %12.1f %12.1f\n", "W_qkv (E4M3)", part[p], (double)a,
               part_sqnr(w->w + at * D, width[p], D, 0, D, FP8_E4M3, w_all),
               part_sqnr(w->w + at * D, width[p], D, 0, D, FP8_E4M3, a));
        at += width[p];
    }
    at = 0;
    for (int p = 0; p < 3; p++) {
        float a = part_amax(dy, rows, Qd, at, width[p]);
        printf("  %-22s %-4s %10.3g %12.1f %12.1f\n", "dy of QKV (E5M2)", part[p], (double)a,
               part_sqnr(dy, rows, Qd, at, width[p], FP8_E5M2, dy_all),
               part_sqnr(dy, rows, Qd, at, width[p], FP8_E5M2, a));
        at += width[p];
    }
    /* what if V's rows were 2^-16 of what they are: the whole's amax (Q's
     * or K's) sets the one scale as before */
    size_t v0 = (width[0] + width[1]) * D, nv = width[2] * D;
    float *v = malloc(nv * sizeof(float));
    if (v) {
        for (size_t i = 0; i < nv; i++)
            v[i] = ldexpf(w->w[v0 + i], -16);
        float a = part_amax(v, width[2], D, 0, D);
        printf("  %-22s %-4s %10.3g %12.1f %12.1f\n", "W_qkv, V x 2^-16", "V", (double)a,
               part_sqnr(v, width[2], D, 0, D, FP8_E4M3, fmaxf(a, w_all)),
               part_sqnr(v, width[2], D, 0, D, FP8_E4M3, a));
        free(v);
    }
}

/* Each channel's largest |value| over the last forward (val_loss's last
 * batch) of the last layer's attention output and SwiGLU output. */
static void channel_amax(const gpt_model *m, result *res)
{
    int last = (m->cfg.n_layer - 1) * GPT_KINDS;
    size_t rows = m->batch * m->seq, D = (size_t)m->cfg.d_model, F = (size_t)m->cfg.d_ff;
    const float *att = gpt_linear_input(m, last + GPT_O), *act = gpt_linear_input(m, last + GPT_DOWN);
    res->chan_att = doubles(D);
    res->chan_act = doubles(F);
    for (size_t i = 0; i < D; i++)
        res->chan_att[i] = 0.0;
    for (size_t i = 0; i < F; i++)
        res->chan_act[i] = 0.0;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < D; c++)
            res->chan_att[c] = fmax(res->chan_att[c], fabs((double)att[r * D + c]));
        for (size_t c = 0; c < F; c++)
            res->chan_act[c] = fmax(res->chan_act[c], fabs((double)act[r * F + c]));
    }
}

static int train(const options *o, lab6_recipe_kind kind, const gpt_text *text, result *res,
                 phase *ph)
{
    memset(res, 0, sizeof *res);
    res->ran = true;
    gpt_config cfg = gpt_config_default();
    gpt_model m;
    gpt_adamw opt;
    lab6_recipe r;
    lab_error err;
    rng_state init, data, sample;
    rng_seed(&init, o->seed, 1);
    rng_seed(&data, o->seed, 2);
    rng_seed(&sample, o->seed, 4);
    if (gpt_init(&m, &cfg, BATCH * SEQ, &init, &err)) {
        fprintf(stderr, "lab6: %s\n", err.msg);
        return -1;
    }
    if (gpt_adamw_init(&opt, &m, o->lr) || recipe_init(&r, kind, o->fp8_head, &m, o->seed)) {
        fprintf(stderr, "lab6: out of memory\n");
        gpt_free(&m);
        return -1;
    }
    m.gemms = recipe_gemms(&r);
    r.fp8_sites = o->fp8_sites;
    m.rounding = recipe_rounding(&r);
    qkv_capture cap = {m.gemms, NULL, 0};
    if (kind == RECIPE_FP8_DELAYED && !(ph && ph->load)) {
        size_t hd = (size_t)(cfg.d_model / cfg.n_head);
        cap.dy = malloc((size_t)BATCH * SEQ * (size_t)(cfg.n_head + 2 * cfg.n_kv_head) * hd *
                        sizeof(float));
        if (cap.dy) {
            m.gemms.forward = capture_forward;
            m.gemms.backward = capture_backward;
            m.gemms.ctx = &cap;
        }
    }
    static uint8_t x[BATCH * SEQ], y[BATCH * SEQ];
    int steps = o->steps;
    if (ph && ph->load) {
        if (gpt_load(&m, &opt, ph->load, &err)) {
            fprintf(stderr, "lab6: %s\n", err.msg);
            recipe_free(&r);
            gpt_adamw_free(&opt);
            gpt_free(&m);
            return -1;
        }
        if (masterless(kind))
            fp16_round_array(m.params, m.params, m.n_params, FP16_BF16);
        for (long b = 0; b < opt.step; b++) /* the batches the checkpoint has seen */
            gpt_text_batch(text, 0, BATCH, SEQ, &data, x, y);
        steps = ph->steps;
        ph->loaded_val = val_loss(&m, text, o->seed);
    }
    double tail = 0.0, seconds = 0.0, lost = 0.0, kept = 0.0;
    int tail_n = 0, lost_n = 0;
    res->loss = doubles((size_t)steps);
    res->lost = doubles((size_t)steps);
    res->kept = doubles((size_t)steps);
    bool amaxes = kind == RECIPE_FP8_DELAYED && !(ph && ph->load);
    for (int i = 0; i < 2 * GPT_KINDS && amaxes; i++)
        res->amax[i] = doubles((size_t)steps);
    for (int s = 1; s <= steps; s++) {
        gpt_text_batch(text, 0, BATCH, SEQ, &data, x, y);
        double t0 = now();
        opt.lr = ph && ph->load ? lr_at(o, o->steps) : lr_at(o, s);
        float loss = gpt_forward(&m, x, y, BATCH, SEQ);
        if (!isfinite(loss)) {
            res->diverged = true;
            break;
        }
        gpt_backward(&m);
        for (int i = 0; i < GPT_KINDS && res->amax[2 * i + 1]; i++) {
            res->amax[2 * i][s - 1] = r.linear[i].sx.history[0];
            res->amax[2 * i + 1][s - 1] = r.linear[i].sdy.history[0];
        }
        recipe_step(&r, &opt, &m);
        res->loss[s - 1] = loss;
        if (r.updates) {
            res->lost[s - 1] = 100.0 * (double)r.lost / (double)r.updates;
            res->kept[s - 1] = 100.0 * r.kept;
        }
        seconds += now() - t0;
        res->steps_done = s;
        if (r.updates) {
            lost += (double)r.lost / (double)r.updates;
            kept += r.kept;
            lost_n++;
        }
        if (s == 1 && ph)
            ph->first_loss = loss;
        if (s > steps - 20) {
            tail += loss;
            tail_n++;
        }
        if (s % 50 == 0 || s == 1) {
            printf("  %-13s step %4d  loss %.3f\n", recipe_name(kind), s, (double)loss);
            fflush(stdout);
        }
    }
    res->train_loss = tail_n ? tail / tail_n : NAN;
    res->tokens_per_s = seconds > 0 ? (double)res->steps_done * BATCH * SEQ / seconds : 0;
    res->lost_share = lost_n ? lost / lost_n : 0.0;
    res->kept_share = lost_n ? kept / lost_n : 1.0;
    recipe_cast_shares(&r, res->saturated, res->flushed);
    for (int i = 0; i < GPT_SITES; i++)
        res->site_flushed[i] = recipe_site_flushed(&r, (gpt_site)i);
    if (cap.dy && cap.rows && !res->diverged)
        fused_qkv(&m, cap.dy, cap.rows);
    free(cap.dy);
    m.gemms = recipe_gemms(&r);
    res->val_loss = res->diverged ? NAN : val_loss(&m, text, o->seed);
    if (kind == RECIPE_FP32 && !(ph && ph->load) && !res->diverged)
        channel_amax(&m, res);
    int status = 0;
    if (ph && ph->save && !res->diverged && gpt_save(&m, &opt, ph->save, &err)) {
        fprintf(stderr, "lab6: %s\n", err.msg);
        status = -1;
    }
    if (!res->diverged && o->sample > 0)
        gpt_sample(&m, "And he said, ", (size_t)o->sample, 0.8f, &sample, res->sample);
    recipe_free(&r);
    gpt_adamw_free(&opt);
    gpt_free(&m);
    return status;
}

/* 002's checkpoint compatibility: the fp8-delayed run's checkpoint resumed
 * in BF16, then that one's back in FP8. */
static int switch_precision(const options *o, const gpt_text *text, double fp8_val)
{
    int n = o->steps / 4 > 10 ? o->steps / 4 : 10;
    char fp8_dir[4096], bf16_dir[4096];
    snprintf(fp8_dir, sizeof fp8_dir, "%s/checkpoint-fp8", o->dir);
    snprintf(bf16_dir, sizeof bf16_dir, "%s/checkpoint-bf16", o->dir);
    result r1, r2;
    phase to_bf16 = {fp8_dir, bf16_dir, n, 0.0, 0.0}, to_fp8 = {bf16_dir, NULL, n, 0.0, 0.0};
    printf("\nThe fp8-delayed model's checkpoint (%s), resumed in BF16 for %d steps, then "
           "back in fp8-delayed for %d:\n", fp8_dir, n, n);
    if (train(o, RECIPE_BF16, text, &r1, &to_bf16) || train(o, RECIPE_FP8_DELAYED, text, &r2,
                                                             &to_fp8))
        return -1;
    printf("  %-38s %8s %8s %10s %8s\n", "", "val loss", "loaded", "1st step", "after");
    printf("  %-38s %8.3f\n", "fp8-delayed, saved", fp8_val);
    printf("  %-38s %8s %8.3f %10.3f %8.3f\n", "resumed in bf16, saved", "", to_bf16.loaded_val,
           to_bf16.first_loss, r1.val_loss);
    printf("  %-38s %8s %8.3f %10.3f %8.3f\n", "back in fp8-delayed (fresh scalers)", "",
           to_fp8.loaded_val, to_fp8.first_loss, r2.val_loss);
    printf("  (loaded: the loaded weights' val loss in the new precision, before a step; 1st step: "
           "its training loss; after: val loss after %d steps)\n", n);
    result_free(&r1);
    result_free(&r2);
    return 0;
}

#define PLOT_WIDTH 1400

/* The mean of each window of w steps of y (n values), at the window's last
 * step, into xs and ys; returns how many. */
static size_t smooth(const double *y, size_t n, size_t w, double *xs, double *ys)
{
    size_t k = 0;
    for (size_t i = 0; i + w <= n; i += w) {
        double sum = 0.0;
        for (size_t j = i; j < i + w; j++)
            sum += y[j];
        xs[k] = (double)(i + w);
        ys[k++] = sum / (double)w;
    }
    return k;
}

static int render(demo_options *d, plot *p, const char *stem, lab_error *err)
{
    return demo_render(d, p, stem, PLOT_WIDTH, err) == -1 ? -1 : 0;
}

/* The four plots; -1 when one could not be written (message printed). */
static int draw_plots(demo_options *d, const options *o, const result *res)
{
    char stem[DEMO_STEM_SIZE];
    lab_error err = {{0}};
    size_t n = (size_t)o->steps, w = n >= 100 ? 10 : 1;
    double *xs = doubles(n + 1), *ys = doubles(n + 1);
    int rc = 0;
    plot *p = NULL;

    /* 1: the loss curves */
    if (demo_stem(d, "loss", stem, sizeof stem) != 0)
        goto fail;
    p = plot_new(stem, "Training loss per recipe (the mean of each 10 steps)", "step",
                 "cross-entropy (nats per character)", &err);
    for (int k = 0; p && k < RECIPE_COUNT; k++)
        if (res[k].ran && res[k].loss) {
            size_t m = smooth(res[k].loss, n, w, xs, ys);
            if (m && plot_add_series(p, recipe_name((lab6_recipe_kind)k), xs, ys, m, &err))
                goto fail;
        }
    if (p && plot_set_key(p, "below", &err))
        goto fail;
    printf("\nPlot 1, the loss curves:\n");
    if (render(d, p, stem, &err))
        goto fail;
    p = NULL;

    /* 2: fp8-delayed's amax history, layer 0 */
    const result *fd = &res[RECIPE_FP8_DELAYED];
    if (fd->ran && fd->amax[0]) {
        static const char *const names[2 * GPT_KINDS] = {
            "x of W_qkv", "dy of W_qkv", "x of W_o", "dy of W_o",
            "x of W_gu", "dy of W_gu", "x of W_down", "dy of W_down"};
        if (demo_stem(d, "amax_history", stem, sizeof stem) != 0)
            goto fail;
        p = plot_new(stem, "fp8-delayed: the amax each cast of layer 0 recorded, per step", "step",
                     "amax (log scale)", &err);
        if (p)
            plot_set_log_y(p, true);
        for (int i = 0; p && i < 2 * GPT_KINDS; i++)
            if (plot_add_series(p, names[i], NULL, fd->amax[i], n, &err) ||
                plot_set_marks(p, PLOT_MARKS_NONE, &err))
                goto fail;
        if (p && plot_set_key(p, "below", &err))
            goto fail;
        printf("\nPlot 2, the amax history:\n");
        if (render(d, p, stem, &err))
            goto fail;
        p = NULL;
    }

    /* 3: the outlier channels */
    const result *f32 = &res[RECIPE_FP32];
    if (f32->ran && f32->chan_att) {
        gpt_config c = gpt_config_default();
        if (demo_stem(d, "channel_amax", stem, sizeof stem) != 0)
            goto fail;
        p = plot_new(stem, "fp32, last layer: each channel's largest |value| over a batch",
                     "channel", "amax (log scale)", &err);
        if (p)
            plot_set_log_y(p, true);
        if (p && (plot_add_series(p, "attention output (into W_o)", NULL, f32->chan_att,
                                  (size_t)c.d_model, &err) ||
                  plot_add_series(p, "SwiGLU output (into W_down)", NULL, f32->chan_act,
                                  (size_t)c.d_ff, &err)))
            goto fail;
        if (p && plot_set_key(p, "below", &err))
            goto fail;
        printf("\nPlot 3, the channels' amax:\n");
        if (render(d, p, stem, &err))
            goto fail;
        p = NULL;
    }

    /* 4: the update stall of master-less BF16 */
    if ((res[RECIPE_BF16_RNE].ran && res[RECIPE_BF16_RNE].kept) ||
        (res[RECIPE_BF16_SR].ran && res[RECIPE_BF16_SR].kept)) {
        if (demo_stem(d, "update_stall", stem, sizeof stem) != 0)
            goto fail;
        p = plot_new(stem, "BF16 weights, no FP32 master: how much of AdamW's moves the "
                     "rounded weights kept", "step", "size of the moves kept, signed (%)", &err);
        for (int k = RECIPE_BF16_RNE; p && k <= RECIPE_BF16_SR; k++)
            if (res[k].ran && res[k].kept) {
                size_t m = smooth(res[k].kept, n, w, xs, ys);
                if (m && plot_add_series(p, k == RECIPE_BF16_RNE ? "round to nearest even"
                                                                  : "stochastic rounding",
                                         xs, ys, m, &err))
                    goto fail;
            }
        if (p && plot_set_key(p, "below", &err))
            goto fail;
        printf("\nPlot 4, the update stall:\n");
        if (render(d, p, stem, &err))
            goto fail;
        p = NULL;
    }
    goto done;
fail:
    if (p)
        fprintf(stderr, "lab6: %s\n", err.msg);
    plot_free(p);
    rc = -1;
done:
    free(xs);
    free(ys);
    return rc;
}

/* mkdir -p path; 0, or -1 with errno. */
static int make_folders(const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *c = p + 1;; c++)
        if (*c == '/' || *c == '\0') {
            char keep = *c;
            *c = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST)
                return -1;
            if (!keep)
                return 0;
            *c = keep;
        }
}

int main(int argc, char **argv)
{
    options o;
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    int n_rest = 0;
    if (!rest) {
        fprintf(stderr, "lab6: out of memory\n");
        return 1;
    }
    int rc = take_args(argc, argv, &o, rest, &n_rest);
    demo_options d;
    if (rc == 0)
        rc = demo_parse_args(n_rest, rest, "lab6", ABOUT, DEFAULT_DIR, &d);
    free(rest);
    if (rc != 0)
        return rc == 1 ? 0 : 2; /* 1: after --help */
    o.dir = d.dir;
    if (make_folders(o.dir)) {
        fprintf(stderr, "lab6: %s: cannot make the folder: %s\n", o.dir, strerror(errno));
        return 2;
    }
    gpt_text text;
    lab_error err;
    if (gpt_text_load(o.text, &text, &err)) {
        fprintf(stderr, "lab6: %s\n", err.msg);
        return 2;
    }
    printf("lab6: a 2-layer transformer (d_model 128, 4 query heads sharing 2 KV heads, SwiGLU 384,"
           " context %d) on %s\n", SEQ, o.text);
    printf("      %zu training and %zu validation characters; %d steps of %d x %d tokens per "
           "recipe; the LM head in %s\n\n",
           text.n_train, text.n - text.n_train, o.steps, BATCH, SEQ,
           o.fp8_head ? "FP8 too" : "the recipe's higher precision");
    if (o.fp8_sites) {
        printf("      FP8 outside the linear layers too (E4M3, gradients E5M2, one current scale "
               "per tensor, every recipe):");
        for (int i = 0; i < GPT_SITES; i++)
            if (o.fp8_sites >> i & 1u)
                printf(" %s", SITE_NAMES[i]);
        printf("\n\n");
    }
    static result res[RECIPE_COUNT];
    for (int k = 0; k < RECIPE_COUNT; k++) {
        char ckpt[4096];
        snprintf(ckpt, sizeof ckpt, "%s/checkpoint-fp8", o.dir);
        phase save = {NULL, ckpt, 0, 0.0, 0.0};
        if (o.run[k] && train(&o, (lab6_recipe_kind)k, &text, &res[k],
                              k == RECIPE_FP8_DELAYED ? &save : NULL)) {
            gpt_text_free(&text);
            return 1;
        }
    }
    printf("\n%-13s %10s %9s %9s %10s  %-23s %-23s %s\n", "recipe", "train loss", "val loss",
           "vs fp32", "tokens/s", "saturated x / w / dy", "flushed x / w / dy",
           "updates lost / kept");
    double ref = res[RECIPE_FP32].ran ? res[RECIPE_FP32].val_loss : NAN;
    for (int k = 0; k < RECIPE_COUNT; k++) {
        const result *r = &res[k];
        if (!r->ran)
            continue;
        char sat[64] = "-", fl[64] = "-", lost[32] = "-", vs[32] = "-";
        if (k == RECIPE_FP8_DELAYED || k == RECIPE_FP8_CURRENT) {
            snprintf(sat, sizeof sat, "%.1e %.1e %.1e", r->saturated[0], r->saturated[1],
                     r->saturated[2]);
            snprintf(fl, sizeof fl, "%.1e %.1e %.1e", r->flushed[0], r->flushed[1], r->flushed[2]);
        }
        if (k == RECIPE_BF16_RNE || k == RECIPE_BF16_SR)
            snprintf(lost, sizeof lost, "%.1f%% / %.1f%%", 100.0 * r->lost_share,
                     100.0 * r->kept_share);
        if (isfinite(ref) && isfinite(r->val_loss))
            snprintf(vs, sizeof vs, "%+.3f", r->val_loss - ref);
        if (r->diverged)
            printf("%-13s diverged at step %d (the loss was not finite)\n", recipe_name(k),
                   r->steps_done + 1);
        else
            printf("%-13s %10.3f %9.3f %9s %10.0f  %-23s %-23s %s\n", recipe_name(k),
                   r->train_loss, r->val_loss, vs, r->tokens_per_s, sat, fl, lost);
    }
    printf("\n(train loss: the mean of the last 20 steps; val loss: %d batches of the validation "
           "split; saturated and flushed: the last step's casts, all layers; updates lost: the "
           "share of AdamW's moves that rounding back to BF16 undid; kept: the share of their "
           "total size the rounded weights kept, signed; both means over the steps)\n",
           VAL_BATCHES);
    if (o.fp8_sites) {
        printf("\nFP8 outside the linear layers: the share of the last step's values cast to "
               "zero (flushed)\n%-13s", "recipe");
        for (int i = 0; i < GPT_SITES; i++)
            if (o.fp8_sites >> i & 1u)
                printf(" %9s", SITE_NAMES[i]);
        printf("\n");
        for (int k = 0; k < RECIPE_COUNT; k++) {
            if (!res[k].ran || res[k].diverged)
                continue;
            printf("%-13s", recipe_name(k));
            for (int i = 0; i < GPT_SITES; i++)
                if (o.fp8_sites >> i & 1u)
                    printf(" %9.1e", res[k].site_flushed[i]);
            printf("\n");
        }
    }
    if (res[RECIPE_FP8_DELAYED].ran && !res[RECIPE_FP8_DELAYED].diverged && switch_precision(&o, &text,
                                                                  res[RECIPE_FP8_DELAYED].val_loss)) {
        gpt_text_free(&text);
        return 1;
    }
    if (o.sample > 0) {
        printf("\nWhat each model writes after \"And he said, \" (temperature 0.8):\n");
        for (int k = 0; k < RECIPE_COUNT; k++)
            if (res[k].ran && !res[k].diverged) {
                for (char *c = res[k].sample; *c; c++)
                    if (*c == '\n')
                        *c = '/';
                printf("  %-13s And he said, %s\n", recipe_name(k), res[k].sample);
            }
    }
    gpt_text_free(&text);
    rc = draw_plots(&d, &o, res) ? 1 : 0;
    demo_note_no_gnuplot(&d);
    for (int k = 0; k < RECIPE_COUNT; k++)
        if (res[k].ran)
            result_free(&res[k]);
    return rc;
}
