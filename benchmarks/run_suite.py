#!/usr/bin/env python3
"""The CPU benchmark suite: Tessera and its peers side by side, one table.

    ./tessera bench --suite [--iters N] [--no-torch-compile] [--json FILE] [NAME ...]
    python3 benchmarks/run_suite.py ...            (the same, without the script)

In one run it
  1. builds (-c opt) //tools:tessera and the benchmark programs
     (//benchmarks:stream_triad, :cpu_fallbacks, :eigen_gemm,
     //backends/cpu:eigen_dot_benchmark);
  2. measures this machine's limits: STREAM triad over 256 MiB arrays (1 and
     2 threads) and the register-only AVX-512 FMA peak (BM_FmaPeak), before
     and after the workloads; the table compares against the higher reading;
  3. times every module of benchmarks/modules with
     `tessera bench M --backend=cpu --format=json` (steady state), and asks
     //benchmarks:cpu_fallbacks which instructions still run on the evaluator
     fallback;
  4. runs the peers on the same workloads and inputs: XLA through JAX
     (peers/jax_peer.py), PyTorch eager and torch.compile
     (peers/torch_peer.py), and for GEMM Eigen (//benchmarks:eigen_gemm) and
     OpenBLAS through numpy (peers/gemm_peers.py).  JAX and PyTorch are
     installed from PyPI into ~/.cache/tessera/pylib when missing; a peer that
     cannot be installed or run is reported as missing and the suite goes on;
  5. prints one table (see print_table).

Every figure is steady state: compiled once, buffers reused, warm-up first,
minimum of the timed runs.  Importing this file runs nothing.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")
PYLIB = os.path.expanduser("~/.cache/tessera/pylib")
TARGETS = ["//tools:tessera", "//benchmarks:stream_triad", "//benchmarks:cpu_fallbacks",
           "//benchmarks:eigen_gemm", "//backends/cpu:eigen_dot_benchmark"]


def log(msg):
    print(f"suite: {msg}", file=sys.stderr, flush=True)


def python_env():
    env = dict(os.environ)
    if os.path.isdir(PYLIB):
        env["PYTHONPATH"] = PYLIB + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def importable(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"], env=python_env(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def ensure_python_package(module, pip_args):
    """True when `module` imports, installing it into PYLIB first if needed."""
    if importable(module):
        return True
    for extra in pip_args:
        log(f"installing {module} into {PYLIB} ({' '.join(extra) or 'PyPI'})")
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
               "--target", PYLIB, module] + extra
        if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0 \
                and importable(module):
            return True
    log(f"{module} could not be installed: its columns stay empty")
    return False


def json_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def run_json(cmd, timeout, env=None, what=""):
    """Runs cmd and returns its JSON lines; [] (and says why) on failure."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        log(f"{what or cmd[0]}: timed out after {timeout} s")
        return json_lines(e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or ""))
    if p.returncode != 0:
        log(f"{what or cmd[0]}: exit {p.returncode}: {p.stderr.strip()[-600:]}")
    return json_lines(p.stdout)


