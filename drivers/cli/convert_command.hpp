// `pairhist convert IN OUT`: trajectories into CADISHI's HDF5 input layout, or into XTC.
#pragma once

#include <CLI/CLI.hpp>

namespace pairhist {

/// Adds the `convert` subcommand to app.
void add_convert_command(CLI::App& app);

}  // namespace pairhist
