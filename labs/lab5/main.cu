/*
 * main.cu - lab5's demo and benchmark: your kernels (kernels.cu, gemm.cu)
 * checked against the course library on the CPU, then timed on the GPU
 * against the hardware's own yardsticks (README §7).
 *
 *   make lab5 && ./build/lab5/lab5     your kernels (plots in build/lab5/plots)
 *   ./build/lab5/lab5 --quick          a smoke test, a few seconds
 *   make bench                         the reference solution's, with --bench
 *
 * It needs an NVIDIA GPU of compute capability 7.5 or later (Turing on);
 * the FP8 tensor cores need 8.9 (Ada: mma.sync, cuBLASLt FP8) and 9.0
 * (Hopper: wgmma), and their rows say "not on this GPU" on an older one
 * (README §1, On an older GPU). Without one it prints one line saying
 * why and exits with status 3, which `make bench` reports as skipped;
 * `./grader lab5` still compile-checks the kernels there. With one, it
 *
 *   1. prints the GPU: name, SMs, memory, L2, clocks, and the memory
 *      bandwidth of its spec sheet (memory clock x 2 x bus width);
 *   2. validates every lab5 function, before any timing, on fresh random
 *      inputs (the seed is printed; --seed draws them again; the timing's
 *      inputs are the same in every run), outputs poisoned first so that an
 *      unwritten element fails: lab5_amax, lab5_scale_cast (E4M3, E5M2)
 *      and lab5_mx_quantize (both rules) byte for byte against stats_amax,
 *      fp8_encode and mx_quantize; the GEMMs against a sum in double of the
 *      decoded operands, element (i, j) within
 *        (K + 2) 2^-23 S_ij        FP32 paths (naive, tiled)
 *        2 (err_ij |sa sb| + 2^-23 |D_ij|)
 *                                  tensor-core paths (mma, wgmma_tile,
 *                                  wgmma, cuBLASLt), the grader's bound
 *      S_ij = |sa sb| sum_k |a_ik b_jk| and err_ij the worst case of a model
 *      of Hopper's FP8 accumulation on element (i, j)'s own products
 *      (README §5.1, labs/lab5/lab5_bound.h); cuBLASLt's E4M3 and BF16
 *      outputs also within their own rounding. It prints OK or the first
 *      mismatch; NaN never passes. A function that is wrong or returns an
 *      error is left out of the timing, and the run goes on. The demo's own
 *      yardsticks are checked the same way: a cast from FP32 to BF16, and
 *      three cuBLASLt GEMMs whose descriptors and algorithm it makes once
 *      (E4M3 in and FP32 out with fast accumulation, like for like with the
 *      course's kernels; E4M3 in and out with the output's scale, amax and
 *      promotion, lab5_gemm_cublaslt_fp8's settings; BF16 in and out);
 *   3. times the memory-bound kernels on x = --elems floats (2^26): a
 *      device-to-device copy of x (cudaMemcpyAsync), lab5_amax,
 *      lab5_scale_cast to E4M3 and lab5_mx_quantize to E4M3 with the ceil
 *      rule (x as rows of 4096 when 4096 divides N, else one row). A table:
 *      time, bytes moved (each input read once, each output written once),
 *      GB/s, % of the copy timed in the same run, and the course's target
 *      (amax and cast >= 85% of the copy, MXFP8 >= 80%);
 *   4. times the GEMMs at M = N = K in --sizes (1024 to 8192; the naive one
 *      only up to 2048 unless --all): TFLOPS of naive, tiled, mma,
 *      wgmma_tile, wgmma and the three cuBLASLt yardsticks; mma, wgmma_tile
 *      and wgmma as a % of cuBLASLt FP8 with FP32 out and fast accumulation
 *      (target: wgmma >= 50% at 8192^3); what a call costs the host, for
 *      lab5_gemm_cublaslt_fp8 (descriptors and heuristic at every call)
 *      against the yardstick's plan made once; cuBLASLt's FP8 speedup over
 *      BF16 next to the datasheet's 2x, then with the casts counted, side
 *      by side: FP8's cast of A and B alone (BF16 charged nothing), both
 *      formats' casts of A and B from FP32 at every call, and the
 *      activations' cast only (weights cast once a step, amortised);
 *   5. draws bandwidth (GB/s against the tensor's size, 2^20 floats to
 *      --elems), gemm_tflops (TFLOPS against M = N = K, log y) and
 *      fp8_speedup (the speedup over BF16, alone and with each way of
 *      counting the casts, against M = N = K, a dashed line at 2), every x
 *      axis log2 and every legend below its plot, the full width for the
 *      data;
 *   6. prints, last, rows for the handout's results tables (README §10,
 *      markdown): the memory-bound kernels' GB/s and % of the copy, at each
 *      size the GEMMs' TFLOPS, and the speedups; then the GPU line, with
 *      the command that reproduces them.
 *
 * Timing (README §7): cudaEvents, 3 warm-ups, then 20 batches of launches
 * queued back to back, each batch between one pair of events, and the
 * median of the 20 per-launch times (a batch's time over its launches). A
 * batch is sized to take about a millisecond (1 to 32 launches), and
 * before it the stream is held by a one-thread kernel until the host has
 * queued the whole batch, so that neither the host's time to queue a call
 * nor the events' resolution (about half a microsecond) is in the figure.
 * Every cuBLASLt descriptor, layout, preference and heuristic is made
 * before the timing. Inputs are random (never zeros: a tensor core on
 * zeros runs faster than on data) and, when one set of buffers fits in L2,
 * the launches rotate over enough copies of them (3x L2 in all) that each
 * one reads from device memory, not from the cache.
 *
 * Options (common/demo.c's -o DIR, --no-preview and --help, and):
 *   --elems N     the memory-bound kernels' tensor, N floats (or 2^E)
 *   --sizes LIST  the GEMMs' M = N = K, multiples of 128: 1024,4096
 *   --all         the naive GEMM at every size
 *   --quick       a smoke test: --elems 2^22 --sizes 512,1024
 *   --bench       what `make bench` runs: the default sizes, --all and
 *                 --no-preview (it takes none of --elems, --sizes, --quick)
 *   --seed N      the validation's random inputs
 * Exit status: 0 when everything ran and was right; 1 when a plot could not
 * be written or a kernel crashed (the GPU context is lost then); 2 on a
 * usage error; 3 without a usable GPU; 4 when a function was wrong or
 * failed (everything else still ran).
 *
 * Build (`make lab5` does the same, and solutions/lab5/'s .cu files in
 * place of labs/lab5/'s for the reference):
 *   nvcc -std=c++17 -O2 -gencode arch=compute_89,code=sm_89 \
 *        -gencode arch=compute_90a,code=sm_90a -Icommon -Ilabs/lab5 \
 *        labs/lab5/main.cu labs/lab5/kernels.cu labs/lab5/gemm.cu \
 *        build/libfp8lab.a -lcublasLt -lz -lopenblas -lm -o build/lab5/lab5
 *
 * Not for: grading. It prints whatever the kernels do, and its validation
 * is one random draw per function; `./grader lab5` tests the edge cases
 * (NaN, inf, tails, races) and awards the performance points.
 */
#include "lab5.h"
#include "cuda_check.h"
#include "demo.h"
#include "plot.h"
#include "rng.h"
#include "stats.h"
/* The tensor cores' tolerance, the grader's own (README §5.1). */
#include "lab5_bound.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- settings -------------------------------------------------------------------- */

#define PROG "lab5"
#define DEFAULT_DIR "build/lab5/plots"
#define PLOT_WIDTH 1400                    /* of each PNG, in pixels */

#define WARMUPS 3                          /* runs before the timed ones */
#define REPS 20                            /* timed batches; the median is reported */
#define BATCH_MS 1.0                       /* a batch's length, about */
#define MAX_BATCH 32                       /* launches in a batch, at most (NVBench: ~32) */
#define HOLD_TIMEOUT_NS 500000000ull       /* the stream is held this long, at most */
#define ROTATE_L2 3                        /* rotate over buffers of >= 3x L2 */
#define MAX_SETS 64                        /* ... but at most this many copies */
#define ALIGN 256                          /* cudaMalloc's, kept for every copy */

#define DEFAULT_ELEMS ((size_t)1 << 26)    /* 256 MiB of floats */
#define QUICK_ELEMS ((size_t)1 << 22)
#define MAX_ELEMS ((size_t)1 << 30)
#define SWEEP_FIRST ((size_t)1 << 20)      /* bandwidth plot: 2^20, 2^22, ... */
#define MAX_SWEEP 8
#define MX_COLS 4096                       /* x's rows for lab5_mx_quantize */

#define MAX_SIZES 8                        /* GEMM sizes M = N = K */
#define SIZE_STEP 128                      /* the tensor-core kernels' tile */
#define MAX_SIZE 16384
#define NAIVE_MAX 2048                     /* the naive GEMM's largest, unless --all */
#define WGMMA_TARGET_SIZE 8192             /* where the course sets wgmma's target */
#define WGMMA_TARGET_PCT 50.0
#define FP8_CLAIM 2.0                      /* "FP8 GEMMs are 2x BF16": 1979 / 989 */
#define WORKSPACE_BYTES ((size_t)32 << 20) /* cuBLASLt's, as Hopper wants */

#define WHY_SIZE 400                       /* an error or mismatch message */
#define EXIT_NO_GPU 3
#define EXIT_WRONG 4

static const int DEFAULT_SIZES[] = {1024, 2048, 4096, 8192};
static const int QUICK_SIZES[] = {512, 1024};

/* What the command line asked for. */
typedef struct options {
    demo_options demo;  /* -o DIR, --no-preview */
    bool bench, quick, all;
    size_t elems;       /* the memory-bound kernels' x, in floats */
    int sizes[MAX_SIZES];
    int nsizes;
    uint64_t seed;      /* the validation's inputs */
    bool seed_given;
    char command[512];  /* the command line, for the summary */
} options;

/* What the demo does, for --help (common/demo.c prints the rest). */
static const char ABOUT[] =
    "Validates your lab5 kernels (kernels.cu, gemm.cu) on fresh random inputs\n"
    "against the course library on the CPU, then times them on the GPU: amax,\n"
    "the E4M3 scale-and-cast and MXFP8 against a device-to-device copy (GB/s),\n"
    "the FP8 GEMMs against cuBLASLt FP8 and BF16 (TFLOPS); draws three plots:\n"
    "bandwidth, gemm_tflops and fp8_speedup (.png). Needs an NVIDIA GPU of\n"
    "compute capability 7.5 or later; the FP8 tensor-core GEMMs need 8.9 (Ada),\n"
    "wgmma 9.0 (Hopper), and are marked \"not on this GPU\" elsewhere.\n"
    "\n"
    "  --elems N         the memory-bound kernels' tensor: N floats, or 2^E\n"
    "                    (default 2^26)\n"
    "  --sizes LIST      the GEMMs' M = N = K, multiples of 128 separated by\n"
    "                    commas (default 1024,2048,4096,8192)\n"
    "  --all             time the naive GEMM at every size (default: <= 2048)\n"
    "  --quick           a smoke test: --elems 2^22 --sizes 512,1024\n"
    "  --bench           what `make bench` runs: the default sizes, --all,\n"
    "                    --no-preview\n"
    "  --seed N          the validation's random inputs (default: the clock)\n"
    "\n"
    "Exit status 3 without a usable GPU; 4 when a function was wrong or failed\n"
    "(the rest still ran); 1 also when a kernel crashed.";

/* ---- the functions, and what validation found ------------------------------------ */

typedef enum fn {
    F_COPY, F_AMAX, F_CAST, F_MX, /* memory-bound; the copy is the yardstick */
    F_CAST_BF16,                  /* the demo's own: FP32 to BF16, for the speedups */
    F_NAIVE, F_TILED, F_MMA, F_WGMMA_TILE, F_WGMMA, /* lab5's GEMMs, FP32 out */
    F_LT_FP8, F_LT_BF16,          /* lab5's cuBLASLt calls, as written */
    F_Y_F32, F_Y_E4M3, F_Y_BF16,  /* the demo's cuBLASLt yardsticks, planned once */
    N_FN
} fn;
#define N_MB 4 /* F_COPY .. F_MX */
#define F_FIRST_GEMM F_NAIVE

static const char *const FN_NAME[N_FN] = {
    "cudaMemcpyAsync", "lab5_amax", "lab5_scale_cast", "lab5_mx_quantize",
    "FP32 to BF16 cast", "lab5_gemm_naive", "lab5_gemm_tiled", "lab5_gemm_mma",
    "lab5_gemm_wgmma_tile", "lab5_gemm_wgmma", "lab5_gemm_cublaslt_fp8",
    "lab5_gemm_cublaslt_bf16", "cuBLASLt FP8, FP32 out", "cuBLASLt FP8, E4M3 out",
    "cuBLASLt BF16"};

/* The same, in the tables and the plots' keys. */
static const char *const FN_LABEL[N_FN] = {
    "copy, device to device", "lab5_amax", "lab5_scale_cast E4M3",
    "lab5_mx_quantize E4M3 ceil", "cast FP32 to BF16", "naive", "tiled", "mma", "wgmma_tile",
    "wgmma", "lab5_gemm_cublaslt_fp8", "lab5_gemm_cublaslt_bf16",
    "cuBLASLt FP8, FP32 out, fast accumulation", "cuBLASLt FP8, E4M3 out, promoted",
    "cuBLASLt BF16"};

/* The demo's own: checked like the rest, but not counted in the exit status. */
static bool is_yardstick(int f)
{
    return f == F_COPY || f == F_CAST_BF16 || f >= F_Y_F32;
}

/* The GEMMs in the TFLOPS table and plot: lab5's kernels and the yardsticks
 * (lab5's cuBLASLt calls are the yardsticks' own settings, made at every
 * call: they are timed for the host's cost only). */
static bool in_gemm_table(int f)
{
    return f >= F_FIRST_GEMM && f != F_LT_FP8 && f != F_LT_BF16;
}

