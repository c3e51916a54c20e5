// Shared by the CPU and GPU halves of the C API: argument checks, the error channel, and the
// conversion of a frame into the kernels' structure-of-arrays form.
#pragma once

#include <string>
#include <vector>

#include "pairhist/box_setup.hpp"
#include "pairhist/cell_grid.hpp"
#include "pairhist/pairhist_c.h"

namespace pairhist::capi {

const char* last_error_message();

/// Records msg as ph_last_error() and returns -1.
int fail(const std::string& msg);

/// Empty when the frame can be histogrammed, otherwise the reason.
std::string frame_problem(const ph_frame* f);

BoxMatrix frame_box(const ph_frame& f);

/// Species coordinates as SoA in T (x[0..n), y, z), converted from the frame's precision.
template <class T>
std::vector<std::vector<T>> species_soa(const ph_frame& f);

/// The frame's cell grid for cell-list counting (bounding box and largest coordinate over every
/// species; CellOptions' reach and order).
CellGrid frame_cell_grid(const ph_frame& f);

/// Whether species pair (a, b) is counted with the cell list: the frame's algorithm, or for
/// PH_AUTO the cost model (tasks/algorithm_choice.hpp) for that device kind.
bool pair_uses_cell_list(const ph_frame& f, const CellGrid& grid, int a, int b, bool gpu);

template <class T>
HistogramParams<T> frame_params(const ph_frame& f) {
  const BoxMatrix m = frame_box(f);
  return make_params<T>(m, classify_box(m), f.r_max, f.n_bins);
}

}  // namespace pairhist::capi
