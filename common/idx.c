/*
 * idx.c - the IDX reader (idx.h says what is read).
 *
 * zlib's gz* functions do the reading: gzopen looks at the first bytes and
 * either inflates the gzip stream that starts there or passes a plain file
 * through as it is, so one path reads both. Two things about them shape the
 * code below:
 *
 *   - a gzip stream that stops short is not a failed gzread: zlib hands over
 *     what it could inflate and records Z_BUF_ERROR ("unexpected end of
 *     file"), so every read asks gzerror, not only the count;
 *   - gzerror's message starts with the path zlib was given; we drop that
 *     and put the path at the front ourselves, as every lab_error does.
 *
 * The data goes into a buffer that starts at 1 MiB and doubles as it fills,
 * so a header that promises far more than the file holds costs memory in
 * proportion to what the file holds, not to what the header promises.
 *
 * Trailing bytes are looked for in the data, after gunzipping. Bytes after
 * the end of a gzip stream that are not another gzip stream are skipped by
 * zlib unseen (gunzip skips them too, with a warning); a second gzip stream
 * is inflated and its bytes count as trailing.
 *
 * Not for: anything idx.h lists as unsupported.
 */
#include "idx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define IDX_U8       0x08
#define FIRST_CHUNK  ((size_t) 1 << 20) /* bytes; the data buffer starts here and doubles */
#define READ_MAX     ((size_t) 1 << 30) /* gzread takes an unsigned and returns an int */
#define GZ_BUFFER    (1u << 17)         /* zlib's input buffer; its default is 8 KiB */
#define SHAPE_TEXT   96                 /* "(n, n, n, n)" of IDX_MAX_DIMS size_t extents */

/* The types of LeCun's table, for naming the ones that are refused. */
static const struct {
    unsigned code;
    const char *name;
} idx_types[] = {
    {0x08, "unsigned byte"}, {0x09, "signed byte"}, {0x0B, "short"},
    {0x0C, "int"},           {0x0D, "float"},       {0x0E, "double"},
};

static const char *type_name(unsigned code)
{
    for (size_t i = 0; i < sizeof idx_types / sizeof idx_types[0]; i++)
        if (idx_types[i].code == code)
            return idx_types[i].name;
    return NULL;
}

static uint32_t big_endian_u32(const unsigned char *b)
{
    return (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3];
}

/* Writes a shape as "(60000)" or "(10000, 28, 28)". With zero_is_any an
 * extent of 0 (or a NULL shape) is written as '*'. */
static void format_shape(char *buf, size_t cap, int ndim, const size_t *shape, int zero_is_any)
{
    size_t len = 0;

    buf[0] = '\0';
    lab_appendf(buf, cap, &len, "(");
    for (int i = 0; i < ndim; i++) {
        const char *sep = i > 0 ? ", " : "";
        if (zero_is_any && (!shape || shape[i] == 0))
            lab_appendf(buf, cap, &len, "%s*", sep);
        else
            lab_appendf(buf, cap, &len, "%s%zu", sep, shape[i]);
    }
    lab_appendf(buf, cap, &len, ")");
}

/* ---- reading through zlib --------------------------------------------------- */

/* Reads up to n bytes into buf; *got says how many, fewer than n only where
 * the data ends. Fails on a read error and on gzip data that is corrupt or
 * stops short, with zlib's message. */
static int read_up_to(gzFile gz, const char *path, void *buf, size_t n, size_t *got,
                      lab_error *err)
{
    const char *why;
    size_t plen = strlen(path);
    int errnum;

    *got = 0;
    while (*got < n) {
        size_t want = n - *got < READ_MAX ? n - *got : READ_MAX;
        int r = gzread(gz, (char *) buf + *got, (unsigned) want);
        if (r <= 0)
            break;
        *got += (size_t) r;
    }

    why = gzerror(gz, &errnum);
    if (errnum == Z_OK)
        return 0;
    if (strncmp(why, path, plen) == 0 && why[plen] == ':' && why[plen + 1] == ' ')
        why += plen + 2;
    switch (errnum) {
    case Z_ERRNO:
        return lab_errorf(err, "%s: read error: %s", path, why);
    case Z_BUF_ERROR:
        return lab_errorf(err, "%s: truncated gzip data: %s", path, why);
    case Z_MEM_ERROR:
        return lab_errorf(err, "%s: cannot read: zlib is out of memory", path);
    default:
        return lab_errorf(err, "%s: corrupt gzip data: %s", path, why);
    }
}

/* The message for a file whose first bytes are not 00 00 <type> <ndim>: it
 * shows the got bytes it found there (after gunzipping, when it was gzip). */
static int bad_magic(gzFile gz, const char *path, const unsigned char *b, size_t got,
                     lab_error *err)
{
    const char *what = gzdirect(gz) ? "it" : "its gzip data";
    char seen[64];
    size_t len = 0;

    seen[0] = '\0';
    lab_appendf(seen, sizeof seen, &len, "%s %s", what, got == 0 ? "is empty" : "starts");
    for (size_t i = 0; i < got; i++)
        lab_appendf(seen, sizeof seen, &len, " %02x", b[i]);
    if (got > 0 && got < 4)
        lab_appendf(seen, sizeof seen, &len, " and ends");
    return lab_errorf(err, "%s: not an IDX file (bad magic): %s; an IDX file starts "
                      "00 00 <type> <number of dimensions>", path, seen);
}

