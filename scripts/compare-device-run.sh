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
base_stage=/tmp/gpu-base
mkdir -p "$base_stage"
[ -f "$base_stage/commit" ] || tar -xzf "$repo/.gpu-base/payload.tar.gz" -C "$base_stage"
echo "baseline: commit $(cat "$base_stage/commit"); this tree: commit $(cat "$stage/commit")" |
  tee -a "$log"
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
      makespan=$(grep -oE '"makespan_seconds": *[0-9.e+-]+' "$work/$c-$s.json" | head -1 |
        grep -oE '[0-9.e+-]+$')
      awk -v c="$c" -v s="$s" -v r="$round" -v a="$t0" -v b="$t1" -v m="${makespan:-nan}" \
        'BEGIN { printf "%s\t%s\t%s\t%.3f\t%s\n", c, s, r, b - a, m }' | tee -a "$times" >>"$log"
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
sort "$times" | awk -F'\t' '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) {
      t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { k = $1 " " $2; w[k] = w[k] " " $4; m[k] = m[k] " " $5; n[k]++ }
  END { for (k in w) printf "%s wall %.3f makespan %.3f (%d rounds)\n", k, median(w[k]), median(m[k]), n[k] }' |
  sort | tee -a "$log"
tar -czf "$out/compare-summaries.tar.gz" -C "$work" summaries
echo "compare-device-run: $([ $status = 0 ] && echo identical results || echo FAILURES)" | tee -a "$log"
exit $status
