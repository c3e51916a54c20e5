#!/usr/bin/env bash
# Issue 24 on a many-core, many-GPU node, in one call: decoding alone against threads, the whole
# process against the run time (start: topology, engine), defaults against --ncpu 0 and one GPU on
# W1 at ~11M atoms, F1 on 1 and all GPUs; the baseline stage's (.gpu-base/) whole-process time on
# the big case for the start overhead. rdf.csv must be identical across every variant of a case.
#   here:  bash scripts/gpu-suite.sh stage   (and compare-device-run.sh pack-base for .gpu-base)
#   there: bash scripts/node-device-run.sh   (repo root, carry [".gpu", ".gpu-base"]; logs to $OUT)
# NODE_FRAMES (200) frames of W1 x16; NODE_THREADS ("1 8 16 32 64") decoding threads to time;
# NODE_ROUNDS (2) rounds of the runs; NODE_PERF (1) profiles decoding; NODE_RANKS (1 with 2+
# GPUs) runs both cases as one rank per GPU (mpirun) too; NODE_BASE (1) runs the baseline stage;
# NODE_REPEAT (1) repeats W1's frames that many times (1000 frames from 200). NODE_W1_VARIANTS and
# NODE_F1_VARIANTS choose among variant_args (dtmax: a decoding thread on every core but one;
# dtN: --decode-threads N; ranksbase: the baseline stage as ranks; rankslstopo: ranks with mpirun
# given the machine as XML, docs/usage.md). The variants that switched the start-up changes of
# 2026-11-28 off went with their switches (issue 38).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=node-device
title="pairhist on the whole node: decoding, start, feeding (issue 24)"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
have_base=0
if [ "${NODE_BASE:-1}" = 1 ] && [ -f "$repo/.gpu-base/payload.tar.gz" ]; then
  unpack_baseline
  have_base=1
fi
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
cores=$(nproc)

t0=$(date +%s.%N)
w1=$("$ph" synth --case W1 --replicas 16 --frames "${NODE_FRAMES:-200}" -o "$work/w1big" -q)
f1=$("$ph" synth --case F1 --frames 200 -o "$work/f1" -q)
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
echo "node-device-run: $([ $status = 0 ] && echo identical results || echo FAILURES)" | tee -a "$log"
exit $status
