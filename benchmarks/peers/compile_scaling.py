#!/usr/bin/env python3
"""Compile time at model scale: a decoder-only language model's whole
training step (embedding, L pre-norm blocks of causal attention and a GELU
MLP, tied logits, cross-entropy, its gradient and an SGD update, all in one
jitted function), at several depths, in XLA (through JAX) and in Tessera
side by side.  The suite's modules have at most a few hundred instructions;
this shows how both compilers scale to thousands (6 layers: about 2600 HLO
lines), and checks Tessera's results against XLA's on the way.

Usage: python3 benchmarks/peers/compile_scaling.py --tessera PATH [--layers 2,6,12]
Per depth: HLO lines, XLA's compile (lower().compile()) and run time,
Tessera's first and warm compile and run time (`tessera bench`), the
compile ratio XLA/Tessera, and the largest relative difference between
Tessera's outputs (loss and every updated parameter) and XLA's.  Needs
JAX (installed by `./tessera bench --suite` under ~/.cache/tessera/pylib)
and an optimized build: bazel build -c opt //tools:tessera.
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

WIDTH, HEADS, SEQUENCE, BATCH, VOCAB = 256, 8, 128, 8, 1000


def init(layers, rng):
    def w(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)
    blocks = [{"wq": w(WIDTH, WIDTH), "wk": w(WIDTH, WIDTH), "wv": w(WIDTH, WIDTH),
               "wo": w(WIDTH, WIDTH), "w1": w(WIDTH, 4 * WIDTH), "w2": w(4 * WIDTH, WIDTH),
               "g1": w(WIDTH), "g2": w(WIDTH)} for _ in range(layers)]
    return {"embedding": w(VOCAB, WIDTH), "blocks": blocks}


def layer_norm(x, gain):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * (1 + gain)


def block(x, p):
    h = layer_norm(x, p["g1"])
    q, k, v = ((h @ p[name]).reshape(BATCH, SEQUENCE, HEADS, WIDTH // HEADS)
               for name in ("wq", "wk", "wv"))
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(WIDTH // HEADS)
    scores = jnp.where(jnp.tril(jnp.ones((SEQUENCE, SEQUENCE), bool)), scores, -1e9)
    attended = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), v)
    x = x + attended.reshape(BATCH, SEQUENCE, WIDTH) @ p["wo"]
    return x + jax.nn.gelu(layer_norm(x, p["g2"]) @ p["w1"]) @ p["w2"]


def loss(params, tokens, targets):
    x = params["embedding"][tokens]
    for p in params["blocks"]:
        x = block(x, p)
    logits = x @ params["embedding"].T
    picked = jnp.take_along_axis(jax.nn.log_softmax(logits), targets[..., None], -1)
    return -jnp.mean(picked)


def train_step(params, tokens, targets):
    value, grads = jax.value_and_grad(loss)(params, tokens, targets)
    return value, jax.tree_util.tree_map(lambda a, g: a - 0.01 * g, params, grads)


def measure(layers, tessera, iters, directory):
    rng = np.random.default_rng(layers)
    params = init(layers, rng)
    tokens = rng.integers(0, VOCAB, (BATCH, SEQUENCE)).astype(np.int32)
    targets = rng.integers(0, VOCAB, (BATCH, SEQUENCE)).astype(np.int32)
    lowered = jax.jit(train_step).lower(params, tokens, targets)
    start = time.perf_counter()
    compiled = lowered.compile()
    xla_compile_ms = 1e3 * (time.perf_counter() - start)
    expected = jax.block_until_ready(compiled(params, tokens, targets))
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        jax.block_until_ready(compiled(params, tokens, targets))
        times.append(time.perf_counter() - start)

    text = lowered.compiler_ir("hlo").as_hlo_text()
    module = os.path.join(directory, f"lm{layers}.hlo")
    with open(module, "w") as f:
        f.write(text)
    inputs = []
    for i, leaf in enumerate(jax.tree_util.tree_leaves((params, tokens, targets))):
        inputs.append(os.path.join(directory, f"lm{layers}_in{i}.npy"))
        np.save(inputs[-1], np.asarray(leaf))
    flags = ["--backend=cpu"] + [f"--input={path}" for path in inputs]
    bench = subprocess.run([tessera, "bench", module, *flags, f"--iters={iters}", "--compile_iters=2",
                            "--format=json"], capture_output=True, text=True, check=True)
    figures = json.loads(bench.stdout)
    outputs = os.path.join(directory, f"lm{layers}_out")
    os.makedirs(outputs, exist_ok=True)
    subprocess.run([tessera, "run", module, *flags, f"--output_dir={outputs}"],
                   capture_output=True, check=True)
    worst = 0.0
    for i, want in enumerate(jax.tree_util.tree_leaves(expected)):
        got = np.load(os.path.join(outputs, f"output_{i}.npy"))
        want = np.asarray(want)
        worst = max(worst, float(np.max(np.abs(got - want) / (1 + np.abs(want)))))
    warm = figures.get("compile_ms_warm_min", figures["compile_ms"])
    print(f"{layers:>6} {text.count(chr(10)):>9} {xla_compile_ms:>14.0f} {1e3 * min(times):>10.1f}"
          f" {figures['compile_ms']:>14.0f} {warm:>9.0f} {figures['run_ms_min']:>10.1f}"
          f" {xla_compile_ms / warm:>10.1f}x {worst:>10.2e}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", default="bazel-bin/tools/tessera")
    parser.add_argument("--layers", default="2,6,12")
    parser.add_argument("--iters", type=int, default=3)
    args = parser.parse_args()
    print(f"{'layers':>6} {'HLO lines':>9} {'XLA compile ms':>14} {'XLA run ms':>10}"
          f" {'Tessera comp. ms':>14} {'warm ms':>9} {'run ms':>10} {'XLA/warm':>11} {'max diff':>10}")
    with tempfile.TemporaryDirectory() as directory:
        for layers in (int(n) for n in args.layers.split(",")):
            measure(layers, args.tessera, args.iters, directory)


if __name__ == "__main__":
    main()
