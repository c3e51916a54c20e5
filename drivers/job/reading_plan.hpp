// The feeding plan of a run whose frames decode on threads of their own: how many threads decode,
// how many cores count beside the GPUs and how many frames are in flight, from the first frame
// (tasks/feeding_plan.hpp).
#pragma once

#include <vector>

#include "drivers/job/job_measurements.hpp"
#include "drivers/job/run_spec.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

/// Sizes the decoding threads, the CPU workers and the frames in flight from the first frame
/// (tasks/feeding_plan.hpp): how long a thread took to prepare it against how long the GPUs and
/// a core will need for it. The user's --ncpu, --decode-threads, --frames-in-flight and
/// --memory-budget stand; the rest is planned around them.
/// `hands_over`: the frames' columns go to the engine without a copy (submit_to_engine), so the
/// feeding thread leaves its core to decoding.
void plan_reading(io::TrajectoryReader& reader, const RunSpec& o, EngineConfig& config,
                  const io::TrajectoryFrame& frame, const std::vector<std::vector<int>>& atoms,
                  const BoxMatrix& box, bool hands_over, JobMeasurements& out);

}  // namespace pairhist
