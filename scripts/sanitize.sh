#!/bin/sh
# The sanitizer build (./build-asan, scripts/setup-asan.sh: clang, ASan and UBSan) and, under it, the unit, MPI and
# env:// suites and the end-to-end tests of bad input, faults and errors (below). Leaks of Open MPI's own are
# suppressed (tests/sanitizers/lsan.supp); distbench's are not. Any report fails the test that caused it.
# Arguments, when given, go to `meson test` instead (e.g. --suite e2e: all of it).
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup-asan.sh
meson compile -C build-asan
supp="$(pwd)/tests/sanitizers/lsan.supp"
# intercept_tls_get_addr=0: clang 14's runtime misreads the dynamic TLS blocks glibc 2.36 hands out (Debian 12), and
# its leak check at exit then scans a bogus range ("DTLS 7 at 0x5d35-0x400006e37") and dies with "Tracer caught
# signal 11" (a third of 3-rank runs on a loaded machine). Off, dynamic TLS is still reached through each thread's
# static TLS, which the check scans.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# fast_unwind_on_malloc=0: whole stacks, so that a leak made inside Open MPI matches its library's frames
export LSAN_OPTIONS="suppressions=$supp:fast_unwind_on_malloc=0:print_suppressions=0"
export DISTBENCH_SANITIZERS=address,undefined
if [ $# -gt 0 ]; then
  exec meson test -C build-asan --print-errorlogs --num-processes 2 "$@"
fi
# What sanitizers find things in: the unit, MPI and env:// suites; the bad-input table, the fault table and the error
# lines; and the bad-input cases of e2e_cli (every subcommand's options refused). The rest of the end-to-end suite
# (e2e_cli's good runs, e2e_ux_run, e2e_nccl_parity: long runs of the paths the suites above already take, with
# figures that only mean something without ASan's allocator) runs in ./build only. Each part writes its own log
# (build-asan/meson-logs/<part>.json), which scripts/test.sh counts.
status=0
meson test -C build-asan --print-errorlogs --num-processes 2 --logbase asan-suites \
  --suite unit --suite mpi --suite env || status=$?
meson test -C build-asan --no-rebuild --print-errorlogs --num-processes 2 --logbase asan-e2e \
  e2e_bad_input e2e_faults e2e_ux_errors || status=$?
meson test -C build-asan --no-rebuild --print-errorlogs --logbase asan-cli-errors \
  --test-args='-k bad_input -k bad_options -k BadInput' e2e_cli || status=$?
exit $status
