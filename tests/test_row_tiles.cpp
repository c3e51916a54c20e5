// The row-tile policy: tiles cover every row once, respect the pair budget, and count pairs
// exactly.
#include <doctest/doctest.h>

#include "row_tiles.hpp"

using namespace pairhist;

namespace {
void check_tiles(int64_t na, int64_t nb, bool same, uint64_t max_pairs) {
  CAPTURE(na);
  CAPTURE(nb);
  CAPTURE(same);
  CAPTURE(max_pairs);
  const auto tiles = split_rows(na, nb, same, max_pairs);
  const uint64_t total =
      same ? uint64_t(na) * uint64_t(na > 0 ? na - 1 : 0) / 2 : uint64_t(na) * uint64_t(nb);
  uint64_t sum = 0;
  int64_t next = 0;
  for (const auto& t : tiles) {
    CHECK(t.row_begin >= next);
    CHECK(t.row_end > t.row_begin);
    CHECK(t.pairs == pairs_in_rows(na, nb, same, t.row_begin, t.row_end));
    CHECK(t.pairs > 0);
    if (t.row_end - t.row_begin > 1) CHECK(t.pairs <= max_pairs);
    sum += t.pairs;
    next = t.row_end;
  }
  CHECK(sum == total);
}
}  // namespace

TEST_CASE("row tiles cover all pairs within the budget") {
  for (int64_t na : {0, 1, 2, 3, 10, 1000, 123457})
    for (int64_t nb : {0, 1, 5, 999})
      for (uint64_t budget : {uint64_t(1), uint64_t(7), uint64_t(1000), uint64_t(1) << 40}) {
        check_tiles(na, nb, false, budget);
        check_tiles(na, nb, true, budget);
      }
}

TEST_CASE("pairs_in_rows counts the same-species triangle") {
  CHECK(pairs_in_rows(5, 0, true, 0, 5) == 10);
  CHECK(pairs_in_rows(5, 0, true, 0, 1) == 4);
  CHECK(pairs_in_rows(5, 0, true, 4, 5) == 0);
  CHECK(pairs_in_rows(5, 3, false, 1, 3) == 6);
  CHECK(split_rows(1000, 0, true, uint64_t(1) << 40).size() == 1);
  CHECK(split_rows(1, 0, true, 10).empty());
}
