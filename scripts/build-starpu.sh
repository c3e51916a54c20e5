#!/usr/bin/env bash
# Builds StarPU 1.3.10 from Debian's source package into a local prefix (default .deps/starpu),
# with our CUDA 13 patch and CUDA support when nvcc is found. A later run reuses the install.
#   PAIRHIST_DEPS   where sources and the install go (default: <repo>/.deps)
#   CUDA_HOME       CUDA toolkit (default /usr/local/cuda); PAIRHIST_STARPU_CUDA=0 builds without CUDA
#   PAIRHIST_STARPU_MPI=0 builds without StarPU-MPI (default: with it when mpicc is found, i.e.
#                   libopenmpi-dev is installed; pairhist then runs distributed under mpirun/srun)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
deps=${PAIRHIST_DEPS:-$repo/.deps}
prefix=$deps/starpu
cuda_home=${CUDA_HOME:-/usr/local/cuda}
patch_file=$repo/patches/starpu-1.3.10-cuda13.patch

use_cuda=0
if [ "${PAIRHIST_STARPU_CUDA:-1}" != 0 ] && [ -x "$cuda_home/bin/nvcc" ]; then use_cuda=1; fi
# GLPK lets starpu_bound compute the LP lower bound of a run's makespan (run --report).
use_glpk=0
if [ -f /usr/include/glpk.h ]; then use_glpk=1; fi
use_mpi=0
if [ "${PAIRHIST_STARPU_MPI:-1}" != 0 ] && command -v mpicc >/dev/null 2>&1; then use_mpi=1; fi
stamp="starpu-1.3.10 cuda=$use_cuda glpk=$use_glpk mpi=$use_mpi patch=$(sha1sum "$patch_file" | cut -c1-12)"
if [ -f "$prefix/.pairhist-stamp" ] && [ "$(cat "$prefix/.pairhist-stamp")" = "$stamp" ]; then
  echo "build-starpu: reusing $prefix ($stamp)"
  exit 0
fi

mkdir -p "$deps/src"
cd "$deps/src"
src=$(ls -d starpu-1.3.10*/ 2>/dev/null | head -n1 || true)
if [ -z "$src" ]; then
  echo "build-starpu: fetching Debian's starpu source package"
  apt-get source -q starpu >apt-source.log 2>&1 || { cat apt-source.log; exit 1; }
  src=$(ls -d starpu-1.3.10*/ | head -n1)
fi
cd "$src"
if [ ! -f .pairhist-patched ]; then
  patch -p1 --forward <"$patch_file"
  touch .pairhist-patched
fi

config=(--prefix="$prefix" --enable-maxcpus=128 --disable-build-tests --disable-build-examples
  --disable-build-doc --disable-fortran --disable-opencl --disable-socl --disable-starpufft
  --disable-hdf5 --without-fxt --disable-starpurm)
if [ $use_cuda = 1 ]; then
  config+=(--enable-cuda --with-cuda-dir="$cuda_home")
  export PATH="$cuda_home/bin:$PATH"
else
  config+=(--disable-cuda)
fi
if [ $use_mpi = 1 ]; then
  # --disable-mpi-check: StarPU-MPI's own tests would otherwise run under mpiexec in `make check`.
  config+=(--enable-mpi --with-mpicc="$(command -v mpicc)" --disable-mpi-check)
else
  config+=(--disable-mpi)
fi
echo "build-starpu: configure ${config[*]}"
mkdir -p build && cd build
../configure "${config[@]}" >configure.log 2>&1 || { tail -40 configure.log; exit 1; }
make -j"$(nproc)" >make.log 2>&1 || { tail -60 make.log; exit 1; }
make install >install.log 2>&1 || { tail -40 install.log; exit 1; }
echo "$stamp" >"$prefix/.pairhist-stamp"
echo "build-starpu: installed into $prefix"
