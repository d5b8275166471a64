#!/usr/bin/env bash
# XLA itself loads, compiles and runs the HloModuleProtos Tessera exports
# for every program of the JAX corpus, with XLA's results (see
# tools/xla_load_check.py).  Skips without the corpus (TESSERA_JAX_CORPUS)
# or without JAX (TESSERA_PYTHON names the interpreter that has it).
set -u
python="${TESSERA_PYTHON:-python3}"
corpus="${TESSERA_JAX_CORPUS:-}"

skip() {
  echo "skipped: $1"
  if [ -n "${XML_OUTPUT_FILE:-}" ]; then
    cat >"$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="XlaLoadCheck" tests="1" skipped="1">
<testcase name="XlaLoadsTesseraProtos" status="notrun"><skipped message="$1"/></testcase>
</testsuite></testsuites>
XML
  fi
  exit 0
}

[ -n "$corpus" ] && [ -f "$corpus/INDEX" ] || skip "TESSERA_JAX_CORPUS is not set to a corpus"
"$python" -c 'import jax, numpy' 2>/dev/null || skip "JAX is not importable by $python"
exec "$python" tools/xla_load_check.py "$corpus" tools/tessera
