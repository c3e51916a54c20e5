// The MPI side of a distributed run (drivers/distribution.hpp). Frames are handed out by rank 0
// over a small protocol of its own, beside StarPU-MPI: StarPU-MPI's model is that every rank
// submits the same task graph, which fixes beforehand which rank counts what, while a dispenser
// that answers whichever rank asks next balances ranks of any speed (docs/design.md, many nodes).
// Rank 0's coordinator thread answers claims, collects where the frames end, and watches that
// every rank is alive: ranks send a heartbeat every kBeatSeconds and rank 0 answers it, so a
// rank that dies (or a rank 0 that dies) ends the whole job within PAIRHIST_MPI_TIMEOUT seconds
// (default 60), never a hang. The counts go through StarPU-MPI (drivers/mpi_reduction.hpp).
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "distribution.hpp"
#include "frame_dispenser.hpp"
#include "mpi_comms.hpp"
#include "mpi_reduction.hpp"
#include "mpi_world.hpp"
#include "stop_signals.hpp"

namespace pairhist {
namespace {

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
  int64_t value = 0;   // kFileEnds: frames in the file; kError: the bad frame's file index
  int64_t length = 0;  // bytes of text that follow (kError, kFatal)
};

struct Grant {
  int64_t ordinal = 0, file_index = 0;
  int32_t part = 0, more = 0;
};

struct EndMessage {
  int64_t frames = 0;
  int32_t why = 0, signo = 0;
  int64_t length = 0;  // bytes of the error message that follow
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double timeout_seconds() {
  const char* v = std::getenv("PAIRHIST_MPI_TIMEOUT");
  const double t = v ? std::atof(v) : 0;
  return t > 0 ? t : 60.0;
}

/// PAIRHIST_MPI_REDUCTION=tree (default), sum or redux: how StarPU-MPI sums the ranks' counts
/// (drivers/mpi_reduction.hpp; docs/performance.md measures them).
MpiReduction::Method reduction_method() {
  const char* v = std::getenv("PAIRHIST_MPI_REDUCTION");
  if (v && std::strcmp(v, "redux") == 0) return MpiReduction::Method::redux;
  if (v && std::strcmp(v, "sum") == 0) return MpiReduction::Method::sum;
  return MpiReduction::Method::tree;
}

// Plain serialisation of the plan for the setup broadcast.
struct Writer {
  std::vector<char> bytes;
  template <class T>
  void put(const T& v) {
    const char* p = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    put<int64_t>(static_cast<int64_t>(v.size()));
    for (const T& x : v) put(x);
  }
  void put_string(const std::string& s) {
    put<int64_t>(static_cast<int64_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
};
struct Reader {
  const std::vector<char>& bytes;
  size_t at = 0;
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  template <class T>
  std::vector<T> get_vector() {
    std::vector<T> v(static_cast<size_t>(get<int64_t>()));
    for (T& x : v) x = get<T>();
    return v;
  }
  std::string get_string() {
    const auto n = static_cast<size_t>(get<int64_t>());
    std::string s(bytes.data() + at, n);
    at += n;
    return s;
  }
};

std::vector<char> serialise(const DistributedPlan& p) {
  Writer w;
  w.put<int32_t>(p.listed);
  w.put_vector(p.indices);
  w.put(p.first), w.put(p.step), w.put(p.last);
  w.put<int32_t>(p.frame_parts), w.put<int32_t>(p.box_kind);
  w.put(p.resumed_frames);
  w.put(p.split_from), w.put(p.split_last);
  w.put_vector(p.pair_algorithms);
  w.put_string(p.trajectory);
  w.put(p.bad_frame);
  w.put_string(p.bad_frame_message);
  w.put_string(p.error);
  w.put<int32_t>(p.error_kind);
  return w.bytes;
}

DistributedPlan deserialise(const std::vector<char>& bytes) {
  Reader r{bytes};
  DistributedPlan p;
  p.listed = r.get<int32_t>() != 0;
  p.indices = r.get_vector<int64_t>();
  p.first = r.get<int64_t>(), p.step = r.get<int64_t>(), p.last = r.get<int64_t>();
  p.frame_parts = r.get<int32_t>(), p.box_kind = r.get<int32_t>();
  p.resumed_frames = r.get<int64_t>();
  p.split_from = r.get<int64_t>(), p.split_last = r.get<int64_t>();
  p.pair_algorithms = r.get_vector<int>();
  p.trajectory = r.get_string();
  p.bad_frame = r.get<int64_t>();
  p.bad_frame_message = r.get_string();
  p.error = r.get_string();
  p.error_kind = r.get<int32_t>();
  return p;
}

class MpiDistribution : public Distribution {
 public:
  MpiDistribution() : rank_(MpiWorld::shape().rank), ranks_(MpiWorld::shape().size) {}

  ~MpiDistribution() override {
    quit_ = true;
    if (control_.joinable()) control_.join();
  }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }

  DistributedPlan share_plan(const DistributedPlan* plan, const std::atomic<int>* stop) override {
    const MPI_Comm comm = mpi::collective_comm();
    std::vector<char> bytes;
    if (rank_ == 0) bytes = serialise(*plan);
    int64_t size = static_cast<int64_t>(bytes.size());
    MPI_Bcast(&size, 1, MPI_INT64_T, 0, comm);
    bytes.resize(static_cast<size_t>(size));
    MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_CHAR, 0, comm);
    plan_ = deserialise(bytes);
    if (plan_.error_kind != 0) return plan_;
    // Every rank's host, for the messages that name a rank.
    char host[64] = {};
    std::snprintf(host, sizeof(host), "%s", MpiWorld::shape().host.c_str());
    std::vector<char> hosts(64 * static_cast<size_t>(ranks_));
    MPI_Allgather(host, 64, MPI_CHAR, hosts.data(), 64, MPI_CHAR, comm);
    for (int r = 0; r < ranks_; ++r) hosts_.emplace_back(hosts.data() + 64 * r);
    stop_ = stop;
    MPI_Barrier(comm);  // the ranks' common clock starts as they leave
    if (rank_ == 0) {
      dispenser_ = std::make_unique<FrameDispenser>(plan_, ranks_);
      heard_.assign(static_cast<size_t>(ranks_), Clock::now());
      gone_.assign(static_cast<size_t>(ranks_), false);
      control_ = std::thread([this] { coordinate(); });
    } else {
      control_ = std::thread([this] { beat(); });
    }
    return plan_;
  }

