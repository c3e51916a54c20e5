// Fresh random inputs for the kernel tests: every run draws a new seed and prints it, so a
// failure can be replayed with PAIRHIST_TEST_SEED.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "pairhist/box_setup.hpp"

namespace pairhist::test {

inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    const char* env = std::getenv("PAIRHIST_TEST_SEED");
    const uint64_t s = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("random seed %llu (replay with PAIRHIST_TEST_SEED=%llu)\n",
                static_cast<unsigned long long>(s), static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 engine(test_seed());
  return engine;
}

/// n points as x,y,z triples, uniform in [lo, hi)^3.
inline std::vector<double> random_points(int64_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> p(static_cast<size_t>(3 * n));
  for (auto& v : p) v = u(rng());
  return p;
}

/// Converts triples to the kernels' structure-of-arrays layout, rounded to T.
template <class T>
std::vector<T> to_soa(const std::vector<double>& xyz) {
  const size_t n = xyz.size() / 3;
  std::vector<T> soa(xyz.size());
  for (size_t i = 0; i < n; ++i)
    for (size_t c = 0; c < 3; ++c) soa[c * n + i] = static_cast<T>(xyz[3 * i + c]);
  return soa;
}

/// Orthorhombic box with sides in [lo, hi).
inline BoxMatrix random_orthorhombic(double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  return {u(rng()), 0, 0, 0, u(rng()), 0, 0, 0, u(rng())};
}

/// Triclinic box in GROMACS's reduced form: |bx|, |cx| <= ax/2, |cy| <= by/2.
inline BoxMatrix random_triclinic(double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi), f(-0.5, 0.5);
  const double ax = u(rng()), by = u(rng()), cz = u(rng());
  return {ax, 0, 0, f(rng()) * ax, by, 0, f(rng()) * ax, f(rng()) * by, cz};
}

/// The rhombic dodecahedron of DESIGN.md's K3 case, side 1 (box_setup.hpp).
using pairhist::rhombic_dodecahedron;

}  // namespace pairhist::test
