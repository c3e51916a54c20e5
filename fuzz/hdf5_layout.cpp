// libFuzzer harness: the H5MD and CADISHI readers on well-formed HDF5 files of any layout. The
// input is not the file: its bytes choose groups, names, dataset ranks, extents, types, storage,
// values and attributes, which this harness writes with the HDF5 library. So the container is
// valid and the fuzzer explores what the readers make of its content (wrong shapes, types, units,
// attribute arrays, missing parts, huge extents without data), thousands of times faster than by
// mutating raw bytes (the h5md and cadishi harnesses, which also fuzz the container). The first
// byte picks the layout family: H5MD (/particles/...) or CADISHI (/<frame>/coordinates/...).
#include <hdf5.h>
#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "pairhist/settings.hpp"

namespace {

// Hands out the input's bytes as small decisions; zeros once they run out.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  unsigned byte() { return at_ < size_ ? data_[at_++] : 0; }
  unsigned pick(unsigned n) { return byte() % n; }
  bool chance(unsigned in256) { return byte() < in256; }
  template <class T>
  const T& one_of(const std::vector<T>& options) {
    return options[pick(static_cast<unsigned>(options.size()))];
  }
  double number() {
    static const std::vector<double> kValues = {0,
                                                1,
                                                -1,
                                                3,
                                                30,
                                                90,
                                                180,
                                                1e-310,
                                                1e308,
                                                -1e308,
                                                std::numeric_limits<double>::infinity(),
                                                std::numeric_limits<double>::quiet_NaN()};
    if (chance(200)) return one_of(kValues);
    double v = 0;
    for (int k = 0; k < 8; ++k) {
      const auto b = static_cast<uint64_t>(byte());
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      bits = (bits << 8) | b;
      std::memcpy(&v, &bits, 8);
    }
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// Extents: small ones that can hold data, and declared ones that cannot.
hsize_t extent(Choices& c) {
  static const std::vector<hsize_t> kExtents = {
      0, 1, 2, 3, 3, 3, 4, 5, 9, 100, hsize_t{1} << 31, hsize_t{1} << 40};
  return c.one_of(kExtents);
}

hid_t numeric_type(Choices& c) {
  static const std::vector<hid_t> kTypes = {H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE, H5T_NATIVE_FLOAT,
                                            H5T_NATIVE_INT,    H5T_NATIVE_SCHAR,  H5T_NATIVE_UINT};
  return c.one_of(kTypes);
}

// A dataset at `name` below `loc`: rank and extents as given, numeric or string type, written
// with values from the input when small enough, chunked (maybe compressed) or contiguous.
void make_dataset(Choices& c, hid_t loc, const char* name, std::vector<hsize_t> dims) {
  hsize_t n = 1;
  for (hsize_t d : dims) n = d != 0 && n > (hsize_t{1} << 40) / d ? (hsize_t{1} << 41) : n * d;
  const bool as_string = c.chance(12);
  hid_t type = as_string ? H5Tcopy(H5T_C_S1) : H5Tcopy(numeric_type(c));
  if (as_string) H5Tset_size(type, 4);
  hid_t space = dims.empty()
                    ? H5Screate(H5S_SCALAR)
                    : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  const bool small = n <= 4096;
  if (!dims.empty() && (!small || c.chance(100))) {
    std::vector<hsize_t> chunk(dims.size());
    for (size_t k = 0; k < dims.size(); ++k)
      chunk[k] = dims[k] == 0 ? 1 : std::min<hsize_t>(dims[k], 64);
    H5Pset_chunk(create, static_cast<int>(chunk.size()), chunk.data());
    if (c.chance(60)) H5Pset_deflate(create, 1);
  }
  hid_t set = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, create, H5P_DEFAULT);
  if (set >= 0 && small && n > 0 && c.chance(230)) {
    if (as_string) {
      std::vector<char> text(static_cast<size_t>(n) * 4);
      for (char& ch : text) ch = static_cast<char>(c.byte());
      H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data());
    } else {
      std::vector<double> values(static_cast<size_t>(n));
      for (double& v : values) v = c.number();
      H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    }
  }
  if (set >= 0) H5Dclose(set);
  H5Pclose(create);
  H5Sclose(space);
  H5Tclose(type);
}

