/*
 * lab4/goldens.c - makes lab4's goldens from the reference solution
 * (`make goldens` links it with solutions/lab4/lab4.c):
 *
 *     lab4_goldens OUTDIR
 *
 * Shared scales:
 *   scale_amax.npy      float32 [n]          amaxes: powers of two and their
 *                                            neighbours, mantissas either side
 *                                            of each format's M, subnormals,
 *                                            FLT_MAX, random magnitudes
 *   scale_codes.npy     uint8 [n, 5, 2]      lab4_shared_scale for the five
 *                                            element formats (E4M3, E5M2,
 *                                            E3M2, E2M3, E2M1) and both rules
 * Matrices (row-major float32 inputs) and their MX quantization:
 *   mx_<set>_x.npy                     the input
 *   mx_<set>_<elem>_<rule>_b<B>_codes.npy  uint8 [rows, cols]
 *   mx_<set>_<elem>_<rule>_b<B>_scales.npy uint8 [rows, ceil(cols / B)]
 *   mx_<set>_<elem>_<rule>_b<B>_deq.npy    float32 [rows, cols], dequantized
 *   sets: main (16 x 256: rows 2^-8 .. 2^7 apart, with outliers), tail
 *   (8 x 70: blocks of 32, 32 and 6), special (4 x 64: a zero block, a NaN,
 *   an infinity, float subnormals)
 * Dot products and GEMM:
 *   dot_<set>_<elem>.npy   float32 [rows, rows]: lab4_mx_dot of row i with
 *                          row j of the floor-rule, block-32 quantization
 * NVFP4 of the main set:
 *   nvfp4_scale.npy        float32 [1]: the tensor scale of its amax
 *   nvfp4_codes.npy        uint8 [16, 256], nvfp4_scales.npy uint8 [16, 16],
 *   nvfp4_deq.npy          float32 [16, 256]
 *
 * The expected outputs are the solution's alone; tests/lab4/ checks them
 * against NVIDIA's E8M0 and element conversions (cuda_fp8.h, cuda_fp6.h,
 * cuda_fp4.h), closed forms and blocks worked by hand.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_io.h"
#include "lab4.h"
#include "rng.h"

static const fp8_format elems[5] = {FP8_E4M3, FP8_E5M2, FP8_E3M2, FP8_E2M3, FP8_E2M1};

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "lab4_goldens: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- scales ------------------------------------------------------------------ */

static size_t scale_inputs(float *a, rng_state *rng)
{
    size_t n = 0;
    for (int e = -149; e <= 127; e++) {
        float p = ldexpf(1.0f, e);
        a[n++] = p;
        a[n++] = nextafterf(p, INFINITY);
        if (e > -149)
            a[n++] = nextafterf(p, 0.0f);
    }
    /* Either side of each format's M (1.75, 1.875, 1.5) in a few binades. */
    const float ms[3] = {1.75f, 1.875f, 1.5f};
    for (int k = 0; k < 3; k++) {
        for (int e = -20; e <= 20; e += 5) {
            float v = ldexpf(ms[k], e);
            a[n++] = v;
            a[n++] = nextafterf(v, INFINITY);
            a[n++] = nextafterf(v, 0.0f);
        }
    }
    a[n++] = FLT_MAX;
    a[n++] = 485.0f;
    a[n++] = 448.0f;
    for (int i = 0; i < 400; i++)
        a[n++] = exp2f(-140.0f + 267.0f * rng_uniform(rng));
    return n;
}

/* ---- matrices ------------------------------------------------------------------ */

typedef struct matrix {
    const char *name;
    size_t rows, cols;
    float *x;
} matrix;

static matrix main_set(rng_state *rng)
{
    matrix m = {"main", 16, 256, NULL};
    m.x = xmalloc(m.rows * m.cols * sizeof(float));
    for (size_t r = 0; r < m.rows; r++) {
        float row_scale = ldexpf(1.0f, (int)r - 8);
        for (size_t c = 0; c < m.cols; c++) {
            float v = rng_normal(rng) * row_scale;
            if ((r * m.cols + c) % 97 == 5)
                v *= 50.0f; /* an outlier */
            m.x[r * m.cols + c] = v;
        }
    }
    return m;
}

