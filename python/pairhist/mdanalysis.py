"""Drop-ins for MDAnalysis's radial distribution functions, counted by pairhist.

    from pairhist.mdanalysis import InterRDF      # instead of MDAnalysis.analysis.rdf

    rdf = InterRDF(u.select_atoms("name OW"), u.select_atoms("name OW"), nbins=120,
                   range=(0.0, 12.0))
    rdf.run()
    plt.plot(rdf.results.bins, rdf.results.rdf)

The classes take MDAnalysis 2.x's arguments and give its results (``results.bins``, ``edges``,
``count``, ``rdf``; InterRDF_s also ``indices`` and ``get_cdf()``), with MDAnalysis's conventions:
Angstrom, bin edges from ``range`` (np.histogram's), a group against itself counted as ordered
pairs including every atom's zero distance to itself, ``exclusion_block``, the norms 'rdf'
(N / <V>), 'density' and 'none' (any case; None is 'none'). InterRDF also takes ``exclude_same``
('residue', 'segment' or 'chain': pairs of atoms in the same one are left out; N of the 'rdf'
norm is not reduced for them, as MDAnalysis reduces it only for exclusion_block). MDAnalysis's
deprecated spellings work and warn as its do (DeprecationWarning, its words): the attributes
``rdf``, ``bins``, ``edges``, ``count`` (and ``cdf`` of InterRDF_s), InterRDF_s's ``u`` and
``density=True``. Errors a caller may match are raised with MDAnalysis's type and words (an
unknown norm or exclude_same, exclude_same with exclusion_block). ``run(start, stop, step,
frames, verbose)`` and whatever else the installed MDAnalysis's AnalysisBase.run takes.

InterRDF counts with pairhist's task library on all cores and GPUs (``ncpu``, ``ncuda``), cell
lists where r_max is small against the box (``algorithm``), in double precision by default
(``precision``), so distances are float64 like MDAnalysis's. Frames are read by MDAnalysis
(``run(start, stop, step, frames, verbose)`` as usual) and counted while the next one is read.

Differences, all at the level of rounding:
- MDAnalysis wraps coordinates into the box in float32 and builds triclinic box vectors in
  float32; pairhist uses the coordinates as they are and MDAnalysis's float32 box vectors, so a
  pair within ~1e-6 relative of a bin edge may land one bin over (docs/python.md has the figures).
- A pair at exactly range[1] is counted in MDAnalysis's last bin, not here (bins are half-open).
- range[0] goes to the engine as its r_min where this build's engine takes one; otherwise it must
  be 0 or a multiple of the bin width (the engine's bins then start at 0 and the drop-in leaves
  out those below range[0]), and any other range[0] is refused (ValueError).
- A pair exactly on a bin edge is binned by its exact distance: two atoms 1.000 A apart fall in
  [1.0, 1.2), where MDAnalysis's float32 distance 0.99999998 puts them in [0.8, 1.0)
  (docs/validation.md).
- range[1] beyond half the shortest lattice vector of a frame's box is refused (ValueError), as
  ``pairhist run`` refuses it, orthorhombic boxes included: MDAnalysis counts on by the minimum
  image, which misses pairs there, so its g(r) falls off.
- InterRDF counts an UpdatingAtomGroup (a selection MDAnalysis re-evaluates every frame) with
  each frame's atoms, as MDAnalysis does; its normalisation is MDAnalysis's too (the groups'
  sizes when the run concludes). exclusion_block and exclude_same with one, and InterRDF_s with
  one, are refused (ValueError), never frozen at the first frame.
"""

import inspect
import warnings

import numpy as np
from MDAnalysis.analysis.base import AnalysisBase, Results  # noqa: F401  (Results: re-export)
from MDAnalysis.lib.mdamath import triclinic_vectors

from . import Engine, _pairhist

__all__ = ["InterRDF", "InterRDF_s"]

_EXCLUDE_SAME = {"residue": "resindices", "segment": "segindices", "chain": "chainIDs"}


def _is_updating(group):
    from MDAnalysis.core.groups import UpdatingAtomGroup
    return isinstance(group, UpdatingAtomGroup)


def _refuse_updating(*groups):
    """An UpdatingAtomGroup is re-selected every frame; the engine counts the atoms it is given
    once, so it would silently count the first frame's selection for every frame."""
    from MDAnalysis.core.groups import UpdatingAtomGroup
    for g in groups:
        if isinstance(g, UpdatingAtomGroup):
            raise ValueError("pairhist.mdanalysis counts fixed atom groups: an UpdatingAtomGroup "
                             "(a selection re-evaluated every frame) would be frozen at its first "
                             "frame; use MDAnalysis.analysis.rdf for it, or a static selection")


