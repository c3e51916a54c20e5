#!/usr/bin/env python3
"""`pairhist run` with dynamic species (`within`, `around`) against a brute-force reference.

Usage: check_dynamic_run.py PAIRHIST DATA_DIR WORK_DIR. Exits 77 (skipped) without MDAnalysis.

Every frame is read by MDAnalysis; each dynamic species is selected by an all-pairs
minimum-image check in double precision (independent of pairhist's cell grid), and every pair of
species histogrammed from all distances. pairhist's counts (double precision) must match bin by
bin, up to pairs within ~1e-7 nm of a bin edge (MDAnalysis holds the coordinates in float32
Angstrom, pairhist in float32 nm: they differ by rounding); g(r) and n(r) must follow the
documented per-frame rule (docs/usage.md, --norm): g_k = counts_k / (shell_k sum_f pairs_f / V_f),
n_k = cumsum_k / sum_f N_a,f (doubled for a species with itself). With --exclude residue the
pairs of two atoms of one residue, both selected in that frame, are neither counted nor among the
frame's pairs that g(r) normalises by, as for static species.
"""
import csv
import os
import subprocess
import sys

try:
    import numpy as np
    import MDAnalysis as mda
except ImportError:
    print("MDAnalysis/numpy not found: skipping")
    sys.exit(77)


def box_matrix(ts):
    from MDAnalysis.lib.mdamath import triclinic_vectors
    return triclinic_vectors(ts.dimensions).astype(np.float64) / 10.0


def min_image_d2(a, b, h):
    """Squared minimum-image distances (len(a) x len(b)) in box h (rows the vectors, nm)."""
    d = b[None, :, :] - a[:, None, :]
    frac = d @ np.linalg.inv(h)
    frac -= np.round(frac)
    d = frac @ h
    best = np.full(d.shape[:2], np.inf)
    for i in (-1, 0, 1):
        for j in (-1, 0, 1):
            for k in (-1, 0, 1):
                e = d + i * h[0] + j * h[1] + k * h[2]
                best = np.minimum(best, np.einsum("abc,abc->ab", e, e))
    return best


def within(xyz, h, candidates, targets, r, around=False):
    """Candidate atom indices within r of a target (around: targets themselves left out)."""
    cand = np.array([c for c in candidates if not (around and c in set(targets))], dtype=int)
    if len(cand) == 0 or len(targets) == 0:
        return cand
    d2 = min_image_d2(xyz[cand], xyz[np.array(targets)], h)
    return cand[(d2 <= r * r).any(axis=1)]


def case(pairhist, work, name, gro, xtc, species, dynamic, rmax, nbins, frames, exclude=False,
         sharing=()):
    """sharing: the cross pairs (a, b) of species that can share atoms (their static parts do),
    whose excluded pairs the summary gives as the most per frame; of every other pair it gives
    each frame's own, summed."""
    u = mda.Universe(gro, xtc)
    residue = u.atoms.resindices
    out = os.path.join(work, name)
    cmd = [pairhist, "run", xtc, "--top", gro, "--rmax", str(rmax), "--nbins", str(nbins),
           "--precision", "double", "--last", str(frames - 1), "-o", out, "--overwrite"]
    if exclude:
        cmd += ["--exclude", "residue"]
    for s, sel in species:
        cmd += ["--species", f"{s}={sel}"]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        print(run.stdout)
        return [f"{name}: pairhist exited {run.returncode}"]
    names = [s for s, _ in species]
    pairs = [(a, b) for a in range(len(names)) for b in range(a, len(names))]
    counts = {p: np.zeros(nbins, dtype=np.int64) for p in pairs}
    sizes, pair_sums = np.zeros(len(names)), {p: 0.0 for p in pairs}
    excluded = {p: [] for p in pairs}  # per frame: the selected pairs of one residue
    for ts in u.trajectory[:frames]:
        xyz = ts.positions.astype(np.float64) / 10.0
        h = box_matrix(ts)
        atoms = [dynamic[s](u, xyz, h) for s in names]
        sizes += [len(a) for a in atoms]
        volume = abs(np.linalg.det(h))
        for (a, b) in pairs:
            ia, ib = np.asarray(atoms[a], dtype=int), np.asarray(atoms[b], dtype=int)
            if len(ia) == 0 or len(ib) == 0:
                excluded[(a, b)].append(0)
                continue
            r = np.sqrt(min_image_d2(xyz[ia], xyz[ib], h))
            keep = ia[:, None] < ib[None, :] if a == b else ia[:, None] != ib[None, :]
            same = residue[ia][:, None] == residue[ib][None, :]
            excluded[(a, b)].append(int((keep & same).sum()))
            if exclude:
                keep &= ~same
            r = r[keep]
            k = np.floor(r * nbins / rmax).astype(np.int64)
            counts[(a, b)] += np.bincount(k[k < nbins], minlength=nbins)
            n_pairs = len(r)
            pair_sums[(a, b)] += n_pairs / volume
    rows = list(csv.DictReader(line for line in open(os.path.join(out, "rdf.csv"))
                               if not line.startswith("#")))
    problems = []
    if exclude:
        # The summary's excluded pairs: each frame's own over the frames, the most per frame only
        # for pairs of species sharing atoms (the frames' shared atoms are not kept).
        exact = sum(sum(excluded[p]) for p in pairs if p not in sharing)
        line = next((l for l in run.stdout.splitlines() if "excluded pairs" in l), "")
        print(f"  {name} summary: {line.strip()}")
        if f"({exact} excluded pairs" not in line:
            problems.append(f"{name}: the summary does not say {exact} excluded pairs: {line}")
        for (a, b) in sharing:
            if f"of {names[a]}-{names[b]} at most " not in line:
                problems.append(f"{name}: the summary gives no bound for {names[a]}-{names[b]}")
    edges = np.arange(nbins + 1) * rmax / nbins
    shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    for (a, b) in pairs:
        label = f"{names[a]}-{names[b]}"
        ours = np.array([int(r[f"count_{label}"]) for r in rows])
        g = np.array([float(r[f"g_{label}"]) for r in rows])
        n = np.array([float(r[f"n_{label}"]) for r in rows])
        ref = counts[(a, b)]
        off = int(np.abs(ours - ref).sum())
        total = int(ref.sum())
        print(f"  {name} {label}: {total} pairs, {off} in other bins, "
              f"mean sizes {sizes[a] / frames:.2f} x {sizes[b] / frames:.2f}")
        if exclude:
            print(f"    {sum(excluded[(a, b)])} excluded pairs over the frames, "
                  f"{min(excluded[(a, b)])} to {max(excluded[(a, b)])} per frame")
        if total == 0 or off > 4 + 2e-5 * total or abs(int(ours.sum()) - total) > 2:
            problems.append(f"{name} {label}: counts differ by {off} of {total}")
            continue
        g_ref = ours / (shell * pair_sums[(a, b)])
        n_ref = np.cumsum(ours) / sizes[a] * (2 if a == b else 1)
        if not np.allclose(g, g_ref, rtol=2e-5, atol=1e-9):
            problems.append(f"{name} {label}: g(r) off the per-frame rule by "
                            f"{np.max(np.abs(g - g_ref)):.3g}")
        if not np.allclose(n, n_ref, rtol=2e-5, atol=1e-9):
            problems.append(f"{name} {label}: n(r) off the per-frame rule")
    return problems


