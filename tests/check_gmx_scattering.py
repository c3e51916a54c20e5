#!/usr/bin/env python3
"""`pairhist scattering` against `gmx sans` and `gmx saxs` on the bundled water sample (label cli).

Usage: check_gmx_scattering.py PAIRHIST DATA_DIR WORK_DIR. Exits 77 (skipped) when gmx or numpy
is absent. Prints every figure docs/validation.md records.

The peers compute other things than pairhist's Debye intensity, so each comparison first makes
the outputs the same quantity (docs/validation.md, "Scattering"):

gmx sans (GROMACS 2022, gmxana): Debye's sum over the pairs i < j of one index group, weighted by
b_i b_j (nsfactor.dat; H of mass 1.008 is 1H, -3.7406 fm), histogrammed in bins of -bin nm (0.1 at
least) up to the box diagonal WITHOUT periodic images (-pbc only makes molecules whole first),
each bin at its centre, normalised: s(q) = sum_k p_k sin(q r_k)/(q r_k) with p the pair weights
over all frames divided by their sum, so s(0) = 1 and no self term. Here with -nopbc on frames
0..9, and pairhist counting the same coordinates without a box (an XYZ file) with the same bins
and rules (--bin 0.1 --within-bin centre --element H=1H): s = (I - sum_A N_A b_A^2) / (I(0) -
sum_A N_A b_A^2) must equal gmx's to 3e-6 (its printed 6 decimals, and pairs at bin edges). Then the same with pairhist's fine
bins (0.002 nm, exact within-bin rule): the difference is gmx's binning error, reported.

gmx saxs: not a Debye sum but the periodic system's |sum_j f_j exp(i k.x_j)|^2 on the lattice
vectors k of the topology's box (positive octant), averaged over shells of width 2 pi / L around
the printed q, per atom and frame, times the polarisation factor 1 - 2 A^2 (1 - A^2), A = q / (2
k0) (12 keV). Divided by that factor it is the bulk's coherent intensity per atom, which is
<f^2> + F(q) of `pairhist scattering --structure-factor` (Lorch's window, evaluated at gmx's q);
they differ by gmx's sampling noise (few k vectors per shell, frames 0.3 ps apart) and by the
r_max cut of g(r) (Lorch lowers the main peak). Checked: within 8% of gmx's intensity for q from
2 x 2 pi / r_max to 30/nm (101 frames) and within 5% from 30 to 60/nm (frames 0..9).
"""
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
except ImportError:  # the test needs /usr/bin/python3 with python3-numpy
    np = None


def run(args, stdin=None, cwd=None):
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def xvg(path):
    return np.array([[float(v) for v in line.split()] for line in open(path)
                     if line[:1] not in "#@" and line.strip()])


def csv(path):
    rows = [line.strip() for line in open(path) if not line.startswith("#")]
    names = rows[0].split(",")
    values = np.array([[float(v) for v in row.split(",")] for row in rows[1:]])
    return {name: values[:, c] for c, name in enumerate(names)}


def water_tpr(data, work):
    """The sample's topology (data/sample-inputs, the molecule count from the .gro) as a .tpr."""
    gro = f"{data}/spce_water.gro"
    with open(gro) as f:
        f.readline()
        waters = int(f.readline()) // 3
    with open(f"{data}/sample-inputs/topol.top") as f:
        top = f.read()
    with open(f"{work}/topol.top", "w") as f:
        f.write(top + f"SOL {waters}\n")
    with open(f"{work}/em.mdp", "w") as f:
        f.write("integrator = steep\nnsteps = 0\ncutoff-scheme = Verlet\ncoulombtype = PME\n"
                "rcoulomb = 1.0\nrvdw = 1.0\n")
    run(["gmx", "-quiet", "grompp", "-f", "em.mdp", "-c", gro, "-p", "topol.top", "-o",
         "water.tpr", "-po", "mdout.mdp"], cwd=work)
    return f"{work}/water.tpr"


