#!/usr/bin/env python3
"""End-to-end tests of `distbench history`: the database under writers in eight processes at once and under a writer
killed mid-way (SIGKILL, at several moments), a schema from the future and other files refused, bad input (exit 2, one
line, nothing written), a lock held past --lock-timeout, the browsing commands, and `history check`'s exit codes.

The reports are written here from reports/example.json (its samples and medians scaled), so that no run of MPI is
needed and the test takes a few seconds. The check's verdicts: exit 0 on an A/A history, 1 on a slowed one, 7 on a
history too short, 8 when its view cannot be written.

Environment: DISTBENCH (path of the binary), DISTBENCH_SOURCE_ROOT (the source tree).
"""
import copy
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import Workdir, error_lines, load_json  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
SOURCE_ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = load_json(os.path.join(SOURCE_ROOT, "reports", "example.json"))
CASES = sum(1 for r in EXAMPLE["records"] if r["status"] == "ok")
TIME_KEYS = ("median", "mean", "min", "max", "p99", "median_ci_low", "median_ci_high")


def history(*args, timeout=60):
    return subprocess.run([BINARY, "history", *args], capture_output=True, text=True, timeout=timeout)


class History(Workdir):
    def report(self, name, index=0, factor=1.0, noise=0.01, wrong=None, status="complete"):
        """A copy of the example report as run `index` (its start time a minute per index later), every time scaled
        by `factor` and by a seeded noise of +-`noise`; `wrong` {record index: count}; its path."""
        rng = random.Random(f"{name}-{index}")
        r = copy.deepcopy(EXAMPLE)
        r["start_time"] = f"2026-11-{1 + index // 1440:02}T{index // 60 % 24:02}:{index % 60:02}:00Z"
        r["status"] = status
        for i, rec in enumerate(r["records"]):
            scale = factor * (1 + noise * (2 * rng.random() - 1))
            for phase in rec["phases"]:
                phase["samples_us"] = [s * scale for s in phase["samples_us"]]
                for key in TIME_KEYS:
                    phase["time_us"][key] *= scale
            if wrong and i in wrong:
                rec["metrics"]["wrong"] = wrong[i]
        path = self.path(name)
        with open(path, "w") as f:
            json.dump(r, f)
        return path

    def reports(self, prefix, count, **kw):
        return [self.report(f"{prefix}{i:03}.json", index=i, **kw) for i in range(count)]

    def ingest(self, db, *files, ok=True):
        p = history("ingest", db, *files)
        if ok:
            self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def assert_refused(self, p, code=2, says=""):
        """Exit `code` and exactly one error line (saying `says`)."""
        self.assertEqual(p.returncode, code, p.stdout + p.stderr)
        lines = error_lines(p.stderr)
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(says, lines[0])

    def stored(self, db):
        """Each run's (content hash, points) from the file itself."""
        with sqlite3.connect(db) as c:
            if not c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'runs'").fetchone()[0]:
                return []  # a writer killed before the schema was made: an empty file
            return c.execute("SELECT r.content_hash, (SELECT count(*) FROM points p WHERE p.run = r.id) "
                             "FROM runs r ORDER BY r.id").fetchall()


