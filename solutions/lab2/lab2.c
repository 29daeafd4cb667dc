/*
 * lab2.c - lab2's reference solution: the format recommender (README).
 */
#include "lab2.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

size_t lab2_magnitudes(const float *x, size_t n, float *mag)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && x[i] != 0.0f)
            mag[m++] = fabsf(x[i]);
    qsort(mag, m, sizeof *mag, cmp_float);
    return m;
}

float lab2_percentile(const float *mag, size_t m, unsigned per_mille)
{
    if (m == 0)
        return 0.0f;
    size_t k = (m * per_mille + 999) / 1000;
    if (k < 1)
        k = 1;
    return mag[k - 1];
}

int lab2_tensor_stats(const float *x, size_t n, lab2_stats *s)
{
    *s = (lab2_stats){0};
    float *mag = n <= SIZE_MAX / sizeof *mag ? malloc((n ? n : 1) * sizeof *mag) : NULL;
    if (!mag)
        return -1; /* s stays zeroed, as lab2.h says */
    s->n = n;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            s->nan++;
        else if (isinf(x[i]))
            s->inf++;
        else if (x[i] == 0.0f)
            s->zeros++;
    }
    size_t m = lab2_magnitudes(x, n, mag);
    s->nonzero = m;
    if (m > 0) {
        s->amax = mag[m - 1];
        s->min_nonzero = mag[0];
        s->p_lo = lab2_percentile(mag, m, LAB2_LO_PER_MILLE);
        s->p_hi = lab2_percentile(mag, m, LAB2_HI_PER_MILLE);
        s->range_bits = log2((double)s->amax / (double)s->min_nonzero);
        s->range_bits_pct = log2((double)s->p_hi / (double)s->p_lo);
        s->outlier_ratio = (double)s->amax / (double)s->p_hi;
    }
    free(mag);
    return 0;
}

float lab2_tensor_scale(float amax, fp8_format fmt)
{
    if (amax == 0.0f || !isfinite(amax))
        return 1.0f;
    float scale = fp8_info(fmt)->max_finite / amax;
    return isinf(scale) ? FLT_MAX : scale;
}

void lab2_cast_stats(const float *x, size_t n, fp8_format fmt, float scale, lab2_cast *c)
{
    float scale_inv = 1.0f / scale;
    size_t finite = 0, nonzero = 0, saturated = 0, underflow = 0;
    double signal = 0.0, noise = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            continue;
        finite++;
        float y = x[i] * scale;
        uint8_t q = fp8_encode(y, fmt, true);
        uint8_t raw = fp8_encode(y, fmt, false);
        if (fp8_is_nan(raw, fmt) || fp8_is_inf(raw, fmt))
            saturated++;
        if (x[i] != 0.0f) {
            nonzero++;
            if (fp8_is_zero(q, fmt))
                underflow++;
        }
        float back = fp8_decode(q, fmt) * scale_inv;
        double e = (double)x[i] - (double)back;
        signal += (double)x[i] * (double)x[i];
        noise += e * e;
    }
    *c = (lab2_cast){.fmt = fmt, .scale = scale};
    c->saturated = finite ? (double)saturated / (double)finite : 0.0;
    c->underflow = nonzero ? (double)underflow / (double)nonzero : 0.0;
    c->mse = finite ? noise / (double)finite : 0.0;
    c->sqnr_db = noise == 0.0 ? INFINITY : 10.0 * log10(signal / noise);
}

static bool acceptable(const lab2_cast *c)
{
    return c->underflow <= LAB2_MAX_UNDERFLOW && c->sqnr_db >= LAB2_MIN_SQNR_DB;
}

/* One format's numbers, for the reason. */
static void describe(const lab2_cast *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s: %.2f%% underflow, SQNR %.1f dB",
             c->fmt == FP8_E4M3 ? "E4M3" : "E5M2", 100.0 * c->underflow, c->sqnr_db);
}

lab2_choice lab2_recommend(const lab2_stats *t, const lab2_cast *e4m3, const lab2_cast *e5m2,
                           char *why, size_t size)
{
    char a[96], b[96];
    describe(e4m3, a, sizeof a);
    describe(e5m2, b, sizeof b);
    lab2_choice c;
    const char *reason;
    if (t->nonzero == 0) {
        c = LAB2_E4M3;
        reason = "no finite nonzero element: any format holds it exactly";
    } else if (acceptable(e4m3)) {
        c = LAB2_E4M3;
        reason = "E4M3 keeps enough of it, with a mantissa bit more than E5M2";
    } else if (acceptable(e5m2)) {
        c = LAB2_E5M2;
        reason = "E4M3 loses too much of it; E5M2's range keeps it";
    } else {
        c = LAB2_KEEP;
        reason = "neither format keeps enough of it under one scale: keep it in "
                 "BF16/FP32, or scale it per block as lab4 does";
    }
    if (size > 0)
        snprintf(why, size, "%s (%s; %s; range %.1f bits between the 0.1th and "
                 "99.9th percentiles)", reason, a, b, t->range_bits_pct);
    return c;
}
