/*
 * A classmate who did lab5's memory-bound exercises right, for the CUDA
 * stand-in (tests/lab5/cuda_standin.c, where device memory is host
 * memory): the functions of lab5.h as host code, computed from lab5.h's
 * contract without the course library (which lab5 forbids). Graded by the
 * stand-in grader in tests/lab5/test_split.sh, beside hostile submissions:
 * it must keep full marks on every test that runs there.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lab5.h"

/* The value of FP8 code c (0 .. 0x7F, no sign) of E4M3 (e4m3) or E5M2. */
static double code_value(int c, int e4m3)
{
    int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
    int e = c >> mbits, m = c & ((1 << mbits) - 1);
    return e == 0 ? ldexp(m, 1 - bias - mbits) : ldexp((1 << mbits) + m, e - bias - mbits);
}

/* Saturating, round to nearest even; NaN to 0x7F. */
static uint8_t encode(float v, fp8_format fmt)
{
    static double table[2][128];
    static int ready;
    if (!ready) {
        for (int c = 0; c < 128; c++)
            table[0][c] = code_value(c, 1), table[1][c] = code_value(c, 0);
        ready = 1;
    }
    int e4m3 = fmt == FP8_E4M3;
    const double *t = table[e4m3 ? 0 : 1];
    if (isnan(v))
        return 0x7F;
    uint8_t sign = signbit(v) ? 0x80 : 0;
    double a = fabs((double)v);
    int top = e4m3 ? 0x7E : 0x7B;
    if (a >= t[top])
        return sign | top;
    int lo = 0, hi = top;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t[mid] <= a)
            lo = mid;
        else
            hi = mid - 1;
    }
    double below = a - t[lo], above = t[lo + 1] - a;
    int c = below > above || (below == above && (lo & 1)) ? lo + 1 : lo;
    return sign | (uint8_t)c;
}

static float amax_of(const float *x, size_t n)
{
    float m = 0.0f;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]) && fabsf(x[i]) > m)
            m = fabsf(x[i]);
    return m;
}

extern "C" cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
    (void)stream;
    *amax = amax_of(x, n);
    return cudaSuccess;
}

extern "C" cudaError_t lab5_scale_cast(const float *x, size_t n, const float *scale,
                                       fp8_format fmt, uint8_t *q, float *amax,
                                       cudaStream_t stream)
{
    (void)stream;
    if (fmt != FP8_E4M3 && fmt != FP8_E5M2)
        return cudaErrorInvalidValue;
    volatile float s = scale[0];
    for (size_t i = 0; i < n; i++) {
        volatile float v = x[i] * s;
        q[i] = encode(v, fmt);
    }
    *amax = amax_of(x, n);
    return cudaSuccess;
}

/* The block's E8M0 scale (mx.h's rules: OCP's floor, TE's ceiling). */
static uint8_t shared_scale(float amax, fp8_format fmt, mx_scale_rule rule)
{
    if (isnan(amax) || isinf(amax))
        return 0xFF;
    if (amax == 0.0f)
        return 0x00;
    int ea = ilogbf(amax), em = fmt == FP8_E4M3 ? 8 : 15;
    int e = ea - em;
    if (rule == MX_SCALE_CEIL && scalbnf(amax, -ea) > 1.75f)
        e++;
    if (e < -127)
        return 0x00;
    return e > 127 ? 0xFE : (uint8_t)(e + 127);
}

extern "C" cudaError_t lab5_mx_quantize(const float *x, size_t rows, size_t cols,
                                        fp8_format fmt, mx_scale_rule rule, uint8_t *codes,
                                        uint8_t *scales, cudaStream_t stream)
{
    (void)stream;
    if ((fmt != FP8_E4M3 && fmt != FP8_E5M2) || (rule != MX_SCALE_FLOOR && rule != MX_SCALE_CEIL))
        return cudaErrorInvalidValue;
    size_t nb = (cols + LAB5_MX_BLOCK - 1) / LAB5_MX_BLOCK;
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < nb; j++) {
            size_t c0 = j * LAB5_MX_BLOCK, c1 = c0 + LAB5_MX_BLOCK < cols ? c0 + LAB5_MX_BLOCK : cols;
            const float *row = x + r * cols;
            float m = 0.0f;
            int nan = 0;
            for (size_t c = c0; c < c1; c++) {
                nan |= isnan(row[c]);
                if (fabsf(row[c]) > m)
                    m = fabsf(row[c]);
            }
            uint8_t s = shared_scale(nan ? NAN : m, fmt, rule);
            scales[r * nb + j] = s;
            for (size_t c = c0; c < c1; c++)
                codes[r * cols + c] = s == 0xFF ? 0x00 : encode(ldexpf(row[c], 127 - s), fmt);
        }
    return cudaSuccess;
}
