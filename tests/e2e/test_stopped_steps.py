#!/usr/bin/env python3
"""A rank stopped (SIGSTOP) at every kind of step, root and not: the job ends within -T plus a stated slack, the
report says which kind of step did not finish, and no process of the job is left.

How a stop lands on a kind of step, with nothing added to the product for it: the rank to stop starts as a shell that
stops itself before it becomes distbench (`sh -c 'kill -STOP $$; exec distbench ...'`, one context of an MPMD
mpirun); gdb attaches to it, breaks on distbench::Watchdog::arm where its kind argument (StepKind, the second integer
argument: %esi) is the kind asked for, skips the first occurrences where the case says so, lets arm() return (the
step is armed, its wait comes next), queues SIGSTOP and detaches: the rank stops inside the step. gdb's own output
names the step it stopped at (its description, read from arm()'s last argument, %rcx), so each row of the table below is known
to have been hit, and where; the step kinds' numbers are read from src/core/sys/watchdog.hpp.

Environment: DISTBENCH (the binary), DISTBENCH_SOURCE_ROOT. Skips, saying why, without gdb or ptrace.
DISTBENCH_STOPPED_STEPS=all runs the whole table (every case on the root and on another rank, 63 jobs); =name,name
those cases only, on both; unset, the CI's share (16 jobs). Jobs run two at a time.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import SANITIZERS, SKIP, load_json, run_concurrently, running  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
SOURCE_ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
# mpirun gives a rank 1 s between SIGTERM and SIGKILL (odls_base_sigkill_timeout); a stopped root, continued by it, was
# once not scheduled in that second on the loaded CI machine and left its report incomplete (sweep: finish (farewell)):
# 2 s (docs/reports.md: raise it on loaded machines) judge distbench rather than the scheduler; each case waits for
# mpirun's end, so every second here is a second per case.
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1",
          "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo", "--mca", "odls_base_sigkill_timeout", "2"]
NP = 2
TIMEOUT_S = 2
# From the stop to the last process gone: -T, the watchdog's polling (0.1 s), the root's report and mpirun ending the
# job (its SIGTERM, 2 s of grace, SIGKILL) on a loaded 2-core machine; health's phases add their own grace and the
# root's decision; under the sanitizers every step is several times slower.
SLACK_S = 9 if SANITIZERS else 6
# health bounds each phase itself (-T, then a grace of 1 s + 5 % of -T for the stragglers and three more for the
# root's decision); a rank that hears no decision from a stopped root ends without a verdict and gives the root 10 s to
# come back and write its own before it leaves (docs/health.md).
HEALTH_SLACK_S = SLACK_S + 4 * (1 + 0.05 * TIMEOUT_S) + 10
STOPPER = "kill -STOP $$; exec \"$0\" \"$@\""

SWEEP = ["allreduce", "-b", "1K", "-e", "4K", "-n", "5", "-w", "2"]
LATENCY = ["latency", "-b", "8", "-e", "64", "-n", "5"]
HEALTH = ["health", "--allreduce-bytes", "1M", "--memory-bytes", "16M"]
# the soak alone after the quick level's phases (gpu, rank, clock, drift, confirm): its 6th phase; bounded by its
# budget and -T
SOAK_S = 1
HEALTH_SOAK = HEALTH + ["--level", "quick", "--soak-seconds", str(SOAK_S)]
ZERO = ["zero", "--params", "64K", "--layers", "2", "--stage", "1", "--check", "-n", "3"]
TRAIN = ["train", "--layers", "2", "--hidden", "32", "--steps", "3", "--warmup", "1", "--check", "--overlap", "on"]
TP = ["tp", "--group-size", "2", "--op", "reduce", "--shape", "64x64", "--check", "-n", "3"]

# (name, command, kind, occurrence, ranks, ranks in CI): the occurrence-th step of that kind on the rank (1: the
# first), stopped on each of `ranks` when the whole table runs (DISTBENCH_STOPPED_STEPS=all) and on the CI's share
# otherwise (every kind of step once, on the root or another rank in turn, both for the farewell). A kind only the
# root takes (writing the report) is stopped on the root alone.
BOTH = (0, 1)
CASES = [
    ("sweep: setup", SWEEP, "setup", 1, BOTH, (0,)),
    ("sweep: setup (reports begun)", SWEEP, "setup", 5, BOTH, ()),
    ("sweep: warm-up", SWEEP, "warm-up", 2, BOTH, (1,)),
    ("sweep: calibration", SWEEP, "calibration", 2, BOTH, (0,)),
    ("sweep: barrier", SWEEP, "barrier", 2, BOTH, (1,)),
    ("sweep: sampling", SWEEP, "sampling", 2, BOTH, (0,)),
    ("sweep: verification", SWEEP, "verification", 2, BOTH, (1,)),
    ("sweep: check count", SWEEP, "check count", 2, BOTH, (0,)),
    ("sweep: gather", SWEEP, "gather", 3, BOTH, (1,)),
    ("sweep: report", SWEEP, "report", 2, (0,), (0,)),
    ("sweep: finish (farewell)", SWEEP, "finish", 1, BOTH, BOTH),
    ("sweep: finish (leaving)", SWEEP, "finish", 2, BOTH, (1,)),
    ("latency: verification", LATENCY, "verification", 2, BOTH, ()),
    ("latency: check count", LATENCY, "check count", 2, BOTH, ()),
    ("zero: zero step", ZERO, "zero step", 2, BOTH, (1,)),
    ("zero: check count", ZERO, "check count", 1, BOTH, ()),
    ("zero: gather", ZERO, "gather", 2, BOTH, ()),
    ("zero: report", ZERO, "report", 1, (0,), ()),
    ("train: train step", TRAIN, "train step", 1, BOTH, (0,)),
    ("train: check count", TRAIN, "check count", 1, BOTH, ()),
    ("train: barrier", TRAIN, "barrier", 1, BOTH, ()),
    ("tp: tp step", TP, "tp step", 1, BOTH, (1,)),
    ("tp: check count", TP, "check count", 1, BOTH, ()),
    ("tp: gather", TP, "gather", 1, BOTH, ()),
] + [(f"health: phase {i}", HEALTH, "health phase", i, BOTH, {7: (1,)}.get(i, ())) for i in range(1, 11)] + [
    ("health: finish (farewell)", HEALTH, "finish", 1, BOTH, (0,)),
    ("health: finish (leaving)", HEALTH, "finish", 2, BOTH, ()),
    ("health: soak", HEALTH_SOAK, "health phase", 6, BOTH, (1,)),
]


def step_kinds():
    """{kind's name: its number}, from the enum in src/core/sys/watchdog.hpp and step_kind_name in watchdog.cpp."""
    with open(os.path.join(SOURCE_ROOT, "src", "core", "sys", "watchdog.hpp")) as f:
        numbers = dict(re.findall(r"^\s+(\w+) = (\d+),", f.read(), re.M))
    with open(os.path.join(SOURCE_ROOT, "src", "core", "sys", "watchdog.cpp")) as f:
        names = dict(re.findall(r'case StepKind::(\w+): return "([^"]+)";', f.read()))
    return {names[key]: int(number) for key, number in numbers.items() if key in names}


def children(pid):
    """The processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def gdb_works():
    """Why gdb cannot stop a process here, or None."""
    if not shutil.which("gdb"):
        return "gdb is not installed (Debian: apt-get install gdb)"
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as f:
            if f.read().strip() not in ("0", "1") and os.geteuid() != 0:
                return "ptrace is restricted (kernel.yama.ptrace_scope) and this is not root"
    except OSError:
        pass
    return None


class StoppedSteps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kinds = step_kinds()
        cls.rows = []

    @classmethod
    def tearDownClass(cls):
        print("\n  stopped at          | rank | exit | failed_step   | s    | step (gdb)", file=sys.stderr)
        for row in cls.rows:
            print("  {:<19} | {:>4} | {:>4} | {:<13} | {:>4.1f} | {}".format(*row), file=sys.stderr)

    def launch(self, command, rank, report):
        argv = [BINARY, *command, "-T", str(TIMEOUT_S), "--json", report]
        contexts = []
        for r in range(NP):
            program = ["sh", "-c", STOPPER, *argv] if r == rank else argv
            contexts += ([":"] if contexts else []) + ["-np", "1", *program]
        return subprocess.Popen(MPIRUN + contexts, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    def stopped_shell(self, proc):
        """The pid of the rank that stopped itself before it became distbench; None if it never did."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            for pid in descendants(proc.pid):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        argv = f.read().split(b"\0")
                except OSError:
                    continue
                if argv[:2] == [b"sh", b"-c"] and state(pid) == "T":
                    return pid
            time.sleep(0.02)
        return None

    def stop_at(self, pid, kind, occurrence):
        """Runs the stopped rank with gdb until its `occurrence`-th step of `kind` is armed, and stops it there. Returns
        the step's description as gdb read it, or None with gdb's output when the rank never took that step."""
        number = self.kinds[kind]
        script = ["set pagination off", "set breakpoint pending on", "handle SIGSTOP nostop noprint nopass",
                  f"break distbench::Watchdog::arm if $edx == {number}", f"ignore 1 {occurrence - 1}", "continue",
                  'printf "STEP %s\\n", *(char**)$rcx', "finish", f"shell kill -STOP {pid}", "detach", "quit"]
        args = ["gdb", "-nx", "-batch", "-p", str(pid)]
        for line in script:
            args += ["-ex", line]
        out = subprocess.run(args, capture_output=True, text=True, timeout=120)
        steps = re.findall(r"^STEP (.*)$", out.stdout, re.M)
        return (steps[-1], "") if steps else (None, out.stdout + out.stderr)

    def run_case(self, name, command, kind, occurrence, rank):
        """One job with one rank stopped; what a check needs of it (no assertion here: cases run two at a time)."""
        bound = TIMEOUT_S + (HEALTH_SLACK_S if command in (HEALTH, HEALTH_SOAK) else SLACK_S)
        bound += SOAK_S if command is HEALTH_SOAK else 0
        out = {"name": name, "command": command, "kind": kind, "rank": rank, "bound": bound, "step": None,
               "why": "", "err": "", "took": 0.0, "left": [], "code": None, "report": None}
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "run.json")
            proc = self.launch(command, rank, report)
            try:
                shell = self.stopped_shell(proc)
                if shell is None:
                    out["why"] = "the rank to stop never stopped itself"
                    return out
                out["step"], out["why"] = self.stop_at(shell, kind, occurrence)
                if out["step"] is None:
                    return out
                stopped = time.monotonic()
                try:
                    _, out["err"] = proc.communicate(timeout=bound + 30)
                except subprocess.TimeoutExpired:
                    out["why"] = f"the job still ran {bound + 30} s after the stop"
                    return out
                out["took"] = time.monotonic() - stopped
                left = [p for p in descendants(proc.pid) if running(p)]
                while left and time.monotonic() < stopped + bound:
                    time.sleep(0.05)
                    left = [p for p in left if running(p)]
                out["left"] = left
            finally:
                os.killpg(proc.pid, signal.SIGKILL) if proc.poll() is None else None
                for p in descendants(proc.pid):
                    try:
                        os.kill(p, signal.SIGKILL)
                    except OSError:
                        pass
                proc.wait()
                if proc.stdout:
                    proc.stdout.close()
                if proc.stderr:
                    proc.stderr.close()
            out["code"] = proc.returncode
            if os.path.exists(report):
                out["report"] = load_json(report)  # parses: never half-written
        return out

    def check_case(self, r):
        name, kind, rank, err, step = r["name"], r["kind"], r["rank"], r["err"], r["step"]
        self.assertTrue(step, f"{name}: {r['why']}")
        self.assertFalse(r["why"], f"{name}: {r['why']}\n{err}")
        result = r["report"]
        self.rows.append((name[:19], rank, r["code"], (result.get("failed_step") or "-") if result else "(no report)",
                          r["took"], step))
        if os.environ.get("DISTBENCH_STOPPED_STEPS_VERBOSE"):
            print(f"\n{name} rank {rank}: {result and result['status']}: {result and result['error']}\n{err}",
                  file=sys.stderr)
        self.assertEqual(r["left"], [], f"{name}: processes left {r['bound']} s after the stop\n{err}")
        self.assertLess(r["took"], r["bound"], f"{name}: the job took {r['took']:.1f} s to end\n{err}")
        self.assertNotEqual(r["code"], 0, err)
        if result is None:
            # Stopped before the reports began (the job forming its world): nothing is written, and the ranks that
            # waited name their step.
            self.assertEqual(kind, "setup", f"{name}: no report\n{err}")
            self.assertEqual(r["code"], 4, f"{name}\n{err}")
            self.assertIn(f"did not finish within {TIMEOUT_S} s", err)
            return
        if result["status"] == "complete":
            # Stopped after the complete report was written (MPI's goodbye): the report keeps its word, and the job
            # still ends within the bound, by the watchdog of the ranks that waited, which name their step.
            self.assertIn("leaving the job", step, f"{name}: a complete report\n{err}")
            self.assertEqual(r["code"], 3 if r["command"] in (HEALTH, HEALTH_SOAK) else 4, f"{name}\n{err}")
            self.assertRegex(err, r"error: rank \d+ .*leaving the job .*did not finish within", err)
            return
        if kind == "health phase" or r["command"] in (HEALTH, HEALTH_SOAK):
            self.check_health(name, result, rank, err)
            return
        self.assertEqual(r["code"], 4, f"{name}\n{err}")
        self.assertEqual(result["status"], "failed", f"{name}\n{err}")
        # The watchdog's words, or a bounded wait's (a call started and waited for within -T).
        self.assertRegex(result["error"], f"did not ((finish|complete|answer).* within {TIMEOUT_S}|wait past) ", err)
        if rank == 0:
            # The stopped root's own step is the one that did not finish: the kind stopped at, named.
            self.assertEqual(result["failed_step"], kind, f"{name}: {result['error']}\n{err}")
            if kind != "finish":  # the farewell says who did not answer, or that this rank was stopped
                self.assertIn(step, result["error"], err)
        else:
            # The root waited for the stopped rank in a step of its own: named, whatever its kind.
            self.assertIn(result["failed_step"], self.kinds, f"{name}: {result['error']}\n{err}")

    def check_health(self, name, result, rank, err):
        """health judges a rank that stops answering as a finding (a phase's own bounds; the watchdog is the backstop
        behind them): the report ends, never complete and healthy, and names the stopped rank or its step."""
        self.assertNotEqual(result["status"], "incomplete", f"{name}\n{err}")
        text = err + (result.get("error") or "") + str(result.get("sections", ""))
        self.assertTrue(f"rank {rank}" in text or "did not finish" in text, f"{name}: the stopped rank is not named"
                        f"\n{text}")

    def test_every_kind_of_step(self):
        chosen = os.environ.get("DISTBENCH_STOPPED_STEPS", "")
        only = [n for n in chosen.split(",") if n and chosen != "all"]
        jobs = [(name, command, kind, occurrence, rank) for name, command, kind, occurrence, ranks, ci_ranks in CASES
                if not only or name in only for rank in (ranks if chosen else ci_ranks)]
        # Two jobs at a time (each mostly waits out -T): their stops land as well, and the bound holds beside a second
        # job on a 2-core machine.
        results = run_concurrently([lambda job=job: self.run_case(*job) for job in jobs], workers=2)
        for r in results:
            with self.subTest(case=r["name"], rank=r["rank"]):
                self.check_case(r)


if __name__ == "__main__":
    why = gdb_works()
    if why:
        print(f"SKIP: {why}")
        sys.exit(SKIP)
    unittest.main(argv=[sys.argv[0], "-v"])
