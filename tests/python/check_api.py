"""pairhist's Python functions: histograms() (C kernel API), Engine (task library) and run()
(the `pairhist run` job) give the same counts bit for bit on the same inputs, and equal the
command's own output; known answers on a crystal; any strides and both dtypes; bad arguments
raise ValueError/TypeError with a message. Usage: check_api.py DATA_DIR PAIRHIST_BINARY WORKDIR"""

import os
import subprocess
import sys
import threading
import warnings

import numpy as np

import pairhist
from check_support import check, failures, refused

data, binary, work = sys.argv[1], sys.argv[2], sys.argv[3]


# A checkerboard crystal (capi_example's): every atom has 6 neighbours at r = 1, of the other
# species; 4x4x4 sites in a periodic box of side 4.
sites = np.array([(x, y, z) for x in range(4) for y in range(4) for z in range(4)], dtype=float)
black, white = sites[sites.sum(1) % 2 == 0], sites[sites.sum(1) % 2 == 1]
h = pairhist.histograms({"black": black, "white": white}, np.eye(3) * 4, r_max=2.0, n_bins=20)
check("crystal: keys", list(h) == [("black", "black"), ("black", "white"), ("white", "white")])
check("crystal: 6 neighbours per atom at r = 1", h[("black", "white")][10] == 32 * 6 and
      h[("black", "black")][10] == 0 and h[("black", "white")].dtype == np.uint64)
h6 = pairhist.histograms([black, white], [4, 4, 4, 90, 90, 90], r_max=2.0, n_bins=20)
check("box as [a, b, c, alpha, beta, gamma] = 3x3", all(
    np.array_equal(a, b) for a, b in zip(h.values(), h6.values())))

# Random frames: histograms() in both precisions and algorithms, float32/float64, strides.
rng = np.random.default_rng(5)
box = np.array([[3.1, 0, 0], [0, 2.9, 0], [0, 0, 3.3]])
tric = np.array([[3.2, 0, 0], [0, 3.2, 0], [1.6, 1.6, 2.26274]])  # rhombic dodecahedron
# float32: the task library's input (float64 would be rounded by Engine, not in double by
# histograms(): different inputs).
frames = [[(rng.random((1500, 3)) * 3.2).astype(np.float32),
           (rng.random((700, 3)) * 3.2).astype(np.float32)] for _ in range(3)]
for precision in ("single", "double"):
    for b, label in ((box, "orthorhombic"), (tric, "triclinic")):
        per_frame = [pairhist.histograms(f, b, r_max=1.4, n_bins=70, precision=precision,
                                         algorithm="all-pairs") for f in frames]
        cells = [pairhist.histograms(f, b, r_max=1.4, n_bins=70, precision=precision,
                                     algorithm="cell-list", threads=2) for f in frames]
        check(f"{label} {precision}: cell lists = all pairs", all(
            np.array_equal(p[k], c[k]) for p, c in zip(per_frame, cells) for k in p))
        with pairhist.Engine([1500, 700], r_max=1.4, n_bins=70, precision=precision,
                             ncpu=2) as engine:
            for f in frames:
                engine.submit(f, b)
            summed = engine.finish()
        check(f"{label} {precision}: Engine (StarPU tasks) = histograms() summed, bit for bit",
              all(np.array_equal(summed[k], sum(p[k] for p in per_frame)) for k in summed))
f32 = frames[0]
f = [a.astype(np.float64) for a in f32]  # exact: single precision rounds them back
strided = [np.asfortranarray(a)[::-1][::-1] for a in f32]
wide = [np.repeat(a, 2, axis=0)[::2] for a in f32]
base = pairhist.histograms(f32, box, r_max=1.4, n_bins=70)
check("any strides: Fortran order and every-other-row views", all(
    np.array_equal(base[k], pairhist.histograms(v, box, r_max=1.4, n_bins=70)[k])
    for v in (strided, wide) for k in base))
check("float64 coordinates in single precision = their float32 rounding", all(
    np.array_equal(base[k], pairhist.histograms(f, box, r_max=1.4, n_bins=70)[k]) for k in base))

# The GIL is released while the kernels run: another thread gets work done meanwhile.
ticks = []
stop = threading.Event()


