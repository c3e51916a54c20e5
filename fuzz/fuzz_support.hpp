// What every fuzz harness shares: the input as a file (the readers take paths), the rule that bad
// input may only end in pairhist's own one-line errors, and the checks that turn a reader's broken
// promise into a crash libFuzzer reports. Harnesses are built twice: with clang and libFuzzer
// (PAIRHIST_FUZZ=ON, scripts/fuzz.sh) and with the normal compiler around replay_main.cpp, which
// feeds the regression corpus to them under CTest (label fuzz).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pairhist::fuzz {

/// Writes the input to this process's file named input<extension>, in a private directory under
/// $TMPDIR (or /dev/shm, else the system's temporary directory), removed when the process ends.
/// Returns the path; the file is rewritten by every call.
const std::string& write_input(const uint8_t* data, size_t size, const std::string& extension);

/// Reports a broken invariant and aborts, so libFuzzer (or the replay test) records the input.
[[noreturn]] void violated(const std::string& what);

/// Aborts unless `message` is one line that starts with `prefix` (the file the error is about).
void check_message(const std::string& message, const std::string& prefix);

/// Reads every frame of the trajectory `path` through open_trajectory and checks the frames
/// against the reader's contract. InputError and UsageError are the expected outcomes of bad
/// input; anything else escapes (libFuzzer reports it as a crash).
void read_trajectory(const std::string& path);

/// Reads the topology `path` through read_topology and checks that its per-atom lists agree.
void read_topology(const std::string& path);

/// Whether `path` is its own topology (io::carries_species); an InputError (an HDF5 file that
/// cannot be opened or walked) is checked like the readers' and means no.
bool carries_species(const std::string& path);

/// The input as a trajectory file with this extension (".xtc", ".trr", ...).
int fuzz_trajectory(const uint8_t* data, size_t size, const char* extension);

/// The input as a topology file with this extension (".gro", ".pdb", ".xyz").
int fuzz_topology(const uint8_t* data, size_t size, const char* extension);

}  // namespace pairhist::fuzz