// An attribute: one or several strings (fixed or variable length), or numbers.
void make_attribute(Choices& c, hid_t obj, const char* name,
                    const std::vector<std::string>& words) {
  const hsize_t count = c.chance(200) ? 1 : c.pick(5);
  hid_t space =
      count == 1 && c.chance(128) ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr);
  const unsigned kind = c.pick(4);
  if (kind == 0) {  // numbers
    hid_t attr = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
    std::vector<double> values(count ? count : 1);
    for (double& v : values) v = c.number();
    if (attr >= 0) {
      H5Awrite(attr, H5T_NATIVE_DOUBLE, values.data());
      H5Aclose(attr);
    }
  } else {
    std::vector<std::string> texts(count ? count : 1);
    for (auto& t : texts)
      t = c.chance(40) ? std::string(1, static_cast<char>(c.byte())) : c.one_of(words);
    hid_t type = H5Tcopy(H5T_C_S1);
    if (kind == 1) {
      H5Tset_size(type, H5T_VARIABLE);
      std::vector<const char*> ptrs;
      for (const auto& t : texts) ptrs.push_back(t.c_str());
      hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
      if (attr >= 0) {
        H5Awrite(attr, type, ptrs.data());
        H5Aclose(attr);
      }
    } else {
      const size_t width = kind == 2 ? 8 : 1 + c.pick(12);
      H5Tset_size(type, width);
      if (c.chance(60)) H5Tset_strpad(type, H5T_STR_SPACEPAD);
      std::vector<char> buf(width * texts.size(), '\0');
      for (size_t i = 0; i < texts.size(); ++i)
        std::memcpy(buf.data() + i * width, texts[i].data(), std::min(width, texts[i].size()));
      hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
      if (attr >= 0) {
        H5Awrite(attr, type, buf.data());
        H5Aclose(attr);
      }
    }
    H5Tclose(type);
  }
  H5Sclose(space);
}

