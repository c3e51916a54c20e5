// Dynamic selections (`within R of SEL`, `around R SEL`): every frame's atoms against an
// all-pairs minimum-image check in double precision, on random boxes of every kind.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "analysis/selection.hpp"
#include "analysis/selection_within.hpp"
#include "pairhist/errors.hpp"

namespace {

using pairhist::BoxMatrix;
using namespace pairhist::analysis;

/// Minimum-image distance^2 of two atoms: every image within two lattice vectors (enough for the
/// boxes below, whose tilts are at most half a vector).
double brute_distance2(const std::vector<float>& xyz, int i, int j, const BoxMatrix& box) {
  double d[3];
  for (int c = 0; c < 3; ++c) d[c] = double(xyz[3 * j + c]) - double(xyz[3 * i + c]);
  const bool periodic = box[0] != 0;
  const int span = periodic ? 2 : 0;
  double best = INFINITY;
  for (int a = -span; a <= span; ++a)
    for (int b = -span; b <= span; ++b)
      for (int c = -span; c <= span; ++c) {
        double e[3];
        for (int x = 0; x < 3; ++x) e[x] = d[x] + a * box[x] + b * box[3 + x] + c * box[6 + x];
        best = std::min(best, e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
      }
  return best;
}

struct Frame {
  Topology top;
  std::vector<float> xyz;
  BoxMatrix box{};
};

/// n atoms named A, B or C at random, spread over a box (and up to a box length outside it, as
/// trajectories hold unwrapped atoms).
Frame random_frame(std::mt19937& rng, int n, int kind) {
  Frame f;
  std::uniform_real_distribution<double> u(0, 1);
  const double lx = 2 + 2 * u(rng), ly = 2 + 2 * u(rng), lz = 2 + 2 * u(rng);
  if (kind == 1) f.box = {lx, 0, 0, 0, ly, 0, 0, 0, lz};
  if (kind == 2)
    f.box = {lx, 0, 0, (u(rng) - 0.5) * lx, ly, 0, (u(rng) - 0.5) * lx, (u(rng) - 0.5) * ly, lz};
  std::vector<std::string> names, residues;
  std::vector<int> numbers;
  for (int i = 0; i < n; ++i) {
    const int k = static_cast<int>(u(rng) * 3);
    names.push_back(std::string(1, static_cast<char>('A' + k)));
    residues.push_back(k == 1 ? "ION" : "SOL");
    numbers.push_back(i + 1);
    for (int c = 0; c < 3; ++c)
      f.xyz.push_back(static_cast<float>((u(rng) * 1.6 - 0.3) * (c == 0 ? lx : c == 1 ? ly : lz)));
  }
  f.top.atom_names = NameColumn(names);
  f.top.residue_names = NameColumn(residues);
  f.top.residue_numbers = numbers;
  return f;
}

std::vector<int> brute_within(const Frame& f, const std::vector<char>& candidates,
                              const std::vector<char>& targets, double r, bool around) {
  std::vector<int> out;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i] || (around && targets[i])) continue;
    for (size_t j = 0; j < targets.size(); ++j)
      if (targets[j] &&
          brute_distance2(f.xyz, static_cast<int>(i), static_cast<int>(j), f.box) <= r * r) {
        out.push_back(static_cast<int>(i));
        break;
      }
  }
  return out;
}

std::vector<char> named(const Frame& f, const std::string& name) {
  std::vector<char> m;
  for (int i = 0; i < f.top.natoms(); ++i) m.push_back(f.top.atom_names[i] == name);
  return m;
}

}  // namespace

TEST_CASE("within and around match an all-pairs check on random boxes of every kind") {
  std::mt19937 rng(25);
  for (int kind = 0; kind < 3; ++kind)
    for (int trial = 0; trial < 6; ++trial) {
      CAPTURE(kind);
      CAPTURE(trial);
      const Frame f = random_frame(rng, 300 + 100 * trial, kind);
      const double r = 0.15 + 0.25 * trial;  // up to past half a box: images beyond the nearest
      const std::string rs = std::to_string(r);
      const std::vector<char> all(f.xyz.size() / 3, 1);
      const auto a = named(f, "A"), b = named(f, "B");
      std::vector<int> got;
      // Static and dynamic parts, nested dynamic targets, `not` over a distance.
      const Selection within =
          parse_selection(f.top, "name A and within " + rs + " of name B", "top");
      CHECK(within.dynamic());
      CHECK(within.superset().size() == static_cast<size_t>(std::count(a.begin(), a.end(), 1)));
      within.evaluate(f.xyz.data(), f.box, got);
      CHECK(got == brute_within(f, a, b, r, false));

      const Selection around = parse_selection(f.top, "around " + rs + " resname ION", "top");
      around.evaluate(f.xyz.data(), f.box, got);
      CHECK(got == brute_within(f, all, b, r, true));

      const Selection self = parse_selection(f.top, "within " + rs + " of name B", "top");
      self.evaluate(f.xyz.data(), f.box, got);
      CHECK(got == brute_within(f, all, b, r, false));

      const Selection outside =
          parse_selection(f.top, "name C and not within " + rs + " of name A", "top");
      outside.evaluate(f.xyz.data(), f.box, got);
      const auto c = named(f, "C");
      const auto near = brute_within(f, c, a, r, false);
      std::vector<int> expected;
      for (int i = 0; i < f.top.natoms(); ++i)
        if (c[i] && std::find(near.begin(), near.end(), i) == near.end()) expected.push_back(i);
      CHECK(got == expected);

      // Nested: A atoms near a B atom that is itself near a C atom.
      const Selection nested = parse_selection(
          f.top, "name A and within " + rs + " of (name B and within 0.3 of name C)", "top");
      nested.evaluate(f.xyz.data(), f.box, got);
      const auto near_c = brute_within(f, b, c, 0.3, false);
      std::vector<char> b_near_c(all.size(), 0);
      for (int i : near_c) b_near_c[i] = 1;
      CHECK(got == brute_within(f, a, b_near_c, r, false));
    }
}