def count_ticks():
    while not stop.is_set():
        ticks.append(1)


big = [rng.random((20000, 3)) * 3.2]
thread = threading.Thread(target=count_ticks)
thread.start()
pairhist.histograms(big, box, r_max=1.4, n_bins=70, algorithm="all-pairs", threads=1)
stop.set()
thread.join()
check("GIL released during histograms()", len(ticks) > 1000, f"({len(ticks)} ticks)")

# Engine with atom index lists on whole frames = Engine with species arrays.
whole = np.concatenate(f32)
with pairhist.Engine({"A": 1500, "B": 700}, r_max=1.4, n_bins=70, ncpu=2,
                     atoms={"A": np.arange(1500), "B": np.arange(1500, 2200)}) as engine:
    engine.submit(whole, box)
    engine.submit(whole, box)
    first = engine.take()
    engine.submit(whole, box)
    second = engine.finish()
    info = engine.info()
check("Engine(atoms=...): take() = 2 frames, finish() = the rest",
      all(np.array_equal(first[(a, b)], 2 * base[(i, j)]) and
          np.array_equal(second[(a, b)], base[(i, j)])
          for (a, b), (i, j) in zip(first, base)))
check("Engine.info(): workers, pairs and no notes",
      info["cpu_workers"] == 2 and len(info["pairs"]) == 3 and info["notes"] == [])

# Engine(pairs=...): only the pairs asked for, each equal to the full engine's.
full = {}
with pairhist.Engine({"A": 1500, "B": 700}, r_max=1.4, n_bins=70, ncpu=2) as e:
    for f in frames:
        e.submit({"A": f[0], "B": f[1]}, box)
    full = e.finish()
for algorithm in ("all-pairs", "cell-list"):
    with pairhist.Engine({"A": 1500, "B": 700}, r_max=1.4, n_bins=70, ncpu=2,
                         algorithm=algorithm, pairs=[("B", "A")]) as e:
        for f in frames:
            e.submit({"A": f[0], "B": f[1]}, box)
        cross = e.finish()
    check(f"Engine(pairs=[(B, A)]), {algorithm}: only A-B, equal to the full engine's",
          list(cross) == [("A", "B")] and np.array_equal(cross[("A", "B")], full[("A", "B")]))
# r_max beyond half the box: every periodic image counted. The checkerboard crystal as an
# infinite lattice: per black atom 30 white atoms at r = 3 ((3,0,0) x 6, (2,2,1) x 24), 6 black
# ones at r = 2 and 12 at sqrt(8) (each black-black pair once).
for algorithm in ("all-pairs", "cell-list"):
    with pairhist.Engine({"black": 32, "white": 32}, r_max=3.5, n_bins=35, ncpu=2,
                         algorithm=algorithm) as e:
        e.submit({"black": black, "white": white}, np.eye(3) * 4)
        lattice = e.finish()
        images = e.info()["periodic_images"]
    check(f"Engine, r_max beyond half the box ({algorithm}): every image of the crystal",
          images and lattice[("black", "white")][30] == 32 * 30 and
          lattice[("black", "white")][10] == 32 * 6 and lattice[("black", "black")][20] == 96 and
          lattice[("black", "black")][28] == 192)
refused("Engine(pairs=...) naming no species", lambda: pairhist.Engine(
    {"A": 1, "B": 1}, r_max=1.0, n_bins=10, pairs=[("A", "C")]), ValueError)

# run() = `pairhist run` on the sample, bit for bit (its rdf.csv counts).
args = dict(top=f"{data}/spce_water.gro", species={"O": "OW", "H": "HW1,HW2"}, rmax=1.2,
            nbins=240, last=20, ncpu=2)
result = pairhist.run(f"{data}/spce_water.xtc", **args)
out = os.path.join(work, "cli-run")
subprocess.run([binary, "run", f"{data}/spce_water.xtc", "--top", args["top"], "--species",
                "O=OW", "--species", "H=HW1,HW2", "--rmax", "1.2", "--nbins", "240", "--last",
                "20", "--ncpu", "2", "-q", "--overwrite", "-o", out], check=True)
with open(os.path.join(out, "rdf.csv")) as fh:
    lines = [line for line in fh if not line.startswith("#")]
