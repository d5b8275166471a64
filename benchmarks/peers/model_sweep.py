#!/usr/bin/env python3
"""Model-scale programs in XLA (jax.jit) and Tessera, side by side: training
steps of a GPT-style block, a resnet basic block, an LSTM and a small tanh
RNN (lax.scan, forward and backward), a 1-D convolutional net, an
embedding classifier and a language-model head; and a causal attention
forward.  The workloads op_sweep.py's single ops and the suite's fixed
modules leave out: loops of GEMMs, weight-gradient convolutions, masks.

Usage: python3 benchmarks/peers/model_sweep.py --tessera BIN [--iters N]
           [--keep DIR] [NAME ...]
Prints per model: XLA's and Tessera's minimum run time and their ratio
(Tessera/XLA), then XLA's compile (jax.jit(f).lower(...).compile(), in a
process whose XLA is initialized), Tessera's first compile in a fresh
process, and Tessera's warm compile plus its background code generation
(the optimized code ready).  --keep writes the HLO modules and inputs to
DIR (for tessera bench --profile).
"""

import argparse, os, re, subprocess, sys, tempfile, time, json
import jax, jax.numpy as jnp, numpy as np
from jax import lax

rng = np.random.default_rng(0)


def f32(*s, scale=0.05):
    return (rng.standard_normal(s) * scale).astype(np.float32)


# ---- GPT-ish block training step
def sgd(loss, p, rate):
    """The loss at p, and p after one SGD step on it."""
    l, g = jax.value_and_grad(loss)(p)
    return l, jax.tree_util.tree_map(lambda a, b: a - rate * b, p, g)


def gpt_params(d, h, f):
    return dict(
        wq=f32(d, d),
        wk=f32(d, d),
        wv=f32(d, d),
        wo=f32(d, d),
        w1=f32(d, f),
        w2=f32(f, d),
        g1=np.ones(d, np.float32),
        b1=np.zeros(d, np.float32),
        g2=np.ones(d, np.float32),
        b2=np.zeros(d, np.float32),
    )


def ln(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


def gpt_block(p, x, heads):
    B, T, D = x.shape
    y = ln(x, p["g1"], p["b1"])
    q = (y @ p["wq"]).reshape(B, T, heads, D // heads).transpose(0, 2, 1, 3)
    k = (y @ p["wk"]).reshape(B, T, heads, D // heads).transpose(0, 2, 1, 3)
    v = (y @ p["wv"]).reshape(B, T, heads, D // heads).transpose(0, 2, 1, 3)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D // heads)
    mask = jnp.tril(jnp.ones((T, T), bool))
    s = jnp.where(mask, s, -1e9)
    a = jax.nn.softmax(s, -1) @ v
    x = x + a.transpose(0, 2, 1, 3).reshape(B, T, D) @ p["wo"]
    y = ln(x, p["g2"], p["b2"])
    return x + jax.nn.gelu(y @ p["w1"], approximate=False) @ p["w2"]


def gpt_step(p, x, t):
    def loss(p):
        return jnp.mean((gpt_block(p, x, 6) - t) ** 2)

    return sgd(loss, p, 1e-3)


# ---- ResNet basic block training step (NHWC)
def conv(x, w, s=1):
    return lax.conv_general_dilated(
        x, w, (s, s), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def bn(x, g, b):
    m = x.mean((0, 1, 2))
    v = x.var((0, 1, 2))
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


def res_block(p, x):
    y = jax.nn.relu(bn(conv(x, p["w1"]), p["g1"], p["b1"]))
    y = bn(conv(y, p["w2"]), p["g2"], p["b2"])
    return jax.nn.relu(x + y)


def res_step(p, x, t):
    def loss(p):
        return jnp.mean((res_block(p, x).mean((1, 2)) @ p["fc"] - t) ** 2)

    return sgd(loss, p, 1e-2)


# ---- LSTM over time (scan), forward + backward
def lstm(p, xs):
    H = p["wh"].shape[0]

    def cell(c, x):
        h, cc = c
        z = x @ p["wx"] + h @ p["wh"] + p["b"]
        i, f, o, u = jnp.split(z, 4, -1)
        cc = jax.nn.sigmoid(f) * cc + jax.nn.sigmoid(i) * jnp.tanh(u)
        h = jax.nn.sigmoid(o) * jnp.tanh(cc)
        return (h, cc), h

    B = xs.shape[1]
    _, hs = lax.scan(cell, (jnp.zeros((B, H)), jnp.zeros((B, H))), xs)
    return hs


def lstm_step(p, xs):
    def loss(p):
        return jnp.mean(lstm(p, xs) ** 2)

    return sgd(loss, p, 1e-2)


# ---- Embedding + MLP classifier with gather/scatter backward
def emb_step(p, ids, labels):
    def loss(p):
        e = p["emb"][ids].mean(1)
        h = jax.nn.relu(e @ p["w1"])
        logits = h @ p["w2"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1))

    return sgd(loss, p, 1e-2)


# ---- Causal attention forward, long sequence
def attention(q, k, v):
    T = q.shape[2]
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 8.0
    s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), s, -jnp.inf)
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v)


def rnn(p, xs):
    def cell(h, x):
        h = jnp.tanh(x @ p["wx"] + h @ p["wh"] + p["b"])
        return h, h

    _, hs = lax.scan(cell, jnp.zeros((xs.shape[1], p["wh"].shape[0])), xs)
    return hs


def rnn_step(p, xs):
    def loss(p):
        return jnp.mean(rnn(p, xs) ** 2)

    return sgd(loss, p, 1e-2)


def conv1d_net(p, x):
    dn = ("NWC", "WIO", "NWC")
    y = jax.nn.relu(lax.conv_general_dilated(x, p["w1"], (1,), "SAME", dimension_numbers=dn))
    y = jax.nn.relu(lax.conv_general_dilated(y, p["w2"], (2,), "SAME", dimension_numbers=dn))
    return y.mean(1) @ p["fc"]


def conv1d_step(p, x, t):
    def loss(p):
        return jnp.mean((conv1d_net(p, x) - t) ** 2)

    return sgd(loss, p, 1e-2)


def lm_head_step(p, h, labels):
    def loss(p):
        logits = h @ p["w"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1))

    return sgd(loss, p, 1e-2)


