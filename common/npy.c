/*
 * npy.c - the .npy reader and writer (npy.h says what is supported).
 *
 * A .npy file, as the NumPy "format" documentation (numpy.lib.format)
 * describes it:
 *
 *   offset  bytes  content
 *   0       6      magic "\x93NUMPY"
 *   6       1      major version: 1, 2 or 3
 *   7       1      minor version: 0
 *   8       2 / 4  header length HLEN, little-endian: uint16 in version 1.0,
 *                  uint32 in 2.0 and 3.0
 *   10 / 12 HLEN   header: a Python dict literal in ASCII (UTF-8 in 3.0),
 *                  padded with spaces and ended by '\n', for example
 *                  {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 *   ...            the values, packed, in C order, to the end of the file
 *
 * The header is read by a small hand-written scanner that accepts what
 * np.save writes and the usual variations of it: keys in any order, either
 * quote, any whitespace, trailing commas, Python 2 integers such as 3L. It is
 * not a Python evaluator: escapes in strings and expressions are refused.
 *
 * Not for: anything npy.h lists as unsupported.
 */
#include "npy.h"

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NPY_MAGIC     "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN     64  /* np.save starts the data at a multiple of this */
#define NPY_GROWTH    21  /* np.save's GROWTH_AXIS_MAX_DIGITS, see build_preamble */
#define SHAPE_TEXT    256 /* room for "(n, n, ...)" of NPY_MAX_DIMS extents */

/* ---- dtypes ---------------------------------------------------------------- */

static const struct {
    const char *name;
    const char *descr; /* as np.save writes it */
    size_t size;
} dtypes[NPY_DTYPE_COUNT] = {
    [NPY_F32] = {"float32", "<f4", 4},
    [NPY_F64] = {"float64", "<f8", 8},
    [NPY_U8]  = {"uint8",   "|u1", 1},
    [NPY_I32] = {"int32",   "<i4", 4},
};

static int dtype_valid(npy_dtype dtype)
{
    return (unsigned) dtype < NPY_DTYPE_COUNT;
}

const char *npy_dtype_name(npy_dtype dtype)
{
    return dtype_valid(dtype) ? dtypes[dtype].name : "unknown";
}

size_t npy_dtype_size(npy_dtype dtype)
{
    return dtype_valid(dtype) ? dtypes[dtype].size : 0;
}

/* Maps a descr such as '<f4' to a dtype. The byte order (first character) is
 * checked apart from the type code (the rest), so that '>f4' is reported as
 * big-endian rather than unknown. */
static int dtype_from_descr(const char *path, const char *descr, npy_dtype *out, lab_error *err)
{
    char order = descr[0];
    const char *code = descr[0] ? descr + 1 : descr;

    for (int d = 0; d < NPY_DTYPE_COUNT; d++) {
        int one_byte = dtypes[d].size == 1;  /* one byte has no byte order */
        if (strcmp(code, dtypes[d].descr + 1) != 0)
            continue;
        if (order == '<' || order == '=' || (one_byte && (order == '|' || order == '>'))) {
            *out = (npy_dtype) d;
            return 0;
        }
        if (order == '>')
            return lab_errorf(err, "%s: big-endian dtype '%s' is not supported "
                              "(only little-endian data)", path, descr);
        return lab_errorf(err, "%s: unsupported dtype '%s'", path, descr);
    }
    return lab_errorf(err, "%s: unsupported dtype '%s' (float32 '<f4', float64 '<f8', "
                      "uint8 '|u1' and int32 '<i4' are)", path, descr);
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* ---- shapes ---------------------------------------------------------------- */

/* Number of values and of bytes in an array of this shape. Fails when the
 * size in bytes does not fit in a size_t; like NumPy, the nonzero extents
 * must fit even when another extent is 0. */
static int shape_size(int ndim, const size_t *shape, size_t item, size_t *count, size_t *bytes)
{
    size_t nonzero = item;
    int empty = 0;

    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) {
            empty = 1;
            continue;
        }
        if (nonzero > SIZE_MAX / shape[i])
            return -1;
        nonzero *= shape[i];
    }
    *bytes = empty ? 0 : nonzero;
    *count = *bytes / item;
    return 0;
}

/* Writes a shape as Python's repr of the tuple: (), (5,), (3, 4). With
 * zero_is_any an extent of 0 (or a NULL shape) is written as '*'. Returns the
 * length written. */
