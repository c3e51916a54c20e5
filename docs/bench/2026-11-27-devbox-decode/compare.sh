#!/usr/bin/env bash
# Interleaved before/after of `pairhist bench --decode` on the 2-core development machine:
# ROUNDS rounds, each running every binary with 1 and 2 threads (5 timed passes, 1 warm-up), under
# `perf stat` for the process's page faults and user/sys split. Usage:
#   compare.sh FILE.xtc ROUNDS BINARY...   (prints one line per run, load average first)
set -euo pipefail
file=$1 rounds=$2
shift 2
for r in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    for t in 1 2; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      line=$(perf stat -x, -e page-faults,task-clock -o /tmp/decode-compare.perf \
        "$bin" bench --decode "$file" --threads "$t" --repeats 5 --warmup 1)
      faults=$(grep page-faults /tmp/decode-compare.perf | cut -d, -f1)
      echo "round=$r load=$load bin=$(basename "$bin") threads=$t faults_6_passes=$faults | $line"
    done
  done
done
