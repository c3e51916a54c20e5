#!/usr/bin/env python3
"""Replays a GPU run's task trace on other GPU counts: a scaling model from measured task times.

`pairhist run ... --ncpu 0 --task-trace trace.csv --report report.json` records every histogram
task (submission order, frame, worker, GPU, start, end) and, per frame, when the caller began to
hand it over, when its buffers were free and when its tasks were submitted. This script replays
those tasks on G GPUs with the same CUDA workers per GPU, the way StarPU's eager scheduler runs
them: one FIFO queue, each task taken in submission order by the worker that is free first.

What the replay keeps from the measured run:
- each task's duration (measured with the same number of workers sharing a GPU);
- the mean gap between a worker's consecutive tasks when the next one was already submitted and
  its frame already on the GPU (popping, the callback: StarPU's own time per task);
- the caller's own time per frame (reading the next frame, allocating its buffers on their first
  use, copying and submitting it);
- the frame-buffer ring: frame f reuses the buffers of frame f - K (K frames in flight), so it is
  handed over only once every task of frame f - K has finished.
What it adds:
- a host-to-device transfer of each frame to each GPU that first runs one of its tasks (a link
  per GPU, at --bandwidth GB/s after --latency us); the worker waits for it, as under eager;
- optionally a decoding limit: frame f is not readable before f / --decode-rate s after the first.
What it leaves out: CPU workers (replay GPU-only runs), the end-of-run reduction of the
per-worker histograms, GPU clock and memory effects of other GPUs, and a worker finishing faster
when its sibling on the same GPU is idle (so tails are slightly pessimistic).

Validate before trusting: replay a 1-GPU trace on 2 and 4 GPUs and compare with measured runs
(docs/performance.md does this). `--self-test` checks the replay on synthetic traces.

Many nodes (`--ranks N ...`): see rank_model.py.
"""
import argparse
import csv
import heapq
import json
import sys
from collections import defaultdict

import rank_model


class Trace:
    """The CUDA tasks of a run, in submission order, and the caller's per-frame times."""

    def __init__(self, rows):
        rows = sorted(rows, key=lambda r: int(r["order"]))
        if not rows:
            raise ValueError("the trace has no tasks")
        cpu = [r for r in rows if r["kind"] != "cuda"]
        if cpu:
            raise ValueError(f"{len(cpu)} of {len(rows)} tasks ran on CPU workers: replay a "
                             "GPU-only run (pairhist run --ncpu 0)")
        self.frame = [int(r["frame"]) for r in rows]
        self.duration = [float(r["end_s"]) - float(r["start_s"]) for r in rows]
        self.pairs = [int(r["pairs"]) for r in rows]
        self.start = [float(r["start_s"]) for r in rows]
        self.end = [float(r["end_s"]) for r in rows]
        workers = defaultdict(set)
        for r in rows:
            workers[int(r["device"])].add(int(r["worker"]))
        self.gpus = len(workers)
        self.workers_per_gpu = max(len(w) for w in workers.values())
        feed = {}
        for r in rows:
            begin = float(r["frame_begin_s"])
            feed[int(r["frame"])] = (begin, float(r.get("frame_allocated_s", begin)),
                                     float(r["frame_free_s"]), float(r["frame_submitted_s"]))
        self.frames = max(self.frame) + 1
        missing = [f for f in range(self.frames) if f not in feed or feed[f][0] < 0]
        if missing:
            raise ValueError(f"no feed times for {len(missing)} frames (first: {missing[0]})")
        begin, allocated, free, submitted = ([feed[f][k] for f in range(self.frames)]
                                             for k in range(4))
        # The caller's own work: reading frame f (after handing over f - 1), allocating its
        # buffers (first use), then copying and submitting it once they are free. Waiting for
        # them to be free is the ring's, which the replay decides.
        self.read = [begin[0]] + [max(0.0, begin[f] - submitted[f - 1])
                                  for f in range(1, self.frames)]
        self.allocating = [allocated[f] - begin[f] for f in range(self.frames)]
        self.own = [self.allocating[f] + (submitted[f] - free[f]) for f in range(self.frames)]
        self.measured_makespan = max(self.end)
        self.task_overhead = Trace.overhead(rows)

    @staticmethod
    def overhead(rows):
        """Mean gap between consecutive tasks of a worker where nothing else held it up."""
        by_worker = defaultdict(list)
        seen = set()
        for r in sorted(rows, key=lambda r: float(r["start_s"])):
            first_on_gpu = (r["device"], r["frame"]) not in seen  # it may have waited for data
            seen.add((r["device"], r["frame"]))
            by_worker[r["worker"]].append((float(r["start_s"]), float(r["end_s"]),
                                           float(r["frame_submitted_s"]), first_on_gpu))
        gaps = [b[0] - a[1] for tasks in by_worker.values() for a, b in zip(tasks, tasks[1:])
                if b[2] <= a[1] and not b[3]]
        return sum(gaps) / len(gaps) if gaps else 0.0

    @staticmethod
    def load(path):
        with open(path, newline="") as f:
            return Trace(list(csv.DictReader(f)))


