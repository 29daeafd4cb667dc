/*
 * lab6_step.c - times lab6's FP32 training step (labs/lab6/model.c) as
 * tests/bench/bench_lab6.sh compares it with PyTorch's
 * (tests/lab6/torch_model.py --bench): the default model (model.h), batches
 * of 16 windows of 128 tokens drawn from the text's training split, AdamW
 * with clipping. A step is the batch's gathering, forward, backward and the
 * optimizer's step. Prints "step I seconds S loss L" for each of STEPS
 * steps after WARMUP untimed ones. The thread count is OpenBLAS's
 * (OPENBLAS_NUM_THREADS). With RECIPE (recipes.h: fp8-delayed, mxfp8, ...)
 * the step is that recipe's, with the reference solution's lab6.c.
 *
 *   lab6_step TEXT [STEPS [WARMUP [RECIPE]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"
#include "recipes.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: lab6_step TEXT [STEPS [WARMUP [RECIPE]]]\n");
        return 2;
    }
    int kind = argc > 4 ? recipe_from_name(argv[4]) : RECIPE_FP32;
    if (kind < 0) {
        fprintf(stderr, "lab6_step: no recipe named '%s'\n", argv[4]);
        return 2;
    }
    int steps = argc > 2 ? atoi(argv[2]) : 20, warmup = argc > 3 ? atoi(argv[3]) : 3;
    enum { BATCH = 16, SEQ = 128 };
    lab_error err;
    gpt_text text;
    if (gpt_text_load(argv[1], &text, &err)) {
        fprintf(stderr, "lab6_step: %s\n", err.msg);
        return 2;
    }
    gpt_config cfg = gpt_config_default();
    rng_state rng, data;
    rng_seed(&rng, 1, 1);
    rng_seed(&data, 2, 2);
    gpt_model m;
    gpt_adamw opt;
    if (gpt_init(&m, &cfg, BATCH * SEQ, &rng, &err) || gpt_adamw_init(&opt, &m, 3e-3f)) {
        fprintf(stderr, "lab6_step: %s\n", err.msg);
        return 2;
    }
    lab6_recipe r;
    bool own = kind != RECIPE_FP32;
    if (own) {
        if (recipe_init(&r, (lab6_recipe_kind)kind, false, &m, 1)) {
            fprintf(stderr, "lab6_step: out of memory\n");
            return 2;
        }
        m.gemms = recipe_gemms(&r);
    }
    static uint8_t x[BATCH * SEQ], y[BATCH * SEQ];
    for (int i = -warmup; i < steps; i++) {
        double t0 = now();
        gpt_text_batch(&text, 0, BATCH, SEQ, &data, x, y);
        float loss = gpt_forward(&m, x, y, BATCH, SEQ);
        gpt_backward(&m);
        if (own)
            recipe_step(&r, &opt, &m);
        else
            gpt_adamw_step(&opt, &m);
        double dt = now() - t0;
        if (i >= 0)
            printf("step %d seconds %.6f loss %.4f\n", i, dt, (double)loss);
    }
    printf("params %zu\n", m.n_params);
    if (own)
        recipe_free(&r);
    gpt_adamw_free(&opt);
    gpt_free(&m);
    gpt_text_free(&text);
    return 0;
}