/* The course's targets, % of the copy (README §7). */
static const double TARGET_PCT[N_MB] = {0.0, 85.0, 85.0, 80.0};

typedef enum verdict {
    NOT_RUN,     /* not checked yet */
    PASSED,
    WRONG,       /* ran, and a result differs */
    FAILED,      /* returned an error */
    UNSUPPORTED  /* wgmma(_tile) on a GPU other than compute capability 9.0 */
} verdict;

typedef struct check {
    verdict v;
    char msg[WHY_SIZE]; /* WRONG, FAILED, UNSUPPORTED: what happened */
} check;

static bool timed(const check *c)
{
    return c->v == PASSED;
}

static bool still_ok(const check *c)
{
    return c->v == NOT_RUN || c->v == PASSED;
}

static void set_verdict(check *c, verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_verdict(check *c, verdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->v = v;
}

/* ---- small helpers --------------------------------------------------------------- */

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fflush(stdout);
        fprintf(stderr, "%s: out of memory (%zu bytes on the host)\n", PROG, bytes);
        exit(EXIT_FAILURE);
    }
    return p;
}

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- random inputs (never zero, never NaN) --------------------------------------- */

/* A float with a random sign, an exponent uniform in [lo_exp, lo_exp + span)
 * and 23 random mantissa bits, from one draw; span is a power of two <= 128. */
static float random_float(rng_state *r, int lo_exp, uint32_t span)
{
    uint32_t u = rng_u32(r);
    uint32_t e = (uint32_t)(127 + lo_exp) + ((u >> 23) & (span - 1));
    return float_from_bits((u & 0x80000000u) | e << 23 | (u & 0x7FFFFFu));
}

/* Activations: magnitudes from 2^-8 to 2^8, so that blocks, saturation and
 * E4M3's subnormals all see use. */
static void fill_activations(rng_state *r, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = random_float(r, -8, 16);
}

/* E4M3 codes of moderate magnitude: random sign and mantissa, exponent field
 * 4 to 11 (2^-3 to 2^4, |value| in [0.125, 30]); never zero, never NaN. Four
 * codes a draw. */
static void fill_e4m3(rng_state *r, uint8_t *q, size_t n)
{
    for (size_t i = 0; i < n; i += 4) {
        uint32_t u = rng_u32(r);
        for (size_t k = 0; k < 4 && i + k < n; k++) {
            uint32_t b = (u >> (8 * k)) & 0xFFu;
            q[i + k] = (uint8_t)((b & 0x80u) | (4u + ((b >> 3) & 7u)) << 3 | (b & 7u));
        }
    }
}

/* A float's BF16 bit pattern, rounded to nearest even (NaN stays NaN). */
static uint16_t bf16_from_float(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return 0x7FC0;
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static float float_from_bf16(uint16_t h)
{
    return float_from_bits((uint32_t)h << 16);
}

/* BF16 inputs of the same magnitudes as fill_e4m3's, from random floats with
 * full mantissas (2^-3 to 2^5), rounded on the host. */
static void fill_bf16(rng_state *r, uint16_t *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[i] = bf16_from_float(random_float(r, -3, 8));
}

/* ---- the GPU --------------------------------------------------------------------- */

typedef struct gpu {
    int dev;
    cudaDeviceProp prop;
    double peak_gbs;        /* the spec sheet's memory bandwidth, GB/s; 0 unknown */
    cudaStream_t stream;
    cublasLtHandle_t lt;
    void *workspace;        /* cuBLASLt's, WORKSPACE_BYTES */
    cudaEvent_t start[REPS], stop[REPS];
    /* The hold before each timed batch (time_per_launch_ms): host memory the
     * GPU reads, [0] the last ticket released, [1] set when a hold timed out. */
    unsigned *hold_host, *hold_dev;
    unsigned tickets;       /* the last ticket handed out */
} gpu;

/* Holds the stream until the host has released `ticket` (it has queued the
 * batch behind this kernel), or HOLD_TIMEOUT_NS have passed: then it sets
 * flags[1] and lets the batch run as it was queued. One thread. */
__global__ void hold_stream(volatile unsigned *flags, unsigned ticket)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (flags[0] < ticket) {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > HOLD_TIMEOUT_NS) {
            flags[1] = 1;
            return;
        }
    }
}

/* Lets the held batch `ticket` run. */
static void release_hold(gpu *g, unsigned ticket)
{
    __atomic_store_n(&g->hold_host[0], ticket, __ATOMIC_SEQ_CST);
}

static bool at_least_sm75(const cudaDeviceProp *p)
{
    return p->major > 7 || (p->major == 7 && p->minor >= 5);
}

/* The first device of compute capability 7.5 or later, made current (as
 * common/gpuprobe.cu chooses it). false, with why filled, when there is none. */
static bool find_gpu(gpu *g, char *why, size_t cap)
{
    int count = 0, driver = 0, runtime = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc == cudaErrorInsufficientDriver) {
        if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
            snprintf(why, cap, "no CUDA driver is installed");
        } else {
            (void)cudaRuntimeGetVersion(&runtime);
            snprintf(why, cap, "the CUDA driver (%d.%d) is older than the runtime (%d.%d)",
                     driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
        }
        return false;
    }
    if (rc != cudaSuccess) {
        snprintf(why, cap, "cudaGetDeviceCount: %s", cudaGetErrorString(rc));
        return false;
    }
    if (count <= 0) {
        snprintf(why, cap, "no CUDA device found");
        return false;
    }
    g->dev = -1;
    for (int dev = 0; dev < count && g->dev < 0; dev++) {
        cudaDeviceProp p;
        rc = cudaGetDeviceProperties(&p, dev);
        if (rc != cudaSuccess) {
            snprintf(why, cap, "cudaGetDeviceProperties: %s", cudaGetErrorString(rc));
            return false;
        }
        if (at_least_sm75(&p)) {
            g->dev = dev;
            g->prop = p;
        } else if (dev == count - 1) {
            snprintf(why, cap, "%s is compute capability %d.%d", p.name, p.major, p.minor);
        }
    }
    if (g->dev < 0) {
        if (count > 1)
            snprintf(why + strlen(why), cap - strlen(why), " (and none of the other %d is newer)",
                     count - 1);
        return false;
    }
    /* Listed is not usable (compute mode "prohibited", memory all taken):
     * make a context to be sure. */
    rc = cudaSetDevice(g->dev);
    if (rc == cudaSuccess)
        rc = cudaFree(0);
    if (rc != cudaSuccess) {
        snprintf(why, cap, "no context on %s: %s", g->prop.name, cudaGetErrorString(rc));
        return false;
    }
    return true;
}

static void gpu_open(gpu *g)
{
    CUDA_CHECK(cudaStreamCreate(&g->stream));
    cublasStatus_t st = cublasLtCreate(&g->lt);
    if (st != CUBLAS_STATUS_SUCCESS) {
        fflush(stdout);
        fprintf(stderr, "%s: cublasLtCreate: %s (%s)\n", PROG, cublasLtGetStatusName(st),
                cublasLtGetStatusString(st));
        exit(EXIT_FAILURE);
    }
    CUDA_CHECK(cudaMalloc(&g->workspace, WORKSPACE_BYTES));
    for (int i = 0; i < REPS; i++) {
        CUDA_CHECK(cudaEventCreate(&g->start[i]));
        CUDA_CHECK(cudaEventCreate(&g->stop[i]));
    }
    CUDA_CHECK(cudaHostAlloc((void **)&g->hold_host, 2 * sizeof(unsigned), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&g->hold_dev, g->hold_host, 0));
    g->hold_host[0] = g->hold_host[1] = 0;
    g->tickets = 0;
    /* Loaded now, not in the middle of a timing: ticket 0 returns at once. */
    hold_stream<<<1, 1, 0, g->stream>>>(g->hold_dev, 0);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
}

static void gpu_close(gpu *g)
{
    for (int i = 0; i < REPS; i++) {
        CUDA_CHECK(cudaEventDestroy(g->start[i]));
        CUDA_CHECK(cudaEventDestroy(g->stop[i]));
    }
    CUDA_CHECK(cudaFreeHost(g->hold_host));
    CUDA_CHECK(cudaFree(g->workspace));
    (void)cublasLtDestroy(g->lt);
    CUDA_CHECK(cudaStreamDestroy(g->stream));
}

static void print_gpu(gpu *g)
{
    const cudaDeviceProp *p = &g->prop;
    int sm_khz = 0, mem_khz = 0, bus_bits = 0, driver = 0, runtime = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, g->dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, g->dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, g->dev));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    size_t lt = cublasLtGetVersion();
    /* Double data rate: two transfers a clock, bus_bits / 8 bytes each. */
    g->peak_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;

    printf("GPU %d: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %.0f MiB\n", g->dev,
           p->name, p->major, p->minor, p->multiProcessorCount,
           (double)p->totalGlobalMem / (1 << 30), (double)p->l2CacheSize / (1 << 20));
    printf("  clocks: SMs up to %d MHz; memory %d MHz on a %d-bit bus, so %.0f GB/s on the\n"
           "  spec sheet (memory clock x 2 x bus width)\n",
           sm_khz / 1000, mem_khz / 1000, bus_bits, g->peak_gbs);
    printf("  CUDA runtime %d.%d, driver %d.%d, cuBLASLt %zu.%zu.%zu\n\n", runtime / 1000,
           runtime % 1000 / 10, driver / 1000, driver % 1000 / 10, lt / 10000, lt / 100 % 100,
           lt % 100);
}

/* Waits for the stream. A failure there is a kernel that faulted: the
 * context is lost, and nothing after it can run. */
static void wait_or_die(gpu *g, const char *what)
{
    cudaError_t rc = cudaStreamSynchronize(g->stream);
    if (rc == cudaSuccess)
        return;
    fflush(stdout);
    fprintf(stderr,
            "%s: %s failed while it ran: %s (%s).\n"
            "The GPU context is lost after such an error, so the demo stops here; run it\n"
            "under compute-sanitizer to find the faulting access.\n",
            PROG, what, cudaGetErrorName(rc), cudaGetErrorString(rc));
    exit(EXIT_FAILURE);
}

/* The outcome of a call that queues work, with the launch error it may have
 * left behind: cudaSuccess, or an error described in why. */
static cudaError_t launched(cudaError_t rc, char *why, size_t cap)
{
    cudaError_t last = cudaGetLastError();
    if (rc == cudaSuccess && last != cudaSuccess) {
        snprintf(why, cap, "returned cudaSuccess, but a launch failed: %s (%s)",
                 cudaGetErrorName(last), cudaGetErrorString(last));
        return last;
    }
    if (rc != cudaSuccess)
        snprintf(why, cap, "returned %s (%s)%s", cudaGetErrorName(rc), cudaGetErrorString(rc),
                 rc == cudaErrorNotSupported ? ": not written yet?" : "");
    return rc;
}

/* The same for cuBLASLt; its failures come back as cudaErrorUnknown, with
 * cuBLASLt's status in why. */
static cudaError_t blas_launched(cublasStatus_t st, char *why, size_t cap)
{
    cudaError_t last = cudaGetLastError();
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, cap, "returned %s (%s)", cublasLtGetStatusName(st),
                 cublasLtGetStatusString(st));
        return cudaErrorUnknown;
    }
    return launched(last, why, cap);
}

/* ---- device buffers: copies to rotate over --------------------------------------- */

/* sets copies of one buffer, each ALIGN-aligned, in one allocation. */
typedef struct pool {
    char *base;
    size_t stride; /* bytes from one copy to the next */
    int sets;
} pool;

/* How many copies of a working set of set_bytes make >= ROTATE_L2 x L2 in
 * all, so that a run never finds its inputs in L2 from an earlier run. */
static int rotation_sets(const gpu *g, size_t set_bytes)
{
    size_t want = ROTATE_L2 * (size_t)g->prop.l2CacheSize;
    size_t sets = set_bytes >= want ? 1 : (want + set_bytes - 1) / set_bytes;
    return sets > MAX_SETS ? MAX_SETS : (int)sets;
}

static void pool_alloc(pool *p, size_t bytes, int sets)
{
    p->stride = round_up(bytes ? bytes : 1, ALIGN);
    p->sets = sets;
    CUDA_CHECK(cudaMalloc((void **)&p->base, p->stride * (size_t)sets));
}

static void *pool_at(const pool *p, int set)
{
    return p->base + p->stride * (size_t)(set % p->sets);
}

/* Every copy gets the same bytes (the cache tells copies apart by address,
 * not by content). */
static void pool_fill(const pool *p, const void *host, size_t bytes)
{
    CUDA_CHECK(cudaMemcpy(p->base, host, bytes, cudaMemcpyHostToDevice));
    for (int s = 1; s < p->sets; s++)
        CUDA_CHECK(cudaMemcpy(pool_at(p, s), p->base, bytes, cudaMemcpyDeviceToDevice));
}

/* Fills every byte with a value no correct output has there (NaN, or an FP8
 * NaN code), so that an element left unwritten fails. */
static void pool_poison(const pool *p, int byte)
{
    CUDA_CHECK(cudaMemset(p->base, byte, p->stride * (size_t)p->sets));
}

/* One-float values on the device (scales, amaxes) are kept in a pool of one
 * float a copy: each at its own ALIGN-aligned address, as lab5.h promises
 * for every array. cuBLASLt needs 16 bytes for a scale pointer (README §6):
 * one 4 bytes into an allocation gives CUBLAS_STATUS_NOT_SUPPORTED. */
static float *scalar(const pool *p, int k) { return (float *)pool_at(p, k); }

static void scalars_set(const pool *p, const float *v, int count)
{
    for (int k = 0; k < count; k++)
        CUDA_CHECK(cudaMemcpy(scalar(p, k), &v[k], sizeof v[k], cudaMemcpyHostToDevice));
}

