#!/usr/bin/env python3
"""distbench health with the scaled link schedule (--links scaled: the ring, the partners at distances 2^k and a
seeded random ring, in rounds of disjoint pairs) on 10 namespace hosts, one rank each, one host's egress shaped to
100 Mbit/s (`netns_cluster.sh shape`):

- the check measures fewer pairs than every pair (the schedule the report's config names), in rounds;
- the shaped host, and only it, is named (degraded, its re-test alone the figure that decided, its drain line the
  only one); every other host is healthy;
- the reports hold the summary form above 8 nodes: no record of a healthy link, a summary of every node's links,
  the shaped host's links as suspects.

Environment: DISTBENCH (path of the binary); HEALTH_SCALE_HOSTS (default 10, at most 26) to run it larger by hand.
Needs root and `ip netns`; exits 77 (meson: SKIP) where it cannot build the cluster. About 25 s here.
"""
import os
import shlex
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import SKIP, check_prometheus_text, load_json, run_with_fixture  # noqa: E402
from netns_fixture import NetnsCluster  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "")
HOSTS = int(os.environ.get("HEALTH_SCALE_HOSTS", "10"))
SHAPED = "nodeG"  # not nodeA: mpirun and the root run there
RATE_MBIT = 100
# Small probes: the shaped host's links take 4 MiB windows at 12.5 MB/s otherwise. Six ranks' worth of noise on two
# cores: the median judgement's tolerance widened as the 3-host check's is (tests/cluster/test_cluster.py).
ARGS = ["--links", "scaled", "--link-seed", "7", "--link-bytes", "256K", "--memory-bytes", "16M",
        "--allreduce-bytes", "1M", "--tolerance", "50%", "-T", "30"]


class ScaleCluster(NetnsCluster):
    def __init__(self):
        super().__init__("health-scale", HOSTS, {SHAPED: RATE_MBIT})

    def health(self, *args):
        return self.run(HOSTS, BINARY, "health", *args, timeout=150)


CLUSTER = None


class ScaledSchedule(unittest.TestCase):
    def test_a_the_shaped_host_alone_is_named(self):
        js, prom = CLUSTER.path("h.json"), CLUSTER.path("h.prom")
        began = time.monotonic()
        r = CLUSTER.health(*ARGS, "--json", js, "--prom", prom)
        took = time.monotonic() - began
        report = load_json(js)
        records = [rec["params"] | {"value": rec["metrics"]["value"]} for rec in report["records"]]
        phases = {p["subject"]: p["value"] for p in records if p["metric"] == "phase.seconds"}
        config = report["config"]
        print(f"\n  health, {HOSTS} hosts, {SHAPED} at {RATE_MBIT} Mbit/s: exit {r.returncode} in {took:.1f} s; "
              f"{config['link_pairs']} pairs in {config['link_rounds']} rounds; phases (s): " +
              ", ".join(f"{k} {v:.2f}" for k, v in phases.items()) +
              f"; console {len(r.stdout.splitlines())} lines, JSON {os.path.getsize(js)} B, "
              f".prom {os.path.getsize(prom)} B", file=sys.stderr)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # the scaled schedule ran: fewer pairs than every pair, rounds of disjoint pairs
        self.assertEqual(config["links"], "scaled")
        self.assertLess(config["link_pairs"], HOSTS * (HOSTS - 1) // 2)
        self.assertLess(config["link_rounds"], config["link_pairs"])
        # the shaped host alone is named, by its re-test alone
        verdicts = {p["subject"]: p for p in records if p["metric"] == "node.status"}
        self.assertEqual(len(verdicts), HOSTS)
        self.assertEqual({h: p["status"] for h, p in verdicts.items() if p["status"] != "healthy"},
                         {SHAPED: "degraded"}, r.stdout)
        self.assertIn("isolation.bandwidth_gbps", verdicts[SHAPED]["why"])
        self.assertTrue(verdicts[SHAPED]["why"].startswith(f"{SHAPED}->"), verdicts[SHAPED]["why"])
        drain = [shlex.split(line.strip()) for line in r.stdout.splitlines() if line.strip().startswith("scontrol ")]
        self.assertEqual([words[2] for words in drain], [f"nodename={SHAPED}"], r.stdout)
        # the summary form: no healthy link kept, the shaped host's outgoing links as suspects, each node's summary
        links = [p for p in records if p["metric"] == "link.bandwidth_gbps"]
        self.assertTrue(links, r.stdout)
        healthy_links = [p["subject"] for p in links if p["status"] == "healthy"]
        self.assertFalse(healthy_links, f"{len(healthy_links)} healthy links kept: {healthy_links[:5]} ...")
        self.assertTrue(any(p["subject"].startswith(f"{SHAPED}->") for p in links), links)
        self.assertEqual(sorted(p["host"] for p in records if p["metric"] == "node.link.min_gbps"),
                         sorted(verdicts))
        low = [p for p in records if p["metric"] == "node.link.min_gbps" and p["host"] == SHAPED][0]
        self.assertLess(low["value"], RATE_MBIT / 8000 * 1.15)
        # the console: what is not healthy, and the verdict; no matrix
        self.assertNotIn("Link bandwidth (GB/s", r.stdout)
        self.assertIn(f"# Health: degraded (1 degraded, {HOSTS - 1} healthy; {HOSTS} nodes)", r.stdout)
        check_prometheus_text(self, prom)
        with open(prom) as f:
            text = f.read()
        self.assertIn(f'distbench_health_node_status{{host="{SHAPED}"}} 1\n', text)
        self.assertEqual(text.count("distbench_health_node_status{"), HOSTS)


def main():
    global CLUSTER
    if not BINARY or not os.access(BINARY, os.X_OK):
        print(f"error: set DISTBENCH to the distbench binary (got '{BINARY}')", file=sys.stderr)
        return 1
    if not 4 <= HOSTS <= 26:
        print(f"error: HEALTH_SCALE_HOSTS must be 4..26 (got {HOSTS})", file=sys.stderr)
        return 1
    CLUSTER = ScaleCluster()
    return run_with_fixture(CLUSTER, "health scale")


if __name__ == "__main__":
    sys.exit(main())
