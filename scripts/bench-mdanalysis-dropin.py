#!/usr/bin/python3
"""Times MDAnalysis's InterRDF against pairhist's drop-in (pairhist.mdanalysis.InterRDF) in one
process on one trajectory, O-O (and O-H with the intramolecular pairs excluded), and compares
their counts. Usage (PYTHONPATH with the pairhist module):
    bench-mdanalysis-dropin.py TOP TRAJ [FRAMES] [--precision double|single]
e.g. on the replicated water: pairhist synth --case W1 --replicas 4 --frames 10 -o DIR;
     bench-mdanalysis-dropin.py DIR/W1.gro DIR/W1.xtc 10"""

import argparse
import json
import os
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore", category=DeprecationWarning)
import MDAnalysis as mda  # noqa: E402
from MDAnalysis.analysis import rdf as mda_rdf  # noqa: E402

from pairhist import mdanalysis as ph_rdf  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("top")
parser.add_argument("traj")
parser.add_argument("frames", nargs="?", type=int, default=10)
parser.add_argument("--precision", default="double")
parser.add_argument("--skip-mdanalysis-oh", action="store_true")
a = parser.parse_args()

u = mda.Universe(a.top, a.traj)
o, h = u.select_atoms("name OW"), u.select_atoms("name HW1 HW2")
cases = [("O-O", o, o, {}), ("O-H excl (1,2)", o, h, {"exclusion_block": (1, 2)})]
rows = []
for name, g1, g2, extra in cases:
    settings = dict(nbins=240, range=(0.0, 12.0), **extra)
    t0 = time.perf_counter()
    ours = ph_rdf.InterRDF(g1, g2, precision=a.precision, **settings).run(stop=a.frames)
    t_ours = time.perf_counter() - t0
    row = dict(case=name, atoms=len(u.atoms), frames=a.frames, pairhist_seconds=round(t_ours, 3),
               cores=os.cpu_count(), precision=a.precision)
    if not (a.skip_mdanalysis_oh and name != "O-O"):
        t0 = time.perf_counter()
        theirs = mda_rdf.InterRDF(g1, g2, **settings).run(stop=a.frames)
        row["mdanalysis_seconds"] = round(time.perf_counter() - t0, 3)
        c1, c2 = ours.results.count, theirs.results.count
        row["moved_fraction"] = float(np.abs(c1 - c2).sum() / 2 / c2.sum())
        row["total_equal"] = bool(c1.sum() == c2.sum())
        row["speedup"] = round(row["mdanalysis_seconds"] / t_ours, 1)
    rows.append(row)
    print(json.dumps(row), flush=True)
