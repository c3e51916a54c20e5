#!/usr/bin/env bash
# Whole-process timing of SAXS from an XTC (issue 26's target): `pairhist run --sphere
# SOLUTE,R --scattering xray` against `gmx saxs`, for a sphere of about 20,000 atoms (a solute with
# its solvent layer) over 1,000 frames.
#
#   scripts/bench-saxs-sphere.sh DIR [FRAMES] [PAIRHIST]
#
# DIR keeps the inputs between calls (made once with Debian's GROMACS 2022; about 1 GB for 1,000
# frames): a 7.8 nm cube of SPC/E water (47,000 atoms; topology as data/sample-inputs),
# minimised, then 2 x FRAMES MD steps of 2 fs written every 2 steps (FRAMES frames, default
# 1,000; the frames are close in time, which neither program's speed depends on). The "solute"
# is the water molecules within 0.9 nm of the box centre in the minimised frame (index group
# Solute, about 100 molecules); the sphere is R = 3.6 nm around its centre (of mass: the .tpr has
# masses), about 19,600 atoms (2 R = 7.2 nm fits the box's half-width rule). pairhist counts the
# O and H histograms of the atoms inside the sphere, per frame, without a box, to r_max = 2 R in
# 0.002 nm bins, and writes the Debye intensity, q = 0..60/nm in 601 steps (gmx saxs's default
# range). gmx saxs has no per-frame cut-out: it is given the sphere's atoms of the minimised frame
# as a static index group (Sphere, the same number of atoms) and computes its Cromer structure
# factor of them, q = 0..60/nm. The two compute different things (a Debye sum over the cut-out,
# a lattice structure factor of a fixed group): the timing compares the work a user runs for the
# same question, not the numbers.
#
# Timing: each program runs as one process, timed by /usr/bin/time (wall seconds, reading the XTC
# included), on SUBSET frames (-e / --last; default min(FRAMES, 20)) and on SUBSET/2 frames. The
# time for FRAMES frames is extrapolated linearly from those two points: per frame
# (t(SUBSET) - t(SUBSET/2)) / (SUBSET - SUBSET/2), fixed = t(SUBSET/2) - SUBSET/2 x per frame,
# t(FRAMES) = fixed + FRAMES x per frame. PAIRHIST_FULL=1 also runs pairhist on all FRAMES frames
# (a GPU machine: set it) and prints that measured time beside the extrapolation. Prints both
# times and the ratio gmx / pairhist; appends every run to DIR/bench.log with the load average.
# PAIRHIST defaults to build/drivers/pairhist; NCPU (default all cores) goes to pairhist --ncpu
# and GMX_NT (default all cores) to gmx's OpenMP threads (OMP_NUM_THREADS).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: bench-saxs-sphere.sh DIR [FRAMES] [PAIRHIST]}
frames=${2:-1000}
pairhist=$(realpath "${3:-$repo/build/drivers/pairhist}")
gmx=${GMX:-gmx}
subset=${SUBSET:-$((frames < 20 ? frames : 20))}
half=$((subset / 2))
ncpu=${NCPU:-$(nproc)}
radius=3.6
command -v "$gmx" >/dev/null || { echo "bench-saxs-sphere: $gmx not found" >&2; exit 1; }
[[ -x $pairhist ]] || { echo "bench-saxs-sphere: $pairhist not found" >&2; exit 1; }
[[ $half -ge 1 ]] || { echo "bench-saxs-sphere: SUBSET must be at least 2" >&2; exit 1; }
mkdir -p "$dir"
dir=$(realpath "$dir")
cd "$dir"
export GMX_MAXBACKUP=-1

if [[ ! -s traj.xtc || ! -s topol.tpr || $(cat frames.txt 2>/dev/null) != "$frames" ]]; then
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
nsteps                  = $((2 * frames - 2))
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
  $gmx -quiet solvate -cs spc216.gro -box 7.8 -p topol.top -o solvated.gro >solvate.log 2>&1
  $gmx -quiet grompp -f em.mdp -c solvated.gro -p topol.top -o em.tpr >grompp-em.log 2>&1
  $gmx -quiet mdrun -nt "$nt" -deffnm em >mdrun-em.log 2>&1
  $gmx -quiet grompp -f md.mdp -c em.gro -p topol.top -o topol.tpr >grompp-md.log 2>&1
  $gmx -quiet mdrun -nt "$nt" -s topol.tpr -deffnm md >mdrun-md.log 2>&1
  mv md.xtc traj.xtc
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
    }' em.gro >index.ndx
  echo "$frames" >frames.txt
fi

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# $(date -u +%FT%TZ) commit $commit, $(nproc) cores, $frames frames, subset $subset" \
  >>bench.log
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
run_gmx() {  # FRAMES
  echo Sphere | OMP_NUM_THREADS=${GMX_NT:-$(nproc)} timed "gmx-saxs-$1" "$gmx" -quiet saxs \
    -s topol.tpr -f traj.xtc -n index.ndx -e "$(last_time "$1")" -startq 0 -endq 60 \
    -sq "gmx-sq-$1.xvg"
}
run_pairhist() {  # FRAMES
  timed "pairhist-$1" "$pairhist" run traj.xtc --top topol.tpr --index index.ndx \
    --species O=OW --species H=HW1,HW2 --sphere "group Solute,$radius" --bin 0.002 \
    --last $(($1 - 1)) --ncpu "$ncpu" -q --overwrite -o "pairhist-$1" \
    --scattering xray --q-max 60 --nq 601
}
extrapolate() {  # T_HALF T_SUBSET
  awk -v a="$1" -v b="$2" -v h="$half" -v s="$subset" -v f="$frames" \
    'BEGIN { p = (b - a) / (s - h); printf "%.2f", (a - h * p) + f * p }'
}
g=$(extrapolate "$(run_gmx "$half")" "$(run_gmx "$subset")")
p=$(extrapolate "$(run_pairhist "$half")" "$(run_pairhist "$subset")")
summary="$frames frames (extrapolated from $half and $subset): gmx saxs $g s, pairhist $p s"
if [[ ${PAIRHIST_FULL:-0} == 1 ]]; then
  full=$(run_pairhist "$frames")
  summary+=", pairhist measured on all $frames: $full s"
  p=$full
fi
summary+=$(awk -v g="$g" -v p="$p" 'BEGIN { printf ", ratio gmx / pairhist %.1fx", g / p }')
echo "$summary" | tee -a bench.log
