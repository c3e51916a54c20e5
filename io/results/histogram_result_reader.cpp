#include "io/results/histogram_result_reader.hpp"

#include <hdf5.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "io/hdf5/hdf5_probe.hpp"
#include "io/hdf5/hdf5_util.hpp"
#include "io/results/result_checks.hpp"
#include "io/results/result_checksum.hpp"
#include "io/results/run_order.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

namespace fs = std::filesystem;

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  // Names in problems come from the file: excerpt keeps the message one line.
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("cannot read '" + path_ + "': " + excerpt(what, 300));
  }
  const std::string& path() const { return path_; }

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

  /// A dataset of counts, exactly: stored as integers (HDF5 would turn a float -5.0 or a signed
  /// -1 into 0 reading them as unsigned, and 2.5 into 2), none of them negative.
  std::vector<uint64_t> counts(hid_t loc, const std::string& name) const {
    if (!h5_exists(loc, name)) fail("missing dataset '" + name + "'");
    H5Handle set(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
    H5Handle type(set.valid() ? H5Dget_type(set.get()) : -1, H5Tclose);
    if (!type.valid()) fail("cannot open dataset '" + name + "'");
    if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) > 8)
      fail("dataset '" + name + "' does not hold integers: not counts written by pairhist");
    if (H5Tget_sign(type.get()) != H5T_SGN_2) return values<uint64_t>(loc, name, H5T_NATIVE_UINT64);
    const std::vector<int64_t> v = values<int64_t>(loc, name, H5T_NATIVE_INT64);
    for (int64_t x : v)
      if (x < 0) fail("dataset '" + name + "' holds " + std::to_string(x) + ": a negative count");
    return std::vector<uint64_t>(v.begin(), v.end());
  }

  uint64_t count(hid_t loc, const std::string& name) const {
    const std::vector<uint64_t> v = counts(loc, name);
    if (v.size() != 1) fail("dataset '" + name + "' is not one value");
    return v[0];
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

/// The checksum (io/results/result_checksum.hpp) against the file's contents, before anything in
/// it is believed. A file without one, written before pairhist wrote them, gets a note: its
/// counts are checked against their bounds alone.
void check_checksum(const Reader& in, hid_t file, hid_t meta, StoredRun& run) {
  if (H5Aexists(meta, kChecksumAttribute) <= 0) {
    run.notes.push_back(in.path() +
                        " has no checksum (written before pairhist wrote one): its counts were "
                        "checked against their bounds only");
    return;
  }
  std::vector<std::string> stored;
  if (!h5_string_attribute(meta, kChecksumAttribute, stored) || stored.size() != 1)
    in.fail("attribute 'checksum' of /pairhist is not one text");
  const std::string actual = result_checksum(file, in.path());
  if (stored[0] != actual)
    in.fail("checksum mismatch: the file records " + stored[0] + ", its contents give " + actual +
            " (damaged, or changed since pairhist wrote it)");
}

/// An optional number attribute of /pairhist (0 where the file has none).
double optional_number(const Reader& in, hid_t meta, const char* name) {
  double value = 0;
  if (H5Aexists(meta, name) > 0 && !h5_scalar_attribute(meta, name, H5T_NATIVE_DOUBLE, &value))
    in.fail(std::string("attribute '") + name + "' of /pairhist is not one number");
  return value;
}

/// /pairhist's attributes (what the run was, its configuration, whether it completed), the bins
/// (bin_edges against r_max and nbins, before anything is made per bin: the edges the file
/// stores bound nbins by its size) and the frames (indices, times, volumes).
StoredBins read_run_attributes(const Reader& in, hid_t meta, StoredRun& run) {
  HistogramResult& res = run.result;
  res.length_unit = in.text(meta, "length_unit");
  res.r_max = in.attribute<double>(meta, "r_max", H5T_NATIVE_DOUBLE);
  const auto nbins = in.attribute<int64_t>(meta, "nbins", H5T_NATIVE_INT64);
  if (!(res.r_max > 0) || !std::isfinite(res.r_max) || nbins <= 0 || nbins >= (int64_t{1} << 31))
    in.fail("r_max or nbins out of range");
  res.nbins = static_cast<int>(nbins);
  const StoredBins bins{optional_number(in, meta, "r_min"), res.r_max, res.nbins,
                        optional_number(in, meta, "r_cut")};
  const auto edges = in.values<double>(meta, "bin_edges", H5T_NATIVE_DOUBLE);
  if (const std::string problem = bin_edges_problem(bins, edges); !problem.empty())
    in.fail(problem);
  if (!(bins.r_min >= 0 && bins.r_min < res.r_max)) in.fail("r_min out of range (0 to r_max)");
  res.r_min = bins.r_min;  // written only for bins from r_min > 0 (older files have none)
  res.box_kind = in.text(meta, "box_kind");
  res.precision = in.text(meta, "precision");
  res.norm = in.text(meta, "norm", false);
  res.exclude = in.text(meta, "exclude", false);
  if (res.exclude.empty()) res.exclude = "none";
  run.config = in.text(meta, "config", false);
  res.complete = in.attribute<int64_t>(meta, "complete", H5T_NATIVE_INT64) != 0;
  res.stopped_by = in.text(meta, "stopped_by", false);
  res.frame_indices = in.values<int64_t>(meta, "frame_indices", H5T_NATIVE_INT64);
  const size_t frames = res.frame_indices.size();
  if (frames == 0) in.fail("no frames (frame_indices is empty)");
  if (in.attribute<int64_t>(meta, "n_frames", H5T_NATIVE_INT64) != static_cast<int64_t>(frames))
    in.fail("n_frames does not match frame_indices");
  if (h5_exists(meta, "frame_times"))
    res.frame_times = in.values<double>(meta, "frame_times", H5T_NATIVE_DOUBLE);
  if (h5_exists(meta, "volumes"))
    res.volumes = in.values<double>(meta, "volumes", H5T_NATIVE_DOUBLE);
  if (!res.frame_times.empty() && res.frame_times.size() != frames)
    in.fail("frame_times does not hold one time per frame");
  if (!res.volumes.empty() && res.volumes.size() != frames)
    in.fail("volumes does not hold one volume per frame");
  for (double v : res.volumes)
    if (!(v > 0) || !std::isfinite(v)) in.fail("volumes holds " + std::to_string(v));
  return bins;
}

/// The histogram blocks: every top-level group but /pairhist, each named after the last frame
/// it holds, which together must divide the run's frames between them.
std::vector<StoredBlock> read_blocks(const Reader& in, hid_t file,
                                     const std::vector<int64_t>& frame_indices) {
  std::vector<StoredBlock> blocks;
  for (const std::string& name : h5_member_names(file))
    if (name != "pairhist") blocks.push_back({name, 0, 0, {}});
  if (blocks.empty()) in.fail("no histogram blocks");
  if (const std::string problem = arrange_blocks(blocks, frame_indices); !problem.empty())
    in.fail(problem);
  return blocks;
}

/// The species: atom counts from the blocks' particle_numbers, the same in every block, in the
/// run's order from the config.
void read_species(const Reader& in, hid_t file, const std::vector<StoredBlock>& blocks,
                  StoredRun& run) {
  std::map<std::string, int64_t> first;
  for (const StoredBlock& block : blocks) {
    std::map<std::string, int64_t> counts;
    H5Handle numbers = in.group(file, block.name + "/particle_numbers");
    for (const std::string& s : h5_member_names(numbers.get())) {
      const uint64_t n = in.count(numbers.get(), s);
      if (n > uint64_t{INT32_MAX})
        in.fail("particle_numbers/" + s + " = " + std::to_string(n) +
                ": more atoms than a run can have");
      counts[s] = static_cast<int64_t>(n);
    }
    if (counts.empty()) in.fail("block /" + block.name + " has no particle_numbers");
    if (&block == &blocks.front())
      first = counts;
    else if (counts != first)
      in.fail("the particle_numbers of block /" + block.name + " differ from those of /" +
              blocks.front().name);
  }
  run.result.species = species_in_run_order(run.config, first);
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
    const auto n = in.counts(sizes.get(), name);
    if (n.size() != frames) in.fail(sizes_name + "/" + name + ": not one count per frame");
    for (size_t f = 0; f < frames; ++f) {
      // A species' count is its capacity: the most atoms it can hold in a frame.
      if (n[f] > static_cast<uint64_t>(res.species[s].count))
        in.fail(sizes_name + "/" + name + " out of range");
      res.frame_species_counts[f][s] = static_cast<int64_t>(n[f]);
    }
  }
  if (!h5_exists(meta, "centre_distances")) return;
  // A sphere run's centre distances: every atom inside the sphere in one bin.
  res.centre_bin_width = optional_number(in, meta, "centre_bin_width");
  if (!(res.centre_bin_width > 0) || res.sphere.empty())
    in.fail("centre_distances without a sphere and a positive centre_bin_width");
  H5Handle centre = in.group(meta, "centre_distances");
  for (size_t s = 0; s < res.species.size(); ++s) {
    const std::string& name = res.species[s].name;
    res.centre_counts.push_back(in.counts(centre.get(), name));
    uint64_t inside = 0, binned = 0;
    for (const auto& f : res.frame_species_counts) inside += static_cast<uint64_t>(f[s]);
    for (uint64_t n : res.centre_counts.back()) binned += n;
    if (binned != inside || res.centre_counts.back().size() != res.centre_counts[0].size())
      in.fail("centre_distances/" + name + " holds " + std::to_string(binned) +
              " atoms, the frames " + std::to_string(inside));
  }
}

