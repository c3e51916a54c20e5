#include "io/results/result_checksum.hpp"

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include "io/hdf5/hdf5_util.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

// Bounds on what a damaged header can make the walk do: pairhist writes 3 levels of groups and a
// few dozen attributes.
constexpr int kMaxDepth = 8;
constexpr hsize_t kMaxAttributes = 1024;
constexpr uint64_t kMaxAttributeBytes = uint64_t{64} << 20;

class Crc {
 public:
  void bytes(const void* data, size_t n) {
    crc_ = crc32_z(crc_, static_cast<const Bytef*>(data), n);
  }
  void u64(uint64_t v) {
    unsigned char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
    bytes(le, sizeof le);
  }
  void text(const std::string& s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  std::string hex() const {
    char out[16];
    std::snprintf(out, sizeof out, "%08lx", static_cast<unsigned long>(crc_ & 0xffffffffUL));
    return out;
  }

 private:
  uLong crc_ = crc32_z(0L, Z_NULL, 0);
};

class ChecksumWalk {
 public:
  explicit ChecksumWalk(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("cannot read '" + path_ + "': " + excerpt(what, 300));
  }

  void object(hid_t obj, const std::string& at, int depth) {
    H5O_info_t info;
    if (H5Oget_info2(obj, &info, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) < 0)
      fail("cannot describe '" + at + "'");
    // pairhist links every object once; a second path to one would count its data twice.
    if (!seen_.insert(info.addr).second) fail("'" + at + "' is a second link to an object");
    const H5I_type_t kind = H5Iget_type(obj);
    if (kind == H5I_GROUP) {
      crc_.text("group");
      crc_.text(at);
      attributes(obj, at, info.num_attrs);
      if (depth >= kMaxDepth) fail("groups nested deeper than " + std::to_string(kMaxDepth));
      for (const std::string& name : h5_member_names(obj)) {
        const std::string child = (at == "/" ? at : at + "/") + name;
        H5L_info_t link;
        if (H5Lget_info(obj, name.c_str(), &link, H5P_DEFAULT) < 0)
          fail("cannot look at '" + child + "'");
        if (link.type != H5L_TYPE_HARD)
          fail("'" + child + "' is a soft or external link, which pairhist never writes");
        H5Handle opened(H5Oopen(obj, name.c_str(), H5P_DEFAULT), H5Oclose);
        if (!opened.valid()) fail("cannot open '" + child + "'");
        object(opened.get(), child, depth + 1);
      }
    } else if (kind == H5I_DATASET) {
      crc_.text("dataset");
      crc_.text(at);
      attributes(obj, at, info.num_attrs);
      if (const std::string problem = h5_check_storage(obj, path_); !problem.empty())
        fail("dataset '" + at + "' " + problem);
      H5Handle type(H5Dget_type(obj), H5Tclose);
      H5Handle space(H5Dget_space(obj), H5Sclose);
      // Its extent is backed by the file's bytes (checked above): no further bound.
      values(at, type.get(), space.get(), UINT64_MAX, [obj](hid_t mem, void* buf) {
        return H5Dread(obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
      });
    } else {
      fail("'" + at + "' is neither a group nor a dataset");
    }
  }

  std::string result() const { return "crc32:" + crc_.hex(); }

 private:
  void attributes(hid_t obj, const std::string& at, hsize_t count) {
    if (count > kMaxAttributes) fail("'" + at + "' has " + std::to_string(count) + " attributes");
    for (hsize_t k = 0; k < count; ++k) {
      H5Handle attr(
          H5Aopen_by_idx(obj, ".", H5_INDEX_NAME, H5_ITER_INC, k, H5P_DEFAULT, H5P_DEFAULT),
          H5Aclose);
      const ssize_t len = attr.valid() ? H5Aget_name(attr.get(), 0, nullptr) : -1;
      if (len < 0) fail("cannot open an attribute of '" + at + "'");
      std::string name(static_cast<size_t>(len) + 1, '\0');
      if (H5Aget_name(attr.get(), name.size(), name.data()) < 0)
        fail("cannot name an attribute of '" + at + "'");
      name.resize(static_cast<size_t>(len));
      if (at == "/pairhist" && name == kChecksumAttribute) continue;
      crc_.text("attribute");
      crc_.text(name);
      H5Handle type(H5Aget_type(attr.get()), H5Tclose);
      H5Handle space(H5Aget_space(attr.get()), H5Sclose);
      const hid_t a = attr.get();
      values("attribute '" + name + "' of '" + at + "'", type.get(), space.get(),
             kMaxAttributeBytes / 8, [a](hid_t mem, void* buf) { return H5Aread(a, mem, buf); });
    }
  }

  /// The kind, extent and values of a dataset or attribute, read by `read(memory type, buffer)`;
  /// at most `max_values` of them.
  template <class Read>
  void values(const std::string& what, hid_t type, hid_t space, uint64_t max_values, Read read) {
    if (type < 0 || space < 0) fail("cannot describe " + what);
    const H5S_class_t shape = H5Sget_simple_extent_type(space);
    const int rank = H5Sget_simple_extent_ndims(space);
    if ((shape != H5S_SCALAR && shape != H5S_SIMPLE) || rank < 0 || rank > 1)
      fail(what + " is not one value or a list of values");
    const hssize_t points = H5Sget_simple_extent_npoints(space);
    if (points < 0) fail("cannot size " + what);
    const auto n = static_cast<uint64_t>(points);
    if (n > max_values) fail(what + " holds " + std::to_string(n) + " values");
    crc_.u64(static_cast<uint64_t>(rank));
    crc_.u64(n);
    const H5T_class_t kind = H5Tget_class(type);
    const size_t size = H5Tget_size(type);
    if ((kind == H5T_INTEGER || kind == H5T_FLOAT) && size > 0 && size <= 8) {
      const bool is_signed = kind == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2;
      const hid_t mem = kind == H5T_FLOAT ? H5T_NATIVE_DOUBLE
                        : is_signed       ? H5T_NATIVE_INT64
                                          : H5T_NATIVE_UINT64;
      crc_.text(kind == H5T_FLOAT ? "f64" : is_signed ? "i64" : "u64");
      std::vector<uint64_t> bits(static_cast<size_t>(n));
      if (n > 0 && read(mem, bits.data()) < 0) fail("cannot read " + what);
      for (uint64_t b : bits) crc_.u64(b);  // the same 8 bytes for each of the three types
      return;
    }
    if (kind != H5T_STRING || size == 0) fail(what + " holds neither numbers nor text");
    crc_.text("text");
    if (H5Tis_variable_str(type) > 0) {
      H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(mem.get(), H5T_VARIABLE);
      H5Tset_cset(mem.get(), H5Tget_cset(type));
      std::vector<char*> texts(static_cast<size_t>(n), nullptr);
      if (n > 0 && read(mem.get(), texts.data()) < 0) fail("cannot read " + what);
      for (const char* t : texts) crc_.text(t != nullptr ? t : "");
      H5Dvlen_reclaim(mem.get(), space, H5P_DEFAULT, texts.data());
      return;
    }
    const uint64_t max_bytes = max_values > UINT64_MAX / 8 ? UINT64_MAX : max_values * 8;
    if (n > max_bytes / size) fail(what + " is too large");
    std::vector<char> raw(static_cast<size_t>(n) * size);
    if (n > 0 && read(type, raw.data()) < 0) fail("cannot read " + what);
    for (uint64_t i = 0; i < n; ++i) {
      const char* t = raw.data() + i * size;
      crc_.text(std::string(t, strnlen(t, size)));
    }
  }

  std::string path_;
  Crc crc_;
  std::set<haddr_t> seen_;
};

}  // namespace

std::string result_checksum(hid_t file, const std::string& path) {
  ChecksumWalk walk(path);
  H5Handle root(H5Oopen(file, "/", H5P_DEFAULT), H5Oclose);
  if (!root.valid()) walk.fail("cannot open the root group");
  walk.object(root.get(), "/", 0);
  return walk.result();
}

}  // namespace pairhist::io
