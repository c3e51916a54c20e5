"""pairhist.scattering() against `pairhist scattering` on the same run: the same intensities,
partials, weights and structure factors as the command's CSV files (to their 10 digits), q given
as an array, element and deuterate as dicts or numbers; bad arguments raise ValueError with one
line. Usage: check_scattering.py DATA_DIR PAIRHIST_BINARY WORKDIR"""

import os
import subprocess
import sys
import warnings

import numpy as np

import pairhist
from check_support import check, failures, refused

data, binary, work = sys.argv[1], sys.argv[2], sys.argv[3]


def read_csv(path):
    lines = [line for line in open(path) if not line.startswith("#")]
    names = lines[0].strip().split(",")
    values = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    return {n: values[:, i] for i, n in enumerate(names)}


def same(a, b):
    """Equal to the CSV's 10 significant digits."""
    return np.allclose(a, b, rtol=1e-9, atol=1e-9 * np.abs(b).max())


def cli(*args):
    subprocess.run([binary, *args], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


run_dir = os.path.join(work, "py-scattering")
cli("run", f"{data}/spce_water.xtc", "--top", f"{data}/spce_water.gro", "--species", "O=OW",
    "--species", "H=HW1,HW2", "--rmax", "1.2", "--nbins", "240", "--last", "4", "--ncpu", "2",
    "-q", "--overwrite", "-o", run_dir)

# X-ray intensity: guesses are warned, the arrays are the command's.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x = pairhist.scattering(run_dir, q_max=40, nq=81)
check("guessed elements warned", any("HW1 -> H" in str(w.message) for w in caught))
check("guesses returned", x["guesses"] == ["HW1 -> H", "HW2 -> H", "OW -> O"], str(x["guesses"]))
cli("scattering", run_dir, "--q-max", "40", "--nq", "81", "--cut-sphere-intensity")
csv = read_csv(os.path.join(run_dir, "intensity.csv"))
check("q", same(x["q"], csv["q_per_nm"]) and x["q"].dtype == np.float64)
check("I", same(x["I"], csv["I"]))
check("partials keyed by species pairs", list(x["partials"]) == [("O", "O"), ("O", "H"),
                                                                   ("H", "H")])
check("partials", all(same(x["partials"][(a, b)], csv[f"I_{a}-{b}"])
                      for a, b in x["partials"]))
check("partials sum to I", np.allclose(sum(x["partials"].values()), x["I"], rtol=1e-12))
check("weights", same(x["weights"]["O"], csv["f_O"]) and same(x["weights"]["H"], csv["f_H"]))
check("header", x["header"][0].startswith("pairhist ") and any(
    "periodic box" in n for n in x["notes"]))

# Neutron D2O on given q values, elements and deuteration as Python values.
q = np.array([0.5, 3.0, 12.0, 33.3])
n = pairhist.scattering(run_dir, radiation="neutron", q=q, element={"O": "O", "H": "H"},
                        deuterate=1.0)
check("no guesses with element=", n["guesses"] == [])
check("q as given", np.array_equal(n["q"], q))
check("deuterated weight", np.allclose(n["weights"]["H"], 6.671))
check("deuterate as a dict", np.array_equal(pairhist.scattering(
    run_dir, radiation="neutron", q=q, element={"O": "O", "H": "H"}, deuterate={"H": 1})["I"],
    n["I"]))

# Structure factors.
s = pairhist.scattering(run_dir, structure_factor=True, element={"O": "O", "H": "H"})
cli("scattering", run_dir, "--structure-factor", "--element", "O=O", "--element", "H=H")
csv = read_csv(os.path.join(run_dir, "sq.csv"))
check("S", same(s["S"], csv["S"]))
check("F", same(s["F"], csv["F"]))
check("S partials", all(same(s["partials"][(a, b)], csv[f"S_{a}-{b}"]) for a, b in s["partials"]))
check("density", abs(s["density"] - 100) < 3, str(s["density"]))
check("concentrations", np.isclose(s["concentrations"]["O"], 1 / 3))
w = pairhist.scattering(run_dir, structure_factor=True, window="none",
                        element={"O": "O", "H": "H"})
check("window changes S", not np.allclose(w["S"], s["S"]))

# The command's .h5 files read back: the arrays pairhist.scattering() returns, bit for bit.
cli("scattering", run_dir, "--q-max", "40", "--nq", "81", "--cut-sphere-intensity")
h = pairhist.read_scattering(os.path.join(run_dir, "intensity.h5"))
check("h5 q and I bit for bit", np.array_equal(h["q"], x["q"]) and np.array_equal(h["I"], x["I"]))
check("h5 partials bit for bit", list(h["partials"]) == list(x["partials"]) and all(
    np.array_equal(h["partials"][k], x["partials"][k]) for k in x["partials"]))
check("h5 weights bit for bit", all(np.array_equal(h["weights"][k], x["weights"][k])
                                    for k in x["weights"]))
check("h5 says what it is", h["quantity"] == "intensity" and h["radiation"] == "xray" and
      h["units"] == {"q": "1/nm", "I": "electrons^2 per frame", "weights": "electrons"} and
      h["scatterers"] == {"O": "O", "H": "H"} and h["atoms"] == {"O": 884, "H": 1768} and
      h["n_frames"] == 5 and h["complete"] and h["header"] == x["header"],
      str({k: h[k] for k in ("quantity", "units", "scatterers", "atoms", "n_frames")}))
hs = pairhist.read_scattering(os.path.join(run_dir, "sq.h5"))
check("h5 S, F, density bit for bit", np.array_equal(hs["S"], s["S"]) and
      np.array_equal(hs["F"], s["F"]) and hs["density"] == s["density"] and
      hs["concentrations"] == s["concentrations"] and hs["options"]["window"] == "lorch")
# The excess over a run is its intensity less the other's: over itself, nothing.
e = pairhist.scattering(run_dir, subtract=run_dir, q_max=40, nq=81)
check("excess over itself", np.array_equal(e["I_solution"], x["I"]) and
      np.array_equal(e["I_solvent"], x["I"]) and not e["dI"].any() and
      list(e["partials"]) == list(x["partials"]) and not any(v.any() for v in
                                                            e["partials"].values()))
refused("subtract with structure_factor",
        lambda: pairhist.scattering(run_dir, subtract=run_dir, structure_factor=True))

# The sphere excess of two --sphere runs in interval blocks, the solvent density matched in a
# shell (match_shell): the command's dI, its errors and P(r); match_shell alone is refused.
spheres = {}
for role, centre in (("solution", "resid 1-3"), ("solvent", "resid 200-202")):
    spheres[role] = os.path.join(work, "py-sphere-" + role)
    cli("run", f"{data}/spce_water.xtc", "--top", f"{data}/spce_water.gro", "--species", "O=OW",
        "--species", "H=HW1,HW2", "--sphere", f"{centre},1.0", "--nbins", "200", "--last", "5",
        "--interval", "2", "--ncpu", "2", "-q", "--overwrite", "-o", spheres[role])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the guesses, checked above
    m = pairhist.scattering(spheres["solution"], subtract=spheres["solvent"], q_max=30, nq=61,
                            match_shell=0.3)
cli("scattering", spheres["solution"], "--subtract", spheres["solvent"], "--q-max", "30", "--nq",
    "61", "--match-shell", "0.3", "--overwrite")
csv_m = read_csv(os.path.join(spheres["solution"], "excess.csv"))
pr = read_csv(os.path.join(spheres["solution"], "excess_pr.csv"))
check("match_shell: the command's dI", same(m["dI"], csv_m["dI"]) and
      any("density matching (--match-shell 0.3 nm)" in line for line in m["header"]))
check("sphere excess errors", "dIerr" in m and same(m["dIerr"], csv_m["dIerr"]) and
      (m["dIerr"][1:] > 0).all() and len(m["partial_errors"]) == 3)
check("P(r) of the excess", same(m["distribution"]["P"], pr["P"]) and
      same(m["distribution"]["r"], pr["r_nm"]))
h_m = pairhist.read_scattering(os.path.join(spheres["solution"], "excess.h5"))
check("excess.h5 P(r)", np.array_equal(h_m["distribution"]["P"], m["distribution"]["P"]))
refused("match_shell without subtract", lambda: pairhist.scattering(run_dir, match_shell=0.3))
refused("match_shell 0", lambda: pairhist.scattering(spheres["solution"],
                                                     subtract=spheres["solvent"], match_shell=0))

# q in 1/A and absolute intensities: the command's numbers, the units said; MAFF and W-K.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the guesses, checked above
    xa = pairhist.scattering(run_dir, q_max=4, nq=81, q_unit="A", concentration=0.01,
                             molecules=2, form_factors="wk", water_factors="maff")
cli("scattering", run_dir, "--q-max", "4", "--nq", "81", "--q-unit", "A", "--concentration",
    "0.01", "--molecules", "2", "--form-factors", "wk", "--water-factors", "maff",
    "--cut-sphere-intensity", "--overwrite",
    "-o", os.path.join(work, "py-units"))
csv_a = read_csv(os.path.join(work, "py-units", "intensity.csv"))
check("q in 1/A", same(xa["q"], csv_a["q_per_A"]) and np.allclose(xa["q"], x["q"] / 10,
                                                                      rtol=1e-12))
check("I in 1/cm", same(xa["I"], csv_a["I"]) and same(xa["weights"]["O"], csv_a["f_O"]))
check("units said", xa["units"] == {"q": "1/A", "I": "1/cm", "weights": "electrons"},
      str(xa["units"]))
refused("per molecule without molecules", lambda: pairhist.scattering(run_dir, per="molecule"))
refused("molecules not a number", lambda: pairhist.scattering(run_dir, molecules="two"))
refused("form_factors 'wk95'", lambda: pairhist.scattering(run_dir, form_factors="wk95"))
refused("concentration with structure_factor",
        lambda: pairhist.scattering(run_dir, structure_factor=True, concentration=1, molecules=1))

refused("read_scattering of a pairhist.h5",
        lambda: pairhist.read_scattering(os.path.join(run_dir, "pairhist.h5")))
refused("read_scattering of nothing", lambda: pairhist.read_scattering(os.path.join(work, "no.h5")))

refused("missing run", lambda: pairhist.scattering(os.path.join(work, "nothing")))
refused("radiation 'gamma'", lambda: pairhist.scattering(run_dir, radiation="gamma"))
refused("window 'hann'", lambda: pairhist.scattering(run_dir, structure_factor=True,
                                                     window="hann"))
refused("decreasing q", lambda: pairhist.scattering(run_dir, q=[2.0, 1.0]))
refused("negative q_max", lambda: pairhist.scattering(run_dir, q_max=-1))
refused("unknown species in element", lambda: pairhist.scattering(run_dir, element={"X": "O"}))

sys.exit(1 if failures else 0)
