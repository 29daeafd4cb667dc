/*
 * lab4/suite.c - lab4's tests: the student's MX functions against the
 * goldens in data/golden/lab4, the E8M0 closed form, the element formats'
 * table and a block worked by hand (README §3). Points and sections are in
 * grading/lab4/rubric.c.
 *
 * Each quantization test compares every scale byte and every element code
 * of a golden matrix; the dequantize, dot and GEMM tests start from the
 * golden codes and scales, so a wrong quantizer costs only its own tests.
 * Where a test varies what the goldens hold fixed (block sizes 1 to 128;
 * m, n and k all different; a short NVFP4 block; another tensor scale), it
 * takes the codes, scales and expected outputs from the reference solution
 * linked into the judge, or from values worked by hand. tests/lab4/CONTRACT.md
 * lists every clause of lab4.h and the input here that exercises it.
 *
 * The goldens (made by grading/lab4/goldens.c from the reference solution)
 * and how they are checked independently: tests/lab4/.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab4.h"
#include "suite.h"

static const fp8_format elems[5] = {FP8_E4M3, FP8_E5M2, FP8_E3M2, FP8_E2M3, FP8_E2M1};
static const char *const rule_names[2] = {"LAB4_SCALE_FLOOR", "LAB4_SCALE_CEIL"};

/* The reference solution, linked in as ref_* (suite.h, gr_seed): the
 * expected outputs of the hidden inputs, and of the crafted inputs that
 * vary a parameter the goldens hold fixed (a block size, m != n != k, a
 * tensor scale, a short NVFP4 block). */
extern __typeof__(lab4_mx_quantize) ref_lab4_mx_quantize;
extern __typeof__(lab4_mx_dequantize) ref_lab4_mx_dequantize;
extern __typeof__(lab4_mx_dot) ref_lab4_mx_dot;
extern __typeof__(lab4_mx_gemm) ref_lab4_mx_gemm;
extern __typeof__(lab4_nvfp4_quantize) ref_lab4_nvfp4_quantize;
extern __typeof__(lab4_nvfp4_dequantize) ref_lab4_nvfp4_dequantize;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    ck_assert_msg(p != NULL, "out of memory");
    return p;
}

/* An E8M0 code as "0x7f (2^0)". */
static const char *e8m0_str(uint8_t s)
{
    static char ring[4][32];
    static int k;
    char *b = ring[k++ % 4];
    if (s == 0xFF)
        snprintf(b, 32, "0xff (NaN)");
    else
        snprintf(b, 32, "0x%02x (2^%d)", s, (int)s - 127);
    return b;
}

/* ---- §2 E8M0 -------------------------------------------------------------------- */

static void test_e8m0_decode(void)
{
    gr_mismatches m = {0};
    for (int c = 0; c < 256; c++) {
        float want = c == 0xFF ? NAN : ldexpf(1.0f, c - 127);
        float got = lab4_e8m0_decode((uint8_t)c);
        gr_expect(&m, stats_equal_exact(want, got),
                  "lab4_e8m0_decode(0x%02x)\n  expected %s\n  got      %s", (unsigned)c,
                  gr_f32(want), gr_f32(got));
    }
    gr_finish(&m, "codes");
}

/* ---- §3 the shared scale ----------------------------------------------------------- */

static void expect_amax(gr_mismatches *m, const float *x, size_t n, float want, const char *what)
{
    float got = lab4_block_amax(x, n);
    gr_expect(m, stats_equal_exact(want, got),
              "lab4_block_amax(%s)\n  expected %s\n  got      %s", what, gr_f32(want),
              gr_f32(got));
}

static void test_block_amax(void)
{
    gr_mismatches m = {0};
    const float a[] = {1.0f, -3.0f, 2.0f};
    expect_amax(&m, a, 3, 3.0f, "{1, -3, 2}");
    const float b[] = {1.0f, NAN, -3.0f};
    expect_amax(&m, b, 3, NAN, "{1, NaN, -3}");
    const float c[] = {-3.0f, 1.0f, NAN};
    expect_amax(&m, c, 3, NAN, "{-3, 1, NaN}");
    const float d[] = {1.0f, -INFINITY};
    expect_amax(&m, d, 2, INFINITY, "{1, -inf}");
    const float e[] = {-0.0f, 0.0f};
    expect_amax(&m, e, 2, 0.0f, "{-0, 0}");
    expect_amax(&m, a, 0, 0.0f, "n = 0");
    /* An infinity before a NaN: still NaN (lab4.h: NaN when any element
     * is NaN), not the INFINITY seen first. */
    const float f[] = {2.0f, INFINITY, -1.0f, NAN};
    expect_amax(&m, f, 4, NAN, "{2, inf, -1, NaN}");

    /* Every block of the main golden matrix. */
    npy_array x;
    size_t shape[2] = {16, 256};
    gr_golden("mx_main_x.npy", NPY_F32, 2, shape, &x);
    const float *v = x.data;
    char what[64];
    for (size_t blk = 0; blk < x.count / 32; blk++) {
        float want = 0.0f;
        for (size_t i = 0; i < 32; i++)
            want = fmaxf(want, fabsf(v[blk * 32 + i]));
        snprintf(what, sizeof what, "block %zu of mx_main_x.npy", blk);
        expect_amax(&m, v + blk * 32, 32, want, what);
    }
    npy_free(&x);
    gr_finish(&m, "amaxes");
}

static void test_elem_emax(void)
{
    /* The largest normal of each, OCP MX v1.0 (and OFP8): 448 = 1.75 x 2^8,
     * 57344 = 1.75 x 2^15, 28 = 1.75 x 2^4, 7.5 = 1.875 x 2^2, 6 = 1.5 x 2^2. */
    static const int want[5] = {8, 15, 4, 2, 2};
    gr_mismatches m = {0};
    for (int k = 0; k < 5; k++) {
        int got = lab4_elem_emax(elems[k]);
        gr_expect(&m, got == want[k], "lab4_elem_emax(%s)\n  expected %d\n  got      %d",
                  fp8_info(elems[k])->title, want[k], got);
    }
    gr_finish(&m, "formats");
}

static void expect_scale(gr_mismatches *m, float amax, int k, int rule, uint8_t want)
{
    uint8_t got = lab4_shared_scale(amax, elems[k], (lab4_scale_rule)rule);
    gr_expect(m, got == want, "lab4_shared_scale(%s, %s, %s)\n  expected %s\n  got      %s",
              gr_f32(amax), fp8_info(elems[k])->title, rule_names[rule], e8m0_str(want),
              e8m0_str(got));
}

static void check_scales(int rule)
{
    npy_array a, c;
    gr_golden("scale_amax.npy", NPY_F32, 1, NULL, &a);
    size_t shape[3] = {a.count, 5, 2};
    gr_golden("scale_codes.npy", NPY_U8, 3, shape, &c);
    const float *amax = a.data;
    const uint8_t *codes = c.data;
    gr_mismatches m = {0};
    for (size_t i = 0; i < a.count; i++)
        for (int k = 0; k < 5; k++)
            expect_scale(&m, amax[i], k, rule, codes[i * 10 + (size_t)k * 2 + (size_t)rule]);
    npy_free(&a);
    npy_free(&c);
    gr_finish(&m, "scales");
}

static void test_scale_floor(void) { check_scales(LAB4_SCALE_FLOOR); }
static void test_scale_ceil(void) { check_scales(LAB4_SCALE_CEIL); }

