#!/usr/bin/env python3
"""The report formats from outside: `distbench report FILE --format md` prints, byte for byte, the --md file that the
run itself wrote, for every benchmark that writes reports (the same reporter makes both, the second time from the
JSON report); --jsonl streams the run a line per record; a report in the summary form (--per-rank summary, what
records keep above 64 ranks) reads back in `report`'s every format, `compare` and `model`, and agrees with the
--per-rank-file that holds every rank's figures. nccl-tests' JSON (-J/--output_file FILE.json, -I) read by a reader
written from nccl-tests 2.19's format the way its tools/analyze_perf_json.py reads it, the same from `report --format
nccl-tests-json`, and ingested by `history`.

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


# nccl-tests 2.19's JSON as its readers take it (its src/util.cu writes it, its tools/analyze_perf_json.py reads it).
NT_TOP = {"version": int, "start_time": str, "args": list, "env": list, "nccl_version": int, "config": dict,
          "results": list, "out_of_bounds": dict, "average_bus_bandwidth": dict, "errors": list, "end_time": str}
NT_CONFIG = {"nthreads": int, "ngpus": int, "minimum_bytes": int, "maximum_bytes": int, "warmup_iters": int,
             "iterations": int, "aggregated_iterations": int, "validation": int, "graph": int,
             "blocking_collectives": str, "per_iter_timing": str, "per_iter_skip": int, "parallel_init": str,
             "devices": list}
NT_ROW = {"size": int, "count": int, "type": str, "redop": str, "root": str, "actual_iterations": int,
          "experiment_name": str}
NT_PER_ITER = ["skipped_iterations", "min_us", "max_us", "avg_us", "p50_us", "p95_us", "p99_us", "stdev_us", "cv_pct",
               "times_us"]


def nt_figure(value):
    """A figure as nccl-tests writes it: a number, or "nan"."""
    return float(value) if value == "nan" or isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read_nccl_tests_json(path, time_key="time"):
    """Checks `path` against nccl-tests' format and returns its rows as (size, type, placement, time, busbw,
    per-iteration statistics or None). Fails on a key missing, misnamed, of the wrong type or out of order."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    for key, kind in NT_TOP.items():
        assert isinstance(data[key], kind), (key, data[key])
    assert data["version"] == 3
    assert all(isinstance(a, str) for a in data["args"] + data["env"])
    cfg = data["config"]
    for key, kind in NT_CONFIG.items():
        assert isinstance(cfg[key], kind), (key, cfg[key])
    assert ("step_factor" in cfg) != ("step_bytes" in cfg)
    for dev in cfg["devices"]:
        assert isinstance(dev["rank"], int) and isinstance(dev["hostname"], str) and isinstance(dev["device"], int)
        assert isinstance(dev["device_info"], str)
    rows, last = [], {}
    for r in data["results"]:
        for key, kind in NT_ROW.items():
            assert isinstance(r[key], kind), (key, r[key])
        int(r["root"])
        assert r["size"] > last.get((r["type"], r["redop"], r["root"]), -1), "sizes ascend"
        last[(r["type"], r["redop"], r["root"])] = r["size"]
        placements = [p for p in ("out_of_place", "in_place") if p in r]
        assert placements, r
        for p in placements:
            body = r[p]
            assert sorted(body) == sorted([time_key, "alg_bw", "bus_bw", "nwrong"]), body
            for key in (time_key, "alg_bw", "bus_bw"):
                assert nt_figure(body[key]) is not None, (key, body)
            assert body["nwrong"] is None or nt_figure(body["nwrong"]) is not None
            per = r.get(p + "_per_iter")
            if per is not None:
                assert list(per) == NT_PER_ITER, list(per)
                times = per["times_us"]
                assert len(times) >= 1 and 0 <= per["skipped_iterations"] < len(times)
                kept = sorted(times[per["skipped_iterations"]:])
                assert per["min_us"] <= per["p50_us"] <= per["p95_us"] <= per["p99_us"] <= per["max_us"], per
                assert per["min_us"] <= per["avg_us"] <= per["max_us"] and per["stdev_us"] >= 0, per
                assert (per["min_us"], per["max_us"]) == (kept[0], kept[-1])
                assert per["cv_pct"] == (per["stdev_us"] / per["avg_us"] * 100 if per["avg_us"] > 0 else 0)
            rows.append((r["size"], r["type"], p, nt_figure(body[time_key]), nt_figure(body["bus_bw"]), per))
    assert isinstance(data["out_of_bounds"]["count"], int) and data["out_of_bounds"]["okay"] in ("true", "false")
    assert data["average_bus_bandwidth"]["okay"] in ("true", "false", "unchecked")
    return data, rows


