#include "row_tiles.hpp"

namespace pairhist {

uint64_t pairs_in_rows(int64_t na, int64_t nb, bool same, int64_t r0, int64_t r1) {
  if (r1 <= r0) return 0;
  if (!same) return static_cast<uint64_t>(r1 - r0) * static_cast<uint64_t>(nb);
  // Row i of a same-species pair has na - 1 - i partners: an arithmetic series.
  const auto first = static_cast<uint64_t>(na - 1 - r0);
  const auto last = static_cast<uint64_t>(na - r1);  // na - 1 - (r1 - 1)
  const auto rows = static_cast<uint64_t>(r1 - r0);
  return (first + last) * rows / 2;
}

std::vector<RowTile> split_rows(int64_t na, int64_t nb, bool same, uint64_t max_pairs) {
  std::vector<RowTile> tiles;
  if (pairs_in_rows(na, nb, same, 0, na) == 0) return tiles;
  if (max_pairs < 1) max_pairs = 1;
  int64_t r0 = 0;
  while (r0 < na) {
    // Largest r1 whose tile stays within max_pairs (at least one row): pairs grow with r1.
    int64_t lo = r0 + 1, hi = na;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (pairs_in_rows(na, nb, same, r0, mid) <= max_pairs)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int64_t r1 = lo;
    const uint64_t p = pairs_in_rows(na, nb, same, r0, r1);
    if (p > 0) tiles.push_back({r0, r1, p});
    r0 = r1;
  }
  return tiles;
}

}  // namespace pairhist
