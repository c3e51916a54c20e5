// The engine's frame buffers: at most `frames_in_flight` frames of pinned per-species
// structure-of-arrays buffers registered with StarPU, reused round-robin. Writing frame f into
// slot f mod K acquires the slot's handles in W mode, which waits for the tasks of frame f - K:
// memory stays bounded by K frames. In single precision the slots hold HostColumns, which a
// caller's filled columns can replace without a copy (swap_columns).
//
// A buffer holds a species' capacity (EngineConfig::species_sizes); its handle covers the atoms
// of the frame in it, x[0..n), y[0..n), z[0..n), so every codelet reads the frame's n from its
// handle and StarPU moves only those to a GPU. A frame of other sizes than the slot's last
// re-registers the handles that change (fit); frames of unchanged sizes cost nothing more.
#pragma once

#include <starpu.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "pairhist/engine.hpp"
#include "pairhist/host_columns.hpp"

namespace pairhist {

/// Axis-aligned bounds of the points gathered into a frame (cell grids without a box need them;
/// with a box, the largest coordinate sets the exactness margin).
struct FrameBounds {
  float lo[3] = {INFINITY, INFINITY, INFINITY};
  float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  bool empty() const { return !(lo[0] <= hi[0]); }
  double max_abs() const {
    double m = 0;
    for (int c = 0; c < 3; ++c)
      m = std::max({m, std::fabs(double(lo[c])), std::fabs(double(hi[c]))});
    return empty() ? 0 : m;
  }
};

/// Copies atoms [begin, end) of n (atom(i) points to the i-th one's x,y,z) into a frame buffer
/// as structure of arrays: the kernels read x, y and z as unit-stride columns. Returns the first
/// atom of the range with a non-finite coordinate, or -1; the check rides on the copy, which
/// memory bandwidth bounds.
template <class Atom, class T>
int64_t gather_atoms(Atom atom, int64_t n, T* out, int64_t begin, int64_t end) {
  T* x = out;
  T* y = x + n;
  T* z = y + n;
  bool finite = true;
  for (int64_t i = begin; i < end; ++i) {
    const float* p = atom(i);
    finite &= std::isfinite(p[0]) & std::isfinite(p[1]) & std::isfinite(p[2]);
    x[i] = static_cast<T>(p[0]);
    y[i] = static_cast<T>(p[1]);
    z[i] = static_cast<T>(p[2]);
  }
  if (finite) return -1;
  for (int64_t i = begin; i < end; ++i) {
    const float* p = atom(i);
    if (!(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]))) return i;
  }
  return -1;
}

/// Copies atoms [begin, end) of n from structure-of-arrays columns (x[0..n), y, z) into a frame
/// buffer of the same layout. Returns the first atom of the range with a non-finite coordinate,
/// or -1; the check (v * 0 is 0 only for finite v) rides on the copy, vectorised.
template <class T>
int64_t copy_columns(const float* soa, int64_t n, T* out, int64_t begin, int64_t end);

/// piece(begin, end) over [0, n) in `threads` pieces, on as many threads (this one included);
/// returns the first piece's result that is >= 0 (the first non-finite atom), or -1.
template <class Piece>
int64_t run_in_pieces(int64_t n, int threads, Piece piece) {
  if (threads <= 1) return piece(int64_t(0), n);
  std::vector<int64_t> bad(static_cast<size_t>(threads), -1);
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t)
    helpers.emplace_back(
        [&, t] { bad[static_cast<size_t>(t)] = piece(n * t / threads, n * (t + 1) / threads); });
  bad[0] = piece(int64_t(0), n / threads);
  for (auto& h : helpers) h.join();
  for (int64_t b : bad)
    if (b >= 0) return b;  // the pieces are in order: the first bad one is the earliest
  return -1;
}