static void test_scale_special(void)
{
    gr_mismatches m = {0};
    for (int k = 0; k < 5; k++) {
        for (int r = 0; r < 2; r++) {
            expect_scale(&m, 0.0f, k, r, 0x00);
            expect_scale(&m, -0.0f, k, r, 0x00);
            expect_scale(&m, NAN, k, r, 0xFF);
            expect_scale(&m, INFINITY, k, r, 0xFF);
            expect_scale(&m, -INFINITY, k, r, 0xFF);
            expect_scale(&m, 0x1p-149f, k, r, 0x00); /* e far below -127 */
        }
    }
    /* FLT_MAX = (2 - 2^-23) x 2^127: floor e = 127 - 8; its mantissa is
     * above 1.75, so ceil adds one. */
    expect_scale(&m, FLT_MAX, 0, LAB4_SCALE_FLOOR, 127 + 119);
    expect_scale(&m, FLT_MAX, 0, LAB4_SCALE_CEIL, 127 + 120);
    expect_scale(&m, FLT_MAX, 4, LAB4_SCALE_CEIL, 127 + 126);
    gr_finish(&m, "scales");
}

/* ---- §5 quantizing ------------------------------------------------------------------ */

typedef struct mx_golden {
    npy_array x, codes, scales, deq;
    size_t rows, cols, nb;
} mx_golden;

static void mx_load(mx_golden *g, const char *set, fp8_format elem, int rule, size_t block)
{
    char name[160];
    snprintf(name, sizeof name, "mx_%s_x.npy", set);
    size_t xshape[2] = {0, 0};
    gr_golden(name, NPY_F32, 2, xshape, &g->x);
    g->rows = g->x.shape[0];
    g->cols = g->x.shape[1];
    g->nb = (g->cols + block - 1) / block;
    const char *stem_rule = rule == LAB4_SCALE_FLOOR ? "floor" : "ceil";
    size_t cshape[2] = {g->rows, g->cols}, sshape[2] = {g->rows, g->nb};
    snprintf(name, sizeof name, "mx_%s_%s_%s_b%zu_codes.npy", set, fp8_info(elem)->name,
             stem_rule, block);
    gr_golden(name, NPY_U8, 2, cshape, &g->codes);
    snprintf(name, sizeof name, "mx_%s_%s_%s_b%zu_scales.npy", set, fp8_info(elem)->name,
             stem_rule, block);
    gr_golden(name, NPY_U8, 2, sshape, &g->scales);
    snprintf(name, sizeof name, "mx_%s_%s_%s_b%zu_deq.npy", set, fp8_info(elem)->name,
             stem_rule, block);
    gr_golden(name, NPY_F32, 2, cshape, &g->deq);
}

static void mx_free(mx_golden *g)
{
    npy_free(&g->x);
    npy_free(&g->codes);
    npy_free(&g->scales);
    npy_free(&g->deq);
}

/* Every scale and code of a rows x cols quantization of x against want. */
static void compare_quantize(gr_mismatches *m, const char *call, const float *x, size_t rows,
                             size_t cols, size_t block, fp8_format elem, const uint8_t *wc,
                             const uint8_t *ws, const uint8_t *codes, const uint8_t *scales)
{
    size_t nb = (cols + block - 1) / block;
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < nb; j++) {
            size_t i = r * nb + j, first = j * block;
            size_t n = cols - first < block ? cols - first : block;
            gr_expect(m, ws[i] == scales[i],
                      "%s\n  scale of row %zu, block %zu (columns %zu..%zu)\n"
                      "  expected %s\n  got      %s",
                      call, r, j, first, first + n - 1, e8m0_str(ws[i]), e8m0_str(scales[i]));
        }
        for (size_t c = 0; c < cols; c++) {
            size_t i = r * cols + c;
            gr_expect(m, wc[i] == codes[i],
                      "%s\n  code of row %zu, column %zu: x = %s, block scale %s\n"
                      "  expected %s\n  got      %s",
                      call, r, c, gr_f32(x[i]), e8m0_str(ws[r * nb + c / block]),
                      gr_code(wc[i], elem), gr_code(codes[i], elem));
        }
    }
}

/* Quantizes a golden matrix and compares every scale and code. */
static void check_quantize(gr_mismatches *m, const char *set, fp8_format elem, int rule,
                           size_t block)
{
    mx_golden g;
    mx_load(&g, set, elem, rule, block);
    uint8_t *codes = xmalloc(g.rows * g.cols), *scales = xmalloc(g.rows * g.nb);
    memset(codes, 0xA5, g.rows * g.cols);
    memset(scales, 0xA5, g.rows * g.nb);
    lab4_mx_quantize(g.x.data, g.rows, g.cols, block, elem, (lab4_scale_rule)rule, codes,
                     scales);
    char call[256];
    snprintf(call, sizeof call, "lab4_mx_quantize(mx_%s_x.npy, %zu x %zu, block %zu, %s, %s)",
             set, g.rows, g.cols, block, fp8_info(elem)->title, rule_names[rule]);
    compare_quantize(m, call, g.x.data, g.rows, g.cols, block, elem, g.codes.data,
                     g.scales.data, codes, scales);
    free(codes);
    free(scales);
    mx_free(&g);
}

/* Quantizes x (rows x cols) with the reference solution and with the
 * student's, and compares every scale and code; `what` names x. */
static void check_quantize_ref(gr_mismatches *m, const char *what, const float *x, size_t rows,
                               size_t cols, size_t block, fp8_format elem, int rule)
{
    size_t nb = (cols + block - 1) / block;
    uint8_t *codes = xmalloc(rows * cols), *scales = xmalloc(rows * nb);
    uint8_t *wc = xmalloc(rows * cols), *ws = xmalloc(rows * nb);
    ref_lab4_mx_quantize(x, rows, cols, block, elem, (lab4_scale_rule)rule, wc, ws);
    memset(codes, 0xA5, rows * cols);
    memset(scales, 0xA5, rows * nb);
    lab4_mx_quantize(x, rows, cols, block, elem, (lab4_scale_rule)rule, codes, scales);
    char call[256];
    snprintf(call, sizeof call, "lab4_mx_quantize(%s, %zu x %zu, block %zu, %s, %s)", what, rows,
             cols, block, fp8_info(elem)->title, rule_names[rule]);
    compare_quantize(m, call, x, rows, cols, block, elem, wc, ws, codes, scales);
    free(codes), free(scales), free(wc), free(ws);
}

/* Hidden inputs (./grader --seed): a matrix drawn from the seed, of the
 * same kind as the public main matrix (rows of magnitudes around 2^-30 to
 * 2^30, whole blocks of 32, no special values), quantized to MXFP8 E4M3
 * under both rules; every scale and code against the reference. It holds
 * no NaN, infinity or short block on purpose: those are the public crafted
 * matrices' job (quantize_tail, quantize_special_blocks), and a slip there
 * must cost the same tests whatever the seed (tests/lab4/TRAPS.md). */
static void check_quantize_hidden(gr_mismatches *m)
{
    rng_state rng;
    if (!gr_hidden_rng(&rng, 4))
        return;
    size_t rows = 4 + rng_below(&rng, 12), block = 32;
    size_t cols = block * (2 + rng_below(&rng, 7));
    size_t nb = cols / block;
    float *x = xmalloc(rows * cols * sizeof(float));
    for (size_t r = 0; r < rows; r++) {
        int e = (int)rng_below(&rng, 61) - 30;
        for (size_t c = 0; c < cols; c++)
            x[r * cols + c] = ldexpf(rng_normal(&rng), e + (int)rng_below(&rng, 9) - 4);
    }
    uint8_t *codes = xmalloc(rows * cols), *scales = xmalloc(rows * nb);
    uint8_t *wc = xmalloc(rows * cols), *ws = xmalloc(rows * nb);
    for (int rule = 0; rule < 2; rule++) {
        ref_lab4_mx_quantize(x, rows, cols, block, FP8_E4M3, (lab4_scale_rule)rule, wc, ws);
        memset(codes, 0xA5, rows * cols);
        memset(scales, 0xA5, rows * nb);
        lab4_mx_quantize(x, rows, cols, block, FP8_E4M3, (lab4_scale_rule)rule, codes, scales);
        char call[256];
        snprintf(call, sizeof call, "lab4_mx_quantize(hidden matrix, %zu x %zu, block %zu, %s, "
                 "%s)", rows, cols, block, fp8_info(FP8_E4M3)->title, rule_names[rule]);
        compare_quantize(m, call, x, rows, cols, block, FP8_E4M3, wc, ws, codes, scales);
    }
    free(x), free(codes), free(scales), free(wc), free(ws);
}

