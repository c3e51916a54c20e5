"""pairhist.mdanalysis's InterRDF / InterRDF_s offer MDAnalysis 2.x's public API, checked on small
systems built here: the deprecated result attributes (rdf, bins, edges, count; cdf of
InterRDF_s) warn with MDAnalysis's DeprecationWarning and return results' arrays; InterRDF_s's
deprecated `u` and `density` warn too; errors have MDAnalysis's type and words; norm spellings;
range from an r_min; run(start, stop, step) and run(frames=...); get_cdf(); exclusion_block;
exclude_same; every norm equal to MDAnalysis's on the same frames. Usage: check_mdanalysis_api.py
"""

import types
import warnings

import numpy as np

warnings.filterwarnings("ignore", category=DeprecationWarning)  # but where warns() looks
import MDAnalysis as mda  # noqa: E402
from MDAnalysis.analysis import rdf as mda_rdf  # noqa: E402

import pairhist  # noqa: E402
from pairhist import mdanalysis as ph_rdf  # noqa: E402

failures = []


def check(name, condition, detail=""):
    print(f"{'ok  ' if condition else 'FAIL'} {name} {detail}")
    if not condition:
        failures.append(name)


def raises(name, kind, words, call):
    """call() raises `kind` whose message contains `words`."""
    try:
        call()
    except kind as error:
        check(name, words in str(error), f"({error})")
        return
    except Exception as error:  # noqa: BLE001  (a wrong type is a failure, named)
        check(name, False, f"({type(error).__name__}: {error})")
        return
    check(name, False, "(nothing raised)")


