/*
 * lab6/rubric.c - lab6's tests and their points: the one place they are set.
 * The tests themselves are in grading/lab6/suite.c; the sections are the handout's,
 * labs/lab6/README.md.
 */
#include <stddef.h>

#include "rubric.h"

static const char *const student_files[] = {"lab6.c", 0};
static const char *const provided_files[] = {"lab6.h", 0};

#define S4 "§4 The FP8 linear layer"
#define S5 "§5 Fine-grained scaling"
#define S6 "§6 Stochastic rounding"

/* builds_on: forward and backward cast through lab6_fp8_cast; the tile and
 * block quantizers take lab6_tile_scale. */
static const grader_test tests[] = {
    {"cast_delayed", 8, "the delayed-scaling cast, E4M3 and E5M2", S4, 5, 0, NULL},
    {"cast_current", 6, "current scaling: the scale from the tensor's amax", S4, 5, 0, NULL},
    {"cast_counts", 4, "the saturated and flushed counts", S4, 5, 0, NULL},
    {"forward", 8, "the FP8 forward GEMM and what it keeps", S4, 5, 0, "cast_delayed cast_current"},
    {"backward_dx", 7, "dgrad: dy in E5M2 times the forward's W", S4, 5, 0, "cast_delayed"},
    {"backward_dw", 7, "wgrad: dy in E5M2 times the forward's x", S4, 5, 0, "cast_delayed"},
    {"update", 4, "the scalers' update between steps", S4, 5, 0, NULL},
    {"cast_sqnr", 6, "a cast's SQNR; one scale over the fused QKV", S4, 5, 0, NULL},
    {"tile_scale", 4, "a group's FP32 scale", S5, 5, 0, NULL},
    {"quantize_tiles", 7, "1 x 128 tiles along each row", S5, 5, 0, "tile_scale"},
    {"quantize_blocks", 6, "128 x 128 weight blocks", S5, 5, 0, "tile_scale"},
    {"gemm_tiles", 8, "the GEMM with partial sums promoted per tile", S5, 5, 0, NULL},
    {"sr_bf16", 8, "stochastic rounding to BF16, bit for bit", S6, 10, 0, NULL},
    {"sr_fp8", 8, "stochastic rounding to E4M3 and E5M2, bit for bit", S6, 10, 0, NULL},
    {"sr_unbiased", 5, "stochastic rounding's mean is x", S6, 20, 0, NULL},
};

/* Under --seed, these also check inputs drawn from the seed (hidden inputs). */
static const char *const hidden[] = {"cast_delayed", "cast_current", "cast_counts", "forward",
                                     "backward_dx", "backward_dw", "cast_sqnr", "tile_scale",
                                     "quantize_tiles", "quantize_blocks", "gemm_tiles", "sr_bf16",
                                     "sr_fp8", 0};

/* The course's codec and lab 1's delayed scaler, which lab6 builds on. */
static const char *const library[] = {"fp8", "rng", "delayed", 0};

/* The library's stochastic rounding is exercise 10, and its 16-bit
 * conversions would round to BF16 for exercise 9. */
static const char *const forbidden[] = {"fp8_encode_stochastic", "fp8_encode_array_stochastic",
                                        "fp16_*", "bf16_*", 0};

const grader_lab lab6_rubric = {
    .name = "lab6",
    .title = "An FP8 transformer",
    .student_files = student_files,
    .provided_files = provided_files,
    .mem_limit_mib = 1024,
    .library = library,
    .forbidden = forbidden,
    .forbidden_why = "exercises 9 and 10 ask you to write stochastic rounding yourself (README §6)",
    .hidden = hidden,
    .tests = tests,
    .ntests = GRADER_COUNT(tests),
};
