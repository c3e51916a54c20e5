// Frames into the engine: copied into the next ring slot (picked from whole frames, per-species
// arrays or columns), or handed over as columns that replace the slot's buffers; then the
// planners submit the frame's tasks.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "pairhist/host_cores.hpp"
#include "pairhist/precision.hpp"
#include "tasks/engine_impl.hpp"
#include "tasks/row_tiles.hpp"
#include "tasks/spatial_order.hpp"

namespace pairhist {

int HistogramEngine::Impl::gather_threads(int64_t atoms) const {
  if (atoms < (int64_t(1) << 18)) return 1;
  const int cores = usable_cores();
  return std::clamp(cores / 4, 1, 4);
}

void HistogramEngine::Impl::check_counts(const std::vector<int64_t>& counts) const {
  const std::vector<int64_t>& capacity = capacities;
  if (counts.size() != capacity.size())
    throw std::invalid_argument("HistogramEngine: one atom count per species expected");
  for (size_t s = 0; s < counts.size(); ++s)
    if (counts[s] < 0 || counts[s] > std::max<int64_t>(capacity[s], 0))
      throw std::invalid_argument("HistogramEngine: species " + std::to_string(s) + " has " +
                                  std::to_string(counts[s]) + " atoms, its capacity is " +
                                  std::to_string(capacity[s]));
}

void HistogramEngine::Impl::submit(const std::vector<const float*>& xyz,
                                   const std::vector<int64_t>& counts, const BoxMatrix& box) {
  if (xyz.size() != capacities.size())
    throw std::invalid_argument("HistogramEngine: one coordinate array per species expected");
  check_counts(counts);
  const auto copy = [&](size_t s, auto* out) {
    const float* species = xyz[s];
    return gather_atoms_parallel([species](int64_t i) { return species + 3 * i; }, counts[s], out,
                                 gather_threads(counts[s]));
  };
  if (images) return take_image_frame(box, counts, copy);
  take_frame(box, counts, copy);
}

void HistogramEngine::Impl::submit_atoms(const float* frame_xyz,
                                         const std::vector<std::vector<int>>& atoms,
                                         const BoxMatrix& box) {
  bool sizes_fit = atoms.size() == capacities.size();
  for (size_t s = 0; sizes_fit && s < atoms.size(); ++s)
    sizes_fit = static_cast<int64_t>(atoms[s].size()) <= capacities[s];
  if (!sizes_fit)
    throw std::invalid_argument(
        "HistogramEngine: one atom list per species, of at most its capacity");
  std::vector<int64_t>& counts = counts_scratch;
  counts.resize(atoms.size());
  for (size_t s = 0; s < atoms.size(); ++s) counts[s] = static_cast<int64_t>(atoms[s].size());
  const auto copy = [&](size_t s, auto* out) {
    const int* picked = atoms[s].data();
    return gather_atoms_parallel(
        [frame_xyz, picked](int64_t i) { return frame_xyz + 3 * int64_t(picked[i]); }, counts[s],
        out, gather_threads(counts[s]));
  };
  if (images) return take_image_frame(box, counts, copy);
  take_frame(box, counts, copy);
}

void HistogramEngine::Impl::submit_columns(const std::vector<const float*>& soa,
                                           const std::vector<int64_t>& counts, const BoxMatrix& box,
                                           const CoordinateBounds* given) {
  if (soa.size() != capacities.size())
    throw std::invalid_argument("HistogramEngine: one column array per species expected");
  check_counts(counts);
  const auto copy = [&](size_t s, auto* out) {
    const int64_t n = counts[s];
    return run_in_pieces(n, gather_threads(n), [&](int64_t begin, int64_t end) {
      return copy_columns(soa[s], n, out, begin, end);
    });
  };
  if (images) return take_image_frame(box, counts, copy);
  take_frame(box, counts, copy, given);
}

FrameRing::Slot& HistogramEngine::Impl::free_slot(FrameFeed& times, bool allocate) {
  if (finished) throw std::logic_error("HistogramEngine: submit_frame after finish");
  times.begin = recorder->seconds_since_start();
  FrameRing::Slot& slot = ring->slot(frames, allocate);
  times.allocated = recorder->seconds_since_start();
  FrameRing::acquire(slot);  // waits for the previous frame's readers
  times.buffers_free = recorder->seconds_since_start();
  return slot;
}

template <class Copy>
void HistogramEngine::Impl::take_frame(const BoxMatrix& box, const std::vector<int64_t>& counts,
                                       Copy copy, const CoordinateBounds* given) {
  FrameFeed times;
  FrameRing::Slot& slot = free_slot(times);
  if (!FrameRing::fits(slot, counts)) {  // other sizes than the slot's last frame
    FrameRing::release(slot);
    ring->fit(slot, counts);
    FrameRing::acquire(slot);  // new handles have no tasks: this waits for nothing
  }
  int bad_species = -1;
  int64_t bad_position = -1;
  FrameBounds bounds;
  const bool widen = gather_bounds && !given;
  if (given && gather_bounds)
    for (int c = 0; c < 3; ++c) bounds.lo[c] = given->lo[c], bounds.hi[c] = given->hi[c];
  for (size_t s = 0; s < slot.handles.size() && bad_species < 0; ++s) {
    if (!slot.handles[s]) continue;  // no atoms in this frame
    const int64_t n = counts[s];
    dispatch_precision(config.precision, [&](auto precision) {
      auto* buffer = static_cast<typename decltype(precision)::type*>(slot.buffers[s]);
      bad_position = copy(s, buffer);
      if (widen && bad_position < 0) widen_bounds(buffer, n, bounds);
      if (spatial_order) sort_spatially(buffer, n);
    });
    if (bad_position >= 0) bad_species = static_cast<int>(s);
  }
  FrameRing::release(slot);
  // Nothing submitted: the next frame takes the same buffers.
  if (bad_species >= 0) throw NonFiniteCoordinate(bad_species, bad_position);
  times.filled = recorder->seconds_since_start();
  submit_slot(slot, box, bounds, times);
}

template <class Copy>
void HistogramEngine::Impl::take_image_frame(const BoxMatrix& box,
                                             const std::vector<int64_t>& counts, Copy copy) {
  image_input.resize(counts.size());
  std::vector<const float*> soa;
  for (size_t s = 0; s < counts.size(); ++s) {
    image_input[s].resize(3 * static_cast<size_t>(counts[s]));
    const int64_t bad = copy(s, image_input[s].data());
    if (bad >= 0) throw NonFiniteCoordinate(static_cast<int>(s), bad);
    soa.push_back(image_input[s].data());
  }
  dispatch_precision(config.precision, [&](auto precision) {
    images->prepare<typename decltype(precision)::type>(box, soa, counts);
  });
  const std::vector<int64_t>& laid_out = images->counts();
  if (!pair_planner && !cell_planner) {
    // The planners (made on this first frame) size their work by the capacities: the images'
    // are this frame's (the frame ring grows its buffers for a later frame that holds more).
    for (size_t s = counts.size(); s < laid_out.size(); ++s)
      config.species_sizes[s] = std::max(config.species_sizes[s], laid_out[s]);
    const size_t value_size =
        config.precision == Precision::single ? sizeof(float) : sizeof(double);
    frame_bytes = 0;
    for (int64_t n : config.species_sizes) frame_bytes += static_cast<uint64_t>(n) * 3 * value_size;
  }
  take_frame(BoxMatrix{}, laid_out, [&](size_t s, auto* out) {
    images->copy(s, out);
    return int64_t(-1);  // checked as gathered
  });
}

bool HistogramEngine::Impl::swap_in(std::vector<HostColumn>& soa, const BoxMatrix& box,
                                    const CoordinateBounds& given) {
  bool sizes_fit = soa.size() == capacities.size();
  for (size_t s = 0; sizes_fit && s < soa.size(); ++s)
    sizes_fit = soa[s].size() % 3 == 0 &&
                soa[s].size() <= 3 * static_cast<size_t>(std::max<int64_t>(0, capacities[s]));
  if (!sizes_fit)
    throw std::invalid_argument(
        "HistogramEngine: one column of 3 n values per species expected, n up to its capacity");
  if (!ring->columns() || images) {
    std::vector<const float*> pointers;
    std::vector<int64_t> counts;
    for (const HostColumn& c : soa) {
      pointers.push_back(c.data());
      counts.push_back(static_cast<int64_t>(c.size() / 3));
    }
    submit_columns(pointers, counts, box, &given);
    return false;
  }
  // A slot's first frame keeps the caller's columns and gives back none: the caller allocates
  // (and pins) them on its own thread, e.g. a decoding thread, not on the feeding one.
  FrameFeed times;
  FrameRing::Slot& slot = free_slot(times, false);
  FrameRing::release(slot);
  ring->swap_columns(slot, soa);
  try {
    if (spatial_order)  // in place: no task has the buffers yet
      for (size_t s = 0; s < slot.columns.size(); ++s)
        if (!slot.columns[s].empty())
          sort_spatially(slot.columns[s].data(), static_cast<int64_t>(slot.columns[s].size() / 3));
  } catch (...) {
    ring->register_columns(slot);  // the slot must stay usable
    throw;
  }
  ring->register_columns(slot);
  times.filled = recorder->seconds_since_start();
  FrameBounds bounds;
  if (gather_bounds)
    for (int c = 0; c < 3; ++c) bounds.lo[c] = given.lo[c], bounds.hi[c] = given.hi[c];
  submit_slot(slot, box, bounds, times);
  ++frames_handed_over;
  return true;
}

void HistogramEngine::Impl::submit_slot(const FrameRing::Slot& slot, const BoxMatrix& box,
                                        const FrameBounds& bounds, FrameFeed& times) {
  if (!pair_planner && !cell_planner) make_planners(box, bounds);
  const int parts = part < 0 ? 1 : config.frame_parts;  // part -1: the whole frame
  // The slot's handles cover the frame's atoms: its counts are the frame's.
  const std::vector<int64_t>& sizes = slot.counts;
  const PlannedFrame planned{slot,
                             box,
                             sizes,
                             sizes == config.species_sizes,
                             bounds,
                             frames,
                             &gate,
                             &faults,
                             std::max(part, 0),
                             parts};
  if (pair_planner) pair_planner->submit_frame(planned);
  if (cell_planner) cell_planner->submit_frame(planned);
  const std::vector<RowWindow> windows =
      parts > 1 ? part_rows(sizes, part, parts) : std::vector<RowWindow>{};
  for (size_t p = 0; p < pairs.size(); ++p) {
    if (algorithm_of_pair[p] == Algorithm::cell_list || !counted(p)) continue;
    const int64_t na = sizes[pairs[p].first];
    const RowWindow w = windows.empty() ? RowWindow{0, na} : windows[p];
    work[p].candidates += pairs_in_rows(na, sizes[pairs[p].second],
                                        pairs[p].first == pairs[p].second, w.begin, w.end);
  }
  ++frames;
  times.submitted = recorder->seconds_since_start();
  recorder->add_feed(times);
}

}  // namespace pairhist
