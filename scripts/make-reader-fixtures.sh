#!/usr/bin/env bash
# Regenerates the trajectory-reader test fixtures under data/fixtures/ with the real writers:
#   DCD           MDAnalysis   (Debian: python3-mdanalysis)
#   extended XYZ  ASE          (Debian: python3-ase)
#   LAMMPS dump   LAMMPS       (Debian: lammps, binary `lmp`)
#   index (.ndx)  GROMACS      (Debian: gromacs, `gmx make_ndx` on data/spce_water.gro)
# Each fixture comes with reference values that the same program reports (*.ref.txt): box
# vectors and coordinates in Angstrom, full precision, read back by the writer's own library
# (DCD, XYZ) or dumped by the same LAMMPS run with 12 significant digits.
# Output is deterministic except for writer version differences. Run from anywhere:
#   scripts/make-reader-fixtures.sh
# CI does not run this; the generated files are committed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/data/fixtures"
mkdir -p "$out"
PY=/usr/bin/python3  # the distribution python that sees the Debian packages
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# ---- DCD (MDAnalysis) and extended XYZ (ASE) --------------------------------------------------
"$PY" - "$out" <<'PYEOF'
import sys, warnings
import numpy as np
warnings.filterwarnings("ignore")
import MDAnalysis as mda
from MDAnalysis.lib.mdamath import triclinic_vectors
import ase, ase.io
from ase.geometry import cellpar_to_cell

out = sys.argv[1]
rng = np.random.default_rng(20240607)

def write_ref(path, frames):
    # frames: list of (box 3x3 rows in Angstrom, positions Nx3 in Angstrom)
    with open(path, "w") as f:
        f.write("# reference reported by the writer: per frame 'frame K', 'box' + 9 numbers "
                "(rows a b c, Angstrom), then one 'x y z' line per atom (Angstrom)\n")
        for k, (box, pos) in enumerate(frames):
            f.write("frame %d\n" % k)
            f.write("box " + " ".join(repr(float(v)) for v in np.asarray(box).ravel()) + "\n")
            for p in pos:
                f.write("%r %r %r\n" % (float(p[0]), float(p[1]), float(p[2])))

# DCD: 120 atoms, 4 frames; one triclinic file with a changing cell, one orthorhombic.
def make_dcd(name, dims_per_frame):
    n = 120
    u = mda.Universe.empty(n, trajectory=True)
    path = f"{out}/{name}.dcd"
    with mda.Writer(path, n_atoms=n) as w:
        for dims in dims_per_frame:
            box = triclinic_vectors(np.array(dims, dtype=np.float32))
            frac = rng.random((n, 3))
            u.atoms.positions = (frac @ box).astype(np.float32) - 1.5
            u.dimensions = dims
            w.write(u.atoms)
    r = mda.Universe(path)  # topology-less DCD: MDAnalysis reads it back as the reference
    frames = []
    for ts in r.trajectory:
        frames.append((triclinic_vectors(ts.dimensions), ts.positions.copy()))
    write_ref(f"{out}/{name}.ref.txt", frames)

make_dcd("mda_triclinic", [[21.0 + k, 22.5, 24.25 - k, 80.0 + k, 95.0, 70.0 + 2 * k]
                           for k in range(4)])
make_dcd("mda_ortho", [[20.0, 21.0 + 0.5 * k, 22.0, 90.0, 90.0, 90.0] for k in range(3)])

