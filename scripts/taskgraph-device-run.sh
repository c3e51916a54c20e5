#!/usr/bin/env bash
# Task-graph measurements on the device machine (run from the repo root after
# `scripts/gpu-suite.sh stage`, carrying .gpu). Every run writes its JSON report; one summary line
# per run goes to stdout and $OUT/taskgraph.log, the reports and activity pictures to
# $OUT/taskgraph-<mode>.tar.gz (the device tool brings back at most 8 files).
#   suite   the GPU test suite
#   f1      F1-like 200 frames: GPU-only, hybrid (lws, dmda calibrating/calibrated, dmdas), CPU-only
#           throughput (8 frames), the static-queue baseline, task-size variants
#   long    F1-like 2000 frames end to end, K6 per-task overhead, `pairhist calibrate` + the models
#   multi   1, 2, 4, ... GPUs: F1-like 200 frames GPU-only and hybrid, one 4M-atom frame split
#   share   hybrid runs with the cores' share (F1 200 and 2000 frames, K6)
#   decode  XTC decoding of F1-like frames on 1, 2, 4, 8 threads (bench --decode)
#   kernels scripts/bench-suite.sh (GPU and CPU cases)
#   reduction  REDUX against explicit sum tasks on the GPU (F1-like, and K6 in small tasks)
#   lpbound hybrid runs against StarPU's LP bound after `pairhist calibrate`
#   startup one 4M-atom frame on one GPU (time to the first task)
#   final   the H100 table of the task-graph issue (F1 200 every way, static baselines, 2000 frames)
#   models  calibrate this host's perfmodels (tar in $OUT) for perfmodels/
#   wide    K5 (100k bins) and K1, single and double precision
#   eight   1 against 8 GPUs only (F1-like and the 4M-atom frame), for a short device budget
#   model   multi's GPU-only runs with task traces (for scripts/scaling_model.py), StarPU's
#           measured bus bandwidths, XTC decoding on 4 threads
#   multihybrid  multi's F1-like runs only
#   adaptive hybrid F1-like runs (200 and 2000 frames) with the measured cores' share
#   endtoend  F1-like 200 frames GPU-only, hybrid and CPU-only (8 frames), then 2000 frames hybrid
# Several modes may be given: `scripts/taskgraph-device-run.sh suite f1`.
set -u
out=${OUT:-$PWD/.gpu/out}
mkdir -p "$out/reports"
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 STARPU_SILENT=1
export STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home}
b=$PWD/.gpu/bin/pairhist
work=/tmp/pairhist-taskgraph
mkdir -p "$work"
log() { echo "$*" | tee -a "$out/taskgraph.log"; }
log "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(cat .gpu/commit) $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ') host $(nproc) cores"

