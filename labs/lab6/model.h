/*
 * model.h - lab6's given parts: a small decoder-only transformer in FP32,
 * its backward pass, AdamW, the text it learns and sampling from it. Not
 * graded, and not yours to write: lab6 is about where its linear layers'
 * products may be FP8, and every one of those products goes through the
 * gpt_gemms you hand the model.
 *
 * The model, in the order the forward pass runs (x is the residual stream,
 * one row of d_model floats per token):
 *
 *   x = wte[token]                                  token embedding
 *   for each of n_layer blocks:
 *     h = rmsnorm(x) * attn_norm
 *     [q k v] = h W_qkv^T                           one fused projection
 *     q, k = rope(q), rope(k)                       rotary positions
 *     a = softmax(q k^T / sqrt(head_dim), causal) v   grouped-query: query
 *                                                     head i reads KV head
 *                                                     i / (n_head / n_kv_head)
 *     x = x + a W_o^T
 *     h = rmsnorm(x) * mlp_norm
 *     [g u] = h W_gu^T                              fused gate and up
 *     x = x + (silu(g) * u) W_down^T                SwiGLU
 *   logits = (rmsnorm(x) * norm_f) W_lm^T           untied LM head
 *   loss = mean over tokens of -log softmax(logits)[next token]
 *
 * rmsnorm(x) = x / sqrt(mean(x^2) + norm_eps). rope, on each head's
 * head_dim values at position t: the pair (i, i + head_dim/2), for i below
 * head_dim/2, turns by the angle t * rope_theta^(-2i/head_dim) (the halves
 * convention of GPT-NeoX and Llama's Hugging Face code). A weight W is
 * stored out x in, row-major, as torch.nn.Linear stores it: y = x W^T.
 */
#ifndef LAB6_MODEL_H
#define LAB6_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "rng.h"

/* The vocabulary: newline is token 0, the printable character c (' ' to
 * '~') token c - 31. */
enum { GPT_VOCAB = 96 };

typedef struct gpt_config {
    int vocab;      /* GPT_VOCAB */
    int d_model;    /* the residual stream's width */
    int n_layer;
    int n_head;     /* query heads; head_dim = d_model / n_head */
    int n_kv_head;  /* key/value heads, dividing n_head */
    int d_ff;       /* the SwiGLU's hidden width */
    int ctx;        /* the longest sequence */
    float rope_theta;
    float norm_eps;
} gpt_config;

/* The default: 2 layers, d_model 128, 4 query heads sharing 2 KV heads of
 * 32, d_ff 384, context 128, rope_theta 10000, norm_eps 1e-5. */
gpt_config gpt_config_default(void);

/* Which of a block's linear layers a product belongs to; the LM head is
 * layer n_layer, kind GPT_LM_HEAD. */
typedef enum gpt_linear_kind { GPT_QKV, GPT_O, GPT_GU, GPT_DOWN, GPT_LM_HEAD } gpt_linear_kind;
enum { GPT_KINDS = 4 };

/* The three products of a linear layer y = x W^T (x is M x K, W is N x K,
 * y is M x N), each for the layer id = layer * GPT_KINDS + kind (the LM
 * head: n_layer * GPT_KINDS). forward writes y; backward writes dx = dy W
 * (M x K) and dw = dy^T x (N x K), both overwritten. ctx is the gpt_gemms'
 * own. gpt_gemms_fp32() is FP32 throughout (cblas_sgemm). */
typedef struct gpt_gemms {
    void (*forward)(void *ctx, int id, const float *x, const float *w, float *y, size_t M,
                    size_t N, size_t K);
    void (*backward)(void *ctx, int id, const float *dy, const float *x, const float *w, float *dx,
                     float *dw, size_t M, size_t N, size_t K);
    void *ctx;
} gpt_gemms;
gpt_gemms gpt_gemms_fp32(void);

/* Where the model may round a tensor outside its linear layers, to see what
 * FP8 does there (Transformer Engine keeps all of these in higher
 * precision; recipes.h's extra switches put them in FP8):
 *   GPT_SITE_EMBED    the embedding rows the tokens pick, before block 0
 *   GPT_SITE_NORM     each RMSNorm's input (the residual stream), before the
 *                     norm takes its statistics
 *   GPT_SITE_QK       attention's first product's operands: q and k, after
 *                     rope (two tensors)
 *   GPT_SITE_SOFTMAX  the scores q k^T / sqrt(head_dim), softmax's input,
 *                     of every head at once (the masked ones 0)
 *   GPT_SITE_PV       attention's second product's operands: the
 *                     probabilities of every head, and v (two tensors)
 *   GPT_SITE_QK_GRAD  the first product's gradient, dS (softmax's backward,
 *                     every head at once), before dq = dS k, dk = dS^T q
 *   GPT_SITE_PV_GRAD  the second product's gradient, dO (the gradient of
 *                     attention's output, every head), before dP = dO v^T
 *                     and dv = P^T dO
 * The forward's values rounded are those the backward pass then uses (the
 * saved q, k, v and probabilities), as an FP8 product's backward
 * multiplies the operands its forward cast; a gradient goes through each
 * forward rounding as if it were not there (straight through). At
 * GPT_SITE_NORM the norm's backward uses the input before its rounding. */
typedef enum gpt_site { GPT_SITE_EMBED, GPT_SITE_NORM, GPT_SITE_QK, GPT_SITE_SOFTMAX, GPT_SITE_PV,
                        GPT_SITE_QK_GRAD, GPT_SITE_PV_GRAD, GPT_SITES } gpt_site;

