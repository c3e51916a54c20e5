#!/usr/bin/env python3
"""Compares `pairhist run` on cpptraj's own test trajectories with cpptraj's saved `radial`
outputs (test/Test_Radial/*.agr.save of github.com/Amber-MD/cpptraj), bin for bin.

    python3 scripts/check-cpptraj-radial.py PAIRHIST CPPTRAJ_TEST_DIR

CPPTRAJ_TEST_DIR holds tz2.truncoct.parm7/.nc, tz2.ortho.parm7/.nc and Test_Radial/ (a cpptraj
checkout's test/ folder; the files are too large to keep in this repository).

cpptraj's `radial MASK out F SPACING MAX` (no `volume`) counts a mask with itself as 2 per unique
pair and normalises by a fixed density, 0.033456 molecules/A^3 (water at 1 g/mL), not by the
box: g_k = 2 n_k / (frames * dV_k * 0.033456 * (N - 1)), dV_k the shell's volume in A^3. The
script turns cpptraj's g back into its pair counts and compares them with pairhist's raw counts
(rdf.csv count_O-O), bin for bin.
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

DENSITY = 0.033456  # cpptraj's default, molecules / A^3
EXTRA = sys.argv[3:]  # more options of `pairhist run`, e.g. --precision double


def agr_values(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith(("@", "#")) or not line.strip():
                continue
            r, g = line.split()[:2]
            out.append((float(r), float(g)))
    return out


def count_column(path, label):
    with open(path) as f:
        rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    col = rows[0].index(label)
    return [int(r[col]) for r in rows[1:]]


def water_oxygens(parm7):
    # One O per WAT residue (the atoms the selection takes).
    text = open(parm7).read()
    labels = text.split("%FLAG RESIDUE_LABEL")[1].split("%FLAG")[0].split("\n", 2)[2]
    return labels.split().count("WAT")


def compare(pairhist, test_dir, parm7, traj, saved, frames, spacing, r_max):
    nbins = round(r_max / spacing)
    with tempfile.TemporaryDirectory() as out:
        cmd = [pairhist, "run", os.path.join(test_dir, traj), "--top", os.path.join(test_dir, parm7),
               "--species", "O=resname WAT and name O", "--rmax", str(r_max / 10),
               "--nbins", str(nbins), "--last", str(frames - 1), "-o", out, "--overwrite"] + EXTRA
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        counts = count_column(os.path.join(out, "rdf.csv"), "count_O-O")
    n = water_oxygens(os.path.join(test_dir, parm7))
    ref = agr_values(os.path.join(test_dir, "Test_Radial", saved))
    # cpptraj's g to its pair count: g printed to 6 decimals gives the count to well under one
    # pair in every bin here (norm / 2 * 5e-7 < 0.02).
    differing = []
    for k, (c, (r, g_ref)) in enumerate(zip(counts, ref)):
        lo, hi = k * spacing, (k + 1) * spacing
        norm = frames * 4.0 / 3.0 * math.pi * (hi ** 3 - lo ** 3) * DENSITY * (n - 1)
        c_ref = round(g_ref * norm / 2)
        if c_ref != c:
            differing.append((k, c, c_ref))
    pairs = sum(counts)
    print(f"{saved}: {n} water O, {frames} frames, {nbins} bins, {pairs} pairs: bins whose count "
          f"differs from cpptraj's (bin, pairhist, cpptraj): {differing or 'none'}")
    worst = max((abs(c - c_ref) for _, c, c_ref in differing), default=0)
    return worst


def main():
    pairhist, test_dir = sys.argv[1], sys.argv[2]
    worst = max(compare(pairhist, test_dir, "tz2.truncoct.parm7", "tz2.truncoct.nc",
                        "tz2.WatO.agr.save", 2, 0.25, 15.0),
                compare(pairhist, test_dir, "tz2.ortho.parm7", "tz2.ortho.nc",
                        "tz2ortho.WatO.agr.save", 2, 0.25, 15.0))
    # A pair within rounding of a bin edge may fall on either side (cpptraj bins in double).
    sys.exit(0 if worst <= 1 else 1)


if __name__ == "__main__":
    main()