static void test_quantize_e4m3(void)
{
    gr_mismatches m = {0};
    check_quantize(&m, "main", FP8_E4M3, LAB4_SCALE_FLOOR, 32);
    check_quantize(&m, "main", FP8_E4M3, LAB4_SCALE_CEIL, 32);
    check_quantize_hidden(&m);
    gr_finish(&m, "bytes");
}

static void test_quantize_e5m2(void)
{
    gr_mismatches m = {0};
    check_quantize(&m, "main", FP8_E5M2, LAB4_SCALE_FLOOR, 32);
    gr_finish(&m, "bytes");
}

static void test_quantize_fp6(void)
{
    gr_mismatches m = {0};
    check_quantize(&m, "main", FP8_E3M2, LAB4_SCALE_FLOOR, 32);
    check_quantize(&m, "main", FP8_E2M3, LAB4_SCALE_FLOOR, 32);
    gr_finish(&m, "bytes");
}

static void test_quantize_fp4(void)
{
    gr_mismatches m = {0};
    check_quantize(&m, "main", FP8_E2M1, LAB4_SCALE_FLOOR, 32);
    check_quantize(&m, "main", FP8_E2M1, LAB4_SCALE_CEIL, 32);
    gr_finish(&m, "bytes");
}

/*
 * A short last block whose row ends below the next row's start: 3 x 40 in
 * blocks of 32 and 8, E4M3, floor. Columns 0..31 are +-64 = 2^6: scale
 * 2^(6 - 8) (0x7d), codes +-256 (0x78, 0xf8). Columns 32..39 are +-0.5 =
 * 2^-1: scale 2^-9 (0x76), codes +-256 again. An amax taken over 32
 * elements from column 32 reads 24 of the next row's 64s (rows 0 and 1):
 * scale 0x7d, and +-0.5 / 2^-2 = +-2 (0x40, 0xc0).
 */
static void check_quantize_past_tail(gr_mismatches *m)
{
    float x[3 * 40];
    for (size_t i = 0; i < 3 * 40; i++)
        x[i] = (i % 40 < 32 ? 64.0f : 0.5f) * (i % 2 ? -1.0f : 1.0f);
    check_quantize_ref(m, "the crafted +-64, +-0.5 matrix of grading/lab4/suite.c", x, 3, 40, 32,
                       FP8_E4M3, LAB4_SCALE_FLOOR);
}

/*
 * Empty matrices (lab4.h: rows x cols, either of them 0): no block, so
 * nothing written. x goes to the subject as a block of 0 floats, and codes
 * and scales as outputs of rows x cols and rows x nb bytes, 0 here: a byte
 * written to either is past its end and fails the test. Three rows of no
 * column have nb = 0 blocks each; a block count taken as
 * (cols - 1) / block + 1 wraps there, and the quantizer writes a scale.
 */
static const size_t EMPTY_SHAPES[3][2] = {{0, 40}, {3, 0}, {0, 0}};

static void check_quantize_empty(void)
{
    float x[1] = {1.0f};
    uint8_t codes[1], scales[1];
    for (int k = 0; k < 3; k++)
        lab4_mx_quantize(x, EMPTY_SHAPES[k][0], EMPTY_SHAPES[k][1], 32, FP8_E4M3,
                         LAB4_SCALE_FLOOR, codes, scales);
}

static void test_quantize_tail(void)
{
    gr_mismatches m = {0};
    check_quantize(&m, "tail", FP8_E4M3, LAB4_SCALE_FLOOR, 32);
    check_quantize(&m, "tail", FP8_E4M3, LAB4_SCALE_CEIL, 32);
    check_quantize(&m, "main", FP8_E4M3, LAB4_SCALE_FLOOR, 16);
    /* The ends of block's range: 1 (a scale per element) and more than
     * cols (one short block per row, 70 of 128). */
    npy_array t;
    size_t shape[2] = {8, 70};
    gr_golden("mx_tail_x.npy", NPY_F32, 2, shape, &t);
    check_quantize_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 1, FP8_E4M3, LAB4_SCALE_FLOOR);
    check_quantize_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 128, FP8_E4M3, LAB4_SCALE_CEIL);
    npy_free(&t);
    check_quantize_past_tail(&m);
    check_quantize_empty();
    gr_finish(&m, "bytes");
}

static void test_quantize_special_blocks(void)
{
    gr_mismatches m = {0};
    check_quantize(&m, "special", FP8_E4M3, LAB4_SCALE_FLOOR, 32);
    check_quantize(&m, "special", FP8_E2M1, LAB4_SCALE_CEIL, 32);
    gr_finish(&m, "bytes");
}

/*
 * The handout's block (README §3), worked by hand: E4M3, amax 485 =
 * 1.89 x 2^8. Floor: X = 2^(8 - 8) = 1; 485 and 475 clamp to 448, -450
 * rounds to -448, and 400 is the tie between 384 and 416 and goes to the
 * even 384. Ceil: 1.89 >
 * 1.75, so X = 2; 242.5 and 237.5 round to 240 (480), 200 ties to 192 (384),
 * -225 to -224 (-448), and 2^-6 / 2 = 2^-7 is an E4M3 subnormal.
 */
static void test_hand_block(void)
{
    float x[32] = {485.0f, 475.0f, 400.0f, -485.0f, -475.0f, -450.0f, 0x1p-6f, -0x1p-6f};
    static const float want[2][8] = {
        {448.0f, 448.0f, 384.0f, -448.0f, -448.0f, -448.0f, 0x1p-6f, -0x1p-6f},
        {480.0f, 480.0f, 384.0f, -480.0f, -480.0f, -448.0f, 0x1p-6f, -0x1p-6f},
    };
    static const uint8_t want_scale[2] = {0x7F, 0x80};
    gr_mismatches m = {0};
    for (int rule = 0; rule < 2; rule++) {
        uint8_t codes[32], scale = 0xA5;
        memset(codes, 0xA5, sizeof codes);
        lab4_mx_quantize(x, 1, 32, 32, FP8_E4M3, (lab4_scale_rule)rule, codes, &scale);
        const char *call = rule == 0 ? "the handout's block, LAB4_SCALE_FLOOR"
                                     : "the handout's block, LAB4_SCALE_CEIL";
        gr_expect(&m, scale == want_scale[rule], "%s\n  scale: expected %s\n  got %s", call,
                  e8m0_str(want_scale[rule]), e8m0_str(scale));
        float sv = ldexpf(1.0f, (int)want_scale[rule] - 127);
        for (int i = 0; i < 32; i++) {
            float w = i < 8 ? want[rule][i] : 0.0f;
            float got = fp8_decode(codes[i], FP8_E4M3) * sv;
            gr_expect(&m, stats_equal_exact(w, got),
                      "%s\n  element %d, x = %s: expected the value %s\n"
                      "  got code %s, times the scale %s",
                      call, i, gr_f32(x[i]), gr_f32(w), gr_code(codes[i], FP8_E4M3),
                      gr_f32(got));
        }
    }
    gr_finish(&m, "checks");
}

/* ---- dequantize, dot, GEMM ------------------------------------------------------------ */

