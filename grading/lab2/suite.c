/*
 * lab2/suite.c - lab2's tests: the student's statistics, casts and
 * recommendations against the goldens in data/golden/lab2 (grading/lab2/data.h
 * lists the tensors and the goldens' layout), cases worked by hand, and the
 * decision rule at its edges. Points and sections are in grading/lab2/rubric.c.
 *
 * Tolerances (README §9): counts and float statistics are compared bit for
 * bit, fractions to 1e-12 relative (a count over a count, in double: any
 * correct code gives the same number), range bits and the outlier ratio to
 * 1e-12 relative, MSE and SQNR to 1e-9 relative (double sums in element
 * order; another order changes the last bits only), decisions exactly.
 *
 * Each cast test calls lab2_cast_stats with the golden's own scale, so a
 * wrong lab2_tensor_scale costs only its own test; the recommendation tests
 * on known and real tensors run the whole chain, as the demo does, and say
 * which link broke.
 *
 * The goldens (made by grading/lab2/goldens.c from the reference solution)
 * and how they are checked independently: tests/lab2/ and
 * tests/oracle/goldens_lab2.cpp.
 */
#include <float.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "lab2.h"
#include "data.h"
#include "suite.h"

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    ck_assert_msg(p != NULL, "out of memory");
    return p;
}

/* ---- the tensors and their goldens -------------------------------------------------- */

#define N_TENSORS (LAB2_N_SYNTHETIC + LAB2_N_REAL)

/* One tensor of the graded set: its input and its goldens. */
typedef struct tensor {
    char name[64];       /* the goldens' stem: syn_gauss_w, real_step07035_l1_dy */
    npy_array x;
    double stats[LAB2_STATS_LEN];
    double casts[4][LAB2_CAST_COLS];
    int choice;
} tensor;

static const char *const STATS_FIELDS[LAB2_STATS_LEN] = {LAB2_STATS_FIELDS};
static const char *const CAST_FIELDS[LAB2_CAST_COLS] = {LAB2_CAST_FIELDS};
static const char *const ROW_NAMES[4] = {"E4M3, tensor scale", "E5M2, tensor scale",
                                         "E4M3, fixed scale", "E5M2, fixed scale"};

/* The name of tensor k (0 <= k < N_TENSORS) into t->name, and the path of
 * its input into path. Real tensors ship beside the goldens:
 * GRADER_GOLDEN_DIR/../../captures. */
static void tensor_paths(int k, tensor *t, char *path, size_t size)
{
    static const char *const syn[LAB2_N_SYNTHETIC] = {LAB2_SYNTHETIC_NAMES};
    static const unsigned steps[LAB2_N_REAL_STEPS] = {LAB2_REAL_STEP_LIST};
    static const char *const kinds[3] = {LAB2_REAL_KIND_NAMES};
    const char *gd = getenv("GRADER_GOLDEN_DIR");
    gd = gd ? gd : "data/golden/lab2";
    if (k < LAB2_N_SYNTHETIC) {
        snprintf(t->name, sizeof t->name, "syn_%s", syn[k]);
        snprintf(path, size, "%s/syn_%s_x.npy", gd, syn[k]);
        return;
    }
    int r = k - LAB2_N_SYNTHETIC;
    unsigned step = steps[r / 6];
    int layer = 1 + (r / 3) % 2;
    const char *kind = kinds[r % 3];
    snprintf(t->name, sizeof t->name, "real_step%05u_l%d_%s", step, layer, kind);
    snprintf(path, size, "%s/../../captures/capture_step%05u_l%d_%s.npy", gd, step, layer, kind);
}

static void tensor_load(int k, tensor *t)
{
    char path[4096], file[128];
    lab_error err;
    memset(t, 0, sizeof *t);
    tensor_paths(k, t, path, sizeof path);
    if (npy_load(path, &t->x, &err) != 0)
        ck_abort_msg("cannot read a tensor lab2 is graded on: %s", err.msg);
    if (t->x.dtype != NPY_F32) {
        npy_free(&t->x);
        ck_abort_msg("%s: dtype is not float32", path);
    }

    npy_array a;
    size_t s1[1] = {LAB2_STATS_LEN}, s2[2] = {4, LAB2_CAST_COLS}, one[1] = {1};
    snprintf(file, sizeof file, "%s_stats.npy", t->name);
    gr_golden(file, NPY_F64, 1, s1, &a);
    memcpy(t->stats, a.data, sizeof t->stats);
    npy_free(&a);
    snprintf(file, sizeof file, "%s_casts.npy", t->name);
    gr_golden(file, NPY_F64, 2, s2, &a);
    memcpy(t->casts, a.data, sizeof t->casts);
    npy_free(&a);
    snprintf(file, sizeof file, "%s_choice.npy", t->name);
    gr_golden(file, NPY_I32, 1, one, &a);
    t->choice = ((const int32_t *)a.data)[0];
    npy_free(&a);
}

static void tensor_free(tensor *t)
{
    npy_free(&t->x);
}

/* The student's lab2_stats as the golden's array of doubles. */
static void stats_row(const lab2_stats *s, double *v)
{
    const double row[LAB2_STATS_LEN] = {
        (double)s->n,           (double)s->nan,  (double)s->inf,  (double)s->zeros,
        (double)s->nonzero,     (double)s->amax, (double)s->min_nonzero,
        (double)s->p_lo,        (double)s->p_hi, s->range_bits,   s->range_bits_pct,
        s->outlier_ratio,
    };
    memcpy(v, row, sizeof row);
}

static void cast_row(const lab2_cast *c, double *v)
{
    v[0] = c->fmt == FP8_E4M3 ? 0.0 : c->fmt == FP8_E5M2 ? 1.0 : -1.0;
    v[1] = (double)c->scale;
    v[2] = c->saturated;
    v[3] = c->underflow;
    v[4] = c->mse;
    v[5] = c->sqnr_db;
}

/* Equal within rel relative (0: the same double; NaN equals NaN; an
 * infinity only itself). */
static bool close_rel(double want, double got, double rel)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got) || rel == 0.0)
        return want == got;
    return fabs(got - want) <= rel * fabs(want);
}

