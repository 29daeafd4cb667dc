/*
 * lab2/rubric.c - lab2's tests and their points: the one place they are set.
 * The tests themselves are in grading/lab2/suite.c; the sections are the handout's,
 * labs/lab2/README.md.
 */
#include <stddef.h>

#include "rubric.h"

static const char *const student_files[] = {"lab2.c", 0};
static const char *const provided_files[] = {"lab2.h", 0};

#define S2 "§2 What a tensor holds"
#define S3 "§3 Range: amax, percentiles, outliers"
#define S4 "§4 What a scaled cast does"
#define S5 "§5 The decision rule"
#define S6 "§6 Tensors with known properties"
#define S7 "§7 Real tensors"

/* What the whole-chain tests call: every function of the lab. */
#define CHAIN                                                                              \
    "stats_counts stats_extremes stats_range tensor_scale cast_saturation cast_underflow " \
    "cast_error recommend_rule"

static const grader_test tests[] = {
    {"magnitudes", 8, "finite nonzero |x|, sorted", S3, 5, 0, NULL},
    {"percentile", 8, "nearest-rank percentiles", S3, 5, 0, NULL},
    /* 15 s: its tensor that cannot be allocated is half the subject's 1 GiB,
     * 128 M floats the judge checks are zeros and the submission scans
     * (the reference: 1.7 s on 2 cores at a load average of 4; 5 s ran out
     * at a load of 20, a margin too thin for a shared machine). */
    {"stats_counts", 8, "NaN, inf, zero and nonzero counts", S2, 15, 0, "magnitudes"},
    {"stats_extremes", 8, "amax, min nonzero, p0.1, p99.9", S3, 5, 0, "magnitudes percentile"},
    {"stats_range", 10, "dynamic range in bits, outlier ratio", S3, 5, 0,
     "magnitudes percentile stats_extremes"},
    {"tensor_scale", 5, "the per-tensor scale", S4, 5, 0, NULL},
    {"cast_saturation", 8, "the fraction that saturates", S4, 5, 0, NULL},
    {"cast_underflow", 8, "the fraction that underflows", S4, 5, 0, NULL},
    {"cast_error", 12, "MSE and SQNR of the round trip", S4, 5, 0, NULL},
    {"recommend_rule", 10, "the rule, at its edges", S5, 5, 0, NULL},
    {"recommend_synthetic", 6, "decisions on known tensors", S6, 5, 0, CHAIN},
    {"recommend_real", 9, "decisions on lab3's tensors", S7, 5, 0, CHAIN},
};

/* Why these: the statistics are the exercise, not a call to someone else's. */
/* The course's codec, which lab2 builds on. */
static const char *const library[] = {"fp8", "rng", 0};
static const char *const forbidden[] = {"stats_*", 0};
/* Under --seed, these also check tensors drawn from the seed (hidden inputs). */
static const char *const hidden[] = {"stats_counts",    "stats_extremes", "stats_range",
                                     "cast_saturation", "cast_underflow", "cast_error",
                                     "recommend_rule", 0};

const grader_lab lab2_rubric = {
    .name = "lab2",
    .title = "The format recommender",
    .student_files = student_files,
    .provided_files = provided_files,
    .mem_limit_mib = 1024,
    .forbidden = forbidden,
    .library = library,
    .hidden = hidden,
    .forbidden_why = "lab2 asks you to compute the statistics yourself, not with common/stats.h",
    .tests = tests,
    .ntests = GRADER_COUNT(tests),
};
