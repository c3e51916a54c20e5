// The parts of the _pairhist extension, each registered by module.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace pairhist::python {

void bind_histograms(pybind11::module_& m);  // histograms(), gpu_count()
void bind_engine(pybind11::module_& m);      // Engine, pair_bins()
void bind_run(pybind11::module_& m);         // run()
void bind_scattering(pybind11::module_& m);  // scattering()

}  // namespace pairhist::python