/// A --sphere run's centre distances per interval block (`<block>/centre_distances`, written
/// since the sphere excess has errors): in every block or none, each shaped as the run's, and
/// together the run's.
void read_block_centre_counts(const Reader& in, hid_t file, const std::vector<StoredBlock>& blocks,
                              HistogramResult& res) {
  size_t with = 0;
  for (const StoredBlock& block : blocks)
    if (h5_exists(file, block.name + "/centre_distances")) ++with;
  if (with == 0) return;
  if (with != blocks.size() || res.centre_counts.empty())
    in.fail(with != blocks.size()
                ? "centre_distances in " + std::to_string(with) + " of " +
                      std::to_string(blocks.size()) + " blocks"
                : std::string("blocks hold centre_distances, /pairhist does not"));
  std::vector<std::vector<uint64_t>> sum(res.centre_counts.size());
  for (size_t k = 0; k < blocks.size(); ++k) {
    H5Handle centre = in.group(file, blocks[k].name + "/centre_distances");
    IntervalBlock& b = res.intervals.at(k);
    for (size_t s = 0; s < res.species.size(); ++s) {
      const std::string& name = res.species[s].name;
      b.centre_counts.push_back(in.counts(centre.get(), name));
      if (b.centre_counts[s].size() != res.centre_counts[s].size())
        in.fail("block /" + blocks[k].name + ": centre_distances/" + name +
                " has other bins than /pairhist's");
      sum[s].resize(b.centre_counts[s].size());
      for (size_t j = 0; j < sum[s].size(); ++j)
        if (__builtin_add_overflow(sum[s][j], b.centre_counts[s][j], &sum[s][j]))
          in.fail("the blocks' centre_distances/" + name + " add up to 2^64 or more");
    }
  }
  for (size_t s = 0; s < res.species.size(); ++s)
    if (sum[s] != res.centre_counts[s])
      in.fail("the blocks' centre_distances/" + res.species[s].name +
              " do not add up to /pairhist's");
}

