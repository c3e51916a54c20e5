// What a pairhist.h5 must satisfy before its counts are believed (io/results/
// histogram_result_reader.cpp): bins that agree with r_max and nbins, interval blocks that divide
// the run's frames between them, and counts no larger than the pairs those frames hold. Each
// check returns "" or one line saying what is wrong, which the reader prefixes with the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pairhist/result.hpp"

namespace pairhist::io {

/// The bins as the file states them: r_max and nbins (attributes of /pairhist), r_min and r_cut
/// where the file has them (0 and 0: no such attribute). r_cut, a cut-off inside the last bin,
/// leaves that bin partial (a user's --rmax that is not a multiple of the bin width).
struct StoredBins {
  double r_min = 0;
  double r_max = 0;
  int nbins = 0;
  double r_cut = 0;
};

/// bin_edges must be nbins + 1 finite values r_min + k (r_max - r_min) / nbins (the last one
/// r_max, or r_cut inside the last bin), within 1e-9 of r_max: a damaged file or one whose r_max
/// or nbins contradict the bins its counts were made with.
std::string bin_edges_problem(const StoredBins& bins, const std::vector<double>& edges);
/// A block's radii (CADISHI's bin centres): nbins values, the middles of the bins.
std::string bin_centres_problem(const StoredBins& bins, const std::vector<double>& centres);

/// One histogram block of the file: the group named after the last frame it holds, its frames
/// [frame_begin, frame_end) of HistogramResult::frame_indices, and per pair of the result (in its
/// order) the counts of all its bins summed (UINT64_MAX where they do not fit in 64 bits).
struct StoredBlock {
  std::string name;
  size_t frame_begin = 0;
  size_t frame_end = 0;
  std::vector<uint64_t> pair_sums;
};

/// Sets each block's frames from its name, which must be the index of one of the run's frames,
/// and orders the blocks by them; the last must end at the last frame, and no two may end at the
/// same one.
std::string arrange_blocks(std::vector<StoredBlock>& blocks,
                           const std::vector<int64_t>& frame_indices);

/// The pairs the file says were left out (shared atoms, excluded pairs), the per-frame atoms and
/// pairs of a sphere or dynamic run, and every block's counts of every pair against the most its
/// frames hold: pairs_per_frame() per frame (N(N-1)/2 of one species, N_A N_B of two, less the
/// self pairs of shared atoms and the excluded pairs; a dynamic run's frame_pairs; a sphere run's
/// atoms of each frame).
std::string counts_problem(const HistogramResult& res, const std::vector<StoredBlock>& blocks);

}  // namespace pairhist::io
