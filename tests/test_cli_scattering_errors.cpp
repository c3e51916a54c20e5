// Errors from interval blocks and the periodic default of scattering, end to end on fresh random
// frames: rdf.csv's nerr, I(q)'s and S(q)'s errors against a brute force in float64 over the
// blocks' histograms read from pairhist.h5 (each block's Debye sum and structure factor computed
// here from its counts), the excess's errors in quadrature; periodic runs write S(q) unless the
// cut-sphere I(q) is asked for, runs without a box their intensity.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "io/results/histogram_result_reader.hpp"
#include "tests/scattering_csv.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::HistogramResult;
using pairhist::IntervalBlock;
using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::read_scattering_csv;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;

constexpr double kPi = 3.14159265358979323846;

/// `frames` frames of 12 O and 9 C atoms at random in a cube of random edge (about 1.9 nm,
/// NPT-like), as a multi-frame GRO; `box`: false writes no box (a cluster; edge 0).
std::string random_gro(std::mt19937_64& rng, int frames, bool box = true) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::string text;
  char line[128];
  for (int f = 0; f < frames; ++f) {
    const double edge = 1.85 + 0.1 * unit(rng);
    text += "random t= " + std::to_string(f) + ".0\n21\n";
    for (int i = 0; i < 21; ++i) {
      std::snprintf(line, sizeof line, "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", i + 1, "X",
                    i < 12 ? "O" : "C", i + 1, edge * unit(rng), edge * unit(rng),
                    edge * unit(rng));
      text += line;
    }
    std::snprintf(line, sizeof line, "%10.5f%10.5f%10.5f\n", box ? edge : 0.0, box ? edge : 0.0,
                  box ? edge : 0.0);
    text += line;
  }
  return text;
}

std::string run_args(const std::string& gro, const std::string& out, const std::string& extra,
                     const std::string& r_max = "0.9") {
  return "run " + shell_quote(gro) + " --top " + shell_quote(gro) +
         " --species O=O --species C=C --rmax " + r_max + " --nbins 30 --ncpu 2 -q -o " +
         shell_quote(out) + " " + extra;
}

double sinc(double x) {
  return x == 0 ? 1.0 : std::sin(x) / x;
}

double standard_error(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  double mean = 0, var = 0;
  for (double x : v) mean += x / n;
  for (double x : v) var += (x - mean) * (x - mean) / (n - 1);
  return std::sqrt(var / n);
}

/// One block's curves from its counts alone: [0] the total, [1 + p] pair p's partial (Debye
/// I(q) with bins at their centres, or with `structure` S(q) without a window), at q index iq.
std::vector<double> block_curves(const HistogramResult& res, const IntervalBlock& b,
                                 const std::vector<std::vector<double>>& f, double q, size_t iq,
                                 bool structure) {
  const double frames = static_cast<double>(b.frame_end - b.frame_begin);
  const double dr = res.r_max / res.nbins;
  double inv_v = 0;
  for (size_t i = b.frame_begin; i < b.frame_end; ++i) inv_v += 1 / res.volumes[i] / frames;
  double atoms = 0, mean_f = 0;
  for (const auto& s : res.species) atoms += static_cast<double>(s.count);
  for (size_t s = 0; s < res.species.size(); ++s)
    mean_f += static_cast<double>(res.species[s].count) / atoms * f[s][iq];
  std::vector<double> out(1 + res.pairs.size(), 0.0);
  double big_f = 0;
  for (size_t p = 0; p < res.pairs.size(); ++p) {
    const auto& pair = res.pairs[p];
    const double na = static_cast<double>(res.species[pair.a].count);
    const double nb = static_cast<double>(res.species[pair.b].count);
    const double fa = f[pair.a][iq], fb = f[pair.b][iq];
    double sum = 0;
    for (int k = 0; k < res.nbins; ++k) {
      const double lo = k * dr, hi = (k + 1) * dr, c = (k + 0.5) * dr;
      const double h = static_cast<double>(b.counts[p][static_cast<size_t>(k)]);
      if (!structure) {
        sum += h * sinc(q * c);
        continue;
      }
      const double shell = 4.0 / 3.0 * kPi * (hi * hi * hi - lo * lo * lo);
      const double npairs = pair.a == pair.b ? na * (na - 1) / 2 : na * nb;
      const double g = h / frames / (npairs * shell * inv_v);
      sum += shell * (g - 1) * sinc(q * c);
    }
    if (structure) {
      const double s_ab = 1 + atoms * inv_v * sum;
      out[1 + p] = s_ab;
      big_f += (pair.a == pair.b ? 1 : 2) * na * nb / (atoms * atoms) * fa * fb * (s_ab - 1);
    } else {
      out[1 + p] = 2 * fa * fb * sum / frames + (pair.a == pair.b ? na * fa * fa : 0);
      out[0] += out[1 + p];
    }
  }
  if (structure) out[0] = 1 + big_f / (mean_f * mean_f);
  return out;
}