static void pool_free(pool *p)
{
    if (p->base)
        CUDA_CHECK(cudaFree(p->base));
    memset(p, 0, sizeof *p);
}

/* ---- timing ---------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* How a time per launch was taken. */
typedef struct launch_info {
    int batch;      /* launches between one pair of events */
    double host_us; /* the host's time to queue one launch, median */
    bool held_out;  /* a hold timed out: the host's time is in the figure */
} launch_info;

/* Launches per batch: about BATCH_MS of GPU time, from one launch's est_ms. */
static int batch_size(double est_ms)
{
    if (!(est_ms > 0))
        return MAX_BATCH;
    double n = ceil(BATCH_MS / est_ms);
    return n > MAX_BATCH ? MAX_BATCH : n < 1 ? 1 : (int)n;
}

/* The median time of one launch of op in ms. WARMUPS runs (the first one
 * timed alone, for the size of the batches), then REPS batches: the stream
 * held (hold_stream) while the host queues a batch of launches between two
 * events, then released; a batch's time over its launches is one sample.
 * op(rep, why, cap) queues run rep (it picks its copy of the buffers from
 * rep) and returns cudaSuccess or an error described in why; NaN then.
 * info, when not NULL, says how the time was taken. */
template <class Op>
static double time_per_launch_ms(gpu *g, const char *what, Op op, char *why, size_t cap,
                                 launch_info *info)
{
    int rep = 0;
    CUDA_CHECK(cudaEventRecord(g->start[0], g->stream));
    for (; rep < WARMUPS; rep++) {
        if (op(rep, why, cap) != cudaSuccess) {
            wait_or_die(g, what);
            return NAN;
        }
        if (rep == 0)
            CUDA_CHECK(cudaEventRecord(g->stop[0], g->stream));
    }
    wait_or_die(g, what);
    float first;
    CUDA_CHECK(cudaEventElapsedTime(&first, g->start[0], g->stop[0]));
    const int batch = batch_size(first);

    float host_us[REPS];
    g->hold_host[1] = 0;
    for (int i = 0; i < REPS; i++) {
        unsigned ticket = ++g->tickets;
        hold_stream<<<1, 1, 0, g->stream>>>(g->hold_dev, ticket);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(g->start[i], g->stream));
        double t0 = now_s();
        for (int l = 0; l < batch; l++, rep++) {
            if (op(rep, why, cap) != cudaSuccess) {
                release_hold(g, ticket);
                wait_or_die(g, what);
                return NAN;
            }
        }
        host_us[i] = (float)(1e6 * (now_s() - t0) / batch);
        CUDA_CHECK(cudaEventRecord(g->stop[i], g->stream));
        release_hold(g, ticket);
    }
    wait_or_die(g, what);
    float ms[REPS];
    for (int i = 0; i < REPS; i++) {
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], g->start[i], g->stop[i]));
        ms[i] /= (float)batch;
    }
    qsort(ms, REPS, sizeof ms[0], cmp_float);
    qsort(host_us, REPS, sizeof host_us[0], cmp_float);
    if (info) {
        info->batch = batch;
        info->host_us = 0.5 * ((double)host_us[(REPS - 1) / 2] + host_us[REPS / 2]);
        info->held_out = g->hold_host[1] != 0;
    }
    return 0.5 * ((double)ms[(REPS - 1) / 2] + ms[REPS / 2]);
}

/* ---- the memory-bound kernels ---------------------------------------------------- */

/* The demo's FP32 to BF16 cast, for the speedups' fair variant (BF16 from
 * FP32 costs a cast too): y[i] = x[i] rounded to nearest even, 16 bytes
 * read and 8 written at a time, the tail (n mod 4) by the first threads.
 * x and y 16- and 8-byte aligned. */
__global__ void cast_bf16_kernel(const float *x, uint16_t *y, size_t n)
{
    size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = t; i < n4; i += stride) {
        float4 v = reinterpret_cast<const float4 *>(x)[i];
        uint2 o;
        o.x = (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(v.x)) |
              (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(v.y)) << 16;
        o.y = (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(v.z)) |
              (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(v.w)) << 16;
        reinterpret_cast<uint2 *>(y)[i] = o;
    }
    if (t < n - 4 * n4)
        y[4 * n4 + t] = __bfloat16_as_ushort(__float2bfloat16_rn(x[4 * n4 + t]));
}

static cudaError_t cast_bf16(const gpu *g, const float *x, uint16_t *y, size_t n)
{
    if (n == 0)
        return cudaSuccess;
    size_t blocks = (n / 4 + 255) / 256, most = 8 * (size_t)g->prop.multiProcessorCount;
    cast_bf16_kernel<<<(unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks), 256, 0,
                       g->stream>>>(x, y, n);
    return cudaGetLastError();
}

/* Buffers for the memory-bound kernels on one x of n floats. */
typedef struct mb_bufs {
    size_t n, rows, cols, nb; /* lab5_mx_quantize sees x as rows x cols, nb blocks a row */
    pool x, copy, q, scales;  /* copy and scales: not for the casts alone */
    pool q16;                 /* the BF16 cast's output: for the casts alone */
    pool scalars;             /* [0] scale, [1] amax: one float each (scalar()) */
} mb_bufs;

static void mb_alloc(mb_bufs *b, const gpu *g, size_t n, bool cast_only)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    b->cols = n % MX_COLS == 0 ? MX_COLS : n;
    b->rows = n / b->cols;
    b->nb = (b->cols + LAB5_MX_BLOCK - 1) / LAB5_MX_BLOCK;
    size_t x_bytes = n * sizeof(float), scale_bytes = b->rows * b->nb;
    size_t set_bytes = round_up(x_bytes, ALIGN) + round_up(n, ALIGN) +
                       (cast_only ? round_up(2 * n, ALIGN)
                                  : round_up(x_bytes, ALIGN) + round_up(scale_bytes, ALIGN));
    int sets = rotation_sets(g, set_bytes);
    pool_alloc(&b->x, x_bytes, sets);
    pool_alloc(&b->q, n, sets);
    if (cast_only) {
        pool_alloc(&b->q16, 2 * n, sets);
    } else {
        pool_alloc(&b->copy, x_bytes, sets);
        pool_alloc(&b->scales, scale_bytes, sets);
    }
    pool_alloc(&b->scalars, sizeof(float), 2);
}

/* x from host (n floats), and scale = 448 / amax(x): a current scaling. */
static void mb_upload(mb_bufs *b, const float *x)
{
    pool_fill(&b->x, x, b->n * sizeof(float));
    float scalars[2] = {fp8_info(FP8_E4M3)->max_finite / stats_amax(x, b->n, NULL), 0.0f};
    scalars_set(&b->scalars, scalars, (int)(sizeof scalars / sizeof scalars[0]));
    pool_poison(&b->q, 0x7F);
    if (b->copy.base)
        pool_poison(&b->copy, 0xFF);
    if (b->scales.base)
        pool_poison(&b->scales, 0xFF);
    if (b->q16.base)
        pool_poison(&b->q16, 0xFF);
}

static void mb_free(mb_bufs *b)
{
    pool_free(&b->x);
    pool_free(&b->copy);
    pool_free(&b->q);
    pool_free(&b->scales);
    pool_free(&b->q16);
    pool_free(&b->scalars);
}

/* Bytes the kernel must move at the least: each input read once, each
 * output written once (the one-float scale and amax left out). */
static double mb_bytes(fn f, const mb_bufs *b)
{
    double n = (double)b->n;
    switch (f) {
    case F_COPY: return 8.0 * n;                         /* read x, write x */
    case F_AMAX: return 4.0 * n;                         /* read x */
    case F_CAST: return 5.0 * n;                         /* read x, write q */
    case F_MX: return 5.0 * n + (double)(b->rows * b->nb); /* and the scales */
    case F_CAST_BF16: return 6.0 * n;                    /* read x, write y */
    default: return NAN;
    }
}

static cudaError_t call_mb(gpu *g, fn f, const mb_bufs *b, int set, char *why, size_t cap)
{
    const float *x = (const float *)pool_at(&b->x, set);
    uint8_t *q = (uint8_t *)pool_at(&b->q, set);
    switch (f) {
    case F_COPY:
        return launched(cudaMemcpyAsync(pool_at(&b->copy, set), x, b->n * sizeof(float),
                                        cudaMemcpyDeviceToDevice, g->stream),
                        why, cap);
    case F_AMAX:
        return launched(lab5_amax(x, b->n, scalar(&b->scalars, 1), g->stream), why, cap);
    case F_CAST:
        return launched(lab5_scale_cast(x, b->n, scalar(&b->scalars, 0), FP8_E4M3, q,
                                        scalar(&b->scalars, 1), g->stream),
                        why, cap);
    case F_MX:
        return launched(lab5_mx_quantize(x, b->rows, b->cols, FP8_E4M3, MX_SCALE_CEIL, q,
                                         (uint8_t *)pool_at(&b->scales, set), g->stream),
                        why, cap);
    case F_CAST_BF16:
        return launched(cast_bf16(g, x, (uint16_t *)pool_at(&b->q16, set), b->n), why, cap);
    default:
        snprintf(why, cap, "is not a memory-bound kernel");
        return cudaErrorInvalidValue;
    }
}

/* ---- validation: the memory-bound kernels ---------------------------------------- */

#define VAL_N (((size_t)3 << 20) + 5) /* floats; not a multiple of 4: the cast's tail */

/* Runs what was queued (call's outcome rc) to the end; false, with the
 * check set FAILED, when it returned an error. */
static bool finished(gpu *g, fn f, cudaError_t rc, const char *why, check *c)
{
    if (rc != cudaSuccess) {
        set_verdict(c, FAILED, "%s", why);
        wait_or_die(g, FN_NAME[f]);
        return false;
    }
    wait_or_die(g, FN_NAME[f]);
    return true;
}

static void validate_amax(gpu *g, const float *hx, const mb_bufs *b, check *c)
{
    char why[WHY_SIZE];
    float expected = stats_amax(hx, b->n, NULL), got;
    CUDA_CHECK(cudaMemset(scalar(&b->scalars, 1), 0xFF, sizeof(float)));
    if (!finished(g, F_AMAX, call_mb(g, F_AMAX, b, 0, why, sizeof why), why, c))
        return;
    CUDA_CHECK(cudaMemcpy(&got, scalar(&b->scalars, 1), sizeof got, cudaMemcpyDeviceToHost));
    if (!stats_equal_exact(expected, got))
        set_verdict(c, WRONG, "*amax = %.9g (0x%08x), expected %.9g (0x%08x)", got,
                    float_bits(got), expected, float_bits(expected));
}

