// Overlapping species and same-residue exclusions, end to end through a trajectory job, against
// a brute force over only the pairs that count: random coordinates and residues, every box kind,
// both precisions, interval blocks. Counts must agree exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "analysis/exclusions.hpp"
#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "io/xtc/xtc_writer.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/periodic_images.hpp"
#include "tests/random_points.hpp"
#include "tests/test_support.hpp"

using namespace pairhist;

namespace {

/// Atoms in residues of 1 to 6 atoms. Residue r has number r % 5 + 1 and name R<r % 3>, so
/// neighbouring residues always differ while residues far apart share number and name: only
/// the run rule of analysis::residue_of_atoms() tells those apart.
struct System {
  std::vector<int> residue;  // the generating residue of every atom
  std::vector<int> numbers;
  std::vector<std::string> names;
  int natoms() const { return static_cast<int>(residue.size()); }
};

System make_system(int natoms) {
  System s;
  std::uniform_int_distribution<int> length(1, 6);
  for (int r = 0; s.natoms() < natoms; ++r)
    for (int k = length(test::rng()); k > 0 && s.natoms() < natoms; --k) {
      s.residue.push_back(r);
      s.numbers.push_back(r % 5 + 1);
      s.names.push_back("R" + std::to_string(r % 3));
    }
  return s;
}

void write_gro(const std::string& path, const System& s) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fprintf(f, "random residues\n%5d\n", s.natoms());
  for (int i = 0; i < s.natoms(); ++i)
    std::fprintf(f, "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", s.numbers[i], s.names[i].c_str(), "X", i + 1,
                 0.0, 0.0, 0.0);
  std::fprintf(f, "   0.00000   0.00000   0.00000\n");
  REQUIRE(std::fclose(f) == 0);
}

constexpr double kRmax = 0.8;  // below half of every box's shortest lattice vector (>= 2 nm)
constexpr int kBins = 40;      // bins of 0.02 nm: a whole number of XTC steps (0.001 nm)

/// Writes `frames` random frames of the given box kind. The second atom of every residue sits a
/// whole number of bins from the first along x, so its distance is a bin edge up to rounding:
/// which side it lands on depends on every rounding of the arithmetic, and only the kernels' own
/// arithmetic reproduces their bin. Coordinates are whole XTC steps, so the file keeps them.
void write_xtc(const std::string& path, const System& sys, int frames, BoxKind kind) {
  io::XtcWriter w(path, sys.natoms());
  std::uniform_int_distribution<int> bins(1, kBins - 1);
  for (int t = 0; t < frames; ++t) {
    BoxMatrix box{};
    if (kind == BoxKind::orthorhombic) box = test::random_orthorhombic(2.0, 2.2);
    if (kind == BoxKind::triclinic) box = test::random_triclinic(2.0, 2.2);
    REQUIRE(kRmax <= max_minimum_image_rmax(box));
    io::TrajectoryFrame f;
    f.step = t;
    f.time = t;
    for (int i = 0; i < 9; ++i) f.box[i] = static_cast<float>(box[i]);
    // Outside the box as well, so the minimum image has work to do.
    auto p = kind == BoxKind::none ? test::random_points(sys.natoms(), 0.0, 2.0)
                                   : test::random_points(sys.natoms(), -1.0, 3.0);
    for (auto& v : p) v = std::round(v * 1000);  // in XTC steps
    for (int i = 1; i < sys.natoms(); ++i)
      if (sys.residue[i] == sys.residue[i - 1] && (i < 2 || sys.residue[i - 2] != sys.residue[i])) {
        p[3 * i] = p[3 * (i - 1)] + 20 * bins(test::rng());
        p[3 * i + 1] = p[3 * (i - 1) + 1];
        p[3 * i + 2] = p[3 * (i - 1) + 2];
      }
    for (double v : p) f.xyz.push_back(static_cast<float>(v / 1000));
    w.write(f);
  }
  w.close();
}

