#include "bench_cases.hpp"

#include <cmath>
#include <random>

#include "pairhist/errors.hpp"

namespace pairhist {

std::vector<std::string> standard_case_names() {
  return {"K1", "K2", "K3", "K4", "K5", "K6", "F1"};
}

BenchCase standard_case(const std::string& name, int64_t n) {
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
    throw UsageError("unknown case '" + name + "' (K1..K6 or F1)");
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

}  // namespace pairhist
