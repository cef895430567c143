#!/usr/bin/env python3
"""End-to-end tests of what a user sees while a run goes on and when it ends: the progress line (in a
pseudo-terminal, alone and under mpirun), interruption by a signal, reports to stdout, the single-process hint, the
table's optional columns, the summary per datatype and operator, and each verdict said once.

Environment: DISTBENCH (path of the binary).
"""
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import Workdir, error_lines, load_json, wait_for_results  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "mpi_yield_when_idle", "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]


def mpirun(np, *args, timeout=120):
    return subprocess.run(MPIRUN + ["-np", str(np), BINARY, *args], capture_output=True, text=True, timeout=timeout)


def single(*args, timeout=60):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout)


def in_terminal(argv, limit=60, interrupt_after=None):
    """Runs argv with a pseudo-terminal as its stdin, stdout and stderr (a terminal user's view); returns (every
    byte written to the terminal, the exit code). With interrupt_after, types Ctrl-C after that many seconds."""
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    out = b""
    began = time.monotonic()
    typed = False
    while time.monotonic() - began < limit:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            out += data
        if interrupt_after is not None and not typed and time.monotonic() - began > interrupt_after:
            os.write(fd, b"\x03")
            typed = True
    else:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return out.decode(errors="replace"), os.waitstatus_to_exitcode(status)


def screen(raw):
    """The lines a terminal shows after `raw`: carriage returns move to the line's start, ESC[K erases to its end."""
    lines = []
    for text in raw.replace("\r\n", "\n").split("\n"):
        line, col, i = [], 0, 0
        while i < len(text):
            if text[i] == "\r":
                col = 0
            elif text.startswith("\x1b[K", i):
                del line[col:]
                i += 3
                continue
            else:
                if col < len(line):
                    line[col] = text[i]
                else:
                    line.append(text[i])
                col += 1
            i += 1
        lines.append("".join(line))
    return lines


def table_rows(lines):
    """The table's data lines: two spaces, then a size."""
    return [line for line in lines if line.startswith("  ") and line.split() and line.split()[0].isdigit()]


class Progress(Workdir):
    # Each case samples for exactly --max-time seconds, long enough to be shown: the noise target is judged only
    # after 10^6 samples, and a sample is 0.5 ms of operations (10^4 of them when they are faster): 10^6 samples
    # take far longer than the budget. (A target alone is not enough: one process's in-place allreduce moves
    # nothing, its samples can all be equal, and a 0.0001% target was then met at once, so the case ended before the
    # live line was due: a failed CI run.)
    SLOW = ["--max-noise", "0.0001%", "--min-samples", "1000000"]

    def test_live_line_at_a_terminal_is_erased_before_each_row(self):
        raw, code = in_terminal([BINARY, "allreduce", "-b", "1K", "-e", "2K", "--placement", "in-place",
                                 *self.SLOW, "--max-time", "2.5"])
        self.assertEqual(code, 0, raw)
        self.assertIn("\r\x1b[K[1/2] allreduce 1 KiB float32 sum in-place", raw)
        self.assertIn("[2/2] allreduce 2 KiB", raw)
        shown = screen(raw)
        rows = table_rows(shown)
        self.assertEqual([row.split()[0] for row in rows], ["1024", "2048"], "\n".join(shown))
        for line in shown:  # nothing of the live line is left on the screen, in front of a row or anywhere
            self.assertNotIn("since the start", line, "\n".join(shown))
        for row in rows:
            float(row.split()[5])  # the time column is a number

    def test_under_mpirun_a_slow_case_gets_a_plain_line_on_stderr(self):
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "1K", "--placement", "in-place", *self.SLOW, "--max-time", "7")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [line for line in r.stderr.splitlines() if line.startswith("progress:")]
        self.assertEqual(len(lines), 1, r.stderr)  # after 5 s, once (the next would come 30 s later)
        self.assertRegex(lines[0], r"^progress: \[1/1\] allreduce 1 KiB float32 sum in-place: [5-9] s \(\d+ s since "
                                   r"the start\) and still running$")
        self.assertNotIn("progress", r.stdout)
        self.assertNotIn("\x1b", r.stdout + r.stderr)  # not a terminal: no escape codes
        self.assertEqual(len(table_rows(r.stdout.splitlines())), 1)

    def test_under_mpirun_in_a_terminal_rows_stay_whole(self):
        raw, code = in_terminal(MPIRUN + ["-np", "2", BINARY, "allreduce", "-b", "1K", "-e", "1K", "--placement",
                                          "in-place", *self.SLOW, "--max-time", "6"])
        self.assertEqual(code, 0, raw)
        shown = screen(raw)
        self.assertEqual(len([line for line in shown if line.startswith("progress: [1/1]")]), 1, raw)
        rows = table_rows(shown)
        self.assertEqual(len(rows), 1, raw)
        self.assertEqual(rows[0].split()[:5], ["1024", "256", "float", "sum", "-1"])

    def test_on_says_every_case_and_off_nothing(self):
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "4K", "-n", "3", "--progress", "on")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [line for line in r.stderr.splitlines() if line.startswith("progress:")]
        self.assertEqual([line.split()[1] for line in lines], ["[1/3]", "[2/3]", "[3/3]"], r.stderr)
        raw, code = in_terminal([BINARY, "allreduce", "-b", "1K", "-e", "1K", "--progress", "off", *self.SLOW,
                                 "--max-time", "1.5"])
        self.assertEqual(code, 0, raw)
        self.assertNotIn("[1/1]", raw)
        r = mpirun(2, "allreduce", "-n", "3", "--progress", "sometimes")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)
        self.assertIn("--progress", r.stderr)


