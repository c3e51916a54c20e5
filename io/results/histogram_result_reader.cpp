#include "io/results/histogram_result_reader.hpp"

#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "io/hdf5/hdf5_util.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

namespace fs = std::filesystem;

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("cannot read '" + path_ + "': " + what);
  }

  H5Handle group(hid_t loc, const std::string& name) const {
    if (!h5_exists(loc, name)) fail("missing group '" + name + "'");
    H5Handle g(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), H5Gclose);
    if (!g.valid()) fail("cannot open group '" + name + "'");
    return g;
  }

  /// A whole dataset of `count` values (checked against what the file stores before reading).
  template <class T>
  std::vector<T> values(hid_t loc, const std::string& name, hid_t mem_type) const {
    if (!h5_exists(loc, name)) fail("missing dataset '" + name + "'");
    H5Handle set(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) fail("cannot open dataset '" + name + "'");
    if (const std::string problem = h5_check_storage(set.get(), path_); !problem.empty())
      fail("dataset '" + name + "': " + problem);
    size_t n = 1;
    for (hsize_t d : h5_dims(set.get())) n *= static_cast<size_t>(d);
    std::vector<T> v(n);
    if (n > 0 && H5Dread(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
      fail("cannot read dataset '" + name + "'");
    return v;
  }

  template <class T>
  T scalar(hid_t loc, const std::string& name, hid_t mem_type) const {
    const std::vector<T> v = values<T>(loc, name, mem_type);
    if (v.size() != 1) fail("dataset '" + name + "' is not one value");
    return v[0];
  }

  template <class T>
  T attribute(hid_t obj, const std::string& name, hid_t mem_type) const {
    T value{};
    if (!h5_scalar_attribute(obj, name, mem_type, &value))
      fail("missing attribute '" + name + "' of /pairhist");
    return value;
  }

  std::string text(hid_t obj, const std::string& name, bool required = true) const {
    std::vector<std::string> v;
    if (!h5_string_attribute(obj, name, v) || v.size() != 1) {
      if (required) fail("missing attribute '" + name + "' of /pairhist");
      return "";
    }
    return v[0];
  }

 private:
  std::string path_;
};

std::string unquote(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

/// `key = value` lines of the config text, in order.
std::vector<std::pair<std::string, std::string>> config_lines(const std::string& config) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(config);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find(" = ");
    if (eq != std::string::npos) out.emplace_back(line.substr(0, eq), unquote(line.substr(eq + 3)));
  }
  return out;
}

/// The run's species as the file gives them: in the config's order with their selections where
/// the config names them all, else by name (the file's particle_numbers, without a selection).
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

/// The pairhist.h5 that `given` names: itself, or the one in the directory it names.
std::string run_file(const std::string& given) {
  std::error_code ec;
  std::string path = given;
  if (fs::is_directory(given, ec)) {
    path = (fs::path(given) / "pairhist.h5").string();
    if (!fs::exists(path, ec))
      throw InputError("cannot read '" + given + "': the directory has no pairhist.h5");
  }
  if (!fs::exists(path, ec)) throw InputError("cannot read '" + path + "': no such file");
  return path;
}

