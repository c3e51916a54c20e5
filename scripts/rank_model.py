"""The many-node part of scripts/scaling_model.py (`--ranks`).

The same trace as the work of one rank of a distributed run
(`mpirun`/`srun`, one rank per node or per GPU), replayed on N such ranks as pairhist runs them:
rank 0 hands out frames one at a time to whichever rank asks (a claim costs a round trip on the
network and rank 0's coordinator a few us), a rank holds a few frames at once (its engine's ring
and the one it reads), the last frames go out in parts (as FrameDispenser does), and at the end
(and at each output interval) the ranks' partial histograms are summed in a binary tree of
owner-computes sum tasks (StarPU-MPI; --linear-reduction: all to rank 0 over its one link). Each frame's work is the trace's
(the tasks' summed durations over the rank's workers, cycled to --frames), each unit costs its
rank the trace's reading time per frame (a part needs the whole frame), and every rank passes
over the other ranks' frames in the file. Networks: ib-hdr (25 GB/s, 2 us), 10gbe (1.25 GB/s,
30 us) or BW_GBS,LATENCY_US. It leaves out rank 0's coordinator being busy with its own frames,
the shared file system's aggregate bandwidth unless --fs-bandwidth says it, and the start-up of
MPI and StarPU (added as --startup seconds).
"""
import csv
import heapq
import json
import math
import sys
from collections import defaultdict


NETWORKS = {"ib-hdr": (25.0, 2.0), "10gbe": (1.25, 30.0)}


def network(name):
    """(GB/s, us) of a named network or of 'BW_GBS,LATENCY_US'."""
    if name in NETWORKS:
        return NETWORKS[name]
    bw, lat = name.split(",")
    return float(bw), float(lat)


class RankWork:
    """One rank's work per frame, from a trace of any kind (CPU or GPU tasks, one rank or several:
    a distributed run's trace carries the rank in its first column)."""

    def __init__(self, rows):
        if not rows:
            raise ValueError("the trace has no tasks")
        by_unit = defaultdict(float)
        workers = defaultdict(set)
        feed = {}
        for r in rows:
            rank = int(r.get("rank", 0) or 0)
            by_unit[(rank, int(r["frame"]))] += float(r["end_s"]) - float(r["start_s"])
            workers[rank].add(int(r["worker"]))
            feed[(rank, int(r["frame"]))] = (float(r["frame_begin_s"]), float(r["frame_free_s"]),
                                            float(r["frame_submitted_s"]))
        self.ranks = len(workers)
        self.workers = max(len(w) for w in workers.values())
        # Seconds a frame takes the rank: its tasks' time spread over the rank's workers (two
        # CUDA workers share a GPU, so this is GPU time for a rank with one GPU and two workers).
        self.frame_seconds = [by_unit[k] / self.workers for k in sorted(by_unit)]
        # The caller's time per frame: reading it (after handing over the one before) and
        # copying and submitting it; a rank's reading overlaps its computing.
        reads = []
        for rank in workers:
            frames = sorted(f for (r, f) in feed if r == rank)
            for prev, f in zip(frames, frames[1:]):
                begin, free, submitted = feed[(rank, f)]
                reads.append(max(0.0, begin - feed[(rank, prev)][2]) + (submitted - free))
        self.read_seconds = sum(reads) / len(reads) if reads else 0.0

    @staticmethod
    def load(path):
        with open(path, newline="") as f:
            return RankWork(list(csv.DictReader(f)))


def reduction_seconds(ranks, nbytes, bandwidth_gbs, latency_us, tree=True):
    """Rank 0 with every rank's partial histograms summed (added at 5 GB/s through memory):
    a binary tree of log2(ranks) steps, each one transfer and one add per pair of ranks
    (pairhist's default), or every partial to rank 0 over its one link, added one by one."""
    if ranks <= 1 or nbytes <= 0:
        return 0.0
    step = latency_us * 1e-6 + nbytes / (bandwidth_gbs * 1e9) + nbytes / 5e9
    if tree:
        return math.ceil(math.log2(ranks)) * step + nbytes / 5e9
    return latency_us * 1e-6 + (ranks - 1) * nbytes / (bandwidth_gbs * 1e9) + ranks * nbytes / 5e9