  bool claim(WorkUnit& unit) override {
    const auto start = Clock::now();
    std::lock_guard<std::mutex> claim_lock(claim_mutex_);
    if (no_more_) return false;
    bool more = false;
    if (rank_ == 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      more = dispenser_->grant(0, unit, seconds_since(started_));
    } else {
      send_request({kClaim, 0, 0, 0});
      Grant g;
      receive(&g, sizeof(g), kGrantTag, "a frame to count");
      more = g.more != 0;
      unit = {g.ordinal, g.file_index, g.part};
    }
    no_more_ = !more;
    claim_seconds_ += seconds_since(start);
    return more;
  }

  void file_ends(int64_t frames) override {
    if (rank_ == 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      dispenser_->file_ends(frames);
    } else {
      send_request({kFileEnds, 0, frames, 0});
    }
  }

  void report_error(int64_t file_index, const std::string& message) override {
    if (rank_ == 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      dispenser_->error(file_index, message);
    } else {
      send_text({kError, 0, file_index, 0}, message);
    }
  }

  void fail(const std::string& message) override {
    if (rank_ == 0) end_everything("rank 0 (" + hosts_[0] + "): " + message, kept());
    send_text({kFatal, 0, 0, 0}, message);
    // Rank 0 ends the job; should it not, this rank goes alone.
    std::this_thread::sleep_for(std::chrono::duration<double>(timeout_seconds()));
    MpiWorld::abort(1);
  }

  RunEnd run_end() override {
    RunEnd end;
    if (rank_ == 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      dispenser_->drained(0);
      drained_changed_.wait(lock, [&] { return dispenser_->all_drained(); });
      end = dispenser_->end();
    } else {
      send_request({kDrained, 0, 0, 0});
      EndMessage m;
      receive(&m, sizeof(m), kEndTag, "the end of the frames");
      std::string text(static_cast<size_t>(m.length), '\0');
      if (m.length > 0) receive(text.data(), static_cast<int>(m.length), kEndTag, "an error");
      end.frames = m.frames;
      end.why = static_cast<RunEnd::Why>(m.why);
      end.signo = m.signo;
      end.message = text;
    }
    return end;
  }

