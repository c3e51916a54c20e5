#include "drivers/job/engine_settings.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/exclusions.hpp"
#include "analysis/rdf.hpp"
#include "drivers/job/length_units.hpp"
#include "pairhist/errors.hpp"
#include "tasks/algorithm_choice.hpp"

namespace pairhist {

void check_options(const RunSpec& o) {
  if (o.species.empty()) throw UsageError("no species given (use --species NAME=SELECTION)");
  if (!(o.r_max > 0) || !std::isfinite(o.r_max)) throw UsageError("--rmax must be positive");
  if (o.nbins <= 0) throw UsageError("--nbins must be positive");
  if (o.step <= 0) throw UsageError("--step must be positive");
  if (o.begin_time > o.end_time) throw UsageError("--begin must not be after --end");
  if (o.first < 0) throw UsageError("--first must be >= 0");
  if (o.interval < 0) throw UsageError("--interval must be >= 0");
  if (o.volume < 0 || !std::isfinite(o.volume)) throw UsageError("--volume must be positive");
  analysis::parse_exclude_mode(o.exclude);
  analysis::check_norm(o.norm);
  for (size_t i = 0; i < o.species.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.species[i].name == o.species[j].name)
        throw UsageError("species '" + o.species[i].name + "' is defined twice");
}

namespace {

int species_index(const RunSpec& o, const std::string& name) {
  for (size_t s = 0; s < o.species.size(); ++s)
    if (o.species[s].name == name) return static_cast<int>(s);
  return -1;
}

/// "A-B" as two species indices, a <= b. Species names may hold '-' themselves: the pair is read
/// at the one '-' whose sides both name species.
std::pair<int, int> parse_pair(const RunSpec& o, const std::string& text) {
  std::vector<std::pair<int, int>> readings;
  for (size_t dash = text.find('-'); dash != std::string::npos; dash = text.find('-', dash + 1)) {
    const int a = species_index(o, text.substr(0, dash));
    const int b = species_index(o, text.substr(dash + 1));
    if (a >= 0 && b >= 0) readings.emplace_back(std::min(a, b), std::max(a, b));
  }
  if (readings.size() == 1) return readings[0];
  std::string names;
  for (const auto& s : o.species) names += (names.empty() ? "" : ", ") + s.name;
  if (readings.empty())
    throw UsageError("--pairs: '" + excerpt(text) +
                     "' is not a pair A-B of species names (species: " + excerpt(names, 200) + ")");
  throw UsageError("--pairs: '" + excerpt(text) + "' can be read as more than one pair of " +
                   names);
}

}  // namespace

std::vector<std::pair<int, int>> selected_pairs(const RunSpec& o) {
  const auto all = species_pairs(static_cast<int>(o.species.size()));
  if (o.pairs.empty()) return all;
  std::vector<bool> wanted(all.size(), false);
  for (const std::string& text : o.pairs) {
    const auto pair = parse_pair(o, text);
    const size_t p = static_cast<size_t>(std::find(all.begin(), all.end(), pair) - all.begin());
    if (wanted[p]) throw UsageError("--pairs: the pair " + text + " is named twice");
    wanted[p] = true;
  }
  std::vector<std::pair<int, int>> pairs;
  for (size_t p = 0; p < all.size(); ++p)
    if (wanted[p]) pairs.push_back(all[p]);
  return pairs;
}

EngineConfig engine_config(const RunSpec& o, const std::vector<std::vector<int>>& atoms,
                           BoxKind kind, double r_max_nm) {
  EngineConfig config;
  for (const auto& a : atoms) config.species_sizes.push_back(static_cast<int64_t>(a.size()));
  config.r_max = r_max_nm;
  config.nbins = o.nbins;
  config.r_cut = o.r_cut / length_factor(o.units);
  config.r_min = o.r_min / length_factor(o.units);
  config.precision = o.precision;
  config.box_kind = kind;
  config.scheduler = o.scheduler;
  config.whole_frames = o.whole_frames;
  config.ncpu = o.ncpu;
  config.ncuda = o.ncuda;
  config.frames_in_flight = o.frames_in_flight;
  if (o.memory_budget_mib > 0) config.memory_budget_bytes = o.memory_budget_mib << 20;
  config.reserve_cores = o.reserve_cores;
  config.sum_tasks = o.sum_tasks;
  config.max_pairs_per_task = o.task_pairs;
  config.lp_bound = o.lp_bound;
  config.lp_bound_text = o.lp_bound_text;
  config.algorithm = o.algorithm;
  if (!o.pairs.empty()) {
    const auto all = species_pairs(static_cast<int>(atoms.size()));
    config.counted_pairs.assign(all.size(), false);
    for (const auto& pair : selected_pairs(o))
      config.counted_pairs[static_cast<size_t>(std::find(all.begin(), all.end(), pair) -
                                               all.begin())] = true;
  }
  config.cell_reach = o.cell_reach;
  config.cell_prune = o.cell_prune;
  if (!o.cell_order.empty()) {
    config.cell_order = parse_cell_order(o.cell_order);
    config.cell_order_set = true;
  }
  return config;
}

void describe_engine(const HistogramEngine& engine, uint64_t frames_here, JobOutcome& out) {
  out.activity = engine.activity();
  // The pairs --pairs left out are no part of the result: pair_work then matches its pairs.
  std::vector<PairWork>& work = out.activity.pair_work;
  work.erase(std::remove_if(work.begin(), work.end(), [](const PairWork& w) { return !w.counted; }),
             work.end());
  for (size_t p = 0; p < out.result.pairs.size() && p < out.activity.pair_work.size(); ++p) {
    const PairWork& w = out.activity.pair_work[p];
    const PairHistogram& h = out.result.pairs[p];
    // A --sphere run's frames hold different numbers of atoms: their mean, to rounding.
    const uint64_t all_pairs =
        out.result.frame_species_counts.empty()
            ? out.result.pairs_per_frame(h) * frames_here
            : static_cast<uint64_t>(std::llround(out.result.mean_pairs_per_frame(h) *
                                                 static_cast<double>(frames_here)));
    // With periodic images the engine's pairs are the images' (its candidates), not N_A N_B.
    out.pairs_examined += w.algorithm == Algorithm::cell_list || out.activity.periodic_images
                              ? w.candidates
                              : all_pairs;
  }
  out.cpu_workers = engine.cpu_workers();
  out.cuda_workers = engine.cuda_workers();
  out.scheduler = engine.scheduler();
  out.tasks = engine.tasks_submitted();
  out.frames_in_flight = engine.frames_in_flight();
  out.frame_bytes = engine.frame_bytes();
}

}  // namespace pairhist
