#include "drivers/job/trajectory_job.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "drivers/job/frame_handling.hpp"
#include "drivers/job/trajectory_pipeline.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

namespace {

/// Fields 4 (the parent's pid) and 22 (the start, in seconds since boot) of /proc/PID/stat;
/// false where it cannot be read.
bool process_stat(const std::string& pid, long& parent, double& start) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');  // the command name may hold spaces
  if (paren == std::string::npos || paren + 2 > text.size()) return false;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 4) parent = std::atol(field.c_str());
    if (i < 22) continue;
    start = std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
    return true;
  }
  return false;
}

}  // namespace

double process_seconds() {
  long parent = 0;
  double start = 0;
  if (!process_stat("self", parent, start)) return 0;
  timespec boot{};
  clock_gettime(CLOCK_BOOTTIME, &boot);
  return std::max(0.0, static_cast<double>(boot.tv_sec) + 1e-9 * boot.tv_nsec - start);
}

double seconds_after_parent() {
  long parent = 0, grandparent = 0;
  double start = 0, parent_start = 0;
  if (!process_stat("self", parent, start) || parent <= 1 ||
      !process_stat(std::to_string(parent), grandparent, parent_start))
    return 0;
  return std::max(0.0, start - parent_start);
}

SpeciesSpec parse_species(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError("--species expects NAME=SELECTION (e.g. O=OW or H=HW1,HW2), got '" + text +
                     "'");
  const std::string name = text.substr(0, eq);
  // A name becomes the column names and legends of every output: no control characters.
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw UsageError("--species '" + excerpt(text) +
                       "': a species name may not hold control characters");
  return {name, text.substr(eq + 1)};
}

namespace {

JobOutcome run_pipeline(const JobOptions& options) {
  JobOutcome out;
  {
    TrajectoryPipeline pipeline(options);
    out = pipeline.run();
    out.end_marks.finished = process_seconds();
    pipeline.release_engine();
    out.end_marks.engine_released = process_seconds();
  }
  out.end_marks.released = process_seconds();
  return out;
}

/// One run; a later triclinic box makes it start again as a triclinic run.
JobOutcome run_trajectory_job_once(const JobOptions& options) {
  try {
    return run_pipeline(options);
  } catch (const BoxKindWidens& e) {
    // The kernels' minimum image differs by kind in its roundings (orthorhombic coordinates are
    // folded into the cell), so the frames already counted as orthorhombic are counted again:
    // every frame then as in a run whose first box was triclinic. A resumed checkpoint's counts
    // are orthorhombic ones too: the run starts from its first frame.
    std::fprintf(stderr,
                 "pairhist: warning: %s: counting again from the first frame as a triclinic run "
                 "(every box then takes the triclinic minimum image, as if the first one had "
                 "been triclinic)\n",
                 e.what());
    JobOptions again = options;
    again.box_kind = static_cast<int>(BoxKind::triclinic);
    again.resume = nullptr;
    return run_pipeline(again);
  }
}

}  // namespace

JobOutcome run_trajectory_job(const JobOptions& options) {
  try {
    return run_trajectory_job_once(options);
  } catch (const ImagesNeeded& e) {
    // Frames counted with the minimum image alone are counted again with every image (their
    // roundings differ), so that every frame is counted alike.
    std::fprintf(stderr,
                 "pairhist: warning: %s: counting again from the first frame with every periodic "
                 "image within r_max\n",
                 e.what());
    JobOptions again = options;
    again.periodic_images = 1;
    again.resume = nullptr;
    return run_trajectory_job_once(again);
  }
}

}  // namespace pairhist
