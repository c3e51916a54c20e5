// Spatial order of a species' points: a Z-order (Morton) curve over the points' bounding box.
// Histograms do not depend on the order of the points, but a kernel that skips blocks of pairs
// whose distances all miss its bins (the windows of a wide histogram, pair_histogram_cuda.cu)
// finds far more such blocks when neighbouring indices are neighbouring points.
#pragma once

#include <cstdint>
#include <vector>

namespace pairhist {

/// Reorders the n points of a structure-of-arrays buffer (x[0..n), y[n..2n), z[2n..3n)) along a
/// Z-order curve of 2^5 cells per axis (one counting pass); points with a non-finite coordinate go
/// first. The multiset of points is unchanged. O(n).
template <class T>
void sort_spatially(T* soa, int64_t n);

template <class T>
void sort_spatially(std::vector<T>& soa, int64_t n) {
  sort_spatially(soa.data(), n);
}

}  // namespace pairhist
