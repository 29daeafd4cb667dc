/*
 * golden_load.c - a Check test's read of a golden .npy (golden_load.h).
 */
#include "golden_load.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *golden_load(const char *dir, const char *name, npy_dtype dtype, size_t n)
{
    char path[1024];
    lab_error err;
    npy_array a;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(npy_load(path, &a, &err) == 0, "%s", err.msg);
    ck_assert_msg(a.dtype == dtype && a.count == n, "%s: %zu values of %s, expected %zu of %s",
                  path, a.count, npy_dtype_name(a.dtype), n, npy_dtype_name(dtype));
    void *v = malloc(n ? n * npy_dtype_size(dtype) : 1);
    ck_assert(v != NULL);
    if (n)
        memcpy(v, a.data, n * npy_dtype_size(dtype));
    npy_free(&a);
    return v;
}
