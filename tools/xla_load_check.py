#!/usr/bin/env python3
"""Checks that HloModuleProtos Tessera exports load and run in XLA itself.

For every program of a JAX corpus (../shared/corpus/make_jax_corpus.py), it
has Tessera parse `module.hlo` and export it as a binary HloModuleProto
(`tessera fmt --to=proto`), then hands those bytes to XLA through jaxlib:
XLA's proto loader (XlaComputation, then hlo_to_stablehlo), XLA's CPU
compiler, and a run on the corpus inputs, compared with the outputs XLA
produced from JAX's own module.

Usage (from the project root, after `./tessera help` has built the binary):
  python3 tools/xla_load_check.py CORPUS_DIR [TESSERA_BINARY]
Prints one line per program and a closing count; exits 0 when all load and
match.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np


def load_and_run(proto_bytes, inputs):
    import jax
    from jax._src.lib import _jax
    from jax._src.lib import xla_client as xc

    # XLA parses and checks the proto (HloModule::CreateFromProto).
    xc.XlaComputation(proto_bytes).as_hlo_text()
    mlir = _jax.mlir.hlo_to_stablehlo(proto_bytes)
    device = jax.devices("cpu")[0]
    executable = device.client.compile_and_load(
        mlir, xc.DeviceList((device,)), xc.CompileOptions())
    results = executable.execute_sharded([jax.device_put(x, device) for x in inputs])
    return [np.asarray(r[0]) for r in results.disassemble_into_single_device_arrays()]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    corpus = sys.argv[1]
    tessera = sys.argv[2] if len(sys.argv) > 2 else "bazel-bin/tools/tessera"
    loaded = matched = total = 0
    with open(os.path.join(corpus, "INDEX")) as index, tempfile.TemporaryDirectory() as tmp:
        for line in index:
            if not line.strip():
                continue
            name, n_in, n_out, tol = line.split()
            total += 1
            home = os.path.join(corpus, name)
            proto = os.path.join(tmp, name + ".pb")
            fmt = subprocess.run(
                [tessera, "fmt", os.path.join(home, "module.hlo"), "--to=proto", "-o", proto],
                capture_output=True, text=True)
            if fmt.returncode != 0:
                print(f"{name}: tessera fmt failed: {fmt.stderr.strip()}")
                continue
            inputs = [np.load(os.path.join(home, f"in{i}.npy")) for i in range(int(n_in))]
            try:
                outputs = load_and_run(open(proto, "rb").read(), inputs)
            except Exception as error:  # XLA's own error, reported as is
                print(f"{name}: XLA rejected Tessera's proto: {error}")
                continue
            loaded += 1
            ok = len(outputs) == int(n_out)
            for i in range(min(len(outputs), int(n_out))):
                want = np.load(os.path.join(home, f"out{i}.npy"))
                got = outputs[i].astype(want.dtype) if want.dtype.kind == "f" else outputs[i]
                ok = ok and got.shape == want.shape and (
                    np.array_equal(got, want, equal_nan=True) if want.dtype.kind not in "fc"
                    else np.allclose(got, want, rtol=max(float(tol), 1e-6),
                                     atol=max(float(tol), 1e-6), equal_nan=True))
            matched += ok
            print(f"{name}: {'ok' if ok else 'loaded, but results differ'}")
    print(f"{loaded}/{total} exported protos load in XLA; {matched}/{total} run to XLA's results")
    return 0 if matched == total else 1


if __name__ == "__main__":
    sys.exit(main())