static void validate_cast(gpu *g, const float *hx, const mb_bufs *b, fp8_format fmt,
                          uint8_t *expected, uint8_t *got, check *c)
{
    char why[WHY_SIZE];
    const size_t n = b->n;
    const char *name = fp8_info(fmt)->name;
    /* A scale from an amax a little out of date, as delayed scaling has it:
     * the largest 10% of the range saturates. */
    float amax = stats_amax(hx, n, NULL), got_amax;
    float scale = fp8_info(fmt)->max_finite / (0.9f * amax);
    float scalars[2] = {scale, float_from_bits(0xFFFFFFFFu)};
    scalars_set(&b->scalars, scalars, (int)(sizeof scalars / sizeof scalars[0]));
    CUDA_CHECK(cudaMemset(b->q.base, 0x7F, n));
    cudaError_t rc = launched(lab5_scale_cast((const float *)b->x.base, n,
                                              scalar(&b->scalars, 0), fmt, (uint8_t *)b->q.base,
                                              scalar(&b->scalars, 1), g->stream),
                              why, sizeof why);
    if (!finished(g, F_CAST, rc, why, c))
        return;
    CUDA_CHECK(cudaMemcpy(got, b->q.base, n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&got_amax, scalar(&b->scalars, 1), sizeof got_amax,
                          cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        expected[i] = fp8_encode(hx[i] * scale, fmt, true);
    stats_mismatch m = stats_find_mismatch_u8(expected, got, n);
    if (m.count) {
        size_t i = m.first;
        set_verdict(c, WRONG,
                    "%s: q[%zu] = 0x%02x, expected 0x%02x (x = %.9g, x * scale = %.9g); "
                    "%zu of %zu codes wrong",
                    name, i, got[i], expected[i], hx[i], hx[i] * scale, m.count, n);
    } else if (!stats_equal_exact(amax, got_amax)) {
        set_verdict(c, WRONG, "%s: *amax = %.9g (0x%08x), expected %.9g (0x%08x)", name,
                    got_amax, float_bits(got_amax), amax, float_bits(amax));
    }
}

/* The lab5_mx_quantize cases: the timed shape under each rule and format,
 * and a shape whose rows end in a short block. */
static const struct mx_case {
    size_t rows, cols;
    fp8_format fmt;
    mx_scale_rule rule;
} MX_CASES[] = {
    {512, 4096, FP8_E4M3, MX_SCALE_CEIL},
    {512, 4096, FP8_E4M3, MX_SCALE_FLOOR},
    {512, 4096, FP8_E5M2, MX_SCALE_FLOOR},
    {37, 1000, FP8_E4M3, MX_SCALE_CEIL},
};
#define N_MX_CASES 4

static void validate_mx(gpu *g, const float *hx, const mb_bufs *b, const struct mx_case *k,
                        uint8_t *expected, uint8_t *got, check *c)
{
    char why[WHY_SIZE];
    size_t n = k->rows * k->cols, nb = (k->cols + LAB5_MX_BLOCK - 1) / LAB5_MX_BLOCK;
    size_t ns = k->rows * nb;
    const char *rule = k->rule == MX_SCALE_CEIL ? "ceil" : "floor";
    uint8_t *exp_scales = (uint8_t *)xmalloc(ns), *got_scales = (uint8_t *)xmalloc(ns);
    CUDA_CHECK(cudaMemset(b->q.base, 0x7F, n));
    CUDA_CHECK(cudaMemset(b->scales.base, 0xFF, ns));
    cudaError_t rc = launched(lab5_mx_quantize((const float *)b->x.base, k->rows, k->cols,
                                               k->fmt, k->rule, (uint8_t *)b->q.base,
                                               (uint8_t *)b->scales.base, g->stream),
                              why, sizeof why);
    if (finished(g, F_MX, rc, why, c)) {
        CUDA_CHECK(cudaMemcpy(got, b->q.base, n, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got_scales, b->scales.base, ns, cudaMemcpyDeviceToHost));
        mx_quantize(hx, k->rows, k->cols, LAB5_MX_BLOCK, k->fmt, k->rule, expected, exp_scales);
        stats_mismatch ms = stats_find_mismatch_u8(exp_scales, got_scales, ns);
        stats_mismatch mc = stats_find_mismatch_u8(expected, got, n);
        if (ms.count) {
            size_t i = ms.first;
            set_verdict(c, WRONG,
                        "%zu x %zu, %s %s: scales[%zu] (row %zu, block %zu) = 0x%02x, "
                        "expected 0x%02x; %zu of %zu scales wrong",
                        k->rows, k->cols, fp8_info(k->fmt)->name, rule, i, i / nb, i % nb,
                        got_scales[i], exp_scales[i], ms.count, ns);
        } else if (mc.count) {
            size_t i = mc.first;
            set_verdict(c, WRONG,
                        "%zu x %zu, %s %s: codes[%zu] (row %zu, column %zu) = 0x%02x, "
                        "expected 0x%02x (x = %.9g, scale 0x%02x); %zu of %zu codes wrong",
                        k->rows, k->cols, fp8_info(k->fmt)->name, rule, i, i / k->cols,
                        i % k->cols, got[i], expected[i], hx[i],
                        exp_scales[i / k->cols * nb + i % k->cols / LAB5_MX_BLOCK], mc.count, n);
        }
    }
    free(exp_scales);
    free(got_scales);
}

/* The demo's BF16 cast, against bf16_from_float on the host. */
static void validate_cast_bf16(gpu *g, const float *hx, const mb_bufs *b, check *c)
{
    char why[WHY_SIZE];
    const size_t n = b->n;
    CUDA_CHECK(cudaMemset(b->q16.base, 0xFF, 2 * n));
    cudaError_t rc = launched(cast_bf16(g, (const float *)b->x.base, (uint16_t *)b->q16.base, n),
                              why, sizeof why);
    if (!finished(g, F_CAST_BF16, rc, why, c))
        return;
    uint16_t *got = (uint16_t *)xmalloc(2 * n);
    CUDA_CHECK(cudaMemcpy(got, b->q16.base, 2 * n, cudaMemcpyDeviceToHost));
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != bf16_from_float(hx[i]) && wrong++ == 0)
            first = i;
    if (wrong)
        set_verdict(c, WRONG, "y[%zu] = 0x%04x, expected 0x%04x (x = %.9g); %zu of %zu wrong",
                    first, got[first], bf16_from_float(hx[first]), hx[first], wrong, n);
    free(got);
}

static void validate_memory_bound(gpu *g, rng_state *r, check *chk)
{
    float *hx = (float *)xmalloc(VAL_N * sizeof(float));
    uint8_t *expected = (uint8_t *)xmalloc(VAL_N), *got = (uint8_t *)xmalloc(VAL_N);
    fill_activations(r, hx, VAL_N);
    mb_bufs b;
    memset(&b, 0, sizeof b);
    b.n = VAL_N;
    pool_alloc(&b.x, VAL_N * sizeof(float), 1);
    pool_alloc(&b.q, VAL_N, 1);
    pool_alloc(&b.scales, VAL_N / LAB5_MX_BLOCK + 1, 1); /* the largest case's */
    pool_alloc(&b.q16, 2 * VAL_N, 1);
    pool_alloc(&b.scalars, sizeof(float), 2);
    CUDA_CHECK(cudaMemcpy(b.x.base, hx, VAL_N * sizeof(float), cudaMemcpyHostToDevice));

    validate_amax(g, hx, &b, &chk[F_AMAX]);
    validate_cast(g, hx, &b, FP8_E4M3, expected, got, &chk[F_CAST]);
    if (still_ok(&chk[F_CAST]))
        validate_cast(g, hx, &b, FP8_E5M2, expected, got, &chk[F_CAST]);
    for (int i = 0; i < N_MX_CASES && still_ok(&chk[F_MX]); i++)
        validate_mx(g, hx, &b, &MX_CASES[i], expected, got, &chk[F_MX]);
    validate_cast_bf16(g, hx, &b, &chk[F_CAST_BF16]);
    for (int f = F_AMAX; f <= F_CAST_BF16; f++)
        if (chk[f].v == NOT_RUN)
            chk[f].v = PASSED;

    mb_free(&b);
    free(hx);
    free(expected);
    free(got);
}

/* ---- the GEMMs ------------------------------------------------------------------- */

/* One of the demo's cuBLASLt yardsticks at one M, N, K: everything
 * cublasLtMatmul needs, made once, before any timing (README §7). */
typedef struct lt_plan {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c, d;
    cublasLtMatmulAlgo_t algo;
    cublasStatus_t status; /* of making it */
    const char *failed;    /* the call that failed, when status says so */
} lt_plan;
#define N_PLANS 3 /* F_Y_F32, F_Y_E4M3, F_Y_BF16 */

/* Buffers for every GEMM at one M, N, K: E4M3 A and B, the FP32 output of
 * lab5's kernels, cuBLASLt's E4M3 output, and the BF16 A, B, D; the
 * yardsticks' plans. */
typedef struct gemm_bufs {
    int M, N, K;
    pool a8, b8, d32, d8, a16, b16, d16;
    pool scalars; /* [0] a_scale_inv, [1] b_scale_inv, [2] d_scale, [3] d_amax (scalar()) */
    lt_plan plan[N_PLANS];
} gemm_bufs;

/* The copies of the buffers to rotate over at M, N, K: enough for the
 * largest working set of one run, BF16 A, B and D (as large as E4M3 A and
 * B with an FP32 D). */
static int gemm_sets(const gpu *g, int M, int N, int K)
{
    size_t mk = (size_t)M * K, nk = (size_t)N * K, mn = (size_t)M * N;
    return rotation_sets(g, 2 * (mk + nk + mn) + 3 * ALIGN);
}

/* Keeps the first failure of the calls that make a plan. */
static void lt_step(lt_plan *p, cublasStatus_t st, const char *call)
{
    if (p->status == CUBLAS_STATUS_SUCCESS && st != CUBLAS_STATUS_SUCCESS) {
        p->status = st;
        p->failed = call;
    }
}

static void lt_attr(lt_plan *p, cublasLtMatmulDescAttributes_t attr, const void *v, size_t size,
                    const char *name)
{
    if (p->status == CUBLAS_STATUS_SUCCESS)
        lt_step(p, cublasLtMatmulDescSetAttribute(p->op, attr, v, size), name);
}

static void lt_layout(lt_plan *p, cublasLtMatrixLayout_t *l, cudaDataType_t t, int rows,
                      int cols, const char *name)
{
    if (p->status == CUBLAS_STATUS_SUCCESS)
        lt_step(p, cublasLtMatrixLayoutCreate(l, t, (uint64_t)rows, (uint64_t)cols, rows), name);
}

/* Makes yardstick f's plan, as lab5_gemm_cublaslt_bf16 and the handout's
 * lab5_gemm_cublaslt_fp8 make theirs at every call (README §6: cuBLASLt's
 * A is our B, its B our A, D^T = B A^T, "TN"):
 *   F_Y_F32   E4M3 A and B, FP32 C = D, the two scale_inv pointers, FAST_ACCUM
 *             = 1: like for like with lab5's kernels (FP32 out, no promotion),
 *             and the grader's perf_gemm baseline;
 *   F_Y_E4M3  E4M3 A, B and D, a BF16 C, d_scale and d_amax, FAST_ACCUM = 0:
 *             lab5_gemm_cublaslt_fp8's settings (an FP8 output, promoted);
 *   F_Y_BF16  BF16 A, B and C = D: lab5_gemm_cublaslt_bf16's. */
static void lt_plan_make(lt_plan *p, const gpu *g, fn f, const gemm_bufs *b)
{
    const int M = b->M, N = b->N, K = b->K;
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const bool fp8 = f != F_Y_BF16;
    const int8_t fast_accum = f == F_Y_F32;
    /* swapped, as above */
    const void *lt_a_scale = scalar(&b->scalars, 1), *lt_b_scale = scalar(&b->scalars, 0);
    const void *d_scale = scalar(&b->scalars, 2), *d_amax = scalar(&b->scalars, 3);
    const uint64_t ws = WORKSPACE_BYTES;
    const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    const cudaDataType_t out = f == F_Y_F32 ? CUDA_R_32F : f == F_Y_E4M3 ? CUDA_R_8F_E4M3
                                                                         : CUDA_R_16BF;
    memset(p, 0, sizeof *p);
    p->status = CUBLAS_STATUS_SUCCESS;
    lt_step(p, cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
            "cublasLtMatmulDescCreate");
    lt_attr(p, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta, "TRANSA");
    lt_attr(p, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb, "TRANSB");
    if (fp8) {
        lt_attr(p, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &lt_a_scale, sizeof lt_a_scale,
                "A_SCALE_POINTER");
        lt_attr(p, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &lt_b_scale, sizeof lt_b_scale,
                "B_SCALE_POINTER");
        lt_attr(p, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum, sizeof fast_accum,
                "FAST_ACCUM");
    }
    if (f == F_Y_E4M3) {
        lt_attr(p, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &d_scale, sizeof d_scale,
                "D_SCALE_POINTER");
        lt_attr(p, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &d_amax, sizeof d_amax,
                "AMAX_D_POINTER");
    }
    lt_layout(p, &p->a, in, K, N, "cublasLtMatrixLayoutCreate (A)");
    lt_layout(p, &p->b, in, K, M, "cublasLtMatrixLayoutCreate (B)");
    lt_layout(p, &p->c, f == F_Y_E4M3 ? CUDA_R_16BF : out, N, M, "cublasLtMatrixLayoutCreate (C)");
    lt_layout(p, &p->d, out, N, M, "cublasLtMatrixLayoutCreate (D)");
    cublasLtMatmulPreference_t pref = NULL;
    if (p->status == CUBLAS_STATUS_SUCCESS)
        lt_step(p, cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    if (p->status == CUBLAS_STATUS_SUCCESS)
        lt_step(p, cublasLtMatmulPreferenceSetAttribute(
                       pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                "MAX_WORKSPACE_BYTES");
    cublasLtMatmulHeuristicResult_t h;
    memset(&h, 0, sizeof h);
    int found = 0;
    if (p->status == CUBLAS_STATUS_SUCCESS)
        lt_step(p, cublasLtMatmulAlgoGetHeuristic(g->lt, p->op, p->a, p->b, p->c, p->d, pref, 1,
                                                  &h, &found),
                "cublasLtMatmulAlgoGetHeuristic");
    if (p->status == CUBLAS_STATUS_SUCCESS && found == 0)
        lt_step(p, CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic (no algorithm)");
    p->algo = h.algo;
    if (pref)
        (void)cublasLtMatmulPreferenceDestroy(pref);
}

static void lt_plan_free(lt_plan *p)
{
    if (p->d)
        (void)cublasLtMatrixLayoutDestroy(p->d);
    if (p->c)
        (void)cublasLtMatrixLayoutDestroy(p->c);
    if (p->b)
        (void)cublasLtMatrixLayoutDestroy(p->b);
    if (p->a)
        (void)cublasLtMatrixLayoutDestroy(p->a);
    if (p->op)
        (void)cublasLtMatmulDescDestroy(p->op);
    memset(p, 0, sizeof *p);
}

static void gemm_alloc(gemm_bufs *b, const gpu *g, int M, int N, int K, int sets)
{
    memset(b, 0, sizeof *b);
    b->M = M;
    b->N = N;
    b->K = K;
    size_t mk = (size_t)M * K, nk = (size_t)N * K, mn = (size_t)M * N;
    pool_alloc(&b->a8, mk, sets);
    pool_alloc(&b->b8, nk, sets);
    pool_alloc(&b->d32, mn * sizeof(float), sets);
    pool_alloc(&b->d8, mn, sets);
    pool_alloc(&b->a16, mk * sizeof(uint16_t), sets);
    pool_alloc(&b->b16, nk * sizeof(uint16_t), sets);
    pool_alloc(&b->d16, mn * sizeof(uint16_t), sets);
    pool_alloc(&b->scalars, sizeof(float), 4);
    for (int i = 0; i < N_PLANS; i++)
        lt_plan_make(&b->plan[i], g, (fn)(F_Y_F32 + i), b);
}

static void gemm_upload(gemm_bufs *b, const uint8_t *a8, const uint8_t *b8, const uint16_t *a16,
                        const uint16_t *b16, float a_scale_inv, float b_scale_inv, float d_scale)
{
    size_t mk = (size_t)b->M * b->K, nk = (size_t)b->N * b->K;
    pool_fill(&b->a8, a8, mk);
    pool_fill(&b->b8, b8, nk);
    pool_fill(&b->a16, a16, mk * sizeof(uint16_t));
    pool_fill(&b->b16, b16, nk * sizeof(uint16_t));
    float scalars[4] = {a_scale_inv, b_scale_inv, d_scale, float_from_bits(0xFFFFFFFFu)};
    scalars_set(&b->scalars, scalars, (int)(sizeof scalars / sizeof scalars[0]));
    pool_poison(&b->d32, 0xFF); /* NaN */
    pool_poison(&b->d8, 0x7F);  /* E4M3's NaN */
    pool_poison(&b->d16, 0xFF); /* BF16 NaN */
}

static void gemm_free(gemm_bufs *b)
{
    for (int i = 0; i < N_PLANS; i++)
        lt_plan_free(&b->plan[i]);
    pool_free(&b->a8);
    pool_free(&b->b8);
    pool_free(&b->d32);
    pool_free(&b->d8);
    pool_free(&b->a16);
    pool_free(&b->b16);
    pool_free(&b->d16);
    pool_free(&b->scalars);
}

/* One launch of yardstick f with its plan: nothing made or asked for here. */
static cudaError_t call_plan(gpu *g, fn f, const gemm_bufs *b, int set, char *why, size_t cap)
{
    const lt_plan *p = &b->plan[f - F_Y_F32];
    if (p->status != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, cap, "no plan: %s returned %s (%s)", p->failed,
                 cublasLtGetStatusName(p->status), cublasLtGetStatusString(p->status));
        return cudaErrorNotSupported;
    }
    const float alpha = 1.0f, beta = 0.0f;
    const void *A, *B, *C;
    void *D;
    if (f == F_Y_BF16) {
        A = pool_at(&b->a16, set);
        B = pool_at(&b->b16, set);
        D = pool_at(&b->d16, set);
        C = D;
    } else {
        A = pool_at(&b->a8, set);
        B = pool_at(&b->b8, set);
        D = f == F_Y_F32 ? pool_at(&b->d32, set) : pool_at(&b->d8, set);
        C = f == F_Y_F32 ? D : NULL; /* beta = 0: C is not read */
    }
    return blas_launched(cublasLtMatmul(g->lt, p->op, &alpha, B, p->a, A, p->b, &beta, C, p->c,
                                        D, p->d, &p->algo, g->workspace, WORKSPACE_BYTES,
                                        g->stream),
                         why, cap);
}

static cudaError_t call_gemm(gpu *g, fn f, const gemm_bufs *b, int set, char *why, size_t cap)
{
    const uint8_t *A = (const uint8_t *)pool_at(&b->a8, set);
    const uint8_t *B = (const uint8_t *)pool_at(&b->b8, set);
    float *D = (float *)pool_at(&b->d32, set);
    const float *sa = scalar(&b->scalars, 0), *sb = scalar(&b->scalars, 1);
    int M = b->M, N = b->N, K = b->K;
    switch (f) {
    case F_NAIVE:
        return launched(lab5_gemm_naive(A, B, sa, sb, D, M, N, K, g->stream), why, cap);
    case F_TILED:
        return launched(lab5_gemm_tiled(A, B, sa, sb, D, M, N, K, g->stream), why, cap);
    case F_MMA:
        return launched(lab5_gemm_mma(A, B, sa, sb, D, M, N, K, g->stream), why, cap);
    case F_WGMMA_TILE:
        return launched(lab5_gemm_wgmma_tile(A, B, sa, sb, D, M, N, K, g->stream), why, cap);
    case F_WGMMA:
        return launched(lab5_gemm_wgmma(A, B, sa, sb, D, M, N, K, g->stream), why, cap);
    case F_LT_FP8:
        return blas_launched(
            lab5_gemm_cublaslt_fp8(g->lt, A, B, sa, sb, scalar(&b->scalars, 2),
                                   (uint8_t *)pool_at(&b->d8, set), scalar(&b->scalars, 3), M, N, K,
                                   g->workspace, WORKSPACE_BYTES, g->stream),
            why, cap);
    case F_LT_BF16:
        return blas_launched(
            lab5_gemm_cublaslt_bf16(g->lt, (const uint16_t *)pool_at(&b->a16, set),
                                    (const uint16_t *)pool_at(&b->b16, set),
                                    (uint16_t *)pool_at(&b->d16, set), M, N, K, g->workspace,
                                    WORKSPACE_BYTES, g->stream),
            why, cap);
    case F_Y_F32:
    case F_Y_E4M3:
    case F_Y_BF16:
        return call_plan(g, f, b, set, why, cap);
    default:
        snprintf(why, cap, "is not a GEMM");
        return cudaErrorInvalidValue;
    }
}

static bool is_tensor_core(fn f)
{
    return f != F_NAIVE && f != F_TILED;
}

/* What D is: FP32 (lab5's kernels, F_Y_F32), E4M3 or BF16. */
static bool writes_e4m3(fn f)
{
    return f == F_LT_FP8 || f == F_Y_E4M3;
}

static bool is_bf16(fn f)
{
    return f == F_LT_BF16 || f == F_Y_BF16;
}

/* ---- validation: the GEMMs ------------------------------------------------------- */

/* The reference in double of D = (A B^T) * scale, A (M x K) and B (N x K)
 * row-major, and each element's two tolerances (README §5.1): tol32 for
 * FP32 accumulation in any order, (K + 2) 2^-23 S with S = |scale| sum_k
 * |a_ik b_jk|; tol_tc for the tensor cores, the grader's bound from the
 * element's own products in k order (lab5_bound.h). */
static void gemm_reference(const float *a, const float *b, int M, int N, int K, double scale,
                           double *ref, double *tol32, double *tol_tc)
{
    double *p = (double *)xmalloc((size_t)K * sizeof(double));
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            const float *ai = a + (size_t)i * K, *bj = b + (size_t)j * K;
            double abs_sum = 0.0, sum;
            for (int k = 0; k < K; k++) {
                p[k] = (double)ai[k] * bj[k]; /* exact: FP8 or BF16 products */
                abs_sum += fabs(p[k]);
            }
            size_t o = (size_t)i * N + j;
            tol_tc[o] = lab5_tc_tolerance(p, K, fabs(scale), &sum);
            ref[o] = sum * scale;
            tol32[o] = (K + 2.0) * 0x1p-23 * abs_sum * fabs(scale);
        }
    }
    free(p);
}

/* One GEMM shape's inputs and references. */
typedef struct gemm_case {
    int M, N, K;
    uint8_t *a8, *b8;
    uint16_t *a16, *b16;
    float a_scale_inv, b_scale_inv, d_scale;
    double *ref8, *tol8_32, *tol8_tc; /* FP8 operands, times a_scale_inv b_scale_inv */
    double *ref16, *tol16_32, *tol16_tc; /* BF16 operands */
    double max_ref8;                  /* max |ref8| */
} gemm_case;

static void gemm_case_make(gemm_case *c, rng_state *r, int M, int N, int K)
{
    size_t mk = (size_t)M * K, nk = (size_t)N * K, mn = (size_t)M * N;
    c->M = M;
    c->N = N;
    c->K = K;
    c->a8 = (uint8_t *)xmalloc(mk);
    c->b8 = (uint8_t *)xmalloc(nk);
    c->a16 = (uint16_t *)xmalloc(mk * sizeof(uint16_t));
    c->b16 = (uint16_t *)xmalloc(nk * sizeof(uint16_t));
    double **arrays[6] = {&c->ref8, &c->tol8_32, &c->tol8_tc, &c->ref16, &c->tol16_32,
                          &c->tol16_tc};
    for (int i = 0; i < 6; i++)
        *arrays[i] = (double *)xmalloc(mn * sizeof(double));
    fill_e4m3(r, c->a8, mk);
    fill_e4m3(r, c->b8, nk);
    fill_bf16(r, c->a16, mk);
    fill_bf16(r, c->b16, nk);
    /* Scales as delayed scaling makes them (amax / 448): not powers of two,
     * so that their product is rounded. */
    c->a_scale_inv = 0.1f;
    c->b_scale_inv = 3.0f;

    float *a = (float *)xmalloc((mk > nk ? mk : nk) * sizeof(float));
    float *b = (float *)xmalloc(nk * sizeof(float));
    fp8_decode_array(c->a8, a, mk, FP8_E4M3);
    fp8_decode_array(c->b8, b, nk, FP8_E4M3);
    gemm_reference(a, b, M, N, K, (double)c->a_scale_inv * c->b_scale_inv, c->ref8, c->tol8_32,
                   c->tol8_tc);
    for (size_t i = 0; i < mk; i++)
        a[i] = float_from_bf16(c->a16[i]);
    for (size_t i = 0; i < nk; i++)
        b[i] = float_from_bf16(c->b16[i]);
    gemm_reference(a, b, M, N, K, 1.0, c->ref16, c->tol16_32, c->tol16_tc);
    free(a);
    free(b);

    /* The E4M3 output's scale: a power of two that puts max |D| in [128, 256). */
    c->max_ref8 = 0.0;
    for (size_t i = 0; i < mn; i++)
        c->max_ref8 = fmax(c->max_ref8, fabs(c->ref8[i]));
    c->d_scale = (float)ldexp(1.0, 7 - ilogb(c->max_ref8));
}

static void gemm_case_free(gemm_case *c)
{
    free(c->a8);
    free(c->b8);
    free(c->a16);
    free(c->b16);
    free(c->ref8);
    free(c->tol8_32);
    free(c->tol8_tc);
    free(c->ref16);
    free(c->tol16_32);
    free(c->tol16_tc);
}

/* FP32 D: within tol[i] of the reference, finite. */
static void compare_d32(const gemm_case *c, const float *got, const double *tol, check *chk)
{
    size_t mn = (size_t)c->M * c->N, wrong = 0, first = 0;
    for (size_t i = 0; i < mn; i++) {
        double err = fabs((double)got[i] - c->ref8[i]);
        if (!(err <= tol[i])) /* NaN fails too */
            if (wrong++ == 0)
                first = i;
    }
    if (wrong)
        set_verdict(chk, WRONG,
                    "%d x %d x %d: D[%zu, %zu] = %.9g, expected %.9g within %.3g; "
                    "%zu of %zu elements wrong",
                    c->M, c->N, c->K, first / c->N, first % c->N, got[first], c->ref8[first],
                    tol[first], wrong, mn);
}

/* E4M3 D: encoding is monotone, so a right code lies between the codes of
 * (ref - tol) d_scale and (ref + tol) d_scale; and d_amax = max |t| within
 * the largest tolerance. */
static void compare_d8(const gemm_case *c, const uint8_t *got, float d_amax, const double *tol_of,
                       check *chk)
{
    size_t mn = (size_t)c->M * c->N, wrong = 0, first = 0;
    double max_tol = 0.0;
    for (size_t i = 0; i < mn; i++) {
        double tol = tol_of[i];
        max_tol = fmax(max_tol, tol);
        float lo = fp8_decode(fp8_encode((float)((c->ref8[i] - tol) * c->d_scale), FP8_E4M3, true),
                              FP8_E4M3);
        float hi = fp8_decode(fp8_encode((float)((c->ref8[i] + tol) * c->d_scale), FP8_E4M3, true),
                              FP8_E4M3);
        float v = fp8_decode(got[i], FP8_E4M3);
        if (!(v >= lo && v <= hi))
            if (wrong++ == 0)
                first = i;
    }
    if (wrong) {
        set_verdict(chk, WRONG,
                    "%d x %d x %d: D[%zu, %zu] = 0x%02x (%g), expected the E4M3 code of %.6g "
                    "(d_scale %g); %zu of %zu elements wrong",
                    c->M, c->N, c->K, first / c->N, first % c->N, got[first],
                    fp8_decode(got[first], FP8_E4M3), c->ref8[first] * c->d_scale,
                    (double)c->d_scale, wrong, mn);
    } else if (!(fabs((double)d_amax - c->max_ref8) <= max_tol)) {
        set_verdict(chk, WRONG, "%d x %d x %d: *d_amax = %.9g, expected %.9g within %.3g", c->M,
                    c->N, c->K, d_amax, c->max_ref8, max_tol);
    }
}

/* BF16 D: the tensor-core tolerance, plus the output's rounding to BF16
 * (half an ulp: 2^-8 of |D| at most). */
static void compare_d16(const gemm_case *c, const uint16_t *got, check *chk)
{
    size_t mn = (size_t)c->M * c->N, wrong = 0, first = 0;
    double first_tol = 0.0;
    for (size_t i = 0; i < mn; i++) {
        double tol = c->tol16_tc[i] + 0x1p-8 * fabs(c->ref16[i]);
        double err = fabs((double)float_from_bf16(got[i]) - c->ref16[i]);
        if (!(err <= tol))
            if (wrong++ == 0) {
                first = i;
                first_tol = tol;
            }
    }
    if (wrong)
        set_verdict(chk, WRONG,
                    "%d x %d x %d: D[%zu, %zu] = %.6g (0x%04x), expected %.6g within %.3g; "
                    "%zu of %zu elements wrong",
                    c->M, c->N, c->K, first / c->N, first % c->N, float_from_bf16(got[first]),
                    got[first], c->ref16[first], first_tol, wrong, mn);
}

/* The shapes each GEMM is checked on: one for all (M != N, so that a
 * transposed A or B shows), and one that no tile divides, for the kernels
 * that take any M, N, K. */
static const struct gemm_shape {
    int M, N, K;
    bool any_size_only;
} GEMM_SHAPES[] = {{256, 384, 512, false}, {129, 65, 97, true}};
#define N_GEMM_SHAPES 2

/* The compute capability f needs, as one number (89 for 8.9), and in
 * *exactly whether no newer one runs it (sm_90a code runs on 9.0 alone):
 * the FP8 tensor cores, mma.sync and cuBLASLt's FP8 matmul from Ada (8.9),
 * wgmma on Hopper (9.0); the rest from 7.5. */
static int needs_cc(fn f, bool *exactly)
{
    *exactly = f == F_WGMMA_TILE || f == F_WGMMA;
    if (*exactly)
        return 90;
    return f == F_MMA || f == F_LT_FP8 || f == F_Y_F32 || f == F_Y_E4M3 ? 89 : 75;
}

static bool runs_on(const gpu *g, fn f)
{
    bool exactly;
    int need = needs_cc(f, &exactly), cc = g->prop.major * 10 + g->prop.minor;
    return exactly ? cc == need : cc >= need;
}

static void validate_one_gemm(gpu *g, fn f, const gemm_case *c, gemm_bufs *b, check *chk)
{
    char why[WHY_SIZE];
    size_t mn = (size_t)c->M * c->N;
    gemm_upload(b, c->a8, c->b8, c->a16, c->b16, c->a_scale_inv, c->b_scale_inv, c->d_scale);
    cudaError_t rc = call_gemm(g, f, b, 0, why, sizeof why);
    if (rc == cudaErrorNotSupported && !runs_on(g, f)) {
        bool exactly;
        int need = needs_cc(f, &exactly);
        wait_or_die(g, FN_NAME[f]);
        set_verdict(chk, UNSUPPORTED,
                    "not on this GPU: compute capability %d.%d, and it needs %d.%d%s (it "
                    "returned cudaErrorNotSupported, as it should)",
                    g->prop.major, g->prop.minor, need / 10, need % 10,
                    exactly ? "" : " or later");
        return;
    }
    if (!finished(g, f, rc, why, chk))
        return;
    if (writes_e4m3(f)) {
        uint8_t *got = (uint8_t *)xmalloc(mn);
        float d_amax;
        CUDA_CHECK(cudaMemcpy(got, b->d8.base, mn, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&d_amax, scalar(&b->scalars, 3), sizeof d_amax,
                              cudaMemcpyDeviceToHost));
        compare_d8(c, got, d_amax, c->tol8_tc, chk);
        free(got);
    } else if (is_bf16(f)) {
        uint16_t *got = (uint16_t *)xmalloc(mn * sizeof(uint16_t));
        CUDA_CHECK(cudaMemcpy(got, b->d16.base, mn * sizeof(uint16_t), cudaMemcpyDeviceToHost));
        compare_d16(c, got, chk);
        free(got);
    } else {
        float *got = (float *)xmalloc(mn * sizeof(float));
        CUDA_CHECK(cudaMemcpy(got, b->d32.base, mn * sizeof(float), cudaMemcpyDeviceToHost));
        compare_d32(c, got, is_tensor_core(f) ? c->tol8_tc : c->tol8_32, chk);
        free(got);
    }
}

static void validate_gemms(gpu *g, rng_state *r, check *chk)
{
    for (int s = 0; s < N_GEMM_SHAPES; s++) {
        const struct gemm_shape *sh = &GEMM_SHAPES[s];
        gemm_case c;
        gemm_bufs b;
        gemm_case_make(&c, r, sh->M, sh->N, sh->K);
        gemm_alloc(&b, g, sh->M, sh->N, sh->K, 1);
        for (int f = F_FIRST_GEMM; f < N_FN; f++) {
            if (sh->any_size_only && is_tensor_core((fn)f))
                continue;
            if (still_ok(&chk[f]))
                validate_one_gemm(g, (fn)f, &c, &b, &chk[f]);
        }
        gemm_free(&b);
        gemm_case_free(&c);
    }
    for (int f = F_FIRST_GEMM; f < N_FN; f++)
        if (chk[f].v == NOT_RUN)
            chk[f].v = PASSED;
}

static const char *verdict_word(verdict v)
{
    return v == PASSED ? "OK" : v == WRONG ? "WRONG" : v == FAILED ? "FAILED" : "skipped";
}

static void print_validation(const check *chk, uint64_t seed, bool *any_wrong)
{
    static const char *const WHAT[N_FN] = {
        "",
        "3145733 floats, against stats_amax",
        "3145733 floats, E4M3 and E5M2, against fp8_encode",
        "512 x 4096 (E4M3 ceil, floor; E5M2 floor), 37 x 1000",
        "3145733 floats, against rounding on the host",
        "256 x 384 x 512 and 129 x 65 x 97",
        "256 x 384 x 512 and 129 x 65 x 97",
        "256 x 384 x 512",
        "256 x 384 x 512",
        "256 x 384 x 512",
        "256 x 384 x 512, E4M3 output and its amax",
        "256 x 384 x 512, BF16 inputs and output",
        "256 x 384 x 512, fast accumulation",
        "256 x 384 x 512, output's scale, amax, promoted",
        "256 x 384 x 512, BF16 inputs and output",
    };
    *any_wrong = false;
    bool yard_wrong = false;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            printf("\n  The demo's own yardsticks (cuBLASLt's descriptors and algorithm made\n"
                   "  once; not counted in the exit status):\n");
        for (int f = F_AMAX; f < N_FN; f++) {
            if (is_yardstick(f) != (pass == 1))
                continue;
            const check *c = &chk[f];
            printf("  %-24s %-52s %s\n", FN_NAME[f], WHAT[f], verdict_word(c->v));
            if (c->v != PASSED)
                printf("      %s\n", c->msg);
            if (c->v == WRONG || c->v == FAILED) {
                if (is_yardstick(f))
                    yard_wrong = true;
                else
                    *any_wrong = true;
            }
        }
    }
    printf("\n  Inputs: seed %llu (--seed %llu draws them again).\n"
           "  The GEMMs' FP8 operands are random E4M3 codes of magnitude 0.125 to 30,\n"
           "  a_scale_inv 0.1 and b_scale_inv 3.\n"
           "  Tolerances (README §5.1): (K + 2) 2^-23 S for the FP32 paths, S = |sa sb|\n"
           "  sum_k |a_ik b_jk|; for the tensor cores the grader's own, twice the worst case\n"
           "  of a model of Hopper's FP8 accumulation (14 bits kept at each k32 step) on\n"
           "  each element's products, 2 (err |sa sb| + 2^-23 |D|) (labs/lab5/lab5_bound.h).%s%s\n\n",
           (unsigned long long)seed, (unsigned long long)seed,
           *any_wrong ? "\n  What is WRONG or FAILED is left out of the timing; "
                        "./grader lab5 says more."
                      : "",
           yard_wrong ? "\n  A yardstick that is WRONG or FAILED is left out too, and so is "
                        "every\n  figure taken against it."
                      : "");
}

