// The `pairhist` command.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "drivers/cli/bench_command.hpp"
#include "drivers/cli/convert_command.hpp"
#include "drivers/cli/option_rules.hpp"
#include "drivers/cli/plot_command.hpp"
#include "drivers/cli/rdf_command.hpp"
#include "drivers/cli/run_command.hpp"
#include "drivers/cli/scattering_command.hpp"
#include "drivers/cli/synth_command.hpp"
#include "drivers/distributed/distribution.hpp"
#include "drivers/distributed/mpi_world.hpp"
#include "drivers/job/stop_signals.hpp"
#include "drivers/report/run_summary.hpp"
#include "io/common/child_process.hpp"
#include "pairhist/engine.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/settings.hpp"
#include "pairhist/version.hpp"

namespace {

/// Under mpirun/srun only rank 0 reports the run's errors (every rank meets the same ones);
/// another rank says what went wrong where only it failed.
/// Each line of `what` (problems found together, one per line) as its own error line.
int report(const char* what, int code) {
  if (!pairhist::MpiWorld::is_root()) return code;
  const std::string text = what;
  for (size_t begin = 0; begin <= text.size();) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    std::fprintf(stderr, "pairhist: error: %s\n", text.substr(begin, end - begin).c_str());
    begin = end + 1;
  }
  return code;
}

/// A usage error of the parser (unknown option, missing or extra value, a value of the wrong
/// type): one line and exit status 2, as every other usage error; help and --version exit 0.
int parse_failure(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return app.exit(e);
  std::string what = pairhist::parse_error_text(e);
  if (what.empty()) what = e.get_name();
  report((what + " (pairhist COMMAND --help lists the options)").c_str(), 2);
  return 2;
}

/// `pairhist run` takes one-letter options after one dash and long ones after two. CLI11 reads
/// "-sel X" as "-s el" followed by a stray X, which a gmx user meets at once: refuse every
/// single-dash word of several letters (negative numbers pass) before the parser sees it.
std::string single_dash_word(int argc, char** argv) {
  if (argc < 2) return "";
  const std::string command = argv[1];
  if (command != "run" && command != "calibrate") return "";
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() > 2 && arg[0] == '-' && std::isalpha(static_cast<unsigned char>(arg[1])) &&
        arg.find('=') == std::string::npos)
      return arg;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  // A child process reading for a parent pairhist (a .tpr through libgromacs), started afresh
  // rather than forked from a process with threads (io/common/child_process.hpp).
  if (const int status = pairhist::io::serve_child_job(argc, argv); status >= 0) return status;
  pairhist::io::set_child_command({"/proc/self/exe"});
  // Before any thread (MPI's, CUDA's, the decoding threads): see pairhist/environment.hpp. The
  // user's settings are read here once, their warnings printed before anything else.
  pairhist::settings();
  pairhist::set_starpu_environment_defaults();
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
  pairhist::add_rdf_command(app);
  pairhist::refuse_repeated_options(app);  // as gmx: an option given twice is an error
  if (const std::string word = single_dash_word(argc, argv); !word.empty())
    return report(("'" + word + "': " + argv[1] +
                   " takes one-letter options after one dash (-f, -s, -n, -o, -b, -e) and long "
                   "ones after two (--top, --species); for gmx rdf's options (-ref, -sel, -rmax, "
                   "...) use `pairhist rdf`")
                      .c_str(),
                  2);
  try {
    // gmx rdf's options (-sel, -rmax) are read by the rdf command itself, not by CLI11.
    if (argc >= 2 && std::string(argv[1]) == "rdf")
      pairhist::run_rdf_command(std::vector<std::string>(argv + 2, argv + argc));
    else
      app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failure(app, e);
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
  } catch (const std::filesystem::filesystem_error& e) {
    // A check that did not expect the file system to refuse (a name too long, a directory it
    // may not enter): the path and the system's reason, not "filesystem error: status: ...".
    const std::string path = e.path1().empty() ? "" : e.path1().string() + ": ";
    return report((path + e.code().message()).c_str(), 1);
  } catch (const std::bad_alloc&) {
    return report("out of memory: the run needs more memory than this machine (or its limits) "
                  "allows",
                  1);
  } catch (const std::exception& e) {
    if (!pairhist::MpiWorld::is_root())
      std::fprintf(stderr, "pairhist: error: rank %d: %s\n", pairhist::MpiWorld::shape().rank,
                   e.what());
    return report(e.what(), 1);
  }
  // Every output is written, closed and renamed, and the output directory's lock is gone. The
  // CUDA runtime's teardown at exit (each GPU's context, the pinned memory) took a 2-GPU node
  // 0.27 s after the last file was written: the kernel frees all of that with the process anyway.
  // A rank of an MPI job ends MPI first. Static destructors do not run: nothing may be written
  // from one.
  pairhist::MpiWorld::finish();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(0);
}
