/*
 * lab3/rubric.c - lab3's tests and their points: the one place they are set.
 * The tests themselves are in grading/lab3/suite.c; the sections are the handout's,
 * labs/lab3/README.md.
 */
#include <stddef.h>

#include "rubric.h"

static const char *const student_files[] = {"lab3.c", 0};
static const char *const provided_files[] = {"lab3.h", 0};

#define S3 "§3 The cast"
#define S4 "§4 The FP8 linear layer"
#define S5 "§5 The loss"
#define S6 "§6 Dynamic loss scaling"
#define S7 "§7 The optimizer and the master weights"
#define S8 "§8 One training step"
#define S10 "§10 FP16 and BF16 beside FP8"

/* What an FP8 training step calls (the skipped step stops before SGD). */
#define STEP_FP8                                                                       \
    "cast_e4m3 cast_e5m2 forward_fp8 backward_dx backward_dw_db softmax_xent unscale " \
    "scaler_update"

static const grader_test tests[] = {
    {"cast_e4m3", 6, "the E4M3 cast of an input and a weight", S3, 5, 0, NULL},
    {"cast_e5m2", 4, "the E5M2 cast of a gradient", S3, 5, 0, NULL},
    {"forward_fp8", 8, "the FP8 forward pass of both layers", S4, 5, 0, "cast_e4m3"},
    {"forward_fp32", 3, "the FP32 forward pass", S4, 5, 0, NULL},
    {"backward_dx", 7, "the input gradient, FP8", S4, 5, 0, "cast_e5m2"},
    {"backward_dw_db", 8, "the weight and bias gradients, FP8", S4, 5, 0, "cast_e5m2"},
    {"backward_fp32", 3, "the FP32 backward pass", S4, 5, 0, NULL},
    {"softmax_xent", 7, "softmax cross-entropy and its gradient", S5, 5, 0, NULL},
    {"unscale", 5, "dividing the loss scale out; found_inf", S6, 5, 0, NULL},
    {"scaler_update", 8, "the loss scaler's growth and backoff", S6, 5, 0, NULL},
    {"sgd_step", 6, "SGD with momentum on the master weights", S7, 5, 0, NULL},
    {"train_step_fp8", 10, "one FP8 training step", S8, 10, 0, STEP_FP8 " sgd_step"},
    {"train_step_fp32", 4, "one FP32 training step", S8, 10, 0,
     "forward_fp32 backward_fp32 softmax_xent unscale scaler_update sgd_step"},
    {"skipped_step", 8, "a step with a NaN is skipped", S8, 10, 0, STEP_FP8},
    {"train_short", 8, "three epochs on the subset learn", S8, 30, 0, "train_step_fp8"},
    {"bf16_cast", 5, "the BF16 cast on the float's bits", S10, 5, 0, NULL},
};

/* Under --seed, these also check inputs drawn from the seed (hidden inputs). */
static const char *const hidden[] = {"cast_e4m3", "cast_e5m2", "bf16_cast", 0};

/* The course's codec and delayed scaler, which lab3 builds on. */
static const char *const library[] = {"fp8", "rng", "delayed", 0};

/* fp8.h's 16-bit functions would do exercise 9's cast. */
static const char *const forbidden[] = {"fp16_*", "bf16_*", 0};

const grader_lab lab3_rubric = {
    .name = "lab3",
    .title = "The FP8 MLP training loop",
    .student_files = student_files,
    .provided_files = provided_files,
    .mem_limit_mib = 1024,
    .library = library,
    .forbidden = forbidden,
    .forbidden_why = "exercise 9 asks you to write the BF16 cast yourself (README §10)",
    .hidden = hidden,
    .tests = tests,
    .ntests = GRADER_COUNT(tests),
};