def warns(name, words, call):
    """call() warns with a DeprecationWarning containing `words`; returns call()'s value."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    check(name, any(issubclass(w.category, DeprecationWarning) and words in str(w.message)
                    for w in caught), f"({[str(w.message)[:60] for w in caught]})")
    return value


def universe(frames=6, residues=20, seed=7, side=24.0):
    """`residues` three-atom molecules (O, H, H) in different residues and two segments, random
    float32 positions inside an orthorhombic box of `side` Angstrom, `frames` frames in memory.
    Random coordinates: no pair lies within rounding of a bin edge here (checked against
    MDAnalysis below, the counts are equal)."""
    n = 3 * residues
    u = mda.Universe.empty(n, n_residues=residues, n_segments=2,
                           atom_resindex=np.repeat(np.arange(residues), 3),
                           residue_segindex=np.arange(residues) % 2, trajectory=True)
    u.add_TopologyAttr("names", ["O", "H1", "H2"] * residues)
    u.add_TopologyAttr("resids", np.arange(1, residues + 1))
    u.add_TopologyAttr("chainIDs", np.repeat(["A", "B"], n // 2 + 1)[:n])
    rng = np.random.default_rng(seed)
    xyz = rng.uniform(0.0, side, size=(frames, n, 3)).astype(np.float32)
    box = np.tile(np.array([side, side, side, 90, 90, 90], dtype=np.float32), (frames, 1))
    u.load_new(xyz, format=mda.coordinates.memory.MemoryReader, dimensions=box)
    return u


class _EngineWithRmin(pairhist.Engine):
    """An engine that bins [r_min, r_max) (n_bins of them), emulated here with a real one binning
    from 0 and dropping the bins below r_min (r_min a multiple of the width): what the drop-in
    hands range[0] to where the engine takes r_min."""

    def __init__(self, species, *, r_min, r_max, n_bins, **options):
        self._skip = round(r_min / ((r_max - r_min) / n_bins))
        super().__init__(species, r_max=r_max, n_bins=n_bins + self._skip, **options)

    def finish(self):
        return {key: h[self._skip:] for key, h in super().finish().items()}


def _helpers_with_r_min():
    """pair_bins / pair_bin_indices taking r_min, emulated as _EngineWithRmin."""
    real = pairhist._pairhist

    def skip(r_min, r_max, n_bins):
        return round(r_min / ((r_max - r_min) / n_bins))

    def pair_bins(frame, rows, cols, box, kind, *, precision, r_min, r_max, n_bins):
        """pair_bins(..., r_min, r_max, n_bins)"""
        k = skip(r_min, r_max, n_bins)
        return real.pair_bins(frame, rows, cols, box, kind, r_max, n_bins + k, precision)[k:]

    def pair_bin_indices(frame, rows, cols, box, kind, *, precision, r_min, r_max, n_bins):
        """pair_bin_indices(..., r_min, r_max, n_bins)"""
        k = skip(r_min, r_max, n_bins)
        return real.pair_bin_indices(frame, rows, cols, box, kind, r_max, n_bins + k,
                                     precision) - k

    return types.SimpleNamespace(
        pair_bins=pair_bins, pair_bin_indices=pair_bin_indices,
        rmax_fits_minimum_image=real.rmax_fits_minimum_image,
        minimum_image_limit=real.minimum_image_limit)


def check_r_min_pass_through(u, oxygens, hydrogens, ags, rmax):
    """Where the engine takes r_min, the drop-in hands range[0] to it (no bins dropped, no zero
    distances of a group with itself in the first bin): with an emulated one, MDAnalysis's
    counts."""
    saved = ph_rdf.Engine, ph_rdf._pairhist
    ph_rdf.Engine, ph_rdf._pairhist = _EngineWithRmin, _helpers_with_r_min()
    try:
        check("an engine taking r_min is recognised", ph_rdf._takes_r_min())
        options = dict(nbins=32, range=(2.4, rmax))
        for name, groups, extra in (("O-H", (oxygens, hydrogens), {}),
                                    ("O-O itself", (oxygens, oxygens), {}),
                                    ("all-all, exclusion_block (3, 3)", (u.atoms, u.atoms),
                                     dict(exclusion_block=(3, 3)))):
            theirs = mda_rdf.InterRDF(*groups, **options, **extra).run()
            ours = ph_rdf.InterRDF(*groups, ncpu=1, **options, **extra).run()
            check(f"r_min through the engine, {name}: counts",
                  np.array_equal(ours.results.count, theirs.results.count),
                  f"({ours.results.count.sum()} vs {theirs.results.count.sum()} pairs)")
        theirs = mda_rdf.InterRDF_s(u, ags, **options).run()
        ours = ph_rdf.InterRDF_s(u, ags, **options).run()
        check("r_min through the pair helpers, InterRDF_s: counts",
              all(np.array_equal(a, b) for a, b in zip(ours.results.count, theirs.results.count)))
    finally:
        ph_rdf.Engine, ph_rdf._pairhist = saved
    check("this build's engine restored", ph_rdf.Engine is pairhist.Engine)


def main():
    u = universe()
    oxygens, hydrogens = u.select_atoms("name O"), u.select_atoms("name H1 H2")
    rmax = 12.0

    # Deprecated result attributes: MDAnalysis's warning, results' very arrays.
    rdf = ph_rdf.InterRDF(oxygens, hydrogens, nbins=40, range=(0.0, rmax), ncpu=1).run()
    for attr in ("rdf", "bins", "edges", "count"):
        value = warns(f"InterRDF.{attr} warns", f"The `{attr}` attribute was deprecated in "
                      f"MDAnalysis 2.0.0", lambda: getattr(rdf, attr))
        check(f"InterRDF.{attr} is results.{attr}", value is rdf.results[attr])

    # InterRDF_s: `u` and `density` deprecated as in MDAnalysis; the result attributes too.
    ags = [[oxygens[:2], hydrogens[:3]], [oxygens[2:5], hydrogens[4:6]]]
    site = warns("InterRDF_s(u, ...) warns of u", "The `u` attribute is superflous",
                 lambda: ph_rdf.InterRDF_s(u, ags, nbins=40, range=(0.0, rmax)))
    site.run()
    site.get_cdf()
    for attr in ("rdf", "bins", "edges", "count", "cdf"):
        value = warns(f"InterRDF_s.{attr} warns", f"The `{attr}` attribute was deprecated in "
                      f"MDAnalysis 2.0.0", lambda: getattr(site, attr))
        check(f"InterRDF_s.{attr} is results.{attr}", value is site.results[attr])
    dense = warns("InterRDF_s(density=True) warns", "The `density` attribute was deprecated",
                  lambda: ph_rdf.InterRDF_s(u, ags, norm="rdf", density=True))
    check("InterRDF_s(density=True) means norm='density'", dense.norm == "density")

    # get_cdf(): running sums of each site pair's counts per frame, as MDAnalysis's.
    theirs_s = mda_rdf.InterRDF_s(u, ags, nbins=40, range=(0.0, rmax)).run()
    theirs_s.get_cdf()
    for i in range(len(ags)):
        check(f"InterRDF_s count[{i}] = MDAnalysis's",
              np.array_equal(site.results.count[i], theirs_s.results.count[i]))
        check(f"InterRDF_s get_cdf()[{i}] = MDAnalysis's",
              np.array_equal(site.results.cdf[i], theirs_s.results.cdf[i]))
        check(f"InterRDF_s cdf[{i}] ends at the counts per frame",
              np.allclose(site.results.cdf[i][..., -1],
                          site.results.count[i].sum(axis=2) / site.n_frames, rtol=1e-15))

    # Errors: MDAnalysis's types and words.
    raises("unknown norm", ValueError, "invalid norm",
           lambda: ph_rdf.InterRDF(oxygens, hydrogens, norm="foo"))
    raises("unknown norm (InterRDF_s)", ValueError, "invalid norm",
           lambda: ph_rdf.InterRDF_s(u, ags, norm="foo"))
    raises("unknown exclude_same", ValueError,
           "The exclude_same argument to InterRDF must be None, 'residue', 'segment' or 'chain'",
           lambda: ph_rdf.InterRDF(hydrogens, hydrogens, exclude_same="molecule"))
    raises("exclude_same with exclusion_block", ValueError,
           "The exclude_same argument to InterRDF cannot be used with exclusion_block",
           lambda: ph_rdf.InterRDF(hydrogens, hydrogens, exclude_same="residue",
                                   exclusion_block=()))
    for norm, meant in (("Density", "density"), (None, "none"), ("RDF", "rdf")):
        check(f"norm={norm!r} is {meant!r}",
              ph_rdf.InterRDF(oxygens, hydrogens, norm=norm).norm == meant)

    # Every norm, exclusion_block, and run(start, stop, step) / run(frames=...): MDAnalysis's
    # counts and curves on the same frames.
    cases = [
        ("O-H, norm rdf", (oxygens, hydrogens), dict(norm="rdf"), {}),
        ("O-H, norm density", (oxygens, hydrogens), dict(norm="density"), {}),
        ("O-H, norm none", (oxygens, hydrogens), dict(norm="none"), {}),
        ("O-O itself", (oxygens, oxygens), {}, {}),
        ("O-H, exclusion_block (1, 2)", (oxygens, hydrogens), dict(exclusion_block=(1, 2)), {}),
        ("all-all, exclusion_block (3, 3)", (u.atoms, u.atoms), dict(exclusion_block=(3, 3)), {}),
        ("O-H, run(1, 5, 2)", (oxygens, hydrogens), {}, dict(start=1, stop=5, step=2)),
        ("O-H, run(frames=[0, 3, 5])", (oxygens, hydrogens), {}, dict(frames=[0, 3, 5])),
        ("O-H, range (2.4, 12.0): r_min a multiple of the bin width", (oxygens, hydrogens),
         dict(range=(2.4, rmax)), {}),
    ]
    for name, groups, options, run_options in cases:
        options = dict(dict(nbins=40, range=(0.0, rmax)), **options)
        theirs = mda_rdf.InterRDF(*groups, **options).run(**run_options)
        ours = ph_rdf.InterRDF(*groups, ncpu=2, **options).run(**run_options)
        check(f"{name}: frames", ours.n_frames == theirs.n_frames,
              f"({ours.n_frames} vs {theirs.n_frames})")
        check(f"{name}: edges", np.array_equal(ours.results.edges, theirs.results.edges))
        check(f"{name}: counts", np.array_equal(ours.results.count, theirs.results.count),
              f"({ours.results.count.sum()} vs {theirs.results.count.sum()} pairs)")
        check(f"{name}: results.rdf", np.allclose(ours.results.rdf, theirs.results.rdf,
                                                  rtol=1e-12, atol=0))
    frames = [0, 3, 5]
    ours = ph_rdf.InterRDF(oxygens, hydrogens, nbins=40, range=(0.0, rmax), norm="none").run(
        frames=frames)
    single = [ph_rdf.InterRDF(oxygens, hydrogens, nbins=40, range=(0.0, rmax),
                              norm="none").run(start=f, stop=f + 1).results.count for f in frames]
    check("run(frames=...) counts the frames named",
          np.array_equal(ours.results.count, np.sum(single, axis=0)))

    # exclude_same (MDAnalysis 2.5+): pairs in the same residue / segment / chain left out.
    h = hydrogens
    for attr, same in (("residue", h.resindices), ("segment", h.segindices),
                       ("chain", h.chainIDs)):
        ours = ph_rdf.InterRDF(h, h, nbins=40, range=(0.0, rmax), exclude_same=attr,
                               norm="none").run(stop=1)
        check(f"exclude_same={attr!r}: the attribute compared, as MDAnalysis names it",
              ours.exclude_same == {"residue": "resindices", "segment": "segindices",
                                    "chain": "chainIDs"}[attr])
        u.trajectory[0]
        d = mda.lib.distances.distance_array(h.positions, h.positions, box=u.dimensions)
        keep = (same[:, None] != same[None, :]) & (d < rmax)
        expected, _ = np.histogram(d[keep], bins=40, range=(0.0, rmax))
        check(f"exclude_same={attr!r}: the other {attr}s' pairs",
              np.array_equal(ours.results.count, expected),
              f"({int(ours.results.count.sum())} vs {int(expected.sum())} pairs)")

    # range from an r_min that is not a multiple of the bin width: binned from r_min where the
    # engine takes one, else refused with the reason (never binned wrongly).
    if ph_rdf._takes_r_min():
        # (MDAnalysis's own test uses 13.0: beyond this box's half-box limit of 12.)
        theirs = mda_rdf.InterRDF(oxygens, hydrogens, range=(1.0, 12.0)).run()
        ours = ph_rdf.InterRDF(oxygens, hydrogens, range=(1.0, 12.0)).run()
        check("range (1.0, 12.0): edges", np.array_equal(ours.results.edges, theirs.results.edges))
        check("range (1.0, 12.0): counts",
              np.array_equal(ours.results.count, theirs.results.count))
        check("range (1.0, 12.0): rdf", np.allclose(ours.results.rdf, theirs.results.rdf,
                                                     rtol=1e-12, atol=0))
    else:
        raises("range (1.0, 13.0) without the engine's r_min", ValueError,
               "is not a multiple of the bin width",
               lambda: ph_rdf.InterRDF(oxygens, hydrogens, range=(1.0, 13.0)))
        raises("range (1.0, 13.0) without the engine's r_min (InterRDF_s)", ValueError,
               "is not a multiple of the bin width",
               lambda: ph_rdf.InterRDF_s(u, ags, range=(1.0, 13.0)))

    check_r_min_pass_through(u, oxygens, hydrogens, ags, rmax)

    if failures:
        print(f"{len(failures)} failed: {', '.join(failures)}")
        raise SystemExit(1)
    print("all passed")


if __name__ == "__main__":
    main()
