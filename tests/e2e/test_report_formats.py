#!/usr/bin/env python3
"""The report formats from outside: `distbench report FILE --format md` prints, byte for byte, the --md file that the
run itself wrote, for every benchmark that writes reports (the same reporter makes both, the second time from the
JSON report); --jsonl streams the run a line per record.

Environment: DISTBENCH (path of the binary).
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import Workdir, load_json, run_concurrently  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "mpi_yield_when_idle", "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]

# Each benchmark kind that writes reports, as small as it runs; health's verdict may be any of its codes on a busy
# machine, the others succeed.
RUNS = {
    "collective": ["allreduce", "-b", "8", "-e", "1K", "-f", "8", "-n", "3", "-q"],
    "latency": ["latency", "-b", "1", "-e", "64", "-f", "8", "-n", "3", "-q"],
    "zero": ["zero", "--params", "4096", "--layers", "2", "-n", "2", "-w", "0", "-q"],
    "train": ["train", "--layers", "2", "--hidden", "16", "--batch", "8", "--steps", "2", "-q"],
    "tp operations": ["tp", "--shape", "8x8", "-n", "2", "-w", "0", "-q"],
    "tp layers": ["tp", "--layer", "all", "--in", "16", "--out", "32", "--batch", "4", "-n", "2", "-w", "0", "-q"],
    "health": ["health", "--memory-bytes", "1M", "--allreduce-bytes", "64K", "--link-bytes", "64K"],
}


def run(args, timeout=120):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


class ReportAgain(Workdir):
    def test_markdown_from_the_json_is_the_runs_own(self):
        def one(name, args):
            js, md = self.path(f"{name}.json"), self.path(f"{name}.md")
            return run(MPIRUN + ["-np", "2", BINARY, *args, "--json", js, "--md", md]), js, md
        results = run_concurrently([lambda n=n, a=a: one(n.replace(" ", "_"), a) for n, a in RUNS.items()], workers=2)
        for name, (r, js, md) in zip(RUNS, results):
            with self.subTest(name):
                self.assertIn(r.returncode, (0, 1, 2) if name == "health" else (0,), r.stdout + r.stderr)
                self.assertEqual(load_json(js)["schema_version"], 4)
                with open(md, encoding="utf-8") as f:
                    live = f.read()
                again = run([BINARY, "report", js, "--format", "md"])
                self.assertEqual(again.returncode, 0, again.stderr)
                self.assertEqual(again.stdout, live)
                # --output writes what stdout shows
                out = self.path(f"{name}.again.md".replace(" ", "_"))
                self.assertEqual(run([BINARY, "report", js, "--output", out]).returncode, 0)
                with open(out, encoding="utf-8") as f:
                    self.assertEqual(f.read(), live)

    def test_json_lines_stream_a_line_per_record(self):
        js, jl = self.path("r.json"), self.path("r.jsonl")
        r = run(MPIRUN + ["-np", "2", BINARY, "allreduce", "-b", "8", "-e", "64", "-f", "8", "-n", "3", "-q",
                          "--json", js, "--jsonl", jl])
        self.assertEqual(r.returncode, 0, r.stderr)
        report = load_json(js)
        with open(jl, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([line["type"] for line in lines],
                         ["run"] + ["record"] * len(report["records"]) + ["end"])
        self.assertEqual(lines[0]["benchmark"], "collective")
        self.assertEqual([line["params"] for line in lines[1:-1]], [rec["params"] for rec in report["records"]])
        self.assertEqual([line["row"] for line in lines[1:-1]], [0, 0, 1, 1])  # both placements of a size, a row
        self.assertEqual((lines[-1]["status"], lines[-1]["summary"]), (report["status"], report["summary"]))
        # the report's stream again: the same lines, made by the same reporter from the JSON report
        again = run([BINARY, "report", js, "--format", "jsonl"])
        self.assertEqual(again.returncode, 0, again.stderr)
        replayed = [json.loads(line) for line in again.stdout.splitlines()]
        self.assertEqual([(x["type"], x.get("params"), x.get("row")) for x in replayed],
                         [(x["type"], x.get("params"), x.get("row")) for x in lines])


if __name__ == "__main__":
    unittest.main(verbosity=2)
