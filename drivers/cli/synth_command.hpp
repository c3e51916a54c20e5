// `pairhist synth`: writes a standard benchmark case (K1..K6, F1, and the real-liquid W1, W1-T) as
// an XTC trajectory plus a GRO topology (drivers/workloads/synth_case.hpp) and prints the
// `pairhist run` command that histograms it.
#pragma once

#include <CLI/CLI.hpp>

namespace pairhist {

/// Adds the `synth` subcommand to app: writes the files, prints the `pairhist run` command line on
/// stdout and a summary (and, for long writes, progress) on stderr.
void add_synth_command(CLI::App& app);

}  // namespace pairhist
