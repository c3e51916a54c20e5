// Host memory for a frame's species columns that GPUs can read by DMA. The XTC decoding threads
// write each frame's selected species into HostColumns, and the engine takes them over without a
// copy (HistogramEngine::submit_frame_columns_swap): copying 16 MB per frame on the feeding
// thread took longer than the GPU needs for the frame (docs/performance.md). Pinning is a pair of
// hooks, installed by the task library when GPUs are present (use_pinned_host_columns), so that
// this header and the readers using it need neither StarPU nor CUDA. The hooks live in their own
// small shared library (libpairhist_host), so that the readers linked into a program and the
// task library see the same ones.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace pairhist {

/// Pins `bytes` at `p` (page-aligned, whole pages) for DMA; false if it could not (the memory
/// still works, transfers from it are only slower).
using HostPinHook = bool (*)(void* p, std::size_t bytes);
/// Unpins memory before it is freed. Also called for memory the pin hook did not pin (allocated
/// before the hooks were installed, or whose pinning failed): it must ignore that.
using HostUnpinHook = void (*)(void* p, std::size_t bytes);

/// Installs the hooks every HostColumn allocated from now on is pinned with. The first
/// installation stands for the process (a buffer must be unpinned by the hooks that pinned it):
/// returns whether these are the installed hooks now. Thread-safe.
bool set_host_pinning(HostPinHook pin, HostUnpinHook unpin);
/// Whether hooks are installed, so that HostColumns allocated from now on are pinned.
bool host_pinning_installed();

/// While one lives, the HostColumns this thread allocates are not pinned (hooks or not): staging
/// buffers that many decoding threads fill at once and copy into a few pinned ones, since pinning
/// every thread's buffers at a run's start held 4 GPUs back for 1.5 s (issue 24). Scopes nest.
class UnpinnedScope {
 public:
  UnpinnedScope();
  ~UnpinnedScope();
  UnpinnedScope(const UnpinnedScope&) = delete;
  UnpinnedScope& operator=(const UnpinnedScope&) = delete;

 private:
  bool outer_;
};

namespace host_memory {
/// Aligned memory (whole pages, pinned, once hooks are installed); throws std::bad_alloc.
void* allocate(std::size_t bytes);
void deallocate(void* p, std::size_t bytes) noexcept;
}  // namespace host_memory

/// A std::allocator for HostColumn: memory from host_memory, and default-initialisation on
/// resize (the decoder overwrites every value, so a 16 MB zero fill would be wasted).
template <class T>
class PinnableAllocator {
 public:
  using value_type = T;
  using is_always_equal = std::true_type;  // stateless: vectors swap their buffers freely

  PinnableAllocator() noexcept = default;
  template <class U>
  PinnableAllocator(const PinnableAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(host_memory::allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { host_memory::deallocate(p, n * sizeof(T)); }

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  friend bool operator==(const PinnableAllocator&, const PinnableAllocator&) noexcept {
    return true;
  }
  friend bool operator!=(const PinnableAllocator&, const PinnableAllocator&) noexcept {
    return false;
  }
};

/// One species of a frame as columns: x[0..n), y[0..n), z[0..n).
using HostColumn = std::vector<float, PinnableAllocator<float>>;

}  // namespace pairhist
