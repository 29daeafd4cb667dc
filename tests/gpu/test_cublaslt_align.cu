/*
 * test_cublaslt_align.cu - what cuBLASLt's FP8 GEMM does with a scale or
 * amax pointer that is not 16-byte aligned, and what the reference
 * solution's lab5_gemm_cublaslt_fp8 (solutions/lab5/gemm.cu) does with it.
 *
 * First the library itself, measured: the same FP8 call as the reference
 * (E4M3 A and B, E4M3 D, BF16 C, the four scalar pointers), once with every
 * pointer 256-byte aligned and then with one scalar pointer at a time moved
 * 4, 8 and 16 bytes into its allocation; each line says what
 * cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul returned. Nothing here
 * asserts those statuses: they are the library's to change, and README §6
 * quotes them.
 *
 * Then the reference, asserted: aligned, it succeeds; with any scalar
 * pointer 4 bytes in, it returns CUBLAS_STATUS_INVALID_VALUE and D stays as
 * it was poisoned (nothing queued).
 *
 * Exit status: 0 when the reference behaves, 1 when not or on a CUDA error,
 * 77 ("SKIP: <reason>" last) without a GPU of compute capability 8.9 or
 * later.
 *
 *   build/tests/gpu_test_cublaslt_align
 */
#include <cstdio>
#include <cstdint>
#include <cstring>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "lab5.h"

#define M 256
#define N 128
#define K 512

static int failures;

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

/* The library's own FP8 call with these four scalar pointers: the statuses
 * of the heuristic and of the matmul. */
static void raw_call(cublasLtHandle_t h, const uint8_t *A, const uint8_t *B, uint8_t *D,
                     const float *sa, const float *sb, const float *ds, float *amax, void *ws,
                     size_t ws_bytes, cudaStream_t st, cublasStatus_t *heur, cublasStatus_t *mm)
{
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const uint64_t max_ws = ws_bytes;
    const float alpha = 1.0f, beta = 0.0f;
    const void *a_scale = sb, *b_scale = sa, *d_scale = ds; /* cuBLASLt's A is our B */
    void *d_amax = amax;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc, ld;
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t r;
    int found = 0;
    cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale,
                                   sizeof a_scale);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale,
                                   sizeof b_scale);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &d_scale,
                                   sizeof d_scale);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &d_amax,
                                   sizeof d_amax);
    cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, N, K);
    cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, M, K);
    cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N);
    cublasLtMatrixLayoutCreate(&ld, CUDA_R_8F_E4M3, N, M, N);
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws,
                                         sizeof max_ws);
    *heur = cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, lc, ld, pref, 1, &r, &found);
    if (*heur == CUBLAS_STATUS_SUCCESS && !found)
        *heur = CUBLAS_STATUS_NOT_SUPPORTED;
    *mm = *heur != CUBLAS_STATUS_SUCCESS
              ? *heur
              : cublasLtMatmul(h, op, &alpha, B, la, A, lb, &beta, NULL, lc, D, ld, &r.algo, ws,
                               ws_bytes, st);
    cudaStreamSynchronize(st);
    (void)cudaGetLastError();
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatmulDescDestroy(op);
}

