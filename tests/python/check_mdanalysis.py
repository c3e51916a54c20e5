"""pairhist.mdanalysis.InterRDF / InterRDF_s against MDAnalysis's own classes on the bundled
water sample (orthorhombic, NPT) and the NaCl solution in a rhombic dodecahedron (triclinic):
every norm, a group against itself and two groups, exclusion_block, exclude_same, range[0] > 0.
Counts may differ where a pair lies within rounding of a bin edge (MDAnalysis wraps coordinates
into the box in float32): at most a few per million of a bin's counts (docs/python.md). Also:
the drop-in's counts equal the C kernel API's (pairhist.histograms) on the same coordinates bit
for bit. Usage: check_mdanalysis.py DATA_DIR"""

import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore", category=DeprecationWarning)
import MDAnalysis as mda  # noqa: E402
from MDAnalysis.analysis import rdf as mda_rdf  # noqa: E402
from MDAnalysis.lib.mdamath import triclinic_vectors  # noqa: E402

import pairhist  # noqa: E402
from pairhist import mdanalysis as ph_rdf  # noqa: E402

data = sys.argv[1]
failures = []
# MDAnalysis wraps coordinates into the box in float32, which moves a pair within ~1e-6 A of a bin
# edge into the neighbouring bin: on these samples about 1e-5 of the pairs (docs/python.md).
MOVED_TOLERANCE, TOTAL_TOLERANCE = 5e-5, 1e-6


def check(name, condition, detail=""):
    print(f"{'ok  ' if condition else 'FAIL'} {name} {detail}")
    if not condition:
        failures.append(name)


def compare(name, ours, theirs, norm):
    """Same edges; the same pairs counted in all (totals within 1e-6); pairs in another bin than
    MDAnalysis's at most MOVED_TOLERANCE of them, each at most one bin over (the running sums
    differ by no more than that); the normalised curves as the counts."""
    c_ours, c_theirs = ours.results.count, theirs.results.count
    check(f"{name}: edges", np.array_equal(ours.results.edges, theirs.results.edges))
    check(f"{name}: bins", np.array_equal(ours.results.bins, theirs.results.bins))
    total = max(c_theirs.sum(), 1.0)
    total_rel = abs(c_ours.sum() - c_theirs.sum()) / total
    moved = np.abs(c_ours - c_theirs).sum() / 2 / total
    running = np.abs(np.cumsum(c_ours) - np.cumsum(c_theirs)).max() / total
    check(f"{name}: counts", total_rel <= TOTAL_TOLERANCE and moved <= MOVED_TOLERANCE and
          running <= MOVED_TOLERANCE,
          f"(total differs by {total_rel:.1e}; {moved:.1e} of the pairs in a neighbouring bin, "
          f"{int(np.count_nonzero(c_ours != c_theirs))} of {c_ours.size} bins differ)")
    nonzero = c_theirs > 0
    expected = c_ours[nonzero] / c_theirs[nonzero]
    ratio = ours.results.rdf[nonzero] / theirs.results.rdf[nonzero]
    check(f"{name}: {norm} = counts x MDAnalysis's normalisation",
          np.allclose(ratio, expected, rtol=1e-12, atol=0))


def both(u, sel1, sel2, frames, **kwargs):
    g1, g2 = u.select_atoms(sel1), u.select_atoms(sel2)
    theirs = mda_rdf.InterRDF(g1, g2, **kwargs).run(frames=frames)
    ours = ph_rdf.InterRDF(g1, g2, ncpu=2, **kwargs).run(frames=frames)
    return ours, theirs


water = mda.Universe(f"{data}/spce_water.gro", f"{data}/spce_water.xtc")
frames = list(range(0, 101, 10))  # 11 of the 101 frames, through run(frames=...)
for norm in ("rdf", "density", "none"):
    ours, theirs = both(water, "name OW", "name OW", frames, nbins=120, range=(0.0, 12.0),
                        norm=norm)
    compare(f"water O-O norm={norm}", ours, theirs, norm)
ours, theirs = both(water, "name OW", "name OW", frames, nbins=120, range=(0.0, 12.0),
                    exclusion_block=(1, 1))
compare("water O-O exclusion_block=(1, 1)", ours, theirs, "rdf")
ours, theirs = both(water, "name OW", "name HW1 HW2", frames, nbins=100, range=(0.0, 10.0),
                    exclusion_block=(1, 2))
compare("water O-H exclusion_block=(1, 2)", ours, theirs, "rdf")
ours_block = ours.results.count
ours_same = ph_rdf.InterRDF(water.select_atoms("name OW"), water.select_atoms("name HW1 HW2"),
                            nbins=100, range=(0.0, 10.0), exclude_same="residue",
                            ncpu=2).run(frames=frames)
check("water O-H exclude_same='residue' counts = exclusion_block=(1, 2) counts",
      np.array_equal(ours_same.results.count, ours_block))
ours, theirs = both(water, "all", "name OW", frames, nbins=75, range=(2.0, 12.0), norm="none")
compare("water all-O (overlapping groups) range=(2, 12)", ours, theirs, "none")

