"""pairhist: exact pair-distance histograms and g(r) of molecular-dynamics frames on every CPU
core and GPU, from Python.

- histograms(coords, box=None, r_max=..., n_bins=...): all pair histograms of one frame (the C
  kernel API: CPU threads or one GPU, no StarPU).
- Engine(species, r_max=..., n_bins=...): the task library for many frames (StarPU tasks on all
  cores and GPUs, as `pairhist run` uses it): submit() frames, finish() for the counts.
- run(trajectory, top=..., species=..., rmax=..., nbins=...): the `pairhist run` job with the
  command's arguments, returning counts, g(r) and coordination numbers as numpy arrays.
- scattering(result, radiation="xray", ...): X-ray or neutron intensities I(q) of a finished run
  (its pairhist.h5) by Debye's equation, or with structure_factor=True the structure factors
  S(q) from g(r), as `pairhist scattering` computes them.
- read_run(path): a finished run's pairhist.h5 (`pairhist run -o DIR`), keyed as run() returns.
- read_scattering(path): what `pairhist scattering` wrote into intensity.h5, sq.h5 or excess.h5.
- pairhist.mdanalysis.InterRDF / InterRDF_s: drop-ins for MDAnalysis's classes.

Bin k of a histogram holds the pairs with floor(r * n_bins / r_max) == k (r >= r_max is not
counted); same-species pairs are counted once (i < j), cross pairs as ordered pairs (i in A,
j in B). Counts are exact uint64 and bit-identical to `pairhist run` on the same coordinates,
whichever workers ran them. Lengths are in whatever unit the coordinates are.
"""

import math
import numbers
import os
import sys
import warnings

# StarPU prints its own notices on stderr unless told otherwise; a library should not.
os.environ.setdefault("STARPU_SILENT", "1")

import numpy as np  # noqa: E402

from . import _pairhist  # noqa: E402
from ._arguments import (box_rows, choice, device_number, pair_keys, positive_integer,  # noqa: E402
                         positive_number, species_arrays)

__all__ = ["histograms", "Engine", "run", "read_run", "scattering", "read_scattering", "gpu_count",
           "__version__"]
__version__ = "0.1.0"



def _start_children_afresh():
    # A .tpr is read by libgromacs in a child process: started as this interpreter importing this
    # package, not forked from a process whose other threads may hold locks that the fork's copy
    # would wait for forever (docs/reliability.md, finding 13).
    if not sys.executable:
        return
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = (f"import sys; sys.path.insert(0, {home!r}); from pairhist import _pairhist; "
            "sys.exit(_pairhist._serve_child_job(sys.argv))")
    _pairhist._set_child_command([sys.executable, "-c", code])


_start_children_afresh()

_PRECISIONS = ("single", "double")
_ALGORITHMS = ("auto", "all-pairs", "cell-list")


def gpu_count():
    """Number of CUDA devices histograms(device="gpu:N") can use (0 without CUDA)."""
    return _pairhist.gpu_count()


def histograms(coords, box=None, *, r_max, n_bins, precision="single", device="cpu", threads=0,
               algorithm="auto"):
    """All pair histograms of one frame.

    coords: one (n, 3) array per species, as a sequence or a dict name -> array (or a single
        array: one species); float32 or float64, any strides.
    box: None (no periodic box), a 3x3 matrix whose rows are the box vectors a, b, c (GROMACS's
        lower-triangular form), or MDAnalysis's [a, b, c, alpha, beta, gamma]. Minimum image;
        in a triclinic box r_max may not exceed half the shortest lattice vector.
    r_max, n_bins: bin k holds floor(r * n_bins / r_max) == k, in the unit of coords.
    precision: "single" or "double" arithmetic (float64 coordinates are rounded to float32 for
        "single"; float32 ones are exact in "double").
    device: "cpu" (threads OpenMP threads, 0: all cores), "gpu" or "gpu:N" (one CUDA device).
    algorithm: "auto", "all-pairs" or "cell-list" (same counts; cell lists only examine pairs of
        neighbouring cells).

    Returns a dict {(a, b): uint64 array of n_bins} for every species pair a <= b, keyed by the
    species' names (dict input) or indices. The GIL is released while the kernels run.
    """
    names, arrays = species_arrays(coords)
    r_max = positive_number(r_max, "r_max")
    n_bins = positive_integer(n_bins, "n_bins")
    choice(precision, "precision", _PRECISIONS)
    choice(algorithm, "algorithm", _ALGORITHMS)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be a non-negative integer, not {threads!r}")
    dtype = np.float32 if precision == "single" else np.float64
    arrays = [np.ascontiguousarray(a, dtype=dtype) for a in arrays]
    result = _pairhist.histograms(arrays, box_rows(box), r_max, n_bins, precision,
                                  device_number(device), threads, algorithm)
    return dict(zip(pair_keys(names), result))