class Interruption(Workdir):
    def sweep(self, report):
        return ["allreduce", "-b", "1K", "-e", "1M", "--max-noise", "0.0001%", "--max-time", "0.5", "--json", report]

    def test_signals_mark_the_report_interrupted_and_keep_finished_cases(self):
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            report = self.path(f"{sig.name}.json")
            proc = subprocess.Popen([BINARY, *self.sweep(report)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            wait_for_results(self, report, 2, proc)
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=30)
            self.assertEqual(proc.returncode, code, err)
            data = load_json(report)
            self.assertEqual(data["status"], "interrupted")
            self.assertEqual(data["signal"], int(sig))
            self.assertIn(f"interrupted by signal {int(sig)} ({sig.name}) during allreduce", data["error"])
            self.assertGreaterEqual(len(data["records"]), 2)
            self.assertTrue(all(r["status"] == "ok" for r in data["records"]))
            self.assertIn("# Interrupted: interrupted by signal", out)

    def test_ctrl_c_to_mpirun_in_a_terminal(self):
        report = self.path("mpirun.json")
        # mpirun's 1 s between SIGTERM and SIGKILL can pass before a loaded 2-core machine schedules the root to mark
        # its report (a run under load saw 'incomplete'): 3 s, as docs/reports.md advises for loaded machines
        raw, code = in_terminal(MPIRUN + ["--mca", "odls_base_sigkill_timeout", "3", "-np", "2", BINARY,
                                          *self.sweep(report)], interrupt_after=4)
        self.assertNotEqual(code, 0, raw)
        data = load_json(report)
        self.assertEqual(data["status"], "interrupted", raw)
        # mpirun ends its ranks with SIGTERM whatever it was sent
        self.assertEqual(data["signal"], int(signal.SIGTERM))
        self.assertGreaterEqual(len(data["records"]), 1)
        # The footer may not reach the terminal: mpirun stops relaying its ranks' output once it ends the job. The
        # report, written by the root before it exits, is what keeps the word.


class ReportsToStdout(Workdir):
    def test_json_to_stdout_with_the_table_on_stderr(self):
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "4K", "-n", "3", "--json", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)  # stdout is the report and nothing else
        self.assertEqual(report["status"], "complete")
        self.assertEqual(len(report["records"]), 6)
        self.assertEqual(len(table_rows(r.stderr.splitlines())), 3, r.stderr)
        self.assertFalse(os.path.exists("-"))

    def test_quiet_leaves_only_the_report(self):
        csv_path = self.path("r.csv")
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "4K", "-n", "3", "--json", "-", "--csv", csv_path, "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["status"], "complete")
        self.assertEqual(table_rows(r.stderr.splitlines()), [])
        self.assertNotIn("#", r.stderr)
        with open(csv_path) as f:
            self.assertEqual(len(f.read().splitlines()), 7)
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "1K", "-n", "3", "-q")
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)

    def test_csv_and_markdown_to_stdout(self):
        r = mpirun(2, "broadcast", "-b", "1K", "-e", "2K", "-n", "3", "--csv", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith("collective,"), r.stdout)
        self.assertEqual(len(lines), 1 + 4)
        r = mpirun(2, "broadcast", "-b", "1K", "-e", "2K", "-n", "3", "--md", "-", "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("## distbench broadcast"), r.stdout)
        self.assertIn("**Status:** complete", r.stdout)

    def test_two_reports_cannot_share_stdout(self):
        r = mpirun(2, "allreduce", "--json", "-", "--csv", "-")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(error_lines(r.stderr), ["error: --json and --csv both go to stdout ('-'), where only one "
                                                 "report can go; write the others to files"])
        self.assertEqual(r.stdout, "")


class SingleProcessHint(unittest.TestCase):
    def test_a_process_without_a_launcher_is_told_how_to_start_several(self):
        r = single("allreduce", "-b", "1K", "-e", "1K", "-n", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        hints = [line for line in r.stderr.splitlines() if line.startswith("hint:")]
        self.assertEqual(len(hints), 1, r.stderr)
        self.assertIn("mpirun -np N", hints[0])
        self.assertIn("srun -n N", hints[0])
        r = mpirun(1, "allreduce", "-b", "1K", "-e", "1K", "-n", "3")  # one rank, asked for: no hint
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("hint:", r.stderr)


class Table(Workdir):
    def test_columns_add_statistics_of_the_samples(self):
        md = self.path("t.md")
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "2K", "-n", "7", "--columns", "median,p99,noise,samples",
                   "--md", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        header = next(line for line in r.stdout.splitlines() if "#wrong" in line)
        # nccl-tests' columns first, distbench's after them, per placement (docs/collectives.md)
        self.assertEqual(header.split()[-16:], ["time", "algbw", "busbw", "#wrong"] * 2
                         + ["median", "p99", "noise", "samples"] * 2)
        for row in table_rows(r.stdout.splitlines()):
            cells = row.split()
            self.assertEqual(cells[16], "7")  # out-of-place samples
            self.assertEqual(cells[-1], "7")  # in-place samples
            self.assertLessEqual(float(cells[13]), float(cells[14]))  # median <= p99
        with open(md) as f:
            self.assertIn("median (us)", f.read())
        r = mpirun(2, "allreduce", "-n", "3", "--columns", "median,mode")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--columns mode", error_lines(r.stderr)[0])
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "1K", "-n", "3", "--columns", "all")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("samples", r.stdout)

    def test_a_summary_per_datatype_and_operator(self):
        js = self.path("s.json")
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "2K", "-n", "3", "-d", "float32,int32", "-o", "sum,max",
                   "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        footer = [line for line in r.stdout.splitlines() if line.startswith(("# Avg bus bandwidth", "# Average busbw"))]
        self.assertEqual([line.split(":")[0] for line in footer],
                         ["# Avg bus bandwidth    ", "# Average busbw, float32 sum", "# Average busbw, float32 max",
                          "# Average busbw, int32 sum", "# Average busbw, int32 max"])
        summary = load_json(js)["summary"]
        for key in ("avg_busbw_gbps", "avg_busbw_gbps.float32.sum", "avg_busbw_gbps.int32.max"):
            self.assertGreater(summary[key], 0)
        self.assertIn("# Out of bounds values : 0 OK", r.stdout)
        r = mpirun(2, "allgather", "-b", "1K", "-e", "1K", "-n", "3")  # one kind: one line
        self.assertEqual(len([line for line in r.stdout.splitlines() if line.startswith("# Avg bus")]), 1)

    def test_a_missed_noise_target_is_said_once_and_marked(self):
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "2K", "--max-noise", "0.0001%", "--max-time", "0.2",
                   "--min-samples", "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        said = [line for line in (r.stdout + r.stderr).splitlines() if "noise target" in line.lower()]
        self.assertEqual(len(said), 1, r.stdout + r.stderr)
        self.assertTrue(said[0].startswith("warning:"))
        self.assertIn("marked *", said[0])
        for row in table_rows(r.stdout.splitlines()):
            self.assertTrue(row.split()[13].endswith("*"), row)  # the out-of-place noise cell, after nccl-tests

    def test_a_timeout_is_said_once(self):
        r = mpirun(2, "allreduce", "-b", "64M", "-e", "64M", "-n", "3", "-T", "0.01")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertNotIn("nothing measured", r.stdout)
        self.assertNotIn("Out of bounds", r.stdout)
        self.assertEqual(len([line for line in r.stdout.splitlines() if "did not finish" in line]), 1, r.stdout)
        self.assertNotIn("warning:", r.stderr)



class Verdicts(Workdir):
    """A verdict is not a crash: the ranks finalize and exit with the verdict's code, so `mpirun -q` (README's way)
    passes the code on without Open MPI's banner about a process that returned non-zero."""

    def test_a_bandwidth_floor_under_mpirun_q_keeps_its_code_without_the_banner(self):
        r = subprocess.run(MPIRUN + ["-q", "-np", "2", BINARY, "allreduce", "-b", "64", "-e", "64", "-n", "3", "-w",
                                     "1", "--min-busbw", "1000000"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 6, r.stdout + r.stderr)
        self.assertIn("# Bandwidth floor: FAILED", r.stdout)
        for banner in ("Primary job", "mpirun detected", "---------"):
            self.assertNotIn(banner, r.stdout + r.stderr)
        # without -q the same verdict comes with the banner (what -q is for)
        r = mpirun(2, "allreduce", "-b", "64", "-e", "64", "-n", "3", "-w", "1", "--min-busbw", "1000000")
        self.assertEqual(r.returncode, 6, r.stdout + r.stderr)
        self.assertIn("mpirun detected", r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