  void contribute(int64_t interval, std::vector<uint64_t> payload, size_t count_entries) override {
    if (!reduction_) reduction_ = std::make_unique<MpiReduction>(reduction_method(), rank_, ranks_);
    reduction_->contribute(interval, std::move(payload), count_entries);
  }

  bool reduced(int64_t interval, std::vector<uint64_t>& payload, bool wait) override {
    return reduction_ && reduction_->take(interval, payload, wait);
  }

  int64_t agree_max(int64_t mine) override {
    int64_t all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MAX, mpi::collective_comm());
    return all;
  }

  std::vector<RankReport> gather_reports(const RankReport& mine) override {
    const MPI_Comm comm = mpi::collective_comm();
    const std::string text = mine.host + '\n' + mine.json;
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(static_cast<size_t>(ranks_)), offsets(static_cast<size_t>(ranks_));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
    std::vector<char> all;
    if (rank_ == 0) {
      int total = 0;
      for (int r = 0; r < ranks_; ++r) offsets[size_t(r)] = total, total += lengths[size_t(r)];
      all.resize(static_cast<size_t>(total));
    }
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                0, comm);
    std::vector<RankReport> reports;
    for (int r = 0; rank_ == 0 && r < ranks_; ++r) {
      const std::string one(all.data() + offsets[size_t(r)],
                            static_cast<size_t>(lengths[size_t(r)]));
      const auto cut = one.find('\n');
      reports.push_back({r, one.substr(0, cut), one.substr(cut + 1)});
    }
    return reports;
  }

  double claim_seconds() const override { return claim_seconds_; }
  double reduction_seconds() const override {
    return reduction_ ? reduction_->seconds() + reduction_shutdown_seconds_
                      : reduction_shutdown_seconds_;
  }

  void note_kept(const std::string& what) override {
    std::lock_guard<std::mutex> lock(mutex_);
    kept_ = what;
  }

  void finish() override {
    const auto start = Clock::now();
    reduction_.reset();  // starpu_mpi_shutdown: every rank's messages are through
    reduction_shutdown_seconds_ += seconds_since(start);
    if (rank_ != 0) send_request({kBye, 0, 0, 0});
    quit_ = true;
    if (control_.joinable()) control_.join();
  }