def replay_ranks(work, ranks, frames, bandwidth_gbs, latency_us, reduction_bytes=0,
                 interval=0, held=3, coordinator_us=10.0, speed=1.0, parts=0,
                 min_part_seconds=0.005, split_per_rank=6, pass_over_us=0.0, fs_gbs=0.0,
                 frame_file_bytes=0.0, startup=0.0, tree=True, rank_speeds=None):
    """Makespan of `frames` frames (the trace's, cycled) on `ranks` ranks like the trace's
    rank (each `speed` times as fast, and rank r rank_speeds[r] times more where given), as a
    distributed pairhist run hands them out. The pace rule that gives slow ranks parts earlier
    is left out."""
    lat = latency_us * 1e-6
    mean_frame = sum(work.frame_seconds) / len(work.frame_seconds) / speed
    if parts <= 0:  # as rank 0 decides (drivers/distributed/distributed_setup.cpp)
        parts = max(1, min(4 * ranks, int(mean_frame / min_part_seconds))) if ranks > 1 else 1
    split_last = split_per_rank * ranks
    units = []  # (frame, share of its work)
    for f in range(frames):
        if parts > 1 and frames - f <= split_last:
            units += [(f, 1.0 / parts)] * parts
        else:
            units.append((f, 1.0))
    read = work.read_seconds
    if fs_gbs > 0 and frame_file_bytes > 0:  # every rank reading at once from a shared file system
        read = max(read, frame_file_bytes * ranks / (fs_gbs * 1e9))
    read += pass_over_us * 1e-6 * (ranks - 1)  # headers of the other ranks' frames
    server_free = [startup] * ranks
    reader_free = [startup] * ranks
    last_end = [0.0] * ranks
    held_ends = [[] for _ in range(ranks)]  # end times of the units a rank holds
    counted = [0] * ranks
    coordinator_free = 0.0
    # Each rank asks for a unit as soon as it holds fewer than `held`: at the start, then when a
    # unit ends. Requests are served in the order they reach rank 0.
    asks = [(startup, r) for r in range(ranks) for _ in range(held)]
    heapq.heapify(asks)
    for f, share in units:
        t, r = heapq.heappop(asks)
        coordinator_free = max(coordinator_free, t + lat) + coordinator_us * 1e-6
        granted = coordinator_free + lat
        reader_free[r] = max(reader_free[r], granted) + read
        rank_speed = speed * (rank_speeds[r] if rank_speeds else 1.0)
        seconds = work.frame_seconds[f % len(work.frame_seconds)] / rank_speed * share
        start = max(reader_free[r], server_free[r])
        end = start + seconds
        server_free[r] = end
        last_end[r] = end
        counted[r] += 1
        heapq.heappush(asks, (end, r))
    busy_end = max(last_end)
    used = [e for e in last_end if e > 0]
    # The partial histograms' reduction, once at the end; at each earlier interval it overlaps
    # the counting, but each rank drains its engine there (about one frame's reading).
    reduce_once = reduction_seconds(ranks, reduction_bytes, bandwidth_gbs, latency_us, tree)
    blocks = -(-frames // interval) if interval > 0 else 1
    drain = (blocks - 1) * read
    makespan = busy_end + drain + reduce_once
    return {
        "ranks": ranks,
        "makespan_s": makespan,
        "counting_s": busy_end,
        "tail_idle_s": busy_end - min(used) if used else 0.0,
        "reduction_s": reduce_once,
        "units": len(units),
        "parts": parts,
        "units_per_rank": [min(counted), max(counted)],
    }


def self_test():
    """The ranks' replay on flat work whose answers are known."""
    def close(a, b):
        return abs(a - b) < 1e-9 * max(1.0, abs(b))

    # Ranks: 100 frames of 10 ms read instantly on 1..4 ranks: 1 s / n, plus the last unit's
    # imbalance (none when frames divide evenly and nothing is split).
    class Flat:
        frame_seconds = [0.010] * 100
        read_seconds = 0.0
        workers = 1
    for n in (1, 2, 4):
        r = replay_ranks(Flat, n, 100, 25.0, 0.0, parts=1, coordinator_us=0.0)
        assert close(r["makespan_s"], 1.0 / n), (n, r)
    # Two ranks, 3 frames of 10 ms: whole frames leave one rank idle for a frame; in 4 parts the
    # two finish within a quarter frame of each other.
    r = replay_ranks(Flat, 2, 3, 25.0, 0.0, parts=1, coordinator_us=0.0, held=1)
    assert close(r["makespan_s"], 0.020) and close(r["tail_idle_s"], 0.010), r
    r = replay_ranks(Flat, 2, 3, 25.0, 0.0, parts=4, coordinator_us=0.0, held=1)
    assert close(r["makespan_s"], 0.015) and r["tail_idle_s"] < 1e-9, r
    # The reduction of 1 GB partials at 1 GB/s: linear, 3 transfers to rank 0 and 4 adds at
    # 5 GB/s; a tree over 4 ranks, 2 steps of a transfer and an add, then rank 0's add.
    r = replay_ranks(Flat, 4, 100, 1.0, 0.0, parts=1, coordinator_us=0.0, reduction_bytes=1e9,
                     tree=False)
    assert close(r["reduction_s"], 3.0 + 0.8), r
    assert close(reduction_seconds(4, 1e9, 1.0, 0.0), 2 * 1.2 + 0.2)


def main(a):
    try:
        work = RankWork.load(a.trace)
    except (OSError, ValueError, KeyError) as e:
        print(f"scaling_model: {a.trace}: {e}", file=sys.stderr)
        return 1
    frames = a.frames or len(work.frame_seconds)
    reduction = a.reduction_bytes if a.reduction_bytes is not None else 45 * 8000 * 8
    results = []
    for net in a.network:
        rows = []
        one = None
        for n in a.ranks:
            speed = a.speed
            if a.node_cores:
                speed *= min(1.0, a.node_cores / (n * work.workers))
            bw, lat = network(net)
            speeds = None
            if a.rank_speeds:
                speeds = [float(x) for x in a.rank_speeds.split(",")]
                if len(speeds) < n:
                    speeds += [speeds[-1]] * (n - len(speeds))
            r = replay_ranks(work, n, frames, bw, lat, reduction_bytes=reduction,
                             interval=a.interval, held=a.held, speed=speed, parts=a.parts,
                             pass_over_us=a.pass_over_us, fs_gbs=a.fs_bandwidth,
                             frame_file_bytes=a.frame_file_bytes, startup=a.startup,
                             tree=not a.linear_reduction, rank_speeds=speeds)
            if one is None:
                one = replay_ranks(work, 1, frames, bw, lat, reduction_bytes=reduction,
                                   interval=a.interval, held=a.held, speed=a.speed,
                                   startup=a.startup)["makespan_s"]
            r["network"] = net
            r["speedup"] = one / r["makespan_s"]
            r["efficiency"] = r["speedup"] / n
            rows.append(r)
        results += rows
    if a.json:
        print(json.dumps({"trace": a.trace, "trace_ranks": work.ranks, "workers": work.workers,
                          "frame_seconds_mean": sum(work.frame_seconds) / len(work.frame_seconds),
                          "read_seconds": work.read_seconds, "frames": frames,
                          "predictions": results}, indent=2))
        return 0
    mean_ms = 1e3 * sum(work.frame_seconds) / len(work.frame_seconds)
    print(f"# {a.trace}: {len(work.frame_seconds)} frames of {mean_ms:.2f} ms on a rank "
          f"({work.workers} workers, x{a.speed:g}), reading {1e3 * work.read_seconds:.2f} ms per "
          f"frame; {frames} frames, partials of {reduction / 1e6:.2f} MB, interval "
          f"{a.interval or 'none'}")
    print("network  ranks  makespan_s  speedup  efficiency  tail_idle_s  reduction_s  parts  "
          "units/rank")
    for r in results:
        print(f"{r['network']:7s} {r['ranks']:6d}  {r['makespan_s']:10.4f}  {r['speedup']:7.1f}  "
              f"{100 * r['efficiency']:9.1f}%  {r['tail_idle_s']:11.4f}  {r['reduction_s']:11.4f}  "
              f"{r['parts']:5d}  {r['units_per_rank'][0]}-{r['units_per_rank'][1]}")
    return 0
