/*
 * test_idx.c - tests of the IDX reader (common/idx.c).
 *
 * The files fed to the reader are built here byte by byte from the format on
 * Yann LeCun's MNIST page (idx.h has the table), then written either as they
 * are (fopen) or gzip-compressed (zlib's gzopen/gzwrite), so every valid and
 * most invalid files are read in both forms. Gzip files that are cut short or
 * corrupt are made by editing the bytes gzwrite wrote.
 *
 * Every test works in a fresh directory made with mkdtemp inside one made
 * for the run under $TMPDIR (or /tmp); main removes the lot at the end.
 *
 * Skipping: the last case loads Fashion-MNIST's test set from
 * FASHION_MNIST_DIR, where Debian's dataset-fashion-mnist puts it. Where the
 * files are absent it is not run: main prints "SKIP: ..." as its last line
 * and returns 77, the automake code for a skipped test, provided every test
 * that did run passed. So: 0 all passed, 77 passed but the dataset test was
 * skipped, 1 something failed.
 *
 * Not for: checking what the labs do with the data.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "scratch.h"
#include "idx.h"

#ifndef FASHION_MNIST_DIR
#define FASHION_MNIST_DIR "/usr/share/datasets/fashion-mnist"
#endif
#define T10K_LABELS FASHION_MNIST_DIR "/t10k-labels-idx1-ubyte.gz"
#define T10K_IMAGES FASHION_MNIST_DIR "/t10k-images-idx3-ubyte.gz"

#define COUNT(a) ((int) (sizeof(a) / sizeof((a)[0])))

/* ---- scratch directory and file helpers ------------------------------------ */

static char root[512]; /* made by main */
static char dir[768];  /* made for each test, inside root */

static void setup(void)
{
    snprintf(dir, sizeof dir, "%s/t.XXXXXX", root);
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
}

static void teardown(void)
{
    scratch_remove(dir);
}

/* The path of name inside the scratch directory, in buf. */
static const char *in_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

/* How a fixture is written: as it is, or through gzwrite. Tests that take
 * both run once for each (_i is the form). */
enum form { PLAIN, GZIP };
static const char *const form_names[] = {"plain", "gzip"};

static void write_file(const char *path, const void *bytes, size_t len, enum form form)
{
    if (form == PLAIN) {
        FILE *f = fopen(path, "wb");
        ck_assert_msg(f != NULL, "cannot create %s", path);
        ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
        ck_assert_int_eq(fclose(f), 0);
    } else {
        gzFile gz = gzopen(path, "wb");
        ck_assert_msg(gz != NULL, "cannot create %s", path);
        ck_assert_int_eq(gzwrite(gz, bytes, (unsigned) len), (int) len);
        ck_assert_int_eq(gzclose(gz), Z_OK);
    }
}

/* The whole file, malloc'd; its length in *len. */
static unsigned char *read_file(const char *path, size_t *len)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    unsigned char *buf;

    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fstat(fileno(f), &st), 0);
    buf = malloc((size_t) st.st_size + 1);
    ck_assert_ptr_nonnull(buf);
    *len = fread(buf, 1, (size_t) st.st_size, f);
    ck_assert_uint_eq(*len, (size_t) st.st_size);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

/* The value at position i of every fixture's data: all 256 byte values turn
 * up, those above 0x7f included. */
static uint8_t pattern(size_t i)
{
    return (uint8_t) (i * 37 + 11);
}

/* An IDX file in memory: 00 00 type ndim, then ndim dimensions big-endian
 * (none when dims is NULL), then data_len bytes of the pattern. malloc'd;
 * its length in *len. */