/* lab4_mx_dequantize of codes and scales (rows x cols in blocks of `block`)
 * against want; `what` names them. */
static void compare_dequantize(gr_mismatches *m, const char *what, const uint8_t *codes,
                               const uint8_t *scales, size_t rows, size_t cols, size_t block,
                               fp8_format elem, const float *want)
{
    size_t nb = (cols + block - 1) / block;
    float *out = xmalloc(rows * cols * sizeof(float));
    memset(out, 0xA5, rows * cols * sizeof(float));
    lab4_mx_dequantize(codes, scales, rows, cols, block, elem, out);
    for (size_t i = 0; i < rows * cols; i++) {
        size_t r = i / cols, c = i % cols;
        gr_expect(m, stats_equal_exact(want[i], out[i]),
                  "lab4_mx_dequantize(%s, %zu x %zu, block %zu, %s)\n"
                  "  row %zu, column %zu: code %s, block scale %s\n"
                  "  expected %s\n  got      %s",
                  what, rows, cols, block, fp8_info(elem)->title, r, c, gr_code(codes[i], elem),
                  e8m0_str(scales[r * nb + c / block]), gr_f32(want[i]), gr_f32(out[i]));
    }
    free(out);
}

static void check_dequantize(gr_mismatches *m, const char *set, fp8_format elem, int rule,
                             size_t block)
{
    mx_golden g;
    mx_load(&g, set, elem, rule, block);
    char what[128];
    snprintf(what, sizeof what, "mx_%s_%s_%s_b%zu codes and scales", set, fp8_info(elem)->name,
             rule == 0 ? "floor" : "ceil", block);
    compare_dequantize(m, what, g.codes.data, g.scales.data, g.rows, g.cols, block, elem,
                       g.deq.data);
    mx_free(&g);
}

/* The reference's quantization of x, dequantized by the reference and by
 * the student's. */
static void check_dequantize_ref(gr_mismatches *m, const char *what, const float *x, size_t rows,
                                 size_t cols, size_t block, fp8_format elem, int rule)
{
    size_t nb = (cols + block - 1) / block;
    uint8_t *codes = xmalloc(rows * cols), *scales = xmalloc(rows * nb);
    float *want = xmalloc(rows * cols * sizeof(float));
    ref_lab4_mx_quantize(x, rows, cols, block, elem, (lab4_scale_rule)rule, codes, scales);
    ref_lab4_mx_dequantize(codes, scales, rows, cols, block, elem, want);
    char name[160];
    snprintf(name, sizeof name, "the %s quantization of %s", rule_names[rule], what);
    compare_dequantize(m, name, codes, scales, rows, cols, block, elem, want);
    free(codes), free(scales), free(want);
}

/* Empty matrices, as check_quantize_empty: out is an output of 0 floats,
 * and a loop over the columns while c <= cols - 1 wraps at cols = 0. */
static void check_dequantize_empty(void)
{
    uint8_t codes[1] = {0x38}, scales[1] = {0x7F};
    float out[1];
    for (int k = 0; k < 3; k++)
        lab4_mx_dequantize(codes, scales, EMPTY_SHAPES[k][0], EMPTY_SHAPES[k][1], 32, FP8_E4M3,
                           out);
}

static void test_dequantize(void)
{
    gr_mismatches m = {0};
    check_dequantize(&m, "main", FP8_E4M3, LAB4_SCALE_FLOOR, 32);
    check_dequantize(&m, "main", FP8_E3M2, LAB4_SCALE_FLOOR, 32);
    check_dequantize(&m, "main", FP8_E2M1, LAB4_SCALE_CEIL, 32);
    check_dequantize(&m, "tail", FP8_E4M3, LAB4_SCALE_CEIL, 32);
    check_dequantize(&m, "special", FP8_E4M3, LAB4_SCALE_FLOOR, 32);
    check_dequantize(&m, "main", FP8_E4M3, LAB4_SCALE_FLOOR, 16);
    /* The ends of block's range, and the other two formats. */
    npy_array t;
    size_t shape[2] = {8, 70};
    gr_golden("mx_tail_x.npy", NPY_F32, 2, shape, &t);
    check_dequantize_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 1, FP8_E5M2, LAB4_SCALE_FLOOR);
    check_dequantize_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 128, FP8_E2M3, LAB4_SCALE_CEIL);
    npy_free(&t);
    check_dequantize_empty();
    gr_finish(&m, "values");
}

/* Rows i0 .. i0 + m - 1 of a golden quantization (floor, blocks of 32) as A
 * and rows j0 .. j0 + n - 1 as B, by lab4_mx_dot (use_gemm 0) or as one
 * lab4_mx_gemm with those rows as bt (1), against dot_<set>_<elem>.npy, the
 * dot product of every row with every row. */
static void check_dots(gr_mismatches *mm, const char *set, fp8_format elem, int use_gemm,
                       size_t i0, size_t m, size_t j0, size_t n)
{
    mx_golden g;
    mx_load(&g, set, elem, LAB4_SCALE_FLOOR, 32);
    npy_array want;
    char name[96];
    snprintf(name, sizeof name, "dot_%s_%s.npy", set, fp8_info(elem)->name);
    size_t shape[2] = {g.rows, g.rows};
    gr_golden(name, NPY_F32, 2, shape, &want);
    ck_assert(i0 + m <= g.rows && j0 + n <= g.rows);
    const uint8_t *codes = g.codes.data, *scales = g.scales.data;
    const uint8_t *a = codes + i0 * g.cols, *sa = scales + i0 * g.nb;
    const uint8_t *b = codes + j0 * g.cols, *sb = scales + j0 * g.nb;
    float *got = xmalloc(m * n * sizeof(float));
    memset(got, 0xA5, m * n * sizeof(float));
    if (use_gemm)
        lab4_mx_gemm(a, sa, b, sb, m, n, g.cols, 32, elem, got);
    else
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                got[i * n + j] = lab4_mx_dot(a + i * g.cols, sa + i * g.nb, b + j * g.cols,
                                             sb + j * g.nb, g.cols, 32, elem);
    const float *w = want.data;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float wij = w[(i0 + i) * g.rows + j0 + j];
            if (use_gemm)
                gr_expect(mm, stats_equal_exact(wij, got[i * n + j]),
                          "lab4_mx_gemm(A = rows %zu..%zu of mx_%s_%s_floor_b32, bt = rows "
                          "%zu..%zu: m = %zu, n = %zu, k = %zu)\n  c[%zu * %zu + %zu]\n"
                          "  expected %s\n  got      %s",
                          i0, i0 + m - 1, set, fp8_info(elem)->name, j0, j0 + n - 1, m, n,
                          g.cols, i, n, j, gr_f32(wij), gr_f32(got[i * n + j]));
            else
                gr_expect(mm, stats_equal_exact(wij, got[i * n + j]),
                          "lab4_mx_dot of mx_%s_%s_floor_b32: rows %zu and %zu (%zu elements)\n"
                          "  expected %s\n  got      %s",
                          set, fp8_info(elem)->name, i0 + i, j0 + j, g.cols, gr_f32(wij),
                          gr_f32(got[i * n + j]));
        }
    free(got);
    npy_free(&want);
    mx_free(&g);
}

/* As check_dots, on the reference's quantization of x (rows x cols) in
 * blocks of `block`, against the reference's dot products. */