class Engine:
    """The task library for a stream of frames: every frame is cut into StarPU tasks that run on
    all CPU cores and GPUs (as `pairhist run` does), and the counts are summed exactly.

        with pairhist.Engine({"O": 884, "H": 1768}, r_max=12.0, n_bins=120) as e:
            for frame in frames:
                e.submit({"O": o_xyz, "H": h_xyz}, box)
            counts = e.finish()

    species: the atoms per species, as a sequence of sizes or a dict name -> size (the result's
        keys are the names, else the indices).
    atoms: optional, one index array per species into a whole frame: submit() then takes the
        whole frame's (N, 3) coordinates and the engine picks the species' atoms as it copies them.
    precision, algorithm: as for histograms(). ncpu, ncuda: CPU and CUDA workers (-1: all free
        cores, all GPUs). scheduler, memory_budget_mib, frames_in_flight, reserve_cores,
        task_pairs, cell_reach, cell_order: as `pairhist run`'s --sched, --memory-budget,
        --frames-in-flight, --reserve-cores, --task-pairs, --cell-reach, --cell-order.
    pairs: optional, the species pairs to count, as (a, b) names (or indices); the others cost
        nothing and are left out of the result. Default: every pair.
    r_min: the first bin's lower edge (default 0): the n_bins bins span [r_min, r_max) and
        pairs closer than r_min are not counted (MDAnalysis's range[0], freud's r_min).
    r_cut: pairs at r >= r_cut are not counted (default 0: r_max); inside the last bin it leaves
        that bin partial (gmx rdf's -rmax that is not a multiple of -bin).

    Coordinates are taken as float32 (the task library's input; float64 ones are rounded to
    float32 first); "double" precision computes in float64 from them. The first frame's box
    decides the box kind (none, orthorhombic, triclinic); later frames may change the box but
    not to a more general kind. submit() copies the frame and returns once its tasks are
    submitted (it waits only while all frame buffers are in use); the GIL is released meanwhile,
    so reading the next frame overlaps the tasks.
    """

    def __init__(self, species, *, r_max, n_bins, precision="single", atoms=None, ncpu=-1,
                 ncuda=-1, algorithm="auto", scheduler="", memory_budget_mib=64,
                 frames_in_flight=0, reserve_cores=-1, task_pairs=0, cell_reach=0,
                 cell_order=None, pairs=None, r_min=0.0, r_cut=0.0):
        if isinstance(species, dict):
            self._names, sizes = list(species.keys()), list(species.values())
        else:
            sizes = list(species)
            self._names = list(range(len(sizes)))
        sizes = [int(n) for n in sizes]
        index_lists = []
        if atoms is not None:
            atoms = list(atoms.values()) if isinstance(atoms, dict) else list(atoms)
            for a in atoms:
                a = np.asarray(a)
                if a.ndim != 1 or not np.issubdtype(a.dtype, np.integer):
                    raise TypeError("atoms: one 1-d integer index array per species expected")
                if a.size and (a.min() < 0 or a.max() >= 2**31):
                    raise ValueError("atoms: indices must lie in 0 .. 2**31 - 1")
                index_lists.append(a.astype(np.int32))
        self._whole_frames = atoms is not None
        counted = []
        if pairs is not None:
            index = {name: i for i, name in enumerate(self._names)}
            for pair in pairs:
                if len(pair) != 2 or any(p not in index for p in pair):
                    raise ValueError(f"pairs: {pair!r} is not a pair of species of this engine")
                counted.append(tuple(sorted(index[p] for p in pair)))
            if not counted:
                raise ValueError("pairs: at least one pair is needed")
        self._counted = set(counted)
        self._core = _pairhist.Engine(
            sizes, positive_number(r_max, "r_max"), positive_integer(n_bins, "n_bins"),
            choice(precision, "precision", _PRECISIONS), int(ncpu), int(ncuda),
            choice(algorithm, "algorithm", _ALGORITHMS), scheduler, int(memory_budget_mib),
            int(frames_in_flight), int(reserve_cores), int(task_pairs), int(cell_reach),
            cell_order or "", index_lists, counted, float(r_min), float(r_cut))
        self.r_max, self.n_bins, self.precision = float(r_max), int(n_bins), precision
        self.r_min, self.r_cut = float(r_min), float(r_cut)

    def submit(self, coords, box=None):
        """Submits one frame: the species' coordinates as for histograms() (or, with `atoms`,
        the whole frame's (N, 3) array) and its box (None, 3x3 rows, or [a, b, c, alpha, beta,
        gamma])."""
        if self._whole_frames:
            frame = np.asarray(coords)
            if frame.dtype.type not in (np.float32, np.float64):
                raise TypeError(f"frame coordinates must be float32 or float64, not {frame.dtype}")
            arrays = [np.ascontiguousarray(frame, dtype=np.float32)]
        else:
            if isinstance(coords, dict):
                if list(coords.keys()) != self._names:
                    raise ValueError(f"species {list(coords.keys())} do not match the engine's "
                                     f"{self._names}")
            _, arrays = species_arrays(coords)
            arrays = [np.ascontiguousarray(a, dtype=np.float32) for a in arrays]
        self._core.submit(arrays, box_rows(box))
        if not getattr(self, "_noted", False):  # the engine started with the first frame
            self._noted = True
            for note in self._core.info().get("notes", []):
                warnings.warn(note, RuntimeWarning, stacklevel=2)

    def take(self):
        """Waits for the frames submitted so far and returns their counts (a dict per pair, as
        finish()), restarting from zero: the counts of one interval."""
        return self._result(self._core.take())

    def finish(self):
        """Waits for all tasks and returns {(a, b): uint64 array} for every species pair counted
        (the counts since the last take()). The engine takes no frames afterwards."""
        return self._result(self._core.finish())

    def _result(self, histograms):
        n = len(self._names)
        indices = [(a, b) for a in range(n) for b in range(a, n)]
        return {key: h for key, h, ij in zip(pair_keys(self._names), histograms, indices)
                if not self._counted or ij in self._counted}

    def info(self):
        """Workers, scheduler, frames and tasks, and `notes` (what the engine changed from its
        settings, e.g. a GPU left out for its memory, also given as a RuntimeWarning on the first
        submit); after finish() also the makespan and how each pair was counted (algorithm,
        candidate pairs examined, pairs within r_max)."""
        return self._core.info()

    def close(self):
        """Stops the engine (its StarPU workers) without results."""
        self._core.close()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        self._core.close()
        return False


