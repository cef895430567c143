#!/usr/bin/env python3
"""distbench on a real multi-host cluster: 3 hosts x 2 slots = 6 ranks, each host a network namespace with its own
hostname, /etc/hosts and eth0 (see netns_cluster.sh), MPI over TCP across the veths.

Environment: DISTBENCH (path of the binary). Needs root and `ip netns`; where a namespace cannot be created (a
sandbox without CAP_SYS_ADMIN/CAP_NET_ADMIN) it prints why and exits 77, which meson reports as SKIP.
"""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import (SKIP, assert_stopped_rank_ends_job, check_prometheus_text,  # noqa: E402
                               collective_results, health_checks, load_json, run_with_fixture)
from netns_fixture import SCRIPT, NetnsCluster, skip_reason  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "")
HOSTS = ["nodeA", "nodeB", "nodeC"]
SLOTS = 2
NP = len(HOSTS) * SLOTS
MPI_TIMEOUT = 60          # mpirun --timeout: mpirun aborts the job itself first ...
RUN_TIMEOUT = 90          # ... this is the backstop
THROTTLE_RATE_GBPS = 0.0125  # tbf rate 100mbit = 12.5 MB/s


def assert_no_process_left(test, within=15):
    """Waits until no process is left on any host (a killed job's last processes may take a moment to be reaped),
    at most `within` seconds, then fails naming what is left: a wait for the event, not a fixed sleep."""
    deadline = time.monotonic() + within
    while True:
        left = {host: subprocess.run(["ip", "netns", "pids", CLUSTER.ns(host)], capture_output=True, text=True,
                                     timeout=20).stdout.split() for host in HOSTS}
        left = {host: pids for host, pids in left.items() if pids}
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    test.assertEqual(left, {}, f"processes left within {within} s")


