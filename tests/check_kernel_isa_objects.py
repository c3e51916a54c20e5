#!/usr/bin/env python3
"""Fails when an object of the AVX-512 kernel build defines a shared (weak) function that uses
AVX-512 outside its own namespaces (codelets/cpu/kernel_isa.hpp).

The kernels are compiled twice; an inline function both builds emit out of line (a template of
geometry.hpp, a std::vector member) is one symbol, and the linker keeps one copy for both. Were
it the AVX-512 copy, the AVX2 path would run AVX-512 instructions and die on a CPU without them.
The kernels' own helpers are in per-build namespaces; this checks that nothing else compiled for
AVX-512 is shared: every weak function whose name involves neither cpu::avx512 nor
cpu::built_for_avx512 (as its namespace or in its template arguments) must have no EVEX-encoded
instruction (prefix byte 0x62, after any segment or address-size prefix).
Usage: check_kernel_isa_objects.py OBJECT...
"""
import re
import subprocess
import sys

OWN = ("pairhist::cpu::avx512::", "pairhist::cpu::built_for_avx512::")
SKIPPABLE_PREFIXES = {"26", "2e", "36", "3e", "64", "65", "67"}
FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSTRUCTION = re.compile(r"^\s+[0-9a-f]+:\t((?:[0-9a-f]{2} )+)")


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return dict(zip(names, out))


def weak_functions(obj):
    out = subprocess.run(["nm", "--defined-only", obj], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[2] for line in out.splitlines()
            if len(line.split()) == 3 and line.split()[1] in ("W", "u")}


def evex_functions(obj):
    out = subprocess.run(["objdump", "-d", "-w", obj], capture_output=True, text=True,
                         check=True).stdout
    found, current = set(), None
    for line in out.splitlines():
        m = FUNCTION.match(line)
        if m:
            current = m.group(1)
            continue
        m = INSTRUCTION.match(line)
        if not m or current is None:
            continue
        bytes_ = m.group(1).split()
        while bytes_ and bytes_[0] in SKIPPABLE_PREFIXES:
            bytes_.pop(0)
        if bytes_ and bytes_[0] == "62":
            found.add(current)
    return found


def main(objects):
    bad = []
    for obj in objects:
        shared = weak_functions(obj) & evex_functions(obj)
        names = demangle(sorted(shared)) if shared else {}
        bad += [f"{obj}: {names[s]}" for s in sorted(shared)
                if not any(own in names[s] for own in OWN)]
    for b in bad:
        print("AVX-512 code in a function the AVX2 build shares:", b)
    print(f"checked {len(objects)} objects: {'FAIL' if bad else 'ok'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