/// /pairhist's attributes (what the run was, its configuration, whether it completed) and the
/// frames (indices, times, volumes).
void read_run_attributes(const Reader& in, hid_t meta, StoredRun& run) {
  HistogramResult& res = run.result;
  res.length_unit = in.text(meta, "length_unit");
  res.r_max = in.attribute<double>(meta, "r_max", H5T_NATIVE_DOUBLE);
  const auto nbins = in.attribute<int64_t>(meta, "nbins", H5T_NATIVE_INT64);
  if (!(res.r_max > 0) || nbins <= 0 || nbins > (int64_t{1} << 31))
    in.fail("r_max or nbins out of range");
  res.nbins = static_cast<int>(nbins);
  // Written only for bins from r_min > 0 (older files and bins from 0 have none).
  double r_min = 0;
  if (h5_scalar_attribute(meta, "r_min", H5T_NATIVE_DOUBLE, &r_min) &&
      !(r_min >= 0 && r_min < res.r_max))
    in.fail("r_min out of range (0 to r_max)");
  res.r_min = r_min;
  res.box_kind = in.text(meta, "box_kind");
  res.precision = in.text(meta, "precision");
  res.norm = in.text(meta, "norm", false);
  res.exclude = in.text(meta, "exclude", false);
  if (res.exclude.empty()) res.exclude = "none";
  run.config = in.text(meta, "config", false);
  res.complete = in.attribute<int64_t>(meta, "complete", H5T_NATIVE_INT64) != 0;
  res.stopped_by = in.text(meta, "stopped_by", false);
  res.frame_indices = in.values<int64_t>(meta, "frame_indices", H5T_NATIVE_INT64);
  if (h5_exists(meta, "frame_times"))
    res.frame_times = in.values<double>(meta, "frame_times", H5T_NATIVE_DOUBLE);
  if (h5_exists(meta, "volumes"))
    res.volumes = in.values<double>(meta, "volumes", H5T_NATIVE_DOUBLE);
  if (in.attribute<int64_t>(meta, "n_frames", H5T_NATIVE_INT64) !=
      static_cast<int64_t>(res.frame_indices.size()))
    in.fail("n_frames does not match frame_indices");
}

/// The histogram blocks: every top-level group but /pairhist.
std::vector<std::string> block_names(const Reader& in, hid_t file) {
  std::vector<std::string> blocks;
  for (const std::string& name : h5_member_names(file))
    if (name != "pairhist") blocks.push_back(name);
  if (blocks.empty()) in.fail("no histogram blocks");
  return blocks;
}

/// The species: atom counts from `block`'s particle_numbers, in the run's order from the config.
void read_species(const Reader& in, hid_t file, const std::string& block, StoredRun& run) {
  std::map<std::string, int64_t> counts;
  H5Handle numbers = in.group(file, block + "/particle_numbers");
  for (const std::string& s : h5_member_names(numbers.get()))
    counts[s] = in.scalar<int64_t>(numbers.get(), s, H5T_NATIVE_INT64);
  run.result.species = species_in_run_order(run.config, counts);
}

/// The atoms of every species in each frame, where they vary: a --sphere run's (and how its
/// sphere was made) or a dynamic selection's, under one name; pairhist up to b187ea5 wrote a
/// sphere run's as "species_counts".
void read_frame_species_counts(const Reader& in, hid_t meta, HistogramResult& res) {
  res.sphere = in.text(meta, "sphere", false);
  res.sphere_centre = in.text(meta, "sphere_centre", false);
  const std::string sizes_name = h5_exists(meta, "frame_species_counts") ? "frame_species_counts"
                                 : h5_exists(meta, "species_counts")     ? "species_counts"
                                                                         : "";
  if (sizes_name.empty()) return;
  const size_t frames = res.frame_indices.size();
  H5Handle sizes = in.group(meta, sizes_name);
  res.frame_species_counts.assign(frames, std::vector<int64_t>(res.species.size(), 0));
  for (size_t s = 0; s < res.species.size(); ++s) {
    const std::string& name = res.species[s].name;
    const auto n = in.values<int64_t>(sizes.get(), name, H5T_NATIVE_INT64);
    if (n.size() != frames) in.fail(sizes_name + "/" + name + ": not one count per frame");
    for (size_t f = 0; f < frames; ++f) {
      // A species' count is its capacity: the most atoms it can hold in a frame.
      if (n[f] < 0 || n[f] > res.species[s].count)
        in.fail(sizes_name + "/" + name + " out of range");
      res.frame_species_counts[f][s] = n[f];
    }
  }
}

