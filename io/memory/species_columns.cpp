#include "io/memory/species_columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "analysis/parallel_for.hpp"

namespace pairhist::io {

namespace {

/// A column's bounds and a poison sum (0 exactly when every value is finite), copying it into
/// `to` on the way when given. The copy streams past the caches, as memcpy does at this size: the
/// pinned columns go to a GPU, not back through this core.
struct ColumnPass {
  float lo, hi, poison;
};

ColumnPass copy_measure(const float* from, float* to, size_t n, float lo, float hi) {
  float l = lo, h = hi, p = 0;
  size_t i = 0;
  auto copy_one = [&](size_t k) {
    to[k] = from[k];
    l = from[k] < l ? from[k] : l;
    h = from[k] > h ? from[k] : h;
    p += from[k] * 0.0f;
  };
#if defined(__SSE2__)
  if (to) {
    for (; i < n && (reinterpret_cast<uintptr_t>(to + i) & 15) != 0; ++i) copy_one(i);
    const __m128 zero = _mm_setzero_ps();
    __m128 vl = _mm_set1_ps(l), vh = _mm_set1_ps(h), vp = zero;
    for (; i + 4 <= n; i += 4) {
      const __m128 v = _mm_loadu_ps(from + i);
      _mm_stream_ps(to + i, v);
      vl = _mm_min_ps(v, vl);  // v < vl ? v : vl, as the scalar steps
      vh = _mm_max_ps(v, vh);
      vp = _mm_add_ps(vp, _mm_mul_ps(v, zero));
    }
    _mm_sfence();
    alignas(16) float a[4], b[4], c[4];
    _mm_store_ps(a, vl);
    _mm_store_ps(b, vh);
    _mm_store_ps(c, vp);
    for (int k = 0; k < 4; ++k) {
      l = a[k] < l ? a[k] : l;
      h = b[k] > h ? b[k] : h;
      p += c[k];
    }
  }
#endif
  if (to) {
    for (; i < n; ++i) copy_one(i);
  } else {
#pragma omp simd reduction(min : l) reduction(max : h) reduction(+ : p)
    for (size_t k = i; k < n; ++k) {
      l = from[k] < l ? from[k] : l;
      h = from[k] > h ? from[k] : h;
      p += from[k] * 0.0f;
    }
  }
  return {l, h, p};
}

void start_bounds(SpeciesColumns& out) {
  out.bad_species = -1;
  out.bad_position = -1;
  for (int c = 0; c < 3; ++c) {
    out.lo[c] = std::numeric_limits<float>::infinity();
    out.hi[c] = -std::numeric_limits<float>::infinity();
  }
}

/// Widens out's bounds by species s (copied first from `from` when given) or, if it holds a
/// non-finite coordinate, records the first, leaving the bounds of the species before it.
void measure_species(SpeciesColumns& out, size_t s, const float* from) {
  HostColumn& soa = out.soa[s];
  const size_t n = soa.size() / 3;
  float lo[3], hi[3], poison = 0;
  for (int c = 0; c < 3; ++c) {
    const float* column = (from ? from : soa.data()) + c * n;
    const ColumnPass pass =
        copy_measure(column, from ? soa.data() + c * n : nullptr, n, out.lo[c], out.hi[c]);
    lo[c] = pass.lo, hi[c] = pass.hi, poison += pass.poison;
  }
  if (poison == 0) {
    for (int c = 0; c < 3; ++c) out.lo[c] = lo[c], out.hi[c] = hi[c];
    return;
  }
  out.bad_species = static_cast<int>(s);
  const float* x = soa.data();
  for (size_t i = 0; i < n && out.bad_position < 0; ++i)
    if (!(std::isfinite(x[i]) && std::isfinite(x[n + i]) && std::isfinite(x[2 * n + i])))
      out.bad_position = static_cast<int64_t>(i);
}

}  // namespace

void gather_species_columns(const float* xyz, const std::vector<std::vector<int>>& atoms,
                            SpeciesColumns& out, int threads) {
  out.soa.resize(atoms.size());
  start_bounds(out);
  // Sized (and pinned, where hooks are installed) here, then filled in `threads` pieces, piece t
  // of every species together.
  for (size_t s = 0; s < atoms.size(); ++s) out.soa[s].resize(3 * atoms[s].size());
  const auto fill = [&](int piece, int pieces) {
    for (size_t s = 0; s < atoms.size(); ++s) {
      const size_t n = atoms[s].size();
      float* x = out.soa[s].data();
      float* y = x + n;
      float* z = y + n;
      const int* picked = atoms[s].data();
      const size_t begin = n * static_cast<size_t>(piece) / static_cast<size_t>(pieces);
      const size_t end = n * static_cast<size_t>(piece + 1) / static_cast<size_t>(pieces);
      for (size_t i = begin; i < end; ++i) {
        const float* p = xyz + 3 * static_cast<size_t>(picked[i]);
        x[i] = p[0];
        y[i] = p[1];
        z[i] = p[2];
      }
    }
  };
  const int pieces = std::max(threads, 1);
  analysis::parallel_for_each(static_cast<size_t>(pieces), static_cast<unsigned>(pieces), 1,
                              [&](size_t piece) { fill(static_cast<int>(piece), pieces); });
  // A pass of its own over contiguous memory (vectorised): tracking bounds inside the indirect
  // gather doubled its time.
  for (size_t s = 0; s < atoms.size() && out.bad_species < 0; ++s) measure_species(out, s, nullptr);
  out.filled = true;
}

void measure_species_columns(SpeciesColumns& columns) {
  start_bounds(columns);
  for (size_t s = 0; s < columns.soa.size() && columns.bad_species < 0; ++s)
    measure_species(columns, s, nullptr);
  columns.filled = true;
}

void copy_species_columns(const std::vector<HostColumn>& from, SpeciesColumns& to) {
  to.soa.resize(from.size());
  start_bounds(to);
  for (size_t s = 0; s < from.size(); ++s) {
    to.soa[s].resize(from[s].size());
    if (to.bad_species < 0) {
      measure_species(to, s, from[s].data());
    } else {  // the frame is refused: its columns are only copied
      std::copy(from[s].begin(), from[s].end(), to.soa[s].begin());
    }
  }
  to.filled = true;
}

ColumnMap::ColumnMap(const std::vector<std::vector<int>>& atoms, int natoms)
    : species_of_(static_cast<size_t>(std::max(natoms, 0)), -1),
      position_of_(static_cast<size_t>(std::max(natoms, 0)), 0) {
  usable_ = atoms.size() <= static_cast<size_t>(std::numeric_limits<int16_t>::max());
  for (size_t s = 0; s < atoms.size() && usable_; ++s) {
    sizes_.push_back(static_cast<int64_t>(atoms[s].size()));
    for (size_t i = 0; i < atoms[s].size() && usable_; ++i) {
      const int a = atoms[s][i];
      if (a < 0 || a >= natoms || species_of_[static_cast<size_t>(a)] >= 0) {
        usable_ = false;
        break;
      }
      species_of_[static_cast<size_t>(a)] = static_cast<int16_t>(s);
      position_of_[static_cast<size_t>(a)] = static_cast<int32_t>(i);
    }
  }
}

ColumnWriter::ColumnWriter(const ColumnMap& map, SpeciesColumns& out) : map_(map) {
  out.soa.resize(map.species());
  out.filled = false;  // until measured
  for (size_t s = 0; s < map.species(); ++s) {
    out.soa[s].resize(static_cast<size_t>(3 * map.size(s)));
    base_.push_back(out.soa[s].data());
  }
}

}  // namespace pairhist::io
