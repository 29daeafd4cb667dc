/*
 * lab2/goldens.c - makes lab2's goldens from the reference solution
 * (`make goldens` links it with solutions/lab2/lab2.c):
 *
 *     lab2_goldens OUTDIR [CAPTURES]
 *
 * writes the synthetic tensors (syn_<name>_x.npy) and, for them and for
 * the real tensors in CAPTURES (default OUTDIR/../../captures, that is
 * data/captures), the goldens grading/lab2/data.h describes: NAME_stats.npy,
 * NAME_casts.npy and NAME_choice.npy.
 *
 * The expected outputs are the solution's alone; tests/lab2/ checks them
 * against closed forms of the synthetic distributions and cases worked by
 * hand, and tests/oracle/goldens_lab2.cpp recomputes every one of them with
 * NVIDIA's conversions (cuda_fp8.h).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_io.h"
#include "lab2.h"
#include "data.h"
#include "rng.h"

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "lab2_goldens: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- the synthetic tensors ------------------------------------------------------ */

static float random_sign(rng_state *rng)
{
    return (rng_u32(rng) & 1) ? -1.0f : 1.0f;
}

static void make_gauss(rng_state *rng, float *x, size_t n)
{
    rng_fill_normal(rng, x, n, 0.0f, LAB2_GAUSS_SIGMA);
}

static void make_relu(rng_state *rng, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = rng_normal(rng);
        x[i] = v > 0.0f ? v : 0.0f;
        if ((double)rng_uniform(rng) < LAB2_OUTLIER_P)
            x[i] *= LAB2_OUTLIER_GAIN;
    }
}

/* Student-t: z / sqrt(chi2 / nu), chi2 the sum of nu squared normals. */
static void make_student_t(rng_state *rng, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double z = rng_normal(rng), chi2 = 0.0;
        for (int k = 0; k < LAB2_T_NU; k++) {
            double g = rng_normal(rng);
            chi2 += g * g;
        }
        x[i] = LAB2_T_SCALE * (float)(z / sqrt(chi2 / LAB2_T_NU));
    }
}

static void make_lognormal(rng_state *rng, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = random_sign(rng) * expf(LAB2_LOGN_SIGMA * rng_normal(rng));
}

static void make_wide(rng_state *rng, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = random_sign(rng) * exp2f(LAB2_WIDE_LO * rng_uniform(rng));
}

/* Every kind of element lab2's statistics treat apart, and the values
 * where a cast under scale 1 changes its mind (README §4). */
static const float SPECIAL[LAB2_SPECIAL_N] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0.0f, -0.0f,
    FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN, -0x1p-100f,
    0x1p-10f, -0x1p-10f, 0x1.000002p-10f, 0x1p-9f,             /* E4M3's underflow tie */
    0x1p-17f, -0x1p-17f, 0x1.000002p-17f, 0x1p-16f,            /* E5M2's */
    0x1p-7f, 0x1.8p-9f, 0.3f, -0.3f,
    1.0f, -1.0f, 2.0f, 3.0f, 0.1f, -7.0f, 100.0f, -250.0f,
    448.0f, -448.0f, 464.0f, 0x1.d00002p8f,                    /* E4M3's overflow tie */
    -480.0f, 1000.0f, 57344.0f, -57344.0f,
    61440.0f, 0x1.dffffep15f, -0x1.e00002p15f, 65536.0f,       /* E5M2's */
    1.0e6f, -3.0e5f, 12345.0f, 0.0625f,
};

static const float NONFINITE[8] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, -NAN, 0.0f, -0.0f};

/* ---- the goldens of one tensor ----------------------------------------------------- */

static int save_stats(const char *dir, const char *name, const lab2_stats *s)
{
    double v[LAB2_STATS_LEN] = {
        (double)s->n,       (double)s->nan,         (double)s->inf,
        (double)s->zeros,   (double)s->nonzero,     (double)s->amax,
        (double)s->min_nonzero, (double)s->p_lo,    (double)s->p_hi,
        s->range_bits,      s->range_bits_pct,      s->outlier_ratio,
    };
    char file[160];
    size_t shape[1] = {LAB2_STATS_LEN};
    snprintf(file, sizeof file, "%s_stats.npy", name);
    return golden_save(dir, file, NPY_F64, 1, shape, v);
}

static void cast_row(const lab2_cast *c, double *row)
{
    row[0] = c->fmt == FP8_E4M3 ? 0.0 : 1.0;
    row[1] = (double)c->scale;
    row[2] = c->saturated;
    row[3] = c->underflow;
    row[4] = c->mse;
    row[5] = c->sqnr_db;
}

