#include "drivers/job/job_accumulator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pairhist {
namespace {

/// sum += add, bin by bin (sum sized as add where empty).
void add_counts(std::vector<std::vector<uint64_t>>& sum,
                const std::vector<std::vector<uint64_t>>& add) {
  if (add.empty()) return;
  if (sum.empty()) {
    sum.resize(add.size());
    for (size_t s = 0; s < add.size(); ++s) sum[s].assign(add[s].size(), 0);
  }
  if (sum.size() != add.size())
    throw std::logic_error("JobAccumulator: centre counts of another number of species");
  for (size_t s = 0; s < add.size(); ++s) {
    if (sum[s].size() != add[s].size())
      throw std::logic_error("JobAccumulator: centre counts of another number of bins");
    for (size_t k = 0; k < add[s].size(); ++k) sum[s][k] += add[s][k];
  }
}

void clear_counts(std::vector<std::vector<uint64_t>>& counts) {
  for (auto& c : counts) std::fill(c.begin(), c.end(), uint64_t(0));
}

}  // namespace

JobAccumulator::JobAccumulator(size_t npairs, int nbins, std::vector<uint64_t> shared,
                               int64_t interval, JobState seed)
    : npairs_(npairs),
      nbins_(nbins),
      interval_(interval),
      shared_(std::move(shared)),
      state_(std::move(seed)) {
  if (state_.open_counts.empty())
    state_.open_counts.assign(npairs_, std::vector<uint64_t>(static_cast<size_t>(nbins_)));
  if (state_.open_counts.size() != npairs_ || shared_.size() != npairs_)
    throw std::logic_error("JobAccumulator: state of another number of pairs");
}

void JobAccumulator::submitted(const FrameRecord& frame, SparseBins excluded) {
  pending_.push_back({frame, std::move(excluded)});
}

void JobAccumulator::finished_before(uint64_t engine_frames) {
  // Only excluded bins need folding: the engine's counts of these frames wait in its
  // accumulators, and a stop can only drop frames that have not begun.
  for (uint64_t f = std::max(folded_before_, base_);
       f < engine_frames && f - base_ < pending_.size(); ++f) {
    SparseBins& bins = pending_[static_cast<size_t>(f - base_)].excluded;
    if (bins.empty()) continue;
    if (folded_excluded_.empty()) folded_excluded_.assign(npairs_ * static_cast<size_t>(nbins_), 0);
    for (const auto& [k, n] : bins) folded_excluded_[k] += n;
    SparseBins().swap(bins);
  }
  folded_before_ = std::max(folded_before_, engine_frames);
}

void JobAccumulator::taken(std::vector<std::vector<uint64_t>> counts, uint64_t counted) {
  if (counted > base_ + pending_.size())
    throw std::logic_error("JobAccumulator: the engine counted frames that were not submitted");
  // Once a stop has dropped frames, the engine's bound stays below the frames handed over since.
  if (counted < base_ && dropped_ == 0)
    throw std::logic_error("JobAccumulator: the engine's count went back");
  if (folded_before_ > counted && !folded_excluded_.empty())
    throw std::logic_error("JobAccumulator: a frame counted as finished was dropped");
  const auto confirmed = static_cast<size_t>(counted > base_ ? counted - base_ : 0);
  std::vector<uint64_t> left_out = std::move(folded_excluded_);
  folded_excluded_.clear();
  if (left_out.empty()) left_out.assign(npairs_ * static_cast<size_t>(nbins_), 0);
  // Self pairs of shared atoms, per pair: the run's per frame, or a dynamic frame's own.
  std::vector<uint64_t> self_pairs(npairs_, 0);
  for (size_t i = 0; i < confirmed; ++i) {
    for (const auto& [k, n] : pending_[i].excluded) left_out[k] += n;
    const FrameRecord& f = pending_[i].frame;
    if (!f.whole) continue;
    for (size_t p = 0; p < npairs_; ++p)
      self_pairs[p] += f.shared.empty() ? shared_[p] : f.shared[p];
  }
  for (size_t p = 0; p < npairs_; ++p) {
    std::vector<uint64_t>& c = counts[p];
    std::vector<uint64_t>& open = state_.open_counts[p];
    if (c.size() != open.size()) throw std::logic_error("JobAccumulator: wrong number of bins");
    for (size_t k = 0; k < c.size(); ++k) {
      uint64_t out = left_out[p * static_cast<size_t>(nbins_) + k];
      if (k == 0) out += self_pairs[p];
      if (out > c[k] && !wrapping_)
        throw std::logic_error("left-out pairs exceed the counts of bin " + std::to_string(k));
      open[k] += c[k] - out;
    }
  }
  for (size_t i = 0; i < confirmed; ++i) {
    const FrameRecord& f = pending_[i].frame;
    if (!f.whole) continue;
    state_.frame_indices.push_back(f.index);
    state_.frame_times.push_back(f.time);
    if (f.volume > 0) state_.volumes.push_back(f.volume);
    if (!f.species_counts.empty()) state_.species_counts.push_back(f.species_counts);
    if (!f.pairs.empty()) state_.frame_pairs.push_back(f.pairs);  // dynamic species only
    add_counts(state_.centre_open, f.centre_counts);
  }
  dropped_ += pending_.size() - confirmed;
  base_ += pending_.size();
  folded_before_ = std::max(folded_before_, base_);
  pending_.clear();
}

