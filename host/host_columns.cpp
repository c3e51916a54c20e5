// The pinning hooks of HostColumn memory (include/pairhist/host_columns.hpp): one copy per
// process, in libpairhist_host.
#include "pairhist/host_columns.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "pairhist/settings.hpp"

namespace pairhist {
namespace {

struct Hooks {
  HostPinHook pin;
  HostUnpinHook unpin;
};

// Set once and never freed: buffers freed at exit are still unpinned by the hooks that pinned them.
std::atomic<const Hooks*> installed{nullptr};

// Page-aligned whole pages once hooks are installed (what cudaHostRegister pins best); otherwise
// a cache line suffices.
constexpr std::size_t kPage = 4096;
constexpr std::size_t kLine = 64;
// Columns of 2 MiB and more are pinned in transparent huge pages where the kernel has them: the
// decoding threads pin their first buffers all at once at a run's start, and concurrent pinning
// contends (H100 host, 8 threads x 16 MiB: 40-65 ms in 4 KiB pages, 23-31 ms in 2 MiB pages).
constexpr std::size_t kHugePage = std::size_t(2) << 20;

// PAIRHIST_PIN_BUDGET_MB (Settings::pin_budget_bytes) caps the bytes the hooks pin at once
// (beyond it columns stay pageable: transfers from them are slower and block their worker): for a
// node whose pinned memory is scarce, and for measuring what pinning the decoding threads' first
// buffers costs a run's start against what pinned transfers save.
std::size_t pin_budget() {
  static const std::size_t budget = static_cast<std::size_t>(
      std::min<uint64_t>(settings().pin_budget_bytes, static_cast<std::size_t>(-1)));
  return budget;
}

std::mutex pinned_mutex;
std::unordered_map<void*, std::size_t> pinned;  // what the hooks pinned, while a budget applies
std::size_t pinned_bytes = 0;

/// Whether `bytes` more may be pinned; counts them if so.
bool take_pin_budget(void* p, std::size_t bytes) {
  if (pin_budget() == static_cast<std::size_t>(-1)) return true;
  std::lock_guard<std::mutex> lock(pinned_mutex);
  if (pinned_bytes + bytes > pin_budget()) return false;
  pinned_bytes += bytes;
  pinned.emplace(p, bytes);
  return true;
}

void return_pin_budget(void* p) {
  if (pin_budget() == static_cast<std::size_t>(-1)) return;
  std::lock_guard<std::mutex> lock(pinned_mutex);
  const auto it = pinned.find(p);
  if (it == pinned.end()) return;
  pinned_bytes -= it->second;
  pinned.erase(it);
}

thread_local bool unpinned_here = false;  // an UnpinnedScope lives on this thread

/// Touches one byte per 4 KiB page (the allocator's contents are unspecified anyway). Fresh
/// memory is faulted in before it is pinned: pinning untouched pages faults them in while it
/// holds the process's address-space lock, and every other thread that maps memory or faults a
/// page (cudaMalloc, StarPU's transfers, the feeding thread) waits behind it. 12 sets of 130 MB
/// pinned while a W1 x16 run's GPUs took their first frames held those first tasks 0.3-0.8 s;
/// 130 MB of resident pages pins in ~10 ms (4x H200 host, bench_host_pinning).
void fault_in(void* p, std::size_t bytes) {
  auto* c = static_cast<volatile char*>(p);
  for (std::size_t i = 0; i < bytes; i += kPage) c[i] = 0;
}

std::size_t rounded(std::size_t bytes, std::size_t to) {
  return (std::max<std::size_t>(bytes, 1) + to - 1) / to * to;
}

}  // namespace

bool set_host_pinning(HostPinHook pin, HostUnpinHook unpin) {
  if (!pin || !unpin) return false;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (const Hooks* h = installed.load()) return h->pin == pin && h->unpin == unpin;
  installed.store(new Hooks{pin, unpin});
  return true;
}

bool host_pinning_installed() {
  return installed.load() != nullptr;
}

UnpinnedScope::UnpinnedScope() : outer_(unpinned_here) {
  unpinned_here = true;
}

UnpinnedScope::~UnpinnedScope() {
  unpinned_here = outer_;
}

namespace host_memory {

void* allocate(std::size_t bytes) {
  const Hooks* h = installed.load();
  const bool huge = h && bytes >= kHugePage;
  const std::size_t align = huge ? kHugePage : h ? kPage : kLine;
  if (bytes > static_cast<std::size_t>(-1) - align) throw std::bad_alloc();
  const std::size_t size = rounded(bytes, align);
  void* p = std::aligned_alloc(align, size);
  if (!p) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  if (huge) madvise(p, size, MADV_HUGEPAGE);  // advice only: 4 KiB pages work too
#endif
  // Unpinned memory works too, with slower transfers.
  if (h && !unpinned_here && take_pin_budget(p, size)) {
    fault_in(p, size);
    h->pin(p, size);
  }
  return p;
}

void deallocate(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (const Hooks* h = installed.load()) {
    return_pin_budget(p);
    h->unpin(p, rounded(bytes, kPage));
  }
  std::free(p);
}

}  // namespace host_memory
}  // namespace pairhist
