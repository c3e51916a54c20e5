#include "drivers/report/task_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace pairhist {

const char* const kTaskTraceHeader =
    "rank,order,frame,worker,kind,device,start_s,end_s,pairs,grouped,frame_begin_s,"
    "frame_allocated_s,frame_free_s,frame_submitted_s,frame_filled_s\n";

std::string task_trace_csv(const RunActivity& activity, int rank, double offset, bool header) {
  std::vector<TaskSpan> spans = activity.timeline;
  std::sort(spans.begin(), spans.end(),
            [](const TaskSpan& x, const TaskSpan& y) { return x.order < y.order; });
  std::string csv = header ? kTaskTraceHeader : "";
  csv.reserve(csv.size() + spans.size() * 96);
  char row[256];
  for (const TaskSpan& t : spans) {
    const bool known = t.worker >= 0 && static_cast<size_t>(t.worker) < activity.workers.size();
    const WorkerActivity* w = known ? &activity.workers[static_cast<size_t>(t.worker)] : nullptr;
    FrameFeed feed{-1 - offset, -1 - offset, -1 - offset, -1 - offset, -1 - offset};
    if (t.frame < activity.feed.size()) feed = activity.feed[t.frame];
    // Microsecond resolution is StarPU's profiling clock's.
    std::snprintf(
        row, sizeof(row), "%d,%llu,%llu,%d,%s,%d,%.6f,%.6f,%llu,%d,%.6f,%.6f,%.6f,%.6f,%.6f\n",
        rank, static_cast<unsigned long long>(t.order), static_cast<unsigned long long>(t.frame),
        t.worker, w && w->is_cuda ? "cuda" : "cpu", w ? w->device : -1, t.start + offset,
        t.end + offset, static_cast<unsigned long long>(t.pairs), t.grouped ? 1 : 0,
        feed.begin + offset, feed.allocated + offset, feed.buffers_free + offset,
        feed.submitted + offset, feed.filled + offset);
    csv += row;
  }
  return csv;
}

std::string reading_trace_csv(const std::vector<io::ReadingTiming>& timeline) {
  std::string csv =
      "order,frame,thread,claimed_s,decoded_s,ready_s,delivered_s,decode_s,promote_s,"
      "promoted_by\n";
  char row[256];
  for (size_t k = 0; k < timeline.size(); ++k) {
    const io::ReadingTiming& t = timeline[k];
    std::snprintf(row, sizeof(row), "%zu,%lld,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%d\n", k,
                  static_cast<long long>(t.frame), t.thread, t.claimed, t.decoded, t.ready,
                  t.delivered, t.decode_seconds, t.promote_seconds, t.promoted_by);
    csv += row;
  }
  return csv;
}

}  // namespace pairhist
