// pairhist.Engine: the task library for a stream of frames. The HistogramEngine is made on the
// first frame, whose box decides the box kind (as `pairhist run` does); every later frame must
// fit it. The GIL is released while StarPU starts, while a frame is copied and its tasks are
// submitted, and while the engine waits for its tasks; Ctrl-C meanwhile drops the frames whose
// tasks have not begun and raises KeyboardInterrupt (python/src/interruptible.hpp).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "pairhist/box_setup.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/periodic_images.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/interruptible.hpp"
#include "tasks/algorithm_choice.hpp"

namespace pairhist::python {
namespace {

class PyEngine {
 public:
  PyEngine(std::vector<int64_t> species_sizes, double r_max, int n_bins,
           const std::string& precision, int ncpu, int ncuda, const std::string& algorithm,
           const std::string& scheduler, uint64_t memory_budget_mib, int frames_in_flight,
           int reserve_cores, uint64_t task_pairs, int cell_reach, const std::string& cell_order,
           std::vector<std::vector<int>> atoms, std::vector<std::pair<int, int>> counted,
           double r_min, double r_cut) {
    if (species_sizes.empty()) throw py::value_error("at least one species is needed");
    for (int64_t n : species_sizes)
      if (n < 0) throw py::value_error("species sizes must not be negative");
    if (!(r_max > 0) || !std::isfinite(r_max)) throw py::value_error("r_max must be positive");
    if (n_bins < 1) throw py::value_error("n_bins must be positive");
    if (!(r_min >= 0) || !(r_min < r_max))
      throw py::value_error("r_min must be at least 0 and below r_max");
    if (!(r_cut >= 0) || !std::isfinite(r_cut))
      throw py::value_error("r_cut must be at least 0 (0: r_max)");
    config_.species_sizes = std::move(species_sizes);
    config_.r_max = r_max;
    config_.nbins = n_bins;
    config_.r_min = r_min;
    config_.r_cut = r_cut;
    config_.precision = parse_precision(precision);
    config_.ncpu = ncpu;
    config_.ncuda = ncuda;
    config_.algorithm = parse_algorithm(algorithm);
    config_.scheduler = scheduler;
    config_.memory_budget_bytes = memory_budget_mib << 20;
    config_.frames_in_flight = frames_in_flight;
    config_.reserve_cores = reserve_cores;
    config_.max_pairs_per_task = task_pairs;
    if (cell_reach < 0 || cell_reach > kMaxCellReach)
      throw py::value_error("cell_reach must be 0.." + std::to_string(kMaxCellReach));
    config_.cell_reach = cell_reach;
    if (!cell_order.empty()) {
      config_.cell_order = parse_cell_order(cell_order);
      config_.cell_order_set = true;
    }
    if (!counted.empty()) {  // the pairs to count, as (a, b) species indices in either order
      const auto all = species_pairs(static_cast<int>(config_.species_sizes.size()));
      config_.counted_pairs.assign(all.size(), false);
      for (auto [a, b] : counted) {
        if (a > b) std::swap(a, b);
        const auto it = std::find(all.begin(), all.end(), std::make_pair(a, b));
        if (it == all.end())
          throw py::value_error("pairs: no species pair (" + std::to_string(a) + ", " +
                                std::to_string(b) + ")");
        config_.counted_pairs[static_cast<size_t>(it - all.begin())] = true;
      }
    }
    atoms_ = std::move(atoms);
    if (!atoms_.empty()) {
      if (atoms_.size() != config_.species_sizes.size())
        throw py::value_error("atoms: one index list per species expected");
      for (size_t s = 0; s < atoms_.size(); ++s) {
        if (static_cast<int64_t>(atoms_[s].size()) != config_.species_sizes[s])
          throw py::value_error("atoms: species " + std::to_string(s) + " has " +
                                std::to_string(config_.species_sizes[s]) + " atoms but " +
                                std::to_string(atoms_[s].size()) + " indices");
        for (int a : atoms_[s]) {
          if (a < 0) throw py::value_error("atoms: negative atom index");
          max_atom_ = std::max(max_atom_, a);
        }
      }
    }
  }

  /// species: one (n_s, 3) float32 array per species (or, when the engine was made with atom
  /// lists, one array holding the whole frame). box: 9 numbers.
  void submit(const std::vector<py::array>& arrays, const std::vector<double>& box_rows) {
    if (finished_) throw py::value_error("Engine: submit after finish()");
    if (interrupted_)
      throw py::value_error(
          "Engine: submit after an interruption (KeyboardInterrupt) dropped "
          "frames: finish() returns the frames counted before it");
    const BoxMatrix box = box_matrix(box_rows);
    std::vector<const float*> species;
    std::vector<int64_t> counts;  // a frame may hold fewer atoms than the capacities
    if (atoms_.empty()) {
      if (arrays.size() != config_.species_sizes.size())
        throw py::value_error("Engine: " + std::to_string(config_.species_sizes.size()) +
                              " species expected, got " + std::to_string(arrays.size()));
      for (size_t s = 0; s < arrays.size(); ++s) {
        const std::string what = "species " + std::to_string(s);
        check_float32(arrays[s], what);
        counts.push_back(atom_count(arrays[s], what.c_str()));
        if (counts.back() > config_.species_sizes[s])
          throw py::value_error(what + ": " + std::to_string(arrays[s].shape(0)) +
                                " atoms, the engine was made for at most " +
                                std::to_string(config_.species_sizes[s]));
        species.push_back(static_cast<const float*>(arrays[s].data()));
      }
    } else {
      if (arrays.size() != 1) throw py::value_error("Engine: one whole-frame array expected");
      check_float32(arrays[0], "frame");
      if (atom_count(arrays[0], "frame") <= max_atom_)
        throw py::value_error("frame has " + std::to_string(arrays[0].shape(0)) +
                              " atoms, but atom index " + std::to_string(max_atom_) +
                              " is selected");
    }
    const BoxKind kind = classify_box(box);
    if (engine_) {
      if (static_cast<int>(kind) > static_cast<int>(config_.box_kind) ||
          (config_.box_kind != BoxKind::none && kind == BoxKind::none))
        throw py::value_error(std::string("box changes from ") + box_kind_name(config_.box_kind) +
                              " to " + box_kind_name(kind) + " at frame " +
                              std::to_string(frames_));
    }
    const BoxKind run_kind = engine_ ? config_.box_kind : kind;
    // As `pairhist run`: r_max beyond the first box's minimum-image limit counts every periodic
    // image (any later box, any skew); otherwise a triclinic box must allow the minimum image.
    const double radius = counted_radius(config_.r_max, config_.r_cut);
    if (!engine_) config_.periodic_images = beyond_minimum_image(box, radius);
    if (run_kind == BoxKind::triclinic && !config_.periodic_images) {
      if (!rmax_fits_minimum_image(config_.r_max, box))
        throw py::value_error("r_max " + std::to_string(config_.r_max) +
                              " exceeds the minimum-image limit " +
                              std::to_string(max_minimum_image_rmax(box)) +
                              " of the triclinic box (half its shortest lattice vector)");
      if (triclinic_search_size(box, config_.r_max) > static_cast<size_t>(kMaxOctantImages))
        throw py::value_error(
            "triclinic box too skewed for an exact minimum image (reduce it "
            "first)");
    }
    const float* frame = atoms_.empty() ? nullptr : static_cast<const float*>(arrays[0].data());
    // The arrays stay alive (and unchanged: the GIL is not taken by another caller of this
    // engine) while the frame is copied on the thread that submits it.
    interruptible([&] {
      if (!engine_) {
        config_.box_kind = kind;
        engine_ = std::make_unique<HistogramEngine>(config_);
        live_.store(engine_.get());
      }
      try {
        if (atoms_.empty())
          engine_->submit_frame(species, counts, box);
        else
          engine_->submit_frame_atoms(frame, atoms_, box);
      } catch (const NonFiniteCoordinate& e) {
        throw UsageError("frame " + std::to_string(frames_) + ": species " +
                         std::to_string(e.species) + ", atom " + std::to_string(e.position) +
                         " has a non-finite coordinate");
      }
    });
    ++frames_;
  }

  py::list take() {
    if (finished_) throw py::value_error("Engine: take() after finish()");
    std::vector<std::vector<uint64_t>> h;
    interruptible([&] { h = engine_ ? engine_->take_histograms() : empty_histograms(); });
    return histogram_arrays(h);
  }

  py::list finish() {
    if (finished_) throw py::value_error("Engine: finish() was called already");
    std::vector<std::vector<uint64_t>> h;
    try {
      interruptible([&] { h = engine_ ? engine_->finish() : empty_histograms(); });
    } catch (...) {
      finished_ = true;  // the engine finished, its tasks dropped
      throw;
    }
    finished_ = true;
    return histogram_arrays(h);
  }

  /// Stops the engine without results (the with-block left by an exception): the frames whose
  /// tasks have not begun are dropped, not counted for nothing.
  void close() {
    py::gil_scoped_release release;
    if (engine_ && !finished_) engine_->drop_unstarted_frames();
    live_.store(nullptr);
    engine_.reset();
    finished_ = true;
  }

  py::dict info() const {
    py::dict d;
    d["frames"] = frames_;
    d["box_kind"] = box_kind_name(config_.box_kind);
    d["periodic_images"] = config_.periodic_images;
    d["started"] = engine_ != nullptr;
    d["interrupted"] = interrupted_.load();
    if (!engine_) return d;
    // After an interruption the histograms hold the frames before this bound.
    if (interrupted_) d["frames_counted"] = engine_->frames_counted();
    d["cpu_workers"] = engine_->cpu_workers();
    d["cuda_workers"] = engine_->cuda_workers();
    d["scheduler"] = engine_->scheduler();
    d["tasks"] = engine_->tasks_submitted();
    d["frames_in_flight"] = engine_->frames_in_flight();
    py::list notes;
    for (const std::string& note : engine_->notes()) notes.append(note);
    d["notes"] = notes;
    if (finished_) {
      const RunActivity a = engine_->activity();
      d["cpu_kernels"] = a.cpu_kernels;  // "avx512", "avx2"; "" without CPU workers
      d["makespan_seconds"] = a.makespan_seconds;
      d["tail_idle_seconds"] = a.tail_idle_seconds;
      py::list pairs;
      for (const PairWork& w : a.pair_work) {
        py::dict p;
        p["species"] = py::make_tuple(w.species_a, w.species_b);
        p["algorithm"] = algorithm_name(w.algorithm);
        p["candidates"] = w.candidates;
        p["within"] = w.within;
        pairs.append(p);
      }
      d["pairs"] = pairs;
    }
    return d;
  }

 private:
  /// `work` on the engine off the Python thread (run_interruptibly): Ctrl-C drops the frames
  /// whose tasks have not begun (also while `work` waits for a frame buffer or for the tasks);
  /// later frames are refused (submit), and take() and finish() return the frames counted.
  void interruptible(const std::function<void()>& work) {
    try {
      run_interruptibly(work, [this] {
        interrupted_.store(true);
        if (HistogramEngine* e = live_.load()) e->drop_unstarted_frames();
      });
    } catch (...) {
      // `work` is over: an engine it made after the look above is dropped here.
      if (interrupted_ && engine_) engine_->drop_unstarted_frames();
      throw;
    }
  }

  static void check_float32(const py::array& a, const std::string& what) {
    if (!a.dtype().is(py::dtype::of<float>())) throw py::type_error(what + " must be float32");
  }
  std::vector<std::vector<uint64_t>> empty_histograms() const {
    const size_t pairs = species_pairs(static_cast<int>(config_.species_sizes.size())).size();
    return std::vector<std::vector<uint64_t>>(
        pairs, std::vector<uint64_t>(static_cast<size_t>(config_.nbins)));
  }

  EngineConfig config_;
  std::vector<std::vector<int>> atoms_;
  int max_atom_ = -1;
  std::unique_ptr<HistogramEngine> engine_;
  std::atomic<HistogramEngine*> live_{nullptr};  // engine_, for the Python thread to stop
  std::atomic<bool> interrupted_{false};
  uint64_t frames_ = 0;
  bool finished_ = false;
};

/// The bin the kernels give each pair (rows[k], cols[k]) of a whole frame (float32 (N, 3)),
/// computed with their own arithmetic (bin_of_points, as the exclusions of `pairhist run`), or
/// n_bins for a pair not counted (r < r_min, r >= r_cut or r_max); kind: the engine's box kind.
/// fn(k, bin) gets every pair.
template <class Fn>
void bin_pairs(const py::array& frame, const py::array_t<int64_t>& rows,
               const py::array_t<int64_t>& cols, const std::vector<double>& box_rows,
               const std::string& kind_name, const BinRange& bins, const std::string& precision,
               Fn&& fn) {
  const double r_max = bins.r_max;
  const int n_bins = bins.nbins;
  if (!frame.dtype().is(py::dtype::of<float>())) throw py::type_error("frame must be float32");
  const int64_t natoms = atom_count(frame, "frame");
  if (rows.ndim() != 1 || cols.ndim() != 1 || rows.shape(0) != cols.shape(0))
    throw py::value_error("rows and cols must be 1-d arrays of one length");
  if (n_bins < 1) throw py::value_error("n_bins must be positive");
  if (!(r_max > 0)) throw py::value_error("r_max must be positive");
  if (!(bins.r_min >= 0) || !(bins.r_min < r_max))
    throw py::value_error("r_min must be at least 0 and below r_max");
  const BoxMatrix box = box_matrix(box_rows);
  const BoxKind kind = kind_name == "orthorhombic" ? BoxKind::orthorhombic
                       : kind_name == "triclinic"  ? BoxKind::triclinic
                                                   : BoxKind::none;
  if (static_cast<int>(classify_box(box)) > static_cast<int>(kind))
    throw py::value_error("the box does not fit the box kind " + kind_name);
  const Precision p = parse_precision(precision);
  const float* xyz = static_cast<const float*>(frame.data());
  const int64_t n = rows.shape(0);
  const int64_t* r = rows.data();
  const int64_t* c = cols.data();
  for (int64_t k = 0; k < n; ++k)
    if (r[k] < 0 || r[k] >= natoms || c[k] < 0 || c[k] >= natoms)
      throw py::value_error("pair atom index out of range");
  const auto run = [&](auto precision, auto box_kind) {
    using T = typename decltype(precision)::type;
    constexpr BoxKind K = decltype(box_kind)::value;
    const HistogramParams<T> params = make_params<T>(box, kind, bins);
    for (int64_t k = 0; k < n; ++k) {
      const float* a = xyz + 3 * r[k];
      const float* b = xyz + 3 * c[k];
      fn(k, std::min(bin_of_points<K>(params, T(a[0]), T(a[1]), T(a[2]), T(b[0]), T(b[1]), T(b[2])),
                     n_bins));
    }
  };
  py::gil_scoped_release release;
  dispatch_precision(p, [&](auto precision) {
    dispatch_box_kind(kind, [&](auto box_kind) { run(precision, box_kind); });
  });
}

/// Histogram of the pairs' bins: what a caller subtracts to leave those pairs out.
py::array_t<uint64_t> pair_bins(const py::array& frame, const py::array_t<int64_t>& rows,
                                const py::array_t<int64_t>& cols, const std::vector<double>& box,
                                const std::string& kind, double r_max, int n_bins,
                                const std::string& precision, double r_min, double r_cut) {
  py::array_t<uint64_t> hist(std::max(n_bins, 0));
  uint64_t* h = hist.mutable_data();
  std::fill(h, h + std::max(n_bins, 0), 0);
  bin_pairs(frame, rows, cols, box, kind, {r_max, n_bins, r_cut, r_min}, precision,
            [&](int64_t, int bin) {
              if (bin < n_bins) ++h[bin];
            });
  return hist;
}

/// Each pair's bin (n_bins: not counted), for per-pair histograms (InterRDF_s).
py::array_t<int32_t> pair_bin_indices(const py::array& frame, const py::array_t<int64_t>& rows,
                                      const py::array_t<int64_t>& cols,
                                      const std::vector<double>& box, const std::string& kind,
                                      double r_max, int n_bins, const std::string& precision,
                                      double r_min, double r_cut) {
  py::array_t<int32_t> bins(rows.ndim() == 1 ? rows.shape(0) : 0);
  int32_t* out = bins.mutable_data();
  bin_pairs(frame, rows, cols, box, kind, {r_max, n_bins, r_cut, r_min}, precision,
            [&](int64_t k, int bin) { out[k] = bin; });
  return bins;
}

}  // namespace

void bind_engine(py::module_& m) {
  py::class_<PyEngine>(m, "Engine")
      .def(py::init<std::vector<int64_t>, double, int, const std::string&, int, int,
                    const std::string&, const std::string&, uint64_t, int, int, uint64_t, int,
                    const std::string&, std::vector<std::vector<int>>,
                    std::vector<std::pair<int, int>>, double, double>(),
           py::arg("species_sizes"), py::arg("r_max"), py::arg("n_bins"), py::arg("precision"),
           py::arg("ncpu"), py::arg("ncuda"), py::arg("algorithm"), py::arg("scheduler"),
           py::arg("memory_budget_mib"), py::arg("frames_in_flight"), py::arg("reserve_cores"),
           py::arg("task_pairs"), py::arg("cell_reach"), py::arg("cell_order"), py::arg("atoms"),
           py::arg("pairs"), py::arg("r_min") = 0.0, py::arg("r_cut") = 0.0)
      .def("submit", &PyEngine::submit, py::arg("arrays"), py::arg("box"))
      .def("take", &PyEngine::take)
      .def("finish", &PyEngine::finish)
      .def("close", &PyEngine::close)
      .def("info", &PyEngine::info);
  m.def("pair_bins", &pair_bins, py::arg("frame"), py::arg("rows"), py::arg("cols"), py::arg("box"),
        py::arg("kind"), py::arg("r_max"), py::arg("n_bins"), py::arg("precision"),
        py::arg("r_min") = 0.0, py::arg("r_cut") = 0.0);
  // The minimum-image rule of `pairhist run` (half the shortest lattice vector, with its
  // tolerance), for the MDAnalysis drop-in, which applies it to every box kind.
  m.def(
      "minimum_image_limit",
      [](const std::vector<double>& box) { return max_minimum_image_rmax(box_matrix(box)); },
      py::arg("box"));
  m.def(
      "rmax_fits_minimum_image",
      [](double r_max, const std::vector<double>& box) {
        return rmax_fits_minimum_image(r_max, box_matrix(box));
      },
      py::arg("r_max"), py::arg("box"));
  m.def("pair_bin_indices", &pair_bin_indices, py::arg("frame"), py::arg("rows"), py::arg("cols"),
        py::arg("box"), py::arg("kind"), py::arg("r_max"), py::arg("n_bins"), py::arg("precision"),
        py::arg("r_min") = 0.0, py::arg("r_cut") = 0.0);
}

}  // namespace pairhist::python
