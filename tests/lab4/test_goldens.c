/*
 * test_goldens.c - lab4's goldens, checked by something other than the
 * solution that made them:
 *   - every shared scale from log2 in double precision: floor(log2 amax) -
 *     emax for the floor rule, ceil(log2(amax / elem_max)) for the round-up
 *     rule, clamped to E8M0's range (README §3, §4), for the scale table and
 *     for every block of every golden matrix, its amax found again here;
 *   - every element code against common/'s codec of x / 2^e (the codec is
 *     checked against NVIDIA's for every float; tests/oracle/goldens_lab4.cpp
 *     checks the codes against cuda_fp8.h, cuda_fp6.h and cuda_fp4.h too);
 *   - every dequantized value as decode(code) x 2^e in double;
 *   - every dot product against the double-precision dot product of the
 *     dequantized rows, within the float accumulation's error bound;
 *   - NVFP4: every element within half an E2M1 step (times the block's
 *     scale) of its input, or saturated;
 *   - scales worked by hand from the handout.
 *
 *   build/tests/lab4/test_goldens [DATA_DIR]    (default data/golden/lab4)
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fp8.h"
#include "npy.h"
#include "stats.h"

static const char *dir = "data/golden/lab4";
static const fp8_format elems[5] = {FP8_E4M3, FP8_E5M2, FP8_E3M2, FP8_E2M3, FP8_E2M1};
static const int emax[5] = {8, 15, 4, 2, 2}; /* OCP MX v1.0, the element formats */

static void load(const char *name, npy_dtype dtype, int ndim, const size_t *shape,
                 npy_array *out)
{
    char path[512];
    lab_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(npy_load_expect(path, dtype, ndim, shape, out, &err) == 0, "%s", err.msg);
}

static int index_of(fp8_format elem)
{
    for (int k = 0; k < 5; k++)
        if (elems[k] == elem)
            return k;
    return -1;
}

/* The scale code by log2 in double, as README §3 and §4 define it. */
static uint8_t scale_by_log2(float amax, int k, int ceil_rule)
{
    if (isnan(amax) || isinf(amax))
        return 0xFF;
    if (amax == 0.0f)
        return 0x00;
    double e = ceil_rule ? ceil(log2((double)amax / fp8_info(elems[k])->max_finite))
                         : floor(log2((double)amax)) - emax[k];
    if (e < -127)
        return 0x00;
    return e > 127 ? 0xFE : (uint8_t)(e + 127);
}

START_TEST(scale_table_by_log2)
{
    npy_array a, c;
    load("scale_amax.npy", NPY_F32, 1, NULL, &a);
    size_t shape[3] = {a.count, 5, 2};
    load("scale_codes.npy", NPY_U8, 3, shape, &c);
    const float *amax = a.data;
    const uint8_t *codes = c.data;
    for (size_t i = 0; i < a.count; i++)
        for (int k = 0; k < 5; k++)
            for (int r = 0; r < 2; r++)
                ck_assert_msg(codes[i * 10 + (size_t)k * 2 + (size_t)r] ==
                                  scale_by_log2(amax[i], k, r),
                              "amax %a, %s, rule %d: golden 0x%02x, log2 gives 0x%02x",
                              (double)amax[i], fp8_info(elems[k])->name, r,
                              codes[i * 10 + (size_t)k * 2 + (size_t)r],
                              scale_by_log2(amax[i], k, r));
    ck_assert_uint_gt(a.count, 1000);
    npy_free(&a);
    npy_free(&c);
}
END_TEST

START_TEST(scales_worked_by_hand)
{
    /* README §3: 485 = 1.89 x 2^8 in E4M3: floor 2^0, ceil 2^1; 448 = 1.75
     * x 2^8 is the largest amax floor and ceil agree on at 2^0. */
    ck_assert_uint_eq(scale_by_log2(485.0f, 0, 0), 0x7F);
    ck_assert_uint_eq(scale_by_log2(485.0f, 0, 1), 0x80);
    ck_assert_uint_eq(scale_by_log2(448.0f, 0, 1), 0x7F);
    ck_assert_uint_eq(scale_by_log2(nextafterf(448.0f, INFINITY), 0, 1), 0x80);
    ck_assert_uint_eq(scale_by_log2(6.0f, 4, 1), 0x7F);
    ck_assert_uint_eq(scale_by_log2(7.0f, 4, 0), 0x7F); /* 7 = 1.75 x 2^2 */
}
END_TEST

