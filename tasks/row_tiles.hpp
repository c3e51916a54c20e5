// How one species pair of one frame is cut into tasks: contiguous row tiles of species a with
// roughly equal pair counts, so a large pair can occupy several workers.
#pragma once

#include <cstdint>
#include <vector>

namespace pairhist {

struct RowTile {
  int64_t row_begin = 0;
  int64_t row_end = 0;
  uint64_t pairs = 0;
};

/// Pairs examined by rows [r0, r1) of a (same species: pairs i < j).
uint64_t pairs_in_rows(int64_t na, int64_t nb, bool same, int64_t r0, int64_t r1);

/// The largest r1 in [r0, na] whose rows [r0, r1) hold at most max_pairs pairs.
int64_t last_row_within(int64_t na, int64_t nb, bool same, int64_t r0, uint64_t max_pairs);

/// Tiles covering rows [r_begin, r_end) of a (r_end < 0: all rows), each with at most max_pairs
/// pairs unless a single row has more. Empty when those rows have no pairs at all.
std::vector<RowTile> split_rows(int64_t na, int64_t nb, bool same, uint64_t max_pairs,
                                int64_t r_begin = 0, int64_t r_end = -1);

}  // namespace pairhist
