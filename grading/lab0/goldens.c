/*
 * lab0/goldens.c - makes lab0's goldens from the reference solution
 * (`make goldens` links it with solutions/lab0/lab0.c):
 *
 *     lab0_goldens OUTDIR
 *
 * writes into OUTDIR:
 *   decode.npy                 float32 [2, 256]: lab0_decode of every code,
 *                              row 0 E4M3, row 1 E5M2
 *   encode_<set>_<fmt>_x.npy   float32 [n]: inputs
 *   encode_<set>_<fmt>_q.npy   uint8 [n, 2]: lab0_encode of each input,
 *                              saturating (column 0) and not (column 1)
 * for fmt in e4m3, e5m2 and the input sets below, chosen like a bit-level
 * lab's boundary windows:
 *   exact      every finite value of the format, both signs
 *   rne        between each two neighbouring normal values: the tie, the
 *              floats just either side of it, and the quarter points
 *   subnormal  the same between neighbouring values from 0 to the smallest
 *              normal, and tiny floats down to float's own subnormals
 *   overflow   the largest finite value, the tie above it, the overflow
 *              threshold's neighbours, far beyond, FLT_MAX, inf
 *   nan        NaNs of both signs with assorted payloads
 *   random     random float bit patterns, and random magnitudes spread
 *              evenly in log2 over the format's range
 *
 * The inputs are built with common/'s format table; the expected outputs
 * are the solution's alone. tests/lab0/ checks every expected output
 * against common/'s codec and NVIDIA's cuda_fp8.h, which is what makes
 * these goldens trustworthy.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "fp8.h"
#include "golden_io.h"
#include "lab0.h"
#include "npy.h"
#include "rng.h"

typedef struct floats {
    float *v;
    size_t n, cap;
} floats;

static void push(floats *a, float x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        if (!a->v) {
            fprintf(stderr, "lab0_goldens: out of memory\n");
            exit(1);
        }
    }
    a->v[a->n++] = x;
}

static void push_both_signs(floats *a, float x)
{
    push(a, x);
    push(a, -x);
}

/* The positive finite values of fmt, ascending, starting with 0. */
static floats positive_values(fp8_format fmt)
{
    floats p = {0};
    for (int c = 0; c < 0x80; c++) {
        float v = fp8_decode((uint8_t)c, fmt);
        if (isfinite(v))
            push(&p, v);
    }
    return p; /* codes ascend with value for a positive sign */
}

/* The tie between a and b, the floats either side of it, the quarter points. */
static void push_window(floats *a, float lo, float hi)
{
    float mid = lo + (hi - lo) / 2;
    push_both_signs(a, mid);
    push_both_signs(a, nextafterf(mid, 0));
    push_both_signs(a, nextafterf(mid, INFINITY));
    push_both_signs(a, lo + (hi - lo) / 4);
    push_both_signs(a, lo + 3 * (hi - lo) / 4);
}

static floats set_exact(fp8_format fmt)
{
    floats a = {0};
    for (int c = 0; c < 256; c++) {
        float v = fp8_decode((uint8_t)c, fmt);
        if (isfinite(v))
            push(&a, v);
    }
    return a;
}

static floats set_rne(fp8_format fmt)
{
    floats a = {0}, p = positive_values(fmt);
    float min_normal = fp8_info(fmt)->min_normal;
    for (size_t i = 0; i + 1 < p.n; i++)
        if (p.v[i] >= min_normal)
            push_window(&a, p.v[i], p.v[i + 1]);
    free(p.v);
    return a;
}

static floats set_subnormal(fp8_format fmt)
{
    floats a = {0}, p = positive_values(fmt);
    float min_normal = fp8_info(fmt)->min_normal;
    for (size_t i = 0; i + 1 < p.n && p.v[i + 1] <= min_normal; i++)
        push_window(&a, p.v[i], p.v[i + 1]);
    float min_sub = p.v[1];
    const float tiny[] = {min_sub / 4, min_sub / 8, 0x1p-30f, 1e-38f, 1e-40f, 0x1p-149f};
    for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++)
        push_both_signs(&a, tiny[i]);
    free(p.v);
    return a;
}

