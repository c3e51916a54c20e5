#include "io/scattering/scattering_hdf5.hpp"

#include <hdf5.h>

#include <cmath>
#include <stdexcept>

#include "io/common/atomic_file.hpp"
#include "io/hdf5/hdf5_util.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/version.hpp"

namespace pairhist::io {

namespace {

constexpr const char* kFormat = "pairhist scattering";
constexpr int64_t kFormatVersion = 1;

class Writer : public H5WriterChecks {
 public:
  using H5WriterChecks::H5WriterChecks;

  /// Object creation properties without modification times (the same data give the same
  /// bytes: `run --scattering` and `scattering` are compared byte for byte) and, for groups,
  /// with the members' creation order tracked.
  H5Handle properties(hid_t cls) const {
    H5Handle p(check(H5Pcreate(cls), "creating properties"), H5Pclose);
    check(H5Pset_obj_track_times(p.get(), false), "turning off modification times");
    if (cls != H5P_DATASET_CREATE)
      check(H5Pset_link_creation_order(p.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
            "tracking the creation order");
    return p;
  }

  H5Handle group(hid_t parent, const std::string& name) const {
    const H5Handle gcpl = properties(H5P_GROUP_CREATE);
    return H5Handle(check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                          "creating group '" + name + "'"),
                    H5Gclose);
  }

  H5Handle curve(hid_t parent, const std::string& name, const std::vector<double>& v) const {
    const hsize_t dims[1] = {static_cast<hsize_t>(v.size())};
    H5Handle space(check(H5Screate_simple(1, dims, nullptr), "creating a dataspace"), H5Sclose);
    const H5Handle dcpl = properties(H5P_DATASET_CREATE);
    H5Handle set(check(H5Dcreate2(parent, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                                  dcpl.get(), H5P_DEFAULT),
                       "creating dataset '" + name + "'"),
                 H5Dclose);
    check(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
          "writing dataset '" + name + "'");
    return set;
  }

