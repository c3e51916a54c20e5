#!/usr/bin/env bash
# GPU cell lists on the device machine: the cell-list tests, then W1-like kernel benchmarks
# (tests/bench_gpu_cells.cpp: cell sort and counting kernels timed with CUDA events, median of
# repeats, JSON lines) and end-to-end `pairhist bench` runs. Two halves, like scripts/gpu-suite.sh:
#   scripts/cell-device-run.sh stage    (here) scripts/gpu-suite.sh stage: build and pack .gpu/
#   scripts/cell-device-run.sh device   (there, from the repo root, carry [".gpu"]) run everything
#                                       from the stage, logs to $OUT
# CELL_TESTS adds suites (e.g. "test_gpu test_capi"); CELL_BENCH=quick runs only the main
# benchmark lines.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${PAIRHIST_BUILD_DIR:-$repo/build}

stage_here() {  # the GPU suite's stage holds the benchmark too
  bash "$repo/scripts/gpu-suite.sh" stage
}

run_on_device() {
  local stage
  stage=$(bash "$repo/scripts/gpu-suite.sh" unpack | tail -1)
  local out=${OUT:-$stage/out} data=$PWD/data
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$stage/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  export PAIRHIST_DATA_DIR="$data" PAIRHIST_BINARY="$stage/bin/pairhist"
  export STARPU_HOME="$out/starpu-home" STARPU_SILENT=1 STARPU_SCHED=
  local log=$out/cell-device.log status=0
  {
    echo "# pairhist GPU cell lists, commit $(cat "$stage/commit"), $(date -u +%Y-%m-%dT%H:%MZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
      --format=csv,noheader
    if ldd "$stage/bin/pairhist" "$stage/bin/test_gpu_cells" | grep "not found"; then
      echo "missing libraries"
      exit 1
    fi
  } | tee "$log"
  for t in test_gpu_cells ${CELL_TESTS:-}; do
    echo "== $t" | tee -a "$log"
    local start r
    start=$(date +%s%N)
    if "$stage/bin/$t" >"$out/$t.log" 2>&1; then r=passed; else r=FAILED; status=1; fi
    printf '%s %s in %s ms: %s\n' "$t" "$r" "$((($(date +%s%N) - start) / 1000000))" \
      "$(grep -E '^\[doctest\] (test cases|assertions)' "$out/$t.log" | tr '\n' ' ')" | tee -a "$log"
    [ $r = passed ] || tail -40 "$out/$t.log" | tee -a "$log"
  done

  # Hardware counters: O-O (the smallest cells) with per-instruction counts and stalls, H-H in
  # a rectangular and a triclinic box.
  local ncu
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null |
    head -1 || true)
  if [ "${CELL_NCU:-0}" = 1 ] && [ -n "$ncu" ]; then
    local bin=$stage/bin/bench_gpu_cells
    "$ncu" --clock-control none --set full --import-source no --page source --print-source sass \
      -k regex:cell_histogram -c 1 "$bin" --pairs OO --repeats 1 >"$out/ncu-source.txt" 2>&1 ||
      echo "ncu source page failed" >>"$log"
    {
      "$ncu" --clock-control none --set full -k regex:cell_histogram -c 1 "$bin" --pairs OO \
        --repeats 1
      "$ncu" --clock-control none --set full -k regex:cell_histogram -c 1 "$bin" --pairs HH \
        --repeats 1
      "$ncu" --clock-control none --set full -k regex:cell_histogram -c 1 "$bin" --pairs HH \
        --repeats 1 --box rhombic-dodecahedron
      # The cell sort of both species (key, scan and scatter kernels of one build each).
      "$ncu" --clock-control none --section SpeedOfLight --section LaunchStats \
        --section MemoryWorkloadAnalysis -k regex:"cell_key|cell_scatter|Scan" -c 8 "$bin" \
        --pairs OO --repeats 1
    } >"$out/ncu.txt" 2>&1 || echo "ncu failed (see ncu.txt)" >>"$log"
  fi

  local bench=$stage/bin/bench_gpu_cells jl=$out/bench-cells.jsonl
  : >"$jl"
  b() { echo "bench_gpu_cells $*" >>"$log"; "$bench" "$@" | tee -a "$jl" >/dev/null || status=1; }
  b --precision single --reach 2 --all-pairs 1
  b --precision double --reach 2 --all-pairs 1
  b --precision single --reach 2 --box rhombic-dodecahedron --all-pairs 1
  b --precision single --n 10000000 --reach 2 --repeats 5
  if [ "${CELL_BENCH:-full}" != quick ]; then
    for reach in 1 3; do
      b --precision single --reach $reach
      b --precision double --reach $reach
    done
    for order in morton hilbert; do b --precision single --reach 2 --order $order; done
    b --precision single --n 467000 --density 33.4 --o-fraction 1 --pairs OO --reach 2
    b --precision double --n 10000000 --reach 2 --repeats 3
  fi

  # End to end (coordinates from the host, grid set-up, sort, kernels, copies): K2 scaled to
  # W1's neighbours per point (1.4M points in a unit cube, r_max 1.2 nm / 24.08 nm box).
  local e2e=$out/bench-e2e.jsonl
  : >"$e2e"
  for args in "--n 1400000 --algorithm cell-list" "--n 467000 --algorithm cell-list" \
    "--n 1400000 --algorithm cell-list --precision double" "--n 1400000 --algorithm all-pairs"; do
    # shellcheck disable=SC2086
    "$stage/bin/pairhist" bench --case K2 --bins 240 --rmax 0.04983 --device gpu --repeats 3 \
      --json $args >>"$e2e" 2>>"$log" || status=1
  done

  {
    echo "== summary (kernel ms: CUDA-event medians; rates: candidates or pairs per second)"
    python3 - "$jl" "$e2e" <<'PY' || cat "$jl" "$e2e"
import json, sys
for path in sys.argv[1:]:
    for line in open(path):
        if not line.startswith("{"):
            continue
        j = json.loads(line)
        what = j.get("what", "e2e")
        if what == "e2e":
            print(f"e2e K2 n={j['n']} {j['precision']} {j['algorithm']}: "
                  f"{j['seconds_median'] * 1e3:.2f} ms per call")
            continue
        tag = (f"[{j['variant']}] n={j['n']} {j['box'][:5]} {j['precision']} reach={j['reach']} "
               f"{j['order']} cells={j['cells'][0]}")
        if what == "build":
            print(f"{tag}: build {j['build_ms_median']:.4f} ms "
                  f"(graph replay {j.get('build_graph_ms_median', float('nan')):.4f} ms)")
        elif what == "pair":
            print(f"{tag} {j['pair']}: {j['candidates']:.3e} cand, {j['kernel_ms_median']:.4f} ms, "
                  f"{j['candidates_per_s']:.3e}/s")
        elif what == "all-pairs":
            print(f"{tag} {j['pair']} all-pairs: {j['pairs_per_s']:.3e} pairs/s, equal="
                  f"{j['cell_list_equal']}, cell/all rate {j['candidate_rate_over_pair_rate']:.3f}")
        elif what == "frame":
            print(f"{tag} FRAME: kernels {j['kernel_ms']:.4f} ms, build {j['build_ms']:.4f} ms, "
                  f"{j['candidates_per_s']:.3e} cand/s")
PY
    echo "cell-device-run: $([ $status = 0 ] && echo all passed || echo FAILURES)"
  } | tee -a "$log"
  rm -rf "$out/starpu-home"
  return $status
}

case "${1:-}" in
  stage) stage_here ;;
  device) run_on_device ;;
  *) echo "usage: $0 stage|device" >&2; exit 2 ;;
esac
