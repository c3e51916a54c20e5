#!/usr/bin/env bash
# Measurements on the GPU machine, one named case each: `scripts/device-run.sh --list` says what
# each case runs. Build and pack here, run there with the device tool, carrying .gpu:
#   here:  bash scripts/gpu-suite.sh stage           (build with CUDA, pack .gpu/)
#   there: bash scripts/device-run.sh CASE [CASE...]  (repository root, carry [".gpu"]; logs to $OUT)
# Cases that compare with a baseline (compare, decode-compare, node, ranks, split-frame) also take
# its stage, packed here from a checkout of the baseline that ran `scripts/gpu-suite.sh stage`:
#   here:  bash scripts/device-run.sh pack-base BASELINE_CHECKOUT   (this tree: .gpu-base/)
#   there: carry [".gpu", ".gpu-base"]
# Each case writes its own log (named below) to $OUT and ends with a line that says whether its
# results were identical and its runs passed; the exit status is non-zero when any case failed.
# Variables pick parts, rounds and sizes: see each case's comment. The GPU test suite is
# scripts/gpu-suite.sh (docs/gpu-suite.md).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

# The cases, one line each, for --list.
case_list=(
  "kernels          kernel tables against CADISHI: scripts/bench-suite.sh (GPU and CPU), CPU tile widths"
  "endtoend         F1-like from XTC: 200 frames GPU only, hybrid, CPU only (8 frames), 2000 frames hybrid"
  "multi-gpu        1, 2, 4, ... GPUs: F1-like 200 frames GPU only and hybrid, one 4M-atom frame"
  "scaling-traces   GPU-only task traces on 1, 2, 4, ... GPUs for scripts/scaling_model.py"
  "perfmodels       calibrates this host's StarPU models for perfmodels/ (tar in \$OUT)"
  "cells            GPU cell lists: test_gpu_cells, bench_gpu_cells kernels, pairhist bench K2"
  "feed             W1 at 1.36M atoms against decoding alone (FEED_PARTS: start threads fuse)"
  "node             the whole node: decoding threads, W1 x16 and F1 variants, ranks, start and end"
  "ranks            F1 as one rank per GPU, many rounds; an empty MPI job's launch variants"
  "split-frame      one 2M-atom frame split over the ranks against one process"
  "cuda-start       CUDA's own start and a process's end without pairhist, mpirun's discovery"
  "first-run        the machine's first run (StarPU measures the buses) against later ones"
  "scattering-cost  W1 and W1 x16 with and without --scattering xray --structure-factor"
  "gpu-memory       runs under STARPU_LIMIT_CUDA_MEM: they end with the unlimited counts"
  "compare          the baseline's stage against this one on the sample, W1, F1 (rdf.csv identical)"
  "decode-compare   XTC decoding alone, the baseline's program against this one"
  "kernel-compare   kernel bapps (pairhist bench), the baseline's program against this one"
)

# ---- shared by the cases

# begin NAME TITLE: unpacks the GPU suite's stage, sets the environment, starts $out/NAME.log.
# Every case runs in a subshell of its own, so what begin sets ends with the case.
begin() {
  name=$1
  title=$2
  stage=$(bash "$repo/scripts/gpu-suite.sh" unpack | tail -1)
  out=${OUT:-/tmp/$name-out}
  work=/tmp/$name-work
  mkdir -p "$out" "$work"
  export LD_LIBRARY_PATH="$stage/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  export PAIRHIST_DATA_DIR="$repo/data" STARPU_HOME="$work/starpu-home" STARPU_SILENT=1 STARPU_SCHED=
  ph=$stage/bin/pairhist
  # The stage's OpenMPI (scripts/gpu-suite.sh stage_openmpi), relocated: mpirun for distributed runs.
  if [ -x "$stage/openmpi/bin/mpirun" ]; then
    export OPAL_PREFIX=$stage/openmpi PMIX_PREFIX=$stage/pmix PATH="$stage/openmpi/bin:$PATH"
    export OMPI_MCA_mca_base_component_show_load_errors=0 OMPI_ALLOW_RUN_AS_ROOT=1
    export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  fi
  log=$out/$name.log
  status=0
  {
    echo "# $title, commit $(cat "$stage/commit"), $(date -u +%Y-%m-%dT%H:%MZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    echo "host: $(nproc) cores"
  } | tee "$log"
}

step() {  # step NAME CMD...: runs CMD, its output and wall time to the log
  local step_name=$1
  shift
  echo "== $step_name: $*" >>"$log"
  local t0 t1
  t0=$(date +%s.%N)
  if ! "$@" >>"$log" 2>&1; then
    echo "FAILED: $step_name" | tee -a "$log"
    status=1
  fi
  t1=$(date +%s.%N)
  awk -v n="$step_name" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s: %.3f s wall\n", n, b - a }' |
    tee -a "$log"
}

