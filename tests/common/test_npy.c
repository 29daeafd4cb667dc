/*
 * test_npy.c - tests of the .npy reader and writer (common/npy.c).
 *
 * Expected bytes are written out by hand from the NumPy format
 * documentation (numpy.lib.format), and the files fed to the reader are
 * built here byte by byte, so the tests do not trust the writer to check the
 * reader or the other way round, except in the round trips.
 *
 * Every test works in a fresh directory made with mkdtemp inside one made
 * for the run under $TMPDIR (or /tmp); main removes the lot at the end, so
 * a failed test leaves nothing behind either.
 *
 * Not for: checking the labs' own data files.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch.h"
#include "npy.h"

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

static void write_bytes(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* The whole file, malloc'd; its length in *len. */
static unsigned char *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = malloc(1 << 16);
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_ptr_nonnull(buf);
    *len = fread(buf, 1, 1 << 16, f);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

/* Builds a .npy file by hand: magic, version major.0, the header length in
 * 2 bytes (major 1) or 4 (major 2 and 3), the header text exactly as given,
 * then data_len bytes counting up from 0. */
static void write_npy_raw(const char *path, int major, const char *header, size_t data_len)
{
    unsigned char buf[4096];
    size_t hlen = strlen(header), n = 0;

    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char) major;
    buf[7] = 0;
    n = 8;
    buf[n++] = (unsigned char) (hlen & 0xff);
    buf[n++] = (unsigned char) (hlen >> 8);
    if (major != 1) {
        buf[n++] = (unsigned char) (hlen >> 16);
        buf[n++] = (unsigned char) (hlen >> 24);
    }
    ck_assert_uint_lt(n + hlen + data_len, sizeof buf);
    memcpy(buf + n, header, hlen);
    n += hlen;
    for (size_t i = 0; i < data_len; i++)
        buf[n++] = (unsigned char) i;
    write_bytes(path, buf, n);
}

/* Number of entries in the scratch directory, to spot leftover temp files. */
static int dir_entries(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Asserts that the message names path and contains word. */
static void assert_message(const lab_error *err, const char *path, const char *word)
{
    ck_assert_msg(strstr(err->msg, path) != NULL, "message does not name %s: %s", path,
                  err->msg);
    ck_assert_msg(strstr(err->msg, word) != NULL, "message lacks \"%s\": %s", word, err->msg);
}

/* Asserts that loading path fails with a message naming it and word, and
 * leaves the array zeroed. */
static void assert_load_fails(const char *path, const char *word)
{
    npy_array a;
    lab_error err = {{0}};
    memset(&a, 0x5a, sizeof a);
    ck_assert_int_eq(npy_load(path, &a, &err), -1);
    assert_message(&err, path, word);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(a.ndim, 0);
    ck_assert_uint_eq(a.count, 0);
}

/* ---- dtype table ------------------------------------------------------------ */

START_TEST(test_dtype_names_and_sizes)
{
    ck_assert_str_eq(npy_dtype_name(NPY_F32), "float32");
    ck_assert_str_eq(npy_dtype_name(NPY_F64), "float64");
    ck_assert_str_eq(npy_dtype_name(NPY_U8), "uint8");
    ck_assert_str_eq(npy_dtype_name(NPY_I32), "int32");
    ck_assert_str_eq(npy_dtype_name((npy_dtype) 99), "unknown");
    ck_assert_uint_eq(npy_dtype_size(NPY_F32), 4);
    ck_assert_uint_eq(npy_dtype_size(NPY_F64), 8);
    ck_assert_uint_eq(npy_dtype_size(NPY_U8), 1);
    ck_assert_uint_eq(npy_dtype_size(NPY_I32), 4);
    ck_assert_uint_eq(npy_dtype_size((npy_dtype) -1), 0);
}
END_TEST

/* ---- round trips ------------------------------------------------------------ */

static const struct {
    npy_dtype dtype;
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    size_t count;
} round_trips[] = {
    {NPY_F32, 2, {3, 4}, 12},
    {NPY_F32, 1, {1}, 1},
    {NPY_F64, 1, {5}, 5},
    {NPY_U8, 3, {2, 3, 4}, 24},
    {NPY_I32, 8, {1, 2, 1, 2, 1, 2, 1, 3}, 24},
    {NPY_U8, 1, {1000}, 1000},
    {NPY_F32, 0, {0}, 1},
    {NPY_F64, 0, {0}, 1},
    {NPY_U8, 0, {0}, 1},
    {NPY_I32, 0, {0}, 1},
    {NPY_F32, 1, {0}, 0},
    {NPY_I32, 3, {3, 0, 2}, 0},
    {NPY_F64, 2, {4, 0}, 0},
};

START_TEST(test_round_trip)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "a.npy");
    size_t item = npy_dtype_size(round_trips[_i].dtype);
    size_t bytes = round_trips[_i].count * item;
    unsigned char *data = malloc(bytes + 1);
    npy_array a;
    lab_error err = {{0}};

    ck_assert_ptr_nonnull(data);
    for (size_t i = 0; i < bytes; i++)
        data[i] = (unsigned char) (i * 37 + 11);
    ck_assert_msg(npy_save(path, round_trips[_i].dtype, round_trips[_i].ndim,
                           round_trips[_i].shape, data, &err) == 0, "%s", err.msg);
    ck_assert_msg(npy_load(path, &a, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(a.dtype, round_trips[_i].dtype);
    ck_assert_int_eq(a.ndim, round_trips[_i].ndim);
    for (int d = 0; d < NPY_MAX_DIMS; d++)
        ck_assert_uint_eq(a.shape[d], d < a.ndim ? round_trips[_i].shape[d] : 0);
    ck_assert_uint_eq(a.count, round_trips[_i].count);
    ck_assert_ptr_nonnull(a.data);
    ck_assert_int_eq(memcmp(a.data, data, bytes), 0);
    ck_assert_int_eq(dir_entries(), 1);
    npy_free(&a);
    ck_assert_ptr_null(a.data);
    npy_free(&a);
    npy_free(NULL);
    free(data);
}
END_TEST

/* Floats go through as bits: -0, infinities, NaN payloads, subnormals. */
START_TEST(test_round_trip_float_bits)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "bits.npy");
    const uint32_t bits[] = {0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u,
                             0xffbfffffu, 0x00000001u, 0x807fffffu, 0x3f800000u};
    size_t shape[1] = {8};
    npy_array a;
    lab_error err = {{0}};

    ck_assert_int_eq(npy_save(path, NPY_F32, 1, shape, bits, &err), 0);
    ck_assert_int_eq(npy_load_expect(path, NPY_F32, 1, shape, &a, &err), 0);
    ck_assert_int_eq(memcmp(a.data, bits, sizeof bits), 0);
    npy_free(&a);
}
END_TEST