header = lines[0].strip().split(",")
table = np.loadtxt(lines[1:], delimiter=",")
column = {name: table[:, k] for k, name in enumerate(header)}
check("run() counts = `pairhist run` rdf.csv counts", all(
    np.array_equal(result["counts"][(a, b)], column[f"count_{a}-{b}"].astype(np.uint64))
    for a, b in result["counts"]))
check("run() g(r) = rdf.csv g(r) (printed digits)", all(
    np.allclose(result["rdf"][(a, b)], column[f"g_{a}-{b}"], rtol=1e-5, atol=1e-9)
    for a, b in result["rdf"]))
check("run(): frames, units, r", len(result["frames"]) == 21 and result["units"] == "nm" and
      np.allclose(result["r"], (np.arange(240) + 0.5) * 0.005))
config = os.path.join(work, "run.yaml")
with open(config, "w") as fh:
    fh.write(f"trajectory: {data}/spce_water.xtc\ntop: {data}/spce_water.gro\n"
             f"species: {{O: OW}}\nrmax: 1.2\nnbins: 240\nlast: 20\noutput: ignored\n")
from_config = pairhist.run(config=config, nbins=120, ncpu=2)
check("run(config=...): the file's settings, arguments win", from_config["nbins"] == 120 and
      list(from_config["counts"]) == [("O", "O")])

# run() takes what `pairhist run` takes since issue 25: pairs (only those counted, each equal to
# the full run's), no rmax and nbins (the boxes' limit, 0.002 nm bins), bin, a .tpr's exclusions.
only = pairhist.run(f"{data}/spce_water.xtc", pairs=[("H", "O")], **args)
check("run(pairs=[(H, O)]): only O-H, equal to the full run's",
      list(only["counts"]) == [("O", "H")] and
      np.array_equal(only["counts"][("O", "H")], result["counts"][("O", "H")]))
bare = {k: v for k, v in args.items() if k not in ("rmax", "nbins")}
limit = pairhist.run(f"{data}/spce_water.xtc", **bare)
out_limit = os.path.join(work, "cli-limit")
subprocess.run([binary, "run", f"{data}/spce_water.xtc", "--top", args["top"], "--species",
                "O=OW", "--species", "H=HW1,HW2", "--last", "20", "--ncpu", "2", "-q",
                "--overwrite", "-o", out_limit], check=True)
cli_limit = pairhist.read_run(out_limit)
check("run() without rmax and nbins = `pairhist run` without them (r_max, bins, counts)",
      limit["r_max"] == cli_limit["r_max"] and limit["nbins"] == cli_limit["nbins"] and
      abs(limit["r_max"] / limit["nbins"] - 0.002) < 1e-12 and
      all(np.array_equal(limit["counts"][k], cli_limit["counts"][k]) for k in limit["counts"]),
      f"(r_max {limit['r_max']}, {limit['nbins']} bins)")
wide = pairhist.run(f"{data}/spce_water.xtc", bin=0.01, **bare)
check("run(bin=0.01): bins 0.01 wide up to the boxes' limit",
      abs(wide["r_max"] / wide["nbins"] - 0.01) < 1e-12 and wide["r_max"] <= limit["r_max"])
refused("run() with nbins and bin", lambda: pairhist.run(
    f"{data}/spce_water.xtc", bin=0.01, nbins=10, **bare), ValueError)
tpr = dict(top=f"{data}/fixtures/gmx_nacl.tpr", species={"O": "OW", "H": "HW1,HW2"}, rmax=0.5,
           nbins=50, last=5, ncpu=2)
kept = pairhist.run(f"{data}/nacl_dodecahedron.xtc", **tpr)
left = pairhist.run(f"{data}/nacl_dodecahedron.xtc", exclude="topology", **tpr)
# SPC/E: each water's O-H and H-H pairs are excluded, all nearer than 0.2 nm.
check("run(top=.tpr, exclude='topology'): the water's own pairs left out",
      int(kept["counts"][("O", "H")].sum() - left["counts"][("O", "H")].sum()) == 724 * 2 * 6 and
      int(kept["counts"][("H", "H")].sum() - left["counts"][("H", "H")].sum()) == 724 * 6)

