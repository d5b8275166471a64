"""Runs many small JAX programs through `tessera run --backend=cpu` and
compares every output with XLA's (JAX's own result), to find programs that
fail, disagree, or fall back to the evaluator.  A tool, not a test: it needs
JAX (installed by `./tessera bench --suite` under ~/.cache/tessera/pylib).

  PYTHONPATH=/root/.cache/tessera/pylib python3 benchmarks/peers/jax_conformance.py \
      --tessera bazel-bin/tools/tessera [NAME ...]

One line per program: OK, MISMATCH (which output, the largest error),
RUN-ERROR (tessera's message) or JAX-ERROR, plus FALLBACKS (the instructions
the CPU backend left to the evaluator, from `tessera opt --show_thunks`).
Tolerances: f32 outputs 2e-4 (1 + |x|), f64 1e-9 (1 + |x|), f16/bf16 2e-2;
integers and bools exactly.  Known differences that are not bugs: XLA keeps
f32 precision across bf16/f16 ops (simplify-fp-conversions), where HLO and
the evaluator round each op's result (1-ulp bf16/f16 differences, and a
bf16 dot's rounding before a convert); f64 programs with f32 intermediates
see f32 rounding against the f64 tolerance; XLA's CPU code flushes f32
denormals to zero (log(-1e-45) is -inf there, NaN in IEEE arithmetic and in
Tessera and its evaluator, sign(1e-45) 0 there, 1 here).  jax_enable_x64 is on, so 64-bit
types are exercised.
"""
import argparse
import functools
import os
import re
import subprocess
import tempfile

import numpy as np
import jax
import jax.numpy as jnp
import jax.experimental.shard_map
from jax import lax

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(0)


def f32(*s): return rng.standard_normal(s).astype(np.float32)
def f64(*s): return rng.standard_normal(s)
def i32(*s, hi=10): return rng.integers(-hi, hi, s).astype(np.int32)
def i64(*s): return rng.integers(-1000, 1000, s)
def u8(*s): return rng.integers(0, 255, s).astype(np.uint8)
def u64(*s): return rng.integers(0, 1 << 40, s).astype(np.uint64)
def b(*s): return rng.random(s) > 0.5
def bf(*s): return jnp.asarray(f32(*s), dtype=jnp.bfloat16)
def f16(*s): return f32(*s).astype(np.float16)
def c64(*s): return (f32(*s) + 1j * f32(*s)).astype(np.complex64)


# Pieces of models, for the programs below.
def xent(logits, labels):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))
def bn_train(x, g, bb):
    m = x.mean((0, 1, 2)); v = x.var((0, 1, 2))
    return (x - m) * lax.rsqrt(v + 1e-5) * g + bb, m, v
def mha(q, k, v, mask):
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / 4.0
    s = jnp.where(mask[:, None, :, :], s, -1e9)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)
def per_example_grads(w, x, y):
    return jax.vmap(jax.grad(lambda w, x, y: jnp.sum((x @ w - y) ** 2)), in_axes=(None, 0, 0))(w, x, y)
