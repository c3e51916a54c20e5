#!/usr/bin/env bash
# The worked solution-scattering example of docs/scattering.md ("A protein in water, step by
# step"): cobrotoxin (62 residues, 6.95 kDa, from MDAnalysis's test structure
# cobrotoxin_dry_neutral_0.pdb) in TIP4P water, OPLS-AA, and a pure TIP4P water run of the same
# force field, 300 K and 1 bar, both made with GROMACS; then the protein's excess SAXS and SANS
# curves in 1/A and 1/cm with error bars.
#
#   bash scripts/make-saxs-example.sh PDB DIR [PAIRHIST]     # everything
#   MD_ONLY=1 bash scripts/make-saxs-example.sh PDB DIR      # the two simulations only
#   SKIP_MD=1 bash scripts/make-saxs-example.sh PDB DIR      # pairhist only (DIR holds the MD)
#
# PDB: cobrotoxin_dry_neutral_0.pdb (MDAnalysis's testsuite/MDAnalysisTests/data). DIR: where
# everything goes. PAIRHIST: the program (default build/drivers/pairhist). Needs gmx (apt-get
# install gromacs). Debian's mdrun needs the rdtscp instruction: on a CPU without it (some
# virtual machines) it stops at once, so run the MD part where it works (the documented run used
# the 16 cores of a GPU node: 22 ps of water in 51 s, 150 ps of the protein in 6.8 min) and copy
# DIR back. The numbers in docs/scattering.md come from this script, commit and machine given
# there.
set -euo pipefail
pdb=$(readlink -f "$1")
mkdir -p "$2"
dir=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
pairhist=${3:-$here/build/drivers/pairhist}
gmx=${GMX:-gmx}
threads=${THREADS:-$(nproc)}

write_mdps() {
  cat > em.mdp <<'MDP'
integrator = steep
nsteps = 500
cutoff-scheme = Verlet
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
MDP
  # NPT at 300 K and 1 bar, h-bonds constrained, frames every $1 steps for $2 steps.
  cat > npt.mdp <<MDP
integrator = md
dt = 0.002
nsteps = $2
nstxout-compressed = $1
compressed-x-precision = 1000
nstenergy = $1
nstlog = $1
cutoff-scheme = Verlet
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
constraints = h-bonds
tcoupl = V-rescale
tc-grps = System
tau-t = 0.1
ref-t = 300
pcoupl = C-rescale
pcoupltype = isotropic
tau-p = 1.0
ref-p = 1.0
compressibility = 4.5e-5
gen-vel = yes
gen-temp = 300
gen-seed = 2026
MDP
}

minimise_and_run() {
  $gmx -quiet grompp -f em.mdp -c solvated.gro -p topol.top -o em.tpr >grompp-em.log 2>&1
  $gmx -quiet mdrun -nt "$threads" -deffnm em >mdrun-em.log 2>&1
  $gmx -quiet grompp -f npt.mdp -c em.gro -r em.gro -p topol.top -o npt.tpr >grompp-npt.log 2>&1
  $gmx -quiet mdrun -nt "$threads" -deffnm npt >mdrun-npt.log 2>&1
}

if [ -z "${SKIP_MD:-}" ]; then
  # The solvent: TIP4P water in a rhombic dodecahedron of 7.6 nm (a sphere of R = 3.4 nm fits:
  # R below half the shortest box vector), 22 ps, a frame every 2 ps (the first is dropped).
  mkdir -p "$dir/water" && cd "$dir/water"
  printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/tip4p.itp"\n\n[ system ]\nTIP4P water\n\n[ molecules ]\n' > topol.top
  write_mdps 1000 11000
  printf 'empty box\n0\n' > empty.gro
  echo "   7.60000   7.60000   5.37401   0.00000   0.00000   0.00000   0.00000   3.80000   3.80000" >> empty.gro
  $gmx -quiet solvate -cp empty.gro -cs tip4p.gro -o solvated.gro >solvate.log 2>&1
  echo "SOL $(( $(sed -n 2p solvated.gro) / 4 ))" >> topol.top
  minimise_and_run
  # The protein: OPLS-AA with TIP4P, its four disulfides linked by pdb2gmx, net charge 0, in a
  # dodecahedron of 7.0 nm (R = 3.4 nm holds every atom: the farthest is 2.7 nm from the centre
  # of mass), 150 ps, a frame every 5 ps.
  mkdir -p "$dir/protein" && cd "$dir/protein"
  grep '^ATOM' "$pdb" > protein.pdb
  $gmx -quiet pdb2gmx -f protein.pdb -o protein.gro -p topol.top -ff oplsaa -water tip4p -ignh \
    >pdb2gmx.log 2>&1
  $gmx -quiet editconf -f protein.gro -bt dodecahedron -box 7.0 -c -o box.gro >editconf.log 2>&1
  $gmx -quiet solvate -cp box.gro -cs tip4p.gro -p topol.top -o solvated.gro >solvate.log 2>&1
  write_mdps 2500 75000
  minimise_and_run
fi
[ -n "${MD_ONLY:-}" ] && exit 0

# pairhist: one species per element (scattering needs one weight per species; TIP4P's massless
# MW site is no element and stays out), spheres of R = 3.4 nm around the protein's centre of
# mass and around the water box's centre, bins of 0.002 nm, blocks of 5 frames (25 ps) and of 2
# frames (4 ps) for the errors. The protein run starts at 25 ps (frame 5), the water at 2 ps.
cd "$dir"
protein_species=()
for e in C N O S H; do protein_species+=(--species "$e=group Protein and element $e"); done
"$pairhist" run protein/npt.xtc --top protein/npt.tpr "${protein_species[@]}" \
  --species OW=OW --species HW=HW1,HW2 --sphere "group Protein,3.4" --bin 0.002 --first 5 \
  --interval 5 -o solution -q
"$pairhist" run water/npt.xtc --top water/npt.tpr --species OW=OW --species HW=HW1,HW2 \
  --sphere 3.4 --sphere-centre box --bin 0.002 --first 1 --interval 2 -o solvent -q
# SAXS: 5 mg/mL of a 6,951.6 g/mol protein is 7.193e-4 mol/L; one protein per frame.
"$pairhist" scattering solution --subtract solvent --q-unit A --q-max 0.5 --nq 101 \
  --concentration 7.193e-4 --molecules 1 -o saxs
# SANS in D2O: the water's and the protein's exchangeable hydrogens as deuterium would need the
# polar H as their own species; here the water alone is deuterated (HW -> D).
"$pairhist" scattering solution --subtract solvent --radiation neutron --deuterate HW=1 \
  --q-unit A --q-max 0.5 --nq 101 --concentration 7.193e-4 --molecules 1 -o sans
echo "make-saxs-example: $dir/saxs and $dir/sans hold excess.csv, .xvg, .h5 and excess_pr.csv"
