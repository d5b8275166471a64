#!/usr/bin/env python3
"""Single ops at realistic sizes, in XLA (through JAX) and in Tessera, side by
side: where a kernel shape of ours is far off the peer's (it found the 460x
prefix scan, the 20x transpose, the 13x pooling, the 6x concatenate, the
300x suffix scan, the 20x top_k, the 1000x FFT, the 240x depthwise
convolution, the 135x bf16, 130x int8
and 107x complex matmuls, the 68x int8 convolution and the 21x ThreeFry
rng-bit-generator, and linear algebra that did not run at all).

Usage: python3 benchmarks/peers/op_sweep.py [--tessera PATH] [--iters N] [NAME ...]
Each op is jitted in JAX and timed in steady state (minimum of N runs); its
HLO, as JAX lowers it, and its inputs are written to a temporary directory
and timed with `tessera bench --backend=cpu` (the minimum it prints).  The
ratio is Tessera's time over XLA's (under 1: Tessera is faster).  Needs JAX
(pip install jax) and an optimized build: bazel build -c opt //tools:tessera.
"""
import argparse
import os
import re
import subprocess
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

RNG = np.random.default_rng(0)


def f32(*shape):
    return jnp.asarray(RNG.random(shape, dtype=np.float32))


def spd(n):
    x = RNG.standard_normal((n, n)).astype(np.float32)
    return jnp.asarray(x @ x.T + n * np.eye(n, dtype=np.float32))


def well_conditioned(*shape):
    return jnp.asarray(RNG.standard_normal(shape).astype(np.float32) + 2 * shape[-1] * np.eye(shape[-1], dtype=np.float32))


def indices(high, count):
    return jnp.asarray(RNG.integers(0, high, count).astype(np.int32))


def adam_update(p, g, m, v):
    """One Adam step's moments and parameter: a multi-output elementwise fusion."""
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    return p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), m, v


