/*
 * lab4.c - lab4, MXFP8 microscaling blocks: YOUR CODE GOES HERE.
 *
 * Write the functions declared in lab4.h: the E8M0 scale format, the block
 * amax and shared scale (both rules), MX quantization and dequantization of
 * a matrix, the block-scaled dot product and GEMM, and NVFP4.
 *
 * Rules:
 *   - Use the course's codecs for the elements: fp8_encode, fp8_decode and
 *     fp8_info (common/fp8.h, included by lab4.h) know every element format
 *     (FP8_E4M3, FP8_E5M2, FP8_E3M2, FP8_E2M3, FP8_E2M1).
 *   - Anything from the C standard library is fine: <math.h> (frexpf, ldexpf,
 *     isnan, isinf, fabsf), <float.h> (FLT_MAX).
 *   - No log2f for the scale: it rounds, and the grader compares every
 *     scale byte. frexpf gives a float's exponent exactly (README §3).
 *   - The order of float operations is part of each spec (lab4.h).
 *   - Add as many static helper functions as you like: static, since only
 *     lab4_* names may be global (the grader refuses others).
 *
 * Test as you go:
 *   make lab4 && ./grader lab4                 every test, and your score
 *   ./grader lab4 --test scale_floor -v        one test, more detail
 *   ./build/lab4/lab4                          the experiment (README §8)
 *
 * Not for: anything but lab4.h's functions; do not add a main() here.
 */
#include "lab4.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/*
 * lab4_e8m0_decode - 2^(code - 127); 0xFF is NaN.
 *   0x7F -> 1, 0x80 -> 2, 0x00 -> 2^-127, 0xFE -> 2^127
 *   Handout: README §2. Graded by: e8m0_decode.
 */
float lab4_e8m0_decode(uint8_t code)
{
    (void)code;
    /* TODO: README §2. ldexpf(1.0f, k) is 2^k, exactly. */
    return 0.0f;
}

/*
 * lab4_block_amax - max |x[i]|; NaN if any x[i] is NaN.
 *   {1, -3, 2} -> 3     {1, NaN} -> NaN     {1, -inf} -> inf
 *   Handout: README §3. Graded by: block_amax.
 */
float lab4_block_amax(const float *x, size_t n)
{
    (void)x;
    (void)n;
    /* TODO: README §3. */
    return 0.0f;
}

/*
 * lab4_elem_emax - the exponent of the element format's largest normal.
 *   FP8_E4M3 -> 8 (448 = 1.75 x 2^8)
 *   Handout: README §3. Graded by: elem_emax.
 */
int lab4_elem_emax(fp8_format elem)
{
    (void)elem;
    /* TODO: from fp8_info(elem), not from a table of names. */
    return 0;
}

/*
 * lab4_shared_scale - the E8M0 code of a block's scale, by either rule.
 *   E4M3, amax 485: floor 0x7F (2^0), ceil 0x80 (2^1)
 *   E4M3, amax 448: floor 0x7F, ceil 0x7F
 *   amax 0 -> 0x00;  amax NaN or inf -> 0xFF
 *   Handout: README §3, §4. Graded by: scale_floor, scale_ceil, scale_special.
 */
uint8_t lab4_shared_scale(float amax, fp8_format elem, lab4_scale_rule rule)
{
    (void)amax;
    (void)elem;
    (void)rule;
    /* TODO: the special cases first (§4); then frexpf(amax) and
     * frexpf(elem_max) give both exponents and both mantissas (§3). */
    return 0x00;
}

/*
 * lab4_mx_quantize - scale and codes for every block of every row.
 *   Handout: README §5. Graded by: quantize_e4m3, quantize_e5m2,
 *   quantize_fp6, quantize_fp4, quantize_tail, quantize_special_blocks,
 *   hand_block.
 */
void lab4_mx_quantize(const float *x, size_t rows, size_t cols, size_t block, fp8_format elem,
                      lab4_scale_rule rule, uint8_t *codes, uint8_t *scales)
{
    (void)x;
    (void)block;
    (void)elem;
    (void)rule;
    (void)scales;
    /* TODO: README §5. Mind the last, shorter block of a row. */
    memset(codes, 0, rows * cols);
}

/*
 * lab4_mx_dequantize - decode(code) x 2^e, NaN for a 0xFF scale.
 *   Handout: README §5. Graded by: dequantize.
 */
void lab4_mx_dequantize(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t cols,
                        size_t block, fp8_format elem, float *out)
{
    (void)codes;
    (void)scales;
    (void)block;
    (void)elem;
    /* TODO: README §5. */
    memset(out, 0, rows * cols * sizeof *out);
}

/*
 * lab4_mx_dot - element products within a block, both scales once per
 * block, FP32 accumulation, in lab4.h's order.
 *   Handout: README §6. Graded by: dot, gemm.
 */
float lab4_mx_dot(const uint8_t *a, const uint8_t *sa, const uint8_t *b, const uint8_t *sb,
                  size_t n, size_t block, fp8_format elem)
{
    (void)a;
    (void)sa;
    (void)b;
    (void)sb;
    (void)n;
    (void)block;
    (void)elem;
    /* TODO: README §6. */
    return 0.0f;
}

/*
 * lab4_mx_gemm - c[i * n + j] = lab4_mx_dot(row i of A, row j of bt).
 *   Handout: README §6. Graded by: gemm.
 */
void lab4_mx_gemm(const uint8_t *a, const uint8_t *sa, const uint8_t *bt, const uint8_t *sbt,
                  size_t m, size_t n, size_t k, size_t block, fp8_format elem, float *c)
{
    (void)a;
    (void)sa;
    (void)bt;
    (void)sbt;
    (void)k;
    (void)block;
    (void)elem;
    /* TODO: README §6. */
    memset(c, 0, m * n * sizeof *c);
}

/*
 * lab4_nvfp4_tensor_scale - (448 * 6) / global_amax, with the edge cases.
 *   global_amax 2688 -> 1;  0 -> 1
 *   Handout: README §7. Graded by: nvfp4_scale.
 */
float lab4_nvfp4_tensor_scale(float global_amax)
{
    (void)global_amax;
    /* TODO: README §7. */
    return 0.0f;
}

/*
 * lab4_nvfp4_quantize, lab4_nvfp4_dequantize - 16-element blocks, E4M3
 * block scales, E2M1 elements, in lab4.h's order of operations.
 *   Handout: README §7. Graded by: nvfp4_quantize, nvfp4_dequantize.
 */
void lab4_nvfp4_quantize(const float *x, size_t rows, size_t cols, float tensor_scale,
                         uint8_t *codes, uint8_t *scales)
{
    (void)x;
    (void)tensor_scale;
    (void)scales;
    /* TODO: README §7. */
    memset(codes, 0, rows * cols);
}

void lab4_nvfp4_dequantize(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t cols,
                           float tensor_scale, float *out)
{
    (void)codes;
    (void)scales;
    (void)tensor_scale;
    /* TODO: README §7. */
    memset(out, 0, rows * cols * sizeof *out);
}