def _deprecated(name):
    """MDAnalysis 2.x's deprecated result attribute `name`: results[name], with its warning (its
    words, so that a caller's warning filter matches; MDAnalysis's own text for edges and count
    points to results.bins, this one to the array returned)."""

    def get(self):
        warnings.warn(f"The `{name}` attribute was deprecated in MDAnalysis 2.0.0 and will be "
                      f"removed in MDAnalysis 3.0.0. Please use `results.{name}` instead",
                      DeprecationWarning, stacklevel=2)
        return self.results[name]

    return property(get, doc=f"Deprecated: results.{name} (MDAnalysis 2.0.0).")


def _takes_r_min():
    """Whether this build's engine and pair helpers bin from an r_min (Engine's r_min keyword,
    pair_bins' and pair_bin_indices' r_min argument): range[0] then goes to them as it is."""
    try:
        engine = "r_min" in inspect.signature(Engine).parameters
    except (TypeError, ValueError):
        engine = "r_min" in (Engine.__init__.__doc__ or "")
    helpers = all("r_min" in (getattr(_pairhist, f, None).__doc__ or "")
                  for f in ("pair_bins", "pair_bin_indices"))
    return engine and helpers


def _check_norm(norm):
    norm = str(norm).lower()
    if norm not in ("rdf", "density", "none"):
        raise ValueError(f"'{norm}' is an invalid norm. Use 'rdf', 'density' or 'none'.")
    return norm


class _Bins:
    """MDAnalysis's edges for (nbins, range) and the engine's bins that hold them: where the
    engine takes an r_min, its bins are these (skip = 0, r_min = range[0]); otherwise its bins
    start at 0 and the first `skip` of `total` bins of width (range[1] - range[0]) / nbins lie
    below range[0], which must then be a multiple of that width."""

    def __init__(self, nbins, hist_range):
        count, self.edges = np.histogram([-1], bins=nbins, range=hist_range)
        self.nbins = len(count)
        low, high = float(hist_range[0]), float(hist_range[1])
        if not high > low or low < 0:
            raise ValueError(f"range must satisfy 0 <= range[0] < range[1], not {hist_range}")
        self.r_max = high
        if low > 0 and _takes_r_min():
            self.skip, self.total, self.r_min = 0, self.nbins, low
            return
        width = (high - low) / self.nbins
        skip = round(low / width)
        if abs(skip * width - low) > 1e-9 * high:
            raise ValueError(f"range[0] = {low} is not a multiple of the bin width {width}: "
                             f"pairhist's bins start at 0 (use range[0] = 0 and drop bins)")
        self.skip, self.total, self.r_min = skip, skip + self.nbins, None

    def engine_arguments(self):
        """r_max, n_bins (and r_min where the engine takes it) for Engine, pair_bins and
        pair_bin_indices."""
        arguments = dict(r_max=self.r_max, n_bins=self.total)
        if self.r_min is not None:
            arguments["r_min"] = self.r_min
        return arguments

    def window(self, counts):
        return np.asarray(counts[self.skip:], dtype=np.float64)


def _check_half_box(box, r_max, frame, engine=None):
    """pairhist run's rule, for every box kind: r_max at most half the shortest lattice vector
    of each frame's box. MDAnalysis has none; beyond that limit its minimum-image distances miss
    pairs (part of such a shell lies nearer another image), so its g(r) falls off there."""
    if box is None:
        return
    rows = _rows(box)
    if not _pairhist.rmax_fits_minimum_image(r_max, rows):
        if engine is not None:
            engine.close()
        limit = _pairhist.minimum_image_limit(rows)
        raise ValueError(f"frame {frame}: range[1] = {r_max:g} exceeds the minimum-image limit "
                         f"{limit:.6g} of the box (half its shortest lattice vector), which "
                         f"pairhist run refuses too: beyond it a minimum-image count misses "
                         f"pairs (MDAnalysis's InterRDF counts on, and its g(r) falls off); "
                         f"use range[1] <= {limit:.6g}")


def _box(ts):
    """The frame's box as MDAnalysis's distance search uses it: float32 box vectors."""
    if ts.dimensions is None or not np.all(ts.dimensions[:3] > 0):
        return None
    return triclinic_vectors(ts.dimensions)


