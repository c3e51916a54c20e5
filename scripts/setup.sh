#!/usr/bin/env bash
# Everything a fresh Debian 12 machine needs before pairhist runs: Debian packages, StarPU built
# from Debian's source, and pairhist itself (in build/). Each step reuses what an earlier run made.
#   setup.sh            builds every target (the program, the libraries, the Python module, tests)
#   setup.sh TARGET...  builds only those CMake targets (the demo builds pairhist_cli alone)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${PAIRHIST_BUILD_DIR:-$repo/build}
bash "$repo/scripts/install-deps.sh"
bash "$repo/scripts/build-starpu.sh"
mkdir -p "$build"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build/cmake-configure.log" 2>&1 ||
  { cat "$build/cmake-configure.log"; exit 1; }
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j"$(nproc)" "${targets[@]}"
