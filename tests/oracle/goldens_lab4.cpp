/*
 * goldens_lab4.cpp - lab4's goldens (data/golden/lab4, made from the
 * reference solution) against NVIDIA's conversions in the CUDA Toolkit:
 *   - the scale table: the floor rule's code is __nv_cvt_float_to_e8m0 of
 *     amax rounded toward zero, less emax (clamped at 0x00); the round-up
 *     rule's is __nv_cvt_float_to_e8m0 of amax / elem_max rounded toward
 *     +inf, wherever that quotient is a normal float (it is exact enough
 *     there: README §3);
 *   - every element code of every golden quantization: x / 2^e through
 *     __nv_cvt_float_to_fp8 (__NV_SATFINITE), __nv_cvt_float_to_fp6 and
 *     __nv_cvt_float_to_fp4 (round to nearest even, saturating).
 *
 *   build/tests/oracle_goldens_lab4 [DATA_DIR]    (default data/golden/lab4)
 */
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <math.h>
#include <stdio.h>

#include <check.h>

#include "check_run.h"
#include "fp8.h"
#include "npy.h"

namespace {

const char *dir = "data/golden/lab4";
const fp8_format elems[5] = {FP8_E4M3, FP8_E5M2, FP8_E3M2, FP8_E2M3, FP8_E2M1};
const int emax[5] = {8, 15, 4, 2, 2};

void load(const char *name, npy_dtype dtype, int ndim, const size_t *shape, npy_array *out)
{
    char path[512];
    lab_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(npy_load_expect(path, dtype, ndim, shape, out, &err) == 0, "%s", err.msg);
}

uint8_t nvidia_element(float v, fp8_format fmt)
{
    switch (fmt) {
    case FP8_E4M3: return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
    case FP8_E5M2: return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2);
    case FP8_E3M2: return __nv_cvt_float_to_fp6(v, __NV_E3M2, cudaRoundNearest);
    case FP8_E2M3: return __nv_cvt_float_to_fp6(v, __NV_E2M3, cudaRoundNearest);
    default: return __nv_cvt_float_to_fp4(v, __NV_E2M1, cudaRoundNearest);
    }
}

START_TEST(scales_match_nvidia)
{
    npy_array a, c;
    load("scale_amax.npy", NPY_F32, 1, NULL, &a);
    size_t shape[3] = {a.count, 5, 2};
    load("scale_codes.npy", NPY_U8, 3, shape, &c);
    const float *amax = static_cast<const float *>(a.data);
    const uint8_t *codes = static_cast<const uint8_t *>(c.data);
    size_t ceil_checked = 0;
    for (size_t i = 0; i < a.count; i++) {
        for (int k = 0; k < 5; k++) {
            int rz = __nv_cvt_float_to_e8m0(amax[i], __NV_SATFINITE, cudaRoundZero);
            int floor_code = rz - emax[k] < 0 ? 0 : rz - emax[k];
            ck_assert_msg(codes[i * 10 + k * 2] == floor_code,
                          "amax %a, %s, floor: golden 0x%02x, NVIDIA 0x%02x", (double)amax[i],
                          fp8_info(elems[k])->name, codes[i * 10 + k * 2], floor_code);
            float q = amax[i] / fp8_info(elems[k])->max_finite;
            if (q < 0x1p-126f)
                continue;
            int up = __nv_cvt_float_to_e8m0(q, __NV_SATFINITE, cudaRoundPosInf);
            ck_assert_msg(codes[i * 10 + k * 2 + 1] == up,
                          "amax %a, %s, ceil: golden 0x%02x, NVIDIA 0x%02x", (double)amax[i],
                          fp8_info(elems[k])->name, codes[i * 10 + k * 2 + 1], up);
            ceil_checked++;
        }
    }
    ck_assert_uint_gt(ceil_checked, 4000);
    npy_free(&a);
    npy_free(&c);
}
END_TEST

const struct {
    const char *set;
    fp8_format fmt;
    const char *rule;
    size_t block;
} quants[] = {
    {"main", FP8_E4M3, "floor", 32}, {"main", FP8_E5M2, "floor", 32},
    {"main", FP8_E3M2, "floor", 32}, {"main", FP8_E2M3, "floor", 32},
    {"main", FP8_E2M1, "floor", 32}, {"main", FP8_E4M3, "ceil", 32},
    {"main", FP8_E2M1, "ceil", 32},  {"main", FP8_E4M3, "floor", 16},
    {"tail", FP8_E4M3, "floor", 32}, {"tail", FP8_E4M3, "ceil", 32},
    {"special", FP8_E4M3, "floor", 32}, {"special", FP8_E2M1, "ceil", 32},
};

START_TEST(codes_match_nvidia)
{
    const auto &q = quants[_i];
    char name[160], stem[128];
    npy_array x, codes, scales;
    snprintf(name, sizeof name, "mx_%s_x.npy", q.set);
    size_t xshape[2] = {0, 0};
    load(name, NPY_F32, 2, xshape, &x);
    size_t rows = x.shape[0], cols = x.shape[1], nb = (cols + q.block - 1) / q.block;
    snprintf(stem, sizeof stem, "mx_%s_%s_%s_b%zu", q.set, fp8_info(q.fmt)->name, q.rule,
             q.block);
    size_t cshape[2] = {rows, cols}, sshape[2] = {rows, nb};
    snprintf(name, sizeof name, "%s_codes.npy", stem);
    load(name, NPY_U8, 2, cshape, &codes);
    snprintf(name, sizeof name, "%s_scales.npy", stem);
    load(name, NPY_U8, 2, sshape, &scales);
    const float *xs = static_cast<const float *>(x.data);
    const uint8_t *cs = static_cast<const uint8_t *>(codes.data);
    const uint8_t *ss = static_cast<const uint8_t *>(scales.data);
    for (size_t i = 0; i < rows * cols; i++) {
        int s = ss[(i / cols) * nb + (i % cols) / q.block];
        uint8_t want = s == 0xFF ? 0 : nvidia_element(ldexpf(xs[i], 127 - s), q.fmt);
        ck_assert_msg(cs[i] == want, "%s element %zu: x %a, scale 0x%02x: golden 0x%02x, NVIDIA 0x%02x",
                      stem, i, (double)xs[i], s, cs[i], want);
    }
    npy_free(&x);
    npy_free(&codes);
    npy_free(&scales);
}
END_TEST

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab4 goldens vs the CUDA Toolkit's conversions");
    TCase *tc = tcase_create("nvidia");
    tcase_add_test(tc, scales_match_nvidia);
    tcase_add_loop_test(tc, codes_match_nvidia, 0, (int)(sizeof quants / sizeof quants[0]));
    suite_add_tcase(s, tc);
    return check_run(s);
}