def _setting_values(key, value):
    if key == "species":
        if isinstance(value, dict):
            return [f"{name}={selection}" for name, selection in value.items()]
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value]
    if key == "pairs":  # "A-B,C-D", or a list of "A-B" or (A, B)
        if isinstance(value, str):
            return [value]
        return [p if isinstance(p, str) else "-".join(str(n) for n in p) for p in value]
    if isinstance(value, bool):
        raise TypeError(f"{key}: expected a value, not {value!r}")
    if isinstance(value, (list, tuple)):
        raise TypeError(f"{key}: expected one value, not {type(value).__name__}")
    return [repr(value) if isinstance(value, float) else str(value)]


def run(trajectory=None, *, config=None, output=None, resume=False, overwrite=False, **options):
    """The `pairhist run` job, returning its results (and, with output, writing its files).

    Arguments are `pairhist run`'s (see `pairhist run --help`) with dashes written as
    underscores: trajectory, top, species ({"O": "OW", "H": "HW1,HW2"} or ["O=OW", ...]), pairs
    ("O-H,H-H" or ["O-H", ("H", "H")]: only those counted), rmax (default: as large as every
    frame's box allows), rmin (default 0: the bins span [rmin, rmax), closer pairs are not
    counted and the coordination counts from rmin), nbins or bin (a width; default 0.002 nm),
    sphere ("SELECTION,R"; rmax then defaults to 2R), units, precision, volume, index, exclude (none, residue, topology: a
    .tpr's exclusions), norm, interval, first, last, step, begin,
    end, sched, schedule, algorithm, cell_reach, cell_order, ncpu, ncuda, frames_in_flight,
    reserve_cores, memory_budget, decode_threads, reduction, task_pairs; config names a YAML
    file of the command's --config (arguments given here win). Uses all cores and GPUs unless
    ncpu / ncuda say otherwise.

    output: a directory to write what `pairhist run -o OUTPUT` writes (pairhist.h5, rdf.csv,
    rdf.xvg, cn.xvg) and its checkpoint; resume=True continues a run stopped there (as
    --resume; also one `pairhist run` stopped), overwrite=True replaces an earlier run's files
    (as --overwrite). Without output nothing is written (an output in the config file is not
    taken). Ctrl-C (SIGINT) stops the run within about a second (the frames whose tasks have
    begun are finished, the rest dropped) and raises KeyboardInterrupt; with output, the
    frames counted are in its files (complete = 0) and its checkpoint, for resume=True.

    Returns a dict: species {name: atoms}, units, r_max, r_min, nbins, edges, r (bin centres),
    counts {(A, B): uint64 array}, rdf {(A, B): g(r) or the `norm` quantity} and coordination
    (None without a box or volume), rdf_error (block averages, with interval), frames, times,
    volumes, intervals, pairs_per_frame, excluded_pairs, shared_atoms, box_kind, precision,
    norm, exclude, seconds, pairs_examined, cpu_workers, cuda_workers, scheduler, tasks,
    algorithms; frame_species_counts {species: int64 array, one count per frame} where the
    species' atoms vary per frame (a sphere run's atoms inside the sphere, a dynamic species'
    atoms), else None; frame_pairs {(A, B): uint64 array per frame} for dynamic species, else
    None; sphere and sphere_centre ("mass" or "geometry") of a sphere run, else None; complete
    and stopped_by: False and why where the trajectory ends inside a frame (a file cut short,
    or still being written: the frames before it are counted, with a RuntimeWarning naming
    it). Bad arguments or input raise ValueError naming the problem.
    """
    settings = []
    if trajectory is not None:
        settings.append(("trajectory", [str(trajectory)]))
    for key, value in options.items():
        if value is None:
            continue
        flag = key.replace("_", "-")
        settings.append((flag, _setting_values(flag, value)))
    result = _pairhist.run(settings, str(config) if config is not None else "",
                           os.fspath(output) if output is not None else "", bool(resume),
                           bool(overwrite))
    if not result["complete"]:
        warnings.warn(f"incomplete frame, the file ends inside it: {result['stopped_by']}; the "
                      f"result holds the frames before it", RuntimeWarning, stacklevel=2)
    return result


