#!/usr/bin/env bash
# Issue 26: what I(q) and S(q) add to a bulk-water run on a GPU node (target: the run plus 1%).
# W1 (1.36M atoms) and W1 x16 (10.9M), SQ_FRAMES (200) frames each, the g(r) run alone and with
# `--scattering xray --structure-factor`, interleaved, SQ_ROUNDS (5) rounds; whole processes
# timed; medians of wall and of the summary's `time`.
#   here:  bash scripts/gpu-suite.sh stage
#   there: bash scripts/scattering-cost-device-run.sh   (repo root, carry [".gpu"]; logs to $OUT)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=scattering-cost-device
title="pairhist: the cost of I(q) and S(q) after a W1 run on a GPU node (issue 26)"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
times=$work/times.tsv
: >"$times"
frames=${SQ_FRAMES:-200}
for replicas in ${SQ_REPLICAS:-1 16}; do
  case_name=W1x$replicas
  "$ph" synth --case W1 --replicas "$replicas" --frames "$frames" -o "$work/$case_name" -q >/dev/null
  cat "$work/$case_name"/W1.xtc >/dev/null  # in the page cache before the first timed run
  # The machine's first StarPU run measures the buses: not one of the timed runs.
  "$ph" run "$work/$case_name/W1.xtc" --top "$work/$case_name/W1.gro" "${species[@]}" --last 1 \
    -o "$work/warm-up" --overwrite -q >/dev/null 2>&1
  for round in $(seq "${SQ_ROUNDS:-5}"); do
    for variant in gr sq; do
      extra=()
      [ "$variant" = sq ] && extra=(--scattering xray --structure-factor)
      t0=$(date +%s.%N)
      run "$case_name-$variant" "$frames" "$work/$case_name" "${extra[@]}"
      t1=$(date +%s.%N)
      record_time "$case_name" "$variant" "$round" "$t0" "$t1" "$out/$case_name-$variant.json"
      seconds=$(grep -oE '"seconds": *[0-9.e+-]+' "$out/$case_name-$variant.json" | head -1 |
        grep -oE '[0-9.e+-]+$')
      printf '%s\t%s-time\t%s\t%s\t%s\n' "$case_name" "$variant" "$round" "$seconds" nan >>"$times"
    done
  done
  cmp -s "$work/$case_name-gr/rdf.csv" "$work/$case_name-sq/rdf.csv" &&
    echo "$case_name: identical rdf.csv" | tee -a "$log" ||
    { echo "$case_name: DIFFERENT rdf.csv" | tee -a "$log"; status=1; }
  ls "$work/$case_name-sq" | tr '\n' ' ' | sed "s/^/$case_name-sq outputs: /" | tee -a "$log"
  echo | tee -a "$log"
  rm -rf "$work/$case_name"
done
echo "== medians (wall: whole process; X-time: the summary's run time)" | tee -a "$log"
print_medians
cp "$times" "$out/"
echo "scattering-cost-device-run: $([ $status = 0 ] && echo done || echo FAILURES)" | tee -a "$log"
exit $status
