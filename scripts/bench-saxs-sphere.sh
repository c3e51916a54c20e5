#!/usr/bin/env bash
# Whole-process timing of SAXS/SANS from an XTC (issue 26's target): `pairhist run --sphere
# SOLUTE,R --scattering xray|neutron` against `gmx saxs` and `gmx sans`, for a sphere of about
# 20,000 atoms (a solute with its solvent layer) over 1,000 frames.
#
#   scripts/bench-saxs-sphere.sh prepare DIR       the inputs, made with GROMACS (here)
#   scripts/bench-saxs-sphere.sh DIR [FRAMES] [PAIRHIST]
#                                                  the timing (prepares DIR first if it has not)
#   scripts/bench-saxs-sphere.sh device DIR [FRAMES]
#                                                  the timing on the GPU machine (see below)
#
# The inputs (prepare; Debian's GROMACS 2022): a 7.8 nm cube of SPC/E water (47,000 atoms;
# topology as data/sample-inputs), minimised, then SAMPLE (default 10) frames of MD, 2 fs steps
# written every 2 steps: sample.xtc, sample.gro (the minimised frame), topol.tpr. The "solute"
# is the water molecules within 0.9 nm of the box centre in the minimised frame (index group
# Solute, about 100 molecules); the sphere is R = RADIUS (default 3.6) nm around its centre (of
# mass: the .tpr has masses), about 19,300 atoms (2 R = 7.2 nm fits the box's half-width rule);
# index group Sphere holds the atoms within R in the minimised frame (gmx saxs's stand-in, below).
# prepare also stages GROMACS for a machine without it, in DIR/gmx.tar.gz: the gmx binary, the
# shared libraries outside the base system, the data files of share/gromacs/top (not the force
# fields) and a wrapper `gmx` that sets LD_LIBRARY_PATH and GMXLIB. What is carried,
# DIR/inputs.tar.gz and DIR/gmx.tar.gz, is about 19 MB.
#
# The trajectory: `pairhist synth --case W1 --replicas 1 --sample sample.xtc --frames FRAMES`
# writes the sample's frames cycled to FRAMES (default 1,000; 0.004 ps apart), so that 1,000
# frames (~170 MB) need not be carried: neither program's speed depends on which frames they are.
#
# pairhist counts the O and H histograms of the atoms inside the sphere, per frame, without a
# box, to r_max = 2 R in 0.002 nm bins, and writes the Debye intensity, q = 0..60/nm in 601 steps
# (gmx saxs's default range). gmx saxs has no per-frame cut-out: it is given the sphere's atoms
# of the minimised frame as a static index group (Sphere, the same number of atoms) and computes
# its Cromer structure factor of them, q = 0..60/nm. The two compute different things (a Debye
# sum over the cut-out, a lattice structure factor of a fixed group): the timing compares the
# work a user runs for the same question, not the numbers. gmx sans (a histogram of all pairs of
# the group and its Debye sum, neutron lengths) gets the same group, no box (-nopbc), q 0..60/nm
# in 0.1 steps and its finest histogram, 0.1 nm (it refuses bins below the H-H bond length).
# With PAIRHIST_FULL=1 pairhist also runs with --scattering neutron and with no scattering (the
# Debye transform's share of the run: the difference).
#
# Timing: each program runs as one process, timed by /usr/bin/time (wall seconds, reading the XTC
# included), on SUBSET frames (-e / --last; default min(FRAMES, 20)) and on SUBSET/2 frames. The
# time for FRAMES frames is extrapolated linearly from those two points: per frame
# (t(SUBSET) - t(SUBSET/2)) / (SUBSET - SUBSET/2), fixed = t(SUBSET/2) - SUBSET/2 x per frame,
# t(FRAMES) = fixed + FRAMES x per frame. PAIRHIST_FULL=1 also runs pairhist on all FRAMES frames
# (a GPU machine: `device` sets it) and prints that measured time beside the extrapolation.
# Prints both times and the ratio gmx / pairhist; appends every run to DIR/bench.log with the
# load average. PAIRHIST defaults to build/drivers/pairhist; NCPU (if set; pairhist's default
# otherwise, which on a GPU node keeps CPU workers out of the GPUs' way) goes to pairhist
# --ncpu, NCUDA (if set) to --ncuda, and GMX_NT (default all cores) to gmx's threads
# (OMP_NUM_THREADS; gmx sans's -nt).
#
# Which gmx: GMX=/path/to/gmx if set (GROMACS finds its data through GMXDATA or GMXLIB, which
# pass through, or beside the binary), else DIR/gmx.tar.gz's (unpacked into /tmp/saxs-gmx),
# else `gmx` on PATH.
#
# On the GPU machine, where GROMACS is not installed, with the device tool:
#   here:   bash scripts/gpu-suite.sh stage                      (pairhist packed into .gpu/)
#           bash scripts/bench-saxs-sphere.sh prepare .saxs-bench
#   there:  bash scripts/bench-saxs-sphere.sh device .saxs-bench [FRAMES]
#           with carry [".gpu", ".saxs-bench"] (both git-ignored), from the repository root.
# `device` unpacks the stage as scripts/gpu-suite.sh does, copies DIR's inputs to
# /tmp/saxs-bench-work (the trajectory is written there), runs the timing with the stage's
# pairhist, DIR's gmx and PAIRHIST_FULL=1, and copies bench.log and every program's output to
# $OUT. GMX_NT defaults to all the machine's cores. gmx saxs took 65 s a frame of the
# 19,300-atom group on 2 development cores; the default SUBSET (20 and 10 frames) may not fit the
# device tool's 10 minutes a call on 16 cores: SUBSET=6 (6 and 3 frames) should. On the 64-core
# 4x H200 node it took 65 s a frame as well (not parallel): SUBSET=2 there.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export GMX_MAXBACKUP=-1