/* ---- what the timing found ------------------------------------------------------- */

typedef struct results {
    /* the memory-bound kernels, at each size of the sweep (the last: --elems) */
    int nsweep;
    size_t sweep_n[MAX_SWEEP];
    double mb_ms[N_MB][MAX_SWEEP];
    double mb_gbs[N_MB][MAX_SWEEP];
    size_t mx_rows, mx_cols; /* at --elems */
    /* the GEMMs, at each size */
    int nsizes;
    int sizes[MAX_SIZES];
    double gemm_ms[N_FN][MAX_SIZES]; /* per launch, indexed by fn; NaN: not timed */
    double host_us[N_FN][MAX_SIZES]; /* the host's time to queue one launch */
    double cast_ms[MAX_SIZES];       /* lab5_scale_cast of one size x size FP32 matrix */
    double cast16_ms[MAX_SIZES];     /* the demo's FP32 to BF16 cast of the same */
    bool timing_failed;              /* a function that passed returned an error when timed */
    char notes[2048];                /* what was not timed, and why: printed after the timing */
    size_t notes_len;
} results;

/* A function that passed validation failed when timed: noted, and printed
 * once the timing line is done. */
static void note_not_timed(results *res, fn f, const char *where, const char *why)
{
    lab_appendf(res->notes, sizeof res->notes, &res->notes_len, "  note: %s %s %s: not timed\n",
                FN_NAME[f], where, why);
    if (!is_yardstick(f))
        res->timing_failed = true;
}