 private:
  // ---- every rank but 0 -------------------------------------------------------------------
  void send_request(const Request& r) {
    MPI_Send(&r, sizeof(r), MPI_BYTE, 0, kRequestTag, mpi::control_comm());
  }
  void send_text(Request r, const std::string& text) {
    r.length = static_cast<int64_t>(text.size());
    std::lock_guard<std::mutex> lock(text_mutex_);  // a request and its text go together
    send_request(r);
    MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTextTag,
             mpi::control_comm());
  }
  /// Waits for rank 0's answer, sleeping between tests (a blocking receive would spin a core).
  void receive(void* data, int bytes, int tag, const char* what) {
    MPI_Request request;
    MPI_Irecv(data, bytes, MPI_BYTE, 0, tag, mpi::control_comm(), &request);
    auto pause = std::chrono::microseconds(10);
    for (;;) {
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done) return;
      if (seconds_since(last_pong_.load()) > timeout_seconds()) {
        std::fprintf(stderr,
                     "pairhist: error: rank %d (%s): rank 0 stopped answering while this "
                     "rank waited for %s\n",
                     rank_, hosts_[size_t(rank_)].c_str(), what);
        MpiWorld::abort(1);
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
  }
  /// Heartbeats to rank 0, this rank's stop signal, and the watch over rank 0's answers.
  void beat() {
    const MPI_Comm comm = mpi::control_comm();
    int32_t pong = 0;
    MPI_Request pong_request;
    MPI_Irecv(&pong, 1, MPI_INT32_T, 0, kPongTag, comm, &pong_request);
    last_pong_ = Clock::now();
    auto last_beat = Clock::now() - std::chrono::seconds(1);
    bool stop_sent = false;
    while (!quit_) {
      if (seconds_since(last_beat) >= kBeatSeconds) {
        send_request({kBeat, 0, 0, 0});
        last_beat = Clock::now();
      }
      if (!stop_sent && stop_ && stop_->load() != 0) {
        send_request({kStop, stop_->load(), 0, 0});
        stop_sent = true;
      }
      int done = 0;
      MPI_Test(&pong_request, &done, MPI_STATUS_IGNORE);
      if (done) {
        last_pong_ = Clock::now();
        MPI_Irecv(&pong, 1, MPI_INT32_T, 0, kPongTag, comm, &pong_request);
      } else if (seconds_since(last_pong_.load()) > timeout_seconds()) {
        std::fprintf(stderr, "pairhist: error: rank %d (%s): rank 0 stopped answering for %.0f s\n",
                     rank_, hosts_[size_t(rank_)].c_str(), timeout_seconds());
        MpiWorld::abort(1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    MPI_Cancel(&pong_request);
    MPI_Wait(&pong_request, MPI_STATUS_IGNORE);
  }

  // ---- rank 0 ------------------------------------------------------------------------------
  /// Answers the ranks' requests until every rank has said goodbye.
  void coordinate() {
    const MPI_Comm comm = mpi::control_comm();
    Request req;
    MPI_Request request;
    MPI_Irecv(&req, sizeof(req), MPI_BYTE, MPI_ANY_SOURCE, kRequestTag, comm, &request);
    auto pause = std::chrono::microseconds(20);
    auto last_check = Clock::now();
    bool ends_sent = false;
    int byes = 0;
    while (!(quit_ && byes == ranks_ - 1)) {
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

  void handle(int from, const Request& req) {
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
        g.more = dispenser_->grant(from, unit, seconds_since(started_)) ? 1 : 0;
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

  /// A stop signal, here or on rank `from`: where some rank has been silent, it has most
  /// likely died and its launcher is ending the job: say so, else stop after the frames handed
  /// out. Called with mutex_ held.
  void stop_from(int signo, int from) {
    (void)from;
    for (int r = 1; r < ranks_; ++r)
      if (!gone_[size_t(r)] && seconds_since(heard_[size_t(r)]) > kSilentAtStopSeconds)
        lost(r, "stopped responding " + seconds_text(seconds_since(heard_[size_t(r)])) +
                    " before the run was stopped by " + signal_name(signo));
    dispenser_->stop(signo);
    drained_changed_.notify_all();
  }

  /// Rank 0's own stop signal, and ranks that have gone silent.
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (stop_ && stop_->load() != 0 && !dispenser_->stopping()) stop_from(stop_->load(), 0);
    for (int r = 1; r < ranks_; ++r)
      if (!gone_[size_t(r)] && seconds_since(heard_[size_t(r)]) > timeout_seconds())
        lost(r, "stopped responding for " + seconds_text(timeout_seconds()));
  }

  /// Once every rank is drained: the end, to every rank but this one.
  bool send_ends() {
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
        MPI_Send(text.data(), static_cast<int>(m.length), MPI_BYTE, r, kEndTag,
                 mpi::control_comm());
    }
    return true;
  }

  static std::string seconds_text(double s) {
    char b[32];
    std::snprintf(b, sizeof(b), "%.1f s", s);
    return b;
  }

  /// Rank `r` is gone: one line naming it and the frames it held, then the whole job ends.
  /// Called with mutex_ held.
  [[noreturn]] void lost(int r, const std::string& what) {
    std::string held = dispenser_->recent_frames(r);
    end_everything(
        "rank " + std::to_string(r) + " (" + hosts_[size_t(r)] + ") " + what +
            (held.empty() ? "" : " while counting frames " + held + " of " + plan_.trajectory),
        kept_);
  }

  std::string kept() {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_;
  }

  /// The one line on rank 0, then every rank ends.
  [[noreturn]] static void end_everything(const std::string& message, const std::string& kept) {
    std::fprintf(stderr, "pairhist: error: %s%s\n", message.c_str(),
                 kept.empty() ? "" : ("; " + kept).c_str());
    MpiWorld::abort(1);
  }

  const int rank_, ranks_;
  DistributedPlan plan_;
  std::vector<std::string> hosts_;
  const std::atomic<int>* stop_ = nullptr;
  const Clock::time_point started_ = Clock::now();
  std::thread control_;
  std::atomic<bool> quit_{false};
  std::mutex claim_mutex_;  // one claim at a time from this rank
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

}  // namespace

std::unique_ptr<Distribution> make_distribution() {
  if (!MpiWorld::distributed()) return nullptr;
  return std::make_unique<MpiDistribution>();
}

}  // namespace pairhist
