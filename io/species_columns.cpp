#include "io/species_columns.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pairhist::io {

namespace {

/// Widens lo/hi by a column of n finite values: a pass of its own over contiguous memory
/// (vectorised), where tracking bounds inside the indirect gather doubled its time.
void widen(const float* v, size_t n, float& lo, float& hi) {
  float l = lo, h = hi;
#pragma omp simd reduction(min : l) reduction(max : h)
  for (size_t i = 0; i < n; ++i) {
    l = v[i] < l ? v[i] : l;
    h = v[i] > h ? v[i] : h;
  }
  lo = l, hi = h;
}

}  // namespace

void gather_species_columns(const float* xyz, const std::vector<std::vector<int>>& atoms,
                            SpeciesColumns& out) {
  out.soa.resize(atoms.size());
  out.bad_species = -1;
  out.bad_position = -1;
  for (int c = 0; c < 3; ++c) {
    out.lo[c] = std::numeric_limits<float>::infinity();
    out.hi[c] = -std::numeric_limits<float>::infinity();
  }
  for (size_t s = 0; s < atoms.size() && out.bad_species < 0; ++s) {
    const size_t n = atoms[s].size();
    HostColumn& soa = out.soa[s];
    soa.resize(3 * n);
    float* x = soa.data();
    float* y = x + n;
    float* z = y + n;
    const int* picked = atoms[s].data();
    // Without branches in the loop: one flag, and-ed as integers.
    int finite = 1;
    for (size_t i = 0; i < n; ++i) {
      const float* p = xyz + 3 * static_cast<size_t>(picked[i]);
      finite &= static_cast<int>(std::isfinite(p[0])) & static_cast<int>(std::isfinite(p[1])) &
                static_cast<int>(std::isfinite(p[2]));
      x[i] = p[0];
      y[i] = p[1];
      z[i] = p[2];
    }
    if (!finite) {
      out.bad_species = static_cast<int>(s);
      for (size_t i = 0; i < n && out.bad_position < 0; ++i)
        if (!(std::isfinite(x[i]) && std::isfinite(y[i]) && std::isfinite(z[i])))
          out.bad_position = static_cast<int64_t>(i);
      break;
    }
    for (int c = 0; c < 3; ++c) widen(soa.data() + c * n, n, out.lo[c], out.hi[c]);
  }
  out.filled = true;
}

void copy_species_columns(const std::vector<HostColumn>& from, std::vector<HostColumn>& to) {
  to.resize(from.size());
  for (size_t s = 0; s < from.size(); ++s) {
    to[s].resize(from[s].size());
    std::copy(from[s].begin(), from[s].end(), to[s].begin());
  }
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

ColumnWriter::ColumnWriter(const ColumnMap& map, SpeciesColumns& out) : map_(map), out_(out) {
  out.soa.resize(map.species());
  for (size_t s = 0; s < map.species(); ++s) {
    out.soa[s].resize(static_cast<size_t>(3 * map.size(s)));
    base_.push_back(out.soa[s].data());
  }
  for (int c = 0; c < 3; ++c) {
    lo_[c] = std::numeric_limits<float>::infinity();
    hi_[c] = -std::numeric_limits<float>::infinity();
  }
}

void ColumnWriter::finish() {
  out_.bad_species = -1;
  out_.bad_position = -1;
  for (int c = 0; c < 3; ++c) out_.lo[c] = lo_[c], out_.hi[c] = hi_[c];
  for (size_t s = 0; s < out_.soa.size() && !finite_ && out_.bad_species < 0; ++s) {
    const HostColumn& v = out_.soa[s];
    const size_t n = v.size() / 3;
    for (size_t i = 0; i < n; ++i)
      if (!(std::isfinite(v[i]) && std::isfinite(v[n + i]) && std::isfinite(v[2 * n + i]))) {
        out_.bad_species = static_cast<int>(s);
        out_.bad_position = static_cast<int64_t>(i);
        break;
      }
  }
  out_.filled = true;
}

}  // namespace pairhist::io
