"""Ctrl-C in long Python calls (issue 40, item 4): SIGINT one and a half seconds into a
pairhist.run() or an InterRDF.run() of many seconds raises KeyboardInterrupt within about a
second (not when the run would have ended), and run(output=...) leaves its counts, marked
incomplete, and a checkpoint that resume=True continues.

Each call runs in a child process that prints when it starts the call and when (and how) it
came back; the clocks are CLOCK_MONOTONIC, one for the whole machine.

Usage: check_interrupt.py DATA_DIR
"""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

DATA = sys.argv[1]
XTC = os.path.join(DATA, "spce_water.xtc")
GRO = os.path.join(DATA, "spce_water.gro")
COPIES = 40  # the sample's 101 frames 40 times: ~4000 frames, many seconds on one core
SIGNAL_AFTER = 1.5  # seconds into the call
# Seconds from the signal to the KeyboardInterrupt: the frames begun are finished (a few ms
# each here) and the rest dropped; the margin is for a loaded machine.
LIMIT = 1.5

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def interrupted_call(code, label):
    """Runs `code` (a Python statement) in a child, SIGINT SIGNAL_AFTER s into it; returns the
    child's report: {"outcome": "interrupted" | "finished" | ..., "seconds": from the signal}."""
    child = textwrap.dedent(f"""\
        import sys, time, warnings
        warnings.simplefilter("ignore")
        import pairhist
        {setup}
        print("go", time.monotonic(), flush=True)
        try:
            {code}
            print("finished", time.monotonic(), flush=True)
        except KeyboardInterrupt:
            print("interrupted", time.monotonic(), flush=True)
        """)
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    started = None
    for line in p.stdout:
        if line.startswith("go "):
            started = float(line.split()[1])
            break
    if started is None:
        p.wait()
        check(False, f"{label}: the child started the call ({p.stderr.read()[-2000:]})")
        return {"outcome": "no start", "seconds": float("inf")}
    time.sleep(max(0.0, started + SIGNAL_AFTER - time.monotonic()))
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    report = {"outcome": "none", "seconds": float("inf"), "stderr": err}
    for line in out.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] in ("interrupted", "finished"):
            report = {"outcome": words[0], "seconds": float(words[1]) - sent, "stderr": err}
    print(f"{label}: {report['outcome']} {report['seconds']:.2f} s after SIGINT", flush=True)
    if report["outcome"] != "interrupted":
        print(err[-3000:], flush=True)
    return report


setup = ""


def main():
    global setup
    with tempfile.TemporaryDirectory(prefix="pairhist-interrupt-") as tmp:
        # XTC frames stand alone: copies of a file one after the other are one valid file.
        long_xtc = os.path.join(tmp, "long.xtc")
        with open(XTC, "rb") as f:
            one = f.read()
        with open(long_xtc, "wb") as f:
            for _ in range(COPIES):
                f.write(one)
        total = 101 * COPIES
        out = os.path.join(tmp, "out")
        arguments = (f"{long_xtc!r}, top={GRO!r}, species={{'O': 'OW', 'H': 'HW1,HW2'}}, "
                     f"rmax=0.9, nbins=90, precision='double', algorithm='all-pairs', ncpu=1, "
                     f"ncuda=0")

        # run() without an output directory: the KeyboardInterrupt, soon.
        r = interrupted_call(f"pairhist.run({arguments})", "run()")
        check(r["outcome"] == "interrupted", "run(): KeyboardInterrupt, not the end of the run")
        check(r["seconds"] < LIMIT, f"run(): within {LIMIT} s of SIGINT")

        # With output: the counts so far and a checkpoint.
        r = interrupted_call(f"pairhist.run({arguments}, output={out!r})", "run(output=...)")
        check(r["outcome"] == "interrupted", "run(output=...): KeyboardInterrupt")
        check(r["seconds"] < LIMIT, f"run(output=...): within {LIMIT} s of SIGINT")
        check(os.path.exists(os.path.join(out, "pairhist.ckpt")), "a checkpoint in the output")
        import pairhist
        first = pairhist.read_run(out)
        n1 = len(first["frames"])
        check(not first["complete"] and first["stopped_by"] == "SIGINT",
              f"the outputs say complete = 0, stopped_by = SIGINT ({first['stopped_by']!r})")
        check(0 < n1 < total, f"some frames counted, not all ({n1} of {total})")

        # resume=True goes on from the checkpoint (stopped again, to keep the test short).
        r = interrupted_call(f"pairhist.run({arguments}, output={out!r}, resume=True)",
                             "run(output=..., resume=True)")
        check(r["outcome"] == "interrupted", "the resumed run: KeyboardInterrupt")
        second = pairhist.read_run(out)
        n2 = len(second["frames"])
        check(n2 > n1 and list(second["frames"]) == list(range(n2)),
              f"the resumed run went on from frame {n1} (now {n2} frames, in order)")

        # The MDAnalysis drop-in: Ctrl-C in its frame loop or while its engine finishes.
        setup = textwrap.dedent(f"""\
            import MDAnalysis as mda
            from pairhist.mdanalysis import InterRDF
            u = mda.Universe({GRO!r}, {long_xtc!r})
            o = u.select_atoms("name OW")
            h = u.select_atoms("name HW1 HW2")
            rdf = InterRDF(o, h, nbins=90, range=(0.0, 9.0), ncpu=1, ncuda=0,
                           algorithm="all-pairs")""").replace("\n", "\n        ")
        try:
            import MDAnalysis  # noqa: F401
        except ImportError:
            print("skip InterRDF: no MDAnalysis")
        else:
            r = interrupted_call("rdf.run()", "InterRDF.run()")
            check(r["outcome"] == "interrupted", "InterRDF.run(): KeyboardInterrupt")
            check(r["seconds"] < LIMIT, f"InterRDF.run(): within {LIMIT} s of SIGINT")

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