/* The magic, then the dimensions: fills out's ndim, shape and count. */
static int read_header(gzFile gz, const char *path, idx_array *out, lab_error *err)
{
    unsigned char b[4 * IDX_MAX_DIMS];
    char text[SHAPE_TEXT];
    const char *name;
    size_t got, need;

    if (read_up_to(gz, path, b, 4, &got, err) != 0)
        return -1;
    if (got < 4 || b[0] != 0 || b[1] != 0)
        return bad_magic(gz, path, b, got, err);
    if (b[2] != IDX_U8) {
        name = type_name(b[2]);
        if (name)
            return lab_errorf(err, "%s: unsupported IDX type 0x%02X (%s); only 0x08 "
                              "(unsigned byte) is read", path, b[2], name);
        return lab_errorf(err, "%s: unknown IDX type byte 0x%02X; only 0x08 (unsigned byte) "
                          "is read", path, b[2]);
    }
    if (b[3] < 1 || b[3] > IDX_MAX_DIMS)
        return lab_errorf(err, "%s: bad number of dimensions %u (1 to %d are read)", path, b[3],
                          IDX_MAX_DIMS);
    out->ndim = b[3];

    need = 4 * (size_t) out->ndim;
    if (read_up_to(gz, path, b, need, &got, err) != 0)
        return -1;
    if (got < need)
        return lab_errorf(err, "%s: truncated: the file ends inside the header "
                          "(%zu of its %zu bytes)", path, 4 + got, 4 + need);
    for (int i = 0; i < out->ndim; i++)
        out->shape[i] = big_endian_u32(b + 4 * i);

    format_shape(text, sizeof text, out->ndim, out->shape, 0);
    out->count = 1;
    for (int i = 0; i < out->ndim; i++) {
        if (out->shape[i] == 0)
            return lab_errorf(err, "%s: shape %s has a dimension of 0", path, text);
        if (out->count > IDX_MAX_COUNT / out->shape[i])
            return lab_errorf(err, "%s: shape %s has more than %zu values, the most "
                              "this reader takes", path, text, IDX_MAX_COUNT);
        out->count *= out->shape[i];
    }
    return 0;
}

/* The count bytes of data, and a check that nothing follows them. */
static int read_data(gzFile gz, const char *path, idx_array *out, lab_error *err)
{
    unsigned char scratch[16384];
    char text[SHAPE_TEXT];
    size_t cap = out->count < FIRST_CHUNK ? out->count : FIRST_CHUNK;
    size_t have = 0, extra = 0, got;

    out->data = malloc(cap);
    if (!out->data)
        return lab_errorf(err, "%s: cannot allocate %zu bytes for the data", path, cap);
    for (;;) {
        uint8_t *bigger;
        if (read_up_to(gz, path, out->data + have, cap - have, &got, err) != 0)
            return -1;
        have += got;
        if (have < cap || cap == out->count)
            break;
        cap = cap > out->count / 2 ? out->count : 2 * cap;
        bigger = realloc(out->data, cap);
        if (!bigger)
            return lab_errorf(err, "%s: cannot allocate %zu bytes for the data", path, cap);
        out->data = bigger;
    }
    if (have == out->count) {
        do {
            if (read_up_to(gz, path, scratch, sizeof scratch, &got, err) != 0)
                return -1;
            extra += got;
        } while (got == sizeof scratch);
    }

    if (have < out->count || extra > 0) {
        format_shape(text, sizeof text, out->ndim, out->shape, 0);
        return lab_errorf(err, "%s: %s: expected %zu bytes of data for shape %s, found %zu",
                          path, extra ? "trailing bytes" : "truncated", out->count, text,
                          have + extra);
    }
    return 0;
}

/* ---- the API ------------------------------------------------------------------ */

int idx_load(const char *path, idx_array *out, lab_error *err)
{
    gzFile gz;
    int rc;

    if (!out)
        return lab_errorf(err, "idx_load: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path)
        return lab_errorf(err, "idx_load: path is NULL");

    errno = 0;
    gz = gzopen(path, "rb");
    if (!gz)
        return lab_errorf(err, "%s: cannot open: %s", path,
                          errno ? strerror(errno) : "zlib is out of memory");
    gzbuffer(gz, GZ_BUFFER);
    rc = read_header(gz, path, out, err);
    if (rc == 0)
        rc = read_data(gz, path, out, err);
    gzclose_r(gz);  /* what it could report, the reads have already */
    if (rc != 0)
        idx_free(out);
    return rc;
}

int idx_load_expect(const char *path, int ndim, const size_t *shape, idx_array *out,
                    lab_error *err)
{
    char got[SHAPE_TEXT], want[SHAPE_TEXT];
    int match;

    if (ndim < 1 || ndim > IDX_MAX_DIMS) {
        if (out)
            memset(out, 0, sizeof *out);
        return lab_errorf(err, "idx_load_expect: %s: ndim %d is outside 1..%d",
                          path ? path : "(null)", ndim, IDX_MAX_DIMS);
    }
    if (idx_load(path, out, err) != 0)
        return -1;

    match = out->ndim == ndim;
    for (int i = 0; match && shape && i < ndim; i++)
        match = shape[i] == 0 || shape[i] == out->shape[i];
    if (!match) {
        format_shape(got, sizeof got, out->ndim, out->shape, 0);
        format_shape(want, sizeof want, ndim, shape, 1);
        lab_errorf(err, "%s: shape is %s, expected %s", path, got, want);
        idx_free(out);
        return -1;
    }
    return 0;
}

void idx_free(idx_array *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}
