// The standard benchmark workloads of DESIGN.md (K1..K6, F1-like), generated deterministically,
// and the real-liquid W1 cases (a bundled sample replicated, see replicated_liquid.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "drivers/workloads/replicated_liquid.hpp"
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
  // W1, W1-T: the sample, replicated `replicas` times along each lattice vector; species O and H
  // (liquid_species). Every frame then has its own coordinates and box (case_box), and `box`
  // above is frame 0's. Null for the random-point cases, whose box is the same in every frame.
  std::shared_ptr<const LiquidSample> liquid;
  std::vector<LiquidSpecies> liquid_species;
  int replicas = 0;
};

/// The named case; n > 0 rescales its atoms (one species: N = n; several: sizes scaled so they
/// sum to about n; W1: round(cbrt(n / sample atoms)) replicas per direction, about 1.4e6 atoms
/// when n = 0). W1 and W1-T read their sample from `sample` (find_liquid_sample's defaults when
/// empty). Throws UsageError for an unknown name, InputError for an unreadable sample.
BenchCase standard_case(const std::string& name, int64_t n, const LiquidSampleFiles& sample = {});

/// Names of all standard cases, for --help.
std::vector<std::string> standard_case_names();

/// Coordinates of every species of frame `frame` as x,y,z triples (fixed seed per case/frame;
/// W1: sample frame `frame` modulo the sample's count, replicated, replica-major per species).
std::vector<std::vector<float>> case_coordinates(const BenchCase& c, int frame);

/// The box of frame `frame`: `box` for the random cases, the replicated sample box for W1.
BoxMatrix case_box(const BenchCase& c, int frame);

}  // namespace pairhist
