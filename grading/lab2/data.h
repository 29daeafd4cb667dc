/*
 * lab2/data.h - the tensors lab2 is graded on, and the layout of their
 * goldens: shared by the goldens maker (grading/lab2/goldens.c), the suite
 * (grading/lab2/suite.c) and the independent checks (tests/lab2, tests/oracle).
 *
 * Synthetic tensors (float32 [LAB2_SYN_N] unless said), made by
 * grading/lab2/goldens.c from the seed LAB2_SEED and saved as syn_<name>_x.npy:
 *   gauss_w         N(0, LAB2_GAUSS_SIGMA^2): a layer's initial weights
 *   relu_act        max(0, N(0, 1)), each element times LAB2_OUTLIER_GAIN
 *                   with probability LAB2_OUTLIER_P: ReLU activations with
 *                   outliers
 *   student_t_grad  LAB2_T_SCALE * Student-t with LAB2_T_NU degrees of
 *                   freedom: a heavy-tailed gradient
 *   lognormal       a random sign times exp(N(0, LAB2_LOGN_SIGMA^2))
 *   wide            a random sign times 2^u, u uniform in [LAB2_WIDE_LO, 0]:
 *                   wider than either format
 *   special         float32 [LAB2_SPECIAL_N]: NaNs, infinities, zeros of
 *                   both signs, float subnormals, ties of both formats
 *   nonfinite       float32 [8]: NaNs, infinities and zeros only
 * Real tensors: data/captures/capture_stepSSSSS_lL_K.npy for the steps
 * LAB2_REAL_STEPS, layers 1 and 2, and K in w, x, dy (data/captures/README.md
 * says where they come from); their goldens are named real_stepSSSSS_lL_K.
 *
 * For each tensor NAME, three goldens:
 *   NAME_stats.npy   float64 [LAB2_STATS_LEN]: lab2_tensor_stats's fields in
 *                    the order of LAB2_STATS_FIELDS (counts and floats
 *                    exactly as doubles)
 *   NAME_casts.npy   float64 [4, LAB2_CAST_COLS]: lab2_cast_stats, one row per
 *                    cast: E4M3 and E5M2 under lab2_tensor_scale(amax), then
 *                    E4M3 and E5M2 under a fixed scale (LAB2_FIXED_* below,
 *                    else 1); columns in the order of LAB2_CAST_FIELDS, the
 *                    format as 0 (E4M3) or 1 (E5M2)
 *   NAME_choice.npy  int32 [1]: lab2_recommend of rows 0 and 1
 */
#ifndef FP8LAB_LAB2_DATA_H
#define FP8LAB_LAB2_DATA_H

#define LAB2_SEED 2026
#define LAB2_SYN_N 65536
#define LAB2_SPECIAL_N 48

#define LAB2_GAUSS_SIGMA 0.02f
#define LAB2_OUTLIER_P 0.001
#define LAB2_OUTLIER_GAIN 64.0f
#define LAB2_T_NU 1
#define LAB2_T_SCALE 1e-5f
#define LAB2_LOGN_SIGMA 3.0f
#define LAB2_WIDE_LO (-44.0f)

/* gauss_w's fixed scales put 2.5 sigma at each format's largest value. */
#define LAB2_FIXED_GAUSS_E4M3 (448.0f / (2.5f * LAB2_GAUSS_SIGMA))
#define LAB2_FIXED_GAUSS_E5M2 (57344.0f / (2.5f * LAB2_GAUSS_SIGMA))

#define LAB2_SYNTHETIC_NAMES                                                              \
    "gauss_w", "relu_act", "student_t_grad", "lognormal", "wide", "special", "nonfinite"
#define LAB2_N_SYNTHETIC 7

#define LAB2_REAL_STEP_LIST 0, 7035, 14069
#define LAB2_N_REAL_STEPS 3
#define LAB2_REAL_KIND_NAMES "w", "x", "dy"
#define LAB2_N_REAL (LAB2_N_REAL_STEPS * 2 * 3)

#define LAB2_STATS_FIELDS                                                                 \
    "n", "nan", "inf", "zeros", "nonzero", "amax", "min_nonzero", "p_lo", "p_hi",         \
        "range_bits", "range_bits_pct", "outlier_ratio"
#define LAB2_STATS_LEN 12
#define LAB2_CAST_FIELDS "fmt", "scale", "saturated", "underflow", "mse", "sqnr_db"
#define LAB2_CAST_COLS 6

#endif
