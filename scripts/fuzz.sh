#!/bin/sh
# The fuzz targets (tests/fuzz: the hostfile parser, the size parser, a collective's options, the report reader),
# built with clang's libFuzzer, ASan and UBSan in ./build-fuzz (no MPI: the targets never start ranks) and each run
# for DISTBENCH_FUZZ_SECONDS seconds (60 by default) on a copy of its seed corpus, after replaying the inputs that
# once crashed it (tests/fuzz/regressions). Fails on any crash and names the target and the input that caused it.
#   sh scripts/fuzz.sh                  every target, 60 s each
#   sh scripts/fuzz.sh hostfile 600     one target (hostfile, sizes, options or report) for 600 s
# DISTBENCH_FUZZ_JOBS sets how many targets fuzz at once (2 by default, one per core of a small CI machine).
set -eu
cd "$(dirname "$0")/.."
if [ $# -ge 2 ]; then
  DISTBENCH_FUZZ_SECONDS="$2"
fi
export DISTBENCH_FUZZ_SECONDS="${DISTBENCH_FUZZ_SECONDS:-60}"
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang CXX=clang++ meson setup build-fuzz --buildtype=debugoptimized -Dfuzz=enabled -Dtests=false \
    -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=false -Dmpi=disabled -Dcuda=disabled -Dnccl=disabled
fi
targets="hostfile sizes options report"
if [ $# -ge 1 ]; then
  targets="$1"
fi
executables=""
for t in $targets; do
  executables="$executables fuzz_$t"
done
# shellcheck disable=SC2086
meson compile -C build-fuzz $executables
# shellcheck disable=SC2086
exec meson test -C build-fuzz --no-rebuild --print-errorlogs --suite fuzz \
  --num-processes "${DISTBENCH_FUZZ_JOBS:-2}" $targets
