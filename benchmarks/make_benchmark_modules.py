#!/usr/bin/env python3
"""Writes the benchmark workloads of the CPU issue as HLO text, lowered by JAX.

Each workload is a JAX function; `jax.jit(f).lower(*shapes)` gives the HLO
module XLA itself would compile, so Tessera and its peers run the very same
program.  The .hlo files are committed (benchmarks/modules/); rerun this
script (python3 benchmarks/make_benchmark_modules.py) to regenerate them.
"""
import os
import sys

import jax
import jax.numpy as jnp

f32 = jnp.float32


def spec(*shape):
    return jax.ShapeDtypeStruct(shape, f32)


def elementwise_chain(x, a, b, c):
    return jnp.tanh(a * x + b) * c


def softmax(x):
    m = jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(x - m)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def layer_norm(x, g, b):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g + b


def gemm(a, b):
    return a @ b


def gemm_bias_gelu(a, w, bias):
    return jax.nn.gelu(a @ w + bias, approximate=True)


def conv3x3(x, k):
    return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))


def conv_relu_chain_nchw(x, k1, k2):
    # lax.conv's default dimension numbers: NCHW input, OIHW kernel (what
    # PyTorch-style JAX code writes); XLA and Tessera choose NHWC inside.
    h = jax.nn.relu(jax.lax.conv(x, k1, (1, 1), "SAME"))
    return jax.nn.relu(jax.lax.conv(h, k2, (1, 1), "SAME"))


def mlp_train_step(w1, b1, w2, b2, x, y):
    def loss(params):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))
    params = (w1, b1, w2, b2)
    value, grads = jax.value_and_grad(loss)(params)
    return (value,) + tuple(p - 0.01 * g for p, g in zip(params, grads))


def transformer_block(x, wq, wk, wv, wo, w1, w2, g1, b1, g2, b2):
    heads = 8
    s, d = x.shape
    def ln(v, g, b):
        m = jnp.mean(v, -1, keepdims=True)
        var = jnp.mean(jnp.square(v - m), -1, keepdims=True)
        return (v - m) * jax.lax.rsqrt(var + 1e-5) * g + b
    h = ln(x, g1, b1)
    q = (h @ wq).reshape(s, heads, d // heads).transpose(1, 0, 2)
    k = (h @ wk).reshape(s, heads, d // heads).transpose(1, 0, 2)
    v = (h @ wv).reshape(s, heads, d // heads).transpose(1, 0, 2)
    att = jax.nn.softmax(q @ k.transpose(0, 2, 1) / jnp.sqrt(d // heads), axis=-1)
    o = (att @ v).transpose(1, 0, 2).reshape(s, d) @ wo
    x = x + o
    h = ln(x, g2, b2)
    return x + jax.nn.gelu(h @ w1, approximate=True) @ w2


N = 16 * 1024 * 1024
WORKLOADS = [
    ("elementwise_chain_16m", elementwise_chain, [spec(N), spec(), spec(), spec()]),
    ("softmax_4096x1024", softmax, [spec(4096, 1024)]),
    ("layer_norm_4096x1024", layer_norm, [spec(4096, 1024), spec(1024), spec(1024)]),
] + [
    (f"gemm_{n}", gemm, [spec(n, n), spec(n, n)]) for n in (256, 512, 1024, 2048)
] + [
    ("gemm_bias_gelu_1024x4096x1024", gemm_bias_gelu, [spec(1024, 4096), spec(4096, 1024), spec(1024)]),
    ("conv3x3_nhwc_56x56x64", conv3x3, [spec(1, 56, 56, 64), spec(3, 3, 64, 64)]),
    ("conv_relu_chain_nchw_4x64x56x56", conv_relu_chain_nchw,
     [spec(4, 64, 56, 56), spec(64, 64, 3, 3), spec(64, 64, 3, 3)]),
    ("mlp_train_step_784_1024_10_b256", mlp_train_step,
     [spec(784, 1024), spec(1024), spec(1024, 10), spec(10), spec(256, 784), spec(256, 10)]),
    ("transformer_block_s128_d512_h8", transformer_block,
     [spec(128, 512)] + [spec(512, 512)] * 4 + [spec(512, 2048), spec(2048, 512)] +
     [spec(512)] * 4),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "modules")
    os.makedirs(out, exist_ok=True)
    for name, fn, args in WORKLOADS:
        text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
        with open(os.path.join(out, name + ".hlo"), "w") as f:
            f.write(text)
        print(f"wrote {name}.hlo")


if __name__ == "__main__":
    main()
