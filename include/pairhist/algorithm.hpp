// How pairs are found: every pair, or only pairs of neighbouring cells (cell_grid.hpp). Both give
// the same counts bit for bit; auto picks per species pair from a cost model.
#pragma once

namespace pairhist {

enum class Algorithm : int { automatic = 0, all_pairs = 1, cell_list = 2 };

}  // namespace pairhist
