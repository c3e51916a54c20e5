#!/usr/bin/env bash
# Installs the build into a fresh prefix and uses it from a clean environment (no
# LD_LIBRARY_PATH, no build tree on any path), as a user would: the command, its man page, a
# CMake consumer (find_package(pairhist)) and a pkg-config consumer (examples/Makefile) of the
# two libraries, and the Python module from PYTHONPATH.
# Usage: check_install.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
clean() { env -i PATH=/usr/bin:/bin HOME="$work" STARPU_HOME="$work/starpu" STARPU_SILENT=1 "$@"; }
fail() { echo "FAIL $*"; exit 1; }

lib=$(dirname "$(find "$prefix" -name 'libpairhist.so' | head -1)")
for l in libpairhist libpairhist_c libpairhist_host; do
  soname=$(readelf -d "$lib/$l.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
  [ "$soname" = "$l.so.0" ] || fail "$l SONAME is '$soname'"
  [ -e "$lib/$soname" ] || fail "$lib/$soname missing"
done
echo "ok   libpairhist.so.0, libpairhist_c.so.0, libpairhist_host.so.0"
for f in include/pairhist/engine.hpp include/pairhist/pairhist_c.h share/man/man1/pairhist.1 \
  share/pairhist/perfmodels/README.md; do
  [ -f "$prefix/$f" ] || fail "$f not installed"
done
grep -q 'pairhist calibrate' "$prefix/share/man/man1/pairhist.1" || fail "man page lacks subcommands"
echo "ok   headers, man page with every subcommand, perfmodels"

! clean ldd "$prefix/bin/pairhist" | grep 'not found' || fail "pairhist: libraries not found"
clean "$prefix/bin/pairhist" --version | grep -q 'pairhist 0.1.0' || fail "pairhist --version"
clean "$prefix/bin/pairhist" run "$src/data/spce_water.xtc" --top "$src/data/spce_water.gro" \
  --species O=OW --rmax 1.2 --nbins 240 --last 2 --ncpu 1 -q -o "$work/run" ||
  fail "installed pairhist run"
echo "ok   installed pairhist runs without LD_LIBRARY_PATH"

clean cmake -S "$src/examples" -B "$work/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/cmake-consumer.log" 2>&1 ||
  { cat "$work/cmake-consumer.log"; fail "find_package(pairhist)"; }
clean cmake --build "$work/cmake-consumer" -j2 >>"$work/cmake-consumer.log" 2>&1 ||
  { cat "$work/cmake-consumer.log"; fail "CMake consumer build"; }
for e in capi_example embed_example; do
  clean "$work/cmake-consumer/$e" >"$work/cmake-$e.log" 2>&1 ||
    { cat "$work/cmake-$e.log"; fail "CMake consumer $e"; }
done
echo "ok   CMake consumer: find_package(pairhist CONFIG), pairhist::c and pairhist::pairhist"

mkdir -p "$work/make-consumer"
cp "$src/examples/Makefile" "$src/examples/capi_example.c" "$src/examples/embed_example.cpp" \
  "$work/make-consumer/"
clean make -C "$work/make-consumer" PAIRHIST_PREFIX="$prefix" >"$work/make-consumer.log" 2>&1 ||
  { cat "$work/make-consumer.log"; fail "pkg-config consumer build"; }
for e in capi_example embed_example; do
  clean "$work/make-consumer/$e" >"$work/make-$e.log" 2>&1 ||
    { cat "$work/make-$e.log"; fail "pkg-config consumer $e"; }
done
echo "ok   pkg-config consumer: pairhist.pc, pairhist-c.pc"

clean PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c '
import numpy as np, pairhist, pairhist.mdanalysis
assert pairhist.__file__.startswith("'"$prefix"'"), pairhist.__file__
x = np.random.default_rng(1).random((300, 3)).astype(np.float32) * 3
h = pairhist.histograms([x], np.eye(3) * 3, r_max=1.0, n_bins=10)
with pairhist.Engine([300], r_max=1.0, n_bins=10, ncpu=1) as e:
    e.submit([x], np.eye(3) * 3)
    assert np.array_equal(e.finish()[(0, 0)], h[(0, 0)])
' || fail "Python module from the prefix"
echo "ok   Python module from PYTHONPATH=$prefix/lib/python3/dist-packages"