/// Checks `csv`'s error columns (<total>err, <total>err_A-B) against the standard error of the
/// blocks' curves computed here, at every q.
void check_errors(const std::string& csv, const std::string& run, const std::string& total,
                  bool structure) {
  const HistogramResult res = pairhist::io::read_histogram_result(run).result;
  REQUIRE(res.intervals.size() == 4);  // 14 frames in blocks of 4: 4, 4, 4, 2
  auto cols = read_scattering_csv(csv);
  const std::vector<std::vector<double>> f = {cols.at("f_O"), cols.at("f_C")};
  const std::vector<std::string> names = {total, total + "_O-O", total + "_O-C", total + "_C-C"};
  const std::vector<double>& q = cols.at("q_per_nm");
  for (size_t iq = 0; iq < q.size(); ++iq) {
    std::vector<std::vector<double>> per_curve(names.size());
    for (const IntervalBlock& b : res.intervals) {
      const std::vector<double> c = block_curves(res, b, f, q[iq], iq, structure);
      for (size_t i = 0; i < c.size(); ++i) per_curve[i].push_back(c[i]);
    }
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string err = total + "err" + names[i].substr(total.size());
      CAPTURE(err);
      CAPTURE(q[iq]);
      CHECK(cols.at(err)[iq] ==
            doctest::Approx(standard_error(per_curve[i])).epsilon(1e-7).scale(1e-9));
    }
  }
}

}  // namespace

TEST_CASE("errors of g(r), n(r), I(q) and S(q): the standard errors of the blocks' own curves") {
  TempDir dir("scattering-errors");
  std::mt19937_64 rng(std::random_device{}());
  pairhist::test::write_all(dir.file("t.gro"), random_gro(rng, 14));
  const std::string run = dir.file("run");
  const std::string grid = " --element O=O --element C=C --within-bin centre --nq 26";
  auto r = pairhist_cmd(
      run_args(dir.file("t.gro"), run,
               "--interval 4 --scattering xray --cut-sphere-intensity --window none" + grid));
  INFO(r.output);
  REQUIRE(r.status == 0);
  check_errors(run + "/intensity.csv", run, "I", false);
  check_errors(run + "/sq.csv", run, "S", true);

  // rdf.csv: nerr_A-B (and gerr_A-B) from the blocks' n(r) and g(r).
  const HistogramResult res = pairhist::io::read_histogram_result(run).result;
  auto rdf = read_scattering_csv(run + "/rdf.csv");  // the same CSV shape: names, then rows
  for (size_t p = 0; p < res.pairs.size(); ++p) {
    const auto& pair = res.pairs[p];
    const std::string label = res.species[pair.a].name + "-" + res.species[pair.b].name;
    const double na = static_cast<double>(res.species[pair.a].count);
    std::vector<std::vector<double>> n(static_cast<size_t>(res.nbins));
    for (const IntervalBlock& b : res.intervals) {
      double cumulative = 0;
      for (int k = 0; k < res.nbins; ++k) {
        cumulative += static_cast<double>(b.counts[p][static_cast<size_t>(k)]);
        n[k].push_back((pair.a == pair.b ? 2 : 1) * cumulative /
                       (static_cast<double>(b.frame_end - b.frame_begin) * na));
      }
    }
    for (int k = 0; k < res.nbins; ++k) {
      CAPTURE(label);
      CHECK(rdf.at("nerr_" + label)[k] ==
            doctest::Approx(standard_error(n[k])).epsilon(1e-7).scale(1e-9));
    }
  }

  // `pairhist scattering` computes the same errors from pairhist.h5's blocks: the same bytes.
  r = pairhist_cmd("scattering " + shell_quote(run) + " -o " + shell_quote(dir.file("again")) +
                   grid + " --window none");
  REQUIRE(r.status == 0);
  CHECK(pairhist::test::read_all(dir.file("again/sq.csv")) ==
        pairhist::test::read_all(run + "/sq.csv"));
  CHECK(contains(r.output, "writing the structure factor S(q)"));

  // An excess of two independent runs: their errors in quadrature; a partial the solvent lacks
  // keeps the solution's error.
  pairhist::test::write_all(dir.file("s.gro"), random_gro(rng, 10));
  r = pairhist_cmd("run " + shell_quote(dir.file("s.gro")) + " --top " +
                   shell_quote(dir.file("s.gro")) +
                   " --species O=O --rmax 0.9 --nbins 30 --ncpu 2 -q --interval 3 -o " +
                   shell_quote(dir.file("solvent")));
  REQUIRE(r.status == 0);
  r = pairhist_cmd("scattering " + shell_quote(dir.file("solvent")) +
                   " --element O=O --within-bin centre --nq 26 --cut-sphere-intensity");
  REQUIRE(r.status == 0);
  r = pairhist_cmd("scattering " + shell_quote(run) + " --subtract " +
                   shell_quote(dir.file("solvent")) + grid);
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto excess = read_scattering_csv(run + "/excess.csv");
  auto solution = read_scattering_csv(run + "/intensity.csv");
  auto solvent = read_scattering_csv(dir.file("solvent/intensity.csv"));
  for (size_t iq = 0; iq < excess.at("q_per_nm").size(); ++iq) {
    CHECK(excess.at("dIerr")[iq] ==
          doctest::Approx(std::hypot(solution.at("Ierr")[iq], solvent.at("Ierr")[iq])));
    CHECK(excess.at("dIerr_O-O")[iq] ==
          doctest::Approx(std::hypot(solution.at("Ierr_O-O")[iq], solvent.at("Ierr_O-O")[iq])));
    CHECK(excess.at("dIerr_O-C")[iq] == doctest::Approx(solution.at("Ierr_O-C")[iq]));
  }
}

