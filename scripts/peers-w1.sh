#!/usr/bin/env bash
# Wall time of whole processes computing the O-O RDF of a W1 trajectory (`pairhist synth --case W1
# -o DIR`): gmx rdf, MDAnalysis InterRDF and pairhist run, each on the first FRAMES frames with
# r_max 1.2 nm and 240 bins (0.005 nm). Start-up, topology and trajectory reading count, as a
# user would see them. Prints a table; appends one JSON line per tool to DIR/peers.jsonl.
#
# Usage: scripts/peers-w1.sh DIR [FRAMES] [-- extra pairhist run args]   (FRAMES default 10)
# Environment: PAIRHIST (default: build/drivers/pairhist of this tree, else pairhist on PATH),
# GMX (default gmx), PYTHON (default /usr/bin/python3, Debian's python3-mdanalysis),
# PEERS_CASE (W1 or W1-T; default: whichever DIR holds, W1 first).
# Installs Debian's gromacs and python3-mdanalysis when missing (needs root or sudo).
set -euo pipefail

usage() {
  echo "usage: $0 DIR [FRAMES] [-- extra pairhist run args]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
dir=$1
shift
frames=10
if [ $# -gt 0 ] && [ "$1" != -- ]; then
  frames=$1
  shift
fi
if [ $# -gt 0 ]; then
  [ "$1" = -- ] || usage
  shift
fi
extra=("$@")
[[ $frames =~ ^[1-9][0-9]*$ ]] || { echo "peers-w1: FRAMES must be a positive integer" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pairhist=${PAIRHIST:-$here/build/drivers/pairhist}
[ -x "$pairhist" ] || pairhist=$(command -v pairhist || true)
[ -n "$pairhist" ] || { echo "peers-w1: no pairhist binary (build it or set PAIRHIST)" >&2; exit 1; }
gmx=${GMX:-gmx}
python=${PYTHON:-/usr/bin/python3}

case_name=${PEERS_CASE:-}
if [ -z "$case_name" ]; then
  for c in W1 W1-T; do
    if [ -f "$dir/$c.xtc" ]; then case_name=$c; break; fi
  done
fi
xtc=$dir/$case_name.xtc
gro=$dir/$case_name.gro
if [ -z "$case_name" ] || [ ! -f "$xtc" ] || [ ! -f "$gro" ]; then
  echo "peers-w1: no W1.xtc/W1.gro (or W1-T.*) in $dir; make them with: pairhist synth --case W1 -o $dir" >&2
  exit 1
fi

apt_install() {
  echo "peers-w1: installing $* (Debian)" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get install -y -q "$@" >&2 || {
    "${sudo[@]}" apt-get update -q >&2 && "${sudo[@]}" apt-get install -y -q "$@" >&2
  }
}
command -v "$gmx" >/dev/null || { apt_install gromacs; gmx=gmx; }
"$python" -c 'import MDAnalysis' 2>/dev/null || apt_install python3-mdanalysis

# Frame count, atoms and the time of frame FRAMES-1 from the XTC frame headers (gmx rdf selects
# frames by time); the file is only seeked through, outside the timed runs.
read -r nframes natoms t_last dt < <("$python" - "$xtc" "$frames" <<'EOF'
import struct, sys
path, want = sys.argv[1], int(sys.argv[2])
times, natoms = [], 0
with open(path, "rb") as f:
    while True:
        head = f.read(56)  # magic, natoms, step, time, box[9], natoms
        if len(head) < 56:
            break
        magic, natoms, _step, time = struct.unpack(">iiif", head[:16])
        if magic not in (1995, 2023):
            sys.exit(f"{path}: not an XTC frame at byte {f.tell() - 56}")
        times.append(time)
        if natoms <= 9:
            f.seek(12 * natoms, 1)
            continue
        f.seek(4 + 24 + 4, 1)  # precision, minint, maxint, smallidx
        if magic == 2023:
            (nbytes,) = struct.unpack(">q", f.read(8))
        else:
            (nbytes,) = struct.unpack(">i", f.read(4))
        f.seek((nbytes + 3) // 4 * 4, 1)
last = times[min(want, len(times)) - 1]
dt = times[1] - times[0] if len(times) > 1 else 1.0
print(len(times), natoms, last, dt)
EOF
)
if [ "$nframes" -lt "$frames" ]; then
  echo "peers-w1: $xtc has $nframes frames, fewer than $frames; using $nframes" >&2
  frames=$nframes
fi
# gmx -e is a time; half a frame's spacing beyond the last wanted frame absorbs float rounding.
t_end=$(awk -v t="$t_last" -v d="$dt" 'BEGIN { printf "%.6f", t + d / 2 }')

work=$dir/peers-work
mkdir -p "$work"
jsonl=$dir/peers.jsonl
rows=()

now() { date +%s.%N; }

# record TOOL VERSION STATUS START END LOG
record() {
  local tool=$1 version=$2 status=$3 start=$4 end=$5 log=$6
  local wall
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  rows+=("$(printf '%-24s %10s %7s %10s %s' "$tool" "$wall" "$frames" "$natoms" \
    "$([ "$status" -eq 0 ] && echo ok || echo "FAILED (exit $status, see $log)")")")
  TOOL=$tool VERSION=$version STATUS=$status WALL=$wall FRAMES=$frames NATOMS=$natoms \
    CASE=$case_name XTC=$xtc CORES=$(nproc) EXTRA="${extra[*]:-}" "$python" - >>"$jsonl" <<'EOF'
import json, os, socket, time
e = os.environ
print(json.dumps({
    "tool": e["TOOL"], "version": e["VERSION"], "case": e["CASE"], "trajectory": e["XTC"],
    "rdf": "O-O", "r_max_nm": 1.2, "bins": 240, "frames": int(e["FRAMES"]),
    "atoms": int(e["NATOMS"]), "wall_s": float(e["WALL"]), "status": int(e["STATUS"]),
    "extra_args": e["EXTRA"], "cores": int(e["CORES"]), "host": socket.gethostname(),
    "date": time.strftime("%Y-%m-%dT%H:%M:%S%z")}))
EOF
}

# --- gmx rdf: O-O, first FRAMES frames by time ---
gmx_version=$("$gmx" -quiet --version 2>/dev/null | awk -F': *' '/^GROMACS version/ { print $2 }')
log=$work/gmx.log
start=$(now)
status=0
GMX_MAXBACKUP=-1 "$gmx" -quiet rdf -f "$xtc" -s "$gro" -ref 'name OW' -sel 'name OW' \
  -bin 0.005 -rmax 1.2 -e "$t_end" -xvg none -o "$work/gmx-rdf.xvg" >"$log" 2>&1 || status=$?
end=$(now)
record "gmx rdf" "GROMACS $gmx_version" "$status" "$start" "$end" "$log"

# --- MDAnalysis InterRDF: O-O, 240 bins over (0, 12) Angstrom, frames 0..FRAMES-1 ---
log=$work/mdanalysis.log
mda_version=$("$python" -c 'import MDAnalysis; print(MDAnalysis.__version__)' 2>/dev/null || true)
start=$(now)
status=0
"$python" - "$gro" "$xtc" "$frames" "$work/mdanalysis-rdf.txt" >"$log" 2>&1 <<'EOF' || status=$?
import sys
import numpy as np
import MDAnalysis as mda
from MDAnalysis.analysis.rdf import InterRDF
gro, xtc, frames, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
u = mda.Universe(gro, xtc)
o = u.select_atoms("name OW")
# exclusion_block (1, 1): no self pairs, as in the other tools.
rdf = InterRDF(o, o, nbins=240, range=(0.0, 12.0), exclusion_block=(1, 1))
rdf.run(stop=frames)
np.savetxt(out, np.column_stack([rdf.results.bins / 10, rdf.results.rdf, rdf.results.count]))
print(f"{rdf.n_frames} frames, {len(o)} O")
EOF
end=$(now)
record "MDAnalysis InterRDF" "MDAnalysis $mda_version" "$status" "$start" "$end" "$log"

# --- pairhist run: O-O (and nothing else), frames 0..FRAMES-1 ---
log=$work/pairhist.log
ph_version=$("$pairhist" --version 2>/dev/null || true)
start=$(now)
status=0
"$pairhist" run "$xtc" --top "$gro" --species O=OW --rmax 1.2 --nbins 240 \
  --last $((frames - 1)) -q --overwrite -o "$work/pairhist" ${extra[@]+"${extra[@]}"} >"$log" 2>&1 || status=$?
end=$(now)
label="pairhist run"
[ ${#extra[@]} -eq 0 ] || label="pairhist run ${extra[*]}"
record "$label" "$ph_version" "$status" "$start" "$end" "$log"

printf '%-24s %10s %7s %10s %s\n' tool "wall s" frames atoms status
for r in "${rows[@]}"; do echo "$r"; done
echo "($case_name, O-O, r_max 1.2 nm, 240 bins; whole processes on $(nproc) cores; JSON lines in $jsonl)"
