#include "drivers/distributed/mpi_reduction.hpp"

#include <starpu_mpi.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

namespace pairhist {
namespace {

constexpr uint64_t kNoRecord = ~uint64_t(0);
constexpr int kRecordWords = 3;
// Counts at the start of every payload of the run (all intervals have the same pairs and bins):
// the sum codelet takes no argument, so it is set once per process.
std::atomic<size_t> g_count_entries{0};

/// Adds `src`'s counts to `dst`'s and takes the frame records `src` holds.
void add_payload(uint64_t* dst, const uint64_t* src, size_t n) {
  const size_t counts = std::min(g_count_entries.load(), n);
  for (size_t k = 0; k < counts; ++k) dst[k] += src[k];
  for (size_t k = counts; k + kRecordWords <= n; k += kRecordWords)
    if (src[k] != kNoRecord) std::memcpy(dst + k, src + k, kRecordWords * sizeof(uint64_t));
}

void fill_empty(uint64_t* dst, size_t n) {
  const size_t counts = std::min(g_count_entries.load(), n);
  std::fill(dst, dst + counts, uint64_t(0));
  std::fill(dst + counts, dst + n, kNoRecord);
}

uint64_t* vector_of(void* buffer) {
  return reinterpret_cast<uint64_t*>(STARPU_VECTOR_GET_PTR(buffer));
}
size_t length_of(void* buffer) {
  return STARPU_VECTOR_GET_NX(buffer);
}

void add_cpu(void* buffers[], void*) {
  add_payload(vector_of(buffers[0]), vector_of(buffers[1]), length_of(buffers[0]));
}
starpu_codelet make_sum_codelet() {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = add_cpu;
  cl.nbuffers = 2;
  cl.modes[0] = STARPU_RW;
  cl.modes[1] = STARPU_R;
  cl.name = "pairhist_mpi_sum";
  return cl;
}

starpu_codelet g_add = make_sum_codelet();

void check(int ret, const char* what) {
  if (ret == -ENODEV)
    throw std::runtime_error(
        "this rank has no CPU worker to sum the ranks' counts on (give every rank at least one "
        "core besides one per GPU: mpirun --bind-to none, or --map-by with pe=N)");
  if (ret != 0)
    throw std::runtime_error(std::string(what) + " failed (" + std::to_string(ret) + ")");
}

}  // namespace

MpiReduction::MpiReduction(int rank, int ranks) : rank_(rank), ranks_(ranks) {
  check(starpu_mpi_init_comm(nullptr, nullptr, 0, mpi::starpu_comm()), "starpu_mpi_init_comm");
}

MpiReduction::~MpiReduction() {
  std::vector<starpu_data_handle_t> left;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [b, interval] : intervals_)
      if (interval.accumulator) left.push_back(interval.accumulator);
    intervals_.clear();
  }
  for (starpu_data_handle_t h : left) starpu_data_unregister_submit(h);
  // Waits for every rank's communications (a barrier on MPI_COMM_WORLD), then stops StarPU-MPI;
  // StarPU itself belongs to the engine and stops after.
  starpu_mpi_shutdown();
}

int64_t MpiReduction::tag(int64_t interval, int slot) const {
  return (interval + 1) * (ranks_ + 1) + slot;
}

void MpiReduction::on_reduced(void* arg) {
  auto* interval = static_cast<Interval*>(arg);
  MpiReduction* self = interval->owner;
  std::lock_guard<std::mutex> lock(self->mutex_);
  interval->ready = true;
  starpu_data_release(interval->accumulator);
  self->reduced_.notify_all();
}

void MpiReduction::contribute(int64_t interval, std::vector<uint64_t> payload,
                              size_t count_entries) {
  const auto start = std::chrono::steady_clock::now();
  g_count_entries = count_entries;
  const MPI_Comm comm = mpi::starpu_comm();
  const auto n = static_cast<uint32_t>(payload.size());
  Interval* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot = &intervals_[interval];
  }
  if (rank_ == 0) {
    slot->result.resize(payload.size());
    fill_empty(slot->result.data(), slot->result.size());
    starpu_vector_data_register(&slot->accumulator, STARPU_MAIN_RAM,
                                reinterpret_cast<uintptr_t>(slot->result.data()), n,
                                sizeof(uint64_t));
  } else {
    starpu_vector_data_register(&slot->accumulator, -1, 0, n, sizeof(uint64_t));
  }
  slot->owner = this;
  starpu_mpi_data_register_comm(slot->accumulator, tag(interval, ranks_), 0, comm);

  std::vector<starpu_data_handle_t> parts(static_cast<size_t>(ranks_));
  for (int r = 0; r < ranks_; ++r) {
    starpu_data_handle_t& h = parts[static_cast<size_t>(r)];
    starpu_vector_data_register(&h, -1, 0, n, sizeof(uint64_t));
    starpu_mpi_data_register_comm(h, tag(interval, r), r, comm);
    if (r != rank_) continue;
    // StarPU allocates the payload's memory, so the handle outlives this call on its own.
    check(starpu_data_acquire(h, STARPU_W), "starpu_data_acquire");
    std::memcpy(starpu_data_get_local_ptr(h), payload.data(), payload.size() * sizeof(uint64_t));
    starpu_data_release(h);
  }
  // A binary tree: at stride s, rank r (a multiple of 2s) adds rank r + s's sum, received;
  // log2(ranks) steps, each moving every partial at most once, and rank 0 adds the last.
  for (int stride = 1; stride < ranks_; stride *= 2)
    for (int r = 0; r + stride < ranks_; r += 2 * stride)
      check(starpu_mpi_task_insert(comm, &g_add, STARPU_RW, parts[static_cast<size_t>(r)], STARPU_R,
                                   parts[static_cast<size_t>(r + stride)], 0),
            "starpu_mpi_task_insert");
  check(starpu_mpi_task_insert(comm, &g_add, STARPU_RW, slot->accumulator, STARPU_R, parts[0], 0),
        "starpu_mpi_task_insert");
  for (starpu_data_handle_t h : parts) starpu_data_unregister_submit(h);
  if (rank_ == 0) {
    check(starpu_data_acquire_cb(slot->accumulator, STARPU_R, on_reduced, slot),
          "starpu_data_acquire_cb");
  } else {
    starpu_data_unregister_submit(slot->accumulator);
    std::lock_guard<std::mutex> lock(mutex_);
    intervals_.erase(interval);
  }
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool MpiReduction::take(int64_t interval, std::vector<uint64_t>& payload, bool wait) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = intervals_.find(interval);
  if (it == intervals_.end() || !it->second.accumulator) return false;
  if (wait) reduced_.wait(lock, [&] { return it->second.ready; });
  if (!it->second.ready) return false;
  starpu_data_handle_t h = it->second.accumulator;
  it->second.accumulator = nullptr;
  lock.unlock();
  starpu_data_unregister(h);  // released, so this only writes back: the result is in place
  lock.lock();
  payload = std::move(it->second.result);
  intervals_.erase(it);
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return true;
}

}  // namespace pairhist
