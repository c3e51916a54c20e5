#include "io/results/result_checks.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pairhist::io {

namespace {

using Wide = unsigned __int128;  // bounds of long runs of large species exceed 64 bits

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

std::string wide_text(Wide v) {
  if (v == 0) return "0";
  std::string digits;
  for (; v > 0; v /= 10) digits.insert(digits.begin(), static_cast<char>('0' + int(v % 10)));
  return digits;
}

/// The pairs of a frame with `na` atoms of A and `nb` of B before any is left out: N(N-1)/2 of one
/// species, N_A N_B of two.
Wide all_pairs(bool same, uint64_t na, uint64_t nb) {
  return same ? (na > 0 ? Wide(na) * (na - 1) / 2 : 0) : Wide(na) * nb;
}

std::string pair_name(const HistogramResult& res, const PairHistogram& p) {
  return res.species[static_cast<size_t>(p.a)].name + "," +
         res.species[static_cast<size_t>(p.b)].name;
}

/// What bounds a pair's counts per frame, for the message.
std::string per_frame_rule(const HistogramResult& res, const PairHistogram& p) {
  const int64_t na = res.species[static_cast<size_t>(p.a)].count;
  const int64_t nb = res.species[static_cast<size_t>(p.b)].count;
  if (res.dynamic()) return "the pairs of each frame in frame_pairs";
  if (!res.frame_species_counts.empty()) return "the atoms of each frame in frame_species_counts";
  std::string rule =
      p.a == p.b ? "N(N-1)/2 with N = " + std::to_string(na)
                 : "N_A*N_B with N_A = " + std::to_string(na) + ", N_B = " + std::to_string(nb);
  if (p.shared_atoms > 0) rule += ", less " + std::to_string(p.shared_atoms) + " shared atoms";
  if (p.excluded_pairs > 0) rule += ", less " + std::to_string(p.excluded_pairs) + " excluded";
  return rule + " per frame";
}

/// The pairs the frames [begin, end) hold for pair i, as the run counted them.
Wide pairs_of_frames(const HistogramResult& res, size_t i, size_t begin, size_t end) {
  const PairHistogram& p = res.pairs[i];
  const auto a = static_cast<size_t>(p.a), b = static_cast<size_t>(p.b);
  Wide total = 0;
  for (size_t f = begin; f < end; ++f) {
    if (res.dynamic()) {
      total += res.frame_pairs[f][i];
    } else if (!res.frame_species_counts.empty()) {
      const auto& n = res.frame_species_counts[f];
      total += all_pairs(p.a == p.b, static_cast<uint64_t>(n[a]), static_cast<uint64_t>(n[b]));
    }
  }
  if (res.dynamic() || !res.frame_species_counts.empty()) return total;
  const Wide per_frame = all_pairs(p.a == p.b, static_cast<uint64_t>(res.species[a].count),
                                   static_cast<uint64_t>(res.species[b].count)) -
                         p.shared_atoms - p.excluded_pairs;
  return per_frame * (end - begin);
}

/// Shared atoms and excluded pairs that a pair of these species can have; a dynamic run's pairs
/// of each frame within its atoms of that frame.
std::string left_out_problem(const HistogramResult& res) {
  for (size_t i = 0; i < res.pairs.size(); ++i) {
    const PairHistogram& p = res.pairs[i];
    const auto na = static_cast<uint64_t>(res.species[static_cast<size_t>(p.a)].count);
    const auto nb = static_cast<uint64_t>(res.species[static_cast<size_t>(p.b)].count);
    const std::string name = pair_name(res, p);
    if (p.shared_atoms > (p.a == p.b ? 0 : std::min(na, nb)))
      return "shared_atoms/" + name + " = " + std::to_string(p.shared_atoms) +
             (p.a == p.b ? ": one species shares no atoms with itself"
                         : ", more than the smaller species has (" +
                               std::to_string(std::min(na, nb)) + ")");
    if (Wide(p.excluded_pairs) + p.shared_atoms > all_pairs(p.a == p.b, na, nb))
      return "excluded_pairs/" + name + " = " + std::to_string(p.excluded_pairs) +
             ", more than the " + wide_text(all_pairs(p.a == p.b, na, nb) - p.shared_atoms) +
             " pairs of a frame";
    if (!res.dynamic()) continue;
    for (size_t f = 0; f < res.frame_pairs.size(); ++f) {
      const auto& n = res.frame_species_counts[f];
      const Wide most = all_pairs(p.a == p.b, static_cast<uint64_t>(n[static_cast<size_t>(p.a)]),
                                  static_cast<uint64_t>(n[static_cast<size_t>(p.b)]));
      if (res.frame_pairs[f][i] > most)
        return "frame_pairs/" + name + "[" + std::to_string(f) +
               "] = " + std::to_string(res.frame_pairs[f][i]) + ", more than the " +
               wide_text(most) + " pairs of that frame's atoms";
    }
  }
  return {};
}

}  // namespace