static unsigned char *make_idx(unsigned type, unsigned ndim, const uint32_t *dims,
                               size_t data_len, size_t *len)
{
    size_t header = 4 + (dims ? 4 * (size_t) ndim : 0);
    unsigned char *b = malloc(header + data_len + 1);

    ck_assert_ptr_nonnull(b);
    b[0] = 0;
    b[1] = 0;
    b[2] = (unsigned char) type;
    b[3] = (unsigned char) ndim;
    for (unsigned i = 0; dims && i < ndim; i++) {
        b[4 + 4 * i] = (unsigned char) (dims[i] >> 24);
        b[5 + 4 * i] = (unsigned char) (dims[i] >> 16);
        b[6 + 4 * i] = (unsigned char) (dims[i] >> 8);
        b[7 + 4 * i] = (unsigned char) dims[i];
    }
    for (size_t i = 0; i < data_len; i++)
        b[header + i] = pattern(i);
    *len = header + data_len;
    return b;
}

/* make_idx, written to path in the given form. */
static void write_idx(const char *path, enum form form, unsigned type, unsigned ndim,
                      const uint32_t *dims, size_t data_len)
{
    size_t len;
    unsigned char *b = make_idx(type, ndim, dims, data_len, &len);
    write_file(path, b, len, form);
    free(b);
}

/* Asserts that the message names path and contains word. */
static void assert_message(const lab_error *err, const char *path, const char *word)
{
    ck_assert_msg(strstr(err->msg, path) == err->msg, "message does not start with %s: %s",
                  path, err->msg);
    ck_assert_msg(strstr(err->msg, word) != NULL, "message lacks \"%s\": %s", word, err->msg);
}

/* Asserts that loading path fails with a message naming it and word, and
 * leaves the array zeroed. */
static void assert_load_fails(const char *path, const char *word)
{
    idx_array a;
    lab_error err = {{0}};

    memset(&a, 0x5a, sizeof a);
    ck_assert_int_eq(idx_load(path, &a, &err), -1);
    assert_message(&err, path, word);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(a.ndim, 0);
    ck_assert_uint_eq(a.count, 0);
    for (int d = 0; d < IDX_MAX_DIMS; d++)
        ck_assert_uint_eq(a.shape[d], 0);
}

/* Asserts that a holds the shape dims and the pattern. */
static void assert_array(const idx_array *a, int ndim, const uint32_t *dims)
{
    size_t count = 1, i;

    ck_assert_int_eq(a->ndim, ndim);
    for (int d = 0; d < IDX_MAX_DIMS; d++)
        ck_assert_uint_eq(a->shape[d], d < ndim ? dims[d] : 0);
    for (int d = 0; d < ndim; d++)
        count *= dims[d];
    ck_assert_uint_eq(a->count, count);
    ck_assert_ptr_nonnull(a->data);
    /* one assertion, not one per value: each ck_assert talks to the runner */
    for (i = 0; i < count && a->data[i] == pattern(i); i++)
        ;
    if (i < count)
        ck_abort_msg("value %zu is 0x%02x, expected 0x%02x", i, a->data[i], pattern(i));
}

/* ---- files that load --------------------------------------------------------- */

/* Three 28x28 images, laid out as train-images-idx3-ubyte is. */
START_TEST(test_load_images)
{
    static const uint32_t dims[3] = {3, 28, 28};
    char p[1024];
    const char *path = in_dir(p, sizeof p, _i == GZIP ? "images.gz" : "images");
    idx_array a;
    lab_error err = {{0}};

    write_idx(path, (enum form) _i, 0x08, 3, dims, 3 * 28 * 28);
    ck_assert_msg(idx_load(path, &a, &err) == 0, "%s: %s", form_names[_i], err.msg);
    assert_array(&a, 3, dims);
    idx_free(&a);
}
END_TEST

/* Ten labels, laid out as train-labels-idx1-ubyte is: the header is 8 bytes,
 * 00 00 08 01 00 00 00 0a, written out here without make_idx. */
START_TEST(test_load_labels)
{
    static const unsigned char file[] = "\x00\x00\x08\x01\x00\x00\x00\x0a"
                                        "\x09\x00\x00\x03\x00\x02\x07\x02\x05\x05";
    char p[1024];
    const char *path = in_dir(p, sizeof p, _i == GZIP ? "labels.gz" : "labels");
    idx_array a;
    lab_error err = {{0}};

    write_file(path, file, sizeof file - 1, (enum form) _i);
    ck_assert_msg(idx_load(path, &a, &err) == 0, "%s: %s", form_names[_i], err.msg);
    ck_assert_int_eq(a.ndim, 1);
    ck_assert_uint_eq(a.shape[0], 10);
    ck_assert_uint_eq(a.shape[1], 0);
    ck_assert_uint_eq(a.count, 10);
    ck_assert_int_eq(memcmp(a.data, file + 8, 10), 0);
    idx_free(&a);
}
END_TEST

