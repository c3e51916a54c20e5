// Frame buffers pinned ahead of use by a helper thread. Pinning (starpu_malloc of page-locked
// memory) costs ~0.6 ms per MiB, about 2 ms for a 280,000-atom frame: on the caller's thread that
// was more than eight GPUs take to histogram such a frame, so the first frames_in_flight frames
// of a run were fed slower than they were consumed (docs/performance.md, multi-GPU scaling).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pairhist {

class BufferPinner {
 public:
  /// Pins `slots` sets of buffers, one buffer of bytes[i] per nonzero entry (nullptr for a zero
  /// one), in slot order, staying at most `ahead` slots beyond the last slot taken. StarPU must be
  /// running until stop() has returned.
  BufferPinner(std::vector<size_t> bytes, size_t slots, size_t ahead);
  ~BufferPinner();  // stop()
  BufferPinner(const BufferPinner&) = delete;
  BufferPinner& operator=(const BufferPinner&) = delete;

  /// The buffers of slot k, which then belong to the caller (starpu_free). Slots are taken once
  /// each, in order 0, 1, ...; waits while slot k is being pinned. Rethrows the helper's error
  /// (std::bad_alloc when pinned memory runs out).
  std::vector<void*> take(size_t k);

  /// Stops pinning (waits for the slot in progress) and frees the slots pinned but not taken.
  void stop();

 private:
  void pin_all();

  std::vector<size_t> bytes_;
  size_t slots_;
  size_t ahead_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::vector<void*>> pinned_;  // slots pinned so far (moved out when taken)
  size_t taken_ = 0;                        // slots taken by the caller
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread helper_;
};

}  // namespace pairhist
