/*
 * mx.h - OCP Microscaling (MX v1.0) block quantization on the CPU: E8M0
 * shared scales, one per block of consecutive elements along a row, and the
 * element codes of common/fp8.h.
 *
 * The course's reference for what lab5's GPU kernels must write, byte for
 * byte. lab4 asks students to write the same thing, so lab4's grader does
 * not let a submission call these (grading/lab4/rubric.c).
 *
 * Layout: x is row-major, rows x cols floats; a row has nb = ceil(cols /
 * block) blocks, the last one shorter when block does not divide cols;
 * scales is rows x nb bytes, row-major; codes is rows x cols bytes.
 *
 * Not for: packing sub-byte elements, or NVFP4's E4M3 scales.
 */
#ifndef FP8LAB_MX_H
#define FP8LAB_MX_H

#include <stddef.h>
#include <stdint.h>

#include "fp8.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the shared scale X = 2^e is chosen from the block's amax. */
typedef enum mx_scale_rule {
    MX_SCALE_FLOOR = 0, /* OCP MX v1.0 §6.3: e = floor(log2(amax)) - emax_elem;
                           elements above the format's max saturate */
    MX_SCALE_CEIL       /* Transformer Engine's MXFP8 cast: the smallest e with
                           amax <= elem_max * 2^e; nothing saturates */
} mx_scale_rule;

/* max |x[i]| over n elements; NaN when any is NaN (the block is NaN). */
float mx_block_amax(const float *x, size_t n);

/* The E8M0 code e + 127 of a block's scale: 0xFF for a NaN or infinite amax,
 * 0x00 for amax == 0 or e < -127. */
uint8_t mx_shared_scale(float amax, fp8_format elem, mx_scale_rule rule);

/* Quantizes x in blocks of `block` along its rows: for each block,
 * s = mx_shared_scale(mx_block_amax(block), elem, rule), and each code is
 * fp8_encode(ldexpf(x, 127 - s), elem, true), or 0x00 when s == 0xFF. */
void mx_quantize(const float *x, size_t rows, size_t cols, size_t block, fp8_format elem,
                 mx_scale_rule rule, uint8_t *codes, uint8_t *scales);

/* The inverse: ldexpf(fp8_decode(code, elem), s - 127), NaN where s == 0xFF. */
void mx_dequantize(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t cols,
                   size_t block, fp8_format elem, float *out);

#ifdef __cplusplus
}
#endif

#endif
