#!/usr/bin/env bash
# One big frame split over the ranks (one GPU each) against one process with every GPU, this
# stage against the baseline's (.gpu-base/): how many parts each rank counts and the wall time.
#   there: bash scripts/split-frame-device-run.sh   (repo root, carry [".gpu", ".gpu-base"]; logs to $OUT)
# SPLIT_ATOMS (2000000) atoms of one K1 frame; SPLIT_ROUNDS (3) rounds.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=split-frame-device
title="pairhist: one frame split over ranks (issue 24)"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
unpack_baseline
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
cmd=$("$ph" synth --case K1 --n "${SPLIT_ATOMS:-2000000}" --frames 1 -o "$work/k1" -q)
args=$(echo "${cmd#* }" | sed 's/ -o [^ ]*//')
"$ph" $args -o "$work/warm-up" --overwrite >"$work/warm-up.out" 2>&1  # bus calibration
times=$work/times.tsv
: >"$times"
for round in $(seq "${SPLIT_ROUNDS:-3}"); do
  for v in single new base; do
    bin=$ph libs=$LD_LIBRARY_PATH pre=(mpirun -n "$gpus")
    [ $v = base ] && bin=$base_stage/bin/pairhist libs="$base_stage/lib:$LD_LIBRARY_PATH"
    [ $v = single ] && pre=()
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    env LD_LIBRARY_PATH="$libs" timeout 300 "${pre[@]}" "$bin" $args -o "$work/k1-$v" --overwrite \
      --report "$work/k1-$v.json" >"$work/k1-$v.out" 2>&1 || { echo "FAILED: $v $round" | tee -a "$log"; status=1; }
    t1=$(date +%s.%N)
    record_time k1 "$v" "$round" "$t0" "$t1" "$work/k1-$v.json"
    echo "units k1-$v $round: $(grep -oE '"(units|frame_parts)": *[0-9]+' "$work/k1-$v.json" | tr -d '" ' | tr '\n' ' ')" | tee -a "$log"
  done
  for v in new base; do
    cmp -s "$work/k1-single/rdf.csv" "$work/k1-$v/rdf.csv" || { echo "DIFFERENT rdf.csv: $v" | tee -a "$log"; status=1; }
  done
done
echo "== medians (case variant, wall s, makespan s, rounds)" | tee -a "$log"
print_medians
echo "split-frame-device-run: $([ $status = 0 ] && echo no failures || echo FAILURES)" | tee -a "$log"
exit $status
