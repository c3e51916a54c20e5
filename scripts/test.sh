#!/usr/bin/env bash
# Sets everything up if needed, then builds and runs the test suite. Without a GPU the tests
# labelled "gpu" are skipped (they run on the GPU machine through scripts/gpu-suite.sh).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bash "$repo/scripts/setup.sh"
labels=()
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "test: no GPU here, skipping the tests labelled gpu"
  labels=(-LE gpu)
fi
cd "$repo/build"
ctest --output-on-failure "${labels[@]}"
