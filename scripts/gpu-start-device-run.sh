#!/usr/bin/env bash
# Issue 24: where a many-GPU run's first second goes. StarPU's start alone (bench_engine_start,
# one GPU and all), then W1 x16 runs with task traces (first task per worker) and the report's
# start fields, with the GPUs' kernels loaded ahead (default) and lazily, and with --ncpu 0.
#   here:  bash scripts/gpu-suite.sh stage
#   there: bash scripts/gpu-start-device-run.sh   (repo root, carry [".gpu"]; logs to $OUT)
# START_FRAMES (100) frames of W1 x16; START_ROUNDS (2); START_BENCH (1) times StarPU alone;
# START_REPEAT (1) repeats the frames that many times.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=gpu-start-device
title="pairhist: the start of a many-GPU run (issue 24)"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)," \
  "defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)" | tee -a "$log"
echo "== StarPU's start alone (bench_engine_start)" | tee -a "$log"
for n in $([ "${START_BENCH:-1}" = 1 ] && echo 1 "$gpus"); do
  for repeat in 1 2; do
    "$stage/bin/bench_engine_start" --ncpu 0 --ncuda "$n" 2>&1 | sed "s/^/ncuda $n #$repeat: /" |
      tee -a "$log"
  done
done
w1=$("$ph" synth --case W1 --replicas 16 --frames "${START_FRAMES:-100}" -o "$work/w1big" -q)
if [ "${START_REPEAT:-1}" -gt 1 ]; then  # the frames START_REPEAT times (1000 from 200)
  for _ in $(seq "$START_REPEAT"); do cat "$work/w1big/W1.xtc"; done >"$work/w1big/W1-long.xtc"
  mv "$work/w1big/W1-long.xtc" "$work/w1big/W1.xtc"
fi
cat "$work"/w1big/W1.xtc >/dev/null
args=$(echo "${w1#* }" | sed 's/ -o [^ ]*//')
# The bus calibration and a first process on the machine (until 886d59f this passed --frames,
# which run does not have, so the first measured run was the machine's first).
"$ph" $args --last 2 -o "$work/warm-up" --overwrite >"$work/warm-up.out" 2>&1 ||
  { echo "FAILED: warm-up" | tee -a "$log"; tail -3 "$work/warm-up.out" | tee -a "$log"; status=1; }