START_TEST(test_save_replaces_existing_file)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "r.npy");
    const int32_t first[6] = {1, 2, 3, 4, 5, 6}, second[2] = {-7, 8};
    size_t s1[2] = {2, 3}, s2[1] = {2};
    npy_array a;
    lab_error err = {{0}};

    ck_assert_int_eq(npy_save(path, NPY_I32, 2, s1, first, &err), 0);
    ck_assert_int_eq(npy_save(path, NPY_I32, 1, s2, second, &err), 0);
    ck_assert_int_eq(npy_load(path, &a, &err), 0);
    ck_assert_int_eq(a.ndim, 1);
    ck_assert_uint_eq(a.count, 2);
    ck_assert_int_eq(((int32_t *) a.data)[0], -7);
    ck_assert_int_eq(((int32_t *) a.data)[1], 8);
    ck_assert_int_eq(dir_entries(), 1);
    npy_free(&a);
}
END_TEST

/* ---- the bytes np.save writes ---------------------------------------------- */

/* Compares the file at path with the expected bytes. */
static void assert_file_is(const char *path, const char *expect, size_t len)
{
    size_t got_len;
    unsigned char *got = read_bytes(path, &got_len);
    ck_assert_uint_eq(got_len, len);
    for (size_t i = 0; i < len; i++)
        ck_assert_msg(got[i] == (unsigned char) expect[i], "byte %zu is 0x%02x, expected 0x%02x",
                      i, got[i], (unsigned char) expect[i]);
    free(got);
}

#define SPACES10 "          "

/* np.save(path, np.array([1, 2, 3], dtype='<f4')): the dict (57 characters)
 * is followed by 21 - len('3') = 20 spaces of room to grow, then 40 spaces of
 * padding and '\n', so the header is 118 bytes and the data starts at 128. */
START_TEST(test_exact_bytes_f32_vector)
{
    static const char expect[] =
        "\x93NUMPY\x01\x00\x76\x00"
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"
        SPACES10 SPACES10                                   /* room to grow */
        SPACES10 SPACES10 SPACES10 SPACES10 "\n"            /* padding */
        "\x00\x00\x80\x3f" "\x00\x00\x00\x40" "\x00\x00\x40\x40";
    char p[1024];
    const char *path = in_dir(p, sizeof p, "v.npy");
    const float data[3] = {1.0f, 2.0f, 3.0f};
    size_t shape[1] = {3};
    lab_error err = {{0}};

    ck_assert_uint_eq(sizeof expect - 1, 128 + 12);
    ck_assert_int_eq(npy_save(path, NPY_F32, 1, shape, data, &err), 0);
    assert_file_is(path, expect, sizeof expect - 1);
}
END_TEST

