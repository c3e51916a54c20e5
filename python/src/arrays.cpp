#include "python/src/arrays.hpp"

#include <string>

#include "pairhist/errors.hpp"

namespace pairhist::python {

int64_t atom_count(const py::array& xyz, const char* what) {
  if (xyz.ndim() != 2 || xyz.shape(1) != 3)
    throw py::value_error(std::string(what) + " must have shape (n, 3)");
  if (!(xyz.flags() & py::array::c_style))
    throw py::value_error(std::string(what) + " must be C-contiguous");
  return static_cast<int64_t>(xyz.shape(0));
}

BoxMatrix box_matrix(const std::vector<double>& rows) {
  if (rows.size() != 9) throw py::value_error("box must have 9 components (3 rows)");
  BoxMatrix m;
  for (size_t i = 0; i < 9; ++i) m[i] = rows[i];
  if (const std::string problem = box_problem(m); !problem.empty())
    throw py::value_error("box: " + problem);
  return m;
}

Precision parse_precision(const std::string& name) {
  if (name == "single") return Precision::single;
  if (name == "double") return Precision::double_;
  throw py::value_error("precision must be 'single' or 'double', got '" + name + "'");
}

py::list histogram_arrays(const std::vector<std::vector<uint64_t>>& histograms) {
  py::list out;
  for (const auto& h : histograms) {
    py::array_t<uint64_t> a(static_cast<py::ssize_t>(h.size()));
    std::copy(h.begin(), h.end(), a.mutable_data());
    out.append(std::move(a));
  }
  return out;
}

void register_errors(py::module_& m) {
  (void)m;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UsageError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const OutputError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    }
  });
}

}  // namespace pairhist::python
