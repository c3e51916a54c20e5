// Clean stops: SIGINT (Ctrl-C), SIGTERM (what Slurm and most batch systems send before they kill
// a job) and SIGUSR1 (a batch system's early warning) ask a run to stop between frames. The
// handler only records the signal; the frame loop and a StopWatcher act on it. A second
// signal while the run stops ends the process at once, by the signal's default action.
#pragma once

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace pairhist {

class StopSignals {
 public:
  /// Installs the handlers for SIGINT, SIGTERM and SIGUSR1 and clears any earlier request;
  /// the destructor puts the previous handlers back.
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// The signal that asked to stop, 0 while none did.
  static const std::atomic<int>& requested();

 private:
  struct sigaction previous_[3];
};

/// "SIGINT", "SIGTERM", "SIGUSR1", or "signal N".
std::string signal_name(int signo);

/// Thrown by the `run` command after a stopped run has written its checkpoint and outputs, so
/// that main() ends the process with the signal (exit status 128 + signo in a shell).
class StoppedBySignal : public std::runtime_error {
 public:
  explicit StoppedBySignal(int signo)
      : std::runtime_error("stopped by " + signal_name(signo)), signo_(signo) {}
  int signo() const { return signo_; }

 private:
  int signo_;
};

class HistogramEngine;

/// Closes an engine's frame gate (HistogramEngine::drop_unstarted_frames) as soon as a stop is
/// requested, also while the frame loop waits inside the engine: for a free frame buffer, or in
/// a take that drains the frames in flight, which on a few cores can be minutes of queued tasks.
class StopWatcher {
 public:
  /// Watches `stop` (null: nothing to watch, no thread).
  explicit StopWatcher(const std::atomic<int>* stop);
  ~StopWatcher();
  StopWatcher(const StopWatcher&) = delete;
  StopWatcher& operator=(const StopWatcher&) = delete;

  /// The engine to stop; it must outlive this watcher.
  void set_engine(HistogramEngine* engine);

 private:
  void watch();

  const std::atomic<int>* stop_;
  std::mutex mutex_;
  std::condition_variable wake_;
  HistogramEngine* engine_ = nullptr;
  bool quit_ = false;
  std::thread thread_;
};

/// Ends the process as the signal's default action would (so a calling shell sees that the
/// program was interrupted and stops too); returns 128 + signo should that not happen.
int end_by_signal(int signo);

}  // namespace pairhist
