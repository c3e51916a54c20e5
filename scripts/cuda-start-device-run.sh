#!/usr/bin/env bash
# What CUDA's own start, a process's end and mpirun's discovery of the machine cost on this node,
# without pairhist, beside a pairhist run's marks (issue 24: the 4-GPU whole process).
#   there: bash scripts/cuda-start-device-run.sh   (repo root, carry [".gpu"]; logs to $OUT)
# CUDA_START_ROUNDS (5) fresh processes per case of bench_cuda_start; CUDA_START_PIN_GB (4);
# CUDA_START_F1 (3) rounds of F1 (200 frames, every GPU) with the report's start and end marks,
# as they come and with StarPU given the machine as XML (no discovery in the run: "f1xml").
# CUDA_START_PARTS ("bench lstopo mpirun f1") picks the parts; "gaps": CUDA's start in fresh
# processes 3 s apart (the driver may still release the previous process's GPUs); "contention":
# the contexts made while hwloc discovers the machine's I/O devices, as a run does.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=cuda-start-device
title="pairhist: CUDA's start, a process's end, mpirun's discovery (issue 24)"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
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
  f1=$("$ph" synth --case F1 --frames 200 -o "$work/f1" -q)
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
echo "cuda-start-device-run: $([ $status = 0 ] && echo no failures || echo FAILURES)" | tee -a "$log"
exit $status