TEST_CASE("the boundary belongs to within: distance == R is selected") {
  Topology top;
  top.atom_names = NameColumn(std::vector<std::string>{"A", "B", "B"});
  top.residue_names = NameColumn(std::vector<std::string>{"X", "X", "X"});
  top.residue_numbers = {1, 2, 3};
  // 0.5 and 0.25 are exact in float and double: A-B1 is exactly 0.5, A-B2 exactly 0.75 across the
  // boundary of a 2 nm box (image at 2 - 1.25 = 0.75).
  const std::vector<float> xyz = {0.25f, 0, 0, 0.75f, 0, 0, 1.5f, 0, 0};
  const BoxMatrix box = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  std::vector<int> got;
  parse_selection(top, "name A and within 0.5 of name B", "t").evaluate(xyz.data(), box, got);
  CHECK(got == std::vector<int>{0});
  parse_selection(top, "name A and within 0.49 of name B", "t").evaluate(xyz.data(), box, got);
  CHECK(got.empty());
  parse_selection(top, "around 0.75 index 1", "t").evaluate(xyz.data(), box, got);
  CHECK(got == std::vector<int>{1, 2});
  parse_selection(top, "around 0.74 index 1", "t").evaluate(xyz.data(), BoxMatrix{}, got);
  CHECK(got == std::vector<int>{1});
}

TEST_CASE("dynamic selections: superset, refusals, static commands") {
  Topology top;
  top.atom_names = NameColumn(std::vector<std::string>{"OW", "HW1", "NA"});
  top.residue_names = NameColumn(std::vector<std::string>{"SOL", "SOL", "NA"});
  top.residue_numbers = {1, 1, 2};
  CHECK(parse_selection(top, "name OW or within 1 of resname NA", "t").superset() ==
        std::vector<int>{0, 1, 2});
  CHECK(parse_selection(top, "not (name NA or around 1 name OW)", "t").superset() ==
        std::vector<int>{0, 1});
  CHECK_FALSE(parse_selection(top, "name OW", "t").dynamic());
  CHECK_THROWS_AS(select_atoms(top, "name OW and within 0.5 of name NA", "t"),
                  pairhist::UsageError);
  CHECK_THROWS_AS(parse_selection(top, "within 0.5 name NA", "t"), pairhist::UsageError);
  CHECK_THROWS_AS(parse_selection(top, "within -1 of name NA", "t"), pairhist::UsageError);
  CHECK_THROWS_AS(parse_selection(top, "around x name NA", "t"), pairhist::UsageError);
  CHECK_THROWS_AS(parse_selection(top, "name OW and within 0.5 of", "t"), pairhist::UsageError);
}

TEST_CASE("within over 1e5 atoms uses the grid: a dense frame is quick and right") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 10);
  const int n = 100000;
  std::vector<float> xyz;
  for (int i = 0; i < 3 * n; ++i) xyz.push_back(static_cast<float>(u(rng)));
  const BoxMatrix box = {10, 0, 0, 1, 10, 0, -2, 3, 10};
  std::vector<int> targets, candidates;
  for (int i = 0; i < n; ++i) (i % 100 == 0 ? targets : candidates).push_back(i);
  std::vector<char> hit(n, 0);
  mark_within(xyz.data(), box, targets, candidates, 0.5, hit);
  // A sample of the candidates against all pairs.
  Frame f;
  f.xyz = xyz;
  f.box = box;
  for (int k = 0; k < 2000; ++k) {
    const int i = candidates[static_cast<size_t>(k) * 37 % candidates.size()];
    bool near = false;
    for (int t : targets) near = near || brute_distance2(xyz, i, t, box) <= 0.25;
    CHECK(bool(hit[i]) == near);
  }
}

TEST_CASE("a non-finite coordinate that a distance needs is refused, naming the atom") {
  Topology top;
  top.atom_names = NameColumn(std::vector<std::string>{"A", "B", "C"});
  top.residue_names = NameColumn(std::vector<std::string>{"X", "X", "X"});
  top.residue_numbers = {1, 2, 3};
  const std::vector<float> xyz = {0, 0, 0, NAN, 0, 0, 1, 1, 1};
  const BoxMatrix box = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  std::vector<int> got;
  const Selection s = parse_selection(top, "name A and within 0.5 of name B", "t");
  CHECK_THROWS_WITH_AS(s.evaluate(xyz.data(), box, got), doctest::Contains("atom 2"),
                       std::domain_error);
  // An atom no distance looks at may be anything.
  parse_selection(top, "name A and within 0.5 of name C", "t").evaluate(xyz.data(), box, got);
  CHECK(got.empty());
}
