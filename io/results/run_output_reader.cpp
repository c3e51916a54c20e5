#include "io/results/run_output_reader.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <locale>
#include <sstream>
#include <utility>

#include "io/hdf5/hdf5_util.hpp"
#include "io/results/histogram_result_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ---------------------------------------------------------------------------------------------
// HDF5

/// Owns an HDF5 identifier; failures to close are irrelevant for a read-only file.
class Id {
 public:
  using Closer = herr_t (*)(hid_t);
  Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Id() {
    if (id_ >= 0) closer_(id_);
  }
  Id(Id&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  Id& operator=(Id&&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  Closer closer_;
};

/// HDF5 would print its error stack; we report one InputError line instead.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

class H5Input {
 public:
  explicit H5Input(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("cannot read '" + path_ + "': " + what);
  }

  bool exists(hid_t loc, const std::string& name) const {
    return H5Lexists(loc, name.c_str(), H5P_DEFAULT) > 0;
  }

  Id group(hid_t loc, const std::string& name) const {
    Id g(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), H5Gclose);
    if (!g.ok()) fail("missing group '" + name + "'");
    return g;
  }

  /// Names of the links in a group, in HDF5's name order.
  std::vector<std::string> members(hid_t loc) const {
    std::vector<std::string> names;
    auto collect = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
      static_cast<std::vector<std::string>*>(out)->emplace_back(name);
      return 0;
    };
    if (H5Literate(loc, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names) < 0)
      fail("cannot list a group");
    return names;
  }

  template <class T>
  std::vector<T> vector(hid_t loc, const std::string& name, hid_t mem_type) const {
    Id set(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.ok()) fail("missing dataset '" + name + "'");
    Id space(H5Dget_space(set.get()), H5Sclose);
    const hssize_t n = space.ok() ? H5Sget_simple_extent_npoints(space.get()) : -1;
    if (n < 0) fail("bad dataspace of '" + name + "'");
    std::vector<T> v(static_cast<size_t>(n));
    if (n > 0 && H5Dread(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
      fail("cannot read dataset '" + name + "'");
    return v;
  }

  template <class T>
  T scalar_attribute(hid_t obj, const char* name, hid_t mem_type) const {
    Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    T value{};
    if (!attr.ok() || H5Aread(attr.get(), mem_type, &value) < 0)
      fail(std::string("missing attribute '") + name + "' of /pairhist");
    return value;
  }

  std::string string_attribute(hid_t obj, const char* name) const {
    Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    if (!attr.ok()) fail(std::string("missing attribute '") + name + "' of /pairhist");
    Id type(H5Aget_type(attr.get()), H5Tclose);
    if (!type.ok() || H5Tget_class(type.get()) != H5T_STRING)
      fail(std::string("attribute '") + name + "' is not a string");
    if (H5Tis_variable_str(type.get()) > 0) {
      char* text = nullptr;
      if (H5Aread(attr.get(), type.get(), &text) < 0 || text == nullptr)
        fail(std::string("cannot read attribute '") + name + "'");
      std::string value(text);
      H5free_memory(text);
      return value;
    }
    std::string value(H5Tget_size(type.get()), '\0');
    if (H5Aread(attr.get(), type.get(), value.data()) < 0)
      fail(std::string("cannot read attribute '") + name + "'");
    return value.substr(0, value.find('\0'));
  }

 private:
  std::string path_;
};

/// The species in the run's order, from the `species.<name> = ...` lines of the config attribute
/// (empty if there is none).
std::vector<std::string> species_order(const H5Input& in, hid_t meta) {
  std::vector<std::string> names;
  if (H5Aexists(meta, "config") <= 0) return names;
  std::istringstream config(in.string_attribute(meta, "config"));
  for (std::string line; std::getline(config, line);) {
    const size_t eq = line.find(" = ");
    if (line.compare(0, 8, "species.") == 0 && eq != std::string::npos)
      names.push_back(line.substr(8, eq - 8));
  }
  return names;
}

/// HDF5 lists pairs by name; the run's order (A-A, A-B, ..., by species order) reads better and
/// matches rdf.csv. Pairs stay as they are if a species is not in `species`.
void order_as_run(std::vector<RunOutputPair>& pairs, std::vector<std::string>& h5_names,
                  const std::vector<std::string>& species) {
  std::vector<std::pair<size_t, size_t>> keys;
  for (const std::string& name : h5_names) {
    const size_t comma = name.find(',');
    const auto a = std::find(species.begin(), species.end(), name.substr(0, comma));
    const auto b = std::find(species.begin(), species.end(), name.substr(comma + 1));
    if (comma == std::string::npos || a == species.end() || b == species.end()) return;
    keys.emplace_back(a - species.begin(), b - species.begin());
  }
  std::vector<size_t> idx(pairs.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return keys[x] < keys[y]; });
  std::vector<RunOutputPair> sorted_pairs;
  std::vector<std::string> sorted_names;
  for (size_t i : idx) {
    sorted_pairs.push_back(std::move(pairs[i]));
    sorted_names.push_back(h5_names[i]);
  }
  pairs = std::move(sorted_pairs);
  h5_names = std::move(sorted_names);
}

RunOutput read_hdf5(const std::string& path) {
  // The checks of `pairhist scattering`'s reader first (its checksum, the bounds of its counts, a
  // walk by the HDF5 library in a child process), so that what is plotted is what was counted.
  const std::vector<std::string> notes = read_histogram_result(path).notes;
  Hdf5Gate gate;  // see hdf5_util.hpp
  QuietHdf5 quiet;
  const H5Input in(path);
  if (H5Fis_hdf5(path.c_str()) <= 0) in.fail("not an HDF5 file");
  Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) in.fail("cannot open the HDF5 file");
  if (!in.exists(file.get(), "pairhist"))
    in.fail("no /pairhist group: not written by pairhist run");
  Id meta = in.group(file.get(), "pairhist");