/* A double for a message: %.17g, with its float bits when it is a float. */
static const char *num(double v, bool is_float)
{
    static char ring[4][96];
    static int k;
    char *b = ring[k++ % 4];
    if (is_float)
        snprintf(b, 96, "%s", gr_f32((float)v));
    else
        snprintf(b, 96, "%.17g", v);
    return b;
}

/* Compares fields [lo, hi) of the student's stats with the golden's. */
static void expect_stats(gr_mismatches *m, const tensor *t, const lab2_stats *s, int lo, int hi,
                         double rel)
{
    double got[LAB2_STATS_LEN];
    stats_row(s, got);
    for (int f = lo; f < hi; f++) {
        bool is_float = f >= 5 && f <= 8;
        gr_expect(m, close_rel(t->stats[f], got[f], rel),
                  "lab2_tensor_stats(%s.npy, n = %zu): %s\n  expected %s\n  got      %s",
                  t->name, t->x.count, STATS_FIELDS[f], num(t->stats[f], is_float),
                  num(got[f], is_float));
    }
}

/* Calls lab2_tensor_stats on t, failing the test when it cannot. */
static void student_stats(const tensor *t, lab2_stats *s)
{
    memset(s, 0xA5, sizeof *s);
    int rc = lab2_tensor_stats(t->x.data, t->x.count, s);
    ck_assert_msg(rc == 0, "lab2_tensor_stats(%s.npy, n = %zu) returned %d, not 0", t->name,
                  t->x.count, rc);
}

/* Runs check(t) for every tensor of the graded set. */
static void for_each_tensor(void (*check)(gr_mismatches *, const tensor *), gr_mismatches *m)
{
    for (int k = 0; k < N_TENSORS; k++) {
        tensor t;
        tensor_load(k, &t);
        check(m, &t);
        tensor_free(&t);
    }
}

/* ---- hidden inputs (./grader --seed) ------------------------------------------------- */

/* The reference solution, linked in as ref_* (suite.h, gr_seed). */
extern __typeof__(lab2_tensor_stats) ref_lab2_tensor_stats;
extern __typeof__(lab2_tensor_scale) ref_lab2_tensor_scale;
extern __typeof__(lab2_cast_stats) ref_lab2_cast_stats;
extern __typeof__(lab2_recommend) ref_lab2_recommend;

#define HIDDEN_TENSORS 3

/* Hidden tensor k of the seed, with the reference's numbers as its
 * goldens: 2000 to 6000 elements of a random sign times exp(N(0, s^2)),
 * s from 0.5 to 4.5 (so every decision can come out), about 10% zeros and
 * a few NaNs and infinities; its fixed scales are 2^-8 to 2^8. Returns 0
 * without a seed. */
static int hidden_tensor(int k, tensor *t)
{
    rng_state rng;
    if (!gr_hidden_rng(&rng, 10 + (uint64_t)k))
        return 0;
    memset(t, 0, sizeof *t);
    size_t n = 2000 + rng_below(&rng, 4001);
    float sigma = 0.5f + 4.0f * rng_uniform(&rng);
    float *x = xmalloc(n * sizeof(float));
    static const float special[3] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        uint32_t pick = rng_below(&rng, 100);
        float v = expf(sigma * rng_normal(&rng));
        x[i] = pick < 10 ? 0.0f : pick == 10 ? special[rng_below(&rng, 3)]
             : rng_u32(&rng) & 1 ? -v : v;
    }
    t->x = (npy_array){.dtype = NPY_F32, .ndim = 1, .shape = {n}, .count = n, .data = x};
    snprintf(t->name, sizeof t->name, "hidden tensor %d", k);
    lab2_stats s;
    ck_assert_msg(ref_lab2_tensor_stats(x, n, &s) == 0, "the reference: out of memory");
    stats_row(&s, t->stats);
    lab2_cast c[4];
    for (int r = 0; r < 4; r++) {
        fp8_format fmt = r % 2 ? FP8_E5M2 : FP8_E4M3;
        float scale = r < 2 ? ref_lab2_tensor_scale(s.amax, fmt)
                            : ldexpf(1.0f, (int)rng_below(&rng, 17) - 8);
        ref_lab2_cast_stats(x, n, fmt, scale, &c[r]);
        cast_row(&c[r], t->casts[r]);
    }
    char why[512];
    t->choice = (int)ref_lab2_recommend(&s, &c[0], &c[1], why, sizeof why);
    return 1;
}

/* check on each hidden tensor, when the grader gave a seed. */
static void for_each_hidden(void (*check)(gr_mismatches *, const tensor *), gr_mismatches *m)
{
    for (int k = 0; k < HIDDEN_TENSORS; k++) {
        tensor t;
        if (!hidden_tensor(k, &t))
            return;
        check(m, &t);
        tensor_free(&t);
    }
}

/* ---- §3 magnitudes and percentiles --------------------------------------------------- */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void expect_magnitudes(gr_mismatches *m, const char *what, const float *x, size_t n)
{
    float *want = xmalloc(n * sizeof(float)), *got = xmalloc((n + 1) * sizeof(float));
    size_t mw = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && x[i] != 0.0f)
            want[mw++] = fabsf(x[i]);
    qsort(want, mw, sizeof(float), cmp_float);
    memset(got, 0xA5, (n + 1) * sizeof(float));
    uint32_t canary;
    memcpy(&canary, &got[n], sizeof canary);
    size_t mg = lab2_magnitudes(x, n, got);
    gr_expect(m, mg == mw, "lab2_magnitudes(%s, n = %zu) returned m = %zu\n  expected %zu", what,
              n, mg, mw);
    if (mg == mw)
        for (size_t i = 0; i < mw; i++)
            gr_expect(m, stats_equal_exact(want[i], got[i]),
                      "lab2_magnitudes(%s): mag[%zu] (of %zu, ascending)\n  expected %s\n"
                      "  got      %s",
                      what, i, mw, gr_f32(want[i]), gr_f32(got[i]));
    uint32_t after;
    memcpy(&after, &got[n], sizeof after);
    gr_expect(m, after == canary, "lab2_magnitudes(%s, n = %zu) wrote mag[%zu], past its end",
              what, n, n);
    free(want);
    free(got);
}

