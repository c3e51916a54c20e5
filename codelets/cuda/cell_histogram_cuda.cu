// CUDA cell-list pair-histogram kernel (cell_histogram_cuda.hpp).
//
// Persistent blocks of kWarps warps; every warp counts one home cell at a time. The warp lists
// the point indices of the home cell's stencil (runs of consecutive keys: one per stencil row in
// row-major order) in shared memory, then each lane holds up to kSlots of those candidates in
// registers while the home cell's points are broadcast from shared memory: the all-pairs kernel's
// inner loop (registers x broadcast), with the same arithmetic per pair. Warps need no block
// barrier between home cells, so a cell costs its pairs plus a few hundred instructions per lane.
// Warps take home cells from one counter in key order, so the cells in flight at any time are a
// compact slab of space whose stencils share the L2 (and partly L1).
#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>
#include <vector>

#include "codelets/cuda/bin_roots.cuh"
#include "codelets/cuda/cell_histogram_cuda.hpp"
#include "codelets/cuda/cell_stencil.cuh"
#include "codelets/cuda/kernel_common.cuh"

namespace pairhist::cuda {
namespace {

// The shape can be overridden at compile time (-DPAIRHIST_CELL_WARPS=...), for measurements
// only.
#ifndef PAIRHIST_CELL_WARPS
#define PAIRHIST_CELL_WARPS 8
#endif
#ifndef PAIRHIST_CELL_SLOTS
#define PAIRHIST_CELL_SLOTS 4
#endif
#ifndef PAIRHIST_CELL_GRAB
#define PAIRHIST_CELL_GRAB 1
#endif
constexpr int kWarps = PAIRHIST_CELL_WARPS;
constexpr int kThreads = 32 * kWarps;
constexpr int kSlots = PAIRHIST_CELL_SLOTS;         // candidates per lane in a full pass
constexpr int kPass = 32 * kSlots;                  // candidates per warp in a full pass
constexpr int kHomeChunk = 32;                      // home points broadcast from one buffer
constexpr int kWindow = 1024;                       // candidate indices a warp lists at once
constexpr unsigned kGrabKeys = PAIRHIST_CELL_GRAB;  // consecutive home keys a warp takes at once
constexpr int kRowSlots = (kMaxStencilRows + 1) / 2 * 2;  // keeps what follows 32-byte aligned
constexpr unsigned kFullMask = 0xffffffffu;
#ifndef PAIRHIST_CELL_MIN_BLOCKS
#define PAIRHIST_CELL_MIN_BLOCKS 4
#endif
// Blocks per SM the register allocation must allow (4: 64 registers; 5 spilled and ran 11% slower
// on W1); the triclinic search and double precision need more registers per pair.
template <BoxKind K, class T>
constexpr int kMinBlocks = K == BoxKind::triclinic ? (sizeof(T) == 8 ? 2 : 4)
                           : sizeof(T) == 8        ? 3
                                                   : PAIRHIST_CELL_MIN_BLOCKS;
// 32-bit shared counters are flushed whenever the pairs a block has reserved cross a multiple of
// 2^30: a counter then never holds more than ~2^31 (the pairs between two flushes, plus those
// reserved but still in flight, at most kWarps * kHomeChunk * kWindow).
constexpr int kFlushShift = 30;

/// What a warp keeps in shared memory: the listed candidates and the home points it broadcasts.
template <class T>
struct WarpSpace {
  int32_t idx[kWindow];
  Point<T> home[kHomeChunk];
};

/// One species pair of a launch: home cells a (key range, in items [item_begin, next item_begin)
/// of the launch's work) against their stencils in b. Staged in shared memory by every block.
template <class T>
struct CellJob {
  const Point<T>* a;
  const Point<T>* b;
  const int32_t* a_start;
  const int32_t* b_start;
  const int32_t* cell_keys;  // null: row-major keys
  unsigned long long* hist;
  unsigned item_begin;  // the job's first work item
  int key_begin;
  // Work items per home cell: launches with fewer home cells than the GPU has warps split each
  // cell's candidates, so every warp has work and no cell's warp finishes alone.
  int slices;
  int same;
};

// Species pairs one launch counts at once (one ramp-up and one tail for all of them).
constexpr int kMaxJobs = 8;

template <class T>
struct CellArgs {
  unsigned* work;  // next work item, blocks done; zero between launches
  unsigned items;  // work items of all jobs
  int jobs;
  CellJob<T> job[kMaxJobs];
  CellGrid grid;
  Stencil stencil;
  HistogramParams<T> p;
};

__device__ __forceinline__ int warp_exclusive_sum(int v, int lane, int& total) {
  int s = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int t = __shfl_up_sync(kFullMask, s, o);
    if (lane >= o) s += t;
  }
  total = __shfl_sync(kFullMask, s, 31);
  return s - v;
}

/// Where a launch counts: shared-memory counters (bins from 0, or from r_min > 0: their own
/// instantiations, see biased_bin), or global 64-bit atomics (wide histograms).
constexpr int kSharedCounts = 0, kGlobalCounts = 1, kSharedCountsFromRmin = 2;

/// Adds one pair's bin (a squared distance from pair_distance2) to the counts, if `take`.
template <int Counts, class T>
__device__ __forceinline__ void add_pair(T d2, bool take, const HistogramParams<T>& p,
                                         unsigned biased_base, unsigned* counts,
                                         unsigned long long* hist) {
  if constexpr (Counts == kGlobalCounts) {
    const int bin = bin_of_distance(root_for_bin(d2), p);
    if (take && bin < p.nbins) atomicAdd(&hist[bin], 1ull);
  } else if constexpr (sizeof(T) == 4) {
    const unsigned biased = biased_bin<Counts == kSharedCountsFromRmin>(root_for_bin(d2), p);
    if (take) add_one_shared(biased_base + biased * 4u);
  } else {
    const int bin = bin_of_root<Counts == kSharedCountsFromRmin>(root_for_bin(d2), p);
    if (take) atomicAdd(&counts[bin], 1u);
  }
}

/// A full pass: kSlots real candidates per lane against the hc home points; Diagonal: pairs
/// j > i only (a species with itself, where the pass holds home points). With count_partial the
/// only copies of the all-pairs inner loop: the kernel's hot code stays small for the
/// instruction cache (a copy per slot count and case stalled a third of the issue slots on
/// instruction fetch).
template <bool Diagonal, int Counts, BoxKind K, class T, int F>
__device__ __forceinline__ void count_full(const Point<T> (&cand)[kSlots],
                                           const int32_t (&j)[kSlots], const Point<T>* home, int hc,
                                           int i0, const HistogramParams<T>& p,
                                           ImageTable<T> images, unsigned biased_base,
                                           unsigned* counts, unsigned long long* hist) {
#pragma unroll 2
  for (int i = 0; i < hc; ++i) {
    const Point<T> q = home[i];
    T r[kSlots];
#pragma unroll
    for (int k = 0; k < kSlots; ++k)
      r[k] = pair_distance2<K, T, F>(p.box, images, fp::sub(cand[k].x, q.x),
                                     fp::sub(cand[k].y, q.y), fp::sub(cand[k].z, q.z));
#pragma unroll
    for (int k = 0; k < kSlots; ++k)
      add_pair<Counts>(r[k], !Diagonal || j[k] > i0 + i, p, biased_base, counts, hist);
  }
}

/// The last pass of a list: only `slots` (< kSlots) slots per lane hold candidates, the others
/// are skipped; `diagonal` as in count_full.
template <int Counts, BoxKind K, class T, int F>
__device__ __forceinline__ void count_partial(const Point<T> (&cand)[kSlots],
                                              const int32_t (&j)[kSlots], int slots, bool diagonal,
                                              const Point<T>* home, int hc, int i0,
                                              const HistogramParams<T>& p, ImageTable<T> images,
                                              unsigned biased_base, unsigned* counts,
                                              unsigned long long* hist) {
  for (int i = 0; i < hc; ++i) {
    const Point<T> q = home[i];
    const int above = diagonal ? i0 + i : INT_MIN;
#pragma unroll
    for (int k = 0; k < kSlots; ++k) {
      if (k >= slots) break;
      const T d2 = pair_distance2<K, T, F>(p.box, images, fp::sub(cand[k].x, q.x),
                                           fp::sub(cand[k].y, q.y), fp::sub(cand[k].z, q.z));
      add_pair<Counts>(d2, j[k] > above, p, biased_base, counts, hist);
    }
  }
}

/// One pass: lane holds candidates c0 + lane + 32 k (k < kSlots) of the listed ones; past mw,
/// NaN points (miss bin).
template <int Counts, BoxKind K, class T, int F>
__device__ __forceinline__ void sweep(const CellArgs<T>& args, const CellJob<T>& job,
                                      const int32_t* idx, int c0, int mw, const Point<T>* home,
                                      int hc, int i0, int home_end, ImageTable<T> images,
                                      unsigned* counts, int lane) {
  Point<T> cand[kSlots];
  int32_t j[kSlots];
  bool in_home = false;
#pragma unroll
  for (int k = 0; k < kSlots; ++k) {
    const int c = c0 + 32 * k + lane;
    if (c < mw) {
      j[k] = idx[c];
      cand[k] = job.b[j[k]];
      in_home = in_home || j[k] < home_end;
    } else {
      j[k] = INT_MAX;
      cand[k] = nan_point<T>();
    }
  }
  const unsigned biased_base =
      static_cast<unsigned>(__cvta_generic_to_shared(counts)) - kBinBias * 4u;
  // Same species: every candidate outside the home cell has a higher key, hence a higher sorted
  // index than any home point; only passes holding home points test j > i.
  const bool diagonal = job.same && __any_sync(kFullMask, in_home);
  if (c0 + kPass > mw)
    count_partial<Counts, K, T, F>(cand, j, (mw - c0 + 31) / 32, diagonal, home, hc, i0, args.p,
                                   images, biased_base, counts, job.hist);
  else if (diagonal)
    count_full<true, Counts, K, T, F>(cand, j, home, hc, i0, args.p, images, biased_base, counts,
                                      job.hist);
  else
    count_full<false, Counts, K, T, F>(cand, j, home, hc, i0, args.p, images, biased_base, counts,
                                       job.hist);
}

/// Moves a block's shared counts into hist; atomicExch lets it run while other warps count.
__device__ void flush_counts(unsigned* counts, int nbins, unsigned long long* hist, int first,
                             int stride) {
  for (int k = first; k < nbins; k += stride) {
    const unsigned c = atomicExch(&counts[k], 0u);
    if (c) atomicAdd(&hist[k], static_cast<unsigned long long>(c));
  }
}

/// Moves the shared counts of every job of the launch (nbins + 1 counters each) into their hists.
template <class T>
__device__ void flush_all(unsigned* counts, const CellArgs<T>& args, int first, int stride) {
  const int nbins = args.p.nbins;
#pragma unroll
  for (int j = 0; j < kMaxJobs; ++j)
    if (j < args.jobs)
      flush_counts(counts + j * (nbins + 1), nbins, args.job[j].hist, first, stride);
}

/// One home cell (points hs..he of a) against slice `slice` of `slices` of its stencil's listed
/// candidates in b; returns the whole cell's candidates for slice 0, else 0.
template <BoxKind K, class T, int F, int Counts>
__device__ __forceinline__ uint64_t count_home_cell(const CellArgs<T>& args, const CellJob<T>& job,
                                                    int key, int slice, int hs, int he,
                                                    const StencilRow* rows, WarpSpace<T>& mine,
                                                    ImageTable<T> images, unsigned* counts,
                                                    unsigned* all_counts, unsigned* pending,
                                                    int lane) {
  const CellGrid& g = args.grid;
  const CellIndex home = home_cell(g, key);
  const int nrows = args.stencil.rows;
  const bool same = job.same;
  int listed = 0;
  for_each_run(g, rows, nrows, job.cell_keys, home, key, same, lane,
               [&](int k0, int k1) { listed += job.b_start[k1 + 1] - job.b_start[k0]; });
  int m = 0;
  const int first = warp_exclusive_sum(listed, lane, m);
  const int nh = he - hs;
  // A slice is a contiguous part of the listed candidates, in whole passes: every candidate is in
  // exactly one slice, and the j > i test needs nothing but the candidate's index.
  const int passes = (m + kPass - 1) / kPass;
  const int c_begin = min(m, passes * slice / job.slices * kPass);
  const int c_end = min(m, passes * (slice + 1) / job.slices * kPass);
  for (int w0 = c_begin; w0 < c_end; w0 += kWindow) {
    const int mw = min(kWindow, c_end - w0);
    __syncwarp();
    // Each lane lists its own runs (the same runs in the same order as above).
    int f = first;
    int32_t* idx = mine.idx - w0;
    for_each_run(g, rows, nrows, job.cell_keys, home, key, same, lane, [&](int k0, int k1) {
      const int s = job.b_start[k0], len = job.b_start[k1 + 1] - s;
      const int hi = min(f + len, w0 + mw), delta = s - f;
#pragma unroll 4
      for (int q = max(f, w0); q < hi; ++q) idx[q] = q + delta;
      f += len;
    });
    for (int h0 = 0; h0 < nh; h0 += kHomeChunk) {
      const int hc = min(kHomeChunk, nh - h0);
      __syncwarp();
      if (lane < hc) mine.home[lane] = job.a[hs + h0 + lane];
      if constexpr (Counts != kGlobalCounts) {
        unsigned crossed = 0;
        if (lane == 0) {
          const unsigned w = unsigned(hc) * unsigned(mw);
          const unsigned old = atomicAdd(pending, w);
          crossed = (old >> kFlushShift) != ((old + w) >> kFlushShift);
        }
        if (__shfl_sync(kFullMask, crossed, 0)) flush_all(all_counts, args, lane, 32);
      }
      __syncwarp();
      for (int c0 = 0; c0 < mw; c0 += kPass)
        sweep<Counts, K, T, F>(args, job, mine.idx, c0, mw, mine.home, hc, hs + h0, he, images,
                               counts, lane);
    }
  }
  if (slice != 0) return 0;
  return same ? uint64_t(nh) * (m - nh) + uint64_t(nh) * (nh - 1) / 2 : uint64_t(nh) * m;
}

template <BoxKind K, class T, int F, int Counts>
__global__ void __launch_bounds__(kThreads, kMinBlocks<K, T>)
    cell_histogram_kernel(const CellArgs<T> args) {
  extern __shared__ __align__(32) unsigned char dynamic_shared[];
  auto* warps = reinterpret_cast<WarpSpace<T>*>(dynamic_shared);
  auto* rows = reinterpret_cast<StencilRow*>(dynamic_shared + kWarps * sizeof(WarpSpace<T>));
  auto* table = reinterpret_cast<ImageShift<T>*>(rows + kRowSlots);
  auto* counts = reinterpret_cast<unsigned*>(reinterpret_cast<unsigned char*>(table) +
                                             image_table_bytes<K>(args.p.box));
  __shared__ CellJob<T> jobs[kMaxJobs];
  __shared__ unsigned pending;
  __shared__ unsigned long long block_candidates[kMaxJobs];

  const int nbins = args.p.nbins;
  if (Counts != kGlobalCounts)
    for (int k = threadIdx.x; k < args.jobs * (nbins + 1); k += kThreads) counts[k] = 0;
  const ImageTable<T> images = stage_image_table<K>(args.p.box, table);
  for (int r = threadIdx.x; r < args.stencil.rows; r += kThreads) rows[r] = args.stencil.row[r];
  if (threadIdx.x == 0) pending = 0;
#pragma unroll
  for (int j = 0; j < kMaxJobs; ++j)
    if (threadIdx.x == 0 && j < args.jobs) jobs[j] = args.job[j], block_candidates[j] = 0;
  __syncthreads();

  const int lane = threadIdx.x % 32;
  WarpSpace<T>& mine = warps[threadIdx.x / 32];
  // Warps take kGrabKeys work items at a time from the launch's counter, asking for the next ones
  // while they count: the kernel ends when the last cell is done, wherever the dense cells lie.
  // Items run through the jobs in turn (the largest first), so one job's last cells overlap the
  // next job's first.
  unsigned grabbed = 0;
  if (lane == 0) grabbed = atomicAdd(args.work, kGrabKeys);
  for (unsigned t = __shfl_sync(kFullMask, grabbed, 0); t < args.items;
       t = __shfl_sync(kFullMask, grabbed, 0)) {
    if (lane == 0) grabbed = atomicAdd(args.work, kGrabKeys);
    for (unsigned u = t; u < min(t + kGrabKeys, args.items); ++u) {
      int j = 0;
      while (j + 1 < args.jobs && u >= jobs[j + 1].item_begin) ++j;
      const CellJob<T>& job = jobs[j];
      const unsigned item = u - job.item_begin;
      const int key = job.key_begin + int(item / unsigned(job.slices));
      const int slice = int(item % unsigned(job.slices));
      const int hs = job.a_start[key], he = job.a_start[key + 1];
      if (hs < he) {
        const uint64_t c =
            count_home_cell<K, T, F, Counts>(args, job, key, slice, hs, he, rows, mine, images,
                                             counts + j * (nbins + 1), counts, &pending, lane);
        if (lane == 0 && c) atomicAdd(&block_candidates[j], static_cast<unsigned long long>(c));
      }
    }
  }
  __syncthreads();
  if constexpr (Counts != kGlobalCounts) flush_all(counts, args, threadIdx.x, kThreads);
  if (threadIdx.x < args.jobs && block_candidates[threadIdx.x])
    atomicAdd(&jobs[threadIdx.x].hist[nbins], block_candidates[threadIdx.x]);
  if (threadIdx.x == 0) {
    // The last block leaves the counter at zero for the next launch with this counter.
    __threadfence();
    if (atomicAdd(args.work + 1, 1u) == gridDim.x - 1) {
      args.work[0] = 0;
      args.work[1] = 0;
      __threadfence();
    }
  }
}

/// Slices per home cell: enough that the launch has kItemsPerWarp work items per resident warp
/// (one cell per warp left most warps idle while the fullest cells finished: W1 at 1e5 atoms ran
/// at a third of the 1.4M-atom rate per candidate), at most kMaxSlices and at most the passes a
/// cell's candidates fill on average (each slice lists the stencil again; an empty one is waste).
constexpr int64_t kItemsPerWarp = 4;
constexpr int kMaxSlices = 8;
inline int cell_slices(int64_t home_keys, int64_t resident_warps, double passes_per_cell) {
  if (home_keys <= 0) return 1;
  const int64_t want = (kItemsPerWarp * resident_warps + home_keys - 1) / home_keys;
  const auto passes = static_cast<int64_t>(std::llround(std::max(passes_per_cell, 1.0)));
  return static_cast<int>(std::clamp<int64_t>(want, 1, std::min<int64_t>(kMaxSlices, passes)));
}

template <BoxKind K, class T>
size_t fixed_shared_bytes(const HistogramParams<T>& p) {
  return kWarps * sizeof(WarpSpace<T>) + kRowSlots * sizeof(StencilRow) +
         image_table_bytes<K>(p.box);
}

/// A job as the launcher plans it: what the device gets, and its size.
template <class T>
struct PlannedJob {
  CellJob<T> job;
  int64_t keys;            // home cells (keys) of the job
  double passes_per_cell;  // full passes a home cell's candidates fill on average
  double work;             // estimated candidates: the largest jobs go first
};

/// The SMs of the current device and the blocks of `fn` with `shared` bytes each fit on one,
/// asked of the runtime once per thread, device, kernel and size. (The host's time per launch
/// call, ~9 us on the H100 host, did not change measurably with it.)
struct LaunchShape {
  int sms = 0, per_sm = 0;
};
cudaError_t launch_shape(const void* fn, size_t shared, LaunchShape& shape) {
  struct Known {
    int device;
    const void* fn;
    size_t shared;
    LaunchShape shape;
  };
  thread_local std::vector<Known> known;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  for (const Known& k : known)
    if (k.device == device && k.fn == fn && k.shared == shared) {
      shape = k.shape;
      return cudaSuccess;
    }
  // The kernel may take all the shared memory a block can have: every launch of it may then use
  // any size, and no thread lowers the limit under another's launch.
  int optin = 0;
  cudaFuncAttributes attributes{};
  err = cudaDeviceGetAttribute(&shape.sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attributes, fn);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               optin - static_cast<int>(attributes.sharedSizeBytes));
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&shape.per_sm, fn, kThreads, shared);
  if (err != cudaSuccess) return err;
  known.push_back({device, fn, shared, shape});
  return cudaSuccess;
}

