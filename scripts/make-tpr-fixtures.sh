#!/usr/bin/env bash
# Regenerates the GROMACS run-input fixtures under data/fixtures/ (tests/test_tpr.cpp):
#   gmx_nacl.tpr  `gmx grompp` of the bundled NaCl solution (data/nacl_dodecahedron.gro, 14 Na+,
#                 14 Cl-, 723 SPC/E waters, OPLS-AA files shipped with GROMACS) with its NVT
#                 parameters (data/nacl-inputs/)
#   gmx_nacl.ndx  `gmx make_ndx` of that file, saved unchanged: the default groups GROMACS offers
# Needs gmx (Debian: gromacs). CI does not run this; the generated files are committed. The .tpr
# differs between GROMACS versions; the tests compare against these files, not a version.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/data/fixtures"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
gmx -quiet grompp -f "$root/data/nacl-inputs/nvt.mdp" -c "$root/data/nacl_dodecahedron.gro" \
  -p "$root/data/nacl-inputs/topol.top" -po mdout.mdp -o "$out/gmx_nacl.tpr" -maxwarn 0 \
  >grompp.log 2>&1 || { cat grompp.log; exit 1; }
echo q | gmx -quiet make_ndx -f "$out/gmx_nacl.tpr" -o "$out/gmx_nacl.ndx" >make_ndx.log 2>&1 ||
  { cat make_ndx.log; exit 1; }
ls -l "$out/gmx_nacl.tpr" "$out/gmx_nacl.ndx"
