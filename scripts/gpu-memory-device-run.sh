#!/usr/bin/env bash
# On the GPU machine (repo root, after scripts/gpu-suite.sh stage, carry [".gpu"]): what a run does
# when a GPU cannot hold its tasks' data (STARPU_LIMIT_CUDA_MEM from 4 MiB up, a 572k-atom W1
# frame of 6.9 MB): it must end, with the counts of an unlimited run, never hang
# (docs/reliability.md). A run still alive after 12 s is killed; with elfutils' eu-stack staged
# in .gpu/dbg (bin + lib) its threads' stacks go to $OUT first.
repo=$(pwd)
name=gpu-memory
title="GPU memory limits"
source scripts/device-run-common.sh
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$repo/.gpu/dbg/lib"
es=$repo/.gpu/dbg/eu-stack
step synth "$ph" synth --case W1 --replicas 6 --frames 2 -o "$work/r6" -q
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