/// One launch of jobs[0, count): slices per job from the GPU's resident warps (or `slices`),
/// items laid out job after job.
template <BoxKind K, class T, int F, int Counts>
cudaError_t launch(CellArgs<T> args, const PlannedJob<T>* jobs, int count, size_t shared,
                   int slices, cudaStream_t stream) {
  auto* fn = cell_histogram_kernel<K, T, F, Counts>;
  LaunchShape shape;
  const cudaError_t err = launch_shape(reinterpret_cast<const void*>(fn), shared, shape);
  if (err != cudaSuccess) return err;
  const int sms = shape.sms, per_sm = shape.per_sm;
  const int64_t resident_warps = int64_t(std::max(per_sm, 1)) * sms * kWarps;
  int64_t home_keys = 0;
  for (int j = 0; j < count; ++j) home_keys += jobs[j].keys;
  int64_t items = 0;
  args.jobs = count;
  for (int j = 0; j < count; ++j) {
    CellJob<T>& job = args.job[j] = jobs[j].job;
    job.slices =
        slices > 0 ? slices : cell_slices(home_keys, resident_warps, jobs[j].passes_per_cell);
    job.item_begin = static_cast<unsigned>(items);
    items += jobs[j].keys * job.slices;
  }
  if (items >= int64_t(UINT_MAX) - 32 * kWarps * int64_t(kGrabKeys) * 1024)
    return cudaErrorInvalidValue;
  args.items = static_cast<unsigned>(items);
  const int64_t grabs = (items + kGrabKeys - 1) / kGrabKeys;
  const int64_t blocks =
      std::min<int64_t>(int64_t(std::max(per_sm, 1)) * sms, (grabs + kWarps - 1) / kWarps);
  fn<<<static_cast<unsigned>(blocks), kThreads, shared, stream>>>(args);
  return cudaGetLastError();
}