class Cluster(NetnsCluster):
    """The namespaces of one test run: up once, down exactly once (normal exit, failure, SIGTERM from meson)."""

    def __init__(self):
        super().__init__("cluster", len(HOSTS), {}, slots=SLOTS)

    def up(self):
        self.is_up = True  # even a half-made cluster is torn down
        self.script("up", str(len(HOSTS)))

    def ns(self, host):
        return f"{self.env['CLUSTER_ID']}-{host}"

    def mpirun(self, *args, np=NP):
        """distbench ARGS on NP ranks across the cluster, mpirun started inside nodeA."""
        return subprocess.run(["sh", SCRIPT, "run", "--timeout", str(MPI_TIMEOUT), "-np", str(np), BINARY, *args],
                              env=self.env, capture_output=True, text=True, timeout=RUN_TIMEOUT)

    def start(self, *args, np=NP):
        """distbench ARGS across the cluster, in the background."""
        return subprocess.Popen(["sh", SCRIPT, "run", "--timeout", str(MPI_TIMEOUT), "-np", str(np), BINARY, *args],
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def counters(self):
        """{host: (tx bytes, rx bytes)} of every host's eth0."""
        out = {}
        for host in HOSTS:
            r = subprocess.run(["ip", "-j", "-s", "-n", self.ns(host), "link", "show", "eth0"],
                               capture_output=True, text=True, timeout=20, check=True)
            stats = json.loads(r.stdout)[0]["stats64"]
            out[host] = (stats["tx"]["bytes"], stats["rx"]["bytes"])
        return out

    def tc(self, host, *args):
        subprocess.run(["ip", "netns", "exec", self.ns(host), "tc", *args], capture_output=True, text=True,
                       timeout=20, check=True)


CLUSTER = None


def timed_bytes(results):
    """Bytes S summed over every timed operation of the report."""
    return sum(res["bytes"] * len(res["samples_us"]) * res["ops_per_sample"] for res in results)


class MultiHost(unittest.TestCase):
    def json_run(self, name, *args):
        """Run distbench ARGS --json; assert exit 0 and a complete report with no wrong element; return it."""
        path = CLUSTER.path(name)
        r = CLUSTER.mpirun(*args, "--json", path)
        self.assertEqual(r.returncode, 0, f"distbench {' '.join(args)}\n{r.stdout}\n{r.stderr}")
        report = load_json(path)
        self.assertEqual(report["status"], "complete")
        self.assertEqual(report["environment"]["world_size"], NP)
        self.assertTrue(collective_results(report))
        for res in collective_results(report):
            self.assertEqual(res["status"], "ok", res)
            self.assertEqual(res["wrong"], 0, res)
        return report

    def test_a_info_lists_three_hosts(self):
        r = CLUSTER.mpirun("info")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"ranks: {NP} on {len(HOSTS)} hosts", r.stdout)
        seen = {}
        for line in r.stdout.splitlines():
            m = re.match(r"^\s+(node[A-Z])\s+(\d+) ranks?: ([\d,]+)\s*$", line)
            if m:
                seen[m.group(1)] = (int(m.group(2)), [int(x) for x in m.group(3).split(",")])
        # by-slot mapping: nodeA 0,1  nodeB 2,3  nodeC 4,5
        self.assertEqual(seen, {h: (SLOTS, [i * SLOTS + k for k in range(SLOTS)]) for i, h in enumerate(HOSTS)},
                         r.stdout)

    def test_b_allreduce_sees_hosts_and_local_ranks(self):
        report = self.json_run("b.json", "allreduce", "-b", "8", "-e", "1M", "-n", "5")
        self.assertEqual(len(collective_results(report)), 18 * 2)  # 8 B .. 1 MiB by 2, out-of-place and in-place
        self.assertTrue(all(res["nranks"] == NP for res in collective_results(report)))
        ranks = sorted(report["environment"]["ranks"], key=lambda x: x["rank"])
        self.assertEqual([x["rank"] for x in ranks], list(range(NP)))
        by_host = {}
        for x in ranks:
            by_host.setdefault(x["host"], []).append(x["local_rank"])
        # local ranks come from MPI's shared-memory split: 0,1 on each host means node detection works across hosts
        self.assertEqual(by_host, {h: list(range(SLOTS)) for h in HOSTS}, ranks)
        for x in ranks:
            self.assertEqual(x["host"], HOSTS[x["rank"] // SLOTS], ranks)

    def test_c_traffic_crosses_the_veths(self):
        before = CLUSTER.counters()
        report = self.json_run("c.json", "allreduce", "-b", "64K", "-e", "1M", "-n", "5",
                               "--placement", "out-of-place")
        after = CLUSTER.counters()
        # Every host's ranks need the sum over the other hosts' data and the others need its own: at least S bytes
        # leave and S bytes enter every host per allreduce (more with warm-up and checks).
        need = timed_bytes(collective_results(report))
        self.assertGreater(need, 1 << 20)
        for host in HOSTS:
            tx, rx = after[host][0] - before[host][0], after[host][1] - before[host][1]
            with self.subTest(host=host):
                self.assertGreaterEqual(tx, need, f"{host} eth0 sent {tx} B, the run needs >= {need} B")
                self.assertGreaterEqual(rx, need, f"{host} eth0 received {rx} B, the run needs >= {need} B")

    def test_d_groups_inside_and_across_hosts(self):
        # --group-size 2: groups {0,1} {2,3} {4,5}, each inside one host: the data stays off the veths
        before = CLUSTER.counters()
        report = self.json_run("d2.json", "allreduce", "-b", "256K", "-e", "1M", "-n", "3",
                               "--placement", "out-of-place", "--group-size", "2")
        after = CLUSTER.counters()
        for res in collective_results(report):
            self.assertEqual((res["nranks"], res["groups"]), (2, 3), res)
        need = timed_bytes(collective_results(report))
        for host in HOSTS:
            tx = after[host][0] - before[host][0]
            self.assertLess(tx, need / 20, f"{host}: {tx} B on eth0 for groups inside hosts (data: {need} B)")
        # --group-size 3: groups {0,1,2} {3,4,5}, each spanning two hosts
        before = CLUSTER.counters()
        report = self.json_run("d3.json", "allreduce", "-b", "256K", "-e", "1M", "-n", "3",
                               "--placement", "out-of-place", "--group-size", "3")
        after = CLUSTER.counters()
        for res in collective_results(report):
            self.assertEqual((res["nranks"], res["groups"]), (3, 2), res)
        need = timed_bytes(collective_results(report))
        for host in HOSTS:
            tx = after[host][0] - before[host][0]
            self.assertGreaterEqual(tx, need, f"{host}: {tx} B on eth0 for groups across hosts (data: {need} B)")

    def test_e_throttled_link_is_seen(self):
        args = ["allreduce", "-b", "4M", "-e", "4M", "-n", "3", "-w", "1", "-a", "max", "--placement", "out-of-place"]
        fast = collective_results(self.json_run("e_fast.json", *args))[0]
        CLUSTER.tc("nodeC", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", "100mbit", "burst", "64kb",
                   "latency", "100ms")
        try:
            slow = collective_results(self.json_run("e_slow.json", *args))[0]
        finally:
            CLUSTER.tc("nodeC", "qdisc", "del", "dev", "eth0", "root")
        # tbf caps nodeC's egress at R = 12.5 MB/s. Whatever the algorithm, at least S bytes must leave nodeC per
        # allreduce, so t >= S/R and busbw = S/t * 2(n-1)/n <= 2(n-1)/n * R = 0.0208 GB/s at n = 6 (the 64 KiB
        # burst adds < 2 %). OpenMPI's allreduce here sends ~1.03 S out of nodeC: ~0.017 GB/s measured.
        ceiling = 2 * (NP - 1) / NP * THROTTLE_RATE_GBPS * 1.15
        msg = f"busbw unthrottled {fast['busbw_gbps']:.4f} GB/s, nodeC at 100 Mbit {slow['busbw_gbps']:.4f} GB/s"
        print(f"\n  {msg}", file=sys.stderr)
        self.assertLess(slow["busbw_gbps"], 0.5 * fast["busbw_gbps"], msg)
        self.assertLess(slow["busbw_gbps"], ceiling, msg)
        # and the time is what the link allows: at least S/R (10 % slack for timer granularity)
        floor_us = slow["bytes"] / (THROTTLE_RATE_GBPS * 1e9) * 1e6 * 0.9
        self.assertGreater(slow["time_shown_us"], floor_us, msg)


def health_param(record, key):
    return record["params"][key]


class Health(unittest.TestCase):
    """distbench health on the 3-host cluster: healthy, one host's link throttled, one host's ranks stopped, one
    host's settings unlike the others'."""

    def run_health(self, name, *args):
        js, prom = CLUSTER.path(f"{name}.json"), CLUSTER.path(f"{name}.prom")
        began = time.monotonic()
        r = CLUSTER.mpirun("health", "--json", js, "--prom", prom, "--md", CLUSTER.path(f"{name}.md"), *args)
        took = time.monotonic() - began
        report = load_json(js)
        phases = {k[1]: v["metrics"]["value"] for k, v in health_checks(report).items() if k[0] == "phase.seconds"}
        print(f"\n  health {name}: exit {r.returncode} in {took:.1f} s; phases (s): " +
              ", ".join(f"{p} {s:.2f}" for p, s in phases.items()), file=sys.stderr)
        return r, report, prom, took

    def verdicts(self, report):
        return {k[1]: health_param(v, "status") for k, v in health_checks(report).items() if k[0] == "node.status"}

    def test_a_all_healthy(self):
        # Six ranks share two cores here: a link's bandwidth swings 2-3x with the scheduler even after the isolation
        # retests (a CI run saw 1.86 against a bound of 1.92 GB/s), so a healthy cluster is judged with a wider
        # tolerance than the default 0.3 meant for dedicated nodes; the throttled link below (100 Mbit) is 200x slower.
        r, report, prom, took = self.run_health("healthy", "--tolerance", "50%")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(report["status"], "complete")
        self.assertEqual(self.verdicts(report), {h: "healthy" for h in HOSTS}, r.stdout)
        checks = health_checks(report)
        links = [k for k in checks if k[0] == "link.bandwidth_gbps"]
        self.assertEqual(sorted(links), sorted(("link.bandwidth_gbps", f"{a}->{b}") for a in HOSTS for b in HOSTS
                                               if a != b))  # every pair, both directions
        self.assertEqual(len([k for k in checks if k[0] == "link.latency_us"]), 3)
        phases = [k[1] for k in checks if k[0] == "phase.seconds"]
        self.assertEqual(phases, ["gpu", "rank", "clock", "drift", "node", "confirm", "job", "links", "isolation",
                                  "stragglers"])
        self.assertFalse([k for k in checks if k[0] in ("drift.odd", "drift.split")])  # alike, launched alike
        for key, rec in checks.items():
            if key[0] in ("memory.wrong", "node.allreduce.wrong", "job.allreduce.wrong"):
                self.assertEqual(rec["metrics"]["value"], 0, key)
        self.assertIn("Verdict per node", r.stdout)
        self.assertNotIn("scontrol", r.stdout)
        self.assertLess(took, 60)
        check_prometheus_text(self, prom)
        with open(prom) as f:
            text = f.read()
        for h in HOSTS:
            self.assertIn(f'distbench_health_node_status{{host="{h}"}} 0\n', text)
        self.assertIn("distbench_health_status 0\n", text)

    def test_b_throttled_link_names_its_node(self):
        CLUSTER.tc("nodeC", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", "100mbit", "burst", "64kb",
                   "latency", "100ms")
        try:
            # Small probes: the job's 8 MiB allreduce and 4 MiB link windows through the 12.5 MB/s egress took 13 of
            # this check's 21 s; what is asserted needs no more than 1 MiB of either.
            r, report, prom, _ = self.run_health("throttled", "--allreduce-bytes", "1M", "--link-bytes", "256K")
        finally:
            CLUSTER.tc("nodeC", "qdisc", "del", "dev", "eth0", "root")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(self.verdicts(report), {"nodeA": "healthy", "nodeB": "healthy", "nodeC": "degraded"},
                         r.stdout)
        checks = health_checks(report)
        # nodeC's egress is capped at 12.5 MB/s: both of its outgoing links are suspects, and the link between the
        # two sound nodes is not. The links *into* nodeC may go either way: their TCP acknowledgements leave through
        # nodeC's throttled egress (tbf shapes every packet, and this kernel has no prio qdisc to let small ones
        # past), which a CI run saw slow nodeB->nodeC below half the median. The node verdicts above do not depend
        # on it: a pair is a suspect as soon as one of its directions is.
        for a in HOSTS:
            for b in HOSTS:
                if a == b or b == "nodeC":
                    continue
                rec = checks[("link.bandwidth_gbps", f"{a}->{b}")]
                status, value = health_param(rec, "status"), rec["metrics"]["value"]
                if a == "nodeC":
                    self.assertEqual(status, "suspect", (a, b))
                    self.assertLess(value, THROTTLE_RATE_GBPS * 1.15)
                else:
                    # Between the two sound nodes the link is normally "healthy", but six ranks on two cores can halve
                    # one screening measurement (a clean-clone CI run saw nodeB->nodeA screened as a suspect). What
                    # is guaranteed: it is far faster than the throttled links, and the isolation retest clears it,
                    # so that no verdict blames nodeA or nodeB (asserted above).
                    self.assertIn(status, ("healthy", "suspect"), (a, b))
                    self.assertGreater(value, 2 * THROTTLE_RATE_GBPS, (a, b))
        # ... and the re-test alone against a good node names nodeC, with the figure that decided
        iso = [v for k, v in checks.items() if k[0] == "isolation.bandwidth_gbps"]
        self.assertTrue(any(health_param(v, "host") == "nodeC" and health_param(v, "status") == "degraded"
                            for v in iso), iso)
        verdict = checks[("node.status", "nodeC")]
        self.assertIn("nodeC->", health_param(verdict, "why"))
        self.assertIn("GB/s", health_param(verdict, "why"))
        drain = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("scontrol ")]
        self.assertEqual(len(drain), 1, r.stdout)
        # What a shell makes of the printed line: scontrol and four words, the reason whole.
        words = shlex.split(drain[0])
        self.assertEqual(words[:4], ["scontrol", "update", "nodename=nodeC", "state=drain"], drain)
        self.assertEqual(len(words), 5, drain)
        self.assertTrue(words[4].startswith("reason=distbench health: degraded: nodeC->"), drain)
        self.assertNotIn("nodename=nodeA", r.stdout)
        self.assertNotIn("nodename=nodeB", r.stdout)
        check_prometheus_text(self, prom)
        with open(prom) as f:
            self.assertIn('distbench_health_node_status{host="nodeC"} 1\n', f.read())

    def test_c_stopped_node_is_named(self):
        timeout = 5
        js = CLUSTER.path("stopped.json")
        proc = CLUSTER.start("health", "-T", str(timeout), "--json", js)
        stopped = []
        try:
            # once the first phase is judged, stop every rank of nodeC
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if any(rec["params"]["phase"] == "rank" for rec in load_json(js)["records"]):
                        break
                except (OSError, ValueError, KeyError):
                    pass
                time.sleep(0.05)
            for pid in subprocess.run(["ip", "netns", "pids", CLUSTER.ns("nodeC")], capture_output=True,
                                      text=True, timeout=20).stdout.split():
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        argv = f.read().split(b"\0")
                except OSError:
                    continue
                if argv and os.path.basename(argv[0]) == b"distbench":
                    os.kill(int(pid), signal.SIGSTOP)
                    stopped.append(int(pid))
            self.assertEqual(len(stopped), SLOTS, "nodeC's ranks")
            began = time.monotonic()
            out, err = proc.communicate(timeout=60)
            took = time.monotonic() - began
        finally:
            proc.kill()
            proc.communicate()
        print(f"\n  health with nodeC stopped: exit {proc.returncode} {took:.1f} s after the stop", file=sys.stderr)
        self.assertEqual(proc.returncode, 2, out + err)
        self.assertLess(took, 2 * timeout + 5, err)
        # the ranks named are nodeC's that had not yet sent their result when stopped (a rank with nothing to do in
        # a phase may have arrived before the stop), and only those
        named = re.search(r"TIMEOUT: ranks? (.*) did not arrive within 5 s", out)
        self.assertIsNotNone(named, out)
        ranks = re.findall(r"(\d+) \((\w+)\)", named.group(1))
        self.assertTrue(ranks, out)
        self.assertEqual({host for _, host in ranks}, {"nodeC"}, out)
        self.assertLessEqual({int(rank) for rank, _ in ranks}, {4, 5}, out)
        report = load_json(js)
        self.assertEqual(report["status"], "failed")
        self.assertIn("TIMEOUT", report["error"])
        verdicts = self.verdicts(report)
        self.assertEqual(verdicts["nodeC"], "failed", out)
        self.assertNotIn("failed", [verdicts["nodeA"], verdicts["nodeB"]], out)
        # nothing left behind on any host, the stopped ranks included
        assert_no_process_left(self)


    def test_d_odd_settings_name_their_node(self):
        # nodeB's MPI daemon, and so its ranks, start with another memlock limit and one more NCCL_* variable (the rsh
        # agent sources profile.nodeB there): drift names nodeB alone, with the key and both values. The other phases
        # only have to run: small probes, and no judgement against the median (a loaded machine once made nodeA's
        # allreduce 0.001 GB/s measured alone).
        profile, rules = CLUSTER.path("profile.nodeB"), CLUSTER.path("absolute.json")
        with open(profile, "w") as f:
            f.write("ulimit -S -l 64\nexport NCCL_DRIFT_CHECK=1\n")
        with open(rules, "w") as f:
            json.dump({"relative": False, "rules": []}, f)
        try:
            r, report, prom, _ = self.run_health("drift", "--rules", rules, "--memory-bytes", "8M",
                                                 "--allreduce-bytes", "64K", "--link-bytes", "64K")
        finally:
            os.remove(profile)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(self.verdicts(report), {"nodeA": "healthy", "nodeB": "degraded", "nodeC": "healthy"},
                         r.stdout)
        drift = [rec for rec in report["records"] if rec["params"]["phase"] == "drift"]
        odd = {health_param(rec, "key"): rec for rec in drift if health_param(rec, "metric") == "drift.odd"}
        self.assertEqual(sorted(odd), ["env.NCCL_DRIFT_CHECK", "limit.memlock"], drift)
        for rec in odd.values():
            self.assertEqual((health_param(rec, "host"), health_param(rec, "status")), ("nodeB", "degraded"))
        self.assertRegex(health_param(odd["limit.memlock"], "why"),
                         r"^limit\.memlock: 64 KiB here, \S.* on the other 2 nodes$")
        self.assertEqual(health_param(odd["env.NCCL_DRIFT_CHECK"], "why"),
                         "env.NCCL_DRIFT_CHECK: 1 here, not set on the other 2 nodes")
        self.assertFalse([rec for rec in drift if health_param(rec, "metric") == "drift.split"], drift)
        drain = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("scontrol ")]
        self.assertEqual(len(drain), 1, r.stdout)
        self.assertIn("nodename=nodeB", drain[0])
        self.assertIn("drift.odd", drain[0])
        check_prometheus_text(self, prom)
        with open(prom) as f:
            text = f.read()
        self.assertIn('distbench_health_drift_odd{host="nodeB",key="limit.memlock"} 1\n', text)
        self.assertIn('distbench_health_node_status{host="nodeB"} 1\n', text)


