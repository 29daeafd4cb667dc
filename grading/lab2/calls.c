/*
 * lab2/calls.c - lab2's call table (channel.h): the judge's proxies of
 * lab2.h's functions and, with GR_SUBJECT, the subject's side that runs
 * the submission's.
 *
 * One call's input does not fit the arena: grading/lab2/suite.c's check_no_room
 * passes lab2_tensor_stats an x of zeros (a read-only mapping of most of
 * what the judge has left) so that n more floats cannot be allocated. Its
 * proxy sends no copy of such an x, only n: the subject maps n zero floats
 * of its own, then takes what room it has left until no n floats can be had
 * in one piece, so that the test's premise holds where the function runs,
 * whatever the subject's limits (the lab's address-space limit, which the
 * judge sets on it: GRADER_SUBJECT_MEM_MIB).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "channel.h"
#include "lab2.h"

enum { MAGNITUDES = 1, PERCENTILE, TENSOR_STATS, TENSOR_SCALE, CAST_STATS, RECOMMEND };

/* lab2_tensor_stats's return value, and whether the subject could not map
 * the zeros of an x too large to copy. */
typedef struct stats_ret {
    int rc;
    int unmapped;
} stats_ret;

#ifdef GR_SUBJECT
#include <sys/mman.h>

#define MAX_HOLDS 512

/* lab2_tensor_stats on n zeros, where no n floats more can be allocated:
 * the room left is held, PROT_NONE, in pieces smaller than n floats. */
static stats_ret stats_without_room(size_t n, lab2_stats *s)
{
    stats_ret r = {0, 1};
    size_t need = n <= SIZE_MAX / sizeof(float) ? n * sizeof(float) : 0;
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    float *x = need ? mmap(NULL, need, PROT_READ, flags, -1, 0) : MAP_FAILED;
    if (x == MAP_FAILED)
        return r;
    struct {
        void *p;
        size_t bytes;
    } hold[MAX_HOLDS];
    int k = 0;
    for (size_t size = (size_t)1 << 48; k < MAX_HOLDS;) {
        void *p = mmap(NULL, size, PROT_NONE, flags, -1, 0);
        if (p != MAP_FAILED) {
            hold[k].p = p;
            hold[k++].bytes = size;
        } else if (size == need) {
            break;
        } else {
            size = size / 2 > need ? size / 2 : need;
        }
    }
    r.rc = lab2_tensor_stats(x, n, s);
    r.unmapped = 0;
    while (k-- > 0)
        munmap(hold[k].p, hold[k].bytes);
    munmap(x, need);
    return r;
}

int sj_dispatch(uint32_t fn, const uint64_t *a)
{
    switch (fn) {
    case MAGNITUDES:
        SJ_RETURN(size_t, lab2_magnitudes(sj_ptr(a[0]), a[1], sj_ptr(a[2])));
        return 0;
    case PERCENTILE:
        SJ_RETURN(float, lab2_percentile(sj_ptr(a[0]), a[1], (unsigned)a[2]));
        return 0;
    case TENSOR_STATS:
        if (a[3])
            SJ_RETURN(stats_ret, stats_without_room(a[1], sj_ptr(a[2])));
        else
            SJ_RETURN(stats_ret,
                      ((stats_ret){lab2_tensor_stats(sj_ptr(a[0]), a[1], sj_ptr(a[2])), 0}));
        return 0;
    case TENSOR_SCALE:
        SJ_RETURN(float, lab2_tensor_scale(sj_float(a[0]), (fp8_format)a[1]));
        return 0;
    case CAST_STATS:
        lab2_cast_stats(sj_ptr(a[0]), a[1], (fp8_format)a[2], sj_float(a[3]), sj_ptr(a[4]));
        return 0;
    case RECOMMEND:
        SJ_RETURN(lab2_choice, lab2_recommend(sj_ptr(a[0]), sj_ptr(a[1]), sj_ptr(a[2]),
                                              sj_ptr(a[3]), a[4]));
        return 0;
    }
    return -1;
}

