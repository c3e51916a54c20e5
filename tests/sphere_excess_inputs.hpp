// Inputs of the sphere-excess tests (test_cli_scattering_sphere_excess.cpp and
// test_cli_scattering_sphere_centres.cpp): random points in spheres and shells written as XYZ
// frames, `run --sphere` of them, and the excess of two such runs read back.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/scattering_csv.hpp"
#include "tests/test_support.hpp"

namespace pairhist::test::sphere_excess {

constexpr double kPi = 3.14159265358979323846;

struct Atom {
  std::string name;
  double x, y, z;  // nm
};
using Frame = std::vector<Atom>;

/// A point uniform in the shell a <= r < b around the origin.
inline std::vector<double> shell_point(std::mt19937_64& rng, double a, double b) {
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> n(0, 1);
  const double r = std::cbrt(a * a * a + u(rng) * (b * b * b - a * a * a));
  double v[3] = {n(rng), n(rng), n(rng)};
  const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return {r * v[0] / len, r * v[1] / len, r * v[2] / len};
}

/// `count` water-like molecules (O, and two H 0.1 nm from it) with their O in the shell [a, b).
inline void add_waters(std::mt19937_64& rng, int count, double a, double b, Frame& out) {
  for (int i = 0; i < count; ++i) {
    const auto o = shell_point(rng, a, b);
    out.push_back({"O", o[0], o[1], o[2]});
    for (int h = 0; h < 2; ++h) {
      const auto d = shell_point(rng, 0.1, 0.1);
      out.push_back({"H", o[0] + d[0], o[1] + d[1], o[2] + d[2]});
    }
  }
}

inline int shell_count(double density, double a, double b) {
  return static_cast<int>(std::lround(density * 4 * kPi / 3 * (b * b * b - a * a * a)));
}

inline void write_xyz(const std::string& path, const std::vector<Frame>& frames) {
  std::string text;
  char line[128];
  for (const Frame& f : frames) {
    text += std::to_string(f.size()) + "\nframe\n";
    for (const Atom& a : f) {  // XYZ holds Angstrom
      std::snprintf(line, sizeof line, "%s %.6f %.6f %.6f\n", a.name.c_str(), 10 * a.x, 10 * a.y,
                    10 * a.z);
      text += line;
    }
  }
  pairhist::test::write_all(path, text);
}

inline void run_sphere(const std::string& xyz, const std::string& species,
                       const std::string& sphere, const std::string& out) {
  const auto r =
      pairhist_cmd("run " + shell_quote(xyz) + " --top " + shell_quote(xyz) + " " + species + " " +
                   sphere + " --precision double --ncpu 2 -q -o " + shell_quote(out));
  INFO(r.output);
  REQUIRE(r.status == 0);
}

inline std::map<std::string, std::vector<double>> excess_of(const std::string& solution,
                                                            const std::string& solvent,
                                                            const std::string& options,
                                                            std::string* comments = nullptr,
                                                            std::string* output = nullptr) {
  const auto r = pairhist_cmd("scattering " + shell_quote(solution) + " --subtract " +
                              shell_quote(solvent) + " --overwrite " + options);
  INFO(r.output);
  REQUIRE(r.status == 0);
  if (output != nullptr) *output = r.output;
  return pairhist::test::read_scattering_csv(solution + "/excess.csv", comments);
}

/// Largest |a - b| over 2 <= q <= 30, and largest |a| or |b| there.
inline void compare_range(const std::vector<double>& q, const std::vector<double>& a,
                          const std::vector<double>& b, double& diff, double& largest) {
  diff = largest = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] < 2 || q[i] > 30) continue;
    diff = std::max(diff, std::abs(a[i] - b[i]));
    largest = std::max({largest, std::abs(a[i]), std::abs(b[i])});
  }
}

/// The sphere of contrast: solvent points S (weight 1) at 30/nm^3; inside a = 0.8 nm the
/// solution has as many points P of weight 3 as the solvent has S there. Fixed numbers per
/// region in every frame.
struct Contrast {
  static constexpr double a = 0.8, radius = 1.2;
  int inside = shell_count(30, 0, a);
  int around = shell_count(30, a, radius + 0.1);
  std::vector<Frame> solution, solvent;

  Contrast(std::mt19937_64& rng, int frames) {
    for (int f = 0; f < frames; ++f) {
      Frame out, in_s, in_p;
      for (int i = 0; i < around; ++i) {
        const auto p = shell_point(rng, a, radius + 0.1);
        out.push_back({"S", p[0], p[1], p[2]});
      }
      for (int i = 0; i < inside; ++i) {
        const auto p = shell_point(rng, 0, a), s = shell_point(rng, 0, a);
        in_p.push_back({"P", p[0], p[1], p[2]});
        in_s.push_back({"S", s[0], s[1], s[2]});
      }
      solution.push_back(out);
      solution.back().insert(solution.back().end(), in_p.begin(), in_p.end());
      solvent.push_back(out);
      solvent.back().insert(solvent.back().end(), in_s.begin(), in_s.end());
    }
  }
};

/// Writes a solution of S and P and a solvent of S as XYZ with the weights S 1, P 3
/// (weights.txt), and runs both with --sphere 1.2 around the origin and `extra` options into
/// dir/solution`tag` and dir/solvent`tag`; the options for their excess with those weights.
inline std::string run_weighted_pair(const TempDir& dir, const std::vector<Frame>& solution,
                                     const std::vector<Frame>& solvent,
                                     const std::string& extra = "", const std::string& tag = "") {
  write_xyz(dir.file("solution.xyz"), solution);
  write_xyz(dir.file("solvent.xyz"), solvent);
  pairhist::test::write_all(dir.file("weights.txt"), "S 1\nP 3\n");
  const std::string sphere = "--sphere 1.2 --sphere-centre 0,0,0 " + extra;
  run_sphere(dir.file("solution.xyz"), "--species S=S --species P=P", sphere,
             dir.file("solution" + tag));
  run_sphere(dir.file("solvent.xyz"), "--species S=S", sphere, dir.file("solvent" + tag));
  return "--radiation neutron --table " + shell_quote(dir.file("weights.txt"));
}

}  // namespace pairhist::test::sphere_excess