static void check_products_ref(gr_mismatches *mm, const char *what, const float *x, size_t rows,
                               size_t cols, size_t block, fp8_format elem, int rule,
                               int use_gemm, size_t i0, size_t m, size_t j0, size_t n)
{
    size_t nb = (cols + block - 1) / block;
    ck_assert(i0 + m <= rows && j0 + n <= rows);
    uint8_t *codes = xmalloc(rows * cols), *scales = xmalloc(rows * nb);
    ref_lab4_mx_quantize(x, rows, cols, block, elem, (lab4_scale_rule)rule, codes, scales);
    const uint8_t *a = codes + i0 * cols, *sa = scales + i0 * nb;
    const uint8_t *b = codes + j0 * cols, *sb = scales + j0 * nb;
    float *want = xmalloc(m * n * sizeof(float)), *got = xmalloc(m * n * sizeof(float));
    ref_lab4_mx_gemm(a, sa, b, sb, m, n, cols, block, elem, want);
    memset(got, 0xA5, m * n * sizeof(float));
    if (use_gemm)
        lab4_mx_gemm(a, sa, b, sb, m, n, cols, block, elem, got);
    else
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                got[i * n + j] = lab4_mx_dot(a + i * cols, sa + i * nb, b + j * cols,
                                             sb + j * nb, cols, block, elem);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float w = want[i * n + j], v = got[i * n + j];
            if (use_gemm)
                gr_expect(mm, stats_equal_exact(w, v),
                          "lab4_mx_gemm(A = rows %zu..%zu, bt = rows %zu..%zu of the %s %s "
                          "quantization of %s in blocks of %zu: m = %zu, n = %zu, k = %zu)\n"
                          "  c[%zu * %zu + %zu]\n  expected %s\n  got      %s",
                          i0, i0 + m - 1, j0, j0 + n - 1, fp8_info(elem)->title,
                          rule_names[rule], what, block, m, n, cols, i, n, j, gr_f32(w),
                          gr_f32(v));
            else
                gr_expect(mm, stats_equal_exact(w, v),
                          "lab4_mx_dot of the %s %s quantization of %s in blocks of %zu: rows "
                          "%zu and %zu (%zu elements)\n  expected %s\n  got      %s",
                          fp8_info(elem)->title, rule_names[rule], what, block, i0 + i, j0 + j,
                          cols, gr_f32(w), gr_f32(v));
        }
    free(codes), free(scales), free(want), free(got);
}

/*
 * Crafted dot products, worked by hand. Each pair is one block of 4, its
 * first elements a0 and b0, the rest zeros, so part = a0 * b0 exactly.
 * At the ends of E8M0's range, ldexpf(part, ea + eb) (lab4.h) is the only
 * way of applying the scales that stays exact:
 *   E4M3 0.5 x 0.5 = 2^-2, scales 2^127 and 2^1: 2^126. 2^128 itself is no
 *     float, so part * 2^(ea + eb) is inf.
 *   E4M3 2 x 2 = 2^2, scales 2^127 and 2^-10, both ways round: 2^119.
 *     part * 2^127, one scale at a time, overflows to inf first.
 *   E4M3 32 x 32 = 2^10, scales 2^-127 and 2^-30: 2^-147, a float
 *     subnormal. 2^-157 is below the smallest float, 2^-149: 0.
 *   E5M2 2^-16 x 2^-16 = 2^-32, scales 2^-127 and 2^127, both ways round:
 *     2^-32. 2^-32 * 2^-127, one scale at a time, is 0.
 * And the handout's order (README §6): a = [448, 2^-6 x 31], b = [448,
 * 0.5 x 31], scales 2^0, one block of 32: 448 * 448 = 200704 comes first,
 * and each 2^-7 that follows is a tie at 200704 (a float's step there is
 * 2^-6) that goes back to the even 200704; the small products added first
 * would give 200704.25.
 */
static void check_dot_crafted(gr_mismatches *mm)
{
    static const struct {
        fp8_format elem;
        float a0, b0;
        uint8_t sa, sb;
        float want;
    } t[] = {
        {FP8_E4M3, 0.5f, 0.5f, 0xFE, 0x80, 0x1p126f},
        {FP8_E4M3, 2.0f, 2.0f, 0xFE, 0x75, 0x1p119f},
        {FP8_E4M3, 2.0f, 2.0f, 0x75, 0xFE, 0x1p119f},
        {FP8_E4M3, 32.0f, 32.0f, 0x00, 0x61, 0x1p-147f},
        {FP8_E5M2, 0x1p-16f, 0x1p-16f, 0x00, 0xFE, 0x1p-32f},
        {FP8_E5M2, 0x1p-16f, 0x1p-16f, 0xFE, 0x00, 0x1p-32f},
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        uint8_t a[4] = {fp8_encode(t[k].a0, t[k].elem, true)};
        uint8_t b[4] = {fp8_encode(t[k].b0, t[k].elem, true)};
        float got = lab4_mx_dot(a, &t[k].sa, b, &t[k].sb, 4, 4, t[k].elem);
        gr_expect(mm, stats_equal_exact(t[k].want, got),
                  "lab4_mx_dot(a = {%s, 0, 0, 0}, scale %s; b = {%s, 0, 0, 0}, scale %s; n = 4, "
                  "block 4, %s)\n  expected %s\n  got      %s",
                  gr_f32(t[k].a0), e8m0_str(t[k].sa), gr_f32(t[k].b0), e8m0_str(t[k].sb),
                  fp8_info(t[k].elem)->title, gr_f32(t[k].want), gr_f32(got));
    }
    uint8_t a[32], b[32], s = 0x7F;
    for (size_t i = 0; i < 32; i++) {
        a[i] = fp8_encode(i ? 0x1p-6f : 448.0f, FP8_E4M3, true);
        b[i] = fp8_encode(i ? 0.5f : 448.0f, FP8_E4M3, true);
    }
    float got = lab4_mx_dot(a, &s, b, &s, 32, 32, FP8_E4M3);
    gr_expect(mm, stats_equal_exact(200704.0f, got),
              "lab4_mx_dot(a = [448, 2^-6 x 31], b = [448, 0.5 x 31], scales 2^0, block 32, "
              "E4M3): the handout's order (README §6)\n  expected %s\n  got      %s",
              gr_f32(200704.0f), gr_f32(got));
}

static void test_dot(void)
{
    gr_mismatches m = {0};
    check_dots(&m, "main", FP8_E4M3, 0, 0, 16, 0, 16);
    check_dots(&m, "main", FP8_E2M1, 0, 0, 16, 0, 16);
    check_dots(&m, "tail", FP8_E4M3, 0, 0, 8, 0, 8);
    /* Other block sizes: 16 (70 = 4 x 16 + 6), and the ends of the range,
     * 1 and more than n. */
    npy_array t;
    size_t shape[2] = {8, 70};
    gr_golden("mx_tail_x.npy", NPY_F32, 2, shape, &t);
    check_products_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 16, FP8_E4M3, LAB4_SCALE_FLOOR, 0, 0,
                       3, 2, 3);
    check_products_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 1, FP8_E2M3, LAB4_SCALE_CEIL, 0, 0, 2,
                       5, 2);
    check_products_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 128, FP8_E5M2, LAB4_SCALE_FLOOR, 0, 6,
                       2, 1, 2);
    npy_free(&t);
    check_dot_crafted(&m);
    /* A NaN block scale on either side makes the product NaN. */
    uint8_t a[64] = {0x38}, s[2] = {0x7F, 0xFF}, sn[2] = {0x7F, 0x7F};
    float got = lab4_mx_dot(a, s, a, sn, 64, 32, FP8_E4M3);
    gr_expect(&m, isnan(got), "lab4_mx_dot with block scales {0x7f, 0xff} and {0x7f, 0x7f}\n"
              "  expected NaN\n  got      %s", gr_f32(got));
    got = lab4_mx_dot(a, sn, a, s, 64, 32, FP8_E4M3);
    gr_expect(&m, isnan(got), "lab4_mx_dot with block scales {0x7f, 0x7f} and {0x7f, 0xff}\n"
              "  expected NaN\n  got      %s", gr_f32(got));
    /* n = 0 (lab4.h: n elements, from 0): no block, so acc stays 0.0f.
     * The four arrays go to the subject as blocks of 0 bytes; a block
     * count taken as (n - 1) / block + 1 wraps and reads scales past them. */
    got = lab4_mx_dot(a, sn, a, sn, 0, 32, FP8_E4M3);
    gr_expect(&m, stats_equal_exact(0.0f, got), "lab4_mx_dot(n = 0, block 32, E4M3): no block\n"
              "  expected %s\n  got      %s", gr_f32(0.0f), gr_f32(got));
    gr_finish(&m, "products");
}

