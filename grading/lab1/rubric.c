/*
 * lab1/rubric.c - lab1's tests and their points: the one place they are set.
 * The tests themselves are in grading/lab1/suite.c; the sections are the handout's,
 * labs/lab1/README.md.
 */
#include <stddef.h>

#include "rubric.h"

static const char *const student_files[] = {"lab1.c", 0};
static const char *const provided_files[] = {"lab1.h", 0};
/* The course's codec, which lab1 builds on. */
static const char *const library[] = {"fp8", "rng", 0};
static const char *const forbidden[] = {"delayed_*", 0};
/* Under --seed, these also check inputs drawn from the seed (hidden inputs). */
static const char *const hidden[] = {"cast_counts", 0};

#define S2 "§2 Which format for which tensor"
#define S3 "§3 amax"
#define S4 "§4 The scaled cast"
#define S5 "§5 Delayed scaling: the amax history"
#define S6 "§6 The scale from amax"
#define S7 "§7 Current scaling"
#define S8 "§8 The moving-average variant"

static const grader_test tests[] = {
    {"format_hybrid", 3, "E4M3 forward, E5M2 for gradients", S2, 5, 0, NULL},
    {"amax", 4, "amax of the stream's tensors", S3, 5, 0, NULL},
    {"amax_ignores_nan", 5, "amax skips NaN, keeps inf", S3, 5, 0, "amax"},
    {"scaled_cast", 8, "the scaled cast's bytes, step by step", S4, 5, 0, NULL},
    {"cast_counts", 6, "saturated and flushed counts", S4, 5, 0, NULL},
    {"delayed_init", 4, "the first step runs with scale 1", S5, 5, 0, "format_hybrid"},
    {"delayed_cast", 6, "the cast records the unscaled amax in slot 0", S5, 5, 0, "amax scaled_cast cast_counts"},
    {"update_roll", 8, "amax read before the roll; the roll", S5, 5, 0, NULL},
    {"update_max", 8, "algo max over the stream, step by step", S5, 5, 0, "update_roll"},
    {"update_most_recent", 6, "algo most_recent over the stream", S5, 5, 0, "update_roll"},
    {"update_margin", 6, "the margin divides by 2^margin", S6, 5, 0, "update_roll update_max"},
    {"update_amax_zero", 5, "amax 0 keeps the scale", S6, 5, 0, "update_roll"},
    {"update_amax_inf_nan", 5, "amax inf or NaN keeps the scale", S6, 5, 0, "update_roll"},
    {"update_scale_overflow", 4, "an infinite scale becomes FLT_MAX", S6, 5, 0, "update_roll update_max"},
    {"stream_gradient", 5, "the gradient stream in E5M2", S2 " and " S5, 5, 0, "format_hybrid delayed_init scaled_cast cast_counts delayed_cast update_roll update_max"},
    {"current_scale", 5, "current scaling of the stream", S7, 5, 0, NULL},
    {"current_edge_cases", 4, "epsilon, amax 0, inf, NaN, tiny", S7, 5, 0, "current_scale"},
    {"current_pow2", 4, "power-of-2 scales, rounded down", S7, 5, 0, "current_scale"},
    {"ema", 4, "momentum on the scale", S8, 5, 0, "format_hybrid update_max update_margin update_amax_zero update_scale_overflow"},
};

const grader_lab lab1_rubric = {
    .name = "lab1",
    .title = "Delayed scaling",
    .student_files = student_files,
    .provided_files = provided_files,
    .mem_limit_mib = 1024,
    .forbidden = forbidden,
    .library = library,
    .hidden = hidden,
    .forbidden_why = "the course's delayed scaler (delayed.h) is what lab1 asks you to write",
    .tests = tests,
    .ntests = GRADER_COUNT(tests),
};