/* Every number of dimensions from 1 to 4, in both forms. */
static const struct {
    int ndim;
    uint32_t dims[IDX_MAX_DIMS];
} shapes[] = {
    {1, {1}},
    {1, {300}},
    {2, {3, 5}},
    {3, {2, 3, 4}},
    {4, {2, 1, 3, 2}},
    {4, {1, 1, 1, 1}},
    {2, {257, 256}}, /* extents above 0xff: the bytes of a dimension are in order */
};

START_TEST(test_load_every_ndim)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "a.idx");
    idx_array a;
    lab_error err = {{0}};

    for (int form = PLAIN; form <= GZIP; form++) {
        size_t count = 1;
        for (int d = 0; d < shapes[_i].ndim; d++)
            count *= shapes[_i].dims[d];
        write_idx(path, (enum form) form, 0x08, (unsigned) shapes[_i].ndim, shapes[_i].dims,
                  count);
        ck_assert_msg(idx_load(path, &a, &err) == 0, "%s: %s", form_names[form], err.msg);
        assert_array(&a, shapes[_i].ndim, shapes[_i].dims);
        idx_free(&a);
    }
}
END_TEST

/* 3 MB of data, more than the reader's first 1 MiB buffer: the buffer grows
 * and nothing is lost at the seams. */
START_TEST(test_load_large)
{
    static const uint32_t dims[3] = {3, 1000, 1000};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "large.gz");
    idx_array a;
    lab_error err = {{0}};

    write_idx(path, GZIP, 0x08, 3, dims, 3000000);
    ck_assert_msg(idx_load(path, &a, &err) == 0, "%s", err.msg);
    assert_array(&a, 3, dims);
    idx_free(&a);
}
END_TEST

/* ---- files the reader refuses ------------------------------------------------- */

START_TEST(test_missing_file)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "nope.gz");
    assert_load_fails(path, "cannot open: No such file or directory");
}
END_TEST

START_TEST(test_directory)
{
    assert_load_fails(dir, "read error: Is a directory");
}
END_TEST

/* Files that are not IDX files, each with the words its message must hold. */
static const struct {
    const char *bytes;
    size_t len;
    enum form form;
    const char *word;
} not_idx[] = {
    {"hello, world\n", 13, PLAIN, "not an IDX file (bad magic): it starts 68 65 6c 6c; "
                                  "an IDX file starts 00 00 <type> <number of dimensions>"},
    {"hello, world\n", 13, GZIP, "not an IDX file (bad magic): its gzip data starts 68 65 6c 6c"},
    {"\x93NUMPY\x01\x00", 8, PLAIN, "bad magic): it starts 93 4e 55 4d"},
    {"\x00\x01\x08\x01\x00\x00\x00\x01\x07", 9, PLAIN, "bad magic): it starts 00 01 08 01"},
    {"\x01\x00\x08\x01\x00\x00\x00\x01\x07", 9, GZIP,
     "bad magic): its gzip data starts 01 00 08 01"},
    {"", 0, PLAIN, "not an IDX file (bad magic): it is empty"},
    {"", 0, GZIP, "not an IDX file (bad magic): its gzip data is empty"},
    {"\x00\x00", 2, PLAIN, "bad magic): it starts 00 00 and ends"},
    {"\x00\x00\x08", 3, GZIP, "bad magic): its gzip data starts 00 00 08 and ends"},
};

START_TEST(test_not_idx)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "not.idx");

    write_file(path, not_idx[_i].bytes, not_idx[_i].len, not_idx[_i].form);
    assert_load_fails(path, not_idx[_i].word);
}
END_TEST

/* The other types of LeCun's table are named and refused; bytes outside it
 * are called unknown. */
