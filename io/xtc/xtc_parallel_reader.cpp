#include "io/xtc/xtc_parallel_reader.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int64_t pinned_frames_for(int threads) {
  return std::clamp<int64_t>(threads / 2, kPinnedFrames, kMaxPinnedFrames);
}

XtcParallelReader::XtcParallelReader(const std::string& path, int threads, FramePreparation prep,
                                     int active)
    : XtcParallelReader(std::make_unique<xtc::Scanner>(path), threads, std::move(prep), active) {}

XtcParallelReader::XtcParallelReader(std::unique_ptr<xtc::Scanner> scanner, int threads,
                                     FramePreparation prep, int active, int64_t frames_before,
                                     FrameChooser chooser)
    : path_(scanner->path()),
      natoms_(scanner->natoms()),
      scanner_(std::move(scanner)),
      next_in_file_(frames_before),
      chooser_(std::move(chooser)),
      next_to_read_(frames_before),
      delivered_(frames_before),
      delivered_end_(frames_before) {
  if (threads < 1) throw UsageError("XTC decoding needs at least one thread");
  pinned_frames_ = pinned_frames_for(threads);
  set_preparation(std::move(prep));
  active_ = active > 0 ? std::min(active, threads) : threads;
  slots_.resize(static_cast<size_t>(threads * kFramesPerDecodeThread));
  try {
    for (int t = 0; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
  } catch (...) {
    stop_workers();
    throw;
  }
}

XtcParallelReader::~XtcParallelReader() {
  stop_workers();
}

void XtcParallelReader::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  claimable_.notify_all();
  for (auto& w : workers_)
    if (w.joinable()) w.join();
}

bool XtcParallelReader::choose_frames(FrameChooser chooser) {
  // A thread uses the chooser only for a frame it claimed and has not handed over: with none
  // claimed beyond the delivered ones, none is using it. (Not read_mutex_: a thread waiting for
  // room in the window holds it.)
  std::lock_guard<std::mutex> lock(mutex_);
  if (next_to_read_ != delivered_) return false;
  chooser_ = std::move(chooser);
  return true;
}

bool XtcParallelReader::chooses_frames() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<bool>(chooser_);
}

int64_t XtcParallelReader::frames_read() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return delivered_end_;
}

int XtcParallelReader::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_;
}

void XtcParallelReader::set_active_threads(int n) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    active_ = std::clamp(n, 1, static_cast<int>(workers_.size()));
  }
  claimable_.notify_all();
}

double XtcParallelReader::seconds_per_frame() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return decoded_frames_ > 0 ? decode_seconds_ / static_cast<double>(decoded_frames_) : 0;
}

XtcParallelReader::Waits XtcParallelReader::waits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waits_;
}

ReadingFigures XtcParallelReader::reading_figures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ReadingFigures f;
  f.threads = active_;
  f.max_threads = static_cast<int>(workers_.size());
  f.seconds_per_frame =
      decoded_frames_ > 0 ? decode_seconds_ / static_cast<double>(decoded_frames_) : 0;
  f.window_wait_seconds = waits_.window_seconds;
  f.caller_wait_seconds = waits_.caller_seconds;
  f.caller_promotions = waits_.caller_promotions;
  f.lock_wait_seconds = waits_.lock_seconds;
  return f;
}

void XtcParallelReader::record_timings() {
  std::lock_guard<std::mutex> lock(mutex_);
  recording_ = true;
}

std::vector<ReadingTiming> XtcParallelReader::timings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timings_;
}

void XtcParallelReader::set_preparation(FramePreparation prep) {
  auto p = std::make_shared<Preparation>();
  p->what = std::move(prep);
  if (!p->what.species.empty() && !p->what.whole_frame) {
    p->direct = std::make_unique<ColumnMap>(p->what.species, natoms_);
    if (!p->direct->usable()) p->direct.reset();  // overlapping species: gather after decoding
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    prep_ = std::move(p);
  }
  claimable_.notify_all();
}

bool XtcParallelReader::await_pinning() {
  std::lock_guard<std::mutex> lock(mutex_);
  pinning_awaited_ = true;
  return true;
}