static void test_magnitudes(void)
{
    gr_mismatches m = {0};
    const float hand[] = {3.0f, -1.0f, 0.0f, NAN, -INFINITY, 2.0f, -0.0f};
    expect_magnitudes(&m, "{3, -1, 0, NaN, -inf, 2, -0}", hand, 7);
    expect_magnitudes(&m, "n = 0", hand, 0);
    /* gauss_w, relu_act, special, nonfinite, and l2_dy at step 7035 (tensor_paths). */
    const int picks[] = {0, 1, 5, 6, LAB2_N_SYNTHETIC + 11};
    for (size_t p = 0; p < sizeof picks / sizeof picks[0]; p++) {
        tensor t;
        tensor_load(picks[p], &t);
        char what[96];
        snprintf(what, sizeof what, "%s.npy", t.name);
        expect_magnitudes(&m, what, t.x.data, t.x.count);
        tensor_free(&t);
    }
    gr_finish(&m, "checks");
}

/*
 * m x per_mille past 2^32 (lab2.h: in size_t): from m = 4,299,262 at 999
 * per mille the product no longer fits 32 bits, and a rank computed in
 * unsigned int wraps to a rank near 700,000 of 5,000,000 (mag[k - 1] = k
 * tells which). The values stay below 2^24, where every whole number is a
 * float. 20 MB cross to the subject once per size.
 */
static void check_percentile_wide(gr_mismatches *m)
{
    static const size_t sizes[] = {4299262, 5000000};
    static const unsigned pms[] = {1, 999, 1000};
    size_t big = 5000000;
    float *mag = xmalloc(big * sizeof(float));
    for (size_t i = 0; i < big; i++)
        mag[i] = (float)(i + 1);
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof pms / sizeof pms[0]; b++) {
            size_t mm = sizes[a];
            uint64_t k = ((uint64_t)mm * pms[b] + 999) / 1000;
            float got = lab2_percentile(mag, mm, pms[b]);
            gr_expect(m, stats_equal_exact((float)k, got),
                      "lab2_percentile(mag = {1, 2, ..., %zu}, m = %zu, per_mille = %u)\n"
                      "  expected %s (k = ceil(%zu * %u / 1000) = %llu%s)\n  got      %s",
                      mm, mm, pms[b], gr_f32((float)k), mm, pms[b], (unsigned long long)k,
                      (uint64_t)mm * pms[b] > UINT32_MAX ? "; m * per_mille is past 32 bits"
                                                         : "",
                      gr_f32(got));
        }
    free(mag);
}

static void test_percentile(void)
{
    gr_mismatches m = {0};
    /* 3000 to 83000: m x per_mille / 1000 is a whole number, or a hair from
     * one, where a rank computed in float (m * 0.999f, m * 0.001f) or from a
     * percent in double (m * 99.9 / 100) lands one rank off (README §3). */
    static const size_t sizes[] = {1,    2,     5,     999,   1000,  1001,  1999,
                                   2000, 3000,  32999, 41000, 82000, 83000, 123457};
    static const unsigned pms[] = {1, 2, 500, 998, 999, 1000};
    size_t big = 123457;
    float *mag = xmalloc(big * sizeof(float));
    for (size_t i = 0; i < big; i++)
        mag[i] = (float)(i + 1); /* mag[k - 1] = k: the value says the rank */
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof pms / sizeof pms[0]; b++) {
            size_t mm = sizes[a];
            size_t k = (mm * pms[b] + 999) / 1000;
            k = k < 1 ? 1 : k;
            float got = lab2_percentile(mag, mm, pms[b]);
            gr_expect(&m, stats_equal_exact((float)k, got),
                      "lab2_percentile(mag = {1, 2, ..., %zu}, m = %zu, per_mille = %u)\n"
                      "  expected %s (k = ceil(%zu * %u / 1000) = %zu)\n  got      %s",
                      mm, mm, pms[b], gr_f32((float)k), mm, pms[b], k, gr_f32(got));
        }
    float got = lab2_percentile(mag, 0, 999);
    gr_expect(&m, stats_equal_exact(0.0f, got),
              "lab2_percentile(m = 0, per_mille = 999)\n  expected %s\n  got      %s",
              gr_f32(0.0f), gr_f32(got));
    free(mag);
    check_percentile_wide(&m);
    gr_finish(&m, "percentiles");
}

/* ---- §2, §3 the statistics ----------------------------------------------------------- */

static void check_counts(gr_mismatches *m, const tensor *t)
{
    lab2_stats s;
    student_stats(t, &s);
    expect_stats(m, t, &s, 0, 5, 0.0);
}

/* The largest mapping this process can still make, to 1 MiB, by trying. */
static size_t room_left(void)
{
    size_t lo = 0, hi = (size_t)1 << 40;
    while (hi - lo > ((size_t)1 << 20)) {
        size_t mid = lo + (hi - lo) / 2;
        void *p = mmap(NULL, mid, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            hi = mid;
        } else {
            munmap(p, mid);
            lo = mid;
        }
    }
    return lo;
}

/* The address space the subject, where the submission runs, may have
 * (GRADER_SUBJECT_MEM_MIB: channel.h), in bytes; 0 when unset. */
static size_t subject_limit(void)
{
    const char *mib = getenv("GRADER_SUBJECT_MEM_MIB");
    return mib ? (size_t)strtoul(mib, NULL, 10) << 20 : 0;
}

/* lab2.h: -1, with s zeroed, when the room for the magnitudes cannot be
 * allocated. x is half the subject's address space (zeros, read from the
 * kernel's zero page): with it there, n more floats cannot be had. Without
 * a limit on the subject (a judge run by hand), three quarters of what is
 * left under the judge's own limit, or, without either, nothing to
 * exhaust: the case is left out. */