/* np.save(path, np.arange(6, dtype=np.uint8).reshape(2, 3)): a 59-character
 * dict, 20 spaces to grow, 38 of padding. */
START_TEST(test_exact_bytes_u8_matrix)
{
    static const char expect[] =
        "\x93NUMPY\x01\x00\x76\x00"
        "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }"
        SPACES10 SPACES10
        SPACES10 SPACES10 SPACES10 "        " "\n"
        "\x00\x01\x02\x03\x04\x05";
    char p[1024];
    const char *path = in_dir(p, sizeof p, "m.npy");
    const uint8_t data[6] = {0, 1, 2, 3, 4, 5};
    size_t shape[2] = {2, 3};
    lab_error err = {{0}};

    ck_assert_uint_eq(sizeof expect - 1, 128 + 6);
    ck_assert_int_eq(npy_save(path, NPY_U8, 2, shape, data, &err), 0);
    assert_file_is(path, expect, sizeof expect - 1);
}
END_TEST

/* np.save(path, np.float64(1.5)): shape (), no room to grow, 62 spaces of
 * padding; 1.5 is 0x3FF8000000000000. */
START_TEST(test_exact_bytes_f64_scalar)
{
    static const char expect[] =
        "\x93NUMPY\x01\x00\x76\x00"
        "{'descr': '<f8', 'fortran_order': False, 'shape': (), }"
        SPACES10 SPACES10 SPACES10 SPACES10 SPACES10 SPACES10 "  " "\n"
        "\x00\x00\x00\x00\x00\x00\xf8\x3f";
    char p[1024];
    const char *path = in_dir(p, sizeof p, "s.npy");
    const double x = 1.5;
    lab_error err = {{0}};

    ck_assert_uint_eq(sizeof expect - 1, 128 + 8);
    ck_assert_int_eq(npy_save(path, NPY_F64, 0, NULL, &x, &err), 0);
    assert_file_is(path, expect, sizeof expect - 1);
}
END_TEST

/* Whatever the shape, the header ends in '\n' and the data starts at a
 * multiple of 64; the header length field says so. */
START_TEST(test_data_is_aligned)
{
    static const struct {
        int ndim;
        size_t shape[NPY_MAX_DIMS];
        long count;
    } cases[] = {
        {1, {7}, 7},
        {1, {1234567}, 1234567},
        {8, {1, 1, 1, 1, 1, 1, 1, 1}, 1},
        {8, {0, 99999, 99999, 99999, 9, 9, 9, 9}, 0},
        {2, {10, 0}, 0},
        {2, {12345678901, 0}, 0},
    };
    char p[1024];
    const char *path = in_dir(p, sizeof p, "al.npy");
    lab_error err = {{0}};
    uint8_t *data = calloc(1234567, 1);

    ck_assert_ptr_nonnull(data);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        FILE *f;
        unsigned char pre[10];
        size_t hlen;
        long end;
        int c;

        ck_assert_msg(npy_save(path, NPY_U8, cases[k].ndim, cases[k].shape, data, &err) == 0,
                      "%s", err.msg);
        f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fread(pre, 1, 10, f), 10);
        hlen = pre[8] | (size_t) pre[9] << 8;
        ck_assert_uint_eq((10 + hlen) % 64, 0);
        ck_assert_int_eq(fseek(f, (long) (10 + hlen - 1), SEEK_SET), 0);
        c = fgetc(f);
        ck_assert_int_eq(c, '\n');
        ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
        end = ftell(f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(end, (long) (10 + hlen) + cases[k].count);
    }
    free(data);
}
END_TEST

/* ---- reading what other writers write -------------------------------------- */

/* Headers np.save might have written, or a person, or an older NumPy. The
 * reader gets as many data bytes as the shape needs. */
static const struct {
    const char *header;
    npy_dtype dtype;
    int ndim;
    size_t shape[3];
} good_headers[] = {
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }\n", NPY_F32, 2, {3, 4}},
    {"{'shape': (3, 4), 'fortran_order': False, 'descr': '<f4'}\n", NPY_F32, 2, {3, 4}},
    {"{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (5,)}", NPY_F64, 1, {5}},
    {"{'descr':'<i4','fortran_order':False,'shape':(2,3,),}", NPY_I32, 2, {2, 3}},
    {" {\t'descr' : '|u1' ,\n 'fortran_order' : False , 'shape' : ( 7 , ) , } \n   ", NPY_U8, 1, {7}},
    {"{'descr': '<u1', 'fortran_order': False, 'shape': (2,), }\n", NPY_U8, 1, {2}},
    {"{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }\n", NPY_U8, 1, {2}},
    {"{'descr': '=f4', 'fortran_order': False, 'shape': (2,), }\n", NPY_F32, 1, {2}},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 4L), }\n", NPY_F32, 2, {3, 4}},
    {"{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n", NPY_F64, 0, {0}},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 0, 3), }\n", NPY_I32, 3, {2, 0, 3}},
};

