#!/usr/bin/env python3
"""numpy_finegrained.py - goldens of lab6's fine-grained quantizer and its
GEMM (labs/lab6/lab6.h: lab6_quantize_tiles, lab6_quantize_blocks,
lab6_gemm_tiles), computed here in NumPy from the header's words alone:
its own E4M3 encoder (round half to even with np.round on the exact
float64 quotient by the grid's step, saturating at 448), the scales in
float32, and the GEMM's float32 sums in the header's order. The C solution
is checked against them by tests/lab6/test_exercises.c.

The case (numpy seed 6): x is 3 x 300 (three tiles a row, the last 44
long), w is 130 x 300 (blocks 2 x 3, the last row of blocks 2 high); rows of
x span magnitudes 2^-20 to 2^6 by tile, one of x's tiles is all zeros, one
row of w has an outlier 1000 times its neighbours.

    /usr/bin/python3 tests/lab6/numpy_finegrained.py [DIR]    (make numpy-goldens)
"""
import os
import sys

import numpy as np

TILE = 128
F32 = np.float32


def e4m3_code(v):
    """E4M3 code of the float32 v, saturating, round to nearest even."""
    v = float(v)
    if v != v:
        return 0x7F
    sign = 0x80 if np.signbit(v) else 0
    a = abs(v)
    if a >= 448.0:
        return sign | 0x7E
    if a < 2.0 ** -6:
        q = int(np.round(a / 2.0 ** -9))  # 0..8; 8 is the smallest normal, code 0x08
        return sign | q
    m, e = np.frexp(a)  # a = m * 2^e, m in [0.5, 1)
    e -= 1
    q = int(np.round(a / 2.0 ** (e - 3)))  # 8..16
    if q == 16:
        q, e = 8, e + 1
    if e > 8:
        return sign | 0x7E
    return sign | ((e + 7) << 3) | (q - 8)


def e4m3_value(code):
    sign = -1.0 if code & 0x80 else 1.0
    e, m = (code >> 3) & 0xF, code & 7
    if e == 0xF and m == 7:
        return float("nan")
    if e == 0:
        return sign * m * 2.0 ** -9
    return sign * (1 + m / 8.0) * 2.0 ** (e - 7)


def scale_of(amax):
    amax = F32(amax)
    if not (amax > 0) or np.isinf(amax):
        return F32(1.0)
    with np.errstate(over="ignore"):
        s = F32(F32(448.0) / amax)
    return np.finfo(np.float32).max if np.isinf(s) else s


def quantize(x, group_rows, group_cols):
    rows, cols = x.shape
    codes = np.zeros(x.shape, dtype=np.uint8)
    nr, nc = -(-rows // group_rows), -(-cols // group_cols)
    inv = np.zeros((nr, nc), dtype=np.float32)
    for i in range(nr):
        for j in range(nc):
            g = x[i * group_rows:(i + 1) * group_rows, j * group_cols:(j + 1) * group_cols]
            a = np.abs(g)
            s = scale_of(np.max(a[~np.isnan(a)]) if np.any(~np.isnan(a)) else 0)
            for (r, c), v in np.ndenumerate(g):
                codes[i * group_rows + r, j * group_cols + c] = e4m3_code(F32(v * s))
            inv[i, j] = F32(F32(1.0) / s)
    return codes, inv


def gemm(xc, xs, wc, ws):
    M, K = xc.shape
    N = wc.shape[0]
    dec = np.array([e4m3_value(c) for c in range(256)], dtype=np.float32)
    y = np.zeros((M, N), dtype=np.float32)
    nt = -(-K // TILE)
    for m in range(M):
        for n in range(N):
            acc = F32(0)
            for t in range(nt):
                part = F32(0)
                for k in range(t * TILE, min(K, (t + 1) * TILE)):
                    part = F32(part + F32(dec[xc[m, k]] * dec[wc[n, k]]))
                acc = F32(acc + F32(part * F32(xs[m, t] * ws[n // TILE, t])))
            y[m, n] = acc
    return y


def main(out):
    rng = np.random.default_rng(6)
    M, N, K = 3, 130, 300
    x = rng.standard_normal((M, K)).astype(np.float32)
    for r in range(M):
        for t in range(3):
            x[r, t * TILE:(t + 1) * TILE] *= F32(2.0 ** rng.integers(-20, 7))
    x[1, TILE:2 * TILE] = 0.0
    w = (0.05 * rng.standard_normal((N, K))).astype(np.float32)
    w[7, 11] = 50.0
    xc, xs = quantize(x, 1, TILE)
    wc, ws = quantize(w, TILE, TILE)
    y = gemm(xc, xs, wc, ws)
    os.makedirs(out, exist_ok=True)
    for name, a in (("x", x), ("w", w), ("x_codes", xc), ("x_scale_inv", xs), ("w_codes", wc),
                    ("w_scale_inv", ws), ("y", y)):
        np.save(os.path.join(out, name + ".npy"), a)
    print("numpy_finegrained: %s: x %s, w %s, y[0][0] %r (numpy %s)"
          % (out, x.shape, w.shape, float(y[0, 0]), np.__version__))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/golden/lab6/finegrained")
