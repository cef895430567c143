#!/usr/bin/env python3
"""The report formats from outside: `distbench report FILE --format md` prints, byte for byte, the --md file that the
run itself wrote, for every benchmark that writes reports (the same reporter makes both, the second time from the
JSON report); --jsonl streams the run a line per record; a report in the summary form (--per-rank summary, what
records keep above 64 ranks) reads back in `report`'s every format, `compare` and `model`, and agrees with the
--per-rank-file that holds every rank's figures.

Environment: DISTBENCH (path of the binary).
"""
import json
import os
import subprocess
import sys
import tempfile
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

class OneSweepAtNp3(unittest.TestCase):
    """One small sweep at np 3 written every way at once (--json, --md, --jsonl, --per-rank-file), its records in the
    summary form (--per-rank summary: what records keep above 64 ranks); each test reads what it needs."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.js, cls.md, cls.jl, cls.side = (os.path.join(cls._tmp.name, n) for n in ("s.json", "s.md", "s.jsonl",
                                                                                      "ranks.jsonl"))
        cls.sweep = run(MPIRUN + ["-np", "3", BINARY, "allreduce", "-b", "8", "-e", "4K", "-f", "2", "-n", "5", "-q",
                                "--per-rank", "summary", "--json", cls.js, "--md", cls.md, "--jsonl", cls.jl,
                                "--per-rank-file", cls.side])

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.sweep.returncode, 0, self.sweep.stderr)
        self.report = load_json(self.js)

    def test_json_lines_stream_a_line_per_record(self):
        report = self.report
        with open(self.jl, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([line["type"] for line in lines],
                         ["run"] + ["record"] * len(report["records"]) + ["end"])
        self.assertEqual(lines[0]["benchmark"], "collective")
        self.assertEqual([line["params"] for line in lines[1:-1]], [rec["params"] for rec in report["records"]])
        # both placements of a size, a row
        self.assertEqual([line["row"] for line in lines[1:-1]], [i // 2 for i in range(len(report["records"]))])
        self.assertEqual((lines[-1]["status"], lines[-1]["summary"]), (report["status"], report["summary"]))
        # the report's stream again: the same lines, made by the same reporter from the JSON report
        again = run([BINARY, "report", self.js, "--format", "jsonl"])
        self.assertEqual(again.returncode, 0, again.stderr)
        replayed = [json.loads(line) for line in again.stdout.splitlines()]
        self.assertEqual([(x["type"], x.get("params"), x.get("row")) for x in replayed],
                         [(x["type"], x.get("params"), x.get("row")) for x in lines])

    def test_the_summary_form_agrees_with_the_per_rank_file(self):
        report = self.report
        self.assertEqual(report["schema_version"], 4)
        host_of = {x["rank"]: x["host"] for x in report["environment"]["ranks"]}
        keys = [f["key"] for f in report["layout"]["rank_figures"]]
        with open(self.side, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([line["type"] for line in lines], ["per_rank"] + ["record"] * len(report["records"]) + ["end"])
        self.assertEqual((lines[0]["world_size"], lines[-1]["status"]), (3, "complete"))
        self.assertEqual([lines[0]["hosts"][i] for i in lines[0]["host_of_rank"]], [host_of[i] for i in range(3)])
        for rec, line in zip(report["records"], lines[1:-1]):
            self.assertNotIn("ranks", rec)
            self.assertEqual((line["params"], line["ranks"]), (rec["params"], 3))
            summary = rec["rank_summary"]
            self.assertEqual((summary["ranks"], list(summary["figures"])), (3, keys))
            for key in keys:
                column, figure = line["figures"][key], summary["figures"][key]
                self.assertEqual((figure["min"], figure["max"]), (min(column), max(column)), key)
                # the slowest rank first (the lower rank among equals), named with its host
                top = max(range(3), key=lambda i: (column[i], -i))
                self.assertEqual(figure["highest"][0]["rank"], top, key)
                for end in figure["highest"] + figure["lowest"]:
                    self.assertEqual((end["host"], end["value"]), (host_of[end["rank"]], column[end["rank"]]), key)

    def test_the_summary_form_reads_back_in_report_compare_and_model(self):
        report = self.report
        # report: every format; Markdown as the run wrote it, JSON with the summary as it was
        for fmt in ("md", "json", "csv", "jsonl", "html"):
            again = run([BINARY, "report", self.js, "--format", fmt])
            self.assertEqual(again.returncode, 0, f"{fmt}: {again.stderr}")
            if fmt == "md":
                with open(self.md, encoding="utf-8") as f:
                    self.assertEqual(again.stdout, f.read())
            if fmt == "json":
                self.assertEqual([x["rank_summary"] for x in json.loads(again.stdout)["records"]],
                                 [x["rank_summary"] for x in report["records"]])
        same = run([BINARY, "compare", self.js, self.js, "--threshold-only"])  # one run a side: no test
        self.assertEqual(same.returncode, 0, same.stdout + same.stderr)
        self.assertIn(f"0 slower, 0 faster, {len(report['records'])} same", same.stdout)
        fitted = run([BINARY, "model", self.js, "--format", "json"])
        self.assertEqual(fitted.returncode, 0, fitted.stderr)
        self.assertEqual(json.loads(fitted.stdout)["models"][0]["ranks"], [3])

if __name__ == "__main__":
    unittest.main(verbosity=2)
