/*
 * test_tc_bound.c - the tensor-core tolerance of lab5's GEMM tests
 * (labs/lab5/lab5_bound.h, README §5.1) against a CPU model of Hopper's FP8
 * accumulator, on the CPU, with no GPU.
 *
 * The model, written here independently of the bound: one k32 step adds
 * its 32 exact products to a float accumulator c by finding the largest
 * exponent E among c and the products, cutting every addend to a multiple
 * of q = 2^(E - kept + 1) (toward zero), adding exactly, and cutting the
 * sum to a float (toward zero again). Data as grading/lab5/suite.c draws it
 * (random E4M3 codes of exponent field up to 10, either sign), and the
 * same with every sign positive. For K = 128 .. 4096:
 *   - a correct accumulation with 14 bits kept passes with the margin: its
 *     error is at most 1 / LAB5_TC_MARGIN of the tolerance;
 *   - with 13 bits kept (one fewer) it still passes;
 *   - promoted as DeepSeek-V3 and DeepGEMM do (a fresh accumulator every
 *     128 of k, added into an FP32 sum) it passes;
 *   - one k32 step dropped fails, on mixed signs at every K and on
 *     same-sign data up to K = 1024 (beyond that the tolerance that the
 *     model forces on a non-promoting kernel is larger than one step's
 *     contribution: the line printed says by how much).
 * Each case prints its largest error as a fraction of the tolerance.
 *
 *   build/tests/lab5/test_tc_bound
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fp8.h"
#include "../../labs/lab5/lab5_bound.h"
#include "rng.h"

#define DOTS 256 /* dot products per case */
#define KMAX 4096

static const int Ks[] = {128, 256, 512, 1024, 2048, 4096};

/* The float c plus n products, one instruction of the model. */
static float model_step(float c, const double *p, int n, int kept)
{
    double lead = fabs((double)c);
    for (int k = 0; k < n; k++)
        lead = fmax(lead, fabs(p[k]));
    if (lead == 0)
        return c;
    int e;
    frexp(lead, &e); /* lead = m 2^e, m in [0.5, 1): the largest exponent E is e - 1 */
    double q = ldexp(1.0, e - 1 - kept + 1);
    double s = trunc((double)c / q) * q;
    for (int k = 0; k < n; k++)
        s += trunc(p[k] / q) * q; /* multiples of q below 2^20 q: exact in double */
    float f = (float)s;
    if (fabs((double)f) > fabs(s))
        f = nextafterf(f, 0.0f);
    return f;
}

typedef enum { CORRECT, DROPPED, PROMOTED } accum_kind;

/* The model's result for the K products p, with `kept` bits. */
static double model_dot(const double *p, int K, int kept, accum_kind kind)
{
    float c = 0.0f, total = 0.0f;
    for (int k0 = 0; k0 < K; k0 += LAB5_TC_STEP) {
        if (kind == DROPPED && k0 == (K / 2 / LAB5_TC_STEP) * LAB5_TC_STEP)
            continue; /* one k32 step, in the middle, never issued */
        c = model_step(c, p + k0, LAB5_TC_STEP, kept);
        if (kind == PROMOTED && (k0 + LAB5_TC_STEP) % 128 == 0) {
            total += c; /* the FP32 add on the CUDA cores */
            c = 0.0f;
        }
    }
    return kind == PROMOTED ? (double)(total + c) : (double)c;
}

/* DOTS random dot products of length K (same_sign: every product > 0);
 * for each accumulation, the largest |model - exact| / tolerance. */
static void run_case(int K, int same_sign, double worst[4], int *caught)
{
    rng_state rng;
    rng_seed(&rng, 21, (uint64_t)K * 2 + (uint64_t)same_sign);
    static double p[KMAX];
    worst[0] = worst[1] = worst[2] = worst[3] = 0;
    *caught = 0;
    for (int d = 0; d < DOTS; d++) {
        for (int k = 0; k < K; k++) {
            uint8_t code[2];
            for (int i = 0; i < 2; i++) { /* grading/lab5/suite.c's fill_codes, top_exp 3 */
                uint32_t r = rng_u32(&rng);
                code[i] = (uint8_t)(((r >> 8) % 88u) | (same_sign ? 0u : (r & 0x80u)));
            }
            p[k] = (double)fp8_decode(code[0], FP8_E4M3) * (double)fp8_decode(code[1], FP8_E4M3);
        }
        double sum;
        double tol = lab5_tc_tolerance(p, K, 1.0, &sum);
        double e14 = fabs(model_dot(p, K, 14, CORRECT) - sum) / tol;
        double e13 = fabs(model_dot(p, K, 13, CORRECT) - sum) / tol;
        double ep = fabs(model_dot(p, K, 14, PROMOTED) - sum) / tol;
        double ed = fabs(model_dot(p, K, 14, DROPPED) - sum) / tol;
        worst[0] = fmax(worst[0], e14);
        worst[1] = fmax(worst[1], e13);
        worst[2] = fmax(worst[2], ep);
        worst[3] = fmax(worst[3], ed);
        *caught += !(ed <= 1.0);
    }
}