static matrix tail_set(rng_state *rng)
{
    matrix m = {"tail", 8, 70, NULL};
    m.x = xmalloc(m.rows * m.cols * sizeof(float));
    for (size_t i = 0; i < m.rows * m.cols; i++)
        m.x[i] = rng_normal(rng) * 4.0f;
    /* The largest element of a row in its short last block, so that a
     * boundary off by one changes a scale. */
    for (size_t r = 0; r < m.rows; r++)
        m.x[r * m.cols + 64 + r % 6] = 300.0f + (float)r;
    return m;
}

static matrix special_set(rng_state *rng)
{
    matrix m = {"special", 4, 64, NULL};
    m.x = xmalloc(m.rows * m.cols * sizeof(float));
    for (size_t i = 0; i < m.rows * m.cols; i++)
        m.x[i] = rng_normal(rng);
    for (size_t c = 0; c < 32; c++) {
        m.x[0 * 64 + c] = (c % 2) ? -0.0f : 0.0f; /* an all-zero block */
        m.x[3 * 64 + c] = ldexpf(rng_normal(rng), -135); /* float subnormals */
    }
    m.x[1 * 64 + 7] = NAN;       /* a NaN in block 0 of row 1 */
    m.x[2 * 64 + 40] = -INFINITY; /* an infinity in block 1 of row 2 */
    return m;
}

static const char *rule_name(lab4_scale_rule rule)
{
    return rule == LAB4_SCALE_FLOOR ? "floor" : "ceil";
}

/* One quantization of m: codes, scales, and the dequantized matrix. */
static int save_mx(const char *dir, const matrix *m, fp8_format elem, lab4_scale_rule rule,
                   size_t block, uint8_t *codes_out, uint8_t *scales_out)
{
    size_t nb = (m->cols + block - 1) / block;
    uint8_t *codes = codes_out ? codes_out : xmalloc(m->rows * m->cols);
    uint8_t *scales = scales_out ? scales_out : xmalloc(m->rows * nb);
    float *deq = xmalloc(m->rows * m->cols * sizeof(float));
    lab4_mx_quantize(m->x, m->rows, m->cols, block, elem, rule, codes, scales);
    lab4_mx_dequantize(codes, scales, m->rows, m->cols, block, elem, deq);

    char name[160], stem[128];
    snprintf(stem, sizeof stem, "mx_%s_%s_%s_b%zu", m->name, fp8_info(elem)->name,
             rule_name(rule), block);
    size_t cshape[2] = {m->rows, m->cols}, sshape[2] = {m->rows, nb};
    int rc = -1;
    snprintf(name, sizeof name, "%s_codes.npy", stem);
    if (golden_save(dir, name, NPY_U8, 2, cshape, codes) != 0)
        goto out;
    snprintf(name, sizeof name, "%s_scales.npy", stem);
    if (golden_save(dir, name, NPY_U8, 2, sshape, scales) != 0)
        goto out;
    snprintf(name, sizeof name, "%s_deq.npy", stem);
    rc = golden_save(dir, name, NPY_F32, 2, cshape, deq);
out:
    if (!codes_out)
        free(codes);
    if (!scales_out)
        free(scales);
    free(deq);
    return rc;
}

/* dot_<set>_<elem>.npy: every row against every row, floor rule, block 32. */
static int save_dots(const char *dir, const matrix *m, fp8_format elem)
{
    size_t nb = (m->cols + 31) / 32;
    uint8_t *codes = xmalloc(m->rows * m->cols), *scales = xmalloc(m->rows * nb);
    float *dots = xmalloc(m->rows * m->rows * sizeof(float));
    lab4_mx_quantize(m->x, m->rows, m->cols, 32, elem, LAB4_SCALE_FLOOR, codes, scales);
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->rows; j++)
            dots[i * m->rows + j] = lab4_mx_dot(codes + i * m->cols, scales + i * nb,
                                                codes + j * m->cols, scales + j * nb, m->cols,
                                                32, elem);
    char name[128];
    snprintf(name, sizeof name, "dot_%s_%s.npy", m->name, fp8_info(elem)->name);
    size_t shape[2] = {m->rows, m->rows};
    int rc = golden_save(dir, name, NPY_F32, 2, shape, dots);
    free(codes);
    free(scales);
    free(dots);
    return rc;
}

static int save_matrix(const char *dir, const matrix *m)
{
    char name[128];
    size_t shape[2] = {m->rows, m->cols};
    snprintf(name, sizeof name, "mx_%s_x.npy", m->name);
    return golden_save(dir, name, NPY_F32, 2, shape, m->x);
}