START_TEST(test_read_header_variants)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "h.npy");
    size_t count = 1, bytes;
    npy_array a;
    lab_error err = {{0}};

    for (int d = 0; d < good_headers[_i].ndim; d++)
        count *= good_headers[_i].shape[d];
    bytes = count * npy_dtype_size(good_headers[_i].dtype);
    write_npy_raw(path, 1, good_headers[_i].header, bytes);
    ck_assert_msg(npy_load(path, &a, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(a.dtype, good_headers[_i].dtype);
    ck_assert_int_eq(a.ndim, good_headers[_i].ndim);
    for (int d = 0; d < a.ndim; d++)
        ck_assert_uint_eq(a.shape[d], good_headers[_i].shape[d]);
    ck_assert_uint_eq(a.count, count);
    for (size_t i = 0; i < bytes; i++)
        ck_assert_uint_eq(((unsigned char *) a.data)[i], (unsigned char) i);
    npy_free(&a);
}
END_TEST

/* Version 2.0 and 3.0 files differ from 1.0 only in a 4-byte header length. */
START_TEST(test_read_version_2_and_3)
{
    static const char header[] =
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }" SPACES10 "\n";
    char p[1024];
    const char *path = in_dir(p, sizeof p, "v2.npy");
    npy_array a;
    lab_error err = {{0}};

    for (int major = 2; major <= 3; major++) {
        write_npy_raw(path, major, header, 8);
        ck_assert_msg(npy_load(path, &a, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(a.dtype, NPY_I32);
        ck_assert_int_eq(a.ndim, 1);
        ck_assert_uint_eq(a.shape[0], 2);
        ck_assert_int_eq(((int32_t *) a.data)[0], 0x03020100);
        ck_assert_int_eq(((int32_t *) a.data)[1], 0x07060504);
        npy_free(&a);
    }
}
END_TEST

/* A v2.0 file written out completely by hand: header length 0x36 = 54. */
START_TEST(test_read_version_2_literal)
{
    static const char file[] =
        "\x93NUMPY\x02\x00\x36\x00\x00\x00"
        "{'descr': '<f8', 'fortran_order': False, 'shape': ()}\n"
        "\x00\x00\x00\x00\x00\x00\x04\xc0";  /* -2.5 */
    char p[1024];
    const char *path = in_dir(p, sizeof p, "lit.npy");
    npy_array a;
    lab_error err = {{0}};

    write_bytes(path, file, sizeof file - 1);
    ck_assert_msg(npy_load(path, &a, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(a.ndim, 0);
    ck_assert_uint_eq(a.count, 1);
    ck_assert(*(double *) a.data == -2.5);
    npy_free(&a);
}
END_TEST

/* A version 2.0 header longer than a uint16 can say: 70000 bytes, which is
 * 0x00011170 little-endian. */
START_TEST(test_read_version_2_long_header)
{
    static const char prelude[] = "\x93NUMPY\x02\x00\x70\x11\x01\x00";
    static const char dict[] = "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }";
    const size_t hlen = 70000, start = sizeof prelude - 1;
    char p[1024];
    const char *path = in_dir(p, sizeof p, "long.npy");
    char *file = malloc(start + hlen + 3);
    npy_array a;
    lab_error err = {{0}};

    ck_assert_ptr_nonnull(file);
    memcpy(file, prelude, start);
    memset(file + start, ' ', hlen);
    memcpy(file + start, dict, sizeof dict - 1);
    file[start + hlen - 1] = '\n';
    memcpy(file + start + hlen, "\x07\x08\x09", 3);
    write_bytes(path, file, start + hlen + 3);
    free(file);
    ck_assert_msg(npy_load_expect(path, NPY_U8, 1, NULL, &a, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(a.shape[0], 3);
    ck_assert_uint_eq(((unsigned char *) a.data)[0], 7);
    ck_assert_uint_eq(((unsigned char *) a.data)[2], 9);
    npy_free(&a);
}
END_TEST

/* ---- files the reader refuses ---------------------------------------------- */

START_TEST(test_missing_file)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "nope.npy");
    assert_load_fails(path, "cannot open: No such file or directory");
}
END_TEST

START_TEST(test_directory_is_not_a_file)
{
    assert_load_fails(dir, "not a regular file");
}
END_TEST

START_TEST(test_bad_magic)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "magic.npy");
    static const char zip[] = "PK\x03\x04 this is a zip file, not an array";

    write_bytes(path, zip, sizeof zip - 1);
    assert_load_fails(path, "not a .npy file (bad magic)");
    write_bytes(path, "", 0);
    assert_load_fails(path, "not a .npy file (bad magic)");
    write_bytes(path, "\x93NUM", 4);
    assert_load_fails(path, "bad magic");
}
END_TEST

START_TEST(test_truncated_prelude)
{
    static const char short_v1[] = "\x93NUMPY\x01\x00\x76";
    static const char short_v2[] = "\x93NUMPY\x02\x00\x10\x00";
    static const char short_header[] = "\x93NUMPY\x01\x00\x76\x00{'descr': ";
    char p[1024];
    const char *path = in_dir(p, sizeof p, "t.npy");

    write_bytes(path, short_v1, sizeof short_v1 - 1);
    assert_load_fails(path, "truncated");
    write_bytes(path, short_v2, sizeof short_v2 - 1);
    assert_load_fails(path, "truncated");
    /* header length 118, but only 10 bytes follow */
    write_bytes(path, short_header, sizeof short_header - 1);
    assert_load_fails(path, "truncated: the header length is 118 bytes but only 10 follow");
}
END_TEST

START_TEST(test_unsupported_version)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "ver.npy");

    write_npy_raw(path, 4, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", 4);
    assert_load_fails(path, "unsupported .npy format version 4.0");
}
END_TEST

/* 12 float32 values want 48 bytes; the file has 40. */
START_TEST(test_truncated_data)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "x.npy");

    write_npy_raw(path, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }\n", 40);
    assert_load_fails(path, "truncated: header says 12 float32 values (48 bytes) but the "
                            "file has 40 bytes of data");
}
END_TEST