/* Rounds, in place, one tensor of rows x cols floats whose rows are stride
 * floats apart, at site in block layer (n_layer for the final norm). A
 * model whose round is NULL rounds nothing. */
typedef struct gpt_rounding {
    void (*round)(void *ctx, gpt_site site, int layer, float *x, size_t rows, size_t cols,
                  size_t stride);
    void *ctx;
} gpt_rounding;

/* One parameter tensor: its name ("layer0.w_qkv"), its values and gradient
 * in the model's flat arrays, its shape (rows x cols; a vector has rows 1),
 * and whether AdamW's weight decay applies (the matrices, not the norms). */
typedef struct gpt_tensor {
    char name[32];
    float *w, *g;
    size_t rows, cols;
    int decay;
} gpt_tensor;

typedef struct gpt_model {
    gpt_config cfg;
    size_t n_params;
    float *params, *grads;      /* n_params each, the tensors below in order */
    gpt_tensor *tensors;        /* n_tensors: wte, per layer attn_norm w_qkv w_o
                                   mlp_norm w_gu w_down, then norm_f lm_head */
    int n_tensors;
    size_t max_tokens;          /* batch x sequence length the buffers hold */
    float *acts;                /* the forward pass's saved activations */
    float *scratch;             /* the backward pass's */
    float *rope_cos, *rope_sin; /* ctx x head_dim/2 */
    size_t batch, seq;          /* of the last forward pass */
    const uint8_t *tokens, *targets; /* of the last forward pass, the caller's */
    gpt_gemms gemms;
    gpt_rounding rounding;      /* none after gpt_init */
} gpt_model;

/* Allocates a model for batches of up to max_tokens tokens; checks the
 * configuration (err says which field is wrong). Weights: wte and every
 * linear layer normal(0, 0.02), W_o and W_down normal(0, 0.02 /
 * sqrt(2 n_layer)); norms 1. Returns 0 or -1 with err set. */
int gpt_init(gpt_model *m, const gpt_config *cfg, size_t max_tokens, rng_state *rng,
             lab_error *err);
void gpt_free(gpt_model *m);

/* The tensor named name, or NULL. */
gpt_tensor *gpt_find(gpt_model *m, const char *name);

/* Forward over batch sequences of seq tokens (tokens and targets are batch
 * x seq, targets may be NULL); returns the mean cross-entropy (0 without
 * targets). The logits of the last pass: gpt_logits. */
float gpt_forward(gpt_model *m, const uint8_t *tokens, const uint8_t *targets, size_t batch,
                  size_t seq);
const float *gpt_logits(const gpt_model *m);

/* The activations that went into linear layer id (layer * GPT_KINDS +
 * kind, the LM head n_layer * GPT_KINDS) in the last forward pass: batch x
 * seq rows of its K inputs (d_model, or d_ff for GPT_DOWN). */
const float *gpt_linear_input(const gpt_model *m, int id);

/* The gradient of the last forward's loss, into m->grads (overwritten). */
void gpt_backward(gpt_model *m);

/* AdamW as torch.optim.AdamW does it (decoupled weight decay, bias
 * correction), after clipping the gradient's global L2 norm to clip (when
 * clip > 0). step counts from 1; m1 and m2 are n_params floats each, zero
 * at the start. Returns the gradient's norm before clipping. */
typedef struct gpt_adamw {
    float lr, beta1, beta2, eps, weight_decay, clip;
    long step;
    float *m1, *m2;
} gpt_adamw;
int gpt_adamw_init(gpt_adamw *o, const gpt_model *m, float lr);
void gpt_adamw_free(gpt_adamw *o);
float gpt_adamw_step(gpt_adamw *o, gpt_model *m);

/* A checkpoint: the folder dir (made if missing) holding NumPy files, the
 * same whatever recipe trained the model (the FP32 weights are the
 * model; a recipe's FP8 scalers are not saved, as a BF16 run has none):
 *   config.npy   int32: vocab, d_model, n_layer, n_head, n_kv_head, d_ff,
 *                ctx, and AdamW's step count
 *   params.npy   float32, the weights, flat, in m->tensors' order
 *   adam_m1.npy, adam_m2.npy   float32, AdamW's moments, flat the same way
 * gpt_load checks that the folder's model is m's (err names the file and
 * the field that differs) and reads the weights into m and the moments
 * and step into o. Each returns 0, or -1 with err set. */
int gpt_save(const gpt_model *m, const gpt_adamw *o, const char *dir, lab_error *err);
int gpt_load(gpt_model *m, gpt_adamw *o, const char *dir, lab_error *err);

/* The text as tokens, split 90 / 10 into training and validation. */
typedef struct gpt_text {
    uint8_t *tokens;
    size_t n, n_train;
} gpt_text;
/* Reads path; err names the file and the first byte that is not newline or
 * printable ASCII. */
int gpt_text_load(const char *path, gpt_text *t, lab_error *err);
void gpt_text_free(gpt_text *t);
/* batch windows of seq + 1 tokens from the training (val 0) or validation
 * (val 1) split, at offsets drawn from rng: tokens and targets, batch x seq
 * each. */
void gpt_text_batch(const gpt_text *t, int val, size_t batch, size_t seq, rng_state *rng,
                    uint8_t *tokens, uint8_t *targets);

int gpt_token(int c);  /* -1 for a character outside the vocabulary */
int gpt_char(int token);

/* Continues prompt by n characters into out (n + 1 bytes), sampling each
 * from softmax(logits / temperature) with rng (the most likely one when
 * temperature is 0). */
void gpt_sample(gpt_model *m, const char *prompt, size_t n, float temperature, rng_state *rng,
                char *out);

#endif