class InterRDF(AnalysisBase):
    """Average radial distribution function between two AtomGroups (MDAnalysis's InterRDF,
    counted by pairhist). See the module's documentation for the differences.

    Extra keyword arguments: precision ("double", or "single"), algorithm ("auto", "all-pairs",
    "cell-list"), ncpu and ncuda (workers; -1: all), and those of pairhist.Engine.
    """

    def __init__(self, g1, g2, nbins=75, range=(0.0, 15.0), norm="rdf", exclusion_block=None,
                 exclude_same=None, *, precision="double", algorithm="auto", ncpu=-1, ncuda=-1,
                 engine_options=None, **kwargs):
        # Updating groups: each frame's atoms go to the engine as species of that frame's size.
        self._updating = _is_updating(g1) or _is_updating(g2)
        if self._updating and (exclusion_block is not None or exclude_same is not None):
            raise ValueError("pairhist.mdanalysis: exclusion_block and exclude_same need fixed "
                             "atom groups, not an UpdatingAtomGroup")
        super().__init__(g1.universe.trajectory, **kwargs)
        self.g1, self.g2 = g1, g2
        # MDAnalysis's checks, in its order and with its words (callers match them).
        if exclude_same is not None and exclude_same not in _EXCLUDE_SAME:
            raise ValueError("The exclude_same argument to InterRDF must be None, 'residue', "
                             "'segment' or 'chain'.")
        if exclude_same is not None and exclusion_block is not None:
            raise ValueError("The exclude_same argument to InterRDF cannot be used with "
                             "exclusion_block.")
        self.norm = _check_norm(norm)
        self.rdf_settings = {"bins": nbins, "range": range}
        self._bins = _Bins(nbins, range)
        if exclusion_block is not None:
            try:
                xa, xb = (int(x) for x in exclusion_block)
            except (TypeError, ValueError):
                xa = xb = 0
            if xa < 1 or xb < 1:
                raise ValueError(f"exclusion_block must be two positive sizes, not "
                                 f"{exclusion_block!r}")
        self._exclusion_block = exclusion_block
        self._exclude_same = exclude_same
        self.exclude_same = _EXCLUDE_SAME.get(exclude_same)  # MDAnalysis's: the attribute compared
        self._engine_options = dict(precision=precision, algorithm=algorithm, ncpu=ncpu,
                                    ncuda=ncuda, **(engine_options or {}))
        self._precision = precision
        self._plan()

    def _plan(self):
        """One species when g1 and g2 are the same atoms (the ordered pairs are twice the unique
        ones plus the self pairs), else two (the engine counts only their cross histogram). The
        excluded pairs as frame atom indices (rows, cols) in the engine's orientation: for one
        species the unique pairs (row < col); the exclusion rules are then symmetric and leave
        out every self pair."""
        if self._updating:
            # Capacities: every atom of the universe may be selected in some frame.
            self._same = self.g1 is self.g2
            self._atoms = None
            self._capacity = self.g1.universe.atoms.n_atoms
            self._excluded_rows = self._excluded_cols = np.zeros(0, dtype=np.int64)
            self._self_pairs_excluded = False
            return
        i1, i2 = self.g1.indices, self.g2.indices
        rows, cols = self._excluded_pairs(len(i1), len(i2))
        block = self._exclusion_block
        self._same = np.array_equal(i1, i2) and (block is None or int(block[0]) == int(block[1]))
        self._self_pairs_excluded = self._same and (block is not None or
                                                    self._exclude_same is not None)
        if self._same:
            unique = rows < cols
            rows, cols = rows[unique], cols[unique]
            self._atoms = [i1]
        else:
            self._atoms = [i1, i2]
        self._excluded_rows = np.ascontiguousarray(i1[rows], dtype=np.int64)
        self._excluded_cols = np.ascontiguousarray(i2[cols], dtype=np.int64)

    def _excluded_pairs(self, n1, n2):
        """(positions in g1, positions in g2) of the pairs MDAnalysis leaves out."""
        if self._exclusion_block is not None:
            xa, xb = (int(x) for x in self._exclusion_block)
            blocks = min(-(-n1 // xa), -(-n2 // xb))
            rows, cols = [], []
            for b in range(blocks):
                r = np.arange(b * xa, min((b + 1) * xa, n1))
                c = np.arange(b * xb, min((b + 1) * xb, n2))
                rows.append(np.repeat(r, len(c)))
                cols.append(np.tile(c, len(r)))
            if rows:
                return np.concatenate(rows), np.concatenate(cols)
        elif self._exclude_same is not None:
            attribute = _EXCLUDE_SAME[self._exclude_same]
            a1 = np.asarray(getattr(self.g1, attribute))
            a2 = np.asarray(getattr(self.g2, attribute))
            _, codes = np.unique(np.concatenate([a1, a2]), return_inverse=True)
            c1, c2 = codes[:n1], codes[n1:]
            order2 = np.argsort(c2, kind="stable")
            starts = np.searchsorted(c2[order2], c1, side="left")
            ends = np.searchsorted(c2[order2], c1, side="right")
            sizes = ends - starts
            total = int(sizes.sum())
            if total > 200_000_000:
                raise ValueError(f"exclude_same={self._exclude_same!r} leaves out {total} pairs "
                                 f"per frame: too many to subtract (the groups share few "
                                 f"{self._exclude_same}s?)")
            rows = np.repeat(np.arange(n1), sizes)
            offsets = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            cols = order2[np.repeat(starts, sizes) + offsets]
            return rows, cols
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty

    def run(self, *args, **kwargs):
        """AnalysisBase.run; an exception on the way (Ctrl-C: KeyboardInterrupt) closes the
        engine, dropping the frames whose tasks have not begun, instead of counting them for
        nothing while the exception travels."""
        try:
            return super().run(*args, **kwargs)
        except BaseException:
            if getattr(self, "_engine", None) is not None:
                self._engine.close()
                self._engine = None
            raise

    run.__signature__ = inspect.signature(AnalysisBase.run)

    def _prepare(self):
        self.results.count = np.zeros(self._bins.nbins, dtype=np.float64)
        self.results.edges = self._bins.edges
        self.results.bins = 0.5 * (self._bins.edges[:-1] + self._bins.edges[1:])
        if self.norm == "rdf":
            self.volume_cum = 0
        self._engine = None
        self._excluded = np.zeros(self._bins.total, dtype=np.uint64)
        self._frames_counted = 0
        self._self_distances = 0  # atoms of g1 summed over the frames: g1 with itself, r = 0

    def _single_frame(self):
        ts = self._ts
        box = _box(ts)
        if self.norm == "rdf" and box is None:
            raise ValueError(f"frame {ts.frame}: norm='rdf' needs a periodic box (use 'density' "
                             f"or 'none')")
        _check_half_box(box, self._bins.r_max, ts.frame, self._engine)
        if self._updating:
            self._submit_updating(box)
            return
        if self._engine is None:
            self._engine = Engine([len(a) for a in self._atoms], atoms=self._atoms,
                                  **self._bins.engine_arguments(),
                                  pairs=None if self._same else [(0, 1)],
                                  **self._engine_options)
            self._kind = "none" if box is None else (
                "orthorhombic" if np.count_nonzero(box - np.diag(np.diag(box))) == 0
                else "triclinic")
        positions = ts.positions
        self._engine.submit(positions, box)
        if len(self._excluded_rows):
            self._excluded += _pairhist.pair_bins(
                np.ascontiguousarray(positions, dtype=np.float32), self._excluded_rows,
                self._excluded_cols, _rows(box), self._kind,
                precision=self._precision, **self._bins.engine_arguments())
        self._frames_counted += 1
        if self.norm == "rdf":
            self.volume_cum += ts.volume

    def _submit_updating(self, box):
        """One frame of updating groups: their atoms now, as species of this frame's sizes."""
        groups = [self.g1] if self._same else [self.g1, self.g2]
        if self._engine is None:
            self._engine = Engine([self._capacity] * len(groups),
                                  **self._bins.engine_arguments(),
                                  pairs=None if self._same else [(0, 1)], **self._engine_options)
        positions = [np.ascontiguousarray(g.positions, dtype=np.float32) for g in groups]
        self._self_distances += len(positions[0])
        self._engine.submit(positions, box)
        self._frames_counted += 1
        if self.norm == "rdf":
            self.volume_cum += self._ts.volume

    def _counts(self):
        """MDAnalysis's counts over all bins from 0: the engine's, less the excluded pairs."""
        if self._engine is None:
            return np.zeros(self._bins.total, dtype=np.uint64)
        hist = list(self._engine.finish().values())
        self._engine.close()
        if self._same:
            counts = 2 * (hist[0] - self._excluded)
            # Bins from an r_min > 0 (the engine's) hold no zero distance.
            if not self._self_pairs_excluded and self._bins.r_min is None:
                atoms = (self._self_distances if self._updating else
                         self._frames_counted * len(self._atoms[0]))
                counts[0] += atoms  # every atom's distance to itself, r = 0: bin 0
        else:
            counts = hist[0] - self._excluded  # the g1-g2 histogram, the only one counted
        return counts

    def _conclude(self):
        self.results.count = self._bins.window(self._counts())
        norm = self.n_frames
        if self.norm in ("rdf", "density"):
            vols = np.power(self.results.edges, 3)
            norm *= 4 / 3 * np.pi * np.diff(vols)
        if self.norm == "rdf":
            n_a, n_b = len(self.g1), len(self.g2)
            pairs = n_a * n_b
            if self._exclusion_block:
                xa, xb = self._exclusion_block
                pairs -= xa * xb * (n_a / xa)
            norm *= pairs / (self.volume_cum / self.n_frames)
        self.results.rdf = self.results.count / norm

    # MDAnalysis 2.x's deprecated spellings of results' arrays.
    edges = _deprecated("edges")
    count = _deprecated("count")
    bins = _deprecated("bins")
    rdf = _deprecated("rdf")


def _rows(box):
    return [0.0] * 9 if box is None else [float(v) for v in np.asarray(box).reshape(9)]


class InterRDF_s(AnalysisBase):
    """Site-specific radial distribution functions (MDAnalysis's InterRDF_s): one histogram per
    pair of atoms (a in ags[i][0], b in ags[i][1]). Each pair's bin is computed on the host with
    the kernels' arithmetic (the result is a dense n_a x n_b x nbins array per group pair, so the
    groups are small); ``precision`` as for InterRDF."""

    def __init__(self, u, ags, nbins=75, range=(0.0, 15.0), norm="rdf", density=False, *,
                 precision="double", **kwargs):
        _refuse_updating(*(g for pair in ags for g in pair))
        super().__init__(ags[0][0].universe.trajectory, **kwargs)
        # MDAnalysis 2.x's warnings, in its words.
        warnings.warn("The `u` attribute is superflous and will be removed in MDAnalysis "
                      "3.0.0.", DeprecationWarning, stacklevel=2)
        self.ags = ags
        self.norm = _check_norm(norm)
        if density:
            warnings.warn("The `density` attribute was deprecated in MDAnalysis 2.3.0 and will "
                          "be removed in MDAnalysis 3.0.0. Please use `norm=density` instead.",
                          DeprecationWarning, stacklevel=2)
            self.norm = "density"
        self.rdf_settings = {"bins": nbins, "range": range}
        self._bins = _Bins(nbins, range)
        self._precision = precision
        self._pairs = []
        for g1, g2 in ags:
            rows = np.repeat(g1.indices, len(g2)).astype(np.int64)
            cols = np.tile(g2.indices, len(g1)).astype(np.int64)
            self._pairs.append((rows, cols))

    def _prepare(self):
        self.results.count = [np.zeros((g1.n_atoms, g2.n_atoms, self._bins.nbins))
                              for g1, g2 in self.ags]
        self.results.edges = self._bins.edges
        self.results.bins = 0.5 * (self._bins.edges[:-1] + self._bins.edges[1:])
        if self.norm == "rdf":
            self.volume_cum = 0
        self._kind = None

    def _single_frame(self):
        ts = self._ts
        box = _box(ts)
        _check_half_box(box, self._bins.r_max, ts.frame)
        kind = "none" if box is None else (
            "orthorhombic" if np.count_nonzero(box - np.diag(np.diag(box))) == 0 else "triclinic")
        positions = np.ascontiguousarray(ts.positions, dtype=np.float32)
        for (rows, cols), count in zip(self._pairs, self.results.count):
            # A pair outside the bins has index n_bins (or, below an r_min, a negative one).
            bins = _pairhist.pair_bin_indices(positions, rows, cols, _rows(box), kind,
                                              precision=self._precision,
                                              **self._bins.engine_arguments())
            bins = bins.astype(np.int64) - self._bins.skip
            inside = (bins >= 0) & (bins < self._bins.nbins)
            flat = count.reshape(-1, self._bins.nbins)
            np.add.at(flat, (np.nonzero(inside)[0], bins[inside]), 1)
        if self.norm == "rdf":
            self.volume_cum += ts.volume

    def _conclude(self):
        norm = self.n_frames
        if self.norm in ("rdf", "density"):
            vols = np.power(self.results.edges, 3)
            norm *= 4 / 3 * np.pi * np.diff(vols)
        if self.norm == "rdf":
            norm *= 1 / (self.volume_cum / self.n_frames)
        self.results.indices = [[g1.indices, g2.indices] for g1, g2 in self.ags]
        self.results.rdf = [count / norm for count in self.results.count]

    def get_cdf(self):
        """Cumulative counts per site pair, N_ab(r) (results.cdf), as MDAnalysis's."""
        self.results.cdf = [np.cumsum(count, axis=2) / self.n_frames
                            for count in self.results.count]
        return self.results.cdf

    # MDAnalysis 2.x's deprecated spellings of results' arrays.
    edges = _deprecated("edges")
    count = _deprecated("count")
    bins = _deprecated("bins")
    rdf = _deprecated("rdf")
    cdf = _deprecated("cdf")
