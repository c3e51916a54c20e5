#include "analysis/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace pairhist::analysis {

void parallel_for_each(size_t n, unsigned threads, size_t min_per_thread,
                       const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  const auto worker = [&] {
    try {
      for (size_t i = next++; i < n; i = next++) work(i);
    } catch (...) {
      const std::lock_guard<std::mutex> hold(failure_lock);
      if (!failure) failure = std::current_exception();
      next = n;
    }
  };
  // hardware_concurrency() may say 0 (unknown).
  const size_t cores = threads > 0 ? threads : std::thread::hardware_concurrency();
  const size_t count = std::max<size_t>(
      1, std::min<size_t>(cores, (n + min_per_thread - 1) / std::max<size_t>(min_per_thread, 1)));
  std::vector<std::thread> workers;
  try {
    for (size_t t = 1; t < count; ++t) workers.emplace_back(worker);
  } catch (const std::system_error&) {
    // No more threads to be had: this one does the rest.
  }
  worker();
  for (std::thread& w : workers) w.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace pairhist::analysis
