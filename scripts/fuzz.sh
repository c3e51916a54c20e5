#!/usr/bin/env bash
# Runs the libFuzzer harnesses of fuzz/ (clang, AddressSanitizer + UndefinedBehaviorSanitizer).
#
#   scripts/fuzz.sh --list                          the harness names
#   scripts/fuzz.sh NAME SECONDS [EXTRA_SEED_DIR]   build (once) and fuzz NAME for SECONDS
#   scripts/fuzz.sh --all SECONDS                   every harness in turn (CI: .ci/run)
#   scripts/fuzz.sh --build                         only build them all
#
# The exit code is non-zero on any finding (crash, sanitizer report, escaping exception, broken
# reader invariant, timeout, allocation over the limit). Findings are written to
# build-fuzz/findings/NAME/; the corpus grows in build-fuzz/corpus/NAME/ from one run to the next.
# Seeds: the files fuzz/harnesses.txt names for NAME, fuzz/regressions/NAME/ and EXTRA_SEED_DIR.
# Environment: PAIRHIST_FUZZ_RUNS=N stops after N executions; PAIRHIST_FUZZ_BUILD_DIR (default
# build-fuzz); PAIRHIST_FUZZ_ARGS adds libFuzzer flags. Reproduce a finding with
#   build-fuzz/fuzz/fuzz_NAME FILE
# and, once fixed, copy FILE into fuzz/regressions/NAME/ (ctest -L fuzz replays it).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${PAIRHIST_FUZZ_BUILD_DIR:-$repo/build-fuzz}
list="$repo/fuzz/harnesses.txt"

names() { grep -E '^[a-z]' "$list" | awk '{print $1}'; }
seeds_of() { awk -v name="$1" '$1 == name { for (i = 2; i <= NF; ++i) print $i }' "$list"; }

usage() {
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

configure() {
  [ -f "$build/CMakeCache.txt" ] && return 0
  local cxx
  cxx=$(command -v clang++-14 || command -v clang++ || true)
  if [ -z "$cxx" ]; then
    echo "fuzz: clang++ not found (bash scripts/install-deps.sh installs clang-14)" >&2
    exit 2
  fi
  mkdir -p "$build"
  cmake -S "$repo" -B "$build" -DPAIRHIST_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="${cxx/clang++/clang}" \
    >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 2; }
}

run_one() {
  local name=$1 seconds=$2 extra=${3:-}
  # Not grep -q: its early exit breaks the pipe, which pipefail reports as no match.
  names | grep -x "$name" >/dev/null || { echo "fuzz: no harness '$name' (see --list)" >&2; exit 2; }
  configure
  cmake --build "$build" --target "fuzz_$name" -j"$(nproc)" >/dev/null
  local corpus="$build/corpus/$name" seeds="$build/seeds/$name" findings="$build/findings/$name"
  mkdir -p "$corpus" "$findings"
  rm -rf "$seeds" && mkdir -p "$seeds"
  local pattern file
  for pattern in $(seeds_of "$name"); do
    for file in $repo/$pattern; do [ -f "$file" ] && cp "$file" "$seeds/"; done
  done
  local dirs=("$corpus" "$seeds")
  [ -d "$repo/fuzz/regressions/$name" ] && dirs+=("$repo/fuzz/regressions/$name")
  [ -n "$extra" ] && dirs+=("$extra")
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512
    -print_final_stats=1 -artifact_prefix="$findings/")
  [ -n "${PAIRHIST_FUZZ_RUNS:-}" ] && args+=(-runs="$PAIRHIST_FUZZ_RUNS")
  # Inputs are files (the readers take paths): one private directory in memory per run.
  local tmp
  tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/pairhist-fuzz-XXXXXX")
  local log="$build/fuzz-$name.log" status=0 started=$SECONDS
  # allocator_may_return_null: an impossible malloc inside the HDF5 library returns NULL, which
  # the library handles, as it does without AddressSanitizer (operator new still throws).
  # shellcheck disable=SC2086
  TMPDIR="$tmp" UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS="suppressions=$repo/fuzz/lsan.supp" \
    ASAN_OPTIONS="allocator_may_return_null=1:quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    "$build/fuzz/fuzz_$name" "${args[@]}" ${PAIRHIST_FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1 ||
    status=$?
  rm -rf "$tmp"
  local execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "fuzz: $name: FINDING after ${execs:-?} executions (exit $status); input in $findings/," \
      "log $log" >&2
    return "$status"
  fi
  echo "fuzz: $name: ${execs:-?} executions in $((SECONDS - started)) s, no finding (corpus $corpus)"
}

case "${1:-}" in
  --list) names ;;
  --build)
    configure
    cmake --build "$build" -j"$(nproc)" >/dev/null
    ;;
  --all)
    [ $# -eq 2 ] || usage
    failed=0
    for name in $(names); do run_one "$name" "$2" || failed=1; done
    exit $failed
    ;;
  "" | -h | --help) usage ;;
  *)
    [ $# -ge 2 ] && [ $# -le 3 ] || usage
    run_one "$@"
    ;;
esac
