/*
 * lab6/calls.c - lab6's call table (channel.h): the judge's proxies of
 * lab6.h's functions and, with GR_SUBJECT, the subject's side that runs
 * the submission's.
 *
 * A layer (lab6_fp8_linear) goes with its two code buffers, xq and wq, of
 * cap_x and cap_w bytes: forward writes them, backward and update only
 * read them. The outputs dx and dw of backward go in with what the judge
 * put there, so that a backward that adds to them, where lab6.h says it
 * writes them, is seen.
 */
#include <stdint.h>
#include <string.h>

#include "channel.h"
#include "lab6.h"

enum { FP8_CAST = 1, FP8_FORWARD, FP8_BACKWARD, FP8_UPDATE, SR_BF16, SR_FP8, TILE_SCALE,
       QUANTIZE_TILES, QUANTIZE_BLOCKS, GEMM_TILES, CAST_SQNR };

#ifdef GR_SUBJECT

#define FMT(v) ((fp8_format)(int)(v))

/* The layer at a, its code buffers made the subject's addresses. */
static lab6_fp8_linear *layer(uint64_t a)
{
    lab6_fp8_linear *L = sj_ptr(a);
    if (L) {
        sj_fix(&L->xq);
        sj_fix(&L->wq);
    }
    return L;
}

int sj_dispatch(uint32_t fn, const uint64_t *a)
{
    switch (fn) {
    case FP8_CAST:
        SJ_RETURN(float, lab6_fp8_cast(sj_ptr(a[0]), (int)a[1], sj_ptr(a[2]), (size_t)a[3],
                                       sj_ptr(a[4]), sj_ptr(a[5]), sj_ptr(a[6])));
        return 0;
    case FP8_FORWARD:
        lab6_fp8_forward(layer(a[0]), sj_ptr(a[1]), sj_ptr(a[2]), sj_ptr(a[3]), (size_t)a[4],
                         (size_t)a[5], (size_t)a[6]);
        return 0;
    case FP8_BACKWARD:
        lab6_fp8_backward(layer(a[0]), sj_ptr(a[1]), sj_ptr(a[2]), sj_ptr(a[3]), (size_t)a[4],
                          (size_t)a[5], (size_t)a[6]);
        return 0;
    case FP8_UPDATE: lab6_fp8_update(layer(a[0])); return 0;
    case CAST_SQNR:
        SJ_RETURN(double, lab6_cast_sqnr(sj_ptr(a[0]), (size_t)a[1], FMT(a[2]), sj_float(a[3])));
        return 0;
    case SR_BF16: SJ_RETURN(uint16_t, lab6_sr_bf16(sj_float(a[0]), (uint32_t)a[1])); return 0;
    case SR_FP8:
        SJ_RETURN(uint8_t, lab6_sr_fp8(sj_float(a[0]), FMT(a[1]), (uint32_t)a[2]));
        return 0;
    case TILE_SCALE: SJ_RETURN(float, lab6_tile_scale(sj_float(a[0]))); return 0;
    case QUANTIZE_TILES:
        lab6_quantize_tiles(sj_ptr(a[0]), (size_t)a[1], (size_t)a[2], sj_ptr(a[3]),
                            sj_ptr(a[4]));
        return 0;
    case QUANTIZE_BLOCKS:
        lab6_quantize_blocks(sj_ptr(a[0]), (size_t)a[1], (size_t)a[2], sj_ptr(a[3]),
                             sj_ptr(a[4]));
        return 0;
    case GEMM_TILES:
        lab6_gemm_tiles(sj_ptr(a[0]), sj_ptr(a[1]), sj_ptr(a[2]), sj_ptr(a[3]), sj_ptr(a[4]),
                        (size_t)a[5], (size_t)a[6], (size_t)a[7]);
        return 0;
    }
    return -1;
}

#else

/* rows x cols floats, in bytes (more than the arena holds when that
 * overflows). */
static size_t floats(size_t rows, size_t cols)
{
    return sj_size(sj_size(rows, cols), sizeof(float));
}

/* Tiles of LAB6_TILE in n values: ceil(n / 128). */
static size_t tiles(size_t n) { return n / LAB6_TILE + (n % LAB6_TILE != 0); }

/* The layer L as an argument, its code buffers linked from its copy: in
 * and out when `written`, else in only. */
static void put_layer(sj_call *c, lab6_fp8_linear *L, int written)
{
    lab6_fp8_linear *copy = sj_inout(c, L, sizeof *L);
    if (!copy)
        return;
    sj_dir dir = written ? SJ_INOUT : SJ_IN;
    sj_link(c, &copy->xq, sj_block(c, L->xq, L->cap_x, dir));
    sj_link(c, &copy->wq, sj_block(c, L->wq, L->cap_w, dir));
}

/* After sj_run: L's own pointers and capacities back, from keep, where the
 * copy-back wrote the subject's: a capacity the subject changed would have
 * the next call copy past the end of the judge's buffers. */
static void restore_layer(lab6_fp8_linear *L, const lab6_fp8_linear *keep)
{
    if (!L)
        return;
    L->xq = keep->xq, L->wq = keep->wq;
    L->cap_x = keep->cap_x, L->cap_w = keep->cap_w;
}