/* A time taken while the host was slower to queue the batch than the hold
 * lasted: the host's time is in it. */
static void note_held(results *res, fn f, const char *where)
{
    lab_appendf(res->notes, sizeof res->notes, &res->notes_len,
                "  note: %s %s: the host had not queued a batch after %.1f s; its time\n"
                "        includes the host's (does the call wait for the GPU?)\n",
                FN_NAME[f], where, HOLD_TIMEOUT_NS * 1e-9);
}

static void print_notes(results *res)
{
    printf("%s%s", res->notes, res->notes_len ? "\n" : "");
    res->notes[0] = '\0';
    res->notes_len = 0;
}

static double tflops(int size, double ms)
{
    return 2.0 * size * (double)size * size / (ms * 1e-3) / 1e12;
}

/* ---- timing: the memory-bound kernels -------------------------------------------- */

static void time_memory_bound(gpu *g, const float *hx, const check *chk, size_t elems,
                              results *res)
{
    /* The sweep: 2^20, 2^22, ... below elems, then elems. */
    res->nsweep = 0;
    for (size_t n = SWEEP_FIRST; n < elems && res->nsweep < MAX_SWEEP - 1; n <<= 2)
        res->sweep_n[res->nsweep++] = n;
    res->sweep_n[res->nsweep++] = elems;

    printf("Timing the memory-bound kernels at");
    for (int k = 0; k < res->nsweep; k++) {
        size_t n = res->sweep_n[k];
        printf(" %zu", n);
        fflush(stdout);
        mb_bufs b;
        mb_alloc(&b, g, n, false);
        mb_upload(&b, hx);
        res->mx_rows = b.rows;
        res->mx_cols = b.cols;
        for (int f = F_COPY; f < N_MB; f++) {
            res->mb_ms[f][k] = res->mb_gbs[f][k] = NAN;
            if (f != F_COPY && !timed(&chk[f]))
                continue;
            char why[WHY_SIZE], where[64];
            launch_info info;
            double ms = time_per_launch_ms(
                g, FN_NAME[f],
                [&](int rep, char *w, size_t cap) { return call_mb(g, (fn)f, &b, rep, w, cap); },
                why, sizeof why, &info);
            snprintf(where, sizeof where, "on %zu floats", n);
            if (isnan(ms))
                note_not_timed(res, (fn)f, where, why);
            else if (info.held_out)
                note_held(res, (fn)f, where);
            res->mb_ms[f][k] = ms;
            res->mb_gbs[f][k] = mb_bytes((fn)f, &b) / (ms * 1e-3) / 1e9;
        }
        mb_free(&b);
    }
    printf(" floats: done\n\n");
    print_notes(res);
}

static void print_memory_bound(const gpu *g, const results *res)
{
    int k = res->nsweep - 1;
    size_t n = res->sweep_n[k];
    double copy = res->mb_gbs[F_COPY][k];
    printf("Memory-bound kernels on x = %zu floats (%.1f MiB), time per launch, the median\n"
           "of %d batches after %d warm-ups; lab5_mx_quantize sees x as %zu rows of %zu:\n\n",
           n, (double)n * 4 / (1 << 20), REPS, WARMUPS, res->mx_rows, res->mx_cols);
    printf("  %-28s %10s %11s %9s %10s %8s\n", "kernel", "time (ms)", "moved (MB)", "GB/s",
           "% of copy", "target");
    for (int f = F_COPY; f < N_MB; f++) {
        double ms = res->mb_ms[f][k], gbs = res->mb_gbs[f][k];
        double moved = isnan(ms) ? NAN : gbs * ms * 1e-3 * 1e9 / 1e6;
        double pct = 100.0 * gbs / copy; /* NaN when either is */
        printf("  %-28s", FN_LABEL[f]);
        if (isnan(ms))
            printf(" %10s %11s %9s", "n/a", "n/a", "n/a");
        else
            printf(" %10.3f %11.1f %9.1f", ms, moved, gbs);
        if (isnan(pct))
            printf(" %10s", "n/a");
        else
            printf(" %9.1f%%", pct);
        if (f == F_COPY)
            printf("\n");
        else
            printf("   >= %2.0f%%  %s\n", TARGET_PCT[f],
                   isnan(pct) ? "" : pct >= TARGET_PCT[f] ? "met" : "not met");
    }
    printf("\n  Bytes moved: each input read once and each output written once (x 4 bytes a\n"
           "  float, FP8 codes 1 byte, MX scales 1 byte per 32); MB and GB are 10^6 and\n"
           "  10^9 bytes. n/a: not timed (see the validation above).\n");
    if (g->peak_gbs > 0 && !isnan(copy))
        printf("  The copy reaches %.0f%% of the spec sheet's %.0f GB/s.\n",
               100.0 * copy / g->peak_gbs, g->peak_gbs);
    printf("\n");
}

/* ---- timing: the GEMMs ----------------------------------------------------------- */

static bool naive_skipped(const options *o, int size)
{
    return !o->all && size > NAIVE_MAX;
}

/* Times f at size k (what the queue op does) into ms and host_us. */
template <class Op>
static void time_into(gpu *g, fn f, Op op, const char *where, results *res, double *ms,
                      double *host_us)
{
    char why[WHY_SIZE];
    launch_info info;
    *ms = time_per_launch_ms(g, FN_NAME[f], op, why, sizeof why, &info);
    *host_us = isnan(*ms) ? NAN : info.host_us;
    if (isnan(*ms))
        note_not_timed(res, f, where, why);
    else if (info.held_out)
        note_held(res, f, where);
}