def build():
    log("building " + " ".join(TARGETS))
    p = subprocess.run(["bazel", "build", "-c", "opt", "--noshow_progress"] + TARGETS, cwd=ROOT,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-4000:])
        raise SystemExit("suite: build failed")
    return subprocess.run(["bazel", "info", "-c", "opt", "bazel-bin"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


def parse_benchmark_json(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def fma_peak(bin_dir):
    p = subprocess.run([os.path.join(bin_dir, "backends/cpu/eigen_dot_benchmark"),
                        "--benchmark_filter=BM_FmaPeak", "--benchmark_format=json",
                        "--benchmark_min_time=0.2", "--benchmark_repetitions=3"],
                       capture_output=True, text=True, timeout=300)
    data = parse_benchmark_json(p.stdout) or {}
    out = {}
    for b in data.get("benchmarks", []):
        if "GFLOP" in b and not b.get("error_occurred") and b.get("run_type") != "aggregate":
            key = "gflops_1" if b["name"].startswith("BM_FmaPeak/1/") else "gflops_n"
            out[key] = max(out.get(key, 0), b["GFLOP"])  # the best repetition
    if not out:
        log("BM_FmaPeak gave no figure (no AVX-512F?)")
    return out


def measure_limits(bin_dir):
    limits = {}
    for r in run_json([os.path.join(bin_dir, "benchmarks/stream_triad"), "1", "2"], 300,
                      what="stream_triad"):
        limits[f"gbs_{r['threads']}"] = r["gbs"]
    limits.update(fma_peak(bin_dir))
    return limits


def compile_ratio(xla_ms, tessera_ms):
    """XLA's compile time over Tessera's, as "3.5x", or "-"."""
    return f"{xla_ms / tessera_ms:.1f}x" if xla_ms and tessera_ms else "-"


def tessera_bench(bin_dir, module, iters, slow):
    """One module's bench JSON, or None.  Modules with evaluator fallbacks
    get fewer runs (they can take seconds each)."""
    warmup, n = (1, min(iters, 3)) if slow else (3, iters)
    # --compile_iters: also a warm process's compile (the module compiled
    # again with the in-memory cache bypassed), the like of the XLA peer's.
    rows = run_json([os.path.join(bin_dir, "tools/tessera"), "bench", module, "--backend=cpu",
                     "--format=json", f"--warmup={warmup}", f"--iters={n}", "--compile_iters=3"],
                    timeout=900 if slow else 300, what=f"tessera bench {os.path.basename(module)}")
    return rows[0] if rows else None


def fmt(x, digits=3):
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.{digits}f}"


def print_table(rows, limits, peers_missing, out=sys.stdout):
    bw = max(limits.get("gbs_2", 0), limits.get("gbs_1", 0)) or None
    peak = limits.get("gflops_n") or limits.get("gflops_1")
    print("Machine limits measured in this run (best of before/after the workloads):", file=out)
    print(f"  STREAM triad 256 MiB: {fmt(limits.get('gbs_1'))} GB/s (1 thread), "
          f"{fmt(limits.get('gbs_2'))} GB/s (2 threads)", file=out)
    print(f"  AVX-512 FMA f32 peak: {fmt(limits.get('gflops_1'))} GFLOP/s (1 thread), "
          f"{fmt(limits.get('gflops_n'))} GFLOP/s (all threads)", file=out)
    if peers_missing:
        print("  missing peers: " + "; ".join(peers_missing), file=out)
    print(file=out)
    header = ["workload", "Tessera ms", "XLA(JAX) ms", "torch eager ms", "torch.compile ms",
              "Eigen ms", "OpenBLAS ms", "best peer", "Tessera/best", "achieved", "% of limit",
              "compile Tessera ms", "warm", "run 2 ms", "compile XLA ms", "XLA/warm", "XLA/final",
              "compile torch ms"]
    table = [header]
    notes = []
    for r in rows:
        t = r.get("tessera") or {}
        tms = t.get("run_ms_min")
        peers = {"XLA(JAX)": r.get("jax", {}).get("run_ms_min"),
                 "torch eager": r.get("torch_eager", {}).get("run_ms_min"),
                 "torch.compile": r.get("torch_compile", {}).get("run_ms_min"),
                 "Eigen": r.get("eigen", {}).get("run_ms_min"),
                 "OpenBLAS": r.get("openblas", {}).get("run_ms_min")}
        present = {k: v for k, v in peers.items() if v}
        best_name = min(present, key=present.get) if present else None
        ratio = tms / present[best_name] if tms and best_name else None
        achieved = pct = "-"
        if tms:
            flops, nbytes = t.get("flops", 0), t.get("bytes", 0)
            compute_bound = peak and bw and nbytes and flops / nbytes > peak / bw
            if compute_bound or (flops and not nbytes):
                rate = flops / (tms * 1e-3) / 1e9
                achieved = f"{fmt(rate)} GFLOP/s"
                pct = f"{100 * rate / peak:.0f}% peak" if peak else "-"
            elif nbytes:
                rate = nbytes / (tms * 1e-3) / 1e9
                achieved = f"{fmt(rate)} GB/s"
                pct = f"{100 * rate / bw:.0f}% BW" if bw else "-"
        fb = r.get("fallback")
        name = r["name"]
        if fb is None:
            name += " [?]"
        elif fb["fallback"]:
            name += f" [FB {fb['fallback']}/{fb['fallback'] + fb['native']}]"
            kinds = sorted({f.split(":", 1)[0].split(" ")[0] + ":" + f.split(":", 1)[1]
                            if ":" in f else f for f in fb["fallbacks"]})
            notes.append(f"  {r['name']}: {fb['fallback']} of {fb['fallback'] + fb['native']} "
                         f"instructions on the evaluator fallback ({'; '.join(kinds)[:400]})")
        tcell = fmt(tms) if tms else ("timeout/failed" if r.get("tessera_failed") else "-")
        # Tiered kernels: the second run asks for their LLVM code, generated
        # in the background meanwhile (tier_up_ms); until then (warm compile
        # + that time) the code is not yet the optimized one.
        first_runs = t.get("first_runs_ms") or []
        run2 = first_runs[1] if len(first_runs) > 1 else None
        warm = t.get("compile_ms_warm_min")
        # The final code's warm compile (--tier_up=eager: the LLVM kernels
        # of those that tier up, final tile code elsewhere, in a process
        # whose LLVM is started, as XLA's is); older binaries: the warm
        # compile plus the tier-up, whose first LLVM use starts LLVM.
        final = t.get("final_compile_ms_warm_min") or (
            warm + t.get("tier_up_ms", 0.0) if warm else None)
        xla_compile = r.get("jax", {}).get("compile_ms_min") or r.get("jax", {}).get("compile_ms")
        table.append([name, tcell] + [fmt(v) for v in peers.values()] +
                     [best_name or "-", f"{ratio:.2f}x" if ratio else "-", achieved, pct,
                      fmt(t.get("compile_ms")), fmt(warm), fmt(run2),
                      fmt(xla_compile),
                      compile_ratio(xla_compile, warm),
                      compile_ratio(xla_compile, final),
                      fmt(r.get("torch_compile", {}).get("compile_ms"))])
    over = [row[0] for row in table[1:] if row[10].split("%")[0].isdigit()
            and int(row[10].split("%")[0]) > 100]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("  ".join(c.ljust(w) if j == 0 else c.rjust(w)
                        for j, (c, w) in enumerate(zip(row, widths))).rstrip(), file=out)
        if i == 0:
            print("  ".join("-" * w for w in widths), file=out)
    print(file=out)
    print("Times: minimum over the timed runs, steady state (compiled once, buffers reused).",
          file=out)
    print("Tessera/best: Tessera's time over the fastest peer's (< 1: Tessera faster).  "
          "achieved: from Tessera's cost analysis of the fused module at its minimum time; "
          "GFLOP/s against the FMA peak where flops/byte exceeds peak/bandwidth, else GB/s "
          "against the STREAM bandwidth (2 threads).", file=out)
    print("torch eager: the faster of as-written and preallocated outputs (out=).  "
          "Eigen: Tensor contraction on a 2-thread pool; OpenBLAS: numpy np.dot(out=).  "
          "compile XLA: the fastest of 3 jax.jit(f).lower().compile() of the module's "
          "function (a new function each time) in a process whose XLA is already "
          "initialized; compile Tessera: the first compile in a fresh "
          "process, and (warm) the fastest of 3 more with its caches bypassed: until the "
          "executable runs, its tiered kernels as tile programs (--kernels=tiered, the "
          "default); run 2: the second run, still on tile programs, which asks for the LLVM "
          "code of the kernels that tier up (generated on a background thread, the runs going "
          "on meanwhile; generated tile code over rows of 128 or more is final and has none); "
          "XLA/warm: how many times faster Tessera's warm compile is; XLA/final: the same for "
          "Tessera's warm compile to the final code (--tier_up=eager: the LLVM kernels of "
          "those that tier up and the generated tile code that is final, fastest of 3 after "
          "the runs: the code the timed runs use, ready, as XLA's compile makes it).  compile torch: torch.compile's first "
          "call (Inductor's caches off).", file=out)
    if over:
        print(f"Over 100% ({', '.join(over)}): the limit measured in this run was depressed by "
              "other load on this shared machine; rerun when it is quiet for honest percentages.",
              file=out)
    if notes:
        print("[FB k/n]: k of the module's n compiled instructions still run on Tessera's "
              "evaluator fallback (expected to be slow until their native kernels land):",
              file=out)
        for n in notes:
            print(n, file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iters", type=int, default=10, help="timed runs per workload")
    parser.add_argument("--no-torch-compile", action="store_true")
    parser.add_argument("--no-install", action="store_true",
                        help="use only the peers already importable")
    parser.add_argument("--json", help="also write every figure to this file")
    parser.add_argument("names", nargs="*", help="workloads (default: all)")
    args = parser.parse_args(argv)
    start = time.time()

    bin_dir = build()
    modules = sorted(f[:-4] for f in os.listdir(os.path.join(BENCH, "modules"))
                     if f.endswith(".hlo"))
    if args.names:
        modules = [m for m in modules if m in args.names]
    rows = {m: {"name": m} for m in modules}
    paths = [os.path.join(BENCH, "modules", m + ".hlo") for m in modules]

    log("measuring the machine's limits")
    limits_before = measure_limits(bin_dir)

    log("checking evaluator fallbacks")
    for r in run_json([os.path.join(bin_dir, "benchmarks/cpu_fallbacks")] + paths, 900,
                      what="cpu_fallbacks"):
        name = os.path.basename(r["module"])[:-4]
        if name in rows:
            rows[name]["fallback"] = r

    for m, path in zip(modules, paths):
        fb = rows[m].get("fallback")
        slow = fb is None or fb["fallback"] > 0
        log(f"tessera bench {m}" + (" (evaluator fallbacks: fewer runs)" if slow else ""))
        t = tessera_bench(bin_dir, path, args.iters, slow)
        if t:
            rows[m]["tessera"] = t
        else:
            rows[m]["tessera_failed"] = True

    missing = []
    env = python_env()
    install = [] if args.no_install else [[]]
    have_jax = ensure_python_package("jax", install)
    torch_sources = [] if args.no_install else [
        ["--index-url", "https://download.pytorch.org/whl/cpu"], []]
    have_torch = ensure_python_package("torch", torch_sources)
    env = python_env()
    iters = ["--iters", str(args.iters)]
    if have_jax:
        log("XLA (JAX) peer")
        for r in run_json([sys.executable, os.path.join(BENCH, "peers/jax_peer.py")] + iters +
                          modules, 1800, env=env, what="jax_peer"):
            if r["name"] in rows:
                rows[r["name"]]["jax"] = r
    else:
        missing.append("XLA (JAX): not installable")
    if have_torch:
        log("PyTorch peer (eager" + ("" if args.no_torch_compile else " and torch.compile") + ")")
        cmd = [sys.executable, os.path.join(BENCH, "peers/torch_peer.py")] + iters + modules
        # Cold compiles, as jax.jit's: Inductor's on-disk cache would hide them.
        torch_env = dict(env, TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
        if args.no_torch_compile:
            cmd.append("--no-compile")
            missing.append("torch.compile: skipped (--no-torch-compile)")
        for r in run_json(cmd, 3600, env=torch_env, what="torch_peer"):
            if r["name"] in rows:
                rows[r["name"]][r["peer"]] = r
    else:
        missing.append("PyTorch: not installable (no network?)")
    gemms = [m for m in modules if m.startswith("gemm_") and m[5:].isdigit()]
    if gemms:
        sizes = [m[5:] for m in gemms]
        log("GEMM peers: Eigen, OpenBLAS")
        for r in run_json([os.path.join(bin_dir, "benchmarks/eigen_gemm")] + sizes, 600,
                          what="eigen_gemm"):
            if r["peer"] == "eigen_tensor" and r["name"] in rows:
                rows[r["name"]]["eigen"] = r
        for r in run_json([sys.executable, os.path.join(BENCH, "peers/gemm_peers.py")] + iters +
                          sizes, 600, env=env, what="gemm_peers"):
            if r["peer"].startswith("numpy_") and r["name"] in rows:
                rows[r["name"]]["openblas"] = r
                if "openblas" not in r["peer"]:
                    missing.append(f"OpenBLAS: numpy links {r['peer'][6:]} (shown instead)")

    log("measuring the machine's limits again")
    limits_after = measure_limits(bin_dir)
    limits = {k: max(limits_before.get(k, 0), limits_after.get(k, 0))
              for k in set(limits_before) | set(limits_after)}

    print_table([rows[m] for m in modules], limits, sorted(set(missing)))
    print(f"\n(suite took {time.time() - start:.0f} s; --iters {args.iters})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"limits_before": limits_before, "limits_after": limits_after,
                       "rows": [rows[m] for m in modules]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
