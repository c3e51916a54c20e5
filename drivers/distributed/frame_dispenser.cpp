#include "drivers/distributed/frame_dispenser.hpp"

#include <algorithm>

namespace pairhist {

namespace {
constexpr size_t kRecentUnits = 4;
// Units a rank holds at once (its engine's frames and the one it reads), and the weight of the
// latest claim interval in a rank's pace.
constexpr double kHeldUnits = 3;
constexpr double kPaceWeight = 0.3;
// Deliveries a reporting rank's pace is measured over.
constexpr size_t kPaceWindow = 8;
}  // namespace

FrameDispenser::FrameDispenser(const DistributedPlan& plan, int ranks)
    : plan_(plan),
      parts_(std::max(1, plan.frame_parts)),
      granted_(static_cast<size_t>(ranks), 0),
      recent_(static_cast<size_t>(ranks)),
      drained_(static_cast<size_t>(ranks), false),
      last_claim_(static_cast<size_t>(ranks), -1.0),
      last_split_(static_cast<size_t>(ranks), false),
      waited_(static_cast<size_t>(ranks), false),
      pace_(static_cast<size_t>(ranks), 0.0),
      granted_parts_(static_cast<size_t>(ranks), 0),
      delivered_(static_cast<size_t>(ranks), -1),
      paced_(static_cast<size_t>(ranks)) {
  if (plan_.step < 1) plan_.step = 1;
  if (plan_.listed)
    limit_ = static_cast<int64_t>(plan_.indices.size());
  else if (plan_.last >= 0)
    limit_ = plan_.last < plan_.first ? 0 : (plan_.last - plan_.first) / plan_.step + 1;
  if (plan_.bad_frame >= 0) error(plan_.bad_frame, plan_.bad_frame_message);
}

int64_t FrameDispenser::file_index(int64_t ordinal) const {
  if (plan_.listed) return plan_.indices[static_cast<size_t>(ordinal)];
  return plan_.first + ordinal * plan_.step;
}

int64_t FrameDispenser::ordinal_at(int64_t file_index) const {
  if (plan_.listed)
    return std::lower_bound(plan_.indices.begin(), plan_.indices.end(), file_index) -
           plan_.indices.begin();
  if (file_index <= plan_.first) return 0;
  return (file_index - plan_.first + plan_.step - 1) / plan_.step;
}

void FrameDispenser::lower_limit(int64_t ordinal, Limit why) {
  // At equal limits a bad frame's error is what the run reports.
  if (ordinal < limit_ || (ordinal == limit_ && why == Limit::error)) {
    limit_ = ordinal;
    limit_why_ = why;
  }
}

double FrameDispenser::total_rate(double& fastest) const {
  // A rank not yet measured counts as the fastest (it is just starting, and must not make the
  // others look slow).
  fastest = 0;
  for (double p : pace_)
    if (p > 0) fastest = fastest > 0 ? std::min(fastest, p) : p;
  double rate = 0;
  if (fastest > 0)
    for (double p : pace_) rate += 1 / (p > 0 ? p : fastest);
  return rate;
}

double FrameDispenser::held_frames(int rank, double share) const {
  const auto r = static_cast<size_t>(rank);
  if (delivered_[r] < 0) return kHeldUnits * share;
  return static_cast<double>(std::max<int64_t>(granted_parts_[r] - delivered_[r], 0)) / parts_;
}

bool FrameDispenser::reporting() const {
  return std::all_of(delivered_.begin(), delivered_.end(), [](int64_t d) { return d >= 0; });
}

double FrameDispenser::others_end(int rank, double frames) const {
  double fastest = 0, rate = 0, held = 0;
  total_rate(fastest);
  for (size_t r = 0; r < pace_.size(); ++r) {
    if (static_cast<int>(r) == rank) continue;
    rate += 1 / (pace_[r] > 0 ? pace_[r] : fastest);
    held += held_frames(static_cast<int>(r), 1.0);
  }
  return rate > 0 ? (held + frames) / rate : std::numeric_limits<double>::infinity();
}

bool FrameDispenser::slow_for_the_rest(int rank) const {
  if (limit_ == std::numeric_limits<int64_t>::max()) return false;  // how many are left?
  double fastest = 0;
  const double rate = total_rate(fastest);
  const double mine = pace_[static_cast<size_t>(rank)];
  if (rate <= 0 || mine <= 0) return false;
  const double left = static_cast<double>(limit_ - next_ordinal_);
  // Without reports: a rank holds about kHeldUnits units, and the others' are not counted.
  if (!reporting()) return kHeldUnits * mine > left / rate;
  // A whole frame behind what the rank holds would end after the other ranks have counted what
  // they hold and every other frame left.
  return (held_frames(rank, 1.0) + 1) * mine > others_end(rank, left - 1);
}

bool FrameDispenser::holds_its_share(int rank) const {
  // Before any pace is known, the rank whose many decoding threads asked first took every part
  // of a frame split over all ranks, and the others idled (a 2-GPU node, test_mpi_cli). Until
  // its pace is measured a rank takes an even share; then what it holds counts as its pace says.
  const auto r = static_cast<size_t>(rank);
  if (pace_[r] > 0 || delivered_[r] < 0 || pace_.size() < 2 ||
      limit_ == std::numeric_limits<int64_t>::max())
    return false;
  int64_t held = 0;
  for (size_t o = 0; o < pace_.size(); ++o)
    if (delivered_[o] >= 0) held += std::max<int64_t>(granted_parts_[o] - delivered_[o], 0);
  const int64_t left = (limit_ - next_ordinal_) * parts_ - next_part_ + held;
  const auto ranks = static_cast<int64_t>(pace_.size());
  return granted_parts_[r] - delivered_[r] >= (left + ranks - 1) / ranks;
}

bool FrameDispenser::better_elsewhere(int rank, double share) const {
  if (limit_ == std::numeric_limits<int64_t>::max() || pace_.size() < 2) return false;
  const double mine = pace_[static_cast<size_t>(rank)];
  double fastest_other = 0;
  for (size_t r = 0; r < pace_.size(); ++r)
    if (static_cast<int>(r) != rank && pace_[r] > 0)
      fastest_other = fastest_other > 0 ? std::min(fastest_other, pace_[r]) : pace_[r];
  if (mine <= 0 || fastest_other <= 0) return false;
  const double unassigned = static_cast<double>(limit_ - next_ordinal_) - share * next_part_;
  if (reporting()) {
    // The unit would end on this rank, behind what it holds, after the other ranks have
    // counted what they hold and every other unit left (then they take it: a rank that claimed
    // far ahead, or a slow one, waits while the others catch up).
    return (held_frames(rank, share) + share) * mine >
           others_end(rank, unassigned - share) + fastest_other * share;
  }
  if (mine <= fastest_other) return false;
  // When all ranks, together, will have counted what is left and what they hold (about
  // kHeldUnits units each), if the work is balanced; this rank's new unit ends behind the ones
  // it holds.
  double fastest = 0;
  const double left = unassigned + kHeldUnits * share * static_cast<double>(pace_.size());
  return kHeldUnits * mine * share > left / total_rate(fastest) + fastest_other * share;
}

void FrameDispenser::measure_pace(int rank, double now, int64_t delivered) {
  const auto r = static_cast<size_t>(rank);
  if (delivered < 0) {
    if (last_claim_[r] >= 0 && !waited_[r]) {
      // The time since its last claim, per frame of what it claimed then (not after it was told
      // to wait: that time was not spent counting).
      const double seconds = (now - last_claim_[r]) * (last_split_[r] ? parts_ : 1);
      pace_[r] = pace_[r] > 0 ? (1 - kPaceWeight) * pace_[r] + kPaceWeight * seconds : seconds;
    }
    return;
  }
  // From what it took into counting over its last deliveries: a rank holds many units, and the
  // interval between its claims is the time of a unit it claimed long before (a whole frame
  // while it now claims parts: 5 parts made it look 5 times slower, and it was told to wait
  // near the end). A rank takes a unit when one it took before is done: the time between two
  // deliveries was spent on the units of the delivery before, so the window is shifted by one.
  auto& window = paced_[r];
  if (waited_[r] && granted_parts_[r] <= delivered) window.clear();  // it idled: start again
  if (window.empty() || delivered > window.back().second) {
    window.emplace_back(now, delivered);
    if (window.size() > kPaceWindow + 2) window.pop_front();
  }
  if (window.size() >= 3) {
    const double seconds = window.back().first - window[1].first;
    const int64_t parts = window[window.size() - 2].second - window.front().second;
    if (seconds > 0 && parts > 0) pace_[r] = seconds * parts_ / static_cast<double>(parts);
  }
  delivered_[r] = delivered;
}

Offer FrameDispenser::grant(int rank, WorkUnit& unit, double now, int64_t delivered) {
  if (next_ordinal_ >= limit_) return {Offer::none};
  const auto r = static_cast<size_t>(rank);
  if (delivered >= 0) measure_pace(rank, now, delivered);
  // Whole frames, then the last ones in parts: the units get short where the ranks finish.
  const bool split =
      parts_ > 1 && (next_part_ > 0 || next_ordinal_ >= plan_.split_from ||
                     limit_ - next_ordinal_ <= plan_.split_last || slow_for_the_rest(rank));
  if ((split && holds_its_share(rank)) || better_elsewhere(rank, split ? 1.0 / parts_ : 1.0)) {
    waited_[r] = true;
    return {Offer::later};
  }
  unit.ordinal = next_ordinal_;
  unit.file_index = file_index(next_ordinal_);
  if (delivered < 0) measure_pace(rank, now, -1);
  waited_[r] = false;
  last_claim_[r] = now;
  last_split_[r] = split;
  if (split) {
    unit.part = next_part_;
    if (++next_part_ == parts_) next_part_ = 0;
  } else {
    unit.part = -1;
  }
  granted_parts_[r] += split ? 1 : parts_;
  if (next_part_ == 0) ++next_ordinal_;
  ++granted_[r];
  if (recent_[r].empty() || recent_[r].back() != unit.ordinal) {
    recent_[r].push_back(unit.ordinal);
    if (recent_[r].size() > kRecentUnits) recent_[r].pop_front();
  }
  return {Offer::unit};
}

void FrameDispenser::file_ends(int64_t frames) {
  lower_limit(ordinal_at(frames), Limit::file_end);
}

void FrameDispenser::error(int64_t file_index, const std::string& message) {
  if (error_index_ < 0 || file_index < error_index_) {
    error_index_ = file_index;
    error_message_ = message;
  }
  lower_limit(ordinal_at(file_index), Limit::error);
}

void FrameDispenser::stop(int signo) {
  if (stop_signo_ == 0) stop_signo_ = signo;
  // The parts of a frame already begun are all handed out: a frame counts whole or not at all.
  lower_limit(next_part_ > 0 ? next_ordinal_ + 1 : next_ordinal_, Limit::stop);
}

void FrameDispenser::drained(int rank) {
  drained_[static_cast<size_t>(rank)] = true;
}

bool FrameDispenser::all_drained() const {
  return std::all_of(drained_.begin(), drained_.end(), [](bool d) { return d; });
}

RunEnd FrameDispenser::end() const {
  RunEnd e;
  e.frames = std::min(limit_, next_part_ > 0 ? next_ordinal_ + 1 : next_ordinal_);
  if (limit_why_ == Limit::error) {
    e.why = RunEnd::Why::input_error;
    e.message = error_message_;
  } else if (limit_why_ == Limit::stop) {
    e.why = RunEnd::Why::stopped;
    e.signo = stop_signo_;
  }
  return e;
}

std::string FrameDispenser::recent_frames(int rank) const {
  std::string list;
  for (int64_t ordinal : recent_[static_cast<size_t>(rank)])
    list += (list.empty() ? "" : ", ") + std::to_string(file_index(ordinal));
  return list;
}

}  // namespace pairhist