using PairKey = std::pair<int, int>;

/// Every pair's counts, summed over the blocks, as A <= B of the species' order, sorted; with
/// the atoms the pair shares and the pairs left out per frame; two or more blocks also as the
/// result's intervals. Every block holds the same pairs,
/// each once, and radii that are the bins' middles; its counts of each pair summed go into its
/// pair_sums (in the sorted pairs' order), for counts_problem().
void read_histograms(const Reader& in, hid_t file, const StoredBins& bins,
                     std::vector<StoredBlock>& blocks, HistogramResult& res) {
  const auto species_index = [&](const std::string& name) -> int {
    for (size_t i = 0; i < res.species.size(); ++i)
      if (res.species[i].name == name) return static_cast<int>(i);
    in.fail("histogram of unknown species '" + name + "'");
  };
  std::vector<std::map<PairKey, uint64_t>> sums(blocks.size());
  std::vector<std::map<PairKey, std::vector<uint64_t>>> block_counts(blocks.size());
  for (size_t k = 0; k < blocks.size(); ++k) {
    const std::string& block = blocks[k].name;
    H5Handle hist = in.group(file, block + "/histograms");
    for (const std::string& name : h5_member_names(hist.get())) {
      if (name == "radii") {
        const std::string problem =
            bin_centres_problem(bins, in.values<double>(hist.get(), name, H5T_NATIVE_DOUBLE));
        if (!problem.empty()) in.fail("block /" + block + ": " + problem);
        continue;
      }
      const size_t comma = name.find(',');
      if (comma == std::string::npos || name.find(',', comma + 1) != std::string::npos)
        in.fail("histogram name '" + name + "' is not A,B");
      int a = species_index(name.substr(0, comma));
      int b = species_index(name.substr(comma + 1));
      if (a > b) std::swap(a, b);
      if (sums[k].count({a, b}))
        in.fail("block /" + block + " holds the histogram of " + name + " twice");
      auto it = std::find_if(res.pairs.begin(), res.pairs.end(),
                             [&](const PairHistogram& p) { return p.a == a && p.b == b; });
      if (it == res.pairs.end()) {
        if (k > 0)
          in.fail("block /" + block + " holds " + name + ", block /" + blocks[0].name +
                  " does not");
        PairHistogram p;
        p.a = a;
        p.b = b;
        p.counts.assign(static_cast<size_t>(res.nbins), 0);
        const std::string pair_path = "pairhist/shared_atoms/" + name;
        if (h5_exists(file, pair_path)) p.shared_atoms = in.count(file, pair_path);
        const std::string excluded_path = "pairhist/excluded_pairs/" + name;
        if (h5_exists(file, excluded_path)) p.excluded_pairs = in.count(file, excluded_path);
        res.pairs.push_back(std::move(p));
        it = res.pairs.end() - 1;
      }
      const std::vector<uint64_t> c = in.counts(hist.get(), name);
      if (c.size() != it->counts.size())
        in.fail("histogram '" + block + "/histograms/" + name + "' does not have nbins bins");
      uint64_t& sum = sums[k][{a, b}];
      for (size_t bin = 0; bin < c.size(); ++bin) {
        if (__builtin_add_overflow(it->counts[bin], c[bin], &it->counts[bin]))
          in.fail("the counts of " + name + " in bin " + std::to_string(bin) +
                  " add up to 2^64 or more");
        if (__builtin_add_overflow(sum, c[bin], &sum)) sum = UINT64_MAX;
      }
      block_counts[k][{a, b}] = c;
    }
    if (k > 0 && sums[k].size() != sums[0].size())
      in.fail("block /" + block + " lacks histograms that block /" + blocks[0].name + " has");
  }
  if (res.pairs.empty()) in.fail("no histograms");
  sort_pairs(res.pairs);
  for (size_t k = 0; k < blocks.size(); ++k)
    for (const PairHistogram& p : res.pairs) blocks[k].pair_sums.push_back(sums[k][{p.a, p.b}]);
  // Two or more blocks are kept as the run's intervals: their scatter gives the errors of what
  // is computed from them (analysis/block_average.hpp).
  if (blocks.size() < 2) return;
  for (size_t k = 0; k < blocks.size(); ++k) {
    IntervalBlock b{blocks[k].frame_begin, blocks[k].frame_end, {}};
    for (const PairHistogram& p : res.pairs) b.counts.push_back(block_counts[k][{p.a, p.b}]);
    res.intervals.push_back(std::move(b));
  }
  read_block_centre_counts(in, file, blocks, res);
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
    const auto n = in.counts(pairs.get(), name);
    if (n.size() != frames) in.fail("frame_pairs/" + name + ": not one per frame");
    for (size_t f = 0; f < frames; ++f) res.frame_pairs[f][i] = n[f];
  }
}

