#!/usr/bin/env bash
# F1 as one rank per GPU (mpirun), many rounds, this stage against the baseline's (.gpu-base/) and
# against variants: for a failure that shows only now and then. A rank that crashes under gdb
# (when the machine has it) leaves its backtrace in the log.
#   there: bash scripts/ranks-device-run.sh   (repo root, carry [".gpu", ".gpu-base"]; logs to $OUT)
# RANKS_ROUNDS (4) rounds; RANKS_VARIANTS ("new base") among new, base, gdb (this stage, each
# rank under gdb), single (one process, all GPUs,
# as node-device-run.sh runs before the ranks: the perfmodels then hold its history), shm (this stage
# with OpenMPI's shared-memory transport only: pml ob1, btl self,vader) and the other launch
# variants of launch_env below (ob1, noofi, noopenib, vadertcp, xml, xmlshm, lstopo).
# RANKS_LAUNCH (5) rounds of bench_mpi_launch (an MPI job with no work: the launcher's start and
# end, MPI_Init_thread and MPI_Finalize) for each of RANKS_LAUNCH_VARIANTS ("default shm"), first.
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
echo "ranks-device-run: $([ $status = 0 ] && echo no failures || echo FAILURES)" | tee -a "$log"
exit $status
