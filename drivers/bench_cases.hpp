// The standard benchmark workloads of DESIGN.md (K1..K6, F1-like), generated deterministically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pairhist/box_setup.hpp"

namespace pairhist {

struct BenchCase {
  std::string name;
  std::vector<int64_t> species_sizes;
  BoxMatrix box{};      // rows; zeros = no box
  double extent = 1.0;  // points uniform in [0, extent)^3
  double r_max = 0;
  int nbins = 0;
  int frames = 1;
};

/// The named case; n > 0 rescales its atoms (one species: N = n; several: sizes scaled so they
/// sum to about n). Throws UsageError for an unknown name.
BenchCase standard_case(const std::string& name, int64_t n);

/// Names of all standard cases, for --help.
std::vector<std::string> standard_case_names();

/// Coordinates of every species of frame `frame` as x,y,z triples (fixed seed per case/frame).
std::vector<std::vector<float>> case_coordinates(const BenchCase& c, int frame);

}  // namespace pairhist
