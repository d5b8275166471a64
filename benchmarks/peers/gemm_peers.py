#!/usr/bin/env python3
"""Times SGEMM n x n x n (f32, row-major) in the BLAS a user would call from
Python, steady state: OpenBLAS through numpy (`np.dot(a, b, out=c)`, output
preallocated) and, when PyTorch can be imported, `torch.mm(a, b, out=c)`
(whatever BLAS that PyTorch build links: MKL in the PyPI wheels, OpenBLAS in
some others; the peer name says which).  Inputs: uniform(-1, 1) from
numpy's default_rng(0), as jax_peer.py draws them.

Usage: python3 benchmarks/peers/gemm_peers.py [--iters N] [N ...]
Prints one JSON object per size and library: name (gemm_N), peer,
run_ms_min, run_ms_median, gflops (at the minimum).  The Eigen peer is
//benchmarks:eigen_gemm (C++).
"""
import argparse
import json
import time

import numpy as np


def blas_name_numpy():
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return blas.get("name", "blas")
    except Exception:  # noqa: BLE001 -- older numpy: no dicts mode
        return "blas"


def time_it(fn, iters):
    for _ in range(3):
        fn()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[0], times[len(times) // 2]


def report(n, peer, tmin, tmed):
    print(json.dumps({"name": f"gemm_{n}", "peer": peer, "run_ms_min": round(tmin, 4),
                      "run_ms_median": round(tmed, 4),
                      "gflops": round(2.0 * n ** 3 / (tmin * 1e-3) / 1e9, 2)}), flush=True)


def torch_blas(torch):
    config = torch.__config__.show()
    for name in ("mkl", "openblas", "blis"):
        if f"BLAS_INFO={name}" in config:
            return name
    return "blas"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("sizes", nargs="*", type=int)
    args = parser.parse_args()
    sizes = args.sizes or [256, 512, 1024, 2048]
    try:
        import torch  # noqa: PLC0415 -- optional peer
    except ImportError:
        torch = None
    numpy_peer = "numpy_" + blas_name_numpy().replace("scipy-", "")
    for n in sizes:
        rng = np.random.default_rng(0)
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        c = np.empty((n, n), np.float32)
        iters = max(args.iters, 3)
        report(n, numpy_peer, *time_it(lambda: np.dot(a, b, out=c), iters))
        if not np.allclose(c, a.astype(np.float64) @ b, atol=1e-3 * n ** 0.5):
            raise SystemExit(f"gemm_peers: numpy product wrong at n={n}")
        if torch is not None:
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            tc = torch.empty((n, n), dtype=torch.float32)
            report(n, "torch_mm_" + torch_blas(torch),
                   *time_it(lambda: torch.mm(ta, tb, out=tc), iters))


if __name__ == "__main__":
    main()