static const struct {
    unsigned type;
    const char *word;
} bad_types[] = {
    {0x09, "unsupported IDX type 0x09 (signed byte); only 0x08 (unsigned byte) is read"},
    {0x0B, "unsupported IDX type 0x0B (short)"},
    {0x0C, "unsupported IDX type 0x0C (int)"},
    {0x0D, "unsupported IDX type 0x0D (float)"},
    {0x0E, "unsupported IDX type 0x0E (double)"},
    {0x00, "unknown IDX type byte 0x00; only 0x08 (unsigned byte) is read"},
    {0x07, "unknown IDX type byte 0x07"},
    {0x0A, "unknown IDX type byte 0x0A"},
    {0xFF, "unknown IDX type byte 0xFF"},
};

START_TEST(test_unsupported_type)
{
    static const uint32_t dims[1] = {4};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "type.idx");

    for (int form = PLAIN; form <= GZIP; form++) {
        write_idx(path, (enum form) form, bad_types[_i].type, 1, dims, 32);
        assert_load_fails(path, bad_types[_i].word);
    }
}
END_TEST

START_TEST(test_bad_ndim)
{
    static const uint32_t dims[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "ndim.idx");

    for (int form = PLAIN; form <= GZIP; form++) {
        write_idx(path, (enum form) form, 0x08, 0, NULL, 1);
        assert_load_fails(path, "bad number of dimensions 0 (1 to 4 are read)");
        write_idx(path, (enum form) form, 0x08, 5, dims, 1);
        assert_load_fails(path, "bad number of dimensions 5 (1 to 4 are read)");
        write_idx(path, (enum form) form, 0x08, 8, dims, 1);
        assert_load_fails(path, "bad number of dimensions 8");
        write_idx(path, (enum form) form, 0x08, 255, NULL, 0);
        assert_load_fails(path, "bad number of dimensions 255");
    }
}
END_TEST

START_TEST(test_zero_dimension)
{
    static const uint32_t d304[3] = {3, 0, 4}, d0[1] = {0}, d1110[4] = {1, 1, 1, 0};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "zero.idx");

    for (int form = PLAIN; form <= GZIP; form++) {
        write_idx(path, (enum form) form, 0x08, 3, d304, 0);
        assert_load_fails(path, "shape (3, 0, 4) has a dimension of 0");
        write_idx(path, (enum form) form, 0x08, 1, d0, 0);
        assert_load_fails(path, "shape (0) has a dimension of 0");
        write_idx(path, (enum form) form, 0x08, 4, d1110, 0);
        assert_load_fails(path, "shape (1, 1, 1, 0) has a dimension of 0");
    }
}
END_TEST

/* More than IDX_MAX_COUNT = 2^31 values, however the product is reached;
 * (2^32 - 1)^4 does not even fit in 64 bits. */
START_TEST(test_too_many_values)
{
    static const uint32_t square[2] = {65536, 65536}, one_over[2] = {2, 1073741825};
    static const uint32_t huge[4] = {4294967295u, 4294967295u, 4294967295u, 4294967295u};
    static const uint32_t late[4] = {1, 1, 4294967295u, 2};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "huge.idx");

    for (int form = PLAIN; form <= GZIP; form++) {
        write_idx(path, (enum form) form, 0x08, 2, square, 16);
        assert_load_fails(path, "shape (65536, 65536) has more than 2147483648 values");
        write_idx(path, (enum form) form, 0x08, 2, one_over, 16);
        assert_load_fails(path, "shape (2, 1073741825) has more than 2147483648 values");
        write_idx(path, (enum form) form, 0x08, 4, huge, 16);
        assert_load_fails(path, "shape (4294967295, 4294967295, 4294967295, 4294967295) has "
                                "more than 2147483648 values");
        write_idx(path, (enum form) form, 0x08, 4, late, 16);
        assert_load_fails(path, "shape (1, 1, 4294967295, 2) has more than");
    }
}
END_TEST

/* Exactly 2^31 values is allowed; the file then holds far fewer, which is
 * found by reading, not by allocating 2 GiB first. */
