#!/usr/bin/env bash
# Sets everything up if needed, then computes the O-O, O-H and H-H histograms and g(r) of the
# bundled SPC/E water trajectory (101 NPT frames, 2652 atoms) into results/.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bash "$repo/scripts/setup.sh"
"$repo/build/drivers/pairhist" run "$repo/data/spce_water.xtc" --top "$repo/data/spce_water.gro" \
  --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 -o "$repo/results" "$@"
echo
echo "First rows of $repo/results/rdf.csv (r in nm, raw counts, g(r), coordination number):"
grep -v '^#' "$repo/results/rdf.csv" | head -n 4
