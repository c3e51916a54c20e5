// A plain parallel loop over the cores, for the scattering sums after a run (when the cores are
// free): no StarPU, whose workers are gone by then.
#pragma once

#include <cstddef>
#include <functional>

namespace pairhist::analysis {

/// Calls work(i) for every i < n over up to `threads` threads (0: every core), each with at least
/// `min_per_thread` items; the calling thread is one of them. Items are handed out one at a time,
/// so work(i) must not depend on which thread runs it or in which order. The first exception
/// thrown stops the others from starting new items and is rethrown here.
void parallel_for_each(size_t n, unsigned threads, size_t min_per_thread,
                       const std::function<void(size_t)>& work);

}  // namespace pairhist::analysis
