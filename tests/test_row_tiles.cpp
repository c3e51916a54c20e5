// The row-tile policy: tiles cover every row once, respect the pair budget, and count pairs
// exactly.
#include <doctest/doctest.h>

#include "tasks/row_tiles.hpp"

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

TEST_CASE("a row range splits on its own, and the last row within a budget is the largest") {
  for (bool same : {false, true})
    for (int64_t r0 : {0, 3, 500})
      for (int64_t r1 : {500, 777, 1000})
        for (uint64_t budget : {uint64_t(1), uint64_t(900), uint64_t(100000)}) {
          CAPTURE(same);
          CAPTURE(r0);
          CAPTURE(r1);
          CAPTURE(budget);
          const auto tiles = split_rows(1000, 300, same, budget, r0, r1);
          int64_t next = r0;
          uint64_t sum = 0;
          for (const auto& t : tiles) {
            CHECK(t.row_begin >= next);  // rows with no pairs (the triangle's last) get no tile
            CHECK(t.pairs == pairs_in_rows(1000, 300, same, t.row_begin, t.row_end));
            if (t.row_end - t.row_begin > 1) CHECK(t.pairs <= budget);
            next = t.row_end;
            sum += t.pairs;
          }
          CHECK(sum == pairs_in_rows(1000, 300, same, r0, r1));
          if (r1 <= r0) CHECK(tiles.empty());
          const int64_t last = last_row_within(1000, 300, same, r0, budget);
          CHECK(last >= r0);
          CHECK(pairs_in_rows(1000, 300, same, r0, last) <= budget);
          if (last < 1000) CHECK(pairs_in_rows(1000, 300, same, r0, last + 1) > budget);
        }
}