  RunOutput out;
  out.path = path;
  out.notes = notes;
  out.length_unit = in.string_attribute(meta.get(), "length_unit");
  out.r_max = in.scalar_attribute<double>(meta.get(), "r_max", H5T_NATIVE_DOUBLE);
  const auto nbins = in.scalar_attribute<int64_t>(meta.get(), "nbins", H5T_NATIVE_INT64);
  out.n_frames = in.scalar_attribute<int64_t>(meta.get(), "n_frames", H5T_NATIVE_INT64);
  const std::vector<double> edges = in.vector<double>(meta.get(), "bin_edges", H5T_NATIVE_DOUBLE);
  if (nbins <= 0 || edges.size() != static_cast<size_t>(nbins) + 1)
    in.fail("analysis::bin_edges does not match nbins");
  for (int64_t k = 0; k < nbins; ++k) out.r.push_back(0.5 * (edges[k] + edges[k + 1]));

  // Counts: the sum over every block group (CADISHI's layout: one per interval).
  std::vector<std::string> h5_names;  // "A,B" of each pair
  for (const std::string& block : in.members(file.get())) {
    if (block == "pairhist") continue;
    Id hist = in.group(file.get(), block + "/histograms");
    for (const std::string& name : in.members(hist.get())) {
      if (name == "radii") continue;
      std::string label = name;
      std::replace(label.begin(), label.end(), ',', '-');
      auto it = std::find_if(out.pairs.begin(), out.pairs.end(),
                             [&](const RunOutputPair& p) { return p.label == label; });
      if (it == out.pairs.end()) {
        out.pairs.push_back(
            {label, std::vector<double>(static_cast<size_t>(nbins), 0.0), {}, {}, {}, {}});
        h5_names.push_back(name);
        it = out.pairs.end() - 1;
      }
      const auto counts = in.vector<uint64_t>(hist.get(), name, H5T_NATIVE_UINT64);
      if (counts.size() != static_cast<size_t>(nbins))
        in.fail("histogram '" + block + "/histograms/" + name + "' does not have nbins bins");
      for (size_t k = 0; k < counts.size(); ++k) it->counts[k] += static_cast<double>(counts[k]);
    }
  }
  if (out.pairs.empty()) in.fail("no histograms");
  order_as_run(out.pairs, h5_names, species_order(in, meta.get()));

