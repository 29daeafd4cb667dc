/*
 * lab1.c - lab1, delayed scaling: the reference solution.
 *
 * Each function follows lab1.h and the handout (labs/lab1/README.md) to the
 * letter, including the order of float operations wherever it changes bits.
 * The grader's goldens (data/golden/lab1) are made from this file by
 * grading/lab1/goldens.c and checked independently in tests/lab1/.
 */
#include "lab1.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

fp8_format lab1_format_for(lab1_tensor kind)
{
    return kind == LAB1_GRADIENT ? FP8_E5M2 : FP8_E4M3;
}

float lab1_amax(const float *x, size_t n)
{
    float amax = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float a = fabsf(x[i]);
        if (a > amax) /* false for NaN: a NaN element is skipped */
            amax = a;
    }
    return amax;
}

/* Whether the non-saturating cast of y overflows: y is not NaN, and the
 * code is an infinity (E5M2) or the NaN that E4M3 gives on overflow. */
static int overflows(float y, fp8_format fmt)
{
    if (isnan(y))
        return 0;
    uint8_t code = fp8_encode(y, fmt, false);
    return fp8_is_inf(code, fmt) || fp8_is_nan(code, fmt);
}

lab1_cast_counts lab1_scaled_cast(const float *x, size_t n, float scale, fp8_format fmt,
                                  uint8_t *q)
{
    lab1_cast_counts c = {0, 0};
    for (size_t i = 0; i < n; i++) {
        float y = x[i] * scale;
        q[i] = fp8_encode(y, fmt, true);
        if (overflows(y, fmt))
            c.saturated++;
        if (x[i] != 0.0f && !isnan(x[i]) && fp8_is_zero(q[i], fmt))
            c.flushed++;
    }
    return c;
}

void lab1_delayed_init(lab1_delayed *s, lab1_tensor kind, lab1_amax_algo algo, int history_len,
                       int margin)
{
    s->fmt = lab1_format_for(kind);
    s->algo = algo;
    s->history_len = history_len;
    s->margin = margin;
    for (int i = 0; i < LAB1_MAX_HISTORY; i++)
        s->history[i] = 0.0f;
    s->scale = 1.0f;
    s->scale_inv = 1.0f;
}

lab1_cast_counts lab1_delayed_cast(lab1_delayed *s, const float *x, size_t n, uint8_t *q)
{
    float a = lab1_amax(x, n);
    if (a > s->history[0])
        s->history[0] = a;
    return lab1_scaled_cast(x, n, s->scale, s->fmt, q);
}

float lab1_scale_from_amax(float amax, float prev_scale, fp8_format fmt, int margin)
{
    if (!(isfinite(amax) && amax > 0.0f))
        return prev_scale;
    float scale = (fp8_info(fmt)->max_finite / amax) / ldexpf(1.0f, margin);
    if (isinf(scale))
        scale = FLT_MAX;
    return scale;
}

void lab1_delayed_update(lab1_delayed *s)
{
    int len = s->history_len;
    float *h = s->history;

    float amax = h[0];
    if (s->algo == LAB1_AMAX_MAX) {
        for (int i = 1; i < len && !isnan(amax); i++)
            if (isnan(h[i]) || h[i] > amax)
                amax = h[i];
    }

    float newest = h[0];
    for (int i = 0; i + 1 < len; i++)
        h[i] = h[i + 1];
    h[len - 1] = newest;
    h[0] = 0.0f;

    s->scale = lab1_scale_from_amax(amax, s->scale, s->fmt, s->margin);
    s->scale_inv = 1.0f / s->scale;
}

float lab1_current_scale(float amax, fp8_format fmt, float epsilon, int pow2)
{
    if (amax < epsilon)
        amax = epsilon;
    if (amax == 0.0f || isinf(amax) || isnan(amax))
        return 1.0f;
    float scale = fp8_info(fmt)->max_finite / amax;
    if (isinf(scale))
        scale = FLT_MAX;
    if (pow2) {
        uint32_t bits;
        memcpy(&bits, &scale, sizeof bits);
        bits &= 0xFF800000u;
        memcpy(&scale, &bits, sizeof scale);
    }
    return scale;
}

void lab1_ema_init(lab1_ema *s, lab1_tensor kind, float momentum, int margin)
{
    s->fmt = lab1_format_for(kind);
    s->momentum = momentum;
    s->margin = margin;
    s->scale = 1.0f;
    s->scale_inv = 1.0f;
}

void lab1_ema_update(lab1_ema *s, float amax)
{
    if (!(isfinite(amax) && amax > 0.0f))
        return;
    float target = lab1_scale_from_amax(amax, s->scale, s->fmt, s->margin);
    float keep = s->momentum * s->scale;
    float move = (1.0f - s->momentum) * target;
    float scale = keep + move;
    if (isinf(scale))
        scale = FLT_MAX;
    s->scale = scale;
    s->scale_inv = 1.0f / scale;
}
