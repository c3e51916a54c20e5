// `pairhist bench`: kernel benchmarks over the standard cases, printing bapps (median of repeats).
#pragma once

#include <CLI/CLI.hpp>

namespace pairhist {

void add_bench_command(CLI::App& app);

}  // namespace pairhist
