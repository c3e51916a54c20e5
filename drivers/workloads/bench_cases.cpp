#include "drivers/workloads/bench_cases.hpp"

#include <cmath>
#include <random>

#include "pairhist/errors.hpp"

namespace pairhist {

std::vector<std::string> standard_case_names() {
  return {"K1", "K2", "K3", "K4", "K5", "K6", "F1", "W1", "W1-T"};
}

namespace {

// W1 at its real scale: r_max and bins of a water RDF (nm), 10 frames of the NPT sample.
BenchCase liquid_case(const std::string& name, int64_t n, const LiquidSampleFiles& files) {
  BenchCase c;
  c.name = name;
  auto sample =
      std::make_shared<LiquidSample>(load_liquid_sample(name, find_liquid_sample(name, files)));
  c.liquid_species = liquid_species(sample->topology);
  c.replicas = replicas_for_atoms(n > 0 ? n : kLiquidDefaultAtoms, sample->natoms());
  replicated_atoms(*sample, c.replicas);  // refuses systems too large for one frame
  const int64_t images = int64_t(c.replicas) * c.replicas * c.replicas;
  for (const auto& s : c.liquid_species)
    c.species_sizes.push_back(images * static_cast<int64_t>(s.atoms.size()));
  c.liquid = std::move(sample);
  c.r_max = 1.2;
  c.nbins = 240;
  c.frames = 10;
  c.box = case_box(c, 0);
  return c;
}

}  // namespace

BenchCase standard_case(const std::string& name, int64_t n, const LiquidSampleFiles& sample) {
  if (is_liquid_case(name)) return liquid_case(name, n, sample);
  BenchCase c;
  c.name = name;
  c.nbins = 10000;
  c.r_max = std::sqrt(3.0);
  c.species_sizes = {1000000};
  if (name == "K1") {
  } else if (name == "K2") {
    c.box = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    c.r_max = std::sqrt(3.0) / 2;  // the farthest minimum image in a unit cube
  } else if (name == "K3") {
    c.box = rhombic_dodecahedron();
    c.r_max = 0.5;
  } else if (name == "K4") {
    c.species_sizes = {1000000, 1000000};
  } else if (name == "K5") {
    c.nbins = 100000;
  } else if (name == "K6") {
    c.species_sizes = {100000};
    c.frames = 100;
  } else if (name == "F1") {
    c.species_sizes = {150000, 60000, 30000, 20000, 10000, 6000, 3000, 900, 100};
    c.extent = 150.0;
    c.nbins = 8000;
    c.r_max = 300.0;
    c.frames = 200;
  } else {
    throw UsageError("unknown case '" + name + "' (K1..K6, F1, W1 or W1-T)");
  }
  if (n > 0) {
    int64_t total = 0;
    for (int64_t s : c.species_sizes) total += s;
    for (auto& s : c.species_sizes)
      s = std::max<int64_t>(1, static_cast<int64_t>(std::llround(double(s) * double(n) / total)));
  }
  return c;
}

std::vector<std::vector<float>> case_coordinates(const BenchCase& c, int frame) {
  if (c.liquid) {
    std::vector<std::vector<float>> out(c.liquid_species.size());
    for (size_t s = 0; s < out.size(); ++s)
      replicate_coordinates(c.liquid->frame(frame), c.replicas, &c.liquid_species[s].atoms, out[s]);
    return out;
  }
  std::mt19937_64 rng(0x9e3779b97f4a7c15ull ^ (std::hash<std::string>{}(c.name) + frame));
  std::uniform_real_distribution<double> u(0.0, c.extent);
  std::vector<std::vector<float>> out;
  for (int64_t n : c.species_sizes) {
    std::vector<float> xyz(static_cast<size_t>(3 * n));
    for (auto& v : xyz) v = static_cast<float>(u(rng));
    out.push_back(std::move(xyz));
  }
  return out;
}

BoxMatrix case_box(const BenchCase& c, int frame) {
  if (!c.liquid) return c.box;
  const auto box = replicated_box(c.liquid->frame(frame).box, c.replicas);
  BoxMatrix m{};
  for (size_t k = 0; k < 9; ++k) m[k] = box[k];
  return m;
}

}  // namespace pairhist