static void check_no_room(gr_mismatches *m)
{
    struct rlimit rl;
    size_t bytes;
    if (subject_limit() > 0)
        bytes = subject_limit() / 2 / sizeof(float) * sizeof(float);
    else if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        bytes = room_left() / 4 * 3 / sizeof(float) * sizeof(float);
    else
        return;
    size_t n = bytes / sizeof(float);
    float *x = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_msg(x != MAP_FAILED, "the grader cannot map %zu bytes", bytes);
    lab2_stats s, zero;
    memset(&s, 0xA5, sizeof s);
    memset(&zero, 0, sizeof zero);
    int rc = lab2_tensor_stats(x, n, &s);
    munmap(x, bytes);
    gr_expect(m, rc == -1 && memcmp(&s, &zero, sizeof s) == 0,
              "lab2_tensor_stats(x, n = %zu) where n more floats cannot be allocated (the "
              "grader's memory limit): expected -1 and every field of s 0 (lab2.h)\n"
              "  got      %d, s->n = %zu, s->nonzero = %zu",
              n, rc, s.n, s.nonzero);
}

static void test_stats_counts(void)
{
    gr_mismatches m = {0};
    lab2_stats s;
    memset(&s, 0xA5, sizeof s);
    int rc = lab2_tensor_stats(NULL, 0, &s);
    gr_expect(&m, rc == 0 && s.n == 0 && s.nan == 0 && s.inf == 0 && s.zeros == 0 &&
                      s.nonzero == 0 && s.amax == 0.0f && s.range_bits == 0.0,
              "lab2_tensor_stats(n = 0): expected 0 and every field 0");
    check_no_room(&m);
    for_each_tensor(check_counts, &m);
    for_each_hidden(check_counts, &m);
    gr_finish(&m, "counts");
}

static void check_extremes(gr_mismatches *m, const tensor *t)
{
    lab2_stats s;
    student_stats(t, &s);
    expect_stats(m, t, &s, 5, 9, 0.0);
}

/* A tensor whose statistics are known in closed form: the m magnitudes 1,
 * 2, ..., m (exact in float), with alternating signs, so that every
 * percentile is its own rank: p = k = max(1, ceil(m * per_mille / 1000)).
 * m = 3000, 32999 and 41000 are where a rank in float or in percent goes
 * one off (README §3). Fields [lo, hi) of lab2_stats against the closed form. */
static void check_rank_tensor(gr_mismatches *m, size_t mm, int lo, int hi)
{
    float *x = xmalloc(mm * sizeof(float));
    for (size_t i = 0; i < mm; i++)
        x[i] = i % 2 ? -(float)(i + 1) : (float)(i + 1);
    size_t klo = (mm * LAB2_LO_PER_MILLE + 999) / 1000, khi = (mm * LAB2_HI_PER_MILLE + 999) / 1000;
    klo = klo < 1 ? 1 : klo;
    const double want[LAB2_STATS_LEN] = {
        (double)mm, 0, 0, 0, (double)mm, (double)mm, 1.0, (double)klo, (double)khi,
        log2((double)mm), log2((double)khi / (double)klo), (double)mm / (double)khi,
    };
    lab2_stats s;
    memset(&s, 0xA5, sizeof s);
    int rc = lab2_tensor_stats(x, mm, &s);
    double got[LAB2_STATS_LEN];
    stats_row(&s, got);
    for (int f = lo; f < hi; f++) {
        bool is_float = f >= 5 && f <= 8;
        gr_expect(m, rc == 0 && close_rel(want[f], got[f], f >= 9 ? 1e-12 : 0.0),
                  "lab2_tensor_stats({1, -2, 3, ..., %s%zu}, n = %zu): %s (returned %d)\n"
                  "  expected %s (p_lo, p_hi = mag[k - 1], k = ceil(%zu * per_mille / 1000): "
                  "%zu and %zu)\n  got      %s",
                  mm % 2 ? "" : "-", mm, mm, STATS_FIELDS[f], rc, num(want[f], is_float), mm,
                  klo, khi, num(got[f], is_float));
    }
    free(x);
}

static const size_t RANK_SIZES[] = {3000, 32999, 41000};

static void test_stats_extremes(void)
{
    gr_mismatches m = {0};
    for (size_t k = 0; k < sizeof RANK_SIZES / sizeof RANK_SIZES[0]; k++)
        check_rank_tensor(&m, RANK_SIZES[k], 5, 9);
    for_each_tensor(check_extremes, &m);
    for_each_hidden(check_extremes, &m);
    gr_finish(&m, "values");
}

static void check_range(gr_mismatches *m, const tensor *t)
{
    lab2_stats s;
    student_stats(t, &s);
    expect_stats(m, t, &s, 9, 12, 1e-12);
}

static void test_stats_range(void)
{
    gr_mismatches m = {0};
    for (size_t k = 0; k < sizeof RANK_SIZES / sizeof RANK_SIZES[0]; k++)
        check_rank_tensor(&m, RANK_SIZES[k], 9, 12);
    for_each_tensor(check_range, &m);
    for_each_hidden(check_range, &m);
    gr_finish(&m, "values");
}

/* ---- §4 the scale and the cast -------------------------------------------------------------- */

static void expect_scale(gr_mismatches *m, float amax, fp8_format fmt, float want, const char *why)
{
    float got = lab2_tensor_scale(amax, fmt);
    gr_expect(m, stats_equal_exact(want, got),
              "lab2_tensor_scale(%s, %s)%s\n  expected %s\n  got      %s", gr_f32(amax),
              fp8_info(fmt)->title, why, gr_f32(want), gr_f32(got));
}

static void check_scale(gr_mismatches *m, const tensor *t)
{
    for (int r = 0; r < 2; r++)
        expect_scale(m, (float)t->stats[5], r == 0 ? FP8_E4M3 : FP8_E5M2, (float)t->casts[r][1],
                     "");
}

