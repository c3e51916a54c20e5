#!/usr/bin/env bash
# Regenerates the trajectory-reader test fixtures under data/fixtures/ with the real writers:
#   DCD           MDAnalysis   (Debian: python3-mdanalysis)
#   extended XYZ  ASE          (Debian: python3-ase)
#   LAMMPS dump   LAMMPS       (Debian: lammps, binary `lmp`)
#   index (.ndx)  GROMACS      (Debian: gromacs, `gmx make_ndx` on data/spce_water.gro)
#   H5MD          MDAnalysis's H5MDWriter (python3-mdanalysis, python3-h5py), plus one file
#                 written with h5py (fixed box, scalar step/time: layouts MDAnalysis never writes)
#   CADISHI HDF5  h5py, in the layout CADISHI's MDAnalysis-based conversion writes
#   XTC, TRR, PDB, GRO, G96  GROMACS (gmx trjconv on the water sample; small, the fuzzers' seeds),
#                 and a TRR mixing x, v and f records from a 4-step MD run of 10 waters
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

# ---- H5MD (MDAnalysis) and CADISHI's HDF5 input layout (h5py) ------------------------------
"$PY" - "$out" <<'PYEOF'
import sys, warnings
import numpy as np
warnings.filterwarnings("ignore")
import h5py
import MDAnalysis as mda
from MDAnalysis.lib.mdamath import triclinic_vectors

out = sys.argv[1]
rng = np.random.default_rng(20240611)

def write_ref(path, frames, extra=""):
    with open(path, "w") as f:
        f.write("# reference: per frame 'frame K', 'box' + 9 numbers (rows a b c, Angstrom), then "
                "one 'x y z' line per atom (Angstrom)" + extra + "\n")
        for k, (box, pos) in enumerate(frames):
            f.write("frame %d\n" % k)
            f.write("box " + " ".join(repr(float(v)) for v in np.asarray(box).ravel()) + "\n")
            for p in pos:
                f.write("%r %r %r\n" % (float(p[0]), float(p[1]), float(p[2])))

# H5MD by MDAnalysis: 60 atoms, a changing triclinic cell, Angstrom (the writer's default) and
# a box-less file in nm. The reference is what MDAnalysis reads back (Angstrom).
def make_h5md(name, dims_per_frame, lengthunit=None):
    n = 60
    u = mda.Universe.empty(n, trajectory=True)
    u.trajectory.units = {"time": "ps", "length": "Angstrom"}  # the in-memory data's units
    path = f"{out}/{name}.h5md"
    kw = {} if lengthunit is None else {"lengthunit": lengthunit}
    with mda.coordinates.H5MD.H5MDWriter(path, n_atoms=n, **kw) as w:
        for k, dims in enumerate(dims_per_frame):
            if dims is None:
                u.atoms.positions = (rng.random((n, 3)) * 25.0).astype(np.float32)
                u.dimensions = None
            else:
                box = triclinic_vectors(np.array(dims, dtype=np.float32))
                u.atoms.positions = (rng.random((n, 3)) @ box).astype(np.float32)
                u.dimensions = dims
            u.trajectory.ts.data["step"] = 100 * k
            u.trajectory.ts.time = 0.5 * k
            w.write(u.atoms)
    r = mda.Universe(path)
    frames = []
    for ts in r.trajectory:
        box = np.zeros((3, 3)) if ts.dimensions is None else triclinic_vectors(ts.dimensions)
        frames.append((box, ts.positions.copy()))
    write_ref(f"{out}/{name}.ref.txt", frames)

make_h5md("mda_h5md_triclinic", [[21.0 + k, 22.5, 24.25 - k, 80.0 + k, 95.0, 70.0 + 2 * k]
                                 for k in range(3)])
make_h5md("mda_h5md_nm", [None, None], lengthunit="nm")

# H5MD by hand: a fixed rectangular box (a 3-vector), float64 positions in nm, fixed-interval
# step and time (scalar datasets with an offset), fixed-length string attributes.
n = 40
pos = rng.random((2, n, 3)) * np.array([2.0, 2.5, 3.0])
with h5py.File(f"{out}/h5md_fixed_box.h5md", "w") as f:
    f.require_group("h5md").attrs["version"] = np.array([1, 1])
    g = f.require_group("particles/all")
    b = g.require_group("box")
    b.attrs["dimension"] = 3
    b.attrs["boundary"] = np.array([b"periodic"] * 3, dtype="S8")
    e = b.create_dataset("edges", data=np.array([2.0, 2.5, 3.0]))
    e.attrs["unit"] = np.bytes_("nm")
    p = g.require_group("position")
    v = p.create_dataset("value", data=pos)
    v.attrs["unit"] = np.bytes_("nm")
    st = p.create_dataset("step", data=np.int64(50))
    st.attrs["offset"] = np.int64(1000)
    t = p.create_dataset("time", data=np.float64(2.0))
    t.attrs["unit"] = np.bytes_("fs")
write_ref(f"{out}/h5md_fixed_box.ref.txt",
          [(np.diag([20.0, 25.0, 30.0]), pos[k] * 10.0) for k in range(2)],
          "; steps 1000 1050, times 0 0.002 ps")

