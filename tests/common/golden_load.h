/*
 * golden_load.h - a Check test's read of a golden .npy.
 */
#ifndef FP8LAB_GOLDEN_LOAD_H
#define FP8LAB_GOLDEN_LOAD_H

#include <stddef.h>

#include "npy.h"

/* The n values of dtype in dir/name, in a malloc'd copy (free it); fails
 * the running test, naming the file, when it cannot be read or holds
 * another count or type. */
void *golden_load(const char *dir, const char *name, npy_dtype dtype, size_t n);

#endif
