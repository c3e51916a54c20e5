#include "codelets/cpu/cell_bounds.hpp"

#include <limits>

namespace pairhist::cpu {

void reset_boxes(CellBoxes& b, const CellGrid& g) {
  const double inf = std::numeric_limits<double>::infinity();
  for (int a = 0; a < 3; ++a) {
    b.lo[a].assign(static_cast<size_t>(g.keys), inf);
    b.hi[a].assign(static_cast<size_t>(g.keys), -inf);
  }
  const auto rows = static_cast<size_t>(g.n[1]) * static_cast<size_t>(g.n[2]);
  for (int a = 0; a < 2; ++a) b.row_lo[a].assign(rows, inf), b.row_hi[a].assign(rows, -inf);
}

void clear_boxes(CellBoxes& b) {
  for (int a = 0; a < 3; ++a) b.lo[a].clear(), b.hi[a].clear();
  for (int a = 0; a < 2; ++a) b.row_lo[a].clear(), b.row_hi[a].clear();
}

}  // namespace pairhist::cpu