std::vector<int> range(int first, int last) {  // 0-based, inclusive
  std::vector<int> v;
  for (int i = first; i <= last; ++i) v.push_back(i);
  return v;
}

struct Reference {
  std::vector<std::vector<std::vector<uint64_t>>> per_frame;  // [frame][pair][bin]
  std::vector<uint64_t> counted, excluded, shared;            // per frame, per pair
};

/// Every pair the histograms should hold, one at a time through the kernels' plain reference
/// loop (so each bin is the kernels' bin), skipping self pairs and, if asked, same-residue pairs.
template <class T>
Reference brute_force(const std::string& xtc, const std::vector<std::vector<int>>& species,
                      const System& sys, bool exclude, BoxKind kind, double r_max, int nbins) {
  Reference ref;
  const auto pairs = species_pairs(static_cast<int>(species.size()));
  ref.counted.assign(pairs.size(), 0);
  ref.excluded.assign(pairs.size(), 0);
  ref.shared.assign(pairs.size(), 0);
  auto reader = io::open_trajectory(xtc);
  io::TrajectoryFrame frame;
  for (int t = 0; reader->next(frame); ++t) {
    BoxMatrix box;
    for (int i = 0; i < 9; ++i) box[i] = frame.box[i];
    const HistogramParams<T> p = make_params<T>(box, kind, r_max, nbins);
    auto at = [&](int atom) {
      std::vector<T> soa(3);
      for (int c = 0; c < 3; ++c) soa[c] = static_cast<T>(frame.xyz[3 * atom + c]);
      return soa;
    };
    ref.per_frame.emplace_back();
    for (size_t q = 0; q < pairs.size(); ++q) {
      const auto& A = species[pairs[q].first];
      const auto& B = species[pairs[q].second];
      const bool same = pairs[q].first == pairs[q].second;
      std::vector<uint64_t> h(nbins, 0);
      uint64_t counted = 0, excluded = 0, shared = 0;
      for (size_t i = 0; i < A.size(); ++i)
        for (size_t j = same ? i + 1 : 0; j < B.size(); ++j) {
          const int a = A[i], b = B[j];
          if (a == b) {
            ++shared;
            continue;
          }
          if (exclude && sys.residue[a] == sys.residue[b]) {
            ++excluded;
            continue;
          }
          ++counted;
          const auto xa = at(a), xb = at(b);
          cpu::pair_histogram_reference(cpu::Coords<T>{xa.data(), 1}, cpu::Coords<T>{xb.data(), 1},
                                        false, p, h.data());
        }
      ref.per_frame.back().push_back(h);
      if (t == 0) {
        ref.counted[q] = counted;
        ref.excluded[q] = excluded;
        ref.shared[q] = shared;
      }
    }
  }
  return ref;
}

std::vector<uint64_t> sum_frames(const Reference& ref, size_t pair, size_t begin, size_t end) {
  std::vector<uint64_t> s(ref.per_frame[0][pair].size(), 0);
  for (size_t t = begin; t < end; ++t)
    for (size_t k = 0; k < s.size(); ++k) s[k] += ref.per_frame[t][pair][k];
  return s;
}