START_TEST(bound_against_model)
{
    int K = Ks[_i / 2], same = _i % 2;
    double w[4];
    int caught;
    run_case(K, same, w, &caught);
    printf("K = %4d, %-10s  error / tolerance, largest of %d: 14 bits %.3f, 13 bits %.3f, "
           "promoted %.3f, a k32 step dropped %.2f (caught in %d of %d)\n",
           K, same ? "same sign" : "mixed", DOTS, w[0], w[1], w[2], w[3], caught, DOTS);
    ck_assert_msg(w[0] <= 1.0 / LAB5_TC_MARGIN, "K = %d: 14 bits kept uses %.3f of the "
                  "tolerance, more than 1 / margin", K, w[0]);
    ck_assert_msg(w[1] <= 1.0, "K = %d: 13 bits kept uses %.3f of the tolerance", K, w[1]);
    ck_assert_msg(w[2] <= 1.0 / LAB5_TC_MARGIN, "K = %d: promoted, %.3f of the tolerance", K,
                  w[2]);
    if (!same || K <= 1024)
        ck_assert_msg(caught > 0, "K = %d: a dropped k32 step passed every one of %d checks "
                      "(largest error %.3f of the tolerance)", K, DOTS, w[3]);
}
END_TEST

/* The bound by hand for two products a step, K = 64 (two steps), same sign:
 * p = 1 everywhere. Step 1: lead = 1, q = 2^-13, pos = 32 q: err = 33 q
 * plus 2^-23 (32 + 33 q). Step 2: lead = 32 + err, q = 2^-8 (32 <= lead < 64,
 * so q = lead 2^-13, taken as is), err += q + 32 q + 2^-23 |...|. */
START_TEST(bound_by_hand)
{
    double p[64], sum;
    for (int k = 0; k < 64; k++)
        p[k] = 1.0;
    double err = lab5_tc_model_error(p, 64, 14, &sum);
    double e1 = 33 * 0x1p-13;
    e1 += ldexp(32 + e1, -23);
    double lead = 32 + e1, q = ldexp(lead, -13);
    double e2 = e1 + q + 32 * fmin(1.0, q);
    e2 += ldexp(64 + e2, -23);
    ck_assert_msg(sum == 64.0, "sum %.17g", sum);
    ck_assert_msg(err == e2, "error %.17g, by hand %.17g", err, e2);
    /* mixed signs: +1, -1 alternating; the partial sums are 0, the lead is 1 */
    for (int k = 0; k < 64; k++)
        p[k] = k % 2 ? -1.0 : 1.0;
    err = lab5_tc_model_error(p, 64, 14, &sum);
    double m1 = 0x1p-13 + 16 * 0x1p-13;
    m1 += ldexp(0 + m1, -23);
    double m2 = m1 + ldexp(fmax(m1, 1.0), -13) * 17;
    m2 += ldexp(0 + m2, -23);
    ck_assert_msg(sum == 0.0 && err == m2, "sum %.17g, error %.17g, by hand %.17g", sum, err,
                  m2);
}
END_TEST

/* The bound as its header's comment states it, written with the library's
 * fmax, fmin, fabs and ldexp: lab5_tc_model_error, which avoids them in its
 * loops for speed, must give the same double, bit for bit. */
static double bound_as_written(const double *p, int K, int kept, double *sum)
{
    double exact = 0, err = 0;
    for (int k0 = 0; k0 < K; k0 += LAB5_TC_STEP) {
        int n = K - k0 < LAB5_TC_STEP ? K - k0 : LAB5_TC_STEP;
        double pmax = 0, step = 0;
        for (int k = k0; k < k0 + n; k++) {
            pmax = fmax(pmax, fabs(p[k]));
            step += p[k];
        }
        double q = ldexp(fmax(fabs(exact) + err, pmax), 1 - kept);
        double pos = 0, neg = 0;
        for (int k = k0; k < k0 + n; k++)
            if (p[k] > 0)
                pos += fmin(p[k], q);
            else
                neg += fmin(-p[k], q);
        exact += step;
        err += q + fmax(pos, neg);
        err += ldexp(fabs(exact) + err, -23);
    }
    *sum = exact;
    return err;
}

START_TEST(bound_same_bits)
{
    rng_state rng;
    rng_seed(&rng, 21, 999);
    static double p[KMAX];
    for (int d = 0; d < 2000; d++) {
        int K = 1 + (int)rng_below(&rng, d < 1000 ? 200 : KMAX); /* short last steps too */
        for (int k = 0; k < K; k++) {
            uint32_t r = rng_u32(&rng);
            /* every finite code, zeros and -0 included; some steps all zero */
            uint8_t a = (uint8_t)(r % 0x7Fu | (r >> 8 & 0x80u));
            uint8_t b = (uint8_t)((r >> 16) % 0x7Fu | (r >> 24 & 0x80u));
            p[k] = (d % 7 == 0 && k < 64) ? (r & 1 ? -0.0 : 0.0)
                                         : (double)fp8_decode(a, FP8_E4M3) *
                                               (double)fp8_decode(b, FP8_E4M3);
        }
        for (int kept = 13; kept <= 14; kept++) {
            double s1, s2;
            double e1 = lab5_tc_model_error(p, K, kept, &s1);
            double e2 = bound_as_written(p, K, kept, &s2);
            ck_assert_msg(memcmp(&e1, &e2, sizeof e1) == 0 && memcmp(&s1, &s2, sizeof s1) == 0,
                          "dot %d (K = %d, %d bits): error %a, as written %a; sum %a, as "
                          "written %a", d, K, kept, e1, e2, s1, s2);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lab5 tensor-core bound");
    TCase *tc = tcase_create("bound");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bound_by_hand);
    tcase_add_test(tc, bound_same_bits);
    tcase_add_loop_test(tc, bound_against_model, 0, (int)(2 * sizeof Ks / sizeof Ks[0]));
    suite_add_tcase(s, tc);
    return check_run(s);
}
