#!/usr/bin/env bash
# W1 (the everyday RDF: replicated real water, r_max 1.2 nm, 240 bins) on the GPU machine, end to
# end from XTC files: synthesises the workloads there, times decoding alone, runs `pairhist run`
# with cell lists (GPU only and GPUs plus cores; single and double precision; reach and order),
# checks cell lists against all pairs on the same frames (rdf.csv must be identical), and keeps
# each run's report and task trace.
#   bash scripts/gpu-suite.sh stage          (here: builds and packs .gpu/)
#   bash scripts/w1-device-run.sh            (there, repo root, carry [".gpu"]; logs to $OUT)
# W1_QUICK=1 skips the 10-million-atom and the reach/order runs.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=w1-device
title="pairhist W1 on the device"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
trace_dir=$work/traces
mkdir -p "$trace_dir"

step synth-r3 "$ph" synth --case W1 --replicas 3 --frames 100 -o "$work/r3" -q
step synth-r8 "$ph" synth --case W1 --replicas 8 --frames 100 -o "$work/r8" -q
step synth-t6 "$ph" synth --case W1-T --replicas 6 --frames 20 -o "$work/t6" -q
[ "${W1_QUICK:-0}" = 1 ] || step synth-r16 "$ph" synth --case W1 --replicas 16 --frames 10 \
  -o "$work/r16" -q

# Decoding alone, with the automatic thread count `run` uses and with all cores.
step decode-r8 "$ph" bench --decode "$work/r8/W1.xtc" --repeats 3 --json
step decode-r8-16 "$ph" bench --decode "$work/r8/W1.xtc" --threads 16 --repeats 3 --json

run r8-gpu 100 "$work/r8" --ncpu 0
run r8-hybrid 100 "$work/r8"
run r8-gpu-decode8 100 "$work/r8" --ncpu 0 --decode-threads 8
run r8-double 20 "$work/r8" --ncpu 0 --precision double
run r3-gpu 100 "$work/r3" --ncpu 0
# Exactness on real frames: cell lists against all pairs, bit for bit.
run r8-cells5 5 "$work/r8" --ncpu 0 --algorithm cell-list
run r8-all5 5 "$work/r8" --ncpu 0 --algorithm all-pairs
run t6-cells 20 "$work/t6" --algorithm cell-list
run t6-all 20 "$work/t6" --algorithm all-pairs
run t6-cells-double 20 "$work/t6" --algorithm cell-list --precision double
run t6-all-double 20 "$work/t6" --algorithm all-pairs --precision double
for pair in "r8-cells5 r8-all5" "t6-cells t6-all" "t6-cells-double t6-all-double"; do
  set -- $pair
  if cmp -s "$work/$1/rdf.csv" "$work/$2/rdf.csv"; then
    echo "identical: $1 $2 (rdf.csv)" | tee -a "$log"
  else
    echo "DIFFERENT: $1 $2 (rdf.csv)" | tee -a "$log"
    status=1
  fi
done
if [ "${W1_QUICK:-0}" != 1 ]; then
  run r16-gpu 10 "$work/r16" --ncpu 0
  for reach in 1 3; do run "r8-reach$reach" 20 "$work/r8" --ncpu 0 --cell-reach $reach; done
  for order in morton hilbert; do run "r8-$order" 20 "$work/r8" --ncpu 0 --cell-order $order; done
fi
tar -czf "$out/w1-traces.tar.gz" -C "$work" traces
grep -hE "^(== |[a-z0-9-]+: [0-9.]+ s wall|  (time|algorithm|cell grid|makespan|pairs) )" "$log" |
  tail -120
echo "w1-device-run: $([ $status = 0 ] && echo all passed || echo FAILURES)" | tee -a "$log"
exit $status
