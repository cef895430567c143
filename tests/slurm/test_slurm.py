#!/usr/bin/env python3
"""distbench under a real Slurm: Debian's slurmctld, slurmd and munged, started by this test with a generated
slurm.conf in a temporary folder (their own ports, munge socket and key), and stopped after, always. srun starts the
ranks through PMIx; info and the report agree with mpirun on ranks, local ranks and hosts and record the job, step
and node list; a cancelled or broken step ends non-zero with nothing left running; a step started without PMIx is
told how to start; the sbatch script docs/launching.md shows (scripts/slurm/distbench.sbatch) runs as a batch job.

Environment: DISTBENCH (the binary; its folder goes first on PATH, as an installed distbench would be). Needs root
and Debian's slurmd, slurmctld, slurm-client and munge; where the daemons cannot start it prints why and exits 77
(meson's SKIP).
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from distbench_testing import (SKIP, distbench_pids, end_slurm_jobs, error_lines, load_json,  # noqa: E402
                               missing_slurm_tool, run_with_fixture, running)

BINARY = os.environ.get("DISTBENCH", "")
SBATCH_SCRIPT = os.path.join(HERE, "..", "..", "scripts", "slurm", "distbench.sbatch")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle",
          "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]
DAEMONS = ["munged", "slurmctld", "slurmd"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def skip_reason():
    if os.geteuid() != 0:
        return "not root (slurmd runs its steps as root here, and munged wants its files owned by root)"
    return missing_slurm_tool(["munged", "mungekey", "slurmctld", "slurmd", "srun", "sinfo", "scontrol", "scancel",
                               "sbatch", "mpirun"])


class Slurm:
    """One controller and one node (this host) for the test run: up once, down exactly once."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="distbench-slurm-")
        os.chmod(self.dir, 0o755)
        self.conf = os.path.join(self.dir, "slurm.conf")
        # OMPI_MCA_mpi_yield_when_idle=1: what the tests' mpirun gets as --mca (the README's advice where ranks may
        # outnumber free cores): srun's ranks otherwise busy-poll, and next to other load two of them starved each
        # other past -T (5 runs of the suite beside 5 busy processes: 1 failed, a 1 KiB sweep step over 5 s).
        self.env = dict(os.environ, SLURM_CONF=self.conf, OMPI_MCA_mpi_yield_when_idle="1",
                        PATH=os.path.dirname(os.path.abspath(BINARY)) + os.pathsep + os.environ.get("PATH", ""))
        for name in list(self.env):  # this test's own job, not one it may run inside
            if name.startswith("SLURM_") and name != "SLURM_CONF":
                del self.env[name]
        self.is_up = False
        self.stopped = {}

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def log_tail(self, name, lines=15):
        try:
            with open(self.path("log", name)) as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"

    def up(self):
        """None, or why the daemons could not start."""
        self.is_up = True
        for d in ["munge", "spool", "state", "log"]:
            os.mkdir(self.path(d))
        os.chmod(self.path("munge"), 0o700)
        key = self.path("munge", "munge.key")
        r = subprocess.run(["mungekey", "-c", "-k", key], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            return f"mungekey: {r.stderr.strip()}"
        os.chmod(key, 0o400)
        socket_path = self.path("munge", "munge.socket")
        r = subprocess.run(["munged", "--force", "-S", socket_path, f"--key-file={key}",
                            f"--pid-file={self.path('munge', 'munged.pid')}",
                            f"--log-file={self.path('log', 'munged.log')}", f"--seed-file={self.path('munge', 'seed')}"],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            return f"munged: {r.stderr.strip()} {self.log_tail('munged.log')}"
        host = socket.gethostname()
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=distbench
SlurmctldHost={host}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={socket_path}
CredType=cred/munge
StateSaveLocation={self.path('state')}
SlurmdSpoolDir={self.path('spool')}
SlurmctldPidFile={self.path('slurmctld.pid')}
SlurmdPidFile={self.path('slurmd.pid')}
SlurmctldLogFile={self.path('log', 'slurmctld.log')}
SlurmdLogFile={self.path('log', 'slurmd.log')}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName={host} CPUs={os.cpu_count()} RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
        for daemon in ["slurmctld", "slurmd"]:
            r = subprocess.run([daemon, "-f", self.conf], env=self.env, capture_output=True, text=True, timeout=30)
            if r.returncode != 0:
                return f"{daemon}: {r.stderr.strip()} {self.log_tail(daemon + '.log')}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            r = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True, timeout=10)
            if r.returncode == 0 and r.stdout.strip() == "idle":
                return None
            time.sleep(0.2)
        return f"the node never became idle: {self.log_tail('slurmctld.log')}{self.log_tail('slurmd.log')}"

    def pids(self):
        out = {}
        for name, pid_file in [("slurmd", "slurmd.pid"), ("slurmctld", "slurmctld.pid"),
                               ("munged", os.path.join("munge", "munged.pid"))]:
            try:
                with open(self.path(pid_file)) as f:
                    out[name] = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        return out

    def down(self):
        if not self.is_up:
            return
        self.is_up = False
        pids = self.pids()
        self.stopped = pids
        for pid in pids.values():
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        deadline = time.monotonic() + 10
        while any(running(p) for p in pids.values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in pids.values():
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)

    def leftovers(self):
        """The daemons down() stopped that still run."""
        return [f"{name} {pid}" for name, pid in self.stopped.items() if running(pid)]

    def run(self, argv, timeout=120, cwd=None):
        return subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=timeout, cwd=cwd)


SLURM = None


class UnderSrun(unittest.TestCase):
    def info(self, launcher):
        argv = (["srun", "--mpi=pmix", "-n", "2"] if launcher == "srun" else MPIRUN + ["-np", "2"])
        r = SLURM.run(argv + [BINARY, "info", "--json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_a_info_agrees_with_mpirun_and_names_the_job(self):
        under_srun, under_mpirun = self.info("srun"), self.info("mpirun")
        self.assertEqual(under_srun["ranks"], 2)
        self.assertEqual(under_srun["hosts"], under_mpirun["hosts"])
        self.assertEqual(under_srun["backend"]["name"], under_mpirun["backend"]["name"])
        launcher = under_srun["launcher"]
        self.assertEqual(launcher["name"], "srun")
        self.assertEqual(launcher["slurm"]["step_id"], "0")
        self.assertEqual(launcher["slurm"]["partition"], "debug")
        self.assertEqual(launcher["slurm"]["nodelist"], socket.gethostname())
        self.assertEqual((launcher["slurm"]["nodes"], launcher["slurm"]["tasks"]), ("1", "2"))
        self.assertTrue(launcher["slurm"]["job_id"].isdigit())
        self.assertNotIn("slurm", under_mpirun["launcher"])
        r = SLURM.run(["srun", "--mpi=pmix", "-n", "2", BINARY, "info"])
        self.assertRegex(r.stdout, r"launched by: srun \(Slurm job \d+, step 0, partition debug, nodes \S+: 1 node, "
                                   r"2 tasks\)\n")
        self.assertIn("ranks: 2 on 1 host", r.stdout)

    def test_b_allreduce_ranks_agree_with_mpirun_and_the_report_records_the_job(self):
        reports = {}
        for launcher in ("srun", "mpirun"):
            js = SLURM.path(f"{launcher}.json")
            argv = (["srun", "--mpi=pmix", "-n", "2"] if launcher == "srun" else MPIRUN + ["-np", "2"])
            r = SLURM.run(argv + [BINARY, "allreduce", "-b", "8", "-e", "64K", "--json", js])
            self.assertEqual(r.returncode, 0, r.stderr)
            reports[launcher] = load_json(js)
            self.assertEqual(reports[launcher]["status"], "complete")
            self.assertEqual(reports[launcher]["environment"]["world_size"], 2)
            self.assertTrue(all(rec["metrics"]["wrong"] == 0 for rec in reports[launcher]["records"]))
        ranks = {k: sorted((x["rank"], x["host"], x["local_rank"]) for x in v["environment"]["ranks"])
                 for k, v in reports.items()}
        self.assertEqual(ranks["srun"], ranks["mpirun"])
        versions = reports["srun"]["environment"]["versions"]
        self.assertEqual(versions["launcher"], "srun")
        self.assertEqual(versions["slurm.step_id"], "0")
        self.assertEqual(versions["slurm.tasks"], "2")
        self.assertEqual(versions["slurm.nodelist"], socket.gethostname())
        self.assertNotIn("slurm.job_id", reports["mpirun"]["environment"]["versions"])

    def end_every_step(self, proc):
        end_slurm_jobs(proc, SLURM.run)

    def long_step(self, js, *extra):
        proc = subprocess.Popen(["srun", "--mpi=pmix", "-n", "2", *extra, BINARY, "allreduce", "-b", "1K", "-e", "64M",
                                 "-n", "200", "-T", "30", "--json", js],
                                env=SLURM.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self.end_every_step, proc)
        deadline = time.monotonic() + 60
        records = None
        while time.monotonic() < deadline:
            try:
                records = len(load_json(js)["records"])
                if records >= 4:
                    return proc
            except (OSError, ValueError, KeyError):
                pass
            if proc.poll() is not None:
                self.fail(f"the step ended early: {proc.communicate()}")
            time.sleep(0.1)
        self.fail(f"the step never measured 4 sizes in 60 s (records: {records}; distbench processes: "
                  f"{distbench_pids(js)})")

    def assert_gone(self, proc, js, within):
        began = time.monotonic()
        _, err = proc.communicate(timeout=within + 30)
        took = time.monotonic() - began
        deadline = time.monotonic() + 5
        while distbench_pids(js) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(distbench_pids(js), [], "distbench left running")
        self.assertNotEqual(proc.returncode, 0, err)
        self.assertLess(took, within, err)
        return err, took

    def test_c_a_cancelled_job_ends_its_step_and_keeps_the_report(self):
        js = SLURM.path("cancelled.json")
        proc = self.long_step(js)
        kept = len(load_json(js)["records"])
        jobs = SLURM.run(["squeue", "-h", "-o", "%i"]).stdout.split()
        self.assertEqual(len(jobs), 1, jobs)
        SLURM.run(["scancel", jobs[0]])
        err, took = self.assert_gone(proc, js, within=15)
        print(f"\n  scancel: srun exit {proc.returncode} after {took:.1f} s", file=sys.stderr)
        report = load_json(js)
        self.assertEqual(report["status"], "interrupted", err)
        self.assertEqual(report["signal"], int(signal.SIGTERM))
        self.assertGreaterEqual(len(report["records"]), kept)

    def test_d_a_killed_task_ends_the_step(self):
        js = SLURM.path("killed.json")
        proc = self.long_step(js, "--kill-on-bad-exit=1")
        pids = sorted(distbench_pids(js))
        self.assertEqual(len(pids), 2, f"distbench processes of the step: {pids}")
        os.kill(pids[-1], signal.SIGKILL)
        err, took = self.assert_gone(proc, js, within=15)
        print(f"\n  a task SIGKILLed: srun exit {proc.returncode} after {took:.1f} s", file=sys.stderr)
        # --kill-on-bad-exit: slurmstepd ends the other task with SIGTERM, which the root records
        report = load_json(js)
        self.assertEqual(report["status"], "interrupted", err)
        self.assertEqual(report["signal"], int(signal.SIGTERM))
        self.assertGreaterEqual(len(report["records"]), 4)

    def test_e_a_step_without_pmix_is_told_how_to_start(self):
        r = SLURM.run(["srun", "--mpi=none", "-n", "2", BINARY, "info"])
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = error_lines(r.stderr)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("srun --mpi=pmix", lines[0])
        self.assertIn("'--launcher env'", lines[0])

    def test_e2_env_forms_the_job_from_slurms_variables(self):
        # srun without PMIx and --launcher env: the job forms over TCP from Slurm's own variables (no wrapper that
        # exports torchrun's), rank 0 on the step's first node at the port derived from the job and step ids; a job
        # secret file exported before srun reaches every task (no warning that there is none)
        secret = SLURM.path("job.secret")
        with open(secret, "w") as f:
            f.write("0123456789abcdef0123456789abcdef\n")
        os.chmod(secret, 0o600)
        r = subprocess.run(["srun", "--mpi=none", "-n", "2", BINARY, "info", "--launcher", "env"],
                           env=dict(SLURM.env, DISTBENCH_JOB_SECRET_FILE=secret), capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        formed = re.search(r"job formed by: env:// rendezvous at (\S+):(\d+) \(from Slurm's variables: job (\d+) "
                           r"step (\d+)\)\n", r.stdout)
        self.assertIsNotNone(formed, r.stdout)
        host, port, job, step = formed.groups()
        self.assertEqual(host, socket.gethostname())
        self.assertEqual(int(port), 20000 + 10 * (int(job) % 1000) + int(step) % 10)
        self.assertRegex(r.stdout, rf"launched by: srun \(Slurm job {job}, step {step},")
        self.assertIn("ranks: 2 on 1 host", r.stdout)
        self.assertNotIn("no job secret", r.stderr)

    def test_f_the_sbatch_script_runs_as_a_batch_job(self):
        work = SLURM.path("batch")
        os.mkdir(work)
        env = dict(SLURM.env, DISTBENCH_MAX_BYTES="64K")
        r = subprocess.run(["sbatch", "--wait", "--parsable", SBATCH_SCRIPT], env=env, cwd=work, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        job = r.stdout.strip().split(";")[0]
        with open(os.path.join(work, f"distbench-{job}.out")) as f:
            out = f.read()
        self.assertIn("# Out of bounds values : 0 OK", out)
        report = load_json(os.path.join(work, f"distbench-{job}.json"))
        self.assertEqual(report["status"], "complete")
        self.assertEqual(report["environment"]["world_size"], 2)
        self.assertEqual(report["environment"]["versions"]["slurm.job_id"], job)
        self.assertEqual(report["environment"]["versions"]["slurm.job_name"], "distbench")

    def node_state(self, want=None):
        """This node's state and reason as sinfo shows them, without the mark of a node not responding for a moment
        ("drained*": slurmd answers the controller's next ping); with `want` (a test of the state), waits up to 10 s
        for it (a node drained while its job runs is draining until the job is gone)."""
        deadline = time.monotonic() + 10
        while True:
            r = SLURM.run(["sinfo", "-h", "-N", "-o", "%T|%E"])
            state, _, reason = r.stdout.strip().partition("|")
            state = state.rstrip("*")
            if want is None or want(state) or time.monotonic() > deadline:
                return state, reason
            time.sleep(0.2)

    def test_g_health_slurm_drain_drains_a_bad_node_resumes_it_and_leaves_anyone_elses_drain(self):
        host = socket.gethostname()
        self.addCleanup(SLURM.run, ["scontrol", "update", f"NodeName={host}", "State=RESUME"])
        rules = SLURM.path("impossible.json")  # a copy bandwidth no node has: this node is degraded
        with open(rules, "w") as f:
            json.dump({"rules": [{"metric": "memory.copy_gbps", "compare": ">=", "threshold": 1e9,
                                  "severity": "degraded"}]}, f)
        health = [BINARY, "health", "--level", "quick", "--memory-bytes", "16M", "--slurm-drain"]
        js = SLURM.path("drained.json")
        r = SLURM.run(["srun", "--mpi=pmix", "-n", "2"] + health + ["--rules", rules, "--json", js])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # degraded: the verdict's exit code
        self.assertIn(f"\n  drained {host}: distbench health: degraded: ", r.stdout)
        state, reason = self.node_state(lambda s: s == "drained")
        self.assertEqual(state, "drained")
        self.assertTrue(reason.startswith("distbench health: degraded: "), reason)
        drain = [x["params"] | x["metrics"] for x in load_json(js)["records"]
                 if x["params"]["metric"] == "slurm.drain"]
        self.assertEqual([(d["subject"], d["key"], d["value"]) for d in drain], [(host, host, 0)])
        # A drained node takes no srun job: the check that finds it healthy comes as an admin's would, through mpirun
        # with SLURM_CONF set.
        r = SLURM.run(MPIRUN + ["-np", "2"] + health)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"\n  resumed {host}: drained by distbench health before, healthy now\n", r.stdout)
        self.assertNotIn("drain", self.node_state(lambda s: "drain" not in s)[0])
        SLURM.run(["scontrol", "update", f"NodeName={host}", "State=DRAIN", "Reason=maintenance"])
        r = SLURM.run(MPIRUN + ["-np", "2"] + health)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"\n  left {host} drained: drained by someone else: maintenance; a human must resume it\n",
                      r.stdout)
        self.assertEqual(self.node_state(), ("drained", "maintenance"))
        self.assertNotIn("warning: --slurm-drain", r.stderr)


def main():
    global SLURM
    reason = skip_reason()
    if reason:
        print(f"SKIP: {reason}")
        return SKIP
    if not BINARY or not os.access(BINARY, os.X_OK):
        print(f"error: set DISTBENCH to the distbench binary (got '{BINARY}')", file=sys.stderr)
        return 1
    SLURM = Slurm()
    return run_with_fixture(SLURM, "slurm")


if __name__ == "__main__":
    sys.exit(main())
