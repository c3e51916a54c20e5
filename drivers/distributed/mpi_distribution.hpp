// The MPI side of a distributed run (drivers/distributed/distribution.hpp; built with MPI only).
// Frames are handed out by rank 0 over a small protocol of its own, beside StarPU-MPI: StarPU-MPI's
// model is that every rank submits the same task graph, which fixes beforehand which rank counts
// what, while a dispenser that answers whichever rank asks next balances ranks of any speed
// (docs/design.md, many nodes). Rank 0's coordinator thread
// (drivers/distributed/mpi_coordinator.cpp) answers claims, collects where the frames end, and
// watches that every rank is alive: ranks send a heartbeat every kBeatSeconds and rank 0 answers
// it, so a rank that dies (or a rank 0 that dies) ends the whole job within PAIRHIST_MPI_TIMEOUT
// seconds (default 60), never a hang. The counts go through StarPU-MPI
// (drivers/distributed/mpi_reduction.hpp).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "drivers/distributed/distribution.hpp"
#include "drivers/distributed/frame_dispenser.hpp"
#include "drivers/distributed/mpi_reduction.hpp"
#include "drivers/distributed/mpi_world.hpp"

namespace pairhist {

namespace mpi_protocol {

using Clock = std::chrono::steady_clock;

constexpr double kBeatSeconds = 0.25;
// A rank silent this long when a stop signal arrives is taken for the cause: mpirun sends the
// other ranks SIGTERM about a second after one of them dies.
constexpr double kSilentAtStopSeconds = 0.75;

enum Tag : int { kRequestTag = 1, kTextTag, kGrantTag, kEndTag, kPongTag };
enum Kind : int32_t { kClaim = 1, kFileEnds, kError, kFatal, kStop, kBeat, kDrained, kBye };

struct Request {
  int32_t kind = 0;
  int32_t signo = 0;
  int64_t value = 0;   // kFileEnds: frames in the file; kError: the bad frame's file index;
                       // kClaim: the units taken into counting (FrameDispenser::grant)
  int64_t length = 0;  // bytes of text that follow (kError, kFatal)
};

struct Grant {
  int64_t ordinal = 0, file_index = 0;
  int32_t part = 0, offer = 0;  // an Offer::Kind
};

// A rank told to ask later (FrameDispenser::grant) asks again after this long.
constexpr int kLaterMilliseconds = 5;

struct EndMessage {
  int64_t frames = 0;
  int32_t why = 0, signo = 0;
  int64_t length = 0;  // bytes of the error message that follow
};

double seconds_since(Clock::time_point t);
/// PAIRHIST_MPI_TIMEOUT, seconds (default 60).
double timeout_seconds();

}  // namespace mpi_protocol

class MpiDistribution : public Distribution {
 public:
  MpiDistribution() : rank_(MpiWorld::shape().rank), ranks_(MpiWorld::shape().size) {}
  /// Without finish() (a failure on this rank): the control thread stops at once.
  ~MpiDistribution() override {
    abandon_ = true;
    quit_ = true;
    if (control_.joinable()) control_.join();
  }
  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  DistributedPlan share_plan(const DistributedPlan* plan, const std::atomic<int>* stop) override;
  bool claim(WorkUnit& unit) override;
  void file_ends(int64_t frames) override;
  void delivered(const WorkUnit& unit) override {
    delivered_parts_ += unit.part >= 0 ? 1 : std::max(1, plan_.frame_parts);
  }
  void report_error(int64_t file_index, const std::string& message) override;
  void fail(const std::string& message) override;
  RunEnd run_end() override;
  void contribute(int64_t interval, std::vector<uint64_t> payload, size_t count_entries) override;
  bool reduced(int64_t interval, std::vector<uint64_t>& payload, bool wait) override;
  int64_t agree_max(int64_t mine) override;
  std::vector<RankReport> gather_reports(const RankReport& mine) override;
  double claim_seconds() const override { return claim_seconds_; }
  double reduction_seconds() const override;
  void note_kept(const std::string& what) override;
  void finish() override;

 private:
  using Clock = mpi_protocol::Clock;
  using Request = mpi_protocol::Request;

  // ---- every rank but 0 (mpi_distribution.cpp) ----
  void send_request(const Request& r);
  void send_text(Request r, const std::string& text);
  /// Waits for rank 0's answer, sleeping between tests (a blocking receive would spin a core).
  void receive(void* data, int bytes, int tag, const char* what);
  /// Heartbeats to rank 0, this rank's stop signal, and the watch over rank 0's answers.
  void beat();

  // ---- rank 0's coordinator (mpi_coordinator.cpp) ----
  /// Answers the ranks' requests until every rank has said goodbye.
  void coordinate();
  void handle(int from, const Request& req);
  /// A stop signal, here or on rank `from`: where some rank has been silent, it has most
  /// likely died and its launcher is ending the job: say so, else stop after the frames handed
  /// out. Called with mutex_ held.
  void stop_from(int signo, int from);
  /// Rank 0's own stop signal, and ranks that have gone silent.
  void watch();
  /// The live rank (not 0) heard from the longest time ago, or -1 with no other rank.
  int most_silent_rank() const;
  /// Once every rank is drained: the end, to every rank but this one.
  bool send_ends();
  static std::string seconds_text(double s);
  /// Rank `r` is gone: one line naming it and the frames it held, then the whole job ends.
  /// Called with mutex_ held.
  [[noreturn]] void lost(int r, const std::string& what);
  std::string kept();
  /// The one line on rank 0, then every rank ends.
  [[noreturn]] static void end_everything(const std::string& message, const std::string& kept);

  const int rank_, ranks_;
  DistributedPlan plan_;
  std::vector<std::string> hosts_;
  const std::atomic<int>* stop_ = nullptr;
  const Clock::time_point started_ = Clock::now();
  std::thread control_;
  std::atomic<bool> quit_{false};     // finish(): the control thread ends (rank 0: after the byes)
  std::atomic<bool> abandon_{false};  // the destructor without finish(): it ends now
  std::mutex claim_mutex_;            // one claim at a time from this rank
  // Units this rank took into counting, in parts of a frame (FrameDispenser::grant's delivered).
  std::atomic<int64_t> delivered_parts_{0};
  bool no_more_ = false;
  std::mutex text_mutex_;
  std::atomic<Clock::time_point> last_pong_{Clock::now()};
  double claim_seconds_ = 0;
  std::unique_ptr<MpiReduction> reduction_;
  double reduction_shutdown_seconds_ = 0;
  // Rank 0's coordinator state, under mutex_.
  std::mutex mutex_;
  std::condition_variable drained_changed_;
  std::unique_ptr<FrameDispenser> dispenser_;
  std::vector<Clock::time_point> heard_;
  std::vector<bool> gone_;
  std::string kept_;
};

}  // namespace pairhist