static void test_tensor_scale(void)
{
    gr_mismatches m = {0};
    expect_scale(&m, 448.0f, FP8_E4M3, 1.0f, "");
    expect_scale(&m, 2.0f, FP8_E5M2, 28672.0f, "");
    expect_scale(&m, 0.0f, FP8_E4M3, 1.0f, ": amax 0 gives 1");
    expect_scale(&m, INFINITY, FP8_E5M2, 1.0f, ": an infinite amax gives 1");
    expect_scale(&m, NAN, FP8_E4M3, 1.0f, ": a NaN amax gives 1");
    expect_scale(&m, 1e-40f, FP8_E4M3, FLT_MAX, ": 448 / amax overflows, so FLT_MAX");
    expect_scale(&m, FLT_MAX, FP8_E4M3, 448.0f / FLT_MAX, "");
    expect_scale(&m, 3.0f, FP8_E4M3, 448.0f / 3.0f, "");
    /* Each format, at every special amax lab2.h names and at both ends of
     * the float range. 448 / 3 and 57344 / 3 are one ulp from 448 * (1 / 3)
     * and 57344 * (1 / 3): the scale is one float division. */
    static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN};
    for (int r = 0; r < 2; r++) {
        fp8_format fmt = r == 0 ? FP8_E4M3 : FP8_E5M2;
        float max = r == 0 ? 448.0f : 57344.0f;
        for (size_t k = 0; k < sizeof special / sizeof special[0]; k++)
            expect_scale(&m, special[k], fmt, 1.0f, ": amax 0, infinite or NaN gives 1");
        expect_scale(&m, 0x1p-149f, fmt, FLT_MAX, ": fp8_max / amax overflows, so FLT_MAX");
        expect_scale(&m, 1e-40f, fmt, FLT_MAX, ": fp8_max / amax overflows, so FLT_MAX");
        expect_scale(&m, FLT_MAX, fmt, max / FLT_MAX, "");
        expect_scale(&m, 3.0f, fmt, max / 3.0f, ": one float division, fp8_max / amax");
    }
    for_each_tensor(check_scale, &m);
    gr_finish(&m, "scales");
}

/* Compares columns [lo, hi) of the student's lab2_cast_stats on every row
 * of t (at the golden's format and scale) with the golden. */
static void expect_casts(gr_mismatches *m, const tensor *t, int lo, int hi, double rel)
{
    for (int r = 0; r < 4; r++) {
        fp8_format fmt = t->casts[r][0] == 0.0 ? FP8_E4M3 : FP8_E5M2;
        float scale = (float)t->casts[r][1];
        lab2_cast c;
        memset(&c, 0xA5, sizeof c);
        lab2_cast_stats(t->x.data, t->x.count, fmt, scale, &c);
        double got[LAB2_CAST_COLS];
        cast_row(&c, got);
        for (int f = 0; f < 2; f++)
            gr_expect(m, got[f] == t->casts[r][f],
                      "lab2_cast_stats(%s.npy, %s, scale %s): c->%s should be the argument\n"
                      "  expected %s\n  got      %s",
                      t->name, fp8_info(fmt)->title, gr_f32(scale), CAST_FIELDS[f],
                      num(t->casts[r][f], f == 1), num(got[f], f == 1));
        for (int f = lo; f < hi; f++)
            gr_expect(m, close_rel(t->casts[r][f], got[f], f == 4 ? 0.0 : rel),
                      "lab2_cast_stats(%s.npy, %s, scale %s) (%s): %s\n  expected %.17g\n"
                      "  got      %.17g",
                      t->name, fp8_info(fmt)->title, gr_f32(scale), ROW_NAMES[r],
                      CAST_FIELDS[f], t->casts[r][f], got[f]);
    }
}

static void check_saturation(gr_mismatches *m, const tensor *t)
{
    expect_casts(m, t, 2, 3, 1e-12);
}

static void check_underflow(gr_mismatches *m, const tensor *t)
{
    expect_casts(m, t, 3, 4, 1e-12);
}

/* mse bit for bit (lab2.h: the error and its sum in double, in element
 * order, then one division); sqnr_db within 1e-9 relative, for the C
 * library's log10. */
static void check_error(gr_mismatches *m, const tensor *t)
{
    expect_casts(m, t, 4, 6, 1e-9);
}

/*
 * Worked in the judge from lab2.h's formulas (the codec is common/'s, which
 * the oracle sweep checks against NVIDIA's): elements that saturate, that
 * flush to zero and that round, under scales that are not powers of two.
 * There x' = fp8_decode(q) * scale_inv is not a float's exact multiple of
 * x's, so an error x - x' taken in float and then widened is rounded (by
 * up to half an ulp of 10^6, 2^-5) where the double one is exact: the MSE
 * differs from the 8th digit on. Column col (2 saturated, 3 underflow,
 * 4 mse; each test checks its own) as every cast is compared.
 */
static const float SEPARATING[] = {1e6f,   -1e6f,   3.5e5f, 123.456f, 0.3f,     -1e-9f,
                                   7e-12f, 2.7e-4f, NAN,    -65536.0f, 1.7e4f,  5e5f,
                                   INFINITY, -0.7f, 2.5e-6f};
static const float SEPARATING_SCALES[] = {0.3f, 1.0f / 3.7f, 3.1f, 0.0071f};

static void check_separating(gr_mismatches *m, int col)
{
    size_t n = sizeof SEPARATING / sizeof SEPARATING[0];
    for (size_t k = 0; k < sizeof SEPARATING_SCALES / sizeof SEPARATING_SCALES[0]; k++)
        for (int f = 0; f < 2; f++) {
            fp8_format fmt = f ? FP8_E5M2 : FP8_E4M3;
            float scale = SEPARATING_SCALES[k], scale_inv = 1.0f / scale;
            size_t finite = 0, nonzero = 0, saturated = 0, underflow = 0;
            double noise = 0.0;
            for (size_t i = 0; i < n; i++) {
                float x = SEPARATING[i];
                if (!isfinite(x))
                    continue;
                finite++;
                float y = x * scale;
                uint8_t q = fp8_encode(y, fmt, true), raw = fp8_encode(y, fmt, false);
                saturated += fp8_is_nan(raw, fmt) || fp8_is_inf(raw, fmt);
                if (x != 0.0f) {
                    nonzero++;
                    underflow += fp8_is_zero(q, fmt);
                }
                double e = (double)x - (double)(fp8_decode(q, fmt) * scale_inv);
                noise += e * e;
            }
            double want[3] = {(double)saturated / (double)finite,
                              (double)underflow / (double)nonzero, noise / (double)finite};
            lab2_cast c;
            memset(&c, 0xA5, sizeof c);
            lab2_cast_stats(SEPARATING, n, fmt, scale, &c);
            double got[3] = {c.saturated, c.underflow, c.mse};
            int j = col - 2;
            gr_expect(m, close_rel(want[j], got[j], col == 4 ? 0.0 : 1e-12),
                      "lab2_cast_stats({1e6, -1e6, 3.5e5, ..., 15 elements: saturated, flushed "
                      "and rounded}, %s, scale %s): %s\n  expected %.17g\n  got      %.17g\n"
                      "  (%s)",
                      fp8_info(fmt)->title, gr_f32(scale), CAST_FIELDS[col], want[j], got[j],
                      col == 4 ? "bit for bit: the error x - x' and its sum in double, in "
                                 "element order"
                               : "within 1e-12, relative: a count over a count, in double");
        }
}