def same_numbers(a, b):
    """Equal, numbers to 1e-9 relative (a report read back keeps its samples in microseconds)."""
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_numbers(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_numbers(x, y) for x, y in zip(a, b))
    return a == b


class NcclTestsJson(Workdir):
    def test_nccl_tests_json_reads_as_nccl_tests_writes_it(self):
        a, b, c, d = (self.path(n) for n in ("a.json", "b.json", "c.json", "d.json"))
        quick = ["-n", "4", "-w", "1", "-q"]
        runs = [
            (2, ["allreduce", "-b", "8", "-e", "1K", "-f", "4", *quick, "-J", a, "--json", d]),
            (2, ["allreduce", "-b", "8", "-e", "64", "-d", "float32,float64", *quick, "--output_file", b,
                 "-I", "1", "-K", "1", "--placement", "in-place"]),
            (1, ["broadcast", "-b", "8", "-e", "64", *quick, "-C", "1", "--output-file", c, "--per_iter_timing", "1"]),
        ]
        results = run_concurrently([lambda n=n, args=args: run(MPIRUN + ["-np", str(n), BINARY, *args])
                                    for n, args in runs], workers=2)
        for (_, args), r in zip(runs, results):
            self.assertEqual(r.returncode, 0, f"{args}: {r.stderr}")
        notes = [line for line in results[0].stderr.splitlines() if "-J writes nccl-tests' JSON" in line]
        self.assertEqual(len(notes), 1, results[0].stderr)  # -J: said once; --output_file: not at all
        self.assertLessEqual(len(notes[0]), 100)
        self.assertNotIn("-J writes", results[1].stderr + results[2].stderr)

        data, rows = read_nccl_tests_json(a)
        self.assertEqual([(s, p) for s, _, p, *_ in rows],
                         [(s, p) for s in (8, 32, 128, 512) for p in ("out_of_place", "in_place")])
        self.assertTrue(all(per is None for *_, per in rows))
        self.assertEqual(data["config"]["per_iter_timing"], "false")
        self.assertEqual([dev["rank"] for dev in data["config"]["devices"]], [0, 1])
        self.assertEqual(load_json(d)["schema_version"], 4)  # --json keeps distbench's own
        # the report's time is the table's (the records' time_us)
        ours = {(x["params"]["bytes"], x["params"]["placement"]): x["metrics"]["time_us"]
                for x in load_json(d)["records"]}
        self.assertEqual([t for s, _, p, t, *_ in rows], [ours[(s, p.replace("_", "-"))] for s, _, p, *_ in rows])

        data, rows = read_nccl_tests_json(b)
        self.assertEqual([(s, t, p) for s, t, p, *_ in rows],
                         [(s, t, "in_place") for t in ("float", "double") for s in (8, 16, 32, 64)])
        self.assertTrue(all(per["skipped_iterations"] == 1 and len(per["times_us"]) == 4 for *_, per in rows))
        self.assertEqual(data["config"]["per_iter_skip"], 1)

        _, rows = read_nccl_tests_json(c, time_key="cpu_time")
        self.assertTrue(rows and all(per is not None for *_, per in rows))

        # the same document again from the JSON report; and history reads it as nccl-tests' own
        again = run([BINARY, "report", d, "--format", "nccl-tests-json"])
        self.assertEqual(again.returncode, 0, again.stderr)
        with open(a, encoding="utf-8") as f:
            self.assertTrue(same_numbers(json.loads(again.stdout), json.load(f)))
        db = self.path("h.db")
        ingest = run([BINARY, "history", "ingest", db, a])
        self.assertEqual(ingest.returncode, 0, ingest.stderr)
        shown = run([BINARY, "history", "list", db])
        self.assertIn("allreduce", shown.stdout, shown.stderr)
        refused = run([BINARY, "allreduce", "-J", self.path("x.txt")])
        self.assertEqual(refused.returncode, 2)
        self.assertIn("ends in .json", refused.stderr)

if __name__ == "__main__":
    unittest.main(verbosity=2)
