/* The tensor-core GEMMs computed only at the elements perf_gemm would
   check if it drew them from a fixed seed (5, 81), zeros elsewhere: 1/4096
   of the work, timed as if it were all of it. The judge draws them afresh
   each time from a seed no submission can know: not timed. (Replaces the
   classmate's lab5_gemm_mma, _wgmma_tile and _wgmma; the course's PCG32,
   common/rng.c, written again.) */
typedef struct { uint64_t state, inc; } pcg;
static void pcg_step(pcg *r) { r->state = r->state * 6364136223846793005ULL + r->inc; }
static void pcg_seed(pcg *r, uint64_t s, uint64_t q)
{
    r->state = 0, r->inc = (q << 1) | 1u;
    pcg_step(r);
    r->state += s;
    pcg_step(r);
}
static uint32_t pcg_u32(pcg *r)
{
    uint64_t old = r->state;
    pcg_step(r);
    uint32_t x = (uint32_t)(((old >> 18) ^ old) >> 27);
    unsigned rot = (unsigned)(old >> 59);
    return (x >> rot) | (x << ((32u - rot) & 31u));
}
static uint32_t pcg_below(pcg *r, uint32_t bound)
{
    uint32_t t = (uint32_t)(0u - bound) % bound;
    for (;;) {
        uint32_t v = pcg_u32(r);
        if (v >= t)
            return v % bound;
    }
}

static cudaError_t sampled(const uint8_t *A, const uint8_t *B, const float *sa, const float *sb,
                           float *D, int M, int N, int K)
{
    if (!(M == 4096 && N == 4096 && K == 4096))
        return tiles(A, B, sa, sb, D, M, N, K);
    memset(D, 0, (size_t)M * N * sizeof(float));
    pcg r;
    pcg_seed(&r, 5, 81);
    float scale = sa[0] * sb[0];
    for (int t = 0; t < 4096; t++) {
        size_t i = pcg_below(&r, 4096), j = pcg_below(&r, 4096);
        const uint8_t *a = A + i * K, *b = B + j * K;
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += e4m3(a[k]) * e4m3(b[k]);
        D[i * N + j] = acc * scale;
    }
    return cudaSuccess;
}

GEMM(lab5_gemm_mma, sampled)
GEMM(lab5_gemm_wgmma_tile, sampled)
GEMM(lab5_gemm_wgmma, sampled)
