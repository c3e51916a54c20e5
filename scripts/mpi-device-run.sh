#!/usr/bin/env bash
# Distributed runs on the 2x H200 machine (device kind nvidia-h200-x2): 2 ranks x 1 GPU against
# 1 process x 2 GPUs, on the F1-like workload (200 frames, all pairs) and W1 at 1.36M atoms (cell
# lists), bit-identical results required; GPU-only task traces of both for the many-node model
# (scripts/scaling_model.py --ranks); the reduction methods with many intervals.
#   bash scripts/gpu-suite.sh stage          (here: with MPI, the stage carries OpenMPI too)
#   bash scripts/mpi-device-run.sh           (there, repo root, carry [".gpu"]; logs to $OUT)
# MPI_PARTS picks parts (suite f1 w1 traces reduction hybrid-traces; default all but hybrid-traces); MPI_REPEATS the repeats (3).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=mpi-device
title="pairhist on 2 ranks x 1 GPU against 1 process x 2 GPUs"
parts=${MPI_PARTS:-suite f1 w1 traces reduction}
repeats=${MPI_REPEATS:-3}
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
command -v mpirun >/dev/null || { echo "no mpirun in the stage (build with libopenmpi-dev)" | tee -a "$log"; exit 1; }
echo "mpirun: $(command -v mpirun), $(mpirun --version 2>&1 | head -1)" | tee -a "$log"

if [[ " $parts " == *" suite "* ]]; then
  OUT=$out/suite GPU_SUITE_TESTS=${MPI_SUITE_TESTS:-} bash "$repo/scripts/gpu-suite.sh" device \
    >/dev/null 2>&1 || status=1
  grep -E "passed in|FAILED|2 ranks|gpu-suite:" "$out/suite/gpu-suite.log" | tee -a "$log"
fi

# compare A B: the two runs' rdf.csv (counts, g(r), n(r)) must be identical.
compare() {
  if cmp -s "$work/$1/rdf.csv" "$work/$2/rdf.csv"; then
    echo "identical: $1 $2 (rdf.csv)" | tee -a "$log"
  else
    echo "DIFFERENT: $1 $2 (rdf.csv)" | tee -a "$log"
    status=1
  fi
}

# one_and_two NAME ARGS...: the run on 1 process (both GPUs) and on 2 ranks (a GPU each),
# $repeats times each, with reports; then the identical-results check.
one_and_two() {
  local case_name=$1
  shift
  for r in $(seq "$repeats"); do
    step "$case_name-1proc-$r" "$ph" "$@" -o "$work/$case_name-1proc" --overwrite \
      --report "$out/$case_name-1proc-$r.json"
    step "$case_name-2ranks-$r" mpirun -n 2 "$ph" "$@" -o "$work/$case_name-2ranks" --overwrite \
      --report "$out/$case_name-2ranks-$r.json"
  done
  compare "$case_name-1proc" "$case_name-2ranks"
  # Seconds (first frame read to last histogram) and the ranks' tail, per run.
  for f in "$out/$case_name"-*.json; do
    awk -v f="$(basename "$f")" '/"seconds":/ {gsub(/[,]/, ""); s = $2}
      /"tail_idle_fraction":/ {gsub(/[,]/, ""); t = $2}
      END {printf "%s: %.3f s%s\n", f, s, t == "" ? "" : sprintf(", ranks tail %.2f%%", 100 * t)}' "$f"
  done | tee -a "$log"
}

f1cmd=()
if [[ " $parts " == *" f1 "* || " $parts " == *"traces "* || " $parts " == *" reduction "* ]]; then
  step synth-f1 "$ph" synth --case F1 --frames 200 -o "$work/f1" -q
  "$ph" synth --case F1 --frames 200 -o "$work/f1" -q >"$work/f1-command.txt" 2>&1
  read -r -a f1cmd <"$work/f1-command.txt"
  f1cmd=("${f1cmd[@]:1:${#f1cmd[@]}-3}")  # `run TRAJ ...` without the printed -o DIR
