#!/usr/bin/env bash
# Regenerates the bundled sample trajectory data/spce_water.{xtc,gro} with Debian's GROMACS:
# SPC/E water in a 3 nm cubic box, minimised, then 30 ps of NPT dynamics (101 frames).
# Takes a few minutes on 2 cores. Dynamics is not bit-reproducible across machines, so a rerun
# gives a statistically equivalent, not identical, trajectory; tests derive their references
# from whatever file is bundled.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gmx=${GMX:-gmx}
command -v "$gmx" >/dev/null || { echo "make-sample-data: $gmx not found (apt-get install gromacs)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$repo"/data/sample-inputs/{em.mdp,npt.mdp,topol.top} "$work"/
cd "$work"
export GMX_MAXBACKUP=-1
$gmx -quiet solvate -cs spc216.gro -box 3.0 3.0 3.0 -o solvated.gro -p topol.top >solvate.log 2>&1
$gmx -quiet grompp -f em.mdp -c solvated.gro -p topol.top -o em.tpr >grompp-em.log 2>&1
$gmx -quiet mdrun -nt "$(nproc)" -deffnm em >mdrun-em.log 2>&1
$gmx -quiet grompp -f npt.mdp -c em.gro -p topol.top -o npt.tpr >grompp-npt.log 2>&1
$gmx -quiet mdrun -nt "$(nproc)" -deffnm npt >mdrun-npt.log 2>&1
cp npt.xtc "$repo/data/spce_water.xtc"
cp em.gro "$repo/data/spce_water.gro"
ls -l "$repo"/data/spce_water.*
