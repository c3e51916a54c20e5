// The settings a user gives pairhist through the environment (docs/usage.md, "Environment
// variables"), read once into one struct: the program reads them at its start, before any thread
// (drivers/cli/main.cpp), the Python module as it is imported, a library user on first use.
// Everything else a run can be told is an option of its command, its config or its engine; the
// environment holds only what has no run to belong to (where the sample data and gnuplot are, how
// long a probe or an MPI peer may take) or must reach code that no option reaches (how much the
// pinning hooks may pin). Test hooks (PAIRHIST_TEST_*: a fault injected, a path forced) are no
// settings: each is read where it acts, and only tests set it.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace pairhist {

struct Settings {
  /// PAIRHIST_DATA_DIR: where `synth --case W1` finds the water samples; empty: beside the
  /// program, then the source tree.
  std::string data_dir;
  /// PAIRHIST_GNUPLOT: the gnuplot `pairhist plot` runs (a name looked up on PATH, or a path).
  std::string gnuplot = "gnuplot";
  /// PAIRHIST_HDF5_PROBE_SECONDS: how long a child process may walk an HDF5 file's headers
  /// before the file is refused (io/hdf5/hdf5_probe.hpp); 0 skips the walk.
  int hdf5_probe_seconds = 600;
  /// PAIRHIST_PIN_BUDGET_MB: the most bytes the pinning hooks pin at once (beyond it, columns
  /// stay pageable); unlimited when unset.
  uint64_t pin_budget_bytes = kUnlimited;
  /// PAIRHIST_MPI: 1 treats the process as started by an MPI launcher, 0 as not; unset: found
  /// from the launcher's variables (drivers/distributed/mpi_world.cpp).
  int mpi_launched = -1;
  /// PAIRHIST_MPI_TIMEOUT: seconds a rank waits for a peer that stopped answering.
  double mpi_timeout_seconds = 60;
  /// PAIRHIST_CPU_KERNELS=avx2: the CPU kernels run their AVX2 build even on a CPU with AVX-512
  /// (for A/B measurements; the counts are the same); auto (the default): AVX-512 where the CPU
  /// has it (codelets/cpu/kernel_isa.hpp). The engine and `pairhist bench` apply it.
  bool force_avx2_kernels = false;

  /// One line per variable whose value was refused (the default is used instead), naming the
  /// variable, its value and what it takes.
  std::vector<std::string> warnings;

  static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();

  /// Reads every variable above through env_get (pairhist/environment.hpp).
  static Settings from_environment();
};

/// The process's settings: read from the environment on the first call, which prints their
/// warnings ("pairhist: warning: ..." on stderr). main() and the Python module call it before
/// they start threads.
const Settings& settings();
/// Reads the environment again, for tests that change a variable; only while no other thread
/// reads settings().
void reload_settings();

}  // namespace pairhist