def frames_without_box(xtc, tpr, work):
    """Frames 0..9 (t <= 2.7 ps) as an XYZ file without a box: the XTC's coordinates (0.001 nm
    steps, so the .gro's 3 decimals hold them exactly) in Angstrom, element symbols as names."""
    run(["gmx", "-quiet", "trjconv", "-f", xtc, "-s", tpr, "-e", "2.7", "-o", "frames.gro"],
        stdin="0\n", cwd=work)
    lines = open(f"{work}/frames.gro").read().split("\n")
    out, at, frame = [], 0, 0
    while at < len(lines) and lines[at].strip():
        n = int(lines[at + 1])
        out.append(f"{n}\nframe {frame}, no box\n")
        for atom in lines[at + 2:at + 2 + n]:
            x = [float(atom[20 + 8 * k:28 + 8 * k]) for k in range(3)]
            out.append(f"{atom[10:15].strip()[0]} {10 * x[0]:.4f} {10 * x[1]:.4f} "
                       f"{10 * x[2]:.4f}\n")
        at += n + 3
        frame += 1
    with open(f"{work}/frames.xyz", "w") as f:
        f.write("".join(out))
    return f"{work}/frames.xyz", frame


def pairhist_intensity(pairhist, xyz, out, bin_width, precision, options):
    run([pairhist, "run", xyz, "--top", xyz, "--species", "O=O", "--species", "H=H", "--rmax",
         "6", "--bin", bin_width, "--precision", precision, "--ncpu", "2", "-q", "--overwrite",
         "-o", out])
    run([pairhist, "scattering", out, "--radiation", "neutron", "--element", "O=O", "--element",
         "H=1H", "--q-max", "49.8", "--nq", "499"] + options)
    return csv(f"{out}/intensity.csv")


def normalised_pair_sum(c, counts):
    """gmx sans's s(q): the pair part of I(q) over its value at q = 0."""
    self_term = sum(n * c[f"f_{a}"] ** 2 for a, n in counts.items())
    pairs = c["I"] - self_term
    return pairs / pairs[0]


def compare_sans(pairhist, data, work, tpr):
    xtc = f"{data}/spce_water.xtc"
    xyz, frames = frames_without_box(xtc, tpr, work)
    run(["gmx", "-quiet", "sans", "-s", tpr, "-f", xtc, "-e", "2.7", "-nopbc", "-bin", "0.1",
         "-startq", "0", "-endq", "50", "-qstep", "0.1", "-sq", "sans.xvg", "-pr", "pr.xvg"],
        stdin="0\n", cwd=work)
    gmx = xvg(f"{work}/sans.xvg")
    counts = {"O": 884, "H": 1768}
    problems = []
    # gmx bins float distances; so does pairhist's single precision, so that the few pairs
    # within rounding of a bin edge (XTC's 0.001 nm grid puts some exactly on one) mostly fall
    # alike: 1.0e-6 (2.8e-6 with --precision double).
    same = normalised_pair_sum(
        pairhist_intensity(pairhist, xyz, f"{work}/sans-same", "0.1", "single",
                           ["--within-bin", "centre"]), counts)
    fine = normalised_pair_sum(
        pairhist_intensity(pairhist, xyz, f"{work}/sans-fine", "0.002", "double", []), counts)
    n = len(gmx)
    if n < 400 or not np.allclose(np.linspace(0, 0.1 * (n - 1), n), gmx[:, 0], atol=1e-5):
        problems.append(f"gmx sans wrote {n} rows, not q = 0, 0.1, ... 49.8")
        return problems
    same_diff = np.abs(same[:n] - gmx[:, 1])
    print(f"gmx sans, {frames} frames, no periodic images, 0.1 nm bins at their centres:")
    print(f"  pairhist with the same bins: max |s - s_gmx| = {same_diff.max():.2e} "
          f"(q = {gmx[same_diff.argmax(), 0]:.1f}/nm; gmx prints 6 decimals)")
    if same_diff.max() > 3e-6:
        problems.append(f"gmx sans: s(q) differs by {same_diff.max():.2e} with the same bins")
    fine_diff = np.abs(fine[:n] - gmx[:, 1])
    print("  pairhist with 0.002 nm bins, exact within-bin rule (gmx's binning error):")
    for lo, hi in [(0, 5), (5, 10), (10, 20), (20, 30), (30, 50)]:
        m = (gmx[:, 0] >= lo) & (gmx[:, 0] < hi)
        print(f"    q {lo:2d}-{hi:2d}/nm: max |s - s_gmx| = {fine_diff[m].max():.4f}, "
              f"max |s_gmx| = {np.abs(gmx[m, 1]).max():.4f}")
    return problems