# run(start, stop, step) as MDAnalysis's AnalysisBase takes them.
g = water.select_atoms("name OW")
theirs = mda_rdf.InterRDF(g, g, nbins=50, range=(0.0, 10.0)).run(start=5, stop=60, step=7)
ours = ph_rdf.InterRDF(g, g, nbins=50, range=(0.0, 10.0), ncpu=2).run(start=5, stop=60, step=7)
check("run(start, stop, step): frames", np.array_equal(ours.frames, theirs.frames) and
      ours.n_frames == theirs.n_frames)
compare("water O-O run(start=5, stop=60, step=7)", ours, theirs, "rdf")

# Triclinic: the NaCl solution in a rhombic dodecahedron.
nacl = mda.Universe(f"{data}/nacl_dodecahedron.gro", f"{data}/nacl_dodecahedron.xtc")
tric_frames = list(range(0, 61, 12))
for norm in ("rdf", "none"):
    ours, theirs = both(nacl, "name OW", "name OW", tric_frames, nbins=120, range=(0.0, 12.0),
                        norm=norm)
    compare(f"dodecahedron O-O norm={norm}", ours, theirs, norm)
ours, theirs = both(nacl, "name NA", "name OW", tric_frames, nbins=80, range=(0.0, 8.0))
compare("dodecahedron Na-O", ours, theirs, "rdf")

# InterRDF_s: site-specific, against MDAnalysis's.
na = nacl.select_atoms("name NA")[:2]
cl = nacl.select_atoms("name CL")[:3]
ow = nacl.select_atoms("name OW")[:40]
ags = [[na, ow], [cl, ow]]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    theirs = mda_rdf.InterRDF_s(nacl, ags, nbins=60, range=(0.0, 12.0)).run(frames=tric_frames)
    ours = ph_rdf.InterRDF_s(nacl, ags, nbins=60, range=(0.0, 12.0)).run(frames=tric_frames)
for k in range(2):
    diff = np.abs(ours.results.count[k] - theirs.results.count[k]).sum()
    check(f"InterRDF_s group pair {k}: counts", diff == 0, f"({int(diff)} pairs in another bin)")
    check(f"InterRDF_s group pair {k}: rdf",
          np.allclose(ours.results.rdf[k], theirs.results.rdf[k], rtol=1e-12, atol=0))
check("InterRDF_s cdf", all(np.allclose(a, b) for a, b in
                            zip(ours.get_cdf(), theirs.get_cdf())))

# Bit for bit: the drop-in (task library) equals the C kernel API on the same coordinates.
g = nacl.select_atoms("name OW")
ours = ph_rdf.InterRDF(g, g, nbins=120, range=(0.0, 12.0), norm="none", exclusion_block=(1, 1),
                       ncpu=2).run(frames=tric_frames)
total = np.zeros(120, dtype=np.uint64)
for ts in nacl.trajectory[tric_frames]:
    h = pairhist.histograms([g.positions], triclinic_vectors(ts.dimensions), r_max=12.0,
                            n_bins=120, precision="double")
    total += h[(0, 0)]
check("InterRDF (StarPU tasks) = histograms() (C API), bit for bit",
      np.array_equal(ours.results.count, 2 * total.astype(np.float64)))

# Exact (REFERENCE.md, section 9): the drop-in's counts equal a float64 brute force over the same
# float32 positions and box vectors, every pair's minimum image searched over 27 images.
def brute_force(x, box, nbins, r_max):
    box = box.astype(np.float64)
    d = x.astype(np.float64)[None, :, :] - x.astype(np.float64)[:, None, :]
    for axis in (2, 1, 0):  # reduce into the brick, c then b then a
        d -= np.round(d[..., axis] / box[axis, axis])[..., None] * box[axis]
    best = np.full(d.shape[:2], np.inf)
    for shift in np.array(np.meshgrid([-1, 0, 1], [-1, 0, 1], [-1, 0, 1])).T.reshape(-1, 3):
        best = np.minimum(best, np.sqrt(((d + shift @ box) ** 2).sum(-1)))
    return np.histogram(best[~np.eye(len(x), dtype=bool)], bins=nbins, range=(0.0, r_max))[0]


for universe, label in ((water, "water (orthorhombic)"), (nacl, "dodecahedron (triclinic)")):
    g = universe.select_atoms("name OW")[:600]
    ours = ph_rdf.InterRDF(g, g, nbins=120, range=(0.0, 12.0), norm="none",
                           exclusion_block=(1, 1), ncpu=2).run(frames=[0, 7])
    reference = sum(brute_force(g.positions, triclinic_vectors(ts.dimensions), 120, 12.0)
                    for ts in universe.trajectory[[0, 7]])
    check(f"{label}: counts = float64 brute force, bit for bit",
          np.array_equal(ours.results.count, reference.astype(np.float64)))

