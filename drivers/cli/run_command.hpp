// `pairhist run`: histograms and g(r) of a trajectory, written to an output directory.
#pragma once

#include <CLI/CLI.hpp>

namespace pairhist {

/// Adds the `run` subcommand to app; its callback runs the job. A run stopped by a signal throws
/// StoppedBySignal (drivers/job/stop_signals.hpp) once its checkpoint and outputs are written.
void add_run_command(CLI::App& app);

}  // namespace pairhist
