#include "drivers/job/stop_signals.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "pairhist/engine.hpp"

namespace pairhist {
namespace {

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGUSR1};

// Lock-free, so reading and writing it is async-signal-safe.
std::atomic<int> g_requested{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int signo) {
  int expected = 0;
  if (g_requested.compare_exchange_strong(expected, signo)) return;
  // Asked again while stopping: the user does not want to wait. The outputs and the checkpoint
  // are only ever replaced by rename, so what is on disk stays whole.
  signal(signo, SIG_DFL);
  raise(signo);
}

}  // namespace

StopSignals::StopSignals() {
  g_requested.store(0);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // Reads and waits go on after the handler; the frame loop notices the request between frames.
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &previous_[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

const std::atomic<int>& StopSignals::requested() {
  return g_requested;
}

std::string signal_name(int signo) {
  switch (signo) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "signal " + std::to_string(signo);
  }
}

StopWatcher::StopWatcher(const std::atomic<int>* stop) : stop_(stop) {
  if (stop_) thread_ = std::thread([this] { watch(); });
}

StopWatcher::~StopWatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StopWatcher::set_engine(HistogramEngine* engine) {
  std::lock_guard<std::mutex> lock(mutex_);
  engine_ = engine;
}

void StopWatcher::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!quit_) {
    if (engine_ && stop_->load() != 0) {
      engine_->drop_unstarted_frames();
      return;
    }
    // The signal handler may only touch an atomic, so it cannot wake this thread: poll.
    wake_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

int end_by_signal(int signo) {
  std::fflush(stdout);
  std::fflush(stderr);
  signal(signo, SIG_DFL);
  raise(signo);
  return 128 + signo;
}

}  // namespace pairhist
