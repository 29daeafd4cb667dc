/*
 * lab4/calls.c - lab4's call table (channel.h): the judge's proxies of
 * lab4.h's functions and, with GR_SUBJECT, the subject's side that runs
 * the submission's.
 */
#include <stdint.h>
#include <string.h>

#include "channel.h"
#include "lab4.h"

enum {
    E8M0_DECODE = 1,
    BLOCK_AMAX,
    ELEM_EMAX,
    SHARED_SCALE,
    MX_QUANTIZE,
    MX_DEQUANTIZE,
    MX_DOT,
    MX_GEMM,
    NVFP4_TENSOR_SCALE,
    NVFP4_QUANTIZE,
    NVFP4_DEQUANTIZE
};

#ifdef GR_SUBJECT

#define FMT(v) ((fp8_format)(int)(v))

int sj_dispatch(uint32_t fn, const uint64_t *a)
{
    switch (fn) {
    case E8M0_DECODE: SJ_RETURN(float, lab4_e8m0_decode((uint8_t)a[0])); return 0;
    case BLOCK_AMAX: SJ_RETURN(float, lab4_block_amax(sj_ptr(a[0]), (size_t)a[1])); return 0;
    case ELEM_EMAX: SJ_RETURN(int, lab4_elem_emax(FMT(a[0]))); return 0;
    case SHARED_SCALE:
        SJ_RETURN(uint8_t,
                  lab4_shared_scale(sj_float(a[0]), FMT(a[1]), (lab4_scale_rule)(int)a[2]));
        return 0;
    case MX_QUANTIZE:
        lab4_mx_quantize(sj_ptr(a[0]), (size_t)a[1], (size_t)a[2], (size_t)a[3], FMT(a[4]),
                         (lab4_scale_rule)(int)a[5], sj_ptr(a[6]), sj_ptr(a[7]));
        return 0;
    case MX_DEQUANTIZE:
        lab4_mx_dequantize(sj_ptr(a[0]), sj_ptr(a[1]), (size_t)a[2], (size_t)a[3], (size_t)a[4],
                           FMT(a[5]), sj_ptr(a[6]));
        return 0;
    case MX_DOT:
        SJ_RETURN(float, lab4_mx_dot(sj_ptr(a[0]), sj_ptr(a[1]), sj_ptr(a[2]), sj_ptr(a[3]),
                                     (size_t)a[4], (size_t)a[5], FMT(a[6])));
        return 0;
    case MX_GEMM:
        lab4_mx_gemm(sj_ptr(a[0]), sj_ptr(a[1]), sj_ptr(a[2]), sj_ptr(a[3]), (size_t)a[4],
                     (size_t)a[5], (size_t)a[6], (size_t)a[7], FMT(a[8]), sj_ptr(a[9]));
        return 0;
    case NVFP4_TENSOR_SCALE: SJ_RETURN(float, lab4_nvfp4_tensor_scale(sj_float(a[0]))); return 0;
    case NVFP4_QUANTIZE:
        lab4_nvfp4_quantize(sj_ptr(a[0]), (size_t)a[1], (size_t)a[2], sj_float(a[3]),
                            sj_ptr(a[4]), sj_ptr(a[5]));
        return 0;
    case NVFP4_DEQUANTIZE:
        lab4_nvfp4_dequantize(sj_ptr(a[0]), sj_ptr(a[1]), (size_t)a[2], (size_t)a[3],
                              sj_float(a[4]), sj_ptr(a[5]));
        return 0;
    }
    return -1;
}

#else


/* The blocks of a row of cols elements: ceil(cols / block), as lab4.h
 * (none for block 0, which has no meaning). */
static size_t blocks(size_t cols, size_t block)
{
    return block ? cols / block + (cols % block != 0) : 0;
}

static void put_int(sj_call *c, int v) { sj_val(c, (uint64_t)(int64_t)v); }

