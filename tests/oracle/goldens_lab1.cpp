/*
 * goldens_lab1.cpp - lab1's cast bytes (data/golden/lab1, made from the
 * reference solution) against NVIDIA's conversion in cuda_fp8.h: every byte
 * of act_max16_q.npy (E4M3) and grad_max16_q.npy (E5M2) is
 * __nv_cvt_float_to_fp8(x * scale, __NV_SATFINITE, ...) of the step's tensor
 * (magnitude * base) at the step's golden scale, and every saturated count
 * is the number of elements whose __NV_NOSAT conversion overflows.
 *
 *   build/tests/oracle_goldens_lab1 [DATA_DIR]    (default data/golden/lab1)
 */
#include <cuda_fp8.h>

#include <stdio.h>

#include <check.h>

#include "check_run.h"
#include "npy.h"

namespace {

const char *dir = "data/golden/lab1";

void load(const char *name, npy_dtype dtype, int ndim, const size_t *shape, npy_array *out)
{
    char path[512];
    lab_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(npy_load_expect(path, dtype, ndim, shape, out, &err) == 0, "%s", err.msg);
}

START_TEST(cast_bytes_match_nvidia)
{
    const char *tag = _i == 0 ? "act_max16" : "grad_max16";
    const int w = _i;
    const __nv_fp8_interpretation_t kind = _i == 0 ? __NV_E4M3 : __NV_E5M2;
    npy_array base, mag, scale, q, counts;
    size_t bshape[2] = {2, 0}, mshape[2] = {2, 0};
    load("stream_base.npy", NPY_F32, 2, bshape, &base);
    load("stream_magnitude.npy", NPY_F32, 2, mshape, &mag);
    const size_t n = base.shape[1], steps = mag.shape[1];
    size_t sshape[2] = {steps + 1, 2}, qshape[2] = {steps, n}, cshape[2] = {steps, 2};
    char name[128];
    snprintf(name, sizeof name, "%s_scale.npy", tag);
    load(name, NPY_F32, 2, sshape, &scale);
    snprintf(name, sizeof name, "%s_q.npy", tag);
    load(name, NPY_U8, 2, qshape, &q);
    snprintf(name, sizeof name, "%s_counts.npy", tag);
    load(name, NPY_I32, 2, cshape, &counts);
    const float *b = static_cast<const float *>(base.data) + w * n;
    const float *m = static_cast<const float *>(mag.data) + w * steps;
    const float *s = static_cast<const float *>(scale.data);
    const uint8_t *qs = static_cast<const uint8_t *>(q.data);
    const int32_t *cs = static_cast<const int32_t *>(counts.data);
    const unsigned char overflow = _i == 0 ? 0x7F : 0x7C; /* NaN, +inf */
    for (size_t t = 0; t < steps; t++) {
        int saturated = 0;
        for (size_t i = 0; i < n; i++) {
            float y = (m[t] * b[i]) * s[2 * t];
            uint8_t nv = __nv_cvt_float_to_fp8(y, __NV_SATFINITE, kind);
            ck_assert_msg(qs[t * n + i] == nv, "%s step %zu element %zu: golden 0x%02x, NVIDIA 0x%02x",
                          tag, t, i, qs[t * n + i], nv);
            saturated += (__nv_cvt_float_to_fp8(y, __NV_NOSAT, kind) & 0x7F) == overflow;
        }
        ck_assert_msg(cs[2 * t] == saturated, "%s step %zu: golden saturated %d, NVIDIA %d", tag,
                      t, cs[2 * t], saturated);
    }
    npy_free(&base);
    npy_free(&mag);
    npy_free(&scale);
    npy_free(&q);
    npy_free(&counts);
}
END_TEST

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    Suite *s = suite_create("lab1 goldens vs cuda_fp8.h");
    TCase *tc = tcase_create("nvidia");
    tcase_add_loop_test(tc, cast_bytes_match_nvidia, 0, 2);
    suite_add_tcase(s, tc);
    return check_run(s);
}