def read_run(path):
    """A finished run's pairhist.h5 (`pairhist run -o DIR`: the directory or the file).

    Returns a dict keyed as run()'s result for what the file holds: species, units, r_max,
    nbins, edges, r, counts (the interval blocks summed), rdf, coordination, frames, times,
    volumes, pairs_per_frame, excluded_pairs, shared_atoms, box_kind, precision, norm, exclude,
    frame_species_counts, frame_pairs, sphere, sphere_centre, intervals and rdf_error (with two
    or more interval blocks, else empty);
    besides path, complete, stopped_by and config (the run's effective settings). A file that is
    not one raises ValueError with one line, as does a damaged one: the file's checksum and the
    bounds of its counts are checked as `pairhist scattering` checks them (a file written before
    pairhist wrote checksums is read with a warning saying it has none).
    """
    out = _pairhist.read_run(os.fspath(path))
    for note in out.pop("notes", []):
        warnings.warn(note, stacklevel=2)
    return out


def _per_species(value, name):
    """{species: value} or ["SPECIES=VALUE", ...] as the command's SPECIES=VALUE list."""
    if value is None:
        return []
    if isinstance(value, dict):
        return [f"{k}={v}" for k, v in value.items()]
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    raise TypeError(f"{name}: expected a dict or a list of 'SPECIES=VALUE', not {value!r}")


def _optional_number(value, name):
    """NaN for None (not given), else the value as a float."""
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected a number, not {value!r}")
    return float(value)


