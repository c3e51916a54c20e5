#include "xtc_parallel_reader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <utility>

#include "pairhist/errors.hpp"
#include "xtc_reader.hpp"
#include "xtc_scanner.hpp"

namespace pairhist::io {

XtcParallelReader::XtcParallelReader(const std::string& path, int threads)
    : XtcParallelReader(std::make_unique<xtc::Scanner>(path), threads) {}

XtcParallelReader::XtcParallelReader(std::unique_ptr<xtc::Scanner> scanner, int threads,
                                     int64_t frames_before)
    : path_(scanner->path()),
      natoms_(scanner->natoms()),
      scanner_(std::move(scanner)),
      next_to_read_(frames_before),
      delivered_(frames_before) {
  if (threads < 1) throw UsageError("XTC decoding needs at least one thread");
  slots_.resize(static_cast<size_t>(threads));
  try {
    for (int t = 0; t < threads; ++t) workers_.emplace_back([this] { work(); });
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

void XtcParallelReader::work() {
  const auto window = static_cast<int64_t>(slots_.size());
  for (;;) {
    // Frames are claimed and read in file order under read_mutex_, then decoded concurrently.
    std::unique_lock<std::mutex> read_lock(read_mutex_);
    int64_t k = 0;
    Slot* slot = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // At most `window` frames beyond the delivered ones: this bounds the memory.
      claimable_.wait(
          lock, [&] { return stopping_ || input_over_ || next_to_read_ < delivered_ + window; });
      if (stopping_ || input_over_) return;
      k = next_to_read_++;
      slot = &slots_[static_cast<size_t>(k % window)];
      slot->state = Slot::State::working;
    }
    Slot::State outcome = Slot::State::ready;
    std::exception_ptr error;
    try {
      std::string problem;
      const auto status = scanner_->read(slot->raw, problem);
      read_lock.unlock();
      if (status == xtc::Scanner::Status::frame)
        problem = xtc::decode_frame(slot->raw, natoms_, slot->frame);
      if (status == xtc::Scanner::Status::end) {
        outcome = Slot::State::end;
      } else if (!problem.empty()) {
        outcome = Slot::State::failed;
        error = std::make_exception_ptr(InputError(xtc::frame_error(path_, k, problem)));
      }
    } catch (...) {  // out of memory: the caller gets it at this frame, as from the serial reader
      outcome = Slot::State::failed;
      error = std::current_exception();
    }
    if (read_lock.owns_lock()) read_lock.unlock();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      slot->state = outcome;
      slot->error = error;
      // Nothing after an end or an error is ever delivered, so nothing more is read.
      if (outcome != Slot::State::ready) input_over_ = true;
    }
    done_.notify_all();
    if (outcome != Slot::State::ready) claimable_.notify_all();
  }
}

bool XtcParallelReader::next(TrajectoryFrame& frame) {
  if (error_) std::rethrow_exception(error_);
  if (ended_) return false;
  std::unique_lock<std::mutex> lock(mutex_);
  Slot& slot = slots_[static_cast<size_t>(delivered_ % static_cast<int64_t>(slots_.size()))];
  done_.wait(lock, [&] {
    return slot.state == Slot::State::ready || slot.state == Slot::State::end ||
           slot.state == Slot::State::failed;
  });
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
  // Swapping hands the caller's previous buffer to the slot, so no frame is copied or allocated.
  frame.step = slot.frame.step;
  frame.time = slot.frame.time;
  frame.box = slot.frame.box;
  frame.precision = slot.frame.precision;
  frame.xyz.swap(slot.frame.xyz);
  slot.state = Slot::State::free;
  ++delivered_;
  lock.unlock();
  claimable_.notify_one();
  return true;
}

int automatic_decode_threads(int natoms, int cores) {
  if (natoms < kParallelDecodeMinAtoms) return 1;
  return std::clamp(cores / 4, 1, 4);
}

std::unique_ptr<TrajectoryReader> open_trajectory_threaded(const std::string& path,
                                                           int decode_threads) {
  if (decode_threads < 0) throw UsageError("--decode-threads must be >= 0 (0: automatic)");
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != ".xtc" || decode_threads == 1) return open_trajectory(path);
  auto scanner = std::make_unique<xtc::Scanner>(path);
  int threads = decode_threads;
  if (threads == 0) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    threads = automatic_decode_threads(scanner->natoms(), cores);
  }
  if (threads == 1) return std::make_unique<XtcReader>(std::move(scanner));
  return std::make_unique<XtcParallelReader>(std::move(scanner), threads);
}

std::unique_ptr<TrajectoryReader> open_trajectory_after(const std::string& path, int decode_threads,
                                                        int64_t skip) {
  const auto ended = [&](int64_t frames) {
    return InputError(path + ": the file ends after " + std::to_string(frames) +
                      " frames, before frame " + std::to_string(skip) + " where the run resumes");
  };
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (decode_threads < 0) throw UsageError("--decode-threads must be >= 0 (0: automatic)");
  if (skip <= 0 || ext != ".xtc") {
    auto reader = open_trajectory_threaded(path, decode_threads);
    TrajectoryFrame dropped;
    for (int64_t k = 0; k < skip; ++k)
      if (!reader->next(dropped)) throw ended(k);
    return reader;
  }
  // Each frame header gives its byte count: the skipped frames are read, never decoded.
  auto scanner = std::make_unique<xtc::Scanner>(path);
  xtc::RawFrame raw;
  std::string problem;
  for (int64_t k = 0; k < skip; ++k) {
    const auto status = scanner->read(raw, problem);
    if (status == xtc::Scanner::Status::end) throw ended(k);
    if (status == xtc::Scanner::Status::error) throw InputError(xtc::frame_error(path, k, problem));
  }
  int threads = decode_threads;
  if (threads == 0) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    threads = automatic_decode_threads(scanner->natoms(), cores);
  }
  if (threads <= 1) return std::make_unique<XtcReader>(std::move(scanner), skip);
  return std::make_unique<XtcParallelReader>(std::move(scanner), threads, skip);
}

}  // namespace pairhist::io
