// Where the variables of a NetCDF-3 file lie (its header, read here without libnetcdf):
// libnetcdf reads data beyond the end of a file cut short as zeros, so a reader checks that a
// frame's bytes are in the file before it trusts them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace pairhist::io {

struct NetcdfVariableExtent {
  int64_t begin = 0;  // offset of its first byte (of record 0 for a record variable)
  int64_t bytes = 0;  // its size (per record for a record variable)
  bool record = false;
  uint32_t type = 0;  // NetCDF type: 1 byte, 2 char, 3 short, 4 int, 5 float, 6 double
  uint32_t rank = 0;  // its dimensions, the record dimension included
};

struct NetcdfExtents {
  int version = 0;           // 1 classic, 2 64-bit offset; 0 not NetCDF-3 (HDF5-based, CDF-5)
  int64_t record_bytes = 0;  // bytes from one record of the record variables to the next
  std::map<std::string, NetcdfVariableExtent> variables;
};

/// Reads the header of the NetCDF-3 file `path` into `out`. Returns "" on success (also for a
/// file that is not NetCDF-3, with out.version = 0), otherwise the problem with the header: also
/// a name or attribute whose declared length runs past the end of the file (libnetcdf would
/// allocate it before it noticed).
std::string read_netcdf_extents(const std::string& path, NetcdfExtents& out);

/// The byte just past record `record` of `variable` (its only data when not a record
/// variable), or -1 where `extents` does not know it.
int64_t netcdf_end_of(const NetcdfExtents& extents, const std::string& variable, int64_t record);

}  // namespace pairhist::io
