#!/usr/bin/env bash
# W1 end to end and the small-frame kernels on the GPU machine, after the feeding plan and the
# split home cells (2026-11-24, 2nd session): GPU suite, the cell-list kernel benchmark at 1e5,
# 1.4e6 and 1e7 atoms (automatic slices and one slice per cell), decoding alone, and
# `pairhist run` on W1 at 1.36M atoms with the automatic plan and fixed alternatives.
#   bash scripts/gpu-suite.sh stage          (here)
#   bash scripts/feed-device-run.sh          (there, repo root, carry [".gpu"]; logs to $OUT)
# FEED_PARTS picks parts (suite bench sweep w1 long threads start f1 fuse; default: suite bench sweep w1 long f1); FEED_SUITE_TESTS the suite's tests.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=feed-device
title="pairhist feeding and small frames on the device"
parts=${FEED_PARTS:-suite bench sweep w1 long f1}
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"

if [[ " $parts " == *" suite "* ]]; then
  OUT=$out/suite GPU_SUITE_TESTS=${FEED_SUITE_TESTS:-} bash "$repo/scripts/gpu-suite.sh" device \
    >/dev/null 2>&1 || status=1
  tail -3 "$out/suite/gpu-suite.log" | tee -a "$log"
  grep -E "passed in|FAILED" "$out/suite/gpu-suite.log" >>"$log"
fi

if [[ " $parts " == *" bench "* ]]; then
  for n in 100000 1400000 10000000; do
    step "cells-$n" "$stage/bin/bench_gpu_cells" --n $n --repeats 10 --tag auto
  done
  step cells-100000-s1 "$stage/bin/bench_gpu_cells" --n 100000 --slices 1 --repeats 10 --tag one
  for n in 100000 1400000; do
    step "cells-$n-double" "$stage/bin/bench_gpu_cells" --n $n --precision double --repeats 10
  done
  grep -h '"what":"frame' "$log" >"$out/cells-frame.jsonl" || true
fi

if [[ " $parts " == *" sweep "* ]]; then
  # Small frames: work items per home cell, and cells of r_max / 3 (more, smaller cells).
  for slices in 1 2 3 4 6 8; do
    step "sweep-100000-s$slices" "$stage/bin/bench_gpu_cells" --n 100000 --slices $slices \
      --repeats 10 --tag "slices$slices"
  done
  for n in 100000 300000 1400000; do
    step "sweep-$n-reach3" "$stage/bin/bench_gpu_cells" --n $n --reach 3 --repeats 10 --tag reach3
  done
  grep -h '"what":"frame' "$log" >"$out/cells-frame.jsonl" || true
fi

if [[ " $parts " == *" w1 "* ]]; then
  step synth-r8 "$ph" synth --case W1 --replicas 8 --frames 100 -o "$work/r8" -q
  step synth-r3 "$ph" synth --case W1 --replicas 3 --frames 100 -o "$work/r3" -q
  step synth-r16 "$ph" synth --case W1 --replicas 16 --frames 10 -o "$work/r16" -q
  for r in 1 2 3; do
    step "decode-r8-16-$r" "$ph" bench --decode "$work/r8/W1.xtc" --threads 16 --repeats 3 --json
    run "r8-auto-$r" 100 "$work/r8"
  done
  run r8-gpu-d14 100 "$work/r8" --ncpu 0 --decode-threads 14
  run r8-hybrid-d4 100 "$work/r8" --decode-threads 4
  run r8-auto-double 20 "$work/r8" --precision double
  run r3-auto 100 "$work/r3"
  run r16-auto 10 "$work/r16"
  run r8-cells5 5 "$work/r8" --algorithm cell-list
  run r8-all5 5 "$work/r8" --ncpu 0 --algorithm all-pairs
  if cmp -s "$work/r8-cells5/rdf.csv" "$work/r8-all5/rdf.csv"; then
    echo "identical: r8-cells5 r8-all5 (rdf.csv)" | tee -a "$log"
  else
    echo "DIFFERENT: r8-cells5 r8-all5 (rdf.csv)" | tee -a "$log"
    status=1
  fi
fi

if [[ " $parts " == *" long "* ]]; then
  # 500 frames: the start-up (first frame, StarPU) weighs a fifth of what it does at 100.
  step synth-r8-500 "$ph" synth --case W1 --replicas 8 --frames 500 -o "$work/r8long" -q
  for r in 1 2 3; do
    step "decode-r8long-16-$r" "$ph" bench --decode "$work/r8long/W1.xtc" --threads 16 \
      --repeats 1 --json
    run "r8long-auto-$r" 500 "$work/r8long"
  done
fi

if [[ " $parts " == *" threads "* ]]; then
  # With the columns handed over the feeding thread is idle 98% of the time: its core decodes
  # too. The plan's threads (15 on 16 cores: cores - the GPU's driver) against 14 (the plan
  # before, which left the feeding thread a core) and 16, interleaved with decoding alone; one
  # default run keeps its task trace.
  step synth-r8-500 "$ph" synth --case W1 --replicas 8 --frames 500 -o "$work/r8long" -q
  run r8long-warmup 5 "$work/r8long"
  for r in $(seq 1 "${FEED_ROUNDS:-2}"); do
    step "decode-r8long-16-$r" "$ph" bench --decode "$work/r8long/W1.xtc" --threads 16 \
      --repeats 1 --json
    run "r8long-auto-$r" 500 "$work/r8long"
    run "r8long-d14-$r" 500 "$work/r8long" --decode-threads 14
    run "r8long-d16-$r" 500 "$work/r8long" --decode-threads 16
  done
  trace_dir=$work/traces
  mkdir -p "$trace_dir"
  run r8long-auto-traced 500 "$work/r8long"
  tar -czf "$out/traces.tar.gz" -C "$work" traces
  unset trace_dir
