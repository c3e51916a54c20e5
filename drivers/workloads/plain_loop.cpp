#include "drivers/workloads/plain_loop.hpp"

#include <cmath>

namespace pairhist {

void plain_loop_histogram(const float* xyz, int64_t n, float r_max, int nbins, uint64_t* hist) {
  const float scale = static_cast<float>(nbins) / r_max;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      const float dx = xyz[3 * j] - xyz[3 * i];
      const float dy = xyz[3 * j + 1] - xyz[3 * i + 1];
      const float dz = xyz[3 * j + 2] - xyz[3 * i + 2];
      const int k = static_cast<int>(std::sqrt(dx * dx + dy * dy + dz * dz) * scale);
      if (k < nbins) ++hist[k];
    }
  }
}

}  // namespace pairhist
