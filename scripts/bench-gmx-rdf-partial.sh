#!/usr/bin/env bash
# Whole-process timing of a partial RDF, `pairhist rdf` against `gmx rdf` (issue 25): 100 ions
# (-ref, 50 Na + 50 Cl) around about 30,000 waters (-sel "name OW") over 1,000 frames.
#
#   scripts/bench-gmx-rdf-partial.sh DIR [RUNS] [PAIRHIST]
#
# DIR keeps the inputs between calls (about 0.4 GB; made once with Debian's GROMACS, 3 to 10
# minutes on 2 cores): a 9.65 nm cube of SPC/E water (OPLS-AA ions, topology as
# scripts/make-validation-data.sh), minimised, then 1,998 MD steps of 2 fs written every 2 steps
# (1,000 frames; the frames are close in time, which neither program's speed depends on). Then
# RUNS (default 3; 0: only make the inputs) rounds each run gmx rdf and pairhist rdf with the same arguments, alternating,
# timed by /usr/bin/time (wall seconds of the whole process); prints the medians and appends every
# run to DIR/bench.log with the load average before it. PAIRHIST defaults to build/drivers/pairhist.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: bench-gmx-rdf-partial.sh DIR [RUNS] [PAIRHIST]}
runs=${2:-3}
pairhist=$(realpath "${3:-$repo/build/drivers/pairhist}")
gmx=${GMX:-gmx}
command -v "$gmx" >/dev/null || { echo "bench-gmx-rdf-partial: $gmx not found" >&2; exit 1; }
mkdir -p "$dir"
dir=$(realpath "$dir")
cd "$dir"
export GMX_MAXBACKUP=-1

if [[ ! -s traj.xtc || ! -s topol.tpr ]]; then
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
  cat >md.mdp <<'EOF'
integrator              = md
dt                      = 0.002
nsteps                  = 1998
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
  cat >topol.top <<'EOF'
; 50 Na + 50 Cl in about 30,000 SPC/E waters, OPLS-AA force field files shipped with GROMACS.
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spce.itp"
#include "oplsaa.ff/ions.itp"

[ system ]
pairhist benchmark: 100 ions in SPC/E water

[ molecules ]
EOF
  $gmx -quiet solvate -cs spc216.gro -box 9.65 -p topol.top -o solvated.gro >solvate.log 2>&1
  $gmx -quiet grompp -f em.mdp -c solvated.gro -p topol.top -o ions.tpr -maxwarn 1 \
    >grompp-ions.log 2>&1
  echo SOL | $gmx -quiet genion -s ions.tpr -p topol.top -o ionised.gro -pname NA -nname CL \
    -np 50 -nn 50 -seed 20261127 >genion.log 2>&1
  $gmx -quiet grompp -f em.mdp -c ionised.gro -p topol.top -o em.tpr >grompp-em.log 2>&1
  $gmx -quiet mdrun -nt "$nt" -deffnm em >mdrun-em.log 2>&1
  $gmx -quiet grompp -f md.mdp -c em.gro -p topol.top -o topol.tpr >grompp-md.log 2>&1
  $gmx -quiet mdrun -nt "$nt" -s topol.tpr -deffnm md >mdrun-md.log 2>&1
  mv md.xtc traj.xtc
  rm -f step*.pdb  # SETTLE's complaints during the first minimisation steps
  grep -E '^(SOL|NA|CL) ' topol.top
fi

[[ $runs -gt 0 ]] || exit 0  # inputs only
args=(-f traj.xtc -s topol.tpr -ref "resname NA CL" -sel "name OW" -bin 0.002 -rmax 1.5)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# $(date -u +%FT%TZ) commit $commit, $(nproc) cores, args: ${args[*]}" >>bench.log
declare -A times
for round in $(seq 1 "$runs"); do
  for who in gmx pairhist; do
    if [[ $who == gmx ]]; then cmd=("$gmx" -quiet rdf); else cmd=("$pairhist" rdf); fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f %e -o time.txt "${cmd[@]}" "${args[@]}" -o "$who-rdf.xvg" \
      -cn "$who-cn.xvg" >"$who.out" 2>&1
    t=$(tail -1 time.txt)
    times[$who]+="$t "
    echo "round $round $who ${t} s (load average before: $load)" | tee -a bench.log
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
g=$(echo "${times[gmx]}" | median)
p=$(echo "${times[pairhist]}" | median)
summary=$(awk -v g="$g" -v p="$p" 'BEGIN {printf "median: gmx rdf %.2f s, pairhist rdf %.2f s, %.1fx", g, p, g / p}')
echo "$summary" | tee -a bench.log