/* The special tensor (every kind of element, data.h) and four more cast at
 * the ends of lab2_tensor_scale's range, each format: scale FLT_MAX (every
 * |x| >= 2^-120 overflows, and scale_inv = 1 / FLT_MAX rounds to the float
 * subnormal 2^-128) and fp8_max / FLT_MAX (every element underflows), with
 * the reference's numbers as the goldens. The four: +-1.1875 x 2^-128 and
 * +-61440 x 2^-128, whose y = x * FLT_MAX = x * 2^128 * (1 - 2^-24) lies
 * just below E4M3's tie 1.1875 (so 1.125) and E5M2's overflow tie 61440
 * (so 57344: above max, yet not saturated). */
static void cast_ends(tensor *t)
{
    static const float more[4] = {0x1.3p-128f, -0x1.3p-128f, 0x1.ep-113f, -0x1.ep-113f};
    tensor_load(5, t);
    size_t n = t->x.count + 4;
    float *x = xmalloc(n * sizeof(float));
    memcpy(x, t->x.data, t->x.count * sizeof(float));
    memcpy(x + t->x.count, more, sizeof more);
    npy_free(&t->x);
    t->x = (npy_array){.dtype = NPY_F32, .ndim = 1, .shape = {n}, .count = n, .data = x};
    snprintf(t->name, sizeof t->name, "syn_special and 4 more, at the ends of the scale");
    for (int r = 0; r < 4; r++) {
        fp8_format fmt = r % 2 ? FP8_E5M2 : FP8_E4M3;
        float scale = r < 2 ? FLT_MAX : fp8_info(fmt)->max_finite / FLT_MAX;
        lab2_cast c;
        ref_lab2_cast_stats(t->x.data, t->x.count, fmt, scale, &c);
        cast_row(&c, t->casts[r]);
    }
}

static void check_cast_ends(void (*check)(gr_mismatches *, const tensor *), gr_mismatches *m)
{
    tensor t;
    cast_ends(&t);
    check(m, &t);
    tensor_free(&t);
}

/* By hand: a tensor with no finite element has every fraction and the MSE
 * 0 (their denominators are 0) and an SQNR of +inf (no error at all). */
static const float NO_FINITE[3] = {NAN, INFINITY, -INFINITY};

/* The same, for a tensor of no element at all: lab2_cast_stats(x, 0, ...)
 * (lab2.h: n from 0). x points at NO_FINITE, but none of it reaches the
 * subject: it gets x as a block of 0 floats, so a loop that runs while
 * i <= n - 1 (n a size_t) reads on past its end. fmt and scale are still
 * the arguments. */
static void cast_empty(gr_mismatches *m, lab2_cast *c)
{
    memset(c, 0xA5, sizeof *c);
    lab2_cast_stats(NO_FINITE, 0, FP8_E5M2, 4.0f, c);
    gr_expect(m, c->fmt == FP8_E5M2 && c->scale == 4.0f,
              "lab2_cast_stats(n = 0, E5M2, scale 4): c->fmt and c->scale should be the "
              "arguments\n  got      fmt %d, scale %s", (int)c->fmt, gr_f32(c->scale));
}

static void test_cast_saturation(void)
{
    gr_mismatches m = {0};
    lab2_cast c;
    lab2_cast_stats(NO_FINITE, 3, FP8_E4M3, 1.0f, &c);
    gr_expect(&m, c.saturated == 0.0,
              "lab2_cast_stats({NaN, inf, -inf}, E4M3, scale 1): no finite element\n"
              "  expected saturated 0\n  got      %.17g", c.saturated);
    cast_empty(&m, &c);
    gr_expect(&m, c.saturated == 0.0,
              "lab2_cast_stats(n = 0, E5M2, scale 4): no element\n"
              "  expected saturated 0\n  got      %.17g", c.saturated);
    check_separating(&m, 2);
    for_each_tensor(check_saturation, &m);
    check_cast_ends(check_saturation, &m);
    for_each_hidden(check_saturation, &m);
    gr_finish(&m, "values");
}

static void test_cast_underflow(void)
{
    gr_mismatches m = {0};
    lab2_cast c;
    cast_empty(&m, &c);
    gr_expect(&m, c.underflow == 0.0,
              "lab2_cast_stats(n = 0, E5M2, scale 4): no element\n"
              "  expected underflow 0\n  got      %.17g", c.underflow);
    check_separating(&m, 3);
    for_each_tensor(check_underflow, &m);
    check_cast_ends(check_underflow, &m);
    for_each_hidden(check_underflow, &m);
    gr_finish(&m, "values");
}

