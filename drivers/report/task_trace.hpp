// The task trace (`pairhist run --task-trace FILE`): every histogram task of a run as one CSV
// row, so a run on g GPUs can be replayed on other GPU counts (scripts/scaling_model.py).
#pragma once

#include <string>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

/// CSV with the header (kTaskTraceHeader)
/// `rank,order,frame,worker,kind,device,start_s,end_s,pairs,grouped,frame_begin_s,`
/// `frame_allocated_s,frame_free_s,frame_submitted_s,frame_filled_s` (the last added after
/// the others, so that older readers by position still work),
/// one row per task in submission order (from 0). Times are seconds from the engine's start
/// plus `offset` (a distributed run's rows: from the ranks' common start); rank is the MPI rank
/// (0 in a single process), order and frame count within that rank's engine;
/// kind is cpu or cuda, device the CUDA device number (-1 for CPU workers); grouped is 1 for a
/// task over whole species pairs, 0 for a row tile; the frame_ columns are the task's frame's
/// FrameFeed (engine.hpp), -1 when not recorded. Holds at most kMaxTimelineSpans tasks.
std::string task_trace_csv(const RunActivity& activity, int rank = 0, double offset = 0,
                           bool header = true);
extern const char* const kTaskTraceHeader;

/// The reading trace (`pairhist run --reading-trace FILE`): every frame an XTC reader's decoding
/// threads delivered, one CSV row each, times on the task trace's clock: which thread decoded it,
/// when it was claimed, decoded, ready (copied into pinned columns when staged) and delivered.
std::string reading_trace_csv(const std::vector<io::ReadingTiming>& timeline);

}  // namespace pairhist
