#!/usr/bin/env bash
# Issue 24: why the first run on a fresh machine is slow. W1 x16 (FIRST_FRAMES, 200 frames):
# the machine's first run (StarPU measures the buses), a second, then a run after removing
# StarPU's codelet models (the bus calibration kept), then one after removing the bus
# calibration too, and one more. Each run's time, makespan, engine start and the GPU workers'
# busy time (task trace) show which stored file makes the difference.
#   here:  bash scripts/gpu-suite.sh stage
#   there: bash scripts/first-run-device-run.sh   (repo root, carry [".gpu"]; logs to $OUT)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=first-run-device
title="pairhist: the slow first run (issue 24)"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
w1=$("$ph" synth --case W1 --replicas 16 --frames "${FIRST_FRAMES:-200}" -o "$work/w1big" -q)
cat "$work"/w1big/W1.xtc >/dev/null
args=$(echo "${w1#* }" | sed 's/ -o [^ ]*//')
sampling=$STARPU_HOME/.starpu/sampling
one() {  # one NAME
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  timeout 200 "$ph" $args -o "$work/$1" --overwrite --report "$work/$1.json" \
    --task-trace "$work/$1-trace.csv" >"$work/$1.out" 2>&1 || { echo "FAILED: $1" | tee -a "$log"; status=1; }
  t1=$(date +%s.%N)
  /usr/bin/python3 - "$work/$1.json" "$work/$1-trace.csv" "$1" "$t0" "$t1" <<'PY' | tee -a "$log"
import csv, json, sys
r = json.load(open(sys.argv[1]))
busy = 0.0
tasks = 0
with open(sys.argv[2]) as f:
    for row in csv.DictReader(f):
        if row["kind"] == "cuda":
            busy += float(row["end_s"]) - float(row["start_s"])
            tasks += 1
print(f"{sys.argv[3]}: wall {float(sys.argv[5]) - float(sys.argv[4]):.2f} time {r['seconds']:.3f} "
      f"makespan {r.get('makespan_seconds', 0):.3f} engine_start {r.get('engine_start_seconds', 0):.3f} "
      f"GPU tasks {tasks} busy {busy:.2f} s ({1e3 * busy / max(tasks, 1):.2f} ms each)")
PY
}
one first
ls -R "$sampling" 2>/dev/null | head -40 >"$out/sampling-after-first.txt"
one second
rm -rf "$sampling/codelets"
one no-codelet-models
rm -rf "$sampling/bus"
one no-bus-calibration
one again
for d in second no-codelet-models no-bus-calibration again; do
  cmp -s "$work/$d/rdf.csv" "$work/first/rdf.csv" || { echo "DIFFERENT rdf.csv: $d" | tee -a "$log"; status=1; }
done
rm -rf "$work/w1big"
echo "first-run-device-run: $([ $status = 0 ] && echo done || echo FAILURES)" | tee -a "$log"
exit $status
