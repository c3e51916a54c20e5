#!/usr/bin/python3
"""Validates pairhist against the tools users compare it with, on the bundled trajectories.

For SPC/E water (data/spce_water.*, NPT, cubic box; OW-OW) and NaCl in SPC/E water
(data/nacl_dodecahedron.*, NVT, rhombic dodecahedron = triclinic; Na-Cl, Na-OW, OW-OW) it runs

  * pairhist run in double and in single precision,
  * MDAnalysis InterRDF with the same bins and range (exclusion_block=(1, 1) for a group with
    itself, so self pairs are dropped),
  * gmx rdf with the same -bin and -rmax,

and compares bin by bin: raw counts (MDAnalysis counts ordered pairs, so a same-species histogram
is twice ours; its distances are float64 from float32 Angstrom coordinates, so a pair may change
bin only if it lies within 1e-6 (relative) of a bin edge: those pairs are counted and must cover
every difference), g(r) where counts are large (MDAnalysis divides by the mean volume <V> where we
use <1/V>; the expected ratio 1/(<V><1/V>) is computed from the frames) and the first peak's
position and height against gmx rdf (which normalises same-group RDFs by N^2, not N(N-1)).

Prints markdown; --write FILE also stores it with the command, date and versions.
Needs Debian's python3-mdanalysis and gromacs; runs in about half a minute on 2 cores.
"""

import argparse
import csv
import datetime
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import warnings

import numpy as np

# Debian's MDAnalysis 2.4 imports the deprecated xdrlib, and its warning says nothing about the
# results: import it first, quietly, so the import inside MDAnalysis finds it loaded.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        import xdrlib  # noqa: F401
    except ImportError:
        pass
import MDAnalysis as mda  # noqa: E402
from MDAnalysis.analysis.rdf import InterRDF  # noqa: E402
from MDAnalysis.lib.distances import capped_distance  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EDGE_TOLERANCE = 1e-6  # relative distance to a bin edge within which bins may differ
LARGE_COUNT = 100  # g(r) is compared in bins with at least this many (unique) pairs

