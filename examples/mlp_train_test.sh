#!/bin/bash
# The MLP example trains on both backends and its loss falls (the program
# checks and exits non-zero otherwise).
set -euo pipefail
binary="examples/mlp_train"
"$binary" --steps=300 --backend=cpu
"$binary" --steps=60 --backend=interpreter | tail -1
