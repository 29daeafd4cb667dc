/*
 * lab6.c - the reference solution of lab6's exercises (labs/lab6/lab6.h).
 */
#include "lab6.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* ---- the FP8 linear layer ---------------------------------------------------------- */

/* A current scale: max / amax, 1 for an amax 0, infinite or NaN, FLT_MAX
 * where the division overflows (lab6.h, after TE's compute_scale_from_amax). */
static float scale_from_amax(float amax, float max)
{
    if (!(amax > 0.0f) || isinf(amax))
        return 1.0f;
    float s = max / amax;
    return isinf(s) ? FLT_MAX : s;
}

float lab6_fp8_cast(delayed_scaler *s, int current, const float *x, size_t n, uint8_t *codes,
                    size_t *saturated, size_t *flushed)
{
    float amax = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float a = fabsf(x[i]);
        if (a > amax)
            amax = a;
    }
    delayed_record(s, amax);
    float max = fp8_info(s->fmt)->max_finite;
    if (current) {
        s->scale = scale_from_amax(amax, max);
        s->scale_inv = 1.0f / s->scale;
    }
    float scale = s->scale, v[1024];
    size_t sat = 0, flush = 0;
    uint8_t zero = fp8_encode(0.0f, s->fmt, true);
    for (size_t i = 0; i < n; i += 1024) {
        size_t len = n - i < 1024 ? n - i : 1024;
        for (size_t j = 0; j < len; j++) {
            v[j] = x[i + j] * scale;
            sat += fabsf(v[j]) > max;
        }
        fp8_encode_array(v, codes + i, len, s->fmt, true);  /* the codec's bulk encoder */
        for (size_t j = 0; j < len; j++)
            flush += x[i + j] != 0.0f && (codes[i + j] & 0x7F) == zero;
    }
    if (saturated)
        *saturated = sat;
    if (flushed)
        *flushed = flush;
    return s->scale_inv;
}

/* codes -> their values, through a table */
static void decode_all(const uint8_t *codes, size_t n, fp8_format fmt, float *out)
{
    float t[256];
    for (int c = 0; c < 256; c++)
        t[c] = fp8_decode((uint8_t)c, fmt);
    for (size_t i = 0; i < n; i++)
        out[i] = t[codes[i]];
}

/* Room for n floats and m bytes, kept from call to call (the demo's layers
 * run one at a time). */
static float *scratch(size_t n, size_t m, uint8_t **bytes)
{
    static float *buf;
    static size_t cap;
    size_t need = n + (m + sizeof(float) - 1) / sizeof(float);
    if (need > cap) {
        free(buf);
        buf = malloc(need * sizeof(float));
        cap = buf ? need : 0;
        if (!buf)
            abort();
    }
    if (bytes)
        *bytes = (uint8_t *)(buf + n);
    return buf;
}

static void scale_all(float *y, size_t n, float s)
{
    for (size_t i = 0; i < n; i++)
        y[i] = y[i] * s;
}

void lab6_fp8_forward(lab6_fp8_linear *L, const float *x, const float *w, float *y, size_t M,
                      size_t N, size_t K)
{
    L->x_scale_inv = lab6_fp8_cast(&L->sx, L->current, x, M * K, L->xq, &L->n_saturated[0],
                                   &L->n_flushed[0]);
    L->w_scale_inv = lab6_fp8_cast(&L->sw, L->current, w, N * K, L->wq, &L->n_saturated[1],
                                   &L->n_flushed[1]);
    L->n_cast[0] = M * K;
    L->n_cast[1] = N * K;
    float *xd = scratch(M * K + N * K, 0, NULL), *wd = xd + M * K;
    decode_all(L->xq, M * K, L->sx.fmt, xd);
    decode_all(L->wq, N * K, L->sw.fmt, wd);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K, 1.0f, xd, (int)K,
                wd, (int)K, 0.0f, y, (int)N);
    scale_all(y, M * N, L->x_scale_inv * L->w_scale_inv);
}

