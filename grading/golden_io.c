/*
 * golden_io.c - saving one golden file (golden_io.h).
 */
#include "golden_io.h"

#include <stdio.h>

int golden_save(const char *dir, const char *name, npy_dtype dtype, int ndim,
                const size_t *shape, const void *data)
{
    char path[4096];
    lab_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (npy_save(path, dtype, ndim, shape, data, &err) != 0) {
        fprintf(stderr, "goldens: %s\n", err.msg);
        return -1;
    }
    printf("  %-32s %s %zu", name, npy_dtype_name(dtype), shape[0]);
    for (int i = 1; i < ndim; i++)
        printf(" x %zu", shape[i]);
    printf("\n");
    return 0;
}