# Extended XYZ: 90 atoms (30 waters' worth of O/H), 3 frames.
def xyz_frames(cells, pbc=True):
    frames = []
    for cell in cells:
        n = 90
        sym = ["O", "H", "H"] * (n // 3)
        pos = rng.random((n, 3)) @ np.asarray(cell) + rng.normal(0, 0.2, (n, 3))
        frames.append(ase.Atoms(sym, positions=pos, cell=cell, pbc=pbc))
    return frames

def write_xyz(name, frames, fmt="extxyz", **kw):
    path = f"{out}/{name}"
    ase.io.write(path, frames, format=fmt, **kw)
    back = ase.io.read(path, index=":", format=fmt)
    write_ref(path.rsplit(".", 1)[0] + ".ref.txt",
              [(np.asarray(a.cell) if a.pbc.any() else np.zeros((3, 3)), a.positions)
               for a in back])
    with open(path.rsplit(".", 1)[0] + ".species.txt", "w") as f:
        f.write("\n".join(back[0].get_chemical_symbols()) + "\n")

# ASE's cellpar_to_cell is already lower-triangular (a along x, b in xy).
write_xyz("ase_triclinic.extxyz",
          xyz_frames([cellpar_to_cell([14.0 + k, 15.0, 16.0, 85.0, 100.0, 75.0 + k])
                      for k in range(3)]))
# A general (rotated) cell: not lower-triangular, must be rotated by the reader.
def rotated(cell, seed):
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return np.asarray(cell) @ q.T
write_xyz("ase_rotated.extxyz",
          xyz_frames([rotated(cellpar_to_cell([13.0, 14.0, 15.0, 80.0, 95.0, 105.0]), 7 + k)
                      for k in range(2)]))
# Non-periodic: plain XYZ (no Lattice).
write_xyz("ase_plain.xyz", xyz_frames([np.zeros((3, 3))] * 2, pbc=False), fmt="xyz")
PYEOF

# ---- LAMMPS dump ------------------------------------------------------------------------------
# A 108-atom Lennard-Jones fcc crystal (units real: Angstrom), two atom types, a few NVE steps,
# in an orthogonal and a triclinic box. The dumps under test use LAMMPS's default formats and
# atom order; the reference is a second dump of the same steps, sorted by id, 12 digits.
for kind in ortho triclinic; do
  if [ "$kind" = ortho ]; then
    region="region box block 0 3 0 3 0 3"
  else
    region="region box prism 0 3 0 3 0 3 0.6 -0.45 0.3"
  fi
  cat > "$work/in.$kind" <<LMP
units real
atom_style atomic
boundary p p p
lattice fcc 5.4
$region
create_box 2 box
create_atoms 1 box
set type 1 type/fraction 2 0.3 4242
mass * 39.948
velocity all create 400.0 8675309 loop geom
pair_style lj/cut 8.0
pair_coeff * * 0.238 3.405
atom_modify sort 1 1.0
fix nve all nve
dump d_abs all custom 25 $out/lmp_$kind.lammpstrj id type x y z
dump d_scaled all custom 25 $out/lmp_${kind}_scaled.lammpstrj id type xs ys zs
dump d_ref all custom 25 $work/ref_$kind.txt id type x y z
dump_modify d_ref sort id format float %.12g
thermo 25
run 50
print "box \$(xlo:%.12g) \$(xhi:%.12g) \$(ylo:%.12g) \$(yhi:%.12g) \$(zlo:%.12g) \$(zhi:%.12g) \$(xy:%.12g) \$(xz:%.12g) \$(yz:%.12g)" file $out/lmp_${kind}.box.txt
LMP
  (cd "$work" && lmp -in "in.$kind" -log none -screen none)
  # Keep only coordinates from the reference dump: "frame K" then "id x y z" per atom.
  awk '/^ITEM: TIMESTEP/{getline; print "frame " $1; next}
       /^ITEM: ATOMS/{atoms=1; next} /^ITEM/{atoms=0; next}
       atoms{print $1, $3, $4, $5}' "$work/ref_$kind.txt" > "$out/lmp_$kind.ref.txt"
done

# ---- GROMACS index file -------------------------------------------------------------------------
# gmx make_ndx on the water sample: the default groups removed (they list every atom), then the
# oxygens ("OW") and the atoms of residues 1-3 ("r_1-3").
printf 'del 0-2\na OW\nr 1-3\nq\n' |
  (cd "$work" && gmx -quiet make_ndx -f "$root/data/spce_water.gro" -o "$out/spce_water.ndx" \
    >/dev/null 2>&1)

du -ch "$out"/* | tail -1
