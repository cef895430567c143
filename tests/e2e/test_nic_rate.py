#!/usr/bin/env python3
"""Each node's NIC rate read at run time: a run records this machine's (one entry per node, matching sysfs whatever
it says: a container's eth0 may report 10000 Mb/s or -1), health shows it as information, and model holds
bandwidths to it or says why not.

Environment: DISTBENCH (path of the binary), DISTBENCH_SOURCE_ROOT (the source tree, for reports/example.json).
"""
import math
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import Workdir, health_checks, load_json  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
SOURCE_ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "mpi_yield_when_idle", "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]


def mpirun(np, *args, timeout=120):
    return subprocess.run(MPIRUN + ["-np", str(np), BINARY, *args], capture_output=True, text=True, timeout=timeout)


def distbench(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60)


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def speed_known(name):
    """Whether sysfs gives net interface `name` a link rate (a whole number above 0, not the unknown markers)."""
    text = read(f"/sys/class/net/{name}/speed")
    return text is not None and text.lstrip("-").isdigit() and int(text) > 0 and int(text) not in (65535, 4294967295)


def carries(name):
    """Up (or 'unknown', as virtual devices say), not loopback, not enslaved."""
    base = f"/sys/class/net/{name}"
    return (name != "lo" and read(f"{base}/type") != "772" and read(f"{base}/operstate") in ("up", "unknown")
            and not os.path.lexists(f"{base}/master"))


class NicRate(Workdir):
    def check_matches_sysfs(self, nic):
        """A recorded rate is the file it names; an unknown one means no up interface of this machine has one."""
        if nic["mbps"] is not None:
            self.assertTrue(nic["source"].startswith("/sys/class/"), nic)
            self.assertEqual(float(read(nic["source"]).split()[0]) * (1000 if "infiniband" in nic["source"] else 1),
                             nic["mbps"], nic)
            self.assertTrue(nic["interface"], nic)
        else:
            self.assertIsNone(nic["interface"], nic)
            rdma = "/sys/class/infiniband"
            self.assertFalse(os.path.isdir(rdma) and os.listdir(rdma), "an RDMA device, yet no rate: " + str(nic))
            known = [n for n in os.listdir("/sys/class/net") if carries(n) and speed_known(n)]
            self.assertEqual(known, [], nic)
            self.assertTrue(nic["note"].startswith("no "), nic)

    def test_a_run_records_one_rate_per_node_as_sysfs_says(self):
        js = self.path("r.json")
        r = mpirun(3, "allreduce", "-b", "8", "-e", "1K", "-n", "3", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = load_json(js)
        nics = report["environment"]["nic_rates"]
        self.assertEqual(len(nics), 1, nics)  # one node, three ranks: one entry
        self.assertEqual(nics[0]["host"], report["environment"]["ranks"][0]["host"])
        self.check_matches_sysfs(nics[0])
        # model: every rank on one node, so no traffic crossed a NIC; --link-gbps is said as the source
        m = distbench("model", js)
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertIn("# link rate none: every report ran on one node", m.stdout)
        m = distbench("model", js, "--link-gbps", "2")
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertIn("# link 2 GB/s per rank and direction: --link-gbps\n", m.stdout)
        # the report read back and written again keeps them
        j = distbench("report", js, "--format", "json")
        self.assertEqual(j.returncode, 0, j.stderr)
        self.assertIn('"nic_rates"', j.stdout)

    def test_a_report_of_before_says_nothing_of_the_link(self):
        example = os.path.join(SOURCE_ROOT, "reports", "example.json")
        self.assertNotIn("nic_rates", load_json(example)["environment"])
        m = distbench("model", example)
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertNotIn("# link", m.stdout)

    def test_health_shows_each_nodes_rate_as_information(self):
        js = self.path("h.json")
        r = mpirun(2, "health", "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        report = load_json(js)
        checks = health_checks(report)
        nic = [v for k, v in checks.items() if k[0] == "node.nic.link_gbps"]
        self.assertEqual(len(nic), 1, list(checks))
        self.assertEqual(nic[0]["params"]["status"], "healthy")
        recorded = report["environment"]["nic_rates"][0]
        self.check_matches_sysfs(recorded)
        value = nic[0]["metrics"]["value"]
        if recorded["mbps"] is None:
            self.assertTrue(value is None or math.isnan(value), nic[0])
            self.assertIn("unknown: ", nic[0]["params"]["why"])
        else:
            self.assertAlmostEqual(value, recorded["mbps"] / 8000)  # Mb/s to GB/s
            self.assertIn(recorded["source"], nic[0]["params"]["limit"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
