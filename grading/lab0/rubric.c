/*
 * lab0/rubric.c - lab0's tests and their points: the one place they are set.
 * The tests themselves are in grading/lab0/suite.c; the sections are the handout's,
 * labs/lab0/README.md.
 */
#include <stddef.h>

#include "rubric.h"

static const char *const student_files[] = {"lab0.c", 0};
static const char *const provided_files[] = {"lab0.h", 0};
static const char *const forbidden[] = {"fp8_*", "fp16_*", "bf16_*", 0};
/* Under --seed, these also check inputs drawn from the seed (hidden inputs). */
static const char *const hidden[] = {"encode_random", 0};

static const grader_test tests[] = {
    {"decode_e4m3", 10, "decode every E4M3 code", "§2 Decoding", 5, 0, NULL},
    {"decode_e5m2", 10, "decode every E5M2 code", "§2 Decoding", 5, 0, NULL},
    {"encode_exact", 10, "encode every representable value", "§1 Bit layout and bias", 5, 0, NULL},
    {"encode_rne", 10, "round to nearest, ties to even", "§3 Rounding to nearest, ties to even", 5, 0, NULL},
    {"encode_subnormal", 10, "round into the subnormals and to zero", "§4 Subnormals", 5, 0, NULL},
    {"encode_saturate", 10, "overflow, saturating", "§5 Overflow: saturating and non-saturating", 5, 0, NULL},
    {"encode_overflow_nosat", 10, "overflow, non-saturating", "§5 Overflow: saturating and non-saturating", 5, 0, NULL},
    {"encode_nan", 5, "NaN inputs give the canonical NaN", "§6 NaN", 5, 0, NULL},
    {"encode_random", 10, "random floats, both formats and modes", "§3 to §6", 5, 0, NULL},
    {"limits", 10, "max, min normal, min subnormal, epsilon", "§7 Limits and the rounding error bound", 5, 0, NULL},
    {"rel_error_bound", 5, "the relative rounding error bound", "§7 Limits and the rounding error bound", 5, 0, NULL},
};

const grader_lab lab0_rubric = {
    .name = "lab0",
    .title = "FP8 number formats",
    .student_files = student_files,
    .provided_files = provided_files,
    .mem_limit_mib = 1024,
    .forbidden = forbidden,
    .hidden = hidden,
    .forbidden_why = "the course's codec (fp8.h) is what lab0 asks you to write",
    .tests = tests,
    .ntests = GRADER_COUNT(tests),
};
