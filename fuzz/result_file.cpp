// libFuzzer harness: pairhist's own result file, pairhist.h5, as `pairhist scattering`, `plot`,
// `run --resume` (of a finished run) and the Python readers read it: io::read_histogram_result
// and io::read_run_output. Two kinds of input:
// - one that starts with HDF5's signature is the file itself (its bytes mutated: libhdf5 parses
//   the container, in the probe's child process first);
// - any other is a recipe: its bytes choose a valid result (species and their atoms, pairs with
//   shared atoms and excluded pairs, bins, frames, interval blocks, a sphere or dynamic run), which
//   io::write_hdf5 writes, and then damage done through the HDF5 API (a count set to any value, a
//   dataset of another type, a block copied, renamed or removed, an atom count, attribute, edge
//   or per-frame value changed, a soft link), with the checksum kept, removed or recomputed.
//   This reaches the checks thousands of times faster than mutated bytes.
// Besides the shared rules (fuzz_support.hpp: only InputError, one line naming the file), the
// harness checks what the reader promises: a file write_hdf5 wrote is read; a file whose contents
// changed under a kept checksum is refused; a file that is read has counts within the pairs of
// its frames, one per bin.
#include <hdf5.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "io/hdf5/hdf5_util.hpp"
#include "io/results/hdf5_writer.hpp"
#include "io/results/histogram_result_reader.hpp"
#include "io/results/result_checksum.hpp"
#include "io/results/run_output_reader.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/settings.hpp"