/* The goldens of x[0 .. n-1]; fixed[0], fixed[1] are the fixed scales. */
static int tensor_goldens(const char *dir, const char *name, const float *x, size_t n,
                          const float fixed[2])
{
    lab2_stats s;
    if (lab2_tensor_stats(x, n, &s) != 0) {
        fprintf(stderr, "lab2_goldens: out of memory\n");
        return -1;
    }
    static const fp8_format F[2] = {FP8_E4M3, FP8_E5M2};
    lab2_cast c[4];
    for (int f = 0; f < 2; f++) {
        lab2_cast_stats(x, n, F[f], lab2_tensor_scale(s.amax, F[f]), &c[f]);
        lab2_cast_stats(x, n, F[f], fixed[f], &c[2 + f]);
    }
    double rows[4 * LAB2_CAST_COLS];
    for (int r = 0; r < 4; r++)
        cast_row(&c[r], rows + r * LAB2_CAST_COLS);
    char why[512];
    int32_t choice = (int32_t)lab2_recommend(&s, &c[0], &c[1], why, sizeof why);

    char file[160];
    size_t shape2[2] = {4, LAB2_CAST_COLS}, one[1] = {1};
    if (save_stats(dir, name, &s) != 0)
        return -1;
    snprintf(file, sizeof file, "%s_casts.npy", name);
    if (golden_save(dir, file, NPY_F64, 2, shape2, rows) != 0)
        return -1;
    snprintf(file, sizeof file, "%s_choice.npy", name);
    if (golden_save(dir, file, NPY_I32, 1, one, &choice) != 0)
        return -1;
    printf("    %s: %s, %s\n", name, lab2_choice_name((lab2_choice)choice), why);
    return 0;
}

static int synthetic(const char *dir)
{
    static const char *const names[LAB2_N_SYNTHETIC] = {LAB2_SYNTHETIC_NAMES};
    typedef void (*maker)(rng_state *, float *, size_t);
    static const maker makers[5] = {make_gauss, make_relu, make_student_t, make_lognormal,
                                    make_wide};
    float *x = xmalloc(LAB2_SYN_N * sizeof(float));
    int rc = 0;
    for (int k = 0; k < LAB2_N_SYNTHETIC && rc == 0; k++) {
        rng_state rng;
        rng_seed(&rng, LAB2_SEED, (uint64_t)k + 1);
        size_t n = LAB2_SYN_N;
        const float *data = x;
        if (k < 5)
            makers[k](&rng, x, n);
        else if (!strcmp(names[k], "special"))
            data = SPECIAL, n = LAB2_SPECIAL_N;
        else
            data = NONFINITE, n = 8;
        float fixed[2] = {1.0f, 1.0f};
        if (!strcmp(names[k], "gauss_w")) {
            fixed[0] = LAB2_FIXED_GAUSS_E4M3;
            fixed[1] = LAB2_FIXED_GAUSS_E5M2;
        }
        char file[160];
        size_t shape[1] = {n};
        snprintf(file, sizeof file, "syn_%s_x.npy", names[k]);
        rc = golden_save(dir, file, NPY_F32, 1, shape, data);
        snprintf(file, sizeof file, "syn_%s", names[k]);
        if (rc == 0)
            rc = tensor_goldens(dir, file, data, n, fixed);
    }
    free(x);
    return rc;
}

static int real(const char *dir, const char *captures)
{
    static const unsigned steps[LAB2_N_REAL_STEPS] = {LAB2_REAL_STEP_LIST};
    static const char *const kinds[3] = {LAB2_REAL_KIND_NAMES};
    const float fixed[2] = {1.0f, 1.0f};
    for (int s = 0; s < LAB2_N_REAL_STEPS; s++)
        for (int l = 1; l <= 2; l++)
            for (int k = 0; k < 3; k++) {
                char path[4096], name[160];
                snprintf(path, sizeof path, "%s/capture_step%05u_l%d_%s.npy", captures, steps[s],
                         l, kinds[k]);
                snprintf(name, sizeof name, "real_step%05u_l%d_%s", steps[s], l, kinds[k]);
                npy_array a;
                lab_error err = {{0}};
                if (npy_load(path, &a, &err) != 0 || a.dtype != NPY_F32) {
                    fprintf(stderr, "lab2_goldens: %s\n",
                            err.msg[0] ? err.msg : "a capture is not float32");
                    return -1;
                }
                int rc = tensor_goldens(dir, name, a.data, a.count, fixed);
                npy_free(&a);
                if (rc != 0)
                    return -1;
            }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: lab2_goldens OUTDIR [CAPTURES]\n");
        return 2;
    }
    char *captures = argc == 3 ? strdup(argv[2]) : malloc(strlen(argv[1]) + 32);
    if (!captures)
        return 1;
    if (argc == 2)
        sprintf(captures, "%s/../../captures", argv[1]);
    printf("lab2 goldens in %s:\n", argv[1]);
    int rc = synthetic(argv[1]) == 0 && real(argv[1], captures) == 0 ? 0 : 1;
    free(captures);
    return rc;
}