/// The jobs in launches of as many as shared memory holds the counters of (at most kMaxJobs), one
/// after the other on the stream (they share the work counter).
template <BoxKind K, class T>
cudaError_t launch_for_box(const CellArgs<T>& args, const std::vector<PlannedJob<T>>& jobs,
                           int slices, cudaStream_t stream) {
  int device = 0, optin = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (err != cudaSuccess) return err;
  const size_t fixed = fixed_shared_bytes<K>(args.p);
  const size_t per_job = (size_t(args.p.nbins) + 1) * sizeof(unsigned);
  // Histograms too wide for shared memory (or beyond the biased bins' 2^23): global atomics.
  // (The kernel's static shared memory: the job table, candidates per job, a counter.)
  const size_t statics = kMaxJobs * (sizeof(CellJob<T>) + sizeof(unsigned long long)) + 64;
  const bool global = fixed + per_job + statics > size_t(optin) || args.p.nbins >= (1 << 23);
  const int per_launch = global ? kMaxJobs
                                : static_cast<int>(std::min<size_t>(
                                      kMaxJobs, (size_t(optin) - statics - fixed) / per_job));
  auto go = [&](auto fixed_images) {
    constexpr int F = decltype(fixed_images)::value;
    cudaError_t e = cudaSuccess;
    for (size_t j0 = 0; j0 < jobs.size() && e == cudaSuccess; j0 += size_t(per_launch)) {
      const int count = static_cast<int>(std::min(jobs.size() - j0, size_t(per_launch)));
      const size_t shared = fixed + size_t(count) * per_job;
      e = global ? launch<K, T, F, kGlobalCounts>(args, &jobs[j0], count, fixed, slices, stream)
          : args.p.lower != T(0)
              ? launch<K, T, F, kSharedCountsFromRmin>(args, &jobs[j0], count, shared, slices,
                                                       stream)
              : launch<K, T, F, kSharedCounts>(args, &jobs[j0], count, shared, slices, stream);
    }
    return e;
  };
  if constexpr (K == BoxKind::triclinic) {
    if (args.p.box.octant_images == 1) return go(std::integral_constant<int, 1>{});
    if (args.p.box.octant_images == 2) return go(std::integral_constant<int, 2>{});
  }
  return go(std::integral_constant<int, 0>{});
}

}  // namespace

