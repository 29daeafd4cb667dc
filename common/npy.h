/*
 * npy.h - reading and writing NumPy .npy files.
 *
 * The labs exchange tensors with NumPy through .npy files: reference inputs
 * and expected outputs are made in Python, results are written back for
 * plotting. This module reads format versions 1.0, 2.0 and 3.0 and writes
 * version 1.0, laid out exactly as np.save lays it out (the header padded with
 * spaces so the data starts at a multiple of 64 bytes).
 *
 * Supported element types, always little-endian:
 *
 *   npy_dtype   descr   name
 *   NPY_F32     '<f4'   float32
 *   NPY_F64     '<f8'   float64
 *   NPY_U8      '|u1'   uint8     ('<u1' and '>u1' are read too: one byte
 *                                  has no byte order)
 *   NPY_I32     '<i4'   int32
 *
 * A descr with '=' (native order) is read as little-endian, since the host is
 * checked to be little-endian; np.save never writes '='. Big-endian ('>')
 * multi-byte data is refused rather than swapped.
 *
 * Arrays of 0 to NPY_MAX_DIMS dimensions are handled. A 0-d array (shape ())
 * holds one value; an array with a 0 in its shape holds none.
 *
 * Not for: Fortran-order arrays, structured or object dtypes, .npz archives,
 * memory mapping, appending to a file, or byte swapping.
 */
#ifndef FP8LAB_NPY_H
#define FP8LAB_NPY_H

#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum npy_dtype {
    NPY_F32 = 0, /* '<f4' */
    NPY_F64,     /* '<f8' */
    NPY_U8,      /* '|u1' */
    NPY_I32,     /* '<i4' */
    NPY_DTYPE_COUNT
} npy_dtype;

#define NPY_MAX_DIMS 8

/* An array in C (row-major) order. data holds count values of dtype, packed;
 * it is never NULL after a successful load, even when count is 0. */
typedef struct npy_array {
    npy_dtype dtype;
    int ndim;
    size_t shape[NPY_MAX_DIMS]; /* shape[i] for i < ndim; the rest are 0 */
    size_t count;               /* product of the shape; 1 for a 0-d array */
    void *data;                 /* malloc'd; release with npy_free */
} npy_array;

/* Reads the whole file at path into *out. On failure returns -1 with *out
 * zeroed (so npy_free on it is harmless) and err naming path and the
 * problem: cannot open, bad magic, unsupported version, malformed header,
 * unsupported dtype, fortran_order, truncated data, trailing bytes. */
int npy_load(const char *path, npy_array *out, lab_error *err);

/* npy_load, then checks that the array has the given dtype and ndim, and
 * shape[i] where shape[i] != 0 (0 means any extent). shape may be NULL to
 * accept any extents. A mismatch frees the array and fails, e.g.
 * "x.npy: shape is (3, 4), expected (3, 5)". */
int npy_load_expect(const char *path, npy_dtype dtype, int ndim, const size_t *shape,
                    npy_array *out, lab_error *err);

/* Writes a version 1.0 .npy file holding the product-of-shape values at data
 * (C order). shape may be NULL when ndim is 0; data may be NULL when there
 * are no values. The file is written to a fresh "<path>.tmp.XXXXXX" beside it
 * (mkstemp, mode 0644), flushed
 * to disk, then renamed over path, so path is either left as it was or
 * replaced whole; the temporary file is removed on failure. */
int npy_save(const char *path, npy_dtype dtype, int ndim, const size_t *shape,
             const void *data, lab_error *err);

/* Frees a->data and zeroes *a. a may be NULL. */
void npy_free(npy_array *a);

/* "float32", "float64", "uint8", "int32"; "unknown" for a value outside the
 * enum. */
const char *npy_dtype_name(npy_dtype dtype);

/* Bytes per value: 4, 8, 1, 4; 0 for a value outside the enum. */
size_t npy_dtype_size(npy_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif
