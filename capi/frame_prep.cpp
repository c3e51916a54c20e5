#include "capi/frame_prep.hpp"

#include <algorithm>
#include <cmath>

#include "pairhist/cell_grid_setup.hpp"
#include "tasks/algorithm_choice.hpp"

namespace pairhist::capi {
namespace {
thread_local std::string last_error;
}

const char* last_error_message() {
  return last_error.c_str();
}

int fail(const std::string& msg) {
  last_error = msg;
  return -1;
}

BoxMatrix frame_box(const ph_frame& f) {
  BoxMatrix m;
  for (int i = 0; i < 9; ++i) m[i] = f.box[i];
  return m;
}

std::string frame_problem(const ph_frame* f) {
  if (!f) return "frame is NULL";
  if (f->n_species < 1) return "n_species must be at least 1";
  if (!f->species_sizes) return "species_sizes is NULL";
  if (!f->coordinates) return "coordinates is NULL";
  for (int s = 0; s < f->n_species; ++s) {
    if (f->species_sizes[s] < 0) return "species " + std::to_string(s) + " has a negative size";
    if (f->species_sizes[s] > 0 && !f->coordinates[s])
      return "species " + std::to_string(s) + " has atoms but no coordinates";
  }
  if (f->precision != PH_SINGLE && f->precision != PH_DOUBLE) return "unknown precision";
  // A NaN distance falls in no bin and an infinite one beyond r_max: either would be left out
  // of the counts without a word (Engine::submit and pairhist.run refuse them the same way).
  for (int s = 0; s < f->n_species; ++s)
    for (int64_t k = 0; k < 3 * f->species_sizes[s]; ++k) {
      const double x = f->precision == PH_SINGLE ? static_cast<const float*>(f->coordinates[s])[k]
                                                 : static_cast<const double*>(f->coordinates[s])[k];
      if (!std::isfinite(x))
        return "species " + std::to_string(s) + ", atom " + std::to_string(k / 3) +
               " has a non-finite coordinate";
    }
  if (!(f->r_max > 0) || !std::isfinite(f->r_max)) return "r_max must be positive and finite";
  if (f->n_bins < 1) return "n_bins must be positive";
  if (f->algorithm != PH_AUTO && f->algorithm != PH_ALL_PAIRS && f->algorithm != PH_CELL_LIST)
    return "unknown algorithm";
  const BoxMatrix m = frame_box(*f);
  if (std::string p = box_problem(m); !p.empty()) return p;
  // Orthorhombic minimum images are exact at any distance; the triclinic search only below half
  // the shortest lattice vector.
  const double limit = max_minimum_image_rmax(m);
  if (classify_box(m) == BoxKind::triclinic && !rmax_fits_minimum_image(f->r_max, m))
    return "r_max " + std::to_string(f->r_max) + " exceeds the minimum-image limit " +
           std::to_string(limit) + " of the triclinic box (half its shortest lattice vector)";
  if (classify_box(m) == BoxKind::triclinic &&
      triclinic_search_size(m, f->r_max) > static_cast<size_t>(kMaxOctantImages))
    return "triclinic box too skewed for an exact minimum image (reduce it first)";
  return "";
}

CellGrid frame_cell_grid(const ph_frame& f) {
  CellGridRequest r;
  r.box = frame_box(f);
  r.kind = classify_box(r.box);
  r.r_max = f.r_max;
  r.single_precision = f.precision == PH_SINGLE;
  const CellOptions options{};
  r.reach = options.reach;
  r.order = options.order;
  int64_t total = 0;
  for (int c = 0; c < 3; ++c) r.lo[c] = INFINITY, r.hi[c] = -INFINITY;
  for (int s = 0; s < f.n_species; ++s) {
    const int64_t n = f.species_sizes[s];
    total += n;
    for (int64_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) {
        const double x = f.precision == PH_SINGLE
                             ? static_cast<const float*>(f.coordinates[s])[3 * i + c]
                             : static_cast<const double*>(f.coordinates[s])[3 * i + c];
        r.lo[c] = std::min(r.lo[c], x);
        r.hi[c] = std::max(r.hi[c], x);
        r.max_abs = std::max(r.max_abs, std::fabs(x));
      }
  }
  if (total == 0)
    for (int c = 0; c < 3; ++c) r.lo[c] = r.hi[c] = 0;
  r.max_cells = std::max<int64_t>(64, 4 * total);
  return make_cell_grid(r);
}

bool pair_uses_cell_list(const ph_frame& f, const CellGrid& grid, int a, int b, bool gpu) {
  const Algorithm requested = f.algorithm == PH_CELL_LIST   ? Algorithm::cell_list
                              : f.algorithm == PH_ALL_PAIRS ? Algorithm::all_pairs
                                                            : Algorithm::automatic;
  return choose_pair_algorithm(requested, grid, f.species_sizes[a], f.species_sizes[b], a == b,
                               gpu) == Algorithm::cell_list;
}

template <class T>
std::vector<std::vector<T>> species_soa(const ph_frame& f) {
  std::vector<std::vector<T>> out(static_cast<size_t>(f.n_species));
  for (int s = 0; s < f.n_species; ++s) {
    const int64_t n = f.species_sizes[s];
    auto& v = out[static_cast<size_t>(s)];
    v.resize(static_cast<size_t>(3 * n));
    for (int64_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) {
        const double x = f.precision == PH_SINGLE
                             ? static_cast<const float*>(f.coordinates[s])[3 * i + c]
                             : static_cast<const double*>(f.coordinates[s])[3 * i + c];
        v[static_cast<size_t>(c * n + i)] = static_cast<T>(x);
      }
  }
  return out;
}

template std::vector<std::vector<float>> species_soa<float>(const ph_frame&);
template std::vector<std::vector<double>> species_soa<double>(const ph_frame&);

}  // namespace pairhist::capi

extern "C" {

int ph_pair_count(int n_species) {
  return n_species < 1 ? 0 : n_species * (n_species + 1) / 2;
}

const char* ph_last_error(void) {
  return pairhist::capi::last_error_message();
}
}
