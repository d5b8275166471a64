#!/bin/bash
# The MLP example trains in this process on both backends and, through
# RemoteClient, on a `tessera serve` server; its loss falls each time (the
# program checks and exits non-zero otherwise).
set -euo pipefail
binary="examples/mlp_train"
"$binary" --steps=300 --backend=cpu
"$binary" --steps=60 --backend=interpreter | tail -1

log="${TEST_TMPDIR:-/tmp}/serve.log"
tools/tessera serve --address=127.0.0.1:0 > "$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
address=""
for _ in $(seq 1 100); do
  address="$(grep -o '127\.0\.0\.1:[0-9]*' "$log" || true)"
  [ -n "$address" ] && break
  sleep 0.1
done
[ -n "$address" ] || { echo "the server did not start:"; cat "$log"; exit 1; }
"$binary" --steps=200 --server="$address" | tail -2
kill -INT "$server"
wait "$server"
grep -q "shutting down" "$log"