static int save_nvfp4(const char *dir, const matrix *m)
{
    size_t nb = (m->cols + LAB4_NVFP4_BLOCK - 1) / LAB4_NVFP4_BLOCK;
    float amax = lab4_block_amax(m->x, m->rows * m->cols);
    float s = lab4_nvfp4_tensor_scale(amax);
    uint8_t *codes = xmalloc(m->rows * m->cols), *scales = xmalloc(m->rows * nb);
    float *deq = xmalloc(m->rows * m->cols * sizeof(float));
    lab4_nvfp4_quantize(m->x, m->rows, m->cols, s, codes, scales);
    lab4_nvfp4_dequantize(codes, scales, m->rows, m->cols, s, deq);
    size_t one = 1, cshape[2] = {m->rows, m->cols}, sshape[2] = {m->rows, nb};
    int rc = golden_save(dir, "nvfp4_scale.npy", NPY_F32, 1, &one, &s) != 0 ||
             golden_save(dir, "nvfp4_codes.npy", NPY_U8, 2, cshape, codes) != 0 ||
             golden_save(dir, "nvfp4_scales.npy", NPY_U8, 2, sshape, scales) != 0 ||
             golden_save(dir, "nvfp4_deq.npy", NPY_F32, 2, cshape, deq) != 0
                 ? -1
                 : 0;
    free(codes);
    free(scales);
    free(deq);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    rng_state rng;
    rng_seed(&rng, 2026, 4); /* lab4's goldens; any fixed seed would do */
    printf("lab4 goldens in %s:\n", dir);

    static float amax[2048];
    size_t n = scale_inputs(amax, &rng);
    uint8_t *codes = xmalloc(n * 10);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 5; k++)
            for (int r = 0; r < 2; r++)
                codes[i * 10 + (size_t)k * 2 + (size_t)r] =
                    lab4_shared_scale(amax[i], elems[k], (lab4_scale_rule)r);
    size_t shape3[3] = {n, 5, 2};
    if (golden_save(dir, "scale_amax.npy", NPY_F32, 1, &n, amax) != 0 ||
        golden_save(dir, "scale_codes.npy", NPY_U8, 3, shape3, codes) != 0)
        return 1;
    free(codes);

    matrix sets[3] = {main_set(&rng), tail_set(&rng), special_set(&rng)};
    for (int s = 0; s < 3; s++)
        if (save_matrix(dir, &sets[s]) != 0)
            return 1;

    /* main: every element format; E4M3 and E2M1 by both rules; E4M3 in
     * blocks of 16 too. tail: E4M3 both rules. special: E4M3 floor, E2M1 ceil. */
    int rc = 0;
    for (int k = 0; k < 5; k++)
        rc |= save_mx(dir, &sets[0], elems[k], LAB4_SCALE_FLOOR, 32, NULL, NULL);
    rc |= save_mx(dir, &sets[0], FP8_E4M3, LAB4_SCALE_CEIL, 32, NULL, NULL);
    rc |= save_mx(dir, &sets[0], FP8_E2M1, LAB4_SCALE_CEIL, 32, NULL, NULL);
    rc |= save_mx(dir, &sets[0], FP8_E4M3, LAB4_SCALE_FLOOR, 16, NULL, NULL);
    rc |= save_mx(dir, &sets[1], FP8_E4M3, LAB4_SCALE_FLOOR, 32, NULL, NULL);
    rc |= save_mx(dir, &sets[1], FP8_E4M3, LAB4_SCALE_CEIL, 32, NULL, NULL);
    rc |= save_mx(dir, &sets[2], FP8_E4M3, LAB4_SCALE_FLOOR, 32, NULL, NULL);
    rc |= save_mx(dir, &sets[2], FP8_E2M1, LAB4_SCALE_CEIL, 32, NULL, NULL);
    rc |= save_dots(dir, &sets[0], FP8_E4M3);
    rc |= save_dots(dir, &sets[0], FP8_E2M1);
    rc |= save_dots(dir, &sets[1], FP8_E4M3);
    rc |= save_nvfp4(dir, &sets[0]);
    for (int s = 0; s < 3; s++)
        free(sets[s].x);
    return rc ? 1 : 0;
}
