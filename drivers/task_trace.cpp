#include "task_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace pairhist {

std::string task_trace_csv(const RunActivity& activity) {
  std::vector<TaskSpan> spans = activity.timeline;
  std::sort(spans.begin(), spans.end(),
            [](const TaskSpan& x, const TaskSpan& y) { return x.order < y.order; });
  std::string csv =
      "order,frame,worker,kind,device,start_s,end_s,pairs,grouped,frame_begin_s,"
      "frame_allocated_s,frame_free_s,frame_submitted_s\n";
  csv.reserve(csv.size() + spans.size() * 96);
  char row[256];
  for (const TaskSpan& t : spans) {
    const bool known = t.worker >= 0 && static_cast<size_t>(t.worker) < activity.workers.size();
    const WorkerActivity* w = known ? &activity.workers[static_cast<size_t>(t.worker)] : nullptr;
    FrameFeed feed{-1, -1, -1, -1};
    if (t.frame < activity.feed.size()) feed = activity.feed[t.frame];
    // Microsecond resolution is StarPU's profiling clock's.
    std::snprintf(row, sizeof(row), "%llu,%llu,%d,%s,%d,%.6f,%.6f,%llu,%d,%.6f,%.6f,%.6f,%.6f\n",
                  static_cast<unsigned long long>(t.order),
                  static_cast<unsigned long long>(t.frame), t.worker,
                  w && w->is_cuda ? "cuda" : "cpu", w ? w->device : -1, t.start, t.end,
                  static_cast<unsigned long long>(t.pairs), t.grouped ? 1 : 0, feed.begin,
                  feed.allocated, feed.buffers_free, feed.submitted);
    csv += row;
  }
  return csv;
}

}  // namespace pairhist