START_TEST(test_largest_shape_truncated)
{
    static const uint32_t dims[2] = {2, 1073741824};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "max.idx");

    for (int form = PLAIN; form <= GZIP; form++) {
        write_idx(path, (enum form) form, 0x08, 2, dims, 10);
        assert_load_fails(path, "truncated: expected 2147483648 bytes of data for shape "
                                "(2, 1073741824), found 10");
    }
}
END_TEST

START_TEST(test_truncated_header)
{
    static const unsigned char cut[] = "\x00\x00\x08\x03\x00\x00\x00\x03\x00\x00";
    char p[1024];
    const char *path = in_dir(p, sizeof p, "head.idx");

    for (int form = PLAIN; form <= GZIP; form++) {
        write_file(path, cut, sizeof cut - 1, (enum form) form);
        assert_load_fails(path, "truncated: the file ends inside the header (10 of its 16 bytes)");
        write_file(path, cut, 4, (enum form) form);
        assert_load_fails(path, "truncated: the file ends inside the header (4 of its 16 bytes)");
    }
}
END_TEST

/* One byte short, and no data at all. */
START_TEST(test_truncated_data)
{
    static const uint32_t dims[3] = {3, 28, 28};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "short.idx");

    write_idx(path, (enum form) _i, 0x08, 3, dims, 3 * 28 * 28 - 1);
    assert_load_fails(path, "truncated: expected 2352 bytes of data for shape (3, 28, 28), "
                            "found 2351");
    write_idx(path, (enum form) _i, 0x08, 3, dims, 0);
    assert_load_fails(path, "truncated: expected 2352 bytes of data for shape (3, 28, 28), "
                            "found 0");
}
END_TEST

/* The large file again, a byte short and a byte long: the growing buffer
 * stops at the shape's count and the count is right either way. */
START_TEST(test_large_wrong_length)
{
    static const uint32_t dims[3] = {3, 1000, 1000};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "large.gz");

    write_idx(path, GZIP, 0x08, 3, dims, 2999999);
    assert_load_fails(path, "truncated: expected 3000000 bytes of data for shape "
                            "(3, 1000, 1000), found 2999999");
    write_idx(path, GZIP, 0x08, 3, dims, 3000001);
    assert_load_fails(path, "trailing bytes: expected 3000000 bytes of data for shape "
                            "(3, 1000, 1000), found 3000001");
}
END_TEST

/* One byte too many, and many: every byte after the data is counted. */
START_TEST(test_trailing_bytes)
{
    static const uint32_t dims[3] = {3, 28, 28};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "long.idx");

    write_idx(path, (enum form) _i, 0x08, 3, dims, 3 * 28 * 28 + 1);
    assert_load_fails(path, "trailing bytes: expected 2352 bytes of data for shape (3, 28, 28), "
                            "found 2353");
    write_idx(path, (enum form) _i, 0x08, 3, dims, 3 * 28 * 28 + 100000);
    assert_load_fails(path, "trailing bytes: expected 2352 bytes of data for shape (3, 28, 28), "
                            "found 102352");
}
END_TEST

/* A valid gzip file of images, cut at several places: inside the gzip
 * header, in the middle of the deflate data, and in the 8-byte trailer
 * (CRC-32 and length). Each cut is zlib's "unexpected end of file". */
START_TEST(test_gzip_cut)
{
    static const uint32_t dims[3] = {3, 28, 28};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "cut.gz");
    unsigned char *gz;
    size_t len;
    size_t cuts[5];

    write_idx(path, GZIP, 0x08, 3, dims, 3 * 28 * 28);
    gz = read_file(path, &len);
    ck_assert_uint_gt(len, 100);
    cuts[0] = 5;
    cuts[1] = 12;
    cuts[2] = len / 2;
    cuts[3] = len - 8;
    cuts[4] = len - 1;
    for (int k = 0; k < COUNT(cuts); k++) {
        write_file(path, gz, cuts[k], PLAIN);
        assert_load_fails(path, "truncated gzip data: unexpected end of file");
    }
    free(gz);
}
END_TEST

