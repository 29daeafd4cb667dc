/*
 * delayed.h - Transformer Engine's delayed scaling of one tensor, for the
 * labs that build on lab1 (an FP8 training loop, GPU kernels).
 *
 * The semantics are lab1's, to the bit (labs/lab1/README.md §5, §6):
 *   - a cast records the amax of its UNSCALED input into history[0], by a
 *     maximum, and uses the current scale;
 *   - the update takes amax = max(history) (or history[0] for most_recent)
 *     BEFORE rolling the history one place toward slot 0 and clearing slot 0;
 *     then scale = (fp8_max / amax) / 2^margin, keeping the previous scale
 *     when amax is 0, infinite or NaN (a NaN entry makes max's amax NaN),
 *     FLT_MAX when the scale overflows; scale_inv = 1 / scale;
 *   - a fresh scaler has scale 1 and an all-zero history.
 * tests/common/test_delayed.c replays lab1's goldens through it.
 *
 * Not for: current scaling or the moving-average variant (lab1 teaches
 * them; no later lab needs them), or block scaling (lab4).
 */
#ifndef FP8LAB_DELAYED_H
#define FP8LAB_DELAYED_H

#include <stdbool.h>
#include <stddef.h>

#include "fp8.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DELAYED_MAX_HISTORY 1024 /* Transformer Engine's default length */

typedef struct delayed_scaler {
    fp8_format fmt;
    bool most_recent;  /* amax from history[0] only, not the whole history */
    int history_len;   /* 1 .. DELAYED_MAX_HISTORY */
    int margin;        /* the scale is divided by 2^margin */
    float scale, scale_inv;
    float history[DELAYED_MAX_HISTORY];
} delayed_scaler;

/* A fresh scaler; history_len is clamped to 1 .. DELAYED_MAX_HISTORY. */
void delayed_init(delayed_scaler *s, fp8_format fmt, bool most_recent, int history_len,
                  int margin);

/* Records an amax (of an unscaled tensor) for this step: history[0] becomes
 * the larger of the two. NaN is never recorded. */
void delayed_record(delayed_scaler *s, float amax);

/* The update between steps (see the top of this file). */
void delayed_update(delayed_scaler *s);

#ifdef __cplusplus
}
#endif

#endif
