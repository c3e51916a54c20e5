#!/usr/bin/env python3
"""Fails when docs/performance.md stops being a page of current figures (CONTRIBUTING.md).

It must stay short (at most MAX_LINES lines), carry no dated heading (a heading with a
YYYY-MM-DD date: what was measured on which day goes into docs/bench/YYYY-MM-DD.md) and no
"Changes:" story, and every relative link in it must name a file that exists (docs/bench keeps
only the summaries and small results; raw logs live in git's history).
Usage: check_docs.py SOURCE_ROOT [PERFORMANCE_MD]
"""
import os
import re
import sys

MAX_LINES = 400
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def problems(path):
    """Every reason the page at path is not a page of current figures, one line each."""
    found = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_LINES:
        found.append(f"{len(lines)} lines, more than {MAX_LINES}")
    in_code = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.startswith("#") and DATE.search(line):
            found.append(f"line {number}: a dated heading: {line.strip()}")
        if re.match(r"\s*(\*\*)?Changes:", line):
            found.append(f"line {number}: a 'Changes:' story")
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto:
            if not os.path.exists(os.path.join(os.path.dirname(path), target)):
                found.append(f"line {number}: a link to a missing file: {target}")
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "docs", "performance.md")
    found = problems(path)
    for problem in found:
        print(f"{path}: {problem}")
    if found:
        print("docs/performance.md holds the current figures only (CONTRIBUTING.md, Documentation)")
        return 1
    print(f"{path}: current figures only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