# synth CASE FRAMES [N]: writes the case once, sets $args to its run arguments.
synth() {
  local dir=$work/$1-$2-${3:-0}
  local cmd
  local t0=$(date +%s.%N)
  cmd=$($b synth --case "$1" --frames "$2" ${3:+--n $3} -o "$dir" -q)
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

mode_suite() {
  bash scripts/gpu-suite.sh device >/dev/null 2>&1
  grep -E "passed|FAILED|gpu-suite:" "$out/gpu-suite.log" | tee -a "$out/taskgraph.log"
}

mode_f1() {
  synth F1 200
  go f1-gpu-only --ncpu 0
  STARPU_NWORKER_PER_CUDA=1 go f1-gpu-only-1stream --ncpu 0
  go f1-gpu-only-2p28 --ncpu 0 --task-pairs 268435456
  LIMIT=120 go f1-cpu-only-8 --ncuda 0 --last 7
  LIMIT=120 go f1-hybrid-lws --sched lws
  LIMIT=120 go f1-hybrid-dmda-first --sched dmda --progress
  LIMIT=120 go f1-hybrid-dmda --sched dmda
  LIMIT=120 go f1-hybrid-dmdas --sched dmdas
  LIMIT=100 go f1-static-hybrid --schedule static
  LIMIT=100 go f1-static-gpu --schedule static --ncpu 0
  same f1-gpu-only f1-hybrid-dmda
  same f1-gpu-only f1-hybrid-lws
  same f1-gpu-only f1-static-gpu
}

mode_hybrid() {  # F1-like 200 frames, hybrid under the model-based and greedy schedulers
  synth F1 200
  LIMIT=60 go f1-gpu-only --ncpu 0
  LIMIT=60 go f1-hybrid-dmda-first --sched dmda
  LIMIT=60 go f1-hybrid-dmda --sched dmda
  LIMIT=60 go f1-hybrid-dmdas --sched dmdas
  LIMIT=60 go f1-hybrid-eager --sched eager
  LIMIT=60 go f1-hybrid-dmda-4cpu --sched dmda --ncpu 4
  LIMIT=60 go f1-static-hybrid --schedule static
  LIMIT=60 go f1-static-gpu --schedule static --ncpu 0
  same f1-gpu-only f1-hybrid-dmda
  same f1-gpu-only f1-hybrid-eager
  same f1-gpu-only f1-static-gpu
}

mode_share() {  # the cores' share in hybrid runs (decomposition with CPU-sized tiles)
  synth F1 200
  LIMIT=60 go share-f1-gpu-only --ncpu 0
  LIMIT=60 go share-f1-hybrid
  LIMIT=60 go share-f1-hybrid-2
  STARPU_PERF_MODEL_DIR=$work/models timeout 100 $b calibrate $args --frames 20 --sched dmda
  STARPU_PERF_MODEL_DIR=$work/models LIMIT=60 go share-f1-hybrid-dmda --sched dmda
  synth K6 100
  LIMIT=60 go share-k6-gpu-only --ncpu 0
  LIMIT=60 go share-k6-hybrid
  synth F1 2000
  LIMIT=120 go share-f1-2000-hybrid
  same share-f1-gpu-only share-f1-hybrid
  same share-f1-gpu-only share-f1-hybrid-dmda
}

mode_decode() {  # XTC decoding of F1-like frames (280,000 atoms) on 1..8 threads
  synth F1 100
  local t
  for t in 1 2 4 8; do
    $b bench --decode "$work/F1-100-0/F1.xtc" --threads $t --repeats 3 | tee -a "$out/taskgraph.log"
    $b bench --decode "$work/F1-100-0/F1.xtc" --threads $t --repeats 3 --json >>"$out/reports/decode.jsonl"
  done
}

mode_diag() {  # hybrid runs on 20 frames, one setting changed at a time
  synth F1 200
  LIMIT=60 go diag-hybrid-lws --sched lws --last 19
  LIMIT=60 STARPU_NWORKER_PER_CUDA=1 go diag-hybrid-lws-1stream --sched lws --last 19
  LIMIT=60 go diag-hybrid-lws-fif4 --sched lws --last 19 --frames-in-flight 4
  LIMIT=60 go diag-hybrid-lws-noreserve --sched lws --last 19 --reserve-cores 0
  LIMIT=60 go diag-hybrid-lws-4cpu --sched lws --last 19 --ncpu 4
  LIMIT=60 go diag-hybrid-dmda --sched dmda --last 19
  LIMIT=60 go diag-hybrid-eager --sched eager --last 19
}

mode_long() {
  synth K6 100
  go k6-gpu-only --ncpu 0
  go k6-hybrid --sched dmda
  synth F1 2000
  rm -rf "$STARPU_HOME"/.starpu/sampling/codelets
  local t0=$(date +%s.%N)
  STARPU_PERF_MODEL_DIR=$work/models timeout 200 $b calibrate $args --frames 20 --sched dmda
  log "calibrate (20 frames of F1): $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"
  STARPU_PERF_MODEL_DIR=$work/models go f1-2000-hybrid-dmda --sched dmda
  STARPU_PERF_MODEL_DIR=$work/models go f1-2000-gpu-only --ncpu 0
  tar -C "$work" -czf "$out/perfmodels-$(hostname -s).tar.gz" models
}

mode_multi() {
  local g
  local gpus=$(nvidia-smi -L | wc -l)
  local counts=$(for g in 1 2 4 8; do [ "$g" -le "$gpus" ] && echo $g; done)
  synth F1 200
  LIMIT=60 go multi-warmup --last 0  # StarPU samples the buses once per machine: keep it out
  for g in $counts; do LIMIT=60 go multi-f1-gpu$g --ncpu 0 --ncuda "$g"; done
  for g in $counts; do LIMIT=60 go multi-f1-hybrid$g --ncuda "$g"; done
  synth K1 1 4000000
  for g in $counts; do LIMIT=60 go multi-4m-gpu$g --ncpu 0 --ncuda "$g"; done
  same multi-f1-gpu1 multi-f1-gpu$g
  same multi-f1-gpu1 multi-f1-hybrid$g
  same multi-4m-gpu1 multi-4m-gpu$g
}

mode_kernels() {
  OUT=$out bash scripts/bench-suite.sh "$b" all | tee -a "$out/taskgraph.log"
  mv "$out/bench.jsonl" "$out/reports/bench.jsonl"
}

mode_reduction() {  # alternating runs, GPU only: REDUX against explicit sum tasks
  synth F1 200
  local i
  for i in 1 2 3; do
    LIMIT=60 go red-f1-redux-$i --ncpu 0
    LIMIT=60 go red-f1-sum-$i --ncpu 0 --reduction sum
  done
  synth K6 100
  for i in 1 2 3; do
    LIMIT=60 go red-k6-small-redux-$i --ncpu 0 --task-pairs 67108864
    LIMIT=60 go red-k6-small-sum-$i --ncpu 0 --task-pairs 67108864 --reduction sum
  done
  same red-f1-redux-1 red-f1-sum-1
  same red-k6-small-redux-1 red-k6-small-sum-1
}

mode_lpbound() {  # calibrate for the hybrid plan, then compare makespans with the LP bound
  synth F1 200
  export STARPU_PERF_MODEL_DIR=$work/models-lp
  rm -rf "$STARPU_PERF_MODEL_DIR"
  local t0=$(date +%s.%N)
  timeout 250 $b calibrate $args --frames 20 --sched dmda 2>&1 | tail -3 | tee -a "$out/taskgraph.log"
  log "calibrate: $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"
  LIMIT=60 go lp-hybrid-eager --sched eager --lp-file "$out/reports/lp-hybrid-eager.txt"
  LIMIT=60 go lp-hybrid-dmda --sched dmda --lp-file "$out/reports/lp-hybrid-dmda.txt"
  LIMIT=60 go lp-gpu-only --ncpu 0
  LIMIT=60 go lp-hybrid-static --schedule static --last 19
  unset STARPU_PERF_MODEL_DIR
  same lp-gpu-only lp-hybrid-eager
}

mode_adaptive() {  # hybrid runs re-planning the cores' share from measured rates
  synth F1 200
  LIMIT=60 go ad-f1-gpu-only --ncpu 0
  LIMIT=60 go ad-f1-hybrid
  LIMIT=60 go ad-f1-gpu-only-2 --ncpu 0
  LIMIT=60 go ad-f1-hybrid-2
  LIMIT=60 go ad-f1-static-gpu --schedule static --ncpu 0
  same ad-f1-gpu-only ad-f1-hybrid
  synth F1 2000
  LIMIT=120 go ad-f1-2000-hybrid
  LIMIT=120 go ad-f1-2000-gpu-only --ncpu 0
}

mode_multihybrid() {  # multi's hybrid runs only (after a change to the hybrid feeding)
  local g
  local gpus=$(nvidia-smi -L | wc -l)
  local counts=$(for g in 1 2 4 8; do [ "$g" -le "$gpus" ] && echo $g; done)
  synth F1 200
  LIMIT=60 go multi-warmup --last 0
  for g in $counts; do LIMIT=60 go multi-f1-hybrid$g --ncuda "$g"; done
  for g in $counts; do LIMIT=60 go multi-f1-gpu$g --ncpu 0 --ncuda "$g"; done
  same multi-f1-gpu1 multi-f1-hybrid$g
}

mode_hybrid4() {  # 4 GPUs with CPU workers: which part of the hybrid setup costs the GPUs
  synth F1 200
  LIMIT=60 go h4-warmup --last 0
  LIMIT=60 go h4-gpu --ncpu 0
  LIMIT=60 go h4-eager
  LIMIT=60 go h4-dmda --sched dmda
  LIMIT=60 go h4-lws --sched lws --frames-in-flight 8
  LIMIT=60 go h4-eager-ncpu16 --ncpu 16
  LIMIT=60 go h4-eager-ncpu32 --ncpu 32
  LIMIT=60 go h4-gpu-again --ncpu 0
}

mode_final() {  # issue 4's H100 table: hybrid vs GPU-only vs CPU-only vs static, LP bounds, 2000 frames
  synth F1 200
  export STARPU_PERF_MODEL_DIR=$work/models-final
  rm -rf "$STARPU_PERF_MODEL_DIR"
  timeout 250 $b calibrate $args --frames 20 2>&1 | tail -2 | tee -a "$out/taskgraph.log"
  LIMIT=60 go fin-gpu-only --ncpu 0
  LIMIT=60 go fin-hybrid
  LIMIT=60 go fin-hybrid-2
  LIMIT=60 go fin-hybrid-dmda --sched dmda
  LIMIT=60 go fin-static-gpu --schedule static --ncpu 0
  LIMIT=60 go fin-cpu-only-8 --ncuda 0 --last 7
  LIMIT=60 go fin-hybrid-20 --last 19
  LIMIT=150 go fin-static-hybrid-20 --schedule static --last 19
  same fin-gpu-only fin-hybrid
  same fin-gpu-only fin-static-gpu
  synth F1 2000
  LIMIT=120 go fin-2000-hybrid
  unset STARPU_PERF_MODEL_DIR
}

mode_endtoend() {  # the README's end-to-end figures, without calibration or baselines
  synth F1 200
  LIMIT=60 go e2e-gpu-only --ncpu 0
  LIMIT=60 go e2e-hybrid
  LIMIT=60 go e2e-cpu-only-8 --ncuda 0 --last 7
  same e2e-gpu-only e2e-hybrid
  synth F1 2000
  LIMIT=120 go e2e-2000-hybrid
}

mode_models() {  # perfmodels of this host for perfmodels/: F1-like hybrid and GPU-only, the sample
  synth F1 200
  export STARPU_PERF_MODEL_DIR=$work/models-host
  rm -rf "$STARPU_PERF_MODEL_DIR"
  timeout 200 $b calibrate $args --frames 20 2>&1 | tail -1 | tee -a "$out/taskgraph.log"
  timeout 200 $b calibrate $args --frames 20 --ncpu 0 2>&1 | tail -1 | tee -a "$out/taskgraph.log"
  timeout 100 $b calibrate data/spce_water.xtc --top data/spce_water.gro --species O=OW \
    --species H=HW1,HW2 --rmax 1.2 --nbins 240 -o "$work/out-sample" 2>&1 | tail -1 | tee -a "$out/taskgraph.log"
  tar -C "$STARPU_PERF_MODEL_DIR" -czf "$out/perfmodels-$(nvidia-smi -L | wc -l)gpu.tar.gz" .
  unset STARPU_PERF_MODEL_DIR
}

mode_wide() {  # wide histograms (K5) and a no-change check on K1
  local c p
  for p in single double; do
    for c in K5 K1; do
      $b bench --case $c --device gpu --precision $p --repeats 5 | tee -a "$out/taskgraph.log"
      $b bench --case $c --device gpu --precision $p --repeats 5 --json >>"$out/reports/bench.jsonl"
    done
  done
}

mode_eight() {  # 8 GPUs against 1 on the same host, F1-like and the 4M-atom frame (short budget)
  synth F1 200
  LIMIT=60 go eight-warmup --last 0
  LIMIT=60 go eight-f1-gpu1 --ncpu 0 --ncuda 1
  LIMIT=60 go eight-f1-gpu8 --ncpu 0 --ncuda 8
  LIMIT=60 go eight-f1-hybrid8 --ncuda 8
  synth K1 1 4000000
  LIMIT=60 go eight-4m-gpu1 --ncpu 0 --ncuda 1
  LIMIT=60 go eight-4m-gpu8 --ncpu 0 --ncuda 8
  same eight-f1-gpu1 eight-f1-gpu8
  same eight-4m-gpu1 eight-4m-gpu8
}

mode_model() {  # GPU-only runs on 1, 2, 4, ... GPUs with task traces: the scaling model's input
  local g
  local gpus=$(nvidia-smi -L | wc -l)
  local counts=$(for g in 1 2 4 8; do [ "$g" -le "$gpus" ] && echo $g; done)
  synth F1 200
  LIMIT=60 go model-warmup --last 0
  for g in $counts; do TRACE=1 LIMIT=60 go model-f1-gpu$g --ncpu 0 --ncuda "$g"; done
  # The 1 GiB ring of before (64 F1 frames pinned by the feeding thread) on all GPUs, for A/B.
  TRACE=1 LIMIT=60 go model-f1-gpu$g-ring1g --ncpu 0 --ncuda "$g" --memory-budget 1024
  synth K1 1 4000000
  for g in $counts; do TRACE=1 LIMIT=60 go model-4m-gpu$g --ncpu 0 --ncuda "$g"; done
  same model-f1-gpu1 model-f1-gpu$g
  same model-4m-gpu1 model-4m-gpu$g
  cp -r "$STARPU_HOME/.starpu/sampling/bus" "$out/reports/starpu-bus" 2>/dev/null
  for g in $counts; do
    python3 scripts/scaling_model.py "$out/reports/model-f1-gpu$g.csv" \
      --report "$out/reports/model-f1-gpu$g.json" | tee -a "$out/taskgraph.log"
  done
  $b bench --decode "$work/F1-200-0/F1.xtc" --threads 4 --repeats 3 | tee -a "$out/taskgraph.log"
}

mode_startup() {  # one 4M-atom frame on one GPU: how long before the first task
  synth K1 1 4000000
  LIMIT=60 go startup-4m-gpu1 --ncpu 0 --ncuda 1
  python3 - "$out/reports/startup-4m-gpu1.json" <<'PY' | tee -a "$out/taskgraph.log"
import json, sys
j = json.load(open(sys.argv[1]))
print(f"startup-4m-gpu1: first task starts {j['first_task_start_seconds']:.3f} s after the engine")
PY
}

for m in "$@"; do "mode_$m"; done
tar -C "$out" -czf "$out/taskgraph-$(echo "$@" | tr ' ' '-').tar.gz" reports && rm -rf "$out/reports"
