// pairhist.histograms(): one frame through the C kernel API (CPU threads or one GPU), the GIL
// released while the kernels run.
#include <string>
#include <vector>

#include "pairhist/pairhist_c.h"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "tasks/algorithm_choice.hpp"

namespace pairhist::python {
namespace {

/// species: C-contiguous (n, 3) arrays, all float32 (precision single) or all float64 (double),
/// as the Python layer converted them. device: -1 for the CPU, else the CUDA device.
py::list histograms(const std::vector<py::array>& species, const std::vector<double>& box,
                    double r_max, int n_bins, const std::string& precision, int device, int threads,
                    const std::string& algorithm) {
  if (species.empty()) throw py::value_error("at least one species is needed");
  const Precision p = parse_precision(precision);
  const py::dtype want = p == Precision::single ? py::dtype::of<float>() : py::dtype::of<double>();
  std::vector<int64_t> sizes;
  std::vector<const void*> coordinates;
  for (size_t s = 0; s < species.size(); ++s) {
    const std::string what = "species " + std::to_string(s);
    sizes.push_back(atom_count(species[s], what.c_str()));
    if (!species[s].dtype().is(want))
      throw py::type_error(what + " coordinates must be " +
                           (p == Precision::single ? "float32" : "float64"));
    coordinates.push_back(species[s].data());
  }
  ph_frame frame{};
  frame.n_species = static_cast<int>(species.size());
  frame.species_sizes = sizes.data();
  frame.coordinates = coordinates.data();
  frame.precision = p == Precision::single ? PH_SINGLE : PH_DOUBLE;
  const BoxMatrix m = box_matrix(box);
  for (int i = 0; i < 9; ++i) frame.box[i] = m[static_cast<size_t>(i)];
  frame.r_max = r_max;
  frame.n_bins = n_bins;
  const Algorithm a = parse_algorithm(algorithm);
  frame.algorithm = a == Algorithm::all_pairs   ? PH_ALL_PAIRS
                    : a == Algorithm::cell_list ? PH_CELL_LIST
                                                : PH_AUTO;
  const size_t pairs = static_cast<size_t>(ph_pair_count(frame.n_species));
  if (n_bins < 1) throw py::value_error("n_bins must be positive");
  std::vector<uint64_t> flat(pairs * static_cast<size_t>(n_bins), 0);
  int rc = 0;
  std::string error;
  {
    py::gil_scoped_release release;
    rc = device < 0 ? ph_histograms_cpu(&frame, threads, flat.data())
                    : ph_histograms_gpu(&frame, device, flat.data());
    if (rc != 0) error = ph_last_error();  // thread-local: read on this thread
  }
  if (rc != 0) throw py::value_error(error);
  std::vector<std::vector<uint64_t>> split(pairs);
  for (size_t q = 0; q < pairs; ++q)
    split[q].assign(flat.begin() + static_cast<ptrdiff_t>(q * n_bins),
                    flat.begin() + static_cast<ptrdiff_t>((q + 1) * n_bins));
  return histogram_arrays(split);
}

}  // namespace

void bind_histograms(py::module_& m) {
  m.def("histograms", &histograms, py::arg("species"), py::arg("box"), py::arg("r_max"),
        py::arg("n_bins"), py::arg("precision"), py::arg("device"), py::arg("threads"),
        py::arg("algorithm"),
        "All pair histograms of one frame (C kernel API); use pairhist.histograms().");
  m.def("gpu_count", &ph_gpu_count, "CUDA devices usable by histograms(device='gpu:N').");
}

}  // namespace pairhist::python
