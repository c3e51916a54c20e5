#!/usr/bin/env bash
# The feeding plan (issue 24) against the plan before it, on the GPU machine, in one call: the
# same binary runs each case with PAIRHIST_FEEDING=legacy ("old") and without ("new"), in
# interleaved rounds; every case's rdf.csv must be identical between the two; the log ends with
# the median wall time and makespan of each case and plan, and keeps the first round's summaries
# (their `plan` and `reading` lines say what each plan chose).
#   here:  bash scripts/gpu-suite.sh stage
#   there: bash scripts/feeding-device-run.sh   (repo root, carry [".gpu"]; logs to $OUT)
# FEEDING_CASES (w1big w1 w1short f1) picks the workloads: W1 replicated 16 times per direction (10.9M atoms,
# FEEDING_BIG_FRAMES frames, 50), W1 x8 (1.36M atoms, 200 frames), the same for 10 frames, F1-like
# (200 frames). FEEDING_VARIANTS (defaults ncpu0 ncuda1) the options: none, --ncpu 0, --ncuda 1
# (ncuda1 only where there are several GPUs). FEEDING_ROUNDS (2) rounds.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=feeding-device
title="pairhist feeding plan: issue 24 against PAIRHIST_FEEDING=legacy"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)

declare -A case_args
for c in ${FEEDING_CASES:-w1big w1 w1short f1}; do
  case $c in
    w1big) cmd=$("$ph" synth --case W1 --replicas 16 --frames "${FEEDING_BIG_FRAMES:-50}" \
      -o "$work/w1big" -q) ;;
    w1) cmd=$("$ph" synth --case W1 --replicas 8 --frames 200 -o "$work/w1" -q) ;;
    w1short) cmd=$("$ph" synth --case W1 --replicas 8 --frames 10 -o "$work/w1short" -q) ;;
    f1) cmd=$("$ph" synth --case F1 --frames 200 -o "$work/f1" -q) ;;
    *) echo "unknown case $c" | tee -a "$log"; exit 2 ;;
  esac
  # synth's command without its program and its output folder (each run names its own).
  case_args[$c]=$(echo "${cmd#* }" | sed 's/ -o [^ ]*//')
  echo "case $c: pairhist ${case_args[$c]}" | tee -a "$log"
done
declare -A variant_args=([defaults]="" [ncpu0]="--ncpu 0" [ncuda1]="--ncuda 1")
variants=""
for v in ${FEEDING_VARIANTS:-defaults ncpu0 ncuda1}; do
  [ "$v" = ncuda1 ] && [ "$gpus" -lt 2 ] && continue
  variants="$variants $v"
done

times=$work/times.tsv
: >"$times"
mkdir -p "$work/summaries"
# A first run on a fresh machine calibrates StarPU's bus model (seconds): not in any round.
first=$(echo "${!case_args[@]}" | awk '{print $1}')
# shellcheck disable=SC2086
"$ph" ${case_args[$first]} -o "$work/warm-up" --overwrite >"$work/warm-up.out" 2>&1
for round in $(seq "${FEEDING_ROUNDS:-2}"); do
  for c in "${!case_args[@]}"; do
    for v in $variants; do
      for plan in old new; do
        run=$c-$v-$plan
        feeding=$([ $plan = old ] && echo legacy || echo "")
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        if ! PAIRHIST_FEEDING=$feeding "$ph" ${case_args[$c]} ${variant_args[$v]} \
          -o "$work/$run" --overwrite --report "$work/$run.json" >"$work/$run.out" 2>&1; then
          echo "FAILED: $run round $round" | tee -a "$log"
          tail -5 "$work/$run.out" | tee -a "$log"
          status=1
          continue
        fi
        t1=$(date +%s.%N)
        record_time "$c $v" "$plan" "$round" "$t0" "$t1" "$work/$run.json"
        if [ "$round" = 1 ]; then
          cp "$work/$run.out" "$work/summaries/$run.txt"
          cp "$work/$run.json" "$work/summaries/$run.json"
          grep -E "^  (workers|reading|plan|makespan) " "$work/$run.out" | sed "s/^/$run: /" |
            tee -a "$log"
        fi
      done
      if cmp -s "$work/$c-$v-old/rdf.csv" "$work/$c-$v-new/rdf.csv"; then
        echo "identical rdf.csv: $c $v round $round" | tee -a "$log"
      else
        echo "DIFFERENT rdf.csv: $c $v round $round" | tee -a "$log"
        status=1
      fi
    done
  done
done
echo "== medians (case variant, plan, wall s, makespan s, rounds)" | tee -a "$log"
print_medians
tar -czf "$out/feeding-summaries.tar.gz" -C "$work" summaries
rm -rf "$work"/w1big  # the big trajectory would otherwise stay on the machine's disk
echo "feeding-device-run: $([ $status = 0 ] && echo identical results || echo FAILURES)" | tee -a "$log"
exit $status
