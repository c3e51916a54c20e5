// Where a codelet that could not count its share of a frame says so (see DeviceFaults).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace pairhist::codelets {

/// A task that could not count its share (a CUDA launch failed: no memory for its workspace, a
/// broken device) tells its engine here instead of ending the process; the engine then ends
/// the run with a clean error, keeping the intervals completed before the frame.
class DeviceFaults {
 public:
  /// Keeps the fault of the lowest frame.
  void record(uint64_t frame, std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (any_.load(std::memory_order_relaxed) && frame >= frame_) return;
    frame_ = frame;
    message_ = std::move(message);
    any_.store(true, std::memory_order_release);
  }
  bool any() const noexcept { return any_.load(std::memory_order_acquire); }
  /// The frame (engine numbering) and what happened; only when any().
  uint64_t frame() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return frame_;
  }
  std::string message() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return message_;
  }

 private:
  std::atomic<bool> any_{false};
  mutable std::mutex mutex_;
  uint64_t frame_ = 0;
  std::string message_;
};

}  // namespace pairhist::codelets