#else
#include <check.h>

/* n floats, in bytes (more than the arena holds when that overflows). */
static size_t floats(size_t n) { return sj_size(n, sizeof(float)); }

/* An x larger than this is not copied (see the top of this file). */
#define COPY_MAX (SJ_ARENA_BYTES / 2)

size_t lab2_magnitudes(const float *x, size_t n, float *mag)
{
    sj_call c;
    sj_begin(&c, MAGNITUDES, "lab2_magnitudes");
    sj_in(&c, x, floats(n));
    sj_val(&c, n);
    sj_out(&c, mag, floats(n));
    sj_run(&c);
    return SJ_RESULT(size_t, &c);
}

float lab2_percentile(const float *mag, size_t m, unsigned per_mille)
{
    sj_call c;
    sj_begin(&c, PERCENTILE, "lab2_percentile");
    sj_in(&c, mag, floats(m));
    sj_val(&c, m);
    sj_val(&c, per_mille);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

/* Whether the n floats at x look all +0: every float where n is at most
 * 4096 * 4096, else 4096 floats at each of about 4096 places spread over x,
 * and its last 4096. A guard against a grader error (the suite's x too
 * large to copy is a fresh mapping of zeros), not a check of the
 * submission: reading all of x, most of the judge's address space, page by
 * page cost 1.6 s a grading. */
static bool all_zero(const float *x, size_t n)
{
    static const float zero[4096];
    const size_t k = sizeof zero / sizeof zero[0], places = 4096;
    size_t step = n / places > k ? n / places : k;
    for (size_t at = 0; at < n; at += step) {
        size_t len = n - at < k ? n - at : k;
        if (memcmp(x + at, zero, len * sizeof *x) != 0)
            return false;
    }
    size_t last = n < k ? n : k;
    return memcmp(x + (n - last), zero, last * sizeof *x) == 0;
}

int lab2_tensor_stats(const float *x, size_t n, lab2_stats *s)
{
    sj_call c;
    sj_begin(&c, TENSOR_STATS, "lab2_tensor_stats");
    bool big = x && floats(n) > COPY_MAX;
    if (big && !all_zero(x, n))
        ck_abort_msg("grader error: lab2_tensor_stats: x (n = %zu) is too large for the channel "
                     "and not all zeros", n);
    sj_in(&c, big ? NULL : x, floats(n));
    sj_val(&c, n);
    sj_out(&c, s, sizeof *s);
    sj_val(&c, big);
    sj_run(&c);
    stats_ret r = SJ_RESULT(stats_ret, &c);
    if (r.unmapped)
        ck_abort_msg("grader error: lab2_tensor_stats: the subject cannot map x (n = %zu)", n);
    return r.rc;
}

float lab2_tensor_scale(float amax, fp8_format fmt)
{
    sj_call c;
    sj_begin(&c, TENSOR_SCALE, "lab2_tensor_scale");
    sj_f32(&c, amax);
    sj_val(&c, (uint64_t)fmt);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

void lab2_cast_stats(const float *x, size_t n, fp8_format fmt, float scale, lab2_cast *out)
{
    sj_call c;
    sj_begin(&c, CAST_STATS, "lab2_cast_stats");
    sj_in(&c, x, floats(n));
    sj_val(&c, n);
    sj_val(&c, (uint64_t)fmt);
    sj_f32(&c, scale);
    sj_out(&c, out, sizeof *out);
    sj_run(&c);
}

lab2_choice lab2_recommend(const lab2_stats *t, const lab2_cast *e4m3, const lab2_cast *e5m2,
                           char *why, size_t size)
{
    sj_call c;
    sj_begin(&c, RECOMMEND, "lab2_recommend");
    sj_in(&c, t, sizeof *t);
    sj_in(&c, e4m3, sizeof *e4m3);
    sj_in(&c, e5m2, sizeof *e5m2);
    sj_out(&c, why, size);
    sj_val(&c, size);
    sj_run(&c);
    return SJ_RESULT(lab2_choice, &c);
}

#endif