# CADISHI input layout (what CADISHI's md2h5 / MDReader stores: per-species float64 Angstrom,
# MDAnalysis-style dimensions a, b, c, alpha, beta, gamma). Frame groups 1, 2, 10 so that
# numeric order differs from name order; species C, N, O; triclinic cells. The reference is the
# coordinates concatenated in sorted species order, and the box from MDAnalysis's
# triclinic_vectors of the same dimensions.
counts = {"O": 14, "C": 20, "N": 9}
frames = []
with h5py.File(f"{out}/cadishi_triclinic.h5", "w") as f:
    for k, number in enumerate([1, 2, 10]):
        dims = np.array([30.0 + k, 31.5, 33.0 - k, 85.0, 95.0 + k, 75.0], dtype=np.float64)
        box = triclinic_vectors(dims.astype(np.float32)).astype(np.float64)
        g = f.create_group(str(number))
        allpos = []
        for s in sorted(counts):
            xyz = rng.random((counts[s], 3)) @ box
            g.create_dataset(f"coordinates/{s}", data=xyz.astype(np.float64))
            allpos.append(xyz)
        g.create_dataset("dimensions", data=dims)
        frames.append((triclinic_vectors(dims), np.concatenate(allpos)))
write_ref(f"{out}/cadishi_triclinic.ref.txt", frames, "; species C=20 N=9 O=14")

# No box: frame 1 without a dimensions dataset, frame 2 with an empty one (CADISHI's "[]").
with h5py.File(f"{out}/cadishi_nobox.h5", "w") as f:
    frames = []
    for number in [1, 2]:
        g = f.create_group(str(number))
        allpos = []
        for s, c in [("Cl", 5), ("Na", 4)]:
            xyz = rng.random((c, 3)) * 12.0
            g.create_dataset(f"coordinates/{s}", data=xyz)
            allpos.append(xyz)
        if number == 2:
            g.create_dataset("dimensions", data=np.zeros((0,)))
        frames.append((np.zeros((3, 3)), np.concatenate(allpos)))
write_ref(f"{out}/cadishi_nobox.ref.txt", frames, "; species Cl=5 Na=4")
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

# ---- GROMACS trajectories and structure (seeds for the fuzzers, fuzz/harnesses.txt) -------------
# gmx trjconv on the water sample: residues 1-10 (30 atoms, compressed XTC) and residue 1 (3 atoms:
# XTC stores up to 9 atoms as plain floats) over the first frames. The .gro and .g96 hold the same
# 3 frames as the .xtc (multi-frame GRO and G96 trajectories: tests/test_gro_trajectory.cpp,
# tests/test_g96.cpp and tests/test_cli_gmx_inputs.cpp compare them); trjconv writes a G96
# trajectory's positions without names (POSITIONRED), one frame (-dump) with them (POSITION):
# gmx_water30_conf.g96 is the XTC's frame 0 as a structure.
printf 'keep 0\nr 1-10\nr 1\nq\n' |
  (cd "$work" && gmx -quiet make_ndx -f "$root/data/spce_water.gro" -o small.ndx >/dev/null 2>&1)
for ext in xtc trr pdb gro g96; do
  echo 1 | gmx -quiet trjconv -f "$root/data/spce_water.xtc" -s "$root/data/spce_water.gro" \
    -n "$work/small.ndx" -e 0.6 -o "$out/gmx_water30.$ext" >/dev/null 2>&1
done
echo 1 | gmx -quiet trjconv -f "$root/data/spce_water.xtc" -s "$root/data/spce_water.gro" \
  -n "$work/small.ndx" -dump 0 -o "$out/gmx_water30_conf.g96" >/dev/null 2>&1
# A triclinic box (GROMACS's 9 numbers in G96's BOX): atoms 1-30 of the rhombic dodecahedron sample.
printf 'keep 0\na 1-30\nq\n' |
  (cd "$work" && gmx -quiet make_ndx -f "$root/data/nacl_dodecahedron.gro" -o nacl30.ndx \
    >/dev/null 2>&1)
echo 1 | gmx -quiet trjconv -f "$root/data/nacl_dodecahedron.xtc" \
  -s "$root/data/nacl_dodecahedron.gro" -n "$work/nacl30.ndx" -e 1.0 \
  -o "$out/gmx_nacl30_dodecahedron.g96" >/dev/null 2>&1
echo 2 | gmx -quiet trjconv -f "$root/data/spce_water.xtc" -s "$root/data/spce_water.gro" \
  -n "$work/small.ndx" -e 0.3 -o "$out/gmx_water3.xtc" >/dev/null 2>&1

# ---- A TRR that mixes blocks, as GROMACS's MD engine writes it ---------------------------------
# 4 MD steps of the 10 waters above (x every 2 steps, v every step, f every 4): records 1 and 3 hold
# only the box and v. Made here once because the tests must not run an MD engine (Debian's GROMACS
# aborts on CPUs without rdtscp).
cat >"$work/md.mdp" <<'MDP'
integrator = md
dt = 0.002
nsteps = 4
nstxout = 2
nstvout = 1
nstfout = 4
nstenergy = 0
nstlog = 0
cutoff-scheme = Verlet
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
constraints = h-bonds
gen-vel = yes
gen-seed = 7
MDP
{ cat "$root/data/sample-inputs/topol.top"; printf '\nSOL 10\n'; } >"$work/topol.top"
(cd "$work" && gmx -quiet grompp -f md.mdp -c "$out/gmx_water30.gro" -p topol.top -o md.tpr \
  -maxwarn 5 >grompp.log 2>&1 &&
  gmx -quiet mdrun -s md.tpr -deffnm md -nt 1 -pin off >md.log 2>&1)
cp "$work/md.trr" "$out/gmx_md_mixed.trr"

du -ch "$out"/* | tail -1