@jax.custom_vjp
def clip_grad(x): return x
clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -0.1, 0.1),))
def ln(x): return (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)
PROGRAMS = {
 # Ops, dtypes and control flow.
 "einsum_bij": (lambda a, c: jnp.einsum("bij,bjk->bik", a, c), [f32(4, 8, 16), f32(4, 16, 5)]),
 "einsum_outer": (lambda a, c: jnp.einsum("i,j->ij", a, c), [f32(7), f32(9)]),
 "einsum_trace": (lambda a: jnp.einsum("ii->", a), [f32(9, 9)]),
 "argsort": (lambda a: jnp.argsort(a, axis=-1), [f32(6, 33)]),
 "sort_desc": (lambda a: -jnp.sort(-a, axis=0), [f32(17, 5)]),
 "top_k": (lambda a: lax.top_k(a, 5), [f32(4, 50)]),
 "cumprod": (lambda a: jnp.cumprod(a, axis=1), [f32(5, 20) * 0.1 + 1]),
 "cummax": (lambda a: lax.cummax(a, axis=0), [f32(30, 4)]),
 "searchsorted": (lambda a, v: jnp.searchsorted(a, v), [np.sort(f32(40)), f32(13)]),
 "unique_size": (lambda a: jnp.unique(a, size=10, fill_value=0), [i32(30)]),
 "bincount": (lambda a: jnp.bincount(a, length=12), [rng.integers(0, 12, 50).astype(np.int32)]),
 "histogram": (lambda a: jnp.histogram(a, bins=8, range=(-2, 2))[0], [f32(100)]),
 "where_int": (lambda c, a, d: jnp.where(c, a, d), [b(5, 6), i32(5, 6), i32(5, 6)]),
 "clip_int": (lambda a: jnp.clip(a, -3, 4), [i32(50)]),
 "int_div": (lambda a, d: a // jnp.where(d == 0, 1, d), [i32(40), i32(40)]),
 "int_mod": (lambda a, d: a % jnp.where(d == 0, 1, d), [i32(40), i32(40)]),
 "shift_ops": (lambda a: (a << 3) ^ (a >> 2), [i32(40, hi=1000)]),
 "popcount": (lambda a: lax.population_count(a), [i32(40, hi=100000)]),
 "u8_ops": (lambda a, c: (a + c) * 3 // 2, [u8(64), u8(64)]),
 "bool_reduce": (lambda a: (jnp.any(a, 0), jnp.all(a, 1)), [b(8, 9)]),
 "bf16_chain": (lambda a: jnp.tanh(a * 2 + 1).astype(jnp.float32), [bf(64)]),
 "f16_softmax": (lambda a: jax.nn.softmax(a, axis=-1).astype(jnp.float32), [f16(8, 32)]),
 "bf16_reduce": (lambda a: jnp.sum(a, axis=1).astype(jnp.float32), [bf(16, 100)]),
 "f64_ops": (lambda a: jnp.exp(a) + jnp.log1p(jnp.abs(a)) + jnp.sin(a), [f64(100)]),
 "complex_ops": (lambda a: jnp.exp(a) * jnp.conj(a) + jnp.sqrt(a), [c64(50)]),
 "complex_reduce": (lambda a: jnp.sum(a * a, axis=0), [c64(20, 7)]),
 "fft2": (lambda a: jnp.fft.fft2(a), [c64(4, 16, 16)]),
 "rfft_irfft": (lambda a: jnp.fft.irfft(jnp.fft.rfft(a), n=24), [f32(8, 24)]),
 "fftn3": (lambda a: jnp.fft.fftn(a), [c64(4, 6, 10)]),
 "conv1d": (lambda x, w: lax.conv_general_dilated(x, w, (1,), "SAME"), [f32(2, 3, 40), f32(5, 3, 7)]),
 "conv2d_stride": (lambda x, w: lax.conv_general_dilated(x, w, (2, 2), "VALID"), [f32(2, 4, 17, 17), f32(6, 4, 3, 3)]),
 "conv_grouped": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2), [f32(2, 4, 9, 9), f32(6, 2, 3, 3)]),
 "conv_dilated": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(2, 2)), [f32(1, 3, 12, 12), f32(4, 3, 3, 3)]),
 "conv_transpose": (lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), [f32(1, 8, 8, 3), f32(3, 3, 3, 5)]),
 "conv3d": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1, 1), "SAME"), [f32(1, 2, 6, 6, 6), f32(3, 2, 3, 3, 3)]),
 "avg_pool": (lambda x: lax.reduce_window(x, 0., lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") / 9, [f32(2, 15, 15, 3)]),
 "scatter_max": (lambda a, i, u: a.at[i].max(u), [f32(20), rng.integers(0, 20, 30).astype(np.int32), f32(30)]),
 "scatter_mul": (lambda a, i, u: a.at[i].multiply(u), [f32(20), rng.integers(0, 20, 30).astype(np.int32), f32(30)]),
 "scatter_2d": (lambda a, i, u: a.at[i, :].add(u), [f32(10, 4), rng.integers(0, 10, 6).astype(np.int32), f32(6, 4)]),
 "gather_2d": (lambda a, i, j: a[i, j], [f32(10, 12), rng.integers(0, 10, 7).astype(np.int32), rng.integers(0, 12, 7).astype(np.int32)]),
 "take_along": (lambda a, i: jnp.take_along_axis(a, i, axis=1), [f32(5, 9), rng.integers(0, 9, (5, 4)).astype(np.int32)]),
 "dynamic_update": (lambda a, u, i: lax.dynamic_update_slice(a, u, (i, jnp.int32(2))), [f32(10, 10), f32(3, 4), np.int32(5)]),
 "scan_rnn": (lambda h, xs, w: lax.scan(lambda c, x: (jnp.tanh(c @ w + x), c.sum()), h, xs), [f32(4, 8), f32(12, 4, 8), f32(8, 8)]),
 "while_count": (lambda x: lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 1.1), (0, x))[1], [f32(5)]),
 "cond": (lambda p, x: lax.cond(p > 0, lambda y: y * 2, lambda y: y - 1, x), [np.float32(1.0), f32(5)]),
 "switch": (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x), [np.int32(2), f32(5)]),
 "fori_matpow": (lambda a: lax.fori_loop(0, 5, lambda i, m: m @ a, jnp.eye(6, dtype=a.dtype)), [f32(6, 6) * 0.3]),
 "map": (lambda x: lax.map(lambda r: jnp.sort(r)[::-1], x), [f32(5, 7)]),
 "vmap_solve": (lambda a, c: jax.vmap(jnp.linalg.solve)(a, c), [f32(4, 5, 5) + 5 * np.eye(5, dtype=np.float32), f32(4, 5)]),
 "grad_mlp": (jax.grad(lambda w, x: jnp.sum(jax.nn.gelu(x @ w) ** 2)), [f32(8, 4), f32(16, 8)]),
 "jvp": (lambda x: jax.jvp(jnp.sin, (x,), (jnp.ones_like(x),))[1], [f32(10)]),
 "logsumexp": (lambda a: jax.nn.logsumexp(a, axis=1), [f32(6, 40)]),
 "one_hot": (lambda i: jax.nn.one_hot(i, 7), [rng.integers(0, 7, 12).astype(np.int32)]),
 "norm": (lambda a: (jnp.linalg.norm(a), jnp.linalg.norm(a, axis=0, ord=1)), [f32(9, 5)]),
 "det": (lambda a: jnp.linalg.det(a), [f32(3, 6, 6)]),
 "matrix_power": (lambda a: jnp.linalg.matrix_power(a, 3), [f32(5, 5)]),
 "lstsq": (lambda a, c: jnp.linalg.lstsq(a, c)[0], [f32(10, 4), f32(10)]),
 "cholesky_solve": (lambda a, c: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a @ a.T + 4 * jnp.eye(6)), c), [f32(6, 6), f32(6, 2)]),
 "expm": (lambda a: jax.scipy.linalg.expm(a), [f32(5, 5) * 0.3]),
 "random_uniform": (lambda k: jax.random.uniform(jax.random.wrap_key_data(k), (4, 5)), [np.array([0, 42], np.uint32)]),
 "random_perm": (lambda k: jax.random.permutation(jax.random.wrap_key_data(k), 10), [np.array([0, 7], np.uint32)]),
 "pad_negative": (lambda a: lax.pad(a, jnp.float32(0), [(-1, 2, 1), (2, -1, 0)]), [f32(5, 6)]),
 "rev_concat": (lambda a: jnp.concatenate([a[::-1], a[:, ::-1]], axis=0), [f32(4, 5)]),
 "reduce_precision": (lambda a: lax.reduce_precision(a, 5, 10), [f32(30)]),
 "nextafter": (lambda a, c: jnp.nextafter(a, c), [f32(10), f32(10)]),
 "atan2_hypot": (lambda a, c: jnp.arctan2(a, c) + jnp.hypot(a, c), [f32(20), f32(20)]),
 "round_ops": (lambda a: (jnp.round(a * 3), jnp.floor(a), jnp.ceil(a), jnp.trunc(a)), [f32(20)]),
 "is_ops": (lambda a: (jnp.isnan(a), jnp.isinf(1 / a), jnp.isfinite(a)), [f32(20)]),
 "bitcast": (lambda a: lax.bitcast_convert_type(a, jnp.int32) >> 23, [f32(20)]),
 "convert_sat": (lambda a: (a * 1e3).astype(jnp.int8), [f32(20)]),
 "f32_to_u32": (lambda a: jnp.abs(a * 100).astype(jnp.uint32), [f32(20)]),
 "integer_pow": (lambda a: a ** 3 + lax.integer_pow(a, -2), [f32(20) + 3]),
 "igamma": (lambda a, x: jax.scipy.special.gammainc(a, x), [np.abs(f32(10)) + 1, np.abs(f32(10))]),
 "lgamma_digamma": (lambda a: (jax.scipy.special.gammaln(a), jax.scipy.special.digamma(a)), [np.abs(f32(10)) + 0.5]),
 "erf_inv": (lambda a: jax.scipy.special.erfinv(a), [np.clip(f32(20), -0.99, 0.99)]),
 "bessel": (lambda a: jax.scipy.special.i0e(a), [f32(20)]),
 "segment_sum": (lambda d, s: jax.ops.segment_sum(d, s, num_segments=5), [f32(20, 3), rng.integers(0, 5, 20).astype(np.int32)]),
 "argmin_ties": (lambda a: jnp.argmin(jnp.round(a), axis=0), [f32(10, 6)]),
 "median": (lambda a: jnp.median(a, axis=1), [f32(5, 11)]),
 "quantile": (lambda a: jnp.quantile(a, 0.3), [f32(50)]),
 "tril_triu": (lambda a: jnp.tril(a) - jnp.triu(a, 1), [f32(6, 6)]),
 "roll": (lambda a: jnp.roll(a, 3, axis=1), [f32(4, 10)]),
 "tile_repeat": (lambda a: (jnp.tile(a, (2, 3)), jnp.repeat(a, 2, axis=0)), [f32(3, 4)]),
 "meshgrid_dist": (lambda a, c: jnp.sqrt(((a[:, None, :] - c[None, :, :]) ** 2).sum(-1)), [f32(10, 3), f32(8, 3)]),
 "layer_norm_bf16": (lambda a: ((a - a.mean(-1, keepdims=True)) / (a.std(-1, keepdims=True) + 1e-5)).astype(jnp.float32), [bf(8, 64)]),
 "attention": (lambda q, k, v: jax.nn.dot_product_attention(q, k, v), [f32(2, 16, 4, 8), f32(2, 16, 4, 8), f32(2, 16, 4, 8)]),
 "dot_f16": (lambda a, c: (a @ c).astype(jnp.float32), [f16(16, 32), f16(32, 8)]),
 "dot_i32_f32": (lambda a, c: lax.dot(a, c, preferred_element_type=jnp.float32), [i32(6, 7), i32(7, 3)]),
 "dot_u8": (lambda a, c: a @ c, [u8(6, 7), u8(7, 3)]),
 "dot_bool": (lambda a, c: a @ c, [b(6, 7), b(7, 3)]),
 "dot_i64": (lambda a, c: a @ c, [rng.integers(-5, 5, (6, 7)), rng.integers(-5, 5, (7, 3))]),
 "dot_c128": (lambda a, c: a @ c, [c64(5, 6).astype(np.complex128), c64(6, 4).astype(np.complex128)]),

 # More ops, types and edge cases.
 "i64_arith": (lambda a, c: (a * c + a // jnp.where(c == 0, 1, c), a >> 3, jnp.abs(a)), [i64(30), i64(30)]),
 "u64_ops": (lambda a, c: (a ^ c) + (a >> 7), [u64(30), u64(30)]),
 "i64_reduce": (lambda a: (jnp.sum(a), jnp.max(a, 0), jnp.prod(a[:5] % 7)), [i64(10, 4)]),
 "f64_dot": (lambda a, c: a @ c, [f64(20, 30), f64(30, 10)]),
 "f64_conv": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME"), [f64(1, 2, 8, 8), f64(3, 2, 3, 3)]),
 "gather_clip": (lambda a, i: jnp.take(a, i, mode="clip"), [f32(10), rng.integers(-5, 15, 20).astype(np.int32)]),
 "gather_fill": (lambda a, i: jnp.take(a, i, mode="fill", fill_value=-1.0), [f32(10), rng.integers(-5, 15, 20).astype(np.int32)]),
 "scatter_drop": (lambda a, i, u: a.at[i].set(u, mode="drop"), [f32(10), rng.integers(-5, 15, 20).astype(np.int32), f32(20)]),
 "scatter_min_2d": (lambda a, i, u: a.at[i, 1:3].min(u), [f32(10, 5), rng.integers(0, 10, 6).astype(np.int32), f32(6, 2)]),
 "dyn_slice_neg": (lambda a, i: lax.dynamic_slice(a, (i, i), (3, 3)), [f32(8, 8), np.int32(-2)]),
 "dyn_slice_big": (lambda a, i: lax.dynamic_slice(a, (i,), (4,)), [f32(10), np.int32(100)]),
 "argmax_nan": (lambda a: jnp.argmax(a, axis=1), [np.where(rng.random((5, 8)) > 0.8, np.nan, f32(5, 8)).astype(np.float32)]),
 "max_nan": (lambda a: (jnp.max(a, axis=1), jnp.maximum(a, 0.0)), [np.where(rng.random((5, 8)) > 0.8, np.nan, f32(5, 8)).astype(np.float32)]),
 "sort_nan": (lambda a: jnp.sort(a), [np.where(rng.random(20) > 0.7, np.nan, f32(20)).astype(np.float32)]),
 "sort_stable_keys": (lambda k, v: lax.sort((k, v), num_keys=1, is_stable=True), [rng.integers(0, 3, 30).astype(np.int32), f32(30)]),
 "complex_fns": (lambda a: (jnp.log(a), jnp.tanh(a), jnp.arctan(a), jnp.sinh(a)), [c64(30)]),
 "complex_div_pow": (lambda a, c: (a / c, a ** 2, jnp.abs(a) ** c.real), [c64(30), c64(30)]),
 "max_pool_grad": (jax.grad(lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") ** 2)), [f32(2, 8, 8, 3)]),
 "conv_wgrad": (jax.grad(lambda w, x: jnp.sum(lax.conv_general_dilated(x, w, (1, 1), "SAME") ** 2)), [f32(4, 3, 3, 3), f32(2, 3, 10, 10)]),
 "conv_xgrad_stride": (jax.grad(lambda x, w: jnp.sum(lax.conv_general_dilated(x, w, (2, 2), "SAME") ** 2)), [f32(2, 3, 9, 9), f32(4, 3, 3, 3)]),
 "assoc_scan": (lambda a: lax.associative_scan(jnp.add, a), [f32(37)]),
 "cumsum_rev": (lambda a: jnp.flip(jnp.cumsum(jnp.flip(a, 1), 1), 1), [f32(4, 19)]),
 "eigh_batch": (lambda a: jnp.linalg.eigh(a + jnp.swapaxes(a, -1, -2))[0], [f32(3, 7, 7)]),
 "qr_complex": (lambda a: jnp.abs(jnp.linalg.qr(a)[1]), [c64(6, 4)]),
 "svd_complex": (lambda a: jnp.linalg.svd(a, compute_uv=False), [c64(5, 7)]),
 "inv_f64": (lambda a: jnp.linalg.inv(a + 5 * np.eye(6)), [f64(6, 6)]),
 "rng_bits": (lambda k: jax.random.bits(jax.random.wrap_key_data(k), (3, 4)), [np.array([0, 9], np.uint32)]),
 "randint": (lambda k: jax.random.randint(jax.random.wrap_key_data(k), (20,), 0, 7), [np.array([1, 2], np.uint32)]),
 "categorical": (lambda k, l: jax.random.categorical(jax.random.wrap_key_data(k), l), [np.array([3, 4], np.uint32), f32(5, 6)]),
 "clamp_mixed": (lambda a: lax.clamp(jnp.float32(-0.5), a, jnp.float32(0.5)), [f32(20)]),
 "select_n": (lambda i, a, c, d: lax.select_n(i, a, c, d), [rng.integers(0, 3, 10).astype(np.int32), f32(10), f32(10), f32(10)]),
 "rem_float": (lambda a, c: jnp.fmod(a, c) + jnp.remainder(a, c), [f32(20), f32(20) + 3]),
 "expm1_log1p_small": (lambda a: (jnp.expm1(a * 1e-5), jnp.log1p(a * 1e-6)), [f32(20)]),
 "pow_edge": (lambda a, c: jnp.power(jnp.abs(a), c), [f32(20), f32(20)]),
 "sign_copysign": (lambda a, c: (jnp.sign(a), jnp.copysign(a, c)), [f32(20), f32(20)]),
 "cbrt_rsqrt": (lambda a: (jnp.cbrt(a), lax.rsqrt(jnp.abs(a) + 1)), [f32(20)]),
 "int_pow": (lambda a: a ** 3, [i32(20)]),
 "i8_overflow": (lambda a, c: (a * c, a + c, -a), [rng.integers(-128, 127, 40).astype(np.int8), rng.integers(-128, 127, 40).astype(np.int8)]),
 "u16_shift": (lambda a: (a << 5) | (a >> 11), [rng.integers(0, 65535, 40).astype(np.uint16)]),
 "convert_f2i_edge": (lambda a: (a * 1e10).astype(jnp.int32), [f32(20)]),
 "convert_nan_int": (lambda a: jnp.where(a > 0, jnp.nan, a).astype(jnp.int32), [f32(20)]),
 "f16_arith": (lambda a, c: (a * c + a / c).astype(jnp.float32), [f16(40), f16(40) + 4]),
 "reduce_window_pad": (lambda x: lax.reduce_window(x, 0., lax.add, (3, 3), (1, 1), [(1, 2), (2, 1)]), [f32(6, 7)]),
 "reduce_window_dil": (lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID", window_dilation=(2, 2)), [f32(8, 8)]),
 "transpose_4d": (lambda a: jnp.transpose(a, (2, 0, 3, 1)), [f32(3, 4, 5, 6)]),
 "broadcast_in_dim": (lambda a: jnp.broadcast_to(a[:, None, :], (4, 5, 6)) * 2, [f32(4, 6)]),
 "while_dynamic_body": (lambda a: lax.fori_loop(0, 4, lambda i, x: x.at[i].set(x[i] * 2 + i), a), [f32(6)]),
 "nested_scan": (lambda a: lax.scan(lambda c, x: (c + lax.scan(lambda d, y: (d * y, d), 1.0, x)[0], c), 0.0, a)[0], [f32(4, 5)]),
 "cond_tuple": (lambda p, a, c: lax.cond(p, lambda x, y: (y, x), lambda x, y: (x + 1, y - 1), a, c), [np.bool_(True), f32(3), f32(3)]),
 "iota_2d": (lambda a: a + lax.broadcasted_iota(jnp.int32, (4, 5), 1), [i32(4, 5)]),
 "is_close": (lambda a, c: jnp.isclose(a, c, atol=0.5), [f32(20), f32(20)]),
 "polyval": (lambda p, x: jnp.polyval(p, x), [f32(5), f32(20)]),
 "interp": (lambda x: jnp.interp(x, jnp.linspace(-2, 2, 9), jnp.sin(jnp.linspace(-2, 2, 9))), [f32(30)]),
 "logaddexp": (lambda a, c: jnp.logaddexp(a * 50, c * 50), [f32(20), f32(20)]),
 "sigmoid_grad": (jax.grad(lambda a: jnp.sum(jax.nn.sigmoid(a) * jax.nn.softplus(a))), [f32(20)]),
 "hessian": (jax.hessian(lambda a: jnp.sum(jnp.sin(a) * a[::-1])), [f32(5)]),
 # Model pieces: losses, normalization, attention, optimizers, scans.
 "xent_grad": (jax.grad(xent), [f32(32, 10), rng.integers(0, 10, 32).astype(np.int32)]),
 "bn_train": (bn_train, [f32(4, 6, 6, 8), f32(8), f32(8)]),
 "bn_grad": (jax.grad(lambda x, g, bb: jnp.sum(bn_train(x, g, bb)[0] ** 2)), [f32(4, 6, 6, 8), f32(8), f32(8)]),
 "mha_mask": (mha, [f32(2, 8, 4, 16), f32(2, 8, 4, 16), f32(2, 8, 4, 16), np.tril(np.ones((8, 8), bool))[None].repeat(2, 0)]),
 "per_example": (per_example_grads, [f32(6, 3), f32(16, 6), f32(16, 3)]),
 "remat": (jax.grad(lambda x: jnp.sum(jax.checkpoint(lambda y: jnp.sin(y) @ y.T)(x))), [f32(8, 8)]),
 "custom_vjp": (jax.grad(lambda x: jnp.sum(clip_grad(x) ** 3)), [f32(20)]),
 "embedding": (lambda e, ids: e[ids].sum(1), [f32(100, 16), rng.integers(0, 100, (8, 5)).astype(np.int32)]),
 "embedding_grad": (jax.grad(lambda e, ids: jnp.sum(e[ids] ** 2)), [f32(50, 8), rng.integers(0, 50, (6, 4)).astype(np.int32)]),
 "adamw": (lambda p, g, m, v, t: (p - 1e-3 * (m * 0.9 + 0.1 * g) / (1 - 0.9 ** t) / (jnp.sqrt((v * 0.999 + 0.001 * g * g) / (1 - 0.999 ** t)) + 1e-8) - 1e-4 * p), [f32(64, 32), f32(64, 32), f32(64, 32), np.abs(f32(64, 32)), np.float32(3)]),
 "gelu_tanh_grad": (jax.grad(lambda x: jnp.sum(jax.nn.gelu(x, approximate=True))), [f32(100)]),
 "silu_glu": (lambda x, w: jax.nn.silu(x @ w[:, :16]) * (x @ w[:, 16:]), [f32(8, 12), f32(12, 32)]),
 "rmsnorm": (lambda x, g: x * lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6) * g, [f32(4, 64), f32(64)]),
 "rope": (lambda x: jnp.concatenate([x[..., :8] * jnp.cos(jnp.arange(8.0)) - x[..., 8:] * jnp.sin(jnp.arange(8.0)), x[..., 8:] * jnp.cos(jnp.arange(8.0)) + x[..., :8] * jnp.sin(jnp.arange(8.0))], -1), [f32(2, 5, 16)]),
 "conv_bn_relu_grad": (jax.grad(lambda w, x: jnp.sum(jax.nn.relu(lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))))), [f32(3, 3, 4, 8), f32(2, 10, 10, 4)]),
 "lstm_scan": (lambda h, c, xs, w: lax.scan(lambda hc, x: ((lambda z: (jax.nn.sigmoid(z[:, 8:16]) * jnp.tanh(jax.nn.sigmoid(z[:, :8]) * hc[1] + jax.nn.sigmoid(z[:, 16:24]) * jnp.tanh(z[:, 24:])), jax.nn.sigmoid(z[:, :8]) * hc[1] + jax.nn.sigmoid(z[:, 16:24]) * jnp.tanh(z[:, 24:])))(jnp.concatenate([x, hc[0]], 1) @ w), None), (h, c), xs)[0][0], [f32(2, 8), f32(2, 8), f32(10, 2, 4), f32(12, 32)]),
 "topk_mask": (lambda x: jnp.where(x >= lax.top_k(x, 3)[0][..., -1:], x, 0.0), [f32(4, 20)]),
 "argsort_gather": (lambda x, y: y[jnp.argsort(x)], [f32(30), f32(30)]),
 "cumsum_int": (lambda x: jnp.cumsum(x), [i32(100)]),
 "cumsum_bool": (lambda x: jnp.cumsum(x.astype(jnp.int32), 1), [b(5, 20)]),
 "nonzero_size": (lambda x: jnp.nonzero(x, size=8, fill_value=-1)[0], [b(30)]),
 "where_3arg_bcast": (lambda c, x: jnp.where(c[:, None], x, -x), [b(5), f32(5, 6)]),
 "mean_int": (lambda x: jnp.mean(x, 0), [i32(10, 4)]),
 "std_ddof": (lambda x: jnp.std(x, 0, ddof=1), [f32(10, 4)]),
 "cov": (lambda x: jnp.cov(x), [f32(4, 20)]),
 "corrcoef": (lambda x: jnp.corrcoef(x), [f32(4, 20)]),
 "convolve1d": (lambda x, k: jnp.convolve(x, k, mode="same"), [f32(50), f32(7)]),
 "kron": (lambda a, c: jnp.kron(a, c), [f32(3, 3), f32(2, 4)]),
 "diag_ops": (lambda a: (jnp.diag(a), jnp.diagonal(a, 1), jnp.trace(a)), [f32(6, 6)]),
 "flip_rot": (lambda a: (jnp.rot90(a), jnp.fliplr(a)), [f32(4, 5)]),
 "split_stack": (lambda a: jnp.stack(jnp.split(a, 3, axis=1), 0).sum(0), [f32(4, 9)]),
 "pad_reflect": (lambda a: jnp.pad(a, ((2, 2), (1, 3)), mode="reflect"), [f32(5, 6)]),
 "pad_edge": (lambda a: jnp.pad(a, ((2, 1),), mode="edge"), [f32(7)]),
 "sort_2key": (lambda a, c: jnp.lexsort((a, c)), [rng.integers(0, 4, 20).astype(np.int32), rng.integers(0, 3, 20).astype(np.int32)]),
 "x64_cumsum_idx": (lambda a: jnp.cumsum(a.astype(jnp.int64)) * jnp.arange(a.shape[0]), [i32(16)]),
 "float64_reduce": (lambda a: (jnp.sum(a), jnp.prod(a[:8] + 1.5), jnp.min(a)), [f64(50)]),
 "complex_fft_conv": (lambda a, c: jnp.fft.ifft(jnp.fft.fft(a) * jnp.fft.fft(c)).real, [f32(32, 64), f32(32, 64)]),
 "rfft2": (lambda a: jnp.abs(jnp.fft.rfft2(a)), [f32(3, 16, 12)]),
 "irfft_odd": (lambda a: jnp.fft.irfft(a, n=15), [c64(6, 8)]),
 "fft_prime": (lambda a: jnp.fft.fft(a), [c64(40, 13)]),
 "fft_long": (lambda a: jnp.fft.fft(a), [c64(2, 4096)]),
 # Bit-level ops, variadic ops, random bits, linear algebra.
 "bitcast_widths": (lambda a: lax.bitcast_convert_type(a, jnp.uint8), [f32(5)]),
 "bitcast_narrow_to_wide": (lambda a: lax.bitcast_convert_type(a, jnp.float32), [rng.integers(0, 255, (5, 4)).astype(np.uint8)]),
 "convert_all": (lambda a: (a.astype(jnp.int8), a.astype(jnp.uint16), a.astype(jnp.float16), a.astype(jnp.bfloat16).astype(jnp.float32), a.astype(jnp.complex64), a.astype(bool)), [f32(20) * 100]),
 "complex_to_real": (lambda a: (a.real, a.imag, jnp.angle(a), a.astype(jnp.complex128)), [c64(20)]),
 "opt_barrier": (lambda a: lax.optimization_barrier((a * 2, a + 1))[0] + 1, [f32(10)]),
 "variadic_reduce": (lambda a, i: lax.reduce((a, i), (jnp.float32(-jnp.inf), jnp.int32(0)), lambda x, y: (jnp.maximum(x[0], y[0]), jnp.where(x[0] >= y[0], x[1], y[1])), (1,)), [f32(6, 10), i32(6, 10)]),
 "sort_3ops": (lambda a, c, d: lax.sort((a, c, d), num_keys=2), [rng.integers(0, 3, 20).astype(np.int32), f32(20), i32(20)]),
 "rbg": (lambda k: lax.rng_bit_generator(k, (4, 5), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)[1], [np.array([1, 2, 3, 4], np.uint32)]),
 "rbg_philox": (lambda k: lax.rng_bit_generator(k, (4, 5), algorithm=lax.RandomAlgorithm.RNG_PHILOX)[1], [np.array([1, 2, 3, 4], np.uint32)]),
 "rbg_default": (lambda k: lax.rng_bit_generator(k, (3, 3), dtype=jnp.uint8)[1], [np.array([5, 6, 7, 8], np.uint32)]),
 "rbg_layouts": (lambda k: tuple(lax.rng_bit_generator(k, s, dtype=d, algorithm=a)[1] for s, d, a in [((64, 520), jnp.uint32, lax.RandomAlgorithm.RNG_THREE_FRY), ((33, 1001), jnp.uint16, lax.RandomAlgorithm.RNG_THREE_FRY), ((20000, 3), jnp.uint8, lax.RandomAlgorithm.RNG_THREE_FRY), ((7, 3, 5), jnp.uint32, lax.RandomAlgorithm.RNG_THREE_FRY), ((20001,), jnp.uint64, lax.RandomAlgorithm.RNG_THREE_FRY), ((70001,), jnp.uint32, lax.RandomAlgorithm.RNG_PHILOX), ((3, 9999), jnp.uint64, lax.RandomAlgorithm.RNG_PHILOX), ((7, 3, 5), jnp.uint8, lax.RandomAlgorithm.RNG_DEFAULT)]), [np.array([3, 4, 0xFFFFFFF0, 0xFFFFFFFF], np.uint32)]),
 "eig_vals": (lambda a: jnp.sort_complex(jnp.linalg.eigvals(a)), [f32(5, 5)]),
 "schur": (lambda a: jnp.abs(jax.scipy.linalg.schur(a)[0]).sum(), [f32(6, 6)]),
 "betainc": (lambda a, b_, x: jax.scipy.special.betainc(a, b_, x), [np.abs(f32(10)) + 0.5, np.abs(f32(10)) + 0.5, np.clip(np.abs(f32(10)), 0, 1)]),
 "zeta_polygamma": (lambda x: (jax.scipy.special.zeta(x + 2, 1.0), jax.scipy.special.polygamma(1, x + 1)), [np.abs(f32(10))]),
 "logsumexp_b": (lambda a, w: jax.scipy.special.logsumexp(a, b=w, axis=0), [f32(8, 5), np.abs(f32(8, 5))]),
 "while_tuple_mixed": (lambda n, x: lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 2, s[2] | (1 << s[0])), (0, x, jnp.uint32(0)))[1:], [np.int32(5), f32(3)]),
 "cond_index": (lambda i, x: lax.switch(i, [lambda y: y, lambda y: y * 2, lambda y: -y, lambda y: y ** 2], x), [np.int32(7), f32(4)]),
 "scan_reverse": (lambda xs: lax.scan(lambda c, x: (c * 0.9 + x, c), 0.0, xs, reverse=True), [f32(12)]),
 "scan_unroll": (lambda xs: lax.scan(lambda c, x: (c + x, c), jnp.zeros(3), xs, unroll=3)[1], [f32(7, 3)]),
 "fori_dynamic_slice": (lambda a: lax.fori_loop(0, 5, lambda i, s: s + lax.dynamic_slice_in_dim(a, i, 3), jnp.zeros(3)), [f32(8)]),
 "reduce_dims": (lambda a: (a.sum((0, 2)), a.max(1), a.min((1, 2)), jnp.prod(a, 0)), [f32(3, 4, 5)]),
 "reduce_layout": (lambda a: jnp.sum(a.T, axis=0), [f32(30, 40)]),
 "transposed_out": (lambda a, c: (a @ c).T, [f32(8, 6), f32(6, 5)]),
 "big_concat": (lambda *xs: jnp.concatenate(xs, 0), [f32(2, 3) for _ in range(12)]),
 "gather_batched": (lambda a, i: jax.vmap(lambda r, j: r[j])(a, i), [f32(5, 9), rng.integers(0, 9, (5, 3)).astype(np.int32)]),
 "scatter_batched": (lambda a, i, u: jax.vmap(lambda r, j, v: r.at[j].add(v))(a, i, u), [f32(5, 9), rng.integers(0, 9, (5, 3)).astype(np.int32), f32(5, 3)]),
 "dus_batched": (lambda a, u, i: jax.vmap(lambda r, v, j: lax.dynamic_update_slice(r, v, (j,)))(a, u, i), [f32(4, 10), f32(4, 3), rng.integers(0, 10, 4).astype(np.int32)]),
 "clz_popcnt_u64": (lambda a: (lax.clz(a), lax.population_count(a)), [rng.integers(0, 1 << 62, 10, dtype=np.int64).astype(np.uint64)]),
 "shift_oob": (lambda a, s: (a << s, lax.shift_right_logical(a, s), lax.shift_right_arithmetic(a, s)), [i32(20, hi=1000), rng.integers(0, 40, 20).astype(np.int32)]),
 "int_minmax_div": (lambda a: (jnp.int32(-2**31) // jnp.where(a == 0, -1, a), jnp.int32(-2**31) % jnp.where(a == 0, -1, a)), [i32(10)]),
 "nan_minmax": (lambda a, c: (jnp.minimum(a, c), jnp.fmax(a, c)), [np.array([np.nan, 1, -0.0, 0.0], np.float32), np.array([1, np.nan, 0.0, -0.0], np.float32)]),
 "round_half": (lambda a: (jnp.round(a), lax.round(a, lax.RoundingMethod.AWAY_FROM_ZERO)), [np.array([0.5, 1.5, 2.5, -0.5, -1.5], np.float32)]),
 "expand_dims_sq": (lambda a: jnp.squeeze(jnp.expand_dims(a, (0, 2)), 0), [f32(3, 4)]),
 "einsum_complex": (lambda a, c: jnp.einsum("ij,jk->ik", a, c), [c64(4, 5), c64(5, 3)]),
 "triangular_solve_batch": (lambda a, c: jax.scipy.linalg.solve_triangular(jnp.tril(a) + 4 * jnp.eye(5), c, lower=True), [f32(3, 5, 5), f32(3, 5, 2)]),
 "lu": (lambda a: jax.scipy.linalg.lu(a)[2], [f32(5, 5)]),
 "svd_full": (lambda a: jnp.abs(jnp.linalg.svd(a)[0][:, 0]), [f32(7, 4)]),
 "matrix_rank": (lambda a: jnp.linalg.matrix_rank(a), [f32(6, 4)]),
 "cond_number": (lambda a: jnp.linalg.cond(a), [f32(4, 4)]),
 # Odd sizes and large shapes.
 "softmax_odd": (lambda x: jax.nn.softmax(x, -1), [f32(7, 1025)]),
 "softmax_col": (lambda x: jax.nn.softmax(x, 0), [f32(1023, 9)]),
 "ln_odd": (ln, [f32(3, 4099)]),
 "ln_3d": (ln, [f32(2, 5, 17)]),
 "zero_size": (lambda x, y: (x.sum(0), y @ y.T, jnp.concatenate([x, x], 1)), [f32(0, 5), f32(3, 0)]),
 "scalar_ops": (lambda x: (x.sum(), jnp.exp(x), x[None, None] * 2), [np.float32(1.5)]),
 "one_elem": (lambda x: jax.nn.softmax(x) + ln(x), [f32(1, 1)]),
 "big_reduce_all": (lambda x: (x.sum(), x.max(), jnp.argmax(x)), [f32(1000, 1001)]),
 "reduce_middle": (lambda x: x.sum(1), [f32(33, 1000, 7)]),
 "transpose_odd": (lambda x: x.T + 1, [f32(1023, 17)]),
 "transpose_3d_odd": (lambda x: jnp.transpose(x, (2, 0, 1)) * 2, [f32(5, 33, 65)]),
 "broadcast_odd": (lambda x, y: x[:, None] * y[None, :], [f32(1025), f32(7)]),
 "gemm_odd": (lambda a, c: a @ c, [f32(257, 129), f32(129, 1)]),
 "gemv": (lambda a, v: a @ v, [f32(1000, 513), f32(513)]),
 "vecmat": (lambda v, a: v @ a, [f32(513), f32(513, 1000)]),
 "batch_gemm_odd": (lambda a, c: a @ c, [f32(3, 17, 33), f32(3, 33, 5)]),
 "dot_big_batch": (lambda a, c: jnp.einsum("bij,bjk->bik", a, c), [f32(512, 4, 4), f32(512, 4, 4)]),
 "conv_1x1": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")), [f32(2, 7, 9, 13), f32(1, 1, 13, 5)]),
 "conv_big_kernel": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), [f32(1, 12, 12, 3), f32(7, 7, 3, 4)]),
 "conv_depthwise": (lambda x, w: lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=6), [f32(2, 11, 11, 6), f32(3, 3, 1, 12)]),
 "conv_batch_group": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2), [f32(4, 3, 6, 6), f32(4, 3, 3, 3)]),
 "pool_avg_valid": (lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 3, 3, 1), "VALID"), [f32(2, 10, 10, 5)]),
 "cumsum_long": (lambda x: jnp.cumsum(x, 0), [f32(5000, 3)]),
 "sort_large": (lambda x: jnp.sort(x, 0), [f32(3000, 3)]),
 "argsort_ties": (lambda x: jnp.argsort(jnp.round(x), stable=True), [f32(200)]),
 "topk_large": (lambda x: lax.top_k(x, 50), [f32(3, 5000)]),
 "gather_large": (lambda a, i: a[i], [f32(10000, 8), rng.integers(0, 10000, 3000).astype(np.int32)]),
 "scatter_large": (lambda a, i, u: a.at[i].add(u), [f32(1000, 4), rng.integers(0, 1000, 5000).astype(np.int32), f32(5000, 4)]),
 "dus_chain": (lambda a, u: lax.dynamic_update_slice(lax.dynamic_update_slice(a, u, (0, 0)), u * 2, (3, 3)), [f32(8, 8), f32(4, 4)]),
 "where_nan_prop": (lambda x: jnp.where(jnp.isnan(x), 0.0, x).sum(), [np.where(rng.random(100) > 0.9, np.nan, f32(100)).astype(np.float32)]),
 "mixed_precision": (lambda x, w: (x.astype(jnp.bfloat16) @ w.astype(jnp.bfloat16)).astype(jnp.float32).sum(), [f32(33, 65), f32(65, 17)]),
 "f16_matmul": (lambda x, w: (x.astype(jnp.float16) @ w.astype(jnp.float16)).astype(jnp.float32), [f32(33, 65), f32(65, 17)]),
 "int_reduce_overflow": (lambda x: jnp.sum(x * 100000, dtype=jnp.int32), [i32(1000, hi=30000)]),
 "complex_matvec": (lambda a, v: a @ v, [c64(17, 9), c64(9)]),
 "while_large_state": (lambda x: lax.fori_loop(0, 3, lambda i, s: jnp.roll(s, 1, 0) * 0.5 + s, x), [f32(500, 64)]),
 # Less common library functions.
 "cumlogsumexp": (lambda x: lax.cumlogsumexp(x, axis=1), [f32(4, 30)]),
 "cummin_int": (lambda x: lax.cummin(x, axis=0), [i32(20, 3)]),
 "sort_complex": (lambda x: jnp.sort_complex(x), [c64(20)]),
 "einsum_repeated": (lambda a, c: jnp.einsum("iij,jk->ik", a, c), [f32(4, 4, 5), f32(5, 3)]),
 "convolve2d": (lambda x, k: jax.scipy.signal.convolve2d(x, k, mode="same"), [f32(12, 14), f32(3, 5)]),
 "slogdet_complex": (lambda a: jnp.linalg.slogdet(a), [c64(5, 5)]),
 "eigh_complex": (lambda a: jnp.linalg.eigh(a + jnp.conj(a.T))[0], [c64(6, 6)]),
 "fftshift": (lambda x: jnp.fft.fftshift(jnp.fft.fft(x), axes=-1), [c64(3, 10)]),
 "digitize": (lambda x: jnp.digitize(x, jnp.linspace(-2, 2, 7)), [f32(40)]),
 "histogram2d": (lambda x, y: jnp.histogram2d(x, y, bins=4, range=[[-2, 2], [-2, 2]])[0], [f32(100), f32(100)]),
 "softmax_where": (lambda x, m: jax.nn.softmax(x, where=m), [f32(4, 9), b(4, 9) | np.eye(4, 9, dtype=bool)]),
 "normalize": (lambda x: jax.nn.standardize(x, axis=-1), [f32(5, 16)]),
 "reduce_precision_bf16": (lambda x: lax.reduce_precision(x, 8, 7), [f32(30) * 1e3]),
 "gcd_lcm": (lambda a, c: (jnp.gcd(a, c), jnp.lcm(a, c)), [i32(20, hi=50), i32(20, hi=50)]),
 "nan_reductions": (lambda x: (jnp.nansum(x), jnp.nanmax(x, 0), jnp.nanmean(x, 1)), [np.where(rng.random((5, 6)) > 0.7, np.nan, f32(5, 6)).astype(np.float32)]),
 "ptp_var": (lambda x: (jnp.ptp(x, 1), jnp.var(x, 0)), [f32(6, 7)]),
 "outer_int": (lambda a, c: jnp.outer(a, c), [i32(9), i32(7)]),
 "cross": (lambda a, c: jnp.cross(a, c), [f32(10, 3), f32(10, 3)]),
 "unravel": (lambda i: jnp.unravel_index(i, (4, 5, 6)), [rng.integers(0, 120, 15).astype(np.int32)]),
 "ravel_multi": (lambda i, j: jnp.ravel_multi_index((i, j), (7, 9), mode="clip"), [rng.integers(-2, 9, 12).astype(np.int32), rng.integers(-2, 11, 12).astype(np.int32)]),
 # Narrow float types, mixed-type convolutions and dots.
 "f8_roundtrip": (lambda x: (x.astype(jnp.float8_e4m3fn).astype(jnp.float32), x.astype(jnp.float8_e5m2).astype(jnp.float32)), [f32(40) * 30]),
 "f8_all_formats": (lambda x: tuple(x.astype(t).astype(jnp.float32) for t in (jnp.float8_e5m2, jnp.float8_e4m3fn, jnp.float8_e4m3fnuz, jnp.float8_e5m2fnuz, jnp.float8_e4m3b11fnuz)), [np.concatenate([f32(200) * 100, f32(200) * 1e-3, np.array([np.inf, -np.inf, np.nan, 0, -0.0, 1e6, 448, 464, 465, 57344, 61440], np.float32)])]),
 "f8_matmul_scaled": (lambda x, w: lax.dot(x.astype(jnp.float8_e4m3fn), w.astype(jnp.float8_e4m3fn), preferred_element_type=jnp.float32), [f32(16, 32), f32(32, 8)]),
 "f8_e5m2_grad_cast": (lambda x: (jnp.tanh(x.astype(jnp.float8_e5m2).astype(jnp.float32)) * 3).astype(jnp.float8_e5m2).astype(jnp.bfloat16).astype(jnp.float32), [f32(64)]),
 "f8_arith": (lambda x, y: (x.astype(jnp.float8_e4m3fn) * y.astype(jnp.float8_e4m3fn)).astype(jnp.float32), [f32(30), f32(30)]),
 "conv_bf16": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME").astype(jnp.float32), [bf(2, 3, 9, 9), bf(4, 3, 3, 3)]),
 "conv_f16": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME").astype(jnp.float32), [f16(1, 4, 8, 8), f16(5, 4, 3, 3) * 0.3]),
 "conv_bf16_pref": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", preferred_element_type=jnp.float32), [bf(2, 3, 9, 9), bf(4, 3, 3, 3)]),
 "conv_int": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME"), [i32(1, 2, 7, 7), i32(3, 2, 3, 3)]),
 "conv_int8_relu": (lambda x, w: jnp.maximum(lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), preferred_element_type=jnp.int32), 0), [i32(2, 9, 9, 16, hi=128).astype(np.int8), i32(3, 3, 16, 8, hi=128).astype(np.int8)]),
 "conv_int_wrap": (lambda x, w: lax.conv_general_dilated(x, w, (2, 1), "SAME", feature_group_count=2), [i32(2, 4, 9, 9, hi=1 << 30), i32(6, 2, 3, 3, hi=1 << 30)]),
 "conv_f64_depthwise": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=4), [f64(2, 4, 6, 6), f64(4, 1, 3, 3)]),
 "conv_lhs_dilation": (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), [(2, 2), (1, 1)], lhs_dilation=(2, 3)), [f32(2, 3, 5, 6), f32(4, 3, 3, 2)]),
 "conv_1d_grad": (jax.grad(lambda w, x: jnp.sum(lax.conv_general_dilated(x, w, (2,), "SAME", rhs_dilation=(2,)) ** 2)), [f32(4, 3, 5), f32(2, 3, 31)]),
 "dot_bf16_pref": (lambda a, c: lax.dot(a, c, preferred_element_type=jnp.float32), [bf(16, 40), bf(40, 12)]),
 "dot_general_odd_dims": (lambda a, c: lax.dot_general(a, c, (((0,), (2,)), ((2,), (0,)))), [f32(5, 4, 3), f32(3, 6, 5)]),
 "einsum_3": (lambda a, c, d: jnp.einsum("ij,jk,kl->il", a, c, d), [f32(5, 6), f32(6, 7), f32(7, 3)]),
 "einsum_batch_mid": (lambda a, c: jnp.einsum("ibj,jbk->bik", a, c), [f32(4, 3, 5), f32(5, 3, 6)]),
 "dot_f64_big": (lambda a, c: a @ c, [f64(130, 70), f64(70, 90)]),
 "dot_i8_i32_pref": (lambda a, c: lax.dot(a, c, preferred_element_type=jnp.int32), [rng.integers(-128, 127, (20, 300)).astype(np.int8), rng.integers(-128, 127, (300, 9)).astype(np.int8)]),
 # Pooling, resizing, windows.
 "maxpool_bf16": (lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").astype(jnp.float32), [bf(2, 8, 8, 3)]),
 "avgpool_f16": (lambda x: (lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9).astype(jnp.float32), [f16(1, 7, 7, 2)]),
 "reduce_window_base_dil": (lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "VALID", base_dilation=(2, 1)), [f32(5, 6)]),
 "reduce_window_int": (lambda x: lax.reduce_window(x, 0, lax.add, (3,), (2,), "SAME"), [i32(20)]),
 "resize_bilinear": (lambda x: jax.image.resize(x, (2, 13, 11, 3), "bilinear"), [f32(2, 6, 5, 3)]),
 "resize_nearest": (lambda x: jax.image.resize(x, (9, 7), "nearest"), [f32(4, 3)]),
 "resize_cubic_down": (lambda x: jax.image.resize(x, (5, 4), "cubic"), [f32(16, 12)]),
 # Scatter and gather variants.
 "scatter_unique": (lambda a, u: a.at[jnp.array([1, 4, 7])].set(u, unique_indices=True, indices_are_sorted=True), [f32(10), f32(3)]),
 "scatter_apply": (lambda a, i: a.at[i].apply(jnp.sin), [f32(12), rng.integers(0, 12, 5).astype(np.int32)]),
 "scatter_3d_window": (lambda a, i, u: a.at[:, i, 1:3].add(u), [f32(3, 8, 5), rng.integers(0, 8, 4).astype(np.int32), f32(3, 4, 2)]),
 "gather_strided": (lambda a, i: a[:, i, ::2], [f32(3, 8, 9), rng.integers(0, 8, 5).astype(np.int32)]),
 "scatter_int_dups": (lambda a, i: a.at[i].add(1), [i32(10), rng.integers(0, 10, 40).astype(np.int32)]),
 "scatter_bf16": (lambda a, i, u: a.at[i].add(u).astype(jnp.float32), [bf(10), rng.integers(0, 10, 6).astype(np.int32), bf(6)]),
 "dus_u8": (lambda a, u, i: lax.dynamic_update_slice(a, u, (i,)), [u8(20), u8(5), np.int32(17)]),
 "gather_u64": (lambda a, i: a[i], [u64(30), rng.integers(0, 30, 12).astype(np.int32)]),
 # Sorting and selection over more types.
 "sort_bf16": (lambda x: jnp.sort(x).astype(jnp.float32), [bf(40)]),
 "sort_u64_desc": (lambda x: jnp.sort(x)[::-1], [u64(33)]),
 "sort_i8_axis0": (lambda x: jnp.sort(x, axis=0), [rng.integers(-128, 127, (20, 3)).astype(np.int8)]),
 "argmax_bf16": (lambda x: jnp.argmax(x, axis=1), [bf(6, 40)]),
 "argmin_3d_axis0": (lambda x: jnp.argmin(x, axis=0), [f32(7, 4, 5)]),
 "top_k_int": (lambda x: lax.top_k(x, 4), [i32(3, 30, hi=1000)]),
 "approx_max_k": (lambda x: lax.approx_max_k(x, 5)[0], [f32(4, 100)]),
 "isin_setdiff": (lambda a, c: (jnp.isin(a, c), jnp.setdiff1d(a, c, size=10, fill_value=-1)), [i32(20), i32(8)]),
 # Reductions over more types and shapes.
 "reduce_f16_long": (lambda x: jnp.sum(x, dtype=jnp.float32), [f16(5000)]),
 "mean_bf16_big": (lambda x: jnp.mean(x, axis=0).astype(jnp.float32), [bf(2000, 4)]),
 "reduce_xor_and": (lambda x: (lax.reduce_xor_p.bind(x, axes=(0,)), lax.reduce_and_p.bind(x > 0, axes=(1,))), [i32(6, 7, hi=1000)]),
 "multi_reduce": (lambda x: lax.reduce((x, x), (jnp.float32(0), jnp.float32(-jnp.inf)), lambda a, c: (a[0] + c[0], jnp.maximum(a[1], c[1])), (1,)), [f32(5, 9)]),
 "cumsum_bf16": (lambda x: jnp.cumsum(x, axis=0).astype(jnp.float32), [bf(50, 3)]),
 "cumprod_int": (lambda x: jnp.cumprod(x, axis=1), [i32(4, 12, hi=3)]),
 # Control flow.
 "while_data_dep": (lambda x: lax.while_loop(lambda s: s[1].sum() < 100.0, lambda s: (s[0] + 1, s[1] * 1.5 + 0.1), (0, jnp.abs(x)))[0], [f32(6)]),
 "nested_while": (lambda x: lax.fori_loop(0, 3, lambda i, s: lax.fori_loop(0, i + 1, lambda j, t: t * 1.1 + j, s), x), [f32(4)]),
 "scan_cond": (lambda xs: lax.scan(lambda c, x: (lax.cond(x > 0, lambda v: v + x, lambda v: v * 0.5, c), c), jnp.float32(0), xs), [f32(15)]),
 "return_param_twice": (lambda x: (x, x, x * 2), [f32(5)]),
 "return_constant": (lambda x: (jnp.arange(6.0), x), [f32(3)]),
 # Random numbers (threefry and rbg).
 "random_normal": (lambda k: jax.random.normal(jax.random.wrap_key_data(k), (5, 6)), [np.array([0, 3], np.uint32)]),
 "random_gamma": (lambda k: jax.random.gamma(jax.random.wrap_key_data(k), jnp.array([0.5, 1.0, 3.0]), (4, 3)), [np.array([1, 3], np.uint32)]),
 "random_split_fold": (lambda k: jax.random.key_data(jax.random.fold_in(jax.random.split(jax.random.wrap_key_data(k), 3)[1], 7)), [np.array([2, 5], np.uint32)]),
 "random_truncnorm": (lambda k: jax.random.truncated_normal(jax.random.wrap_key_data(k), -1.0, 1.0, (10,)), [np.array([4, 4], np.uint32)]),
 "rbg_uniform": (lambda k: jax.random.uniform(jax.random.wrap_key_data(k, impl="rbg"), (3, 4)), [np.array([1, 2, 3, 4], np.uint32)]),
 # Special functions and activations.
 "special_misc": (lambda x: (jax.scipy.special.ndtri(jax.nn.sigmoid(x)), jax.scipy.special.log_ndtr(x), jax.scipy.special.xlogy(jnp.abs(x), jnp.abs(x) + 1), jax.scipy.special.erfc(x)), [f32(30)]),
 "special_f64": (lambda x: (jax.scipy.special.gammaln(jnp.abs(x) + 0.1), jax.scipy.special.erfinv(jnp.tanh(x)), jax.scipy.special.i1e(x)), [f64(30)]),
 "activations": (lambda x: (jax.nn.gelu(x, approximate=False), jax.nn.mish(x), jax.nn.selu(x), jax.nn.celu(x), jax.nn.log_sigmoid(x), jax.nn.relu6(x * 4), jax.nn.hard_tanh(x)), [f32(50) * 3]),
 "softplus_large": (lambda x: jax.nn.softplus(x * 50), [f32(30)]),
 "erf_big": (lambda x: lax.erf(x), [f32(256, 1024) * 2]),
 "frexp_ldexp": (lambda x: (jnp.frexp(x)[0], jnp.frexp(x)[1], jnp.ldexp(x, 3)), [f32(20) * 100]),
 "nextafter_f64": (lambda a, c: jnp.nextafter(a, c), [f64(10), f64(10)]),
 # Conversions and integer edge cases.
 "convert_u64_f32": (lambda x: (x.astype(jnp.float32), x.astype(jnp.float64), (x >> 20).astype(jnp.int8)), [rng.integers(0, 1 << 63, 20, dtype=np.uint64)]),
 "convert_f64_u64": (lambda x: (jnp.abs(x * 1e15).astype(jnp.uint64), (x * 1e5).astype(jnp.int64), x.astype(jnp.float16)), [f64(20)]),
 "abs_int_min": (lambda x: (jnp.abs(x), -x, jnp.sign(x)), [np.array([-2**31, -1, 0, 1, 2**31 - 1], np.int32)]),
 "int_pow_neg_base": (lambda x: lax.integer_pow(x, 5), [i32(20, hi=80)]),
 "u32_neg_div": (lambda a, c: (-a, a // jnp.maximum(c, 1), a % jnp.maximum(c, 1)), [rng.integers(0, 1 << 32, 20, dtype=np.uint64).astype(np.uint32), rng.integers(0, 1000, 20).astype(np.uint32)]),
 "bool_ops": (lambda a, c: (~a, a ^ c, jnp.logical_and(a, c).sum(), lax.reduce_or_p.bind(a, axes=(0,))), [b(6, 7), b(6, 7)]),
 # Shapes: layouts, odd transposes, big fusions.
 "transpose_bf16_3d": (lambda x: jnp.transpose(x, (1, 2, 0)).astype(jnp.float32), [bf(5, 17, 33)]),
 "transpose_c64": (lambda x: jnp.transpose(x, (2, 0, 1)) * 1j, [c64(3, 4, 5)]),
 "slice_strided_3d": (lambda x: x[::2, 1::3, ::-2], [f32(9, 10, 11)]),
 "pad_interior_int": (lambda x: lax.pad(x, jnp.int32(-1), [(1, 2, 2), (0, -1, 1)]), [i32(4, 5)]),
 "concat_bool_u8": (lambda a, c, d: (jnp.concatenate([a, c]), jnp.concatenate([d, d[::-1]])), [b(5), b(3), u8(7)]),
 "long_chain": (lambda x: functools.reduce(lambda v, k: jnp.sin(v) * 0.9 + jnp.cos(v * (1 + k % 3)) * 0.1, range(40), x), [f32(1000)]),
 "select_piecewise": (lambda x: (jnp.select([x < -1, x > 1], [x * 2, x * 3], x), jnp.piecewise(x, [x < 0], [lambda v: -v, lambda v: v ** 2])), [f32(30)]),
 # Linear algebra at moderate sizes.
 "eigh_64_vectors": (lambda a: jnp.abs(jnp.linalg.eigh(a + a.T)[1][:, -1]), [f64(64, 64)]),
 "svd_f64_40x30": (lambda a: jnp.linalg.svd(a, compute_uv=False), [f64(40, 30)]),
 "qr_f64_complete": (lambda a: jnp.abs(jnp.linalg.qr(a, mode="complete")[1]), [f64(12, 7)]),
 "cholesky_64": (lambda a: jnp.linalg.cholesky(a @ a.T + 64 * jnp.eye(64)), [f32(64, 64)]),
 "solve_64": (lambda a, c: jnp.linalg.solve(a + 8 * jnp.eye(64), c), [f32(64, 64), f32(64, 3)]),
 "pinv": (lambda a: jnp.linalg.pinv(a), [f64(6, 4)]),
 "slogdet_f64": (lambda a: jnp.linalg.slogdet(a), [f64(4, 7, 7)]),
 "fft_c128": (lambda a: (jnp.fft.ifft2(a), jnp.fft.rfft(a.real, axis=0)), [c64(6, 10).astype(np.complex128)]),
 # Linear algebra through LAPACK custom calls and library routines.
 "tridiagonal_solve": (lambda dl, d, du, b_: lax.linalg.tridiagonal_solve(dl, d, du, b_), [np.concatenate([[0], f32(7)]).astype(np.float32), f32(8) + 4, np.concatenate([f32(7), [0]]).astype(np.float32), f32(8, 2)]),
 "lu_factor_solve": (lambda a, c: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a), c), [f32(6, 6) + 3 * np.eye(6, dtype=np.float32), f32(6, 2)]),
 "solve_tri_right_trans": (lambda a, c: lax.linalg.triangular_solve(jnp.tril(a) + 3 * jnp.eye(5, dtype=a.dtype), c, left_side=False, lower=True, transpose_a=True), [f32(5, 5), f32(3, 5)]),
 "cholesky_upper_c64": (lambda a: jnp.abs(jax.scipy.linalg.cholesky(a @ jnp.conj(a.T) + 6 * jnp.eye(5, dtype=a.dtype), lower=False)), [c64(5, 5)]),
 "eigh_c128_batch": (lambda a: jnp.linalg.eigh(a + jnp.conj(jnp.swapaxes(a, -1, -2)))[0], [c64(2, 5, 5).astype(np.complex128)]),
 "solve_c128": (lambda a, c: jnp.linalg.solve(a + 4 * jnp.eye(4), c), [c64(4, 4).astype(np.complex128), c64(4).astype(np.complex128)]),
 "svd_wide_f32": (lambda a: jnp.linalg.svd(a, compute_uv=False), [f32(6, 20)]),
 "qr_batch_reduced": (lambda a: jnp.abs(jnp.linalg.qr(a)[1]), [f32(3, 8, 5)]),
 "inv_batch_f32": (lambda a: jnp.linalg.inv(a + 4 * jnp.eye(5)), [f32(4, 5, 5)]),
 "sqrtm_polar": (lambda a: jnp.abs(jax.scipy.linalg.polar(a + 3 * jnp.eye(4))[1]), [f64(4, 4)]),
 "hfft_ihfft": (lambda a, c: (jnp.fft.hfft(a, n=10), jnp.fft.ihfft(c)), [c64(3, 6), f32(3, 10)]),
 "fftconvolve": (lambda x, k: jax.scipy.signal.fftconvolve(x, k, mode="same"), [f32(40), f32(9)]),
 # Selection and searching.
 "argpartition": (lambda x: jnp.sort(jnp.partition(x, 4, axis=1)[:, :5], axis=1), [f32(3, 12)]),
 "top_k_f16": (lambda x: lax.top_k(x, 3)[0].astype(jnp.float32), [f16(4, 20)]),
 "searchsorted_right": (lambda a, v: (jnp.searchsorted(a, v, side="right"), jnp.searchsorted(a, v, method="compare_all")), [np.sort(np.round(f32(30))), np.round(f32(12))]),
 "unique_counts": (lambda a: jnp.unique(a, size=8, return_counts=True, fill_value=0), [rng.integers(0, 6, 25).astype(np.int32)]),
 "nanargmax_pct": (lambda x: (jnp.nanargmax(x, axis=1), jnp.nanpercentile(x, 40, axis=1)), [np.where(rng.random((4, 9)) > 0.8, np.nan, f32(4, 9)).astype(np.float32)]),
 "sort_2keys_float": (lambda a, c, d: lax.sort((a, c, d), num_keys=2), [np.round(f32(25)), np.round(f32(25)), f32(25)]),
 # Random distributions (threefry).
 "random_choice_noreplace": (lambda k: jax.random.choice(jax.random.wrap_key_data(k), 20, (6,), replace=False), [np.array([0, 11], np.uint32)]),
 "random_dirichlet": (lambda k: jax.random.dirichlet(jax.random.wrap_key_data(k), jnp.array([0.5, 1.0, 2.0]), (3,)), [np.array([5, 1], np.uint32)]),
 "random_mvn": (lambda k: jax.random.multivariate_normal(jax.random.wrap_key_data(k), jnp.zeros(3), jnp.eye(3) * 2 + 0.5, (4,)), [np.array([2, 2], np.uint32)]),
 "random_orthogonal": (lambda k: jnp.abs(jax.random.orthogonal(jax.random.wrap_key_data(k), 4)), [np.array([8, 1], np.uint32)]),
 "random_poisson": (lambda k: jax.random.poisson(jax.random.wrap_key_data(k), 3.5, (10,)), [np.array([6, 6], np.uint32)]),
 "random_bernoulli_perm": (lambda k: (jax.random.bernoulli(jax.random.wrap_key_data(k), 0.3, (12,)), jax.random.permutation(jax.random.wrap_key_data(k), jnp.arange(9.0))), [np.array([3, 9], np.uint32)]),
 # Control flow and transformations.
 "switch_clamped": (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos], x), [np.int32(7), f32(4)]),
 "cond_mixed_types": (lambda p, x, n: lax.cond(p, lambda a, m: (a * 2, m + 1), lambda a, m: (a - 1, m * 2), x, n), [np.bool_(False), f32(3), np.int64(5)]),
 "map_batch_size": (lambda x: lax.map(lambda r: jnp.sum(r ** 2), x, batch_size=3), [f32(8, 5)]),
 "custom_jvp": (jax.grad(lambda x: jnp.sum(jax.nn.relu(x) * jax.nn.softplus(x))), [f32(20)]),
 "stop_grad_remat_policy": (jax.grad(lambda x: jnp.sum(jax.checkpoint(lambda y: jnp.tanh(y) * lax.stop_gradient(y), policy=jax.checkpoint_policies.nothing_saveable)(x) ** 2)), [f32(10)]),
 "while_bool_i64": (lambda x: lax.while_loop(lambda s: s[2] & (s[1] < 50), lambda s: (s[0] * 1.5, s[1] + jnp.int64(7), s[0].sum() < 1e3), (x, jnp.int64(0), True)), [f32(4)]),
 "vmap_cond": (jax.vmap(lambda p, x: lax.cond(p > 0, lambda y: y * 2, lambda y: -y, x)), [f32(6), f32(6, 3)]),
 "jacfwd_jacrev": (lambda x: (jax.jacfwd(jnp.sin)(x), jax.jacrev(lambda y: jnp.cumsum(y ** 2))(x)), [f32(5)]),
 # Models: small training steps.
 "cnn_train_step": (jax.grad(lambda w1, w2, x: jnp.mean((lax.reduce_window(jax.nn.relu(lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").reshape(2, -1) @ w2) ** 2), argnums=(0, 1)), [f32(3, 3, 3, 8) * 0.3, f32(128, 4) * 0.1, f32(2, 8, 8, 3)]),
 "gru_step": (lambda h, x, w, u: (lambda z, r: (1 - z) * h + z * jnp.tanh(x @ w[:, 16:] + (r * h) @ u[:, 16:]))(jax.nn.sigmoid(x @ w[:, :8] + h @ u[:, :8]), jax.nn.sigmoid(x @ w[:, 8:16] + h @ u[:, 8:16])), [f32(4, 8), f32(4, 6), f32(6, 24), f32(8, 24)]),
 "causal_attn_dropout": (lambda q, k_, v, key: jnp.einsum("bqk,bkd->bqd", jnp.where(jax.random.bernoulli(jax.random.wrap_key_data(key), 0.9, (2, 8, 8)), jax.nn.softmax(jnp.where(jnp.tril(jnp.ones((8, 8), bool)), jnp.einsum("bqd,bkd->bqk", q, k_), -1e9), -1), 0.0) / 0.9, v), [f32(2, 8, 4), f32(2, 8, 4), f32(2, 8, 4), np.array([1, 5], np.uint32)]),
 "vae_step": (jax.grad(lambda w, x, key: (lambda mu, lv: jnp.sum((jax.nn.sigmoid((mu + jnp.exp(0.5 * lv) * jax.random.normal(jax.random.wrap_key_data(key), mu.shape)) @ w[:4, :8]) - x) ** 2) - 0.5 * jnp.sum(1 + lv - mu ** 2 - jnp.exp(lv)))(x @ w[:, 8:12], x @ w[:, 12:16])), [f32(8, 16) * 0.2, f32(5, 8), np.array([4, 2], np.uint32)]),
 # Integer and bit edge cases.
 "int16_arith": (lambda a, c: (a * c, a // jnp.where(c == 0, 1, c), a << 3, jnp.abs(a)), [rng.integers(-30000, 30000, 30).astype(np.int16), rng.integers(-300, 300, 30).astype(np.int16)]),
 "u32_shifts_rot": (lambda a, s: (a << s) | (a >> (32 - s)), [rng.integers(0, 1 << 32, 20, dtype=np.uint64).astype(np.uint32), rng.integers(0, 32, 20).astype(np.uint32)]),
 "bitwise_count_i8": (lambda a: (jnp.bitwise_count(a), jnp.left_shift(a, 2), jnp.invert(a)), [rng.integers(-128, 127, 20).astype(np.int8)]),
 "take_negative_wrap": (lambda a, i: jnp.take(a, i, mode="wrap"), [f32(10), rng.integers(-25, 25, 15).astype(np.int32)]),
 "dyn_slice_i64_u8_idx": (lambda a, i, j: (lax.dynamic_slice(a, (i, 0), (2, 3)), lax.dynamic_slice(a, (j, j), (3, 2))), [f32(6, 5), np.int64(3), np.uint8(250)]),
 "cumsum_rev_i64": (lambda a: (lax.cumsum(a, axis=0, reverse=True), lax.cumprod(a.astype(jnp.float64) * 0.5 + 1, axis=0)), [i64(12)]),
 "reduce_precision_f64": (lambda x: lax.reduce_precision(x, 8, 23), [f64(20) * 1e10]),
 "einsum_ellipsis": (lambda a, c: jnp.einsum("...ij,...jk->...ik", a, c), [f32(2, 3, 4, 5), f32(3, 5, 2)]),
 "where_f16_reduce": (lambda x, m: jnp.sum(x, where=m, axis=1).astype(jnp.float32), [f16(5, 30), b(5, 30)]),
 "complex_abs_angle_128": (lambda a: (jnp.abs(a), jnp.angle(a), jnp.sqrt(a), jnp.log1p(a)), [c64(20).astype(np.complex128)]),
 # Loop and branch state that buffers may share.
 "while_passthrough_state": (lambda x, y: lax.while_loop(lambda s: (s[0].sum() < 50) & (s[2] > 0), lambda s: (s[0] * 2 + 1, s[1], s[2]), (x, y, jnp.int32(3))), [np.abs(f32(4)), f32(3)]),
 "while_same_value_twice": (lambda x: lax.while_loop(lambda s: s[0].sum() < s[1].sum() + 20, lambda s: (s[0] + 1, s[1]), (x, x)), [f32(5)]),
 "while_zero_trips": (lambda x: lax.while_loop(lambda s: s[1] > 100, lambda s: (s[0] * 3, s[1] + 1, ~s[2]), (x, jnp.int32(0), jnp.bool_(True))), [f32(4)]),
 "fori_zero_trips": (lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 2, x), [f32(4), np.int32(0)]),
 "nested_while_outer_state": (lambda x: lax.while_loop(lambda s: s[1] < 3, lambda s: (lax.while_loop(lambda t: t[1] < s[1] + 2, lambda t: (t[0] + s[0], t[1] + 1), (s[0], jnp.int32(0)))[0], s[1] + 1), (x, jnp.int32(0)))[0], [f32(3)]),
 "cond_returns_operand": (lambda p, x, y: lax.cond(p, lambda a, b: (a, b), lambda a, b: (b, a), x, y), [np.bool_(False), f32(4), f32(4)]),
 "cond_pred_from_state": (lambda x: lax.fori_loop(0, 6, lambda i, s: (lax.cond(s[1], lambda v: v * 2, lambda v: v - 1, s[0]), ~s[1]), (x, jnp.bool_(True))), [f32(3)]),
 "scan_pred_int_carry": (lambda xs: lax.scan(lambda c, x: ((c[0] | (x > 1), c[1] + (x > 0).astype(jnp.int32)), c[0]), (jnp.bool_(False), jnp.int32(0)), xs), [f32(12)]),
 "while_dus_state_cond": (lambda x: lax.while_loop(lambda s: s[0][s[1] % 5] < 100, lambda s: (s[0].at[s[1] % 5].set(s[0][s[1] % 5] * 3 + 1), s[1] + 1), (jnp.abs(x), jnp.int32(0)))[0], [f32(5)]),
 "while_sort_inside": (lambda x: lax.fori_loop(0, 3, lambda i, v: jnp.sort(v * -1.5 + i), x), [f32(9)]),
 "while_scatter_state": (lambda x, idx: lax.fori_loop(0, 4, lambda i, v: v.at[idx].add(1.0), x), [f32(6), rng.integers(0, 6, 5).astype(np.int32)]),
 "outputs_alias_input": (lambda x: (x, x + 1, x, jnp.zeros_like(x)), [f32(5)]),
 "while_cond_uses_lax_cond": (lambda x: lax.while_loop(lambda s: lax.cond(s[1] < 4, lambda: s[0].sum() < 1e6, lambda: False), lambda s: (s[0] * 2, s[1] + 1), (x, jnp.int32(0))), [f32(3)]),
 "while_state_read_after": (lambda x: (lambda r: (r[0] + r[1], r[2]))(lax.while_loop(lambda s: s[2] < 5, lambda s: (s[1], s[0] + s[1], s[2] + 1), (x, x * 2, jnp.int32(0)))), [f32(4)]),
 "switch_in_scan": (lambda xs: lax.scan(lambda c, x: (lax.switch(jnp.clip(c, 0, 2).astype(jnp.int32), [lambda v: v + 1.0, lambda v: v * 0.5, lambda v: v - 2.0], c + x), c), 0.0, xs), [f32(10)]),
 # Annotations and single-device parallelism constructs.
 "named_scope_composite": (lambda x: jax.named_call(lambda y: lax.composite(lambda z: jnp.tanh(z) * 2, name="my.tanh2")(y) + 1, name="outer")(x), [f32(8)]),
 "sharding_constraint": (lambda x: jax.lax.with_sharding_constraint(x * 2, jax.sharding.SingleDeviceSharding(jax.devices()[0])) + 1, [f32(4, 4)]),
 "pmap_psum_1dev": (lambda x: jax.pmap(lambda v: lax.psum(v, "i") + lax.axis_index("i"), axis_name="i")(x[None])[0], [f32(5)]),
 "vmap_axis_index_psum": (lambda x: jax.vmap(lambda v: v - lax.pmean(v, "b"), axis_name="b")(x), [f32(4, 3)]),
 "shard_map_1dev": (lambda x: jax.experimental.shard_map.shard_map(lambda v: v * 2 + lax.psum(v.sum(), "d"), mesh=jax.sharding.Mesh(np.array(jax.devices()[:1]), ("d",)), in_specs=jax.sharding.PartitionSpec("d"), out_specs=jax.sharding.PartitionSpec("d"))(x), [f32(4, 2)]),
 "large_constant": (lambda x: x @ jnp.asarray(np.linspace(-1, 1, 64 * 48).reshape(64, 48).astype(np.float32)), [f32(3, 64)]),
 "checkify_like_select": (lambda x: jnp.where(jnp.isfinite(x).all(), x / jnp.linalg.norm(x), jnp.zeros_like(x)), [f32(10)]),
 # Math functions on special values: +-0, +-inf, nan, tiny, huge, domain edges.
 **{f"edge_{n}_{t.__name__}": (f, [np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, 1e-30, 1e-7, 0.5, -0.5, 1.0, -1.0, 2.0, 3.0, 10.0, -10.0, 88.7, 89.0, -103.0, -104.0, 709.0, 1e10, -1e10, 3e38, -3e38, 0.99999994, -0.99999994, 1.0000001], np.float64).astype(t)])
    for n, f in [("exp", jnp.exp), ("log", jnp.log), ("log1p", jnp.log1p), ("expm1", jnp.expm1), ("tanh", jnp.tanh), ("logistic", jax.nn.sigmoid), ("erf", lax.erf), ("erfc", lax.erfc), ("erf_inv", lax.erf_inv), ("sin", jnp.sin), ("cos", jnp.cos), ("tan", jnp.tan), ("atan", jnp.arctan), ("asin", jnp.arcsin), ("acos", jnp.arccos), ("sinh", jnp.sinh), ("cosh", jnp.cosh), ("asinh", jnp.arcsinh), ("acosh", jnp.arccosh), ("atanh", jnp.arctanh), ("sqrt", jnp.sqrt), ("rsqrt", lax.rsqrt), ("cbrt", jnp.cbrt), ("lgamma", lax.lgamma), ("digamma", lax.digamma), ("softplus", jax.nn.softplus), ("gelu", jax.nn.gelu), ("round", jnp.round), ("sign", jnp.sign)]
    for t in (np.float32, np.float64)},
 "edge_pow": (lambda a, c: (jnp.power(a, c), lax.pow(jnp.abs(a), c)), [np.array([0.0, -0.0, 0.0, 1.0, -1.0, 2.0, -2.0, np.inf, -np.inf, np.nan, 1.0, 0.5, -8.0, 1e-30], np.float32), np.array([0.0, -1.0, -np.inf, np.nan, np.inf, 0.5, 3.0, -2.0, -0.5, 0.0, np.inf, 1e30, 1.0 / 3, 2.0], np.float32)]),
 "edge_atan2": (lambda a, c: jnp.arctan2(a, c), [np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.inf, np.nan, 1e-40, 1.0], np.float32), np.array([0.0, 0.0, -0.0, -0.0, np.inf, -np.inf, np.inf, -np.inf, 1.0, 1.0, -1e-40, -0.0], np.float32)]),
 "edge_rem_div": (lambda a, c: (jnp.fmod(a, c), a / c, jnp.remainder(a, c), jnp.floor_divide(a, c)), [np.array([5.5, -5.5, 0.0, np.inf, 1.0, -0.0, 1e30, 7.0], np.float32), np.array([2.0, 2.0, 0.0, 2.0, np.inf, -3.0, 3.0, -0.0], np.float32)]),
 "edge_f16_math": (lambda x: tuple(f(x).astype(jnp.float32) for f in (jnp.exp, jnp.log, jnp.tanh, lax.erf, jnp.sqrt, jax.nn.sigmoid)), [np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6e-8, 1e-4, 0.5, 1.0, 11.0, 12.0, -17.0, 65504.0], np.float16)]),
 "edge_bf16_math": (lambda x: tuple(f(x).astype(jnp.float32) for f in (jnp.exp, jnp.log, jnp.tanh, lax.erf, lax.rsqrt, jnp.log1p)), [jnp.asarray(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-38, 1e-3, 0.5, 1.0, 88.0, 89.0, -88.0, 3e38], np.float32), jnp.bfloat16)]),
 "edge_softmax_inf": (lambda x: (jax.nn.softmax(x, -1), jax.nn.log_softmax(x, -1)), [np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 1.0], [np.inf, 0.0, 1.0], [1e30, 1e30, -1e30]], np.float32)]),
 "edge_int_pow_div": (lambda a, c: (lax.integer_pow(a, 7), a // jnp.where(c == 0, 1, c), jnp.power(a, jnp.abs(c) % 5)), [i32(20, hi=50), i32(20, hi=5)]),
}


def run(tessera, fn, args):
    """fn on args in XLA and in Tessera: OK, MISMATCH, RUN-ERROR or JAX-ERROR."""
    with tempfile.TemporaryDirectory() as d:
        return run_in(tessera, fn, args, d)


def tolerance(dtype):
    """The relative tolerance (over 1 + |x|) of an output of this dtype."""
    if dtype == np.float16 or str(dtype) == "bfloat16":
        return 2e-2
    if dtype in (np.float64, np.complex128):
        return 1e-9
    return 2e-4


def compare(i, want, got):
    """A problem with output i, or None."""
    if got.shape != want.shape:
        return f"out{i} shape {got.shape}, XLA's {want.shape}"
    if want.dtype.kind in "fc" or str(want.dtype) == "bfloat16":
        wide = np.complex128 if want.dtype.kind == "c" else np.float64
        w, g = want.astype(wide), got.astype(wide)
        err = np.abs(g - w)
        ok = (err <= tolerance(want.dtype) * (1 + np.abs(w))) | (np.isnan(g) & np.isnan(w)) | (g == w)
        return None if ok.all() else f"out{i} max err {np.nanmax(err):.3g} ({(~ok).sum()} elements)"
    differ = got.astype(want.dtype) != want
    return None if not differ.any() else f"out{i} differs in {differ.sum()} elements"


def fallbacks(tessera, module):
    """' FALLBACKS: ...' naming the first evaluator fallbacks, or ''."""
    shown = subprocess.run([tessera, "opt", module, "--pipeline=cpu", "--show_thunks", "-o",
                            "/dev/null"], capture_output=True, text=True).stderr
    if "evaluator fallbacks" not in shown:
        return ""
    lines = shown.split("evaluator fallbacks")[1].splitlines()[1:4]
    return " FALLBACKS: " + "; ".join(line.strip() for line in lines)


def run_in(tessera, fn, args, d):
    jitted = jax.jit(fn)
    try:
        wants = [np.asarray(w) for w in jax.tree_util.tree_leaves(jitted(*args))]
        text = jitted.lower(*args).compiler_ir("hlo").as_hlo_text(print_large_constants=True)
    except Exception as e:  # the program itself is not valid JAX
        return f"JAX-ERROR {type(e).__name__}: {str(e)[:100]}"
    module = os.path.join(d, "m.hlo")
    with open(module, "w") as out:
        out.write(text)
    command = [tessera, "run", module, "--backend=cpu", f"--output_dir={d}/out"]
    for k, arg in enumerate(args):
        path = os.path.join(d, f"in{k}.npy")
        np.save(path, np.asarray(arg))
        command.append(f"--input={path}")
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        return "RUN-ERROR " + ran.stderr.strip()[-300:]
    problems = []
    for i, want in enumerate(wants):
        problem = compare(i, want, np.load(os.path.join(d, "out", f"output_{i}.npy")))
        if problem:
            problems.append(problem)
    verdict = "OK" if not problems else "MISMATCH " + ", ".join(problems)
    return verdict + fallbacks(tessera, module)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", default="bazel-bin/tools/tessera")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    counts = {}
    for name, (fn, inputs) in PROGRAMS.items():
        if args.names and name not in args.names:
            continue
        result = run(args.tessera, fn, inputs)
        key = result.split()[0] + (" +fallbacks" if "FALLBACKS" in result else "")
        counts[key] = counts.get(key, 0) + 1
        print(f"{name:22s} {result}"[:400], flush=True)
    print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
