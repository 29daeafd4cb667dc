/*
 * rng.h - the course's deterministic random numbers: PCG32.
 *
 * PCG32 is M. E. O'Neill's permuted congruential generator "PCG-XSH-RR":
 * a 64-bit linear congruential state (multiplier 6364136223846793005, an odd
 * increment that selects one of 2^63 streams) and a 32-bit output made by an
 * xorshift and a data-dependent rotation of the old state
 * (https://www.pcg-random.org, pcg-c-basic). Every lab draws its inputs from
 * here so that a seed names a data set: the same seed gives the same numbers
 * on every machine.
 *
 * Every function below is defined in terms of rng_u32 by an exact recipe, and
 * consumes a stated number of draws, so that the position in the stream is
 * known. All results are exact integer or float arithmetic except
 * rng_normal's, whose one machine dependence is libm's log and cos (see
 * there).
 *
 * Published output: rng_seed(&r, 42, 54) and then six rng_u32 give
 *   0xa15c02b7 0x7b47f409 0xba1d3330 0x83d2f293 0xbfa4784b 0xcbed606e
 * as printed by pcg32-demo in pcg-c-basic for the same (initstate, initseq);
 * the demo's next 65 coin tosses and 33 dice rolls come from
 * pcg32_boundedrand_r, which rng_below reproduces.
 * tests/common/test_rng.c checks all three.
 *
 * Not for: anything that needs unpredictability (keys, tokens, shuffles an
 * adversary must not guess), nor for fast bulk generation on the GPU.
 */
#ifndef FP8LAB_RNG_H
#define FP8LAB_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rng_state {
    uint64_t state; /* the LCG state */
    uint64_t inc;   /* stream selector; always odd */
} rng_state;

/* Seeds as pcg32_srandom_r(rng, initstate, initseq): state = 0,
 * inc = (initseq << 1) | 1, one step, state += initstate, one step. Streams
 * with different initseq (mod 2^63) never coincide. */
void rng_seed(rng_state *rng, uint64_t initstate, uint64_t initseq);

/* Next 32 uniformly distributed bits (pcg32_random_r): the output is computed
 * from the state before the step state = state * 6364136223846793005 + inc. */
uint32_t rng_u32(rng_state *rng);

/* Uniform integer in [0, bound), without modulo bias, exactly as
 * pcg32_boundedrand_r: draws r = rng_u32 until r >= (2^32 - bound) % bound,
 * and returns r % bound. Usually one draw, fewer than two on average.
 * bound must be > 0 (bound == 0 returns 0 and draws nothing). */
uint32_t rng_below(rng_state *rng, uint32_t bound);

/* Uniform float in [0, 1): (rng_u32 >> 8) * 2^-24, exact; one draw. Every
 * multiple of 2^-24 in [0, 1) is equally likely; 1 is never returned. */
float rng_uniform(rng_state *rng);

/* Standard normal N(0, 1) by the Box-Muller transform; exactly two draws a
 * call and no cached second value, so after k calls the stream has moved
 * 2k draws, whatever came before. The recipe, in double precision:
 *   u1 = (rng_u32 + 1) * 2^-32     first draw, in (0, 1], so log(u1) is finite
 *   u2 =  rng_u32      * 2^-32     second draw, in [0, 1)
 *   z  = sqrt(-2 * log(u1)) * cos(2pi * u2)   2pi: the double nearest 2 pi
 * and the result is z rounded to float. |z| <= sqrt(64 ln 2) ~= 6.6604, so the
 * far tails beyond that are missing; the course never looks so far out.
 * Machine dependence: the values of libm's log and cos. glibc's are accurate
 * to within an ulp of double, far below the float rounding, so the float
 * results agree across machines in practice; they are not guaranteed
 * bit-identical under a different libm. */
float rng_normal(rng_state *rng);

/* out[i] for i = 0, 1, ..., n-1 in order, one rng_uniform each:
 * (float)(lo + (hi - lo) * u) computed in double, where a result that rounds
 * to hi is replaced by the largest float below hi, so out[i] lies in
 * [lo, hi) for finite lo < hi. lo == hi gives lo everywhere. */
void rng_fill_uniform(rng_state *rng, float *out, size_t n, float lo, float hi);

/* out[i] for i = 0, 1, ..., n-1 in order, one rng_normal each:
 * (float)(mean + stddev * z) computed in double from the double z (before
 * rng_normal's rounding), so out[i] has one rounding, not two. */
void rng_fill_normal(rng_state *rng, float *out, size_t n, float mean, float stddev);

#ifdef __cplusplus
}
#endif

#endif
