// The CPU cell-list kernel's building blocks: a home cell's stencil points gathered into one
// buffer, and the vectorised distance pass of one home point over a piece of it. Internal to
// cell_histogram_cpu.cpp (one translation unit; a header only to keep that file short).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "codelets/cpu/cell_histogram_cpu.hpp"

namespace pairhist::cpu {
inline namespace PAIRHIST_CPU_HELPERS {  // one per build: kernel_isa.hpp
namespace cell_pass {

// The distance passes run over whole blocks of kBlock candidates (a gathered stencil is padded
// with NaN points, which land in no bin), so they have no scalar remainder; a pass covers at most
// kChunk candidates, so its squared distances and the triclinic temporaries stay in L1 however
// many points a stencil holds (the all-pairs kernel's tile width).
constexpr int64_t kBlock = 8;
constexpr int64_t kChunk = 1024;

/// Uninitialised storage aligned for whole-vector loads; grows, forgetting its contents.
template <class U>
class AlignedArray {
 public:
  U* data() { return data_.get(); }
  void reserve(int64_t n) {
    if (n <= size_) return;
    size_ = std::max(n, 2 * size_);
    data_.reset(static_cast<U*>(
        ::operator new(static_cast<size_t>(size_) * sizeof(U), std::align_val_t(64))));
  }

 private:
  struct Free {
    void operator()(U* p) const { ::operator delete(p, std::align_val_t(64)); }
  };
  std::unique_ptr<U, Free> data_;
  int64_t size_ = 0;
};

/// The stencil's points of species b, gathered contiguously for one home cell.
template <class T>
struct Gathered {
  AlignedArray<T> x, y, z;
  AlignedArray<int64_t> index;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // point ranges of b, merged where adjacent
  int64_t n = 0;

  void add_range(int64_t begin, int64_t end) {
    if (begin == end) return;
    if (!ranges.empty() && ranges.back().second == begin)
      ranges.back().second = end;
    else
      ranges.emplace_back(begin, end);
    n += end - begin;
  }

  /// Room for n points, the blocks a copy writes past them and a block of padding.
  void reserve(int64_t points, bool with_index) {
    x.reserve(points + 2 * kBlock), y.reserve(points + 2 * kBlock), z.reserve(points + 2 * kBlock);
    if (with_index) index.reserve(points + 2 * kBlock);
  }

  /// Copies b's points [begin, end) to the buffer from `at` on; returns where they end.
  int64_t pick(const CellSortedSpecies<T>& b, int64_t begin, int64_t end, int64_t at,
               bool with_index) {
    const int64_t limit = b.size();
    copy_blocks(b.x.data(), begin, end, limit, x.data() + at);
    copy_blocks(b.y.data(), begin, end, limit, y.data() + at);
    copy_blocks(b.z.data(), begin, end, limit, z.data() + at);
    if (with_index) copy_blocks(b.index.data(), begin, end, limit, index.data() + at);
    return at + (end - begin);
  }

  /// NaN points after the first `points` (in no bin).
  void pad(int64_t points, bool with_index) {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    std::fill(x.data() + points, x.data() + points + kBlock, nan);
    std::fill(y.data() + points, y.data() + points + kBlock, nan);
    std::fill(z.data() + points, z.data() + points + kBlock, nan);
    if (with_index) std::fill(index.data() + points, index.data() + points + kBlock, int64_t(0));
  }

  void copy(const CellSortedSpecies<T>& b, bool with_index) {
    // Room for the last range's whole blocks and then a block of padding.
    x.reserve(n + 2 * kBlock), y.reserve(n + 2 * kBlock), z.reserve(n + 2 * kBlock);
    if (with_index) index.reserve(n + 2 * kBlock);
    const int64_t limit = b.size();
    int64_t at = 0;
    for (const auto& [begin, end] : ranges) {
      copy_blocks(b.x.data(), begin, end, limit, x.data() + at);
      copy_blocks(b.y.data(), begin, end, limit, y.data() + at);
      copy_blocks(b.z.data(), begin, end, limit, z.data() + at);
      if (with_index) copy_blocks(b.index.data(), begin, end, limit, index.data() + at);
      at += end - begin;
    }
    const T nan = std::numeric_limits<T>::quiet_NaN();
    std::fill(x.data() + n, x.data() + n + kBlock, nan);
    std::fill(y.data() + n, y.data() + n + kBlock, nan);
    std::fill(z.data() + n, z.data() + n + kBlock, nan);
    if (with_index) std::fill(index.data() + n, index.data() + n + kBlock, int64_t(0));
  }

 private:
  // A range holds a few points: whole blocks (one or two vector moves each; the excess is
  // overwritten by the next range or the padding) where the source has them, not memmove.
  template <class U>
  static void copy_blocks(const U* from, int64_t begin, int64_t end, int64_t limit, U* to) {
    if (end + kBlock <= limit) {
      for (int64_t q = begin; q < end; q += kBlock, to += kBlock)
        for (int64_t l = 0; l < kBlock; ++l) to[l] = from[q + l];
    } else {
      for (int64_t q = begin; q < end; ++q) *to++ = from[q];
    }
  }
};

template <class T>
struct HomePoint {
  T x, y, z;
  int64_t index;
};

/// Per-pass temporaries (kChunk candidates and the padding of the last block).
template <class T>
struct PassBuffers {
  alignas(64) T d2[kChunk + kBlock];
  alignas(64) T counted_d2[kChunk + kBlock];
  alignas(64) int32_t counted_bins[kChunk + kBlock];
  alignas(64) int32_t octant[kChunk + kBlock];
  alignas(64) T rx[kChunk + kBlock];
  alignas(64) T ry[kChunk + kBlock];
  alignas(64) T rz[kChunk + kBlock];
};

/// s.d2[k] for candidates b[k], k < m, exactly as the all-pairs kernel computes them.
///
/// Orient (a species with itself in a triclinic cell): that kernel bins p_j - p_i for input
/// indices i < j, the cell list p_b - p_home. Reversed, every rounding of the displacement and of
/// its reduction is negated exactly, except that an exact zero does not change sign; only in
/// a triclinic cell does that sign matter (it picks the octant, and with it the image list that is
/// searched). So the passes run in the cell list's orientation and the pairs with a reduced
/// component of zero that the kernel would have reversed (rare: equal coordinates) are binned
/// again its way.
template <BoxKind K, class T, bool Orient>
void distance_pass(const Box<T>& box, const HomePoint<T> h, const T* bx, const T* by, const T* bz,
                   const int64_t* bi, int64_t m, int lead, PassBuffers<T>& s) {
  T* d2 = s.d2;
  if constexpr (K == BoxKind::triclinic) {
    int zeros = 0;
    for (int64_t k = 0; k < m; ++k) {
      T dx = fp::sub(bx[k], h.x), dy = fp::sub(by[k], h.y), dz = fp::sub(bz[k], h.z);
      reduce_triclinic(box, dx, dy, dz);
      s.rx[k] = dx;
      s.ry[k] = dy;
      s.rz[k] = dz;
      s.octant[k] = octant_of(dx, dy, dz);
      d2[k] = norm2(dx, dy, dz);
      if constexpr (Orient) zeros += (dx == T(0)) | (dy == T(0)) | (dz == T(0));
    }
    for (int im = 0; im < box.octant_images; ++im) {
      T sx[8], sy[8], sz[8];
      for (int o = 0; o < 8; ++o) {
        sx[o] = box.octant_image[o][im].x;
        sy[o] = box.octant_image[o][im].y;
        sz[o] = box.octant_image[o][im].z;
      }
      for (int64_t k = 0; k < m; ++k) {
        const int o = s.octant[k];
        d2[k] = fp::min(
            norm2(fp::add(s.rx[k], sx[o]), fp::add(s.ry[k], sy[o]), fp::add(s.rz[k], sz[o])),
            d2[k]);
      }
    }
    if constexpr (Orient) {
      // The entries before `lead` are not candidates (the home point itself among them, at zero
      // distance): their zeros do not count.
      for (int k = 0; k < lead; ++k)
        zeros -= (s.rx[k] == T(0)) | (s.ry[k] == T(0)) | (s.rz[k] == T(0));
      if (zeros == 0) return;
      for (int64_t k = lead; k < m; ++k)
        if (bi[k] < h.index && (s.rx[k] == T(0) || s.ry[k] == T(0) || s.rz[k] == T(0)))
          d2[k] = distance2<BoxKind::triclinic>(box, fp::sub(h.x, bx[k]), fp::sub(h.y, by[k]),
                                                fp::sub(h.z, bz[k]));
    }
  } else {
    (void)bi;
    for (int64_t k = 0; k < m; ++k)
      d2[k] = pair_distance2<K>(box, image_table(box), fp::sub(bx[k], h.x), fp::sub(by[k], h.y),
                                fp::sub(bz[k], h.z));
  }
}

}  // namespace cell_pass
}  // namespace PAIRHIST_CPU_HELPERS
}  // namespace pairhist::cpu
