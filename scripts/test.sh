#!/bin/sh
# Builds and runs the whole test suite (unit, MPI under mpirun at 1-4 ranks, end-to-end), then prints a summary line.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh "$@"
status=0
meson test -C build --print-errorlogs --num-processes 2 || status=$?
# meson's own summary is in build/meson-logs/testlog.json; restate it in the plain form CI tools read.
/usr/bin/python3 - <<'PY'
import json
counts = {"OK": 0, "FAIL": 0, "SKIP": 0, "TIMEOUT": 0, "EXPECTEDFAIL": 0, "UNEXPECTEDPASS": 0, "ERROR": 0}
with open("build/meson-logs/testlog.json") as log:
    for line in log:
        result = json.loads(line).get("result", "ERROR")
        counts[result] = counts.get(result, 0) + 1
failed = counts["FAIL"] + counts["TIMEOUT"] + counts["ERROR"] + counts["UNEXPECTEDPASS"]
print(f"tests: {counts['OK'] + counts['EXPECTEDFAIL']} passed, {failed} failed, {counts['SKIP']} skipped")
PY
exit $status
