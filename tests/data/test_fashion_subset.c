/*
 * test_fashion_subset.c - data/fashion-mnist, the subset the course ships:
 * the shapes its README gives, labels 0..9 with every class present, and,
 * where Debian's full set is installed, that each file holds exactly the
 * first records of the full set's (the provenance the README states).
 *
 *   build/tests/data/test_fashion_subset [SUBSET_DIR [FULL_DIR]]
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "idx.h"

static const char *subset = "data/fashion-mnist";
static const char *full = "/usr/share/datasets/fashion-mnist";

static const struct {
    const char *name;
    int ndim;
    size_t shape[3];
} files[] = {
    {"train-images-idx3-ubyte.gz", 3, {4000, 28, 28}},
    {"train-labels-idx1-ubyte.gz", 1, {4000}},
    {"t10k-images-idx3-ubyte.gz", 3, {1000, 28, 28}},
    {"t10k-labels-idx1-ubyte.gz", 1, {1000}},
};

static void load(const char *dir, int k, const size_t *shape, idx_array *a)
{
    char path[512];
    lab_error err;
    snprintf(path, sizeof path, "%s/%s", dir, files[k].name);
    ck_assert_msg(idx_load_expect(path, files[k].ndim, shape, a, &err) == 0, "%s", err.msg);
}

START_TEST(shapes_and_labels)
{
    idx_array a;
    load(subset, _i, files[_i].shape, &a);
    if (files[_i].ndim == 1) {
        size_t per_class[10] = {0};
        for (size_t i = 0; i < a.count; i++) {
            ck_assert_msg(a.data[i] < 10, "%s: label %zu is %u", files[_i].name, i, a.data[i]);
            per_class[a.data[i]]++;
        }
        for (int c = 0; c < 10; c++)
            ck_assert_msg(per_class[c] >= a.count / 20, "%s: class %d has only %zu images",
                          files[_i].name, c, per_class[c]);
    }
    idx_free(&a);
}
END_TEST

START_TEST(first_records_of_the_full_set)
{
    idx_array a, b;
    load(subset, _i, files[_i].shape, &a);
    load(full, _i, NULL, &b);
    ck_assert_uint_ge(b.count, a.count);
    ck_assert_msg(memcmp(a.data, b.data, a.count) == 0, "%s differs from the full set's start",
                  files[_i].name);
    idx_free(&a);
    idx_free(&b);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1)
        subset = argv[1];
    if (argc > 2)
        full = argv[2];
    char probe[512];
    snprintf(probe, sizeof probe, "%s/%s", full, files[0].name);
    int have_full = access(probe, R_OK) == 0;

    Suite *s = suite_create("fashion-mnist subset");
    TCase *tc = tcase_create("subset");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, shapes_and_labels, 0, 4);
    if (have_full)
        tcase_add_loop_test(tc, first_records_of_the_full_set, 0, 4);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (!have_full)
        printf("note: %s not found, so the subset was not compared with the full set\n", probe);
    return failed == 0 ? 0 : 1;
}
