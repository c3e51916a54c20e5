#!/usr/bin/env bash
# Before and after a change that must not alter results or speed, on the GPU machine, in one call:
# the same cases run with the baseline's stage (.gpu-base/) and this tree's (.gpu/) in interleaved
# rounds; every case's rdf.csv must be identical between the two; the log ends with the median
# wall time and makespan of each case and stage.
#   here:  bash scripts/gpu-suite.sh stage            (in a checkout of the baseline, with CUDA)
#          bash scripts/compare-device-run.sh pack-base BASELINE_CHECKOUT   (this tree: .gpu-base/)
#          bash scripts/gpu-suite.sh stage            (this tree)
#   there: bash scripts/compare-device-run.sh   (carry [".gpu", ".gpu-base"]; logs to $OUT)
# COMPARE_ROUNDS (3) rounds; COMPARE_CASES (sample w1 f1) picks the cases.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = pack-base ]; then
  # The baseline's program and its own libraries only (the rest is the same as this stage's),
  # so that both stages fit the device tool's 64 MiB.
  tmp=$(mktemp -d)
  tar -xzf "$2/.gpu/payload.tar.gz" -C "$tmp" bin/pairhist commit
  tar -xzf "$2/.gpu/payload.tar.gz" -C "$tmp" --wildcards 'lib/libpairhist*'
  mkdir -p "$repo/.gpu-base"
  tar -czf "$repo/.gpu-base/payload.tar.gz" -C "$tmp" bin lib commit
  echo "compare-device-run: baseline $(cat "$tmp/commit") packed into $repo/.gpu-base"
  rm -rf "$tmp"
  exit 0
fi
name=compare-device
title="pairhist before/after on the device"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
unpack_baseline
declare -A bin=([base]="$base_stage/bin/pairhist" [new]="$ph")
# The baseline carries only its program and its own libraries; the rest comes from this stage.
declare -A libs=([base]="$base_stage/lib:$stage/lib" [new]="$stage/lib")

# Each case: the synthesised workload's run command (pairhist synth prints it), as words.
declare -A case_args
for c in ${COMPARE_CASES:-sample w1 f1}; do
  case $c in
    sample) case_args[$c]="run $repo/data/spce_water.xtc --top $repo/data/spce_water.gro \
--species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240" ;;
    w1) cmd=$("$ph" synth --case W1 --replicas 8 --frames 100 -o "$work/w1" -q) ;;
    f1) cmd=$("$ph" synth --case F1 --frames 200 -o "$work/f1" -q) ;;
  esac
  # synth's command without its program and its output folder (each run names its own).
  [ "$c" = sample ] || case_args[$c]=$(echo "${cmd#* }" | sed 's/ -o [^ ]*//')
  echo "case $c: pairhist ${case_args[$c]}" | tee -a "$log"
done

times=$work/times.tsv
: >"$times"
for round in $(seq "${COMPARE_ROUNDS:-3}"); do
  for c in "${!case_args[@]}"; do
    for s in base new; do
      dir=$work/$c-$s
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      if ! LD_LIBRARY_PATH="${libs[$s]}:/usr/local/cuda/lib64" "${bin[$s]}" ${case_args[$c]} \
        -o "$dir" --overwrite --report "$work/$c-$s.json" >"$work/$c-$s.out" 2>&1; then
        echo "FAILED: $c $s round $round" | tee -a "$log"
        tail -5 "$work/$c-$s.out" | tee -a "$log"
        status=1
        continue
      fi
      t1=$(date +%s.%N)
      record_time "$c" "$s" "$round" "$t0" "$t1" "$work/$c-$s.json"
      mkdir -p "$work/summaries"
      [ "$round" = 1 ] && cp "$work/$c-$s.out" "$work/summaries/$c-$s.txt"
    done
    if cmp -s "$work/$c-base/rdf.csv" "$work/$c-new/rdf.csv"; then
      echo "identical rdf.csv: $c round $round" | tee -a "$log"
    else
      echo "DIFFERENT rdf.csv: $c round $round" | tee -a "$log"
      status=1
    fi
  done
done
echo "== medians (case, stage, wall s, makespan s, rounds)" | tee -a "$log"
print_medians
tar -czf "$out/compare-summaries.tar.gz" -C "$work" summaries
echo "compare-device-run: $([ $status = 0 ] && echo identical results || echo FAILURES)" | tee -a "$log"
exit $status
