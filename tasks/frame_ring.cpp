#include "tasks/frame_ring.hpp"

#include <stdexcept>

#include "pairhist/errors.hpp"

namespace pairhist {

template <class T>
void widen_bounds(const T* soa, int64_t n, FrameBounds& bounds) {
  for (int c = 0; c < 3; ++c) {
    const T* __restrict__ v = soa + c * n;
    T lo = bounds.lo[c], hi = bounds.hi[c];
#pragma omp simd reduction(min : lo) reduction(max : hi)
    for (int64_t i = 0; i < n; ++i) {
      lo = v[i] < lo ? v[i] : lo;
      hi = v[i] > hi ? v[i] : hi;
    }
    bounds.lo[c] = static_cast<float>(lo);  // the coordinates came from floats: exact
    bounds.hi[c] = static_cast<float>(hi);
  }
}

template <class T>
int64_t copy_columns(const float* soa, int64_t n, T* out, int64_t begin, int64_t end) {
  float poisoned = 0;
  for (int c = 0; c < 3; ++c) {
    const float* __restrict__ src = soa + c * n;
    T* __restrict__ dst = out + c * n;
#pragma omp simd reduction(+ : poisoned)
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = static_cast<T>(src[i]);
      poisoned += src[i] * 0.0f;
    }
  }
  if (poisoned == 0) return -1;
  for (int64_t i = begin; i < end; ++i)
    if (!(std::isfinite(soa[i]) && std::isfinite(soa[n + i]) && std::isfinite(soa[2 * n + i])))
      return i;
  return -1;
}

template int64_t copy_columns<float>(const float*, int64_t, float*, int64_t, int64_t);
template int64_t copy_columns<double>(const float*, int64_t, double*, int64_t, int64_t);
template void widen_bounds<float>(const float*, int64_t, FrameBounds&);
template void widen_bounds<double>(const double*, int64_t, FrameBounds&);

FrameRing::FrameRing(const std::vector<int64_t>& species_sizes, size_t value_size, int slots,
                     bool columns)
    : sizes_(species_sizes), value_size_(value_size), columns_(columns) {
  if (columns_ && value_size_ != sizeof(float))
    throw std::logic_error("FrameRing: columns hold single precision only");
  for (int64_t n : sizes_)
    if (n > 0 && static_cast<uint64_t>(n) * 3 > UINT32_MAX)
      throw UsageError("a species has too many atoms for StarPU 1.3 vectors");
  slots_.resize(static_cast<size_t>(std::max(slots, 1)));
}

void FrameRing::register_buffer(Slot& slot, size_t s, int64_t atoms) {
  slot.counts[s] = atoms;
  if (atoms <= 0) return;
  const size_t values = static_cast<size_t>(atoms) * 3;
  starpu_vector_data_register(&slot.handles[s], STARPU_MAIN_RAM,
                              reinterpret_cast<uintptr_t>(slot.buffers[s]),
                              static_cast<uint32_t>(values), value_size_);
}

FrameRing::Slot& FrameRing::slot(uint64_t frame, bool allocate) {
  Slot& slot = slots_[frame % slots_.size()];
  if (!slot.handles.empty()) return slot;
  if (columns_) slot.columns.resize(sizes_.size());
  slot.counts.assign(sizes_.size(), 0);
  slot.capacity.assign(sizes_.size(), 0);
  for (size_t s = 0; s < sizes_.size(); ++s) {
    slot.buffers.push_back(nullptr);
    slot.handles.push_back(nullptr);
    if (sizes_[s] <= 0 || (columns_ && !allocate)) continue;
    const size_t values = static_cast<size_t>(sizes_[s]) * 3;
    if (columns_) {
      slot.columns[s].resize(values);
      slot.buffers[s] = slot.columns[s].data();
    } else if (starpu_malloc(&slot.buffers[s], values * value_size_) != 0) {
      slot.buffers[s] = nullptr;
      throw std::runtime_error("out of memory for frame buffers");
    }
    slot.capacity[s] = sizes_[s];
    register_buffer(slot, s, sizes_[s]);
  }
  return slot;
}

void FrameRing::fit(Slot& slot, const std::vector<int64_t>& counts) {
  for (size_t s = 0; s < slot.handles.size(); ++s) {
    if (slot.counts[s] == counts[s]) continue;
    // The slot's tasks are done and its data were last written here (acquired in W mode): no
    // copy comes back from a GPU.
    if (slot.handles[s]) starpu_data_unregister(slot.handles[s]);
    slot.handles[s] = nullptr;
    if (counts[s] > sizes_[s]) {
      sizes_[s] = counts[s] + counts[s] / 4;
      if (static_cast<uint64_t>(sizes_[s]) * 3 > UINT32_MAX)
        throw UsageError("a species' periodic images have too many points for StarPU 1.3 vectors");
    }
    const size_t capacity = static_cast<size_t>(sizes_[s]) * 3;
    if (columns_ && slot.columns[s].size() < 3 * static_cast<size_t>(counts[s])) {
      slot.columns[s].clear();  // nothing to keep: reallocated without copying
      slot.columns[s].resize(capacity);
      slot.buffers[s] = slot.columns[s].data();
    } else if (!columns_ && slot.capacity[s] < counts[s]) {
      if (slot.buffers[s]) starpu_free(slot.buffers[s]);
      slot.buffers[s] = nullptr;
      if (starpu_malloc(&slot.buffers[s], capacity * value_size_) != 0) {
        slot.buffers[s] = nullptr;
        slot.capacity[s] = 0;
        throw std::runtime_error("out of memory for frame buffers");
      }
      slot.capacity[s] = sizes_[s];
    }
    register_buffer(slot, s, counts[s]);
  }
}

void FrameRing::acquire(Slot& slot) {
  for (starpu_data_handle_t h : slot.handles)
    if (h) starpu_data_acquire(h, STARPU_W);
}

void FrameRing::release(Slot& slot) {
  for (starpu_data_handle_t h : slot.handles)
    if (h) starpu_data_release(h);
}

void FrameRing::swap_columns(Slot& slot, std::vector<HostColumn>& soa) {
  // A handle's home buffer cannot change while registered: the next frame's buffers get handles
  // of their own (no task of the slot is pending, so this waits for nothing and copies nothing).
  for (size_t s = 0; s < slot.handles.size(); ++s) {
    if (sizes_[s] <= 0) continue;
    if (slot.handles[s]) starpu_data_unregister(slot.handles[s]);
    slot.handles[s] = nullptr;
    slot.counts[s] = 0;
    slot.columns[s].swap(soa[s]);
    slot.buffers[s] = slot.columns[s].data();
  }
}

void FrameRing::register_columns(Slot& slot) {
  for (size_t s = 0; s < slot.handles.size(); ++s)
    if (sizes_[s] > 0 && !slot.handles[s])
      register_buffer(slot, s, static_cast<int64_t>(slot.columns[s].size() / 3));
}

void FrameRing::release() {
  for (auto& slot : slots_)
    for (size_t s = 0; s < slot.handles.size(); ++s) {
      if (slot.handles[s]) starpu_data_unregister(slot.handles[s]);
      if (!columns_ && slot.buffers[s]) starpu_free(slot.buffers[s]);
    }
  slots_.clear();  // frees the columns (their unpin hook runs)
}

}  // namespace pairhist
