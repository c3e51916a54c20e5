#!/usr/bin/env bash
# Finely interleaved 1 vs 2 threads on a noisy 2-core VM (single-core speed drifts by up to 1.7x
# between seconds): ROUNDS rounds of, per binary, one pass with 1 thread, one with 2 threads, and
# (control, the machine's own ceiling) two 1-thread processes at once. Usage:
#   fine.sh FILE.xtc ROUNDS BINARY...
set -euo pipefail
file=$1 rounds=$2
shift 2
pass() { "$1" bench --decode "$file" --threads "$2" --repeats 1 --warmup 0 --json; }
for r in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    one=$(pass "$bin" 1)
    two=$(pass "$bin" 2)
    pass "$bin" 1 >/tmp/fine-pair-a.json &
    pass "$bin" 1 >/tmp/fine-pair-b.json
    wait
    echo "round=$r load=$load bin=$(basename "$bin") one=$one two=$two pair_a=$(cat /tmp/fine-pair-a.json) pair_b=$(cat /tmp/fine-pair-b.json)"
  done
done
