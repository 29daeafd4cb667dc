/*
 * idx.h - reading the IDX files of MNIST and Fashion-MNIST.
 *
 * The labs that train on real data read them as the datasets ship them,
 * gzip-compressed (train-images-idx3-ubyte.gz and the like; Debian's
 * dataset-fashion-mnist installs them under /usr/share/datasets/fashion-mnist).
 * A file that is not gzip-compressed is read as it is, so an unpacked
 * train-images-idx3-ubyte loads too.
 *
 * The format, from Yann LeCun's MNIST page ("THE IDX FILE FORMAT"):
 *
 *   offset  bytes  content
 *   0       2      zero
 *   2       1      type: 0x08 unsigned byte, 0x09 signed byte, 0x0B short,
 *                  0x0C int, 0x0D float, 0x0E double
 *   3       1      number of dimensions
 *   4       4 * n  each dimension, a 32-bit big-endian unsigned integer
 *   ...            the values, big-endian, in C (row-major) order
 *
 *   file                         type  shape
 *   train-images-idx3-ubyte.gz   0x08  (60000, 28, 28)
 *   train-labels-idx1-ubyte.gz   0x08  (60000)
 *   t10k-images-idx3-ubyte.gz    0x08  (10000, 28, 28)
 *   t10k-labels-idx1-ubyte.gz    0x08  (10000)
 *
 * Only type 0x08 (unsigned byte), what the datasets use, is read; files of
 * the other types are refused with a message that names the type. Arrays
 * have 1 to IDX_MAX_DIMS dimensions, every dimension at least 1, and at most
 * IDX_MAX_COUNT values.
 *
 * Not for: the other element types, writing IDX files, reading part of a
 * file, or memory mapping.
 */
#ifndef FP8LAB_IDX_H
#define FP8LAB_IDX_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IDX_MAX_DIMS  4
#define IDX_MAX_COUNT ((size_t) 1 << 31) /* values; MNIST's largest file has 47 million */

/* An array of unsigned bytes in C (row-major) order, as the file holds it. */
typedef struct idx_array {
    int ndim;                   /* 1..IDX_MAX_DIMS */
    size_t shape[IDX_MAX_DIMS]; /* shape[i] for i < ndim; the rest are 0 */
    size_t count;               /* product of the shape */
    uint8_t *data;              /* count values, malloc'd; release with idx_free */
} idx_array;

/* Reads the whole file at path, gzip-compressed or not, into *out. On
 * failure returns -1 with *out zeroed (so idx_free on it is harmless) and err
 * naming path and the problem: cannot open, corrupt or truncated gzip data
 * (with zlib's message), bad magic (not an IDX file), an unsupported type,
 * a bad number of dimensions, a dimension of 0 or too many values, a header
 * cut short, too few bytes of data or bytes after the data. */
int idx_load(const char *path, idx_array *out, lab_error *err);

/* idx_load, then checks that the array has ndim dimensions and shape[i]
 * where shape[i] != 0 (0 means any extent). shape may be NULL to accept any
 * extents. A mismatch frees the array and fails, e.g.
 * "train-labels-idx1-ubyte.gz: shape is (60000), expected (10000)". */
int idx_load_expect(const char *path, int ndim, const size_t *shape, idx_array *out,
                    lab_error *err);

/* Frees a->data and zeroes *a. a may be NULL. */
void idx_free(idx_array *a);

#ifdef __cplusplus
}
#endif

#endif
