/*
 * mx.c - MX block quantization on the CPU (see mx.h).
 *
 * The scale is found from the float's bits: amax = sig * 2^E with sig the
 * 24-bit significand (1.f, or the subnormal's normalized), so floor(log2
 * amax) = E exactly and no log2 is ever rounded.
 */
#include "mx.h"

#include <math.h>

#include "bits.h"

/* The largest magnitude's bits: a magnitude's bit pattern orders as its
 * value, and a NaN's is above infinity's (0x7F800000). Four running maxima,
 * so that each compare need not wait for the last. */
float mx_block_amax(const float *x, size_t n)
{
    uint32_t m[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) {
            uint32_t u = f32_bits(x[i + k]) & 0x7FFFFFFFu;
            m[k] = u > m[k] ? u : m[k];
        }
    for (; i < n; i++) {
        uint32_t u = f32_bits(x[i]) & 0x7FFFFFFFu;
        m[0] = u > m[0] ? u : m[0];
    }
    uint32_t top = m[0];
    for (int k = 1; k < 4; k++)
        top = m[k] > top ? m[k] : top;
    return top > 0x7F800000u ? NAN : f32_from_bits(top);
}

/* Splits a positive finite float into a significand in [2^23, 2^24) and the
 * exponent of its leading bit: v = sig * 2^(exp - 23). */
static void split_positive(float v, uint32_t *sig, int *exp)
{
    uint32_t u = f32_bits(v);
    int biased = (int)(u >> 23);
    uint32_t frac = u & 0x7FFFFFu;
    if (biased == 0) { /* subnormal: shift the leading one into bit 23 */
        int e = -126;
        while (!(frac & 0x800000u)) {
            frac <<= 1;
            e--;
        }
        *sig = frac;
        *exp = e;
    } else {
        *sig = frac | 0x800000u;
        *exp = biased - 127;
    }
}

uint8_t mx_shared_scale(float amax, fp8_format elem, mx_scale_rule rule)
{
    if (isnan(amax) || isinf(amax))
        return 0xFF;
    if (amax == 0.0f)
        return 0x00;
    uint32_t sig_a, sig_m;
    int exp_a, exp_m;
    split_positive(fabsf(amax), &sig_a, &exp_a);
    split_positive(fp8_info(elem)->max_finite, &sig_m, &exp_m);
    int e = exp_a - exp_m;
    /* amax / 2^e = sig_a * 2^(exp_m - 23): above the max when sig_a > sig_m. */
    if (rule == MX_SCALE_CEIL && sig_a > sig_m)
        e++;
    if (e < -127)
        return 0x00;
    return e > 127 ? 0xFE : (uint8_t)(e + 127);
}

void mx_quantize(const float *x, size_t rows, size_t cols, size_t block, fp8_format elem,
                 mx_scale_rule rule, uint8_t *codes, uint8_t *scales)
{
    size_t nb = (cols + block - 1) / block;
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < nb; j++) {
            size_t first = r * cols + j * block;
            size_t len = cols - j * block < block ? cols - j * block : block;
            uint8_t s = mx_shared_scale(mx_block_amax(x + first, len), elem, rule);
            scales[r * nb + j] = s;
            for (size_t i = first; i < first + len; i++)
                codes[i] = s == 0xFF ? 0x00 : fp8_encode(ldexpf(x[i], 127 - (int)s), elem, true);
        }
    }
}

void mx_dequantize(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t cols,
                   size_t block, fp8_format elem, float *out)
{
    size_t nb = (cols + block - 1) / block;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            uint8_t s = scales[r * nb + c / block];
            float v = fp8_decode(codes[r * cols + c], elem);
            out[r * cols + c] = s == 0xFF ? NAN : ldexpf(v, (int)s - 127);
        }
}
