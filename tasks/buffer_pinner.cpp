#include "buffer_pinner.hpp"

#include <starpu.h>

#include <new>
#include <stdexcept>

namespace pairhist {

namespace {

void free_all(std::vector<void*>& buffers) {
  for (void*& b : buffers)
    if (b) starpu_free(b);
  buffers.clear();
}

}  // namespace

BufferPinner::BufferPinner(std::vector<size_t> bytes, size_t slots, size_t ahead)
    : bytes_(std::move(bytes)), slots_(slots), ahead_(ahead < 1 ? 1 : ahead) {
  helper_ = std::thread([this] { pin_all(); });
}

BufferPinner::~BufferPinner() {
  stop();
}

void BufferPinner::pin_all() {
  for (size_t k = 0; k < slots_; ++k) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || k < taken_ + ahead_; });
      if (stopping_) return;
    }
    std::vector<void*> buffers(bytes_.size(), nullptr);
    try {
      for (size_t i = 0; i < bytes_.size(); ++i)
        if (bytes_[i] > 0 && starpu_malloc(&buffers[i], bytes_[i]) != 0) {
          buffers[i] = nullptr;
          throw std::bad_alloc();
        }
    } catch (...) {
      free_all(buffers);
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
      changed_.notify_all();
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    pinned_.push_back(std::move(buffers));
    changed_.notify_all();
  }
}

std::vector<void*> BufferPinner::take(size_t k) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (k != taken_ || k >= slots_) throw std::logic_error("BufferPinner: slots are taken in order");
  changed_.wait(lock, [&] { return pinned_.size() > k || error_ || stopping_; });
  if (pinned_.size() <= k) {
    if (error_) std::rethrow_exception(error_);
    throw std::logic_error("BufferPinner: take after stop");
  }
  ++taken_;
  changed_.notify_all();
  return std::move(pinned_[k]);
}

void BufferPinner::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    changed_.notify_all();
  }
  if (helper_.joinable()) helper_.join();
  for (auto& buffers : pinned_) free_all(buffers);  // taken slots were moved out: empty
}

}  // namespace pairhist