# Per-frame species counts where they vary: a sphere run's and a dynamic species', from run()
# and, read back from what `pairhist run` wrote, from read_run().
fixed = pairhist.read_run(out)
check("read_run() = run(): counts, g(r), frames; fixed sizes have no per-frame counts",
      all(np.array_equal(fixed["counts"][k], result["counts"][k]) and
          np.array_equal(fixed["rdf"][k], result["rdf"][k]) for k in result["counts"]) and
      np.array_equal(fixed["frames"], result["frames"]) and fixed["complete"] and
      fixed["frame_species_counts"] is None and result["frame_species_counts"] is None and
      fixed["frame_pairs"] is None and result["sphere"] is None)
for label, extra, cli in (
        ("sphere", dict(sphere="resid 1-5,0.8", nbins=160),
         ["--sphere", "resid 1-5,0.8", "--nbins", "160"]),
        ("dynamic", dict(species={"O": "OW", "N": "name OW and within 0.5 of resid 1"},
                         rmax=1.0, nbins=100),
         ["--species", "O=OW", "--species", "N=name OW and within 0.5 of resid 1", "--rmax", "1.0",
          "--nbins", "100"])):
    # The sphere's rmax is 2R by default, as the command's.
    kwargs = {k: v for k, v in args.items() if not (label == "sphere" and k == "rmax")}
    kwargs.update(extra)
    mine = pairhist.run(f"{data}/spce_water.xtc", **kwargs)
    out_dir = os.path.join(work, "cli-" + label)
    species_args = [] if label == "dynamic" else ["--species", "O=OW", "--species", "H=HW1,HW2"]
    subprocess.run([binary, "run", f"{data}/spce_water.xtc", "--top", args["top"]] + species_args +
                   cli + ["--last", "20", "--ncpu", "2", "-q", "--overwrite", "-o", out_dir],
                   check=True)
    theirs = pairhist.read_run(out_dir)
    sizes = mine["frame_species_counts"]
    check(f"{label}: run() has one count per frame and species, varying",
          sizes is not None and list(sizes) == list(mine["species"]) and
          all(len(v) == 21 and v.dtype == np.int64 for v in sizes.values()) and
          any(len(set(v.tolist())) > 1 for v in sizes.values()) and
          all((v <= mine["species"][name]).all() for name, v in sizes.items()))
    check(f"{label}: read_run() of `pairhist run`'s file = run()",
          theirs["frame_species_counts"] is not None and
          all(np.array_equal(theirs["frame_species_counts"][n], v) for n, v in sizes.items()) and
          all(np.array_equal(theirs["counts"][k], mine["counts"][k]) for k in mine["counts"]))
    if label == "sphere":
        check("sphere: run() and read_run() say how the sphere was made, no per-frame pairs",
              mine["sphere"] == theirs["sphere"] == "resid 1-5,0.8" and
              mine["sphere_centre"] == theirs["sphere_centre"] == "geometry" and
              mine["frame_pairs"] is None and theirs["frame_pairs"] is None and
              mine["r_max"] == 1.6)
    else:
        check("dynamic: per-frame pairs of every pair, the same in run() and read_run()",
              mine["frame_pairs"] is not None and list(mine["frame_pairs"]) == list(mine["counts"])
              and all(np.array_equal(theirs["frame_pairs"][k], v)
                      for k, v in mine["frame_pairs"].items()) and mine["sphere"] is None)
refused("read_run() of a file that is no run", lambda: pairhist.read_run(config), ValueError)
# A file without a checksum (written before pairhist wrote one) is read with a warning; a file
# whose contents no longer match its checksum is refused, as `pairhist scattering` refuses it.
# Edited as bytes (no h5py here): the attribute's name, then a hex digit of its value.
with open(os.path.join(out, "pairhist.h5"), "rb") as f:
    good_bytes = f.read()
check("pairhist.h5 names its checksum once", good_bytes.count(b"checksum") == 1 and
      good_bytes.count(b"crc32:") == 1)
old_file = os.path.join(work, "old-pairhist.h5")
with open(old_file, "wb") as f:
    f.write(good_bytes.replace(b"checksum", b"checksuX"))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = pairhist.read_run(old_file)