/* A valid gzip file with one byte changed, and zlib's word for each. */
static const struct {
    long at;              /* offset; negative counts from the end */
    unsigned char value;  /* what is put there */
    const char *word;
} gzip_damage[] = {
    {2, 0x07, "corrupt gzip data: unknown compression method"},
    {3, 0xe0, "corrupt gzip data: unknown header flags set"},
    {-8, 0x00, "corrupt gzip data: incorrect data check"},   /* CRC-32 */
    {-4, 0x00, "corrupt gzip data: incorrect length check"}, /* ISIZE */
    {10, 0xff, "corrupt gzip data: "},                       /* the first deflate block */
};

START_TEST(test_gzip_corrupt)
{
    static const uint32_t dims[3] = {3, 28, 28};
    char p[1024];
    const char *path = in_dir(p, sizeof p, "bad.gz");
    unsigned char *gz;
    size_t len, at;

    write_idx(path, GZIP, 0x08, 3, dims, 3 * 28 * 28);
    gz = read_file(path, &len);
    at = gzip_damage[_i].at >= 0 ? (size_t) gzip_damage[_i].at
                                 : len - (size_t) -gzip_damage[_i].at;
    ck_assert_msg(gz[at] != gzip_damage[_i].value, "byte %zu already holds 0x%02x", at,
                  gzip_damage[_i].value);
    gz[at] = gzip_damage[_i].value;
    write_file(path, gz, len, PLAIN);
    free(gz);
    assert_load_fails(path, gzip_damage[_i].word);
}
END_TEST

START_TEST(test_load_bad_arguments)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "nope.gz");
    idx_array a;
    lab_error err = {{0}};

    memset(&a, 0x5a, sizeof a);
    ck_assert_int_eq(idx_load(NULL, &a, &err), -1);
    ck_assert_str_eq(err.msg, "idx_load: path is NULL");
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(idx_load(path, NULL, &err), -1);
    ck_assert_str_eq(err.msg, "idx_load: out is NULL");
    /* a NULL err is allowed */
    ck_assert_int_eq(idx_load(path, &a, NULL), -1);
    ck_assert_int_eq(idx_load(path, NULL, NULL), -1);
}
END_TEST

/* ---- idx_load_expect ---------------------------------------------------------- */

/* Writes three 28x28 images to name; returns its path in buf. */
static const char *write_images(char *buf, size_t cap, const char *name)
{
    static const uint32_t dims[3] = {3, 28, 28};
    const char *path = in_dir(buf, cap, name);
    write_idx(path, GZIP, 0x08, 3, dims, 3 * 28 * 28);
    return path;
}

START_TEST(test_expect_accepts)
{
    static const uint32_t dims[3] = {3, 28, 28};
    char p[1024];
    const char *path = write_images(p, sizeof p, "images.gz");
    const size_t exact[3] = {3, 28, 28}, any_count[3] = {0, 28, 28}, any[3] = {0, 0, 0};
    idx_array a;
    lab_error err = {{0}};

    ck_assert_msg(idx_load_expect(path, 3, exact, &a, &err) == 0, "%s", err.msg);
    assert_array(&a, 3, dims);
    idx_free(&a);
    ck_assert_int_eq(idx_load_expect(path, 3, any_count, &a, &err), 0);
    idx_free(&a);
    ck_assert_int_eq(idx_load_expect(path, 3, any, &a, &err), 0);
    idx_free(&a);
    ck_assert_int_eq(idx_load_expect(path, 3, NULL, &a, &err), 0);
    idx_free(&a);
}
END_TEST

/* Calls idx_load_expect, which must fail with exactly "<path>: <tail>". */
static void assert_expect_fails(const char *path, int ndim, const size_t *shape,
                                const char *tail)
{
    idx_array a;
    lab_error err = {{0}};
    char want[1200];

    memset(&a, 0x5a, sizeof a);
    ck_assert_int_eq(idx_load_expect(path, ndim, shape, &a, &err), -1);
    snprintf(want, sizeof want, "%s: %s", path, tail);
    ck_assert_str_eq(err.msg, want);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(a.ndim, 0);
}

