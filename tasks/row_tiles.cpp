#include "tasks/row_tiles.hpp"

#include <algorithm>

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

int64_t last_row_within(int64_t na, int64_t nb, bool same, int64_t r0, uint64_t max_pairs) {
  // Pairs grow with r1: bisect.
  int64_t lo = r0, hi = na;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (pairs_in_rows(na, nb, same, r0, mid) <= max_pairs)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

std::vector<RowTile> split_rows(int64_t na, int64_t nb, bool same, uint64_t max_pairs,
                                int64_t r_begin, int64_t r_end) {
  std::vector<RowTile> tiles;
  if (r_end < 0 || r_end > na) r_end = na;
  if (r_begin < 0) r_begin = 0;
  if (pairs_in_rows(na, nb, same, r_begin, r_end) == 0) return tiles;
  if (max_pairs < 1) max_pairs = 1;
  int64_t r0 = r_begin;
  while (r0 < r_end) {
    // At least one row, even when that row alone holds more than max_pairs.
    const int64_t r1 =
        std::min(r_end, std::max(r0 + 1, last_row_within(na, nb, same, r0, max_pairs)));
    const uint64_t p = pairs_in_rows(na, nb, same, r0, r1);
    if (p > 0) tiles.push_back({r0, r1, p});
    r0 = r1;
  }
  return tiles;
}

}  // namespace pairhist