/// Every pair's counts, summed over the blocks, as A <= B of the species' order, sorted; with
/// the atoms the pair shares and the pairs left out per frame.
void read_histograms(const Reader& in, hid_t file, const std::vector<std::string>& blocks,
                     HistogramResult& res) {
  const auto species_index = [&](const std::string& name) -> int {
    for (size_t i = 0; i < res.species.size(); ++i)
      if (res.species[i].name == name) return static_cast<int>(i);
    in.fail("histogram of unknown species '" + name + "'");
  };
  for (const std::string& block : blocks) {
    H5Handle hist = in.group(file, block + "/histograms");
    for (const std::string& name : h5_member_names(hist.get())) {
      if (name == "radii") continue;
      const size_t comma = name.find(',');
      if (comma == std::string::npos || name.find(',', comma + 1) != std::string::npos)
        in.fail("histogram name '" + name + "' is not A,B");
      int a = species_index(name.substr(0, comma));
      int b = species_index(name.substr(comma + 1));
      if (a > b) std::swap(a, b);
      auto it = std::find_if(res.pairs.begin(), res.pairs.end(),
                             [&](const PairHistogram& p) { return p.a == a && p.b == b; });
      if (it == res.pairs.end()) {
        PairHistogram p;
        p.a = a;
        p.b = b;
        p.counts.assign(static_cast<size_t>(res.nbins), 0);
        const std::string pair_path = "pairhist/shared_atoms/" + name;
        if (h5_exists(file, pair_path))
          p.shared_atoms = in.scalar<uint64_t>(file, pair_path, H5T_NATIVE_UINT64);
        const std::string excluded_path = "pairhist/excluded_pairs/" + name;
        if (h5_exists(file, excluded_path))
          p.excluded_pairs = in.scalar<uint64_t>(file, excluded_path, H5T_NATIVE_UINT64);
        res.pairs.push_back(std::move(p));
        it = res.pairs.end() - 1;
      }
      const auto c = in.values<uint64_t>(hist.get(), name, H5T_NATIVE_UINT64);
      if (c.size() != it->counts.size())
        in.fail("histogram '" + block + "/histograms/" + name + "' does not have nbins bins");
      for (size_t k = 0; k < c.size(); ++k) it->counts[k] += c[k];
    }
  }
  if (res.pairs.empty()) in.fail("no histograms");
  sort_pairs(res.pairs);
}

/// A run with a dynamic species: its pairs of every frame, by pair name.
void read_frame_pairs(const Reader& in, hid_t meta, HistogramResult& res) {
  if (!h5_exists(meta, "frame_pairs")) return;
  const size_t frames = res.frame_indices.size();
  if (res.frame_species_counts.empty()) in.fail("frame_pairs without frame_species_counts");
  res.frame_pairs.assign(frames, std::vector<uint64_t>(res.pairs.size()));
  H5Handle pairs = in.group(meta, "frame_pairs");
  for (size_t i = 0; i < res.pairs.size(); ++i) {
    // Named in the writer's species order, which may be the other way round.
    const std::string& x = res.species[static_cast<size_t>(res.pairs[i].a)].name;
    const std::string& y = res.species[static_cast<size_t>(res.pairs[i].b)].name;
    const std::string name = h5_exists(pairs.get(), x + "," + y) ? x + "," + y : y + "," + x;
    const auto n = in.values<uint64_t>(pairs.get(), name, H5T_NATIVE_UINT64);
    if (n.size() != frames) in.fail("frame_pairs/" + name + ": not one per frame");
    for (size_t f = 0; f < frames; ++f) res.frame_pairs[f][i] = n[f];
  }
}

}  // namespace

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

StoredRun read_histogram_result(const std::string& given) {
  const std::string path = run_file(given);
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  const Reader in(path);
  if (!is_hdf5_file(path)) in.fail("not an HDF5 file");
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) in.fail("cannot open the HDF5 file");
  if (!h5_exists(file.get(), "pairhist"))
    in.fail("no /pairhist group: not written by pairhist run");
  H5Handle meta = in.group(file.get(), "pairhist");

  StoredRun run;
  run.path = path;
  read_run_attributes(in, meta.get(), run);
  const std::vector<std::string> blocks = block_names(in, file.get());
  read_species(in, file.get(), blocks[0], run);
  read_frame_species_counts(in, meta.get(), run.result);
  read_histograms(in, file.get(), blocks, run.result);
  read_frame_pairs(in, meta.get(), run.result);
  return run;
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
  for (const auto& f : res.frame_pairs) {
    std::vector<uint64_t> row(order.size(), 0);
    for (size_t i = 0; i < order.size(); ++i) row[i] = f[order[i]];
    out.frame_pairs.push_back(std::move(row));
  }
  return run;
}

}  // namespace pairhist::io