OPS = {
    # JAX gives a transposed result a transposed layout (no data moves);
    # a transpose feeding an op that needs the default layout moves data.
    "transpose_2048": (lambda x, y: x.T + y, [f32(2048, 2048), f32(2048, 2048)]),
    "transpose_3d": (lambda x, y: jnp.transpose(x, (0, 2, 1)) + y,
                     [f32(16, 512, 512), f32(16, 512, 512)]),
    "transpose_ravel": (lambda x: jnp.ravel(x.T), [f32(2048, 2048)]),
    "concatenate": (lambda a, b: jnp.concatenate([a, b], 1), [f32(1024, 1000), f32(1024, 1000)]),
    "pad": (lambda x: jnp.pad(x, ((3, 3), (5, 5))), [f32(2048, 2000)]),
    "reverse_minor": (lambda x: jnp.flip(x, 1), [f32(2048, 2048)]),
    "slice_strided": (lambda x: x[::2, 1::2], [f32(4096, 4096)]),
    "broadcast_rows": (lambda v: jnp.broadcast_to(v[None, :], (4096, 2048)) * 2.0, [f32(2048)]),
    "column_sum": (lambda x: jnp.sum(x, 0), [f32(4096, 2048)]),
    "row_argmax": (lambda x: jnp.argmax(x, 1), [f32(4096, 1024)]),
    "column_argmax": (lambda x: jnp.argmax(x, 0), [f32(4096, 1024)]),
    "adam_update": (adam_update, [f32(4096, 1024), f32(4096, 1024), f32(4096, 1024),
                                  f32(4096, 1024) ** 2]),
    "gelu_erf": (lambda x: jax.nn.gelu(x, approximate=False), [f32(4096, 1024)]),
    "erf": (lax.erf, [f32(4096, 1024)]),
    "random_normal": (lambda k: jax.random.normal(jax.random.wrap_key_data(k), (4096, 1024)),
                      [np.array([0, 42], dtype=np.uint32)]),
    "max_pool_3x3": (
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
        [f32(8, 112, 112, 64)]),
    "cumsum_rows": (lambda x: jnp.cumsum(x, 1), [f32(1024, 1024)]),
    "rcumsum_cols": (lambda x: lax.cumsum(x, 0, reverse=True), [f32(1024, 1024)]),
    "cumsum_wide": (lambda x: jnp.cumsum(x, 0), [f32(256, 32768)]),
    "logcumsumexp": (lambda x: lax.cumlogsumexp(x, 1), [f32(1024, 1024)]),
    "top_k": (lambda x: lax.top_k(x, 8)[0], [f32(1024, 1024)]),
    "fft_rows": (lambda x: jnp.abs(jnp.fft.fft(x)), [f32(256, 1024)]),
    # Real and 2-D transforms, a short-time spectrum's frames, decimal and
    # long odd lengths (few lines: a line at a time).
    "rfft_frames": (lambda x: jnp.fft.rfft(x), [f32(2000, 512)]),
    "irfft_frames": (lambda x: jnp.fft.irfft(jnp.fft.rfft(x) * 0.5), [f32(2000, 512)]),
    "fft2_512": (lambda x: jnp.fft.fft2(x.astype(jnp.complex64)), [f32(4, 512, 512)]),
    "fft2_1000": (lambda x: jnp.fft.fft2(x.astype(jnp.complex64)), [f32(1000, 1000)]),
    "fft_20000": (lambda x: jnp.fft.fft(x.astype(jnp.complex64)), [f32(1, 20000)]),
    "rfft_300007": (lambda x: jnp.fft.rfft(x), [f32(1, 300007)]),
    "depthwise_conv": (
        lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                              dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                              feature_group_count=64),
        [f32(8, 56, 56, 64), f32(3, 3, 1, 64)]),
    "int8_conv": (
        lambda x, w: lax.conv_general_dilated(x.astype(jnp.int8), w.astype(jnp.int8), (1, 1),
                                              "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                              preferred_element_type=jnp.int32),
        [f32(1, 56, 56, 64) * 200 - 100, f32(3, 3, 64, 64) * 200 - 100]),
    "int32_conv": (
        lambda x, w: lax.conv_general_dilated(x.astype(jnp.int32), w.astype(jnp.int32), (1, 1),
                                              "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
        [f32(1, 56, 56, 64) * 200 - 100, f32(3, 3, 64, 64) * 200 - 100]),
    "rbg_uniform": (lambda k: jax.random.uniform(jax.random.wrap_key_data(k, impl="rbg"),
                                                 (4096, 1024)),
                    [np.array([0, 42, 1, 2], dtype=np.uint32)]),
    "philox_bits": (lambda s: lax.rng_bit_generator(s, (4096, 1024), dtype=jnp.uint32,
                                                    algorithm=lax.RandomAlgorithm.RNG_PHILOX)[1],
                    [np.array([0, 42, 1, 2], dtype=np.uint32)]),
    "gather_rows": (lambda t, i: t[i], [f32(50000, 256), indices(50000, 8192)]),
    "scatter_add": (lambda t, i, u: t.at[i].add(u),
                    [f32(50000, 256), indices(50000, 8192), f32(8192, 256)]),
    "sort_rows": (lambda x: jnp.sort(x, 1), [f32(1024, 1024)]),
    "convert_bf16": (lambda x: x.astype(jnp.bfloat16), [f32(4096, 4096)]),
    "dynamic_slice": (lambda x, i: lax.dynamic_slice(x, (i, 0), (1024, 4096)),
                      [f32(4096, 4096), jnp.int32(7)]),
    "iota_mask": (lambda x: jnp.where(jnp.arange(4096)[:, None] >= jnp.arange(4096)[None, :],
                                      x, 0.0), [f32(4096, 4096)]),
    "batch_matmul": (lambda a, b: a @ b, [f32(32, 128, 64), f32(32, 64, 128)]),
    "bf16_matmul": (lambda a, b: (a.astype(jnp.bfloat16) @ b.astype(jnp.bfloat16))
                    .astype(jnp.float32), [f32(512, 512), f32(512, 512)]),
    "c64_matmul": (lambda a, b: (a + 1j * b) @ (b - 1j * a), [f32(256, 256), f32(256, 256)]),
    "int8_matmul": (lambda a, b: lax.dot(a.astype(jnp.int8), b.astype(jnp.int8),
                                         preferred_element_type=jnp.int32),
                    [f32(512, 512) * 200 - 100, f32(512, 512) * 200 - 100]),
    # int8 @ int8 in JAX's default promotion: an s8 result (the sums wrap).
    "int8_matmul_s8_out": (lambda a, b: a.astype(jnp.int8) @ b.astype(jnp.int8),
                           [f32(512, 512) * 200 - 100, f32(512, 512) * 200 - 100]),
    "uint8_matmul": (lambda a, b: lax.dot(a.astype(jnp.uint8), b.astype(jnp.uint8),
                                          preferred_element_type=jnp.int32),
                     [f32(512, 512) * 255, f32(512, 512) * 255]),
    # Linear algebra: JAX lowers these to LAPACK custom calls on the CPU.
    "cholesky_1024": (jnp.linalg.cholesky, [spd(1024)]),
    "solve_512": (jnp.linalg.solve, [well_conditioned(512, 512), f32(512, 64)]),
    "inv_256": (jnp.linalg.inv, [well_conditioned(256, 256)]),
    "slogdet_256": (lambda a: jnp.linalg.slogdet(a)[1], [well_conditioned(256, 256)]),
    "solve_4x4_batch": (jnp.linalg.solve, [well_conditioned(4096, 4, 4), f32(4096, 4, 1)]),
    "slogdet_16x16_batch": (lambda a: jnp.linalg.slogdet(a)[1], [well_conditioned(512, 16, 16)]),
    "slogdet_48x48_batch": (lambda a: jnp.linalg.slogdet(a)[1], [well_conditioned(128, 48, 48)]),
    "solve_triangular": (lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True),
                         [well_conditioned(1024, 1024), f32(1024, 256)]),
    "qr_512": (lambda a: jnp.linalg.qr(a)[0], [f32(512, 512)]),
    "qr_r_1024x256": (lambda a: jnp.linalg.qr(a, mode="r"), [f32(1024, 256)]),
    "eigh_256": (lambda a: jnp.linalg.eigh(a)[0], [spd(256)]),
    "eigh_vectors_256": (lambda a: jnp.linalg.eigh(a)[1], [spd(256)]),
    "svd_256": (lambda a: jnp.linalg.svd(a)[0], [f32(256, 256)]),
    "svd_values_512x128": (lambda a: jnp.linalg.svd(a, compute_uv=False), [f32(512, 128)]),
    "pinv_128": (jnp.linalg.pinv, [f32(128, 128)]),
    "eig_128": (lambda a: jnp.abs(jnp.linalg.eig(a)[1]), [f32(128, 128)]),
    "eigvals_256": (lambda a: jnp.abs(jnp.linalg.eigvals(a)), [f32(256, 256)]),
    "eigh_8x8_batch": (lambda a: jnp.linalg.eigh(a)[0], [well_conditioned(1024, 8, 8)]),
    # A stride-2 convolution's gradient by its input: lhs dilation 2.
    "conv_transpose": (
        lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC")),
        [f32(8, 28, 28, 64), f32(3, 3, 64, 64)]),
    "conv_input_grad": (
        lambda x, w: jax.grad(lambda x: jnp.sum(lax.conv_general_dilated(
            x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2))(x),
        [f32(8, 56, 56, 64), f32(3, 3, 64, 64)]),
    "sort_1m": (jnp.sort, [f32(1 << 20)]),
    # Loops of small steps: the cost of an iteration.
    "fori_scalar": (lambda x: lax.fori_loop(0, 1000, lambda i, c: c + 1.0, x),
                    [np.float32(0)]),
    "fori_tanh_64": (lambda x: lax.fori_loop(0, 1000, lambda i, c: jnp.tanh(c) * 0.5 + 0.1, x),
                     [f32(64)]),
    "scan_stack_64": (lambda x: lax.scan(lambda c, _: (jnp.tanh(c) + 0.1, c * 2.0), x, None,
                                         length=1000)[1], [f32(64)]),
    # A scan writing one row per step: while, dynamic-update-slice in place.
    "fori_loop_rows": (
        lambda x: lax.fori_loop(0, 512, lambda i, acc: lax.dynamic_update_slice(
            acc, jnp.tanh(lax.dynamic_slice(acc, (jnp.maximum(i - 1, 0), 0), (1, 256)) + 1.0),
            (i, 0)), x),
        [f32(512, 256)]),
}


def jax_ms(fn, args, iters):
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def tessera_ms(tessera, directory, name, fn, args, iters):
    module = os.path.join(directory, name + ".hlo")
    with open(module, "w") as out:
        out.write(fn.lower(*args).compiler_ir("hlo").as_hlo_text(print_large_constants=True))
    command = [tessera, "bench", module, "--backend=cpu", f"--iters={iters}"]
    for k, arg in enumerate(args):
        path = os.path.join(directory, f"{name}_in{k}.npy")
        np.save(path, np.asarray(arg))
        command.append(f"--input={path}")
    run = subprocess.run(command, capture_output=True, text=True)
    found = re.search(r"min ([0-9.]+) ms", run.stdout)
    if not found:
        raise RuntimeError(f"{name}: {run.stderr.strip()[-200:]}")
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", default="bazel-bin/tools/tessera")
    parser.add_argument("--iters", type=int, default=30)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    print(f"{'op':16s} {'XLA ms':>9s} {'Tessera ms':>11s} {'ratio':>6s}")
    with tempfile.TemporaryDirectory() as directory:
        for name, (fn, inputs) in OPS.items():
            if args.names and name not in args.names:
                continue
            jitted = jax.jit(fn)
            xla = jax_ms(jitted, inputs, args.iters)
            ours = tessera_ms(args.tessera, directory, name, jitted, inputs, args.iters)
            print(f"{name:16s} {xla:9.3f} {ours:11.3f} {ours / xla:6.2f}", flush=True)


if __name__ == "__main__":
    main()
