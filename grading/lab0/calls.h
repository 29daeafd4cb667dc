/*
 * lab0/calls.h - many of lab0's calls in one trip to the subject
 * (grading/lab0/calls.c): what the suite uses where it checks thousands of values,
 * since each trip costs some microseconds. The subject runs the
 * submission's own function once per element, in order.
 */
#ifndef FP8LAB_LAB0_CALLS_H
#define FP8LAB_LAB0_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "lab0.h"

/* out[i] = lab0_decode(f, codes[i]) for i < n. */
void lab0_decode_each(const lab0_format *f, const uint8_t *codes, size_t n, float *out);

/* q[i] = lab0_encode(f, x[i], saturate) for i < n. */
void lab0_encode_each(const lab0_format *f, const float *x, size_t n, int saturate, uint8_t *q);

#endif
