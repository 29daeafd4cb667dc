/*
 * lab6.c - lab6, an FP8 transformer: YOUR CODE GOES HERE.
 *
 * Write the functions declared in lab6.h: the FP8 linear layer under
 * delayed and current scaling and what a cast costs (its SQNR),
 * DeepSeek-V3's fine-grained quantizer and its GEMM, and stochastic
 * rounding to BF16, E4M3 and E5M2.
 *
 * Rules:
 *   - Use the course's codec (common/fp8.h, included by lab6.h):
 *     fp8_encode, fp8_decode, fp8_encode_rounded, fp8_info, fp8_is_zero;
 *     and lab 1's delayed scaling (common/delayed.h): delayed_record,
 *     delayed_update.
 *   - cblas_sgemm (<cblas.h>) for the FP8 layer's three products; the
 *     fine-grained GEMM's order is fixed (lab6.h), so write its loops.
 *   - Anything from the C standard library is fine: <math.h>, <float.h>.
 *   - Add static helpers as you like: only lab6_* names may be global.
 *
 * Try it:
 *   make lab6 && ./build/lab6/lab6      the recipes side by side (README §9)
 * ./grader lab6 grades them (README §10); README.md says what each function
 * must give, with worked cases.
 */
#include "lab6.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/*
 * lab6_fp8_cast - codes[i] = fp8_encode(x[i] * scale, s->fmt, true);
 *   records amax(|x|); current scaling sets s->scale first.
 *   Handout: README §4, exercise 1.
 */
float lab6_fp8_cast(delayed_scaler *s, int current, const float *x, size_t n, uint8_t *codes,
                    size_t *saturated, size_t *flushed)
{
    (void)s, (void)current, (void)x;
    /* TODO: README §4. */
    memset(codes, 0, n);
    if (saturated)
        *saturated = 0;
    if (flushed)
        *flushed = 0;
    return 1.0f;
}

/*
 * lab6_fp8_forward - y = x W^T with E4M3 operands, kept in L->xq, L->wq.
 *   Handout: README §4, exercise 2.
 */
void lab6_fp8_forward(lab6_fp8_linear *L, const float *x, const float *w, float *y, size_t M,
                      size_t N, size_t K)
{
    (void)L, (void)x, (void)w, (void)K;
    /* TODO: README §4. Two casts, one cblas_sgemm on the decoded codes, one scale. */
    memset(y, 0, M * N * sizeof(float));
}

/*
 * lab6_fp8_backward - dx = dy W and dW = dy^T x, dy in E5M2.
 *   Handout: README §4, exercise 3 (work out its scales before the hint).
 */
void lab6_fp8_backward(lab6_fp8_linear *L, const float *dy, float *dx, float *dw, size_t M,
                       size_t N, size_t K)
{
    (void)L, (void)dy;
    /* TODO: README §4. */
    memset(dx, 0, M * K * sizeof(float));
    memset(dw, 0, N * K * sizeof(float));
}

/*
 * lab6_fp8_update - the three scalers, between steps.
 *   Handout: README §4, exercise 4.
 */
void lab6_fp8_update(lab6_fp8_linear *L)
{
    (void)L;
    /* TODO: README §4. */
}

/*
 * lab6_cast_sqnr - what a cast at scale loses, as an SQNR in dB.
 *   Handout: README §4, exercise 11 (the fused QKV).
 */
double lab6_cast_sqnr(const float *x, size_t n, fp8_format fmt, float scale)
{
    (void)x, (void)n, (void)fmt, (void)scale;
    /* TODO: README §4. Cast, decode back, two sums in double, in order. */
    return 0.0;
}

/*
 * lab6_sr_bf16 - x rounded to BF16, up when r < p * 2^32.
 *   1 + 2^-9 (0x3F804000): r = 0x3FFFFFFF -> 0x3F81, r = 0x40000000 -> 0x3F80
 *   Handout: README §6, exercise 9.
 */
uint16_t lab6_sr_bf16(float x, uint32_t r)
{
    (void)x, (void)r;
    /* TODO: README §6. */
    return 0;
}

/*
 * lab6_sr_fp8 - the same rule to E4M3 or E5M2, saturating.
 *   Handout: README §6, exercise 10.
 */
uint8_t lab6_sr_fp8(float x, fp8_format fmt, uint32_t r)
{
    (void)x, (void)fmt, (void)r;
    /* TODO: README §6. */
    return 0;
}

/*
 * lab6_tile_scale - 448 / amax; 1 for 0, inf, NaN; FLT_MAX on overflow.
 *   3 -> 149.333328
 *   Handout: README §5, exercise 5.
 */
float lab6_tile_scale(float amax)
{
    (void)amax;
    /* TODO: README §5. */
    return 1.0f;
}

/*
 * lab6_quantize_tiles - a scale per 1 x 128 tile of each row.
 *   Handout: README §5, exercise 6.
 */
void lab6_quantize_tiles(const float *x, size_t rows, size_t cols, uint8_t *codes,
                         float *scale_inv)
{
    (void)x;
    /* TODO: README §5. */
    memset(codes, 0, rows * cols);
    size_t nt = (cols + LAB6_TILE - 1) / LAB6_TILE;
    for (size_t i = 0; i < rows * nt; i++)
        scale_inv[i] = 1.0f;
}

/*
 * lab6_quantize_blocks - a scale per 128 x 128 block.
 *   Handout: README §5, exercise 7.
 */
void lab6_quantize_blocks(const float *w, size_t rows, size_t cols, uint8_t *codes,
                          float *scale_inv)
{
    (void)w;
    /* TODO: README §5. */
    memset(codes, 0, rows * cols);
    size_t nb = ((rows + LAB6_TILE - 1) / LAB6_TILE) * ((cols + LAB6_TILE - 1) / LAB6_TILE);
    for (size_t i = 0; i < nb; i++)
        scale_inv[i] = 1.0f;
}

/*
 * lab6_gemm_tiles - y = x w^T, partial sums promoted per tile, in lab6.h's
 *   order. Handout: README §5, exercise 8.
 */
void lab6_gemm_tiles(const uint8_t *xcodes, const float *x_scale_inv, const uint8_t *wcodes,
                     const float *w_scale_inv, float *y, size_t M, size_t N, size_t K)
{
    (void)xcodes, (void)x_scale_inv, (void)wcodes, (void)w_scale_inv, (void)K;
    /* TODO: README §5. */
    memset(y, 0, M * N * sizeof(float));
}
