/*
 * formats.h - lab3's format comparison (README §10): the models the demo
 * trains with --formats, the training step of a model whose GEMM operands
 * are BF16 or FP16, and what each gradient cast lost. Given, not graded:
 * the demo's, built from your lab3.c's functions.
 *
 * Not for: the FP32 and FP8 models, which train with your lab3_train_step.
 */
#ifndef LAB3_FORMATS_H
#define LAB3_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fp8.h"
#include "lab3.h"

/* The kinds of model, in the order --formats trains them. */
typedef enum lab3_kind {
    KIND_FP32 = 0, /* every GEMM in FP32 (with the loss scaler, as in §9) */
    KIND_BF16,     /* operands rounded to BF16, by your lab3_to_bf16; no loss scale */
    KIND_FP16,     /* operands rounded to FP16; no loss scale (fixed at 1) */
    KIND_FP16_LS,  /* FP16 with your GradScaler (scale 65536, growth 2, ...) */
    KIND_FP8,      /* your lab3_train_step in FP8 (E4M3 / E5M2, delayed scaling) */
    KIND_COUNT
} lab3_kind;

typedef struct lab3_kind_info {
    const char *name;   /* "FP16+LS": the tables' and plots' name */
    const char *prefix; /* "fp16ls": the .npy files' */
    lab3_mode mode;     /* what lab3_mlp_init is given */
    bool wide;          /* a 16-bit model: trains with lab3_wide_step */
    fp16_format fmt;    /* its format, where wide */
    bool loss_scaling;  /* GradScaler's defaults; otherwise the scale stays 1 */
} lab3_kind_info;

const lab3_kind_info *lab3_kind_of(lab3_kind k);

/* Of the gradients a step's casts saw (both layers' dy): the elements that
 * were finite and not zero, those of them the cast made zero (flushed), and
 * those it made infinite or, FP8's cast saturating, clamped to max
 * (overflowed). */
typedef struct lab3_cast_tally {
    size_t nonzero, flushed, overflowed;
} lab3_cast_tally;

/* The rounded copies a 16-bit step works on, for up to max_batch rows. */
typedef struct lab3_wide_buffers {
    float *x, *w1, *w2, *a, *dy2, *dy1;
    uint16_t *codes;
} lab3_wide_buffers;

int lab3_wide_buffers_init(lab3_wide_buffers *b, size_t hidden, size_t max_batch);
void lab3_wide_buffers_free(lab3_wide_buffers *b);

/* Makes the loss scale of m fixed at 1 (scale 1, growth and backoff 1): a
 * model trained without loss scaling, whose inf steps are still skipped. */
void lab3_no_loss_scaling(lab3_mlp *m);

/*
 * One step of a model whose GEMM operands are in fmt: lab3_train_step's
 * eight stages (lab3.h), with your functions in FP32 mode on rounded
 * operands. x, W1 (forward of l1), a and W2 (forward of l2), dlogits
 * (backward of l2) and dh (backward of l1) are each rounded to fmt (BF16
 * with your lab3_to_bf16, FP16 with fp16_round_array) before the function
 * that multiplies them; the products are FP32 GEMMs of the rounded values,
 * as a GPU's tensor cores multiply 16-bit operands exactly and accumulate in
 * FP32. The master weights, the optimizer and the unscale stay FP32; db
 * sums the rounded gradient, what the GEMM saw. Adds the two gradient casts
 * to *t.
 */
lab3_step lab3_wide_step(lab3_mlp *m, fp16_format fmt, const float *x, const uint8_t *labels,
                         size_t batch, lab3_wide_buffers *b, lab3_cast_tally *t);

/* After an FP8 step of m (lab3_train_step): adds the two gradient casts
 * (dlogits into l2.dyq, dh into l1.dyq) to *t; s1, s2 are l1's and l2's
 * sdy scales as the step used them (delayed_update has moved them since). */
void lab3_tally_fp8(const lab3_mlp *m, size_t batch, float s1, float s2, lab3_cast_tally *t);

#endif
