/*
 * lab5/rubric.c - lab5's tests and their points: the one place they are set.
 * The tests themselves are in grading/lab5/suite.c; the sections are the handout's,
 * labs/lab5/README.md. Every test but `builds` needs a GPU, and is reported
 * SKIPPED (no points, never passed) where there is none.
 *
 * The perf_* tests are the performance points (README §7): a kernel's
 * bandwidth as a fraction of a device-to-device copy timed in the same run,
 * or a GEMM's rate as a fraction of cuBLASLt's FP8 GEMM timed in the same
 * run; each tier is a test of its own, passed when the fraction reaches it.
 *
 * The tiers, and why, from the reference solution measured on an NVIDIA
 * H200 (driver 580.159.04, CUDA 13.0, cuBLASLt 13.1.0, 2026-11-26: README
 * §10, tests/gpu/report-h200-2026-11-26.txt):
 *   - amax and the cast, 50/70/85% of the copy at 2^26 floats; MXFP8,
 *     50/65/80% (its blocks add shuffles, a scale and a byte store a block).
 *     The reference reaches 99% (amax), 97% (cast) and 95% (MXFP8): the top
 *     tiers leave it room for a few percent of run-to-run noise, and ask
 *     for what §7 lists (16-byte loads, several in flight, one wave, one
 *     atomic a block).
 *   - the GEMM, 10 and 50% of cuBLASLt's FP8 GEMM (E4M3 in, FP32 out, fast
 *     accumulation) at 4096^3, the fastest of mma, wgmma_tile and wgmma.
 *     Measured there: naive 0.08%, tiled 1.9%, mma.sync 21.8% (it runs on
 *     Hopper's FP16 path, §5.4), wgmma_tile 90.5%, wgmma 104.8%. So 10% is
 *     any tensor-core kernel and no CUDA-core one; 50% only wgmma.
 */
#include <stddef.h>

#include "rubric.h"

static const char *const student_files[] = {"kernels.cu", "gemm.cu", 0};
static const char *const provided_files[] = {"lab5.h", "lab5_wgmma.h", 0};

#define S1 "§1 The bit-exact contract"
#define S2 "§2 amax"
#define S3 "§3 The fused scale-and-cast"
#define S4 "§4 MXFP8 on the GPU"
#define S52 "§5.2 Naive"
#define S53 "§5.3 Tiled"
#define S54 "§5.4 mma.sync"
#define S55 "§5.5 wgmma"
#define S6 "§6 cuBLASLt"
#define S7 "§7 Measuring"

#define GPU 1

