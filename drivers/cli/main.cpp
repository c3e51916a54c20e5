// The `pairhist` command.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "drivers/cli/bench_command.hpp"
#include "drivers/cli/convert_command.hpp"
#include "drivers/cli/plot_command.hpp"
#include "drivers/cli/run_command.hpp"
#include "drivers/cli/scattering_command.hpp"
#include "drivers/cli/synth_command.hpp"
#include "drivers/distributed/distribution.hpp"
#include "drivers/distributed/mpi_world.hpp"
#include "drivers/job/run_summary.hpp"
#include "drivers/job/stop_signals.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/version.hpp"

namespace {

/// Under mpirun/srun only rank 0 reports the run's errors (every rank meets the same ones);
/// another rank says what went wrong where only it failed.
int report(const char* what, int code) {
  if (pairhist::MpiWorld::is_root()) std::fprintf(stderr, "pairhist: error: %s\n", what);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    pairhist::MpiWorld::start(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pairhist: error: %s\n", e.what());
    return 1;
  }
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
  pairhist::add_scattering_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const pairhist::StoppedBySignal& e) {
    // Ranks of an MPI job end normally (MPI_Finalize, then 128 + signal): a rank killed by the
    // signal would make the launcher end the others, rank 0 perhaps while it writes.
    if (pairhist::MpiWorld::shape().mpi) return 128 + e.signo();
    return pairhist::end_by_signal(e.signo());
  } catch (const pairhist::RankFailure& e) {
    return e.code();
  } catch (const pairhist::UsageError& e) {
    return report(e.what(), 2);
  } catch (const pairhist::InputError& e) {
    return report(e.what(), 1);
  } catch (const std::exception& e) {
    if (!pairhist::MpiWorld::is_root())
      std::fprintf(stderr, "pairhist: error: rank %d: %s\n", pairhist::MpiWorld::shape().rank,
                   e.what());
    return report(e.what(), 1);
  }
  return 0;
}