/* m, n and k all different, and m < n, so that a row stride of m, or C
 * written column by column, lands on the wrong elements of C (inside it);
 * A and B different rows, so that C is not symmetric. */
/*
 * Empty products (lab4.h: m, n and k from 0). k = 0: every element of C is
 * the dot product of no element, +0.0f, so all six of a 2 x 3 C are
 * written. m = 0 or n = 0: C has no element, and goes to the subject as
 * an output of 0 bytes (a write to it fails the test).
 */
static void check_gemm_empty(gr_mismatches *mm)
{
    uint8_t a[3 * 70] = {0x38}, s[3 * 3] = {0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F};
    float c[6];
    memset(c, 0xA5, sizeof c);
    lab4_mx_gemm(a, s, a, s, 2, 3, 0, 32, FP8_E4M3, c);
    for (size_t i = 0; i < 6; i++)
        gr_expect(mm, stats_equal_exact(0.0f, c[i]),
                  "lab4_mx_gemm(m = 2, n = 3, k = 0, block 32, E4M3): C[%zu][%zu] is the dot "
                  "product of no element\n  expected %s\n  got      %s",
                  i / 3, i % 3, gr_f32(0.0f), gr_f32(c[i]));
    lab4_mx_gemm(a, s, a, s, 0, 3, 70, 32, FP8_E4M3, c);
    lab4_mx_gemm(a, s, a, s, 2, 0, 70, 32, FP8_E4M3, c);
}

static void test_gemm(void)
{
    gr_mismatches m = {0};
    check_dots(&m, "main", FP8_E4M3, 1, 0, 10, 4, 12);
    check_dots(&m, "tail", FP8_E4M3, 1, 0, 3, 1, 7);
    check_dots(&m, "main", FP8_E2M1, 1, 0, 5, 7, 9);
    npy_array t;
    size_t shape[2] = {8, 70};
    gr_golden("mx_tail_x.npy", NPY_F32, 2, shape, &t);
    check_products_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 16, FP8_E4M3, LAB4_SCALE_CEIL, 1, 0, 3,
                       3, 5);
    check_products_ref(&m, "mx_tail_x.npy", t.data, 8, 70, 1, FP8_E5M2, LAB4_SCALE_FLOOR, 1, 4,
                       2, 0, 4);
    npy_free(&t);
    check_gemm_empty(&m);
    gr_finish(&m, "products");
}

/* ---- §7 NVFP4 --------------------------------------------------------------------------- */

static void expect_tensor_scale(gr_mismatches *m, float amax, float want)
{
    float got = lab4_nvfp4_tensor_scale(amax);
    gr_expect(m, stats_equal_exact(want, got),
              "lab4_nvfp4_tensor_scale(%s)\n  expected %s\n  got      %s", gr_f32(amax),
              gr_f32(want), gr_f32(got));
}

static void test_nvfp4_scale(void)
{
    gr_mismatches m = {0};
    expect_tensor_scale(&m, 2688.0f, 1.0f);
    expect_tensor_scale(&m, 448.0f, 6.0f);
    expect_tensor_scale(&m, 3.0f, 2688.0f / 3.0f);
    expect_tensor_scale(&m, 0.0f, 1.0f);
    expect_tensor_scale(&m, INFINITY, 1.0f);
    expect_tensor_scale(&m, NAN, 1.0f);
    expect_tensor_scale(&m, -INFINITY, 1.0f); /* infinite too */
    expect_tensor_scale(&m, -0.0f, 1.0f);
    expect_tensor_scale(&m, 1e-36f, FLT_MAX); /* 2688 / 1e-36 overflows */
    expect_tensor_scale(&m, 0x1p-149f, FLT_MAX); /* a float subnormal */
    /* One division, as lab4.h says: 0.21f is 14092861 x 2^-26, and
     * 2688 / 0.21f = 12800.0004 rounds to 12800 [0x46480000] (a float's step
     * is 2^-10 there). In two steps, 448 / 0.21f rounds to 2133.33350
     * [0x45055556], and times 6 that is 12800.001 [0x46480001]. */
    expect_tensor_scale(&m, 0.21f, 12800.0f);
    npy_array x, s;
    size_t shape[2] = {16, 256}, one = 1;
    gr_golden("mx_main_x.npy", NPY_F32, 2, shape, &x);
    gr_golden("nvfp4_scale.npy", NPY_F32, 1, &one, &s);
    float amax = 0.0f;
    for (size_t i = 0; i < x.count; i++)
        amax = fmaxf(amax, fabsf(((const float *)x.data)[i]));
    expect_tensor_scale(&m, amax, ((const float *)s.data)[0]);
    npy_free(&x);
    npy_free(&s);
    gr_finish(&m, "scales");
}

typedef struct nv_golden {
    npy_array x, s, codes, scales, deq;
} nv_golden;

static void nv_load(nv_golden *g)
{
    size_t shape[2] = {16, 256}, sshape[2] = {16, 16}, one = 1;
    gr_golden("mx_main_x.npy", NPY_F32, 2, shape, &g->x);
    gr_golden("nvfp4_scale.npy", NPY_F32, 1, &one, &g->s);
    gr_golden("nvfp4_codes.npy", NPY_U8, 2, shape, &g->codes);
    gr_golden("nvfp4_scales.npy", NPY_U8, 2, sshape, &g->scales);
    gr_golden("nvfp4_deq.npy", NPY_F32, 2, shape, &g->deq);
}

static void nv_free(nv_golden *g)
{
    npy_free(&g->x);
    npy_free(&g->s);
    npy_free(&g->codes);
    npy_free(&g->scales);
    npy_free(&g->deq);
}

/*
 * A 1 x 64 matrix whose four blocks of 16 tell the orders of README §7 apart,
 * worked by hand, with S = 896 (the tensor scale of a global amax 3, exact).
 * 1.0f / 6.0f is (1 + 2^-25) / 6, so S * (1 / 6) = 149.333344 [0x43155556],
 * a little above 896 / 6; 1.0f / S is a little above 1/896 [0x3a924925].
 *   block 0, amax 1.125: 1.125 * 149.333344 = 168.000015 [0x43280001],
 *     just above 168, the tie between the E4M3 values 160 and 176: scale 176
 *     (0x73). (1.125 * 896) / 6 = 168 exactly, a tie, would give the even
 *     160 (0x72). k = 1 / (176 * (1/S)) = 5.09090900; 1.125 * k = 5.73: 6.
 *   block 1, amax 0.4375: 0.4375 * 149.333344 = 65.33: scale 64 (0x68).
 *     k = 1 / (64 * (1/S)) = 13.9999990 [0x415fffff], just below 14, so
 *     0.125 * k = 1.74999988 rounds to 1.5 (0x03); S / 64 = 14 exactly
 *     would make it the tie 1.75 and give the even 2 (0x04).
 *   block 2, amax 2^-18: 2^-18 * 149.33 = 5.7e-4, below half of E4M3's
 *     smallest subnormal (2^-10): scale 0x00, and every code 0x00.
 *   block 3, a NaN: scale 0x7F (E4M3's NaN), every code 0x00.
 */