check("read_run() of a file without a checksum: read, with a warning saying so",
      any("has no checksum" in str(w.message) for w in caught) and "notes" not in old and
      all(np.array_equal(old["counts"][k], fixed["counts"][k]) for k in fixed["counts"]))
at = good_bytes.index(b"crc32:") + 6
digit = b"1" if good_bytes[at:at + 1] != b"1" else b"2"
with open(old_file, "wb") as f:
    f.write(good_bytes[:at] + digit + good_bytes[at + 1:])
refused("read_run() of a file whose checksum does not match", lambda: pairhist.read_run(old_file),
        ValueError)

refused("histograms() of int coordinates", lambda: pairhist.histograms(
    [np.zeros((4, 3), dtype=int)], None, r_max=1.0, n_bins=10), TypeError)
refused("histograms() of shape (4, 2)", lambda: pairhist.histograms(
    [np.zeros((4, 2))], None, r_max=1.0, n_bins=10), ValueError)
refused("histograms() with r_max 0", lambda: pairhist.histograms(
    [black], None, r_max=0, n_bins=10), ValueError)
refused("histograms() with a 2x2 box", lambda: pairhist.histograms(
    [black], np.eye(2), r_max=1.0, n_bins=10), ValueError)
refused("histograms() with an upper-triangular box", lambda: pairhist.histograms(
    [black], [[4, 1, 0], [0, 4, 0], [0, 0, 4]], r_max=1.0, n_bins=10), ValueError)
refused("histograms() beyond the triclinic minimum-image limit", lambda: pairhist.histograms(
    [black], tric, r_max=1.7, n_bins=10), ValueError)
refused("histograms() on device 'tpu'", lambda: pairhist.histograms(
    [black], None, r_max=1.0, n_bins=10, device="tpu"), ValueError)
if pairhist.gpu_count() == 0:
    refused("histograms() on a GPU without one", lambda: pairhist.histograms(
        [black], None, r_max=1.0, n_bins=10, device="gpu"), ValueError)
refused("Engine.submit() of the wrong size", lambda: pairhist.Engine(
    [5], r_max=1.0, n_bins=10, ncpu=1).submit([black], None), ValueError)
refused("Engine.submit() of a NaN coordinate", lambda: pairhist.Engine(
    [1], r_max=1.0, n_bins=10, ncpu=1).submit([np.array([[np.nan, 0, 0]])], None), ValueError)
# A CHARMM PSF + DCD, a cpptraj mask and a fixed point as species: run() = `pairhist run`.
charmm = f"{data}/fixtures/charmm/tip125_tric_C36"
point_args = dict(top=f"{charmm}.psf", species={"C": "point centre", "O": ":TIP3@OH2"},
                  rmax=0.8, nbins=80, ncpu=2)
mine = pairhist.run(f"{charmm}.dcd", **point_args)
out_point = os.path.join(work, "cli-point")
subprocess.run([binary, "run", f"{charmm}.dcd", "--top", f"{charmm}.psf", "--species",
                "C=point centre", "--species", "O=:TIP3@OH2", "--rmax", "0.8", "--nbins", "80",
                "--ncpu", "2", "-q", "--overwrite", "-o", out_point], check=True)
cli_point = pairhist.read_run(out_point)
check("run() of a PSF + DCD with a 'point centre' species = `pairhist run`",
      all(np.array_equal(mine["counts"][k], cli_point["counts"][k]) for k in mine["counts"]) and
      mine["counts"][("C", "O")].sum() > 0)

refused("run() of a missing file", lambda: pairhist.run("/nonexistent.xtc", top=args["top"],
                                                         species={"O": "OW"}, rmax=1, nbins=10),
        ValueError)
refused("run() with an unknown argument", lambda: pairhist.run(
    f"{data}/spce_water.xtc", bogus=1), TypeError)
refused("run() with a selection matching nothing", lambda: pairhist.run(
    f"{data}/spce_water.xtc", top=args["top"], species={"X": "NOPE"}, rmax=1, nbins=10,
    ncpu=1), ValueError)
refused("run() with norm 'bogus'", lambda: pairhist.run(
    f"{data}/spce_water.xtc", top=args["top"], species={"O": "OW"}, rmax=1, nbins=10,
    norm="bogus"), ValueError)

sys.exit(1 if failures else 0)
