// `pairhist rdf`: gmx rdf's command line and output files on pairhist's engine.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace pairhist {

/// Lists `rdf` among app's commands (for `pairhist --help`); main hands its words to
/// run_rdf_command, since gmx's options (-sel, -rmax) are no CLI11 options.
void add_rdf_command(CLI::App& app);

/// Runs `pairhist rdf ARGS...`. Throws UsageError (every problem of the arguments, one line
/// each), InputError or OutputError.
void run_rdf_command(const std::vector<std::string>& args);

}  // namespace pairhist