static size_t format_shape(char *buf, size_t cap, int ndim, const size_t *shape, int zero_is_any)
{
    size_t len = 0;

    buf[0] = '\0';
    lab_appendf(buf, cap, &len, "(");
    for (int i = 0; i < ndim; i++) {
        if (i > 0)
            lab_appendf(buf, cap, &len, ", ");
        if (zero_is_any && (!shape || shape[i] == 0))
            lab_appendf(buf, cap, &len, "*");
        else
            lab_appendf(buf, cap, &len, "%zu", shape[i]);
    }
    lab_appendf(buf, cap, &len, ndim == 1 ? ",)" : ")");
    return len;
}

/* ---- the header scanner --------------------------------------------------- */

typedef struct scanner {
    const char *p;
    const char *end;
    char why[160];      /* what is wrong, once a step has failed */
} scanner;

typedef struct header_fields {
    char descr[32];
    int fortran_order;
    int ndim;
    size_t shape[NPY_MAX_DIMS];
} header_fields;

static int fail(scanner *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(scanner *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    return -1;
}

/* Skips whitespace and returns the next character, or -1 at the end. */
static int peek(scanner *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n'))
        s->p++;
    return s->p < s->end ? (unsigned char) *s->p : -1;
}

static int expect(scanner *s, char c, const char *where)
{
    if (peek(s) != (unsigned char) c)
        return fail(s, "malformed header: expected '%c' %s", c, where);
    s->p++;
    return 0;
}

/* A string in single or double quotes, without escapes. */
static int scan_string(scanner *s, char *buf, size_t cap, const char *what)
{
    int quote = peek(s);
    size_t n = 0;

    if (quote != '\'' && quote != '"')
        return fail(s, "malformed header: expected a quoted string for %s", what);
    for (s->p++; s->p < s->end && *s->p != quote; s->p++) {
        if (*s->p == '\\')
            return fail(s, "malformed header: escapes in strings are not supported (%s)", what);
        if (n + 1 >= cap)
            return fail(s, "malformed header: %s is too long", what);
        buf[n++] = *s->p;
    }
    if (s->p == s->end)
        return fail(s, "malformed header: unterminated string in %s", what);
    s->p++;
    buf[n] = '\0';
    return 0;
}

/* Matches the word w at the cursor. What may follow it (a ',' or '}') is
 * the caller's to check, so "Falsey" fails there. */
static int scan_word(scanner *s, const char *w)
{
    size_t n = strlen(w);

    if ((size_t) (s->end - s->p) < n || memcmp(s->p, w, n) != 0)
        return 0;
    s->p += n;
    return 1;
}

static int scan_bool(scanner *s, int *out, const char *what)
{
    peek(s);
    if (scan_word(s, "True"))
        *out = 1;
    else if (scan_word(s, "False"))
        *out = 0;
    else
        return fail(s, "malformed header: %s must be True or False", what);
    return 0;
}

/* A non-negative decimal integer, with the L that Python 2 wrote after longs. */
static int scan_extent(scanner *s, size_t *out)
{
    size_t v = 0;
    int c = peek(s);

    if (c < '0' || c > '9')
        return fail(s, "malformed header: 'shape' must hold non-negative integers");
    for (; s->p < s->end && *s->p >= '0' && *s->p <= '9'; s->p++) {
        size_t digit = (size_t) (*s->p - '0');
        if (v > (SIZE_MAX - digit) / 10)
            return fail(s, "shape overflows: an extent does not fit in size_t");
        v = v * 10 + digit;
    }
    if (s->p < s->end && (*s->p == 'L' || *s->p == 'l'))
        s->p++;
    *out = v;
    return 0;
}

/* A tuple of extents: (), (5,), (3, 4) or (3, 4,). */
static int scan_shape(scanner *s, header_fields *h)
{
    int n = 0;

    if (expect(s, '(', "to open 'shape'") != 0)
        return -1;
    if (peek(s) == ')') {
        s->p++;
        h->ndim = 0;
        return 0;
    }
    for (;;) {
        int c;
        if (n == NPY_MAX_DIMS)
            return fail(s, "shape has more than %d dimensions", NPY_MAX_DIMS);
        if (scan_extent(s, &h->shape[n++]) != 0)
            return -1;
        c = peek(s);
        if (c == ',') {
            s->p++;
            if (peek(s) == ')') {
                s->p++;
                break;
            }
        } else if (c == ')') {
            if (n == 1)
                return fail(s, "malformed header: 'shape' (%zu) is not a tuple; "
                            "a 1-d shape is written (%zu,)", h->shape[0], h->shape[0]);
            s->p++;
            break;
        } else {
            return fail(s, "malformed header: expected ',' or ')' in 'shape'");
        }
    }
    h->ndim = n;
    return 0;
}

/* One "key: value" entry of the dict. */
static int scan_entry(scanner *s, header_fields *h, unsigned *seen)
{
    static const char *const keys[] = {"descr", "fortran_order", "shape"};
    char key[32];
    unsigned k;

    if (scan_string(s, key, sizeof key, "a key") != 0)
        return -1;
    for (k = 0; k < 3 && strcmp(key, keys[k]) != 0; k++)
        ;
    if (k == 3)
        return fail(s, "malformed header: unexpected key '%s'", key);
    if (*seen & (1u << k))
        return fail(s, "malformed header: key '%s' appears twice", key);
    *seen |= 1u << k;
    if (expect(s, ':', "after a key") != 0)
        return -1;
    switch (k) {
    case 0:
        if (peek(s) == '[')
            return fail(s, "unsupported dtype: structured dtypes are not supported");
        return scan_string(s, h->descr, sizeof h->descr, "'descr'");
    case 1:
        return scan_bool(s, &h->fortran_order, "'fortran_order'");
    default:
        return scan_shape(s, h);
    }
}

/* The whole header: one dict holding exactly the three keys, then only
 * whitespace. */
static int scan_header(scanner *s, header_fields *h)
{
    unsigned seen = 0;

    if (expect(s, '{', "at the start") != 0)
        return -1;
    for (;;) {
        int c = peek(s);
        if (c == '}') {
            s->p++;
            break;
        }
        if (scan_entry(s, h, &seen) != 0)
            return -1;
        c = peek(s);
        if (c == ',') {
            s->p++;
        } else if (c != '}') {
            return fail(s, "malformed header: expected ',' or '}' after a value");
        }
    }
    if (peek(s) != -1)
        return fail(s, "malformed header: unexpected text after '}'");
    if (!(seen & 1u))
        return fail(s, "malformed header: no 'descr' key");
    if (!(seen & 2u))
        return fail(s, "malformed header: no 'fortran_order' key");
    if (!(seen & 4u))
        return fail(s, "malformed header: no 'shape' key");
    return 0;
}

/* ---- reading --------------------------------------------------------------- */

static int read_error(const char *path, FILE *f, lab_error *err, const char *where)
{
    if (ferror(f))
        return lab_errorf(err, "%s: read error: %s", path, strerror(errno));
    return lab_errorf(err, "%s: truncated: the file ends inside the %s", path, where);
}

/* Reads the magic, version and header length; *start is where the header
 * text begins. */
static int read_prelude(const char *path, FILE *f, size_t *start, size_t *hlen, lab_error *err)
{
    unsigned char b[12];
    size_t got = fread(b, 1, 10, f);

    if (got < NPY_MAGIC_LEN && ferror(f))
        return lab_errorf(err, "%s: read error: %s", path, strerror(errno));
    if (got < NPY_MAGIC_LEN || memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return lab_errorf(err, "%s: not a .npy file (bad magic)", path);
    if (got < 10)
        return read_error(path, f, err, "header");

    if (b[6] == 1 && b[7] == 0) {
        *hlen = (size_t) b[8] | (size_t) b[9] << 8;
        *start = 10;
    } else if ((b[6] == 2 || b[6] == 3) && b[7] == 0) {
        if (fread(b + 10, 1, 2, f) != 2)
            return read_error(path, f, err, "header");
        *hlen = (size_t) b[8] | (size_t) b[9] << 8 | (size_t) b[10] << 16 | (size_t) b[11] << 24;
        *start = 12;
    } else {
        return lab_errorf(err, "%s: unsupported .npy format version %u.%u "
                          "(1.0, 2.0 and 3.0 are read)", path, b[6], b[7]);
    }
    return 0;
}

/* Reads and scans the hlen bytes of header text. */
static int read_header(const char *path, FILE *f, size_t hlen, header_fields *h, lab_error *err)
{
    char *text = malloc(hlen ? hlen : 1);
    scanner s;
    int rc;

    if (!text)
        return lab_errorf(err, "%s: cannot allocate %zu bytes for the header", path, hlen);
    if (fread(text, 1, hlen, f) != hlen) {
        free(text);
        return read_error(path, f, err, "header");
    }
    memset(h, 0, sizeof *h);
    s.p = text;
    s.end = text + hlen;
    s.why[0] = '\0';
    rc = scan_header(&s, h);
    free(text);
    if (rc != 0)
        return lab_errorf(err, "%s: %s", path, s.why);
    return 0;
}

/* Checks what the header says against what np.save could have written for a
 * dtype this module supports, and fills out's dtype, shape and count. */
static int check_header(const char *path, const header_fields *h, npy_array *out,
                        size_t *bytes, lab_error *err)
{
    char text[SHAPE_TEXT];

    if (dtype_from_descr(path, h->descr, &out->dtype, err) != 0)
        return -1;
    if (h->fortran_order)
        return lab_errorf(err, "%s: fortran_order arrays are not supported", path);
    if (shape_size(h->ndim, h->shape, dtypes[out->dtype].size, &out->count, bytes) != 0) {
        format_shape(text, sizeof text, h->ndim, h->shape, 0);
        return lab_errorf(err, "%s: shape %s overflows: its size in bytes does not fit in size_t",
                          path, text);
    }
    out->ndim = h->ndim;
    memcpy(out->shape, h->shape, sizeof out->shape);
    return 0;
}

static int read_npy(const char *path, FILE *f, npy_array *out, lab_error *err)
{
    struct stat st;
    size_t file_size, start = 0, hlen = 0, bytes = 0, have;
    header_fields h;

    if (fstat(fileno(f), &st) != 0)
        return lab_errorf(err, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return lab_errorf(err, "%s: not a regular file", path);
    if (st.st_size < 0 || (uintmax_t) st.st_size > SIZE_MAX)
        return lab_errorf(err, "%s: file too large to read", path);
    file_size = (size_t) st.st_size;

    if (read_prelude(path, f, &start, &hlen, err) != 0)
        return -1;
    if (hlen > file_size - start)
        return lab_errorf(err, "%s: truncated: the header length is %zu bytes but only %zu "
                          "follow it", path, hlen, file_size - start);
    if (read_header(path, f, hlen, &h, err) != 0)
        return -1;
    if (check_header(path, &h, out, &bytes, err) != 0)
        return -1;

    have = file_size - start - hlen;
    if (have != bytes)
        return lab_errorf(err, "%s: %s: header says %zu %s values (%zu bytes) but the file "
                          "has %zu bytes of data", path,
                          have < bytes ? "truncated" : "trailing garbage",
                          out->count, dtypes[out->dtype].name, bytes, have);

    out->data = malloc(bytes ? bytes : 1);
    if (!out->data)
        return lab_errorf(err, "%s: cannot allocate %zu bytes for the data", path, bytes);
    if (fread(out->data, 1, bytes, f) != bytes)
        return read_error(path, f, err, "data");
    return 0;
}

int npy_load(const char *path, npy_array *out, lab_error *err)
{
    FILE *f;
    int rc;

    if (!out)
        return lab_errorf(err, "npy_load: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path)
        return lab_errorf(err, "npy_load: path is NULL");
    if (!host_is_little_endian())
        return lab_errorf(err, "%s: cannot read: this host is big-endian and only "
                          "little-endian hosts are supported", path);

    f = fopen(path, "rb");
    if (!f)
        return lab_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    rc = read_npy(path, f, out, err);
    fclose(f);  /* a read-only stream has nothing left to lose */
    if (rc != 0)
        npy_free(out);
    return rc;
}

int npy_load_expect(const char *path, npy_dtype dtype, int ndim, const size_t *shape,
                    npy_array *out, lab_error *err)
{
    char got[SHAPE_TEXT], want[SHAPE_TEXT];
    int match;

    if (!dtype_valid(dtype))
        return lab_errorf(err, "npy_load_expect: %s: unknown dtype %d", path ? path : "(null)",
                          (int) dtype);
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return lab_errorf(err, "npy_load_expect: %s: ndim %d is outside 0..%d",
                          path ? path : "(null)", ndim, NPY_MAX_DIMS);
    if (npy_load(path, out, err) != 0)
        return -1;

    if (out->dtype != dtype) {
        lab_errorf(err, "%s: dtype is %s, expected %s", path, dtypes[out->dtype].name,
                   dtypes[dtype].name);
        npy_free(out);
        return -1;
    }
    match = out->ndim == ndim;
    for (int i = 0; match && shape && i < ndim; i++)
        match = shape[i] == 0 || shape[i] == out->shape[i];
    if (!match) {
        format_shape(got, sizeof got, out->ndim, out->shape, 0);
        format_shape(want, sizeof want, ndim, shape, 1);
        lab_errorf(err, "%s: shape is %s, expected %s", path, got, want);
        npy_free(out);
        return -1;
    }
    return 0;
}

void npy_free(npy_array *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* ---- writing --------------------------------------------------------------- */

#define NPY_PRELUDE_MAX 512  /* 10 + a header of at most ~320 bytes */

/* Writes magic, version 1.0, header length and header into buf (which must
 * hold NPY_PRELUDE_MAX bytes), exactly as numpy.lib.format writes them:
 *
 *   - the dict lists its keys in sorted order, each as "'key': repr(value), ",
 *     then "}";
 *   - NPY_GROWTH - len(repr(shape[0])) spaces follow it when ndim > 0 (room
 *     to grow the first extent in place);
 *   - then 64 - ((10 + len + 1) % 64) spaces, between 1 and 64, and '\n', so
 *     the data starts at a multiple of 64.
 *
 * Returns the number of bytes written. */
static size_t build_prelude(unsigned char *buf, npy_dtype dtype, int ndim, const size_t *shape)
{
    char *text = (char *) buf + 10;
    size_t cap = NPY_PRELUDE_MAX - 10, len = 0, hlen, pad;
    char extent[24], tuple[SHAPE_TEXT];

    format_shape(tuple, sizeof tuple, ndim, shape, 0);
    lab_appendf(text, cap, &len, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
            dtypes[dtype].descr, tuple);
    if (ndim > 0) {
        size_t digits = (size_t) snprintf(extent, sizeof extent, "%zu", shape[0]);
        for (size_t i = digits; i < NPY_GROWTH; i++)
            text[len++] = ' ';
    }
    hlen = len + 1;
    pad = NPY_ALIGN - (10 + hlen) % NPY_ALIGN;
    memset(text + len, ' ', pad);
    text[len + pad] = '\n';
    hlen += pad;

    memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char) (hlen & 0xff);
    buf[9] = (unsigned char) (hlen >> 8);
    return 10 + hlen;
}

int npy_save(const char *path, npy_dtype dtype, int ndim, const size_t *shape,
             const void *data, lab_error *err)
{
    unsigned char prelude[NPY_PRELUDE_MAX];
    size_t prelude_len, count, bytes;
    atomic_file af;

    if (!path || !*path)
        return lab_errorf(err, "npy_save: path is %s", path ? "empty" : "NULL");
    if (!dtype_valid(dtype))
        return lab_errorf(err, "%s: cannot save: unknown dtype %d", path, (int) dtype);
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return lab_errorf(err, "%s: cannot save: ndim %d is outside 0..%d", path, ndim,
                          NPY_MAX_DIMS);
    if (ndim > 0 && !shape)
        return lab_errorf(err, "%s: cannot save: shape is NULL for ndim %d", path, ndim);
    if (shape_size(ndim, shape, dtypes[dtype].size, &count, &bytes) != 0)
        return lab_errorf(err, "%s: cannot save: shape overflows: its size in bytes does "
                          "not fit in size_t", path);
    if (bytes > 0 && !data)
        return lab_errorf(err, "%s: cannot save: data is NULL for %zu values", path, count);
    if (!host_is_little_endian())
        return lab_errorf(err, "%s: cannot save: this host is big-endian and only "
                          "little-endian hosts are supported", path);

    prelude_len = build_prelude(prelude, dtype, ndim, shape);

    if (atomic_file_open(&af, path, err) != 0)
        return -1;
    fwrite(prelude, 1, prelude_len, af.f);
    if (bytes > 0)
        fwrite(data, 1, bytes, af.f);
    return atomic_file_commit(&af, err);
}
