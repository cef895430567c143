"""Fails when a test of a multi-file test executable is defined in a file that no `meson test` entry names.

Usage: check_sources.py EXECUTABLE FILES [FILES ...], each FILES what one entry passes as --source (base names,
comma-separated). The executables
that hold a suite's files (tests/support/source_filter.hpp) run one file per entry; a test in a file not listed
would run in none of them. GoogleTest lists each test with its file (--gtest_list_tests, JSON output).
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    exe, entries = sys.argv[1], [arg.split(",") for arg in sys.argv[2:]]
    declared = {f for entry in entries for f in entry}
    with tempfile.TemporaryDirectory() as tmp:
        listing = os.path.join(tmp, "tests.json")
        subprocess.run([exe, "--gtest_list_tests", f"--gtest_output=json:{listing}"], check=True,
                       stdout=subprocess.DEVNULL, timeout=60)
        with open(listing) as f:
            suites = json.load(f)["testsuites"]
    files = {}
    for suite in suites:
        for test in suite["testsuite"]:
            files.setdefault(os.path.basename(test["file"]), []).append(f"{suite['name']}.{test['name']}")
    orphans = {f: names for f, names in files.items() if f not in declared}
    unused = [",".join(entry) for entry in entries if not any(f in files for f in entry)]
    for f, names in sorted(orphans.items()):
        print(f"error: {len(names)} tests in {f} ({names[0]}, ...) run in no test entry: declare {f} in meson.build")
    for f in unused:
        print(f"error: the entry for {f} runs no test: no test of {os.path.basename(exe)} is defined there")
    total = sum(len(n) for n in files.values())
    print(f"{os.path.basename(exe)}: {total} tests in {len(files)} files, every one declared" if not orphans and
          not unused else "")
    return 1 if orphans or unused else 0


if __name__ == "__main__":
    sys.exit(main())