void XtcParallelReader::pinning_settled() {
  std::vector<std::vector<HostColumn>> unused;  // freed after the lock
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pinning_awaited_ = false;
    if (!host_pinning_installed()) {  // nothing will pin: no staging from now on
      unused.swap(staging_sets_);
      unpinned_delivered_.clear();
    }
  }
  claimable_.notify_all();  // threads waiting for room promote the staged frames now due
}

std::string XtcParallelReader::prepare(const xtc::RawFrame& raw, Slot& slot,
                                       const Preparation& prep, bool staged) const {
  // A staged frame is measured by its promotion's copy, which reads it anyway.
  if (prep.direct)
    return xtc::decode_frame_columns(raw, natoms_, *prep.direct, slot.frame, !staged);
  std::string problem = xtc::decode_frame(raw, natoms_, slot.frame);
  if (problem.empty() && !prep.what.species.empty())
    gather_species_columns(slot.frame.xyz.data(), prep.what.species, slot.frame.columns);
  return problem;
}

void XtcParallelReader::work(int thread) {
  xtc::RawFrame raw;  // this thread's compressed frame: one buffer, reused for every frame
  for (;;) {
    // A thread waits for its turn before the read lock: an inactive one must not hold it.
    {
      std::unique_lock<std::mutex> lock(mutex_);
      claimable_.wait(lock, [&] { return stopping_ || input_over_ || thread < active_; });
      while (promote_one(lock, thread)) {
      }
    }
    // Frames are claimed and located in file order under read_mutex_ (a header read each: the
    // next frame's place is known only from this one's header), then fetched and decoded
    // concurrently, without the lock.
    const auto lock_from = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> read_lock(read_mutex_);
    const double lock_wait =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - lock_from).count();
    Claim claim;
    if (!claim_next(claim, thread, lock_wait)) return;
    Outcome outcome;
    try {
      std::string problem;
      const auto status = locate(claim, raw, problem);
      read_lock.unlock();
      outcome = complete(claim, raw, status, std::move(problem));
    } catch (...) {  // out of memory: the caller gets it at this frame, as from the serial reader
      outcome.state = Slot::State::failed;
      outcome.error = std::current_exception();
    }
    if (read_lock.owns_lock()) read_lock.unlock();
    publish(claim, outcome);
  }
}

bool XtcParallelReader::claim_next(Claim& claim, int thread, double lock_wait) {
  const auto window = static_cast<int64_t>(slots_.size());
  std::unique_lock<std::mutex> lock(mutex_);
  waits_.lock_seconds += lock_wait;
  // At most `window` frames beyond the delivered ones: this bounds the memory. The thread
  // waiting for room promotes staged frames meanwhile.
  for (;;) {
    if (stopping_ || input_over_) return false;
    const int64_t ahead = prep_->what.pending ? std::min<int64_t>(kPendingFrames, window) : window;
    if (next_to_read_ < delivered_ + ahead) break;
    if (promote_one(lock, thread)) continue;
    const auto from = std::chrono::steady_clock::now();
    claimable_.wait(lock);
    waits_.window_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  }
  claim.slot = &slots_[static_cast<size_t>(next_to_read_++ % window)];
  claim.slot->state = Slot::State::working;
  claim.slot->timing = ReadingTiming{};
  claim.slot->timing.thread = thread;
  claim.slot->timing.claimed = steady_seconds();
  claim.prep = prep_;
  claim.choosing = static_cast<bool>(chooser_);
  // Awaiting the hooks, every frame is staged (columns allocated now would stay unpinned).
  claim.staged = (pinning_awaited_ || (active_ > pinned_frames_ && host_pinning_installed())) &&
                 !prep_->what.species.empty() && !prep_->what.pending;
  if (claim.staged && claim.slot->staging.empty() && !staging_sets_.empty()) {
    claim.slot->staging = std::move(staging_sets_.back());
    staging_sets_.pop_back();
  }
  std::vector<HostColumn>& soa = claim.slot->frame.columns.soa;
  if (!claim.staged && soa.empty() && !free_sets_.empty()) {  // pinned already: no new pinning
    soa = std::move(free_sets_.back());
    free_sets_.pop_back();
  }
  return true;
}