void lab6_fp8_backward(lab6_fp8_linear *L, const float *dy, float *dx, float *dw, size_t M,
                       size_t N, size_t K)
{
    uint8_t *dyq;
    float *dyd = scratch(M * N + M * K + N * K, M * N, &dyq), *xd = dyd + M * N, *wd = xd + M * K;
    float sinv_dy = lab6_fp8_cast(&L->sdy, L->current, dy, M * N, dyq, &L->n_saturated[2],
                                  &L->n_flushed[2]);
    L->n_cast[2] = M * N;
    decode_all(dyq, M * N, L->sdy.fmt, dyd);
    decode_all(L->xq, M * K, L->sx.fmt, xd);
    decode_all(L->wq, N * K, L->sw.fmt, wd);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)K, (int)N, 1.0f, dyd,
                (int)N, wd, (int)K, 0.0f, dx, (int)K);
    scale_all(dx, M * K, sinv_dy * L->w_scale_inv);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)N, (int)K, (int)M, 1.0f, dyd, (int)N,
                xd, (int)K, 0.0f, dw, (int)K);
    scale_all(dw, N * K, sinv_dy * L->x_scale_inv);
}

void lab6_fp8_update(lab6_fp8_linear *L)
{
    if (L->current)
        return;
    delayed_update(&L->sx);
    delayed_update(&L->sw);
    delayed_update(&L->sdy);
}

double lab6_cast_sqnr(const float *x, size_t n, fp8_format fmt, float scale)
{
    float sinv = 1.0f / scale;
    double sig = 0.0, err = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            continue;
        float back = fp8_decode(fp8_encode(x[i] * scale, fmt, true), fmt) * sinv;
        double d = (double)x[i] - (double)back;
        sig += (double)x[i] * x[i];
        err += d * d;
    }
    return err > 0.0 ? 10.0 * log10(sig / err) : INFINITY;
}

/* ---- stochastic rounding ------------------------------------------------------ */

uint16_t lab6_sr_bf16(float x, uint32_t r)
{
    uint32_t u = bits_of(x);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return (uint16_t)((u >> 16) | 0x0040u);
    /* the dropped 16 bits are p * 2^16; hi is lo's bits plus one (past the
     * largest finite BF16 that is 0x7F80, infinity) */
    uint32_t rem = u & 0xFFFFu;
    return (uint16_t)((u >> 16) + ((r >> 16) < rem));
}

uint8_t lab6_sr_fp8(float x, fp8_format fmt, uint32_t r)
{
    const fp8_format_info *f = fp8_info(fmt);
    if (isnan(x))
        return fp8_encode(x, fmt, true);
    float a = fabsf(x);
    uint8_t sign = signbit(x) ? 0x80 : 0x00;
    if (a >= f->max_finite)
        return fp8_encode(x, fmt, true);
    /* lo: the largest code whose value is at most a (codes of one sign grow
     * with their values); hi the next */
    uint8_t lo = fp8_encode_rounded(a, fmt, true, FP8_ROUND_TOWARD_ZERO);
    float vlo = fp8_decode(lo, fmt);
    if (vlo == a)
        return (uint8_t)(lo | sign);
    float vhi = fp8_decode((uint8_t)(lo + 1), fmt);
    /* p = (a - vlo) / (vhi - vlo): the difference is exact (a and vlo share
     * a binade, or vlo is 0), the gap a power of two */
    double p = ((double)a - (double)vlo) / ((double)vhi - (double)vlo);
    double threshold = floor(ldexp(p, 32));
    return (uint8_t)(((double)r < threshold ? lo + 1 : lo) | sign);
}

/* ---- fine-grained scaling --------------------------------------------------------- */

float lab6_tile_scale(float amax)
{
    return scale_from_amax(amax, 448.0f);
}