float lab4_e8m0_decode(uint8_t code)
{
    sj_call c;
    sj_begin(&c, E8M0_DECODE, "lab4_e8m0_decode");
    sj_val(&c, code);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

float lab4_block_amax(const float *x, size_t n)
{
    sj_call c;
    sj_begin(&c, BLOCK_AMAX, "lab4_block_amax");
    sj_in(&c, x, sj_size(n, sizeof(float)));
    sj_val(&c, n);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

int lab4_elem_emax(fp8_format elem)
{
    sj_call c;
    sj_begin(&c, ELEM_EMAX, "lab4_elem_emax");
    put_int(&c, (int)elem);
    sj_run(&c);
    return SJ_RESULT(int, &c);
}

uint8_t lab4_shared_scale(float amax, fp8_format elem, lab4_scale_rule rule)
{
    sj_call c;
    sj_begin(&c, SHARED_SCALE, "lab4_shared_scale");
    sj_f32(&c, amax);
    put_int(&c, (int)elem);
    put_int(&c, (int)rule);
    sj_run(&c);
    return SJ_RESULT(uint8_t, &c);
}

void lab4_mx_quantize(const float *x, size_t rows, size_t cols, size_t block, fp8_format elem,
                      lab4_scale_rule rule, uint8_t *codes, uint8_t *scales)
{
    size_t n = sj_size(rows, cols);
    sj_call c;
    sj_begin(&c, MX_QUANTIZE, "lab4_mx_quantize");
    sj_in(&c, x, sj_size(n, sizeof(float)));
    sj_val(&c, rows);
    sj_val(&c, cols);
    sj_val(&c, block);
    put_int(&c, (int)elem);
    put_int(&c, (int)rule);
    sj_out(&c, codes, n);
    sj_out(&c, scales, sj_size(rows, blocks(cols, block)));
    sj_run(&c);
}

void lab4_mx_dequantize(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t cols,
                        size_t block, fp8_format elem, float *out)
{
    size_t n = sj_size(rows, cols);
    sj_call c;
    sj_begin(&c, MX_DEQUANTIZE, "lab4_mx_dequantize");
    sj_in(&c, codes, n);
    sj_in(&c, scales, sj_size(rows, blocks(cols, block)));
    sj_val(&c, rows);
    sj_val(&c, cols);
    sj_val(&c, block);
    put_int(&c, (int)elem);
    sj_out(&c, out, sj_size(n, sizeof(float)));
    sj_run(&c);
}

float lab4_mx_dot(const uint8_t *a, const uint8_t *sa, const uint8_t *b, const uint8_t *sb,
                  size_t n, size_t block, fp8_format elem)
{
    size_t nb = blocks(n, block);
    sj_call c;
    sj_begin(&c, MX_DOT, "lab4_mx_dot");
    sj_in(&c, a, n);
    sj_in(&c, sa, nb);
    sj_in(&c, b, n);
    sj_in(&c, sb, nb);
    sj_val(&c, n);
    sj_val(&c, block);
    put_int(&c, (int)elem);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

void lab4_mx_gemm(const uint8_t *a, const uint8_t *sa, const uint8_t *bt, const uint8_t *sbt,
                  size_t m, size_t n, size_t k, size_t block, fp8_format elem, float *out)
{
    size_t nb = blocks(k, block);
    sj_call c;
    sj_begin(&c, MX_GEMM, "lab4_mx_gemm");
    sj_in(&c, a, sj_size(m, k));
    sj_in(&c, sa, sj_size(m, nb));
    sj_in(&c, bt, sj_size(n, k));
    sj_in(&c, sbt, sj_size(n, nb));
    sj_val(&c, m);
    sj_val(&c, n);
    sj_val(&c, k);
    sj_val(&c, block);
    put_int(&c, (int)elem);
    sj_out(&c, out, sj_size(sj_size(m, n), sizeof(float)));
    sj_run(&c);
}

float lab4_nvfp4_tensor_scale(float global_amax)
{
    sj_call c;
    sj_begin(&c, NVFP4_TENSOR_SCALE, "lab4_nvfp4_tensor_scale");
    sj_f32(&c, global_amax);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

void lab4_nvfp4_quantize(const float *x, size_t rows, size_t cols, float tensor_scale,
                         uint8_t *codes, uint8_t *scales)
{
    size_t n = sj_size(rows, cols);
    sj_call c;
    sj_begin(&c, NVFP4_QUANTIZE, "lab4_nvfp4_quantize");
    sj_in(&c, x, sj_size(n, sizeof(float)));
    sj_val(&c, rows);
    sj_val(&c, cols);
    sj_f32(&c, tensor_scale);
    sj_out(&c, codes, n);
    sj_out(&c, scales, sj_size(rows, blocks(cols, LAB4_NVFP4_BLOCK)));
    sj_run(&c);
}

void lab4_nvfp4_dequantize(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t cols,
                           float tensor_scale, float *out)
{
    size_t n = sj_size(rows, cols);
    sj_call c;
    sj_begin(&c, NVFP4_DEQUANTIZE, "lab4_nvfp4_dequantize");
    sj_in(&c, codes, n);
    sj_in(&c, scales, sj_size(rows, blocks(cols, LAB4_NVFP4_BLOCK)));
    sj_val(&c, rows);
    sj_val(&c, cols);
    sj_f32(&c, tensor_scale);
    sj_out(&c, out, sj_size(n, sizeof(float)));
    sj_run(&c);
}

#endif
