/*
 * model.h - lab3's given parts: setting a model up, evaluating it, and
 * loading Fashion-MNIST. Not graded, and not yours to write: the demo and
 * the course's tools use them around your lab3.c.
 */
#ifndef LAB3_MODEL_H
#define LAB3_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "lab3.h"
#include "rng.h"

/* Allocates a layer for up to max_batch rows; weights uniform in
 * [-1/sqrt(in), 1/sqrt(in)] (nn.Linear's default) drawn from rng; biases,
 * gradients and momentum zero; the three scalers fresh: history 16, algo
 * max, margin 0; E4M3 for sx and sw, E5M2 for sdy. Returns 0, or -1 when
 * out of memory (nothing left allocated). */
int lab3_linear_init(lab3_linear *L, size_t in, size_t out, size_t max_batch, rng_state *rng);
void lab3_linear_free(lab3_linear *L);

/* The MLP, with lr and momentum, and PyTorch's GradScaler defaults (scale
 * 65536, growth 2, backoff 0.5, interval 2000). */
int lab3_mlp_init(lab3_mlp *m, lab3_mode mode, size_t hidden, size_t max_batch, float lr,
                  float momentum, rng_state *rng);
void lab3_mlp_free(lab3_mlp *m);

/* The fraction of the n rows of x classified right (argmax of the logits),
 * forward in batches of m->max_batch; the scalers are left as they were. */
double lab3_evaluate(lab3_mlp *m, const float *x, const uint8_t *labels, size_t n);

/* One split of Fashion-MNIST: n images as floats in [0, 1] (pixel / 255),
 * n x LAB3_INPUTS, and their labels. */
typedef struct lab3_data {
    size_t n;
    float *x;
    uint8_t *y;
} lab3_data;

/* Reads DIR/<split>-images-idx3-ubyte.gz and DIR/<split>-labels-idx1-ubyte.gz
 * (split "train" or "t10k"). Returns 0, or -1 with err naming the file and
 * what is wrong (missing, corrupt, wrong shape, labels that disagree). */
int lab3_data_load(const char *dir, const char *split, lab3_data *d, lab_error *err);
void lab3_data_free(lab3_data *d);

#endif
