#!/bin/sh
# The fuzz targets (tests/fuzz: the hostfile parser, the size parser, a collective's options, the report reader, rank
# 0's judgement of the env:// rendezvous), built with clang's libFuzzer, ASan and UBSan in the sanitizer build
# (./build-asan, scripts/setup-asan.sh) and each run for DISTBENCH_FUZZ_SECONDS seconds (60 by default) on a copy of
# its seed corpus, after replaying the inputs that once crashed it (tests/fuzz/regressions). Fails on any crash and
# names the target and the input that caused it.
#   sh scripts/fuzz.sh                  every target, 60 s each
#   sh scripts/fuzz.sh hostfile 600     one target (hostfile, sizes, options, report or rendezvous) for 600 s
# DISTBENCH_FUZZ_JOBS sets how many targets fuzz at once (2 by default, one per core of a small CI machine).
set -eu
cd "$(dirname "$0")/.."
if [ $# -ge 2 ]; then
  DISTBENCH_FUZZ_SECONDS="$2"
fi
export DISTBENCH_FUZZ_SECONDS="${DISTBENCH_FUZZ_SECONDS:-60}"
sh scripts/setup-asan.sh
targets="hostfile sizes options report rendezvous"
if [ $# -ge 1 ]; then
  targets="$1"
fi
executables=""
for t in $targets; do
  executables="$executables fuzz_$t"
done
# shellcheck disable=SC2086
meson compile -C build-asan $executables
# shellcheck disable=SC2086
# The log is build-asan/meson-logs/fuzzlog.json, beside the sanitizer suites' testlog.json.
exec meson test -C build-asan --no-rebuild --print-errorlogs --suite fuzz --logbase fuzzlog \
  --num-processes "${DISTBENCH_FUZZ_JOBS:-2}" $targets
