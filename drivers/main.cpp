// The `pairhist` command.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "bench_command.hpp"
#include "convert_command.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/version.hpp"
#include "plot_command.hpp"
#include "run_command.hpp"
#include "run_summary.hpp"
#include "stop_signals.hpp"
#include "synth_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "pairhist: pair-distance histograms and radial distribution functions of molecular "
      "dynamics trajectories on all CPU cores and GPUs (StarPU)"};
  app.set_version_flag("--version", std::string("pairhist ") + pairhist::kVersionText);
  pairhist::remember_command_line(argc, argv);
  app.require_subcommand(1);
  pairhist::add_run_command(app);
  pairhist::add_bench_command(app);
  pairhist::add_synth_command(app);
  pairhist::add_convert_command(app);
  pairhist::add_plot_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const pairhist::StoppedBySignal& e) {
    return pairhist::end_by_signal(e.signo());
  } catch (const pairhist::UsageError& e) {
    std::fprintf(stderr, "pairhist: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pairhist: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
