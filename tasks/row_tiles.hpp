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

/// Tiles covering all rows of a, each with at most max_pairs pairs unless a single row has more.
/// Empty when the pair has no pairs at all.
std::vector<RowTile> split_rows(int64_t na, int64_t nb, bool same, uint64_t max_pairs);

}  // namespace pairhist