JobState JobAccumulator::take_counted() {
  JobState taken = state_;
  state_.frame_indices.clear();
  state_.frame_times.clear();
  state_.volumes.clear();
  state_.species_counts.clear();
  state_.frame_pairs.clear();
  state_.centre_closed.clear();
  state_.centre_open.clear();
  state_.intervals.clear();
  state_.open_begin = 0;
  for (auto& c : state_.open_counts) std::fill(c.begin(), c.end(), uint64_t(0));
  return taken;
}

bool JobAccumulator::block_full() const {
  return interval_ > 0 && open_frames() >= static_cast<size_t>(interval_);
}

void JobAccumulator::close_block() {
  if (open_frames() == 0) return;
  state_.intervals.push_back(
      {state_.open_begin, state_.frames(), state_.open_counts, state_.centre_open});
  add_counts(state_.centre_closed, state_.centre_open);
  clear_counts(state_.centre_open);
  state_.open_begin = state_.frames();
  for (auto& c : state_.open_counts) std::fill(c.begin(), c.end(), uint64_t(0));
}

HistogramResult JobAccumulator::result(const HistogramResult& header, bool with_open) const {
  HistogramResult r = header;
  std::vector<IntervalBlock> blocks = state_.intervals;
  // Without output intervals the open block is the whole run.
  const bool blocked = interval_ > 0;
  const bool open = with_open && open_frames() > 0;
  if (open && blocked)
    blocks.push_back({state_.open_begin, state_.frames(), state_.open_counts, state_.centre_open});
  const size_t frames = open ? state_.frames() : state_.open_begin;
  r.frame_indices.assign(state_.frame_indices.begin(), state_.frame_indices.begin() + frames);
  r.frame_times.assign(state_.frame_times.begin(), state_.frame_times.begin() + frames);
  if (!state_.volumes.empty())
    r.volumes.assign(state_.volumes.begin(), state_.volumes.begin() + frames);
  if (!state_.species_counts.empty())
    r.frame_species_counts.assign(state_.species_counts.begin(),
                                  state_.species_counts.begin() + frames);
  if (!state_.frame_pairs.empty())
    r.frame_pairs.assign(state_.frame_pairs.begin(), state_.frame_pairs.begin() + frames);
  // The frames' centre counts: the closed blocks', and the open block's where it is written.
  r.centre_counts.clear();
  if (!state_.centre_open.empty()) {
    add_counts(r.centre_counts, state_.centre_open);
    clear_counts(r.centre_counts);
  }
  add_counts(r.centre_counts, state_.centre_closed);
  if (open) add_counts(r.centre_counts, state_.centre_open);
  for (size_t p = 0; p < r.pairs.size(); ++p) {
    std::vector<uint64_t> sum(static_cast<size_t>(nbins_), 0);
    for (const IntervalBlock& b : blocks)
      for (size_t k = 0; k < sum.size(); ++k) sum[k] += b.counts[p][k];
    if (open && !blocked)
      for (size_t k = 0; k < sum.size(); ++k) sum[k] += state_.open_counts[p][k];
    r.pairs[p].counts = std::move(sum);
  }
  r.intervals = std::move(blocks);
  return r;
}

}  // namespace pairhist
