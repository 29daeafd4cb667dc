/*
 * rng.c - PCG32 and the draws built on it (see rng.h for the recipes).
 *
 * Each function follows its recipe in rng.h step by step; the recipes are
 * the contract, since a lab's data set is named by its seed.
 *
 * Not for: other generators or distributions; add them here only with a
 * recipe and a test that pins their stream.
 */
#include "rng.h"

#include <math.h>

#define PCG32_MULTIPLIER 6364136223846793005ULL

/* 2^-24 and 2^-32, exact in float and double. */
#define TWO_POW_M24 (1.0f / 16777216.0f)
#define TWO_POW_M32 (1.0 / 4294967296.0)

static const double two_pi = 6.283185307179586476925286766559;

static void step(rng_state *rng)
{
    rng->state = rng->state * PCG32_MULTIPLIER + rng->inc;
}

void rng_seed(rng_state *rng, uint64_t initstate, uint64_t initseq)
{
    rng->state = 0;
    rng->inc = (initseq << 1) | 1u;
    step(rng);
    rng->state += initstate;
    step(rng);
}

static uint32_t rotate_right(uint32_t x, unsigned rot)
{
    return (x >> rot) | (x << ((32u - rot) & 31u));
}

uint32_t rng_u32(rng_state *rng)
{
    uint64_t old = rng->state;
    step(rng);
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    unsigned rot = (unsigned)(old >> 59);
    return rotate_right(xorshifted, rot);
}

uint32_t rng_below(rng_state *rng, uint32_t bound)
{
    if (bound == 0)
        return 0;
    /* 2^32 % bound: the count of low outputs that would be over-represented
     * if they were kept, since 2^32 is not a multiple of bound. */
    uint32_t threshold = (uint32_t)(0u - bound) % bound;
    for (;;) {
        uint32_t r = rng_u32(rng);
        if (r >= threshold)
            return r % bound;
    }
}

float rng_uniform(rng_state *rng)
{
    return (float)(rng_u32(rng) >> 8) * TWO_POW_M24;
}

/* rng_normal's z before its rounding to float. */
static double normal_double(rng_state *rng)
{
    double u1 = ((double)rng_u32(rng) + 1.0) * TWO_POW_M32;
    double u2 = (double)rng_u32(rng) * TWO_POW_M32;
    return sqrt(-2.0 * log(u1)) * cos(two_pi * u2);
}

float rng_normal(rng_state *rng)
{
    return (float)normal_double(rng);
}

void rng_fill_uniform(rng_state *rng, float *out, size_t n, float lo, float hi)
{
    double width = (double)hi - (double)lo;
    for (size_t i = 0; i < n; i++) {
        float v = (float)((double)lo + width * (double)rng_uniform(rng));
        if (lo < hi && v >= hi)
            v = nextafterf(hi, lo);
        out[i] = v;
    }
}

void rng_fill_normal(rng_state *rng, float *out, size_t n, float mean, float stddev)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (float)((double)mean + (double)stddev * normal_double(rng));
}