START_TEST(test_trailing_garbage)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "x.npy");

    write_npy_raw(path, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }\n", 52);
    assert_load_fails(path, "trailing garbage: header says 12 float32 values (48 bytes) but "
                            "the file has 52 bytes of data");
    write_npy_raw(path, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }\n", 1);
    assert_load_fails(path, "trailing garbage");
}
END_TEST

/* Headers that are wrong, each with a word its message must contain. */
static const struct {
    const char *header;
    const char *word;
} bad_headers[] = {
    {"{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", "fortran_order arrays are not supported"},
    {"{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", "unsupported dtype '<c8'"},
    {"{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", "unsupported dtype '<f2'"},
    {"{'descr': '<U3', 'fortran_order': False, 'shape': (3,), }", "unsupported dtype '<U3'"},
    {"{'descr': '|O', 'fortran_order': False, 'shape': (3,), }", "unsupported dtype '|O'"},
    {"{'descr': '|f4', 'fortran_order': False, 'shape': (3,), }", "unsupported dtype '|f4'"},
    {"{'descr': '', 'fortran_order': False, 'shape': (3,), }", "unsupported dtype ''"},
    {"{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", "big-endian dtype '>f4'"},
    {"{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }", "big-endian"},
    {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", "structured"},
    {"'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': False, }", "malformed header: no 'shape' key"},
    {"{'descr': '<f4', 'shape': (3,), }", "malformed header: no 'fortran_order' key"},
    {"{'fortran_order': False, 'shape': (3,), }", "malformed header: no 'descr' key"},
    {"{}", "malformed header: no 'descr' key"},
    {"", "malformed header"},
    {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", "appears twice"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}", "unexpected key 'extra'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", "not a tuple"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': [3]}", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3.0,)}", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,, 4)}", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3 4)}", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,}", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': false, 'shape': (3,)}", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (3,)}", "malformed header"},
    {"{'descr': '<f4' 'fortran_order': False, 'shape': (3,)}", "malformed header"},
    {"{'descr' '<f4', 'fortran_order': False, 'shape': (3,)}", "malformed header"},
    {"{'descr': '<f4, 'fortran_order': False, 'shape': (3,)}", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", "malformed header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} x", "unexpected text after '}'"},
    {"{'descr': '<\\x66\\x34', 'fortran_order': False, 'shape': (3,)}", "escapes"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1)}",
     "more than 8 dimensions"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,)}", "overflows"},
    {"{'descr': '<u1', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", "overflows"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296)}", "overflows"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}", "overflows"},
};

START_TEST(test_bad_header)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "bad.npy");
    const char *h = bad_headers[_i].header;
    unsigned char buf[512];
    size_t hlen = strlen(h);

    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char) hlen;
    buf[9] = 0;
    memcpy(buf + 10, h, hlen);
    memset(buf + 10 + hlen, 0, 12);
    write_bytes(path, buf, 10 + hlen + 12);
    assert_load_fails(path, bad_headers[_i].word);
}
END_TEST