def replay(trace, gpus, workers_per_gpu, frames_in_flight, frame_bytes=0, bandwidth_gbs=0.0,
           latency_us=0.0, decode_rate=0.0, task_overhead=0.0):
    """Makespan and activity of the trace's tasks on `gpus` GPUs (seconds)."""
    nworkers = gpus * workers_per_gpu
    free_at = [(0.0, w) for w in range(nworkers)]  # (time the worker is free, worker)
    heapq.heapify(free_at)
    link_free = [0.0] * gpus
    on_gpu = [dict() for _ in range(gpus)]  # frame -> time its coordinates are on that GPU
    frame_done = [0.0] * trace.frames
    released = [None] * trace.frames
    handed = 0.0  # when the caller finished handing over the previous frame
    transfer = (latency_us * 1e-6 + frame_bytes / (bandwidth_gbs * 1e9)) if bandwidth_gbs > 0 else 0
    busy = [0.0] * nworkers
    last_end = [0.0] * nworkers
    waited_for_data = 0.0
    for i, f in enumerate(trace.frame):
        if released[f] is None:
            # Frames are handed over in order; tasks of frame f come after all of frame f - 1's.
            begin = handed + trace.read[f]
            if decode_rate > 0:
                begin = max(begin, trace.read[0] + f / decode_rate)
            ring = frame_done[f - frames_in_flight] if f >= frames_in_flight else 0.0
            handed = max(begin, ring) + trace.own[f]
            released[f] = handed
        t, w = heapq.heappop(free_at)
        g = w // workers_per_gpu
        start = max(t + task_overhead, released[f])
        if transfer > 0:
            ready = on_gpu[g].get(f)
            if ready is None:
                ready = max(start, link_free[g]) + transfer
                link_free[g] = ready
                on_gpu[g][f] = ready
            waited_for_data += max(0.0, ready - start)
            start = max(start, ready)
        end = start + trace.duration[i]
        busy[w] += trace.duration[i]
        last_end[w] = end
        frame_done[f] = max(frame_done[f], end)
        heapq.heappush(free_at, (end, w))
    makespan = max(last_end)
    used = [e for e in last_end if e > 0]
    return {
        "gpus": gpus,
        "workers": nworkers,
        "makespan_s": makespan,
        "gpu_busy": sum(busy) / (nworkers * makespan) if makespan > 0 else 0.0,
        "tail_idle_s": makespan - min(used) if used else 0.0,
        "waited_for_data_s": waited_for_data,
        "last_frame_handed_over_s": handed,
    }


def altered(trace, **fields):
    """A copy of the trace with some per-frame lists replaced."""
    other = Trace.__new__(Trace)
    other.__dict__.update(trace.__dict__)
    other.__dict__.update(fields)
    return other


def without_allocation(trace):
    """The same run with the frame buffers allocated by someone else than the caller."""
    return altered(trace, own=[o - a for o, a in zip(trace.own, trace.allocating)])


def without_feed(trace):
    """The same tasks, every frame handed over at time 0."""
    return altered(trace, read=[0.0] * trace.frames, own=[0.0] * trace.frames)


def model_table(trace, counts, frames_in_flight, frame_bytes, bandwidth, latency, decode_rate,
                overhead):
    rows = []
    bare = without_feed(trace)
    for g in counts:
        full = replay(trace, g, trace.workers_per_gpu, frames_in_flight, frame_bytes, bandwidth,
                      latency, decode_rate, overhead)
        # Without transfers, the caller and the ring: what the task times alone allow.
        full["tasks_only_makespan_s"] = replay(bare, g, trace.workers_per_gpu,
                                               trace.frames)["makespan_s"]
        rows.append(full)
    one = replay(trace, 1, trace.workers_per_gpu, frames_in_flight, frame_bytes, bandwidth, latency,
                 decode_rate, overhead)["makespan_s"]
    for r in rows:
        r["speedup"] = one / r["makespan_s"]
        r["efficiency"] = r["speedup"] / r["gpus"]
    return one, rows


