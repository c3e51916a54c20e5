#include "drivers/distributed/distributed_setup.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "drivers/job/frame_handling.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_scanner.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/host_cores.hpp"
#include "pairhist/periodic_images.hpp"

namespace pairhist {
namespace {

bool is_xtc(const std::string& path) {
  return io::lower_extension(path) == ".xtc";
}

bool has_time_window(const FramePlan& f) {
  return !std::isnan(f.begin_time) || !std::isnan(f.end_time);
}

/// The frames a single process would count, from every frame's time in the file, as
/// FrameSource does: indices first, first + step, ... up to last, after resume_after, times in
/// [begin, end] (the first later time ends the run). `ended`: the plan ended before the last
/// frame of `times` (so a damaged frame after them is never reached).
std::vector<int64_t> listed_frames(const FramePlan& f, const std::vector<double>& times,
                                   bool& ended) {
  std::vector<int64_t> indices;
  ended = false;
  for (int64_t i = std::max<int64_t>(f.resume_after + 1, 0); i < static_cast<int64_t>(times.size());
       ++i) {
    if (f.last >= 0 && i > f.last) {
      ended = true;
      break;
    }
    if (i < f.first || (i - f.first) % f.step != 0) continue;
    const double t = times[static_cast<size_t>(i)];
    if (t < f.begin_time) continue;
    if (t > f.end_time) {
      ended = true;
      break;
    }
    indices.push_back(i);
  }
  if (f.last >= 0 && static_cast<int64_t>(times.size()) > f.last) ended = true;
  return indices;
}

/// Every frame's time in a non-XTC file, read through (its reader decodes each frame); `cut`:
/// whether the error that ended the list was the file ending inside a frame.
std::vector<double> read_times(const std::string& path, std::string& error, bool& cut) {
  std::vector<double> times;
  try {
    auto reader = io::open_trajectory(path);
    io::TrajectoryFrame frame;
    while (reader->next(frame)) times.push_back(frame.time);
  } catch (const InputError& e) {
    error = e.what();
    cut = dynamic_cast<const TruncatedFrame*>(&e) != nullptr;
  }
  return times;
}

/// Bounds of the species' atoms in a frame.
CoordinateBounds species_bounds(const io::TrajectoryFrame& frame,
                                const std::vector<std::vector<int>>& atoms) {
  CoordinateBounds bounds;
  for (int c = 0; c < 3; ++c) {
    bounds.lo[c] = std::numeric_limits<float>::infinity();
    bounds.hi[c] = -std::numeric_limits<float>::infinity();
  }
  for (const auto& species : atoms)
    for (int a : species)
      for (size_t c = 0; c < 3; ++c) {
        const float x = frame.xyz[3 * static_cast<size_t>(a) + c];
        bounds.lo[c] = std::min(bounds.lo[c], x);
        bounds.hi[c] = std::max(bounds.hi[c], x);
      }
  return bounds;
}

}  // namespace

int tail_frame_parts(double count_seconds, double read_seconds, int cores, int ranks) {
  // A part costs its rank a read of the whole frame, on one of the rank's cores: parts only
  // where a part's counting outweighs that read shared over them (W1 at 11M atoms on 2x H200:
  // 16.6 ms of a GPU a frame against 0.3 s of decoding over 15 cores; its last 12 frames in 3
  // parts each cost the ranks 24 more reads).
  const double read_share = read_seconds / std::max(1, cores);
  const double part_seconds = std::max(kMinPartSeconds, read_share);
  const auto affordable = static_cast<int64_t>(std::max(1.0, count_seconds / part_seconds));
  return static_cast<int>(std::min<int64_t>(affordable, int64_t(kPartsPerRank) * ranks));
}

FirstFrame read_first_frame(const std::string& trajectory, const FramePlan& frames) {
  FirstFrame first;
  FrameSource source(trajectory, 1, frames);
  const auto read_from = std::chrono::steady_clock::now();
  if (!source.next(first.frame, first.index)) first.index = -1;
  first.read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - read_from).count();
  first.frames_read = source.frames_read();
  return first;
}

