#include "analysis/selection_match.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <thread>

#include "pairhist/host_cores.hpp"

namespace pairhist::analysis {
namespace {

/// Runs f(begin, end) over [0, n) in stretches, one thread each where n is large.
template <class F>
void for_stretches(size_t n, F&& f) {
  constexpr size_t kMinStretch = size_t{1} << 18;
  const size_t threads =
      std::clamp<size_t>(n / kMinStretch, 1, static_cast<size_t>(usable_cores()));
  std::vector<std::thread> pool;
  const size_t step = (n + threads - 1) / threads;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back([&, t] { f(std::min(n, t * step), std::min(n, (t + 1) * step)); });
  f(0, std::min(n, step));
  for (std::thread& t : pool) t.join();
}

}  // namespace

AtomMask match_names(const NameColumn& values, const std::vector<std::string>& patterns,
                     int flags) {
  std::vector<char> verdict(values.distinct().size(), 0);
  for (size_t k = 0; k < verdict.size(); ++k)
    for (const auto& p : patterns)
      if (fnmatch(p.c_str(), values.distinct()[k].c_str(), flags) == 0) {
        verdict[k] = 1;
        break;
      }
  AtomMask m(values.size(), 0);
  const NameColumn::Id* ids = values.ids().data();
  for_stretches(values.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) m[i] = verdict[ids[i]];
  });
  return m;
}

AtomMask match_values(const std::vector<float>& values,
                      const std::vector<std::pair<double, double>>& ranges) {
  AtomMask m(values.size(), 0);
  for (size_t i = 0; i < values.size(); ++i)
    for (const auto& [lo, hi] : ranges)
      if (values[i] >= lo && values[i] <= hi) m[i] = 1;
  return m;
}

}  // namespace pairhist::analysis
