#include "io/results/hdf5_writer.hpp"

#include <hdf5.h>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analysis/rdf.hpp"
#include "io/common/atomic_file.hpp"
#include "io/hdf5/hdf5_util.hpp"
#include "io/results/result_checksum.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr const char* kVersion = "0.1.0";

using Handle = H5Handle;

class Writer : public H5WriterChecks {
 public:
  using H5WriterChecks::H5WriterChecks;

  Handle group(hid_t parent, const std::string& name) const {
    return Handle(check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        "creating group '" + name + "' failed"),
                  H5Gclose);
  }

  void dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type,
               const void* data, size_t n) const {
    const hsize_t dims[1] = {static_cast<hsize_t>(n)};
    Handle space(check(H5Screate_simple(1, dims, nullptr), "creating dataspace for '" + name + "'"),
                 H5Sclose);
    write_dataset(parent, name, file_type, mem_type, data, space);
  }

  void scalar_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type,
                      const void* data) const {
    Handle space(check(H5Screate(H5S_SCALAR), "creating dataspace for '" + name + "'"), H5Sclose);
    write_dataset(parent, name, file_type, mem_type, data, space);
  }

  void attribute(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type,
                 const void* data) const {
    Handle space(check(H5Screate(H5S_SCALAR), "creating dataspace for attribute '" + name + "'"),
                 H5Sclose);
    Handle attr(
        check(H5Acreate2(obj, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              "creating attribute '" + name + "' failed"),
        H5Aclose);
    check(H5Awrite(attr.get(), mem_type, data), "writing attribute", name);
    check(attr.close(), "closing attribute", name);
  }

  void string_attribute(hid_t obj, const std::string& name, const std::string& value) const {
    // Variable-length strings keep only a heap reference in the object header, so long texts do
    // not hit the 64 KiB limit of compact attribute storage; h5py reads them back as str.
    Handle type(check(H5Tcopy(H5T_C_S1), "creating string type"), H5Tclose);
    check(H5Tset_size(type.get(), H5T_VARIABLE), "sizing string type for", name);
    check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "setting character set for", name);
    const char* text = value.c_str();
    attribute(obj, name, type.get(), type.get(), &text);
  }

 private:
  void write_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type,
                     const void* data, const Handle& space) const {
    Handle set(check(H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT),
                     "creating dataset '" + name + "' failed"),
               H5Dclose);
    check(H5Dwrite(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "writing dataset",
          name);
    check(set.close(), "closing dataset", name);
  }
};

std::string pair_name(const HistogramResult& res, const PairHistogram& p) {
  const int lo = p.a <= p.b ? p.a : p.b;
  const int hi = p.a <= p.b ? p.b : p.a;
  return res.species[lo].name + "," + res.species[hi].name;
}

void validate(const HistogramResult& res) {
  if (res.frame_indices.empty()) {
    throw UsageError("nothing to write: no frames were histogrammed");
  }
  std::set<std::string> seen;
  for (const auto& s : res.species) {
    // '/' would create nested groups and '.' names the current group in HDF5 paths; ',' would
    // make the "A,B" pair dataset names ambiguous.
    if (s.name.empty() || s.name == "." || s.name.find_first_of("/,") != std::string::npos) {
      throw UsageError("species name '" + s.name +
                       "' cannot be written to HDF5 (it must be non-empty and contain no '/' "
                       "or ',')");
    }
    if (!seen.insert(s.name).second) {
      throw UsageError("species name '" + s.name + "' is used twice");
    }
  }
  for (const auto& p : res.pairs) {
    if (p.a < 0 || p.b < 0 || static_cast<size_t>(p.a) >= res.species.size() ||
        static_cast<size_t>(p.b) >= res.species.size()) {
      throw std::logic_error("pair histogram refers to a species that does not exist");
    }
    if (p.counts.size() != static_cast<size_t>(res.nbins)) {
      throw std::logic_error("pair histogram has " + std::to_string(p.counts.size()) +
                             " bins, expected " + std::to_string(res.nbins));
    }
  }
  for (const auto& b : res.intervals) {
    if (b.frame_begin >= b.frame_end || b.frame_end > res.frame_indices.size() ||
        b.counts.size() != res.pairs.size())
      throw std::logic_error("interval block does not match the frames or pairs of the result");
    for (const auto& c : b.counts)
      if (c.size() != static_cast<size_t>(res.nbins))
        throw std::logic_error("interval block histogram has the wrong number of bins");
    if (!b.centre_counts.empty() &&
        (res.centre_counts.empty() || b.centre_counts.size() != res.species.size() ||
         b.centre_counts[0].size() != res.centre_counts[0].size()))
      throw std::logic_error("interval block centre counts do not match the result's");
  }
}

