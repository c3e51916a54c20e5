#include "drivers/distributed/interval_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace pairhist {
namespace {

constexpr uint64_t kNoRecord = ~uint64_t(0);
constexpr size_t kRecordWords = 3;

uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

double from_bits(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof(v));
  return v;
}

}  // namespace

IntervalExchange::IntervalExchange(Distribution& dist, size_t npairs, int nbins, int64_t interval,
                                   int64_t resumed, size_t nspecies)
    : dist_(dist),
      npairs_(npairs),
      nbins_(nbins),
      interval_(interval),
      resumed_(resumed),
      nspecies_(nspecies) {
  current_ = interval_of(0);
  next_fold_ = current_;
}

int64_t IntervalExchange::interval_of(int64_t ordinal) const {
  return interval_ > 0 ? (resumed_ + ordinal) / interval_ : 0;
}

size_t IntervalExchange::slots() const {
  return static_cast<size_t>(interval_ > 0 ? interval_ : frames_);
}

int64_t IntervalExchange::frames_in(int64_t interval, int64_t frames) const {
  const int64_t run_end =
      frames < 0 ? std::numeric_limits<int64_t>::max() : resumed_ + frames;  // global numbers
  if (interval_ <= 0) return std::max<int64_t>(0, run_end - resumed_);
  const int64_t lo = std::max(interval * interval_, resumed_);
  const int64_t hi = std::min((interval + 1) * interval_, run_end);
  return std::max<int64_t>(0, hi - lo);
}

void IntervalExchange::submitted(const WorkUnit& unit) {
  if (unit.part <= 0) ordinals_.push_back(unit.ordinal);
}

void IntervalExchange::hand_over(JobAccumulator& local, int64_t next) {
  const size_t counts = npairs_ * static_cast<size_t>(nbins_);
  const size_t summed = counts + slots() * size_words();  // the counts, then the slots' sizes
  const JobState state = local.take_counted();
  if (state.frame_indices.size() != ordinals_.size())
    throw std::logic_error("IntervalExchange: frames and their ordinals disagree");
  if (size_words() > 0 && (state.species_counts.size() != ordinals_.size() ||
                           state.frame_pairs.size() != ordinals_.size()))
    throw std::logic_error("IntervalExchange: frames without their species' sizes");
  for (int64_t b = current_; b < next; ++b) {
    std::vector<uint64_t> payload(summed + slots() * kRecordWords, kNoRecord);
    std::fill(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(summed), 0);
    if (b == current_) {
      for (size_t p = 0; p < npairs_; ++p)
        std::copy(state.open_counts[p].begin(), state.open_counts[p].end(),
                  payload.begin() + static_cast<std::ptrdiff_t>(p * static_cast<size_t>(nbins_)));
      for (size_t f = 0; f < ordinals_.size(); ++f) {
        const int64_t global = resumed_ + ordinals_[f];
        const int64_t slot = interval_ > 0 ? global - b * interval_ : ordinals_[f];
        if (slot < 0 || static_cast<size_t>(slot) >= slots())
          throw std::logic_error("IntervalExchange: a frame outside its interval");
        uint64_t* record = payload.data() + summed + static_cast<size_t>(slot) * kRecordWords;
        record[0] = static_cast<uint64_t>(state.frame_indices[f]);
        record[1] = bits(state.frame_times[f]);
        record[2] = state.volumes.empty() ? bits(0.0) : bits(state.volumes[f]);
        if (size_words() == 0) continue;
        uint64_t* sizes = payload.data() + counts + static_cast<size_t>(slot) * size_words();
        for (size_t s = 0; s < nspecies_; ++s)
          sizes[s] = static_cast<uint64_t>(state.species_counts[f].at(s));
        for (size_t p = 0; p < npairs_; ++p) sizes[nspecies_ + p] = state.frame_pairs[f].at(p);
      }
    }
    dist_.contribute(b, std::move(payload), summed);
  }
  ordinals_.clear();
  current_ = std::max(current_, next);
}

int64_t IntervalExchange::last_interval(const RunEnd& end) {
  int64_t mine = current_;
  if (end.frames > 0) mine = std::max(mine, interval_of(end.frames - 1));
  return dist_.agree_max(mine);
}

bool IntervalExchange::fold(JobAccumulator& global, int64_t interval,
                            const std::vector<uint64_t>& payload, int64_t expected, bool close) {
  const size_t counts = npairs_ * static_cast<size_t>(nbins_);
  const size_t summed = counts + slots() * size_words();
  if (payload.size() != summed + slots() * kRecordWords)
    throw std::logic_error("IntervalExchange: a payload of the wrong size");
  const int64_t first_slot =
      interval_ > 0 ? std::max<int64_t>(0, resumed_ - interval * interval_) : 0;
  int64_t found = 0;
  for (size_t slot = static_cast<size_t>(first_slot); slot < slots() && found < expected; ++slot) {
    const uint64_t* record = payload.data() + summed + slot * kRecordWords;
    if (record[0] == kNoRecord) return false;  // a frame of the interval nobody counted
    FrameRecord f;
    f.index = static_cast<int64_t>(record[0]);
    f.time = from_bits(record[1]);
    f.volume = from_bits(record[2]);
    if (size_words() > 0) {
      const uint64_t* sizes = payload.data() + counts + slot * size_words();
      for (size_t s = 0; s < nspecies_; ++s)
        f.species_counts.push_back(static_cast<int64_t>(sizes[s]));
      f.pairs.assign(sizes + nspecies_, sizes + size_words());
    }
    global.submitted(f, {});
    ++found;
  }
  if (found != expected) return false;
  std::vector<std::vector<uint64_t>> per_pair(npairs_);
  for (size_t p = 0; p < npairs_; ++p)
    per_pair[p].assign(payload.begin() + static_cast<std::ptrdiff_t>(p * nbins_),
                       payload.begin() + static_cast<std::ptrdiff_t>((p + 1) * nbins_));
  global.taken(std::move(per_pair), global_frames_ += static_cast<uint64_t>(found));
  if (close) global.close_block();
  return true;
}

}  // namespace pairhist
