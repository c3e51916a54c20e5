#include "tasks/throughput_share.hpp"

#include <algorithm>

namespace pairhist {

void ThroughputTracker::record(bool on_cuda, bool cpu_sized, double start, double end,
                               uint64_t pairs) {
  const double duration = std::max(0.0, end - start);
  if (!on_cuda) {
    // Per core: the cores run one task each at a time, so busy time adds up; the rate it gives is
    // the per-core rate under the contention of every core running.
    totals_.cpu_tasks += 1;
    totals_.cpu_pairs += pairs;
    totals_.cpu_busy_seconds += duration;
    return;
  }
  // Two CUDA workers share each GPU and their tasks overlap (one launches while the other's kernel
  // runs), so summed busy time would count the GPU twice. What a GPU delivers is pairs per second
  // of wall time while it works: the union of the task intervals. Tasks are reported in
  // completion order, which is nearly start order, so the union is kept with one cursor (the
  // latest end seen): a task adds only its part after the cursor. Gaps while no CUDA task runs
  // (frames not read yet, a drained queue at an output interval) are left out, unlike with one
  // span from the first start to the last end. The error: the part of a long task that started
  // before a shorter one completed first, and overlapped nothing else, is missed (rare while the
  // GPUs are busy, where every instant is covered by some task). All GPUs share the one cursor:
  // in steady state they work at once, and the union then is the time the GPUs were working.
  auto add_union = [&](double& covered_until, double& seconds) {
    if (end > covered_until) {
      seconds += end - std::max(start, covered_until);
      covered_until = end;
    }
  };
  totals_.cuda_tasks += 1;
  totals_.cuda_pairs += pairs;
  add_union(cuda_covered_until_, totals_.cuda_seconds);
  if (cpu_sized) {
    totals_.eaten_tasks += 1;
    totals_.eaten_pairs += pairs;
  } else {
    // The GPU rate comes from GPU-sized tiles: CPU-sized tiles run on a GPU at a poor rate
    // (launch and flush cost as much as the kernel), and counting them would lower the measured
    // GPU rate exactly when the cores are over-served, raising their share further.
    totals_.gpu_sized_tasks += 1;
    totals_.gpu_sized_pairs += pairs;
    add_union(gpu_sized_covered_until_, totals_.gpu_sized_seconds);
  }
}

CpuShare measured_cpu_share(const ThroughputTotals& t, const MachineShape& machine,
                            uint64_t frame_pairs, uint64_t fallback_pairs) {
  CpuShare s;
  s.cpu_share_pairs = fallback_pairs;
  s.fraction = frame_pairs > 0 ? static_cast<double>(fallback_pairs) / frame_pairs : 0;
  if (machine.cpu_workers <= 0 || machine.cuda_workers <= 0 || frame_pairs == 0) return s;

  const uint64_t gpu_warmup =
      kShareWarmupTasks *
      static_cast<uint64_t>(std::max(1, machine.gpus > 0 ? machine.gpus : machine.cuda_workers));
  const uint64_t cpu_warmup =
      std::max<uint64_t>(kShareWarmupTasks, static_cast<uint64_t>(machine.cpu_workers));
  if (t.cpu_tasks < cpu_warmup || !(t.cpu_busy_seconds > 0)) return s;
  double gpu_rate = 0;
  if (t.gpu_sized_tasks >= gpu_warmup && t.gpu_sized_seconds > 0)
    gpu_rate = t.gpu_sized_pairs / t.gpu_sized_seconds;
  else if (t.cuda_tasks >= gpu_warmup && t.cuda_seconds > 0)  // frames with no GPU-sized tile
    gpu_rate = t.cuda_pairs / t.cuda_seconds;
  if (!(gpu_rate > 0)) return s;

  const double cpu_rate = machine.cpu_workers * (t.cpu_pairs / t.cpu_busy_seconds);
  double share = cpu_rate / (cpu_rate + gpu_rate);
  const uint64_t cpu_sized_done = t.cpu_pairs + t.eaten_pairs;
  s.eaten_fraction = cpu_sized_done > 0 ? static_cast<double>(t.eaten_pairs) / cpu_sized_done : 0.0;
  // GPUs ran many core-sized tiles: the cores were offered more than they did, whatever the
  // rates say (a per-core rate that drops as more cores contend, scheduling gaps). What they
  // achieved, as a share of all pairs done, is then what they can do. When they were offered
  // too little instead, nothing is eaten and the rate share alone lets the share grow again.
  if (s.eaten_fraction > kEatenTolerance) {
    const double achieved = static_cast<double>(t.cpu_pairs) / (t.cpu_pairs + t.cuda_pairs);
    share = std::min(share, achieved);
  }
  s.fraction = std::min(1.0, share * kMeasuredShareMargin);
  s.cpu_share_pairs = static_cast<uint64_t>(s.fraction * static_cast<double>(frame_pairs));
  s.measured = true;
  s.cpu_rate = cpu_rate;
  s.gpu_rate = gpu_rate;
  return s;
}

}  // namespace pairhist