std::string bin_edges_problem(const StoredBins& bins, const std::vector<double>& edges) {
  const auto n = static_cast<size_t>(bins.nbins);
  if (!(std::isfinite(bins.r_min) && bins.r_min >= 0 && std::isfinite(bins.r_max) &&
        bins.r_max > bins.r_min))
    return "r_min " + number(bins.r_min) + " and r_max " + number(bins.r_max) +
           " are not a range of distances";
  if (edges.size() != n + 1)
    return "bin_edges holds " + std::to_string(edges.size()) +
           " values, nbins = " + std::to_string(n) + " needs " + std::to_string(n + 1);
  const double tolerance = 1e-9 * bins.r_max;
  const double width = (bins.r_max - bins.r_min) / bins.nbins;
  for (size_t k = 0; k < edges.size(); ++k) {
    const double expected = k == n ? bins.r_max : bins.r_min + static_cast<double>(k) * width;
    const bool partial_end =
        k == n && bins.r_cut > 0 && std::abs(edges[k] - bins.r_cut) <= tolerance;
    if (!(std::abs(edges[k] - expected) <= tolerance) && !partial_end)
      return "bin_edges[" + std::to_string(k) + "] = " + number(edges[k]) +
             ", but r_max = " + number(bins.r_max) +
             (bins.r_min > 0 ? " and r_min = " + number(bins.r_min) : "") +
             " with nbins = " + std::to_string(n) + " put it at " + number(expected);
  }
  if (bins.r_cut != 0 && !(bins.r_cut > edges[n - 1] && bins.r_cut <= bins.r_max + tolerance))
    return "r_cut = " + number(bins.r_cut) + " does not lie in the last bin [" +
           number(edges[n - 1]) + ", " + number(bins.r_max) + "]";
  return {};
}

std::string bin_centres_problem(const StoredBins& bins, const std::vector<double>& centres) {
  const auto n = static_cast<size_t>(bins.nbins);
  if (centres.size() != n)
    return "radii holds " + std::to_string(centres.size()) + " values for " + std::to_string(n) +
           " bins";
  const double width = (bins.r_max - bins.r_min) / bins.nbins;
  for (size_t k = 0; k < n; ++k) {
    const double expected = bins.r_min + (static_cast<double>(k) + 0.5) * width;
    if (!(std::abs(centres[k] - expected) <= 1e-9 * bins.r_max))
      return "radii[" + std::to_string(k) + "] = " + number(centres[k]) +
             " is not the middle of bin " + std::to_string(k) + " (" + number(expected) + ")";
  }
  return {};
}

std::string arrange_blocks(std::vector<StoredBlock>& blocks,
                           const std::vector<int64_t>& frame_indices) {
  if (blocks.empty() || frame_indices.empty()) return "no histogram blocks or no frames";
  for (StoredBlock& b : blocks) {
    const char* text = b.name.c_str();
    char* end = nullptr;
    errno = 0;
    const long long index = std::strtoll(text, &end, 10);
    const auto at = std::find(frame_indices.begin(), frame_indices.end(), index);
    if (b.name.empty() || *end != '\0' || errno != 0 || !(b.name[0] >= '0' && b.name[0] <= '9') ||
        at == frame_indices.end())
      return "block /" + b.name + " is not named after a frame of the run (frame_indices)";
    b.frame_end = static_cast<size_t>(at - frame_indices.begin()) + 1;
  }
  std::sort(blocks.begin(), blocks.end(),
            [](const StoredBlock& x, const StoredBlock& y) { return x.frame_end < y.frame_end; });
  size_t begin = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (k > 0 && blocks[k].frame_end == begin)
      return "blocks /" + blocks[k - 1].name + " and /" + blocks[k].name + " end at the same frame";
    blocks[k].frame_begin = begin;
    begin = blocks[k].frame_end;
  }
  if (begin != frame_indices.size())
    return "the last block /" + blocks.back().name + " ends before the run's last frame " +
           std::to_string(frame_indices.back());
  return {};
}

std::string counts_problem(const HistogramResult& res, const std::vector<StoredBlock>& blocks) {
  if (std::string problem = left_out_problem(res); !problem.empty()) return problem;
  for (const StoredBlock& b : blocks)
    for (size_t i = 0; i < res.pairs.size(); ++i) {
      const Wide most = pairs_of_frames(res, i, b.frame_begin, b.frame_end);
      if (b.pair_sums[i] == UINT64_MAX || b.pair_sums[i] > most) {
        const size_t frames = b.frame_end - b.frame_begin;
        return "histogram /" + b.name + "/histograms/" + pair_name(res, res.pairs[i]) + " counts " +
               (b.pair_sums[i] == UINT64_MAX ? "2^64 or more" : std::to_string(b.pair_sums[i])) +
               " pairs, more than its " + std::to_string(frames) + " frame" +
               (frames == 1 ? "" : "s") + " hold (" + wide_text(most) + ": " +
               per_frame_rule(res, res.pairs[i]) + ")";
      }
    }
  return {};
}

}  // namespace pairhist::io
