#!/bin/sh
# Builds and runs the whole test suite (unit, MPI under mpirun at 1-5 ranks, env:// launches, end-to-end, the
# network-namespace cluster, Slurm), then the build without MPI (-Dmpi=disabled, as on a GPU node that has only CUDA
# and NCCL) and its env:// and GPU suites (the suites that need MPI skip there, saying why), then the sanitizer build (clang, ASan and
# UBSan: scripts/sanitize.sh) and the suites that sanitizers find things in, then the fuzz targets (scripts/fuzz.sh,
# in the sanitizer build: libFuzzer on the hostfile, size, option and report parsers, 10 s each). Ends with a summary:
# the tests counted per build, and the wall time of each part (package install when DISTBENCH_SETUP_SECONDS says it,
# each build's compile, each build's suites), so that every log shows where the time goes.
# DISTBENCH_SKIP_SANITIZERS=1 leaves the sanitizer build out, DISTBENCH_SKIP_FUZZ=1 the fuzzing (quicker local runs).
set -eu
cd "$(dirname "$0")/.."
times="$(mktemp)"
trap 'rm -f "$times"' EXIT
# timed LABEL COMMAND...: runs COMMAND, records its wall time under LABEL, returns its status.
timed() {
  label="$1"
  shift
  begin=$(date +%s)
  rc=0
  "$@" || rc=$?
  printf '%s\t%s\t%s\n' "$label" "$(($(date +%s) - begin))" "$rc" >>"$times"
  return "$rc"
}
if [ -n "${DISTBENCH_SETUP_SECONDS:-}" ]; then
  printf '%s\t%s\t0\n' "package install (scripts/setup-debian.sh)" "$DISTBENCH_SETUP_SECONDS" >>"$times"
fi
status=0
timed "build: configure, compile the binary" sh scripts/build.sh "$@"
# ./build compiles what its suites run (scripts/suite-targets.py) and bench/'s tools (run by hand; built so that they
# keep building). The gpu suite runs here where a GPU is visible; elsewhere its tests only skip, and build-nompi
# compiles them (the same sources, no MPI in them) and runs them there.
build_suites="unit mpi env e2e cluster slurm"
only_once="--no-suite launches"
if nvidia-smi -L >/dev/null 2>&1; then
  build_suites="$build_suites gpu"
else
  only_once="$only_once --no-suite gpu"
fi
timed "build: compile the tests" \
  sh -c "ninja -C build \$(/usr/bin/python3 scripts/suite-targets.py build $build_suites bench/)"
# Suite 'sanitized' (the fault table: killed, stopped and signalled ranks, 100 s alone on the machine; the bad-input
# table, the error lines, e2e_cli's bad-input cases; env_strangers) runs once, under the sanitizers below, where the
# same checks also find memory errors; here and in build-nompi only when those are skipped.
# The env:// launch tests (suite launches: failed launches and strangers) run under the sanitizers and env_launch in
# build-nompi too, where env:// is the only launch; ./build's env:// code is the same, and its env suite keeps the
# connector.
[ "${DISTBENCH_SKIP_SANITIZERS:-0}" = 1 ] || only_once="$only_once --no-suite sanitized"
# shellcheck disable=SC2086
timed "build: tests" meson test -C build --no-rebuild --print-errorlogs --num-processes 2 $only_once || status=$?
if [ ! -f build-nompi/build.ninja ]; then
  meson setup build-nompi --buildtype=release -Dmpi=disabled "$@"