namespace {

using pairhist::HistogramResult;
using pairhist::PairHistogram;
using Wide = unsigned __int128;

// Hands out the input's bytes as small decisions; zeros once they run out.
class Recipe {
 public:
  Recipe(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  unsigned byte() { return at_ < size_ ? data_[at_++] : 0; }
  unsigned pick(unsigned n) { return byte() % n; }
  bool chance(unsigned in256) { return byte() < in256; }
  uint64_t u64() {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v = (v << 8) | byte();
    return v;
  }
  /// A value up to `most`, often at the edges.
  uint64_t upto(uint64_t most) {
    switch (pick(4)) {
      case 0:
        return most;
      case 1:
        return 0;
      default:
        return most == 0 ? 0 : u64() % (most + 1);
    }
  }
  /// A count a damaged file may hold.
  uint64_t any_count() {
    static const uint64_t kValues[] = {0,         1, 2, 44850, uint64_t{1} << 31, uint64_t{1} << 63,
                                       UINT64_MAX};
    return chance(128) ? kValues[pick(7)] : u64();
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

Wide all_pairs(bool same, uint64_t na, uint64_t nb) {
  return same ? (na > 0 ? Wide(na) * (na - 1) / 2 : 0) : Wide(na) * nb;
}

/// The pairs frame f holds for pair i, as the run counted them (independent of the reader).
Wide frame_pairs(const HistogramResult& r, size_t i, size_t f) {
  const PairHistogram& p = r.pairs[i];
  const auto a = static_cast<size_t>(p.a), b = static_cast<size_t>(p.b);
  if (r.dynamic()) return r.frame_pairs[f][i];
  if (!r.frame_species_counts.empty())
    return all_pairs(a == b, static_cast<uint64_t>(r.frame_species_counts[f][a]),
                     static_cast<uint64_t>(r.frame_species_counts[f][b]));
  const Wide all = all_pairs(a == b, static_cast<uint64_t>(r.species[a].count),
                             static_cast<uint64_t>(r.species[b].count));
  const Wide left_out = Wide(p.shared_atoms) + p.excluded_pairs;
  return left_out > all ? 0 : all - left_out;
}

/// A valid result from the recipe: counts within the pairs of the frames that made them.
HistogramResult make_result(Recipe& c) {
  static const char* const kNames[] = {"O", "H", "Na"};
  static const uint64_t kAtoms[] = {0, 1, 2, 3, 5, 300, 2147483647};
  static const double kRmax[] = {1.2, 0.3, 1e-3, 7.5};
  HistogramResult r;
  const unsigned species = 1 + c.pick(3);
  for (unsigned s = 0; s < species; ++s)
    r.species.push_back({kNames[s], "name X", static_cast<int64_t>(kAtoms[c.pick(7)])});
  r.nbins = 1 + static_cast<int>(c.pick(8));
  r.r_max = kRmax[c.pick(4)];
  const unsigned frames = 1 + c.pick(6);
  int64_t index = c.pick(3);
  for (unsigned f = 0; f < frames; ++f, index += 1 + c.pick(3)) {
    r.frame_indices.push_back(index);
    r.frame_times.push_back(0.5 * static_cast<double>(index));
  }
  const unsigned mode = c.pick(4);  // 0, 1: fixed species; 2: sphere; 3: dynamic
  if (mode <= 1) {
    r.box_kind = "orthorhombic";
    r.volumes.assign(frames, 27.0 + c.pick(4));
  } else {
    r.norm = "none";
    for (unsigned f = 0; f < frames; ++f) {
      r.frame_species_counts.emplace_back();
      for (const auto& s : r.species)
        r.frame_species_counts.back().push_back(
            static_cast<int64_t>(c.upto(static_cast<uint64_t>(s.count))));
    }
    if (mode == 2) {
      r.sphere = "group X,1.0";
      r.sphere_centre = "mass";
    }
  }
  for (int a = 0; a < static_cast<int>(species); ++a)
    for (int b = a; b < static_cast<int>(species); ++b) {
      PairHistogram p{a, b, std::vector<uint64_t>(static_cast<size_t>(r.nbins), 0)};
      const auto na = static_cast<uint64_t>(r.species[static_cast<size_t>(a)].count);
      const auto nb = static_cast<uint64_t>(r.species[static_cast<size_t>(b)].count);
      if (mode <= 1 && a != b && c.chance(60)) p.shared_atoms = c.upto(std::min(na, nb));
      const Wide rest = all_pairs(a == b, na, nb) - p.shared_atoms;
      if (mode <= 1 && c.chance(60)) p.excluded_pairs = c.upto(static_cast<uint64_t>(rest));
      r.pairs.push_back(std::move(p));
    }
  if (mode == 3)
    for (unsigned f = 0; f < frames; ++f) {
      r.frame_pairs.emplace_back();
      for (const PairHistogram& p : r.pairs) {
        const auto& n = r.frame_species_counts[f];
        const Wide most = all_pairs(p.a == p.b, static_cast<uint64_t>(n[static_cast<size_t>(p.a)]),
                                    static_cast<uint64_t>(n[static_cast<size_t>(p.b)]));
        r.frame_pairs.back().push_back(c.upto(static_cast<uint64_t>(most)));
      }
    }
  // Interval blocks: frames cut at the recipe's places, each pair's counts of a block within
  // its frames' pairs, spread over the bins.
  std::vector<size_t> ends;
  for (size_t f = 1; f < frames; ++f)
    if (c.chance(50)) ends.push_back(f);
  ends.push_back(frames);
  size_t begin = 0;
  for (size_t end : ends) {
    pairhist::IntervalBlock block{begin, end, {}};
    for (size_t i = 0; i < r.pairs.size(); ++i) {
      Wide most = 0;
      for (size_t f = begin; f < end; ++f) most += frame_pairs(r, i, f);
      // At most 2^61 a block, so that the blocks' sums stay within 64 bits.
      const uint64_t cap = uint64_t{1} << 61;
      uint64_t left = c.upto(most > cap ? cap : static_cast<uint64_t>(most));
      std::vector<uint64_t> counts(static_cast<size_t>(r.nbins), 0);
      for (uint64_t& n : counts) left -= (n = c.upto(left));
      counts.back() += left;
      for (size_t k = 0; k < counts.size(); ++k) r.pairs[i].counts[k] += counts[k];
      block.counts.push_back(std::move(counts));
    }
    r.intervals.push_back(std::move(block));
    begin = end;
  }
  if (r.intervals.size() == 1) r.intervals.clear();
  return r;
}

void write_uint64(hid_t file, const std::string& name, const std::vector<uint64_t>& values) {
  const hid_t set = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (set < 0) return;
  const hid_t space = H5Dget_space(set);
  if (H5Sget_simple_extent_npoints(space) == static_cast<hssize_t>(values.size()))
    H5Dwrite(set, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Sclose(space);
  H5Dclose(set);
}

std::vector<uint64_t> read_uint64(hid_t file, const std::string& name) {
  std::vector<uint64_t> v;
  const hid_t set = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (set < 0) return v;
  const hid_t space = H5Dget_space(set);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n > 0 && n < 4096) {
    v.resize(static_cast<size_t>(n));
    if (H5Dread(set, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) v.clear();
  }
  H5Sclose(space);
  H5Dclose(set);
  return v;
}

void replace_with(hid_t file, const std::string& name, hid_t type, const std::vector<double>& v) {
  if (H5Ldelete(file, name.c_str(), H5P_DEFAULT) < 0) return;
  const hsize_t n = v.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t set =
      H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (set >= 0) {
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(set);
  }
  H5Sclose(space);
}

void set_attribute(hid_t file, const char* name, hid_t type, double value) {
  const hid_t meta = H5Gopen2(file, "pairhist", H5P_DEFAULT);
  if (meta < 0) return;
  if (H5Aexists(meta, name) > 0) H5Adelete(meta, name);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(meta, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0) {
    H5Awrite(attr, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(attr);
  }
  H5Sclose(space);
  H5Gclose(meta);
}

void set_checksum(hid_t file, const std::string& text) {
  const hid_t meta = H5Gopen2(file, "pairhist", H5P_DEFAULT);
  if (meta < 0) return;
  if (H5Aexists(meta, pairhist::io::kChecksumAttribute) > 0)
    H5Adelete(meta, pairhist::io::kChecksumAttribute);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr =
      H5Acreate2(meta, pairhist::io::kChecksumAttribute, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const char* value = text.c_str();
  if (attr >= 0) {
    H5Awrite(attr, type, &value);
    H5Aclose(attr);
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Gclose(meta);
}

/// The contents' checksum ("" where the walk refuses the file).
std::string checksum_of(hid_t file) {
  try {
    return pairhist::io::result_checksum(file, "");
  } catch (const pairhist::InputError&) {
    return "";
  }
}

/// One damage of the recipe's choosing, through the HDF5 API.
void damage(Recipe& c, hid_t file, const HistogramResult& r) {
  const std::string block = std::to_string(r.frame_indices.back());
  const auto& p = r.pairs[c.pick(static_cast<unsigned>(r.pairs.size()))];
  const std::string pair =
      r.species[static_cast<size_t>(p.a)].name + "," + r.species[static_cast<size_t>(p.b)].name;
  const std::string species = r.species[c.pick(static_cast<unsigned>(r.species.size()))].name;
  static const hid_t kTypes[] = {H5T_IEEE_F64LE, H5T_STD_I64LE, H5T_STD_I8LE, H5T_STD_U32LE};
  static const char* const kAttributes[] = {"r_max", "nbins", "n_frames", "r_cut", "r_min"};
  static const char* const kPaths[] = {"pairhist/bin_edges",    "pairhist/frame_indices",
                                       "pairhist/frame_times",  "pairhist/volumes",
                                       "pairhist/shared_atoms", "pairhist/excluded_pairs",
                                       "pairhist/frame_pairs",  "pairhist/frame_species_counts"};
  switch (c.pick(10)) {
    case 0: {  // one count of a block
      std::vector<uint64_t> v = read_uint64(file, block + "/histograms/" + pair);
      if (!v.empty()) v[c.pick(static_cast<unsigned>(v.size()))] = c.any_count();
      write_uint64(file, block + "/histograms/" + pair, v);
      break;
    }
    case 1: {  // counts of another type, maybe negative
      std::vector<double> v(static_cast<size_t>(r.nbins));
      for (double& x : v) x = static_cast<double>(static_cast<int8_t>(c.byte()));
      replace_with(file, block + "/histograms/" + pair, kTypes[c.pick(4)], v);
      break;
    }
    case 2:  // a block copied under another frame's (or no frame's) name
      H5Ocopy(file, block.c_str(), file, std::to_string(c.pick(12)).c_str(), H5P_DEFAULT,
              H5P_DEFAULT);
      break;
    case 3:  // a block renamed or removed
      if (c.chance(128))
        H5Lmove(file, block.c_str(), file, std::to_string(c.pick(12)).c_str(), H5P_DEFAULT,
                H5P_DEFAULT);
      else
        H5Ldelete(file,
                  (block + (c.chance(128) ? "/histograms/radii" : "/particle_numbers/" + species))
                      .c_str(),
                  H5P_DEFAULT);
      break;
    case 4:
      write_uint64(file, block + "/particle_numbers/" + species, {c.any_count()});
      break;
    case 5: {
      static const double kValues[] = {0, -1, 0.5, 1.2, 1e-300, 1e300, 3, 2147483648.0};
      set_attribute(file, kAttributes[c.pick(5)], c.chance(128) ? H5T_IEEE_F64LE : H5T_STD_I64LE,
                    kValues[c.pick(8)]);
      break;
    }
    case 6: {  // edges or radii moved
      std::vector<double> v(static_cast<size_t>(r.nbins) + c.pick(2));
      for (size_t k = 0; k < v.size(); ++k)
        v[k] = (static_cast<double>(k) + (c.chance(128) ? 0 : 0.5)) * r.r_max / r.nbins +
               (c.chance(200) ? 0 : 1e-3);
      replace_with(file, c.chance(128) ? "pairhist/bin_edges" : block + "/histograms/radii",
                   H5T_IEEE_F64LE, v);
      break;
    }
    case 7:  // a per-frame or per-pair value
    {
      const std::string group = kPaths[c.pick(8)];
      const std::string name =
          group.find("species") != std::string::npos ? group + "/" + species
          : group.find("pair") != std::string::npos || group.find("atoms") != std::string::npos
              ? group + "/" + pair
              : group;
      std::vector<uint64_t> v = read_uint64(file, name);
      if (!v.empty()) v[c.pick(static_cast<unsigned>(v.size()))] = c.any_count();
      write_uint64(file, name, v);
      break;
    }
    case 8:
      H5Lcreate_soft((block + "/histograms/" + pair).c_str(), file,
                     (block + "/histograms/" + species + ",X").c_str(), H5P_DEFAULT, H5P_DEFAULT);
      break;
    default:
      H5Ldelete(file, kPaths[c.pick(8)], H5P_DEFAULT);
      break;
  }
}

/// Reads the file as every reader does (read_run_output, `plot`'s, only with `plot`); true when
/// read_histogram_result accepted it, whose result must then keep every count within its
/// frames' pairs.
bool read_all(const std::string& path, bool plot = true) {
  bool accepted = false;
  try {
    const pairhist::io::StoredRun run = pairhist::io::read_histogram_result(path);
    accepted = true;
    const HistogramResult& r = run.result;
    for (size_t i = 0; i < r.pairs.size(); ++i) {
      if (r.pairs[i].counts.size() != static_cast<size_t>(r.nbins))
        pairhist::fuzz::violated("a pair with another number of bins than nbins");
      Wide sum = 0, most = 0;
      for (uint64_t n : r.pairs[i].counts) sum += n;
      for (size_t f = 0; f < r.frame_indices.size(); ++f) most += frame_pairs(r, i, f);
      if (sum > most) pairhist::fuzz::violated("counts above the pairs of their frames accepted");
    }
  } catch (const pairhist::InputError& e) {
    pairhist::fuzz::check_message(e.what(), "cannot read '" + path + "': ");
  }
  if (!plot) return accepted;
  try {
    pairhist::io::read_run_output(path);
    if (!accepted) pairhist::fuzz::violated("read_run_output accepted what the checks refused");
  } catch (const pairhist::InputError& e) {
    pairhist::fuzz::check_message(e.what(), "cannot read '" + path + "': ");
  }
  return accepted;
}

void set_probe(bool on) {
  static int state = -1;
  if (state == static_cast<int>(on)) return;
  setenv("PAIRHIST_HDF5_PROBE_SECONDS", on ? "3" : "0", 1);
  pairhist::reload_settings();
  state = on;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const uint8_t kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (size >= 8 && std::memcmp(data, kSignature, 8) == 0) {
    set_probe(true);  // libhdf5 may crash on these bytes: the walk in a child first
    read_all(pairhist::fuzz::write_input(data, size, ".h5"));
    return 0;
  }
  set_probe(false);  // files the library writes itself
  Recipe c(data, size);
  const HistogramResult r = make_result(c);
  const std::string& path = pairhist::fuzz::write_input(nullptr, 0, ".h5");
  try {
    pairhist::io::write_hdf5(path, r, "species.O = \"name X\"\n");
  } catch (const pairhist::UsageError&) {  // a result the writer refuses: nothing to read
    return 0;
  }
  if (!read_all(path, false)) pairhist::fuzz::violated("a file write_hdf5 wrote is refused");
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) pairhist::fuzz::violated("cannot open " + path);
  const std::string before = checksum_of(file);
  for (unsigned n = 1 + c.pick(3); n > 0; --n) damage(c, file, r);
  const unsigned seal = c.pick(4);  // 0: checksum removed, 1: recomputed, else kept
  const std::string after = checksum_of(file);
  if (seal == 0) H5Adelete_by_name(file, "pairhist", pairhist::io::kChecksumAttribute, H5P_DEFAULT);
  if (seal == 1 && !after.empty()) set_checksum(file, after);
  H5Fclose(file);
  const bool changed = before != after;
  if (read_all(path) && seal >= 2 && changed)
    pairhist::fuzz::violated("changed contents accepted under the old checksum");
  return 0;
}