/// What the file holds besides the counts, computed before the disk is touched, so that a
/// normalisation error leaves no partial output.
struct Derived {
  bool have_box = false;
  bool have_curves = false;
  std::string curve_group;  // rdf keeps CADISHI-era readers' "/pairhist/rdf"
  std::vector<analysis::RdfCurve> curves;
  std::vector<double> edges, centres;
};

Derived derive(const HistogramResult& res) {
  Derived d;
  d.have_box = !res.volumes.empty();
  d.have_curves = analysis::can_normalise(res);
  // The other modes name what they hold.
  d.curve_group = res.norm == "rdf" ? "rdf" : analysis::normalised_name(res.norm);
  if (d.have_curves)
    for (const auto& p : res.pairs) d.curves.push_back(analysis::compute_rdf(res, p));
  d.edges = analysis::bin_edges(res.r_min, res.r_max, res.nbins);
  d.centres = analysis::bin_centres(res.r_min, res.r_max, res.nbins);
  return d;
}

/// CADISHI's blocks, each named by the frame number it was written at (without intervals the
/// whole run is one block named after its last frame): histograms/<A>,<B> and radii,
/// particle_numbers/<species>, volumes/box.
void write_blocks(const Writer& w, hid_t file, const HistogramResult& res, const Derived& d) {
  std::vector<IntervalBlock> blocks = res.intervals;
  if (blocks.empty()) {
    IntervalBlock all{0, res.frame_indices.size(), {}};
    for (const auto& p : res.pairs) all.counts.push_back(p.counts);
    blocks.push_back(std::move(all));
  }
  for (const IntervalBlock& b : blocks) {
    const std::string name = std::to_string(res.frame_indices[b.frame_end - 1]);
    Handle block = w.group(file, name);
    {
      Handle hist = w.group(block.get(), "histograms");
      for (size_t i = 0; i < res.pairs.size(); ++i) {
        w.dataset(hist.get(), pair_name(res, res.pairs[i]), H5T_STD_U64LE, H5T_NATIVE_UINT64,
                  b.counts[i].data(), b.counts[i].size());
      }
      w.dataset(hist.get(), "radii", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d.centres.data(),
                d.centres.size());
      w.check(hist.close(), "closing group", "histograms");
    }
    {
      Handle numbers = w.group(block.get(), "particle_numbers");
      for (const auto& s : res.species) {
        const int64_t n = s.count;
        w.scalar_dataset(numbers.get(), s.name, H5T_STD_I64LE, H5T_NATIVE_INT64, &n);
      }
      w.check(numbers.close(), "closing group", "particle_numbers");
    }
    if (!b.centre_counts.empty()) {
      // A --sphere run's centre distances of this block's frames (the errors of the sphere
      // excess); /pairhist/centre_distances holds their sum.
      Handle centre = w.group(block.get(), "centre_distances");
      for (size_t s = 0; s < res.species.size(); ++s)
        w.dataset(centre.get(), res.species[s].name, H5T_STD_U64LE, H5T_NATIVE_UINT64,
                  b.centre_counts[s].data(), b.centre_counts[s].size());
      w.check(centre.close(), "closing group", "centre_distances");
    }
    if (d.have_box) {
      Handle volumes = w.group(block.get(), "volumes");
      double mean = 0;
      for (size_t f = b.frame_begin; f < b.frame_end; ++f) mean += res.volumes[f];
      mean /= static_cast<double>(b.frame_end - b.frame_begin);
      w.scalar_dataset(volumes.get(), "box", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &mean);
      w.check(volumes.close(), "closing group", "volumes");
    }
    w.check(block.close(), "closing group", name);
  }
}

