/*
 * lab1.c - lab1, delayed scaling: YOUR CODE GOES HERE.
 *
 * Write the ten functions declared in lab1.h: the format per tensor, amax,
 * the scaled cast with its counts, delayed scaling (init, cast, scale, update),
 * current scaling, and the moving-average variant.
 *
 * Rules:
 *   - Use the course's codec for the cast itself: fp8_encode, fp8_decode,
 *     fp8_is_zero, fp8_is_inf, fp8_is_nan, fp8_info (common/fp8.h, included
 *     by lab1.h). Its encoder is the one you wrote in lab0, checked against
 *     NVIDIA's for every float.
 *   - Not the library's delayed scaler (delayed.h, delayed_*): it is what
 *     you write here, and the grader refuses a lab1.c that calls it.
 *   - Anything from the C standard library is fine: <math.h> (isnan,
 *     isfinite, isinf, ldexpf, fabsf), <float.h> (FLT_MAX), <string.h>
 *     (memcpy to reach a float's bits).
 *   - The order of float operations is part of each spec (lab1.h and the
 *     README): (a / b) / c is not always a / (b * c), and the grader
 *     compares every scale bit for bit.
 *   - Add as many static helper functions as you like: static, since only
 *     lab1_* names may be global (the grader refuses others).
 *
 * Test as you go:
 *   make lab1 && ./grader lab1                    every test, and your score
 *   ./grader lab1 --test update_roll -v           one test, more detail
 *   ./build/lab1/lab1                             the experiment (README §9)
 *
 * Not for: anything but lab1.h's functions. main.c (the demo) and the grader
 * call them; do not add a main() here.
 */
#include "lab1.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/*
 * lab1_format_for - the HYBRID recipe: E4M3 forward, E5M2 backward.
 *   lab1_format_for(LAB1_WEIGHT) == FP8_E4M3
 *   Handout: README §2. Graded by: format_hybrid, stream_gradient.
 */
fp8_format lab1_format_for(lab1_tensor kind)
{
    (void)kind;
    /* TODO: which tensors are forward, which backward (README §2)? */
    return FP8_FORMAT_COUNT;
}

/*
 * lab1_amax - max |x[i]|, NaN elements ignored.
 *   {1, -3, NaN, 2}  -> 3        {NaN, NaN} -> 0       {} -> 0
 *   {1, -INFINITY}   -> INFINITY
 *   Handout: README §3. Graded by: amax, amax_ignores_nan.
 */
float lab1_amax(const float *x, size_t n)
{
    (void)x;
    (void)n;
    /* TODO: one pass; think about what `a > m` and `m > a` give for NaN. */
    return -1.0f;
}

/*
 * lab1_scaled_cast - q[i] = fp8_encode(x[i] * scale, fmt, true), counting
 * saturated and flushed elements (lab1.h gives their exact definitions).
 *   E4M3, scale 2: x = 300 -> y = 600 -> q = 0x7E (448), saturated;
 *                  x = 1e-4 -> y = 2e-4 -> q = 0x00, flushed;
 *                  x = 232 -> y = 464 -> q = 0x7E, NOT saturated (464 rounds
 *                  to 448 even without saturation: README §4).
 *   Handout: README §4. Graded by: scaled_cast, cast_counts.
 */
lab1_cast_counts lab1_scaled_cast(const float *x, size_t n, float scale, fp8_format fmt,
                                  uint8_t *q)
{
    (void)x;
    (void)scale;
    (void)fmt;
    lab1_cast_counts c = {0, 0};
    /* TODO: y = x[i] * scale; the saturating encode; then the two counts.
     * Is "saturated" the same as |y| > max? README §4 says why not. */
    memset(q, 0xFF, n);
    return c;
}

/*
 * lab1_delayed_init - the state before the first step: scale 1, scale_inv 1,
 * an all-zero history, and the format of the tensor kind.
 *   Handout: README §5. Graded by: delayed_init.
 */
void lab1_delayed_init(lab1_delayed *s, lab1_tensor kind, lab1_amax_algo algo, int history_len,
                       int margin)
{
    (void)s;
    (void)kind;
    (void)algo;
    (void)history_len;
    (void)margin;
    /* TODO: set every field of *s (README §5). */
}

/*
 * lab1_delayed_cast - record amax(x) (of x, not of x * scale) into
 * history[0] by a maximum, then cast with the CURRENT scale.
 *   Handout: README §5. Graded by: delayed_cast.
 */
lab1_cast_counts lab1_delayed_cast(lab1_delayed *s, const float *x, size_t n, uint8_t *q)
{
    (void)s;
    (void)x;
    lab1_cast_counts c = {0, 0};
    /* TODO: README §5, "What a step does". */
    memset(q, 0xFF, n);
    return c;
}

/*
 * lab1_scale_from_amax - (fp8_max / amax) / 2^margin, in that order; keep
 * prev_scale when amax is 0, inf or NaN; FLT_MAX for an infinite scale.
 *   E4M3: amax 3.5, margin 0 -> 128;  amax 3.5, margin 1 -> 64
 *         amax 0 -> prev_scale;       amax 1e-38 -> FLT_MAX
 *   Handout: README §6. Graded by: update_margin, update_amax_zero,
 *   update_amax_inf_nan, update_scale_overflow (through lab1_delayed_update).
 */
float lab1_scale_from_amax(float amax, float prev_scale, fp8_format fmt, int margin)
{
    (void)amax;
    (void)prev_scale;
    (void)fmt;
    (void)margin;
    /* TODO: README §6. ldexpf(1.0f, margin) is 2^margin, exactly. */
    return 0.0f;
}

/*
 * lab1_delayed_update - amax from the history (read first), roll, scale,
 * scale_inv. lab1.h lists the four steps in order.
 *   L = 4, history {5, 1, 2, 3}, max:  amax 5, history becomes {0, 2, 3, 5}
 *   Handout: README §5 and §6. Graded by: update_roll, update_max,
 *   update_most_recent, update_margin, the edge-case tests, stream_gradient.
 */
void lab1_delayed_update(lab1_delayed *s)
{
    (void)s;
    /* TODO: README §5, "The update", steps 1 to 4. */
}

/*
 * lab1_current_scale - Transformer Engine's current scaling: epsilon floor,
 * 1 for amax 0/inf/NaN, FLT_MAX for an infinite scale, optional power of 2
 * rounded down.
 *   E4M3: amax 3.5 -> 128;  amax 3 -> 149.333328 (or 128 with pow2)
 *   Handout: README §7. Graded by: current_scale, current_edge_cases,
 *   current_pow2.
 */
float lab1_current_scale(float amax, fp8_format fmt, float epsilon, int pow2)
{
    (void)amax;
    (void)fmt;
    (void)epsilon;
    (void)pow2;
    /* TODO: README §7, steps 1 to 4. */
    return 0.0f;
}

/*
 * lab1_ema_init, lab1_ema_update - momentum on the scale:
 *   scale = momentum * scale + (1 - momentum) * target, as three float
 *   operations in lab1.h's order.
 *   Handout: README §8. Graded by: ema.
 */
void lab1_ema_init(lab1_ema *s, lab1_tensor kind, float momentum, int margin)
{
    (void)s;
    (void)kind;
    (void)momentum;
    (void)margin;
    /* TODO: README §8. */
}

void lab1_ema_update(lab1_ema *s, float amax)
{
    (void)s;
    (void)amax;
    /* TODO: README §8. */
}
