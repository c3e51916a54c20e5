// A run's checkpoint: its exact state (drivers/job/job_accumulator.hpp) and what it was computed
// from (every setting that changes the counts, the input files' size and modification time, the
// tool version), so `pairhist run ... --resume` continues it only where the result would be the
// same.
//
// Format (little-endian): the 8 bytes "PHCKPT\r\n", u32 format, u32 0, u64 payload size, the
// payload, and a CRC-32 (zlib) of everything before it. Written through a temporary file, fsync
// and rename (io::write_file_durably), so a crash or kill at any moment leaves the previous
// checkpoint or the new one, never a mixture.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "drivers/job/job_accumulator.hpp"
#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

/// An input file as the run found it.
struct InputStamp {
  std::string role;  // trajectory, topology, index
  std::string path;  // absolute
  uint64_t size = 0;
  int64_t mtime_ns = 0;
};

/// What a run's counts depend on.
struct RunIdentity {
  std::string version;
  std::vector<std::pair<std::string, std::string>> settings;  // (name, value), fixed order
  std::vector<InputStamp> inputs;
};

/// The identity of the job `o` (species given, inputs existing). Throws InputError if an input
/// cannot be looked at.
RunIdentity run_identity(const JobOptions& o);

/// Empty when a run with identity `now` may continue a checkpoint of `saved`; otherwise one line
/// saying what differs (the first difference).
std::string identity_difference(const RunIdentity& saved, const RunIdentity& now);

struct Checkpoint {
  RunIdentity identity;
  JobState state;
  /// A finished run's record: its identity and frames, no counts (its results hold them), so a
  /// later `--resume` can tell that there is nothing left to do, and for which settings.
  bool finished = false;
};

/// The checkpoint's bytes (exposed for the tests, which corrupt them).
std::string encode_checkpoint(const Checkpoint& checkpoint);
/// Throws InputError naming `path` if the bytes are not a whole, intact checkpoint.
Checkpoint decode_checkpoint(const std::string& bytes, const std::string& path);

/// Writes durably; throws OutputError (full disk, ...) leaving the previous checkpoint as it was.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
/// Throws InputError naming `path` if it cannot be read or is not an intact checkpoint.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace pairhist
