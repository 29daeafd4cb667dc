/*
 * goldens_lab2.cpp - every lab2 golden (data/golden/lab2, made from the
 * reference solution) recomputed from its input tensor, with none of the
 * solution's code and none of common/'s codec: the 7 synthetic tensors
 * (syn_<name>_x.npy beside the goldens) and the 18 captures
 * (data/captures/capture_stepSSSSS_lL_K.npy), and for each of them
 *   - NAME_stats.npy: the counts by fpclassify; amax and min_nonzero by a
 *     plain scan; the nearest-rank percentiles with std::nth_element at
 *     k = ceil(m * per_mille / 1000) (at least 1); range_bits,
 *     range_bits_pct and outlier_ratio by log2 and division in double;
 *   - NAME_casts.npy: the scale (fp8_max / amax in float, fp8_max read off
 *     NVIDIA's decoder), and for each finite x the codes
 *     __nv_cvt_float_to_fp8(x * scale, __NV_SATFINITE) and (__NV_NOSAT),
 *     the decoded value __nv_cvt_fp8_to_halfraw -> float times
 *     1.0f / scale, and from them the saturated and underflow fractions,
 *     the MSE and the SQNR, summed in double in element order (lab2.h);
 *   - NAME_choice.npy: the rule in lab2.h's words, with its thresholds
 *     LAB2_MAX_UNDERFLOW and LAB2_MIN_SQNR_DB.
 * Counts, floats and fractions must match bit for bit; range_bits,
 * range_bits_pct and outlier_ratio to 1e-12 relative; mse and sqnr_db to
 * 1e-9 relative (+inf only meets +inf); the choice exactly. Every mismatch
 * is printed with its tensor and field.
 *
 *   build/tests/oracle_goldens_lab2 [DATA_DIR [CAPTURES]]
 *       (defaults data/golden/lab2 and DATA_DIR/../../captures)
 */
#include <cuda_fp8.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include <check.h>

#include "../../grading/lab2/data.h"
#include "../../labs/lab2/lab2.h"
#include "check_run.h"
#include "npy.h"
#include "nvidia.h"

namespace {

const char *dir = "data/golden/lab2";
std::string captures;

const char *const synthetic[LAB2_N_SYNTHETIC] = {LAB2_SYNTHETIC_NAMES};
const unsigned steps[LAB2_N_REAL_STEPS] = {LAB2_REAL_STEP_LIST};
const char *const kinds[3] = {LAB2_REAL_KIND_NAMES};
const char *const stat_fields[LAB2_STATS_LEN] = {LAB2_STATS_FIELDS};
const char *const cast_fields[LAB2_CAST_COLS] = {LAB2_CAST_FIELDS};
const char *const row_names[4] = {"E4M3 at the tensor scale", "E5M2 at the tensor scale",
                                  "E4M3 at the fixed scale", "E5M2 at the fixed scale"};
const __nv_fp8_interpretation_t interp[2] = {__NV_E4M3, __NV_E5M2};

const int n_tensors = LAB2_N_SYNTHETIC + LAB2_N_REAL;
const int values_per_tensor = LAB2_STATS_LEN + 4 * LAB2_CAST_COLS + 1;

/* The golden's name and the path of its input, for tensor t (0 .. 24). */
void tensor_names(int t, std::string *name, std::string *input)
{
    char buf[512];
    if (t < LAB2_N_SYNTHETIC) {
        snprintf(buf, sizeof buf, "syn_%s", synthetic[t]);
        *name = buf;
        *input = std::string(dir) + "/" + buf + "_x.npy";
        return;
    }
    int r = t - LAB2_N_SYNTHETIC;
    int s = r / 6, l = 1 + (r / 3) % 2, k = r % 3;
    snprintf(buf, sizeof buf, "step%05u_l%d_%s", steps[s], l, kinds[k]);
    *name = std::string("real_") + buf;
    *input = captures + "/capture_" + buf + ".npy";
}

float nv_decode(uint8_t code, int f)
{
    return half_to_float(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, interp[f]).x);
}

/* The largest finite value of each format, read off NVIDIA's decoder: the
 * decoded value of the saturating cast of FLT_MAX. */
float nv_max_finite(int f)
{
    return nv_decode(__nv_cvt_float_to_fp8(FLT_MAX, __NV_SATFINITE, interp[f]), f);
}

struct stats {
    double v[LAB2_STATS_LEN];
};

/* k = ceil(m * per_mille / 1000) in integers, at least 1; the k-th smallest. */
float nearest_rank(std::vector<float> &mag, unsigned per_mille)
{
    size_t m = mag.size();
    if (m == 0)
        return 0.0f;
    size_t num = m * per_mille, k = num / 1000 + (num % 1000 != 0);
    k = std::max<size_t>(k, 1);
    std::nth_element(mag.begin(), mag.begin() + (ptrdiff_t)(k - 1), mag.end());
    return mag[k - 1];
}

