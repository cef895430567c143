#!/usr/bin/env python3
"""distbench under a real Slurm across hosts: 3 network-namespace hosts (netns_cluster.sh), Debian's slurmctld on the
first, a slurmd on each, munged shared (slurm_cluster.sh). srun puts the ranks on three hosts through PMIx and the
report names them; the shipped sbatch script runs across the nodes; a task killed on one node ends the step with the
report kept; env:// forms the job from Slurm's variables alone (no MPI); and `health --slurm-drain` drains the node
whose link is throttled, where sinfo shows it with distbench's reason, and resumes it once a run finds it healthy.

Environment: DISTBENCH (the binary; its folder goes first on PATH, as an installed distbench would be). Needs root,
network namespaces, Debian's slurmd, slurmctld, slurm-client and munge; where any is missing it says why and exits 77
(meson's SKIP).
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from distbench_testing import (distbench_pids, end_slurm_jobs, health_checks, load_json,  # noqa: E402
                               missing_slurm_tool, rank_pids, running, run_with_fixture)
from netns_fixture import skip_reason as netns_skip_reason  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "")
SCRIPT = os.path.join(HERE, "slurm_cluster.sh")
NETNS = os.path.join(HERE, "netns_cluster.sh")
SBATCH_SCRIPT = os.path.join(HERE, "..", "..", "scripts", "slurm", "distbench.sbatch")
HEALTHCHECK_SCRIPT = os.path.join(HERE, "..", "..", "scripts", "slurm", "distbench-healthcheck.sh")
HOSTS = ["nodeA", "nodeB", "nodeC"]
THROTTLED = "nodeB"  # not nodeA: srun, mpirun and rank 0 run there
# health's probes kept small (the throttled host's egress is 12.5 MB/s) and its median judged with the 3-host
# check's tolerance (tests/cluster/test_cluster.py: six ranks' noise on two cores)
HEALTH = ["health", "--allreduce-bytes", "1M", "--link-bytes", "256K", "--memory-bytes", "16M", "--tolerance", "50%",
          "-T", "30"]


def skip_reason():
    why = netns_skip_reason()
    if why:
        return why
    return missing_slurm_tool(["munged", "mungekey", "slurmctld", "slurmd", "srun", "sinfo", "scontrol", "sbatch",
                               "nsenter"])


class SlurmCluster:
    """Three hosts and their Slurm for the test run: up once, down exactly once."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="distbench-slurm-cluster-")
        os.chmod(self.dir, 0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "NCCL_", "UCX_"))}
        # OMPI_MCA_mpi_yield_when_idle=1: six ranks share two cores (tests/slurm/test_slurm.py says why)
        self.env = dict(env, CLUSTER_DIR=self.dir, CLUSTER_ID=f"dbsl{os.getpid()}", CLUSTER_SUBNET="10.78.0",
                        OMPI_MCA_mpi_yield_when_idle="1",
                        PATH=os.path.dirname(os.path.abspath(BINARY)) + os.pathsep + os.environ.get("PATH", ""),
                        CLUSTER_SLURM_EXTRA=f"HealthCheckProgram={self.path('healthcheck')}\nHealthCheckInterval=2")
        self.is_up = False

    def up(self):
        why = skip_reason()
        if why:
            return why
        self.is_up = True
        self.write_healthcheck()
        r = subprocess.run(["sh", SCRIPT, "up", str(len(HOSTS))], env=self.env, capture_output=True, text=True,
                           timeout=90)
        if r.returncode != 0:
            return f"the Slurm cluster did not start: {r.stderr.strip()}"
        self.env["SLURM_CONF"] = os.path.join(self.dir, "slurm", "slurm.conf")
        return None

    def write_healthcheck(self):
        """Slurm's HealthCheckProgram: the shipped script, as a site's wrapper runs it (the binary, Slurm's
        configuration: Slurm passes no environment), while the test has turned it on (healthcheck.on), with the
        rules file of the node where the test wrote one."""
        with open(self.path("healthcheck"), "w") as f:
            f.write(f"""#!/bin/sh
[ -f {self.path('healthcheck.on')} ] || exit 0
export DISTBENCH={os.path.abspath(BINARY)} SLURM_CONF={self.path('slurm', 'slurm.conf')}
export DISTBENCH_HEALTH_ARGS="--json {self.path('healthcheck')}.$SLURMD_NODENAME.json"
rules={self.path('rules')}.$SLURMD_NODENAME
[ ! -f "$rules" ] || DISTBENCH_HEALTH_ARGS="$DISTBENCH_HEALTH_ARGS --rules $rules"
exec sh {os.path.abspath(HEALTHCHECK_SCRIPT)}
""")
        os.chmod(self.path("healthcheck"), 0o755)

    def down(self):
        if not self.is_up:
            return
        self.is_up = False
        r = subprocess.run(["sh", SCRIPT, "down"], env=self.env, capture_output=True, text=True, timeout=60)
        sys.stderr.write(r.stderr)
        shutil.rmtree(self.dir, ignore_errors=True)

    def leftovers(self):
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n")
        left = [line for line in left if line.startswith(self.env["CLUSTER_ID"] + "-")]
        return left + [f"{p} ({name})" for name in ("slurmctld", "slurmd", "munged")
                       for p in subprocess.run(["pgrep", "-f", f"{name}.*{self.dir}"], capture_output=True,
                                               text=True).stdout.split() if running(int(p))]

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def argv(self, *cmd):
        """CMD in the first host (the login node), where Slurm's clients reach the controller."""
        return ["sh", SCRIPT, "run", *cmd]

    def run(self, *cmd, timeout=90, env=None):
        return subprocess.run(self.argv(*cmd), env=env or self.env, capture_output=True, text=True, timeout=timeout)

    def nodes(self):
        """{node: (state, reason)} as sinfo shows them, without its mark of a node that has not answered the
        controller's last ping ("idle*": a moment after a resume, or while a link is throttled)."""
        r = self.run("sinfo", "-h", "-N", "-o", "%N|%T|%E", timeout=30)
        out = {}
        for line in r.stdout.splitlines():
            node, state, reason = line.split("|", 2)
            out[node] = (state.rstrip("*"), reason)
        return out

    def netns(self, *args):
        return subprocess.run(["sh", NETNS, *args], env=self.env, capture_output=True, text=True, timeout=60)


