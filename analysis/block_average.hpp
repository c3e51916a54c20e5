// Block averages: the standard error of a quantity from its values over blocks of consecutive
// frames (`run --interval N`), each block evaluated as a run of its own. What g(r), n(r), I(q) and
// S(q) report as their errors (docs/usage.md, docs/scattering.md).
#pragma once

#include <cstddef>
#include <vector>

#include "pairhist/result.hpp"

namespace pairhist::analysis {

/// The interval blocks of `res`, each as a run of its own: its frames, times, volumes and
/// per-frame sizes, its counts as the pairs' counts, a --sphere run's centre distances as the
/// block's own (none where the block keeps none), no intervals. Empty with fewer than two blocks
/// (no error can be estimated from one).
std::vector<HistogramResult> block_runs(const HistogramResult& res);

/// The standard error of the mean of B values per point, per_block[b][k], every block weighted
/// alike: sqrt(sum_b (v_bk - mean_k)^2 / ((B - 1) B)). NaN where a block's value is NaN. Empty
/// for fewer than two blocks; std::logic_error for blocks of different lengths.
std::vector<double> block_standard_error(const std::vector<std::vector<double>>& per_block);

/// Flyvbjerg and Petersen's check that the blocks are longer than the correlation time: the
/// standard error of `per_block` (one scalar per block, e.g. a peak height) and of the blocks
/// merged in twos, fours, ... while at least two merged blocks remain. Where the blocks are
/// independent, the errors stay level (a plateau); where they rise as blocks merge, the blocks
/// are too short and the first error underestimates. Merging drops a last odd block.
std::vector<double> merged_block_errors(std::vector<double> per_block);

/// Whether merged_block_errors() levels off: its last value within a factor 1.25 (plus twice
/// its own relative uncertainty, 1 / sqrt(2 (B' - 1)) for B' merged blocks) of its first.
/// True where fewer than two levels can be formed (nothing to tell).
bool block_errors_level(const std::vector<double>& merged, size_t blocks);

}  // namespace pairhist::analysis
