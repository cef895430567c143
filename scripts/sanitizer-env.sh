# The sanitizer runtimes' settings for running the sanitizer build's tests, sourced (from the source root) by
# scripts/sanitize.sh and by scripts/repeat-tests.py --sanitizers.
supp="$(pwd)/tests/sanitizers/lsan.supp"
# intercept_tls_get_addr=0: clang 14's runtime misreads the dynamic TLS blocks glibc 2.36 hands out (Debian 12), and
# its leak check at exit then scans a bogus range ("DTLS 7 at 0x5d35-0x400006e37") and dies with "Tracer caught
# signal 11" (a third of 3-rank runs on a loaded machine). Off, dynamic TLS is still reached through each thread's
# static TLS, which the check scans.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# fast_unwind_on_malloc=0: whole stacks, so that a leak made inside Open MPI matches its library's frames (with the
# fast unwinder a 3-rank MPI test reports Open MPI's leaks as ours); scripts/sanitize.sh drops it where MPI never starts
export LSAN_OPTIONS="suppressions=$supp:fast_unwind_on_malloc=0:print_suppressions=0"
export DISTBENCH_SANITIZERS=address,undefined