# MDAnalysis's argument errors, and ours.
# A range from an r_min off the bin edges of the bins from 0 (MDAnalysis's test_range): the
# engine bins from r_min.
ours, theirs = both(water, "name OW", "name OW", frames, nbins=75, range=(1.0, 12.0))
compare("water O-O range=(1.0, 12.0)", ours, theirs, "rdf")

for bad, expected in ((dict(norm="bogus"), ValueError), (dict(range=(-1.0, 12.0)), ValueError),
                      (dict(exclude_same="molecule"), ValueError),
                      (dict(exclude_same="residue", exclusion_block=(1, 1)), ValueError)):
    try:
        ph_rdf.InterRDF(g, g, **bad)
        check(f"InterRDF({bad}) refused", False)
    except expected as e:
        check(f"InterRDF({bad}) refused", True, f"({e})")

# UpdatingAtomGroups: InterRDF counts each frame's atoms as MDAnalysis does (one group against
# itself, against a fixed one, two updating ones), triclinic and orthorhombic; what needs fixed
# atoms is refused with one line, never frozen at the first frame.
for universe, sel, label, picked in (
        (nacl, "name OW and around 4.0 name NA", "dodecahedron", tric_frames),
        (water, "name OW and around 3.0 (resid 1-40 and name OW)", "water", frames)):
    updating = universe.select_atoms(sel, updating=True)
    fixed = universe.select_atoms("name OW")
    other = universe.select_atoms(sel.replace(" and around", " and not around"), updating=True)
    sizes = {len(updating) for ts in universe.trajectory[picked]}
    check(f"{label}: the updating group changes size over the frames", len(sizes) > 1, f"{sizes}")
    for pair_label, (g1, g2) in (("itself", (updating, updating)), ("fixed", (updating, fixed)),
                                 ("two updating", (other, updating))):
        for norm in ("rdf", "none"):
            theirs = mda_rdf.InterRDF(g1, g2, nbins=60, range=(0.0, 6.0), norm=norm).run(
                frames=picked)
            ours = ph_rdf.InterRDF(g1, g2, nbins=60, range=(0.0, 6.0), norm=norm, ncpu=2).run(
                frames=picked)
            compare(f"{label} updating with {pair_label} norm={norm}", ours, theirs, norm)
g = water.select_atoms("name OW")
updating = water.select_atoms("name OW and around 3.5 name OW", updating=True)
for label, make in (("InterRDF exclusion_block", lambda: ph_rdf.InterRDF(
                        updating, g, exclusion_block=(1, 1))),
                    ("InterRDF_s", lambda: ph_rdf.InterRDF_s(g.universe, [[updating, g]]))):
    try:
        make()
        check(f"{label} with an UpdatingAtomGroup refused", False)
    except ValueError as e:
        check(f"{label} with an UpdatingAtomGroup refused", "UpdatingAtomGroup" in str(e), f"({e})")

# The half-box rule is pairhist run's, for every box kind: range[1] beyond half the shortest
# lattice vector of a frame's box is refused with the frame and the limit (MDAnalysis runs on:
# its minimum-image count misses pairs there). The water's NPT box: 30 A at frame 0, 29.97 A at
# frame 1; the dodecahedron's limit is 16 A. Up to the limit both run.
o_water, o_nacl, na = (water.select_atoms("name OW"), nacl.select_atoms("name OW"),
                       nacl.select_atoms("name NA"))
for label, make, frames_run in (
        ("water InterRDF range=(0, 15)", lambda: ph_rdf.InterRDF(o_water, o_water, nbins=50,
                                                                 range=(0.0, 15.0), ncpu=2), 2),
        ("water InterRDF, updating", lambda: ph_rdf.InterRDF(
            water.select_atoms("name OW and around 3.0 resid 1", updating=True), o_water,
            nbins=50, range=(0.0, 15.0), ncpu=2), 2),
        ("dodecahedron InterRDF range=(0, 16.5)", lambda: ph_rdf.InterRDF(
            na, o_nacl, nbins=50, range=(0.0, 16.5), ncpu=2), 1),
        ("water InterRDF_s range=(0, 15)", lambda: ph_rdf.InterRDF_s(
            water, [[o_water[:2], o_water[2:4]]], nbins=50, range=(0.0, 15.0)), 2)):
    try:
        make().run(stop=frames_run)
        check(f"{label}: beyond the half box refused", False)
    except ValueError as e:
        check(f"{label}: beyond the half box refused",
              "minimum-image limit" in str(e) and f"frame {frames_run - 1}" in str(e), f"({e})")
for label, make in (("water range=(0, 14.9)", lambda: ph_rdf.InterRDF(
                        o_water, o_water, nbins=50, range=(0.0, 14.9), ncpu=2)),
                    ("dodecahedron range=(0, 16)", lambda: ph_rdf.InterRDF(
                        na, o_nacl, nbins=50, range=(0.0, 16.0), ncpu=2))):
    ours = make().run(stop=3)
    check(f"{label}: within the limit counted", ours.results.count.sum() > 0)

sys.exit(1 if failures else 0)