float lab6_fp8_cast(delayed_scaler *s, int current, const float *x, size_t n, uint8_t *codes,
                    size_t *saturated, size_t *flushed)
{
    sj_call c;
    sj_begin(&c, FP8_CAST, "lab6_fp8_cast");
    sj_inout(&c, s, sizeof *s);
    sj_val(&c, (uint64_t)(int64_t)current);
    sj_in(&c, x, floats(n, 1));
    sj_val(&c, n);
    sj_out(&c, codes, n);
    sj_out(&c, saturated, sizeof *saturated);
    sj_out(&c, flushed, sizeof *flushed);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

void lab6_fp8_forward(lab6_fp8_linear *L, const float *x, const float *w, float *y, size_t M,
                      size_t N, size_t K)
{
    sj_call c;
    lab6_fp8_linear keep = L ? *L : (lab6_fp8_linear){0};
    sj_begin(&c, FP8_FORWARD, "lab6_fp8_forward");
    put_layer(&c, L, 1);
    sj_in(&c, x, floats(M, K));
    sj_in(&c, w, floats(N, K));
    sj_out(&c, y, floats(M, N));
    sj_val(&c, M);
    sj_val(&c, N);
    sj_val(&c, K);
    sj_run(&c);
    restore_layer(L, &keep);
}

void lab6_fp8_backward(lab6_fp8_linear *L, const float *dy, float *dx, float *dw, size_t M,
                       size_t N, size_t K)
{
    sj_call c;
    lab6_fp8_linear keep = L ? *L : (lab6_fp8_linear){0};
    sj_begin(&c, FP8_BACKWARD, "lab6_fp8_backward");
    put_layer(&c, L, 0);
    sj_in(&c, dy, floats(M, N));
    sj_inout(&c, dx, floats(M, K));
    sj_inout(&c, dw, floats(N, K));
    sj_val(&c, M);
    sj_val(&c, N);
    sj_val(&c, K);
    sj_run(&c);
    restore_layer(L, &keep);
}

void lab6_fp8_update(lab6_fp8_linear *L)
{
    sj_call c;
    lab6_fp8_linear keep = L ? *L : (lab6_fp8_linear){0};
    sj_begin(&c, FP8_UPDATE, "lab6_fp8_update");
    put_layer(&c, L, 0);
    sj_run(&c);
    restore_layer(L, &keep);
}

double lab6_cast_sqnr(const float *x, size_t n, fp8_format fmt, float scale)
{
    sj_call c;
    sj_begin(&c, CAST_SQNR, "lab6_cast_sqnr");
    sj_in(&c, x, floats(n, 1));
    sj_val(&c, n);
    sj_val(&c, (uint64_t)(int64_t)fmt);
    sj_f32(&c, scale);
    sj_run(&c);
    return SJ_RESULT(double, &c);
}

uint16_t lab6_sr_bf16(float x, uint32_t r)
{
    sj_call c;
    sj_begin(&c, SR_BF16, "lab6_sr_bf16");
    sj_f32(&c, x);
    sj_val(&c, r);
    sj_run(&c);
    return SJ_RESULT(uint16_t, &c);
}

uint8_t lab6_sr_fp8(float x, fp8_format fmt, uint32_t r)
{
    sj_call c;
    sj_begin(&c, SR_FP8, "lab6_sr_fp8");
    sj_f32(&c, x);
    sj_val(&c, (uint64_t)(int64_t)fmt);
    sj_val(&c, r);
    sj_run(&c);
    return SJ_RESULT(uint8_t, &c);
}

float lab6_tile_scale(float amax)
{
    sj_call c;
    sj_begin(&c, TILE_SCALE, "lab6_tile_scale");
    sj_f32(&c, amax);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

void lab6_quantize_tiles(const float *x, size_t rows, size_t cols, uint8_t *codes,
                         float *scale_inv)
{
    sj_call c;
    sj_begin(&c, QUANTIZE_TILES, "lab6_quantize_tiles");
    sj_in(&c, x, floats(rows, cols));
    sj_val(&c, rows);
    sj_val(&c, cols);
    sj_out(&c, codes, sj_size(rows, cols));
    sj_out(&c, scale_inv, floats(rows, tiles(cols)));
    sj_run(&c);
}

void lab6_quantize_blocks(const float *w, size_t rows, size_t cols, uint8_t *codes,
                          float *scale_inv)
{
    sj_call c;
    sj_begin(&c, QUANTIZE_BLOCKS, "lab6_quantize_blocks");
    sj_in(&c, w, floats(rows, cols));
    sj_val(&c, rows);
    sj_val(&c, cols);
    sj_out(&c, codes, sj_size(rows, cols));
    sj_out(&c, scale_inv, floats(tiles(rows), tiles(cols)));
    sj_run(&c);
}

void lab6_gemm_tiles(const uint8_t *xcodes, const float *x_scale_inv, const uint8_t *wcodes,
                     const float *w_scale_inv, float *y, size_t M, size_t N, size_t K)
{
    sj_call c;
    sj_begin(&c, GEMM_TILES, "lab6_gemm_tiles");
    sj_in(&c, xcodes, sj_size(M, K));
    sj_in(&c, x_scale_inv, floats(M, tiles(K)));
    sj_in(&c, wcodes, sj_size(N, K));
    sj_in(&c, w_scale_inv, floats(tiles(N), tiles(K)));
    sj_out(&c, y, floats(M, N));
    sj_val(&c, M);
    sj_val(&c, N);
    sj_val(&c, K);
    sj_run(&c);
}

#endif
