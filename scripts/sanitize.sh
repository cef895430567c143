#!/bin/sh
# The sanitizer build (./build-asan, scripts/setup-asan.sh: clang, ASan and UBSan) and the unit, MPI, env:// and
# end-to-end suites under it. Leaks of Open MPI's own are suppressed (tests/sanitizers/lsan.supp); distbench's are not. Any report
# fails the test that caused it. Extra arguments go to `meson test` (e.g. --suite unit).
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
if [ $# -eq 0 ]; then
  set -- --suite unit --suite mpi --suite env --suite e2e
fi
meson test -C build-asan --print-errorlogs --num-processes 2 "$@"