CASES = [
    {
        "name": "SPC/E water, NPT, cubic",
        "files": ("spce_water.xtc", "spce_water.gro"),
        "species": {"OW": "OW"},
        "pairs": [("OW", "OW")],
        "rmax": 1.2,  # nm
        "nbins": 240,
    },
    {
        "name": "NaCl 1 mol/L, NVT, rhombic dodecahedron",
        "files": ("nacl_dodecahedron.xtc", "nacl_dodecahedron.gro"),
        "species": {"Na": "NA", "Cl": "CL", "OW": "OW"},
        "pairs": [("Na", "Cl"), ("Na", "OW"), ("OW", "OW")],
        "rmax": 1.5,  # the minimum-image limit of this 3.2 nm cell is 1.6 nm
        "nbins": 150,
    },
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def read_pairhist_csv(path):
    """Columns of rdf.csv by name, as float arrays."""
    with open(path) as f:
        rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    header, data = rows[0], np.array(rows[1:], dtype=float)
    return {name: data[:, i] for i, name in enumerate(header)}


def run_pairhist(binary, case, xtc, gro, precision, out):
    cmd = [binary, "run", xtc, "--top", gro, "--rmax", str(case["rmax"]),
           "--nbins", str(case["nbins"]), "--precision", precision, "-q", "--overwrite", "-o",
           out]
    for name, sel in case["species"].items():
        cmd += ["--species", f"{name}={sel}"]
    run(cmd)
    return read_pairhist_csv(os.path.join(out, "rdf.csv"))


def mda_rdf(u, a, b, case):
    g1 = u.select_atoms(f"name {case['species'][a]}")
    g2 = u.select_atoms(f"name {case['species'][b]}")
    kw = {"exclusion_block": (1, 1)} if a == b else {}
    r = InterRDF(g1, g2, nbins=case["nbins"], range=(0.0, 10 * case["rmax"]), **kw)
    r.run()
    return r.results.bins / 10, r.results.count, r.results.rdf  # r in nm


def near_edge_pairs(u, a, b, case):
    """Per bin edge k (0..nbins, the last one r_max): how many pairs (unique for a == b), over all
    frames, lie within EDGE_TOLERANCE (relative) of it; only these may land in different bins."""
    g1 = u.select_atoms(f"name {case['species'][a]}")
    g2 = u.select_atoms(f"name {case['species'][b]}")
    rmax = 10 * case["rmax"]
    per_edge = np.zeros(case["nbins"] + 1, dtype=np.int64)
    for ts in u.trajectory:
        pairs, d = capped_distance(g1.positions, g2.positions, rmax * (1 + 2 * EDGE_TOLERANCE),
                                   box=ts.dimensions)
        if a == b:
            d = d[pairs[:, 0] < pairs[:, 1]]
        x = d * case["nbins"] / rmax
        k = np.rint(x)
        near = (k >= 1) & (np.abs(x - k) <= EDGE_TOLERANCE * x)
        per_edge += np.bincount(k[near].astype(np.int64), minlength=case["nbins"] + 1)
    return per_edge


def gmx_rdf(gmx, case, xtc, gro, a, b, work):
    out = os.path.join(work, f"gmx-{a}-{b}.xvg")
    run([gmx, "-quiet", "rdf", "-f", xtc, "-s", gro,
         "-ref", f"name {case['species'][a]}", "-sel", f"name {case['species'][b]}",
         "-bin", str(case["rmax"] / case["nbins"]), "-rmax", str(case["rmax"]),
         "-norm", "rdf", "-xvg", "none", "-o", out],
        env=dict(os.environ, GMX_MAXBACKUP="-1"))
    data = np.loadtxt(out)
    return data[:, 0], data[:, 1]


def gmx_binned(half_counts, case, a, b, inv_volume, n_frames):
    """g(r) as gmx rdf bins and normalises it, from pairhist counts at half the bin width: gmx's
    bin i is centred on i*w ([(i-1/2)w, (i+1/2)w), the first one [0, w/2)), its normalisation is
    N_ref * N_sel * <1/V> with ordered pairs (self pairs are not counted but still normalised)."""
    w = case["rmax"] / case["nbins"]
    n = case["nbins"]
    counts = np.zeros(n)
    counts[0] = half_counts[0]
    counts[1:] = half_counts[1:2 * n - 1:2] + half_counts[2:2 * n:2]
    outer = (np.arange(n) + 0.5) * w
    inner = np.concatenate([[0.0], outer[:-1]])
    shell = 4.0 / 3.0 * np.pi * (outer**3 - inner**3)
    na, nb = case["natoms"][a], case["natoms"][b]
    ordered = 2.0 if a == b else 1.0
    per_pair = ordered / (n_frames * shell * na * nb * inv_volume)  # g of one pair in a bin
    return np.arange(n) * w, counts * per_pair, per_pair


def first_peak(r, g):
    k = int(np.nanargmax(g))
    return r[k], g[k]


def volumes_nm3(u):
    return np.array([ts.volume for ts in u.trajectory], dtype=float) / 1000.0


def worst(values):
    return f"{np.max(values):.1e}" if len(values) else "n/a"


def compare(args):
    counts_rows, peak_rows, notes = [], [], []
    with tempfile.TemporaryDirectory() as work:
        for case in CASES:
            xtc = os.path.join(REPO, "data", case["files"][0])
            gro = os.path.join(REPO, "data", case["files"][1])
            # MDAnalysis caches frame offsets next to the trajectory: keep them out of data/.
            mda_xtc = os.path.join(work, case["files"][0])
            shutil.copyfile(xtc, mda_xtc)
            u = mda.Universe(gro, mda_xtc)
            case["natoms"] = {s: len(u.select_atoms(f"name {sel}"))
                              for s, sel in case["species"].items()}
            v = volumes_nm3(u)
            factor = 1.0 / (v.mean() * (1.0 / v).mean())
            notes.append(f"{case['name']}: {u.trajectory.n_frames} frames; expected "
                         f"g_pairhist / g_MDAnalysis = 1/(<V><1/V>) = {factor:.9f} "
                         f"({factor - 1:+.1e})")
            ours = {p: run_pairhist(args.pairhist, case, xtc, gro, p, os.path.join(work, p))
                    for p in ("double", "single")}
            half = dict(case, nbins=2 * case["nbins"])
            ours_half = run_pairhist(args.pairhist, half, xtc, gro, "double",
                                     os.path.join(work, "half"))
            for a, b in case["pairs"]:
                label = f"{a}-{b}"
                mda_r, mda_count, mda_g = mda_rdf(u, a, b, case)
                # MDAnalysis counts ordered pairs: each unique same-species pair twice.
                mda_unique = mda_count / 2 if a == b else mda_count
                per_edge = near_edge_pairs(u, a, b, case)
                allowed = per_edge[:-1] + per_edge[1:]  # pairs near either edge of each bin
                for precision, cols in ours.items():
                    c = cols[f"count_{label}"]
                    g = cols[f"g_{label}"]
                    diff = np.abs(c - mda_unique)
                    same = (c == mda_unique) & (c > 0)
                    large = c >= LARGE_COUNT
                    counts_rows.append([
                        case["name"], label, precision, f"{int(c.sum()):,}",
                        str(int(np.count_nonzero(diff))), f"{diff.sum() / 2:g}",
                        str(int(per_edge.sum())),
                        "yes" if np.all(diff <= allowed) else "**no**",
                        f"{np.median(g[same] / mda_g[same]) - 1:+.1e}",
                        f"{factor - 1:+.1e}", str(int(large.sum())),
                        worst(np.abs(g[large] / mda_g[large] - 1))])
                gmx_r, gmx_g = gmx_rdf(args.gmx, case, xtc, gro, a, b, work)
                pred_r, pred_g, per_pair = gmx_binned(ours_half[f"count_{label}"], case, a, b,
                                            (1.0 / v).mean(), u.trajectory.n_frames)
                n = min(len(gmx_g), len(pred_g)) - 1  # gmx's last bin is cut at r_max
                r_own, g_own = first_peak(ours["double"]["r_nm"], ours["double"][f"g_{label}"])
                r_mda, g_mda = first_peak(mda_r, mda_g)
                # What the rounding of gmx's 3 printed decimals cannot explain, in pairs: a
                # pair binned differently (gmx computes distances in single precision).
                excess = np.maximum(np.abs(gmx_g[:n] - pred_g[:n]) - 0.0005, 0) / per_pair[:n]
                k_gmx = int(np.argmax(gmx_g[:n]))
                k_pred = int(np.argmax(pred_g[:n]))
                peak_rows.append([
                    case["name"], label, f"{r_own:.4f}", f"{g_own:.4f}", f"{r_mda:.4f}",
                    f"{g_mda:.4f}", f"{gmx_r[k_gmx]:.4f}", f"{gmx_g[k_gmx]:.3f}",
                    f"{pred_r[k_pred]:.4f}", f"{pred_g[k_pred]:.4f}",
                    f"{np.max(np.abs(gmx_g[:n] - pred_g[:n])):.1e}",
                    f"{excess.max():.2f}", str(int(np.count_nonzero(excess >= 0.5)))])
    return counts_rows, peak_rows, notes


INTRO = """\
# Validation against peer tools

pairhist's counts and g(r) compared with MDAnalysis `InterRDF` and `gmx rdf` on the two bundled
GROMACS trajectories: SPC/E water (`data/spce_water.*`: 884 waters, 101 NPT frames, cubic box;
OW-OW) and about 1 mol/L NaCl in SPC/E water (`data/nacl_dodecahedron.*`, made by
`scripts/make-validation-data.sh`: 14 Na, 14 Cl, 724 waters, 61 NVT frames in a 3.2 nm rhombic
dodecahedron, a triclinic box; Na-Cl, Na-OW, OW-OW up to 1.5 nm, just under the cell's 1.6 nm
minimum-image limit). Regenerate this page with the command below (about half a minute on 2 cores).

What to expect:

- **Counts equal MDAnalysis's** (halved for a species with itself: MDAnalysis counts ordered
  pairs, self pairs dropped with `exclusion_block=(1, 1)`), except for pairs so close to a bin
  edge that rounding decides: MDAnalysis reads coordinates as float32 Angstrom (ours: float32
  nm) and computes float64 distances, so a pair may change bin only within about 1e-7 of an
  edge. The table counts the pairs within 1e-6 (relative) of each edge and checks that every
  bin's difference is at most the number of such pairs at its two edges.
- **g(r) differs from MDAnalysis by the volume average only**: MDAnalysis divides by the mean
  volume <V>, pairhist multiplies by the mean inverse volume <1/V> (correct under NPT), so
  g_pairhist / g_MDAnalysis = 1 / (<V><1/V>): -8e-5 for the NPT water (relative volume
  fluctuations of about 0.9%), exactly 1 at constant volume. Bins whose counts differ by an edge
  pair add 1/count to that.
- **gmx rdf bins differently**: its bin i is centred on i times the bin width (the first is half
  a bin) and it normalises a group with itself by N^2 rather than N(N-1). Re-binning a pairhist
  run at half the bin width into gmx's bins with gmx's normalisation reproduces gmx's numbers to
  the 3 decimals it prints; the remaining differences are single pairs that gmx, computing
  distances in single precision, puts in the next bin. `pairhist rdf` does exactly this (gmx's
  command line and xvg files; docs/usage.md), and tests/check_gmx_rdf.py checks it against gmx.
"""


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def versions(args):
    ph = run([args.pairhist, "--version"]).stdout.strip()
    gmx = next(" ".join(line.replace("version:", "").split()) for line in
               run([args.gmx, "-quiet", "--version"]).stdout.splitlines()
               if "GROMACS version" in line)
    return (f"{ph}; MDAnalysis {mda.__version__}; NumPy {np.__version__}; {gmx}; "
            f"Python {sys.version.split()[0]}")


KEPT_MARKER = "<!-- not generated: kept by scripts/compare-peers.py -->"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pairhist", default=os.path.join(REPO, "build", "drivers", "pairhist"))
    p.add_argument("--gmx", default=os.environ.get("GMX", "gmx"))
    p.add_argument("--write", metavar="FILE", help="also store the report (markdown) in FILE")
    args = p.parse_args()

    counts_rows, peak_rows, notes = compare(args)
    report = "\n\n".join([
        "### Counts and g(r) against MDAnalysis InterRDF",
        table(["system", "pair", "pairhist precision", "pairs counted", "bins differing",
               "pairs in another bin", f"pairs within {EDGE_TOLERANCE:g} (rel.) of an edge",
               "every difference at such pairs", "g ratio - 1, bins with equal counts (median)",
               "expected: 1/(<V><1/V>) - 1", f"bins with >= {LARGE_COUNT} pairs",
               "max rel. diff. of g there"], counts_rows),
        "### First peak against gmx rdf (r in nm)",
        "gmx rdf centres its bins on multiples of the bin width and normalises by N_ref N_sel: "
        "the columns 'pairhist as gmx' re-bin a pairhist run at half the bin width into gmx's "
        "bins with gmx's normalisation; gmx prints 3 decimals.",
        table(["system", "pair", "r pairhist", "g pairhist", "r MDAnalysis", "g MDAnalysis",
               "r gmx rdf", "g gmx rdf", "r pairhist as gmx", "g pairhist as gmx",
               "max abs. diff. gmx - pairhist as gmx, all bins",
               "largest diff. beyond print rounding, in pairs",
               "bins with >= 0.5 pair beyond rounding"], peak_rows),
        "\n".join(f"- {n}" for n in notes),
    ])
    print(report)
    if args.write:
        command = "scripts/compare-peers.py " + " ".join(
            shlex.quote(a) for a in sys.argv[1:])
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        # Sections other scripts measure (the scattering comparison) follow KEPT_MARKER; they
        # are carried over as they are.
        kept = ""
        if os.path.exists(args.write):
            with open(args.write) as f:
                old = f.read()
            if KEPT_MARKER in old:
                kept = "\n" + old[old.index(KEPT_MARKER):]
        with open(args.write + ".tmp", "w") as f:
            f.write(f"<!-- generated by scripts/compare-peers.py; edit the script, not this -->\n"
                    f"{INTRO}\nCommand: `{command}`  \nDate: {stamp}  \n"
                    f"Versions: {versions(args)}\n\n{report}\n{kept}")
        os.replace(args.write + ".tmp", args.write)


if __name__ == "__main__":
    main()