TEST_CASE("periodic runs write S(q) unless the cut-sphere I(q) is asked for; clusters I(q)") {
  TempDir dir("scattering-default");
  std::mt19937_64 rng(std::random_device{}());
  pairhist::test::write_all(dir.file("t.gro"), random_gro(rng, 3));
  const std::string elements = " --element O=O --element C=C --nq 11";
  // run --scattering on a periodic box: sq.* only, no error columns (one block).
  auto r = pairhist_cmd(run_args(dir.file("t.gro"), dir.file("p"), "--scattering xray" + elements));
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(std::filesystem::exists(dir.file("p/sq.csv")));
  CHECK(std::filesystem::exists(dir.file("p/sq.h5")));
  CHECK_FALSE(std::filesystem::exists(dir.file("p/intensity.csv")));
  std::string comments;
  auto sq = read_scattering_csv(dir.file("p/sq.csv"), &comments);
  CHECK(sq.count("S") == 1);
  CHECK(sq.count("Serr") == 0);
  CHECK(contains(comments, "# reliable range: q >= 2 pi / r_max = 6.981317008 1/nm"));
  CHECK_FALSE(contains(pairhist::test::read_all(dir.file("p/rdf.csv")), "err_"));

  // `pairhist scattering` likewise; the cut-sphere intensity only when asked for.
  r = pairhist_cmd("scattering " + shell_quote(dir.file("p")) + " -o " +
                   shell_quote(dir.file("c")) + elements);
  REQUIRE(r.status == 0);
  CHECK(std::filesystem::exists(dir.file("c/sq.csv")));
  CHECK_FALSE(std::filesystem::exists(dir.file("c/intensity.csv")));
  r = pairhist_cmd("scattering " + shell_quote(dir.file("p")) + " -o " +
                   shell_quote(dir.file("c")) + elements + " --cut-sphere-intensity");
  REQUIRE(r.status == 0);
  CHECK(std::filesystem::exists(dir.file("c/intensity.csv")));
  r = pairhist_cmd(run_args(dir.file("t.gro"), dir.file("both"),
                            "--scattering xray --cut-sphere-intensity" + elements));
  REQUIRE(r.status == 0);
  CHECK(std::filesystem::exists(dir.file("both/sq.csv")));
  CHECK(std::filesystem::exists(dir.file("both/intensity.csv")));

  // Usage errors: one line, exit 2, nothing written.
  const std::string bad[][2] = {
      {" --cut-sphere-intensity --structure-factor", "excludes"},
      {" --cut-sphere-intensity --window none", "--window applies to the structure factor only"},
      {" --subtract " + shell_quote(dir.file("p")) + " --cut-sphere-intensity",
       "--cut-sphere-intensity chooses a run's own intensity"},
  };
  for (const auto& [args, expect] : bad) {
    CAPTURE(args);
    r = pairhist_cmd("scattering " + shell_quote(dir.file("p")) + " -o " +
                     shell_quote(dir.file("bad")) + elements + args);
    CHECK(r.status == 2);
    CHECK(contains(r.output, expect));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(dir.file("bad")));
  }

  // Without a box: the Debye intensity, as before, and no reliable range.
  pairhist::test::write_all(dir.file("cluster.gro"), random_gro(rng, 2, false));
  r = pairhist_cmd(
      run_args(dir.file("cluster.gro"), dir.file("k"), "--scattering xray" + elements, "5"));
  REQUIRE(r.status == 0);
  CHECK(std::filesystem::exists(dir.file("k/intensity.csv")));
  CHECK_FALSE(std::filesystem::exists(dir.file("k/sq.csv")));
  comments.clear();
  read_scattering_csv(dir.file("k/intensity.csv"), &comments);
  CHECK_FALSE(contains(comments, "reliable range"));
}