START_TEST(test_expect_rejects)
{
    char p[1024], q[1024];
    const char *images = write_images(p, sizeof p, "images.gz");
    const char *labels = in_dir(q, sizeof q, "train-labels-idx1-ubyte.gz");
    const uint32_t label_dims[1] = {60000};
    const size_t s10000[1] = {10000}, s3_28_27[3] = {3, 28, 27}, s0_28_27[3] = {0, 28, 27};
    const size_t s0[1] = {0}, s3_28_28_1[4] = {3, 28, 28, 1}, s0_784[2] = {0, 784};

    write_idx(labels, GZIP, 0x08, 1, label_dims, 60000);
    assert_expect_fails(labels, 1, s10000, "shape is (60000), expected (10000)");
    assert_expect_fails(labels, 2, NULL, "shape is (60000), expected (*, *)");
    assert_expect_fails(images, 3, s3_28_27, "shape is (3, 28, 28), expected (3, 28, 27)");
    assert_expect_fails(images, 3, s0_28_27, "shape is (3, 28, 28), expected (*, 28, 27)");
    assert_expect_fails(images, 1, s0, "shape is (3, 28, 28), expected (*)");
    assert_expect_fails(images, 2, s0_784, "shape is (3, 28, 28), expected (*, 784)");
    assert_expect_fails(images, 4, s3_28_28_1, "shape is (3, 28, 28), expected (3, 28, 28, 1)");
}
END_TEST

START_TEST(test_expect_bad_arguments)
{
    char p[1024], q[1024];
    const char *path = write_images(p, sizeof p, "images.gz");
    const char *missing = in_dir(q, sizeof q, "nope.gz");
    idx_array a;
    lab_error err = {{0}};
    char want[1200];

    memset(&a, 0x5a, sizeof a);
    ck_assert_int_eq(idx_load_expect(path, 0, NULL, &a, &err), -1);
    snprintf(want, sizeof want, "idx_load_expect: %s: ndim 0 is outside 1..4", path);
    ck_assert_str_eq(err.msg, want);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(idx_load_expect(path, 5, NULL, &a, &err), -1);
    assert_message(&err, "idx_load_expect: ", "ndim 5 is outside 1..4");
    ck_assert_int_eq(idx_load_expect(NULL, 1, NULL, &a, &err), -1);
    ck_assert_str_eq(err.msg, "idx_load: path is NULL");
    ck_assert_int_eq(idx_load_expect(path, 3, NULL, NULL, &err), -1);
    ck_assert_str_eq(err.msg, "idx_load: out is NULL");
    /* idx_load's own message comes through */
    ck_assert_int_eq(idx_load_expect(missing, 1, NULL, &a, &err), -1);
    assert_message(&err, missing, "cannot open: No such file or directory");
    /* a NULL err is allowed */
    ck_assert_int_eq(idx_load_expect(path, 1, NULL, &a, NULL), -1);
    ck_assert_ptr_null(a.data);
}
END_TEST

/* ---- idx_free ------------------------------------------------------------------ */

START_TEST(test_free)
{
    char p[1024];
    const char *path = write_images(p, sizeof p, "images.gz");
    idx_array a = {0};
    idx_array zero = {0};
    lab_error err = {{0}};

    idx_free(&a);                 /* a zeroed array */
    ck_assert_int_eq(memcmp(&a, &zero, sizeof a), 0);
    idx_free(NULL);
    ck_assert_int_eq(idx_load(path, &a, &err), 0);
    idx_free(&a);                 /* a loaded one: zeroed after */
    ck_assert_int_eq(memcmp(&a, &zero, sizeof a), 0);
    idx_free(&a);                 /* and again */
}
END_TEST

/* ---- Fashion-MNIST, where it is installed ------------------------------------- */

/* The test set as dataset-fashion-mnist installs it: 10000 labels, each a
 * class 0..9 and 1000 of each, and 10000 images of 28x28. */