SLURM = None


class AcrossHosts(unittest.TestCase):
    def test_a_srun_puts_the_ranks_on_three_hosts_and_the_report_names_them(self):
        js = SLURM.path("across.json")
        r = SLURM.run("srun", "--mpi=pmix", "-N", "3", "--ntasks-per-node", "2", BINARY, "allreduce", "-b", "8",
                      "-e", "1K", "-n", "5", "-w", "1", "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        report = load_json(js)
        self.assertEqual(report["status"], "complete")
        self.assertEqual(report["environment"]["world_size"], 6)
        ranks = sorted((x["rank"], x["host"], x["local_rank"]) for x in report["environment"]["ranks"])
        self.assertEqual(ranks, [(2 * i + k, host, k) for i, host in enumerate(HOSTS) for k in range(2)])
        self.assertTrue(all(rec["metrics"]["wrong"] == 0 for rec in report["records"]))
        versions = report["environment"]["versions"]
        self.assertEqual((versions["launcher"], versions["slurm.nodes"], versions["slurm.tasks"]), ("srun", "3", "6"))
        self.assertEqual(versions["slurm.nodelist"], ",".join(HOSTS))
        # one task a node: info says so, a rank each on three hosts
        r = SLURM.run("srun", "--mpi=pmix", "-N", "3", "--ntasks-per-node", "1", BINARY, "info")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("launched by: srun (Slurm job", r.stdout)
        self.assertIn(f"nodes {','.join(HOSTS)}: 3 nodes, 3 tasks)", r.stdout)
        self.assertIn("ranks: 3 on 3 hosts", r.stdout)
        for i, host in enumerate(HOSTS):
            self.assertRegex(r.stdout, rf"\n  {host}\s+1 rank: {i}\n")

    def test_b_the_sbatch_script_runs_across_the_nodes(self):
        work = SLURM.path("batch")
        os.mkdir(work)
        env = dict(SLURM.env, DISTBENCH_MAX_BYTES="1K")
        r = subprocess.run(SLURM.argv("sh", "-c", f"cd {work} && sbatch -N 3 --wait --parsable {SBATCH_SCRIPT}"),
                           env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        job = r.stdout.strip().split(";")[0]
        with open(os.path.join(work, f"distbench-{job}.out")) as f:
            out = f.read()
        self.assertIn("# Out of bounds values : 0 OK", out)
        report = load_json(os.path.join(work, f"distbench-{job}.json"))
        self.assertEqual(report["status"], "complete")
        self.assertEqual(report["environment"]["world_size"], 6)
        self.assertEqual(sorted({x["host"] for x in report["environment"]["ranks"]}), HOSTS)
        self.assertEqual(report["environment"]["versions"]["slurm.job_id"], job)

    def test_c_a_task_killed_on_another_node_ends_the_step(self):
        js = SLURM.path("killed.json")
        proc = subprocess.Popen(SLURM.argv("srun", "--mpi=pmix", "-N", "3", "--ntasks-per-node", "1",
                                           "--kill-on-bad-exit=1", BINARY, "allreduce", "-b", "1K", "-e", "64M",
                                           "-n", "200", "-T", "30", "--json", js),
                                env=SLURM.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self.end_every_step, proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if len(load_json(js)["records"]) >= 3:
                    break
            except (OSError, ValueError, KeyError):
                pass
            self.assertIsNone(proc.poll(), "the step ended early")
            time.sleep(0.1)
        tasks = rank_pids(js, "SLURM_PROCID")
        self.assertEqual(sorted(tasks), [0, 1, 2], tasks)
        os.kill(tasks[2], signal.SIGKILL)  # nodeC's task
        began = time.monotonic()
        _, err = proc.communicate(timeout=45)
        took = time.monotonic() - began
        print(f"\n  a task SIGKILLed on nodeC: srun exit {proc.returncode} after {took:.1f} s", file=sys.stderr)
        self.assertNotEqual(proc.returncode, 0, err)
        self.assertLess(took, 15, err)
        deadline = time.monotonic() + 5
        while distbench_pids(js) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(distbench_pids(js), [], "distbench left running")
        report = load_json(js)
        self.assertEqual(report["status"], "interrupted", err)
        self.assertEqual(report["signal"], int(signal.SIGTERM))
        self.assertGreaterEqual(len(report["records"]), 3)

    def end_every_step(self, proc):
        end_slurm_jobs(proc, lambda argv: SLURM.run(*argv, timeout=30))

    def test_d_env_launch_forms_the_job_from_slurms_variables(self):
        """srun without PMIx, no MPI: env:// reads the ranks, the world and rank 0's node from the step's variables,
        and the port from the job and step ids (docs/launching.md)."""
        r = SLURM.run("srun", "--mpi=none", "-N", "3", "--ntasks-per-node", "2", BINARY, "info", "--launcher", "env",
                      "-T", "30")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        m = re.search(r"launched by: srun \(Slurm job (\d+), step (\d+),", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        job, step = int(m.group(1)), int(m.group(2))
        port = 20000 + 10 * (job % 1000) + step % 10
        self.assertIn(f"job formed by: env:// rendezvous at nodeA:{port} (from Slurm's variables: job {job} step "
                      f"{step})", r.stdout)
        self.assertIn("ranks: 6 on 3 hosts", r.stdout)
        for i, host in enumerate(HOSTS):
            self.assertRegex(r.stdout, rf"\n  {host}\s+2 ranks: {2 * i},{2 * i + 1}\n")

    def test_e_health_drains_the_throttled_node_and_resumes_it(self):
        shaped = SLURM.netns("shape", THROTTLED, "100")
        self.assertEqual(shaped.returncode, 0, shaped.stderr)
        try:
            js = SLURM.path("drain.json")
            r = SLURM.run("srun", "--mpi=pmix", "-N", "3", "--ntasks-per-node", "1", BINARY, *HEALTH,
                          "--slurm-drain", "--json", js, timeout=150)
        finally:
            SLURM.netns("exec", THROTTLED, "tc", "qdisc", "del", "dev", "eth0", "root")
        self.addCleanup(SLURM.run, "scontrol", "update", f"nodename={','.join(HOSTS)}", "state=resume", timeout=30)
        print(f"\n  health --slurm-drain, {THROTTLED} at 100 Mbit/s: exit {r.returncode}; {SLURM.nodes()}",
              file=sys.stderr)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        verdicts = {k[1]: v["params"]["status"] for k, v in health_checks(load_json(js)).items()
                    if k[0] == "node.status"}
        self.assertEqual(verdicts, {h: ("degraded" if h == THROTTLED else "healthy") for h in HOSTS}, r.stdout)
        nodes = SLURM.nodes()
        self.assertIn(nodes[THROTTLED][0], ("drained", "draining"), nodes)
        self.assertTrue(nodes[THROTTLED][1].startswith(f"distbench health: degraded: {THROTTLED}->"), nodes)
        self.assertEqual({h: s for h, (s, _) in nodes.items() if h != THROTTLED}, {"nodeA": "idle", "nodeC": "idle"})
        # A drained node takes no job: the run that finds it healthy is an admin's, by mpirun across the hosts (as a
        # HealthCheckProgram's or a cron job's would be), with Slurm's configuration in reach of rank 0. nodeC, drained
        # by someone else meanwhile, stays drained: distbench resumes only the nodes it drained itself.
        r = SLURM.run("scontrol", "update", "nodename=nodeC", "state=drain", "reason=maintenance: new DIMM",
                      timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = subprocess.run(["sh", NETNS, "run", "--timeout", "90", "-np", "3", "--map-by", "node", BINARY, *HEALTH,
                            "--slurm-drain"], env=SLURM.env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        nodes = SLURM.nodes()
        self.assertEqual(nodes[THROTTLED][0], "idle", (nodes, r.stdout))
        self.assertEqual(nodes["nodeC"], ("drained", "maintenance: new DIMM"), (nodes, r.stdout))
        self.assertEqual(nodes["nodeA"][0], "idle", nodes)

    def test_f_the_healthcheck_program_drains_a_failing_node_and_resumes_it(self):
        """nodeB held by its rules file to a copy bandwidth no memory has: its own node-local check (Slurm's
        HealthCheckProgram, every 2 s) drains it with distbench's reason; the rules gone, the next check resumes it."""
        with open(SLURM.path("rules.nodeB"), "w") as f:
            f.write('{"relative": true, "rules": [{"metric": "memory.copy_gbps", "compare": ">=", '
                    '"threshold": 1000000, "severity": "failed"}]}')
        open(SLURM.path("healthcheck.on"), "w").close()
        self.addCleanup(os.remove, SLURM.path("healthcheck.on"))
        nodes = self.wait_for_nodes(lambda n: n["nodeB"][0] in ("drained", "draining"))
        self.assertTrue(nodes["nodeB"][1].startswith("distbench health: failed: rank 0 memory.copy_gbps = "), nodes)
        self.assertEqual((nodes["nodeA"][0], nodes["nodeC"][0]), ("idle", "idle"), nodes)
        report = load_json(SLURM.path("healthcheck.nodeB.json"))
        self.assertEqual(report["environment"]["world_size"], 1)
        os.remove(SLURM.path("rules.nodeB"))
        nodes = self.wait_for_nodes(lambda n: n["nodeB"][0] == "idle")
        self.assertEqual({s for s, _ in nodes.values()}, {"idle"}, nodes)

    def wait_for_nodes(self, condition, within=30):
        deadline = time.monotonic() + within
        while True:
            nodes = SLURM.nodes()
            if condition(nodes) or time.monotonic() > deadline:
                self.assertTrue(condition(nodes), f"within {within} s: {nodes}")
                return nodes
            time.sleep(0.5)


def main():
    global SLURM
    if not BINARY or not os.access(BINARY, os.X_OK):
        print(f"error: set DISTBENCH to the distbench binary (got '{BINARY}')", file=sys.stderr)
        return 1
    SLURM = SlurmCluster()
    return run_with_fixture(SLURM, "slurm across hosts")


if __name__ == "__main__":
    sys.exit(main())