void check_job(BoxKind kind, Precision precision, bool exclude) {
  const std::string box = box_kind_name(kind);
  CAPTURE(box);
  CAPTURE(precision == Precision::single);
  CAPTURE(exclude);
  test::TempDir dir("exclusions");
  const int natoms = 240, frames = 3, nbins = kBins;
  const double r_max = kRmax;
  const System sys = make_system(natoms);
  write_gro(dir.file("top.gro"), sys);
  write_xtc(dir.file("traj.xtc"), sys, frames, kind);

  // A and B share atoms 101-150; C lies inside A (50-60) and inside B (230-240).
  JobOptions o;
  o.trajectory = dir.file("traj.xtc");
  o.topology = dir.file("top.gro");
  o.species = {parse_species("A=index 1-150"), parse_species("B=index 101-240"),
               parse_species("C=index 50-60 230-240")};
  const std::vector<std::vector<int>> atoms = {range(0, 149), range(100, 239), [] {
                                                 auto v = range(49, 59);
                                                 auto w = range(229, 239);
                                                 v.insert(v.end(), w.begin(), w.end());
                                                 return v;
                                               }()};
  o.r_max = r_max;
  o.nbins = nbins;
  o.precision = precision;
  o.exclude = exclude ? "residue" : "none";
  o.interval = 2;  // blocks of 2 and 1 frames
  o.ncpu = 2;
  o.ncuda = 0;
  const JobOutcome out = run_trajectory_job(o);
  const HistogramResult& r = out.result;

  const Reference ref =
      precision == Precision::single
          ? brute_force<float>(o.trajectory, atoms, sys, exclude, kind, r_max, nbins)
          : brute_force<double>(o.trajectory, atoms, sys, exclude, kind, r_max, nbins);
  REQUIRE(r.pairs.size() == 6);
  REQUIRE(r.intervals.size() == 2);
  uint64_t examined = 0;
  for (size_t q = 0; q < r.pairs.size(); ++q) {
    CAPTURE(q);
    const PairHistogram& h = r.pairs[q];
    CHECK(h.shared_atoms == ref.shared[q]);
    CHECK(h.excluded_pairs == ref.excluded[q]);
    CHECK(r.pairs_per_frame(h) == ref.counted[q]);
    CHECK(h.counts == sum_frames(ref, q, 0, frames));
    CHECK(r.intervals[0].counts[q] == sum_frames(ref, q, 0, 2));
    CHECK(r.intervals[1].counts[q] == sum_frames(ref, q, 2, 3));
    examined += ref.counted[q] * frames;
  }
  CHECK(out.pairs_examined == examined);
  // The overlaps are real and the exclusions bite, or this test would prove little.
  CHECK(r.pairs[1].shared_atoms == 50);                // A,B
  CHECK(r.pairs[2].shared_atoms == 11);                // A,C
  if (exclude) CHECK(r.pairs[0].excluded_pairs > 50);  // A,A
}

}  // namespace

TEST_CASE("residues are runs of atoms with the same residue number, name and molecule") {
  analysis::Topology top;
  top.atom_names = {"a", "b", "c", "d", "e", "f"};
  top.residue_numbers = {1, 1, 2, 2, 1, 1};
  top.residue_names = {"A", "A", "A", "B", "B", "B"};
  CHECK(analysis::residue_of_atoms(top, "t.gro", "--exclude residue") ==
        std::vector<int>{0, 0, 1, 2, 3, 3});
  top.molecule_index = {0, 0, 0, 0, 1, 2};  // a .tpr: copies of a molecule may repeat numbers
  CHECK(analysis::residue_of_atoms(top, "t.tpr", "--exclude residue") ==
        std::vector<int>{0, 0, 1, 2, 3, 4});
  top.molecule_index.clear();
  top.residue_names.assign(6, "");  // .xyz and LAMMPS topologies carry no residues
  top.residue_numbers.assign(6, 0);
  try {
    analysis::residue_of_atoms(top, "t.xyz", "--exclude residue");
    FAIL("expected an error");
  } catch (const UsageError& e) {
    CHECK(test::contains(e.what(), "t.xyz"));
    CHECK(test::contains(e.what(), "no residues"));
  }
  CHECK(analysis::parse_exclude_mode("residue") == analysis::ExcludeMode::residue);
  CHECK_THROWS_AS(analysis::parse_exclude_mode("molecule"), UsageError);
}

TEST_CASE("overlapping species: self pairs removed exactly, two ordered pairs per shared pair") {
  check_job(BoxKind::orthorhombic, Precision::single, false);
}

TEST_CASE("same-residue exclusions equal a brute force over the other pairs, every box") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic})
    for (Precision precision : {Precision::single, Precision::double_})
      check_job(kind, precision, true);
}

