#include "tasks/activity_recorder.hpp"

#include <cmath>

#include "codelets/starpu/task_identity.hpp"

namespace pairhist {

ActivityRecorder::ActivityRecorder() : start_us_(starpu_timing_now()) {}

void ActivityRecorder::task_done(void* recorder) {
  auto* self = static_cast<ActivityRecorder*>(recorder);
  starpu_task* task = starpu_task_get_current();
  if (task && task->profiling_info) self->record(task);
  std::lock_guard<std::mutex> lock(self->mutex_);
  ++self->callbacks_;
  self->callbacks_done_.notify_all();
}

void ActivityRecorder::wait_for_callbacks(uint64_t tasks) {
  std::unique_lock<std::mutex> lock(mutex_);
  callbacks_done_.wait(lock, [&] { return callbacks_ >= tasks; });
}

void ActivityRecorder::record(starpu_task* task) {
  const starpu_profiling_task_info& info = *task->profiling_info;
  const int w = info.workerid;
  if (w < 0 || w >= STARPU_NMAXWORKERS) return;
  const double start = starpu_timing_timespec_to_us(const_cast<timespec*>(&info.start_time));
  const double end = starpu_timing_timespec_to_us(const_cast<timespec*>(&info.end_time));
  const codelets::TaskIdentity id = codelets::identify_task(task);
  const bool on_cuda = starpu_worker_get_type(w) == STARPU_CUDA_WORKER;
  std::lock_guard<std::mutex> lock(mutex_);
  if (timeline_.size() < kMaxTimelineSpans)
    timeline_.push_back({w, (start - start_us_) * 1e-6, (end - start_us_) * 1e-6,
                         id.kind == codelets::TaskKind::group, id.sequence, id.frame, id.pairs});
  WorkerClock& c = clocks_[static_cast<size_t>(w)];
  c.tasks += 1;
  c.pairs += id.pairs;
  c.busy_us += end - start;
  c.last_end_us = std::max(c.last_end_us, end);
  last_end_us_ = std::max(last_end_us_, end);
  if (id.kind == codelets::TaskKind::cells)
    cells_.record(on_cuda, id.pairs <= cell_cpu_limit_, start * 1e-6, end * 1e-6, id.pairs);
  else
    tiles_.record(on_cuda, id.pairs <= tile_cpu_limit_, start * 1e-6, end * 1e-6, id.pairs);
  if (measuring_)  // the kind as StarPU pools it: the codelet's own footprint function
    measured_kinds_.record(task->cl, id.footprint, static_cast<uint32_t>(task->where), w,
                           (end - start) * 1e-6, id.pairs);
}

void ActivityRecorder::set_cpu_task_limits(uint64_t tiles, uint64_t cells) {
  std::lock_guard<std::mutex> lock(mutex_);
  tile_cpu_limit_ = tiles;
  cell_cpu_limit_ = cells;
}

void ActivityRecorder::start_measuring(unsigned context) {
  measured_kinds_.start(context);
  measuring_ = true;
}

MeasuredBound ActivityRecorder::finish_measuring() {
  std::lock_guard<std::mutex> lock(mutex_);
  measuring_ = false;
  return measured_kinds_.finish();
}

void ActivityRecorder::add_feed(const FrameFeed& f) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (feed_.size() < kMaxTimelineSpans) feed_.push_back(f);
}

double ActivityRecorder::seconds_since_start() const {
  return (starpu_timing_now() - start_us_) * 1e-6;
}

ThroughputTotals ActivityRecorder::tile_totals() {
  std::lock_guard<std::mutex> lock(mutex_);
  return tiles_.totals();
}

ThroughputTotals ActivityRecorder::cell_totals() {
  std::lock_guard<std::mutex> lock(mutex_);
  return cells_.totals();
}

void ActivityRecorder::fill(RunActivity& run) {
  std::lock_guard<std::mutex> lock(mutex_);
  run.makespan_seconds = std::max(0.0, last_end_us_ - start_us_) * 1e-6;
  double first_done = INFINITY;  // earliest "last task ended" among workers that ran tasks
  const unsigned n = starpu_worker_get_count();
  for (unsigned w = 0; w < n; ++w) {
    const WorkerClock& c = clocks_[w];
    WorkerActivity a;
    a.id = static_cast<int>(w);
    char name[128];
    starpu_worker_get_name(static_cast<int>(w), name, sizeof(name));
    a.name = name;
    a.is_cuda = starpu_worker_get_type(static_cast<int>(w)) == STARPU_CUDA_WORKER;
    if (a.is_cuda) a.device = starpu_worker_get_devid(static_cast<int>(w));
    a.tasks = c.tasks;
    a.pairs = c.pairs;
    a.busy_seconds = c.busy_us * 1e-6;
    a.last_end_seconds = c.tasks ? (c.last_end_us - start_us_) * 1e-6 : 0;
    if (c.tasks) first_done = std::min(first_done, a.last_end_seconds);
    run.workers.push_back(a);
  }
  run.tail_idle_seconds = std::isfinite(first_done) ? run.makespan_seconds - first_done : 0;
  run.timeline = timeline_;
  run.feed = feed_;
}

}  // namespace pairhist