stats tensor_stats(const float *x, size_t n)
{
    size_t nan = 0, inf = 0, zeros = 0;
    float amax = 0.0f, min_nz = INFINITY;
    std::vector<float> mag;
    for (size_t i = 0; i < n; i++) {
        switch (fpclassify(x[i])) {
        case FP_NAN: nan++; break;
        case FP_INFINITE: inf++; break;
        case FP_ZERO: zeros++; break;
        default: {
            float a = fabsf(x[i]);
            mag.push_back(a);
            amax = a > amax ? a : amax;
            min_nz = a < min_nz ? a : min_nz;
        }
        }
    }
    size_t m = mag.size();
    stats s = {};
    s.v[0] = (double)n;
    s.v[1] = (double)nan;
    s.v[2] = (double)inf;
    s.v[3] = (double)zeros;
    s.v[4] = (double)m;
    if (m > 0) {
        float lo = nearest_rank(mag, LAB2_LO_PER_MILLE);
        float hi = nearest_rank(mag, LAB2_HI_PER_MILLE);
        s.v[5] = amax;
        s.v[6] = min_nz;
        s.v[7] = lo;
        s.v[8] = hi;
        s.v[9] = std::log2((double)amax / (double)min_nz);
        s.v[10] = std::log2((double)hi / (double)lo);
        s.v[11] = (double)amax / (double)hi;
    }
    return s;
}

void cast_row(const float *x, size_t n, int f, float scale, double *row)
{
    const float scale_inv = 1.0f / scale;
    size_t finite = 0, nonzero = 0, saturated = 0, underflow = 0;
    double signal = 0.0, noise = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!std::isfinite(x[i]))
            continue;
        finite++;
        const float y = x[i] * scale;
        const uint8_t q = __nv_cvt_float_to_fp8(y, __NV_SATFINITE, interp[f]);
        const uint8_t raw = __nv_cvt_float_to_fp8(y, __NV_NOSAT, interp[f]);
        const float dq = nv_decode(q, f);
        if (!std::isfinite(nv_decode(raw, f)))
            saturated++;
        if (x[i] != 0.0f) {
            nonzero++;
            if (dq == 0.0f)
                underflow++;
        }
        const float back = dq * scale_inv;
        const double err = (double)x[i] - (double)back;
        signal += (double)x[i] * (double)x[i];
        noise += err * err;
    }
    row[0] = f;
    row[1] = scale;
    row[2] = finite ? (double)saturated / (double)finite : 0.0;
    row[3] = nonzero ? (double)underflow / (double)nonzero : 0.0;
    row[4] = finite ? noise / (double)finite : 0.0;
    row[5] = noise == 0.0 ? INFINITY : 10.0 * std::log10(signal / noise);
}

float tensor_scale(float amax, int f)
{
    if (amax == 0.0f || !std::isfinite(amax))
        return 1.0f;
    float s = nv_max_finite(f) / amax;
    return std::isinf(s) ? FLT_MAX : s;
}

/* The rule, from lab2.h: a format is acceptable when its underflow is at
 * most LAB2_MAX_UNDERFLOW and its SQNR at least LAB2_MIN_SQNR_DB; E4M3 if
 * it is, else E5M2 if it is, else keep; E4M3 when nothing is nonzero. */
int recommend(double nonzero, const double *e4m3, const double *e5m2)
{
    auto ok = [](const double *r) {
        return r[3] <= LAB2_MAX_UNDERFLOW && r[5] >= LAB2_MIN_SQNR_DB;
    };
    if (nonzero == 0.0 || ok(e4m3))
        return LAB2_E4M3;
    return ok(e5m2) ? LAB2_E5M2 : LAB2_KEEP;
}

enum cmp { BITS, REL12, REL9 };

bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

bool matches(double want, double got, cmp how)
{
    if (how == BITS)
        return same_bits(want, got);
    if (want == got) /* equal infinities, equal zeros */
        return true;
    if (!std::isfinite(want) || !std::isfinite(got))
        return false; /* NaN meets nothing; +inf only +inf */
    double tol = how == REL12 ? 1e-12 : 1e-9;
    return fabs(want - got) <= tol * std::max(fabs(want), fabs(got));
}

int report(const std::string &name, const char *field, double want, double got, cmp how)
{
    if (matches(want, got, how))
        return 0;
    printf("%s %s: expected (recomputed) %.17g = %a, got (golden) %.17g = %a\n", name.c_str(),
           field, want, want, got, got);
    return 1;
}

