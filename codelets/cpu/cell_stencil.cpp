#include "codelets/cpu/cell_stencil.hpp"

#include <mutex>

namespace pairhist::cpu {
namespace {

struct CurveShape {
  CellOrder order;
  int bits, n0, n1, n2;
  bool operator==(const CurveShape& o) const {
    return order == o.order && bits == o.bits && n0 == o.n0 && n1 == o.n1 && n2 == o.n2;
  }
};

// Frames of a trajectory share one grid shape (make_cell_grid keeps the previous frame's cells
// while the box breathes), so one cached table serves a whole run.
std::shared_ptr<const std::vector<uint32_t>> curve_keys(const CellGrid& g) {
  static std::mutex mutex;
  static CurveShape cached_shape{};
  static std::shared_ptr<const std::vector<uint32_t>> cached;
  const CurveShape shape{g.order, g.curve_bits, g.n[0], g.n[1], g.n[2]};
  std::lock_guard<std::mutex> lock(mutex);
  if (cached && cached_shape == shape) return cached;
  auto table = std::make_shared<std::vector<uint32_t>>(
      static_cast<size_t>(g.n[0]) * static_cast<size_t>(g.n[1]) * static_cast<size_t>(g.n[2]));
  size_t i = 0;
  for (int z = 0; z < g.n[2]; ++z)
    for (int y = 0; y < g.n[1]; ++y)
      for (int x = 0; x < g.n[0]; ++x)
        (*table)[i++] = static_cast<uint32_t>(cells::key_of(g, CellIndex{x, y, z}));
  cached_shape = shape;
  cached = std::move(table);
  return cached;
}

}  // namespace

CellKeys::CellKeys(const CellGrid& g) : n0_(g.n[0]), n1_(g.n[1]) {
  if (g.order != CellOrder::row_major) {
    table_ = curve_keys(g);
    keys_ = table_->data();
  }
}

std::vector<StencilRow> stencil_rows(const CellGrid& g) {
  std::vector<StencilRow> rows;
  for (int dz = g.offset_lo[2]; dz <= g.offset_hi[2]; ++dz)
    for (int dy = g.offset_lo[1]; dy <= g.offset_hi[1]; ++dy) {
      // Maximal runs of reaching dx (one per row: the gap to a cell only grows with |dx|).
      bool open = false;
      for (int dx = g.offset_lo[0]; dx <= g.offset_hi[0]; ++dx) {
        if (cells::offset_reaches(g, dx, dy, dz)) {
          if (!open)
            rows.push_back({dy, dz, dx, dx, dx + int64_t(g.n[0]) * (dy + int64_t(g.n[1]) * dz)});
          rows.back().dx_hi = dx;
          open = true;
        } else {
          open = false;
        }
      }
    }
  return rows;
}

}  // namespace pairhist::cpu
