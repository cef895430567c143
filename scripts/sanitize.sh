#!/bin/sh
# The sanitizer build (./build-asan, scripts/setup-asan.sh: clang, ASan and UBSan) and the unit, MPI, env:// and
# end-to-end suites under it. Leaks of Open MPI's own are suppressed (tests/sanitizers/lsan.supp); distbench's are not. Any report
# fails the test that caused it. Extra arguments go to `meson test` (e.g. --suite unit).
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup-asan.sh
meson compile -C build-asan
supp="$(pwd)/tests/sanitizers/lsan.supp"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# fast_unwind_on_malloc=0: whole stacks, so that a leak made inside Open MPI matches its library's frames
export LSAN_OPTIONS="suppressions=$supp:fast_unwind_on_malloc=0:print_suppressions=0"
export DISTBENCH_SANITIZERS=address,undefined
if [ $# -eq 0 ]; then
  set -- --suite unit --suite mpi --suite env --suite e2e
fi
meson test -C build-asan --print-errorlogs --num-processes 2 "$@"