def compare_saxs(pairhist, data, work, tpr, label, gmx_options, run_options, q_from, limit):
    """gmx saxs against <f^2> + F of pairhist's structure factors at gmx's q."""
    xtc = f"{data}/spce_water.xtc"
    out = f"saxs-{label}"
    run(["gmx", "-quiet", "saxs", "-s", tpr, "-f", xtc, "-sq", f"{out}.xvg"] + gmx_options,
        stdin="0\n", cwd=work)
    gmx = xvg(f"{work}/{out}.xvg")
    gmx = gmx[gmx[:, 0] > 0]
    with open(f"{work}/{out}-q.txt", "w") as f:
        f.write("".join(f"{q!r}\n" for q in gmx[:, 0]))
    run([pairhist, "run", xtc, "--top", f"{data}/spce_water.gro", "--species", "O=OW",
         "--species", "H=HW1,HW2", "--bin", "0.002", "--ncpu", "2", "-q", "--overwrite", "-o",
         f"{work}/{out}"] + run_options)
    run([pairhist, "scattering", f"{work}/{out}", "--structure-factor", "--element", "O=O",
         "--element", "H=H", "--q-file", f"{work}/{out}-q.txt"])
    c = csv(f"{work}/{out}/sq.csv")
    with open(f"{work}/{out}/sq.csv") as f:
        r_max = float(f.read().split("g(r) is known up to r_max = ")[1].split()[0])
    # gmx: hc = 1239.842 eV nm; k0 = 2 pi E / (hc), 12 keV.
    k0 = 2 * np.pi * 1000 * 12.0 / 1239.842
    a = gmx[:, 0] / (2 * k0)
    gmx_i = gmx[:, 1] / (1 - 2 * a ** 2 * (1 - a ** 2))
    ours = (c["f_O"] ** 2 + 2 * c["f_H"] ** 2) / 3 + c["F"]
    rel = (ours - gmx_i) / gmx_i
    lo = max(q_from, 2 * 2 * np.pi / r_max)
    m = gmx[:, 0] >= lo
    print(f"gmx saxs {' '.join(gmx_options)} against <f^2> + F (Lorch, r_max {r_max:.3f} nm):")
    for q, g, p, d in zip(gmx[:, 0], gmx_i, ours, rel):
        print(f"  q {q:7.3f}/nm: gmx {g:8.4f}, pairhist {p:8.4f} electrons^2 per atom ({d:+.3f})")
    worst = np.abs(rel[m]).max()
    print(f"  from q = {lo:.1f}/nm: largest relative difference {worst:.3f} "
          f"(q = {gmx[m, 0][np.abs(rel[m]).argmax()]:.2f}/nm)")
    if worst > limit:
        return [f"gmx saxs {label}: relative difference {worst:.3f} above {limit}"]
    return []


def main():
    pairhist, data, work = sys.argv[1:4]
    if shutil.which("gmx") is None:
        print("gmx not found: skipping the comparison with gmx sans and gmx saxs")
        return 77
    if np is None:
        print("numpy not found: skipping the comparison with gmx sans and gmx saxs")
        return 77
    pairhist = os.path.abspath(pairhist)
    data = os.path.abspath(data)
    work = os.path.abspath(work)
    os.makedirs(work, exist_ok=True)
    tpr = water_tpr(data, work)
    problems = compare_sans(pairhist, data, work, tpr)
    problems += compare_saxs(pairhist, data, work, tpr, "all", ["-endq", "30"], [], 0, 0.08)
    problems += compare_saxs(pairhist, data, work, tpr, "high", ["-e", "2.7", "-endq", "60"],
                             ["--last", "9"], 30, 0.05)
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
