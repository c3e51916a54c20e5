#!/usr/bin/env bash
# Regenerates the validation trajectory data/nacl_dodecahedron.{xtc,gro} with Debian's GROMACS:
# about 1 mol/L NaCl in SPC/E water (OPLS-AA ions) in a rhombic dodecahedron of 3.2 nm (a
# triclinic box; the minimum image is unique up to r = 1.6 nm), minimised, equilibrated for 10 ps
# and then 30 ps of NVT production written every 0.5 ps (61 frames; 14 Na, 14 Cl, 724 waters).
# The .mdp files it uses are written to data/nacl-inputs/ so the committed ones are exactly what
# made the committed trajectory. 3 to 10 minutes on 2 cores, depending on what else runs.
# Dynamics is not bit-reproducible across machines: a rerun gives a statistically equivalent
# trajectory, not the same bytes (tests/test_triclinic_counts.cpp derives its reference from
# whatever file is bundled; it expects 14 Na, 14 Cl, 724 OW and 61 frames).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gmx=${GMX:-gmx}
command -v "$gmx" >/dev/null || { echo "make-validation-data: $gmx not found (apt-get install gromacs)" >&2; exit 1; }
inputs="$repo/data/nacl-inputs"
mkdir -p "$inputs"

cat >"$inputs/em.mdp" <<'EOF'
; Energy minimisation of the solvated, ionised box before dynamics.
integrator      = steep
nsteps          = 1000
emtol           = 500
cutoff-scheme   = Verlet
coulombtype     = PME
rcoulomb        = 1.0
rvdw            = 1.0
EOF

# Equilibration and production share everything but the length, the output and the start.
common_md='integrator              = md
dt                      = 0.002
cutoff-scheme           = Verlet
coulombtype             = PME
rcoulomb                = 1.0
rvdw                    = 1.0
DispCorr                = EnerPres
constraints             = h-bonds
constraint-algorithm    = lincs
tcoupl                  = v-rescale
tc-grps                 = System
tau-t                   = 0.1
ref-t                   = 300
pcoupl                  = no
nstenergy               = 500
nstlog                  = 5000'

cat >"$inputs/nvt-eq.mdp" <<EOF
; NVT equilibration, 10 ps at 300 K from minimised coordinates.
$common_md
nsteps                  = 5000         ; 10 ps
nstxout-compressed      = 0
gen-vel                 = yes
gen-temp                = 300
gen-seed                = 20261123
ld-seed                 = 20261123
EOF

cat >"$inputs/nvt.mdp" <<EOF
; NVT production continuing the equilibration: 30 ps, 61 frames every 0.5 ps (fixed volume).
$common_md
nsteps                  = 15000        ; 30 ps
nstxout-compressed      = 250          ; every 0.5 ps
compressed-x-precision  = 1000
nstxout                 = 0
nstvout                 = 0
continuation            = yes
gen-vel                 = no
ld-seed                 = 20261124
EOF

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$inputs"/*.mdp "$work"/
cd "$work"
export GMX_MAXBACKUP=-1
nt=$(nproc)

# One SPC/E molecule, only to give editconf something to put in the box; solvate fills the rest.
cat >one_water.gro <<'EOF'
one SPC/E water
3
    1SOL     OW    1   0.000   0.000   0.000
    1SOL    HW1    2   0.100   0.000   0.000
    1SOL    HW2    3  -0.033   0.094   0.000
   1.00000   1.00000   1.00000
EOF
cat >topol.top <<'EOF'
; About 1 mol/L NaCl in SPC/E water, OPLS-AA force field files shipped with GROMACS.
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spce.itp"
#include "oplsaa.ff/ions.itp"

[ system ]
NaCl in SPC/E water, rhombic dodecahedron, NVT 300 K

[ molecules ]
SOL 1
EOF

$gmx -quiet editconf -f one_water.gro -bt dodecahedron -box 3.2 -c -o box.gro >editconf.log 2>&1
$gmx -quiet solvate -cp box.gro -cs spc216.gro -p topol.top -o solvated.gro >solvate.log 2>&1
$gmx -quiet grompp -f em.mdp -c solvated.gro -p topol.top -o ions.tpr >grompp-ions.log 2>&1
echo SOL | $gmx -quiet genion -s ions.tpr -p topol.top -o ionised.gro -pname NA -nname CL \
  -conc 1.0 -neutral -seed 20261123 >genion.log 2>&1
$gmx -quiet grompp -f em.mdp -c ionised.gro -p topol.top -o em.tpr >grompp-em.log 2>&1
$gmx -quiet mdrun -nt "$nt" -deffnm em >mdrun-em.log 2>&1
$gmx -quiet grompp -f nvt-eq.mdp -c em.gro -p topol.top -o nvt-eq.tpr >grompp-eq.log 2>&1
$gmx -quiet mdrun -nt "$nt" -deffnm nvt-eq >mdrun-eq.log 2>&1
$gmx -quiet grompp -f nvt.mdp -c nvt-eq.gro -t nvt-eq.cpt -p topol.top -o nvt.tpr \
  >grompp-nvt.log 2>&1
$gmx -quiet mdrun -nt "$nt" -deffnm nvt >mdrun-nvt.log 2>&1

cp nvt.xtc "$repo/data/nacl_dodecahedron.xtc"
cp nvt-eq.gro "$repo/data/nacl_dodecahedron.gro"
cp topol.top "$inputs/topol.top"
grep -E '^(SOL|NA|CL) ' topol.top
ls -l "$repo"/data/nacl_dodecahedron.*
