// What io/results/histogram_result_reader.cpp and stored_run() share: the run's configuration
// lines, its species in the run's order and its pairs sorted as the reader gives them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pairhist/result.hpp"

namespace pairhist::io {

/// `key = value` lines of the config text, in order (quotes around a value removed).
std::vector<std::pair<std::string, std::string>> config_lines(const std::string& config);

/// The run's species as the file gives them: in the config's order with their selections where
/// the config names them all, else by name (the file's particle_numbers, without a selection).
std::vector<SpeciesInfo> species_in_run_order(const std::string& config,
                                              const std::map<std::string, int64_t>& counts);

/// Pairs by A, then B (species indices).
void sort_pairs(std::vector<PairHistogram>& pairs);

}  // namespace pairhist::io