void load(const std::string &path, npy_dtype dtype, int ndim, const size_t *shape,
          npy_array *out)
{
    lab_error err;
    ck_assert_msg(npy_load_expect(path.c_str(), dtype, ndim, shape, out, &err) == 0, "%s",
                  err.msg);
}

START_TEST(golden_recomputed)
{
    std::string name, input;
    tensor_names(_i, &name, &input);
    npy_array x, st, ca, ch;
    lab_error err;
    /* the inputs are float32 of any shape (the captures are 2-d) */
    ck_assert_msg(npy_load(input.c_str(), &x, &err) == 0, "%s", err.msg);
    ck_assert_msg(x.dtype == NPY_F32, "%s: %s, expected float32", input.c_str(),
                  npy_dtype_name(x.dtype));
    size_t sshape[1] = {LAB2_STATS_LEN}, cshape[2] = {4, LAB2_CAST_COLS}, one[1] = {1};
    load(std::string(dir) + "/" + name + "_stats.npy", NPY_F64, 1, sshape, &st);
    load(std::string(dir) + "/" + name + "_casts.npy", NPY_F64, 2, cshape, &ca);
    load(std::string(dir) + "/" + name + "_choice.npy", NPY_I32, 1, one, &ch);
    const float *xs = static_cast<const float *>(x.data);
    const double *gs = static_cast<const double *>(st.data);
    const double *gc = static_cast<const double *>(ca.data);
    const int32_t golden_choice = *static_cast<const int32_t *>(ch.data);

    int bad = 0;
    stats s = tensor_stats(xs, x.count);
    for (int j = 0; j < LAB2_STATS_LEN; j++) {
        cmp how = j >= 9 ? REL12 : BITS;
        bad += report(name, stat_fields[j], s.v[j], gs[j], how);
    }

    const bool gauss = name == "syn_gauss_w";
    const float fixed[2] = {gauss ? LAB2_FIXED_GAUSS_E4M3 : 1.0f,
                            gauss ? LAB2_FIXED_GAUSS_E5M2 : 1.0f};
    double rows[4][LAB2_CAST_COLS];
    for (int f = 0; f < 2; f++) {
        cast_row(xs, x.count, f, tensor_scale((float)s.v[5], f), rows[f]);
        cast_row(xs, x.count, f, fixed[f], rows[2 + f]);
    }
    for (int r = 0; r < 4; r++) {
        for (int j = 0; j < LAB2_CAST_COLS; j++) {
            char field[96];
            snprintf(field, sizeof field, "casts[%d] (%s) %s", r, row_names[r], cast_fields[j]);
            cmp how = j >= 4 ? REL9 : BITS;
            bad += report(name, field, rows[r][j], gc[r * LAB2_CAST_COLS + j], how);
        }
    }

    int choice = recommend(s.v[4], rows[0], rows[1]);
    if (choice != golden_choice) {
        printf("%s choice: golden %d (%s), recomputed %d (%s)\n", name.c_str(), golden_choice,
               lab2_choice_name((lab2_choice)golden_choice), choice,
               lab2_choice_name((lab2_choice)choice));
        bad++;
    }
    fflush(stdout);
    ck_assert_msg(bad == 0, "%s: %d of its %d goldens differ from the recomputation",
                  name.c_str(), bad, values_per_tensor);
    npy_free(&x);
    npy_free(&st);
    npy_free(&ca);
    npy_free(&ch);
}
END_TEST

/* The formats' largest values as NVIDIA's decoder gives them, and the
 * choice's codes in the golden (lab2.h's enum). */
START_TEST(constants)
{
    ck_assert_float_eq(nv_max_finite(0), 448.0f);
    ck_assert_float_eq(nv_max_finite(1), 57344.0f);
    ck_assert_int_eq(LAB2_E4M3, 0);
    ck_assert_int_eq(LAB2_E5M2, 1);
    ck_assert_int_eq(LAB2_KEEP, 2);
}
END_TEST

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    captures = argc > 2 ? argv[2] : std::string(dir) + "/../../captures";
    Suite *s = suite_create("lab2 goldens vs cuda_fp8.h");
    TCase *tc = tcase_create("nvidia");
    tcase_add_test(tc, constants);
    tcase_add_loop_test(tc, golden_recomputed, 0, n_tensors);
    suite_add_tcase(s, tc);
    int rc = check_run(s);
    printf("lab2 goldens: %d tensors (%d synthetic, %d real) x %d values (%d stats, 4x%d cast "
           "fields, the choice) = %d recomputed with cuda_fp8.h: %s\n",
           n_tensors, LAB2_N_SYNTHETIC, LAB2_N_REAL, values_per_tensor, LAB2_STATS_LEN,
           LAB2_CAST_COLS, n_tensors * values_per_tensor, rc == 0 ? "all match" : "MISMATCHES");
    return rc;
}
