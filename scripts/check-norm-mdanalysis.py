#!/usr/bin/python3
"""Compares `pairhist run --norm rdf|density|none` (and --exclude residue) with MDAnalysis's
InterRDF on the bundled water sample (first 10 frames). Not part of CI (needs MDAnalysis:
Debian python3-mdanalysis). Usage: scripts/check-norm-mdanalysis.py [path/to/pairhist]

Expected: relative differences of a few 1e-4 at most, from pairs within rounding of a bin edge
(MDAnalysis bins in Angstrom with its own arithmetic) and, for rdf, from <1/V> versus 1/<V> under
NPT. A factor-2 or normalisation mistake would show as differences of order 1.
"""
import os, shutil, subprocess, sys, tempfile, warnings

import numpy as np

warnings.filterwarnings("ignore")
import MDAnalysis as mda
from MDAnalysis.analysis.rdf import InterRDF

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build/drivers/pairhist")
gro, xtc = (os.path.join(root, "data", f) for f in ("spce_water.gro", "spce_water.xtc"))
# MDAnalysis caches frame offsets next to the trajectory: give it a copy, not the repository's.
scratch = tempfile.mkdtemp()
u = mda.Universe(gro, shutil.copy(xtc, scratch))
groups = {"O": u.select_atoms("name OW"), "H": u.select_atoms("name HW1 HW2")}
column = {"rdf": "g", "density": "density", "none": "number"}


def pairhist(out, *extra):
    subprocess.run([binary, "run", xtc, "--top", gro, "--species", "O=OW", "--species",
                    "H=HW1,HW2", "--rmax", "1.0", "--nbins", "50", "--last", "9", "-q", "--overwrite", "-o",
                    out, *extra], check=True)
    rows = [l for l in open(os.path.join(out, "rdf.csv")) if not l.startswith("#")]
    names = rows[0].strip().split(",")
    data = np.array([[float(x) for x in r.split(",")] for r in rows[1:]])
    return {n: data[:, i] for i, n in enumerate(names)}


worst = 0.0
with tempfile.TemporaryDirectory() as tmp:
    cases = [(norm, "none", {"O-O": (1, 1), "O-H": None, "H-H": (1, 1)})
             for norm in ("rdf", "density", "none")]
    cases.append(("density", "residue", {"O-H": (1, 2), "H-H": (2, 2)}))
    for norm, exclude, blocks in cases:
        ours = pairhist(os.path.join(tmp, norm + exclude), "--norm", norm, "--exclude", exclude)
        for label, block in blocks.items():
            a, b = label.split("-")
            ref = InterRDF(groups[a], groups[b], nbins=50, range=(0.0, 10.0), norm=norm,
                           exclusion_block=block).run(stop=10).results.rdf
            mine = ours[column[norm] + "_" + label] / (1000.0 if norm == "density" else 1.0)
            rel = np.max(np.abs(mine - ref) / np.maximum(np.abs(ref), 1e-12))
            worst = max(worst, rel)
            print(f"norm {norm:7} exclude {exclude:7} {label}: max relative difference {rel:.2e}")
shutil.rmtree(scratch)
print("worst", f"{worst:.2e}")
sys.exit(0 if worst < 1e-3 else 1)