/* The largest |x| of a group, a NaN ignored (it is never above). Four
 * running maxima, so that each comparison need not wait for the last: the
 * recipes (recipes.c) call this on every operand of every product. */
static float amax_of(const float *x, size_t rows, size_t cols, size_t stride)
{
    float m[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (size_t r = 0; r < rows; r++) {
        const float *row = x + r * stride;
        size_t c = 0;
        for (; c + 4 <= cols; c += 4)
            for (size_t k = 0; k < 4; k++) {
                float a = fabsf(row[c + k]);
                m[k] = a > m[k] ? a : m[k];
            }
        for (; c < cols; c++) {
            float a = fabsf(row[c]);
            m[0] = a > m[0] ? a : m[0];
        }
    }
    float top = m[0];
    for (size_t k = 1; k < 4; k++)
        top = m[k] > top ? m[k] : top;
    return top;
}

/* Encodes a rows x cols group of x (row stride stride) with one scale; returns
 * its inverse. */
static float quantize_group(const float *x, size_t rows, size_t cols, size_t stride,
                            uint8_t *codes)
{
    float scale = lab6_tile_scale(amax_of(x, rows, cols, stride)), v[LAB6_TILE];
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++)
            v[c] = x[r * stride + c] * scale;
        fp8_encode_array(v, codes + r * stride, cols, FP8_E4M3, true);
    }
    return 1.0f / scale;
}

static size_t tiles(size_t n)
{
    return (n + LAB6_TILE - 1) / LAB6_TILE;
}

static size_t tile_len(size_t n, size_t t)
{
    size_t left = n - t * LAB6_TILE;
    return left < LAB6_TILE ? left : LAB6_TILE;
}

void lab6_quantize_tiles(const float *x, size_t rows, size_t cols, uint8_t *codes,
                         float *scale_inv)
{
    size_t nt = tiles(cols);
    for (size_t r = 0; r < rows; r++)
        for (size_t t = 0; t < nt; t++)
            scale_inv[r * nt + t] = quantize_group(x + r * cols + t * LAB6_TILE, 1,
                                                   tile_len(cols, t), cols,
                                                   codes + r * cols + t * LAB6_TILE);
}

void lab6_quantize_blocks(const float *w, size_t rows, size_t cols, uint8_t *codes,
                          float *scale_inv)
{
    size_t nbr = tiles(rows), nbc = tiles(cols);
    for (size_t br = 0; br < nbr; br++)
        for (size_t bc = 0; bc < nbc; bc++) {
            size_t off = br * LAB6_TILE * cols + bc * LAB6_TILE;
            scale_inv[br * nbc + bc] = quantize_group(w + off, tile_len(rows, br),
                                                      tile_len(cols, bc), cols, codes + off);
        }
}

void lab6_gemm_tiles(const uint8_t *xcodes, const float *x_scale_inv, const uint8_t *wcodes,
                     const float *w_scale_inv, float *y, size_t M, size_t N, size_t K)
{
    size_t nt = tiles(K);
    float dec[256];
    for (int c = 0; c < 256; c++)
        dec[c] = fp8_decode((uint8_t)c, FP8_E4M3);
    for (size_t m = 0; m < M; m++)
        for (size_t n = 0; n < N; n++) {
            const uint8_t *xr = xcodes + m * K, *wr = wcodes + n * K;
            float acc = 0.0f;
            for (size_t t = 0; t < nt; t++) {
                float part = 0.0f;
                size_t k0 = t * LAB6_TILE, k1 = k0 + tile_len(K, t);
                for (size_t k = k0; k < k1; k++) {
                    float prod = dec[xr[k]] * dec[wr[k]];
                    part += prod;
                }
                float s = x_scale_inv[m * nt + t] * w_scale_inv[(n / LAB6_TILE) * nt + t];
                float contrib = part * s;
                acc += contrib;
            }
            y[m * N + n] = acc;
        }
}