static void check_nvfp4_crafted(gr_mismatches *m)
{
    float x[64] = {0};
    x[0] = 1.125f;
    x[16] = 0.4375f, x[17] = 0.125f, x[18] = -0.125f;
    x[32] = 0x1p-18f, x[33] = -0x1p-18f;
    x[48] = NAN, x[49] = 1.0f;
    uint8_t want_codes[64] = {0}, want_scales[4] = {0x73, 0x68, 0x00, 0x7F};
    want_codes[0] = 0x07;
    want_codes[16] = 0x07, want_codes[17] = 0x03, want_codes[18] = 0x0B;
    static const float amax[4] = {1.125f, 0.4375f, 0x1p-18f, NAN};
    uint8_t codes[64], scales[4];
    memset(codes, 0xA5, sizeof codes);
    memset(scales, 0xA5, sizeof scales);
    lab4_nvfp4_quantize(x, 1, 64, 896.0f, codes, scales);
    const char *call = "lab4_nvfp4_quantize(the crafted 1 x 64 matrix of grading/lab4/suite.c, tensor "
                       "scale 896)";
    for (size_t j = 0; j < 4; j++)
        gr_expect(m, want_scales[j] == scales[j],
                  "%s\n  block scale of block %zu (amax %s)\n  expected %s\n  got      %s", call, j,
                  gr_f32(amax[j]), gr_code(want_scales[j], FP8_E4M3),
                  gr_code(scales[j], FP8_E4M3));
    for (size_t i = 0; i < 64; i++)
        gr_expect(m, want_codes[i] == codes[i],
                  "%s\n  column %zu: x = %s, block scale %s\n  expected %s\n  got      %s", call, i,
                  gr_f32(x[i]), gr_code(want_scales[i / 16], FP8_E4M3),
                  gr_code(want_codes[i], FP8_E2M1), gr_code(codes[i], FP8_E2M1));

    /* k past FLT_MAX (lab4.h: "FLT_MAX if that is +inf"): S = FLT_MAX, a
     * block {2^-126, -2^-127, 14 zeros}. 2^-126 * (S * (1/6)) = 0.667: scale
     * 0.6875 (0x33). 1.0f / FLT_MAX rounds to the float subnormal 2^-128, d
     * times it is 11 x 2^-132, and 1 / that = 2^132 / 11 overflows: k =
     * FLT_MAX. 2^-126 * k = 3.99999976: 4 (0x06); -2^-127 * k: -2 (0x0C);
     * 0 * k = 0 (0x00), where 0 * inf would be NaN. */
    float y[16] = {0x1p-126f, -0x1p-127f};
    uint8_t wy[16] = {0x06, 0x0C}, cy[16], sy = 0xA5;
    memset(cy, 0xA5, sizeof cy);
    lab4_nvfp4_quantize(y, 1, 16, FLT_MAX, cy, &sy);
    call = "lab4_nvfp4_quantize({2^-126, -2^-127, 14 zeros}, tensor scale FLT_MAX)";
    gr_expect(m, sy == 0x33, "%s\n  block scale\n  expected %s\n  got      %s", call,
              gr_code(0x33, FP8_E4M3), gr_code(sy, FP8_E4M3));
    for (size_t i = 0; i < 16; i++)
        gr_expect(m, wy[i] == cy[i], "%s\n  column %zu: x = %s\n  expected %s\n  got      %s",
                  call, i, gr_f32(y[i]), gr_code(wy[i], FP8_E2M1), gr_code(cy[i], FP8_E2M1));
}

/*
 * A 3 x 40 matrix, blocks of 16, 16 and 8 (a short last block), and its
 * NVFP4 quantization with a tensor scale of 896 (a global amax of 3, as
 * from an earlier step: two blocks exceed it), expected from the
 * reference. S * (1/6) = 149.333344, and in every row:
 *   block 0, columns 0..15: +-1, +-0.9375, ..., amax 1: 149.33 rounds to
 *     the E4M3 144 (0x71);
 *   block 2, columns 32..39: +-0.01 .. +-0.08, amax 0.08: 11.95 rounds to
 *     12 (0x54). An amax over 16 elements from column 32 reads the next
 *     row's +-1 and gives 0x71;
 * and block 1, columns 16..31, multiples of 0.25 up to 1.5, but for
 *   row 0: a 6 in column 20: 6 * 149.33 = 896, past E4M3's 448: the
 *     saturating cast gives 448 (0x7e), the non-saturating one NaN (0x7f,
 *     and then every code 0x00);
 *   row 1: -inf in column 21: amax inf, block scale 448 (0x7e) again; k =
 *     1 / (448 * (1/896)) = 2, and -inf * 2 is -6 (0x0f).
 */
static void nvfp4_crafted(float *x)
{
    for (size_t r = 0; r < 3; r++)
        for (size_t c = 0; c < 40; c++) {
            float v = c < 16 ? 1.0f - 0.0625f * (float)(c % 8)
                    : c < 32 ? 0.25f * (float)(c % 7)
                             : 0.01f * (float)(c - 31);
            x[r * 40 + c] = c % 2 ? -v : v;
        }
    x[0 * 40 + 20] = 6.0f;
    x[1 * 40 + 21] = -INFINITY;
}

/* The near end of the tensor scale's range: a 1 x 20 row whose amax is
 * FLT_MAX, with the reference's tensor scale for it, 2688 / FLT_MAX. */
static void nvfp4_huge(float *x)
{
    for (size_t c = 0; c < 20; c++)
        x[c] = ldexpf(c % 2 ? -1.0f : 1.0f, 127 - (int)(c % 9));
    x[7] = FLT_MAX;
}

/* lab4_nvfp4_quantize of x against the reference's. */
static void check_nvfp4_ref(gr_mismatches *m, const char *what, const float *x, size_t rows,
                            size_t cols, float ts)
{
    size_t nb = (cols + 15) / 16;
    uint8_t *codes = xmalloc(rows * cols), *scales = xmalloc(rows * nb);
    uint8_t *wc = xmalloc(rows * cols), *ws = xmalloc(rows * nb);
    ref_lab4_nvfp4_quantize(x, rows, cols, ts, wc, ws);
    memset(codes, 0xA5, rows * cols);
    memset(scales, 0xA5, rows * nb);
    lab4_nvfp4_quantize(x, rows, cols, ts, codes, scales);
    for (size_t i = 0; i < rows * nb; i++)
        gr_expect(m, ws[i] == scales[i],
                  "lab4_nvfp4_quantize(%s, %zu x %zu, tensor scale %s)\n"
                  "  block scale of row %zu, block %zu\n  expected %s\n  got      %s",
                  what, rows, cols, gr_f32(ts), i / nb, i % nb, gr_code(ws[i], FP8_E4M3),
                  gr_code(scales[i], FP8_E4M3));
    for (size_t i = 0; i < rows * cols; i++)
        gr_expect(m, wc[i] == codes[i],
                  "lab4_nvfp4_quantize(%s, %zu x %zu, tensor scale %s)\n"
                  "  row %zu, column %zu: x = %s, block scale %s\n  expected %s\n  got      %s",
                  what, rows, cols, gr_f32(ts), i / cols, i % cols, gr_f32(x[i]),
                  gr_code(ws[(i / cols) * nb + (i % cols) / 16], FP8_E4M3),
                  gr_code(wc[i], FP8_E2M1), gr_code(codes[i], FP8_E2M1));
    free(codes), free(scales), free(wc), free(ws);
}

/* Empty matrices, as check_quantize_empty, in blocks of 16. */
static void check_nvfp4_empty(void)
{
    float x[1] = {1.0f};
    uint8_t codes[1], scales[1];
    for (int k = 0; k < 3; k++)
        lab4_nvfp4_quantize(x, EMPTY_SHAPES[k][0], EMPTY_SHAPES[k][1], 896.0f, codes, scales);
}