fi
# The MPI-free build compiles and runs what a GPU node without MPI runs: the binary, the env:// and GPU suites, and
# the suites that need MPI, which skip saying why. Its unit tests are ./build's code compiled the same way (the core
# includes no MPI header), run in ./build and under the sanitizers: a third run would add 2 minutes of compiling and
# no coverage.
nompi_suites="env gpu mpi e2e cluster slurm"
timed "build-nompi: compile" sh -c "ninja -C build-nompi \$(/usr/bin/python3 scripts/suite-targets.py build-nompi $nompi_suites)"
nompi_once=""
[ "${DISTBENCH_SKIP_SANITIZERS:-0}" = 1 ] || nompi_once="--no-suite sanitized"
# shellcheck disable=SC2046,SC2086  # one --suite per word
timed "build-nompi: tests" meson test -C build-nompi --no-rebuild --print-errorlogs --num-processes 2 \
  $(for s in $nompi_suites; do printf -- '--suite %s ' "$s"; done) $nompi_once || status=$?
logs="build/meson-logs/testlog.json build-nompi/meson-logs/testlog.json"
if [ "${DISTBENCH_SKIP_SANITIZERS:-0}" != 1 ]; then
  timed "build-asan: configure, compile" sh scripts/setup-asan.sh --compile || status=$?
  timed "build-asan: tests under ASan and UBSan" sh scripts/sanitize.sh || status=$?
  logs="$logs build-asan/meson-logs/asan-unit.json build-asan/meson-logs/asan-suites.json"
  logs="$logs build-asan/meson-logs/asan-e2e.json"
fi
if [ "${DISTBENCH_SKIP_FUZZ:-0}" != 1 ]; then
  # 10 s a target here (2 at a time: 30 s), after replaying every saved crash: a smoke test of each target and its
  # corpus on every change; scripts/fuzz.sh alone runs 60 s, and hunting is longer runs of it
  timed "build-asan: fuzz targets" env DISTBENCH_FUZZ_SECONDS="${DISTBENCH_FUZZ_SECONDS:-10}" sh scripts/fuzz.sh \
    || status=$?
  logs="$logs build-asan/meson-logs/fuzzlog.json"
fi
# meson's own summaries are in <build>/meson-logs/*.json; restate them in the plain form CI tools read, with the time
# each suite took (the sum of its tests' durations; two run at once where meson may) and each part's wall time.
/usr/bin/python3 - "$times" $logs <<'PY'
import json
import sys

total = {"passed": 0, "failed": 0, "skipped": 0}
suites = []
part = {"fuzzlog.json": " (fuzz)", "asan-e2e.json": " (e2e)"}
for path in sys.argv[2:]:
    build = path.split("/")[0] + part.get(path.split("/")[-1], "")
    counts, seconds = {}, {}
    try:
        with open(path) as log:
            for line in log:
                test = json.loads(line)
                result = test.get("result", "ERROR")
                counts[result] = counts.get(result, 0) + 1
                suite = test["name"].split(" / ")[0].split(":")[-1]  # "distbench:unit / dtype"
                seconds[suite] = seconds.get(suite, 0.0) + float(test.get("duration", 0.0))
    except FileNotFoundError:  # the build failed before its tests ran: one failure, not a traceback
        counts["ERROR"] = 1
    passed = counts.get("OK", 0) + counts.get("EXPECTEDFAIL", 0)
    failed = sum(counts.get(k, 0) for k in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"))
    skipped = counts.get("SKIP", 0)
    print(f"{build} counted {passed} passed, {failed} failed, {skipped} skipped")
    suites += [(build, name, s) for name, s in sorted(seconds.items(), key=lambda kv: -kv[1])]
    total["passed"] += passed
    total["failed"] += failed
    total["skipped"] += skipped
print("time per suite (sum of its tests' durations):")
for build, name, s in suites:
    print(f"  {build:<28} {name:<10} {s:6.0f} s")
print("time per part (wall):")
whole = 0
with open(sys.argv[1]) as f:
    for line in f:
        label, seconds, rc = line.rstrip("\n").split("\t")
        whole += int(seconds)
        print(f"  {label:<46} {int(seconds):5d} s" + ("" if rc == "0" else f"  (exit {rc})"))
print(f"  {'all parts':<46} {whole:5d} s = {whole / 60:.1f} min")
print(f"tests: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
PY
exit $status