static floats set_overflow(fp8_format fmt)
{
    floats a = {0}, p = positive_values(fmt);
    float max = p.v[p.n - 1], ulp = max - p.v[p.n - 2];
    float tie = max + ulp / 2, next = max + ulp;
    const float xs[] = {max, nextafterf(max, INFINITY), tie, nextafterf(tie, 0),
                        nextafterf(tie, INFINITY), next, nextafterf(next, 0),
                        2 * max, 1e10f, FLT_MAX, INFINITY};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        push_both_signs(&a, xs[i]);
    free(p.v);
    return a;
}

static floats set_nan(rng_state *rng)
{
    floats a = {0};
    const uint32_t bits[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                             0x7fbfffffu, 0x7fffffffu, 0xffffffffu, 0x7fa00000u};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        push(&a, f32_from_bits(bits[i]));
    for (int i = 0; i < 8; i++) {
        uint32_t payload = 1 + rng_below(rng, 0x7fffff);
        push(&a, f32_from_bits((rng_u32(rng) & 0x80000000u) | 0x7f800000u | payload));
    }
    return a;
}

static floats set_random(fp8_format fmt, rng_state *rng)
{
    floats a = {0};
    const fp8_format_info *info = fp8_info(fmt);
    for (int i = 0; i < 1000; i++)
        push(&a, f32_from_bits(rng_u32(rng)));
    double lo = log2(info->min_subnormal) - 2, hi = log2(info->max_finite) + 1;
    for (int i = 0; i < 1000; i++) {
        float mag = (float)exp2(lo + (hi - lo) * rng_uniform(rng));
        push(&a, (rng_u32(rng) & 1) ? -mag : mag);
    }
    return a;
}

static int save_encode(const char *dir, const char *set, int k, floats *x)
{
    const lab0_format *f = k == 0 ? &LAB0_E4M3 : &LAB0_E5M2;
    const char *tag = k == 0 ? "e4m3" : "e5m2";
    uint8_t *q = malloc(2 * x->n);
    char name[128];
    int rc = -1;

    if (!q)
        goto out;
    for (size_t i = 0; i < x->n; i++) {
        q[2 * i] = lab0_encode(f, x->v[i], 1);
        q[2 * i + 1] = lab0_encode(f, x->v[i], 0);
    }
    size_t shape[2] = {x->n, 2};
    snprintf(name, sizeof name, "encode_%s_%s_x.npy", set, tag);
    if (golden_save(dir, name, NPY_F32, 1, shape, x->v) != 0)
        goto out;
    snprintf(name, sizeof name, "encode_%s_%s_q.npy", set, tag);
    rc = golden_save(dir, name, NPY_U8, 2, shape, q);
out:
    free(q);
    free(x->v);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    const fp8_format fmts[2] = {FP8_E4M3, FP8_E5M2};
    rng_state rng;
    rng_seed(&rng, 2026, 0); /* lab0's goldens; any fixed seed would do */

    float decoded[2][256];
    for (int c = 0; c < 256; c++) {
        decoded[0][c] = lab0_decode(&LAB0_E4M3, (uint8_t)c);
        decoded[1][c] = lab0_decode(&LAB0_E5M2, (uint8_t)c);
    }
    size_t shape[2] = {2, 256};
    printf("lab0 goldens in %s:\n", dir);
    if (golden_save(dir, "decode.npy", NPY_F32, 2, shape, decoded) != 0)
        return 1;

    for (int k = 0; k < 2; k++) {
        floats sets[6] = {set_exact(fmts[k]),    set_rne(fmts[k]),
                          set_subnormal(fmts[k]), set_overflow(fmts[k]),
                          set_nan(&rng),          set_random(fmts[k], &rng)};
        const char *names[6] = {"exact", "rne", "subnormal", "overflow", "nan", "random"};
        for (int s = 0; s < 6; s++)
            if (save_encode(dir, names[s], k, &sets[s]) != 0)
                return 1;
    }
    return 0;
}
