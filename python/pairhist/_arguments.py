"""Argument checks and conversions shared by pairhist's Python functions."""

import math
import numbers

import numpy as np

_DTYPES = (np.float32, np.float64)


def species_arrays(coords, name="coords"):
    """(names, arrays): one (n, 3) float32/float64 array per species, from a dict
    {name: array}, a sequence of arrays, or one (n, 3) array (one species). Names are the dict's
    keys, else the indices 0, 1, ..."""
    if isinstance(coords, dict):
        names = list(coords.keys())
        arrays = list(coords.values())
    elif isinstance(coords, np.ndarray) and coords.ndim == 2:
        names, arrays = [0], [coords]
    elif isinstance(coords, (list, tuple)):
        names, arrays = list(range(len(coords))), list(coords)
    else:
        raise TypeError(f"{name} must be an (n, 3) array, a sequence of them (one per species) "
                        f"or a dict name -> array, not {type(coords).__name__}")
    if not arrays:
        raise ValueError(f"{name}: at least one species is needed")
    out = []
    for key, a in zip(names, arrays):
        a = np.asarray(a)
        if a.dtype.type not in _DTYPES:
            raise TypeError(f"{name}[{key!r}]: coordinates must be float32 or float64, not {a.dtype}")
        if a.ndim != 2 or a.shape[1] != 3:
            raise ValueError(f"{name}[{key!r}]: shape must be (n, 3), not {a.shape}")
        out.append(a)
    return names, out


def box_rows(box):
    """The box as 9 floats (rows a, b, c, lower-triangular as GROMACS writes it), from None (no
    periodic box), a 3x3 matrix of box vectors as rows, or MDAnalysis's dimensions
    [a, b, c, alpha, beta, gamma] (Angstrom or nm, degrees), converted in float64 with
    MDAnalysis's formula (right angles exact)."""
    if box is None:
        return [0.0] * 9
    b = np.asarray(box, dtype=np.float64)
    if b.shape == (3, 3) or b.shape == (9,):
        return [float(v) for v in b.reshape(9)]
    if b.shape != (6,):
        raise ValueError(f"box must be None, a 3x3 matrix or [a, b, c, alpha, beta, gamma], "
                         f"not an array of shape {b.shape}")
    if not np.all(np.isfinite(b)):
        raise ValueError("box has a non-finite component")
    lx, ly, lz, alpha, beta, gamma = (float(v) for v in b)
    if lx <= 0 or ly <= 0 or lz <= 0:
        raise ValueError("box lengths must be positive")
    # An angle of 0 or 180 degrees (sin 0) made a ZeroDivisionError below.
    if not all(0 < angle < 180 for angle in (alpha, beta, gamma)):
        raise ValueError(f"box angles must lie between 0 and 180 degrees, not {alpha}, {beta}, "
                         f"{gamma}")

    def cosine(angle):
        return 0.0 if angle == 90.0 else math.cos(math.radians(angle))

    cos_alpha, cos_beta = cosine(alpha), cosine(beta)
    if gamma == 90.0:
        cos_gamma, sin_gamma = 0.0, 1.0
    else:
        cos_gamma, sin_gamma = math.cos(math.radians(gamma)), math.sin(math.radians(gamma))
    m = np.zeros((3, 3))
    m[0, 0] = lx
    m[1, 0] = ly * cos_gamma
    m[1, 1] = ly * sin_gamma
    m[2, 0] = lz * cos_beta
    m[2, 1] = lz * (cos_alpha - cos_beta * cos_gamma) / sin_gamma
    cz2 = lz * lz - m[2, 0] ** 2 - m[2, 1] ** 2
    if not cz2 > 0:
        raise ValueError(f"box angles {alpha}, {beta}, {gamma} do not make a cell")
    m[2, 2] = math.sqrt(cz2)
    return [float(v) for v in m.reshape(9)]


def device_number(device):
    """-1 for "cpu", the CUDA device for "gpu" (0) or "gpu:N"."""
    if device == "cpu":
        return -1
    if device == "gpu":
        return 0
    if isinstance(device, str) and device.startswith("gpu:") and device[4:].isdigit():
        return int(device[4:])
    raise ValueError(f"device must be 'cpu', 'gpu' or 'gpu:N', not {device!r}")


def positive_number(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0 \
            or not math.isfinite(value):
        raise ValueError(f"{name} must be a positive number, not {value!r}")
    return float(value)


def positive_integer(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return int(value)


def choice(value, name, allowed):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")
    return value


def pair_keys(names):
    """Histogram keys in the order the libraries return them: (a, b) with a <= b, a-major."""
    return [(names[a], names[b]) for a in range(len(names)) for b in range(a, len(names))]
