#!/bin/sh
# The sanitizer build (./build-asan, scripts/setup-asan.sh: clang, ASan and UBSan) and, under it, the unit, MPI and
# env:// suites and the end-to-end tests of bad input, faults and errors (below). Leaks of Open MPI's own are
# suppressed (tests/sanitizers/lsan.supp); distbench's are not. Any report fails the test that caused it.
# Arguments, when given, go to `meson test` instead (e.g. --suite e2e: all of it).
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup-asan.sh
. scripts/sanitizer-env.sh
if [ $# -gt 0 ]; then
  exec meson test -C build-asan --print-errorlogs --num-processes 2 "$@"
fi
# What sanitizers find things in: the unit, MPI and env:// suites (the rank counts in suite 'plain' left out: more
# ranks on the code the others reach, tests/mpi/meson.build); the bad-input table, the fault table and the error
# lines; and the bad-input cases of e2e_cli (e2e_cli_errors: every subcommand's options refused). These e2e tests are
# suite 'sanitized': scripts/test.sh runs them here only. The rest of the end-to-end suite (e2e_cli's good runs,
# e2e_ux_run, e2e_nccl_parity: long runs of the paths the suites above already take, with figures that only mean
# something without ASan's allocator) runs in ./build only. Only what these run is compiled (setup-asan.sh --compile).
# Each part writes its own log (build-asan/meson-logs/<part>.json), which scripts/test.sh counts.
sh scripts/setup-asan.sh --compile
status=0
# The unit and env:// tests never start MPI: no leak of Open MPI's is there to match by its library's frames, and they
# keep the runtime's fast unwinder (whole stacks cost every allocation a slow unwind: test_findings takes 4-6 times as
# long). Their log is asan-unit.
LSAN_OPTIONS="$(echo "$LSAN_OPTIONS" | sed 's/:fast_unwind_on_malloc=0//')" \
  meson test -C build-asan --no-rebuild --print-errorlogs --num-processes 2 --logbase asan-unit \
  --suite unit --suite env --no-suite plain || status=$?
meson test -C build-asan --no-rebuild --print-errorlogs --num-processes 2 --logbase asan-suites \
  --suite mpi --no-suite plain || status=$?
meson test -C build-asan --no-rebuild --print-errorlogs --num-processes 2 --logbase asan-e2e \
  e2e_bad_input e2e_faults e2e_ux_errors e2e_cli_errors || status=$?
exit $status