/* A NUL byte inside the header is not whitespace. */
START_TEST(test_nul_in_header)
{
    static const char file[] =
        "\x93NUMPY\x01\x00\x39\x00"
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}\0\n"
        "\x00\x00\x80\x3f";
    char p[1024];
    const char *path = in_dir(p, sizeof p, "nul.npy");

    write_bytes(path, file, sizeof file - 1);
    assert_load_fails(path, "malformed header: unexpected text after '}'");
    /* the same file without the NUL loads */
    write_npy_raw(path, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} \n", 4);
    {
        npy_array a;
        lab_error err = {{0}};
        ck_assert_msg(npy_load(path, &a, &err) == 0, "%s", err.msg);
        npy_free(&a);
    }
}
END_TEST

/* ---- npy_load_expect -------------------------------------------------------- */

/* Writes a (3, 4) float32 array of zeros to name; returns its path in buf. */
static const char *save_3x4(char *buf, size_t cap, const char *name)
{
    const float zeros[12] = {0};
    size_t shape[2] = {3, 4};
    lab_error err = {{0}};
    const char *path = in_dir(buf, cap, name);
    ck_assert_msg(npy_save(path, NPY_F32, 2, shape, zeros, &err) == 0, "%s", err.msg);
    return path;
}

START_TEST(test_expect_accepts)
{
    char p[1024];
    const char *path = save_3x4(p, sizeof p, "e.npy");
    const size_t exact[2] = {3, 4}, any_rows[2] = {0, 4}, any[2] = {0, 0};
    npy_array a;
    lab_error err = {{0}};

    ck_assert_int_eq(npy_load_expect(path, NPY_F32, 2, exact, &a, &err), 0);
    ck_assert_uint_eq(a.count, 12);
    npy_free(&a);
    ck_assert_int_eq(npy_load_expect(path, NPY_F32, 2, any_rows, &a, &err), 0);
    npy_free(&a);
    ck_assert_int_eq(npy_load_expect(path, NPY_F32, 2, any, &a, &err), 0);
    npy_free(&a);
    ck_assert_int_eq(npy_load_expect(path, NPY_F32, 2, NULL, &a, &err), 0);
    npy_free(&a);
}
END_TEST

/* Calls npy_load_expect, which must fail with exactly "<path>: <tail>". */
static void assert_expect_fails(const char *path, npy_dtype dtype, int ndim, const size_t *shape,
                                const char *tail)
{
    npy_array a;
    lab_error err = {{0}};
    char want[1200];

    ck_assert_int_eq(npy_load_expect(path, dtype, ndim, shape, &a, &err), -1);
    snprintf(want, sizeof want, "%s: %s", path, tail);
    ck_assert_str_eq(err.msg, want);
    ck_assert_ptr_null(a.data);
}

START_TEST(test_expect_rejects)
{
    char p[1024];
    const char *path = save_3x4(p, sizeof p, "e.npy");
    const size_t s35[2] = {3, 5}, s0_5[2] = {0, 5}, s345[3] = {3, 4, 0}, s12[1] = {12};
    const size_t s34[2] = {3, 4};

    assert_expect_fails(path, NPY_F64, 2, s34, "dtype is float32, expected float64");
    assert_expect_fails(path, NPY_U8, 2, s34, "dtype is float32, expected uint8");
    assert_expect_fails(path, NPY_F32, 2, s35, "shape is (3, 4), expected (3, 5)");
    assert_expect_fails(path, NPY_F32, 2, s0_5, "shape is (3, 4), expected (*, 5)");
    assert_expect_fails(path, NPY_F32, 3, s345, "shape is (3, 4), expected (3, 4, *)");
    assert_expect_fails(path, NPY_F32, 1, s12, "shape is (3, 4), expected (12,)");
    assert_expect_fails(path, NPY_F32, 0, NULL, "shape is (3, 4), expected ()");
}
END_TEST

START_TEST(test_expect_float64_vs_float32)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "d.npy");
    const double x[2] = {1, 2};
    size_t shape[1] = {2};
    lab_error err = {{0}};

    ck_assert_int_eq(npy_save(path, NPY_F64, 1, shape, x, &err), 0);
    assert_expect_fails(path, NPY_F32, 1, shape, "dtype is float64, expected float32");
}
END_TEST

START_TEST(test_expect_bad_arguments)
{
    char p[1024];
    const char *path = save_3x4(p, sizeof p, "e.npy");
    npy_array a;
    lab_error err = {{0}};

    ck_assert_int_eq(npy_load_expect(path, NPY_F32, 9, NULL, &a, &err), -1);
    assert_message(&err, path, "ndim 9");
    ck_assert_int_eq(npy_load_expect(path, (npy_dtype) 7, 2, NULL, &a, &err), -1);
    assert_message(&err, path, "unknown dtype 7");
    ck_assert_int_eq(npy_load(NULL, &a, &err), -1);
    ck_assert_int_eq(npy_load(path, NULL, NULL), -1);
    /* a NULL err is allowed */
    ck_assert_int_eq(npy_load_expect(path, NPY_F64, 2, NULL, &a, NULL), -1);
}
END_TEST

