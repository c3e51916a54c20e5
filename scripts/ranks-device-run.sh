#!/usr/bin/env bash
# F1 as one rank per GPU (mpirun), many rounds, this stage against the baseline's (.gpu-base/) and
# against variants: for a failure that shows only now and then. A rank that crashes under gdb
# (when the machine has it) leaves its backtrace in the log.
#   there: bash scripts/ranks-device-run.sh   (repo root, carry [".gpu", ".gpu-base"]; logs to $OUT)
# RANKS_ROUNDS (4) rounds; RANKS_VARIANTS ("new base") among new, base, pinnedN (this stage with
# PAIRHIST_PINNED_FRAMES=N), gdb (this stage, each rank under gdb), single (one process, all GPUs,
# as node-device-run.sh runs before the ranks: the perfmodels then hold its history).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=ranks-device
title="pairhist: F1 as ranks, repeated (issue 24)"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
have_base=0
if [ -f "$repo/.gpu-base/payload.tar.gz" ]; then
  unpack_baseline
  have_base=1
fi
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
f1=$("$ph" synth --case F1 --frames 200 -o "$work/f1" -q)
f1_args=$(echo "${f1#* }" | sed 's/ -o [^ ]*//')
"$ph" $f1_args -o "$work/warm-up" --overwrite >"$work/warm-up.out" 2>&1  # bus calibration
echo "gdb: $(command -v gdb || echo none); libSegFault: $(ls /usr/lib/x86_64-linux-gnu/libSegFault.so /lib/x86_64-linux-gnu/libSegFault.so 2>/dev/null | head -1)" | tee -a "$log"
times=$work/times.tsv
: >"$times"
for round in $(seq "${RANKS_ROUNDS:-4}"); do
  for v in ${RANKS_VARIANTS:-new base}; do
    bin=$ph libs=$LD_LIBRARY_PATH envs=()
    case $v in
      base) [ $have_base = 1 ] || continue
        bin=$base_stage/bin/pairhist libs="$base_stage/lib:$LD_LIBRARY_PATH" ;;
      pinned[0-9]*) envs=("PAIRHIST_PINNED_FRAMES=${v#pinned}") ;;
    esac
    pre=(mpirun -n "$gpus")
    [ "$v" = single ] && pre=()
    [ "$v" = gdb ] && command -v gdb >/dev/null &&
      pre+=(gdb -q -batch -ex run -ex "thread apply all bt 12" --args)
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    if ! env LD_LIBRARY_PATH="$libs" "${envs[@]}" timeout 120 "${pre[@]}" "$bin" $f1_args -o "$work/f1-$v" --overwrite --report "$work/f1-$v.json" \
      >"$work/f1-$v.out" 2>&1; then
      echo "FAILED: f1-$v round $round" | tee -a "$log"
      tail -30 "$work/f1-$v.out" >"$out/f1-$v-$round-failed.txt"
      status=1
    fi
    t1=$(date +%s.%N)
    grep -E "SIGSEGV|^#[0-9]+ |signal|error" "$work/f1-$v.out" | head -60 >>"$log"
    record_time f1 "$v" "$round" "$t0" "$t1" "$work/f1-$v.json"
  done
done
echo "== medians (case variant, wall s, makespan s, rounds)" | tee -a "$log"
print_medians
echo "ranks-device-run: $([ $status = 0 ] && echo no failures || echo FAILURES)" | tee -a "$log"
exit $status
