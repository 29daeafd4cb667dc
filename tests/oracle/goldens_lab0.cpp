/*
 * goldens_lab0.cpp - lab0's goldens (data/golden/lab0, made from the
 * reference solution) against NVIDIA's conversions in cuda_fp8.h:
 * every expected encoding against __nv_cvt_float_to_fp8 (__NV_SATFINITE for
 * column 0, __NV_NOSAT for column 1), every expected decoding against
 * __nv_cvt_fp8_to_halfraw. NaN meets any NaN; everything else bit for bit.
 *
 *   build/tests/oracle_goldens_lab0 [DATA_DIR]    (default data/golden/lab0)
 */
#include <cuda_fp8.h>

#include <math.h>
#include <stdio.h>

#include <check.h>

#include "check_run.h"
#include "fp8.h"
#include "npy.h"
#include "nvidia.h"
#include "stats.h"

namespace {

const char *dir = "data/golden/lab0";
const char *const sets[] = {"exact", "rne", "subnormal", "overflow", "nan", "random"};
const __nv_fp8_interpretation_t kinds[2] = {__NV_E4M3, __NV_E5M2};
const char *const tags[2] = {"e4m3", "e5m2"};

START_TEST(decode_matches_nvidia)
{
    npy_array d;
    lab_error err;
    char path[512];
    size_t shape[2] = {2, 256};
    snprintf(path, sizeof path, "%s/decode.npy", dir);
    ck_assert_msg(npy_load_expect(path, NPY_F32, 2, shape, &d, &err) == 0, "%s", err.msg);
    const float *v = static_cast<const float *>(d.data);
    for (int k = 0; k < 2; k++) {
        for (int c = 0; c < 256; c++) {
            float nv = half_to_float(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)c, kinds[k]).x);
            ck_assert_msg(stats_equal_exact(nv, v[256 * k + c]), "%s 0x%02x: golden %a, NVIDIA %a",
                          tags[k], c, (double)v[256 * k + c], (double)nv);
        }
    }
    npy_free(&d);
}
END_TEST

START_TEST(encode_matches_nvidia)
{
    int k = _i % 2;
    const char *set = sets[_i / 2];
    npy_array x, q;
    lab_error err;
    char path[512];
    snprintf(path, sizeof path, "%s/encode_%s_%s_x.npy", dir, set, tags[k]);
    ck_assert_msg(npy_load_expect(path, NPY_F32, 1, NULL, &x, &err) == 0, "%s", err.msg);
    size_t shape[2] = {x.count, 2};
    snprintf(path, sizeof path, "%s/encode_%s_%s_q.npy", dir, set, tags[k]);
    ck_assert_msg(npy_load_expect(path, NPY_U8, 2, shape, &q, &err) == 0, "%s", err.msg);
    const float *xs = static_cast<const float *>(x.data);
    const uint8_t *qs = static_cast<const uint8_t *>(q.data);
    for (size_t i = 0; i < x.count; i++) {
        uint8_t sat = __nv_cvt_float_to_fp8(xs[i], __NV_SATFINITE, kinds[k]);
        uint8_t nosat = __nv_cvt_float_to_fp8(xs[i], __NV_NOSAT, kinds[k]);
        ck_assert_msg(qs[2 * i] == sat && qs[2 * i + 1] == nosat,
                      "%s %s x = %a: golden 0x%02x 0x%02x, NVIDIA 0x%02x 0x%02x", set, tags[k],
                      (double)xs[i], qs[2 * i], qs[2 * i + 1], sat, nosat);
    }
    npy_free(&x);
    npy_free(&q);
}
END_TEST

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab0 goldens vs cuda_fp8.h");
    TCase *tc = tcase_create("nvidia");
    tcase_add_test(tc, decode_matches_nvidia);
    tcase_add_loop_test(tc, encode_matches_nvidia, 0, 12);
    suite_add_tcase(s, tc);
    return check_run(s);
}