def scattering(result, *, radiation="xray", q_max=50.0, nq=501, q=None, within_bin="exact",
               precision="double", structure_factor=False, window="lorch", top=None,
               element=None, deuterate=None, table=None, subtract=None, form_factors="itc",
               hydrogen="bonded", water_factors="standard", maff=None, q_unit="nm",
               per="frame", molecules=None, concentration=None, number_density=None,
               match_shell=None):
    """`pairhist scattering` on a finished run, returning numpy arrays instead of writing files.

    result: the run's output directory or its pairhist.h5 (pairhist run -o DIR).
    radiation: "xray" (form factors, electrons) or "neutron" (scattering lengths, fm).
    q_max, nq: the grid q = 0 .. q_max in nq steps; or q: increasing values; both in q_unit,
        "nm" (1/nm, default) or "angstrom" / "A" (1/A), which the returned q is in as well.
    within_bin: "exact" or "centre"; precision: "single" or "double" (Debye sums).
    structure_factor: False for the Debye intensity I(q); True (periodic runs) for the
        Faber-Ziman structure factors from g(r), with window "lorch" or "none".
    top: topology giving the species' elements (default: the run's); element: {species: symbol};
    deuterate: a fraction of D for every hydrogen species, or {species: fraction} (neutron);
    table: a file of weights overriding the built-in ones.
    subtract: a solvent run (directory or pairhist.h5): the excess intensity of `result` over it,
        with the same arguments for both (`pairhist scattering RESULT --subtract SOLVENT`).
    match_shell: with subtract, of two --sphere runs: scale the solvent run to the solution's
        solvent density in the shell R - match_shell < d <= R (nm; `--match-shell`).
    form_factors: X-ray "itc" (International Tables C 1992) or "wk" (Waasmaier & Kirfel 1995);
        hydrogen: "bonded" (International Tables' H) or "isolated" (the free atom, exact);
        water_factors: "standard" or "maff" (Sorenson et al. 2000, water's O and H); maff: a
        list of species that get MAFF.
    per: intensities per "frame" or per "molecule" (I / molecules); concentration (mol/L) or
        number_density (per nm^3): intensities in 1/cm (molecules: solute molecules a frame).

    Returns a dict: q; weights {species: f(q) or b}; with I(q): I and partials {(A, B): I_AB}
    (I_AA holds the self term; I = their sum); with structure_factor: S, F, partials
    {(A, B): S_AB}, density (atoms/nm^3) and concentrations {species: c}; guesses (elements
    guessed from atom names, also warned), notes and header (the lines the command's files
    start with); units {q, curves, weights}; with subtract: dI, I_solution, I_solvent and
    partials {(A, B): dI_AB} instead of I and its partials, and distribution, the excess's
    P(r) {r (nm), P, P_pairs, P_background, unit}; where the run has two or more
    interval blocks, the standard errors Ierr, Serr and Ferr, or dIerr, and partial_errors
    {(A, B): ...} beside them. docs/scattering.md says what each is. Bad arguments or input
    raise ValueError.
    """
    if isinstance(deuterate, (int, float)) and not isinstance(deuterate, bool):
        deuterate = [repr(float(deuterate))]
    q_values = [] if q is None else [float(v) for v in np.asarray(q, dtype=float).ravel()]
    if q is not None and not q_values:
        raise ValueError("q: no values")
    shell = _optional_number(match_shell, "match_shell")
    if match_shell is not None and (subtract is None or not shell > 0):
        raise ValueError("match_shell takes a width > 0 (nm) and applies to subtract only")
    out = _pairhist.scattering(
        os.fspath(result), choice(radiation, "radiation", ("xray", "neutron")), float(q_max),
        positive_integer(nq, "nq"), q_values, choice(within_bin, "within_bin", ("exact", "centre")),
        choice(precision, "precision", _PRECISIONS), bool(structure_factor),
        choice(window, "window", ("none", "lorch")), "" if top is None else os.fspath(top),
        _per_species(element, "element"), _per_species(deuterate, "deuterate"),
        "" if table is None else os.fspath(table), "" if subtract is None else os.fspath(subtract),
        str(form_factors), str(hydrogen), str(water_factors),
        [] if maff is None else ([maff] if isinstance(maff, str) else [str(m) for m in maff]),
        str(q_unit), str(per), _optional_number(molecules, "molecules"),
        _optional_number(concentration, "concentration"),
        _optional_number(number_density, "number_density"), 0.0 if shell != shell else shell)
    if out["guesses"]:
        warnings.warn("elements guessed from atom names: " + ", ".join(out["guesses"]) +
                      " (set them with element={species: symbol})", stacklevel=2)
    return out


def read_scattering(path):
    """The HDF5 file `pairhist scattering` (or `pairhist run --scattering`) wrote: intensity.h5,
    sq.h5 or excess.h5, at full precision.

    Returns a dict keyed as scattering() returns it: q; the curves (I, or S and F, or dI,
    I_solution and I_solvent); partials {(A, B): values}; weights {species: f(q) or b}; for
    structure factors density and concentrations; for an excess its P(r) as distribution.
    Besides: quantity ("intensity",
    "structure_factor", "excess_intensity"), radiation, units {curve: unit, "weights": unit},
    scatterers {species: element or ion}, atoms {species: atoms per frame}, runs (the pairhist.h5
    files read), n_frames, complete, options and header (the CSV's comment lines). A file that is
    not one raises ValueError with one line. docs/scattering.md, "HDF5 output".
    """
    return _pairhist.read_scattering(os.fspath(path))
