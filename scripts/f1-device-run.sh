#!/usr/bin/env bash
# Run on the device machine from the repo root after `scripts/gpu-suite.sh stage` (carry .gpu).
# Static baseline and CPU-only runs take minutes (whole 3.9e10-pair frames on single cores).
# Device experiment: GPU suite, then the F1-like workload end to end from an XTC on disk.
set -u
bash scripts/gpu-suite.sh device >/dev/null 2>&1; grep -E "passed|FAILED|gpu-suite:" $OUT/gpu-suite.log
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 STARPU_SILENT=1 STARPU_HOME=/tmp/starpu-home
b=.gpu/bin/pairhist
d=/tmp/f1
t0=$(date +%s.%N); cmd=$($b synth --case F1 --frames 200 -o $d -q); echo "synth: $(echo "$(date +%s.%N) - $t0" | python3 -c 'import sys; print(round(eval(sys.stdin.read()),1))') s, $(du -h $d/F1.xtc | cut -f1)"
args=${cmd#pairhist run }
args=${args% -o *}
run() { local name=$1; shift; $b run $args -o $d/out-$name --report $OUT/f1-$name.json -q "$@" ; python3 -c "
import json; j=json.load(open('$OUT/f1-$name.json'))
print(f\"$name: frames {j['frames']} seconds {j['seconds']:.2f} bapps {j['bapps']:.1f} makespan {j['makespan_seconds']:.2f} tail_idle {j['tail_idle_seconds']:.3f} tasks {j['tasks']} impl {j['implementations']['cpu']['tasks']}/{j['implementations']['cuda_shared']['tasks']} sched {j['scheduler']}\")"; }
run gpu-only --ncpu 0
run hybrid-lws --sched lws
run hybrid-dmda --sched dmda
run hybrid-dmda-2 --sched dmda
run static-hybrid --schedule static
run static-gpu --schedule static --ncpu 0
run cpu-only-10 --ncuda 0 --last 9
cmp <(h5dump -d /199/histograms/S0,S1 $d/out-gpu-only/pairhist.h5 2>/dev/null | md5sum) <(h5dump -d /199/histograms/S0,S1 $d/out-hybrid-dmda/pairhist.h5 2>/dev/null | md5sum) && echo "histograms identical (gpu-only vs hybrid-dmda, if h5dump exists)"
