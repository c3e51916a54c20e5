// Lets an engine stop between frames without losing exactness: when a run is interrupted, the
// frames whose tasks have begun are counted whole and every later frame not at all, so the
// histograms afterwards hold exactly frames 0 .. bound-1 and a resumed run can go on from there.
// Every codelet asks the gate as it starts; a task that is refused returns at once.
#pragma once

#include <atomic>
#include <cstdint>

namespace pairhist::codelets {

class FrameGate {
 public:
  /// Called by a task of frame `frame` (the engine's frame number) as it starts: whether it
  /// should count. Always true until close(); afterwards true exactly for frames below the bound.
  bool admit(uint64_t frame) noexcept {
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      if (s & kClosed) return frame < (s & ~kClosed);
      if (frame < (s & ~kClosed)) return true;
      // Raise the bound before running, in one step with the check, so that close() either sees
      // this frame as begun or this task sees the gate closed.
      if (state_.compare_exchange_weak(s, frame + 1, std::memory_order_acq_rel)) return true;
    }
  }

  /// Admits no frame beyond those that have begun and returns the bound: every task of a frame
  /// below it runs (some may still be queued), no task of a later frame does. Idempotent; a
  /// lock-free atomic, so callable from any thread.
  uint64_t close() noexcept {
    return state_.fetch_or(kClosed, std::memory_order_acq_rel) & ~kClosed;
  }

  bool closed() const noexcept { return state_.load(std::memory_order_acquire) & kClosed; }

  /// The bound once closed (the frames counted), else `submitted`.
  uint64_t counted(uint64_t submitted) const noexcept {
    const uint64_t s = state_.load(std::memory_order_acquire);
    return s & kClosed ? s & ~kClosed : submitted;
  }

 private:
  static constexpr uint64_t kClosed = uint64_t(1) << 63;
  std::atomic<uint64_t> state_{0};  // kClosed | (1 + the highest frame a task has begun)
};

/// Whether a task with these arguments (a `gate` pointer, null for none, and a `frame`) counts.
template <class Args>
bool admitted(const Args& args) noexcept {
  return args.gate == nullptr || args.gate->admit(args.frame);
}

}  // namespace pairhist::codelets
