// libFuzzer harness: the YAML config loader (pairhist's keys and CADISHI's histograms.yaml),
// applied to a command with options of every kind `run` has (text, lists, numbers, choices,
// ranges, flags), as `run --config` does.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "drivers/cli/config_file.hpp"
#include "fuzz/fuzz_support.hpp"
#include "pairhist/errors.hpp"

namespace {

struct Settings {
  std::string trajectory, top, units = "nm", precision = "single", output, config, index;
  std::vector<std::string> species;
  double rmax = 0, volume = 0, begin = 0;
  int nbins = 0, interval = 0, ncpu = -1, cell_reach = 0;
  int64_t first = 0, last = -1, step = 1;
  bool lp_bound = false, quiet = false;
};

void add_options(CLI::App& cmd, Settings& s) {
  cmd.add_option("trajectory", s.trajectory);
  cmd.add_option("--top,-s", s.top);
  cmd.add_option("--species", s.species);
  cmd.add_option("--rmax", s.rmax);
  cmd.add_option("--nbins", s.nbins);
  cmd.add_option("--config", s.config);
  cmd.add_option("--units", s.units)->check(CLI::IsMember({"nm", "angstrom"}));
  cmd.add_option("--precision", s.precision)->check(CLI::IsMember({"single", "double"}));
  cmd.add_option("--volume", s.volume);
  cmd.add_option("--index,-n", s.index);
  cmd.add_option("--interval", s.interval);
  cmd.add_option("-o,--output", s.output);
  cmd.add_option("--first", s.first);
  cmd.add_option("--last", s.last);
  cmd.add_option("--step", s.step);
  cmd.add_option("--begin,-b", s.begin);
  cmd.add_option("--ncpu", s.ncpu);
  cmd.add_option("--cell-reach", s.cell_reach)->check(CLI::Range(0, 3));
  cmd.add_flag("--lp-bound", s.lp_bound);
  cmd.add_flag("-q,--quiet", s.quiet);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = pairhist::fuzz::write_input(data, size, ".yaml");
  CLI::App cmd;
  Settings settings;
  add_options(cmd, settings);
  try {
    pairhist::apply_run_config(cmd, path);
  } catch (const pairhist::UsageError& e) {
    pairhist::fuzz::check_message(e.what(), path + ": ");
  }
  return 0;
}
