#!/usr/bin/env python3
"""End-to-end tests of the regression gate that cannot be fooled: a case missing or skipped in a round, and wrong
elements on either side, fail closed with their own exit codes; nothing a run started (setsid daemons, mpirun's
ranks) outlives the run, its deadline or compare killed by SIGKILL; a runs folder named as shell code runs nothing;
a run's huge output costs compare nothing; numeric options have bounds.

The runs are small shell commands that copy a real report (tests/fuzz/corpus/report), edited per round, and real
`mpirun ... distbench allreduce` jobs where the ranks are what is checked.

Environment: DISTBENCH (path of the binary), DISTBENCH_SOURCE_ROOT (the source tree).
"""
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import Workdir, error_lines, holders, load_json, running  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
SOURCE_ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = os.path.join(SOURCE_ROOT, "tests", "fuzz", "corpus", "report", "allreduce_sweep.json")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle",
          "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]
# A sweep that runs until it is ended: a million cycles of four sizes.
ENDLESS = ["allreduce", "-b", "8", "-e", "64", "-N", "1000000"]


def gone_within(pids_of, seconds):
    """Waits up to `seconds` for pids_of() to be empty; what is left."""
    deadline = time.monotonic() + seconds
    while pids_of() and time.monotonic() < deadline:
        time.sleep(0.1)
    return pids_of()