template <class T>
cudaError_t launch_cell_histograms(const CellPairLaunch<T>* pairs, int count, const CellGrid& grid,
                                   const HistogramParams<T>& params, cudaStream_t stream,
                                   int slices) {
  if (slices < 0 || slices > kMaxSlices || count < 0) return cudaErrorInvalidValue;
  if (count == 0 || params.nbins <= 0) return cudaSuccess;
  if (grid.keys >= INT_MAX) return cudaErrorInvalidValue;
  if (grid.kind != BoxKind::none)
    for (int axis = 0; axis < 3; ++axis)  // neighbour() wraps once
      if (grid.offset_lo[axis] <= -grid.n[axis] || grid.offset_hi[axis] >= grid.n[axis])
        return cudaErrorInvalidValue;
  const double stencil = cells::stencil_size(grid);
  std::vector<PlannedJob<T>> jobs;
  for (int i = 0; i < count; ++i) {
    const CellPairLaunch<T>& pr = pairs[i];
    if (!pr.a || (!pr.same_species && !pr.b)) return cudaErrorInvalidValue;
    const DeviceCells<T>& a = *pr.a;
    const DeviceCells<T>& b = pr.same_species ? a : *pr.b;
    const int64_t key_begin = std::max<int64_t>(pr.key_begin, 0);
    const int64_t key_end = std::min(pr.key_end, grid.keys);
    if (key_begin >= key_end || a.n <= 0 || b.n <= 0) continue;
    if (a.keys != grid.keys || b.keys != grid.keys || !pr.hist) return cudaErrorInvalidValue;
    const DeviceCells<T>* home = &a;
    const DeviceCells<T>* other = &b;
    // The whole key range of two species: let the one with more points per cell be home, so a
    // warp's listed candidates serve more home points. Distances are symmetric bit for bit, and
    // the stencil relation is symmetric, so histogram and candidates are the same.
    if (!pr.same_species && key_begin == 0 && key_end == grid.keys && b.n > a.n)
      std::swap(home, other);
    PlannedJob<T> p{};
    p.job.a = reinterpret_cast<const Point<T>*>(home->points);
    p.job.b = reinterpret_cast<const Point<T>*>(other->points);
    p.job.a_start = home->cell_start;
    p.job.b_start = other->cell_start;
    p.job.cell_keys = grid.order == CellOrder::row_major ? nullptr : other->cell_keys;
    if (grid.order != CellOrder::row_major && !p.job.cell_keys) return cudaErrorInvalidValue;
    p.job.hist = pr.hist;
    p.job.key_begin = static_cast<int>(key_begin);
    p.job.same = pr.same_species;
    p.keys = key_end - key_begin;
    const double keys = static_cast<double>(grid.keys);
    const double candidates_per_point =
        static_cast<double>(other->n) / keys * stencil * (pr.same_species ? 0.5 : 1.0);
    p.passes_per_cell = candidates_per_point / kPass;
    p.work =
        static_cast<double>(home->n) * static_cast<double>(p.keys) / keys * candidates_per_point;
    jobs.push_back(p);
  }
  if (jobs.empty()) return cudaSuccess;
  if (!pairs[0].a->work) return cudaErrorInvalidValue;
  // The largest first: the small ones fill the gaps of the last large cells.
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const PlannedJob<T>& x, const PlannedJob<T>& y) { return x.work > y.work; });
  CellArgs<T> args{};
  args.work = pairs[0].a->work;
  args.grid = grid;
  args.stencil = make_stencil(grid);
  args.p = params;
  return dispatch_box_kind(params.box.kind, [&](auto kind) {
    return launch_for_box<decltype(kind)::value>(args, jobs, slices, stream);
  });
}

