/*
 * lab3.c - lab3, the FP8 MLP training loop: YOUR CODE GOES HERE.
 *
 * Write the functions declared in lab3.h: the cast, the linear layer's
 * forward and backward passes in FP8 and FP32, the loss, dynamic loss
 * scaling, SGD on the master weights, and one training step.
 *
 * Rules:
 *   - The codec and lab1's delayed scaling come from the course library:
 *     fp8_encode, fp8_decode (fp8.h), delayed_record (delayed.h).
 *   - Matrix products go through cblas_sgemm (OpenBLAS, <cblas.h>): the
 *     lesson is what goes around the GEMM, not the GEMM's loops.
 *   - Anything from the C standard library is fine (<math.h>: expf, logf,
 *     isfinite; <string.h>: memcpy, memset).
 *   - model.c (given) allocates every buffer; do not allocate here.
 *   - Helper functions must be static: only lab3_* names may be global (the
 *     grader refuses others).
 *
 * Test as you go:
 *   make lab3 && ./grader lab3                 every test, and your score
 *   ./grader lab3 --test forward_fp8 -v        one test, more detail
 *   ./build/lab3/lab3                          train FP32 and FP8 (README §9)
 *
 * Not for: anything but lab3.h's functions; do not add a main() here.
 */
#include "lab3.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

/*
 * lab3_cast - record amax(x) (NaN ignored) into s, then
 * q[i] = decode(encode(x[i] * scale)), E4M3 or E5M2 as s->fmt says.
 *   Handout: README §3. Graded by: cast_e4m3, cast_e5m2.
 */
void lab3_cast(delayed_scaler *s, const float *x, size_t n, float *q)
{
    (void)s;
    (void)x;
    /* TODO: README §3. */
    memset(q, 0, n * sizeof *q);
}

/*
 * lab3_linear_forward - y = x W^T + b; in FP8, of the cast operands,
 * scaled back by sinv_x * sinv_w.
 *   Handout: README §4. Graded by: forward_fp8, forward_fp32.
 */
void lab3_linear_forward(lab3_linear *L, const float *x, size_t batch, lab3_mode mode,
                         float *y)
{
    (void)x;
    (void)mode;
    /* TODO: README §4: cast (or copy) x and W into L->xq, L->wq; set
     * L->xq_scale_inv and L->wq_scale_inv; one cblas_sgemm; then times
     * s = sinv_x * sinv_w, plus b: two operations (lab3.h says which
     * parts are bit for bit). */
    memset(y, 0, batch * L->out * sizeof *y);
}

/*
 * lab3_linear_backward - dx = dy W, dW += dy^T x, db += sum of dy, with the
 * FP8 operands forward saved and dy cast to E5M2.
 *   Handout: README §4. Graded by: backward_dx, backward_dw_db, backward_fp32.
 */
void lab3_linear_backward(lab3_linear *L, const float *dy, size_t batch, lab3_mode mode,
                          float *dx)
{
    (void)dy;
    (void)mode;
    /* TODO: README §4. Two cblas_sgemm calls; db in FP32. */
    if (dx)
        memset(dx, 0, batch * L->in * sizeof *dx);
}

/*
 * lab3_softmax_xent - the mean loss, and (softmax - onehot) * (loss_scale / batch).
 *   Handout: README §5. Graded by: softmax_xent.
 */
float lab3_softmax_xent(const float *logits, const uint8_t *labels, size_t batch,
                        float loss_scale, float *dlogits)
{
    (void)logits;
    (void)labels;
    (void)loss_scale;
    /* TODO: README §5. Subtract each row's max first. */
    memset(dlogits, 0, batch * LAB3_CLASSES * sizeof *dlogits);
    return 0.0f;
}

/*
 * lab3_unscale - g *= (float)(1.0 / (double)scale); true if any is inf/NaN.
 *   Handout: README §6. Graded by: unscale.
 */
bool lab3_unscale(float *g, size_t n, float scale)
{
    (void)g;
    (void)n;
    (void)scale;
    /* TODO: README §6. */
    return false;
}

/*
 * lab3_scaler_update - PyTorch's GradScaler update: back off on inf, grow
 * after growth_interval clean steps.
 *   Handout: README §6. Graded by: scaler_update.
 */
void lab3_scaler_update(lab3_grad_scaler *s, bool found_inf)
{
    (void)s;
    (void)found_inf;
    /* TODO: README §6. */
}

/*
 * lab3_sgd_step - m = momentum * m + g; w = w - lr * m, for W and b.
 *   Handout: README §7. Graded by: sgd_step.
 */
void lab3_sgd_step(lab3_linear *L, float lr, float momentum)
{
    (void)L;
    (void)lr;
    (void)momentum;
    /* TODO: README §7. */
}

/*
 * lab3_train_step - the eight stages of lab3.h, in order.
 *   Handout: README §8. Graded by: train_step_fp8, train_step_fp32,
 *   skipped_step, train_short.
 */
lab3_step lab3_train_step(lab3_mlp *m, const float *x, const uint8_t *labels, size_t batch)
{
    (void)m;
    (void)x;
    (void)labels;
    (void)batch;
    lab3_step st = {0.0f, false};
    /* TODO: README §8. */
    return st;
}

/*
 * lab3_to_bf16 - q[i] = the BF16 code of x[i], rounded to nearest even on
 * the float's bits; a NaN gives 0x7FFF.
 *   Handout: README §10. Graded by: bf16_cast.
 */
void lab3_to_bf16(const float *x, size_t n, uint16_t *q)
{
    (void)x;
    /* TODO: README §10: read each float's bits (memcpy into a uint32_t),
     * round them to their top 16, and treat a NaN apart. */
    memset(q, 0, n * sizeof *q);
}
