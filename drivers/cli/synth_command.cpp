#include "drivers/cli/synth_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>

#include "drivers/workloads/synth_case.hpp"
#include "io/common/output_paths.hpp"

namespace pairhist {

namespace {

struct SynthArgs {
  SynthOptions options;
  bool progress = false;
  bool quiet = false;
  bool overwrite = false;
};

/// Progress at most once a second, only once the write has taken a second (short writes stay
/// silent), and only where a person is watching unless forced.
std::function<void(int, int)> make_progress(bool forced) {
  if (!forced && !isatty(STDERR_FILENO)) return nullptr;
  const auto start = std::chrono::steady_clock::now();
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(start);
  return [start, last](int done, int total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::seconds(1) && done < total) return;
    if (now - start < std::chrono::seconds(1)) return;
    *last = now;
    const double s = std::chrono::duration<double>(now - start).count();
    std::fprintf(stderr, "\rpairhist synth: frame %d of %d (%.1f frames/s)%s", done, total,
                 done / s, done == total ? "\n" : "");
    std::fflush(stderr);
  };
}

/// No file written may replace the sample it is made from.
void check_synth_files(const SynthArgs& a) {
  const SynthOptions& o = a.options;
  namespace fs = std::filesystem;
  io::CommandFiles files;
  files.read(o.sample_xtc, "--sample " + o.sample_xtc);
  const std::string top = o.sample_gro.empty() && !o.sample_xtc.empty()
                              ? fs::path(o.sample_xtc).replace_extension(".gro").string()
                              : o.sample_gro;
  files.read(top, "--sample-top " + top);
  if (!o.output.empty())
    for (const char* ext : {".xtc", ".gro"}) {
      const std::string file = (fs::path(o.output) / (o.case_name + ext)).string();
      files.write(file, "the output " + file);
    }
  files.check(a.overwrite);
}

void run_synth(SynthArgs& a) {
  check_synth_files(a);
  if (!a.quiet) a.options.progress = make_progress(a.progress);
  const SynthResult r = synth_case(a.options);
  if (!a.quiet) {
    const std::string replicas =
        r.replicas > 0 ? std::to_string(r.replicas) + "^3 replicas, " : std::string();
    std::fprintf(stderr,
                 "pairhist synth: wrote %s (%s%d atoms, %d frames, precision %g, %.1f MB, "
                 "%.2f MB/frame, %.1f s, %.1f frames/s) and %s\n",
                 r.xtc_path.c_str(), replicas.c_str(), r.natoms, r.frames, r.precision,
                 r.xtc_bytes / 1e6, r.frames > 0 ? r.xtc_bytes / 1e6 / r.frames : 0.0, r.seconds,
                 r.seconds > 0 ? r.frames / r.seconds : 0.0, r.gro_path.c_str());
    if (!r.note.empty()) std::fprintf(stderr, "pairhist synth: note: %s\n", r.note.c_str());
  }
  // Alone on stdout, so scripts can capture and run it.
  std::printf("%s\n", r.run_command.c_str());
}

}  // namespace

void add_synth_command(CLI::App& app) {
  auto a = std::make_shared<SynthArgs>();
  CLI::App* cmd = app.add_subcommand(
      "synth",
      "Write a standard case (K1..K6, F1: atom names S0, S1, ... per species; W1, W1-T: a real "
      "liquid sample replicated n x n x n) as DIR/<case>.xtc + DIR/<case>.gro and print the "
      "`pairhist run` command that histograms it");
  cmd->add_option("--case", a->options.case_name, "K1..K6, F1, W1 (water) or W1-T (triclinic)")
      ->capture_default_str();
  cmd->add_option("--n", a->options.n,
                  "Scale the case to about n atoms (0: as defined; W1: n replicas per direction "
                  "with n = round(cbrt(N / sample atoms)), default about 1.4e6 atoms)");
  cmd->add_option("--frames", a->options.frames,
                  "Override the number of frames (0: as defined; W1: the sample's, cycled "
                  "through when more)");
  cmd->add_option("--replicas", a->options.replicas,
                  "W1, W1-T: replicas per lattice direction (n^3 copies), instead of --n");
  cmd->add_option("--sample", a->options.sample_xtc,
                  "W1, W1-T: the liquid trajectory to replicate (default: the bundled sample in "
                  "$PAIRHIST_DATA_DIR, ../../data next to the executable, or the source tree)");
  cmd->add_option("--sample-top", a->options.sample_gro,
                  "W1, W1-T: the sample's GRO topology (default: --sample with .gro)");
  cmd->add_option("-o,--output", a->options.output, "Output directory")->required();
  cmd->add_option("--precision", a->options.precision,
                  "XTC precision in steps per nm (0: a step of at most a tenth of a bin, at "
                  "least 1000; W1: 1000)")
      ->capture_default_str();
  cmd->add_flag("--progress", a->progress, "Show progress even when stderr is not a terminal");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress, no summary (the command is still printed)");
  cmd->add_flag("--overwrite", a->overwrite,
                "Replace existing output files without keeping a backup #NAME.N# (default: kept, "
                "as GROMACS does)");
  cmd->callback([a]() { run_synth(*a); });
}

}  // namespace pairhist
