#include "frame_ring.hpp"

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

FrameRing::FrameRing(const std::vector<int64_t>& species_sizes, size_t value_size, int slots)
    : sizes_(species_sizes), value_size_(value_size) {
  for (int64_t n : sizes_)
    if (n > 0 && static_cast<uint64_t>(n) * 3 > UINT32_MAX)
      throw UsageError("a species has too many atoms for StarPU 1.3 vectors");
  slots_.resize(static_cast<size_t>(std::max(slots, 1)));
}

FrameRing::Slot& FrameRing::slot(uint64_t frame) {
  Slot& slot = slots_[frame % slots_.size()];
  if (!slot.handles.empty()) return slot;
  for (int64_t n : sizes_) {
    slot.buffers.push_back(nullptr);
    slot.handles.push_back(nullptr);
    if (n <= 0) continue;
    const size_t values = static_cast<size_t>(n) * 3;
    if (starpu_malloc(&slot.buffers.back(), values * value_size_) != 0) {
      slot.buffers.back() = nullptr;
      throw std::runtime_error("out of memory for frame buffers");
    }
    starpu_vector_data_register(&slot.handles.back(), STARPU_MAIN_RAM,
                                reinterpret_cast<uintptr_t>(slot.buffers.back()),
                                static_cast<uint32_t>(values), value_size_);
  }
  return slot;
}

void FrameRing::acquire(Slot& slot) {
  for (starpu_data_handle_t h : slot.handles)
    if (h) starpu_data_acquire(h, STARPU_W);
}

void FrameRing::release(Slot& slot) {
  for (starpu_data_handle_t h : slot.handles)
    if (h) starpu_data_release(h);
}

void FrameRing::release() {
  for (auto& slot : slots_)
    for (size_t s = 0; s < slot.handles.size(); ++s) {
      if (slot.handles[s]) starpu_data_unregister(slot.handles[s]);
      if (slot.buffers[s]) starpu_free(slot.buffers[s]);
    }
  slots_.clear();
}

}  // namespace pairhist