hid_t make_group(hid_t loc, const char* name) {
  return H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

void make_h5md(Choices& c, hid_t file) {
  static const std::vector<std::string> kLengthUnits = {"nm", "Angstrom", "pm", "A", "parsec", ""};
  static const std::vector<std::string> kTimeUnits = {"ps", "fs", "ns", "AKMA", "year"};
  static const std::vector<std::string> kBoundaries = {"periodic", "none", "periodic", "hard"};
  static const std::vector<std::string> kGroups = {"all", "water", "all\nx"};
  if (c.chance(200)) H5Gclose(make_group(file, "h5md"));
  if (!c.chance(240)) return;
  const hid_t particles = make_group(file, "particles");
  const unsigned groups = c.chance(230) ? 1 : c.pick(3);
  for (unsigned g = 0; g < groups; ++g) {
    const hid_t group = make_group(particles, kGroups[g].c_str());
    const hsize_t frames = extent(c), atoms = extent(c);
    if (c.chance(240)) {
      const hid_t position = make_group(group, "position");
      std::vector<hsize_t> dims = {frames, atoms, c.chance(230) ? 3 : extent(c)};
      if (c.chance(20)) dims.resize(c.pick(5));
      make_dataset(c, position, "value", dims);
      hid_t value = H5Dopen2(position, "value", H5P_DEFAULT);
      if (value >= 0 && c.chance(128)) make_attribute(c, value, "unit", kLengthUnits);
      if (value >= 0) H5Dclose(value);
      for (const char* name : {"step", "time"}) {
        if (!c.chance(128)) continue;
        if (c.chance(128)) {
          make_dataset(c, position, name, {});
          hid_t set = H5Dopen2(position, name, H5P_DEFAULT);
          if (set >= 0 && c.chance(128)) make_attribute(c, set, "offset", kTimeUnits);
          if (set >= 0 && c.chance(128)) make_attribute(c, set, "unit", kTimeUnits);
          if (set >= 0) H5Dclose(set);
        } else {
          std::vector<hsize_t> dims = {frames + c.pick(3) - 1};
          if (c.chance(20)) dims.push_back(2);
          make_dataset(c, position, name, dims);
        }
      }
      H5Gclose(position);
    }
    if (c.chance(180)) {
      const hid_t box = make_group(group, "box");
      if (c.chance(128)) make_attribute(c, box, "dimension", kBoundaries);
      if (c.chance(230)) make_attribute(c, box, "boundary", kBoundaries);
      const bool per_frame = c.chance(128);
      std::vector<hsize_t> dims;
      if (per_frame) dims.push_back(frames + c.pick(3) - 1);
      dims.push_back(3);
      if (c.chance(128)) dims.push_back(3);
      if (c.chance(20)) dims.back() = extent(c);
      if (per_frame && c.chance(220)) {
        const hid_t edges = make_group(box, "edges");
        make_dataset(c, edges, "value", dims);
        H5Gclose(edges);
      } else {
        make_dataset(c, box, "edges", dims);
      }
      hid_t edges = H5Oopen(box, "edges", H5P_DEFAULT);
      if (edges >= 0 && c.chance(60)) make_attribute(c, edges, "unit", kLengthUnits);
      if (edges >= 0) H5Oclose(edges);
      H5Gclose(box);
    }
    H5Gclose(group);
  }
  H5Gclose(particles);
}

void make_cadishi(Choices& c, hid_t file) {
  static const std::vector<std::string> kFrames = {
      "1", "2", "10", "007", "x", "0", "1234567890123456789"};
  static const std::vector<std::string> kSpecies = {"O", "H", "Cl", "O\x01"};
  const unsigned frames = 1 + c.pick(4);
  for (unsigned f = 0; f < frames; ++f) {
    const std::string& name = c.one_of(kFrames);
    if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) continue;
    const hid_t group = make_group(file, name.c_str());
    if (c.chance(240)) {
      const hid_t coords = make_group(group, "coordinates");
      const unsigned species = c.pick(4);
      for (unsigned s = 0; s < species; ++s) {
        const std::string& sp = kSpecies[s];
        std::vector<hsize_t> dims = {extent(c), c.chance(230) ? 3 : extent(c)};
        if (c.chance(20)) dims.resize(c.pick(4));
        make_dataset(c, coords, sp.c_str(), dims);
      }
      H5Gclose(coords);
    }
    if (c.chance(128)) {
      static const std::vector<std::vector<hsize_t>> kShapes = {{6}, {6}, {3},    {3, 3},
                                                                {0}, {2}, {6, 1}, {}};
      make_dataset(c, group, "dimensions", c.one_of(kShapes));
    }
    H5Gclose(group);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The files are made by the library itself: no need to walk them in a child process first
  // (the settings, read once, are read again with the probe off).
  static const bool probe_off = [] {
    setenv("PAIRHIST_HDF5_PROBE_SECONDS", "0", 1);
    pairhist::reload_settings();
    return true;
  }();
  (void)probe_off;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Choices c(data, size);
  const bool h5md = c.chance(128);
  const std::string& path = pairhist::fuzz::write_input(nullptr, 0, h5md ? ".h5md" : ".h5");
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) pairhist::fuzz::violated("cannot create " + path);
  if (h5md)
    make_h5md(c, file);
  else
    make_cadishi(c, file);
  H5Fclose(file);
  pairhist::fuzz::read_trajectory(path);
  if (!h5md && pairhist::fuzz::carries_species(path)) pairhist::fuzz::read_topology(path);
  return 0;
}
