/*
 * recipes.h - lab6's given training recipes: where each puts the
 * transformer's linear-layer products (model.h's gpt_gemms) and how it
 * keeps the weights. Not graded; the FP8 ones call your lab6.c.
 *
 *   fp32          FP32 throughout (the reference)
 *   bf16          every GEMM's operands rounded to BF16 (nearest even), the
 *                 products accumulated in FP32, as a BF16 GEMM does;
 *                 FP32 master weights
 *   fp8-delayed   Transformer Engine's DelayedScaling, HYBRID: per tensor,
 *                 x and W in E4M3, dy in E5M2, history 16, max, margin 0
 *                 (your lab6_fp8_forward, _backward, _update)
 *   fp8-current   the same with Float8CurrentScaling: each cast's scale
 *                 from its own tensor
 *   fp8-blockwise DeepSeek-V3's fine-grained scaling: E4M3 throughout,
 *                 every operand in 1 x 128 tiles along the product's inner
 *                 dimension, weights in 128 x 128 blocks (your
 *                 lab6_quantize_tiles, _blocks), FP32 scales
 *   mxfp8         OCP MX: E4M3 elements, one E8M0 scale per 32 along the
 *                 inner dimension, Transformer Engine's rounding of the
 *                 scale up (common/mx.h)
 *   bf16-rne      no FP32 master weights: weights held in BF16, the BF16
 *                 GEMMs above; AdamW's update computed in FP32 and the
 *                 weight rounded back to BF16 to nearest even
 *   bf16-sr       the same, rounded back stochastically (your
 *                 lab6_sr_bf16)
 *
 * By default the LM head's GEMMs stay in the recipe's higher precision
 * (FP32, or BF16 for the BF16 recipes), as Transformer Engine leaves the
 * output layer to the user; fp8_head puts it in FP8 too. The emulation:
 * each FP8 or BF16 operand is rounded as the recipe says, then decoded to
 * float and multiplied with cblas_sgemm (FP32 accumulation in OpenBLAS's
 * order), then scaled back; the blockwise and MX recipes dequantize each
 * operand (value times its group's scale_inv, one float product) before
 * the product, where DeepSeek-V3's GEMM promotes each tile's partial sum
 * (your lab6_gemm_tiles computes that order exactly, slowly).
 *
 * Outside the linear layers everything stays FP32 (the BF16 recipes
 * included), as Transformer Engine leaves it, unless fp8_sites (a bit per
 * model.h's gpt_site) puts some of it in FP8: each tensor at such a site is
 * cast to E4M3 (a gradient, at the _GRAD sites, to E5M2) with one current
 * scale for the whole tensor (your lab6_fp8_cast) and decoded back
 * (recipe_rounding).
 */
#ifndef LAB6_RECIPES_H
#define LAB6_RECIPES_H

#include <stdbool.h>
#include <stddef.h>

#include "lab6.h"
#include "model.h"
#include "rng.h"

typedef enum lab6_recipe_kind {
    RECIPE_FP32,
    RECIPE_BF16,
    RECIPE_FP8_DELAYED,
    RECIPE_FP8_CURRENT,
    RECIPE_FP8_BLOCKWISE,
    RECIPE_MXFP8,
    RECIPE_BF16_RNE,
    RECIPE_BF16_SR,
    RECIPE_COUNT
} lab6_recipe_kind;

const char *recipe_name(lab6_recipe_kind k);
/* The kind named name, or -1. */
int recipe_from_name(const char *name);

typedef struct lab6_recipe {
    lab6_recipe_kind kind;
    bool fp8_head;
    int n_linear;             /* the model's linear layers, LM head included */
    lab6_fp8_linear *linear;  /* per linear layer, the per-tensor FP8 recipes */
    size_t max_tokens;
    float *buf;               /* the products' scratch */
    size_t buf_len;
    uint8_t *codes;
    rng_state sr;             /* bf16-sr's random bits */
    /* the weight updates of the last step: how many weights AdamW moved and
     * how many of those moves rounding back to BF16 undid; and how much of
     * the moves' total size the rounded weights kept, the sum over the moved
     * weights of (kept move) x sign(move), over the sum of |move| (1 when
     * nothing is lost on average: stochastic rounding's expectation) */
    size_t updates, lost;
    double kept;
    /* FP8 outside the linear layers: the sites (1 << gpt_site), their
     * casts' scratch, and per site the values cast and flushed to zero in
     * this step's forward pass so far (site_*) and in the last step's (last_*) */
    unsigned fp8_sites;
    float *site_buf;
    uint8_t *site_codes;
    size_t site_cap;
    size_t site_n[GPT_SITES], site_flushed[GPT_SITES];
    size_t last_n[GPT_SITES], last_flushed[GPT_SITES];
} lab6_recipe;

/* Sets r up for m (its sizes and its max_tokens); for the master-less
 * recipes, rounds m's weights to BF16. Returns 0, or -1 when out of memory. */
int recipe_init(lab6_recipe *r, lab6_recipe_kind kind, bool fp8_head, gpt_model *m,
                uint64_t seed);
void recipe_free(lab6_recipe *r);

/* The products of r, for m->gemms. */
gpt_gemms recipe_gemms(lab6_recipe *r);

/* The model's roundings outside its linear layers for r (model.h's
 * gpt_rounding): none unless r->fp8_sites has a site. */
gpt_rounding recipe_rounding(lab6_recipe *r);

/* The share of the last step's values cast at site that flushed to zero
 * (0 when nothing was cast there). */
double recipe_site_flushed(const lab6_recipe *r, gpt_site site);

/* One optimizer step for r: gpt_adamw_step, then the master-less recipes'
 * rounding back to BF16, then the FP8 recipes' lab6_fp8_update. Returns
 * the gradient's norm. */
float recipe_step(lab6_recipe *r, gpt_adamw *o, gpt_model *m);

/* The shares of the last step's FP8 casts of x, w and dy (summed over the
 * layers) that saturated and that flushed to zero; 0 for recipes without
 * per-tensor FP8. */
void recipe_cast_shares(const lab6_recipe *r, double saturated[3], double flushed[3]);

#endif
