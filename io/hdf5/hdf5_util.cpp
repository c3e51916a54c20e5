#include "io/hdf5/hdf5_util.hpp"

#include <filesystem>
#include <limits>
#include <mutex>
#include <system_error>

#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

std::recursive_mutex& gate_mutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

bool in_probe_child = false;

}  // namespace

Hdf5Gate::Hdf5Gate() : locked_(!in_probe_child) {
  if (locked_) gate_mutex().lock();
}

Hdf5Gate::~Hdf5Gate() {
  if (locked_) gate_mutex().unlock();
}

void Hdf5Gate::enter_child() {
  in_probe_child = true;
}

bool h5_exists(hid_t loc, const std::string& name) {
  size_t pos = 0;
  while (true) {
    const size_t slash = name.find('/', pos);
    const std::string prefix = name.substr(0, slash);
    if (!prefix.empty() && H5Lexists(loc, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
    pos = slash + 1;
  }
}

std::vector<std::string> h5_member_names(hid_t group) {
  std::vector<std::string> names;
  H5G_info_t info;
  if (H5Gget_info(group, &info) < 0) return names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t len =
        H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (len < 0) continue;
    std::string name(static_cast<size_t>(len) + 1, '\0');
    H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(),
                       H5P_DEFAULT);
    name.resize(static_cast<size_t>(len));
    names.push_back(name);
  }
  return names;
}

bool h5_string_attribute(hid_t obj, const std::string& name, std::vector<std::string>& values) {
  values.clear();
  if (H5Aexists(obj, name.c_str()) <= 0) return false;
  H5Handle attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return false;
  H5Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING) return false;
  H5Handle space(H5Aget_space(attr.get()), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0) return false;
  const size_t count = static_cast<size_t>(n);
  if (H5Tis_variable_str(type.get()) > 0) {
    // HDF5 does not convert between character sets: read in the file's own.
    H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    std::vector<char*> ptrs(count, nullptr);
    if (H5Aread(attr.get(), mem.get(), ptrs.data()) < 0) return false;
    for (char* p : ptrs) values.emplace_back(p != nullptr ? p : "");
    H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, ptrs.data());
  } else {
    // Fixed length: the raw bytes in the file's own type (any padding), trimmed below.
    const size_t size = H5Tget_size(type.get());
    std::vector<char> buf(size * count);
    if (H5Aread(attr.get(), type.get(), buf.data()) < 0) return false;
    for (size_t i = 0; i < count; ++i) {
      std::string s(buf.data() + i * size, size);
      s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
      while (!s.empty() && s.back() == ' ') s.pop_back();  // Fortran-style space padding
      values.push_back(s);
    }
  }
  return true;
}

bool h5_scalar_attribute(hid_t obj, const std::string& name, hid_t mem_type, void* value) {
  if (H5Aexists(obj, name.c_str()) <= 0) return false;
  H5Handle attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return false;
  H5Handle space(H5Aget_space(attr.get()), H5Sclose);
  if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1) return false;
  return H5Aread(attr.get(), mem_type, value) >= 0;
}

std::vector<hsize_t> h5_dims(hid_t dataset) {
  H5Handle space(H5Dget_space(dataset), H5Sclose);
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  std::vector<hsize_t> dims(rank > 0 ? static_cast<size_t>(rank) : 0);
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

std::string h5_check_storage(hid_t dataset, const std::string& path) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  H5Handle type(H5Dget_type(dataset), H5Tclose);
  const size_t type_size = type.valid() ? H5Tget_size(type.get()) : 0;
  if (type_size == 0) return "has no readable data type";
  uint64_t declared = type_size;  // bytes of the whole extent, saturating
  for (hsize_t d : h5_dims(dataset)) {
    if (d == 0) return {};
    declared = declared > kMax / d ? kMax : declared * d;
  }
  const uint64_t stored = H5Dget_storage_size(dataset);
  std::error_code ec;
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  if (!ec && stored > file_size)
    return "claims " + std::to_string(stored) + " bytes of storage in a file of " +
           std::to_string(file_size);
  H5Handle create(H5Dget_create_plist(dataset), H5Pclose);
  // A read allocates whole chunks: one larger than the data and than any writer's choice would
  // make a damaged header allocate what the file cannot justify.
  if (create.valid() && H5Pget_layout(create.get()) == H5D_CHUNKED) {
    hsize_t chunk[H5S_MAX_RANK] = {};
    const int rank = H5Pget_chunk(create.get(), H5S_MAX_RANK, chunk);
    uint64_t chunk_bytes = type_size;
    for (int d = 0; d < rank; ++d)
      chunk_bytes = chunk[d] != 0 && chunk_bytes > kMax / chunk[d] ? kMax : chunk_bytes * chunk[d];
    if (chunk_bytes > std::max(declared, kMaxChunkBytes))
      return "declares chunks of " + std::to_string(chunk_bytes) + " bytes for " +
             std::to_string(declared) + " bytes of data";
  }
  const int filters = create.valid() ? H5Pget_nfilters(create.get()) : 0;
  const uint64_t ratio = filters > 0 ? kMaxCompressionRatio : 1;
  const uint64_t covered = stored > kMax / ratio ? kMax : stored * ratio;
  if (declared > covered)
    return "declares " + std::to_string(declared) + " bytes of data but the file stores " +
           std::to_string(stored) + (filters > 0 ? " (compressed)" : "");
  return {};
}

void H5WriterChecks::fail(const std::string& what) const {
  throw OutputError("cannot write HDF5 file '" + path_ + "': " + what);
}

hid_t H5WriterChecks::check(hid_t id, const std::string& what) const {
  if (id < 0) fail(what);
  return id;
}

void H5WriterChecks::check(herr_t status, const char* what, const std::string& name) const {
  if (status < 0) fail(std::string(what) + " '" + name + "' failed");
}

bool is_hdf5_file(const std::string& path) {
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  return H5Fis_hdf5(path.c_str()) > 0;
}

}  // namespace pairhist::io
