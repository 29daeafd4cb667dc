/*
 * lab5/lab5_calls.h - what lab5's call table (lab5/calls.c) offers the
 * tests when they run apart from the submission (LAB5_SPLIT): device
 * buffers that live in the subject, and the answer of its last call.
 */
#ifndef FP8LAB_LAB5_CALLS_H
#define FP8LAB_LAB5_CALLS_H

#include <stddef.h>

#include "lab5.h"

typedef __typeof__(lab5_gemm_naive) *gemm5_fn;

/* The subject's answer to a call: what the function returned (the first
 * failure of a batch, or the last call's), how many calls ran, then the
 * stream's error and cudaGetLastError's after it was waited for; for a
 * question about the device, its compute capability. */
typedef struct lab5_reply {
    int rc, done, sync, last, major, minor;
} lab5_reply;

#ifndef GR_SUBJECT
/* A buffer of bytes in the subject's device memory: the judge gets an
 * address range of its own that stands for it (never to be read). */
void *lab5_remote_alloc(size_t bytes);
void lab5_remote_free(void *p);
/* Host bytes into it, out of it; bytes of one value (cudaMemset). */
void lab5_remote_put(void *d, const void *h, size_t bytes);
void lab5_remote_get(void *h, const void *d, size_t bytes);
void lab5_remote_fill(void *d, int byte, size_t bytes);
/* The subject's GPU's compute capability. */
void lab5_remote_cc(int *major, int *minor);
/* One round trip that runs nothing. */
void lab5_remote_ping(void);
/* How many times the next proxy call runs its function back to back
 * before the subject waits and answers (1 but while timing). */
extern int lab5_remote_reps;
const lab5_reply *lab5_last_reply(void);
#endif

#endif
