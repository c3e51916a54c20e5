#include "io/trajectory/trajectory_opening.hpp"

#include <algorithm>
#include <utility>

#include "io/trajectory/amber_netcdf_parallel_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/host_cores.hpp"

namespace pairhist::io {
namespace {

InputError file_ends(const std::string& path, int64_t frames, int64_t skip) {
  return InputError(path + ": the file ends after " + std::to_string(frames) +
                    " frames, before frame " + std::to_string(skip) + " where the run resumes");
}

/// The XTC reader open_trajectory_threaded gives for `decode_threads`, continuing `scanner`
/// after `frames_before` frames.
std::unique_ptr<TrajectoryReader> xtc_reader_after(std::unique_ptr<xtc::Scanner> scanner,
                                                   int decode_threads, const FramePreparation& prep,
                                                   int64_t frames_before,
                                                   FrameChooser chooser = {}) {
  auto serial = [&] {
    auto reader = std::make_unique<XtcReader>(std::move(scanner), frames_before);
    if (chooser) reader->choose_frames(std::move(chooser));
    return reader;
  };
  if (decode_threads == 1) return serial();
  if (decode_threads > 1)
    return std::make_unique<XtcParallelReader>(std::move(scanner), decode_threads, prep, 0,
                                               frames_before, std::move(chooser));
  // Automatic: the starting threads run; up to the maximum wait, in case the run needs them.
  const int cores = usable_cores();
  const int natoms = scanner->natoms();
  const int threads = automatic_decode_threads(natoms, cores);
  if (automatic_max_decode_threads(natoms, cores) == 1) return serial();
  return std::make_unique<XtcParallelReader>(std::move(scanner),
                                             automatic_max_decode_threads(natoms, cores), prep,
                                             threads, frames_before, std::move(chooser));
}

}  // namespace

int automatic_decode_threads(int natoms, int cores) {
  if (natoms < kParallelDecodeMinAtoms) return 1;
  return std::clamp(cores / 4, 1, 4);
}

int automatic_max_decode_threads(int natoms, int cores, double memory_bytes) {
  if (natoms < kParallelDecodeMinAtoms) return 1;
  // A thread's kFramesPerDecodeThread frames of columns decoded directly (12 bytes per atom
  // each); twice that where whole frames are decoded and gathered.
  const double per_thread = 12.0 * kFramesPerDecodeThread * std::max(natoms, 1);
  const int by_memory = static_cast<int>(std::clamp(memory_bytes / per_thread, 1.0, 1e6));
  return std::max(automatic_decode_threads(natoms, cores), std::min(cores - 1, by_memory));
}

int automatic_max_decode_threads(int natoms, int cores) {
  return automatic_max_decode_threads(natoms, cores, decode_memory_bytes());
}

double decode_memory_bytes() {
  return std::max(kDecodeMemoryBytes,
                  kDecodeMemoryFraction * static_cast<double>(host_memory_bytes()));
}

std::unique_ptr<TrajectoryReader> open_trajectory_threaded(const std::string& path,
                                                           int decode_threads,
                                                           const FramePreparation& prep,
                                                           FrameChooser chooser) {
  if (decode_threads < 0) throw UsageError("--decode-threads must be >= 0 (0: automatic)");
  const std::string ext = lower_extension(path);
  // Automatic is serial: threads gained nothing over the page-cached serial reader where it was
  // measured (docs/performance.md, "AMBER NetCDF on threads"); --decode-threads N asks for them.
  if (ext == ".nc" || ext == ".ncdf")
    return open_amber_netcdf(
        path, [&](int) { return decode_threads > 1 ? decode_threads : 1; }, std::move(chooser));
  if (ext != ".xtc") {
    auto reader = open_trajectory(path);
    if (chooser) reader->choose_frames(std::move(chooser));  // readers that can pass over frames
    return reader;
  }
  return xtc_reader_after(std::make_unique<xtc::Scanner>(path), decode_threads, prep, 0,
                          std::move(chooser));
}

std::unique_ptr<TrajectoryReader> open_trajectory_after(const std::string& path, int decode_threads,
                                                        int64_t skip,
                                                        const FramePreparation& prep) {
  if (skip <= 0 || lower_extension(path) != ".xtc") {
    auto reader = open_trajectory_threaded(path, decode_threads, prep);
    TrajectoryFrame dropped;
    for (int64_t k = 0; k < skip; ++k)
      if (!reader->next(dropped)) throw file_ends(path, k, skip);
    return reader;
  }
  if (decode_threads < 0) throw UsageError("--decode-threads must be >= 0 (0: automatic)");
  // Each frame header gives its byte count: the skipped frames are read, never decoded.
  auto scanner = std::make_unique<xtc::Scanner>(path);
  xtc::RawFrame raw;
  std::string problem;
  for (int64_t k = 0; k < skip; ++k) {
    const auto status = scanner->read(raw, problem);
    if (status == xtc::Scanner::Status::end) throw file_ends(path, k, skip);
    if (status == xtc::Scanner::Status::error) throw InputError(xtc::frame_error(path, k, problem));
  }
  return xtc_reader_after(std::move(scanner), decode_threads, prep, skip);
}

}  // namespace pairhist::io
