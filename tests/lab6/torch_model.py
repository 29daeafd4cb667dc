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

THETA, EPS = 10000.0, 1e-5


class Cfg:
    """A model's sizes (model.h's gpt_config) and its batch."""
    def __init__(self, V, D, L, H, KV, F, B, T, dtype):
        self.V, self.D, self.L, self.H, self.KV, self.F = V, D, L, H, KV, F
        self.HD, self.B, self.T, self.dtype = D // H, B, T, dtype


GOLDEN = Cfg(96, 16, 2, 4, 2, 24, 2, 8, torch.float64)
# model.h's default, and lab6_step's batch
DEFAULT = Cfg(96, 128, 2, 4, 2, 384, 16, 128, torch.float32)


def shapes(c):
    V, D, L, H, KV, F, HD = c.V, c.D, c.L, c.H, c.KV, c.F, c.HD
    out = [("wte", (V, D))]
    for l in range(L):
        out += [("layer%d.attn_norm" % l, (D,)), ("layer%d.w_qkv" % l, ((H + 2 * KV) * HD, D)),
                ("layer%d.w_o" % l, (D, D)), ("layer%d.mlp_norm" % l, (D,)),
                ("layer%d.w_gu" % l, (2 * F, D)), ("layer%d.w_down" % l, (D, F))]
    return out + [("norm_f", (D,)), ("lm_head", (V, D))]


def rmsnorm(x, g):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + EPS) * g


def rope_tables(c):
    half = c.HD // 2
    inv = torch.tensor([THETA ** (-2.0 * i / c.HD) for i in range(half)], dtype=torch.float64)
    ang = torch.arange(c.T, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cos(ang).to(c.dtype), torch.sin(ang).to(c.dtype)


def rope(x, cos, sin):
    # x: B, heads, T, HD; the pair (i, i + HD/2) turns by t * THETA^(-2i/HD)
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def forward(c, p, tokens, targets, tables):
    V, D, L, H, KV, F, HD, B, T = c.V, c.D, c.L, c.H, c.KV, c.F, c.HD, c.B, c.T
    cos, sin = tables
    x = p["wte"][tokens]  # B, T, D
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(L):
        w = lambda n: p["layer%d.%s" % (l, n)]
        h = rmsnorm(x, w("attn_norm"))
        qkv = h @ w("w_qkv").T
        q = qkv[..., :H * HD].reshape(B, T, H, HD).transpose(1, 2)
        k = qkv[..., H * HD:(H + KV) * HD].reshape(B, T, KV, HD).transpose(1, 2)
        v = qkv[..., (H + KV) * HD:].reshape(B, T, KV, HD).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
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
    c = GOLDEN
    B, T, V = c.B, c.T, c.V
    rng = np.random.default_rng(20261128)
    p = {}
    for name, shape in shapes(c):
        if len(shape) == 1:
            val = 1.0 + 0.2 * rng.standard_normal(shape)
        else:
            val = 0.3 * rng.standard_normal(shape)
        # the C model reads float32 weights: start from exactly those
        p[name] = torch.tensor(val.astype(np.float32), dtype=torch.float64, requires_grad=True)
    tokens = rng.integers(0, V, size=(B, T)).astype(np.uint8)
    targets = rng.integers(0, V, size=(B, T)).astype(np.uint8)
    logits, loss = forward(c, p, torch.tensor(tokens.astype(np.int64)),
                           torch.tensor(targets.astype(np.int64)), rope_tables(c))
    loss.backward()
    flat = lambda d: np.concatenate([d[n].detach().numpy().ravel() for n, _ in shapes(c)])
    grads = np.concatenate([p[n].grad.numpy().ravel() for n, _ in shapes(c)])
    params0 = flat(p)

    decay = [p[n] for n, s in shapes(c) if len(s) == 2]
    nodecay = [p[n] for n, s in shapes(c) if len(s) == 1]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": nodecay, "weight_decay": 0.0}],
                            lr=0.01, betas=(0.9, 0.95), eps=1e-8)
    g0 = {n: p[n].grad.clone() for n, _ in shapes(c)}
    for _ in range(2):
        for n, _ in shapes(c):
            p[n].grad = g0[n].clone()
        torch.nn.utils.clip_grad_norm_([p[n] for n, _ in shapes(c)], 1.0)
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


def bench(text_path, steps, warmup, threads):
    """lab6_step.c's experiment in PyTorch: the default model in float32,
    nn.Linear's layout, 16 windows of 128 tokens from the training split
    (the first 90% of the text), AdamW (lr 3e-3, betas (0.9, 0.95), eps
    1e-8, weight decay 0.1 on the matrices) after clip_grad_norm_ to 1.0. A
    step: the batch's gathering, zero_grad, forward, backward, clipping
    and the optimizer's step. Prints "step I seconds S loss L", then
    "threads N"."""
    import time
    torch.set_num_threads(threads)
    c = DEFAULT
    raw = open(text_path, "rb").read()
    toks = torch.tensor([0 if b == 10 else b - 31 for b in raw], dtype=torch.int64)
    n_train = len(raw) // 10 * 9 + (len(raw) % 10) * 9 // 10
    gen = torch.Generator().manual_seed(1)
    p = {}
    for name, shape in shapes(c):
        val = torch.ones(shape) if len(shape) == 1 else 0.02 * torch.randn(shape, generator=gen)
        p[name] = val.to(c.dtype).requires_grad_(True)
    decay = [p[n] for n, s in shapes(c) if len(s) == 2]
    nodecay = [p[n] for n, s in shapes(c) if len(s) == 1]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": nodecay, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
    tables = rope_tables(c)
    for i in range(-warmup, steps):
        t0 = time.perf_counter()
        off = torch.randint(0, n_train - c.T, (c.B,), generator=gen)
        idx = off[:, None] + torch.arange(c.T + 1)[None, :]
        win = toks[idx]
        opt.zero_grad(set_to_none=True)
        _, loss = forward(c, p, win[:, :-1], win[:, 1:], tables)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(p.values()), 1.0)
        opt.step()
        dt = time.perf_counter() - t0
        if i >= 0:
            print("step %d seconds %.6f loss %.4f" % (i, dt, loss.item()), flush=True)
    print("threads %d" % torch.get_num_threads())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--bench":
        a = sys.argv[2:]
        bench(a[0], int(a[1]) if len(a) > 1 else 20, int(a[2]) if len(a) > 2 else 3,
              int(a[3]) if len(a) > 3 else 1)
        sys.exit(0)
    main(sys.argv[1] if len(sys.argv) > 1 else "data/golden/lab6/model")
