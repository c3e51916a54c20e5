// The yardstick the CPU kernel is measured against: the plain loop anyone would write first.
#pragma once

#include <cstdint>

namespace pairhist {

/// Same-species histogram of n points (x,y,z triples), no box: float distance, sqrt,
/// histogram++ — single thread, no blocking, no SIMD by hand.
void plain_loop_histogram(const float* xyz, int64_t n, float r_max, int nbins, uint64_t* hist);

}  // namespace pairhist