static void time_gemms(gpu *g, const options *o, const check *chk, const float *hx,
                       rng_state *r, results *res)
{
    res->nsizes = o->nsizes;
    printf("Timing the GEMMs at M = N = K =");
    for (int k = 0; k < o->nsizes; k++) {
        int s = o->sizes[k];
        size_t ss = (size_t)s * s;
        char where[64];
        snprintf(where, sizeof where, "at %d x %d x %d", s, s, s);
        res->sizes[k] = s;
        printf(" %d", s);
        fflush(stdout);

        uint8_t *a8 = (uint8_t *)xmalloc(ss), *b8 = (uint8_t *)xmalloc(ss);
        uint16_t *a16 = (uint16_t *)xmalloc(ss * sizeof(uint16_t));
        uint16_t *b16 = (uint16_t *)xmalloc(ss * sizeof(uint16_t));
        fill_e4m3(r, a8, ss);
        fill_e4m3(r, b8, ss);
        fill_bf16(r, a16, ss);
        fill_bf16(r, b16, ss);
        gemm_bufs b;
        gemm_alloc(&b, g, s, s, s, gemm_sets(g, s, s, s)); /* the yardsticks' plans, too */
        /* Scales of 1; d_scale puts D's RMS, about 90 sqrt(K) for these
         * inputs, near 64, so that few E4M3 outputs saturate. */
        gemm_upload(&b, a8, b8, a16, b16, 1.0f, 1.0f, (float)(64.0 / (90.0 * sqrt((double)s))));
        free(a8);
        free(b8);
        free(a16);
        free(b16);

        for (int f = F_FIRST_GEMM; f < N_FN; f++) {
            res->gemm_ms[f][k] = res->host_us[f][k] = NAN;
            /* lab5_gemm_cublaslt_bf16 is given, and the same call as the BF16
             * yardstick: only the FP8 one is timed, for the host's cost. */
            if (!timed(&chk[f]) || f == F_LT_BF16 || (f == F_NAIVE && naive_skipped(o, s)))
                continue;
            time_into(
                g, (fn)f,
                [&](int rep, char *w, size_t cap) { return call_gemm(g, (fn)f, &b, rep, w, cap); },
                where, res, &res->gemm_ms[f][k], &res->host_us[f][k]);
        }
        gemm_free(&b);

        /* The casts the speedups count: one s x s FP32 matrix to E4M3
         * (lab5_scale_cast) and to BF16 (the demo's), from the same random
         * floats as x. */
        res->cast_ms[k] = res->cast16_ms[k] = NAN;
        mb_bufs c;
        mb_alloc(&c, g, ss, true);
        mb_upload(&c, hx);
        snprintf(where, sizeof where, "on %zu floats (an operand)", ss);
        const fn casts[2] = {F_CAST, F_CAST_BF16};
        double *into[2] = {&res->cast_ms[k], &res->cast16_ms[k]};
        for (int i = 0; i < 2; i++) {
            double host;
            if (timed(&chk[casts[i]]))
                time_into(
                    g, casts[i],
                    [&](int rep, char *w, size_t cap) {
                        return call_mb(g, casts[i], &c, rep, w, cap);
                    },
                    where, res, into[i], &host);
        }
        mb_free(&c);
    }
    printf(": done\n\n");
    print_notes(res);
}

/* The cell of GEMM f at size k: its TFLOPS, or why there is none. */
static void gemm_cell(char *buf, size_t cap, const options *o, const check *chk,
                      const results *res, fn f, int k)
{
    double ms = res->gemm_ms[f][k];
    if (!timed(&chk[f])) {
        snprintf(buf, cap, "n/a");
    } else if (f == F_NAIVE && naive_skipped(o, res->sizes[k])) {
        snprintf(buf, cap, "-");
    } else if (isnan(ms)) {
        snprintf(buf, cap, "failed");
    } else {
        double t = tflops(res->sizes[k], ms);
        snprintf(buf, cap, t < 10 ? "%.2f" : "%.1f", t);
    }
}

/* a / b as a percentage, "n/a" when either is missing. */
static void pct_cell(char *buf, size_t cap, double a, double b)
{
    if (isnan(a) || isnan(b) || b <= 0)
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.1f%%", 100.0 * a / b);
}

/* The TFLOPS table's column heads, and their widths. */
static const char *const COL_HEAD[N_FN] = {
    "", "", "", "", "", "naive", "tiled", "mma", "wgmma_tile", "wgmma", "", "",
    "Lt8>F32", "Lt8>E4M3", "LtBF16"};
static const int COL_WIDTH[N_FN] = {0, 0, 0, 0, 0, 8, 8, 8, 11, 8, 0, 0, 9, 10, 8};

static void print_gemms(const options *o, const check *chk, const results *res)
{
    char cell[32];
    printf("GEMMs, D = A B^T with A (M x K) and B (N x K), M = N = K: TFLOPS (2 M N K\n"
           "operations a second, 10^12), time per launch, the median of %d batches after\n"
           "%d warm-ups:\n\n",
           REPS, WARMUPS);
    printf("  %6s", "M=N=K");
    for (int f = F_FIRST_GEMM; f < N_FN; f++)
        if (in_gemm_table(f))
            printf("%*s", COL_WIDTH[f], COL_HEAD[f]);
    printf("\n");
    for (int k = 0; k < res->nsizes; k++) {
        printf("  %6d", res->sizes[k]);
        for (int f = F_FIRST_GEMM; f < N_FN; f++) {
            if (!in_gemm_table(f))
                continue;
            gemm_cell(cell, sizeof cell, o, chk, res, (fn)f, k);
            printf("%*s", COL_WIDTH[f], cell);
        }
        printf("\n");
    }
    printf("\n  naive to wgmma: your kernels, E4M3 in, FP32 out, no promotion of partial sums.\n"
           "  The demo's cuBLASLt yardsticks, descriptors and algorithm made before the timing:\n"
           "    Lt8>F32   E4M3 in, FP32 out, fast accumulation: like for like with your\n"
           "              kernels (the grader's perf_gemm baseline);\n"
           "    Lt8>E4M3  E4M3 in and out, with the output's scale and amax, partial sums\n"
           "              promoted (FAST_ACCUM = 0): lab5_gemm_cublaslt_fp8's settings, an\n"
           "              FP8 output as Transformer Engine writes one;\n"
           "    LtBF16    BF16 in and out, FP32 accumulation: lab5_gemm_cublaslt_bf16's.\n");
    if (!o->all)
        printf("  -: the naive kernel is timed up to %d only (--all times it everywhere).\n",
               NAIVE_MAX);
    printf("  n/a: left out after the validation; failed: returned an error when timed.\n\n");

    printf("Your tensor-core kernels as a %% of cuBLASLt's FP8 GEMM like for like (Lt8>F32;\n"
           "the course's target: wgmma >= %.0f%% at %d^3):\n\n", WGMMA_TARGET_PCT,
           WGMMA_TARGET_SIZE);
    printf("  %6s %9s %11s %9s\n", "M=N=K", "mma", "wgmma_tile", "wgmma");
    for (int k = 0; k < res->nsizes; k++) {
        double lt = timed(&chk[F_Y_F32]) ? res->gemm_ms[F_Y_F32][k] : NAN;
        printf("  %6d", res->sizes[k]);
        /* A rate as a % of another's: the inverse ratio of their times. */
        pct_cell(cell, sizeof cell, lt, res->gemm_ms[F_MMA][k]);
        printf(" %9s", cell);
        pct_cell(cell, sizeof cell, lt, res->gemm_ms[F_WGMMA_TILE][k]);
        printf(" %11s", cell);
        pct_cell(cell, sizeof cell, lt, res->gemm_ms[F_WGMMA][k]);
        printf(" %9s", cell);
        double wg = 100.0 * lt / res->gemm_ms[F_WGMMA][k];
        if (res->sizes[k] == WGMMA_TARGET_SIZE && !isnan(wg))
            printf("   target %s", wg >= WGMMA_TARGET_PCT ? "met" : "not met");
        printf("\n");
    }
    printf("\n");

    printf("What one FP8 cuBLASLt call costs the host, in microseconds: the yardstick's\n"
           "cublasLtMatmul with its plan made once, against lab5_gemm_cublaslt_fp8, which\n"
           "makes its descriptors and asks for the heuristic at every call (same settings,\n"
           "same GPU time: the stream is held while the host queues a batch):\n\n");
    printf("  %6s %10s %14s %16s\n", "M=N=K", "GPU (us)", "host, plan", "host, per call");
    for (int k = 0; k < res->nsizes; k++) {
        double gpu_us = 1e3 * res->gemm_ms[F_Y_E4M3][k];
        double plan = res->host_us[F_Y_E4M3][k], each = res->host_us[F_LT_FP8][k];
        printf("  %6d", res->sizes[k]);
        if (isnan(gpu_us))
            printf(" %10s", "n/a");
        else
            printf(" %10.1f", gpu_us);
        if (isnan(plan))
            printf(" %14s", "n/a");
        else
            printf(" %14.1f", plan);
        if (isnan(each))
            printf(" %16s\n", "n/a");
        else
            printf(" %16.1f\n", each);
    }
    printf("\n  Timed one call at a time between two events, a GEMM whose GPU time is below\n"
           "  the host's time per call runs at the host's pace, and the events measure the\n"
           "  host: why every cuBLASLt figure here comes from a plan made once, and why the\n"
           "  timing holds the stream until a batch is queued (README §7).\n\n");
}

/* The FP8 speedups over BF16 at size k, NaN where a time is missing:
 * [0] the GEMMs alone, E4M3 out; [1] alone, FP32 out with fast
 * accumulation; [2] FP8's casts of A and B from FP32 counted, BF16's not;
 * [3] both formats' casts of A and B from FP32 at every call; [4] the
 * activations' (A's) cast only, the weights' (B's) cast once a step and
 * spread over its calls. FP8's GEMM in [2] to [4] is Lt8>E4M3. */
#define N_SPEEDUPS 5
static void speedups(const check *chk, const results *res, int k, double out[N_SPEEDUPS])
{
    double nan = NAN;
    double bf16 = timed(&chk[F_Y_BF16]) ? res->gemm_ms[F_Y_BF16][k] : nan;
    double e4m3 = timed(&chk[F_Y_E4M3]) ? res->gemm_ms[F_Y_E4M3][k] : nan;
    double f32 = timed(&chk[F_Y_F32]) ? res->gemm_ms[F_Y_F32][k] : nan;
    double c8 = res->cast_ms[k], c16 = res->cast16_ms[k];
    out[0] = bf16 / e4m3;
    out[1] = bf16 / f32;
    out[2] = bf16 / (e4m3 + 2.0 * c8);
    out[3] = (bf16 + 2.0 * c16) / (e4m3 + 2.0 * c8);
    out[4] = (bf16 + c16) / (e4m3 + c8);
}

static void us_cell(char *buf, size_t cap, double ms)
{
    if (isnan(ms))
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.1f", 1e3 * ms);
}

static void print_speedup(const check *chk, const results *res)
{
    char c[5][32];
    printf("cuBLASLt FP8 against cuBLASLt BF16. The times, in microseconds per launch: the\n"
           "GEMMs, and the cast of one M x K operand from FP32, to E4M3 (lab5_scale_cast,\n"
           "5 bytes an element) and to BF16 (the demo's, 6 bytes an element):\n\n");
    printf("  %6s %10s %10s %10s %12s %12s\n", "M=N=K", "LtBF16", "Lt8>E4M3", "Lt8>F32",
           "cast E4M3", "cast BF16");
    for (int k = 0; k < res->nsizes; k++) {
        us_cell(c[0], sizeof c[0], timed(&chk[F_Y_BF16]) ? res->gemm_ms[F_Y_BF16][k] : NAN);
        us_cell(c[1], sizeof c[1], timed(&chk[F_Y_E4M3]) ? res->gemm_ms[F_Y_E4M3][k] : NAN);
        us_cell(c[2], sizeof c[2], timed(&chk[F_Y_F32]) ? res->gemm_ms[F_Y_F32][k] : NAN);
        us_cell(c[3], sizeof c[3], res->cast_ms[k]);
        us_cell(c[4], sizeof c[4], res->cast16_ms[k]);
        printf("  %6d %10s %10s %10s %12s %12s\n", res->sizes[k], c[0], c[1], c[2], c[3], c[4]);
    }
    printf("\nThe speedup, BF16's time over FP8's, counted four ways, next to the datasheet's\n"
           "%.0fx (H100 SXM, dense: 1979 FP8 TFLOPS over 989 BF16):\n\n", FP8_CLAIM);
    printf("  %6s %8s %8s %10s %10s %11s %10s\n", "M=N=K", "alone", "alone", "FP8 cast",
           "both cast", "activations", "datasheet");
    printf("  %6s %8s %8s %10s %10s %11s %10s\n", "", "E4M3 out", "FP32 out", "only",
           "each call", "only", "");
    int below[N_SPEEDUPS] = {0};
    for (int k = 0; k < res->nsizes; k++) {
        double sp[N_SPEEDUPS];
        speedups(chk, res, k, sp);
        printf("  %6d", res->sizes[k]);
        for (int i = 0; i < N_SPEEDUPS; i++) {
            int w = i < 2 ? 8 : i == 4 ? 11 : 10;
            if (isnan(sp[i]))
                printf(" %*s", w, "n/a");
            else
                printf(" %*.2fx", w - 1, sp[i]);
            below[i] += sp[i] < 1.0; /* false for NaN */
        }
        printf(" %9.0fx\n", FP8_CLAIM);
    }
    printf("\n  alone: the GEMMs on operands already in their formats (FP8's with E4M3 or\n"
           "    FP32 output; BF16's writes BF16);\n"
           "  FP8 cast only: FP8 pays the casts of A and B from FP32, BF16 nothing (as if\n"
           "    its operands were free): the unfair one;\n"
           "  both cast each call: each format pays its own casts of A and B from FP32;\n"
           "  activations only: each pays the cast of A, the activations, at every call;\n"
           "    B, the weights, is cast once a training step and its cost spread over\n"
           "    the step's calls (left out here).\n"
           "  FP8 runs slower than BF16 (below 1x) at %d size(s) with both cast each call,\n"
           "  at %d with the activations only. n/a: not timed.\n\n",
           below[3], below[4]);
}

/* ---- the plots ------------------------------------------------------------------- */

/* A series' label: the function's, with why it has no points when it has none. */
static const char *series_label(const check *chk, fn f, char *buf, size_t cap)
{
    if (f == F_COPY || timed(&chk[f]))
        return FN_LABEL[f];
    snprintf(buf, cap, "%s (not timed: %s)", FN_LABEL[f],
             chk[f].v == UNSUPPORTED ? "not on this GPU" : "failed validation");
    return buf;
}

static int fill_bandwidth(plot *p, const gpu *g, const check *chk, const results *res,
                          lab_error *err)
{
    double x[MAX_SWEEP];
    char label[128];
    for (int k = 0; k < res->nsweep; k++)
        x[k] = log2((double)res->sweep_n[k]);
    for (int f = F_COPY; f < N_MB; f++)
        if (plot_add_series(p, series_label(chk, (fn)f, label, sizeof label), x, res->mb_gbs[f],
                            (size_t)res->nsweep, err) != 0)
            return -1;
    char peak[64];
    snprintf(peak, sizeof peak, "spec sheet: %.0f GB/s", g->peak_gbs);
    if (g->peak_gbs > 0 && plot_add_hline(p, g->peak_gbs, peak, err) != 0)
        return -1;
    return plot_set_yrange(p, 0, NAN, err);
}