bool XtcParallelReader::promote_one(std::unique_lock<std::mutex>& lock, int by) {
  if (pinning_awaited_ && by >= 0) return false;  // the threads wait for the hooks; next() cannot
  const auto window = static_cast<int64_t>(slots_.size());
  Slot* slot = nullptr;
  for (int64_t k = delivered_; k < std::min(next_to_read_, delivered_ + pinned_frames_) && !slot;
       ++k) {
    Slot& s = slots_[static_cast<size_t>(k % window)];
    if (s.state == Slot::State::decoded) slot = &s;
  }
  if (!slot) return false;
  slot->state = Slot::State::promoting;
  // Nothing pins, or the GPUs are not ready yet (pinning would wait for their contexts, and the
  // caller may be passing over frames before the run's first): the staging columns go out as
  // they are, measured in place.
  const bool pinning = host_pinning_installed() && !pinning_awaited_;
  SpeciesColumns pinned;
  if (pinning && !free_sets_.empty()) {
    pinned.soa = std::move(free_sets_.back());
    free_sets_.pop_back();
  }
  if (!pinning && host_pinning_may_come() && !slot->frame.columns.soa.empty())
    unpinned_delivered_.push_back(slot->frame.columns.soa.front().data());
  lock.unlock();
  const auto start = std::chrono::steady_clock::now();
  std::exception_ptr error;
  try {
    if (pinning)
      copy_species_columns(slot->frame.columns.soa, pinned);  // pins a new set's columns
    else
      measure_species_columns(slot->frame.columns);
  } catch (...) {  // out of memory: the caller gets it at this frame
    error = std::current_exception();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  lock.lock();
  if (error) {
    slot->state = Slot::State::failed;
    slot->error = error;
    input_over_ = true;
    claimable_.notify_all();
  } else {
    if (pinning) {
      slot->staging = std::move(slot->frame.columns.soa);
      slot->frame.columns = std::move(pinned);
    }
    slot->state = Slot::State::ready;
    decode_seconds_ += seconds;
    slot->timing.promote_seconds = seconds;
    slot->timing.promoted_by = by;
    slot->timing.ready = steady_seconds();
  }
  done_.notify_all();
  return true;
}

xtc::Scanner::Status XtcParallelReader::locate(const Claim& claim, xtc::RawFrame& raw,
                                               std::string& problem) {
  using Status = xtc::Scanner::Status;
  Slot& slot = *claim.slot;
  auto status = Status::frame;
  slot.again = false;
  if (claim.choosing) {  // pass over the frames not wanted, without decoding them
    const int64_t wanted = chooser_(next_in_file_);
    slot.again = wanted == kFrameAgain;
    if (wanted < 0 && !slot.again) status = Status::end;
    while (status == Status::frame && next_in_file_ < wanted) {
      status = scanner_->skip(raw, problem);
      if (status == Status::frame) ++next_in_file_;
    }
  }
  slot.file_index = slot.again ? next_in_file_ - 1 : next_in_file_;
  if (status == Status::frame && !slot.again) {
    status = scanner_->locate(raw, problem);
    if (status == Status::frame) ++next_in_file_;
  }
  slot.cut = status == Status::error && scanner_->cut();
  return status;
}

XtcParallelReader::Outcome XtcParallelReader::complete(const Claim& claim, xtc::RawFrame& raw,
                                                       xtc::Scanner::Status status,
                                                       std::string problem) const {
  Slot& slot = *claim.slot;
  Outcome outcome;
  // The slot holds the columns the caller swapped in: stale until refilled.
  slot.frame.columns.filled = false;
  const bool decoding = status == xtc::Scanner::Status::frame && !slot.again;
  if (decoding) problem = scanner_->fetch(raw);  // positional reads: no lock
  // Timed from the bytes in memory, as before reads left the lock: what decoding costs a core.
  const auto start = std::chrono::steady_clock::now();
  if (decoding && problem.empty() && claim.staged) {
    // Into the staging set, allocated unpinned (next() took the slot's pinned columns).
    slot.frame.columns.soa.swap(slot.staging);
    UnpinnedScope unpinned;
    problem = prepare(raw, slot, *claim.prep, true);
  } else if (decoding && problem.empty()) {
    problem = prepare(raw, slot, *claim.prep, false);
  }
  if (decoding && problem.empty()) {
    const auto end = std::chrono::steady_clock::now();
    outcome.seconds = std::chrono::duration<double>(end - start).count();
    outcome.finished = std::chrono::duration<double>(end.time_since_epoch()).count();
    if (claim.staged) outcome.state = Slot::State::decoded;
  }
  if (status == xtc::Scanner::Status::end) {
    outcome.state = Slot::State::end;
  } else if (!problem.empty()) {
    outcome.state = Slot::State::failed;
    // A frame located whole and failing to fetch or decode is damaged, not cut.
    const std::string message = xtc::frame_error(path_, slot.file_index, problem);
    outcome.error = slot.cut && status == xtc::Scanner::Status::error
                        ? std::make_exception_ptr(TruncatedFrame(message))
                        : std::make_exception_ptr(InputError(message));
  }
  return outcome;
}

void XtcParallelReader::publish(const Claim& claim, const Outcome& outcome) {
  const bool over = outcome.state != Slot::State::ready && outcome.state != Slot::State::decoded;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    claim.slot->state = outcome.state;
    claim.slot->error = outcome.error;
    claim.slot->timing.decode_seconds = outcome.seconds;
    claim.slot->timing.decoded = outcome.finished;
    if (outcome.state == Slot::State::ready) claim.slot->timing.ready = outcome.finished;
    if (outcome.seconds > 0) decode_seconds_ += outcome.seconds, ++decoded_frames_;
    // Nothing after an end or an error is ever delivered, so nothing more is read.
    if (over) input_over_ = true;
  }
  done_.notify_all();
  // A thread waiting for room promotes a decoded frame if it is due.
  if (over || outcome.state == Slot::State::decoded) claimable_.notify_all();
}

