#!/bin/sh
# Configures ./build-asan once: clang with AddressSanitizer and UndefinedBehaviorSanitizer (clang's `undefined` group
# has the float-cast-overflow check that gcc's leaves out), MPI and the tests, and the libFuzzer targets
# (tests/fuzz). scripts/sanitize.sh runs the suites in it, scripts/fuzz.sh the fuzz targets. --compile also builds it.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build-asan/build.ninja ]; then
  CC=clang CXX=clang++ meson setup build-asan --buildtype=debugoptimized -Db_sanitize=address,undefined \
    -Db_lundef=false -Dwerror=false -Dcuda=disabled -Dnccl=disabled -Dfuzz=enabled
fi
if [ "${1:-}" = --compile ]; then
  meson compile -C build-asan
fi
