#!/bin/sh
# Configures ./build-asan once: clang with AddressSanitizer and UndefinedBehaviorSanitizer (clang's `undefined` group
# has the float-cast-overflow check that gcc's leaves out), MPI and the tests, and the libFuzzer targets
# (tests/fuzz). scripts/sanitize.sh runs the suites in it, scripts/fuzz.sh the fuzz targets. --compile also builds
# what those two run (scripts/suite-targets.py: the unit, MPI and env:// suites' executables, the binary and what the
# sanitized e2e tests call, the fuzz targets), not bench/'s tools; `meson compile -C build-asan` builds everything.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build-asan/build.ninja ]; then
  # -O1 with line tables only, as the sanitizers' own documentation suggests: the reports keep file and line, and the
  # build compiles about 14 % faster than -O2 -g (two of its largest files: 46.5 s against 53.9 s).
  CC=clang CXX=clang++ meson setup build-asan -Doptimization=1 -Ddebug=false -Db_sanitize=address,undefined \
    -Dc_args=-gline-tables-only -Dcpp_args=-gline-tables-only \
    -Db_lundef=false -Dwerror=false -Dcuda=disabled -Dnccl=disabled -Dfuzz=enabled
fi
if [ "${1:-}" = --compile ]; then
  # regenerated first where a meson.build changed: the targets are read from it
  ninja -C build-asan build.ninja >/dev/null
  # shellcheck disable=SC2046  # one target a word
  ninja -C build-asan $(/usr/bin/python3 scripts/suite-targets.py build-asan unit mpi env sanitized fuzz)
fi
