#!/usr/bin/env python3
"""`pairhist rdf` against `gmx rdf` on the bundled samples (label cli).

Usage: check_gmx_rdf.py PAIRHIST DATA_DIR WORK_DIR. Exits 77 (skipped) when gmx is absent.

Atom positions, in 3D and in the x-y plane (-xy), dynamic selections (within; also with -excl
and -xy), centres (res_com, mol_com, whole_res_com, res_cog, mol_cog, part_, dyn_: -seltype
and "POSTYPE of"), also on a trajectory whose molecules gmx trjconv -pbc atom broke across the
box; frames by -b -e -dt -tu; -cut (on a half-bin edge and between), and -surf mol and res: distances to the nearest atom of
each molecule or residue of -ref, also with molecules of two residues (a .tpr that gmx grompp
makes here from the NaCl solution, its waters paired), a .gro (one molecule, as gmx reads it),
a dynamic reference, centres as -sel and -xy; -rmax (given or from the box) not a multiple of
-bin, where gmx's last row is partial and ours must be the same to the printed digit. gmx's input
conventions: a multi-frame .gro (gmx trjconv) as -f without -s, also with -n; a multi-frame .g96
as -f; an XTC with -n and no -s; -s (.gro, .g96, .tpr) without -f. The combinations gmx refuses
(-surf with -norm rdf, -excl, a -ref of centres; no -f nor -s, no names for the selections) must
fail here too.

Each invocation runs both programs with the same arguments and compares the xvg files: the r
columns must be the same text; n(r) within 0.0011 (the 3 decimals both print); g(r) within
0.0011 + 2% of the largest of the row and its neighbours, and the sum of each g(r) column within
0.2% of gmx's. The g(r) allowance is for pairs at a half-bin edge:
XTC coordinates are multiples of 0.001 nm, so many distances fall exactly on an edge
(0.181 nm = 181 steps), where gmx's float arithmetic and ours may round to neighbouring rows
(n(r), whose rows end at even edges, agrees to the printed digit). Pair count mistakes
(an ordered pair counted once, exclusions ignored, another shell volume) move g(r) by far more.
"""
import os
import shutil
import subprocess
import sys


def rows(path):
    out = []
    with open(path) as f:
        for line in f:
            if line[:1] in "#@" or not line.strip():
                continue
            out.append(line.split())
    return out


def compare(name, gmx_file, ours_file, swaps, relative=0.0, rows_from=0.0):
    """Problems of ours_file against gmx_file. `swaps`: g(r) rows may differ by pairs moved to a
    neighbouring row (2% of the largest of the three rows around), as long as the column's sum
    stays within 0.2% (a wrong count, volume or density moves every row the same way).
    `relative`: each value may also differ by this fraction of itself. Rows below r = `rows_from`
    count only in the sum."""
    g, p = rows(gmx_file), rows(ours_file)
    problems = []
    if len(p) > len(g) or len(p) < len(g) - 4:
        problems.append(f"{len(p)} rows, gmx wrote {len(g)}")
    n = min(len(g), len(p))
    for k in range(n):
        if g[k][0] != p[k][0]:
            problems.append(f"row {k}: r {p[k][0]} where gmx has {g[k][0]}")
            break
    for c in range(1, len(g[0])):
        a = [float(r[c]) for r in g[:n]]
        b = [float(r[c]) for r in p[:n]]
        worst, where = 0.0, 0
        for k in range(n):
            if float(g[k][0]) < rows_from:
                continue
            local = max(abs(x) for x in a[max(0, k - 1):k + 2]) if swaps else 0.0
            excess = abs(a[k] - b[k]) - (0.0011 + 0.02 * local + relative * abs(a[k]))
            if excess > worst:
                worst, where = excess, k
        if worst > 0:
            problems.append(f"column {c} row r = {g[where][0]}: {b[where]} where gmx has "
                            f"{a[where]}")
        total = sum(abs(x) for x in a)
        drift = abs(sum(b) - sum(a)) / total if total > 0 else 0.0
        print(f"  {name} column {c}: largest difference "
              f"{max(abs(x - y) for x, y in zip(a, b)):.4f}, sum differs by {100 * drift:.3f}%")
        if swaps and drift > 2e-3:
            problems.append(f"column {c}: the sum differs by {100 * drift:.3f}%")
    return problems


