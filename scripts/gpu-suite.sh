#!/usr/bin/env bash
# GPU test suite. CI has no GPU, so this runs in two halves:
#   scripts/gpu-suite.sh stage      (here) build with CUDA, copy binaries + the shared libraries the
#                                   device machine lacks into .gpu/ (git-ignored, carried there)
#   scripts/gpu-suite.sh device     (on the GPU machine, repo root) run the suites from .gpu/,
#                                   logs to $OUT (or .gpu/out)
# With the device tool: stage here, then run `bash scripts/gpu-suite.sh device` with carry [".gpu"].
# GPU_STAGE_ONLY="pairhist bench_gpu_cells" stages only those programs (and their libraries): a
# smaller stage, for a call that carries other inputs beside it (64 MiB in all).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
stage=$repo/.gpu
build=${PAIRHIST_BUILD_DIR:-$repo/build}

stage_here() {
  command -v /usr/local/cuda/bin/nvcc >/dev/null || { echo "gpu-suite: nvcc not found" >&2; exit 1; }
  bash "$repo/scripts/install-deps.sh"
  bash "$repo/scripts/build-starpu.sh"
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  # GPU_STAGE_ONLY builds only what it stages (programs are targets of their own name).
  local targets=()
  if [[ -n ${GPU_STAGE_ONLY:-} ]]; then
    for p in $GPU_STAGE_ONLY; do [[ $p == pairhist ]] || targets+=(--target "$p"); done
    targets+=(--target pairhist_cli)
  fi
  cmake --build "$build" -j"$(nproc)" "${targets[@]}"
  rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/lib"
  if [[ -n ${GPU_STAGE_ONLY:-} ]]; then
    for p in $GPU_STAGE_ONLY; do cp "$build/drivers/$p" "$stage/bin/" 2>/dev/null || cp "$build/tests/$p" "$stage/bin/"; done
  else
    cp "$build"/tests/test_* "$build/tests/bench_gpu_cells" "$build/tests/bench_engine_start" "$stage/bin/" 2>/dev/null || true
    rm -f "$stage"/bin/*.a
  fi
  cp "$build/drivers/pairhist" "$stage/bin/"
  strip "$stage"/bin/*
  # Every shared library outside the base system and CUDA, which the device machine has.
  for f in "$stage"/bin/*; do ldd "$f"; done | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libresolv|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so|/usr/local/cuda' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
  # Not `ldd | grep -q`: grep ending first fails the pipe (pipefail), and OpenMPI went missing.
  if [[ "$(ldd "$stage/bin/pairhist")" == *libmpi.so* ]]; then stage_openmpi; fi
  strip --strip-unneeded "$stage"/lib/*
  git -C "$repo" rev-parse --short HEAD >"$stage/commit"
  # The device tool carries at most 64 MiB: ship the binaries packed.
  tar -czf "$stage/payload.tar.gz" -C "$stage" bin lib commit $(cd "$stage" && ls -d openmpi pmix 2>/dev/null)
  rm -rf "$stage/bin" "$stage/lib" "$stage/commit" "$stage/openmpi" "$stage/pmix"
  du -sh "$stage"
}

# OpenMPI's launcher for the device machine, which has no package registry: mpirun and orted,
# the component plugins, PMIx's plugins and help texts, laid out as under OpenMPI's prefix (/usr)
# so that OPAL_PREFIX (and PMIX_PREFIX) relocate them there (mpi_env below); the libraries they
# load go to lib/ with the others.
stage_openmpi() {
  local ompi_lib ompi=$stage/openmpi pmix_src=/usr/lib/x86_64-linux-gnu/pmix2
  ompi_lib=$(ompi_info --path libdir --parsable 2>/dev/null | sed -n 's/^path:libdir://p')
  ompi_lib=${ompi_lib:-/usr/lib/x86_64-linux-gnu/openmpi/lib}
  mkdir -p "$ompi/bin" "$ompi/${ompi_lib#/usr/}" "$ompi/share/openmpi" "$stage/pmix/lib"
  cp -L "$(command -v mpirun)" "$ompi/bin/mpirun"
  cp -L "$(command -v orted)" "$ompi/bin/orted"
  cp -rL "$ompi_lib/openmpi3" "$ompi/${ompi_lib#/usr/}/"
  cp -L /usr/share/openmpi/help-*.txt "$ompi/share/openmpi/" 2>/dev/null || true
  [ -d "$pmix_src/lib/pmix" ] && cp -rL "$pmix_src/lib/pmix" "$stage/pmix/lib/"
  for f in "$ompi/bin"/* "$ompi/${ompi_lib#/usr/}"/openmpi3/*.so "$stage"/pmix/lib/pmix/*.so; do
    ldd "$f" 2>/dev/null
  done | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libresolv|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so|/usr/local/cuda' |
    while read -r lib; do [ -e "$stage/lib/$(basename "$lib")" ] || cp -L "$lib" "$stage/lib/"; done
}

# The environment for the staged mpirun (scripts/device-run.sh sets the same): OpenMPI relocated to
# the stage, plugins that cannot load there (no InfiniBand, ...) skipped silently, root allowed.
mpi_env() {
  [ -x "$stage/openmpi/bin/mpirun" ] || return 1
  export OPAL_PREFIX=$stage/openmpi PMIX_PREFIX=$stage/pmix PATH="$stage/openmpi/bin:$PATH"
  export OMPI_MCA_mca_base_component_show_load_errors=0 OMPI_ALLOW_RUN_AS_ROOT=1
  export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  export PAIRHIST_MPIEXEC=$stage/openmpi/bin/mpirun
}

# The stage unpacked on the device machine (once per machine).
unpack_stage() {
  if [ -f "$stage/payload.tar.gz" ]; then
    mkdir -p /tmp/gpu-stage
    [ -f /tmp/gpu-stage/commit ] || tar -xzf "$stage/payload.tar.gz" -C /tmp/gpu-stage
    stage=/tmp/gpu-stage
  fi
}

run_on_device() {
  unpack_stage
  out=${OUT:-$stage/out}
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$stage/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  export PAIRHIST_DATA_DIR="$repo/data" PAIRHIST_BINARY="$stage/bin/pairhist"
  export STARPU_HOME="$out/starpu-home" STARPU_SILENT=1 STARPU_SCHED=
  {
    echo "# pairhist GPU suite, commit $(cat "$stage/commit"), $(date -u +%Y-%m-%dT%H:%MZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    echo "host: $(nproc) cores"
    if ldd "$stage/bin/pairhist" | grep "not found"; then echo "missing libraries"; exit 1; fi
  } | tee "$out/gpu-suite.log"
  status=0
  local tests="test_gpu test_gpu_cells test_gpu_engine_cells test_gpu_engine_swap \
    test_gpu_engine_sizes test_gpu_memory_limit test_capi \
    test_geometry test_resume_job test_resume_cli test_xtc_parallel \
    test_cpu_kernel test_cell_histogram_cpu test_row_tiles test_engine test_engine_cells \
    test_engine_swap test_engine_sizes test_cli"
  # Distributed runs, where the stage carries OpenMPI: each rank takes a GPU of its own.
  if mpi_env && [ -x "$stage/bin/test_mpi_cli" ]; then tests="$tests test_mpi_cli"; fi
  for t in ${GPU_SUITE_TESTS:-$tests}; do
    echo "== $t" | tee -a "$out/gpu-suite.log"
    start=$(date +%s%N)
    if "$stage/bin/$t" >"$out/$t.log" 2>&1; then r=passed; else r=FAILED; status=1; fi
    printf '%s %s in %s ms: %s\n' "$t" "$r" "$((($(date +%s%N) - start) / 1000000))" \
      "$(grep -E '^\[doctest\] (test cases|assertions)' "$out/$t.log" | tr '\n' ' ')" |
      tee -a "$out/gpu-suite.log"
    [ $r = passed ] || tail -30 "$out/$t.log"
  done
  grep -h "MESSAGE" -A1 "$out/test_gpu.log" | tee -a "$out/gpu-suite.log" || true
  echo "== demo with all CPU cores and the GPU" | tee -a "$out/gpu-suite.log"
  "$stage/bin/pairhist" run "$repo/data/spce_water.xtc" --top "$repo/data/spce_water.gro" \
    --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 -o "$out/demo" --overwrite 2>&1 |
    tee -a "$out/gpu-suite.log" || status=1
  if mpi_env; then
    echo "== the demo on 2 ranks (a GPU each), against the single process" | tee -a "$out/gpu-suite.log"
    if mpirun -n 2 "$stage/bin/pairhist" run "$repo/data/spce_water.xtc" \
      --top "$repo/data/spce_water.gro" --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 \
      -o "$out/demo-2ranks" --overwrite >>"$out/gpu-suite.log" 2>&1 &&
      cmp "$out/demo/rdf.csv" "$out/demo-2ranks/rdf.csv"; then
      echo "2 ranks: identical rdf.csv" | tee -a "$out/gpu-suite.log"
    else
      echo "2 ranks: FAILED or different" | tee -a "$out/gpu-suite.log"
      status=1
    fi
  fi
  rm -rf "$out/demo" "$out/demo-2ranks" "$out/starpu-home"
  echo "gpu-suite: $([ $status = 0 ] && echo all passed || echo FAILURES)" | tee -a "$out/gpu-suite.log"
  return $status
}

case "${1:-}" in
  stage) stage_here ;;
  device) run_on_device ;;
  unpack) unpack_stage && echo "$stage" ;;
  *) echo "usage: $0 stage|device" >&2; exit 2 ;;
esac