class Faults(unittest.TestCase):
    TIMEOUT_S = 3

    def stop_rank(self, rank):
        """SIGSTOP one rank mid-sweep: every process of the job, on every host, is gone within -T + 5 s, mpirun exits
        4, and the report on nodeA says failed and keeps the sizes finished before."""
        js = CLUSTER.path(f"stop{rank}.json")
        proc = CLUSTER.start("allreduce", "-b", "1K", "-e", "16M", "-n", "200", "-T", str(self.TIMEOUT_S),
                             "--json", js)
        assert_stopped_rank_ends_job(self, proc, js, rank, NP, self.TIMEOUT_S)

    def test_a_hung_root_rank_ends_the_job(self):
        self.stop_rank(0)

    def test_b_hung_rank_on_another_host_ends_the_job(self):
        self.stop_rank(NP - 2)  # nodeC's first rank


class EnvLaunch(unittest.TestCase):
    """The env:// connector across the hosts, no MPI: 6 plain processes started in the hosts' namespaces with
    torchrun's variables, rank 0 listening on nodeA."""
    PORT = 29500
    SOAK = os.environ.get("ENV_SOAK", "")

    def start(self, *argv):
        procs = []
        for rank in range(NP):
            host = HOSTS[rank // SLOTS]
            env = dict(os.environ, MASTER_ADDR=HOSTS[0], MASTER_PORT=str(self.PORT), RANK=str(rank),
                       WORLD_SIZE=str(NP), LOCAL_RANK=str(rank % SLOTS), LOCAL_WORLD_SIZE=str(SLOTS))
            for name in ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"):
                env.pop(name, None)
            procs.append(subprocess.Popen([CLUSTER.path("rsh"), "--exec", host, *argv], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        return procs

    def finish(self, procs, timeout=60):
        out = []
        for p in procs:
            try:
                o, e = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                o, e = p.communicate()
            out.append((p.returncode, o, e))
        return out

    def test_a_info_sees_every_host(self):
        res = self.finish(self.start(BINARY, "info", "-T", "30"))
        for rank, (code, _, err) in enumerate(res):
            self.assertEqual(code, 0, f"rank {rank}: {err}")
        out = res[0][1]
        self.assertIn(f"job formed by: env:// rendezvous at {HOSTS[0]}:{self.PORT} (MASTER_PORT)", out)
        self.assertIn(f"ranks: {NP} on {len(HOSTS)} hosts", out)
        for i, host in enumerate(HOSTS):
            ranks = ",".join(str(i * SLOTS + k) for k in range(SLOTS))
            self.assertRegex(out, rf"\n  {host}\s+{SLOTS} ranks: {ranks}\n")

    def test_b_a_rank_killed_on_another_host_ends_the_job(self):
        if not self.SOAK or not os.access(self.SOAK, os.X_OK):
            self.skipTest("ENV_SOAK (tests/env/env_soak) not given")
        procs = self.start(self.SOAK, "60", "5")
        for rank, p in enumerate(procs):
            self.assertRegex(p.stdout.readline(), rf"^rank {rank} of {NP} formed the job on {HOSTS[rank // SLOTS]}")
        victim = NP - 2  # nodeC's first rank; the rsh agent execs, so the process is distbench's soak itself
        began = time.monotonic()
        procs[victim].kill()
        res = self.finish(procs, timeout=30)
        took = time.monotonic() - began
        lines = {r: [line for line in err.splitlines() if line.startswith("error:")]
                 for r, (_, _, err) in enumerate(res) if r != victim}
        print(f"\n  env:// across hosts: rank {victim} killed, the others gone in {took:.1f} s", file=sys.stderr)
        # one line each: rank 0 names the rank it lost; the others that loss or rank 0's word, and its connection
        for r, mine in lines.items():
            self.assertEqual(len(mine), 1, f"rank {r}: {mine}")
            self.assertRegex(mine[0], rf"rank {victim} \({HOSTS[2]}\) left the job without a goodbye")
        self.assertRegex(lines[0][0], rf"^error: rank 0 \({HOSTS[0]}\): rank {victim} \({HOSTS[2]}\) left the job "
                                      r"without a goodbye")
        for r, (code, _, err) in enumerate(res):
            if r != victim:
                self.assertEqual(code, 1, f"rank {r}: {err}")
        self.assertLess(took, 10)
        assert_no_process_left(self)


class Zero(unittest.TestCase):
    """distbench zero with one rank per host: the bytes the interfaces carried per step, next to the ZeRO formulas."""

    def test_a_network_bytes_per_step_follow_the_formulas(self):
        js = CLUSTER.path("zero.json")
        r = subprocess.run(["sh", SCRIPT, "run", "--timeout", str(MPI_TIMEOUT), "--map-by", "ppr:1:node", "-np",
                            str(len(HOSTS)), BINARY, "zero", "--params", "2M", "--layers", "8", "--check", "-n", "3",
                            "--json", js], env=CLUSTER.env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        report = load_json(js)
        self.assertEqual(report["status"], "complete")
        for rec in report["records"]:
            m = rec["metrics"]
            stage = rec["params"]["stage"]
            ratio = m["net_sent_mb"] / m["sent_mb"]
            print(f"\n  zero stage {stage}: formula {m['sent_mb']:.3f} MB sent per rank and step, interfaces "
                  f"{m['net_sent_mb']:.3f} MB sent, {m['net_received_mb']:.3f} MB received (x{ratio:.2f})",
                  file=sys.stderr)
            with self.subTest(stage=stage):
                self.assertEqual(m["wrong"], 0)
                # At least what a ring must send (the library may send more: its algorithm, TCP/IP headers).
                self.assertGreater(ratio, 0.98, m)
                self.assertLess(ratio, 2.0, m)
                self.assertGreater(m["net_received_mb"] / m["sent_mb"], 0.98, m)


def main():
    global CLUSTER
    reason = skip_reason()
    if reason:
        print(f"SKIP: {reason}")
        return SKIP
    if not BINARY or not os.access(BINARY, os.X_OK):
        print(f"error: set DISTBENCH to the distbench binary (got '{BINARY}')", file=sys.stderr)
        return 1
    CLUSTER = Cluster()
    return run_with_fixture(CLUSTER, "cluster")


if __name__ == "__main__":
    sys.exit(main())