static void test_nvfp4_quantize(void)
{
    nv_golden g;
    nv_load(&g);
    float ts = ((const float *)g.s.data)[0];
    uint8_t codes[16 * 256], scales[16 * 16];
    memset(codes, 0xA5, sizeof codes);
    memset(scales, 0xA5, sizeof scales);
    lab4_nvfp4_quantize(g.x.data, 16, 256, ts, codes, scales);
    const uint8_t *wc = g.codes.data, *ws = g.scales.data;
    const float *x = g.x.data;
    gr_mismatches m = {0};
    for (size_t i = 0; i < sizeof scales; i++)
        gr_expect(&m, ws[i] == scales[i],
                  "lab4_nvfp4_quantize(mx_main_x.npy, tensor scale %s)\n"
                  "  block scale of row %zu, block %zu\n  expected %s\n  got      %s",
                  gr_f32(ts), i / 16, i % 16, gr_code(ws[i], FP8_E4M3),
                  gr_code(scales[i], FP8_E4M3));
    for (size_t i = 0; i < sizeof codes; i++)
        gr_expect(&m, wc[i] == codes[i],
                  "lab4_nvfp4_quantize(mx_main_x.npy, tensor scale %s)\n"
                  "  row %zu, column %zu: x = %s, block scale %s\n  expected %s\n  got      %s",
                  gr_f32(ts), i / 256, i % 256, gr_f32(x[i]),
                  gr_code(ws[(i / 256) * 16 + (i % 256) / 16], FP8_E4M3),
                  gr_code(wc[i], FP8_E2M1), gr_code(codes[i], FP8_E2M1));
    check_nvfp4_crafted(&m);
    float y[3 * 40];
    nvfp4_crafted(y);
    check_nvfp4_ref(&m, "the crafted 3 x 40 matrix of grading/lab4/suite.c", y, 3, 40, 896.0f);
    nvfp4_huge(y);
    check_nvfp4_ref(&m, "the crafted 1 x 20 row of grading/lab4/suite.c", y, 1, 20,
                    2688.0f / FLT_MAX);
    check_nvfp4_empty();
    nv_free(&g);
    gr_finish(&m, "bytes");
}

/* lab4_nvfp4_dequantize of codes and scales against the reference's. */
static void check_nvfp4_deq_ref(gr_mismatches *m, const char *what, const uint8_t *codes,
                                const uint8_t *scales, size_t rows, size_t cols, float ts)
{
    size_t nb = (cols + 15) / 16;
    float *want = xmalloc(rows * cols * sizeof(float)), *out = xmalloc(rows * cols * sizeof(float));
    ref_lab4_nvfp4_dequantize(codes, scales, rows, cols, ts, want);
    memset(out, 0xA5, rows * cols * sizeof(float));
    lab4_nvfp4_dequantize(codes, scales, rows, cols, ts, out);
    for (size_t i = 0; i < rows * cols; i++)
        gr_expect(m, stats_equal_exact(want[i], out[i]),
                  "lab4_nvfp4_dequantize(%s, %zu x %zu, tensor scale %s)\n"
                  "  row %zu, column %zu: code %s, block scale %s\n  expected %s\n"
                  "  got      %s",
                  what, rows, cols, gr_f32(ts), i / cols, i % cols, gr_code(codes[i], FP8_E2M1),
                  gr_code(scales[(i / cols) * nb + (i % cols) / 16], FP8_E4M3), gr_f32(want[i]),
                  gr_f32(out[i]));
    free(want), free(out);
}

/*
 * The crafted matrices of nvfp4_quantize, quantized by the reference: a
 * short last block in every row, and tensor scales of 896 and 2688 /
 * FLT_MAX. In the 3 x 40 one, two block scales replaced: row 0's last
 * block gets E4M3's NaN (0x7f), so its eight elements come back NaN; row
 * 1's gets 0x00, so they come back as zeros, -0 for the negative codes
 * ((-v * 0) * (1/S) = -0).
 */
static void check_nvfp4_deq_crafted(gr_mismatches *m)
{
    float x[3 * 40];
    uint8_t codes[3 * 40], scales[3 * 3];
    nvfp4_crafted(x);
    ref_lab4_nvfp4_quantize(x, 3, 40, 896.0f, codes, scales);
    scales[0 * 3 + 2] = 0x7F;
    scales[1 * 3 + 2] = 0x00;
    check_nvfp4_deq_ref(m, "the codes of the crafted 3 x 40 matrix, a NaN and a zero scale", codes,
                        scales, 3, 40, 896.0f);
    nvfp4_huge(x);
    ref_lab4_nvfp4_quantize(x, 1, 20, 2688.0f / FLT_MAX, codes, scales);
    check_nvfp4_deq_ref(m, "the codes of the crafted 1 x 20 row", codes, scales, 1, 20,
                        2688.0f / FLT_MAX);
}

/* Empty matrices, as check_dequantize_empty. */
static void check_nvfp4_deq_empty(void)
{
    uint8_t codes[1] = {0x02}, scales[1] = {0x38};
    float out[1];
    for (int k = 0; k < 3; k++)
        lab4_nvfp4_dequantize(codes, scales, EMPTY_SHAPES[k][0], EMPTY_SHAPES[k][1], 896.0f,
                              out);
}

static void test_nvfp4_dequantize(void)
{
    nv_golden g;
    nv_load(&g);
    float ts = ((const float *)g.s.data)[0];
    static float out[16 * 256];
    memset(out, 0xA5, sizeof out);
    lab4_nvfp4_dequantize(g.codes.data, g.scales.data, 16, 256, ts, out);
    const float *w = g.deq.data;
    const uint8_t *codes = g.codes.data, *scales = g.scales.data;
    gr_mismatches m = {0};
    for (size_t i = 0; i < 16 * 256; i++)
        gr_expect(&m, stats_equal_exact(w[i], out[i]),
                  "lab4_nvfp4_dequantize(nvfp4 golden codes and scales, tensor scale %s)\n"
                  "  row %zu, column %zu: code %s, block scale %s\n  expected %s\n"
                  "  got      %s",
                  gr_f32(ts), i / 256, i % 256, gr_code(codes[i], FP8_E2M1),
                  gr_code(scales[(i / 256) * 16 + (i % 256) / 16], FP8_E4M3), gr_f32(w[i]),
                  gr_f32(out[i]));
    check_nvfp4_deq_crafted(&m);
    check_nvfp4_deq_empty();
    nv_free(&g);
    gr_finish(&m, "values");
}

extern const grader_lab lab4_rubric;

static const grader_case cases[] = {
    {"e8m0_decode", test_e8m0_decode},
    {"block_amax", test_block_amax},
    {"elem_emax", test_elem_emax},
    {"scale_floor", test_scale_floor},
    {"scale_ceil", test_scale_ceil},
    {"scale_special", test_scale_special},
    {"quantize_e4m3", test_quantize_e4m3},
    {"quantize_e5m2", test_quantize_e5m2},
    {"quantize_fp6", test_quantize_fp6},
    {"quantize_fp4", test_quantize_fp4},
    {"quantize_tail", test_quantize_tail},
    {"quantize_special_blocks", test_quantize_special_blocks},
    {"hand_block", test_hand_block},
    {"dequantize", test_dequantize},
    {"dot", test_dot},
    {"gemm", test_gemm},
    {"nvfp4_scale", test_nvfp4_scale},
    {"nvfp4_quantize", test_nvfp4_quantize},
    {"nvfp4_dequantize", test_nvfp4_dequantize},
};

const grader_suite grader_this_suite = {&lab4_rubric, cases, GRADER_COUNT(cases)};