mkdir -p "$out/reports"
one() {  # one NAME ROUND "EXTRA ARGS" ENV...
  local run=$1 round=$2 extra=$3
  shift 3
  local t0 t1
  grep -E '^(compact_stall|compact_fail|thp_fault_alloc|thp_fault_fallback|pgmajfault) ' \
    /proc/vmstat >"$work/vm-before"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  if ! timeout "${START_RUN_TIMEOUT:-120}" env "$@" "$ph" $args $extra -o "$work/$run" --overwrite --report "$work/$run.json" \
    --task-trace "$work/$run-trace.csv" --reading-trace "$work/$run-reading.csv" \
    >"$work/$run.out" 2>&1; then
    echo "FAILED: $run" | tee -a "$log"
    tail -5 "$work/$run.out" | tee -a "$log"
    status=1
    return
  fi
  t1=$(date +%s.%N)
  # Memory compaction and huge-page faults during the run (a first run after the trajectory
  # filled the page cache was 2-4 s slower: does the kernel compact memory for huge pages?).
  grep -E '^(compact_stall|compact_fail|thp_fault_alloc|thp_fault_fallback|pgmajfault) ' \
    /proc/vmstat | paste -d' ' "$work/vm-before" - |
    awk -v run="$run-$round" '{ s = s " " $1 " " $4 - $2 } END { print run " vm:" s }' |
    tee -a "$log"
  cp "$work/$run.json" "$out/reports/$run-$round.json"
  cp "$work/$run.out" "$out/reports/$run-$round.out"
  gzip -c "$work/$run-trace.csv" >"$out/reports/$run-$round-trace.csv.gz"
  gzip -c "$work/$run-reading.csv" >"$out/reports/$run-$round-reading.csv.gz"
  /usr/bin/python3 "$repo/scripts/reading_timeline.py" "$work/$run-reading.csv" \
    "$work/$run-trace.csv" 0.2 >"$out/reports/$run-$round-timeline.txt" 2>&1
  head -8 "$out/reports/$run-$round-timeline.txt" | sed "s/^/$run-$round: /" | tee -a "$log"
  /usr/bin/python3 - "$work/$run.json" "$work/$run-trace.csv" "$run-$round" "$t0" "$t1" <<'PY' |
import csv, json, sys
r = json.load(open(sys.argv[1]))
first = {}
with open(sys.argv[2]) as f:
    for row in csv.DictReader(l for l in f if not l.startswith("#")):
        w = row.get("worker", "?")
        s = float(row.get("start_s", row.get("start", 0)) or 0)
        first[w] = min(first.get(w, s), s)
keys = ["seconds", "before_first_frame_seconds", "topology_seconds", "first_frame_seconds",
        "gpu_wait_seconds", "engine_start_seconds", "first_task_start_seconds", "makespan_seconds",
        "decode_seconds_per_frame", "decode_window_wait_seconds", "decode_caller_wait_seconds",
        "decode_caller_promotions", "decode_lock_wait_seconds"]
print(sys.argv[3], f"wall {float(sys.argv[5]) - float(sys.argv[4]):.2f}",
      " ".join(f"{k.replace('_seconds', '')} {r.get(k) or 0:.3f}" for k in keys),
      "first task per worker", " ".join(f"{v:.2f}" for k, v in sorted(first.items())))
for key in ("start_marks_seconds", "end_marks_seconds"):
    if r.get(key):
        print(sys.argv[3], key.replace("_seconds", "") + " (process s):",
              " ".join(f"{k} {v:.3f}" for k, v in r[key].items()))
for i, x in enumerate((r.get("feeding") or {}).get("first_frames", [])):
    print(sys.argv[3], f"frame {i}:", " ".join(f"{k.replace('_seconds', '')} {v:.3f}"
                                              for k, v in x.items()))
PY
    tee -a "$log"
}
# START_VARIANTS: NAME=ARGS entries separated by ";" (ARGS after pairhist's run arguments, or
# env:VAR=VALUE [VAR=VALUE...] for the defaults in that environment).
IFS=';' read -r -a variants <<<"${START_VARIANTS:-defaults=;ncpu0=--ncpu 0}"
# START_DECODE=1: decoding alone (bench --decode, a thread per core) with the defaults and in
# each env: variant's environment, before the runs.
if [ "${START_DECODE:-0}" = 1 ]; then
  for entry in "${variants[@]}"; do
    a=${entry#*=}
    [ "$a" != "" ] && [ "${a#env:}" = "$a" ] && continue
    # shellcheck disable=SC2086
    env ${a#env:} "$ph" bench --decode "$work/w1big/W1.xtc" --threads "$(nproc)" --repeats 3 \
      --warmup 0 --json | tail -1 | /usr/bin/python3 -c 'import json, sys
r = json.loads(sys.stdin.read())
print("decode %s: %.2f GB/s, %.1f cores busy" % (sys.argv[1], r["gb_per_s_median"], r["cores_busy"]))' "${entry%%=*}" | tee -a "$log"
  done
fi
for round in $(seq "${START_ROUNDS:-2}"); do
  for entry in "${variants[@]}"; do
    v=${entry%%=*}
    a=${entry#*=}
    if [ "${a#env:}" != "$a" ]; then  # env:VAR=VALUE [VAR=VALUE...]: the defaults there
      # shellcheck disable=SC2086
      one "$v" "$round" "" ${a#env:}
    else
      one "$v" "$round" "$a"
    fi
  done
done
for entry in "${variants[@]}"; do
  d=${entry%%=*}
  [ "$d" = defaults ] && continue
  cmp -s "$work/$d/rdf.csv" "$work/defaults/rdf.csv" && echo "identical rdf.csv: $d" | tee -a "$log" ||
    { echo "DIFFERENT rdf.csv: $d" | tee -a "$log"; status=1; }
done
head -3 "$work/defaults-trace.csv" >"$out/trace-head.txt"
rm -rf "$work/w1big"
# One archive: the device tool brings back a limited number of files.
tar -C "$out" -czf "$out/reports.tar.gz" reports && rm -rf "$out/reports"
echo "gpu-start-device-run: $([ $status = 0 ] && echo done || echo FAILURES)" | tee -a "$log"
exit $status
