// StoredRun's own functions and stored_run(): what the reader of pairhist.h5 gives back, made
// without the file.
#include <algorithm>
#include <map>
#include <sstream>

#include "io/results/histogram_result_reader.hpp"
#include "io/results/run_order.hpp"

namespace pairhist::io {

namespace {

std::string unquote(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> config_lines(const std::string& config) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(config);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find(" = ");
    if (eq != std::string::npos) out.emplace_back(line.substr(0, eq), unquote(line.substr(eq + 3)));
  }
  return out;
}

std::vector<SpeciesInfo> species_in_run_order(const std::string& config,
                                              const std::map<std::string, int64_t>& counts) {
  std::vector<SpeciesInfo> species;
  for (const auto& [key, value] : config_lines(config))
    if (key.compare(0, 8, "species.") == 0 && counts.count(key.substr(8)))
      species.push_back({key.substr(8), value, counts.at(key.substr(8))});
  if (species.size() != counts.size()) {  // no config, or it does not name them all
    species.clear();
    for (const auto& [name, n] : counts) species.push_back({name, "", n});
  }
  return species;
}

void sort_pairs(std::vector<PairHistogram>& pairs) {
  std::sort(pairs.begin(), pairs.end(), [](const PairHistogram& x, const PairHistogram& y) {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  });
}

std::string StoredRun::config_value(const std::string& key) const {
  for (const auto& [k, v] : config_lines(config))
    if (k == key) return v;
  return "";
}

std::vector<std::string> StoredRun::species_selections() const {
  std::vector<std::string> out;
  for (const SpeciesInfo& s : result.species) out.push_back(config_value("species." + s.name));
  return out;
}

StoredRun stored_run(const std::string& path, const HistogramResult& res,
                     const std::string& config) {
  StoredRun run;
  run.path = path;
  run.config = config;
  HistogramResult& out = run.result;
  out.r_max = res.r_max;
  out.nbins = res.nbins;
  out.r_min = res.r_min;
  out.length_unit = res.length_unit;
  out.box_kind = res.box_kind;
  out.precision = res.precision;
  out.frame_indices = res.frame_indices;
  out.frame_times = res.frame_times;
  out.volumes = res.volumes;
  out.complete = res.complete;
  out.stopped_by = res.complete ? "" : res.stopped_by;  // written only for an incomplete run
  out.norm = res.norm;
  out.exclude = res.exclude.empty() ? "none" : res.exclude;
  out.sphere = res.sphere;
  out.sphere_centre = res.sphere.empty() ? "" : res.sphere_centre;

  std::map<std::string, int64_t> counts;
  for (const SpeciesInfo& s : res.species) counts[s.name] = s.count;
  out.species = species_in_run_order(config, counts);
  std::vector<int> index(res.species.size());  // res's species -> out's
  for (size_t s = 0; s < res.species.size(); ++s)
    for (size_t t = 0; t < out.species.size(); ++t)
      if (out.species[t].name == res.species[s].name) index[s] = static_cast<int>(t);
  std::vector<size_t> order(res.pairs.size());  // out's pairs -> res's
  for (size_t i = 0; i < res.pairs.size(); ++i) {
    PairHistogram p = res.pairs[i];
    p.a = index[static_cast<size_t>(res.pairs[i].a)];
    p.b = index[static_cast<size_t>(res.pairs[i].b)];
    if (p.a > p.b) std::swap(p.a, p.b);
    out.pairs.push_back(std::move(p));
  }
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&out](size_t x, size_t y) {
    const PairHistogram& p = out.pairs[x];
    const PairHistogram& q = out.pairs[y];
    return p.a != q.a ? p.a < q.a : p.b < q.b;
  });
  sort_pairs(out.pairs);
  for (const auto& f : res.frame_species_counts) {
    std::vector<int64_t> row(out.species.size(), 0);
    for (size_t s = 0; s < f.size(); ++s) row[static_cast<size_t>(index[s])] = f[s];
    out.frame_species_counts.push_back(std::move(row));
  }
  if (!res.centre_counts.empty()) {
    out.centre_bin_width = res.centre_bin_width;
    out.centre_counts.assign(out.species.size(), {});
    for (size_t s = 0; s < res.centre_counts.size(); ++s)
      out.centre_counts[static_cast<size_t>(index[s])] = res.centre_counts[s];
  }
  for (const auto& f : res.frame_pairs) {
    std::vector<uint64_t> row(order.size(), 0);
    for (size_t i = 0; i < order.size(); ++i) row[i] = f[order[i]];
    out.frame_pairs.push_back(std::move(row));
  }
  if (res.intervals.size() >= 2)  // as the reader keeps them
    for (const IntervalBlock& b : res.intervals) {
      IntervalBlock kept{b.frame_begin, b.frame_end, {}};
      for (size_t i = 0; i < order.size(); ++i) kept.counts.push_back(b.counts.at(order[i]));
      if (!b.centre_counts.empty()) {
        kept.centre_counts.assign(out.species.size(), {});
        for (size_t s = 0; s < b.centre_counts.size(); ++s)
          kept.centre_counts[static_cast<size_t>(index[s])] = b.centre_counts[s];
      }
      out.intervals.push_back(std::move(kept));
    }
  return run;
}

}  // namespace pairhist::io
