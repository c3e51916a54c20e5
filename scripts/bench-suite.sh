#!/usr/bin/env bash
# Standard kernel benchmarks (DESIGN.md cases) with `pairhist bench`; JSON lines to $OUT/bench.jsonl
# (or ./bench.jsonl), a table to stdout. Usage: scripts/bench-suite.sh PAIRHIST [gpu|cpu|all]
set -euo pipefail
bin=${1:?usage: bench-suite.sh PAIRHIST [gpu|cpu|all]}
what=${2:-all}
out=${OUT:-.}/bench.jsonl
: >"$out"
bench() { "$bin" bench --json "$@" | tee -a "$out"; }
if [ "$what" != cpu ]; then
  for p in single double; do
    for c in K1 K2 K3 K4 K5; do bench --case "$c" --device gpu --precision $p --repeats 5; done
    bench --case K6 --device gpu --precision $p --repeats 3
    bench --case F1 --device gpu --precision $p --frames 20 --repeats 3
  done
fi
if [ "$what" != gpu ]; then
  for box in none orthorhombic triclinic; do
    bench --case K1 --n 200000 --box $box --device cpu --repeats 3
  done
  bench --case K1 --n 200000 --device cpu --precision double --repeats 3
  bench --case K1 --n 50000 --device cpu --threads 1 --plain --repeats 3
fi
