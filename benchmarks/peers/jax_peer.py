#!/usr/bin/env python3
"""Times the benchmark workloads in XLA's CPU backend through JAX (the closest
peer), in steady state: compiled once, inputs on the device, warm-up runs
first, then the minimum and median of timed runs.

Usage: python3 benchmarks/peers/jax_peer.py [--iters N] [NAME ...]
Prints one JSON object per workload: name, compile_ms (the first),
compile_ms_min (the fastest of 3), run_ms_min,
run_ms_median.  Workloads are those of benchmarks/make_benchmark_modules.py,
so Tessera and XLA run the very same HLO.
"""
import argparse
import json
import os
import sys
import time

import jax
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from make_benchmark_modules import WORKLOADS  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    # XLA's one-time start (its CPU client, LLVM's targets) is not any
    # module's compile: pay it on a throwaway function first.
    jax.jit(lambda x: x + 1).lower(np.float32(1)).compile()
    for name, fn, specs in WORKLOADS:
        if args.names and name not in args.names:
            continue
        inputs = [jax.device_put(rng.uniform(-1, 1, s.shape).astype(np.float32)) for s in specs]
        # The first compile, and the fastest of 3 (a new function each
        # time, so that no cache answers), as Tessera's warm compiles are
        # timed.
        compiles = []
        for _ in range(3):
            start = time.perf_counter()
            compiled = jax.jit(lambda *a, fn=fn: fn(*a)).lower(*inputs).compile()
            compiles.append((time.perf_counter() - start) * 1e3)
        compile_ms = compiles[0]
        for _ in range(3):
            jax.block_until_ready(compiled(*inputs))
        times = []
        for _ in range(args.iters):
            start = time.perf_counter()
            jax.block_until_ready(compiled(*inputs))
            times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        print(json.dumps({"name": name, "peer": "jax", "compile_ms": round(compile_ms, 3),
                          "compile_ms_min": round(min(compiles), 3),
                          "run_ms_min": round(times[0], 4),
                          "run_ms_median": round(times[len(times) // 2], 4)}))


if __name__ == "__main__":
    main()
