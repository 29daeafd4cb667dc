#!/usr/bin/env python3
"""peer_torch.py - lab3's FP32 training step in PyTorch, timed per epoch, as
the peer the course's own loop is measured against (tests/bench/bench_lab3.sh).

The same experiment as lab3's demo in FP32 (labs/lab3/main.c):
  - the model: Linear(784, 256), ReLU, Linear(256, 10); weights drawn as
    nn.Linear draws them (uniform in +-1/sqrt(in)), biases 0 as lab3's are;
  - the loss: softmax cross-entropy, the mean over the batch;
  - the optimizer: torch.optim.SGD, lr 0.05 times 0.85 after each epoch,
    momentum 0.9, no dampening, no weight decay;
  - the data: Fashion-MNIST's 60000 training images as float32 pixel / 255,
    a fresh random order each epoch, batches of 64 (the last one 32).

What an epoch's time includes, as the demo's does: the wall clock over the
epoch's steps, each one gathering its batch (x[idx], y[idx]), zero_grad,
forward, loss, backward and the optimizer's step. Not included: loading
the data, the shuffle, and the test-set evaluation after each epoch. What
PyTorch does not do that lab3's FP32 step does: the loss scaling (the
gradient times the loss scale, then unscaled with a check for inf and NaN)
and the copies of x and W that lab3_linear_forward keeps for backward.

Prints one line per epoch, "epoch E seconds S loss L acc A", then
"threads T" (what torch.get_num_threads says after setting it). Exit 0; 2
when the data cannot be read; 3 when torch cannot be imported (the
message says why).

    python3 tests/bench/peer_torch.py --data DIR --epochs 5 --threads 1
"""
import argparse
import gzip
import struct
import sys
import time


def read_idx(path, ndim):
    """The array of an IDX file (gzip), as a flat bytes object and its shape."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack(">I", data[:4])[0]
    if magic != 0x0800 + ndim:
        raise ValueError("%s: magic 0x%08x, not an IDX file of %d dimensions" % (path, magic, ndim))
    shape = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    body = data[4 + 4 * ndim:]
    count = 1
    for s in shape:
        count *= s
    if len(body) != count:
        raise ValueError("%s: %d bytes of data for shape %s" % (path, len(body), shape))
    return body, shape


def main():
    ap = argparse.ArgumentParser(description="lab3's FP32 MLP in PyTorch, seconds per epoch")
    ap.add_argument("--data", required=True, help="the Fashion-MNIST IDX files (.gz)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0,
                    help="torch.set_num_threads(N); 0 leaves PyTorch's default")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--lr-decay", type=float, default=0.85)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    try:
        import torch
    except Exception as e:  # ImportError, or a broken install
        print("peer_torch: cannot import torch: %s" % e, file=sys.stderr)
        return 3
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    try:
        xs, xshape = read_idx(args.data + "/train-images-idx3-ubyte.gz", 3)
        ys, _ = read_idx(args.data + "/train-labels-idx1-ubyte.gz", 1)
        txs, txshape = read_idx(args.data + "/t10k-images-idx3-ubyte.gz", 3)
        tys, _ = read_idx(args.data + "/t10k-labels-idx1-ubyte.gz", 1)
    except (OSError, ValueError) as e:
        print("peer_torch: %s" % e, file=sys.stderr)
        return 2
    inputs = xshape[1] * xshape[2]
    x = torch.frombuffer(bytearray(xs), dtype=torch.uint8).reshape(-1, inputs).float() / 255.0
    y = torch.frombuffer(bytearray(ys), dtype=torch.uint8).long()
    tx = torch.frombuffer(bytearray(txs), dtype=torch.uint8).reshape(-1, inputs).float() / 255.0
    ty = torch.frombuffer(bytearray(tys), dtype=torch.uint8).long()

    model = torch.nn.Sequential(torch.nn.Linear(inputs, args.hidden), torch.nn.ReLU(),
                                torch.nn.Linear(args.hidden, 10))
    with torch.no_grad():
        for layer in (model[0], model[2]):
            layer.bias.zero_()
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    n = x.shape[0]

    for epoch in range(args.epochs):
        order = torch.randperm(n)
        loss_sum, steps = 0.0, 0
        model.train()
        t0 = time.perf_counter()
        for first in range(0, n, args.batch):
            idx = order[first:first + args.batch]
            xb, yb = x[idx], y[idx]
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            loss_sum += loss.item()
            steps += 1
        seconds = time.perf_counter() - t0
        for group in opt.param_groups:
            group["lr"] *= args.lr_decay
        model.eval()
        with torch.no_grad():
            acc = (model(tx).argmax(1) == ty).float().mean().item()
        print("epoch %d seconds %.4f loss %.4f acc %.2f" % (epoch + 1, seconds, loss_sum / steps,
                                                           100.0 * acc), flush=True)
    print("threads %d" % torch.get_num_threads())
    return 0


if __name__ == "__main__":
    sys.exit(main())