def compare(*args, cwd=None, timeout=120):
    return subprocess.run([BINARY, "compare", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


class Gate(Workdir):
    def setUp(self):
        super().setUp()
        self.leftovers = []

    def tearDown(self):
        for pid in self.leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        super().tearDown()

    def report(self, name, slow=None, edit=None):
        """A copy of the corpus report with steady samples (six, the same in every copy), `slow` {record index:
        factor} applied, then `edit(report)`; its path."""
        report = load_json(REPORT)
        for i, rec in enumerate(report["records"]):
            for phase in rec["phases"]:
                phase["samples_us"] = [10.0 * (i + 1) * (1 + 0.001 * k) * (slow or {}).get(i, 1) for k in range(6)]
        if edit:
            edit(report)
        path = self.path(name)
        with open(path, "w") as f:
            json.dump(report, f)
        return path

    def by_round(self, name, files):
        """A command that copies files[round] (else files[0]) to {report}; the round read from the report's name."""
        script = self.path(name + ".sh")
        with open(script, "w") as f:
            f.write('case "$(basename "$1")" in\n')
            for round_no, path in files.items():
                if round_no:
                    f.write(f"  round{round_no:02}-*) cp {shlex.quote(path)} \"$1\" ;;\n")
            f.write(f"  *) cp {shlex.quote(files[0])} \"$1\" ;;\nesac\n")
        return f"sh {shlex.quote(script)} {{report}}"


class FailsClosed(Gate):
    def test_a_case_missing_or_skipped_in_one_round_fails_closed(self):
        # The 16 B out-of-place case is 3 times slower, and absent (or skipped) in round 5's candidate run: the gate
        # used to call it UNKNOWN and pass (exit 0).
        base = self.report("base.json")
        slow = self.report("slow.json", slow={2: 3.0})

        def drop(report):
            del report["records"][2]

        def skip(report):
            report["records"][2]["status"] = "skipped"
            report["records"][2]["skip_reason"] = "not enough memory"

        for what, edit in (("missing", drop), ("skipped", skip)):
            with self.subTest(what):
                gap = self.report(f"{what}.json", slow={2: 3.0}, edit=edit)
                r = compare("--run-baseline", f"cp {base} {{report}}",
                            "--run-candidate", self.by_round(what, {0: slow, 5: gap}),
                            "--rounds", "8", "--runs-dir", self.path(f"runs-{what}"))
                self.assertEqual(r.returncode, 7, r.stdout + r.stderr)
                self.assertEqual(error_lines(r.stderr), [
                    "error: the gate could not judge: 1 case was not measured in every round: 16 B out-of-place (not "
                    "in round 5's candidate run); measure again (a case skipped in one round, e.g. by a memory check, "
                    "may be skipped where it regressed)"])
                self.assertIn("16 B out-of-place", r.stdout)
                self.assertIn("warning: 1 case could not be paired or tested; see each case's reason", r.stderr)
                # --allow-missing passes cases the candidate never measured, not a round's gap
                r = compare("--run-baseline", f"cp {base} {{report}}",
                            "--run-candidate", self.by_round(what, {0: slow, 5: gap}),
                            "--rounds", "8", "--allow-missing", "--runs-dir", self.path(f"runs-{what}-allowed"))
                self.assertEqual(r.returncode, 7, r.stdout + r.stderr)

    def test_wrong_elements_on_either_side_fail_closed_in_both_modes(self):
        base = self.report("base.json")

        def wrong(report):
            for rec in report["records"]:
                rec["metrics"]["wrong"] = 1000

        bad = self.report("wrong.json", edit=wrong)
        named = ("8 B out-of-place (1000 wrong), 8 B in-place (1000 wrong), 16 B out-of-place (1000 wrong) and 5 more "
                 "cases")
        rows = [
            ("reports, candidate", [base, bad], f"error: candidate run 1 counts wrong elements: {named}"),
            ("reports, baseline", [bad, base], f"error: baseline 1 counts wrong elements: {named}"),
            ("interleaved, candidate", ["--run-baseline", f"cp {base} {{report}}", "--run-candidate",
                                        f"cp {bad} {{report}}", "--runs-dir", self.path("runs-c")],
             f"error: candidate run 1 counts wrong elements: {named}"),
            ("interleaved, baseline", ["--run-baseline", f"cp {bad} {{report}}", "--run-candidate",
                                       f"cp {base} {{report}}", "--runs-dir", self.path("runs-b")],
             f"error: baseline run 1 counts wrong elements: {named}"),
        ]
        for what, args, line in rows:
            with self.subTest(what):
                r = compare(*args)
                self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertTrue(lines[0].startswith(line), lines[0])
                self.assertEqual(r.stdout, "")

    def test_a_runs_corrupt_report_exits_7(self):
        base = self.report("base.json")
        runs = self.path("runs")
        r = compare("--run-baseline", f"cp {base} {{report}}", "--run-candidate",
                    "printf '{\"schema_version\": 2, ' > {report}", "--rounds", "8", "--runs-dir", runs)
        self.assertEqual(r.returncode, 7, r.stderr)
        lines = error_lines(r.stderr)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith(f"error: round 1's candidate run wrote a report the gate cannot read: "
                                            f"report '{runs}/round01-candidate.json': malformed distbench report"),
                        lines[0])

    def test_numeric_options_have_bounds(self):
        base = self.report("base.json")
        for option, value, line in (
                ("--run-timeout", "1e10", "error: --run-timeout: 1e10 is more than 1e+06 seconds; give at most "
                 "1e+06; see 'distbench compare --help'"),
                ("--floor-us", "1e300", "error: --floor-us: 1e300 is more than 1e+09 microseconds; give at most "
                 "1e+09; see 'distbench compare --help'")):
            with self.subTest(option):
                runs = self.path(f"runs{option}")
                r = compare("--run-baseline", f"cp {base} {{report}}", "--run-candidate", f"cp {base} {{report}}",
                            option, value, "--runs-dir", runs)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(error_lines(r.stderr), [line])
                self.assertFalse(os.path.exists(runs), "something ran")
        r = compare(base, base, "--candidates", "100000")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(error_lines(r.stderr), ["error: --candidates: 100000 is not a whole number from 1 to 10000; "
                                                 "see 'distbench compare --help'"])
        # The largest timeout is a deadline like any other: the runs end in time and are judged.
        r = compare("--run-baseline", f"cp {base} {{report}}", "--run-candidate", f"cp {base} {{report}}",
                    "--run-timeout", "1e6", "--rounds", "8", "--runs-dir", self.path("runs"))
        self.assertEqual(r.returncode, 0, r.stderr)


class RunsAreContained(Gate):
    def test_a_runs_dir_named_as_shell_code_runs_nothing(self):
        # The probe's runs folder: spliced into an inner shell's text, its name ran `touch PWNED`.
        base = self.report("base.json")
        r = compare("--run-baseline", f"sh -c 'cp {base} {{report}}'", "--run-candidate",
                    f"sh -c \"cp {base} {{report}}\"", "--rounds", "8", "--runs-dir", "x;touch PWNED;y", cwd=self.dir)
        self.assertFalse(os.path.exists(self.path("PWNED")), "the runs folder's name ran as a command")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(error_lines(r.stderr), [
            "error: --runs-dir x;touch PWNED;y: a runs' folder may hold letters, digits and _ @ % + = : , . / - only "
            "(the report's path reaches each command as $DISTBENCH_REPORT, and a shell inside a shell could read "
            "other characters as code); name another with --runs-dir"])
        self.assertFalse(os.path.exists(self.path("x;touch PWNED;y")))

    def test_a_daemon_a_run_leaves_is_gone_after_the_run(self):
        base = self.report("base.json")
        pids = self.path("daemons")
        r = compare("--run-baseline", f"cp {base} {{report}}; setsid sleep 1000 & echo $! >> {pids}",
                    "--run-candidate", f"cp {base} {{report}}", "--rounds", "8", "--runs-dir", self.path("runs"))
        with open(pids) as f:
            self.leftovers = [int(line) for line in f]
        self.assertEqual(len(self.leftovers), 8)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([pid for pid in self.leftovers if running(pid)], [], "setsid daemons outlived their runs")
        self.assertIn("; 1 process it left running ended", r.stderr)

    def test_a_run_that_times_out_under_mpirun_leaves_no_rank(self):
        # On its deadline the run gets SIGTERM, and mpirun the seconds it needs to end its ranks (each in a process
        # group of its own): the gate used to SIGKILL mpirun as soon as the shell ended, and the ranks ran on.
        runs = self.path("runs")
        report = os.path.join(runs, "round01-baseline.json")
        r = compare("--run-baseline", shlex.join(MPIRUN + ["-np", "2", BINARY, *ENDLESS]), "--run-candidate", "true",
                    "--rounds", "8", "--run-timeout", "3", "--runs-dir", runs, timeout=120)
        self.leftovers = holders(report)
        self.assertEqual(r.returncode, 7, r.stderr)
        self.assertTrue(error_lines(r.stderr)[0].startswith("error: round 1's baseline run outlived its 3 s deadline "
                                                            "(--run-timeout)"), r.stderr)
        # Nothing is left when compare returns: the keeper reaps every process of the run before it ends.
        self.assertEqual(self.leftovers, [], "mpirun or ranks outlived the run")
        # The ranks had their SIGTERM: the report says the run was interrupted.
        self.assertEqual(load_json(report)["status"], "interrupted")

    def test_sigkill_of_compare_leaves_nothing_of_its_run(self):
        runs = self.path("runs")
        report = os.path.join(runs, "round01-baseline.json")
        daemon = self.path("daemon.pid")
        command = f"setsid sleep 1000 & echo $! > {daemon}; " + shlex.join(MPIRUN + ["-np", "2", BINARY, *ENDLESS])
        proc = subprocess.Popen([BINARY, "compare", "--run-baseline", command, "--run-candidate", "true",
                                 "--runs-dir", runs], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(holders(report)) < 3 and time.monotonic() < deadline:  # mpirun and its two ranks
            time.sleep(0.1)
        with open(daemon) as f:
            self.leftovers = [int(f.read())] + holders(report)
        self.assertEqual(len(self.leftovers), 4, "the run never started")
        proc.kill()
        proc.wait(timeout=30)
        self.assertEqual(gone_within(lambda: holders(report) + [p for p in self.leftovers if running(p)], 10), [],
                         "the run outlived compare")

    def test_a_huge_output_costs_compare_nothing(self):
        # 100 MB without a newline, then a failure: compare reads the output's last line, once the whole of it.
        runs = self.path("runs")
        proc = subprocess.Popen([BINARY, "compare", "--run-baseline", "head -c 100000000 /dev/zero | tr '\\000' x; "
                                 "exit 1", "--run-candidate", "true", "--rounds", "8", "--runs-dir", runs],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err = proc.stderr.read()
        proc.stderr.close()
        _, status, usage = os.wait4(proc.pid, 0)  # the peak of compare and of every process it waited for
        proc.returncode = os.waitstatus_to_exitcode(status)
        self.assertEqual(proc.returncode, 7, err)
        self.assertLess(usage.ru_maxrss, 64 * 1024, f"peak resident memory {usage.ru_maxrss} KiB")  # (KiB)
        self.assertIn("error: round 1's baseline run exited with status 1", err)
        log = os.path.join(runs, "round01-baseline.log")
        self.assertLess(os.path.getsize(log), 2 * 1024 * 1024 + 512)
        with open(log, "rb") as f:
            text = f.read()
        self.assertIn(b"[... 97902848 bytes of output dropped here by distbench compare: the log keeps the first "
                      b"1048576 and the last 1048576 bytes ...]", text)
        self.assertTrue(text.startswith(b"x" * 1048576))
        self.assertTrue(text.endswith(b"x" * 1048576))


if __name__ == "__main__":
    unittest.main(verbosity=2)
