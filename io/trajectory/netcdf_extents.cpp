#include "io/trajectory/netcdf_extents.hpp"

#include <fstream>
#include <vector>

#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

// Tags of the header lists (NetCDF classic format specification).
constexpr uint32_t kDimensionTag = 0x0A, kVariableTag = 0x0B, kAttributeTag = 0x0C;
constexpr uint32_t kMaxListItems = 1u << 20;  // a header of more items is damaged

// Big-endian reads from the header; `ok` turns false at the end of the file.
class HeaderCursor {
 public:
  HeaderCursor(std::ifstream& in, uint64_t file_size) : in_(in), size_(file_size) {}
  uint32_t u32() {
    unsigned char b[4] = {};
    take(b, 4);
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
  }
  uint64_t u64() {
    const uint64_t high = u32();
    return (high << 32) | u32();
  }
  // Whether n more bytes lie in the file: a declared length beyond it is damage, caught here
  // before libnetcdf would allocate it.
  bool fits(uint64_t n) {
    const auto at = in_.tellg();
    if (!ok || at < 0 || n > size_ || static_cast<uint64_t>(at) > size_ - n) ok = false;
    return ok;
  }
  void skip(uint64_t n) {
    if (!fits(n)) return;
    in_.seekg(static_cast<std::streamoff>(n), std::ios::cur);
    if (!in_) ok = false;
  }
  std::string name() {
    const uint32_t n = u32();
    if (!ok || n > 4096 || !fits(n)) return ok = false, "";
    std::string s(n, '\0');
    take(s.data(), n);
    skip((4 - n % 4) % 4);
    return s;
  }
  bool ok = true;

 private:
  void take(void* dst, size_t n) {
    if (!ok) return;
    in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
    if (in_.gcount() != static_cast<std::streamsize>(n)) ok = false;
  }
  std::ifstream& in_;
  uint64_t size_;
};

int64_t type_bytes(uint32_t type) {
  switch (type) {
    case 1:
    case 2:
      return 1;  // byte, char
    case 3:
      return 2;  // short
    case 4:
    case 5:
      return 4;  // int, float
    case 6:
      return 8;  // double
    default:
      return 0;
  }
}

// Skips an attribute list; false where it is damaged.
bool skip_attributes(HeaderCursor& h) {
  const uint32_t tag = h.u32(), count = h.u32();
  if (tag == 0 && count == 0) return h.ok;
  if (tag != kAttributeTag || count > kMaxListItems) return false;
  for (uint32_t a = 0; a < count && h.ok; ++a) {
    h.name();
    const int64_t size = type_bytes(h.u32());
    const uint64_t n = h.u32();
    if (size == 0) return false;
    if (n > (uint64_t{1} << 40)) return false;
    const uint64_t bytes = n * static_cast<uint64_t>(size);
    h.skip(bytes + (4 - bytes % 4) % 4);
  }
  return h.ok;
}

}  // namespace

std::string read_netcdf_extents(const std::string& path, NetcdfExtents& out) {
  out = NetcdfExtents{};
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open the file";
  char magic[4] = {};
  in.read(magic, 4);
  if (in.gcount() != 4 || magic[0] != 'C' || magic[1] != 'D' || magic[2] != 'F' ||
      (magic[3] != 1 && magic[3] != 2))
    return "";
  const int version = magic[3];
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  in.seekg(4, std::ios::beg);
  HeaderCursor h(in, size < 0 ? 0 : static_cast<uint64_t>(size));
  h.u32();  // numrecs: libnetcdf's count is the one used
  std::vector<uint64_t> dims;
  std::vector<bool> unlimited;
  uint32_t tag = h.u32(), count = h.u32();
  if (!(tag == 0 && count == 0)) {
    if (tag != kDimensionTag || count > kMaxListItems) return "damaged dimension list";
    for (uint32_t d = 0; d < count && h.ok; ++d) {
      h.name();
      dims.push_back(h.u32());
      unlimited.push_back(dims.back() == 0);
    }
  }
  if (!skip_attributes(h)) return "damaged global attribute list";
  tag = h.u32(), count = h.u32();
  if (!(tag == 0 && count == 0) && (tag != kVariableTag || count > kMaxListItems))
    return "damaged variable list";
  int record_variables = 0;
  int64_t padded_records = 0, last_record = 0;
  for (uint32_t v = 0; v < count && h.ok && tag == kVariableTag; ++v) {
    const std::string name = h.name();
    const uint32_t rank = h.u32();
    if (rank > 1024) return "damaged variable " + excerpt(name);
    NetcdfVariableExtent e;
    e.rank = rank;
    uint64_t elements = 1;
    for (uint32_t r = 0; r < rank && h.ok; ++r) {
      const uint32_t id = h.u32();
      if (id >= dims.size()) return "variable " + excerpt(name) + " names an unknown dimension";
      if (unlimited[id]) {
        if (r != 0) return "variable " + excerpt(name) + " has its record dimension inside";
        e.record = true;
      } else {
        elements *= dims[id];
        if (elements > (uint64_t{1} << 50))
          return "variable " + excerpt(name) + " is impossibly large";
      }
    }
    if (!skip_attributes(h)) return "damaged attributes of variable " + excerpt(name);
    e.type = h.u32();
    const int64_t size = type_bytes(e.type);
    if (size == 0) return "variable " + excerpt(name) + " has an unknown type";
    h.u32();  // vsize: 32 bits only, recomputed
    e.begin = static_cast<int64_t>(version == 1 ? h.u32() : h.u64());
    e.bytes = static_cast<int64_t>(elements) * size;
    if (e.record) {
      ++record_variables;
      last_record = e.bytes;
      padded_records += (e.bytes + 3) / 4 * 4;
    }
    out.variables[name] = e;
  }
  if (!h.ok) return "the header ends early";
  // One record variable alone is stored unpadded (the classic format's special case).
  out.record_bytes = record_variables == 1 ? last_record : padded_records;
  out.version = version;
  return "";
}

int64_t netcdf_end_of(const NetcdfExtents& extents, const std::string& variable, int64_t record) {
  if (extents.version == 0) return -1;
  const auto it = extents.variables.find(variable);
  if (it == extents.variables.end()) return -1;
  const NetcdfVariableExtent& e = it->second;
  return e.begin + (e.record ? record * extents.record_bytes : 0) + e.bytes;
}

}  // namespace pairhist::io
