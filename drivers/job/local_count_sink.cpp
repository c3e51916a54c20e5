#include "drivers/job/local_count_sink.hpp"

#include <string>

#include "drivers/job/engine_settings.hpp"
#include "drivers/job/frame_stream.hpp"
#include "drivers/job/stop_signals.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

LocalCountSink::LocalCountSink(const RunDefinition& run, const JobClock& clock, BoxKind kind)
    : CountSink(run, clock, kind, run.options.interval, run.seed) {}

bool LocalCountSink::after_unit(HistogramEngine& engine) {
  const JobOptions& o = run_.options;
  if (o.hooks.progress)
    o.hooks.progress(static_cast<int64_t>(counts_.state().frames() + counts_.pending()));
  if (o.interval > 0 &&
      counts_.open_frames() + counts_.pending() >= static_cast<size_t>(o.interval)) {
    take_histograms(engine);
    if (counts_.dropped() > 0) return false;  // a stop came while the interval's frames finished
    counts_.close_block();
    checkpoint();
    if (o.hooks.on_interval) o.hooks.on_interval(snapshot(counts_, "in progress"));
  } else if (checkpoint_due()) {
    take_histograms(engine);
    if (counts_.dropped() > 0) return false;
    checkpoint();
  }
  return true;
}

bool LocalCountSink::checkpoint_due() const {
  const double every = run_.options.hooks.checkpoint_seconds;
  return every > 0 && std::chrono::steady_clock::now() - last_checkpoint_.value_or(clock_.start) >=
                          std::chrono::duration<double>(every);
}

void LocalCountSink::checkpoint() {
  if (run_.options.hooks.on_checkpoint) run_.options.hooks.on_checkpoint(counts_.state());
  last_checkpoint_ = std::chrono::steady_clock::now();
}

void LocalCountSink::keep_completed(const std::string& why) {
  if (!counts_.state().intervals.empty() && run_.options.hooks.on_interval)
    run_.options.hooks.on_interval(snapshot(counts_, why));
}

JobOutcome LocalCountSink::finish(JobOutcome out, const HistogramEngine* engine,
                                  const FrameStream& frames) {
  const JobOptions& o = run_.options;
  const bool stopped = !frames.ran_out() || counts_.dropped() > 0;
  const std::string cut_short = frames.cut_short();
  if (!engine && counts_.state().frames() == 0 && !stopped) {
    if (!cut_short.empty()) throw InputError(cut_short);  // why no frame is left
    throw InputError(o.trajectory + ": no frame selected among the " +
                     std::to_string(frames.frames_read()) + " frames read");
  }

  out.seconds = clock_.seconds_since_start();
  out.result = counts_.result(header(), true);
  out.frames_dropped = counts_.dropped();
  if (stopped) {
    out.stopped_by_signal = o.hooks.stop ? o.hooks.stop->load() : 0;
    out.result.complete = false;
    out.result.stopped_by = signal_name(out.stopped_by_signal);
    if (counts_.state().frames() > 0) checkpoint();
  } else if (!cut_short.empty()) {
    out.incomplete_frame = cut_short;
    out.result.complete = false;
    out.result.stopped_by = cut_short;
  }
  if (!engine) return out;
  describe_engine(*engine, counts_.state().frames() - out.frames_resumed, out);
  return out;
}

}  // namespace pairhist