fi

if [[ " $parts " == *" f1 "* ]]; then
  # F1-like (all pairs) must not lose its CPU workers to the feeding plan: same command as synth
  # prints, 200 frames (4.51 s hybrid, 5.08 s GPU only at ebd0b58).
  "$ph" synth --case F1 --frames 200 -o "$work/f1" -q >"$work/f1-command.txt" 2>&1
  read -r -a f1cmd <"$work/f1-command.txt"
  step f1-auto "$ph" "${f1cmd[@]:1:${#f1cmd[@]}-3}" -o "$work/f1-run" --report "$out/f1-auto.json"
fi

if [[ " $parts " == *" start "* ]]; then
  # What a 100-frame run pays before its frames flow: StarPU's start phase by phase
  # (bench_engine_start; hwloc's discovery against a topology read from XML), then W1 runs as
  # they are and with each start-up change switched off (START_VARIANTS: "NAME=VAR=VALUE[,VAR=VALUE] ...").
  for r in 1 2; do
    step "start-default-$r" "$stage/bin/bench_engine_start"
    step "start-ncpu0-$r" "$stage/bin/bench_engine_start" --ncpu 0
  done
  step start-export "$stage/bin/bench_engine_start" --export "$work/topology.xml"
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled)" | tee -a "$log"
  step start-pin "$stage/bin/bench_engine_start" --pin-mib 16
  for r in 1 2; do step "start-xml-$r" "$stage/bin/bench_engine_start" --ncpu 0 --xml "$work/topology.xml"; done
  step synth-r8 "$ph" synth --case W1 --replicas 8 --frames 100 -o "$work/r8" -q
  run r8-warmup 5 "$work/r8"
  trace_dir=$work/traces
  mkdir -p "$trace_dir"
  for r in $(seq 1 "${FEED_ROUNDS:-2}"); do
    step "decode-r8-16-$r" "$ph" bench --decode "$work/r8/W1.xtc" --threads 16 --repeats 1 --json
    for v in default=PAIRHIST_START_VARIANT=default ${START_VARIANTS:-}; do
      IFS=, read -ra assigns <<<"${v#*=}"
      for assign in "${assigns[@]}"; do export "${assign%%=*}=${assign#*=}"; done
      run "r8-start-${v%%=*}-$r" 100 "$work/r8"
      # The bundled sample (2,652 atoms): a start-up change must not cost a small run.
      step "sample-start-${v%%=*}-$r" "$ph" run "$repo/data/spce_water.xtc" --top \
        "$repo/data/spce_water.gro" "${species[@]}" -o "$work/sample" --overwrite -q \
        --report "$out/sample-start-${v%%=*}-$r.json"
      for assign in "${assigns[@]}"; do unset "${assign%%=*}"; done
    done
  done
  python3 - "$out" >>"$log" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*-start-*.json"))):
    d = json.load(open(f))
    print("%-28s seconds %.3f first_frame %.3f engine_start %.3f first_task %.3f makespan %.3f" % (
        os.path.basename(f)[:-5], d["seconds"], d["first_frame_seconds"],
        d["engine_start_seconds"], d["first_task_start_seconds"], d["makespan_seconds"]))
PY
  tar -czf "$out/traces.tar.gz" -C "$work" traces
  unset trace_dir
fi

if [[ " $parts " == *" fuse "* ]]; then
  # A frame's pairs in one launch (cuda::launch_cell_histograms) against one launch per pair on
  # streams: the kernel benchmark prints both (frame-fused, frame-streams) at 1e5, 1.4e6 and 1e7
  # atoms.
  for n in 100000 1400000 10000000; do
    step "fuse-cells-$n" "$stage/bin/bench_gpu_cells" --n $n --repeats 20 --tag fuse
  done
  step fuse-cells-100000-double "$stage/bin/bench_gpu_cells" --n 100000 --precision double \
    --repeats 20 --tag fuse
  step fuse-cells-100000-tric "$stage/bin/bench_gpu_cells" --n 100000 --box rhombic-dodecahedron \
    --repeats 20 --tag fuse
fi

mkdir -p "$work/reports" && cp "$out"/*.json "$work/reports/" 2>/dev/null
tar -czf "$out/feed-reports.tar.gz" -C "$work" reports && rm -f "$out"/*.json
tar -czf "$out/suite.tar.gz" -C "$out" suite 2>/dev/null && rm -rf "$out/suite"
grep -hE "^(== |[a-z0-9-]+: [0-9.]+ s wall|  (time|reading|workers|makespan) |\{.*\"what\":\"frame)" "$log" | cut -c1-400 | tail -150
echo "feed-device-run: $([ $status = 0 ] && echo all passed || echo FAILURES)" | tee -a "$log"
exit $status
