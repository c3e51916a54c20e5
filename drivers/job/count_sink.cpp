#include "drivers/job/count_sink.hpp"

namespace pairhist {

CountSink::CountSink(const RunDefinition& run, const JobClock& clock, BoxKind kind,
                     int64_t interval, JobState seed)
    : run_(run),
      clock_(clock),
      kind_(kind),
      counts_(run.pairs.size(), run.options.nbins, run.shared, interval, std::move(seed)) {}

void CountSink::set_box_kind(BoxKind kind, bool periodic_images) {
  kind_ = kind;
  counts_.set_box_kind(static_cast<int>(kind));
  counts_.set_periodic_images(periodic_images);
}

void CountSink::submitted(const WorkUnit& unit, const FrameRecord& frame, SparseBins excluded) {
  (void)unit;
  counts_.submitted(frame, std::move(excluded));
}

bool CountSink::unit_done(HistogramEngine& engine) {
  // The frames no longer in the engine's ring of buffers have been counted.
  const uint64_t submitted = engine.frames_submitted();
  const auto ring = static_cast<uint64_t>(engine.frames_in_flight());
  counts_.finished_before(submitted > ring ? submitted - ring : 0);
  return after_unit(engine);
}

void CountSink::take_histograms(HistogramEngine& engine) {
  std::vector<std::vector<uint64_t>> counts = engine.take_histograms();
  counts_.taken(run_histograms(run_, std::move(counts)), engine.frames_counted());
}

HistogramResult CountSink::header() const {
  HistogramResult header = run_.header;
  header.box_kind = box_kind_name(kind_);
  return header;
}

HistogramResult CountSink::snapshot(const JobAccumulator& state,
                                    const std::string& stopped_by) const {
  HistogramResult snap = state.result(header(), false);
  snap.complete = false;
  snap.stopped_by = stopped_by;
  return snap;
}

}  // namespace pairhist
