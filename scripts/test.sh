#!/bin/sh
# Builds and runs the whole test suite (unit, MPI under mpirun at 1-5 ranks, env:// launches, end-to-end, the
# network-namespace cluster), then the build without MPI (-Dmpi=disabled, as on a GPU node that has only CUDA and
# NCCL) and its tests (the suites that need MPI skip there, saying why), then the sanitizer build (clang, ASan and
# UBSan: scripts/sanitize.sh) and the unit, MPI, env:// and end-to-end suites under it, then the fuzz targets
# (scripts/fuzz.sh, in the sanitizer build: libFuzzer on the hostfile, size, option and report parsers, 60 s each); prints a summary line of all.
# DISTBENCH_SKIP_SANITIZERS=1 leaves the sanitizer build out, DISTBENCH_SKIP_FUZZ=1 the fuzzing (quicker local runs).
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh "$@"
status=0
meson test -C build --print-errorlogs --num-processes 2 || status=$?
if [ ! -f build-nompi/build.ninja ]; then
  meson setup build-nompi --buildtype=release -Dmpi=disabled "$@"
fi
meson compile -C build-nompi
meson test -C build-nompi --print-errorlogs --num-processes 2 || status=$?
logs="build/meson-logs/testlog.json build-nompi/meson-logs/testlog.json"
if [ "${DISTBENCH_SKIP_SANITIZERS:-0}" != 1 ]; then
  sh scripts/sanitize.sh || status=$?
  logs="$logs build-asan/meson-logs/testlog.json"
fi
if [ "${DISTBENCH_SKIP_FUZZ:-0}" != 1 ]; then
  sh scripts/fuzz.sh || status=$?
  logs="$logs build-asan/meson-logs/fuzzlog.json"
fi
# meson's own summaries are in <build>/meson-logs/*.json; restate them in the plain form CI tools read.
/usr/bin/python3 - $logs <<'PY'
import json
import sys
total = {"passed": 0, "failed": 0, "skipped": 0}
for path in sys.argv[1:]:
    build = path.split("/")[0] + ("" if path.endswith("testlog.json") else " (fuzz)")
    counts = {}
    try:
        with open(path) as log:
            for line in log:
                result = json.loads(line).get("result", "ERROR")
                counts[result] = counts.get(result, 0) + 1
    except FileNotFoundError:  # the build failed before its tests ran: one failure, not a traceback
        counts["ERROR"] = 1
    passed = counts.get("OK", 0) + counts.get("EXPECTEDFAIL", 0)
    failed = sum(counts.get(k, 0) for k in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"))
    skipped = counts.get("SKIP", 0)
    print(f"{build} counted {passed} passed, {failed} failed, {skipped} skipped")
    total["passed"] += passed
    total["failed"] += failed
    total["skipped"] += skipped
print(f"tests: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
PY
exit $status