static const grader_test tests[] = {
    {"builds", 2, "kernels.cu and gemm.cu build with nvcc", S1, 5, 0, NULL},
    {"amax", 6, "amax of random tensors, every size", S2, 20, GPU, NULL},
    {"amax_special", 4, "NaN, inf, -0, empty", S2, 20, GPU, NULL},
    {"amax_race", 4, "many blocks racing for the max", S2, 30, GPU, NULL},
    {"cast_e4m3", 6, "scale-and-cast to E4M3", S3, 20, GPU, NULL},
    {"cast_e5m2", 4, "scale-and-cast to E5M2", S3, 20, GPU, NULL},
    {"cast_tail", 4, "n not a multiple of 4", S3, 20, GPU, NULL},
    {"cast_saturate", 4, "overflow, inf, NaN, subnormals", S3, 20, GPU, NULL},
    {"cast_amax", 3, "the cast's amax", S3, 20, GPU, NULL},
    {"mx_e4m3", 6, "MXFP8 E4M3, both rules", S4, 20, GPU, NULL},
    {"mx_e5m2", 3, "MXFP8 E5M2", S4, 20, GPU, NULL},
    {"mx_tail", 4, "row length not a multiple of 32", S4, 20, GPU, NULL},
    {"mx_special", 3, "zero, NaN, inf and tiny blocks", S4, 20, GPU, NULL},
    {"gemm_naive", 5, "naive FP8 GEMM", S52, 30, GPU, NULL},
    {"gemm_tiled", 6, "tiled FP8 GEMM", S53, 30, GPU, NULL},
    {"gemm_mma", 8, "mma.sync FP8 GEMM", S54, 30, GPU, NULL},
    {"gemm_wgmma_tile", 6, "wgmma FP8 GEMM, one warpgroup a tile", S55, 30, GPU, NULL},
    {"gemm_wgmma", 6, "wgmma FP8 GEMM (challenge)", S55, 30, GPU, NULL},
    {"gemm_cublaslt_fp8", 6, "cuBLASLt FP8: scales, D amax", S6, 30, GPU, NULL},
    {"perf_amax_50", 2, "amax at 50% of the copy", S7, 60, GPU, NULL},
    {"perf_amax_70", 2, "amax at 70% of the copy", S7, 60, GPU, NULL},
    {"perf_amax_85", 2, "amax at 85% of the copy", S7, 60, GPU, NULL},
    {"perf_cast_50", 2, "cast at 50% of the copy", S7, 60, GPU, NULL},
    {"perf_cast_70", 2, "cast at 70% of the copy", S7, 60, GPU, NULL},
    {"perf_cast_85", 2, "cast at 85% of the copy", S7, 60, GPU, NULL},
    {"perf_mx_50", 2, "MXFP8 at 50% of the copy", S7, 60, GPU, NULL},
    {"perf_mx_65", 2, "MXFP8 at 65% of the copy", S7, 60, GPU, NULL},
    {"perf_mx_80", 2, "MXFP8 at 80% of the copy", S7, 60, GPU, NULL},
    {"perf_gemm_10", 2, "GEMM at 10% of cuBLASLt FP8", S7, 60, GPU, NULL},
    {"perf_gemm_50", 2, "GEMM at 50% of cuBLASLt FP8", S7, 60, GPU, NULL},
};

/* The course library is CPU code that defines what the kernels compute:
 * a submission that copied the tensor to the host and called it would pass
 * the bit-exact tests without a kernel. */
static const char *const forbidden[] = {"fp8_*", "mx_*", "stats_*", "delayed_*", 0};

/* The FP8 tensor cores: mma.sync with E4M3 operands and cuBLASLt's FP8
 * matmul from compute capability 8.9 (Ada); wgmma and TMA, sm_90a code, on
 * 9.0 alone. Everything else runs from 7.5 (Turing) on: below 8.9
 * cuda_fp8.h converts in software, and the naive and tiled GEMMs use CUDA
 * cores. The GEMM tiers compare an FP8 tensor-core GEMM with cuBLASLt's
 * FP8 GEMM, so they need both. */
#define PERF_GEMM "the tiers time an FP8 tensor-core GEMM against cuBLASLt's FP8 GEMM"
#define SM90A "wgmma and TMA: sm_90a code, which runs on 9.0 alone"
static const grader_gpu_need gpu_needs[] = {
    {"gemm_mma", 89, 0, "mma.sync with E4M3 operands"},
    {"gemm_wgmma_tile", 90, 90, SM90A},
    {"gemm_wgmma", 90, 90, SM90A},
    {"gemm_cublaslt_fp8", 89, 0, "cuBLASLt's FP8 matmul"},
    {"perf_gemm_10", 89, 0, PERF_GEMM},
    {"perf_gemm_50", 89, 0, PERF_GEMM},
};

/* Under --seed, these also check inputs drawn from the seed (hidden inputs). */
static const char *const hidden[] = {"amax", "cast_e4m3", "mx_e4m3", "gemm_tiled", 0};

const grader_lab lab5_rubric = {
    .name = "lab5",
    .title = "GPU kernels in CUDA",
    .student_files = student_files,
    .provided_files = provided_files,
    /* The CUDA driver maps far more address space than it uses: no limit. */
    .mem_limit_mib = 0,
    .forbidden = forbidden,
    .forbidden_why = "the course library (common/) is CPU code that defines what your kernels "
                     "compute; the kernels must compute it themselves, on the GPU",
    .hidden = hidden,
    .tests = tests,
    .ntests = GRADER_COUNT(tests),
    .cuda = 1,
    .no_goldens = 1,
    .gpu_needs = gpu_needs,
    .ngpu_needs = GRADER_COUNT(gpu_needs),
};
