#!/usr/bin/env python3
"""Where a run bound by reading spends its time (issue 24): reads a run's --reading-trace and
--task-trace CSVs (same clock: seconds from the engine's start) and prints, per time bucket,
frames decoded, delivered to the counting thread, submitted to the engine and counted, with the
decoding threads' and the GPUs' busy fractions. Standard library only (runs on the device).
  reading_timeline.py READING.csv TASKS.csv [BUCKET_SECONDS]"""
import csv
import statistics
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def overlap(a, b, lo, hi):
    return max(0.0, min(b, hi) - max(a, lo))


def main():
    reading = rows(sys.argv[1])
    tasks = rows(sys.argv[2])
    bucket = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
    f = lambda r, k: float(r[k])
    threads = sorted({int(r["thread"]) for r in reading})
    decode = [f(r, "decode_s") for r in reading if f(r, "decode_s") > 0]
    promote = [f(r, "promote_s") for r in reading if int(r["promoted_by"]) != -2]
    by_caller = sum(1 for r in reading if int(r["promoted_by"]) == -1)
    t0 = min(f(r, "claimed_s") for r in reading)
    t_dec = max(f(r, "decoded_s") for r in reading)
    # Per engine frame: submission (frame_submitted_s) and the end of its last task.
    submitted, counted, gpu_spans = {}, {}, {}
    for t in tasks:
        fr = int(t["frame"])
        submitted[fr] = f(t, "frame_submitted_s")
        counted[fr] = max(counted.get(fr, -1e9), f(t, "end_s"))
        if t["kind"] == "cuda":
            gpu_spans.setdefault(t["worker"], []).append((f(t, "start_s"), f(t, "end_s")))
    t_end = max(counted.values()) if counted else t_dec
    print(f"frames {len(reading)}, decoding threads {len(threads)}, first claim {t0:.3f} s, "
          f"last decoded {t_dec:.3f} s, last counted {t_end:.3f} s (engine clock)")
    if decode:
        print(f"decode per frame: median {statistics.median(decode):.3f} s, mean "
              f"{statistics.mean(decode):.3f} s; threads busy decoding "
              f"{sum(decode) / (len(threads) * (t_dec - t0)):.0%} of their span")
    if promote:
        print(f"staged frames {len(promote)}: copy median {statistics.median(promote) * 1e3:.1f} ms, "
              f"sum {sum(promote):.2f} s, by the counting thread {by_caller}")
    lag = [f(r, "delivered_s") - f(r, "ready_s") for r in reading]
    print(f"ready -> delivered: median {statistics.median(lag):.3f} s, max {max(lag):.3f} s")
    subs = [submitted[k] - f(r, "delivered_s") for k, r in enumerate(reading) if k in submitted]
    if subs:
        print(f"delivered -> submitted: median {statistics.median(subs) * 1e3:.1f} ms, "
              f"max {max(subs) * 1e3:.1f} ms")
    for w, spans in sorted(gpu_spans.items(), key=lambda x: int(x[0])):
        busy = sum(b - a for a, b in spans)
        print(f"GPU worker {w}: {len(spans)} tasks, busy {busy:.3f} s, "
              f"{min(a for a, _ in spans):.3f}-{max(b for _, b in spans):.3f} s")
    print("bucket_s  decoded delivered submitted counted  threads_busy  gpus_busy")
    start = bucket * int(min(t0, 0) / bucket - 1)
    t = start
    while t < t_end + bucket:
        hi = t + bucket
        dec = sum(1 for r in reading if t <= f(r, "decoded_s") < hi)
        dlv = sum(1 for r in reading if t <= f(r, "delivered_s") < hi)
        sub = sum(1 for v in submitted.values() if t <= v < hi)
        cnt = sum(1 for v in counted.values() if t <= v < hi)
        busy = sum(overlap(f(r, "decoded_s") - f(r, "decode_s"), f(r, "decoded_s"), t, hi)
                   for r in reading) / (len(threads) * bucket)
        gbusy = sum(overlap(a, b, t, hi) for s in gpu_spans.values() for a, b in s)
        gbusy /= max(1, len(gpu_spans)) * bucket
        print(f"{t:7.2f}  {dec:7d} {dlv:9d} {sub:9d} {cnt:7d}  {busy:11.0%}  {gbusy:9.0%}")
        t = hi


if __name__ == "__main__":
    main()
