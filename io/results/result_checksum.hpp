// The checksum of a pairhist.h5: written by io/results/hdf5_writer.cpp as /pairhist's attribute
// `checksum`, checked by io/results/histogram_result_reader.cpp before anything in the file is
// believed. It catches a file damaged after it was written (a flipped bit on a disk, a truncated
// copy that still opens, an edit by hand), not a forgery: anyone can recompute it.
#pragma once

#include <hdf5.h>

#include <string>

namespace pairhist::io {

/// The attribute of /pairhist that holds the checksum.
inline constexpr const char* kChecksumAttribute = "checksum";

/// "crc32:XXXXXXXX": CRC-32 (zlib's) of what the open HDF5 file `file` holds, in a form that does
/// not depend on how HDF5 laid it out: every group and dataset by path, in name order, with
/// each dataset's kind of values (unsigned, signed, floating point, text), extent and values
/// (integers as 64-bit, floating point as IEEE double, little-endian), and every attribute of
/// every object, by name, the same way, except /pairhist's `checksum` itself. So a changed count,
/// attribute or name, and an added or removed dataset, group or attribute, all change it.
///
/// `path` names the file in errors and bounds what a dataset may claim to store (h5_check_storage;
/// "" for a file in memory). Throws InputError "cannot read 'PATH': ..." for what pairhist never
/// writes: links other than hard links, objects other than groups and datasets, values other than
/// numbers of at most 64 bits and text, more than one dimension, extents the file does not store.
std::string result_checksum(hid_t file, const std::string& path);

}  // namespace pairhist::io