START_TEST(test_fashion_mnist_t10k)
{
    const size_t label_shape[1] = {10000}, image_shape[3] = {10000, 28, 28};
    size_t per_class[10] = {0};
    idx_array a;
    lab_error err = {{0}};

    ck_assert_msg(idx_load_expect(T10K_LABELS, 1, label_shape, &a, &err) == 0, "%s", err.msg);
    for (size_t i = 0; i < a.count; i++) {
        if (a.data[i] >= 10)
            ck_abort_msg("label %zu is %u, expected 0..9", i, a.data[i]);
        per_class[a.data[i]]++;
    }
    for (int c = 0; c < 10; c++)
        ck_assert_msg(per_class[c] == 1000, "class %d has %zu labels, expected 1000", c,
                      per_class[c]);
    idx_free(&a);

    ck_assert_msg(idx_load_expect(T10K_IMAGES, 3, image_shape, &a, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(a.count, 10000 * 28 * 28);
    idx_free(&a);
}
END_TEST

/* ---- the runner ----------------------------------------------------------------- */

static TCase *tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, setup, teardown);
    return tc;
}

static Suite *idx_suite(int with_dataset)
{
    Suite *s = suite_create("idx");
    TCase *tc;

    tc = tcase("loading");
    tcase_add_loop_test(tc, test_load_images, PLAIN, GZIP + 1);
    tcase_add_loop_test(tc, test_load_labels, PLAIN, GZIP + 1);
    tcase_add_loop_test(tc, test_load_every_ndim, 0, COUNT(shapes));
    tcase_add_test(tc, test_load_large);
    suite_add_tcase(s, tc);

    tc = tcase("refused files");
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_directory);
    tcase_add_loop_test(tc, test_not_idx, 0, COUNT(not_idx));
    tcase_add_loop_test(tc, test_unsupported_type, 0, COUNT(bad_types));
    tcase_add_test(tc, test_bad_ndim);
    tcase_add_test(tc, test_zero_dimension);
    tcase_add_test(tc, test_too_many_values);
    tcase_add_test(tc, test_largest_shape_truncated);
    tcase_add_test(tc, test_truncated_header);
    tcase_add_loop_test(tc, test_truncated_data, PLAIN, GZIP + 1);
    tcase_add_test(tc, test_large_wrong_length);
    tcase_add_loop_test(tc, test_trailing_bytes, PLAIN, GZIP + 1);
    tcase_add_test(tc, test_gzip_cut);
    tcase_add_loop_test(tc, test_gzip_corrupt, 0, COUNT(gzip_damage));
    tcase_add_test(tc, test_load_bad_arguments);
    suite_add_tcase(s, tc);

    tc = tcase("expect");
    tcase_add_test(tc, test_expect_accepts);
    tcase_add_test(tc, test_expect_rejects);
    tcase_add_test(tc, test_expect_bad_arguments);
    tcase_add_test(tc, test_free);
    suite_add_tcase(s, tc);

    if (with_dataset) {
        tc = tcase("fashion-mnist");
        tcase_set_timeout(tc, 60);  /* 4.4 MB to inflate, slow under valgrind */
        tcase_add_test(tc, test_fashion_mnist_t10k);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    int with_dataset = access(T10K_LABELS, R_OK) == 0 && access(T10K_IMAGES, R_OK) == 0;
    SRunner *sr;
    int failed;

    if (!base || !*base)
        base = "/tmp";
    snprintf(root, sizeof root, "%s/test_idx.XXXXXX", base);
    if (!mkdtemp(root)) {
        fprintf(stderr, "test_idx: cannot make a directory %s: %s\n", root, strerror(errno));
        return 1;
    }
    sr = srunner_create(idx_suite(with_dataset));
    srunner_run_all(sr, CK_ENV);  /* CK_VERBOSITY=verbose lists every test */
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    scratch_remove(root);
    if (failed != 0)
        return 1;
    if (!with_dataset) {
        printf("SKIP: Fashion-MNIST not found (%s; Debian package dataset-fashion-mnist) "
               "(test_fashion_mnist_t10k)\n", T10K_LABELS);
        return 77;
    }
    return 0;
}
