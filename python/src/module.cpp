// _pairhist: the compiled half of the Python module `pairhist` (python/pairhist/__init__.py is
// the public face: argument checks, names, documentation).
#include "pairhist/settings.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"

PYBIND11_MODULE(_pairhist, m) {
  m.doc() = "pairhist's compiled core; use the pairhist package";
  pairhist::settings();  // the user's environment settings, read once, as the module is imported
  pairhist::python::register_errors(m);
  pairhist::python::bind_histograms(m);
  pairhist::python::bind_engine(m);
  pairhist::python::bind_run(m);
  pairhist::python::bind_scattering(m);
}