/* One golden quantization, re-derived block by block. */
typedef struct quant {
    const char *set, *elem;
    fp8_format fmt;
    int ceil_rule;
    size_t block;
} quant;

static const quant quants[] = {
    {"main", "e4m3", FP8_E4M3, 0, 32}, {"main", "e5m2", FP8_E5M2, 0, 32},
    {"main", "e3m2", FP8_E3M2, 0, 32}, {"main", "e2m3", FP8_E2M3, 0, 32},
    {"main", "e2m1", FP8_E2M1, 0, 32}, {"main", "e4m3", FP8_E4M3, 1, 32},
    {"main", "e2m1", FP8_E2M1, 1, 32}, {"main", "e4m3", FP8_E4M3, 0, 16},
    {"tail", "e4m3", FP8_E4M3, 0, 32}, {"tail", "e4m3", FP8_E4M3, 1, 32},
    {"special", "e4m3", FP8_E4M3, 0, 32}, {"special", "e2m1", FP8_E2M1, 1, 32},
};

START_TEST(quantizations_rederived)
{
    const quant *q = &quants[_i];
    char name[160], stem[128];
    npy_array x, codes, scales, deq;
    snprintf(name, sizeof name, "mx_%s_x.npy", q->set);
    size_t xshape[2] = {0, 0};
    load(name, NPY_F32, 2, xshape, &x);
    size_t rows = x.shape[0], cols = x.shape[1], nb = (cols + q->block - 1) / q->block;
    snprintf(stem, sizeof stem, "mx_%s_%s_%s_b%zu", q->set, q->elem,
             q->ceil_rule ? "ceil" : "floor", q->block);
    size_t cshape[2] = {rows, cols}, sshape[2] = {rows, nb};
    snprintf(name, sizeof name, "%s_codes.npy", stem);
    load(name, NPY_U8, 2, cshape, &codes);
    snprintf(name, sizeof name, "%s_scales.npy", stem);
    load(name, NPY_U8, 2, sshape, &scales);
    snprintf(name, sizeof name, "%s_deq.npy", stem);
    load(name, NPY_F32, 2, cshape, &deq);
    const float *xs = x.data, *ds = deq.data;
    const uint8_t *cs = codes.data, *ss = scales.data;
    int k = index_of(q->fmt);

    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < nb; j++) {
            size_t first = j * q->block, last = first + q->block < cols ? first + q->block : cols;
            float amax = 0.0f;
            for (size_t c = first; c < last; c++)
                amax = isnan(xs[r * cols + c]) || isnan(amax) ? NAN
                                                             : fmaxf(amax, fabsf(xs[r * cols + c]));
            uint8_t s = ss[r * nb + j];
            ck_assert_msg(s == scale_by_log2(amax, k, q->ceil_rule),
                          "%s row %zu block %zu: golden scale 0x%02x, amax %a gives 0x%02x", stem,
                          r, j, s, (double)amax, scale_by_log2(amax, k, q->ceil_rule));
            for (size_t c = first; c < last; c++) {
                size_t i = r * cols + c;
                uint8_t want = s == 0xFF ? 0 : fp8_encode(ldexpf(xs[i], 127 - (int)s), q->fmt, true);
                ck_assert_msg(cs[i] == want, "%s [%zu, %zu]: golden 0x%02x, codec 0x%02x", stem, r,
                              c, cs[i], want);
                double v = s == 0xFF ? NAN : ldexp(fp8_decode(cs[i], q->fmt), (int)s - 127);
                ck_assert_msg(stats_equal_exact((float)v, ds[i]),
                              "%s [%zu, %zu]: golden dequantized %a, closed form %a", stem, r, c,
                              (double)ds[i], v);
                /* The round-up rule never saturates. */
                if (q->ceil_rule && s != 0xFF)
                    ck_assert(fabsf(ldexpf(xs[i], 127 - (int)s)) <= fp8_info(q->fmt)->max_finite);
            }
        }
    }
    npy_free(&x);
    npy_free(&codes);
    npy_free(&scales);
    npy_free(&deq);
}
END_TEST

