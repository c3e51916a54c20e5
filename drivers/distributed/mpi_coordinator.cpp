// Rank 0's coordinator thread of a distributed run (drivers/distributed/mpi_distribution.hpp): it
// answers the ranks' claims from the frame dispenser, learns where the frames end, and watches that
// every rank is alive.
#include <cstdio>
#include <thread>

#include "drivers/distributed/mpi_comms.hpp"
#include "drivers/distributed/mpi_distribution.hpp"
#include "drivers/distributed/mpi_world.hpp"
#include "drivers/job/stop_signals.hpp"

namespace pairhist {

using namespace mpi_protocol;

void MpiDistribution::coordinate() {
  const MPI_Comm comm = mpi::control_comm();
  Request req;
  MPI_Request request;
  MPI_Irecv(&req, sizeof(req), MPI_BYTE, MPI_ANY_SOURCE, kRequestTag, comm, &request);
  auto pause = std::chrono::microseconds(20);
  auto last_check = Clock::now();
  bool ends_sent = false;
  int byes = 0;
  while (!(quit_ && byes == ranks_ - 1) && !abandon_) {
    int done = 0;
    MPI_Status status;
    MPI_Test(&request, &done, &status);
    if (done) {
      const int from = status.MPI_SOURCE;
      heard_[size_t(from)] = Clock::now();
      if (req.kind == kBye) {
        gone_[size_t(from)] = true;
        ++byes;
      } else {
        handle(from, req);
      }
      MPI_Irecv(&req, sizeof(req), MPI_BYTE, MPI_ANY_SOURCE, kRequestTag, comm, &request);
      pause = std::chrono::microseconds(20);
      continue;
    }
    if (seconds_since(last_check) > 0.02) {
      last_check = Clock::now();
      watch();
      if (!ends_sent && send_ends()) ends_sent = true;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
  MPI_Cancel(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

void MpiDistribution::handle(int from, const Request& req) {
  const MPI_Comm comm = mpi::control_comm();
  std::string text;
  if (req.kind == kError || req.kind == kFatal) {
    text.resize(static_cast<size_t>(req.length));
    MPI_Recv(text.data(), static_cast<int>(req.length), MPI_CHAR, from, kTextTag, comm,
             MPI_STATUS_IGNORE);
  }
  std::unique_lock<std::mutex> lock(mutex_);
  switch (req.kind) {
    case kClaim: {
      WorkUnit unit;
      Grant g;
      g.offer = dispenser_->grant(from, unit, seconds_since(started_), req.value).kind;
      g.ordinal = unit.ordinal, g.file_index = unit.file_index, g.part = unit.part;
      MPI_Send(&g, sizeof(g), MPI_BYTE, from, kGrantTag, comm);
      break;
    }
    case kBeat: {
      const int32_t pong = 1;
      MPI_Send(&pong, 1, MPI_INT32_T, from, kPongTag, comm);
      break;
    }
    case kFileEnds:
      dispenser_->file_ends(req.value);
      break;
    case kError:
      dispenser_->error(req.value, text);
      break;
    case kStop:
      if (!dispenser_->stopping()) stop_from(req.signo, from);
      break;
    case kDrained:
      dispenser_->drained(from);
      drained_changed_.notify_all();
      break;
    case kFatal:
      end_everything("rank " + std::to_string(from) + " (" + hosts_[size_t(from)] + "): " + text,
                     kept_);
  }
}

int MpiDistribution::most_silent_rank() const {
  int silent = -1;
  for (int r = 1; r < ranks_; ++r)
    if (!gone_[size_t(r)] &&
        (silent < 0 || seconds_since(heard_[size_t(r)]) > seconds_since(heard_[size_t(silent)])))
      silent = r;
  return silent;
}

void MpiDistribution::stop_from(int signo, int from) {
  (void)from;
  // The rank silent the longest is the one that died: on a loaded node a live rank can also
  // miss a beat (mpiexec's SIGTERM after a rank is killed reaches every rank at once).
  const int r = most_silent_rank();
  if (r > 0 && seconds_since(heard_[size_t(r)]) > kSilentAtStopSeconds)
    lost(r, "stopped responding " + seconds_text(seconds_since(heard_[size_t(r)])) +
                " before the run was stopped by " + signal_name(signo));
  dispenser_->stop(signo);
  drained_changed_.notify_all();
}

void MpiDistribution::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stop_ && stop_->load() != 0 && !dispenser_->stopping()) stop_from(stop_->load(), 0);
  const int r = most_silent_rank();
  if (r > 0 && seconds_since(heard_[size_t(r)]) > timeout_seconds())
    lost(r, "stopped responding for " + seconds_text(timeout_seconds()));
}

bool MpiDistribution::send_ends() {
  EndMessage m;
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!dispenser_->all_drained()) return false;
    const RunEnd end = dispenser_->end();
    m.frames = end.frames, m.why = static_cast<int32_t>(end.why), m.signo = end.signo;
    text = end.message;
    m.length = static_cast<int64_t>(text.size());
  }
  for (int r = 1; r < ranks_; ++r) {
    MPI_Send(&m, sizeof(m), MPI_BYTE, r, kEndTag, mpi::control_comm());
    if (m.length > 0)
      MPI_Send(text.data(), static_cast<int>(m.length), MPI_BYTE, r, kEndTag, mpi::control_comm());
  }
  return true;
}

std::string MpiDistribution::seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.1f s", s);
  return b;
}

void MpiDistribution::lost(int r, const std::string& what) {
  std::string held = dispenser_->recent_frames(r);
  end_everything(
      "rank " + std::to_string(r) + " (" + hosts_[size_t(r)] + ") " + what +
          (held.empty() ? "" : " while counting frames " + held + " of " + plan_.trajectory),
      kept_);
}

std::string MpiDistribution::kept() {
  std::lock_guard<std::mutex> lock(mutex_);
  return kept_;
}

void MpiDistribution::end_everything(const std::string& message, const std::string& kept) {
  std::fprintf(stderr, "pairhist: error: %s%s\n", message.c_str(),
               kept.empty() ? "" : ("; " + kept).c_str());
  MpiWorld::abort(1);
}

}  // namespace pairhist
