// `pairhist run`: histograms and g(r) of a trajectory, written to an output directory.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>

#include "drivers/cli/run_options.hpp"
#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

/// Adds the `run` subcommand to app; its callback runs the job. A run stopped by a signal throws
/// StoppedBySignal (drivers/job/stop_signals.hpp) once its checkpoint and outputs are written.
void add_run_command(CLI::App& app);

/// What the `run` command does with a resolved request (resolve_run_arguments): the job, its
/// outputs and checkpoints in request.controls.output, for a caller other than the command line
/// (the Python module's run(output=...)). A non-zero `*stop` (JobHooks::stop) stops it as a
/// signal stops the command: StoppedBySignal once its checkpoint and outputs are written; with
/// `stop` null it watches SIGINT, SIGTERM and SIGUSR1 itself (StopSignals), as the command does.
JobOutcome run_writing_outputs(const RunRequest& request, const std::atomic<int>* stop);

}  // namespace pairhist
