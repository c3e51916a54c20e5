// The precision a run counts in, and the one place that turns it into the coordinate type the
// kernels are instantiated with.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace pairhist {

enum class Precision : int { single = 0, double_ = 1 };

/// A precision as a type, what dispatch_precision hands its function: `typename
/// decltype(precision)::type` is the coordinate type (float or double).
template <class T>
struct PrecisionTag {
  using type = T;
};

/// Calls f(PrecisionTag<T>{}) with T = float for single and double for double_ precision and
/// returns what f returns. A value outside Precision throws std::invalid_argument. Call it once
/// per task or frame, outside the loops over atoms and pairs.
template <class F>
decltype(auto) dispatch_precision(Precision precision, F&& f) {
  switch (precision) {
    case Precision::single:
      return std::forward<F>(f)(PrecisionTag<float>{});
    case Precision::double_:
      return std::forward<F>(f)(PrecisionTag<double>{});
  }
  throw std::invalid_argument("unknown precision " + std::to_string(static_cast<int>(precision)));
}

}  // namespace pairhist