/// gather_atoms over all n atoms in `threads` pieces, on as many threads (this one included).
/// One core copies a 1.36M-atom frame in ~9.5 ms on the H100 host (its memory bandwidth), four
/// times as long as the GPU needs for the frame's cell lists. Returns the first non-finite atom.
template <class Atom, class T>
int64_t gather_atoms_parallel(Atom atom, int64_t n, T* out, int threads) {
  return run_in_pieces(n, threads, [&](int64_t begin, int64_t end) {
    return gather_atoms(atom, n, out, begin, end);
  });
}

/// Widens `bounds` by the n finite points of a structure-of-arrays buffer: a pass of its own over
/// contiguous columns (vectorised min/max reductions, ~0.5 ms for a 1.4M-atom frame), where
/// tracking them during the indirect gather doubled its time.
template <class T>
void widen_bounds(const T* soa, int64_t n, FrameBounds& bounds);  // frame_ring.cpp

class FrameRing {
 public:
  struct Slot {
    std::vector<void*> buffers;
    std::vector<starpu_data_handle_t> handles;  // nullptr where the species has no atoms
    std::vector<HostColumn> columns;            // with columns(): the buffers' owners
    std::vector<int64_t> counts;                // atoms each handle covers (0: no handle)
    std::vector<int64_t> capacity;              // atoms each buffer holds (not columns)
  };

  /// Checks the sizes (StarPU 1.3 vectors count in 32 bits); slots get buffers on first use.
  /// With `columns` (single precision only) the buffers are HostColumns (pinned by the pinning
  /// hooks, if installed), else starpu_malloc's (pinned when StarPU has CUDA workers).
  FrameRing(const std::vector<int64_t>& species_sizes, size_t value_size, int slots, bool columns);
  ~FrameRing() { release(); }
  FrameRing(const FrameRing&) = delete;
  FrameRing& operator=(const FrameRing&) = delete;

  /// The slot frame `frame` uses, its buffers allocated (for the capacities, their handles
  /// covering all of them) and pinned at its first use. Pinning
  /// the whole ring up front delayed the first task (two 48 MB slots for a 4M-atom frame),
  /// although a one-frame job uses one slot; pinning on a helper thread instead stalled the GPUs
  /// while it ran (docs/performance.md). Without `allocate` (a frame handed over) a slot used
  /// the first time gets no buffers: the caller's columns become its buffers.
  Slot& slot(uint64_t frame, bool allocate = true);
  /// Waits for the tasks of the frame that used the slot before (W mode on every handle).
  static void acquire(Slot& slot);
  static void release(Slot& slot);
  /// Whether the slot's handles cover `counts` atoms of each species (false: fit() it).
  static bool fits(const Slot& slot, const std::vector<int64_t>& counts) {
    return slot.counts == counts;
  }
  /// On a slot whose tasks are done and whose handles are not acquired: re-registers the
  /// handles of the species whose count changed to cover `counts` atoms (none for 0), first
  /// giving a buffer its species' capacity where a smaller column was handed over into it. A
  /// count beyond the capacity (the engine's image halos, whose size comes with the frames)
  /// grows the species' capacity to it plus a quarter, reallocated slot by slot as they need it.
  void fit(Slot& slot, const std::vector<int64_t>& counts);
  /// Whether the slots hold HostColumns that swap_columns can exchange.
  bool columns() const { return columns_; }
  /// With columns(), on a slot whose tasks are done (acquire, release): unregisters its
  /// buffers and swaps its columns with `soa`'s (the sizes were checked: 3 n values each, n up
  /// to the capacity; a slot without buffers yet gives back empty columns). register_columns()
  /// registers the new ones for their n atoms, once the engine has written them (a spatial
  /// sort).
  void swap_columns(Slot& slot, std::vector<HostColumn>& soa);
  void register_columns(Slot& slot);
  /// Unregisters and frees every buffer (after the tasks are done); idempotent.
  void release();

  int slots() const { return static_cast<int>(slots_.size()); }

 private:
  /// Registers species s's buffer for `atoms` atoms (none for 0).
  void register_buffer(Slot& slot, size_t s, int64_t atoms);

  std::vector<int64_t> sizes_;
  size_t value_size_;
  bool columns_;
  std::vector<Slot> slots_;
};

}  // namespace pairhist
