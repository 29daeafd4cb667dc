/*
 * suite.h - what a lab's Check suite (grading/labN_suite.c) is built from.
 *
 * A suite is a table of test functions, one per rubric entry, linked with
 * grading/runner.c, the reference and the lab's call table (its proxies of
 * the lab's functions, channel.h) into the lab's judge; lab5's, with the
 * submission's object files into a test runner.
 * The runner makes each test a Check test case of its own, run in a fork of
 * its own, under the rubric's time limit, with what it prints sent to a file;
 * a test passes only by returning normally (see runner.c on exit(0)).
 *
 * The helpers below build the counterexample a failing test reports, in the
 * style of a bit-level lab: the input, expected vs got as value and hex bits,
 * and how many elements differ.
 *
 * Not for: the driver (grader.c), which never links a submission.
 */
#ifndef FP8LAB_SUITE_H
#define FP8LAB_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>

#include "fp8.h"
#include "npy.h"
#include "rng.h"
#include "rubric.h"
#include "stats.h"

typedef struct grader_case {
    const char *name; /* the rubric test it implements */
    void (*fn)(void);
} grader_case;

typedef struct grader_suite {
    const grader_lab *lab;
    const grader_case *cases;
    int ncases;
} grader_suite;

/* Each labN_suite.c defines this; the runner checks it against the rubric. */
extern const grader_suite grader_this_suite;

/* Loads a golden file of the lab (GRADER_GOLDEN_DIR/file) with the given
 * dtype, ndim and shape (0 = any extent; shape may be NULL), or fails the
 * test with the loader's message. Release with npy_free. */
void gr_golden(const char *file, npy_dtype dtype, int ndim, const size_t *shape,
               npy_array *out);

/* Hidden inputs (./grader --seed S): 1 and *seed, a number made from S,
 * when the grader gave one; 0 when not. A test listed in its rubric's
 * `hidden` then also draws inputs from *seed and checks the submission
 * against the reference solution (lab's functions renamed ref_<name>, linked
 * into the judge). */
int gr_seed(uint64_t *seed);

/* gr_seed, then *rng seeded from it on the lab's own stream; 0 (rng
 * untouched) without a seed. */
int gr_hidden_rng(rng_state *rng, uint64_t stream);

/* A hidden input: a random sign times (1 + u) x 2^e, u uniform in [0, 1)
 * and e uniform in lo .. lo + binades - 1. */
float gr_hidden_float(rng_state *rng, int lo, int binades);

/* How many mismatches a failure lists: 1, or more under ./grader -v. */
int gr_show(void);

/* A float as "0.0703125 [0x3d900000]", and a code as "0x09 (0.0703125)".
 * Each returns one of a ring of static buffers, so several may appear in
 * one printf. */
const char *gr_f32(float v);
const char *gr_code(uint8_t code, fp8_format fmt);

/* Collects the mismatches of one check. */
typedef struct gr_mismatches {
    size_t count;     /* mismatches seen */
    size_t checked;   /* elements compared */
    char text[6144];  /* the first gr_show() of them, described */
    size_t len;
} gr_mismatches;

/* Records element checked; when !ok, counts it and, while fewer than
 * gr_show() are described, appends the printf-style description. A macro:
 * the description's arguments (gr_f32 and the like, a snprintf each) are
 * evaluated only for a mismatch, not for each of a million elements that
 * agree. m is evaluated once. */
#define gr_expect(m, ok, ...)                                                   \
    do {                                                                        \
        gr_mismatches *gr_expect_m_ = (m);                                      \
        gr_expect_m_->checked++;                                                \
        if (!(ok))                                                              \
            gr_mismatch(gr_expect_m_, __VA_ARGS__);                             \
    } while (0)

/* Counts a mismatch in m and, while fewer than gr_show() are described,
 * appends the printf-style description (gr_expect's failing half). */
void gr_mismatch(gr_mismatches *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fails the test when any mismatch was recorded: the descriptions, then
 * "N of M <noun> differ". */
void gr_finish(const gr_mismatches *m, const char *noun);

#endif