# W1's species and the run() of a case: run NAME FRAMES DIR ARGS... = `pairhist run` on the first
# FRAMES frames of DIR's trajectory with a report in $out (and a task trace in $trace_dir if set).
species=(--species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240)
run() {
  local case_name=$1 frames=$2 dir=$3
  shift 3
  local xtc top
  xtc=$(ls "$dir"/*.xtc)
  top=${xtc%.xtc}.gro
  step "$case_name" "$ph" run "$xtc" --top "$top" "${species[@]}" --last $((frames - 1)) \
    -o "$work/$case_name" --overwrite --report "$out/$case_name.json" \
    ${trace_dir:+--task-trace "$trace_dir/$case_name.csv"} "$@"
}

# record_time KEY VARIANT ROUND T0 T1 REPORT.json: one row of $times (key, variant, round, wall
# seconds, the report's makespan) for print_medians.
record_time() {
  local makespan
  makespan=$(grep -oE '"makespan_seconds": *[0-9.e+-]+' "$6" 2>/dev/null | head -1 |
    grep -oE '[0-9.e+-]+$')
  awk -v k="$1" -v s="$2" -v r="$3" -v a="$4" -v b="$5" -v m="${makespan:-nan}" \
    'BEGIN { printf "%s\t%s\t%s\t%.3f\t%s\n", k, s, r, b - a, m }' | tee -a "$times" >>"$log"
}

# print_medians: the median wall time and makespan of every key and variant of $times.
print_medians() {
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
}

# unpack_baseline: the baseline's stage (.gpu-base/, made by pack-base) into $base_stage; its
# program uses its own libraries, the rest from this stage.
base_stage=/tmp/gpu-base
unpack_baseline() {
  mkdir -p "$base_stage"
  [ -f "$base_stage/commit" ] || tar -xzf "$repo/.gpu-base/payload.tar.gz" -C "$base_stage"
  echo "baseline: commit $(cat "$base_stage/commit"); this tree: commit $(cat "$stage/commit")" |
    tee -a "$log"
}

# pack_base CHECKOUT (here): the baseline's program and its own libraries only (the rest is the
# same as this stage's), so that both stages fit the device tool's 64 MiB.
pack_base() {
  local tmp
  tmp=$(mktemp -d)
  tar -xzf "$1/.gpu/payload.tar.gz" -C "$tmp" bin/pairhist commit
  tar -xzf "$1/.gpu/payload.tar.gz" -C "$tmp" --wildcards 'lib/libpairhist*'
  mkdir -p "$repo/.gpu-base"
  tar -czf "$repo/.gpu-base/payload.tar.gz" -C "$tmp" bin lib commit
  echo "device-run: baseline $(cat "$tmp/commit") packed into $repo/.gpu-base"
  rm -rf "$tmp"
}

# ---- the task-graph cases (kernels, endtoend, multi-gpu, scaling-traces, perfmodels): every run
# writes its JSON report; one summary line per run goes to stdout and $OUT/taskgraph.log, the
# reports and activity pictures to $OUT/taskgraph-CASE.tar.gz.
taskgraph_begin() {
  stage=$(bash "$repo/scripts/gpu-suite.sh" unpack | tail -1)
  out=${OUT:-$stage/out}
  mkdir -p "$out/reports"
  export LD_LIBRARY_PATH=$stage/lib:/usr/local/cuda/lib64 STARPU_SILENT=1
  export STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home}
  b=$stage/bin/pairhist
  work=/tmp/pairhist-taskgraph
  mkdir -p "$work"
  log "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(cat "$stage/commit") $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ') host $(nproc) cores"
}
taskgraph_end() {  # taskgraph_end CASE: the reports packed
  tar -C "$out" -czf "$out/taskgraph-$1.tar.gz" reports && rm -rf "$out/reports"
}
log() { echo "$*" | tee -a "$out/taskgraph.log"; }

# synth CASE FRAMES [N]: writes the case once, sets $args to its run arguments.
synth() {
  local dir=$work/$1-$2-${3:-0}
  local cmd
  local t0=$(date +%s.%N)
  cmd=$($b synth --overwrite --case "$1" --frames "$2" ${3:+--n $3} -o "$dir" -q)
  args=${cmd#pairhist run }
  args=${args% -o *}
  log "synth $1 frames $2 ${3:+n $3}: $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s, $(du -h "$dir"/*.xtc | cut -f1)"
}

# go NAME [run options...]: one run of $args, summarised from its JSON report.
go() {
  local name=$1
  shift
  local limit=${LIMIT:-300}
  timeout "$limit" $b run $args -o "$work/out-$name" --overwrite --report "$out/reports/$name.json" \
    --activity-svg "$out/reports/$name.svg" --lp-bound -q ${TRACE:+--task-trace "$out/reports/$name.csv"} "$@"
  local rc=$?
  if [ $rc -ne 0 ]; then log "$name: exit $rc (timeout ${limit}s = 124)"; return; fi
  python3 - "$out/reports/$name.json" "$name" <<'PY' | tee -a "$out/taskgraph.log"
import json, sys
j = json.load(open(sys.argv[1]))
imp = j["implementations"]
busy_cuda = sum(w["busy_seconds"] for w in j["workers"] if w["kind"] == "cuda")
ncuda = max(1, j["cuda_workers"])
lp = j.get("lp_bound_seconds")
lpm = j.get("lp_bound_measured_seconds")
lp_text = (f"{lpm:.2f} (measured times; {j.get('lp_measured_estimated_kinds', 0)} of "
           f"{j.get('lp_measured_kinds', 0)} kinds estimated)" if lpm
           else "n/a " + str(j.get("lp_bound_measured_reason")))
if lp:
    lp_text += f" starpu {lp:.2f}"
print(f"{sys.argv[2]}: frames {j['frames']} wall {j['seconds']:.2f} s bapps {j['bapps']:.1f} "
      f"makespan {j['makespan_seconds']:.2f} first_task {j.get('first_task_start_seconds', 0):.3f} tail_idle {j['tail_idle_seconds']:.3f} "
      f"({100*j['tail_idle_seconds']/max(j['makespan_seconds'],1e-9):.1f}%) "
      f"lp_bound {lp_text} tasks {j['tasks']} cpu/shared/global "
      f"{imp['cpu']['tasks']}/{imp['cuda_shared']['tasks']}/{imp['cuda_global']['tasks']} "
      f"cpu_pairs {imp['cpu']['pairs']/max(j['pairs_examined'],1)*100:.2f}% "
      f"gpu_busy {busy_cuda/ncuda/max(j['makespan_seconds'],1e-9)*100:.1f}% "
      f"workers {j['cpu_workers']}c+{j['cuda_workers']}g sched {j['scheduler']}")
PY
}

same() {  # same A B: the histograms of two runs are identical
  if cmp -s "$work/out-$1/rdf.csv" "$work/out-$2/rdf.csv"; then log "identical: $1 = $2"; else log "DIFFERENT: $1 vs $2"; fi
}

gpu_counts() {  # 1 2 4 8, as far as this host has GPUs
  local g gpus
  gpus=$(nvidia-smi -L | wc -l)
  for g in 1 2 4 8; do [ "$g" -le "$gpus" ] && echo $g; done
}

# ---- kernels: the kernel tables of docs/performance.md (scripts/bench-suite.sh, GPU and CPU
# cases, CADISHI's where it is built).
case_kernels() (
  taskgraph_begin
  OUT=$out bash "$repo/scripts/bench-suite.sh" "$b" all | tee -a "$out/taskgraph.log"
  mv "$out/bench.jsonl" "$out/reports/bench.jsonl"
  taskgraph_end kernels
)

# ---- endtoend: the end-to-end F1-like figures (README, docs/performance.md): 200 frames GPU
# only, hybrid and CPU only (8 frames), then 2000 frames hybrid.
case_endtoend() (
  taskgraph_begin
  synth F1 200
  LIMIT=60 go e2e-gpu-only --ncpu 0
  LIMIT=60 go e2e-hybrid
  LIMIT=60 go e2e-cpu-only-8 --ncuda 0 --last 7
  same e2e-gpu-only e2e-hybrid
  synth F1 2000
  LIMIT=120 go e2e-2000-hybrid
  taskgraph_end endtoend
)

# ---- multi-gpu: 1, 2, 4, ... GPUs: F1-like 200 frames GPU only and hybrid, one 4M-atom frame.
case_multi_gpu() (
  taskgraph_begin
  local_counts=$(gpu_counts)
  synth F1 200
  LIMIT=60 go multi-warmup --last 0  # StarPU samples the buses once per machine: keep it out
  for g in $local_counts; do LIMIT=60 go multi-f1-gpu$g --ncpu 0 --ncuda "$g"; done
  for g in $local_counts; do LIMIT=60 go multi-f1-hybrid$g --ncuda "$g"; done
  synth K1 1 4000000
  for g in $local_counts; do LIMIT=60 go multi-4m-gpu$g --ncpu 0 --ncuda "$g"; done
  same multi-f1-gpu1 multi-f1-gpu$g
  same multi-f1-gpu1 multi-f1-hybrid$g
  same multi-4m-gpu1 multi-4m-gpu$g
  taskgraph_end multi-gpu
)

# ---- scaling-traces: GPU-only runs on 1, 2, 4, ... GPUs with task traces (the input of
# scripts/scaling_model.py), StarPU's measured bus bandwidths, XTC decoding on 4 threads.
case_scaling_traces() (
  taskgraph_begin
  local_counts=$(gpu_counts)
  synth F1 200
  LIMIT=60 go model-warmup --last 0
  for g in $local_counts; do TRACE=1 LIMIT=60 go model-f1-gpu$g --ncpu 0 --ncuda "$g"; done
  # The 1 GiB ring of before (64 F1 frames pinned by the feeding thread) on all GPUs, for A/B.
  TRACE=1 LIMIT=60 go model-f1-gpu$g-ring1g --ncpu 0 --ncuda "$g" --memory-budget 1024
  synth K1 1 4000000
  for g in $local_counts; do TRACE=1 LIMIT=60 go model-4m-gpu$g --ncpu 0 --ncuda "$g"; done
  same model-f1-gpu1 model-f1-gpu$g
  same model-4m-gpu1 model-4m-gpu$g
  cp -r "$STARPU_HOME/.starpu/sampling/bus" "$out/reports/starpu-bus" 2>/dev/null
  for g in $local_counts; do
    python3 "$repo/scripts/scaling_model.py" "$out/reports/model-f1-gpu$g.csv" \
      --report "$out/reports/model-f1-gpu$g.json" | tee -a "$out/taskgraph.log"
  done
  $b bench --decode "$work/F1-200-0/F1.xtc" --threads 4 --repeats 3 | tee -a "$out/taskgraph.log"
  taskgraph_end scaling-traces
)

# ---- perfmodels: this host's StarPU models for perfmodels/ (perfmodels/README.md): F1-like
# hybrid and GPU only, and the sample; $OUT/perfmodels-NgpuN.tar.gz.
case_perfmodels() (
  taskgraph_begin
  synth F1 200
  export STARPU_PERF_MODEL_DIR=$work/models-host
  rm -rf "$STARPU_PERF_MODEL_DIR"
  timeout 200 $b calibrate $args --frames 20 2>&1 | tail -1 | tee -a "$out/taskgraph.log"
  timeout 200 $b calibrate $args --frames 20 --ncpu 0 2>&1 | tail -1 | tee -a "$out/taskgraph.log"
  timeout 100 $b calibrate "$repo/data/spce_water.xtc" --top "$repo/data/spce_water.gro" \
    --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 -o "$work/out-sample" 2>&1 |
    tail -1 | tee -a "$out/taskgraph.log"
  tar -C "$STARPU_PERF_MODEL_DIR" -czf "$out/perfmodels-$(nvidia-smi -L | wc -l)gpu.tar.gz" .
  unset STARPU_PERF_MODEL_DIR
  taskgraph_end perfmodels
)

# ---- cells (log: cell-device.log): GPU cell lists, the cell-list tests, then W1-like kernel
# benchmarks (tests/bench_gpu_cells.cpp: cell sort and counting kernels timed with CUDA events,
# median of repeats, JSON lines) and end-to-end `pairhist bench` runs.
# CELL_TESTS adds suites (e.g. "test_gpu test_capi"); CELL_BENCH=quick runs only the main
# benchmark lines; CELL_NCU=1 adds Nsight Compute's counters where ncu exists.
case_cells() (
  set -euo pipefail
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
    echo "device-run cells: $([ $status = 0 ] && echo all passed || echo FAILURES)"
  } | tee -a "$log"
  rm -rf "$out/starpu-home"
  return $status
)

# ---- node (log: node-device.log): issue 24 on a many-core, many-GPU node, in one call: decoding
# alone against threads, the whole process against the run time (start: topology, engine),
# defaults against --ncpu 0 and one GPU on W1 at ~11M atoms, F1 on 1 and all GPUs; with
# .gpu-base/ the baseline's whole-process time on the big case. rdf.csv must be identical across
# every variant of a case.
# NODE_FRAMES (200) frames of W1 x16; NODE_THREADS ("1 8 16 32 64") decoding threads to time;
# NODE_ROUNDS (2) rounds of the runs; NODE_PERF (1) profiles decoding; NODE_RANKS (1 with 2+
# GPUs) runs both cases as one rank per GPU (mpirun) too; NODE_BASE (1) runs the baseline stage;
# NODE_REPEAT (1) repeats W1's frames that many times (1000 frames from 200). NODE_W1_VARIANTS and
# NODE_F1_VARIANTS choose among variant_args (dtmax: a decoding thread on every core but one;
# dtN: --decode-threads N; ranksbase: the baseline stage as ranks; rankslstopo: ranks with mpirun
# given the machine as XML, docs/usage.md, lstopo-no-graphics copied into .gpu/tools/ by hand).
case_node() (
  begin node-device "pairhist on the whole node: decoding, start, feeding (issue 24)"
  have_base=0
  if [ "${NODE_BASE:-1}" = 1 ] && [ -f "$repo/.gpu-base/payload.tar.gz" ]; then
    unpack_baseline
    have_base=1
  fi
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  cores=$(nproc)

  t0=$(date +%s.%N)
  w1=$("$ph" synth --overwrite --case W1 --replicas 16 --frames "${NODE_FRAMES:-200}" -o "$work/w1big" -q)
  f1=$("$ph" synth --overwrite --case F1 --frames 200 -o "$work/f1" -q)
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "synth: %.1f s\n", b - a }' | tee -a "$log"
  if [ "${NODE_REPEAT:-1}" -gt 1 ]; then  # the frames again, NODE_REPEAT times in all (XTC frames
    # stand alone: a longer trajectory without the serial writer's minutes)
    for _ in $(seq "$NODE_REPEAT"); do cat "$work/w1big/W1.xtc"; done >"$work/w1big/W1-long.xtc"
    mv "$work/w1big/W1-long.xtc" "$work/w1big/W1.xtc"
  fi
  cat "$work"/w1big/W1.xtc >/dev/null  # in the page cache, as the issue's figures
  ls -la "$work"/w1big "$work"/f1 | tee -a "$log"
  w1_args=$(echo "${w1#* }" | sed 's/ -o [^ ]*//')
  f1_args=$(echo "${f1#* }" | sed 's/ -o [^ ]*//')

  echo "== decoding alone (bench --decode, page cache)" | tee -a "$log"
  for t in ${NODE_THREADS:-1 8 16 32 64} 0; do
    [ "$t" -gt "$cores" ] && continue
    repeats=3
    [ "$t" = 1 ] && repeats=1
    "$ph" bench --decode "$work/w1big/W1.xtc" --threads "$t" --repeats $repeats --warmup 0 --json |
      tee -a "$out/decode.jsonl" | sed 's/^/decode: /' >>"$log"
    tail -1 "$out/decode.jsonl" | awk -v t="$t" '{
      match($0, /"gb_per_s_median":[0-9.e+-]+/); g = substr($0, RSTART + 18, RLENGTH - 18)
      match($0, /"cores_busy":[0-9.e+-]+/); c = substr($0, RSTART + 13, RLENGTH - 13)
      match($0, /"threads":[0-9]+/); n = substr($0, RSTART + 10, RLENGTH - 10)
      printf "decode threads %s (ran %s): %.2f GB/s, %.1f cores busy\n", t, n, g, c }' | tee -a "$log"
  done
  if [ "${NODE_PERF:-1}" != 1 ]; then
    :
  elif command -v perf >/dev/null; then
    perf record -g -o "$work/perf.data" "$ph" bench --decode "$work/w1big/W1.xtc" --threads 64 \
      --repeats 1 --warmup 0 >/dev/null 2>&1
    perf report -i "$work/perf.data" --no-children --stdio --sort dso,sym 2>/dev/null |
      grep -E "^ +[0-9]" | head -30 >"$out/decode-perf.txt"
  else
    echo "no perf on this machine" | tee -a "$log"
  fi

  times=$work/times.tsv
  : >"$times"
  mkdir -p "$work/summaries"
  declare -A variant_args=([defaults]="" [ncpu0]="--ncpu 0" [ncuda1]="--ncpu 0 --ncuda 1"
    [ncuda1d]="--ncuda 1" [ranks]="" [dtmax]="--decode-threads $((cores - 1))"
    [ncpu0dtmax]="--ncpu 0 --decode-threads $((cores - 1))" [ranksbase]="" [rankslstopo]="")
  for n in $(seq 1 "$cores"); do variant_args[dt$n]="--decode-threads $n"; done
  ranks=0
  [ "$gpus" -ge 2 ] && [ "${NODE_RANKS:-1}" = 1 ] && command -v mpirun >/dev/null && ranks=$gpus
  # The machine as docs/usage.md tells users to describe it to mpirun (lstopo, copied to
  # .gpu/tools/ by hand: the device machine has no package registry).
  lstopo_xml=$work/lstopo.xml
  [ -x "$repo/.gpu/tools/lstopo-no-graphics" ] &&
    LD_LIBRARY_PATH="$repo/.gpu/tools:$LD_LIBRARY_PATH" "$repo/.gpu/tools/lstopo-no-graphics" --of xml "$lstopo_xml"
  # The command of a variant: the binary, with the placement or the launcher it needs.
  launcher() {  # launcher VARIANT
    case $1 in
      ranks) echo "mpirun -n $ranks $ph" ;;
      ranksbase) echo "env LD_LIBRARY_PATH=$base_stage/lib:$LD_LIBRARY_PATH mpirun -n $ranks $base_stage/bin/pairhist" ;;
      rankslstopo) echo "env HWLOC_XMLFILE=$lstopo_xml HWLOC_THISSYSTEM=1 mpirun -n $ranks $ph" ;;
      *) echo "$ph" ;;
    esac
  }
  "$ph" $f1_args -o "$work/warm-up" --overwrite >"$work/warm-up.out" 2>&1  # bus calibration
  # The first big run after the decoding benchmark was 1.2-1.9 s slower than the rest, whichever
  # variant came first (4x H200 and 2x H200, 2026-11-28): one run of W1 that is not recorded.
  "$ph" $w1_args -o "$work/warm-up-w1" --overwrite >"$work/warm-up-w1.out" 2>&1
  one() {  # one CASE VARIANT ROUND BINARY ARGS...
    local c=$1 v=$2 round=$3 bin=$4
    shift 4
    local run=$c-$v t0 t1
    t0=$(date +%s.%N)
    # shellcheck disable=SC2068
    # A run that hangs must not take the call's whole device time with it.
    if ! timeout "${NODE_RUN_TIMEOUT:-120}" "$bin" $@ -o "$work/$run" --overwrite \
      --report "$work/$run.json" >"$work/$run.out" 2>&1; then
      echo "FAILED: $run round $round" | tee -a "$log"
      tail -5 "$work/$run.out" | tee -a "$log"
      status=1
      return
    fi
    t1=$(date +%s.%N)
    record_time "$c" "$v" "$round" "$t0" "$t1" "$work/$run.json"
    if [ "$round" = 1 ]; then
      cp "$work/$run.out" "$work/summaries/$run.txt"
      cp "$work/$run.json" "$work/summaries/$run.json"
      grep -E "^  (time|workers|reading|plan|placement|makespan) " "$work/$run.out" | sed "s/^/$run: /" |
        tee -a "$log"
    fi
  }
  for round in $(seq "${NODE_ROUNDS:-2}"); do
    for v in ${NODE_W1_VARIANTS:-defaults ncpu0 ncuda1 ncuda1d ranks}; do
      [ "$gpus" -lt 2 ] && [ "${v#ncuda1}" != "$v" ] && continue
      [ "${v#ranks}" != "$v" ] && [ "$ranks" = 0 ] && continue
      # shellcheck disable=SC2046
      one w1big "$v" "$round" $(launcher "$v") $w1_args ${variant_args[$v]}
    done
    if [ $have_base = 1 ]; then
      LD_LIBRARY_PATH="$base_stage/lib:$LD_LIBRARY_PATH" one w1big base-defaults "$round" \
        "$base_stage/bin/pairhist" $w1_args
    fi
    for v in ${NODE_F1_VARIANTS:-defaults ncuda1 ranks}; do
      [ "$gpus" -lt 2 ] && [ "$v" = ncuda1 ] && continue
      [ "${v#ranks}" != "$v" ] && [ "$ranks" = 0 ] && continue
      # shellcheck disable=SC2046
      one f1 "$v" "$round" $(launcher "$v") $f1_args ${variant_args[$v]}
    done
  done
  for c in w1big f1; do
    for d in "$work/$c"-*/; do
      [ -f "$d/rdf.csv" ] || continue
      if cmp -s "$d/rdf.csv" "$work/$c-defaults/rdf.csv"; then
        echo "identical rdf.csv: $(basename "$d")" | tee -a "$log"
      else
        echo "DIFFERENT rdf.csv: $(basename "$d")" | tee -a "$log"
        status=1
      fi
    done
  done
  echo "== medians (case variant, wall s, makespan s, rounds)" | tee -a "$log"
  print_medians
  echo "== where the wall time went, round 1 (report fields; after = wall - before - run)" | tee -a "$log"
  py=$(command -v /usr/bin/python3 || command -v python3)
  for f in "$work"/summaries/*.json; do
    [ -n "$py" ] || break
    run=$(basename "$f" .json)
    wall=$(awk -F'\t' -v k="${run%%-*}" -v v="${run#*-}" '$1 == k && $2 == v && $3 == 1 { print $4 }' "$times")
    $py - "$f" "$run" "${wall:-0}" <<'PY' | tee -a "$log"
import json, sys
r = json.load(open(sys.argv[1]))
def g(key, node=r):
    if isinstance(node, dict):
        if isinstance(node.get(key), (int, float)):
            return node[key]
        for v in node.values():
            found = g(key, v)
            if found:
                return found
    return 0
wall = float(sys.argv[3])
print(f"{sys.argv[2]}: wall {wall:.2f} = before first frame {g('before_first_frame_seconds'):.2f} "
      f"(topology {g('topology_seconds'):.2f}, define {g('define_seconds'):.2f}) + run {g('seconds'):.2f} "
      f"(first frame {g('first_frame_seconds'):.2f}, engine start {g('engine_start_seconds'):.2f}, "
      f"makespan {g('makespan_seconds'):.2f}) + after {wall - g('before_first_frame_seconds') - g('seconds'):.2f}")
marks = r.get("start_marks_seconds") or {}
if marks:
    print(f"{sys.argv[2]}: start (process s):", " ".join(f"{k} {v:.3f}" for k, v in marks.items()))
ends = r.get("end_marks_seconds") or {}
if ends:
    print(f"{sys.argv[2]}: end (process s): counted {g('before_first_frame_seconds') + g('seconds'):.3f}",
          " ".join(f"{k} {v:.3f}" for k, v in ends.items()), f"exit (wall) {wall:.3f}")
for i, x in enumerate((r.get("feeding") or {}).get("first_frames", [])):
    print(f"{sys.argv[2]}: frame {i}:", " ".join(f"{k.replace('_seconds', '')} {v:.3f}" for k, v in x.items()))
for x in (r.get("ranks") or {}).get("per_rank", []):
    m = x.get("start_marks_seconds") or {}
    print(f"{sys.argv[2]}: rank {x['rank']} (its process s):", " ".join(f"{k} {v:.3f}" for k, v in m.items()),
          f"first task (common clock) {x.get('first_task_start_seconds', 0):.3f}")
PY
  done
  tar -czf "$out/node-summaries.tar.gz" -C "$work" summaries
  rm -rf "$work"/w1big "$work"/f1
  echo "device-run node: $([ $status = 0 ] && echo identical results || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- ranks (log: ranks-device.log): F1 as one rank per GPU (mpirun), many rounds, this stage
# against the baseline's (.gpu-base/) and against variants: for a failure that shows only now and
# then. A rank that crashes under gdb (when the machine has it) leaves its backtrace in the log.
# RANKS_ROUNDS (4) rounds; RANKS_VARIANTS ("new base") among new, base, gdb (this stage, each rank under gdb), single (one process, all GPUs,
# as the node case runs before the ranks: the perfmodels then hold its history), shm (this stage
# with OpenMPI's shared-memory transport only: pml ob1, btl self,vader) and the other launch
# variants of launch_env below (ob1, noofi, noopenib, vadertcp, xml, xmlshm, lstopo).
# RANKS_LAUNCH (5) rounds of bench_mpi_launch (an MPI job with no work: the launcher's start and
# end, MPI_Init_thread and MPI_Finalize) for each of RANKS_LAUNCH_VARIANTS ("default shm"), first.
case_ranks() (
  begin ranks-device "pairhist: F1 as ranks, repeated (issue 24)"
  have_base=0
  if [ -f "$repo/.gpu-base/payload.tar.gz" ]; then
    unpack_baseline
    have_base=1
  fi
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  f1=$("$ph" synth --overwrite --case F1 --frames 200 -o "$work/f1" -q)
  f1_args=$(echo "${f1#* }" | sed 's/ -o [^ ]*//')
  "$ph" $f1_args -o "$work/warm-up" --overwrite >"$work/warm-up.out" 2>&1  # bus calibration
  # launch_env VARIANT: the environment of an MPI launch variant into the array launch (empty for
  # the default). The hwloc XML (bench_engine_start --export) spares mpirun its discovery of the
  # machine, I/O devices included.
  xml=$work/machine.xml
  [ -x "$stage/bin/bench_engine_start" ] && "$stage/bin/bench_engine_start" --export "$xml" >/dev/null 2>&1
  # And as docs/usage.md tells users to make it: lstopo (hwloc-nox; copied to .gpu/tools/ by hand,
  # the device machine has no package registry).
  lstopo_xml=$work/lstopo.xml
  [ -x "$repo/.gpu/tools/lstopo-no-graphics" ] &&
    LD_LIBRARY_PATH="$repo/.gpu/tools:$LD_LIBRARY_PATH" "$repo/.gpu/tools/lstopo-no-graphics" --of xml "$lstopo_xml" 2>>"$log"
  launch_env() {
    launch=()
    case $1 in
      shm) launch=(OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader) ;;
      ob1) launch=(OMPI_MCA_pml=ob1) ;;
      noofi) launch=("OMPI_MCA_btl=^ofi") ;;
      noopenib) launch=("OMPI_MCA_btl=^openib") ;;
      vadertcp) launch=(OMPI_MCA_btl=self,vader,tcp) ;;
      xml) launch=(HWLOC_XMLFILE="$xml" HWLOC_THISSYSTEM=1) ;;
      xmlshm) launch=(HWLOC_XMLFILE="$xml" HWLOC_THISSYSTEM=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader) ;;
      lstopo) launch=(HWLOC_XMLFILE="$lstopo_xml" HWLOC_THISSYSTEM=1) ;;
    esac
  }
  if [ -x "$stage/bin/bench_mpi_launch" ] && [ "${RANKS_LAUNCH:-5}" -gt 0 ]; then
    echo "== MPI job with no work, $gpus ranks: mpirun's wall, each rank's main() after mpirun began, MPI_Init_thread, MPI_Finalize, mpirun's end after the last MPI_Finalize (s)" | tee -a "$log"
    env OMPI_MCA_pml_base_verbose=10 OMPI_MCA_btl_base_verbose=10 mpirun -n "$gpus" "$stage/bin/bench_mpi_launch" 2>&1 |
      grep -iE "select|init returned|open" | sort | uniq -c | head -40 >>"$log"
    for round in $(seq "${RANKS_LAUNCH:-5}"); do
      for transport in ${RANKS_LAUNCH_VARIANTS:-default shm}; do
        launch_env "$transport"
        t0=$(date +%s.%N)
        env "${launch[@]}" mpirun -n "$gpus" "$stage/bin/bench_mpi_launch" >"$work/launch.out" 2>&1
        t1=$(date +%s.%N)
        awk -v t="$transport" -v r="$round" -v a="$t0" -v b="$t1" -F'[:,}]' '
          /"rank"/ { for (i = 1; i < NF; i++) { gsub(/"| /, "", $i) }
            for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
            m = v["main_epoch"] - a; if (m > main) main = m
            if (v["init_s"] > init) init = v["init_s"]; if (v["finalize_s"] > fin) fin = v["finalize_s"]
            if (v["finalized_epoch"] > last) last = v["finalized_epoch"]; n++ }
          END { printf "launch\t%s\t%d\twall %.3f\tlast main %.3f\tinit %.3f\tfinalize %.3f\tend %.3f\t(%d ranks)\n",
            t, r, b - a, main, init, fin, b - last, n }' "$work/launch.out" | tee -a "$log"
      done
    done
    echo "== launch medians (variant: wall, last main, init)" | tee -a "$log"
    grep -h "^launch" "$log" | awk -F'\t' '{ split($4, w, " "); split($5, m, " "); split($6, i, " ")
      W[$2] = W[$2] " " w[2]; M[$2] = M[$2] " " m[3]; I[$2] = I[$2] " " i[2] }
      function median(list,   n, a, x, y, t) { n = split(list, a, " ")
        for (x = 2; x <= n; x++) for (y = x; y > 1 && a[y-1] + 0 > a[y] + 0; y--) { t = a[y]; a[y] = a[y-1]; a[y-1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      END { for (k in W) printf "launch %s: wall %.3f, last main %.3f, init %.3f\n", k, median(W[k]), median(M[k]), median(I[k]) }' |
      sort | tee -a "$log"
  fi
  echo "gdb: $(command -v gdb || echo none); libSegFault: $(ls /usr/lib/x86_64-linux-gnu/libSegFault.so /lib/x86_64-linux-gnu/libSegFault.so 2>/dev/null | head -1)" | tee -a "$log"
  times=$work/times.tsv
  : >"$times"
  for round in $(seq "${RANKS_ROUNDS:-4}"); do
    for v in ${RANKS_VARIANTS:-new base}; do
      bin=$ph libs=$LD_LIBRARY_PATH envs=()
      case $v in
        base) [ $have_base = 1 ] || continue
          bin=$base_stage/bin/pairhist libs="$base_stage/lib:$LD_LIBRARY_PATH" ;;
        shm | ob1 | noofi | noopenib | vadertcp | xml | xmlshm | lstopo) launch_env "$v"
          envs=("${launch[@]}") ;;
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
      # Rank 0's marks, seconds since its process began: where the start and the end go.
      echo "marks f1-$v $round: $(grep -oE '"(pipeline|topology_loaded|gpus_ready|counting|engine_started|released|outputs_written)": *[0-9.e+-]+' "$work/f1-$v.json" | tr -d '" ' | tr '\n' ' ')" >>"$log"
    done
  done
  echo "== medians (case variant, wall s, makespan s, rounds)" | tee -a "$log"
  print_medians
  echo "device-run ranks: $([ $status = 0 ] && echo no failures || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- split-frame (log: split-frame-device.log): one big frame split over the ranks (one GPU
# each) against one process with every GPU, this stage against the baseline's (.gpu-base/): how
# many parts each rank counts and the wall time. SPLIT_ATOMS (2000000) atoms of one K1 frame;
# SPLIT_ROUNDS (3) rounds.
case_split_frame() (
  begin split-frame-device "pairhist: one frame split over ranks (issue 24)"
  unpack_baseline
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  cmd=$("$ph" synth --overwrite --case K1 --n "${SPLIT_ATOMS:-2000000}" --frames 1 -o "$work/k1" -q)
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
  echo "device-run split-frame: $([ $status = 0 ] && echo no failures || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- cuda-start (log: cuda-start-device.log): what CUDA's own start, a process's end and
# mpirun's discovery of the machine cost on this node, without pairhist, beside a pairhist run's
# marks (issue 24: the 4-GPU whole process).
# CUDA_START_ROUNDS (5) fresh processes per case of bench_cuda_start; CUDA_START_PIN_GB (4);
# CUDA_START_F1 (3) rounds of F1 (200 frames, every GPU) with the report's start and end marks,
# as they come and with StarPU given the machine as XML (no discovery in the run: "f1xml").
# CUDA_START_PARTS ("bench lstopo mpirun f1") picks the parts; "gaps": CUDA's start in fresh
# processes 3 s apart (the driver may still release the previous process's GPUs); "contention":
# the contexts made while hwloc discovers the machine's I/O devices, as a run does.
case_cuda_start() (
  begin cuda-start-device "pairhist: CUDA's start, a process's end, mpirun's discovery (issue 24)"
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  nvidia-smi --query-gpu=index,persistence_mode,pstate,clocks.sm --format=csv | tee -a "$log"
  parts=" ${CUDA_START_PARTS:-bench lstopo mpirun f1} "
  lstopo=$repo/.gpu/tools/lstopo-no-graphics
  with_lstopo() { LD_LIBRARY_PATH="$repo/.gpu/tools:$LD_LIBRARY_PATH" "$lstopo" "$@"; }
  [[ $parts == *" bench "* ]] && step "cuda start" "$stage/bin/bench_cuda_start" --rounds "${CUDA_START_ROUNDS:-5}" \
    --pin-gb "${CUDA_START_PIN_GB:-4}"
  [[ $parts == *" bench "* ]] && step "cuda start, one device" "$stage/bin/bench_cuda_start" --rounds "${CUDA_START_ROUNDS:-5}" \
    --pin-gb "${CUDA_START_PIN_GB:-4}" --devices 1
  # mpirun's discovery of the machine is hwloc's: which part of it takes the time.
  if [[ $parts == *" gaps "* ]]; then
    for r in 1 2 3 4 5; do
      sleep 3
      "$stage/bin/bench_cuda_start" --rounds 1 --modes parallel | tail -1 | sed "s/^/after 3 s: /" | tee -a "$log"
    done
  fi
  if [[ $parts == *" contention "* ]] && [ -x "$lstopo" ]; then
    for r in 1 2 3; do
      sleep 1
      with_lstopo --filter io:all --of xml "$work/contention.xml" -f &
      "$stage/bin/bench_cuda_start" --rounds 1 --modes parallel | tail -1 | sed "s/^/beside lstopo: /" | tee -a "$log"
      wait
    done
  fi
  if [[ $parts == *" lstopo "* ]] && [ -x "$lstopo" ]; then
    for v in default no-io cpu-only; do
      args=(--of xml "$work/$v.xml")
      case $v in
        no-io) args+=(--no-io) ;;
        cpu-only) args+=(--no-io --no-caches) ;;
      esac
      for r in 1 2 3; do
        t0=$(date +%s.%N)
        with_lstopo "${args[@]}" -f 2>>"$log"
        t1=$(date +%s.%N)
        awk -v n="$v" -v r="$r" -v a="$t0" -v b="$t1" 'BEGIN { printf "lstopo %s %d: %.3f s\n", n, r, b - a }' | tee -a "$log"
      done
    done
  fi
  if [[ $parts == *" mpirun "* ]] && [ -x "$stage/bin/bench_mpi_launch" ]; then
    for v in default noio; do
      for r in 1 2 3; do
        envs=()
        # hwloc 2's I/O discovery: the linux component's io and pci phases and the pci plugin.
        [ "$v" = noio ] && envs=(HWLOC_COMPONENTS=-linux:io,-linux:pci,-pci)
        t0=$(date +%s.%N)
        env "${envs[@]}" mpirun -n "$gpus" "$stage/bin/bench_mpi_launch" >"$work/launch.out" 2>&1
        t1=$(date +%s.%N)
        awk -v n="$v" -v r="$r" -v a="$t0" -v b="$t1" 'BEGIN { printf "mpirun empty job %s %d: %.3f s\n", n, r, b - a }' | tee -a "$log"
      done
    done
  fi
  if [[ $parts == *" f1 "* ]]; then
    f1=$("$ph" synth --overwrite --case F1 --frames 200 -o "$work/f1" -q)
    f1_args=$(echo "${f1#* }" | sed 's/ -o [^ ]*//')
    "$ph" $f1_args -o "$work/warm-up" --overwrite >"$work/warm-up.out" 2>&1  # bus calibration
    with_lstopo --filter io:all --of xml "$work/machine.xml" -f 2>>"$log"
    for r in $(seq "${CUDA_START_F1:-3}"); do
      for v in f1 f1xml; do
        envs=()
        [ $v = f1xml ] && envs=(STARPU_HWLOC_INPUT="$work/machine.xml")
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        env "${envs[@]}" "$ph" $f1_args -o "$work/f1-run" --overwrite --report "$work/f1.json" >"$work/f1.out" 2>&1 || status=1
        t1=$(date +%s.%N)
        awk -v v=$v -v r="$r" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s %d: wall %.3f s; ", v, r, b - a }' | tee -a "$log"
        grep -oE '"(pipeline|gpus_ready|engine_started|counting|released|outputs_written|seconds|makespan_seconds)": *[0-9.e+-]+' "$work/f1.json" |
          tr -d '" ' | tr '\n' ' ' | tee -a "$log"
        echo | tee -a "$log"
      done
    done
  fi
  echo "device-run cuda-start: $([ $status = 0 ] && echo no failures || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- first-run (log: first-run-device.log): why the first run on a fresh machine is slow. W1
# x16 (FIRST_FRAMES, 200 frames): the machine's first run (StarPU measures the buses), a second,
# then a run after removing StarPU's codelet models (the bus calibration kept), then one after
# removing the bus calibration too, and one more. Each run's time, makespan, engine start and the
# GPU workers' busy time (task trace) show which stored file makes the difference.
case_first_run() (
  begin first-run-device "pairhist: the slow first run (issue 24)"
  w1=$("$ph" synth --overwrite --case W1 --replicas 16 --frames "${FIRST_FRAMES:-200}" -o "$work/w1big" -q)
  cat "$work"/w1big/W1.xtc >/dev/null
  args=$(echo "${w1#* }" | sed 's/ -o [^ ]*//')
  sampling=$STARPU_HOME/.starpu/sampling
  one() {  # one NAME
    local t0 t1
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    timeout 200 "$ph" $args -o "$work/$1" --overwrite --report "$work/$1.json" \
      --task-trace "$work/$1-trace.csv" >"$work/$1.out" 2>&1 || { echo "FAILED: $1" | tee -a "$log"; status=1; }
    t1=$(date +%s.%N)
    /usr/bin/python3 - "$work/$1.json" "$work/$1-trace.csv" "$1" "$t0" "$t1" <<'PY' | tee -a "$log"
import csv, json, sys
r = json.load(open(sys.argv[1]))
busy = 0.0
tasks = 0
with open(sys.argv[2]) as f:
    for row in csv.DictReader(f):
        if row["kind"] == "cuda":
            busy += float(row["end_s"]) - float(row["start_s"])
            tasks += 1
print(f"{sys.argv[3]}: wall {float(sys.argv[5]) - float(sys.argv[4]):.2f} time {r['seconds']:.3f} "
      f"makespan {r.get('makespan_seconds', 0):.3f} engine_start {r.get('engine_start_seconds', 0):.3f} "
      f"GPU tasks {tasks} busy {busy:.2f} s ({1e3 * busy / max(tasks, 1):.2f} ms each)")
PY
  }
  one first
  ls -R "$sampling" 2>/dev/null | head -40 >"$out/sampling-after-first.txt"
  one second
  rm -rf "$sampling/codelets"
  one no-codelet-models
  rm -rf "$sampling/bus"
  one no-bus-calibration
  one again
  for d in second no-codelet-models no-bus-calibration again; do
    cmp -s "$work/$d/rdf.csv" "$work/first/rdf.csv" || { echo "DIFFERENT rdf.csv: $d" | tee -a "$log"; status=1; }
  done
  rm -rf "$work/w1big"
  echo "device-run first-run: $([ $status = 0 ] && echo done || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- scattering-cost (log: scattering-cost-device.log): issue 26, what I(q) and S(q) add to a
# bulk-water run on a GPU node (target: the run plus 1%). W1 (1.36M atoms) and W1 x16 (10.9M),
# SQ_FRAMES (200) frames each, the g(r) run alone and with `--scattering xray
# --structure-factor`, interleaved, SQ_ROUNDS (5) rounds; whole processes timed; medians of wall
# and of the summary's `time`.
case_scattering_cost() (
  begin scattering-cost-device "pairhist: the cost of I(q) and S(q) after a W1 run on a GPU node (issue 26)"
  times=$work/times.tsv
  : >"$times"
  frames=${SQ_FRAMES:-200}
  for replicas in ${SQ_REPLICAS:-1 16}; do
    case_name=W1x$replicas
    "$ph" synth --overwrite --case W1 --replicas "$replicas" --frames "$frames" -o "$work/$case_name" -q >/dev/null
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
  echo "device-run scattering-cost: $([ $status = 0 ] && echo done || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- gpu-memory (log: gpu-memory.log): what a run does when a GPU cannot hold its tasks' data
# (STARPU_LIMIT_CUDA_MEM from 4 MiB up, a 572k-atom W1 frame of 6.9 MB): it must end, with the
# counts of an unlimited run, never hang (docs/reliability.md). A run still alive after 12 s is
# killed; with elfutils' eu-stack staged in .gpu/dbg (bin + lib) its threads' stacks go to $OUT
# first.
case_gpu_memory() (
  set +u +o pipefail  # as the script it comes from
  begin gpu-memory "GPU memory limits"
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$repo/.gpu/dbg/lib"
  es=$repo/.gpu/dbg/eu-stack
  step synth "$ph" synth --overwrite --case W1 --replicas 6 --frames 2 -o "$work/r6" -q
  xtc=$(ls $work/r6/*.xtc); top=${xtc%.xtc}.gro
  try() {  # try LIMIT_MIB NAME ARGS...
    local lim=$1 nm=$2; shift 2
    echo "== $nm: STARPU_LIMIT_CUDA_MEM=$lim $*" >>"$log"
    local t0=$(date +%s.%N)
    env $( [ "$lim" != 0 ] && echo STARPU_LIMIT_CUDA_MEM=$lim ) "$ph" run "$xtc" --top "$top" "${species[@]}" -o "$work/$nm" --overwrite \
       --report "$out/$nm.json" "$@" >>"$log" 2>&1 &
    local pid=$!
    for i in $(seq 1 24); do sleep 0.5; kill -0 $pid 2>/dev/null || break; done
    if kill -0 $pid 2>/dev/null; then
      echo "FAILED: still running after 12 s: stacks" >>"$log"
      [ -x "$es" ] && "$es" -p $pid -i 2>&1 | grep -v "^$" | head -400 >>"$out/$nm-stacks.txt"
      status=1
      kill -9 $pid; wait $pid 2>/dev/null
      echo "killed" >>"$log"
    else
      wait $pid; echo "exit $?" >>"$log"
    fi
    awk -v n="$nm" -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%s: %.3f s wall\n", n, b - a }' >>"$log"
  }
  step gpu-test "$stage/bin/test_gpu_memory_limit"
  try 4 lim4
  try 4 lim4-gpu --ncpu 0
  try 24 lim24
  try 48 lim48
  try 0 nolimit
  for r in lim4 lim24 lim48; do diff <(grep -v "^#" "$work/$r/rdf.csv") <(grep -v "^#" "$work/nolimit/rdf.csv") >/dev/null && echo "$r rdf.csv identical" >>"$log" || { echo "FAILED: $r rdf.csv differs" >>"$log"; status=1; }; done
  cd "$out" && tar -czf stacks.tgz *-stacks.txt 2>/dev/null; rm -f *-stacks.txt
  exit $status
)

# ---- compare (log: compare-device.log): before and after a change that must not alter results
# or speed, in one call: the same cases run with the baseline's stage (.gpu-base/, pack-base) and
# this tree's (.gpu/) in interleaved rounds; every case's rdf.csv must be identical between the
# two; the log ends with the median wall time and makespan of each case and stage.
# COMPARE_ROUNDS (3) rounds; COMPARE_CASES (sample w1 f1) picks the cases.
case_compare() (
  begin compare-device "pairhist before/after on the device"
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
      w1) cmd=$("$ph" synth --overwrite --case W1 --replicas 8 --frames 100 -o "$work/w1" -q) ;;
      f1) cmd=$("$ph" synth --overwrite --case F1 --frames 200 -o "$work/f1" -q) ;;
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
  echo "device-run compare: $([ $status = 0 ] && echo identical results || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- decode-compare (log: decode-compare.log): XTC decoding alone (`pairhist bench --decode`)
# with the baseline's program (.gpu-base/, pack-base) and this tree's (.gpu/), interleaved, on the
# GPU machine's cores: W1 replicated DECODE_REPLICAS (16: 10.9M atoms) per direction,
# DECODE_FRAMES (20) frames, for each thread count in DECODE_THREADS (1 4 8 16), DECODE_ROUNDS (3)
# rounds.
case_decode_compare() (
  begin decode-compare "pairhist XTC decoding, baseline against this tree"
  unpack_baseline
  "$ph" synth --overwrite --case W1 --replicas "${DECODE_REPLICAS:-16}" --frames "${DECODE_FRAMES:-20}" \
    -o "$work/w1" -q >/dev/null
  xtc=$work/w1/W1.xtc
  cat "$xtc" >/dev/null  # in the page cache, as in the issue's measurements
  for round in $(seq "${DECODE_ROUNDS:-3}"); do
    for t in ${DECODE_THREADS:-1 4 8 16}; do
      for s in base new; do
        bin=$ph
        libs=$stage/lib
        if [ $s = base ]; then bin=$base_stage/bin/pairhist libs=$base_stage/lib:$stage/lib; fi
        printf 'round %s threads %s %s: ' "$round" "$t" "$s" | tee -a "$log"
        LD_LIBRARY_PATH="$libs:/usr/local/cuda/lib64" "$bin" bench --decode "$xtc" --threads "$t" \
          --repeats 1 2>&1 | grep -E "GB/s|s per frame|frames/s|decod" | head -2 | tr '\n' ' ' |
          tee -a "$log"
        echo | tee -a "$log"
      done
    done
  done
  echo "decode-compare: done" | tee -a "$log"
)

# ---- kernel-compare (log: kernel-compare.log): `pairhist bench` of the cases in KERNEL_CASES
# ("K1 K2 K3 F1"), GPU single and double precision (KERNEL_PRECISIONS) and the CPU's K1 (200,000
# atoms, all cores), with the baseline's program (.gpu-base/, pack-base) and this tree's,
# interleaved, KERNEL_ROUNDS (3) rounds: bapps per round and their medians.
case_kernel_compare() (
  begin kernel-compare "pairhist kernels, baseline against this tree"
  unpack_baseline
  times=$work/times.tsv
  : >"$times"
  for round in $(seq "${KERNEL_ROUNDS:-3}"); do
    for spec in $(for c in ${KERNEL_CASES:-K1 K2 K3 F1}; do
                    for p in ${KERNEL_PRECISIONS:-single double}; do echo "$c:gpu:$p"; done
                  done) K1:cpu:single; do
      IFS=: read -r c d p <<<"$spec"
      for s in base new; do
        bin=$ph
        libs=$stage/lib
        if [ $s = base ]; then bin=$base_stage/bin/pairhist libs=$base_stage/lib:$stage/lib; fi
        args=(bench --json --case "$c" --device "$d" --precision "$p" --repeats 3)
        [ "$c" = F1 ] && args+=(--frames 20)
        [ "$d" = cpu ] && args+=(--n 200000)
        bapps=$(LD_LIBRARY_PATH="$libs:/usr/local/cuda/lib64" "$bin" "${args[@]}" 2>>"$log" |
          grep -oE '"bapps_median": *[0-9.e+-]+' | head -1 | grep -oE '[0-9.e+-]+$')
        echo "round $round $c $d $p $s: ${bapps:-FAILED} bapps" | tee -a "$log"
        [ -n "$bapps" ] || status=1
        printf '%s\t%s\t%s\t%s\t%s\n' "$c-$d-$p" "$s" "$round" "${bapps:-nan}" nan >>"$times"
      done
    done
  done
  echo "== medians (case, stage, bapps, -, rounds)" | tee -a "$log"
  print_medians | sed 's/ wall / bapps /; s/ makespan -*nan//'
  echo "kernel-compare: $([ $status = 0 ] && echo done || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- feed (log: feed-device.log): W1 at 1.36M atoms on one GPU host, in parts (FEED_PARTS,
# default "start"): start (StarPU's start phase by phase with bench_engine_start, then 100-frame
# W1 runs against decoding alone, FEED_ROUNDS (2) rounds, START_VARIANTS
# "NAME=VAR=VALUE[,VAR=VALUE] ..." switch start-up changes off), threads (500 frames with the
# plan's decoding threads against 14 and 16, interleaved with decoding alone), fuse (a frame's
# pairs in one kernel launch against one launch per pair: bench_gpu_cells).
case_feed() (
  begin feed-device "pairhist feeding and small frames on the device"
  parts=${FEED_PARTS:-start}

  if [[ " $parts " == *" threads "* ]]; then
    # With the columns handed over the feeding thread is idle 98% of the time: its core decodes
    # too. The plan's threads (15 on 16 cores: cores - the GPU's driver) against 14 (the plan
    # before, which left the feeding thread a core) and 16, interleaved with decoding alone; one
    # default run keeps its task trace.
    step synth-r8-500 "$ph" synth --overwrite --case W1 --replicas 8 --frames 500 -o "$work/r8long" -q
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
    step synth-r8 "$ph" synth --overwrite --case W1 --replicas 8 --frames 100 -o "$work/r8" -q
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
    # atoms (the engine's switch to one task per pair went in issue 38).
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
  grep -hE "^(== |[a-z0-9-]+: [0-9.]+ s wall|  (time|reading|workers|makespan) |\{.*\"what\":\"frame)" "$log" | cut -c1-400 | tail -150
  echo "device-run feed: $([ $status = 0 ] && echo all passed || echo FAILURES)" | tee -a "$log"
  exit $status
)

# ---- which cases to run

usage() {
  echo "usage: $0 CASE [CASE...]   (on the GPU machine; --list for the cases)" >&2
  echo "       $0 pack-base BASELINE_CHECKOUT   (here: the baseline's stage into .gpu-base/)" >&2
}
case "${1:-}" in
  --list | list)
    printf '%s\n' "${case_list[@]}"
    exit 0
    ;;
  pack-base)
    [ $# = 2 ] || { usage; exit 2; }
    pack_base "$2"
    exit
    ;;
  "" | -h | --help)
    usage
    exit 2
    ;;
esac
for c in "$@"; do  # every name first, so that a typo costs no device time
  if ! printf '%s\n' "${case_list[@]}" | grep -q "^$c "; then
    echo "device-run: no case '$c' (--list says which there are)" >&2
    exit 2
  fi
done
overall=0
for c in "$@"; do
  # Not `case || overall=1`: bash ignores `set -e` inside a function called that way (cells sets it).
  "case_${c//-/_}"
  [ $? = 0 ] || overall=1
done
exit $overall