def last_row_problems(gmx_file, ours_file):
    """The last rows must be the same r and agree to the printed digit: gmx's partial last bin
    where its -rmax is not a multiple of -bin."""
    g, p = rows(gmx_file), rows(ours_file)
    if len(g) != len(p):
        return [f"{len(p)} rows, gmx wrote {len(g)}"]
    problems = []
    if g[-1][0] != p[-1][0]:
        problems.append(f"last row at r {p[-1][0]}, gmx's at {g[-1][0]}")
    for c in range(1, len(g[-1])):
        if abs(float(g[-1][c]) - float(p[-1][c])) > 0.0011:
            problems.append(f"last row, column {c}: {p[-1][c]} where gmx has {g[-1][c]}")
    print(f"  last row: {' '.join(p[-1])} (gmx: {' '.join(g[-1])})")
    return problems


def paired_waters_tpr(data, work):
    """A .tpr of the NaCl solution whose waters are paired into molecules of two residues, so
    that -surf mol and -surf res differ; None (after printing why) when grompp fails."""
    work = os.path.abspath(work)
    top = f"{work}/paired.top"
    with open(top, "w") as f:
        f.write('#include "oplsaa.ff/forcefield.itp"\n\n[ moleculetype ]\nWW 1\n\n[ atoms ]\n')
        for k, (name, kind, charge) in enumerate(2 * [("OW", "opls_116", -0.8476),
                                                      ("HW1", "opls_117", 0.4238),
                                                      ("HW2", "opls_117", 0.4238)]):
            f.write(f"{k + 1} {kind} {k // 3 + 1} SOL {name} {k // 3 + 1} {charge}\n")
        f.write('\n#include "oplsaa.ff/ions.itp"\n\n[ system ]\npaired waters\n\n'
                "[ molecules ]\nWW 362\nNA 14\nCL 14\n")
    mdp = f"{work}/paired.mdp"
    with open(mdp, "w") as f:
        f.write("integrator = md\nnsteps = 0\ncutoff-scheme = Verlet\n")
    tpr = f"{work}/paired.tpr"
    grompp = subprocess.run(["gmx", "-quiet", "grompp", "-f", mdp, "-p", top, "-c",
                             os.path.abspath(f"{data}/nacl_dodecahedron.gro"), "-o", tpr, "-po",
                             f"{work}/paired-out.mdp", "-maxwarn", "10"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=work)
    if grompp.returncode != 0:
        print(grompp.stdout)
        return None
    return tpr


def main():
    pairhist, data, work = sys.argv[1:4]
    # Absolute: the refused inputs run in the work directory.
    pairhist = os.path.abspath(pairhist) if os.sep in pairhist else pairhist
    data = os.path.abspath(data)
    if shutil.which("gmx") is None:
        print("gmx not found: skipping the comparison with gmx rdf")
        return 77
    os.makedirs(work, exist_ok=True)
    water = ["-f", f"{data}/spce_water.xtc", "-s", f"{data}/spce_water.gro"]
    nacl = ["-f", f"{data}/nacl_dodecahedron.xtc", "-s", f"{data}/fixtures/gmx_nacl.tpr"]
    # Molecules broken across the box (every atom wrapped on its own): centres must be taken of
    # whole molecules, as gmx's -rmpbc makes them.
    broken = f"{work}/nacl_broken.xtc"
    trjconv = subprocess.run(["gmx", "-quiet", "trjconv", "-f", f"{data}/nacl_dodecahedron.xtc",
                              "-s", f"{data}/fixtures/gmx_nacl.tpr", "-pbc", "atom", "-o", broken],
                             input="0\n", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    if trjconv.returncode != 0:
        print(trjconv.stdout)
        return 1
    nacl_broken = ["-f", broken, "-s", f"{data}/fixtures/gmx_nacl.tpr"]
    paired = paired_waters_tpr(data, work)
    if paired is None:
        return 1
    nacl_paired = ["-f", f"{data}/nacl_dodecahedron.xtc", "-s", paired]
    # gmx's input conventions: a multi-frame .gro made by gmx trjconv (the first 31 frames) as
    # -f, names from it or from -n without -s, and the frames of -s without -f.
    water_gro = f"{work}/water_traj.gro"
    trjconv = subprocess.run(["gmx", "-quiet", "trjconv", "-f", f"{data}/spce_water.xtc", "-s",
                              f"{data}/spce_water.gro", "-e", "9", "-o", water_gro],
                             input="0\n", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    if trjconv.returncode != 0:
        print(trjconv.stdout)
        return 1
    # The same frames as a .g96 trajectory (positions without names, 9 decimals), and the
    # sample's structure as a .g96 with names (gmx editconf).
    water_g96 = f"{work}/water_traj.g96"
    conf_g96 = f"{work}/conf.g96"
    for command, stdin in (
            (["trjconv", "-f", f"{data}/spce_water.xtc", "-s", f"{data}/spce_water.gro", "-e",
              "9", "-o", water_g96], "0\n"),
            (["editconf", "-f", f"{data}/spce_water.gro", "-o", conf_g96], None)):
        made = subprocess.run(["gmx", "-quiet"] + command, input=stdin, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if made.returncode != 0:
            print(made.stdout)
            return 1
    water_ndx = f"{data}/fixtures/spce_water.ndx"
    # Spelled out in one case and as gmx's `A to B` in another: both forms are compared with gmx.
    first_ten = " ".join(str(k) for k in range(1, 11))
    cases = {
        "O-O": water + ["-ref", "name OW", "-sel", "name OW", "-rmax", "1.2"],
        "O-H two -sel, -rmax 0": water + ["-ref", "name OW", "-sel", "name HW1", "name HW2"],
        "TPR -excl, triclinic": nacl + ["-ref", "name OW", "-sel", "name HW1 HW2", "name NA",
                                        "-excl", "-rmax", "1.0"],
        "number_density, -b -e": water + ["-ref", "name OW", "-sel", "name HW1", "-rmax", "0.8",
                                          "-norm", "number_density", "-b", "5", "-e", "20"],
        # Distances in the x-y plane (O-O stacked along z come that close), centres too.
        "-xy, -rmax 0": water + ["-ref", "name OW", "-sel", "name OW", "res_com of resname SOL",
                                 "-xy"],
        # Centres (-seltype, "POSTYPE of"), TPR masses; -selrpos moves nothing without position
        # keywords, in gmx as here.
        "-seltype res_com, -selrpos": nacl + ["-ref", "name NA", "-sel", "resname SOL",
                                              "-seltype", "res_com", "-selrpos", "mol_com",
                                              "-rmax", "1.0"],
        # The other position types and prefixes (gmx: part_/dyn_ without position keywords are
        # the selected atoms' centres, whole_ every atom's).
        "-seltype part_res_com, mol_cog of": nacl + [
            "-ref", "name NA", "-sel", "resname SOL", "mol_cog of name OW HW1",
            "-seltype", "part_res_com", "-rmax", "1.0"],
        "dyn_res_com, whole_mol_cog of": nacl_broken + [
            "-ref", "name CL", "-sel", "name OW HW1", "whole_mol_cog of name OW",
            "-seltype", "dyn_res_com", "-rmax", "1.0"],
        # Times in ns; -dt 1.5 ps keeps the frames at multiples of it (every third, 6 to 19.5
        # ps). Many atoms on both sides: around the 14 Na over 10 frames, one pair on a bin edge
        # (gmx's float distances) moves n(r) by 0.007, and g(r) of Na by 0.05.
        "-b -e -dt -tu ns": nacl + ["-ref", "name OW", "-sel", "name OW", "name HW1", "-rmax",
                                    "1.0", "-b", "0.005", "-e", "0.02", "-dt", "0.0015", "-tu",
                                    "ns"],
        "mol_com with itself, broken molecules": nacl_broken + [
            "-ref", "resname SOL", "-sel", "resname SOL", "-seltype", "mol_com", "-rmax", "1.0"],
        "whole_res_com of, res_cog of, broken": nacl_broken + [
            "-ref", "name CL", "-sel", "whole_res_com of name OW", "res_cog of resname SOL",
            "-rmax", "1.0"],
        # A .gro: no masses (both guess them from the atom names), residues only.
        # Dynamic selections, evaluated per frame (triclinic box): normalised by the mean
        # reference atoms and the mean selection density, as gmx does; the selection shares
        # atoms with the reference (the self pairs change per frame), and a dynamic reference.
        # (A reference of the 14 Na atoms puts n(r) 2 edge pairs = 0.002 off gmx's at 0.258 nm,
        # static `-sel "name OW"` as much: gmx's float distances, not the selection.)
        "dynamic within, triclinic": nacl + ["-ref", "name OW", "-sel",
                                             "name OW and within 0.5 of resname NA",
                                             "within 0.45 of name CL", "-rmax", "1.0"],
        "dynamic reference": nacl + ["-ref", "name OW and within 0.6 of name NA", "-sel",
                                     "name OW", "name CL", "-rmax", "1.0"],
        # -excl among each frame's selected atoms: a dynamic -sel, then a dynamic reference
        # holding whole waters' atoms and a dynamic -sel of whole waters.
        "dynamic -sel, TPR -excl": nacl + ["-ref", "name OW", "-sel",
                                           "name HW1 HW2 and within 0.5 of name NA", "-excl",
                                           "-rmax", "1.0"],
        "dynamic reference, TPR -excl": nacl + [
            "-ref", "name OW HW1 HW2 and within 0.5 of name NA", "-sel", "name HW1 HW2",
            "resname SOL and within 0.6 of name CL", "-excl", "-rmax", "1.0"],
        # -xy with dynamic selections: evaluated in 3D as gmx does (selecting after the z are
        # flattened moves g(r) by 10%), normalised by each frame's area.
        "-xy, dynamic reference and -sel, -rmax 0": water + [
            "-ref", "name OW and within 0.4 of resid 1 to 10", "-sel", "name OW",
            "name HW1 HW2 and within 0.5 of resid 11 to 40", "-xy"],
        "GRO res_cog, res_com": water + ["-ref", "resname SOL", "-sel", "resname SOL",
                                         "res_com of resname SOL", "-seltype", "res_cog",
                                         "-rmax", "1.2"],
        # -cut on a half-bin edge (0.3) and between two (0.3005: gmx's row at 0.300 holds half
        # the bin), with the reference as a selection (ordered pairs) and -excl.
        "-cut on and off a half-bin edge": nacl + ["-ref", "name OW", "-sel", "name OW",
                                                   "name NA", "-cut", "0.3005", "-rmax", "1.0"],
        "-cut 0.3, -excl, number_density": nacl + ["-ref", "resname SOL", "-sel", "resname SOL",
                                                   "-excl", "-cut", "0.3", "-rmax", "0.8",
                                                   "-norm", "number_density"],
        "-cut beyond -rmax": water + ["-ref", "name OW", "-sel", "name HW1", "-cut", "0.9",
                                      "-rmax", "0.6"],
        # -surf: per -sel position the nearest atom of every molecule / residue of -ref.
        "-surf mol": nacl + ["-ref", "resname SOL", "-sel", "name NA", "name CL",
                             "-surf", "mol", "-rmax", "1.0"],
        "-surf res, -cut, centres, the reference itself": nacl + [
            "-ref", "resname SOL", "-sel", "res_com of resname SOL", "resname SOL", "name NA",
            "-surf", "res", "-cut", "0.25", "-rmax", "1.0", "-norm", "none"],
        "-surf mol, molecules of two residues": nacl_paired + [
            "-ref", "resname SOL", "-sel", "name NA", "name OW", "-surf", "mol", "-rmax", "1.0"],
        "-surf res, molecules of two residues": nacl_paired + [
            "-ref", "resname SOL", "-sel", "name NA", "name OW", "-surf", "res", "-rmax", "1.0"],
        "-surf mol, .gro: one molecule": water + ["-ref", "name OW", "-sel", "name HW1",
                                                  "-surf", "mol", "-rmax", "0.6"],
        "-surf res, dynamic reference, triclinic": nacl + [
            "-ref", "resname SOL and within 0.5 of name NA", "-sel", "name CL", "name NA",
            "-surf", "res", "-rmax", "1.0"],
        "-surf res, -xy": water + ["-ref", "resname SOL", "-sel", "name OW", "-surf", "res",
                                   "-xy", "-rmax", "0.8"],
        "-surf res, -xy, dynamic reference": water + [
            "-ref", f"resname SOL and within 0.5 of resid {first_ten}", "-sel", "name OW",
            "-surf", "res", "-xy", "-rmax", "0.8"],
        # gmx's input conventions (issue 39).
        # (gmx takes no names from -f: pairhist's -f .gro without -s and -n, the same rows as
        # with -s, is checked in tests/test_cli_gmx_inputs.cpp.)
        "-f .gro trajectory": ["-f", water_gro, "-s", f"{data}/spce_water.gro", "-ref",
                               "name OW", "-sel", "name OW", "name HW1", "-rmax", "1.2"],
        "-f .gro trajectory -n, no -s": ["-f", water_gro, "-n", water_ndx, "-ref", "OW", "-sel",
                                         "OW", "1", "-rmax", "1.2"],
        "-f .xtc -n, no -s": ["-f", f"{data}/spce_water.xtc", "-n", water_ndx, "-ref", "OW",
                              "-sel", "OW", "-rmax", "1.2", "-e", "9"],
        "-f .g96 trajectory": ["-f", water_g96, "-s", f"{data}/spce_water.gro", "-ref",
                               "name OW", "-sel", "name OW", "name HW1", "-rmax", "1.2"],
        "-s .gro, no -f: its frame": ["-s", f"{data}/spce_water.gro", "-ref", "name OW", "-sel",
                                      "name OW", "name HW1"],
        "-s .g96, no -f: its frame": ["-s", conf_g96, "-ref", "name OW", "-sel", "name OW",
                                      "name HW1"],
        "-s .tpr, no -f: its frame, -excl": ["-s", f"{data}/fixtures/gmx_nacl.tpr", "-ref",
                                             "name OW", "-sel", "name HW1 HW2", "name NA",
                                             "-excl", "-rmax", "1.0"],
    }
    # Inputs that give no frames or no names: gmx refuses them, and pairhist (exit 2). Run in
    # the work directory, where no topol.tpr is.
    no_names = ["-f", f"{data}/spce_water.xtc", "-n", water_ndx]
    refused_inputs = {
        "no -f, no -s": ["-ref", "name OW", "-sel", "name OW"],
        "-f .xtc, no -s, selections by name": ["-f", f"{data}/spce_water.xtc", "-ref", "name OW",
                                              "-sel", "name OW"],
        "-f .xtc -n, no -s, a selection by name": no_names + ["-ref", "name OW", "-sel", "OW"],
        "-f .xtc -n, no -s, -seltype res_com": no_names + ["-ref", "OW", "-sel", "OW",
                                                          "-seltype", "res_com"],
    }
    # -rmax not a multiple of -bin: gmx counts the pairs at r < rmax, its last row partial and
    # written as counted. That row must agree to the printed digit (no edge allowance): counting
    # up to the next half-bin edge moved it by 5-10%.
    partial_last_row = {
        "-rmax not a multiple of -bin": water + ["-ref", "name OW", "-sel", "name OW",
                                                 "name HW1", "-bin", "0.05", "-rmax", "0.92172"],
        "-rmax 0 not a multiple of -bin, triclinic": nacl + ["-ref", "name OW", "-sel",
                                                             "name OW", "-bin", "0.05"],
        "-xy, -rmax not a multiple of -bin": water + ["-ref", "name OW", "-sel", "name OW",
                                                      "-xy", "-bin", "0.05", "-rmax", "0.92172"],
        # gmx's half-bin count is rmax / half rounded to the nearest: at -rmax 0.93, 37 half
        # bins up to 0.925, no pair beyond counted, n(r) 18 rows to 0.90, g(r) 19.
        "-rmax 0.93 (half bins rounded down), -bin 0.05": water + [
            "-ref", "name OW", "-sel", "name OW", "-bin", "0.05", "-rmax", "0.93"],
        "-surf res, -rmax not a multiple of -bin": nacl + [
            "-ref", "resname SOL", "-sel", "name NA", "-surf", "res", "-bin", "0.05", "-rmax",
            "0.92"],
        "-bin 0.002, -rmax 0.92172": water + ["-ref", "name OW", "-sel", "name OW", "-rmax",
                                              "0.92172"],
    }
    cases.update(partial_last_row)
    # What gmx refuses with -surf: refused here as well (exit 2).
    refused = {
        "-surf with -norm rdf": ["-norm", "rdf"],
        "-surf with -excl": ["-excl"],
        "-surf with a -ref of centres": ["-seltype", "res_com"],
    }
    failed = []
    for name, extra in refused.items():
        args = nacl + ["-ref", "resname SOL", "-sel", "name NA", "-surf", "mol", "-e", "1",
                       "-o", f"{work}/refused.xvg"] + extra
        codes = [subprocess.run(c + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
                                ).returncode for c in (["gmx", "-quiet", "rdf"], [pairhist, "rdf"])]
        print(f"{name}: gmx exits {codes[0]}, pairhist {codes[1]}")
        if codes[0] == 0 or codes[1] != 2:
            failed.append(f"{name}: gmx exited {codes[0]}, pairhist {codes[1]}")
    for name, args in refused_inputs.items():
        runs = [subprocess.run(c + args + ["-o", f"{work}/refused.xvg"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, cwd=work)
                for c in (["gmx", "-quiet", "rdf"], [pairhist, "rdf"])]
        said = [line for line in runs[1].stdout.splitlines() if line.startswith("pairhist: error")]
        print(f"{name}: gmx exits {runs[0].returncode}, pairhist {runs[1].returncode}: {said}")
        # gmx 2022 reports "No trajectory or topology provided, nothing to do!" and yet exits 0.
        gmx_refused = runs[0].returncode != 0 or "nothing to do" in runs[0].stdout
        if not gmx_refused or runs[1].returncode != 2 or len(said) != 1:
            failed.append(f"{name}: gmx exited {runs[0].returncode}, pairhist "
                          f"{runs[1].returncode} with {len(said)} error lines")
    for i, (name, args) in enumerate(cases.items()):
        files = {who: [f"{work}/{who}{i}-rdf.xvg", f"{work}/{who}{i}-cn.xvg"]
                 for who in ("gmx", "ours")}
        for who, command in (("gmx", ["gmx", "-quiet", "rdf"]), ("ours", [pairhist, "rdf"])):
            run = subprocess.run(command + args + ["-o", files[who][0], "-cn", files[who][1]],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if run.returncode != 0:
                print(run.stdout)
                failed.append(f"{name}: {who} exited {run.returncode}")
        if any(f.startswith(name) for f in failed):
            continue
        print(f"{name}:")
        # Centres are not on the XTC's 0.001 nm grid, and gmx sums them in float where pairhist
        # sums in double: a pair within ~1e-6 nm of an edge of n(r) may fall on the other side.
        # 3e-5 of n(r) is about two such pairs at 0.9 nm around 14 ions over 61 frames.
        # With -xy XTC coordinates put many more pairs exactly on an edge (0.003 and 0.004 apart
        # in x and y: 0.005), and g(r) of the first rows, rings of tiny area, moves by 0.07 per
        # pair: those rows count in the sums only.
        # -surf mol on a .gro has one surface group, so n(r) is per frame, not per reference
        # atom: a pair is 1/61 of a row, and SPC/E's rigid 0.1 nm O-H bond puts ~10 of them
        # exactly on the edge at r = 0.100 (0.16 = 4e-4 of n(r) there).
        centres = any(w in " ".join(args) for w in ("_com", "_cog"))
        xy = "-xy" in args
        one_group = name.endswith("one molecule")
        # One frame (-s without -f): an ordered pair on a half-bin edge is 2/N_ref of n(r)
        # (0.0023 for 884 OW; the .gro's coordinates, like the XTC's, lie on the 0.001 nm grid),
        # 101 times its weight in the trajectory's cases, and g(r)'s rows near the first shell
        # move by up to 0.04 per pair (the XTC's frame 0 alone, -e 0, differs from gmx likewise).
        one_frame = name.endswith("its frame") or name.endswith("its frame, -excl")
        for what, k, swaps in (("g(r)", 0, True), ("n(r)", 1, False)):
            relative = 0.03 if one_frame else 0.0
            if not swaps:
                relative = 1e-3 if one_group or one_frame else 3e-5 if centres or xy else 0.0
            failed += [f"{name}: {what}: {p}"
                       for p in compare(what, files["gmx"][k], files["ours"][k], swaps,
                                        relative, 0.03 if xy else 0.0)]
            if name in partial_last_row:
                failed += [f"{name}: {what}: {p}"
                           for p in last_row_problems(files["gmx"][k], files["ours"][k])]
    for f in failed:
        print("FAILED:", f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
