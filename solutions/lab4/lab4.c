/*
 * lab4.c - lab4, MXFP8 microscaling blocks: the reference solution.
 *
 * Each function follows lab4.h and the handout (labs/lab4/README.md) to the
 * letter, including the order of float operations wherever it changes bits.
 * The grader's goldens (data/golden/lab4) are made from this file by
 * grading/lab4/goldens.c and checked independently in tests/lab4/.
 */
#include "lab4.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

float lab4_e8m0_decode(uint8_t code)
{
    return code == 0xFF ? NAN : ldexpf(1.0f, (int)code - 127);
}

float lab4_block_amax(const float *x, size_t n)
{
    float amax = 0.0f;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            return NAN;
        if (fabsf(x[i]) > amax)
            amax = fabsf(x[i]);
    }
    return amax;
}

int lab4_elem_emax(fp8_format elem)
{
    return fp8_info(elem)->emax;
}

uint8_t lab4_shared_scale(float amax, fp8_format elem, lab4_scale_rule rule)
{
    if (isnan(amax) || isinf(amax))
        return 0xFF;
    if (amax == 0.0f)
        return 0x00;
    /* amax = m * 2^ea and elem_max = M * 2^emax, with m and M in [0.5, 1). */
    int ea, em;
    float m = frexpf(amax, &ea);
    float big = frexpf(fp8_info(elem)->max_finite, &em);
    int e = ea - em; /* floor(log2 amax) - emax_elem */
    if (rule == LAB4_SCALE_CEIL && m > big)
        e += 1; /* amax / 2^e would pass elem_max: one binade up */
    if (e < -127)
        return 0x00;
    if (e > 127)
        return 0xFE;
    return (uint8_t)(e + 127);
}

/* One block of n elements: its scale, and its codes. */
static uint8_t quantize_block(const float *x, size_t n, fp8_format elem, lab4_scale_rule rule,
                              uint8_t *codes)
{
    uint8_t s = lab4_shared_scale(lab4_block_amax(x, n), elem, rule);
    for (size_t i = 0; i < n; i++)
        codes[i] = s == 0xFF ? 0x00 : fp8_encode(ldexpf(x[i], 127 - (int)s), elem, true);
    return s;
}

void lab4_mx_quantize(const float *x, size_t rows, size_t cols, size_t block, fp8_format elem,
                      lab4_scale_rule rule, uint8_t *codes, uint8_t *scales)
{
    size_t nb = (cols + block - 1) / block;
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < nb; j++) {
            size_t first = j * block;
            size_t n = cols - first < block ? cols - first : block;
            scales[r * nb + j] =
                quantize_block(x + r * cols + first, n, elem, rule, codes + r * cols + first);
        }
    }
}

void lab4_mx_dequantize(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t cols,
                        size_t block, fp8_format elem, float *out)
{
    size_t nb = (cols + block - 1) / block;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++) {
            uint8_t s = scales[r * nb + c / block];
            float v = fp8_decode(codes[r * cols + c], elem);
            out[r * cols + c] = s == 0xFF ? NAN : ldexpf(v, (int)s - 127);
        }
    }
}

float lab4_mx_dot(const uint8_t *a, const uint8_t *sa, const uint8_t *b, const uint8_t *sb,
                  size_t n, size_t block, fp8_format elem)
{
    float acc = 0.0f;
    size_t nb = (n + block - 1) / block;
    for (size_t j = 0; j < nb; j++) {
        if (sa[j] == 0xFF || sb[j] == 0xFF)
            return NAN;
        float part = 0.0f;
        size_t end = (j + 1) * block < n ? (j + 1) * block : n;
        for (size_t i = j * block; i < end; i++) {
            float p = fp8_decode(a[i], elem) * fp8_decode(b[i], elem);
            part = part + p;
        }
        acc = acc + ldexpf(part, ((int)sa[j] - 127) + ((int)sb[j] - 127));
    }
    return acc;
}

void lab4_mx_gemm(const uint8_t *a, const uint8_t *sa, const uint8_t *bt, const uint8_t *sbt,
                  size_t m, size_t n, size_t k, size_t block, fp8_format elem, float *c)
{
    size_t nb = (k + block - 1) / block;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            c[i * n + j] = lab4_mx_dot(a + i * k, sa + i * nb, bt + j * k, sbt + j * nb, k,
                                       block, elem);
}

float lab4_nvfp4_tensor_scale(float global_amax)
{
    if (global_amax == 0.0f || isinf(global_amax) || isnan(global_amax))
        return 1.0f;
    float s = (448.0f * 6.0f) / global_amax;
    return isinf(s) ? FLT_MAX : s;
}

void lab4_nvfp4_quantize(const float *x, size_t rows, size_t cols, float tensor_scale,
                         uint8_t *codes, uint8_t *scales)
{
    const size_t block = LAB4_NVFP4_BLOCK;
    size_t nb = (cols + block - 1) / block;
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < nb; j++) {
            const float *xb = x + r * cols + j * block;
            uint8_t *qb = codes + r * cols + j * block;
            size_t n = cols - j * block < block ? cols - j * block : block;
            float amax = lab4_block_amax(xb, n);
            uint8_t s = fp8_encode(amax * (tensor_scale * (1.0f / 6.0f)), FP8_E4M3, true);
            scales[r * nb + j] = s;
            float d = fp8_decode(s, FP8_E4M3);
            float k = 0.0f;
            if (!isnan(d) && d != 0.0f) {
                k = 1.0f / (d * (1.0f / tensor_scale));
                if (isinf(k))
                    k = FLT_MAX;
            }
            for (size_t i = 0; i < n; i++)
                qb[i] = k == 0.0f ? 0x00 : fp8_encode(xb[i] * k, FP8_E2M1, true);
        }
    }
}

void lab4_nvfp4_dequantize(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t cols,
                           float tensor_scale, float *out)
{
    const size_t block = LAB4_NVFP4_BLOCK;
    size_t nb = (cols + block - 1) / block;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++) {
            float d = fp8_decode(scales[r * nb + c / block], FP8_E4M3);
            float v = fp8_decode(codes[r * cols + c], FP8_E2M1) * d;
            out[r * cols + c] = v * (1.0f / tensor_scale);
        }
    }
}
