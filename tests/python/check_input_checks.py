"""Hostile inputs to pairhist's Python functions (issue 40): a NaN or infinite coordinate is refused
by histograms() as Engine.submit() and run() refuse it (before, histograms() dropped such atoms
without a word), a box angle of 0 or 180 degrees is a ValueError (before: ZeroDivisionError), a
directory given as a file is named as one, and a bin count beyond the limit says so before it
allocates. Usage: check_input_checks.py DATA_DIR WORKDIR"""

import os
import sys

import numpy as np

import pairhist
from check_support import check, failures, refused

data, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)

rng = np.random.default_rng(40)
atoms = (rng.random((10, 3)) * 2).astype(np.float32)
box = [2.0, 2.0, 2.0, 90, 90, 90]
whole = pairhist.histograms([atoms], box, r_max=0.9, n_bins=9)
check("histograms(): 45 pairs of 10 atoms within r_max", int(whole[(0, 0)].sum()) <= 45)

for bad, label in ((np.nan, "NaN"), (np.inf, "inf"), (-np.inf, "-inf")):
    for precision in ("single", "double"):
        for algorithm in ("all-pairs", "cell-list"):
            broken = atoms.astype(np.float64)
            broken[3, 1] = bad
            refused(f"histograms() of a {label} coordinate ({precision}, {algorithm})",
                    lambda: pairhist.histograms([atoms, broken], box, r_max=0.9, n_bins=9,
                                                precision=precision, algorithm=algorithm))
try:
    pairhist.histograms([atoms, np.array([[0, np.nan, 0]])], box, r_max=0.9, n_bins=9)
except ValueError as e:
    check("histograms(): the message names species and atom",
          "species 1, atom 0 has a non-finite coordinate" in str(e), f"({e})")
# A float64 beyond float32's range is infinite in single precision.
refused("histograms() of 1e300 in single precision", lambda: pairhist.histograms(
    [np.array([[1e300, 0, 0], [0, 0, 0]])], None, r_max=1.0, n_bins=10))

for angles in ((90, 90, 0), (0, 90, 90), (90, 180, 90), (90, 90, -30)):
    refused(f"histograms() with box angles {angles}", lambda: pairhist.histograms(
        [atoms], [2.0, 2.0, 2.0, *angles], r_max=0.9, n_bins=9))

os.makedirs(f"{work}/dir.xtc", exist_ok=True)
try:
    pairhist.run(f"{work}/dir.xtc", top=f"{data}/spce_water.gro", species={"O": "OW"}, rmax=1,
                 nbins=10)
    check("run() of a directory refused", False, "(accepted)")
except ValueError as e:
    check("run() of a directory: named as one", str(e).endswith("dir.xtc: is a directory"),
          f"({e})")
refused("run() with 2e9 bins", lambda: pairhist.run(
    f"{data}/spce_water.xtc", top=f"{data}/spce_water.gro", species={"O": "OW"}, rmax=1,
    nbins=2000000000, last=1, ncpu=1))

sys.exit(1 if failures else 0)