  const bool rdf = in.exists(meta.get(), "rdf");
  const bool errors = rdf && in.exists(meta.get(), "rdf_error");
  for (size_t i = 0; i < out.pairs.size(); ++i) {
    RunOutputPair& p = out.pairs[i];
    const std::string& name = h5_names[i];
    if (!rdf) continue;
    p.g = in.vector<double>(meta.get(), "rdf/" + name, H5T_NATIVE_DOUBLE);
    p.coordination = in.vector<double>(meta.get(), "coordination/" + name, H5T_NATIVE_DOUBLE);
    if (errors) p.g_error = in.vector<double>(meta.get(), "rdf_error/" + name, H5T_NATIVE_DOUBLE);
    if (errors && in.exists(meta.get(), "coordination_error"))
      p.coordination_error =
          in.vector<double>(meta.get(), "coordination_error/" + name, H5T_NATIVE_DOUBLE);
    for (const auto* v : {&p.g, &p.coordination})
      if (v->size() != static_cast<size_t>(nbins))
        in.fail("g(r) of " + p.label + " has the wrong length");
    if (errors && p.g_error.size() != static_cast<size_t>(nbins))
      in.fail("rdf_error of " + p.label + " has the wrong length");
    if (!p.coordination_error.empty() && p.coordination_error.size() != static_cast<size_t>(nbins))
      in.fail("coordination_error of " + p.label + " has the wrong length");
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// CSV

/// Splits one CSV row (RFC 4180 quoting, as text_writers.cpp writes header fields).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

[[noreturn]] void csv_fail(const std::string& path, size_t line, const std::string& what) {
  throw InputError("cannot read '" + path + "' line " + std::to_string(line) + ": " + what);
}

// Per column of an rdf.csv header: which pair and which quantity (0 count, 1 g, 2 n, 3 gerr, 4
// nerr; -1 the r column). Adds the pairs to `out` in the order of their count_ columns.
std::vector<std::pair<int, int>> csv_column_roles(const std::vector<std::string>& header,
                                                  const std::string& path, size_t line_no,
                                                  RunOutput& out) {
  if (!starts_with(header[0], "r_"))
    csv_fail(path, line_no, "no r_<unit> column: not an rdf.csv of pairhist run");
  out.length_unit = header[0].substr(2);
  std::vector<std::pair<int, int>> roles;
  roles.push_back({-1, -1});
  const std::pair<const char*, int> kinds[] = {
      {"count_", 0}, {"gerr_", 3}, {"nerr_", 4}, {"g_", 1}, {"n_", 2}};
  for (size_t c = 1; c < header.size(); ++c) {
    int kind = -1;
    std::string label;
    for (const auto& [prefix, k] : kinds)
      if (starts_with(header[c], prefix)) {
        kind = k;
        label = header[c].substr(std::string(prefix).size());
        break;
      }
    if (kind < 0) csv_fail(path, line_no, "unknown column '" + header[c] + "'");
    auto it = std::find_if(out.pairs.begin(), out.pairs.end(),
                           [&](const RunOutputPair& p) { return p.label == label; });
    if (it == out.pairs.end()) {
      if (kind != 0) csv_fail(path, line_no, "column '" + header[c] + "' before count_" + label);
      out.pairs.push_back({label, {}, {}, {}, {}, {}});
      it = out.pairs.end() - 1;
    }
    roles.push_back({static_cast<int>(it - out.pairs.begin()), kind});
  }
  return roles;
}

// One cell of a data row: a number in the C locale, or nan.
double csv_number(const std::string& cell, const std::string& path, size_t line_no) {
  std::istringstream s(cell);
  s.imbue(std::locale::classic());
  double v = 0;
  if (cell == "nan" || cell == "-nan") {
    v = std::nan("");
  } else if (!(s >> v) || !(s >> std::ws).eof()) {
    csv_fail(path, line_no, "'" + cell + "' is not a number");
  }
  return v;
}

RunOutput read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read '" + path + "': cannot open the file");
  RunOutput out;
  out.path = path;
  std::vector<std::string> header;
  std::vector<std::pair<int, int>> roles;  // csv_column_roles
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (starts_with(line, "# frames: ")) out.n_frames = std::atoll(line.c_str() + 10);
      continue;
    }
    if (header.empty()) {
      header = split_csv(line);
      roles = csv_column_roles(header, path, line_no, out);
      continue;
    }
    const std::vector<std::string> cells = split_csv(line);
    if (cells.size() != header.size())
      csv_fail(path, line_no,
               std::to_string(cells.size()) + " fields, the header has " +
                   std::to_string(header.size()));
    for (size_t c = 0; c < cells.size(); ++c) {
      const double v = csv_number(cells[c], path, line_no);
      const auto [pair, kind] = roles[c];
      if (pair < 0) {
        out.r.push_back(v);
        continue;
      }
      if (kind == 0 && !(v >= 0 && std::isfinite(v) && v == std::floor(v)))
        csv_fail(path, line_no, "count '" + excerpt(cells[c]) + "' is not a number of pairs");
      RunOutputPair& p = out.pairs[static_cast<size_t>(pair)];
      (kind == 0   ? p.counts
       : kind == 1 ? p.g
       : kind == 2 ? p.coordination
       : kind == 3 ? p.g_error
                   : p.coordination_error)
          .push_back(v);
    }
  }
  if (header.empty() || out.r.empty()) throw InputError("cannot read '" + path + "': no data rows");
  for (const auto& p : out.pairs)
    if ((p.g.empty() != out.pairs.front().g.empty()) ||
        (p.g_error.empty() != out.pairs.front().g_error.empty()))
      throw InputError("cannot read '" + path + "': pairs have different columns");
  const size_t n = out.r.size();
  out.r_max = n > 1 ? out.r.back() + 0.5 * (out.r[1] - out.r[0]) : 2 * out.r[0];
  return out;
}

}  // namespace

RunOutput read_run_output(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const char* name : {"pairhist.h5", "rdf.csv"}) {
      const fs::path candidate = fs::path(path) / name;
      if (fs::exists(candidate, ec)) return read_run_output(candidate.string());
    }
    throw InputError("cannot read '" + path + "': directory has neither pairhist.h5 nor rdf.csv");
  }
  if (!fs::exists(path, ec))
    throw InputError("cannot read '" + path + "': no such file or directory");
  if (ends_with(path, ".csv")) return read_csv(path);
  return read_hdf5(path);
}

}  // namespace pairhist::io