DistributedPlan plan_distributed_run(const RunDefinition& run, const FramePlan& frames,
                                     EngineConfig config, int ranks, int box_kind,
                                     std::future<FirstFrame> ahead) {
  const JobOptions& o = run.options;
  const std::vector<std::vector<int>>& atoms = run.atoms;
  DistributedPlan plan;
  plan.trajectory = o.trajectory;
  try {
    // The run's first frame, read as one process reads it: the box kind, and the bounds the
    // algorithm choice of split frames needs. An error here ends the run before it starts.
    FirstFrame first = ahead.valid() ? ahead.get() : read_first_frame(o.trajectory, frames);
    io::TrajectoryFrame& frame = first.frame;
    const int64_t index = first.index;
    const double read_seconds = first.read_seconds;
    if (index < 0) {
      if (frames.resume_after < 0)
        throw InputError(o.trajectory + ": no frame selected among the " +
                         std::to_string(first.frames_read) + " frames read");
      plan.listed = true;  // a resumed run with nothing left to count
      plan.box_kind = box_kind;
      return plan;
    }
    const std::string where = o.trajectory + ": frame " + std::to_string(index) + ": ";
    if (const std::string problem = box_problem(to_matrix(frame.box)); !problem.empty())
      throw InputError(where + problem);
    prepare_positions(run, frame, where);
    const BoxMatrix box = to_matrix(frame.box);
    plan.box_kind = box_kind >= 0 ? box_kind : static_cast<int>(classify_box(box));
    // Every rank counts images or none, as one process decides on the run's first frame (a
    // rank's own first frame could decide otherwise, and the two ways round differently).
    plan.periodic_images = plan.box_kind != static_cast<int>(BoxKind::none) &&
                           !run.sphere.active() &&
                           (o.periodic_images == 1 ||
                            beyond_minimum_image(box, counted_radius(run.r_max_nm, config.r_cut)));
    if (run.seed.periodic_images >= 0) plan.periodic_images = run.seed.periodic_images;

    std::string scan_error;
    std::vector<double> times;
    bool cut = false;
    if (is_xtc(o.trajectory))
      times = io::xtc::frame_times(o.trajectory, scan_error, &cut);
    else if (has_time_window(frames))
      times = read_times(o.trajectory, scan_error, cut);
    if (!times.empty() || !scan_error.empty()) {
      plan.listed = true;
      bool ended = false;
      plan.indices = listed_frames(frames, times, ended);
      // A frame that cannot be passed over ends the listed frames; a run that reaches it fails
      // there, as one process reading up to it would.
      if (!scan_error.empty() && !ended && cut && !times.empty()) {
        // As one process: the frames end before a frame the file ends inside.
        std::fprintf(stderr,
                     "pairhist: warning: incomplete frame, the file ends inside it: %s; the run "
                     "keeps the frames before it (outputs marked complete = 0)\n",
                     scan_error.c_str());
        plan.cut_short = scan_error;
      } else if (!scan_error.empty() && !ended) {
        plan.bad_frame = static_cast<int64_t>(times.size());
        plan.bad_frame_message = scan_error;
      }
    } else {
      plan.first = frames.first;
      plan.step = frames.step;
      plan.last = frames.last;
      if (frames.resume_after >= frames.first)
        plan.first += ((frames.resume_after - frames.first) / frames.step + 1) * frames.step;
    }

    // Parts: the last frames, where the ranks finish (when the frames are listed), or every
    // frame when the user says how many.
    config.box_kind = static_cast<BoxKind>(plan.box_kind);
    const CoordinateBounds bounds = species_bounds(frame, atoms);
    if (o.distributed.frame_parts > 0) {
      plan.frame_parts = o.distributed.frame_parts;
      plan.split_from = 0;
    } else if (plan.listed && ranks > 1) {
      const int gpus = o.ncuda == 0 ? 0 : cuda_devices();
      const double seconds =
          gpus > 0 ? estimated_gpu_seconds_per_frame(config, box, bounds, gpus)
                   : estimated_cpu_seconds_per_frame(config, box, bounds, usable_cores());
      plan.frame_parts = tail_frame_parts(seconds, read_seconds, usable_cores(), ranks);
      plan.split_last = int64_t(kSplitFramesPerRank) * ranks;
    }
    if (plan.frame_parts > 1 && o.whole_frames)
      throw UsageError(
          "--schedule static counts whole frames: it cannot split them over ranks "
          "(--frame-parts 1)");
    if (plan.frame_parts > 1) {
      // Every rank must count a species pair with the same algorithm (parts of cell lists are
      // cells of one grid): the choice is made here, once, on the first frame.
      for (Algorithm a : choose_algorithms(config, box, bounds))
        plan.pair_algorithms.push_back(static_cast<int>(a));
    }
  } catch (const InputError& e) {
    plan.error = e.what();
    plan.error_kind = 1;
  } catch (const UsageError& e) {
    plan.error = e.what();
    plan.error_kind = 2;
  } catch (const std::exception& e) {  // the other ranks wait for the plan: they end too
    plan.error = e.what();
    plan.error_kind = 3;
  }
  return plan;
}

}  // namespace pairhist
