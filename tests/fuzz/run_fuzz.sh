#!/bin/sh
# One fuzz target as a test: replays every input in regressions/NAME once (crashes found before stay fixed), then
# fuzzes a copy of corpus/NAME (the repository's corpus is never written) for DISTBENCH_FUZZ_SECONDS seconds (60 by
# default). Fails on any crash, sanitizer report, leak, slow input (-timeout) or memory over -rss_limit_mb, naming the
# target and the saved input. Usage: run_fuzz.sh EXECUTABLE NAME SOURCE_DIR (meson passes them; see meson.build).
set -eu
exe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"  # absolute, for the reproduce line
name="$2"
src="$3"
seconds="${DISTBENCH_FUZZ_SECONDS:-60}"
work="${DISTBENCH_FUZZ_BUILD:-$(dirname "$exe")}/work/$name"
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
cp "$src/corpus/$name"/* "$work/corpus/"
# UBSan stops at the first report (so that libFuzzer saves the input); ASan checks leaks; both print whole stacks.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
limits="-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10"
dict=""
[ -f "$src/$name.dict" ] && dict="-dict=$src/$name.dict"

regressed=""
if [ -d "$src/regressions/$name" ] && [ -n "$(ls -A "$src/regressions/$name")" ]; then
  echo "fuzz $name: replaying $(ls "$src/regressions/$name" | wc -l) regression input(s)"
  for f in "$src/regressions/$name"/*; do
    # shellcheck disable=SC2086
    "$exe" $limits "$f" >"$work/replay.log" 2>&1 || {
      cat "$work/replay.log"
      regressed="$regressed $f"
    }
  done
fi

echo "fuzz $name: ${seconds} s on a copy of $src/corpus/$name in $work/corpus"
status=0
# shellcheck disable=SC2086
timeout --kill-after=10 "$((seconds + 120))" "$exe" $limits $dict -max_total_time="$seconds" \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" || status=$?
found="$(ls "$work/artifacts" 2>/dev/null || true)"
if [ "$status" -ne 0 ] || [ -n "$found" ]; then
  echo "FAIL fuzz $name (exit $status): the inputs that failed, kept in $work/artifacts:"
  for f in "$work/artifacts"/*; do
    [ -f "$f" ] || continue
    echo "  $f"
    head -c 256 "$f" | od -A x -t x1z | sed 's/^/    /'
  done
  echo "reproduce: $exe $work/artifacts/<file>; keep it as $src/regressions/$name/<file> once fixed"
  [ -z "$regressed" ] || echo "and these inputs that once crashed it crash again:$regressed"
  exit 1
fi
if [ -n "$regressed" ]; then
  echo "FAIL fuzz $name: these inputs that once crashed it crash again:"
  for f in $regressed; do echo "  $f"; done
  exit 1
fi
echo "fuzz $name: no crash in ${seconds} s"
