#!/usr/bin/env python3
"""torch_model.py - the goldens of lab6's FP32 transformer, made by PyTorch:
the model written here again from its description in labs/lab6/model.h, in
float64, its gradients by autograd and its optimizer torch.optim.AdamW. The
C model (labs/lab6/model.c) is checked against them by
tests/lab6/test_model.c; nothing here comes from the C code.

The case: the vocabulary of 96 tokens, d_model 16, 2 layers, 4 query heads
sharing 2 KV heads of 4, d_ff 24, context 8, rope_theta 10000, norm_eps
1e-5; 2 sequences of 8 tokens. Its weights are drawn here (numpy, seed
20261128): every matrix normal(0, 0.3), every norm's gain 1 + normal(0,
0.2), larger than the model's own initialisation so that attention and the
norms are far from their starting points. Written to DIR (default
data/golden/lab6/model), all float32 but the tokens:

  params.npy    the weights, flat, in the model's order (model.h: wte; per
                layer attn_norm, w_qkv, w_o, mlp_norm, w_gu, w_down; norm_f,
                lm_head), each row-major out x in
  tokens.npy, targets.npy   uint8, 2 x 8
  logits.npy    16 x 96
  loss.npy      the mean cross-entropy, shape (1,)
  grads.npy     the loss's gradient, flat like params
  adamw2.npy    params after two torch.optim.AdamW steps (lr 0.01, betas
                (0.9, 0.95), eps 1e-8, weight decay 0.1 on the matrices
                only), each on grads.npy after torch.nn.utils.clip_grad_norm_
                to 1.0

    /usr/bin/python3 tests/lab6/torch_model.py [DIR]    (make torch-goldens)
"""
import math
import os
import sys

import numpy as np
import torch

V, D, L, H, KV, F, C = 96, 16, 2, 4, 2, 24, 8
HD = D // H
THETA, EPS = 10000.0, 1e-5
B, T = 2, 8


def shapes():
    out = [("wte", (V, D))]
    for l in range(L):
        out += [("layer%d.attn_norm" % l, (D,)), ("layer%d.w_qkv" % l, ((H + 2 * KV) * HD, D)),
                ("layer%d.w_o" % l, (D, D)), ("layer%d.mlp_norm" % l, (D,)),
                ("layer%d.w_gu" % l, (2 * F, D)), ("layer%d.w_down" % l, (D, F))]
    return out + [("norm_f", (D,)), ("lm_head", (V, D))]


def rmsnorm(x, g):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + EPS) * g


def rope(x):
    # x: B, heads, T, HD; the pair (i, i + HD/2) turns by t * THETA^(-2i/HD)
    half = HD // 2
    inv = torch.tensor([THETA ** (-2.0 * i / HD) for i in range(half)], dtype=torch.float64)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
    cos, sin = torch.cos(ang), torch.sin(ang)
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def forward(p, tokens, targets):
    x = p["wte"][tokens]  # B, T, D
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(L):
        w = lambda n: p["layer%d.%s" % (l, n)]
        h = rmsnorm(x, w("attn_norm"))
        qkv = h @ w("w_qkv").T
        q = qkv[..., :H * HD].reshape(B, T, H, HD).transpose(1, 2)
        k = qkv[..., H * HD:(H + KV) * HD].reshape(B, T, KV, HD).transpose(1, 2)
        v = qkv[..., (H + KV) * HD:].reshape(B, T, KV, HD).transpose(1, 2)
        q, k = rope(q), rope(k)
        k = k.repeat_interleave(H // KV, dim=1)  # query head i reads KV head i // (H / KV)
        v = v.repeat_interleave(H // KV, dim=1)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(HD)
        s = s.masked_fill(~mask, float("-inf"))
        a = torch.softmax(s, dim=-1) @ v
        a = a.transpose(1, 2).reshape(B, T, D)
        x = x + a @ w("w_o").T
        h = rmsnorm(x, w("mlp_norm"))
        gu = h @ w("w_gu").T
        g, u = gu[..., :F], gu[..., F:]
        x = x + (torch.nn.functional.silu(g) * u) @ w("w_down").T
    logits = rmsnorm(x, p["norm_f"]) @ p["lm_head"].T
    loss = torch.nn.functional.cross_entropy(logits.reshape(B * T, V), targets.reshape(B * T))
    return logits.reshape(B * T, V), loss


def main(out):
    rng = np.random.default_rng(20261128)
    p = {}
    for name, shape in shapes():
        if len(shape) == 1:
            val = 1.0 + 0.2 * rng.standard_normal(shape)
        else:
            val = 0.3 * rng.standard_normal(shape)
        # the C model reads float32 weights: start from exactly those
        p[name] = torch.tensor(val.astype(np.float32), dtype=torch.float64, requires_grad=True)
    tokens = rng.integers(0, V, size=(B, T)).astype(np.uint8)
    targets = rng.integers(0, V, size=(B, T)).astype(np.uint8)
    logits, loss = forward(p, torch.tensor(tokens.astype(np.int64)),
                           torch.tensor(targets.astype(np.int64)))
    loss.backward()
    flat = lambda d: np.concatenate([d[n].detach().numpy().ravel() for n, _ in shapes()])
    grads = np.concatenate([p[n].grad.numpy().ravel() for n, _ in shapes()])
    params0 = flat(p)

    decay = [p[n] for n, s in shapes() if len(s) == 2]
    nodecay = [p[n] for n, s in shapes() if len(s) == 1]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": nodecay, "weight_decay": 0.0}],
                            lr=0.01, betas=(0.9, 0.95), eps=1e-8)
    g0 = {n: p[n].grad.clone() for n, _ in shapes()}
    for _ in range(2):
        for n, _ in shapes():
            p[n].grad = g0[n].clone()
        torch.nn.utils.clip_grad_norm_([p[n] for n, _ in shapes()], 1.0)
        opt.step()
    adamw2 = flat(p)

    os.makedirs(out, exist_ok=True)
    save = lambda name, a: np.save(os.path.join(out, name), a)
    save("params.npy", params0.astype(np.float32))
    save("tokens.npy", tokens)
    save("targets.npy", targets)
    save("logits.npy", logits.detach().numpy().astype(np.float32))
    save("loss.npy", np.array([loss.item()], dtype=np.float32))
    save("grads.npy", grads.astype(np.float32))
    save("adamw2.npy", adamw2.astype(np.float32))
    print("torch_model: %s: loss %.6f, |grad| %.4f, %d parameters (torch %s)"
          % (out, loss.item(), float(np.linalg.norm(grads)), params0.size, torch.__version__))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/golden/lab6/model")
