/*
 * lab1/goldens.c - makes lab1's goldens from the reference solution
 * (`make goldens` links it with solutions/lab1/lab1.c):
 *
 *     lab1_goldens OUTDIR
 *
 * The stream (labs/lab1/stream.h), T = 300 steps of N = 256 elements, two
 * tensors (row 0 the activation, row 1 the gradient):
 *   stream_base.npy        float32 [2, N]   the fixed patterns
 *   stream_magnitude.npy   float32 [2, T]   the magnitude of each step
 *   stream_amax.npy        float32 [2, T]   lab1_amax of each step's tensor
 * The grader rebuilds step t's tensor as magnitude[t] * base[i], one float
 * multiplication, so it never depends on libm.
 *
 * Delayed scaling, one run per strategy below from lab1_delayed_init, each
 * step a lab1_delayed_cast and a lab1_delayed_update:
 *   <tag>_history.npy      float32 [T+1, L]  the history BEFORE step t
 *                                            (row T: after the last update)
 *   <tag>_scale.npy        float32 [T+1, 2]  scale, scale_inv before step t
 *   <tag>_q.npy            uint8   [T, N]    the cast's bytes (tags with q)
 *   <tag>_counts.npy       int32   [T, 2]    saturated, flushed (same tags)
 * Current scaling of each step's amax, epsilon 0:
 *   current_scale.npy      float32 [2, T, 2] pow2 off (column 0) and on
 * The moving average, momentum 0.9, margin 0:
 *   ema_<tensor>_scale.npy float32 [T+1, 2]  scale, scale_inv before step t
 *
 * The expected outputs are the solution's alone; tests/lab1/ checks them
 * against hand-worked cases, the closed form of the amax sequence and of
 * the scales, and NVIDIA's cuda_fp8.h for every cast byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_io.h"
#include "lab1.h"
#include "stream.h"

#define T LAB1_STREAM_STEPS
#define N 256

/* The delayed-scaling runs the grader replays. */
static const struct {
    const char *tag;
    lab1_stream_tensor tensor;
    lab1_amax_algo algo;
    int history_len, margin, with_q;
} runs[] = {
    {"act_max16", LAB1_STREAM_ACTIVATION, LAB1_AMAX_MAX, 16, 0, 1},
    {"act_recent4", LAB1_STREAM_ACTIVATION, LAB1_AMAX_MOST_RECENT, 4, 0, 0},
    {"act_max8_m2", LAB1_STREAM_ACTIVATION, LAB1_AMAX_MAX, 8, 2, 0},
    {"grad_max16", LAB1_STREAM_GRADIENT, LAB1_AMAX_MAX, 16, 0, 1},
};

static float base[2][N], magnitude[2][T], amax[2][T];

static lab1_tensor kind_of(lab1_stream_tensor which)
{
    return which == LAB1_STREAM_GRADIENT ? LAB1_GRADIENT : LAB1_ACTIVATION;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "lab1_goldens: out of memory\n");
        exit(1);
    }
    return p;
}

static int save_run(const char *dir, int r)
{
    int L = runs[r].history_len, w = runs[r].tensor;
    float *hist = xcalloc((size_t)(T + 1) * (size_t)L, sizeof *hist);
    float *scale = xcalloc(2 * (T + 1), sizeof *scale);
    uint8_t *q = xcalloc((size_t)T * N, 1);
    int32_t *counts = xcalloc(2 * T, sizeof *counts);
    lab1_delayed *s = xcalloc(1, sizeof *s);
    float x[N];
    char name[128];
    int rc = -1;

    lab1_delayed_init(s, kind_of(runs[r].tensor), runs[r].algo, L, runs[r].margin);
    for (int t = 0; t <= T; t++) {
        memcpy(hist + (size_t)t * (size_t)L, s->history, (size_t)L * sizeof(float));
        scale[2 * t] = s->scale;
        scale[2 * t + 1] = s->scale_inv;
        if (t == T)
            break;
        lab1_stream_tensor_at(base[w], N, magnitude[w][t], x);
        lab1_cast_counts c = lab1_delayed_cast(s, x, N, q + (size_t)t * N);
        counts[2 * t] = (int32_t)c.saturated;
        counts[2 * t + 1] = (int32_t)c.flushed;
        lab1_delayed_update(s);
    }

    size_t hshape[2] = {T + 1, (size_t)L}, sshape[2] = {T + 1, 2};
    size_t qshape[2] = {T, N}, cshape[2] = {T, 2};
    snprintf(name, sizeof name, "%s_history.npy", runs[r].tag);
    if (golden_save(dir, name, NPY_F32, 2, hshape, hist) != 0)
        goto out;
    snprintf(name, sizeof name, "%s_scale.npy", runs[r].tag);
    if (golden_save(dir, name, NPY_F32, 2, sshape, scale) != 0)
        goto out;
    if (runs[r].with_q) {
        snprintf(name, sizeof name, "%s_q.npy", runs[r].tag);
        if (golden_save(dir, name, NPY_U8, 2, qshape, q) != 0)
            goto out;
        snprintf(name, sizeof name, "%s_counts.npy", runs[r].tag);
        if (golden_save(dir, name, NPY_I32, 2, cshape, counts) != 0)
            goto out;
    }
    rc = 0;
out:
    free(hist);
    free(scale);
    free(q);
    free(counts);
    free(s);
    return rc;
}

static int save_ema(const char *dir, lab1_stream_tensor w, const char *name)
{
    float scale[2 * (T + 1)];
    lab1_ema s;
    lab1_ema_init(&s, kind_of(w), 0.9f, 0);
    for (int t = 0; t <= T; t++) {
        scale[2 * t] = s.scale;
        scale[2 * t + 1] = s.scale_inv;
        if (t < T)
            lab1_ema_update(&s, amax[w][t]);
    }
    size_t shape[2] = {T + 1, 2};
    return golden_save(dir, name, NPY_F32, 2, shape, scale);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    static float current[2][T][2];
    float x[N];

    for (int w = 0; w < 2; w++) {
        lab1_stream_base((lab1_stream_tensor)w, base[w], N);
        fp8_format fmt = lab1_format_for(kind_of((lab1_stream_tensor)w));
        for (int t = 0; t < T; t++) {
            magnitude[w][t] = lab1_stream_magnitude((lab1_stream_tensor)w, t);
            lab1_stream_tensor_at(base[w], N, magnitude[w][t], x);
            amax[w][t] = lab1_amax(x, N);
            current[w][t][0] = lab1_current_scale(amax[w][t], fmt, 0.0f, 0);
            current[w][t][1] = lab1_current_scale(amax[w][t], fmt, 0.0f, 1);
        }
    }

    printf("lab1 goldens in %s:\n", dir);
    size_t bshape[2] = {2, N}, mshape[2] = {2, T}, cshape[3] = {2, T, 2};
    if (golden_save(dir, "stream_base.npy", NPY_F32, 2, bshape, base) != 0 ||
        golden_save(dir, "stream_magnitude.npy", NPY_F32, 2, mshape, magnitude) != 0 ||
        golden_save(dir, "stream_amax.npy", NPY_F32, 2, mshape, amax) != 0 ||
        golden_save(dir, "current_scale.npy", NPY_F32, 3, cshape, current) != 0)
        return 1;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
        if (save_run(dir, (int)r) != 0)
            return 1;
    if (save_ema(dir, LAB1_STREAM_ACTIVATION, "ema_act_scale.npy") != 0 ||
        save_ema(dir, LAB1_STREAM_GRADIENT, "ema_grad_scale.npy") != 0)
        return 1;
    return 0;
}