static void test_cast_error(void)
{
    gr_mismatches m = {0};
    /* Worked by hand: {1, 2} at scale 1 are E4M3 codes, so no error at all;
     * {0.3} at scale 1 comes back as 0.3125 (E4M3 1.010 x 2^-2). */
    const float exact[2] = {1.0f, 2.0f}, one[1] = {0.3f};
    lab2_cast c;
    lab2_cast_stats(exact, 2, FP8_E4M3, 1.0f, &c);
    gr_expect(&m, c.mse == 0.0 && isinf(c.sqnr_db) && c.sqnr_db > 0,
              "lab2_cast_stats({1, 2}, E4M3, scale 1): expected mse 0 and sqnr_db +inf\n"
              "  got      mse %.17g, sqnr_db %.17g",
              c.mse, c.sqnr_db);
    lab2_cast_stats(NO_FINITE, 3, FP8_E4M3, 1.0f, &c);
    gr_expect(&m, c.mse == 0.0 && isinf(c.sqnr_db) && c.sqnr_db > 0,
              "lab2_cast_stats({NaN, inf, -inf}, E4M3, scale 1): no finite element\n"
              "  expected mse 0 and sqnr_db +inf\n  got      mse %.17g, sqnr_db %.17g",
              c.mse, c.sqnr_db);
    cast_empty(&m, &c);
    gr_expect(&m, c.mse == 0.0 && isinf(c.sqnr_db) && c.sqnr_db > 0,
              "lab2_cast_stats(n = 0, E5M2, scale 4): no element\n"
              "  expected mse 0 and sqnr_db +inf\n  got      mse %.17g, sqnr_db %.17g",
              c.mse, c.sqnr_db);
    lab2_cast_stats(one, 1, FP8_E4M3, 1.0f, &c);
    double e = (double)0.3f - 0.3125;
    double want_mse = e * e, want_sqnr = 10.0 * log10((double)0.3f * (double)0.3f / (e * e));
    gr_expect(&m, close_rel(want_mse, c.mse, 0.0) && close_rel(want_sqnr, c.sqnr_db, 1e-9),
              "lab2_cast_stats({0.3}, E4M3, scale 1): 0.3 comes back as 0.3125\n"
              "  expected mse %.17g, sqnr_db %.17g\n  got      mse %.17g, sqnr_db %.17g",
              want_mse, want_sqnr, c.mse, c.sqnr_db);
    check_separating(&m, 4);
    for_each_tensor(check_error, &m);
    check_cast_ends(check_error, &m);
    for_each_hidden(check_error, &m);
    gr_finish(&m, "values");
}

/* ---- §5 the rule ------------------------------------------------------------------------------ */

/* One case of the rule: the casts' underflow and SQNR, the tensor's nonzero
 * count and percentile range, and the expected choice. */
typedef struct rule_case {
    double uf4, sq4, uf5, sq5;
    size_t nonzero;
    double range_pct;
    lab2_choice want;
    const char *note;
} rule_case;

static const rule_case RULES[] = {
    {0.0, 31.0, 0.0, 25.0, 1000, 10.0, LAB2_E4M3, "both acceptable: E4M3, the finer"},
    {0.01, 20.0, 0.0, 25.0, 1000, 10.0, LAB2_E4M3, "E4M3 exactly at both limits"},
    {0.0100001, 31.0, 0.0, 25.0, 1000, 10.0, LAB2_E5M2, "E4M3 just over 1% underflow"},
    {0.0, 19.999, 0.0, 25.0, 1000, 10.0, LAB2_E5M2, "E4M3 just under 20 dB"},
    {0.2, 31.0, 0.0101, 25.0, 1000, 30.0, LAB2_KEEP, "both over 1% underflow"},
    {0.2, 31.0, 0.0, 19.9, 1000, 30.0, LAB2_KEEP, "E5M2 under 20 dB"},
    {0.5, 31.0, 0.5, 10.0, 0, 0.0, LAB2_E4M3, "no finite nonzero element"},
    {0.0, 31.0, 0.0, 25.0, 1000, 30.0, LAB2_E4M3, "a wide range, yet E4M3 loses nothing"},
    {0.05, 31.0, 0.0, 25.0, 1000, 5.0, LAB2_E5M2, "a narrow range, yet E4M3 loses 5%"},
    {0.0, INFINITY, 0.0, INFINITY, 3, 1.0, LAB2_E4M3, "no error at all"},
    {0.0, 31.0, 0.5, 10.0, 1000, 10.0, LAB2_E4M3, "E4M3 acceptable, E5M2 not"},
    {0.0, NAN, 0.0, 25.0, 1000, 10.0, LAB2_E5M2, "E4M3's SQNR NaN: not acceptable"},
    {0.2, 31.0, 0.01, 20.0, 1000, 30.0, LAB2_E5M2, "E5M2 exactly at both limits"},
    {0.0, 19.0, 0.0, NAN, 1000, 10.0, LAB2_KEEP, "E5M2's SQNR NaN: not acceptable"},
};

/* A hidden tensor's decision from the reference's statistics and casts (its
 * goldens): the rule on numbers no table lists. Fed the reference's numbers,
 * not the student's, so that a wrong statistic costs only the tests aimed
 * at it, with and without a seed. */
static void check_rule_on(gr_mismatches *m, const tensor *t)
{
    lab2_stats s = {.n = (size_t)t->stats[0], .nan = (size_t)t->stats[1],
                    .inf = (size_t)t->stats[2], .zeros = (size_t)t->stats[3],
                    .nonzero = (size_t)t->stats[4], .amax = (float)t->stats[5],
                    .min_nonzero = (float)t->stats[6], .p_lo = (float)t->stats[7],
                    .p_hi = (float)t->stats[8], .range_bits = t->stats[9],
                    .range_bits_pct = t->stats[10], .outlier_ratio = t->stats[11]};
    lab2_cast c[2];
    for (int r = 0; r < 2; r++)
        c[r] = (lab2_cast){r == 0 ? FP8_E4M3 : FP8_E5M2, (float)t->casts[r][1], t->casts[r][2],
                           t->casts[r][3], t->casts[r][4], t->casts[r][5]};
    char why[512] = "";
    lab2_choice got = lab2_recommend(&s, &c[0], &c[1], why, sizeof why);
    gr_expect(m, got == (lab2_choice)t->choice,
              "%s: lab2_recommend on the reference's statistics and casts (E4M3: %.4g%% "
              "underflow, SQNR %.4g dB; E5M2: %.4g%%, %.4g dB)\n  expected %s\n  got      %s "
              "(\"%.200s\")",
              t->name, 100.0 * c[0].underflow, c[0].sqnr_db, 100.0 * c[1].underflow,
              c[1].sqnr_db, lab2_choice_name((lab2_choice)t->choice), lab2_choice_name(got),
              why);
}

