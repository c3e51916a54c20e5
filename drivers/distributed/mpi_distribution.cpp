#include "drivers/distributed/mpi_distribution.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "drivers/distributed/mpi_comms.hpp"
#include "drivers/distributed/mpi_world.hpp"
#include "pairhist/settings.hpp"

namespace pairhist {

using namespace mpi_protocol;

namespace mpi_protocol {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double timeout_seconds() {
  return settings().mpi_timeout_seconds;
}

}  // namespace mpi_protocol

namespace {

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
  w.put<int32_t>(p.frame_parts), w.put<int32_t>(p.box_kind), w.put<int32_t>(p.periodic_images);
  w.put(p.resumed_frames);
  w.put(p.split_from), w.put(p.split_last);
  w.put_vector(p.pair_algorithms);
  w.put_string(p.trajectory);
  w.put(p.bad_frame);
  w.put_string(p.bad_frame_message);
  w.put_string(p.cut_short);
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
  p.periodic_images = r.get<int32_t>();
  p.resumed_frames = r.get<int64_t>();
  p.split_from = r.get<int64_t>(), p.split_last = r.get<int64_t>();
  p.pair_algorithms = r.get_vector<int>();
  p.trajectory = r.get_string();
  p.bad_frame = r.get<int64_t>();
  p.bad_frame_message = r.get_string();
  p.cut_short = r.get_string();
  p.error = r.get_string();
  p.error_kind = r.get<int32_t>();
  return p;
}

}  // namespace

DistributedPlan MpiDistribution::share_plan(const DistributedPlan* plan,
                                            const std::atomic<int>* stop) {
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

bool MpiDistribution::claim(WorkUnit& unit) {
  const auto start = Clock::now();
  std::lock_guard<std::mutex> claim_lock(claim_mutex_);
  if (no_more_) return false;
  Offer offer;
  for (;;) {
    if (rank_ == 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      offer = dispenser_->grant(0, unit, seconds_since(started_), delivered_parts_);
    } else {
      send_request({kClaim, 0, delivered_parts_, 0});
      Grant g;
      receive(&g, sizeof(g), kGrantTag, "a frame to count");
      offer.kind = static_cast<Offer::Kind>(g.offer);
      unit = {g.ordinal, g.file_index, g.part};
    }
    if (offer.kind != Offer::later) break;
    // A faster rank will count what is left sooner than this one could: ask again shortly.
    std::this_thread::sleep_for(std::chrono::milliseconds(kLaterMilliseconds));
  }
  no_more_ = offer.kind == Offer::none;
  if (offer.kind == Offer::unit) claim_seconds_ += seconds_since(start);
  return offer.kind == Offer::unit;
}

void MpiDistribution::file_ends(int64_t frames) {
  if (rank_ == 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    dispenser_->file_ends(frames);
  } else {
    send_request({kFileEnds, 0, frames, 0});
  }
}

void MpiDistribution::report_error(int64_t file_index, const std::string& message) {
  if (rank_ == 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    dispenser_->error(file_index, message);
  } else {
    send_text({kError, 0, file_index, 0}, message);
  }
}

void MpiDistribution::fail(const std::string& message) {
  if (rank_ == 0) end_everything("rank 0 (" + hosts_[0] + "): " + message, kept());
  send_text({kFatal, 0, 0, 0}, message);
  // Rank 0 ends the job; should it not, this rank goes alone.
  std::this_thread::sleep_for(std::chrono::duration<double>(timeout_seconds()));
  MpiWorld::abort(1);
}

RunEnd MpiDistribution::run_end() {
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

void MpiDistribution::contribute(int64_t interval, std::vector<uint64_t> payload,
                                 size_t count_entries) {
  if (!reduction_) reduction_ = std::make_unique<MpiReduction>(rank_, ranks_);
  reduction_->contribute(interval, std::move(payload), count_entries);
}

bool MpiDistribution::reduced(int64_t interval, std::vector<uint64_t>& payload, bool wait) {
  return reduction_ && reduction_->take(interval, payload, wait);
}

int64_t MpiDistribution::agree_max(int64_t mine) {
  int64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MAX, mpi::collective_comm());
  return all;
}

std::vector<RankReport> MpiDistribution::gather_reports(const RankReport& mine) {
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
    const std::string one(all.data() + offsets[size_t(r)], static_cast<size_t>(lengths[size_t(r)]));
    const auto cut = one.find('\n');
    reports.push_back({r, one.substr(0, cut), one.substr(cut + 1)});
  }
  return reports;
}

double MpiDistribution::reduction_seconds() const {
  return reduction_ ? reduction_->seconds() + reduction_shutdown_seconds_
                    : reduction_shutdown_seconds_;
}

void MpiDistribution::note_kept(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  kept_ = what;
}

void MpiDistribution::finish() {
  const auto start = Clock::now();
  reduction_.reset();  // starpu_mpi_shutdown: every rank's messages are through
  reduction_shutdown_seconds_ += seconds_since(start);
  if (rank_ != 0) send_request({kBye, 0, 0, 0});
  quit_ = true;
  if (control_.joinable()) control_.join();
}

void MpiDistribution::send_request(const Request& r) {
  MPI_Send(&r, sizeof(r), MPI_BYTE, 0, kRequestTag, mpi::control_comm());
}

void MpiDistribution::send_text(Request r, const std::string& text) {
  r.length = static_cast<int64_t>(text.size());
  std::lock_guard<std::mutex> lock(text_mutex_);  // a request and its text go together
  send_request(r);
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTextTag, mpi::control_comm());
}

void MpiDistribution::receive(void* data, int bytes, int tag, const char* what) {
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

void MpiDistribution::beat() {
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

std::unique_ptr<Distribution> make_distribution() {
  if (!MpiWorld::distributed()) return nullptr;
  return std::make_unique<MpiDistribution>();
}

}  // namespace pairhist