class Writers(History):
    def test_eight_writers_at_once_store_every_run_once(self):
        files = self.reports("r", 24)
        db = self.path("h.db")
        # Each process takes four files; neighbours share one, which must then be stored once.
        procs = [subprocess.Popen([BINARY, "history", "ingest", db, *files[3 * k:3 * k + 4]],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(8)]
        for p in procs:
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err)
        runs = self.stored(db)
        self.assertEqual(len(runs), 24)
        self.assertEqual(len({h for h, _ in runs}), 24)
        self.assertTrue(all(points == CASES for _, points in runs), runs)

    def test_a_killed_writer_leaves_whole_runs_and_a_sound_file(self):
        files = self.reports("r", 60)
        db = self.path("h.db")
        for delay in (0.05, 0.15, 0.3, 0.5):
            with self.subTest(delay=delay):
                p = subprocess.Popen([BINARY, "history", "ingest", db, *files], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                time.sleep(delay)
                p.send_signal(signal.SIGKILL)
                p.wait(timeout=30)
                if not os.path.exists(db):
                    continue  # killed while it read the files: nothing written, as it should be
                with sqlite3.connect(db) as c:
                    self.assertEqual(c.execute("PRAGMA integrity_check").fetchone()[0], "ok")
                self.assertTrue(all(points == CASES for _, points in self.stored(db)), self.stored(db))
        self.ingest(db, *files)
        self.assertEqual(len(self.stored(db)), 60)

    def test_a_lock_held_past_the_timeout_is_one_clear_error(self):
        db = self.path("h.db")
        self.ingest(db, self.report("a.json"))
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            p = history("ingest", db, self.report("b.json", index=1), "--lock-timeout", "0.3")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        self.assert_refused(p, code=1, says="stayed locked by another process for 0.3 s")
        self.ingest(db, self.path("b.json"))  # and once it is free, the run goes in
        self.assertEqual(len(self.stored(db)), 2)


class Refusals(History):
    def test_a_schema_from_the_future_is_refused(self):
        db = self.path("h.db")
        self.ingest(db, self.report("a.json"))
        with sqlite3.connect(db) as c:
            c.execute("PRAGMA user_version = 99")
        for args in (("list", db), ("ingest", db, self.report("b.json", index=1)), ("check", db)):
            with self.subTest(args[0]):
                self.assert_refused(history(*args), says="schema version 99")
        with sqlite3.connect(db) as c:
            self.assertEqual(c.execute("SELECT count(*) FROM runs").fetchone()[0], 1)

    def test_bad_input_is_one_line_and_writes_nothing(self):
        good = self.report("good.json")
        db = self.path("h.db")
        foreign = self.path("foreign.db")
        with sqlite3.connect(foreign) as c:
            c.execute("CREATE TABLE t (x)")
        text_db = self.path("text.db")
        with open(text_db, "w") as f:
            f.write("not a database at all, and long enough to be read as a header\n" * 4)
        garbage = self.path("garbage.json")
        with open(garbage, "w") as f:
            f.write('{"schema_version": 4, "tool": ')
        no_name = self.path("rows.log")
        with open(no_name, "w") as f:
            f.write("  1024  256  float  sum  -1  10.0  0.1  0.1  0  11.0  0.1  0.1  0\n")
        cases = [
            ("a foreign database", ("list", foreign), "another application"),
            ("a text file as the history", ("ingest", text_db, good), "not a distbench history"),
            ("a malformed report", ("ingest", db, good, garbage), "garbage.json"),
            ("a run that did not complete", ("ingest", db, self.report("cut.json", status="interrupted")),
             "did not complete"),
            ("a missing input", ("ingest", db, self.path("absent.json")), "absent.json"),
            ("nccl-tests' rows without the collective", ("ingest", db, no_name), "--collective NAME"),
            ("a lock timeout of 0", ("ingest", db, good, "--lock-timeout", "0"), "--lock-timeout"),
            ("a missing history", ("list", self.path("absent.db")), "absent.db"),
            ("a window of 0", ("check", db, "--window", "0"), "--window"),
            ("an unknown metric", ("check", db, "--metric", "speed"), "--metric"),
            ("a filter that does not read", ("show", db, "--filter", "bytes"), "--filter"),
        ]
        for what, args, says in cases:
            with self.subTest(what):
                self.assert_refused(history(*args), says=says)
        self.assertFalse(os.path.exists(db))  # nothing above made the history
        with sqlite3.connect(foreign) as c:
            self.assertEqual(c.execute("PRAGMA user_version").fetchone()[0], 0)


class Browse(History):
    def test_list_runs_show_and_export(self):
        db = self.path("h.db")
        files = self.reports("r", 3)
        self.ingest(db, *files[:2], "--commit", "abc123")
        again = self.ingest(db, files[1], files[2])
        self.assertIn("already in the history", again.stdout)
        self.assertEqual(len(self.stored(db)), 3)

        listed = history("list", db)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn("allreduce 8 B out-of-place", listed.stdout)
        self.assertIn("AMD EPYC / cpu (host memory) | collective | mpi | np 2", listed.stdout)
        series = json.loads(history("list", db, "--format", "json").stdout)["series"]
        self.assertEqual(len(series), CASES)
        self.assertTrue(all(s["runs"] == 3 for s in series))

        runs = json.loads(history("runs", db, "--format", "json").stdout)["runs"]
        self.assertEqual([r["commit"] for r in runs], ["abc123", "abc123", ""])
        self.assertEqual([r["label"] for r in runs], ["r000.json", "r001.json", "r002.json"])

        shown = history("show", db, series[0]["key"])
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(sum(1 for line in shown.stdout.splitlines() if line.strip().startswith("run ")), 3)
        filtered = history("show", db, "--filter", "bytes>=32K,placement=in-place")
        self.assertEqual(filtered.returncode, 0, filtered.stderr)
        self.assertNotIn("out-of-place", filtered.stdout)

        csv = history("export", db)
        self.assertEqual(len(csv.stdout.splitlines()), 1 + 3 * CASES)
        out = self.path("export.json")
        p = history("export", db, "--format", "json", "--output", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        exported = load_json(out)
        self.assertEqual(len(exported["runs"]), 3)
        self.assertEqual(sum(len(s["points"]) for s in exported["series"]), 3 * CASES)
        self.assert_refused(history("export", db, "--output", db), says="--output")


class Check(History):
    def test_wrong_elements_in_the_newest_run_exit_3(self):
        db = self.path("h.db")
        self.ingest(db, *self.reports("r", 6))
        self.ingest(db, self.report("bad.json", index=7, wrong={0: 5}))
        self.assert_refused(history("check", db), code=3, says="wrong elements")

    def test_verdicts_exit_codes(self):
        same, slowed, short = self.path("same.db"), self.path("slowed.db"), self.path("short.db")
        self.ingest(same, *self.reports("a", 12))
        steady = self.reports("b", 7)
        slow = [self.report(f"b{i:03}.json", index=i, factor=1.5) for i in range(7, 12)]
        self.ingest(slowed, *steady, *slow)
        self.ingest(short, *self.reports("c", 3))
        p = history("check", same)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        p = history("check", slowed)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("SLOWER", p.stdout)
        # the same verdict with its view written by -o, and with nowhere to write it: a failure (8), never 1
        p = history("check", slowed, "--format", "markdown", "-o", self.path("check.md"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertTrue(p.stdout.startswith("REGRESSION: "), p.stdout)
        with open("/dev/full", "w") as full:
            p = subprocess.run([BINARY, "history", "check", slowed], stdout=full, stderr=subprocess.PIPE, text=True,
                               timeout=60)
        self.assertEqual(p.returncode, 8, p.stderr)
        self.assertEqual(len(error_lines(p.stderr)), 1, p.stderr)
        self.assertIn("cannot write to standard output", p.stderr)
        p = history("check", short)
        self.assertEqual(p.returncode, 7, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
