#!/usr/bin/env bash
# Sets everything up if needed (building only the pairhist program), then computes the O-O, O-H
# and H-H histograms and g(r) of the bundled SPC/E water trajectory (101 NPT frames, 2652 atoms)
# into results/ and plots them into results/rdf.png.
# The g(r) are intermolecular: pairs of atoms of the same water are left out (--exclude residue),
# so the plot shows the liquid's structure instead of the O-H and H-H bonds
# (g = 25 and 9). `bash scripts/demo.sh --intramolecular` keeps them; other arguments go to
# `pairhist run`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
exclude=residue
args=()
for a in "$@"; do
  if [ "$a" = --intramolecular ]; then exclude=none; else args+=("$a"); fi
done
bash "$repo/scripts/setup.sh" pairhist_cli
"$repo/build/drivers/pairhist" run "$repo/data/spce_water.xtc" --top "$repo/data/spce_water.gro" \
  --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 --exclude "$exclude" \
  -o "$repo/results" --overwrite "${args[@]}"
echo
# The maximum of g_O-O (third column) is the first hydration shell.
awk -F, '/^#/ || $1 == "r_nm" { next }
         $3 > best { best = $3; r = $1 }
         END { printf "O-O g(r) first peak: r = %s nm, g = %.2f (liquid water: 0.27-0.29 nm, ~3)\n", r, best }' \
  "$repo/results/rdf.csv"
"$repo/build/drivers/pairhist" plot "$repo/results" -o "$repo/results/rdf.png" --overwrite
echo "Look at $repo/results/rdf.png; open rdf.xvg with xmgrace, or read rdf.csv / pairhist.h5."