static int fill_gemm_tflops(plot *p, const gpu *g, const check *chk, const results *res,
                            lab_error *err)
{
    double x[MAX_SIZES], y[MAX_SIZES];
    char label[128];
    (void)g;
    for (int k = 0; k < res->nsizes; k++)
        x[k] = log2((double)res->sizes[k]);
    for (int f = F_FIRST_GEMM; f < N_FN; f++) {
        if (!in_gemm_table(f))
            continue;
        for (int k = 0; k < res->nsizes; k++)
            y[k] = tflops(res->sizes[k], res->gemm_ms[f][k]);
        if (plot_add_series(p, series_label(chk, (fn)f, label, sizeof label), x, y,
                            (size_t)res->nsizes, err) != 0)
            return -1;
    }
    plot_set_log_y(p, true);
    return 0;
}

static int fill_fp8_speedup(plot *p, const gpu *g, const check *chk, const results *res,
                            lab_error *err)
{
    static const char *const LABEL[N_SPEEDUPS] = {
        "GEMMs alone (FP8 with E4M3 out)", "GEMMs alone (FP8 with FP32 out)",
        "FP8's casts of A and B from FP32 only (unfair)",
        "each format's casts of A and B from FP32, every call",
        "the activations' cast only (weights cast once a step)"};
    double x[MAX_SIZES], y[N_SPEEDUPS][MAX_SIZES], top = 1.25 * FP8_CLAIM;
    (void)g;
    for (int k = 0; k < res->nsizes; k++) {
        double sp[N_SPEEDUPS];
        speedups(chk, res, k, sp);
        x[k] = log2((double)res->sizes[k]);
        for (int i = 0; i < N_SPEEDUPS; i++) {
            y[i][k] = sp[i];
            if (sp[i] * 1.1 > top) /* false for NaN */
                top = sp[i] * 1.1;
        }
    }
    for (int i = 0; i < N_SPEEDUPS; i++)
        if (plot_add_series(p, LABEL[i], x, y[i], (size_t)res->nsizes, err) != 0)
            return -1;
    if (plot_add_hline(p, FP8_CLAIM, "2x, the datasheet's ratio and the tutorials' claim",
                       err) != 0 ||
        plot_add_hline(p, 1.0, "1x: no faster than BF16", err) != 0)
        return -1;
    return plot_set_yrange(p, 0, top, err); /* room above the 2x line for its label */
}

/* One plot: its file name, texts, and what draws its series. */
typedef struct plot_spec {
    const char *name;
    const char *title;
    const char *xlabel;
    const char *ylabel;
    int (*fill)(plot *p, const gpu *g, const check *chk, const results *res, lab_error *err);
} plot_spec;

static const plot_spec PLOTS[] = {
    {"bandwidth", "Memory-bound kernels: bandwidth against the tensor's size (higher is better)",
     "size of x, log2 of its floats (20: 4 MiB, 26: 256 MiB)",
     "GB/s (bytes read + written, 10^9 a second)", fill_bandwidth},
    {"gemm_tflops", "GEMMs, M = N = K: TFLOPS (log scale; higher is better)",
     "M = N = K, log2 (10: 1024, 13: 8192)", "TFLOPS (2 M N K / time, 10^12 a second)",
     fill_gemm_tflops},
    {"fp8_speedup", "cuBLASLt FP8 over BF16: the speedup, alone and with the casts counted",
     "M = N = K, log2 (10: 1024, 13: 8192)", "speedup over cuBLASLt BF16 (BF16 time / FP8 time)",
     fill_fp8_speedup},
};
#define N_PLOTS 3

/* Makes and renders plot i as DIR/name.png. Returns 0, PLOT_NO_GNUPLOT, or
 * -1 (message printed). */
static int draw_plot(int i, demo_options *o, const gpu *g, const check *chk,
                     const results *res)
{
    char stem[DEMO_STEM_SIZE];
    if (demo_stem(o, PLOTS[i].name, stem, sizeof stem) != 0)
        return -1;
    lab_error err = {};
    plot *p = plot_new(stem, PLOTS[i].title, PLOTS[i].xlabel, PLOTS[i].ylabel, &err);
    if (p && (PLOTS[i].fill(p, g, chk, res, &err) != 0 ||
              plot_set_key(p, "below", &err) != 0)) { /* the data keeps the width */
        plot_free(p);
        p = NULL; /* err says why */
    }
    if (p)
        printf("Plot %d, %s:\n", i + 1, PLOTS[i].title);
    return demo_render(o, p, stem, PLOT_WIDTH, &err);
}

/* ---- the summary ----------------------------------------------------------------- */

/* A number for the handout's tables: fmt of v, or a dash when there is none. */
static void md_cell(char *buf, size_t cap, const char *fmt, double v)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, cap, "—"); /* an em dash, as the handout's empty cells */
    else
        snprintf(buf, cap, fmt, v);
}

/* The end: rows for the handout's three results tables (README §10), at
 * --elems and at each GEMM size, then its GPU line with the command that
 * made them. */
static void print_summary(const gpu *g, const options *o, const check *chk, const results *res)
{
    static const char *const MD_NAME[N_MB] = {
        "copy (device to device)", "`lab5_amax`", "`lab5_scale_cast`, E4M3",
        "`lab5_mx_quantize`, E4M3, ceil"};
    int m = res->nsweep - 1;
    double copy = res->mb_gbs[F_COPY][m];
    char gbs[32], pct[32], cell[32];
    printf("Summary: rows for the handout's results tables (README §10), then its GPU\n"
           "line, with the command that measured them.\n\n");
    for (int f = F_COPY; f < N_MB; f++) {
        md_cell(gbs, sizeof gbs, "%.0f", res->mb_gbs[f][m]);
        md_cell(pct, sizeof pct, "%.0f%%", 100.0 * res->mb_gbs[f][m] / copy);
        printf("| %s | %s | %s |\n", MD_NAME[f], gbs, pct);
    }
    printf("\n");
    for (int k = 0; k < res->nsizes; k++) {
        printf("| %d |", res->sizes[k]);
        for (int f = F_FIRST_GEMM; f < N_FN; f++) {
            if (!in_gemm_table(f))
                continue;
            gemm_cell(cell, sizeof cell, o, chk, res, (fn)f, k);
            printf(" %s |", isdigit((unsigned char)cell[0]) ? cell : "—");
        }
        printf("\n");
    }
    printf("\n");
    for (int k = 0; k < res->nsizes; k++) {
        double sp[N_SPEEDUPS];
        speedups(chk, res, k, sp);
        printf("| %d |", res->sizes[k]);
        for (int i = 0; i < N_SPEEDUPS; i++) {
            md_cell(cell, sizeof cell, "%.2f", sp[i]);
            printf(" %s |", cell);
        }
        printf(" %.0fx |\n", FP8_CLAIM);
    }
    printf("\nGPU: %s, compute capability %d.%d, %zu MiB; `%s`\n", g->prop.name, g->prop.major,
           g->prop.minor, g->prop.totalGlobalMem >> 20, o->command);
}

/* ---- the command line ------------------------------------------------------------ */

/* A count: decimal digits, or 2^E. */
static bool parse_count(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (s[0] == '2' && s[1] == '^') {
        if (!isdigit((unsigned char)s[2]))
            return false;
        unsigned long e = strtoul(s + 2, &end, 10);
        if (*end || errno || e > 62)
            return false;
        *out = 1ULL << e;
        return true;
    }
    if (!isdigit((unsigned char)s[0]))
        return false;
    *out = strtoull(s, &end, 10);
    return *end == '\0' && errno == 0;
}

static bool parse_sizes(const char *s, options *o)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    o->nsizes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        unsigned long long v;
        if (o->nsizes == MAX_SIZES || !parse_count(tok, &v) || v < SIZE_STEP || v > MAX_SIZE ||
            v % SIZE_STEP != 0)
            return false;
        o->sizes[o->nsizes++] = (int)v;
    }
    return o->nsizes > 0;
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s%s (try %s --help)\n", PROG, what, arg ? " '" : "",
            arg ? arg : "", arg ? "'" : "", PROG);
    return 2;
}

/* Reads lab5's own options and hands the rest to demo_parse_args. Returns
 * 0 to run, 1 after --help, 2 on a usage error (message printed). */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    char **rest = (char **)xmalloc(((size_t)argc + 1) * sizeof *rest);
    int nrest = 0, rc = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        bool valued = !strcmp(a, "--elems") || !strcmp(a, "--sizes") || !strcmp(a, "--seed");
        unsigned long long v = 0;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            rest[nrest++] = argv[i]; /* and its folder: demo_parse_args reads both */
            if (i + 1 < argc)
                rest[nrest++] = argv[++i];
        } else if (!strcmp(a, "--bench")) {
            o->bench = true;
        } else if (!strcmp(a, "--quick")) {
            o->quick = true;
        } else if (!strcmp(a, "--all")) {
            o->all = true;
        } else if (valued && i + 1 >= argc) {
            rc = usage_error(!strcmp(a, "--sizes") ? "--sizes needs a list, e.g. 1024,4096"
                             : !strcmp(a, "--elems") ? "--elems needs a count, e.g. 2^24"
                                                     : "--seed needs a number",
                             NULL);
        } else if (!strcmp(a, "--elems")) {
            if (!parse_count(argv[++i], &v) || v < 1 || v > MAX_ELEMS)
                rc = usage_error("--elems takes a count from 1 to 2^30, not", argv[i]);
            o->elems = (size_t)v;
        } else if (!strcmp(a, "--sizes")) {
            if (!parse_sizes(argv[++i], o))
                rc = usage_error("--sizes takes up to 8 multiples of 128 from 128 to 16384, "
                                 "separated by commas, not", argv[i]);
        } else if (!strcmp(a, "--seed")) {
            if (!parse_count(argv[++i], &v))
                rc = usage_error("--seed takes a number, not", argv[i]);
            o->seed = v;
            o->seed_given = true;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    rest[nrest] = NULL;
    if (rc == 0)
        rc = demo_parse_args(nrest, rest, PROG, ABOUT, DEFAULT_DIR, &o->demo);
    free(rest);
    if (rc != 0)
        return rc;
    if (o->bench && (o->quick || o->elems || o->nsizes))
        return usage_error("--bench is the fixed measurement; it takes none of --quick, "
                           "--elems, --sizes", NULL);
    if (o->bench) {
        o->all = true;
        o->demo.preview = false;
    }
    if (!o->elems)
        o->elems = o->quick ? QUICK_ELEMS : DEFAULT_ELEMS;
    if (!o->nsizes) {
        const int *sizes = o->quick ? QUICK_SIZES : DEFAULT_SIZES;
        o->nsizes = o->quick ? 2 : 4;
        memcpy(o->sizes, sizes, (size_t)o->nsizes * sizeof *sizes);
    }
    if (!o->seed_given)
        o->seed = (uint64_t)time(NULL);
    size_t len = 0;
    for (int i = 0; i < argc; i++)
        lab_appendf(o->command, sizeof o->command, &len, "%s%s", i ? " " : "", argv[i]);
    return 0;
}

/* ---- main ------------------------------------------------------------------------ */

#define VALIDATION_STREAM 5 /* rng_seed(&r, seed, ...): the validation's inputs */
#define TIMING_SEED 5       /* the timing's, the same in every run */
#define TIMING_STREAM 6

int main(int argc, char **argv)
{
    static options o; /* static: zeroed, and off the stack */
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc == 1 ? 0 : 2; /* 1: after --help */

    static gpu g;
    char why[WHY_SIZE];
    if (!find_gpu(&g, why, sizeof why)) {
        printf("lab5's demo needs an NVIDIA GPU of compute capability 7.5 or later: %s; the "
               "grader still compile-checks your kernels: ./grader lab5\n",
               why);
        return EXIT_NO_GPU;
    }
    print_gpu(&g);
    gpu_open(&g);

    static check chk[N_FN];
    chk[F_COPY].v = PASSED;
    rng_state r;
    rng_seed(&r, o.seed, VALIDATION_STREAM);
    printf("Validation, before any timing: each function on fresh random inputs, against\n"
           "the course library on the CPU (outputs poisoned first; NaN never passes):\n\n");
    validate_memory_bound(&g, &r, chk);
    validate_gemms(&g, &r, chk);
    bool any_wrong;
    print_validation(chk, o.seed, &any_wrong);

    /* The timing's inputs: random floats for x and for the casts of the
     * GEMMs' operands, then the GEMMs' own (time_gemms). */
    size_t nh = o.elems;
    for (int k = 0; k < o.nsizes; k++)
        if ((size_t)o.sizes[k] * o.sizes[k] > nh)
            nh = (size_t)o.sizes[k] * o.sizes[k];
    float *hx = (float *)xmalloc(nh * sizeof(float));
    rng_state rt;
    rng_seed(&rt, TIMING_SEED, TIMING_STREAM);
    fill_activations(&rt, hx, nh);

    static results res;
    time_memory_bound(&g, hx, chk, o.elems, &res);
    print_memory_bound(&g, &res);
    time_gemms(&g, &o, chk, hx, &rt, &res);
    free(hx);
    print_gemms(&o, chk, &res);
    print_speedup(chk, &res);

    int plot_failed = 0;
    for (int i = 0; i < N_PLOTS; i++)
        if (draw_plot(i, &o.demo, &g, chk, &res) == -1)
            plot_failed = 1;
    demo_note_no_gnuplot(&o.demo); /* when gnuplot was missing */
    gpu_close(&g);

    print_summary(&g, &o, chk, &res);
    if (plot_failed)
        return 1;
    return any_wrong || res.timing_failed ? EXIT_WRONG : 0;
}