int main()
{
    int count = 0, dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("SKIP: no GPU\n");
        return 77;
    }
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    if (prop.major * 10 + prop.minor < 89) {
        std::printf("SKIP: %s has compute capability %d.%d; FP8 needs 8.9\n", prop.name,
                    prop.major, prop.minor);
        return 77;
    }
    cudaStream_t st;
    cublasLtHandle_t h;
    CHECK(cudaStreamCreate(&st));
    if (cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        std::printf("cublasLtCreate failed\n");
        return 1;
    }
    const size_t ws_bytes = (size_t)32 << 20;
    uint8_t *A, *B, *D;
    char *scal; /* four scalars, each in 256 bytes of its own */
    void *ws;
    CHECK(cudaMalloc((void **)&A, (size_t)M * K));
    CHECK(cudaMalloc((void **)&B, (size_t)N * K));
    CHECK(cudaMalloc((void **)&D, (size_t)M * N));
    CHECK(cudaMalloc((void **)&scal, 4 * 256));
    CHECK(cudaMalloc(&ws, ws_bytes));
    CHECK(cudaMemset(A, 0x38, (size_t)M * K)); /* 1.0 in E4M3 */
    CHECK(cudaMemset(B, 0x30, (size_t)N * K)); /* 0.5 */
    const float one = 1.0f, tiny = 0x1p-8f;
    for (int k = 0; k < 4; k++)
        for (int off = 0; off <= 16; off += 4)
            CHECK(cudaMemcpy(scal + 256 * k + off, k == 2 ? &tiny : &one, sizeof(float),
                             cudaMemcpyHostToDevice));

    static const char *const names[4] = {"a_scale_inv", "b_scale_inv", "d_scale", "d_amax"};
    std::printf("cuBLASLt %zu (CUDA runtime %d), %s: the FP8 GEMM (E4M3 in and out, "
                "M = %d, N = %d, K = %d) with one scalar pointer moved\n",
                cublasLtGetVersion(), CUDART_VERSION, prop.name, M, N, K);
    std::printf("  %-12s %6s  %-28s %s\n", "pointer", "offset", "AlgoGetHeuristic",
                "Matmul");
    for (int k = -1; k < 4; k++)
        for (int off = 4; off <= 16; off *= 2) {
            if (k < 0 && off > 4)
                break;
            float *p[4];
            for (int i = 0; i < 4; i++)
                p[i] = (float *)(scal + 256 * i + (i == k ? off : 0));
            cublasStatus_t heur, mm;
            raw_call(h, A, B, D, p[0], p[1], p[2], p[3], ws, ws_bytes, st, &heur, &mm);
            std::printf("  %-12s %6s  %-28s %s\n", k < 0 ? "(none)" : names[k],
                        k < 0 ? "-" : off == 4 ? "+4" : off == 8 ? "+8" : "+16",
                        cublasLtGetStatusName(heur), cublasLtGetStatusName(mm));
        }

    /* The reference: aligned, then each scalar 4 bytes in. */
    float *p[4];
    for (int i = 0; i < 4; i++)
        p[i] = (float *)(scal + 256 * i);
    cublasStatus_t s = lab5_gemm_cublaslt_fp8(h, A, B, p[0], p[1], p[2], D, p[3], M, N, K, ws,
                                              ws_bytes, st);
    CHECK(cudaStreamSynchronize(st));
    if (s != CUBLAS_STATUS_SUCCESS) {
        std::printf("FAIL: the reference, every pointer aligned: %s\n", cublasLtGetStatusName(s));
        failures++;
    }
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 4; i++)
            p[i] = (float *)(scal + 256 * i + (i == k ? 4 : 0));
        CHECK(cudaMemset(D, 0x7F, (size_t)M * N));
        s = lab5_gemm_cublaslt_fp8(h, A, B, p[0], p[1], p[2], D, p[3], M, N, K, ws, ws_bytes, st);
        CHECK(cudaStreamSynchronize(st));
        static uint8_t host[M * N];
        CHECK(cudaMemcpy(host, D, sizeof host, cudaMemcpyDeviceToHost));
        size_t written = 0;
        for (size_t i = 0; i < sizeof host; i++)
            written += host[i] != 0x7F;
        if (s != CUBLAS_STATUS_INVALID_VALUE || written) {
            std::printf("FAIL: the reference, %s 4 bytes in: %s (want "
                        "CUBLAS_STATUS_INVALID_VALUE), %zu bytes of D written\n",
                        names[k], cublasLtGetStatusName(s), written);
            failures++;
        }
    }
    std::printf("the reference: %s\n", failures ? "FAILED" : "succeeds aligned, and refuses each "
                "scalar pointer 4 bytes in with CUBLAS_STATUS_INVALID_VALUE, D untouched");
    cublasLtDestroy(h);
    return failures ? 1 : 0;
}
