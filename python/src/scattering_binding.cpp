// pairhist.scattering(): `pairhist scattering`'s computation on a finished run (Debye
// intensities, or structure factors from g(r)), returning numpy arrays instead of writing files.

#include <string>
#include <vector>

#include "drivers/cli/scattering_command.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"

namespace pairhist::python {
namespace {

py::array_t<double> array_of(const std::vector<double>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

/// {(A, B): values} over the result's pairs, in their order.
py::dict by_pair(const ScatteringResult& r, const std::vector<std::vector<double>>& values) {
  py::dict d;
  for (size_t p = 0; p < r.pairs.size(); ++p) {
    const std::string& label = r.pairs[p];
    // Labels are "A-B" of names that may hold '-': split where the species names say.
    for (const std::string& a : r.species)
      if (label.compare(0, a.size() + 1, a + "-") == 0) {
        const std::string b = label.substr(a.size() + 1);
        bool known = false;
        for (const std::string& s : r.species) known = known || s == b;
        if (known) {
          d[py::make_tuple(a, b)] = array_of(values[p]);
          break;
        }
      }
  }
  return d;
}

py::dict scattering(const ScatteringOptions& o) {
  ScatteringResult r;
  {
    py::gil_scoped_release release;
    r = compute_scattering(o);
  }
  py::dict d;
  d["q"] = array_of(r.table.q);
  py::dict weights;
  for (size_t s = 0; s < r.species.size(); ++s)
    weights[py::str(r.species[s])] = array_of(r.weights[s]);
  d["weights"] = weights;
  if (o.structure_factor) {
    d["S"] = array_of(r.structure.total);
    d["F"] = array_of(r.structure.f_total);
    d["partials"] = by_pair(r, r.structure.partial);
    d["density"] = r.structure.density;
    py::dict c;
    for (size_t s = 0; s < r.species.size(); ++s)
      c[py::str(r.species[s])] = r.structure.concentration[s];
    d["concentrations"] = c;
  } else {
    d["I"] = array_of(r.intensity.total);
    d["partials"] = by_pair(r, r.intensity.partial);
  }
  d["guesses"] = r.guesses;
  d["notes"] = r.notes;
  d["header"] = r.table.comments;
  return d;
}

}  // namespace

void bind_scattering(py::module_& m) {
  m.def(
      "scattering",
      [](const std::string& input, const std::string& radiation, double q_max, int nq,
         const std::vector<double>& q, const std::string& within_bin, const std::string& precision,
         bool structure_factor, const std::string& window, const std::string& top,
         const std::vector<std::string>& elements, const std::vector<std::string>& deuteration,
         const std::string& table) {
        ScatteringOptions o;
        o.input = input;
        o.radiation = radiation;
        o.q_max = q_max;
        o.nq = nq;
        o.q_values = q;
        o.within_bin = within_bin;
        o.precision = precision;
        o.structure_factor = structure_factor;
        o.window = window;
        o.topology = top;
        o.elements = elements;
        o.deuteration = deuteration;
        o.table = table;
        return scattering(o);
      },
      "`pairhist scattering` on a run's pairhist.h5, returning arrays.");
}

}  // namespace pairhist::python