static void test_recommend_rule(void)
{
    gr_mismatches m = {0};
    for (size_t k = 0; k < sizeof RULES / sizeof RULES[0]; k++) {
        const rule_case *r = &RULES[k];
        lab2_stats t = {.n = 2000, .nonzero = r->nonzero, .amax = 1.0f,
                        .range_bits_pct = r->range_pct, .range_bits = r->range_pct + 4.0};
        t.zeros = t.n - t.nonzero;
        lab2_cast e4 = {FP8_E4M3, 448.0f, 0.0, r->uf4, 1e-6, r->sq4};
        lab2_cast e5 = {FP8_E5M2, 57344.0f, 0.0, r->uf5, 1e-6, r->sq5};
        char why[256];
        memset(why, 'x', sizeof why);
        lab2_choice got = lab2_recommend(&t, &e4, &e5, why, sizeof why);
        gr_expect(&m, got == r->want,
                  "lab2_recommend (%s): E4M3 underflow %g, SQNR %g dB; E5M2 underflow %g, "
                  "SQNR %g dB; nonzero %zu, range %g bits\n  expected %s\n  got      %s",
                  r->note, r->uf4, r->sq4, r->uf5, r->sq5, r->nonzero, r->range_pct,
                  lab2_choice_name(r->want), lab2_choice_name(got));
        bool terminated = memchr(why, '\0', sizeof why) != NULL;
        gr_expect(&m, terminated && why[0] != '\0' && strpbrk(why, "0123456789") != NULL,
                  "lab2_recommend (%s): the reason should be a non-empty string with the "
                  "numbers behind it, NUL-terminated within size",
                  r->note);
    }
    /* size 1: only the terminator fits; size 0: nothing is written. */
    lab2_stats t = {.n = 1, .nonzero = 1, .amax = 1.0f};
    lab2_cast e4 = {FP8_E4M3, 448.0f, 0.0, 0.0, 0.0, 30.0}, e5 = e4;
    e5.fmt = FP8_E5M2;
    char small[2] = {'x', 'y'};
    lab2_recommend(&t, &e4, &e5, small, 1);
    gr_expect(&m, small[0] == '\0' && small[1] == 'y',
              "lab2_recommend(..., why, size 1): expected why[0] = '\\0' and nothing after it");
    lab2_recommend(&t, &e4, &e5, small + 1, 0);
    gr_expect(&m, small[1] == 'y', "lab2_recommend(..., why, size 0): wrote into why");
    for_each_hidden(check_rule_on, &m);
    gr_finish(&m, "checks");
}

/* ---- §6, §7 the whole chain ------------------------------------------------------------------ */

/* The first link of the chain that differs from the golden, or NULL. */
static const char *first_broken_link(const tensor *t, const lab2_stats *s, const lab2_cast c[2])
{
    double got[LAB2_STATS_LEN], row[LAB2_CAST_COLS];
    stats_row(s, got);
    for (int f = 0; f < LAB2_STATS_LEN; f++)
        if (!close_rel(t->stats[f], got[f], f >= 9 ? 1e-12 : 0.0))
            return "lab2_tensor_stats (see the stats_* tests)";
    for (int r = 0; r < 2; r++) {
        cast_row(&c[r], row);
        if (row[1] != t->casts[r][1])
            return "lab2_tensor_scale (see tensor_scale)";
        for (int f = 2; f < LAB2_CAST_COLS; f++)
            if (!close_rel(t->casts[r][f], row[f], f >= 4 ? 1e-9 : 1e-12))
                return "lab2_cast_stats (see the cast_* tests)";
    }
    return NULL;
}

static void check_chain(gr_mismatches *m, const tensor *t)
{
    lab2_stats s;
    student_stats(t, &s);
    lab2_cast c[2];
    for (int r = 0; r < 2; r++) {
        fp8_format fmt = r == 0 ? FP8_E4M3 : FP8_E5M2;
        lab2_cast_stats(t->x.data, t->x.count, fmt, lab2_tensor_scale(s.amax, fmt), &c[r]);
    }
    char why[512] = "";
    lab2_choice got = lab2_recommend(&s, &c[0], &c[1], why, sizeof why);
    const char *link = first_broken_link(t, &s, c);
    gr_expect(m, got == (lab2_choice)t->choice,
              "%s.npy: stats, both casts under lab2_tensor_scale, then lab2_recommend\n"
              "  expected %s\n  got      %s (\"%.200s\")\n  %s%s",
              t->name, lab2_choice_name((lab2_choice)t->choice), lab2_choice_name(got), why,
              link ? "the first link that differs from the golden: " : "",
              link ? link : "the statistics match the golden: the rule differs (README §5)");
}

static void test_recommend_synthetic(void)
{
    gr_mismatches m = {0};
    for (int k = 0; k < LAB2_N_SYNTHETIC; k++) {
        tensor t;
        tensor_load(k, &t);
        check_chain(&m, &t);
        tensor_free(&t);
    }
    gr_finish(&m, "decisions");
}

static void test_recommend_real(void)
{
    gr_mismatches m = {0};
    for (int k = LAB2_N_SYNTHETIC; k < N_TENSORS; k++) {
        tensor t;
        tensor_load(k, &t);
        check_chain(&m, &t);
        tensor_free(&t);
    }
    gr_finish(&m, "decisions");
}

extern const grader_lab lab2_rubric;

static const grader_case cases[] = {
    {"magnitudes", test_magnitudes},
    {"percentile", test_percentile},
    {"stats_counts", test_stats_counts},
    {"stats_extremes", test_stats_extremes},
    {"stats_range", test_stats_range},
    {"tensor_scale", test_tensor_scale},
    {"cast_saturation", test_cast_saturation},
    {"cast_underflow", test_cast_underflow},
    {"cast_error", test_cast_error},
    {"recommend_rule", test_recommend_rule},
    {"recommend_synthetic", test_recommend_synthetic},
    {"recommend_real", test_recommend_real},
};

const grader_suite grader_this_suite = {&lab2_rubric, cases, GRADER_COUNT(cases)};