def main():
    pairhist, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    # R^2 * 1e6 far from an integer: no distance of XTC-grid coordinates sits on R.
    R, R2 = 0.351364, 0.501364

    def names(u, *wanted):
        return [i for i, a in enumerate(u.atoms) if a.name in wanted]

    def resids(u, lo, hi):
        return [i for i, a in enumerate(u.atoms) if lo <= a.resid <= hi]

    water = {
        "O": lambda u, x, h: names(u, "OW"),
        "A": lambda u, x, h: within(x, h, names(u, "OW"), resids(u, 1, 10), R),
        "C": lambda u, x, h: within(x, h, range(len(u.atoms)), resids(u, 12, 12), R, True),
    }
    nacl = {
        "NA": lambda u, x, h: names(u, "NA"),
        "W": lambda u, x, h: within(x, h, names(u, "OW"), names(u, "NA"), R2),
        "S": lambda u, x, h: within(x, h, range(len(u.atoms)), names(u, "CL"), R, True),
    }
    problems = case(pairhist, work, "water", f"{data}/spce_water.gro", f"{data}/spce_water.xtc",
                    [("O", "name OW"), ("A", f"name OW and within {R} of resid 1-10"),
                     ("C", f"around {R} resid 12")], water, 0.9137, 97, 8)
    problems += case(pairhist, work, "nacl", f"{data}/nacl_dodecahedron.gro",
                     f"{data}/nacl_dodecahedron.xtc",
                     [("NA", "name NA"), ("W", f"name OW and within {R2} of name NA"),
                      ("S", f"around {R} name CL")], nacl, 0.9137, 97, 8)
    # Same-residue pairs left out among each frame's selected atoms: O with the hydrogens that
    # `around` selects of its own water, and those hydrogens with each other.
    problems += case(pairhist, work, "water-exclude", f"{data}/spce_water.gro",
                     f"{data}/spce_water.xtc",
                     [("O", "name OW"), ("A", f"name OW and within {R} of resid 1-10"),
                      ("C", f"around {R} resid 12")], water, 0.9137, 97, 8, exclude=True,
                     sharing=[(0, 2), (1, 2)])
    # Species that share no atom: every pair's excluded pairs are known frame by frame (the O-H
    # pairs of a water whose hydrogens are selected, and those hydrogens with each other).
    water["H"] = lambda u, x, h: within(x, h, names(u, "HW1", "HW2"), resids(u, 1, 10), R)
    problems += case(pairhist, work, "water-exclude-disjoint", f"{data}/spce_water.gro",
                     f"{data}/spce_water.xtc",
                     [("O", "name OW"), ("H", f"name HW1 HW2 and within {R} of resid 1-10")],
                     water, 0.9137, 97, 8, exclude=True)
    # What a dynamic run cannot do yet is refused with one line (exit 2), never mis-normalised.
    water_args = [f"{data}/spce_water.xtc", "--top", f"{data}/spce_water.gro", "--rmax", "0.9",
                  "--nbins", "90", "--species", f"A=name OW and within {R} of resid 1-10"]
    refusals = {
        "centres": [pairhist, "run"] + water_args[:-2] + [
            "--species", f"A=res_com of (resname SOL and within {R} of resid 1)", "-o",
            f"{work}/refused"],
        # The run's file keeps its per-frame sizes; scattering, which weighs by one size per
        # species, refuses it.
        "scattering of a dynamic run": [pairhist, "scattering", f"{work}/water", "-o",
                                        f"{work}/refused-scattering"],
        "convert": [pairhist, "convert", f"{data}/spce_water.xtc", f"{work}/refused.h5", "--top",
                    f"{data}/spce_water.gro", "--species", f"A=within {R} of resid 1"],
    }
    for what, cmd in refusals.items():
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = run.stderr.strip().splitlines()
        print(f"  refused {what}: exit {run.returncode}: {run.stderr.strip()}")
        if run.returncode != 2 or len(lines) != 1:
            problems.append(f"{what}: exit {run.returncode}, {len(lines)} lines, not a refusal")
    for p in problems:
        print("FAILED:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