/// read_histogram_result() once the file has passed the HDF5 library's walk.
StoredRun read_stored_run(const std::string& path) {
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  const Reader in(path);
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) in.fail("cannot open the HDF5 file");
  if (!h5_exists(file.get(), "pairhist"))
    in.fail("no /pairhist group: not written by pairhist run");
  H5Handle meta = in.group(file.get(), "pairhist");

  StoredRun run;
  run.path = path;
  check_checksum(in, file.get(), meta.get(), run);
  const StoredBins bins = read_run_attributes(in, meta.get(), run);
  std::vector<StoredBlock> blocks = read_blocks(in, file.get(), run.result.frame_indices);
  read_species(in, file.get(), blocks, run);
  read_frame_species_counts(in, meta.get(), run.result);
  read_histograms(in, file.get(), bins, blocks, run.result);
  read_frame_pairs(in, meta.get(), run.result);
  if (const std::string problem = counts_problem(run.result, blocks); !problem.empty())
    in.fail(problem);
  return run;
}

}  // namespace

StoredRun read_histogram_result(const std::string& given) {
  const std::string path = run_file(given);
  Hdf5Gate gate;
  const Reader in(path);
  if (!is_hdf5_file(path)) in.fail("not an HDF5 file");
  // libhdf5 itself can crash or hang on a damaged file (docs/reliability.md, finding 5): the
  // whole reading runs first in a child process, and a file that kills it there is refused.
  try {
    probe_hdf5_file(path, "result", [&path] { read_stored_run(path); });
  } catch (const InputError& e) {
    std::string what = e.what();
    if (what.compare(0, path.size() + 2, path + ": ") == 0) what.erase(0, path.size() + 2);
    in.fail(what);
  }
  return read_stored_run(path);
}

}  // namespace pairhist::io
