#include "drivers/job/reading_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "io/trajectory/trajectory_opening.hpp"
#include "pairhist/host_cores.hpp"
#include "tasks/feeding_plan.hpp"

namespace pairhist {

namespace {

/// The bounds of the species' atoms in a whole frame (the first frames may have been decoded
/// whole, before the topology told which atoms to pick), read in place: columns gathered for
/// them would be pinned memory, costly to allocate once. False if a coordinate is not finite.
bool whole_frame_bounds(const io::TrajectoryFrame& frame,
                        const std::vector<std::vector<int>>& atoms, CoordinateBounds& bounds) {
  for (int c = 0; c < 3; ++c) bounds.lo[c] = INFINITY, bounds.hi[c] = -INFINITY;
  for (const auto& species : atoms)
    for (int a : species)
      for (size_t c = 0; c < 3; ++c) {
        const float x = frame.xyz[3 * static_cast<size_t>(a) + c];
        if (!std::isfinite(x)) return false;
        bounds.lo[c] = std::min(bounds.lo[c], x);
        bounds.hi[c] = std::max(bounds.hi[c], x);
      }
  return true;
}

/// One frame's coordinates as the engine holds them (HistogramEngine::frame_bytes).
uint64_t engine_frame_bytes(const EngineConfig& config) {
  const uint64_t value = config.precision == Precision::single ? sizeof(float) : sizeof(double);
  uint64_t bytes = 0;
  for (int64_t n : config.species_sizes) bytes += static_cast<uint64_t>(std::max<int64_t>(n, 0));
  return bytes * 3 * value;
}

/// What the feeding plan weighs: the machine, the reader's measured pace, the cost model's time
/// for the first frame on the GPUs and on a core, and what the user fixed.
FeedingInputs feeding_inputs(const io::TrajectoryReader& reader, const RunSpec& o,
                             const EngineConfig& config, const BoxMatrix& box,
                             const CoordinateBounds& bounds, bool hands_over) {
  FeedingInputs in;
  in.cores = usable_cores();
  in.gpus = o.ncuda == 0 ? 0 : cuda_devices();
  if (o.ncuda > 0) in.gpus = std::min(in.gpus, o.ncuda);
  const io::ReadingFigures reading = reader.reading_figures();
  in.prepare_seconds = reading.seconds_per_frame;
  const FrameCost cost = estimated_frame_cost(config, box, bounds, in.gpus);
  in.gpu_seconds = cost.gpu_seconds;
  in.core_seconds = cost.core_seconds;
  in.core_task_seconds = cost.core_task_seconds;
  in.reader_threads = reading.threads;
  in.reader_threads_set = o.decode_threads > 0;
  in.max_reader_threads = in.reader_threads_set ? reading.threads : reading.max_threads;
  in.requested_cpu_workers = o.ncpu;
  in.feeding_thread_copies = !hands_over;
  in.frame_bytes = engine_frame_bytes(config);
  in.default_budget_bytes = EngineConfig().memory_budget_bytes;
  in.host_memory_bytes = host_memory_bytes();
  in.frames_in_flight_set = o.frames_in_flight > 0 || o.memory_budget_mib > 0;
  return in;
}

}  // namespace

void plan_reading(io::TrajectoryReader& reader, const RunSpec& o, EngineConfig& config,
                  const io::TrajectoryFrame& frame, const std::vector<std::vector<int>>& atoms,
                  const BoxMatrix& box, bool hands_over, JobMeasurements& out) {
  CoordinateBounds bounds;
  if (frame.columns.filled) {
    if (frame.columns.bad_species >= 0) return;  // refused when the frame is submitted
    for (int c = 0; c < 3; ++c)
      bounds.lo[c] = frame.columns.lo[c], bounds.hi[c] = frame.columns.hi[c];
  } else if (!whole_frame_bounds(frame, atoms, bounds)) {
    return;
  }
  const FeedingInputs in = feeding_inputs(reader, o, config, box, bounds, hands_over);
  const FeedingPlan plan = plan_feeding(in);
  reader.set_active_threads(plan.reader_threads);
  if (plan.cpu_workers >= 0 && o.ncpu < 0) config.ncpu_beside_gpus = plan.cpu_workers;
  // Through the budget, so that a distributed run's cap (max_frames_in_flight) still applies.
  if (plan.frames_in_flight > 0)
    config.memory_budget_bytes = static_cast<uint64_t>(plan.frames_in_flight) * in.frame_bytes;
  out.prepare_seconds = in.prepare_seconds;
  out.gpu_seconds = in.gpu_seconds;
  out.feed_bound = plan.feed_bound;
  out.feeding_planned = true;
  out.feeding_inputs = in;
  out.feeding_plan = plan;
}

}  // namespace pairhist
