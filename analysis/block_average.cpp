#include "analysis/block_average.hpp"

#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>

namespace pairhist::analysis {

namespace {

template <typename T>
std::vector<T> slice(const std::vector<T>& v, size_t begin, size_t end) {
  if (v.empty()) return {};
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(begin),
                        v.begin() + static_cast<std::ptrdiff_t>(end));
}

}  // namespace

std::vector<HistogramResult> block_runs(const HistogramResult& res) {
  std::vector<HistogramResult> runs;
  if (res.intervals.size() < 2) return runs;
  for (const IntervalBlock& b : res.intervals) {
    if (b.frame_begin >= b.frame_end || b.frame_end > res.frame_indices.size() ||
        b.counts.size() != res.pairs.size())
      throw std::logic_error("interval block of frames [" + std::to_string(b.frame_begin) + ", " +
                             std::to_string(b.frame_end) + ") does not fit the result");
    HistogramResult part = res;  // species, binning, units, norm, box: the run's own
    part.intervals.clear();
    part.frame_indices = slice(res.frame_indices, b.frame_begin, b.frame_end);
    part.frame_times = slice(res.frame_times, b.frame_begin, b.frame_end);
    part.volumes = slice(res.volumes, b.frame_begin, b.frame_end);
    part.frame_species_counts = slice(res.frame_species_counts, b.frame_begin, b.frame_end);
    part.frame_pairs = slice(res.frame_pairs, b.frame_begin, b.frame_end);
    for (size_t p = 0; p < part.pairs.size(); ++p) part.pairs[p].counts = b.counts[p];
    part.centre_counts = b.centre_counts;  // none where the block does not keep its own
    runs.push_back(std::move(part));
  }
  return runs;
}

std::vector<double> block_standard_error(const std::vector<std::vector<double>>& per_block) {
  const size_t blocks = per_block.size();
  if (blocks < 2) return {};
  const size_t n = per_block[0].size();
  for (const auto& b : per_block)
    if (b.size() != n) throw std::logic_error("blocks of different lengths");
  std::vector<double> error(n);
  const double count = static_cast<double>(blocks);
  for (size_t k = 0; k < n; ++k) {
    // Two passes: the mean first, then the squares about it (no cancellation where the spread
    // is small beside the values, as for g(r) near 1 or a large I(q)).
    double mean = 0;
    for (const auto& b : per_block) mean += b[k];
    mean /= count;
    double squares = 0;
    for (const auto& b : per_block) squares += (b[k] - mean) * (b[k] - mean);
    error[k] = std::sqrt(squares / ((count - 1) * count));
  }
  return error;
}

std::vector<double> merged_block_errors(std::vector<double> per_block) {
  std::vector<double> errors;
  while (per_block.size() >= 2) {
    std::vector<std::vector<double>> columns;
    for (double v : per_block) columns.push_back({v});
    errors.push_back(block_standard_error(columns)[0]);
    std::vector<double> merged;
    for (size_t i = 0; i + 1 < per_block.size(); i += 2)
      merged.push_back(0.5 * (per_block[i] + per_block[i + 1]));
    per_block = std::move(merged);
  }
  return errors;
}

bool block_errors_level(const std::vector<double>& merged, size_t blocks) {
  if (merged.size() < 2) return true;
  const size_t last_blocks = blocks >> (merged.size() - 1);
  const double spread = 1 / std::sqrt(2.0 * (static_cast<double>(last_blocks) - 1));
  return merged.back() <= merged.front() * (1.25 + 2 * spread);
}

}  // namespace pairhist::analysis
