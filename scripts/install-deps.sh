#!/usr/bin/env bash
# Installs the Debian packages pairhist needs to build, test and make its sample data (gromacs;
# libgromacs-dev for .tpr topologies, optional to the build, needed by its tests), and clang
# with libFuzzer and the sanitizers for scripts/fuzz.sh.
# Idempotent: packages already present are skipped by apt-get; the update runs only when needed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ca-certificates
  libhdf5-dev libnetcdf-dev libcli11-dev libfmt-dev doctest-dev nlohmann-json3-dev
  libhwloc-dev libltdl-dev libfftw3-dev dpkg-dev devscripts quilt
  gromacs libgromacs-dev gnuplot-nox libyaml-cpp-dev libglpk-dev python3 zlib1g-dev
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-mdanalysis help2man
  clang-14 libclang-rt-14-dev
  libopenmpi-dev openmpi-bin
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

enable_deb_src() {
  # StarPU is built from Debian's source package, so deb-src entries are needed.
  local f=/etc/apt/sources.list.d/debian.sources
  if [ -f "$f" ] && ! grep -q '^Types:.*deb-src' "$f"; then
    sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
    return 0
  fi
  if [ -f /etc/apt/sources.list ] && ! grep -q '^deb-src' /etc/apt/sources.list; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >>/etc/apt/sources.list
    return 0
  fi
  return 1
}

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
need_update=0
if [ "$(id -u)" -eq 0 ]; then enable_deb_src && need_update=1 || true; fi
[ ${#missing[@]} -gt 0 ] && need_update=1
if [ ! -d /var/lib/apt/lists ] || [ -z "$(ls /var/lib/apt/lists/*Sources* 2>/dev/null)" ]; then need_update=1; fi
if [ $need_update -eq 1 ]; then
  $SUDO apt-get update -q
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