/* ---- npy_save's failures ---------------------------------------------------- */

static const unsigned char old_bytes[] = "previous contents";

/* Asserts that path still holds old_bytes. */
static void assert_untouched(const char *path)
{
    size_t len;
    unsigned char *got = read_bytes(path, &len);
    ck_assert_uint_eq(len, sizeof old_bytes);
    ck_assert_int_eq(memcmp(got, old_bytes, len), 0);
    free(got);
}

START_TEST(test_save_into_missing_directory)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "no/such/dir/a.npy");
    const float x = 1;
    lab_error err = {{0}};

    ck_assert_int_eq(npy_save(path, NPY_F32, 0, NULL, &x, &err), -1);
    assert_message(&err, path, "No such file or directory");
    ck_assert_int_eq(dir_entries(), 0);
}
END_TEST

/* A temporary file that some other writer left next to path (here one with
 * this process's id in its name) neither blocks the save nor is touched. */
START_TEST(test_save_cannot_create_temp)
{
    static const unsigned char other[] = "someone else's file";
    char p[1024], t[1200];
    const char *path = in_dir(p, sizeof p, "keep.npy");
    const float x[4] = {1, 2, 3, 4};
    size_t shape[1] = {4}, len;
    unsigned char *got;
    lab_error err = {{0}};
    npy_array a;

    write_bytes(path, old_bytes, sizeof old_bytes);
    snprintf(t, sizeof t, "%s.tmp.%ld", path, (long) getpid());
    write_bytes(t, other, sizeof other);
    ck_assert_int_eq(npy_save(path, NPY_F32, 1, shape, x, &err), 0);
    ck_assert_int_eq(npy_load(path, &a, &err), 0);
    ck_assert_uint_eq(a.count, 4);
    ck_assert_int_eq(memcmp(a.data, x, sizeof x), 0);
    npy_free(&a);
    got = read_bytes(t, &len);
    ck_assert_uint_eq(len, sizeof other);
    ck_assert_int_eq(memcmp(got, other, len), 0);
    free(got);
    ck_assert_int_eq(dir_entries(), 2);
}
END_TEST

/* A directory that cannot be written to. Root may write anywhere, so the
 * check only means something for other users. */
START_TEST(test_save_into_read_only_directory)
{
    char p[1024], d[1024];
    const char *sub = in_dir(d, sizeof d, "ro");
    const float x = 1;
    lab_error err = {{0}};
    int rc;

    if (geteuid() == 0)
        return;
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    in_dir(p, sizeof p, "ro/keep.npy");
    write_bytes(p, old_bytes, sizeof old_bytes);
    ck_assert_int_eq(chmod(sub, 0500), 0);
    rc = npy_save(p, NPY_F32, 0, NULL, &x, &err);
    chmod(sub, 0700);
    ck_assert_int_eq(rc, -1);
    assert_message(&err, p, "Permission denied");
    assert_untouched(p);
}
END_TEST

/* The write itself fails half way (the file size limit stands in for a full
 * disk): the old file stays and the temporary one goes. */
START_TEST(test_save_write_fails)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "keep.npy");
    static uint8_t big[1 << 16];
    size_t shape[1] = {sizeof big};
    struct rlimit old, small;
    lab_error err = {{0}};
    int rc;

    write_bytes(path, old_bytes, sizeof old_bytes);
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    rc = npy_save(path, NPY_U8, 1, shape, big, &err);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    ck_assert_int_eq(rc, -1);
    assert_message(&err, path, "cannot write");
    assert_untouched(path);
    ck_assert_int_eq(dir_entries(), 1);
}
END_TEST

/* path names a directory: everything works up to the rename. */
START_TEST(test_save_over_directory)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "adir");
    const float x = 1;
    lab_error err = {{0}};

    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(npy_save(path, NPY_F32, 0, NULL, &x, &err), -1);
    assert_message(&err, path, "cannot rename");
    ck_assert_int_eq(dir_entries(), 1);
}
END_TEST