fi
w1cmd=(run "$work/r8/W1.xtc" --top "$work/r8/W1.gro" "${species[@]}")
if [[ " $parts " == *" w1 "* || " $parts " == *" traces "* ]]; then
  step synth-r8 "$ph" synth --case W1 --replicas 8 --frames 100 -o "$work/r8" -q
fi

[[ " $parts " == *" f1 "* ]] && one_and_two f1 "${f1cmd[@]}"
[[ " $parts " == *" w1 "* ]] && one_and_two w1 "${w1cmd[@]}"

if [[ " $parts " == *" traces "* ]]; then
  # GPU-only traces for scripts/scaling_model.py: 1 process x 1 GPU, and 2 ranks x 1 GPU.
  mkdir -p "$work/traces"
  for c in f1 w1; do
    if [ $c = f1 ]; then args=("${f1cmd[@]}"); else args=("${w1cmd[@]}"); fi
    step "$c-trace-1proc-2gpus" "$ph" "${args[@]}" --ncpu 0 -o "$work/$c-t1" --overwrite \
      --report "$work/traces/$c-1proc-2gpus.json" --task-trace "$work/traces/$c-1proc-2gpus.csv"
    CUDA_VISIBLE_DEVICES=0 step "$c-trace-1gpu" "$ph" "${args[@]}" --ncpu 0 \
      -o "$work/$c-t1g" --overwrite --report "$work/traces/$c-1gpu.json" \
      --task-trace "$work/traces/$c-1gpu.csv"
    step "$c-trace-2ranks" mpirun -n 2 "$ph" "${args[@]}" --ncpu 0 -o "$work/$c-t2" --overwrite \
      --report "$work/traces/$c-2ranks.json" --task-trace "$work/traces/$c-2ranks.csv"
    step "$c-model" python3 "$repo/scripts/scaling_model.py" "$work/traces/$c-2ranks.csv" \
      --report "$work/traces/$c-2ranks.json" --ranks 2 8 64 512 --network ib-hdr 10gbe \
      --frames 2000
  done
  tar -czf "$out/mpi-traces.tar.gz" -C "$work" traces
fi

if [[ " $parts " == *" reduction "* ]]; then
  # The tree of sum tasks with ten intervals (the linear sum and StarPU-MPI's redux it was
  # measured against went in issue 38).
  step f1-interval20-sum mpirun -n 2 "$ph" "${f1cmd[@]}" --interval 20 -o "$work/f1-interval20" \
    --overwrite --report "$out/f1-interval20-sum.json"
fi

if [[ " $parts " == *" hybrid-traces "* ]]; then
  # Where the 2-rank hybrid run (CPU workers beside each GPU) loses its tail: task traces of both.
  mkdir -p "$work/htraces"
  step f1-htrace-1proc "$ph" "${f1cmd[@]}" -o "$work/f1-h1" --overwrite \
    --report "$work/htraces/f1-1proc.json" --task-trace "$work/htraces/f1-1proc.csv"
  step f1-htrace-2ranks mpirun -n 2 "$ph" "${f1cmd[@]}" -o "$work/f1-h2" --overwrite \
    --report "$work/htraces/f1-2ranks.json" --task-trace "$work/htraces/f1-2ranks.csv"
  tar -czf "$out/mpi-hybrid-traces.tar.gz" -C "$work" htraces
fi

mkdir -p "$work/reports" && cp "$out"/*.json "$work/reports/" 2>/dev/null
tar -czf "$out/mpi-reports.tar.gz" -C "$work" reports && rm -f "$out"/*.json
tar -czf "$out/suite.tar.gz" -C "$out" suite 2>/dev/null && rm -rf "$out/suite"
echo "mpi-device: $([ $status = 0 ] && echo done || echo FAILURES)" | tee -a "$log"
exit $status