bool XtcParallelReader::next(TrajectoryFrame& frame) {
  if (error_) std::rethrow_exception(error_);
  if (ended_) return false;
  std::unique_lock<std::mutex> lock(mutex_);
  Slot& slot = slots_[static_cast<size_t>(delivered_ % static_cast<int64_t>(slots_.size()))];
  const auto from = std::chrono::steady_clock::now();
  for (;;) {
    done_.wait(lock, [&] {
      return slot.state == Slot::State::ready || slot.state == Slot::State::end ||
             slot.state == Slot::State::failed || slot.state == Slot::State::decoded;
    });
    if (slot.state != Slot::State::decoded) break;
    promote_one(lock, -1);  // no thread got to it: this one is the earliest due
    ++waits_.caller_promotions;
  }
  waits_.caller_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  if (slot.state == Slot::State::end) {
    ended_ = true;
    return false;
  }
  if (slot.state == Slot::State::failed) {
    error_ = slot.error;
    stopping_ = true;
    lock.unlock();
    claimable_.notify_all();
    std::rethrow_exception(error_);
  }
  if (slot.again) {  // the caller's frame is the one wanted again
    slot.state = Slot::State::free;
    ++delivered_;
    lock.unlock();
    claimable_.notify_all();
    return true;
  }
  // Swapping hands the caller's previous buffer to the slot, so no frame is copied or allocated.
  frame.step = slot.frame.step;
  frame.time = slot.frame.time;
  frame.box = slot.frame.box;
  frame.precision = slot.frame.precision;
  frame.xyz.swap(slot.frame.xyz);
  std::swap(frame.columns, slot.frame.columns);
  // The caller's columns (given back by the engine, usually) wait for whichever frame is
  // promoted or claimed next, not for this slot's next frame: a window's worth of them would
  // otherwise sit in the slots while promotions pin new ones.
  if (!slot.frame.columns.soa.empty()) {
    // A set handed over unpinned serves again as staging, never as a pinned set.
    const auto unpinned = std::find(unpinned_delivered_.begin(), unpinned_delivered_.end(),
                                    slot.frame.columns.soa.front().data());
    if (unpinned != unpinned_delivered_.end()) {
      unpinned_delivered_.erase(unpinned);
      staging_sets_.push_back(std::move(slot.frame.columns.soa));
    } else {
      free_sets_.push_back(std::move(slot.frame.columns.soa));
    }
    slot.frame.columns.soa.clear();
  }
  slot.state = Slot::State::free;
  ++delivered_;
  delivered_end_ = slot.file_index + 1;
  if (recording_) {
    slot.timing.frame = slot.file_index;
    slot.timing.delivered = steady_seconds();
    timings_.push_back(slot.timing);
  }
  lock.unlock();
  claimable_.notify_all();
  return true;
}

}  // namespace pairhist::io
