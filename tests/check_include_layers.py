#!/usr/bin/env python3
"""Fails when an include points up a layer, is not rooted, or names a file that does not exist.

The layers (docs/design.md, CONTRIBUTING.md), each allowed to include itself and what it lists:
    include/pairhist  public headers ("pairhist/..."): only each other
    host              libpairhist_host, what host_columns.hpp and environment.hpp declare:
                      public headers only
    codelets/cpu, codelets/cuda  kernels: public headers, each other's helpers; never StarPU glue
    codelets/starpu   thin codelet glue: public headers, the kernels
    tasks             the task library: public headers, codelets
    capi              the plain C kernel API: public headers, kernels, tasks' policy (no StarPU glue)
    io                readers and writers: public headers, analysis (the data they fill, g(r)),
                      in rooms (IO_ROOMS); io/common, the helpers the rooms share, includes no
                      other room
    analysis          topology data, selections, exclusions, g(r): public headers only
    drivers           the program: everything below it, in rooms that include each other one way:
                          cli -> workloads
                          cli -> distributed -> report -> job
                      (cli: the commands; workloads: benchmark and synthetic cases; distributed:
                      the ranks of a run; report: what a run tells, from its outcome; job: one run
                      over a trajectory). A room may include the rooms its arrows reach.
    tests, fuzz, python, examples: anything
Also fails where the program's layers that run beside other threads (io, tasks, codelets/starpu,
drivers) read or change the environment other than through pairhist/environment.hpp: a getenv
racing a setenv crashed runs (host/environment.cpp keeps the one lock). And fails on a source
file of io/ outside its rooms.
Usage: check_include_layers.py SOURCE_ROOT
Before the source tree it checks itself: a planted tree with an upward include between the
drivers' rooms (and an unknown room) must fail, and the same tree without them must pass.
"""
import os
import re
import sys
import tempfile

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
KERNELS = {"codelets/cpu", "codelets/cuda"}
ALLOWED = {
    "include/pairhist": set(),
    "host": set(),
    "codelets/cpu": {"codelets/cpu"},
    "codelets/cuda": {"codelets/cuda"},
    "codelets/starpu": KERNELS | {"codelets/starpu"},
    "tasks": KERNELS | {"codelets/starpu", "tasks"},
    "capi": KERNELS | {"tasks", "capi"},
    "io": {"io", "analysis"},
    "analysis": {"analysis"},
    "drivers": None,  # any layer below it, and any room of drivers/
}
# The rooms of drivers/, top to bottom; each may include itself and the rooms it lists, all below
# it in this order.
DRIVER_ROOMS = [
    ("drivers/cli", {"drivers/workloads", "drivers/distributed", "drivers/report", "drivers/job"}),
    ("drivers/workloads", set()),
    ("drivers/distributed", {"drivers/report", "drivers/job"}),
    ("drivers/report", {"drivers/job"}),
    ("drivers/job", set()),
]
DRIVER_ALLOWED = dict(DRIVER_ROOMS)
OPEN = {"tests", "fuzz", "python", "examples"}
# A kernel may share plain helpers with the other kernel family (e.g. the CUDA launchers'
# declarations), never the StarPU glue.
KERNEL_SHARED = {("codelets/cuda", "codelets/cpu"), ("codelets/cpu", "codelets/cuda")}
ROOTS = ["host", "codelets", "tasks", "capi", "io", "analysis", "drivers", "tests", "fuzz",
         "python", "examples"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
RAW_ENVIRONMENT = re.compile(r'\b(?:std::)?(?:getenv|setenv|unsetenv|putenv)\s*\(')
LOCKED_ENVIRONMENT = {"host", "io", "tasks", "codelets/starpu", "drivers"}
# host/environment.cpp keeps the lock.
RAW_ENVIRONMENT_ALLOWED = {"host/environment.cpp"}
# The rooms of io/ (docs/design.md, io/CMakeLists.txt): every source file of io/ lies in one.
IO_ROOMS = {"common", "memory", "trajectory", "xtc", "topology", "hdf5", "results", "scattering"}


def layer_of(rel):
    parts = rel.split("/")
    if parts[0] == "include":
        return "include/pairhist"
    if parts[0] == "codelets" and len(parts) > 2:
        return "codelets/" + parts[1]
    return parts[0]


def room_of(rel):
    """drivers/ROOM of a file in drivers/ (None for one directly in drivers/)."""
    parts = rel.split("/")
    return "drivers/" + parts[1] if len(parts) > 2 else None


def order_problems():
    """The rooms' order itself: every room a room may include comes after it."""
    problems = []
    position = {room: i for i, (room, _) in enumerate(DRIVER_ROOMS)}
    for room, below in DRIVER_ROOMS:
        for other in sorted(below):
            if other not in position or position[other] <= position[room]:
                problems.append(f"check_include_layers.py: {room} may include {other}, "
                                "which is not a room below it")
    return problems


def check(root):
    """The problems of the source tree at root, and the number of files read."""
    problems = []
    files = 0
    for top in ROOTS + ["include"]:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if not name.endswith((".c", ".cpp", ".cu", ".h", ".hpp", ".cuh")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                src = layer_of(rel)
                files += 1
                parts = rel.split("/")
                if src == "io" and (len(parts) != 3 or parts[1] not in IO_ROOMS):
                    problems.append(f"{rel}: io/ source outside its rooms "
                                    f"({', '.join(sorted(IO_ROOMS))})")
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                if src == "drivers" and room_of(rel) not in DRIVER_ALLOWED:
                    problems.append(f"{rel}: not in a known room of drivers/ (add it to "
                                    "DRIVER_ROOMS in tests/check_include_layers.py)")
                if src in LOCKED_ENVIRONMENT and rel not in RAW_ENVIRONMENT_ALLOWED:
                    for m in RAW_ENVIRONMENT.finditer(text):
                        line = text.count("\n", 0, m.start()) + 1
                        problems.append(f"{rel}:{line}: {m.group(0).strip()} outside "
                                        "pairhist/environment.hpp (env_get, env_set, env_unset)")
                for target in INCLUDE.findall(text):
                    if target.startswith("pairhist/"):
                        if not os.path.exists(os.path.join(root, "include", target)):
                            problems.append(f"{rel}: includes missing public header {target}")
                        continue
                    if ".." in target.split("/") or target.split("/")[0] not in ROOTS:
                        problems.append(f"{rel}: include \"{target}\" is not rooted (write it "
                                        "from the source root, e.g. \"io/xtc/xtc_reader.hpp\")")
                        continue
                    if not os.path.exists(os.path.join(root, target)):
                        problems.append(f"{rel}: includes missing file {target}")
                        continue
                    dst = layer_of(target)
                    if rel.startswith("io/common/") and not target.startswith("io/common/") \
                            and dst == "io":
                        problems.append(f"{rel}: io/common, the shared helpers, must not include "
                                        f"another room ({target})")
                        continue
                    if src in OPEN:
                        continue
                    if src == dst == "drivers":
                        here, there = room_of(rel), room_of(target)
                        if (here in DRIVER_ALLOWED and there != here and
                                there not in DRIVER_ALLOWED[here]):
                            problems.append(f"{rel}: {here} must not include {there} ({target}): "
                                            "an include pointing up or across the rooms of "
                                            "drivers/")
                        continue
                    if dst == src:
                        continue
                    if src == "drivers":
                        if dst in OPEN:
                            problems.append(f"{rel}: the program includes {dst}/ ({target})")
                        continue
                    allowed = ALLOWED.get(src, set())
                    if dst not in allowed and (src, dst) not in KERNEL_SHARED:
                        problems.append(f"{rel}: {src} must not include {dst} ({target}): "
                                        "an include pointing up or across the layers")
    return problems, files


def plant(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def self_test():
    """Problems with the check itself: it must fail a planted tree with an include up the
    drivers' rooms and a file in an unknown room, and pass the same tree without them."""
    failures = order_problems()
    lawful = {
        "drivers/job/run.hpp": "#pragma once\n",
        "drivers/report/summary.hpp": '#include "drivers/job/run.hpp"\n',
        "drivers/distributed/ranks.hpp": '#include "drivers/report/summary.hpp"\n',
        "drivers/cli/main.cpp": '#include "drivers/distributed/ranks.hpp"\n',
    }
    upward = {"drivers/job/upward.cpp": '#include "drivers/distributed/ranks.hpp"\n',
              "drivers/extra/unknown.cpp": '#include "drivers/job/run.hpp"\n'}
    with tempfile.TemporaryDirectory() as clean, tempfile.TemporaryDirectory() as planted:
        plant(clean, lawful)
        plant(planted, {**lawful, **upward})
        found, _ = check(clean)
        if found:
            failures.append("self-test: a lawful tree failed: " + "; ".join(found))
        found, _ = check(planted)
        for rel, what in (("drivers/job/upward.cpp", "an upward include between rooms"),
                          ("drivers/extra/unknown.cpp", "a file in an unknown room")):
            if not any(p.startswith(rel + ":") for p in found):
                failures.append(f"self-test: {what} ({rel}) passed unnoticed")
    return failures


def main():
    problems = self_test()
    found, files = check(ROOT)
    problems += found
    for p in problems:
        print(p)
    print(f"check_include_layers: {files} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
