# Shared by the measurement scripts that run on the GPU machine (w1-device-run.sh,
# feed-device-run.sh, mpi-device-run.sh): sourced after they set `repo`, `name` (the log's name) and `title`.
# Unpacks the GPU suite's stage, sets the environment, starts the log and defines step().
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

# unpack_baseline: the baseline's stage (.gpu-base/, compare-device-run.sh pack-base) into
# $base_stage; its program uses its own libraries, the rest from this stage.
base_stage=/tmp/gpu-base
unpack_baseline() {
  mkdir -p "$base_stage"
  [ -f "$base_stage/commit" ] || tar -xzf "$repo/.gpu-base/payload.tar.gz" -C "$base_stage"
  echo "baseline: commit $(cat "$base_stage/commit"); this tree: commit $(cat "$stage/commit")" |
    tee -a "$log"
}
