#!/usr/bin/env bash
# Regenerates the seeds of the `result_file` fuzz harness (fuzz/seeds/result_file/): small
# pairhist.h5 files written by `pairhist run` on the 30-atom water fixture, one of each kind of
# result the reader meets (whole run; interval blocks with excluded pairs and a partial last bin;
# a sphere run; a dynamic species), plus two recipes (inputs that do not start with HDF5's
# signature, which the harness turns into a result it writes and then damages). CI does not run
# this; the seeds are committed.
#   scripts/make-result-seeds.sh [PAIRHIST]      (default: build/drivers/pairhist)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairhist="$(realpath "${1:-$root/build/drivers/pairhist}")"
out="$root/fuzz/seeds/result_file"
fixtures="$root/data/fixtures"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
rm -f "$out"/*

run() {  # NAME ARGS...: one run of the water fixture, its pairhist.h5 kept as NAME.h5
  local name=$1
  shift
  # From the fixtures' directory, so that the files record no path of this machine.
  (cd "$fixtures" && "$pairhist" run gmx_water30.xtc --top gmx_water30.gro "$@" --ncpu 1 -q \
    -o "$work/$name")
  cp "$work/$name/pairhist.h5" "$out/$name.h5"
}
run whole --species O=OW --species H=HW1,HW2 --rmax 0.6 --nbins 4
run intervals --species O=OW --species H=HW1,HW2 --rmax 0.55 --bin 0.1 --interval 2 \
  --exclude residue
run sphere --species O=OW --species H=HW1,HW2 --sphere "resid 1,0.5" --nbins 3
run dynamic --species O=OW --species "N=name OW and within 0.4 of resid 1" --rmax 0.6 --nbins 3
# Recipes: any bytes but the signature; these two ask for three species and three damages.
printf '\x02\x05\x07\x03\x05\x01\x02\x00\x80\x10\x20\x30\x40\x50\x60\x70' >"$out/recipe-a"
printf '\x00\x01\x04\x02\x03\x06\xff\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa' >"$out/recipe-b"
ls -l "$out"
