/*
 * lab4/rubric.c - lab4's tests and their points: the one place they are set.
 * The tests themselves are in grading/lab4/suite.c; the sections are the handout's,
 * labs/lab4/README.md.
 */
#include <stddef.h>

#include "rubric.h"

static const char *const student_files[] = {"lab4.c", 0};
static const char *const provided_files[] = {"lab4.h", 0};

#define S2 "§2 E8M0"
#define S3 "§3 The shared scale: floor and ceil"
#define S4 "§4 Special cases"
#define S5 "§5 Quantizing a matrix"
#define S6 "§6 Block-scaled dot products"
#define S7 "§7 NVFP4"

/* builds_on: the tests of the functions a test's calls go through (lab4.h:
 * lab4_mx_quantize takes lab4_shared_scale of lab4_block_amax; a scale may
 * use lab4_elem_emax; lab4_mx_gemm is lab4_mx_dot per element), named first
 * when they fail too. */
static const grader_test tests[] = {
    {"e8m0_decode", 5, "every E8M0 code", S2, 5, 0, NULL},
    {"block_amax", 5, "block amax, NaN and inf", S3, 5, 0, NULL},
    {"elem_emax", 3, "emax of each element format", S3, 5, 0, NULL},
    {"scale_floor", 8, "OCP's floor rule", S3, 5, 0, "elem_emax"},
    {"scale_ceil", 8, "the round-up rule", S3, 5, 0, "elem_emax"},
    {"scale_special", 6, "amax 0, NaN, inf, tiny", S4, 5, 0, "elem_emax"},
    {"quantize_e4m3", 8, "MXFP8 E4M3, both rules", S5, 5, 0, "block_amax scale_floor scale_ceil"},
    {"quantize_e5m2", 4, "MXFP8 E5M2", S5, 5, 0, "block_amax scale_floor"},
    {"quantize_fp6", 5, "MXFP6 E3M2 and E2M3", S5, 5, 0, "block_amax scale_floor"},
    {"quantize_fp4", 5, "MXFP4 E2M1, both rules", S5, 5, 0, "block_amax scale_floor scale_ceil"},
    {"quantize_tail", 5, "short last blocks; blocks of 1 to 128", S5, 5, 0, "block_amax scale_floor scale_ceil"},
    {"quantize_special_blocks", 5, "zero, NaN, inf and tiny blocks", S4, 5, 0, "block_amax scale_special scale_floor scale_ceil"},
    {"hand_block", 5, "the handout's block, worked by hand", S3, 5, 0, "block_amax scale_floor scale_ceil"},
    {"dequantize", 6, "decode times the block scale; any block", S5, 5, 0, "e8m0_decode"},
    {"dot", 6, "block-scaled dot products; extreme scales", S6, 5, 0, NULL},
    {"gemm", 5, "block-scaled GEMM; m, n and k different", S6, 5, 0, "dot"},
    {"nvfp4_scale", 3, "the per-tensor scale", S7, 5, 0, NULL},
    {"nvfp4_quantize", 4, "NVFP4 block scales and codes; short blocks", S7, 5, 0, "block_amax"},
    {"nvfp4_dequantize", 4, "NVFP4 decoding; NaN and zero scales", S7, 5, 0, NULL},
};

/* The course's codec; its MX library is what lab4 asks for. */
static const char *const library[] = {"fp8", "rng", 0};
static const char *const forbidden[] = {"mx_*", 0};

/* Under --seed, these also check inputs drawn from the seed (hidden inputs). */
static const char *const hidden[] = {"quantize_e4m3", 0};

const grader_lab lab4_rubric = {
    .name = "lab4",
    .title = "MXFP8 microscaling blocks",
    .student_files = student_files,
    .provided_files = provided_files,
    .mem_limit_mib = 1024,
    .forbidden = forbidden,
    .library = library,
    .forbidden_why = "the course's MX quantizer (common/mx.h) is what lab4 asks you to write",
    .hidden = hidden,
    .tests = tests,
    .ntests = GRADER_COUNT(tests),
};