  void number(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type,
              const void* value) const {
    H5Handle space(check(H5Screate(H5S_SCALAR), "creating a dataspace"), H5Sclose);
    H5Handle attr(
        check(H5Acreate2(obj, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              "creating attribute '" + name + "'"),
        H5Aclose);
    check(H5Awrite(attr.get(), mem_type, value), "writing attribute '" + name + "'");
  }
  void integer(hid_t obj, const std::string& name, int64_t v) const {
    number(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
  }
  void real(hid_t obj, const std::string& name, double v) const {
    number(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
  }

  /// A variable-length UTF-8 string, or with `array` a one-dimensional array of them (h5py
  /// reads them as str).
  void text(hid_t obj, const std::string& name, const std::vector<std::string>& values,
            bool array) const {
    H5Handle type(check(H5Tcopy(H5T_C_S1), "creating a string type"), H5Tclose);
    check(H5Tset_size(type.get(), H5T_VARIABLE), "sizing a string type");
    check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "setting a character set");
    const hsize_t dims[1] = {static_cast<hsize_t>(values.size())};
    H5Handle space(check(array ? H5Screate_simple(1, dims, nullptr) : H5Screate(H5S_SCALAR),
                         "creating a dataspace"),
                   H5Sclose);
    std::vector<const char*> pointers;
    for (const std::string& v : values) pointers.push_back(v.c_str());
    H5Handle attr(
        check(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
              "creating attribute '" + name + "'"),
        H5Aclose);
    check(H5Awrite(attr.get(), type.get(), pointers.data()), "writing attribute '" + name + "'");
  }
  void text(hid_t obj, const std::string& name, const std::string& value) const {
    text(obj, name, {value}, false);
  }
};

void validate(const ScatteringData& d) {
  const auto same_length = [&d](const std::vector<double>& v, const std::string& what) {
    if (v.size() != d.q.size())
      throw std::logic_error("scattering HDF5: " + what + " does not have one value per q");
  };
  for (const auto& c : d.curves) same_length(c.values, "curve " + c.name);
  for (const auto& p : d.partials) same_length(p.values, "partial " + p.a + "-" + p.b);
  for (const auto& p : d.partial_errors) same_length(p.values, "error " + p.a + "-" + p.b);
  const ScatteringDistribution& pr = d.distribution;
  for (const auto* v : {&pr.total, &pr.pairs, &pr.background})
    if (v->size() != pr.r.size())
      throw std::logic_error("scattering HDF5: P(r) does not have one value per r");
  for (const auto& s : d.species) {
    same_length(s.weight, "weight of " + s.name);
    // '/' would nest groups, '.' names the group itself, ',' would make "A,B" ambiguous.
    if (s.name.empty() || s.name == "." || s.name.find_first_of("/,") != std::string::npos)
      throw UsageError("species name '" + s.name +
                       "' cannot be written to HDF5 (it must be non-empty and contain no '/' "
                       "or ',')");
  }
}

void write_contents(const Writer& w, hid_t file, const ScatteringData& d) {
  w.text(file, "format", kFormat);
  w.integer(file, "format_version", kFormatVersion);
  w.text(file, "version", kVersionText);
  w.text(file, "quantity", d.quantity);
  w.text(file, "radiation", d.radiation);
  w.text(file, "weight_unit", d.weight_unit);
  w.text(file, "q_unit", d.q_unit);
  w.text(file, "runs", d.runs, true);
  w.integer(file, "n_frames", d.n_frames);
  w.integer(file, "complete", d.complete ? 1 : 0);
  if (!d.complete) w.text(file, "stopped_by", d.stopped_by);
  if (!std::isnan(d.density)) w.real(file, "density", d.density);
  for (const auto& [key, value] : d.options) w.text(file, key, value);
  w.text(file, "header", d.header, true);
  w.curve(file, "q", d.q);
  for (const ScatteringCurve& c : d.curves)
    w.text(w.curve(file, c.name, c.values).get(), "unit", c.unit);
  const std::string unit = d.curves.empty() ? "" : d.curves.front().unit;
  for (const auto* group : {&d.partials, &d.partial_errors}) {
    if (group == &d.partial_errors && group->empty()) continue;  // files without blocks as before
    H5Handle partials = w.group(file, group == &d.partials ? "partials" : "partial_errors");
    for (const ScatteringPartial& p : *group) {
      H5Handle set = w.curve(partials.get(), p.a + "," + p.b, p.values);
      w.text(set.get(), "a", p.a);
      w.text(set.get(), "b", p.b);
      w.text(set.get(), "unit", unit);
    }
  }
  if (!d.distribution.r.empty()) {
    const ScatteringDistribution& pr = d.distribution;
    H5Handle group = w.group(file, "distribution");
    w.text(w.curve(group.get(), "r", pr.r).get(), "unit", "nm");
    w.text(w.curve(group.get(), "P", pr.total).get(), "unit", pr.unit);
    w.text(w.curve(group.get(), "P_pairs", pr.pairs).get(), "unit", pr.unit);
    w.text(w.curve(group.get(), "P_background", pr.background).get(), "unit", pr.unit);
  }
  H5Handle weights = w.group(file, "weights");
  for (const ScatteringSpecies& s : d.species) {
    H5Handle set = w.curve(weights.get(), s.name, s.weight);
    w.text(set.get(), "scatterer", s.scatterer);
    w.text(set.get(), "origin", s.origin);
    w.text(set.get(), "source", s.source);
    w.integer(set.get(), "atoms", s.atoms);
    if (d.radiation == "neutron") w.real(set.get(), "deuterium", s.deuterium);
    if (!std::isnan(s.concentration)) w.real(set.get(), "concentration", s.concentration);
    w.text(set.get(), "unit", d.weight_unit);
  }
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("cannot read '" + path_ + "': " + what);
  }

  std::vector<double> curve(hid_t loc, const std::string& name, size_t n) const {
    if (!h5_exists(loc, name)) fail("missing dataset '" + name + "'");
    H5Handle set(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) fail("cannot open dataset '" + name + "'");
    if (const std::string problem = h5_check_storage(set.get(), path_); !problem.empty())
      fail("dataset '" + name + "': " + problem);
    const std::vector<hsize_t> dims = h5_dims(set.get());
    if (dims.size() != 1 || (n != SIZE_MAX && dims[0] != n))
      fail("dataset '" + name + "' is not one value per q");
    std::vector<double> v(static_cast<size_t>(dims[0]));
    if (!v.empty() &&
        H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
      fail("cannot read dataset '" + name + "'");
    return v;
  }

  std::vector<std::string> texts(hid_t obj, const std::string& name, const std::string& where,
                                 bool required = true) const {
    std::vector<std::string> v;
    if (!h5_string_attribute(obj, name, v) && required)
      fail("missing attribute '" + name + "' of " + where);
    return v;
  }
  std::string text(hid_t obj, const std::string& name, const std::string& where,
                   bool required = true) const {
    const std::vector<std::string> v = texts(obj, name, where, required);
    if (v.size() != 1 && (required || !v.empty()))
      fail("attribute '" + name + "' of " + where + " is not one string");
    return v.empty() ? "" : v[0];
  }
  template <class T>
  T number(hid_t obj, const std::string& name, hid_t mem_type, const std::string& where) const {
    T value{};
    if (!h5_scalar_attribute(obj, name, mem_type, &value))
      fail("missing attribute '" + name + "' of " + where);
    return value;
  }

  /// The members of `group` in the order they were written.
  std::vector<std::string> members(hid_t loc, const std::string& group) const {
    if (group != "." && !h5_exists(loc, group)) fail("missing group '" + group + "'");
    H5Handle g(H5Gopen2(loc, group.c_str(), H5P_DEFAULT), H5Gclose);
    H5G_info_t info;
    if (!g.valid() || H5Gget_info(g.get(), &info) < 0) fail("cannot open group '" + group + "'");
    std::vector<std::string> names;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      const ssize_t len = H5Lget_name_by_idx(g.get(), ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i,
                                             nullptr, 0, H5P_DEFAULT);
      if (len < 0) fail("group '" + group + "' does not record the order of its members");
      std::string name(static_cast<size_t>(len) + 1, '\0');
      H5Lget_name_by_idx(g.get(), ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name.data(), name.size(),
                         H5P_DEFAULT);
      name.resize(static_cast<size_t>(len));
      names.push_back(name);
    }
    return names;
  }

  H5Handle open(hid_t loc, const std::string& name) const {
    H5Handle set(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) fail("cannot open dataset '" + name + "'");
    return set;
  }

 private:
  std::string path_;
};

}  // namespace

std::string ScatteringData::option(const std::string& key) const {
  for (const auto& [k, v] : options)
    if (k == key) return v;
  return "";
}

void write_scattering_hdf5(const std::string& path, const ScatteringData& data) {
  validate(data);
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  const Writer w(path);
  std::string image;
  {
    // Built in memory and written out in one piece by our own code, as io/results/hdf5_writer.cpp
    // does (a full disk then gives our error line, not HDF5's crash at exit).
    H5Handle fapl(w.check(H5Pcreate(H5P_FILE_ACCESS), "creating file access properties"), H5Pclose);
    w.check(H5Pset_fapl_core(fapl.get(), size_t(1) << 16, 0), "choosing the in-memory driver");
    const H5Handle fcpl = w.properties(H5P_FILE_CREATE);
    H5Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
    if (!file.valid()) w.fail("cannot create the file in memory");
    write_contents(w, file.get(), data);
    w.check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "flushing the file");
    const ssize_t size = H5Fget_file_image(file.get(), nullptr, 0);
    if (size <= 0) w.fail("cannot take the file's image");
    image.resize(static_cast<size_t>(size));
    if (H5Fget_file_image(file.get(), image.data(), image.size()) != size)
      w.fail("cannot take the file's image");
    w.check(file.close(), "closing the file");
  }
  write_bytes_atomically(path, image, "the HDF5 file");
}

bool is_scattering_hdf5(const std::string& path) {
  if (!is_hdf5_file(path)) return false;
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  std::vector<std::string> format;
  return file.valid() && h5_string_attribute(file.get(), "format", format) && format.size() == 1 &&
         format[0] == kFormat;
}

ScatteringData read_scattering_hdf5(const std::string& path) {
  const Reader r(path);
  if (!is_hdf5_file(path)) r.fail("not an HDF5 file (or no such file)");
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) r.fail("HDF5 cannot open it");
  const hid_t f = file.get();
  if (r.text(f, "format", "/", false) != kFormat)
    r.fail("not a pairhist scattering file (no root attribute format = \"pairhist scattering\")");
  if (r.number<int64_t>(f, "format_version", H5T_NATIVE_INT64, "/") != kFormatVersion)
    r.fail("written in a newer layout than this pairhist reads");
  ScatteringData d;
  d.quantity = r.text(f, "quantity", "/");
  d.radiation = r.text(f, "radiation", "/");
  d.weight_unit = r.text(f, "weight_unit", "/");
  d.q_unit = r.text(f, "q_unit", "/");
  d.runs = r.texts(f, "runs", "/");
  d.n_frames = r.number<int64_t>(f, "n_frames", H5T_NATIVE_INT64, "/");
  d.complete = r.number<int64_t>(f, "complete", H5T_NATIVE_INT64, "/") != 0;
  if (!d.complete) d.stopped_by = r.text(f, "stopped_by", "/");
  if (H5Aexists(f, "density") > 0)
    d.density = r.number<double>(f, "density", H5T_NATIVE_DOUBLE, "/");
  for (const char* key :
       {"within_bin", "precision", "window", "form_factors", "hydrogen", "water_factors",
        "intensity_unit", "molecules", "concentration_mol_per_L", "number_density_per_nm3"})
    if (H5Aexists(f, key) > 0) d.options.emplace_back(key, r.text(f, key, "/"));
  d.header = r.texts(f, "header", "/");
  d.q = r.curve(f, "q", SIZE_MAX);
  const size_t n = d.q.size();
  for (const std::string& name : r.members(f, ".")) {
    if (name == "q" || name == "partials" || name == "partial_errors" || name == "weights" ||
        name == "distribution")
      continue;
    ScatteringCurve c{name, "", r.curve(f, name, n)};
    c.unit = r.text(r.open(f, name).get(), "unit", "/" + name);
    d.curves.push_back(std::move(c));
  }
  for (const char* group : {"partials", "partial_errors"}) {
    if (std::string(group) == "partial_errors" && H5Lexists(f, group, H5P_DEFAULT) <= 0) continue;
    for (const std::string& name : r.members(f, group)) {
      const std::string at = std::string(group) + "/" + name;
      const H5Handle set = r.open(f, at);
      (std::string(group) == "partials" ? d.partials : d.partial_errors)
          .push_back({r.text(set.get(), "a", at), r.text(set.get(), "b", at), r.curve(f, at, n)});
    }
  }
  if (H5Lexists(f, "distribution", H5P_DEFAULT) > 0) {
    ScatteringDistribution& pr = d.distribution;
    pr.r = r.curve(f, "distribution/r", SIZE_MAX);
    pr.total = r.curve(f, "distribution/P", pr.r.size());
    pr.pairs = r.curve(f, "distribution/P_pairs", pr.r.size());
    pr.background = r.curve(f, "distribution/P_background", pr.r.size());
    pr.unit = r.text(r.open(f, "distribution/P").get(), "unit", "/distribution/P");
  }
  for (const std::string& name : r.members(f, "weights")) {
    const std::string at = "weights/" + name;
    const H5Handle set = r.open(f, at);
    ScatteringSpecies s;
    s.name = name;
    s.scatterer = r.text(set.get(), "scatterer", at);
    s.origin = r.text(set.get(), "origin", at);
    s.source = r.text(set.get(), "source", at);
    s.atoms = r.number<int64_t>(set.get(), "atoms", H5T_NATIVE_INT64, at);
    if (H5Aexists(set.get(), "deuterium") > 0)
      s.deuterium = r.number<double>(set.get(), "deuterium", H5T_NATIVE_DOUBLE, at);
    if (H5Aexists(set.get(), "concentration") > 0)
      s.concentration = r.number<double>(set.get(), "concentration", H5T_NATIVE_DOUBLE, at);
    s.weight = r.curve(f, at, n);
    d.species.push_back(std::move(s));
  }
  return d;
}

}  // namespace pairhist::io
