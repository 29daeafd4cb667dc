/*
 * golden_io.h - what the goldens makers (grading/labN_goldens.c) share:
 * saving one golden file and saying so.
 *
 * Not for: the grader or a suite, which read goldens with gr_golden
 * (suite.h) after the manifest has been checked.
 */
#ifndef FP8LAB_GOLDEN_IO_H
#define FP8LAB_GOLDEN_IO_H

#include <stddef.h>

#include "npy.h"

/* Writes dir/name as an .npy of the given dtype and shape (atomically, as
 * npy_save does) and prints "  name  dtype  shape" on stdout. Returns 0, or
 * -1 with the reason on stderr. */
int golden_save(const char *dir, const char *name, npy_dtype dtype, int ndim,
                const size_t *shape, const void *data);

#endif
