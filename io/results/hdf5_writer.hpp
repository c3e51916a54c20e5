// HDF5 output of a histogram run, laid out like CADISHI's histogram files plus pairhist metadata.
#pragma once

#include <string>

#include "pairhist/result.hpp"

namespace pairhist::io {

/// Writes `res` to `path` atomically (temporary file + rename). Layout:
///
///   /<last frame index>/histograms/<A>,<B>   uint64 [nbins]  pair counts summed over frames
///   /<last frame index>/histograms/radii     float64 [nbins] bin centres
///   /<last frame index>/particle_numbers/<S> int64 scalar    atoms of species S per frame
///   /<last frame index>/volumes/box          float64 scalar  mean box volume (only with a box)
///   /<last frame index>/centre_distances/<S> uint64 [bins]   a --sphere run's atoms of S by
///                                                             distance from the centre, this
///                                                             block's frames (intervals only)
///   /pairhist                                 attributes version, length_unit, r_max, nbins,
///                                             box_kind, precision, n_frames, config, complete,
///                                             norm (rdf|density|none), exclude (none|residue),
///                                             checksum ("crc32:XXXXXXXX" of everything else,
///                                             io/results/result_checksum.hpp)
///   /pairhist/excluded_pairs/<A>,<B>          uint64 scalar   pairs per frame left out by
///                                                             the exclusion rule
///   /pairhist/shared_atoms/<A>,<B>            uint64 scalar   atoms in both A and B: self
///                                                             pairs left out per frame
///   /pairhist/analysis::bin_edges                       float64 [nbins+1]
///   /pairhist/frame_indices                   int64 [n_frames]
///   /pairhist/frame_times                     float64 [n_frames], ps
///   /pairhist/volumes                         float64 [n_frames] (only with a box)
///   /pairhist/rdf/<A>,<B>                     float64 [nbins] g(r) (norm rdf, only with a box);
///                                             norm density: /pairhist/density, norm none:
///                                             /pairhist/number (analysis/rdf.hpp)
///   /pairhist/coordination/<A>,<B>            float64 [nbins] (whenever the above is written)
///   /pairhist/<rdf|density|number>_error/<A>,<B>  block-average errors (two or more intervals)
///   /pairhist/centre_distances/<S>            uint64 [bins]   a --sphere run's atoms of S by
///                                                             distance from the centre, all
///                                                             frames (attribute
///                                                             centre_bin_width)
///
/// String attributes are variable-length UTF-8, so an arbitrarily long config text fits.
/// Throws UsageError for results that cannot be written (no frames, species names that are not
/// valid HDF5 link names) and OutputError, naming `path`, for any HDF5 or file system failure.
void write_hdf5(const std::string& path, const HistogramResult& res,
                const std::string& config_text);

}  // namespace pairhist::io