/// /pairhist's attributes: what the run was (units, bins, box, precision, its configuration,
/// whether it completed, the norm and exclusion rule).
void write_run_attributes(const Writer& w, hid_t meta, const HistogramResult& res,
                          const std::string& config_text) {
  w.string_attribute(meta, "version", kVersion);
  w.string_attribute(meta, "length_unit", res.length_unit);
  w.attribute(meta, "r_max", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &res.r_max);
  // Only for bins from r_min > 0: files of bins from 0 stay as they were (readers take 0).
  if (res.r_min > 0) w.attribute(meta, "r_min", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &res.r_min);
  const int64_t nbins = res.nbins;
  w.attribute(meta, "nbins", H5T_STD_I64LE, H5T_NATIVE_INT64, &nbins);
  w.string_attribute(meta, "box_kind", res.box_kind);
  w.string_attribute(meta, "precision", res.precision);
  const int64_t n_frames = static_cast<int64_t>(res.frame_indices.size());
  w.attribute(meta, "n_frames", H5T_STD_I64LE, H5T_NATIVE_INT64, &n_frames);
  w.string_attribute(meta, "config", config_text);
  // A run stopped by bad input keeps the intervals it completed, marked as such.
  const int64_t complete = res.complete ? 1 : 0;
  w.attribute(meta, "complete", H5T_STD_I64LE, H5T_NATIVE_INT64, &complete);
  if (!res.complete) w.string_attribute(meta, "stopped_by", res.stopped_by);
  w.string_attribute(meta, "norm", res.norm);
  w.string_attribute(meta, "exclude", res.exclude);
}

/// Pairs per frame left out of each histogram: by the exclusion rule, and the self pairs of
/// atoms that belong to both species of a pair.
void write_left_out_pairs(const Writer& w, hid_t meta, const HistogramResult& res) {
  Handle excluded = w.group(meta, "excluded_pairs");
  Handle shared = w.group(meta, "shared_atoms");
  for (const auto& p : res.pairs) {
    const std::string name = pair_name(res, p);
    const uint64_t e = p.excluded_pairs, s = p.shared_atoms;
    w.scalar_dataset(excluded.get(), name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &e);
    w.scalar_dataset(shared.get(), name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &s);
  }
  w.check(excluded.close(), "closing group", "excluded_pairs");
  w.check(shared.close(), "closing group", "shared_atoms");
}

/// The bins and the frames: bin edges, frame indices, times, volumes, a sphere run's sphere,
/// and where the species' atoms vary per frame their counts (and a dynamic species' pairs).
void write_frames(const Writer& w, hid_t meta, const HistogramResult& res, const Derived& d) {
  w.dataset(meta, "bin_edges", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d.edges.data(), d.edges.size());
  w.dataset(meta, "frame_indices", H5T_STD_I64LE, H5T_NATIVE_INT64, res.frame_indices.data(),
            res.frame_indices.size());
  w.dataset(meta, "frame_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, res.frame_times.data(),
            res.frame_times.size());
  if (d.have_box)
    w.dataset(meta, "volumes", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, res.volumes.data(),
              res.volumes.size());
  if (!res.sphere.empty()) {
    w.string_attribute(meta, "sphere", res.sphere);
    w.string_attribute(meta, "sphere_centre", res.sphere_centre);
  }
  if (!res.frame_species_counts.empty()) {
    // Per species, its atoms in every frame: those inside the sphere (--sphere), or those a
    // dynamic selection picked, which g(r) is normalised by frame by frame, so that a reader of
    // this file normalises as the run did.
    Handle sizes = w.group(meta, "frame_species_counts");
    for (size_t s = 0; s < res.species.size(); ++s) {
      std::vector<int64_t> n;
      for (const auto& f : res.frame_species_counts) n.push_back(f[s]);
      w.dataset(sizes.get(), res.species[s].name, H5T_STD_I64LE, H5T_NATIVE_INT64, n.data(),
                n.size());
    }
    w.check(sizes.close(), "closing group", "frame_species_counts");
  }
  if (!res.centre_counts.empty()) {
    // A sphere run's atoms by their distance from the centre, per species, summed over the
    // frames (bins of centre_bin_width from 0): the sphere's mean amplitude, which the excess
    // intensity's background term needs (`pairhist scattering --subtract`).
    w.attribute(meta, "centre_bin_width", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &res.centre_bin_width);
    Handle centre = w.group(meta, "centre_distances");
    for (size_t s = 0; s < res.species.size(); ++s)
      w.dataset(centre.get(), res.species[s].name, H5T_STD_U64LE, H5T_NATIVE_UINT64,
                res.centre_counts.at(s).data(), res.centre_counts[s].size());
    w.check(centre.close(), "closing group", "centre_distances");
  }
  if (res.dynamic()) {
    // A dynamic selection's pairs of every frame (its shared atoms change too).
    Handle pairs = w.group(meta, "frame_pairs");
    for (size_t i = 0; i < res.pairs.size(); ++i) {
      std::vector<uint64_t> n;
      for (const auto& f : res.frame_pairs) n.push_back(f[i]);
      w.dataset(pairs.get(), pair_name(res, res.pairs[i]), H5T_STD_U64LE, H5T_NATIVE_UINT64,
                n.data(), n.size());
    }
    w.check(pairs.close(), "closing group", "frame_pairs");
  }
}

