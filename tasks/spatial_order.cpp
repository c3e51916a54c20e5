#include "tasks/spatial_order.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "pairhist/cell_grid.hpp"

namespace pairhist {
namespace {

// 2^5 cells per axis: ~30 points per cell for a million points, still far finer than the blocks
// of thousands of consecutive points the kernels bound; the 15-bit keys sort in one counting pass.
constexpr int kBitsPerAxis = 5;
constexpr uint32_t kCells = 1u << kBitsPerAxis;
constexpr uint32_t kBuckets = 1u << (3 * kBitsPerAxis);

}  // namespace

template <class T>
void sort_spatially(T* soa, int64_t n) {
  if (n < 2) return;
  const size_t count = static_cast<size_t>(n);
  std::array<double, 3> lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (int c = 0; c < 3; ++c)
    for (size_t i = 0; i < count; ++i) {
      const double v = soa[c * count + i];
      if (std::isfinite(v)) lo[c] = std::min(lo[c], v), hi[c] = std::max(hi[c], v);
    }
  std::vector<uint32_t> code(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t key = 0;
    for (int c = 0; c < 3; ++c) {
      const double v = soa[c * count + i];
      if (!std::isfinite(v)) {
        key = 0;
        break;
      }
      const double extent = hi[c] - lo[c];
      const double cell = extent > 0 ? (v - lo[c]) / extent * kCells : 0.0;
      key |= cells::spread3(static_cast<uint32_t>(std::clamp(cell, 0.0, kCells - 1.0))) << c;
    }
    code[i] = key;
  }
  // One stable counting pass over the keys, moving the coordinates themselves.
  std::vector<size_t> start(kBuckets + 1, 0);
  for (uint32_t key : code) ++start[key + 1];
  for (uint32_t k = 0; k < kBuckets; ++k) start[k + 1] += start[k];
  std::vector<T> sorted(3 * count);
  for (size_t i = 0; i < count; ++i) {
    const size_t to = start[code[i]]++;
    for (int c = 0; c < 3; ++c) sorted[c * count + to] = soa[c * count + i];
  }
  std::copy(sorted.begin(), sorted.end(), soa);
}

template void sort_spatially<float>(float*, int64_t);
template void sort_spatially<double>(double*, int64_t);

}  // namespace pairhist