START_TEST(dots_within_float_error)
{
    static const struct {
        const char *set, *elem;
    } dots[] = {{"main", "e4m3"}, {"main", "e2m1"}, {"tail", "e4m3"}};
    const char *set = dots[_i].set, *elem = dots[_i].elem;
    char name[160];
    npy_array deq, dot;
    snprintf(name, sizeof name, "mx_%s_%s_floor_b32_deq.npy", set, elem);
    size_t dshape[2] = {0, 0};
    load(name, NPY_F32, 2, dshape, &deq);
    size_t rows = deq.shape[0], cols = deq.shape[1];
    snprintf(name, sizeof name, "dot_%s_%s.npy", set, elem);
    size_t shape[2] = {rows, rows};
    load(name, NPY_F32, 2, shape, &dot);
    const float *d = deq.data, *g = dot.data;
    for (size_t i = 0; i < rows; i++) {
        for (size_t j = 0; j < rows; j++) {
            double sum = 0.0, abs_sum = 0.0;
            for (size_t c = 0; c < cols; c++) {
                double p = (double)d[i * cols + c] * d[j * cols + c];
                sum += p;
                abs_sum += fabs(p);
            }
            /* Each float addition errs by at most 2^-24 of the running sum;
             * cols of them bound the error by cols x 2^-24 x sum |p|. */
            double tol = (double)cols * 0x1p-24 * abs_sum;
            ck_assert_msg(fabs(g[i * rows + j] - sum) <= tol,
                          "dot_%s_%s [%zu, %zu]: golden %a, double %a, tolerance %a", set, elem,
                          i, j, (double)g[i * rows + j], sum, tol);
        }
    }
    npy_free(&deq);
    npy_free(&dot);
}
END_TEST

START_TEST(nvfp4_close_to_input)
{
    npy_array x, s, deq, scales;
    size_t shape[2] = {16, 256}, sshape[2] = {16, 16}, one = 1;
    load("mx_main_x.npy", NPY_F32, 2, shape, &x);
    load("nvfp4_scale.npy", NPY_F32, 1, &one, &s);
    load("nvfp4_deq.npy", NPY_F32, 2, shape, &deq);
    load("nvfp4_scales.npy", NPY_U8, 2, sshape, &scales);
    const float *xs = x.data, *ds = deq.data;
    const uint8_t *ss = scales.data;
    float amax = 0.0f;
    for (size_t i = 0; i < x.count; i++)
        amax = fmaxf(amax, fabsf(xs[i]));
    float ts = ((const float *)s.data)[0];
    ck_assert_msg(fabs(ts - 2688.0 / amax) <= 0x1p-23 * ts, "tensor scale %a, 2688 / amax %a",
                  (double)ts, 2688.0 / amax);
    for (size_t i = 0; i < x.count; i++) {
        /* E2M1's largest step is 2 (between 4 and 6); in x's units that is
         * 2 x d / S for the block's scale d. Saturated elements may be off
         * by more, but never by more than their excess over 6 d / S. */
        double d = fp8_decode(ss[(i / 256) * 16 + (i % 256) / 16], FP8_E4M3);
        double unit = d / ts, err = fabs((double)ds[i] - xs[i]);
        double excess = fabs(xs[i]) - 6.0 * unit;
        ck_assert_msg(err <= unit * 1.0000001 || (excess > 0 && err <= excess + unit),
                      "nvfp4 element %zu: x %a, dequantized %a, unit %a", i, (double)xs[i],
                      (double)ds[i], unit);
    }
    npy_free(&x);
    npy_free(&s);
    npy_free(&deq);
    npy_free(&scales);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab4 goldens");
    TCase *tc = tcase_create("goldens");
    tcase_add_test(tc, scale_table_by_log2);
    tcase_add_test(tc, scales_worked_by_hand);
    tcase_add_loop_test(tc, quantizations_rederived, 0, (int)(sizeof quants / sizeof quants[0]));
    tcase_add_loop_test(tc, dots_within_float_error, 0, 3);
    tcase_add_test(tc, nvfp4_close_to_input);
    suite_add_tcase(s, tc);
    return check_run(s);
}