START_TEST(test_save_bad_arguments)
{
    char p[1024];
    const char *path = in_dir(p, sizeof p, "arg.npy");
    const float x[2] = {1, 2};
    size_t two[1] = {2}, huge[2] = {(size_t) 1 << 62, 8}, zero_huge[3] = {0, (size_t) 1 << 62, 8};
    lab_error err = {{0}};

    ck_assert_int_eq(npy_save(NULL, NPY_F32, 1, two, x, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "path is NULL"));
    ck_assert_int_eq(npy_save("", NPY_F32, 1, two, x, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "path is empty"));
    ck_assert_int_eq(npy_save(path, (npy_dtype) 4, 1, two, x, &err), -1);
    assert_message(&err, path, "unknown dtype 4");
    ck_assert_int_eq(npy_save(path, NPY_F32, 9, two, x, &err), -1);
    assert_message(&err, path, "ndim 9");
    ck_assert_int_eq(npy_save(path, NPY_F32, -1, two, x, &err), -1);
    assert_message(&err, path, "ndim -1");
    ck_assert_int_eq(npy_save(path, NPY_F32, 1, NULL, x, &err), -1);
    assert_message(&err, path, "shape is NULL");
    ck_assert_int_eq(npy_save(path, NPY_F32, 1, two, NULL, &err), -1);
    assert_message(&err, path, "data is NULL");
    ck_assert_int_eq(npy_save(path, NPY_F32, 2, huge, x, &err), -1);
    assert_message(&err, path, "overflows");
    ck_assert_int_eq(npy_save(path, NPY_F32, 3, zero_huge, x, &err), -1);
    assert_message(&err, path, "overflows");
    ck_assert_int_eq(npy_save(path, NPY_F32, 1, two, NULL, NULL), -1);
    ck_assert_int_eq(dir_entries(), 0);
    /* no values, no data needed */
    two[0] = 0;
    ck_assert_int_eq(npy_save(path, NPY_F32, 1, two, NULL, &err), 0);
}
END_TEST

/* ---- the runner ------------------------------------------------------------- */

#define COUNT(a) ((int) (sizeof(a) / sizeof((a)[0])))

static TCase *tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, setup, teardown);
    return tc;
}

static Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *tc;

    tc = tcase("dtypes");
    tcase_add_test(tc, test_dtype_names_and_sizes);
    suite_add_tcase(s, tc);

    tc = tcase("round trip");
    tcase_add_loop_test(tc, test_round_trip, 0, COUNT(round_trips));
    tcase_add_test(tc, test_round_trip_float_bits);
    tcase_add_test(tc, test_save_replaces_existing_file);
    suite_add_tcase(s, tc);

    tc = tcase("bytes written");
    tcase_add_test(tc, test_exact_bytes_f32_vector);
    tcase_add_test(tc, test_exact_bytes_u8_matrix);
    tcase_add_test(tc, test_exact_bytes_f64_scalar);
    tcase_add_test(tc, test_data_is_aligned);
    suite_add_tcase(s, tc);

    tc = tcase("reading");
    tcase_add_loop_test(tc, test_read_header_variants, 0, COUNT(good_headers));
    tcase_add_test(tc, test_read_version_2_and_3);
    tcase_add_test(tc, test_read_version_2_literal);
    tcase_add_test(tc, test_read_version_2_long_header);
    suite_add_tcase(s, tc);

    tc = tcase("refused files");
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_directory_is_not_a_file);
    tcase_add_test(tc, test_bad_magic);
    tcase_add_test(tc, test_truncated_prelude);
    tcase_add_test(tc, test_unsupported_version);
    tcase_add_test(tc, test_truncated_data);
    tcase_add_test(tc, test_trailing_garbage);
    tcase_add_loop_test(tc, test_bad_header, 0, COUNT(bad_headers));
    tcase_add_test(tc, test_nul_in_header);
    suite_add_tcase(s, tc);

    tc = tcase("expect");
    tcase_add_test(tc, test_expect_accepts);
    tcase_add_test(tc, test_expect_rejects);
    tcase_add_test(tc, test_expect_float64_vs_float32);
    tcase_add_test(tc, test_expect_bad_arguments);
    suite_add_tcase(s, tc);

    tc = tcase("save failures");
    tcase_add_test(tc, test_save_into_missing_directory);
    tcase_add_test(tc, test_save_cannot_create_temp);
    tcase_add_test(tc, test_save_into_read_only_directory);
    tcase_add_test(tc, test_save_write_fails);
    tcase_add_test(tc, test_save_over_directory);
    tcase_add_test(tc, test_save_bad_arguments);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    SRunner *sr;
    int failed;

    if (!base || !*base)
        base = "/tmp";
    snprintf(root, sizeof root, "%s/test_npy.XXXXXX", base);
    if (!mkdtemp(root)) {
        fprintf(stderr, "test_npy: cannot make a directory %s: %s\n", root, strerror(errno));
        return 1;
    }
    sr = srunner_create(npy_suite());
    srunner_run_all(sr, CK_ENV);  /* CK_VERBOSITY=verbose lists every test */
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    scratch_remove(root);
    return failed == 0 ? 0 : 1;
}
