// Conversions shared by the bindings: numpy arrays the Python layer has already made C-contiguous
// (n, 3) float32 or float64, boxes as 9 doubles (rows a, b, c), and uint64 histograms back.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "pairhist/box_setup.hpp"
#include "pairhist/engine.hpp"

namespace pairhist::python {

namespace py = pybind11;

/// Atoms of an (n, 3) C-contiguous coordinate array; TypeError/ValueError otherwise.
int64_t atom_count(const py::array& xyz, const char* what);

/// The box as given by the Python layer: 9 numbers, rows a, b, c. ValueError unless usable
/// (box_problem: finite, lower-triangular, positive diagonal; all zero is no box).
BoxMatrix box_matrix(const std::vector<double>& rows);

/// "single" or "double"; ValueError otherwise.
Precision parse_precision(const std::string& name);

/// One numpy uint64 array per histogram (copies).
py::list histogram_arrays(const std::vector<std::vector<uint64_t>>& histograms);

/// Registers the error translations: UsageError, InputError, NonFiniteCoordinate -> ValueError,
/// OutputError -> OSError.
void register_errors(py::module_& m);

}  // namespace pairhist::python