# The gmx to run: GMX, else the staged one in DIR, else gmx on PATH.
find_gmx() {  # DIR
  if [[ -n ${GMX:-} ]]; then
    echo "$GMX"
  elif [[ -f $1/gmx.tar.gz ]]; then
    mkdir -p /tmp/saxs-gmx
    [[ -x /tmp/saxs-gmx/gmx ]] || tar -xzf "$1/gmx.tar.gz" -C /tmp/saxs-gmx
    echo /tmp/saxs-gmx/gmx
  else
    echo gmx
  fi
}

# DIR/gmx.tar.gz: gmx, its libraries outside the base system, the data files it reads and a
# wrapper that points it at them; unpacked anywhere, `./gmx` runs.
stage_gmx() {  # DIR GMX
  local dir=$1 gmx_bin lib top stage
  gmx_bin=$(realpath "$(command -v "$2")")
  stage=$(mktemp -d)
  mkdir -p "$stage/bin" "$stage/lib" "$stage/share/gromacs/top"
  cp -L "$gmx_bin" "$stage/bin/gmx"
  ldd "$gmx_bin" | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libresolv|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
  # The data directory: GMXLIB where set, else GMXDATA/top, else the one beside the binary.
  top=${GMXLIB:-${GMXDATA:+$GMXDATA/top}}
  top=${top:-$(dirname "$gmx_bin")/../share/gromacs/top}
  cp "$top"/*.dat "$stage/share/gromacs/top/"
  cat >"$stage/gmx" <<'EOF'
#!/usr/bin/env bash
# gmx staged by scripts/bench-saxs-sphere.sh prepare: its libraries and data files beside it.
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GMXLIB=${GMXLIB:-$here/share/gromacs/top}
exec "$here/bin/gmx" "$@"
EOF
  chmod +x "$stage/gmx"
  tar -czf "$dir/gmx.tar.gz" -C "$stage" .
  rm -rf "$stage"
}

# The inputs in DIR: topol.tpr, index.ndx, sample.xtc and sample.gro, radius.txt, and packed
# for carrying in DIR/inputs.tar.gz; the GROMACS runs that made them in a scratch directory,
# their logs and parameter files in DIR/make-logs.
prepare() {  # DIR
  local dir=$1 gmx sample=${SAMPLE:-10} radius=${RADIUS:-3.6} nt make
  gmx=$(find_gmx "$dir")
  command -v "$gmx" >/dev/null || { echo "bench-saxs-sphere: $gmx not found" >&2; exit 1; }
  mkdir -p "$dir/make-logs"
  dir=$(realpath "$dir")
  make=$(mktemp -d)
  cd "$make"
  nt=$(nproc)
  cat >em.mdp <<'EOF'
integrator      = steep
nsteps          = 500
emtol           = 1000
cutoff-scheme   = Verlet
coulombtype     = PME
rcoulomb        = 1.0
rvdw            = 1.0
EOF
  cat >md.mdp <<EOF
integrator              = md
dt                      = 0.002
nsteps                  = $((2 * sample - 2))
nstxout-compressed      = 2
compressed-x-precision  = 1000
nstxout                 = 0
nstvout                 = 0
nstenergy               = 500
nstlog                  = 1000
cutoff-scheme           = Verlet
coulombtype             = PME
rcoulomb                = 1.0
rvdw                    = 1.0
constraints             = h-bonds
tcoupl                  = v-rescale
tc-grps                 = System
tau-t                   = 0.1
ref-t                   = 300
gen-vel                 = yes
gen-temp                = 300
gen-seed                = 20261127
EOF
  sed '/^\[ molecules \]/q' "$repo/data/sample-inputs/topol.top" >topol.top
  "$gmx" -quiet solvate -cs spc216.gro -box 7.8 -p topol.top -o solvated.gro >solvate.log 2>&1
  "$gmx" -quiet grompp -f em.mdp -c solvated.gro -p topol.top -o em.tpr >grompp-em.log 2>&1
  "$gmx" -quiet mdrun -nt "$nt" -deffnm em >mdrun-em.log 2>&1
  "$gmx" -quiet grompp -f md.mdp -c em.gro -p topol.top -o topol.tpr >grompp-md.log 2>&1
  "$gmx" -quiet mdrun -nt "$nt" -s topol.tpr -deffnm md >mdrun-md.log 2>&1
  rm -f step*.pdb
  # Index groups from the minimised frame: Solute (whole waters whose O is within 0.9 nm of the
  # box centre) and Sphere (every atom within R of the Solute's centre of geometry, minimum
  # image; gmx saxs's static stand-in for the cut-out).
  awk -v R="$radius" '
    NR == 2 { n = $1 }
    NR > 2 && NR <= n + 2 {
      i = NR - 2; x[i] = substr($0, 21, 8) + 0; y[i] = substr($0, 29, 8) + 0
      z[i] = substr($0, 37, 8) + 0; nm[i] = substr($0, 11, 5); gsub(/ /, "", nm[i])
    }
    NR == n + 3 { L = $1 + 0 }
    function img(d) { return d - L * int(d / L + (d >= 0 ? 0.5 : -0.5)) }
    END {
      c = L / 2; k = 0
      for (i = 1; i <= n; i++)
        if (nm[i] == "OW" && img(x[i] - c) ^ 2 + img(y[i] - c) ^ 2 + img(z[i] - c) ^ 2 < 0.81)
          for (j = i; j < i + 3; j++) { solute[++k] = j; sx += x[j]; sy += y[j]; sz += z[j] }
      sx /= k; sy /= k; sz /= k
      print "[ Solute ]"; for (j = 1; j <= k; j++) printf "%d%s", solute[j], (j % 15 ? " " : "\n")
      print ""; print "[ Sphere ]"; m = 0
      for (i = 1; i <= n; i++)
        if (img(x[i] - sx) ^ 2 + img(y[i] - sy) ^ 2 + img(z[i] - sz) ^ 2 <= R * R)
          printf "%d%s", i, (++m % 15 ? " " : "\n")
      print ""
      printf "solute %d atoms, sphere %d atoms in the minimised frame\n", k, m > "/dev/stderr"
    }' em.gro >index.ndx 2>index.log
  cat index.log >&2
  cp ./*.log ./*.mdp topol.top "$dir/make-logs/"
  cp topol.tpr index.ndx "$dir/"
  cp md.xtc "$dir/sample.xtc"
  cp em.gro "$dir/sample.gro"
  cd "$dir"
  rm -rf "$make"
  echo "$radius" >radius.txt
  echo "$sample" >sample-frames.txt
  tar -czf inputs.tar.gz topol.tpr index.ndx sample.xtc sample.gro radius.txt sample-frames.txt
  rm topol.tpr index.ndx sample.xtc sample.gro  # unpacked again where they are used
  [[ -f gmx.tar.gz ]] || stage_gmx "$dir" "$gmx"
  # What `device` needs of DIR: the two packs (carry DIR whole: the rest is small).
  du -ch inputs.tar.gz gmx.tar.gz | tail -1 >&2
}

# DIR/traj.xtc of FRAMES frames, the sample's cycled (pairhist synth).
make_trajectory() {  # DIR FRAMES PAIRHIST
  local dir=$1 frames=$2 pairhist=$3
  [[ -s $dir/traj.xtc && $(cat "$dir/frames.txt" 2>/dev/null) == "$frames" ]] && return
  rm -rf "$dir/synth"
  "$pairhist" synth --case W1 --replicas 1 --sample "$dir/sample.xtc" \
    --sample-top "$dir/sample.gro" --frames "$frames" -o "$dir/synth" -q >/dev/null
  mv "$dir/synth/W1.xtc" "$dir/traj.xtc"
  rm -rf "$dir/synth"
  echo "$frames" >"$dir/frames.txt"
}

bench() {  # DIR [FRAMES] [PAIRHIST]
  local dir=${1:?usage: bench-saxs-sphere.sh DIR [FRAMES] [PAIRHIST]}
  frames=${2:-1000}
  pairhist=$(realpath "${3:-$repo/build/drivers/pairhist}")
  subset=${SUBSET:-$((frames < 20 ? frames : 20))}
  half=$((subset / 2))
  [[ -x $pairhist ]] || { echo "bench-saxs-sphere: $pairhist not found" >&2; exit 1; }
  [[ $half -ge 1 ]] || { echo "bench-saxs-sphere: SUBSET must be at least 2" >&2; exit 1; }
  mkdir -p "$dir"
  dir=$(realpath "$dir")
  if [[ ! -s $dir/topol.tpr && -f $dir/inputs.tar.gz ]]; then tar -xzf "$dir/inputs.tar.gz" -C "$dir"; fi
  [[ -s $dir/topol.tpr && -s $dir/sample.xtc ]] || (prepare "$dir")
  gmx=$(find_gmx "$dir")
  command -v "$gmx" >/dev/null || { echo "bench-saxs-sphere: $gmx not found" >&2; exit 1; }
  radius=$(cat "$dir/radius.txt")
  make_trajectory "$dir" "$frames" "$pairhist"
  cd "$dir"

  commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
  echo "# $(date -u +%FT%TZ) commit $commit, $(nproc) cores, $frames frames, subset $subset" \
    >>bench.log
  g=$(extrapolate "$(run_gmx saxs "$half")" "$(run_gmx saxs "$subset")")
  n=$(extrapolate "$(run_gmx sans "$half")" "$(run_gmx sans "$subset")")
  p=$(extrapolate "$(run_pairhist xray "$half")" "$(run_pairhist xray "$subset")")
  summary="$frames frames (extrapolated from $half and $subset): gmx saxs $g s, gmx sans $n s,"
  summary+=" pairhist (X-ray) $p s"
  pn=$p
  if [[ ${PAIRHIST_FULL:-0} == 1 ]]; then
    p=$(run_pairhist xray "$frames")
    pn=$(run_pairhist neutron "$frames")
    local none
    none=$(run_pairhist none "$frames")
    summary+=$(awk -v p="$p" -v n="$pn" -v z="$none" -v f="$frames" 'BEGIN {
      printf ", measured on all %d: X-ray %.2f s, neutron %.2f s, no scattering %.2f s", f, p, n, z
      printf " (the Debye transform %.1f%% / %.1f%% of the run)", 100 * (p - z) / p, 100 * (n - z) / n }')
  fi
  summary+=$(awk -v g="$g" -v n="$n" -v p="$p" -v q="$pn" \
    'BEGIN { printf ", ratios gmx saxs / pairhist %.1fx, gmx sans / pairhist %.1fx", g / p, n / q }')
  echo "$summary" | tee -a bench.log
}

# Frame times: 0.004 ps apart; frame k (0-based) at 0.004 k.
last_time() { awk -v k="$1" 'BEGIN { printf "%.3f", 0.004 * (k - 1) + 0.001 }'; }
timed() {  # LABEL COMMAND...: wall seconds of the whole process
  local label=$1
  shift
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f %e -o time.txt "$@" >"$label.out" 2>&1 || {
    echo "bench-saxs-sphere: $label failed:" >&2
    tail -5 "$label.out" >&2
    exit 1
  }
  local t
  t=$(tail -1 time.txt)
  echo "$label ${t} s (load average before: $load)" | tee -a bench.log >&2
  echo "$t"
}
run_gmx() {  # saxs|sans FRAMES: gmx sans on the same bins and q grid as pairhist
  local extra=()
  [[ $1 == sans ]] && extra=(-nt "${GMX_NT:-$(nproc)}" -nopbc -bin 0.1 -qstep 0.1 -pr "gmx-sans-pr-$2.xvg")
  echo Sphere | OMP_NUM_THREADS=${GMX_NT:-$(nproc)} timed "gmx-$1-$2" "$gmx" -quiet "$1" \
    -s topol.tpr -f traj.xtc -n index.ndx -e "$(last_time "$2")" -startq 0 -endq 60 \
    -sq "gmx-$1-sq-$2.xvg" "${extra[@]}"
}
run_pairhist() {  # xray|neutron|none FRAMES
  local scattering=()
  [[ $1 != none ]] && scattering=(--scattering "$1" --q-max 60 --nq 601)
  timed "pairhist-$1-$2" "$pairhist" run traj.xtc --top topol.tpr --index index.ndx \
    --species O=OW --species H=HW1,HW2 --sphere "group Solute,$radius" --bin 0.002 \
    --last $(($2 - 1)) ${NCPU:+--ncpu "$NCPU"} ${NCUDA:+--ncuda "$NCUDA"} -q --overwrite \
    -o "pairhist-$1-$2" "${scattering[@]}"
}
extrapolate() {  # T_HALF T_SUBSET
  awk -v a="$1" -v b="$2" -v h="$half" -v s="$subset" -v f="$frames" \
    'BEGIN { p = (b - a) / (s - h); printf "%.2f", (a - h * p) + f * p }'
}

# On the GPU machine: the stage's pairhist (scripts/gpu-suite.sh), DIR's gmx, a copy of DIR's
# inputs in /tmp, the logs to $OUT.
device() {  # DIR [FRAMES]
  local carried work stage out
  carried=$(realpath "${1:?usage: bench-saxs-sphere.sh device DIR [FRAMES]}")
  stage=$(bash "$repo/scripts/gpu-suite.sh" unpack | tail -1)
  export LD_LIBRARY_PATH="$stage/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  work=/tmp/saxs-bench-work
  out=${OUT:-$work/out}
  mkdir -p "$work" "$out"
  export STARPU_HOME=$work/starpu-home STARPU_SILENT=1 STARPU_SCHED=
  cp "$carried"/{inputs.tar.gz,gmx.tar.gz} "$work/"
  tar -xzf "$work/inputs.tar.gz" -C "$work"
  {
    echo "# bench-saxs-sphere on the device, pairhist commit $(cat "$stage/commit")"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
    echo "host: $(nproc) cores"
  } | tee -a "$work/bench.log"
  local status=0
  PAIRHIST_FULL=${PAIRHIST_FULL:-1} bench "$work" "${2:-1000}" "$stage/bin/pairhist" || status=$?
  cp "$work"/bench.log "$work"/*.out "$work"/*.xvg "$out/" 2>/dev/null || true
  return $status
}

case "${1:-}" in
  prepare) prepare "${2:?usage: bench-saxs-sphere.sh prepare DIR}" ;;
  device) shift && device "$@" ;;
  *) bench "$@" ;;
esac