template <class T>
cudaError_t launch_cell_histogram(const DeviceCells<T>& a, const DeviceCells<T>& b,
                                  bool same_species, const CellGrid& grid, int64_t key_begin,
                                  int64_t key_end, const HistogramParams<T>& params,
                                  unsigned long long* hist, cudaStream_t stream, int slices) {
  const CellPairLaunch<T> pair{&a, &b, same_species, key_begin, key_end, hist};
  return launch_cell_histograms(&pair, 1, grid, params, stream, slices);
}

namespace {

template <BoxKind K, class T, int F>
cudaError_t load_count_kernels() {
  cudaFuncAttributes attributes;
  cudaError_t err =
      cudaFuncGetAttributes(&attributes, cell_histogram_kernel<K, T, F, kSharedCounts>);
  if (err == cudaSuccess)
    err = cudaFuncGetAttributes(&attributes, cell_histogram_kernel<K, T, F, kGlobalCounts>);
  return err;
}

}  // namespace

template <class T>
cudaError_t load_cell_kernels() {
  cudaError_t err = load_build_kernels<T>();
  for (auto load :
       {load_count_kernels<BoxKind::none, T, 0>, load_count_kernels<BoxKind::orthorhombic, T, 0>,
        load_count_kernels<BoxKind::triclinic, T, 0>, load_count_kernels<BoxKind::triclinic, T, 1>,
        load_count_kernels<BoxKind::triclinic, T, 2>})
    if (err == cudaSuccess) err = load();
  return err;
}

template cudaError_t load_cell_kernels<float>();
template cudaError_t load_cell_kernels<double>();

template cudaError_t launch_cell_histograms<float>(const CellPairLaunch<float>*, int,
                                                   const CellGrid&, const HistogramParams<float>&,
                                                   cudaStream_t, int);
template cudaError_t launch_cell_histograms<double>(const CellPairLaunch<double>*, int,
                                                    const CellGrid&, const HistogramParams<double>&,
                                                    cudaStream_t, int);
template cudaError_t launch_cell_histogram<float>(const DeviceCells<float>&,
                                                  const DeviceCells<float>&, bool, const CellGrid&,
                                                  int64_t, int64_t, const HistogramParams<float>&,
                                                  unsigned long long*, cudaStream_t, int);
template cudaError_t launch_cell_histogram<double>(const DeviceCells<double>&,
                                                   const DeviceCells<double>&, bool,
                                                   const CellGrid&, int64_t, int64_t,
                                                   const HistogramParams<double>&,
                                                   unsigned long long*, cudaStream_t, int);

}  // namespace pairhist::cuda