def cases():
    yield "rnn_small_256", rnn_step, (
        dict(wx=f32(16, 64), wh=f32(64, 64), b=np.zeros(64, np.float32)),
        f32(256, 8, 16, scale=1),
    )
    yield "conv1d_train", conv1d_step, (
        dict(w1=f32(5, 32, 64), w2=f32(5, 64, 64), fc=f32(64, 10)),
        f32(16, 1024, 32, scale=1),
        f32(16, 10, scale=1),
    )
    yield "lm_head_train", lm_head_step, (
        dict(w=f32(256, 32000)),
        f32(256, 256, scale=1),
        rng.integers(0, 32000, 256).astype(np.int32),
    )
    gp = gpt_params(384, 6, 1536)
    yield "gpt_block_train", gpt_step, (gp, f32(4, 128, 384, scale=1), f32(4, 128, 384, scale=1))
    rp = dict(
        w1=f32(3, 3, 64, 64),
        w2=f32(3, 3, 64, 64),
        g1=np.ones(64, np.float32),
        b1=np.zeros(64, np.float32),
        g2=np.ones(64, np.float32),
        b2=np.zeros(64, np.float32),
        fc=f32(64, 10),
    )
    yield "resnet_block_train", res_step, (rp, f32(16, 32, 32, 64, scale=1), f32(16, 10, scale=1))
    lp = dict(wx=f32(128, 1024), wh=f32(256, 1024), b=np.zeros(1024, np.float32))
    yield "lstm_train_64", lstm_step, (lp, f32(64, 32, 128, scale=1))
    ep = dict(emb=f32(32000, 256), w1=f32(256, 512), w2=f32(512, 100))
    yield "embed_mlp_train", emb_step, (
        ep,
        rng.integers(0, 32000, (512, 16)).astype(np.int32),
        rng.integers(0, 100, 512).astype(np.int32),
    )
    yield "causal_attn_1024", attention, (
        f32(1, 8, 1024, 64, scale=1),
        f32(1, 8, 1024, 64, scale=1),
        f32(1, 8, 1024, 64, scale=1),
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--keep", default=None)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    jax.jit(lambda x: x + 1).lower(np.float32(1)).compile()
    d = a.keep or tempfile.mkdtemp()
    os.makedirs(d, exist_ok=True)
    print(
        f"{'model':20s} {'XLA ms':>8s} {'Tess ms':>8s} {'ratio':>6s} | {'XLAc ms':>8s} {'Tc ms':>7s} {'Tfinal':>7s}"
    )
    for name, fn, args in cases():
        if a.names and name not in a.names:
            continue
        flat, _ = jax.tree_util.tree_flatten(args)
        jf = jax.jit(fn)
        t0 = time.perf_counter()
        comp = jf.lower(*args).compile()
        xc = (time.perf_counter() - t0) * 1e3
        jax.block_until_ready(comp(*args))
        ts = []
        for _ in range(a.iters):
            t0 = time.perf_counter()
            jax.block_until_ready(comp(*args))
            ts.append(time.perf_counter() - t0)
        xr = min(ts) * 1e3
        mod = os.path.join(d, name + ".hlo")
        open(mod, "w").write(
            jf.lower(*args).compiler_ir("hlo").as_hlo_text(print_large_constants=True)
        )
        cmd = [
            a.tessera,
            "bench",
            mod,
            "--backend=cpu",
            f"--iters={a.iters}",
            "--format=json",
            "--compile_iters=3",
        ]
        for k, x in enumerate(flat):
            p = os.path.join(d, f"{name}_in{k}.npy")
            np.save(p, np.asarray(x))
            cmd.append("--input=" + p)
        r = subprocess.run(cmd, capture_output=True, text=True)
        try:
            j = json.loads(r.stdout)
        except Exception:
            print(name, "FAILED", r.stderr[-400:])
            continue
        # The final code's warm compile (--tier_up=eager), or for older
        # binaries the warm compile plus the tier-up.
        ready = j.get("final_compile_ms_warm_min") or (
            (j.get("compile_ms_warm_min") or 0) + (j.get("tier_up_ms") or 0))
        print(
            f"{name:20s} {xr:8.3f} {j['run_ms_min']:8.3f} {j['run_ms_min']/xr:6.2f} | {xc:8.1f} {j['compile_ms']:7.1f} {ready:7.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
