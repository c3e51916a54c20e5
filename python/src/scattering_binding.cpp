// pairhist.scattering(): `pairhist scattering`'s computation on a finished run (Debye
// intensities, or structure factors from g(r)), returning numpy arrays instead of writing files.

#include <cmath>
#include <string>
#include <vector>

#include "drivers/cli/scattering_command.hpp"
#include "drivers/cli/scattering_excess.hpp"
#include "drivers/cli/scattering_units.hpp"
#include "io/scattering/scattering_hdf5.hpp"
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

/// An excess's P(r): {r, P, P_pairs, P_background, unit}.
py::dict distribution(const io::ScatteringDistribution& pr) {
  py::dict d;
  d["r"] = array_of(pr.r);
  d["P"] = array_of(pr.total);
  d["P_pairs"] = array_of(pr.pairs);
  d["P_background"] = array_of(pr.background);
  d["unit"] = pr.unit;
  return d;
}

py::dict scattering(const ScatteringOptions& o) {
  ScatteringResult r;
  {
    py::gil_scoped_release release;
    refuse_scaled_structure_factor(o);
    r = o.subtract.empty() ? compute_scattering(o) : compute_excess(o);
    express_scattering_units(o, r);
  }
  py::dict d;
  d["q"] = array_of(r.table.q);
  py::dict weights;
  for (size_t s = 0; s < r.species.size(); ++s)
    weights[py::str(r.species[s])] = array_of(r.weights[s]);
  d["weights"] = weights;
  if (!o.subtract.empty()) {
    for (const io::ScatteringCurve& c : r.data.curves) d[py::str(c.name)] = array_of(c.values);
    py::dict partials;
    for (const io::ScatteringPartial& p : r.data.partials)
      partials[py::make_tuple(p.a, p.b)] = array_of(p.values);
    d["partials"] = partials;
  } else if (o.structure_factor) {
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
  if (!r.data.distribution.r.empty()) d["distribution"] = distribution(r.data.distribution);
  if (!r.errors.total.empty()) {  // from the run's interval blocks (scattering_errors.hpp)
    const std::string total = !o.subtract.empty() ? "dI" : o.structure_factor ? "S" : "I";
    d[py::str(total + "err")] = array_of(r.errors.total);
    d["partial_errors"] = by_pair(r, r.errors.partial);
    if (o.structure_factor) d["Ferr"] = array_of(r.errors.f_total);
  }
  d["guesses"] = r.guesses;
  d["notes"] = r.notes;
  d["header"] = r.table.comments;
  py::dict units;
  units["q"] = r.data.q_unit;
  for (const io::ScatteringCurve& c : r.data.curves) units[py::str(c.name)] = c.unit;
  units["weights"] = r.data.weight_unit;
  d["units"] = units;
  return d;
}

/// What io::read_scattering_hdf5() reads, keyed as scattering() returns it, with what the file
/// says about it.
py::dict read_scattering(const std::string& path) {
  io::ScatteringData data;
  {
    py::gil_scoped_release release;
    data = io::read_scattering_hdf5(path);
  }
  py::dict d;
  d["q"] = array_of(data.q);
  py::dict units;
  units["q"] = data.q_unit;
  for (const io::ScatteringCurve& c : data.curves) {
    d[py::str(c.name)] = array_of(c.values);
    units[py::str(c.name)] = c.unit;
  }
  units["weights"] = data.weight_unit;
  py::dict partials;
  for (const io::ScatteringPartial& p : data.partials)
    partials[py::make_tuple(p.a, p.b)] = array_of(p.values);
  d["partials"] = partials;
  py::dict weights, scatterers, atoms, concentrations;
  for (const io::ScatteringSpecies& s : data.species) {
    weights[py::str(s.name)] = array_of(s.weight);
    scatterers[py::str(s.name)] = s.scatterer;
    atoms[py::str(s.name)] = s.atoms;
    if (!std::isnan(s.concentration)) concentrations[py::str(s.name)] = s.concentration;
  }
  d["weights"] = weights;
  d["scatterers"] = scatterers;
  d["atoms"] = atoms;
  if (!std::isnan(data.density)) {
    d["density"] = data.density;
    d["concentrations"] = concentrations;
  }
  d["quantity"] = data.quantity;
  d["radiation"] = data.radiation;
  d["units"] = units;
  d["runs"] = data.runs;
  d["n_frames"] = data.n_frames;
  d["complete"] = data.complete;
  py::dict options;
  for (const auto& [key, value] : data.options) options[py::str(key)] = value;
  d["options"] = options;
  d["header"] = data.header;
  if (!data.distribution.r.empty()) d["distribution"] = distribution(data.distribution);
  return d;
}

}  // namespace

void bind_scattering(py::module_& m) {
  m.def("read_scattering", &read_scattering,
        "intensity.h5, sq.h5 or excess.h5 of `pairhist scattering`, as arrays.");
  m.def(
      "scattering",
      [](const std::string& input, const std::string& radiation, double q_max, int nq,
         const std::vector<double>& q, const std::string& within_bin, const std::string& precision,
         bool structure_factor, const std::string& window, const std::string& top,
         const std::vector<std::string>& elements, const std::vector<std::string>& deuteration,
         const std::string& table, const std::string& subtract, const std::string& form_factors,
         const std::string& hydrogen, const std::string& water_factors,
         const std::vector<std::string>& maff, const std::string& q_unit, const std::string& per,
         double molecules, double concentration, double number_density, double match_shell) {
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
        o.subtract = subtract;
        o.form_factors = form_factors;
        o.hydrogen = hydrogen;
        o.water_factors = water_factors;
        o.maff = maff;
        o.q_unit = q_unit;
        o.per = per;
        o.molecules = molecules;
        o.concentration = concentration;
        o.number_density = number_density;
        o.match_shell = match_shell;
        return scattering(o);
      },
      "`pairhist scattering` on a run's pairhist.h5, returning arrays.");
}

}  // namespace pairhist::python
