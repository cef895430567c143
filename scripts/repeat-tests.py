#!/usr/bin/env python3
"""Repeats chosen tests N times, idle or next to a CPU hog, and prints each test's pass rate: the flake hunt.

    python3 scripts/repeat-tests.py --runs 5 -- --suite e2e                 # idle
    python3 scripts/repeat-tests.py --runs 5 --hogs 2 -- --suite e2e        # next to two busy processes
    python3 scripts/repeat-tests.py --build build-asan --sanitizers --runs 3 -- e2e_faults env_launch
    (meson keeps the tests that match both the suites and the names given: give one or the other)

Everything after `--` goes to `meson test` (suites with --suite, or test names). The build is not rebuilt. Each run
writes its own log (<build>/meson-logs/repeat-{idle,hogs}-<N>.txt); a failed test's log is named in the table. The
hogs are busy-looping processes started before the first run and ended by their PID after the last (also on Ctrl-C). Exits
1 when any run of any test failed.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

PASSED = ("OK", "SKIP", "EXPECTEDFAIL")  # meson's results that are not failures


def start_hogs(count):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True) for _ in range(count)]


def stop_hogs(hogs):
    for hog in hogs:
        if hog.poll() is None:
            os.killpg(hog.pid, signal.SIGKILL)
        hog.wait()


def run_once(build, logbase, meson_args, sanitizers):
    began = time.monotonic()
    command = ["meson", "test", "-C", build, "--no-rebuild", "--num-processes", "2", "--logbase", logbase, *meson_args]
    if sanitizers:  # the sanitizer runtimes' settings, as scripts/sanitize.sh runs the suites
        command = ["sh", "-c", '. scripts/sanitizer-env.sh && exec "$@"', "sh", *command]
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    took = time.monotonic() - began
    results = {}
    log_path = os.path.join(build, "meson-logs", f"{logbase}.json")
    if not os.path.exists(log_path):  # meson ran nothing (e.g. no test matched): say what it said
        sys.exit(f"repeat-tests: meson test wrote no log: {proc.stdout.strip().splitlines()[-1:]}")
    with open(log_path) as log:
        for line in log:
            test = json.loads(line)
            results[test["name"]] = (test.get("result", "ERROR"), float(test.get("duration", 0.0)))
    return results, took


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", help="the build folder (default: build)")
    parser.add_argument("--runs", type=int, default=5, help="how many times (default: 5)")
    parser.add_argument("--hogs", type=int, default=0, help="busy processes beside the tests (default: 0)")
    parser.add_argument("--sanitizers", action="store_true",
                        help="run with the sanitizer runtimes' settings (scripts/sanitizer-env.sh), for build-asan")
    parser.add_argument("meson_args", nargs=argparse.REMAINDER, help="-- then what `meson test` selects")
    options = parser.parse_args()
    meson_args = options.meson_args[1:] if options.meson_args[:1] == ["--"] else options.meson_args
    if options.runs < 1:
        parser.error("--runs must be at least 1")
    options.build = os.path.abspath(options.build)  # the tests run from the source root
    if not os.path.isfile(os.path.join(options.build, "build.ninja")):
        parser.error(f"{options.build} is not a configured build folder; build it first (sh scripts/test.sh)")

    hogs = start_hogs(options.hogs)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tally = {}  # name -> [passed, runs, durations, failed logs]
    try:
        for index in range(1, options.runs + 1):
            logbase = f"repeat-{'hogs' if options.hogs else 'idle'}-{index}"
            results, took = run_once(options.build, logbase, meson_args, options.sanitizers)
            bad = [n for n, (r, _) in results.items() if r not in PASSED]
            print(f"run {index}/{options.runs}: {len(results)} tests, {len(bad)} failed, {took:.0f} s", flush=True)
            for name, (result, seconds) in results.items():
                entry = tally.setdefault(name, [0, 0, [], []])
                entry[1] += 1
                entry[2].append(seconds)
                if result in PASSED:
                    entry[0] += 1
                else:
                    entry[3].append(f"{result} in meson-logs/{logbase}.txt")
    finally:
        stop_hogs(hogs)

    load = f"next to {options.hogs} busy process{'es' if options.hogs > 1 else ''}" if options.hogs else "idle"
    print(f"\npass rates over {options.runs} runs, {load} ({options.build}):")
    width = max((len(n) for n in tally), default=4)
    failed_any = False
    for name in sorted(tally, key=lambda n: (tally[n][0] / tally[n][1], n)):
        passed, runs, seconds, failures = tally[name]
        failed_any |= passed < runs
        print(f"  {name:<{width}}  {passed}/{runs}  {min(seconds):6.1f}-{max(seconds):6.1f} s"
              + (f"  {'; '.join(failures)}" if failures else ""))
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
