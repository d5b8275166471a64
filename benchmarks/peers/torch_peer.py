#!/usr/bin/env python3
"""Times the benchmark workloads in PyTorch 2.x on the CPU, steady state:
eager, and `torch.compile` (Inductor), each after warm-up runs, minimum and
median of timed runs.

Eager is timed twice where the ops allow it: as a user writes it (every
call allocates fresh outputs, which costs page faults on this machine: see
../shared/MACHINE_PERF.md) and with preallocated outputs (`out=` and
in-place ops); the faster is the eager figure, and both are printed.
Inputs are those of jax_peer.py: uniform(-1, 1) from numpy's
default_rng(0), drawn in WORKLOADS order.

Usage: python3 benchmarks/peers/torch_peer.py [--iters N] [--no-compile] [NAME ...]
Prints one JSON object per workload and mode: name, peer (torch_eager or
torch_compile), run_ms_min, run_ms_median; eager adds as_written_ms_min and
out_ms_min (null where no out= form exists); compile adds compile_ms (the
first call, which traces and compiles).
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def _workloads():
    from make_benchmark_modules import WORKLOADS  # noqa: PLC0415 -- imports JAX
    return WORKLOADS


def build(torch):
    """(name -> (eager fn, out= fn factory or None), name -> torch.compile
    recipe where compiling the whole function is not what a user does).  A
    factory takes the inputs and returns a function of no arguments that
    writes into buffers it allocated once."""
    F = torch.nn.functional
    aten = torch.ops.aten

    def elementwise_chain(x, a, b, c):
        return torch.tanh(a * x + b) * c

    def elementwise_chain_out(x, a, b, c):
        o = torch.empty_like(x)
        def run():
            torch.mul(x, a, out=o)
            o.add_(b).tanh_().mul_(c)
            return o
        return run

    def softmax(x):
        return torch.softmax(x, dim=-1)

    def softmax_out(x):
        o = torch.empty_like(x)
        return lambda: aten._softmax.out(x, -1, False, out=o)

    def layer_norm(x, g, b):
        return F.layer_norm(x, (x.shape[-1],), g, b, eps=1e-5)

    def layer_norm_out(x, g, b):
        o = torch.empty_like(x)
        mean = torch.empty((x.shape[0], 1))
        rstd = torch.empty((x.shape[0], 1))
        return lambda: aten.native_layer_norm.out(x, [x.shape[-1]], g, b, 1e-5,
                                                   out0=o, out1=mean, out2=rstd)

    def gemm(a, b):
        return a @ b

    def gemm_out(a, b):
        o = torch.empty((a.shape[0], b.shape[1]))
        return lambda: torch.mm(a, b, out=o)

    def gemm_bias_gelu(a, w, bias):
        return F.gelu(a @ w + bias, approximate="tanh")

    def gemm_bias_gelu_out(a, w, bias):
        o = torch.empty((a.shape[0], w.shape[1]))
        def run():
            torch.addmm(bias, a, w, out=o)
            return aten.gelu_(o, approximate="tanh")
        return run

    def conv3x3(x, k):
        # x: NHWC, k: HWIO as in JAX.  PyTorch's channels_last layout is NHWC
        # in memory; the permutes below are views (no copies).
        xt = x.permute(0, 3, 1, 2)
        kt = k.permute(3, 2, 0, 1)
        return F.conv2d(xt, kt, padding=1).permute(0, 2, 3, 1)

    def conv_relu_chain_nchw(x, k1, k2):
        # NCHW and OIHW: PyTorch's own layouts.
        return torch.relu(F.conv2d(torch.relu(F.conv2d(x, k1, padding=1)), k2, padding=1))

    def mlp_loss(w1, b1, w2, b2, x, y):
        h = torch.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        return -torch.mean(torch.sum(torch.log_softmax(logits, -1) * y, -1))

    def mlp_train_step(w1, b1, w2, b2, x, y, loss_fn=mlp_loss):
        params = [p.detach().requires_grad_() for p in (w1, b1, w2, b2)]
        loss = loss_fn(*params, x, y)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            return (loss.detach(),) + tuple(p - 0.01 * g for p, g in zip(params, grads))

    def transformer_block(x, wq, wk, wv, wo, w1, w2, g1, b1, g2, b2):
        heads = 8
        s, d = x.shape
        h = F.layer_norm(x, (d,), g1, b1, eps=1e-5)
        q = (h @ wq).reshape(s, heads, d // heads).transpose(0, 1)
        k = (h @ wk).reshape(s, heads, d // heads).transpose(0, 1)
        v = (h @ wv).reshape(s, heads, d // heads).transpose(0, 1)
        att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d // heads), -1)
        o = (att @ v).transpose(0, 1).reshape(s, d) @ wo
        x = x + o
        h = F.layer_norm(x, (d,), g2, b2, eps=1e-5)
        return x + F.gelu(h @ w1, approximate="tanh") @ w2

    table = {
        "elementwise_chain_16m": (elementwise_chain, elementwise_chain_out),
        "softmax_4096x1024": (softmax, softmax_out),
        "layer_norm_4096x1024": (layer_norm, layer_norm_out),
        "gemm_bias_gelu_1024x4096x1024": (gemm_bias_gelu, gemm_bias_gelu_out),
        "conv3x3_nhwc_56x56x64": (conv3x3, None),
        "conv_relu_chain_nchw_4x64x56x56": (conv_relu_chain_nchw, None),
        "mlp_train_step_784_1024_10_b256": (mlp_train_step, None),
        "transformer_block_s128_d512_h8": (transformer_block, None),
    }
    for n in (256, 512, 1024, 2048):
        table[f"gemm_{n}"] = (gemm, gemm_out)
    return table, {
        # torch.compile as a training loop uses it: the forward (loss)
        # compiled, its backward by AOTAutograd, the update in eager.
        "mlp_train_step_784_1024_10_b256":
            lambda: (lambda f: lambda *xs: mlp_train_step(*xs, loss_fn=f))(torch.compile(mlp_loss)),
    }


def time_runs(fn, iters, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[0], times[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    import torch  # noqa: PLC0415 -- optional: the suite reports its absence
    torch.set_grad_enabled(True)
    table, compile_recipes = build(torch)
    rng = np.random.default_rng(0)
    for name, _, specs in _workloads():
        if args.names and name not in args.names:
            continue
        inputs = [torch.from_numpy(rng.uniform(-1, 1, s.shape).astype(np.float32)) for s in specs]
        eager, out_factory = table[name]
        with torch.no_grad() if name != "mlp_train_step_784_1024_10_b256" else torch.enable_grad():
            written = time_runs(lambda: eager(*inputs), args.iters)
            out = None
            if out_factory is not None:
                try:
                    out = time_runs(out_factory(*inputs), args.iters)
                except Exception as e:  # noqa: BLE001 -- an op without out= here
                    print(f"torch_peer: {name}: no out= variant ({e})", file=sys.stderr)
            best = min([written] + ([out] if out else []), key=lambda t: t[0])
            print(json.dumps({"name": name, "peer": "torch_eager", "run_ms_min": round(best[0], 4),
                              "run_ms_median": round(best[1], 4),
                              "as_written_ms_min": round(written[0], 4),
                              "out_ms_min": round(out[0], 4) if out else None}), flush=True)
            if args.no_compile:
                continue
            try:
                compiled = compile_recipes[name]() if name in compile_recipes else torch.compile(eager)
                start = time.perf_counter()
                compiled(*inputs)
                compile_ms = (time.perf_counter() - start) * 1e3
                tmin, tmed = time_runs(lambda: compiled(*inputs), args.iters)
                print(json.dumps({"name": name, "peer": "torch_compile",
                                  "compile_ms": round(compile_ms, 3), "run_ms_min": round(tmin, 4),
                                  "run_ms_median": round(tmed, 4)}), flush=True)
            except Exception as e:  # noqa: BLE001 -- report and go on
                print(f"torch_peer: {name}: torch.compile failed: {type(e).__name__}: {e}"[:500],
                      file=sys.stderr)


if __name__ == "__main__":
    main()