TEST_CASE("same-residue exclusions with every periodic image (r_max beyond half the box)") {
  // r_max 3.3 nm in boxes of 2.0-2.2 nm: the engine counts every image; an excluded pair is the
  // molecule's minimum image only. The counts without exclusions less those with them must be,
  // bin for bit, the excluded pairs binned as the engine's image layout counts them
  // (image_pair_bin, itself checked against that layout in test_engine_images): the planted
  // pairs lie on bin edges (bins of 0.02 nm), where only that arithmetic gives the engine's bin.
  for (BoxKind kind : {BoxKind::orthorhombic, BoxKind::triclinic})
    for (Precision precision : {Precision::single, Precision::double_}) {
      CAPTURE(box_kind_name(kind));
      CAPTURE(precision == Precision::single);
      test::TempDir dir("exclusions-images");
      const int natoms = 120, frames = 2, nbins = 165;
      const double r_max = 3.3;
      const System sys = make_system(natoms);
      write_gro(dir.file("top.gro"), sys);
      write_xtc(dir.file("traj.xtc"), sys, frames, kind);
      JobOptions o;
      o.trajectory = dir.file("traj.xtc");
      o.topology = dir.file("top.gro");
      o.species = {parse_species("A=index 1-80"), parse_species("B=index 61-120")};
      const std::vector<std::vector<int>> atoms = {range(0, 79), range(60, 119)};
      o.r_max = r_max;
      o.nbins = nbins;
      o.precision = precision;
      o.ncpu = 2;
      o.ncuda = 0;
      o.exclude = "none";
      const JobOutcome all = run_trajectory_job(o);
      o.exclude = "residue";
      const JobOutcome excl = run_trajectory_job(o);
      // The expected difference: each same-residue pair (not an atom with itself) at its
      // minimum image, binned as the engine lays it out.
      const auto pairs = species_pairs(2);
      std::vector<std::vector<uint64_t>> expected(pairs.size(), std::vector<uint64_t>(nbins, 0));
      auto reader = io::open_trajectory(o.trajectory);
      io::TrajectoryFrame frame;
      while (reader->next(frame)) {
        BoxMatrix box;
        for (int i = 0; i < 9; ++i) box[i] = frame.box[i];
        dispatch_precision(precision, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const HistogramParams<T> p = make_params<T>(BoxMatrix{}, BoxKind::none, r_max, nbins);
          for (size_t q = 0; q < pairs.size(); ++q) {
            const auto& A = atoms[size_t(pairs[q].first)];
            const auto& B = atoms[size_t(pairs[q].second)];
            const bool same = pairs[q].first == pairs[q].second;
            for (size_t i = 0; i < A.size(); ++i)
              for (size_t j = same ? i + 1 : 0; j < B.size(); ++j) {
                const int a = A[i], b = B[j];
                if (a == b || sys.residue[size_t(a)] != sys.residue[size_t(b)]) continue;
                T wa[3], wb[3];
                const float* xa = &frame.xyz[3 * size_t(a)];
                const float* xb = &frame.xyz[3 * size_t(b)];
                wrapped_point<T>(box, xa[0], xa[1], xa[2], wa);
                wrapped_point<T>(box, xb[0], xb[1], xb[2], wb);
                const int k = image_pair_bin(p, box, wa, wb, same);
                if (k < nbins) ++expected[q][size_t(k)];
              }
          }
        });
      }
      for (size_t q = 0; q < pairs.size(); ++q) {
        CAPTURE(q);
        std::vector<uint64_t> diff(nbins);
        for (int k = 0; k < nbins; ++k)
          diff[size_t(k)] =
              all.result.pairs[q].counts[size_t(k)] - excl.result.pairs[q].counts[size_t(k)];
        CHECK(diff == expected[q]);
        CHECK(excl.result.pairs[q].excluded_pairs > 20);
      }
    }
}