def self_test():
    """The replay on synthetic traces whose answers are known."""
    def synthetic(frames, tasks_per_frame, seconds, read=0.0, own=0.0):
        rows = []
        for f in range(frames):
            for k in range(tasks_per_frame):
                rows.append({"order": str(f * tasks_per_frame + k), "frame": str(f),
                             "worker": str(k % 2), "kind": "cuda", "device": "0",
                             "start_s": "0", "end_s": str(seconds), "pairs": "1", "grouped": "0",
                             "frame_begin_s": str(f * (read + own) + read),
                             "frame_allocated_s": str(f * (read + own) + read),
                             "frame_free_s": str(f * (read + own) + read),
                             "frame_submitted_s": str((f + 1) * (read + own))})
        return Trace(rows)

    def close(a, b):
        return abs(a - b) < 1e-9 * max(1.0, abs(b))

    t = synthetic(100, 16, 0.001)
    assert t.gpus == 1 and t.workers_per_gpu == 2
    # 1600 tasks of 1 ms on 2, 4, 16 workers, fed instantly.
    for g, expect in ((1, 0.8), (2, 0.4), (8, 0.1)):
        r = replay(t, g, 2, 100)
        assert close(r["makespan_s"], expect), (g, r)
        assert close(r["gpu_busy"], 1.0), r
    # A caller that needs 10 ms per frame bounds every GPU count at 100 frames/s.
    slow = synthetic(100, 16, 0.001, read=0.004, own=0.006)
    r = replay(slow, 8, 2, 100)
    assert close(r["makespan_s"], 100 * 0.010 + 0.001), r  # then 16 tasks on 16 workers
    # A decoding limit of 200 frames/s: the last frame is readable at 99/200 s.
    r = replay(t, 8, 2, 100, decode_rate=200.0)
    assert close(r["makespan_s"], 99 / 200 + 0.001), r
    # A ring of 2 frames with a caller that is instant: no effect on 1 GPU (frames are in order).
    assert close(replay(t, 1, 2, 2)["makespan_s"], 0.8)
    # 10 us between tasks: 800 tasks per worker on one GPU.
    assert close(replay(t, 1, 2, 100, task_overhead=1e-5)["makespan_s"], 0.8 + 800 * 1e-5)
    # The caller needs 1 ms per frame, the GPU 10 ms. With 2 frame buffers the next frame is
    # ready when a frame ends; with one buffer each frame waits for the previous one to finish.
    ring = synthetic(10, 2, 0.010, own=0.001)
    assert close(replay(ring, 1, 2, 2)["makespan_s"], 0.001 + 10 * 0.010)
    assert close(replay(ring, 1, 2, 1)["makespan_s"], 10 * 0.011)
    # Transfers: 4 MB at 4 GB/s = 1 ms per frame and GPU, on one link per GPU. With 1 frame of
    # 2 tasks on one GPU both workers wait for the one transfer.
    one = synthetic(1, 2, 0.001)
    r = replay(one, 1, 2, 1, frame_bytes=4e6, bandwidth_gbs=4.0)
    assert close(r["makespan_s"], 0.002), r
    assert close(r["waited_for_data_s"], 0.002), r
    rank_model.self_test()
    print("scaling_model self-test: passed")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("trace", nargs="?", help="CSV from pairhist run --task-trace (GPU-only run)")
    p.add_argument("--report", help="JSON from the same run's --report (frames in flight, frame "
                   "bytes, measured makespan)")
    p.add_argument("--gpus", default="1,2,4,8", help="GPU counts to predict (default 1,2,4,8)")
    p.add_argument("--frames-in-flight", type=int, help="frame buffers (default: the report's)")
    p.add_argument("--frame-bytes", type=float, help="bytes sent to a GPU per frame (default: the "
                   "report's)")
    p.add_argument("--bandwidth", type=float, default=0.0,
                   help="host-to-device GB/s per GPU (0: no transfer cost)")
    p.add_argument("--latency", type=float, default=10.0, help="us per transfer (default 10)")
    p.add_argument("--task-overhead", type=float,
                   help="us between a worker's tasks (default: measured in the trace)")
    p.add_argument("--decode-rate", type=float, default=0.0,
                   help="frames/s the readers deliver at most (0: as in the measured run)")
    p.add_argument("--no-allocation", action="store_true",
                   help="drop the caller's buffer allocations (what-if: buffers allocated ahead)")
    p.add_argument("--ranks", type=int, nargs="+",
                   help="many nodes: predict runs on these numbers of ranks, each like the "
                   "trace's rank (see the module's help)")
    p.add_argument("--network", nargs="+", default=["ib-hdr"],
                   help="ranks: ib-hdr (25 GB/s, 2 us), 10gbe (1.25 GB/s, 30 us) or "
                   "GBS,LATENCY_US (default ib-hdr)")
    p.add_argument("--frames", type=int, help="ranks: frames of the run (default: the trace's)")
    p.add_argument("--speed", type=float, default=1.0,
                   help="ranks: each rank this many times as fast as the trace's (e.g. 8 GPUs "
                   "per rank from a 1-GPU trace)")
    p.add_argument("--reduction-bytes", type=float,
                   help="ranks: bytes of one rank's partial histograms (default: 45 pairs x "
                   "8000 bins x 8 B, CADISHI's F1)")
    p.add_argument("--interval", type=int, default=0, help="ranks: frames per output interval")
    p.add_argument("--held", type=int, default=3, help="ranks: units a rank holds at once")
    p.add_argument("--rank-speeds",
                   help="ranks: speeds of the ranks relative to the trace's, comma-separated (the "
                   "last repeats), e.g. from a distributed run's per-rank pairs per busy second")
    p.add_argument("--linear-reduction", action="store_true",
                   help="ranks: every partial to rank 0 (the linear sum pairhist had before "
                   "issue 38) instead of the tree")
    p.add_argument("--parts", type=int, default=0,
                   help="ranks: parts of the last frames (0: as pairhist decides)")
    p.add_argument("--pass-over-us", type=float, default=2.0,
                   help="ranks: us a rank spends passing over another rank's frame in the file")
    p.add_argument("--fs-bandwidth", type=float, default=0.0,
                   help="ranks: GB/s the shared file system delivers to all ranks (0: no limit)")
    p.add_argument("--frame-file-bytes", type=float, default=0.0,
                   help="ranks: bytes of one frame in the trajectory file")
    p.add_argument("--startup", type=float, default=0.0,
                   help="ranks: seconds before the first frame (MPI, StarPU, the plan)")
    p.add_argument("--node-cores", type=int,
                   help="ranks on one node sharing these cores (the 2-core check): each rank's "
                   "speed is scaled by cores / (ranks x the trace's workers) where below 1")
    p.add_argument("--json", action="store_true", help="print the predictions as JSON")
    p.add_argument("--self-test", action="store_true", help="check the replay and exit")
    a = p.parse_args()
    if a.self_test:
        self_test()
        return 0
    if not a.trace:
        p.error("a trace is needed (or --self-test)")
    if a.ranks:
        return rank_model.main(a)
    try:
        trace = Trace.load(a.trace)
        if a.no_allocation:
            trace = without_allocation(trace)
    except (OSError, ValueError, KeyError) as e:
        print(f"scaling_model: {a.trace}: {e}", file=sys.stderr)
        return 1
    report = json.load(open(a.report)) if a.report else {}
    fif = a.frames_in_flight or report.get("frames_in_flight") or trace.frames
    frame_bytes = a.frame_bytes if a.frame_bytes is not None else report.get("frame_bytes", 0)
    counts = [int(c) for c in a.gpus.split(",")]
    overhead = a.task_overhead * 1e-6 if a.task_overhead is not None else trace.task_overhead
    one, rows = model_table(trace, counts, fif, frame_bytes, a.bandwidth, a.latency,
                            a.decode_rate, overhead)
    summary = {"trace": a.trace, "trace_gpus": trace.gpus,
               "workers_per_gpu": trace.workers_per_gpu, "frames": trace.frames,
               "tasks": len(trace.frame), "frames_in_flight": fif, "frame_bytes": frame_bytes,
               "bandwidth_gbs": a.bandwidth, "decode_rate": a.decode_rate,
               "task_overhead_s": overhead,
               "measured_makespan_s": report.get("makespan_seconds", trace.measured_makespan),
               "predictions": rows}
    if a.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"# {a.trace}: {len(trace.frame)} tasks, {trace.frames} frames, measured on "
          f"{trace.gpus} GPU(s) x {trace.workers_per_gpu} workers, makespan "
          f"{summary['measured_makespan_s']:.3f} s; ring {fif} frames, {frame_bytes / 1e6:.2f} MB "
          f"per frame at {a.bandwidth:g} GB/s, decode limit {a.decode_rate:g} frames/s, "
          f"{overhead * 1e6:.1f} us between tasks")
    print("gpus  makespan_s  speedup  efficiency  gpu_busy  tail_idle_s  data_wait_s  tasks_only_s")
    for r in rows:
        print(f"{r['gpus']:4d}  {r['makespan_s']:10.3f}  {r['speedup']:7.2f}  "
              f"{100 * r['efficiency']:9.1f}%  {100 * r['gpu_busy']:7.1f}%  "
              f"{r['tail_idle_s']:11.3f}  {r['waited_for_data_s']:11.3f}  "
              f"{r['tasks_only_makespan_s']:12.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