/// g(r) (or the norm's quantity) and the coordination numbers of every pair, and with two or
/// more blocks their block-average errors (`<curve>_error`, `coordination_error`).
void write_curves(const Writer& w, hid_t meta, const HistogramResult& res, const Derived& d) {
  Handle rdf = w.group(meta, d.curve_group);
  Handle coordination = w.group(meta, "coordination");
  for (size_t i = 0; i < res.pairs.size(); ++i) {
    const std::string name = pair_name(res, res.pairs[i]);
    w.dataset(rdf.get(), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d.curves[i].g.data(),
              d.curves[i].g.size());
    w.dataset(coordination.get(), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
              d.curves[i].coordination.data(), d.curves[i].coordination.size());
  }
  w.check(rdf.close(), "closing group", d.curve_group);
  w.check(coordination.close(), "closing group", "coordination");
  if (res.intervals.size() < 2) return;
  Handle error = w.group(meta, d.curve_group + "_error");
  Handle coordination_error = w.group(meta, "coordination_error");
  for (size_t i = 0; i < res.pairs.size(); ++i) {
    const analysis::RdfErrors e = analysis::rdf_block_errors(res, i);
    const std::string name = pair_name(res, res.pairs[i]);
    w.dataset(error.get(), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, e.g.data(), e.g.size());
    w.dataset(coordination_error.get(), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
              e.coordination.data(), e.coordination.size());
  }
  w.check(error.close(), "closing group", d.curve_group + "_error");
  w.check(coordination_error.close(), "closing group", "coordination_error");
}

/// The checksum of everything written so far (io/results/result_checksum.hpp), as /pairhist's
/// attribute `checksum`: the last thing the file gets.
void write_checksum(const Writer& w, hid_t file) {
  std::string checksum;
  try {
    checksum = result_checksum(file, "");
  } catch (const InputError& e) {  // a file of our own making: a bug
    throw std::logic_error(std::string("pairhist.h5 fails its own checksum walk: ") + e.what());
  }
  Handle meta(w.check(H5Gopen2(file, "pairhist", H5P_DEFAULT), "opening group 'pairhist'"),
              H5Gclose);
  w.string_attribute(meta.get(), kChecksumAttribute, checksum);
  w.check(meta.close(), "closing group", "pairhist");
}

/// The bytes of the in-memory file, which is then closed.
std::string file_image(const Writer& w, Handle& file) {
  w.check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "flushing file", w.path());
  const ssize_t size = H5Fget_file_image(file.get(), nullptr, 0);
  if (size <= 0) w.fail("cannot take the file's image");
  std::string image(static_cast<size_t>(size), '\0');
  if (H5Fget_file_image(file.get(), image.data(), image.size()) != size)
    w.fail("cannot take the file's image");
  w.check(file.close(), "closing file", w.path());
  return image;
}

}  // namespace

void write_hdf5(const std::string& path, const HistogramResult& res,
                const std::string& config_text) {
  validate(res);
  const Derived derived = derive(res);

  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  const Writer w(path);
  std::string image;
  {
    // The file is built in memory and written out in one piece by our own code: HDF5 1.10 keeps
    // a file whose flush failed (a full disk) open and crashes closing it at exit, and a write
    // error of our own names its cause.
    Handle fapl(w.check(H5Pcreate(H5P_FILE_ACCESS), "creating file access properties"), H5Pclose);
    w.check(H5Pset_fapl_core(fapl.get(), size_t(1) << 20, 0), "choosing the in-memory driver",
            path);
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
    if (file.get() < 0) w.fail("cannot create the file in memory");
    write_blocks(w, file.get(), res, derived);
    {
      Handle meta = w.group(file.get(), "pairhist");
      write_run_attributes(w, meta.get(), res, config_text);
      write_left_out_pairs(w, meta.get(), res);
      write_frames(w, meta.get(), res, derived);
      if (derived.have_curves) write_curves(w, meta.get(), res, derived);
      w.check(meta.close(), "closing group", "pairhist");
    }
    write_checksum(w, file.get());
    image = file_image(w, file);
  }
  write_bytes_atomically(path, image, "the HDF5 file");
}

}  // namespace pairhist::io
