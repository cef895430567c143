#!/usr/bin/env python3
"""End-to-end tests: the distbench binary run as a user runs it, under a real mpirun.

Environment: DISTBENCH (path of the binary), DISTBENCH_SOURCE_ROOT (the source tree, for hostfiles/).
"""
import csv
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from xml.etree import ElementTree

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import (Workdir, assert_stopped_rank_ends_job, check_prometheus_text,  # noqa: E402
                               collective_results, error_lines, health_checks, load_json, rank_pids,
                               run_concurrently, skip_under_sanitizers, wait_for_results)
from png_pixels import read_png  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
SOURCE_ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "mpi_yield_when_idle", "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]


def mpirun(np, *args, timeout=120, **kwargs):
    return subprocess.run(MPIRUN + ["-np", str(np), BINARY, *args], capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def mpirun_rank1_late(delay_s, *args, timeout=120):
    """Two ranks, MPMD: rank 1's shell sleeps `delay_s` before it becomes distbench (exec keeps its start time)."""
    return subprocess.run(MPIRUN + ["-np", "1", BINARY, *args, ":", "-np", "1", "sh", "-c",
                                    f'sleep {delay_s}; exec "$0" "$@"', BINARY, *args],
                          capture_output=True, text=True, timeout=timeout)


def single(*args, timeout=60):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout)


def run_bad_input(test, cases, *command):
    """Runs `command` and each (np, args, needle) case's args under mpirun, three at a time (run_concurrently), each
    with a --json path of its own that it must not write; returns (args, needle, json path, result) per case."""
    paths = [test.path(f"bad{i}.json") for i in range(len(cases))]
    results = run_concurrently([lambda n=np, a=args, js=js: mpirun(n, *command, *a, "--json", js)
                                for (np, args, _), js in zip(cases, paths)])
    return [(args, needle, js, r) for (_, args, needle), js, r in zip(cases, paths, results)]


class GoodRuns(Workdir):
    def test_a_list_of_tensors_fused_and_per_tensor(self):
        js = self.path("t.json")
        r = mpirun(3, "allreduce", "--tensors", "7", "-b", "4K", "-e", "64K", "-f", "4", "-n", "5", "-d",
                   "float32,bfloat16", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("per-tensor", r.stdout)
        report = load_json(js)
        self.assertEqual(report["config"]["tensors"], 7)
        self.assertEqual(report["config"]["placements"], ["in-place"])
        records = report["records"]
        self.assertEqual(len(records), 3 * 2 * 2)  # sizes x types x (per-tensor, fused)
        for rec in records:
            self.assertEqual(rec["params"]["tensors"], 7)
            self.assertEqual(rec["params"]["placement"], "in-place")
            self.assertEqual(rec["metrics"]["wrong"], 0, rec["params"])
            phases = [p["name"] for p in rec["phases"]]
            if rec["params"]["fusion"] == "fused":
                self.assertEqual(phases, ["time", "pack", "allreduce", "unpack"])
                parts = sum(p["time_us"]["mean"] for p in rec["phases"][1:])
                self.assertLess(abs(parts - rec["phases"][0]["time_us"]["mean"]) / parts, 0.2)
            else:
                self.assertEqual(rec["params"]["fusion"], "per-tensor")
                self.assertEqual(phases, ["time"])
        # --fuse on: the fused column alone
        r = mpirun(2, "allreduce", "--tensors", "4", "--fuse", "on", "-b", "1K", "-e", "1K", "-n", "3", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([rec["params"]["fusion"] for rec in load_json(js)["records"]], ["fused"])

    def test_start_up_is_timed_and_a_late_rank_named(self):
        # Rank 1's shell sleeps 3 s before it becomes distbench (MPMD): it enters main() 3 s after rank 0, and rank 0's
        # MPI_Init waits for it. The header, the report's start-up and its per-rank list say so.
        js = self.path("late.json")
        args = ["allreduce", "-b", "8", "-e", "8", "-n", "3", "--json", js]
        r = mpirun_rank1_late(3, *args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        startup = load_json(js)["startup"]
        keys = ["launch_s", "options_s", "connect_s", "backend_s", "communicator_s", "first_collective_s", "total_s"]
        self.assertEqual(list(startup["phases"]), keys)
        late = startup["late_s"]
        self.assertEqual(late["ranks"], 2)
        self.assertEqual(late["highest"][0]["rank"], 1, late)
        self.assertTrue(2.5 < late["max"] < 10, late)
        host = late["highest"][0]["host"]
        self.assertRegex(r.stdout, rf"# started late: rank 1 \({re.escape(host)}\) began 3\.\d\d s after the first rank")
        self.assertIn("# start-up: ", r.stdout)
        self.assertNotIn("late_start", [w["code"] for w in load_json(js)["warnings"]])  # under 5 s
        ranks = startup["ranks"]
        self.assertEqual([x["rank"] for x in ranks], [0, 1])
        self.assertGreater(ranks[0]["connect_s"], 2.5)  # rank 0 waited for rank 1 in MPI_Init
        self.assertGreater(ranks[1]["launch_s"], 2.5)  # exec kept the shell's start: rank 1's launch took 3 s
        for x in ranks:
            self.assertAlmostEqual(sum(x[k] for k in keys[:-1]), x["total_s"], delta=1e-6)
            for k in keys:
                self.assertGreaterEqual(x[k], 0)

    def test_allreduce_writes_parseable_json_and_csv(self):
        js, cs = self.path("r.json"), self.path("r.csv")
        r = mpirun(2, "allreduce", "-b", "8", "-e", "64K", "-n", "5", "--json", js, "--csv", cs)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("busbw", r.stdout)
        self.assertIn("# Avg bus bandwidth", r.stdout)
        report = load_json(js)
        self.assertEqual(report["schema_version"], 4)
        self.assertEqual(report["status"], "complete")
        self.assertEqual(report["environment"]["world_size"], 2)
        self.assertEqual(len(report["environment"]["ranks"]), 2)
        results = collective_results(report)
        self.assertEqual(len(results), 14 * 2)  # 8 B .. 64 KiB by 2, out-of-place and in-place
        for res in results:
            self.assertEqual(res["wrong"], 0)
            self.assertEqual(res["backend"], "mpi")
            self.assertEqual(len(res["samples_us"]), 5)
            self.assertGreater(res["time_us"]["median"], 0)
            # busbw = algbw * 2(n-1)/n = algbw at n = 2
            self.assertAlmostEqual(res["busbw_gbps"], res["algbw_gbps"], places=9)
        with open(cs, newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), len(results))
        self.assertEqual({row["wrong"] for row in rows}, {"0"})
        self.assertEqual(sorted(os.listdir(self.dir)), ["r.csv", "r.json"])  # no temporary files left

    def test_markdown_report_has_the_table(self):
        md = self.path("r.md")
        r = mpirun(2, "allreduce", "-b", "8", "-e", "1K", "-f", "4", "-n", "3", "--md", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(md) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "## distbench allreduce")
        rows = [line for line in lines if line.startswith("| ") and line[2].isdigit()]
        self.assertEqual([row.split(" | ")[0] for row in rows], ["| 8", "| 32", "| 128", "| 512"])
        self.assertTrue(lines[-1].startswith("**Wrong elements:** 0 OK"), lines[-1])
        self.assertIn("**Avg bus bandwidth:**", lines[-1])
        self.assertIn("**Status:** complete", lines[-1])

    def test_latency_between_pairs_has_its_own_columns_in_every_report(self):
        js, cs, md = self.path("l.json"), self.path("l.csv"), self.path("l.md")
        r = mpirun(4, "latency", "-b", "1", "-e", "4K", "-f", "8", "-n", "5", "--json", js, "--csv", cs, "--md", md)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("# latency: blocking send/receive ping-pong (as osu_latency) in pairs 0-1, 2-3, ... (2 pairs at "
                      "once); one-way time = half a round trip", lines)
        header = next(line for line in lines if line.startswith("#") and "latency" in line and "size" in line)
        self.assertEqual(header.split(), ["#", "size", "pairs", "latency", "median", "p99", "slowest", "bw", "#wrong"])
        rows = [line.split() for line in lines if not line.startswith("#")]
        self.assertEqual([row[0] for row in rows], ["1", "8", "64", "512", "4096"])
        self.assertEqual({row[1] for row in rows}, {"2"})
        self.assertEqual({row[-1] for row in rows}, {"0"})
        self.assertIn("# Wrong elements: 0", lines)

        report = load_json(js)
        self.assertEqual((report["schema_version"], report["benchmark"], report["status"]), (4, "latency", "complete"))
        self.assertEqual(report["layout"]["params"], ["backend", "bytes", "pairs"])
        self.assertEqual(report["summary"]["records"], 5)
        self.assertEqual(report["summary"]["wrong"], 0)
        for rec in report["records"]:
            self.assertEqual(rec["kind"], "latency")
            self.assertEqual(rec["metrics"]["wrong"], 0)
            self.assertEqual(len(rec["phases"][0]["samples_us"]), 5)
            ranks = rec["ranks"]
            self.assertEqual([(x["rank"], x["peer"]) for x in ranks], [(0, 1), (1, 0), (2, 3), (3, 2)])
            mean = sum(x["latency_us"] for x in ranks) / 4
            self.assertAlmostEqual(rec["metrics"]["latency_us"], mean, delta=1e-9 * mean)
            self.assertAlmostEqual(rec["metrics"]["slowest_rank_us"], max(x["latency_us"] for x in ranks),
                                   delta=1e-9 * mean)
        with open(cs, newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([row["bytes"] for row in rows], ["1", "8", "64", "512", "4096"])
        self.assertEqual({row["wrong"] for row in rows}, {"0"})
        self.assertIn("latency_us", rows[0])
        with open(md) as f:
            md_lines = f.read().splitlines()
        self.assertEqual(md_lines[0], "## distbench latency")
        self.assertTrue(any(line.startswith("| size (B) | pairs | latency (us) |") for line in md_lines), md_lines)
        self.assertIn("**Wrong elements:** 0", md_lines[-1])

    def test_latency_times_at_least_osu_latencys_round_trips_unless_told(self):
        # osu_latency times 1000 round trips above 8 KiB after 10 untimed (10000 after 100 up to 8 KiB); at 1 MiB a
        # sample of distbench's 0.5 ms holds a few, so its 20 samples alone would time about 80
        js, js_n = self.path("lo.json"), self.path("lo-n.json")
        r, rn = run_concurrently([
            lambda: mpirun(2, "latency", "-b", "1M", "-e", "1M", "--json", js),
            lambda: mpirun(2, "latency", "-b", "1M", "-e", "1M", "-n", "3", "-w", "2", "--json", js_n)])
        self.assertEqual((r.returncode, rn.returncode), (0, 0), r.stderr + rn.stderr)
        self.assertIn("# round trips: osu_latency's, 100 untimed then 10000 timed up to 8 KiB, 10 and 1000 above "
                      "(timed for at most 1 s per size)", r.stdout)
        rec = load_json(js)["records"][0]
        timed = rec["ops_per_sample"] * len(rec["phases"][0]["samples_us"])
        # at least OSU's 1000, unless 1 s of them did not fit (a round trip over 1 ms: not on a machine that runs this)
        self.assertGreaterEqual(timed, 1000, rec["ops_per_sample"])
        self.assertIsNone(load_json(js)["config"]["warmup_iters"])  # OSU's, which depend on the size
        told = load_json(js_n)
        self.assertEqual(len(told["records"][0]["phases"][0]["samples_us"]), 3)  # -n: exactly the samples asked for
        self.assertEqual(told["config"]["warmup_iters"], 2)
        self.assertIn("# round trips: 2 untimed, then samples 3", rn.stdout)

    def test_latency_refuses_the_sweep_loop_options(self):
        # no fault columns, one message at a time: --show-faults, -m and -G are the collectives' (unknown here)
        for flag in (["--show-faults"], ["-m", "2"], ["-G", "1"]):
            r = mpirun(2, "latency", "-b", "8", "-e", "8", "-n", "3", "-w", "1", *flag)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(f"error: unknown option '{flag[0]}' for latency", r.stderr)

    def test_latency_needs_ranks_that_pair_up(self):
        r = mpirun(3, "latency", "-e", "8")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(error_lines(r.stderr)[:1],
                         ["error: latency pairs ranks 0-1, 2-3, ...: 3 ranks do not pair up; run an even number of "
                          "ranks (mpirun -np 2, 4, ...)"])
        r = single("latency", "-f", "1")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(error_lines(r.stderr), ["error: -f/--stepfactor 1 must be greater than 1"])

    def test_every_collective_at_three_ranks(self):
        for coll in ["allreduce", "reduce-scatter", "allgather", "broadcast", "reduce", "alltoall", "gather",
                     "scatter", "sendrecv"]:
            with self.subTest(collective=coll):
                js = self.path(coll + ".json")
                r = mpirun(3, coll, "-b", "1K", "-e", "8K", "-n", "3", "-w", "1", "-r", "2", "--json", js)
                self.assertEqual(r.returncode, 0, r.stderr)
                report = load_json(js)
                self.assertEqual(report["status"], "complete")
                self.assertTrue(all(res["wrong"] == 0 for res in collective_results(report)))
                self.assertTrue(all(res["nranks"] == 3 for res in collective_results(report)))

    def test_all_datatypes_and_operators(self):
        js = self.path("all.json")
        r = mpirun(2, "allreduce", "-b", "64", "-e", "1K", "-n", "2", "-d", "all", "-o", "all", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        results = collective_results(load_json(js))
        combos = {(res["dtype"], res["op"]) for res in results}
        self.assertEqual(len(combos), 6 * 8 + 4 * 5)  # bitwise operators on the six integer types only
        self.assertTrue(all(res["wrong"] == 0 for res in results))

    def test_partitioned_size_convention_matches_nccl_tests(self):
        js = self.path("ag.json")
        r = mpirun(4, "allgather", "-b", "1000", "-e", "1000", "-n", "2", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        res = collective_results(load_json(js))[0]
        self.assertEqual(res["count"], 62)       # 1000 B = 250 floats, 62 per rank
        self.assertEqual(res["bytes"], 62 * 4 * 4)  # S = count * nranks * size
        self.assertAlmostEqual(res["busbw_gbps"], res["algbw_gbps"] * 3 / 4, places=9)

    def test_groups_run_side_by_side(self):
        js = self.path("g.json")
        r = mpirun(4, "allreduce", "-b", "1K", "-e", "1K", "-n", "2", "--group-size", "2", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        res = collective_results(load_json(js))[0]
        self.assertEqual((res["nranks"], res["groups"], res["wrong"]), (2, 2, 0))

    def test_noise_target_stops_sampling(self):
        js = self.path("n.json")
        r = mpirun(2, "allreduce", "-b", "1M", "-e", "1M", "--max-noise", "50", "--min-samples", "4",
                   "--max-time", "5", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        for res in collective_results(load_json(js)):
            self.assertGreaterEqual(len(res["samples_us"]), 4)

    def test_default_budget_plans_samples_and_explicit_n_is_exact(self):
        # A budget too small for even one sample: each case takes --min-samples samples (every rank alike).
        js = self.path("b.json")
        r = mpirun(2, "allreduce", "-b", "8", "-e", "64K", "--max-time", "0.0001", "--min-samples", "3",
                   "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = load_json(js)
        self.assertEqual(report["config"]["stopping"]["max_time_s"], 0.0001)
        for res in collective_results(report):
            self.assertEqual(len(res["samples_us"]), 3)
        # An explicit -n turns the default budget off.
        r = mpirun(2, "allreduce", "-b", "8", "-e", "8", "-n", "25", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = load_json(js)
        self.assertEqual(report["config"]["stopping"]["max_time_s"], 0)
        self.assertEqual({len(res["samples_us"]) for res in collective_results(report)}, {25})
        self.assertIn("# samples: 25 per case   warm-up", r.stdout)

    def test_several_timing_methods_side_by_side(self):
        # --timing sampled,osu,imb: every case timed three ways, each by its own loop (distbench's 7 samples as -n
        # asks; OSU's 1000 calls up to 8 KiB and 100 above; IMB's min(1000, 40 MiB / size)), each verified, a
        # column group each in the table, the methods next to each other within a placement.
        js = self.path("methods.json")
        r = mpirun(2, "reduce-scatter", "-b", "1K", "-e", "16K", "-f", "16", "-n", "7", "--timing",
                   "sampled,osu,imb", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        # on the console the first method's two groups in nccl-tests' places, then the others' (docs/collectives.md)
        groups = ["out-of-place sampled", "in-place sampled", "out-of-place osu", "out-of-place imb",
                  "in-place osu", "in-place imb"]
        caption = next(line for line in r.stdout.splitlines() if "out-of-place sampled" in line)
        self.assertEqual([g for g in re.split(r"\s{2,}", caption.strip("# ").strip())], groups)
        self.assertIn("# timing: osu (--timing)", r.stdout)
        self.assertIn("# timing: imb (--timing)", r.stdout)
        self.assertIn("# methods: each case timed sampled, osu and imb in turn", r.stdout)
        report = load_json(js)
        self.assertEqual(report["config"]["timings"], ["sampled", "osu", "imb"])
        self.assertEqual(report["table"]["split_key"], "placement+timing")
        results = collective_results(report)
        self.assertEqual(len(results), 2 * 2 * 3)
        for res in results:
            self.assertEqual(res["wrong"], 0, res)
            self.assertEqual(len(res["samples_us"]), 7, res)  # -n: samples, or the peers' timed calls
            if res["timing"] != "sampled":  # the peers' loops: one call at a time
                self.assertEqual(res["ops_per_sample"], 1, res)
        # Without -n each peer's own count: OSU 1000 at 1 KiB, IMB min(1000, 40 MiB / 1 KiB) = 1000; 100 and 1000 at
        # 16 KiB; distbench's default rule takes 20 samples, at least 10 when they outlast its budget.
        r = mpirun(2, "allreduce", "-b", "1K", "-e", "16K", "-f", "16", "--timing", "osu,imb,sampled",
                   "--placement", "out-of-place", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        counts = {(res["timing"], res["bytes"]): len(res["samples_us"]) for res in collective_results(load_json(js))}
        sampled = {size: counts.pop(("sampled", size)) for size in (1024, 16384)}
        self.assertEqual(counts, {("osu", 1024): 1000, ("imb", 1024): 1000, ("osu", 16384): 100,
                                  ("imb", 16384): 1000})
        self.assertTrue(all(10 <= n <= 20 for n in sampled.values()), sampled)  # 20, fewer past its 0.05 s
        # A method named twice is bad input: one line, nothing run.
        r = mpirun(1, "allreduce", "--timing", "osu,osu", "--json", self.path("twice.json"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("named twice", r.stderr)
        self.assertFalse(os.path.exists(self.path("twice.json")))

    def test_os_counters_per_rank_in_every_result(self):
        js = self.path("os.json")
        r = mpirun(3, "reduce-scatter", "-b", "1K", "-e", "64K", "-n", "3", "--show-faults", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("faults", r.stdout)
        self.assertIn("(/op)", r.stdout)
        for res in collective_results(load_json(js)):
            counters = res["os_per_op"]
            self.assertEqual(sorted(counters), ["involuntary_switches", "major_faults", "minor_faults",
                                                "voluntary_switches"])
            for values in counters.values():
                self.assertEqual(len(values), 3)  # one per rank
                self.assertTrue(all(v >= 0 for v in values), values)
            ci = res["time_us"]
            self.assertLessEqual(ci["median_ci_low"], ci["median"])
            self.assertGreaterEqual(ci["median_ci_high"], ci["median"])

    @skip_under_sanitizers
    def test_malloc_reuse_removes_the_page_faults_of_large_reductions(self):
        # Open MPI's allreduce takes a message-sized temporary per call; glibc maps 32 MiB afresh each time, so
        # every call faults its pages in. --malloc-reuse keeps freed memory mapped: the faults go away.
        faults = {}
        for extra in ([], ["--malloc-reuse"]):
            js = self.path("m.json")
            r = mpirun(2, "allreduce", "-b", "32M", "-e", "32M", "-n", "3", "-w", "2", "--placement",
                       "out-of-place", "--json", js, *extra)
            self.assertEqual(r.returncode, 0, r.stderr)
            report = load_json(js)
            self.assertEqual(report["config"]["malloc_reuse"], bool(extra))
            res = collective_results(report)[0]
            self.assertEqual(res["wrong"], 0)
            faults[bool(extra)] = max(res["os_per_op"]["minor_faults"])
            if extra:
                self.assertIn("# malloc: --malloc-reuse", r.stdout)
                self.assertNotIn("page faults in timed calls", r.stderr)
            else:  # one line naming the remedy; the report's detail keeps the explanation
                line = next(x for x in r.stderr.splitlines() if "page faults in timed calls" in x)
                self.assertTrue(line.endswith("add --malloc-reuse") and len(line) <= 100, line)
                detail = next(w["detail"] for w in report["warnings"] if w["code"] == "page_faults")
                self.assertIn("GLIBC_TUNABLES", detail)
        self.assertGreater(faults[False], 1000, faults)  # measured: 4098 per call (a 16 MiB temporary)
        self.assertLess(faults[True], 10, faults)

    def test_the_mpi_thread_level_reaches_mpi_and_the_report(self):
        # single by default, as IMB and OSU run; the level MPI_Query_thread reports is what the report and the
        # header say
        levels = ["single", "funneled", "multiple"]
        paths = [self.path(f"t{i}.json") for i in range(len(levels))]
        runs = run_concurrently([lambda lv=lv, js=js: mpirun(2, "allreduce", "-b", "8", "-e", "8", "-n", "3", "--json",
                                                              js, *([] if lv == "single" else ["--mpi-thread", lv]))
                                 for lv, js in zip(levels, paths)])
        for level, js, r in zip(levels, paths, runs):
            with self.subTest(level=level):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(load_json(js)["environment"]["versions"]["mpi.thread_level"], level)
                self.assertIn(f"MPI threads: {level}\n", r.stdout)
                self.assertEqual(collective_results(load_json(js))[0]["wrong"], 0)

    def test_nccl_options_on_the_mpi_backend_are_said_and_not_recorded(self):
        js = self.path("scope.json")
        r = mpirun(1, "allreduce", "--backend", "mpi", "-b", "8", "-e", "8", "-n", "2", "-w", "1", "-g", "2", "-G", "5",
                   "-m", "4", "-z", "1", "-R", "1", "--alloc", "ncclMemAlloc", "-q", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        said = [line for line in r.stderr.splitlines() if " ignored: the mpi backend" in line]
        self.assertEqual([line.split()[1] for line in said], ["-g/--ngpus", "-m/--agg-iters", "-G/--cudagraph",
                                                              "-z/--blocking", "-R/--register", "--alloc"], r.stderr)
        self.assertTrue(all(line.startswith("warning: ") and len(line) <= 100 for line in said), said)
        report = load_json(js)
        self.assertEqual(report["config"]["backend_options"],
                         {"gpus_per_process": 1, "device_index": -1, "agg_iters": 1, "graph_launches": 0,
                          "blocking": False, "register_buffers": False, "alloc": "host"})
        ignored = [w["message"] for w in report["warnings"] if w["code"] == "option_ignored"]
        self.assertEqual(len(ignored), 6, report["warnings"])

    def test_the_huge_page_policy_reaches_the_buffers_and_the_report(self):
        # off by default (what malloc gets, as IMB and OSU); on aligns and advises buffers from 2 MiB. The report
        # and the header say which, with the machine's THP mode, and how much of the buffers got huge pages.
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            mode = f.read().split("[")[1].split("]")[0]
        paths = [self.path("hp-off.json"), self.path("hp-on.json"), self.path("hp-lat.json")]
        runs = run_concurrently([
            lambda: mpirun(2, "allreduce", "-b", "4M", "-e", "4M", "-n", "2", "-w", "1", "--json", paths[0]),
            lambda: mpirun(2, "allreduce", "-b", "4M", "-e", "4M", "-n", "2", "-w", "1", "--huge-pages", "on",
                           "--json", paths[1]),
            lambda: mpirun(2, "latency", "-b", "4M", "-e", "4M", "-n", "2", "--huge-pages", "on", "--json", paths[2])])
        for policy, js, r in zip(["off", "on", "on"], paths, runs):
            with self.subTest(js=js):
                self.assertEqual(r.returncode, 0, r.stderr)
                versions = load_json(js)["environment"]["versions"]
                self.assertEqual((versions["memory.huge_pages"], versions["memory.thp_mode"]), (policy, mode))
                memory = [line for line in r.stdout.splitlines() if line.startswith("# memory:")]
                self.assertTrue(memory[0].startswith(f"# memory: huge pages {policy}"), memory)
                self.assertIn(f", THP mode {mode}", memory[0])
                self.assertLessEqual(len(memory[0]), 100, memory)  # one short line; the details are in the docs
                # two buffers of 4 MiB per rank (send and receive), measured in /proc/self/smaps after allocation
                huge = versions["memory.buffer_huge_pages"]
                self.assertRegex(huge, r"^\d+(\.\d+)? (B|KiB|MiB) of 8 MiB \(\d+%\) on rank [01], the smallest "
                                       r"share of 2 ranks$")
                self.assertIn(f"# Buffers in huge pages: {huge}", r.stdout)
                self.assertEqual(versions["memory.buffer_bytes"], str(8 << 20))
                self.assertLessEqual(int(versions["memory.buffer_huge_page_bytes"]), 8 << 20)
                if mode == "madvise":
                    # the header says which policy the numbers stand for, and how to see the other
                    other = "on" if policy == "off" else "off"
                    self.assertIn(f"(--huge-pages {other} to measure that)", r.stdout)
                if mode in ("madvise", "never") and policy == "off":
                    self.assertTrue(huge.startswith("0 B of 8 MiB (0%)"), huge)
        r = mpirun(2, "allreduce", "--huge-pages", "sometimes")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("error: --huge-pages", r.stderr)

    def test_the_report_says_which_cpus_each_rank_had_and_the_steal_time(self):
        # what tells a run-wide mode of a shared machine apart: each rank's allowed CPUs, the run's steal time, the
        # cache-line distance between the ranks' CPUs
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("binding two ranks to a core each needs two CPUs")
        js = self.path("c.json")
        bound = [a if a != "none" else "core" for a in MPIRUN]  # --bind-to core: one CPU each
        # two cases of exactly 1 s each (the noise target is judged only after 10^6 samples): hundreds of the
        # kernel's 10 ms accounting ticks pass, so the steal time is always a figure
        r = subprocess.run(bound + ["-np", "2", BINARY, "allreduce", "-b", "1K", "-e", "1K", "--max-noise", "0.0001%",
                                    "--min-samples", "1000000", "--max-time", "1", "--json", js],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = load_json(js)
        cpus = [rank["cpus"] for rank in report["environment"]["ranks"]]
        for text in cpus:
            self.assertRegex(text, r"^\d+$", cpus)  # one CPU each
        self.assertNotEqual(cpus[0], cpus[1])
        steal = report["environment"]["versions"]["steal_time"]
        self.assertRegex(steal, r"^\d+\.\d % of the machine's CPU time over the run$")
        self.assertLessEqual(float(steal.split()[0]), 100.0)
        # and how far apart the two ranks' CPUs were, at the start and at the end: a cache line's one-way trip
        versions = report["environment"]["versions"]
        for when in ("start", "end"):
            self.assertRegex(versions[f"cpu_distance.{when}"], r"^\d+ ns one way between ranks 0 and 1 \(a cache "
                                                               r"line's trip; the farthest of 1 pair\)$")
        # one process has no pair to ping
        one = self.path("c1.json")
        r = single("allreduce", "-b", "8", "-e", "8", "-n", "2", "--json", one)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(load_json(one)["environment"]["versions"]["cpu_distance.start"],
                         "unknown: no two ranks share a host")
        # no shared page's name outlives its creator (names carry its process id; a run beside this one may hold one)
        left = [f for f in os.listdir("/dev/shm") if f.startswith("distbench-")
                and not os.path.exists(f"/proc/{f.split('-')[1]}")]
        self.assertEqual(left, [])

    def test_list_info_and_help(self):
        r = single("list")
        self.assertEqual(r.returncode, 0, r.stderr)
        for word in ["reduce-scatter", "sendrecv", "bfloat16", "avg", "mpi"]:
            self.assertIn(word, r.stdout)
        r = mpirun(2, "info")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ranks: 2 on 1 host\n", r.stdout)
        self.assertIn("mpi", r.stdout)
        r = single("allreduce", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--maxbytes", r.stdout)
        self.assertIn("64M", r.stdout)  # defaults are shown

    def test_hostfile_check(self):
        for name in ["openmpi.hostfile", "mpich.hostfile", "localhost.hostfile"]:
            with self.subTest(hostfile=name):
                r = single("hostfile", "check", "--no-resolve", os.path.join(SOURCE_ROOT, "hostfiles", name))
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("slots", r.stdout.lower())
        # names are looked up (within a bound): the example runs as written, the templates name hosts that do not
        r = single("hostfile", "check", os.path.join(SOURCE_ROOT, "hostfiles", "localhost.hostfile"))
        self.assertEqual(r.returncode, 0, r.stderr)
        r = single("hostfile", "check", os.path.join(SOURCE_ROOT, "hostfiles", "openmpi.hostfile"))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)
        self.assertIn("4 of 5 host names do not resolve here: node1 (", r.stderr)
        self.assertIn("--no-resolve", r.stderr)

    def test_hostfile_check_of_tens_of_thousands_of_hosts(self):
        # 45,000 hosts fit the 1 MiB a hostfile may hold: a thread per name aborted there (exit 134) and held 2.8 GB
        # at 30,000; the names are now looked up by a pool of 32 threads, within 200 MB.
        path = self.path("many.hostfile")
        with open(path, "w") as f:
            f.writelines(f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}\n" for i in range(45000))
        child = subprocess.Popen([BINARY, "hostfile", "check", path], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
        with child.stderr:
            stderr = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        self.assertEqual(child.returncode, 0, stderr[-2000:])
        self.assertLess(usage.ru_maxrss, 200 * 1024, "peak RSS in KiB")
        # names that do not resolve: the error line lists ten and counts the rest
        with open(path, "w") as f:
            f.writelines(f"n{i}.invalid\n" for i in range(40))
        r = single("hostfile", "check", path)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)
        self.assertIn("40 of 40 host names do not resolve here: n0.invalid (", r.stderr)
        self.assertIn(" and 30 more; mpirun could not reach them", r.stderr)


class BadInput(Workdir):
    """Every bad input: exit code 2, one line 'error: ...', no report left behind."""

    def assert_usage_error(self, result, *needles):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        lines = error_lines(result.stderr)
        self.assertEqual(len(lines), 1, result.stderr)
        for needle in needles:
            self.assertIn(needle, lines[0])
        self.assertNotIn("Segmentation", result.stderr)

    def test_bad_options_before_mpi_starts(self):
        cases = [
            (["allreduc"], "allreduc"),
            (["allreduce", "-d", "float8"], "float8"),
            (["allreduce", "-o", "median"], "median"),
            (["allreduce", "-d", "float32", "-o", "bxor"], "bxor"),
            (["allreduce", "-b", "1M", "-e", "1K"], "-b/--minbytes"),
            (["allreduce", "-i", "0"], "-i/--stepbytes"),
            (["allreduce", "-f", "1"], "-f/--stepfactor"),
            (["allreduce", "-b", "12Q"], "12Q"),
            (["allreduce", "-n", "0"], "--iters"),
            (["allreduce", "--tensors", "0"], "--tensors"),
            (["broadcast", "--tensors", "4"], "--tensors 4"),
            (["allreduce", "--tensors", "4", "--placement", "out-of-place"], "--placement out-of-place"),
            (["allreduce", "--tensors", "4", "--fuse", "maybe"], "--fuse"),
            (["allreduce", "--mpi-thread", "many"], "--mpi-thread"),
        ]
        for args, needle, js, r in run_bad_input(self, [(2, args, needle) for args, needle in cases]):
            with self.subTest(args=args):
                self.assert_usage_error(r, needle)
                self.assertFalse(os.path.exists(js))

    def test_bad_options_found_once_ranks_exist(self):
        cases = [
            (2, ["allreduce", "--group-size", "3"], "--group-size 3"),
            (2, ["broadcast", "-r", "5"], "-r/--root 5"),
            (2, ["allreduce", "-b", "8", "-e", "4T"], "lower -e/--maxbytes"),
            (2, ["allreduce", "--json", "/nonexistent-dir/r.json"], "/nonexistent-dir/r.json"),
            (2, ["allreduce", "--backend", "gloo"], "gloo"),
            (1, ["allreduce", "-b", "1", "-e", "3"], "the smallest that does is 4 B: raise -e/--maxbytes"),
        ]
        results = run_concurrently([lambda n=np, a=args: mpirun(n, *a, "-b", "8", "-e", "1K") if "-e" not in a
                                    else mpirun(n, *a) for np, args, _ in cases])
        for (np, args, needle), r in zip(cases, results):
            with self.subTest(args=args):
                self.assert_usage_error(r, needle)

    def test_unavailable_backend(self):
        r = mpirun(2, "allreduce", "--backend", "nccl", "-e", "1K")
        if r.returncode == 2:  # a build without the NCCL backend
            self.assert_usage_error(r, "not built")
            return
        # built in, but no GPU here (CI never has one); on a GPU machine the run succeeds
        if r.returncode == 0:
            self.skipTest("a GPU is visible: the NCCL backend ran")
        self.assertEqual(r.returncode, 5, r.stderr)
        lines = error_lines(r.stderr)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("cannot run here", lines[0])

    def test_malformed_hostfile(self):
        bad = self.path("bad.hostfile")
        with open(bad, "w") as f:
            f.write("node1 slots=2\nnode2 slots=abc\n")
        self.assert_usage_error(single("hostfile", "check", bad), "bad.hostfile:2")
        self.assert_usage_error(single("hostfile", "check", self.path("missing")), "missing")


class Health(Workdir):
    """distbench health on one host (the multi-host cases are in tests/cluster): Nagios exit codes, reports, rules."""

    def test_one_host_is_healthy_with_every_report(self):
        js, md, prom = self.path("h.json"), self.path("h.md"), self.path("h.prom")
        r = mpirun(3, "health", "--json", js, "--md", md, "--prom", prom)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        report = load_json(js)
        self.assertEqual(report["schema_version"], 4)
        self.assertEqual(report["status"], "complete")
        self.assertEqual(report["benchmark"], "health")
        checks = health_checks(report)
        node = [v for k, v in checks.items() if k[0] == "node.status"]
        self.assertEqual(len(node), 1)
        self.assertEqual(node[0]["params"]["status"], "healthy")
        self.assertEqual(checks[("cluster.status", "cluster")]["metrics"]["value"], 0)
        self.assertEqual(len([k for k in checks if k[0] == "memory.wrong"]), 3)
        self.assertEqual(len([k for k in checks if k[0] == "straggler.lateness_us"]), 3)
        self.assertFalse([k for k in checks if k[0] == "link.bandwidth_gbps"])  # one node: no links
        self.assertIn("# Verdict per node", r.stdout)
        self.assertIn("# Health: healthy", r.stdout)
        # what one node cannot test is said, a phase a line, and recorded as skipped (not healthy)
        for phase in ("clock", "links", "isolation"):
            self.assertEqual(checks[("phase.tested", phase)]["status"], "skipped")
            self.assertIn(f"# Skipped: 1 result: {phase}: not tested: one node", r.stdout)
        self.assertEqual(checks[("drift.nodes", "all nodes")]["status"], "skipped")
        self.assertFalse([k for k in checks if k[0] == "clock.skew_ms"])  # its own clock: 0 by construction
        self.assertNotRegex(r.stdout, r"\n  cluster ")  # the job's verdict is in the headline, not among the nodes
        # counts are elements or calls, codes have no unit; "1" only for fractions and GPU readings
        units = {k[0]: v["params"]["unit"] for k, v in checks.items()}
        self.assertEqual((units["memory.wrong"], units["job.allreduce.wrong"], units["node.status"]),
                         ("elements", "elements", ""))
        self.assertFalse([m for m, u in units.items() if u == "1" and not m.startswith(("gpu.", "hardware."))], units)
        with open(md) as f:
            text = f.read()
        self.assertIn("### Verdict per node", text)
        self.assertIn("**Status:** complete", text)
        check_prometheus_text(self, prom)
        with open(prom) as f:
            text = f.read()
        self.assertIn("distbench_health_status 0\n", text)
        self.assertRegex(text, r'\ndistbench_info\{version="[^"]+",git_sha="[^"]+",backend="mpi",nodes="1",ranks="3",'
                               r'level="standard"\} 1\n')
        self.assertNotIn('=""', text)  # the job's figures have no host label, not an empty one
        self.assertEqual([n for n in os.listdir(self.dir) if n not in ("h.json", "h.md", "h.prom")], [])

    def test_the_quick_level_runs_each_nodes_own_state_and_says_so(self):
        js = self.path("q.json")
        r = mpirun(2, "health", "--level", "quick", "--memory-bytes", "8M", "--expect-busbw", "1e6", "--links", "all",
                   "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # what sizes or judges a phase the level does not run is said to be ignored, not applied in silence
        self.assertIn("warning: --expect-busbw 1e6 ignored: --level quick runs no job-wide allreduce", r.stderr)
        self.assertIn("warning: --links all ignored: --level quick runs no link phase", r.stderr)
        report = load_json(js)
        self.assertEqual(report["config"]["level"], "quick")
        self.assertEqual(report["config"]["soak_seconds"], 0)
        phases = [x["params"]["subject"] for x in report["records"] if x["params"]["metric"] == "phase.seconds"]
        self.assertEqual(phases, ["gpu", "rank", "clock", "drift", "confirm"])  # no allreduce, link or straggler phase
        self.assertIn("level quick: phases start, gpu, rank, clock, drift, confirm\n", r.stdout)
        self.assertIn("# Health: healthy", r.stdout)

    def test_a_short_soak_checks_every_rank(self):
        js, prom = self.path("s.json"), self.path("s.prom")
        r = mpirun(2, "health", "--level", "quick", "--soak-seconds", "1", "--memory-bytes", "8M", "--allreduce-bytes",
                   "64K", "--json", js, "--prom", prom)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        report = load_json(js)
        self.assertEqual(report["config"]["soak_seconds"], 1)
        checks = health_checks(report)
        for rank in ("rank 0", "rank 1"):
            for metric in ("soak.calls_wrong", "soak.elements_wrong"):
                self.assertEqual(checks[(metric, rank)]["params"]["status"], "healthy")
                self.assertEqual(checks[(metric, rank)]["metrics"]["value"], 0)
        self.assertGreaterEqual(checks[("soak.calls", "job")]["metrics"]["value"], 4)
        self.assertGreaterEqual(checks[("phase.seconds", "soak")]["metrics"]["value"], 1)
        check_prometheus_text(self, prom)
        with open(prom) as f:
            self.assertIn("distbench_health_soak_calls ", f.read())

    def test_a_rule_can_fail_a_node_and_says_which(self):
        rules = self.path("rules.json")
        with open(rules, "w") as f:
            json.dump({"rules": [{"metric": "memory.copy_gbps", "compare": ">=", "threshold": 1e6,
                                  "severity": "failed"}]}, f)
        js = self.path("h.json")
        # --slurm-drain with a scontrol that knows the node and refuses the drain, as it refuses a user who is neither
        # root nor SlurmUser: the verdict and its exit code stand, the failure is one warning line and a record
        fake = self.path("bin")
        os.mkdir(fake)
        with open(os.path.join(fake, "scontrol"), "w") as f:
            f.write('#!/bin/sh\nif [ "$1" = show ]; then echo "NodeName=$4 State=IDLE"; exit 0; fi\n'
                    'echo "slurm_update error: Access/permission denied" >&2; exit 1\n')
        os.chmod(os.path.join(fake, "scontrol"), 0o755)
        r = mpirun(2, "health", "--rules", rules, "--json", js, "--slurm-drain",
                   env=dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"]))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        checks = health_checks(load_json(js))
        node = [v for k, v in checks.items() if k[0] == "node.status"][0]
        self.assertEqual(node["params"]["status"], "failed")
        self.assertIn("memory.copy_gbps", node["params"]["why"])
        self.assertIn(">= 1e+06", node["params"]["why"])
        host = node["params"]["subject"]
        refused = "scontrol: slurm_update error: Access/permission denied (exit 1)"
        self.assertEqual([x for x in r.stderr.splitlines() if "--slurm-drain" in x],
                         [f"warning: --slurm-drain: could not drain {host}: {refused}; the verdict and its exit code "
                          "stand, the reports' slurm records say what was done"])
        self.assertIn(f"# Slurm (--slurm-drain)\n  could not drain {host}: {refused}\n", r.stdout)
        self.assertEqual(checks[("slurm.drain", host)]["metrics"]["value"], 1)  # scontrol's exit status
        # the screening figure made it a suspect; the re-test alone decided
        self.assertTrue([k for k in checks if k[0] == "memory.copy_gbps" and
                         checks[k]["params"]["phase"] == "confirm"])

    def test_a_node_that_started_late_is_degraded(self):
        # rank 1's shell sleeps 2 s before it becomes distbench: its node (the only one here) began late
        js = self.path("late.json")
        args = ["health", "--late-start", "1", "--memory-bytes", "8M", "--allreduce-bytes", "64K", "--json", js]
        r = mpirun_rank1_late(2, *args)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        checks = health_checks(load_json(js))
        late = [v for k, v in checks.items() if k[0] == "start.late_s"]
        self.assertEqual(len(late), 1, checks.keys())
        self.assertEqual(late[0]["params"]["status"], "degraded")
        self.assertGreater(late[0]["metrics"]["value"], 1.5)
        self.assertIn("rank 1 began", late[0]["params"]["why"])
        node = [v for k, v in checks.items() if k[0] == "node.status"][0]
        self.assertEqual(node["params"]["status"], "degraded")
        self.assertIn("start.late_s", node["params"]["why"])

    def test_expected_busbw_degrades_the_job(self):
        r = mpirun(2, "health", "--expect-busbw", "100000")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # the job's own reason under the nodes (no "cluster" row among them)
        self.assertRegex(r.stdout, r"\n  the job: degraded: job job.allreduce.busbw_gbps = [0-9.]+ GB/s, needs >= 100000 GB/s")

    def test_tolerance_is_said_to_be_ignored_when_the_rules_turn_the_median_off(self):
        absolute, relative = self.path("absolute.json"), self.path("relative.json")
        for path, keep in ((absolute, False), (relative, True)):
            with open(path, "w") as f:
                json.dump({"relative": keep, "rules": []}, f)
        js = self.path("h.json")
        r = mpirun(2, "health", "--rules", absolute, "--tolerance", "10%", "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        ignored = [line for line in r.stderr.splitlines() if " ignored: " in line]
        self.assertEqual(ignored, [f"warning: --tolerance 10 ignored: the rules file {absolute} turns the median "
                                   "judgement off (\"relative\": false)"], r.stderr)
        self.assertEqual(sum(w["code"] == "option_ignored" for w in load_json(js)["warnings"]), 1)
        r = mpirun(2, "health", "--rules", relative, "--tolerance", "10%")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn(" ignored: ", r.stderr)

    def test_bad_input_is_unknown_and_runs_nothing(self):
        bad_json, bad_rule = self.path("bad.json"), self.path("rule.json")
        with open(bad_json, "w") as f:
            f.write("{\"rules\": [")
        with open(bad_rule, "w") as f:
            json.dump({"rules": [{"metric": "link.*", "compare": "=~", "threshold": 1}]}, f)
        cases = [
            (["--rules", self.path("missing.json")], "missing.json"),
            (["--rules", bad_json], "not valid JSON"),
            (["--rules", bad_rule], "\"compare\" must be one of"),
            (["--timeout", "0"], "--timeout"),
            (["--expect-busbw", "-1"], "--expect-busbw"),
            (["--bogus"], "--bogus"),
            (["--prom", "/nonexistent-dir/h.prom"], "/nonexistent-dir/h.prom"),
        ]
        for args, needle, js, r in run_bad_input(self, [(2, args, needle) for args, needle in cases], "health"):
            with self.subTest(args=args):
                self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(needle, lines[0])
                self.assertNotIn("memory", r.stdout)  # nothing ran
                self.assertFalse(os.path.exists(js))


def zero_records(report):
    """{stage: record} of a zero report, in its order; stage 1 in DeepSpeed's reduce-scatter form is "1rs"."""
    return {"1rs" if r["params"]["zero1_reduce"] == "reduce-scatter" else int(r["params"]["stage"]): r
            for r in report["records"]}


def ring_share(padded, n):
    return padded // n * (n - 1)


def zero_sent_bytes(stage, psi, layers, n, bucket, size):
    """The bytes each rank sends per step, worked out here from the ZeRO paper's volumes (ring algorithms, shards
    padded segment by segment), independently of the C++ formulas."""
    if stage == 3:
        sizes = [psi // layers + (1 if i < psi % layers else 0) for i in range(layers)]
    else:
        bucket = bucket or psi
        sizes = [min(bucket, psi - b) for b in range(0, psi, bucket)]
    share = sum(ring_share(-(-s // n) * n, n) for s in sizes)
    return {0: 2 * share, 1: 3 * share, "1rs": 2 * share, 2: 2 * share, 3: 3 * share}[stage] * size


class Zero(Workdir):
    """distbench zero: --check of every stage and type at np 1-4 with a Ψ no N divides, the accounting against the
    formulas and the measured memory, --config, and bad input."""

    PSI = 100003  # prime: no rank count divides it, nor the layers

    def run_zero(self, np, *args, timeout=180):
        js = self.path(f"z{np}.json")
        r = mpirun(np, "zero", "--json", js, *args, timeout=timeout)
        return r, js

    def test_check_every_stage_and_type_at_np_1_to_4(self):
        # Exactness and byte counts, no timing: the seven jobs run three at a time (most of a job's second is mpirun
        # starting and wiring up). Every dtype at np 2 (2- and 4-byte elements, both 16-bit formats), and each rank
        # count with one; the MPI suite checks every stage bit for bit at np 1-4 (test_zero_step.cpp).
        # Stage 1's second form (DeepSpeed's reduce-scatter, --stage all's default) at np 2 and 3 only: the MPI suite
        # checks it bit for bit at np 1-4 (test_zero_step.cpp); here its rows and byte counts.
        cases = [(1, "fp32"), (2, "bf16"), (2, "fp16"), (2, "fp32"), (3, "bf16"), (3, "fp32"), (4, "fp16")]
        runs = run_concurrently([lambda np=np, dtype=dtype, js=self.path(f"z{np}{dtype}.json"): (mpirun(
            np, "zero", "--json", js, "--check", "--params", str(self.PSI), "--layers", "7", "--dtype", dtype,
            "--bucket-mb", "0.05", "-n", "3", "-w", "1", "--zero1-reduce", "both" if np in (2, 3) else "allreduce",
            timeout=180), js) for np, dtype in cases])
        for (np, dtype), (r, js) in zip(cases, runs):
            with self.subTest(np=np, dtype=dtype):
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                report = load_json(js)
                self.assertEqual(report["status"], "complete")
                records = zero_records(report)
                self.assertEqual(list(records), [0, 1, "1rs", 2, 3] if np in (2, 3) else [0, 1, 2, 3])
                size = 4 if dtype == "fp32" else 2
                bucket = int(0.05 * 1024 * 1024) // size
                for stage, rec in records.items():
                    m = rec["metrics"]
                    self.assertEqual(m["wrong"], 0, (stage, m))
                    self.assertAlmostEqual(m["sent_mb"] * 1e6, zero_sent_bytes(stage, self.PSI, 7, np, bucket, size),
                                           delta=0.5, msg=(stage, np))
                    self.assertGreater(m["step_ms"], 0)
                    if np == 1:
                        self.assertEqual(m["sent_mb"], 0)
                    self.assertEqual([p["name"] for p in rec["phases"]],
                                     {0: ["step", "reduce", "update"], 1: ["step", "reduce", "update", "gather"],
                                      "1rs": ["step", "reduce", "update", "gather"],
                                      2: ["step", "reduce", "update", "gather"],
                                      3: ["step", "fwd_gather", "bwd_gather", "reduce", "update"]}[stage])
                self.assertIn("Elements differing from one rank: 0", r.stdout)

    @skip_under_sanitizers
    def test_memory_and_time_accounting(self):
        # buckets and layers small beside Ψ, so that MPI's reduction temporaries (one or two of a bucket, as the
        # library pleases) stay a small part of the peak
        # the four stages as they ran before stage 1's second form existed: each stage's peak is measured from the
        # resident memory it starts with, which what the stages before it freed (and malloc kept) shapes; one run with
        # five stages read 1.24 at stage 3 under the full suite's load
        r, js = self.run_zero(2, "--params", "4M", "--layers", "64", "--bucket-mb", "1", "-n", "5",
                              "--zero1-reduce", "allreduce")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        records = zero_records(load_json(js))
        psi, n = 4 << 20, 2
        shard = psi // n
        state = {0: 16 * psi, 1: 4 * psi + 12 * shard, "1rs": 4 * psi + 12 * shard, 2: 2 * psi + 14 * shard,
                 3: 16 * shard}  # the paper's terms
        for stage, rec in records.items():
            m = rec["metrics"]
            with self.subTest(stage=stage):
                self.assertAlmostEqual(m["state_mb"] * 1e6, state[stage], delta=1)
                # what the step allocated is the formula's states and buffers, exactly
                self.assertAlmostEqual(m["held_mb"], m["state_mb"] + m["buffer_mb"], delta=1e-6)
                # the resident memory measured grows by that and the library's temporary, within 10%
                self.assertLess(abs(m["peak_vs_predicted"] - 1), 0.10, m)
                parts = sum(m[k] for k in ("reduce_ms", "update_ms", "gather_ms") if m[k] is not None)
                self.assertLess(abs(parts - m["step_ms"]) / m["step_ms"], 0.05, m)  # the phases make the step
                self.assertGreater(m["predicted_ms"], 0)
                self.assertGreater(m["update_gbps"], 0)
                self.assertIsNone(m["net_sent_mb"])  # one host: no network traffic to measure
        self.assertIsNotNone(records[3]["metrics"]["layer_gather_ms"])
        self.assertIsNone(records[0]["metrics"]["layer_gather_ms"])

    def test_config_file_with_the_seeds_names(self):
        cfg = self.path("zero.json")
        with open(cfg, "w") as f:
            json.dump({"zero_opt_level": 2, "enable_data_parallel": True, "params": "64K", "check": True}, f)
        r, js = self.run_zero(2, "--config", cfg, "--layers", "4", "-n", "3")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        report = load_json(js)
        records = zero_records(report)
        self.assertEqual(list(records), [2])
        self.assertEqual(records[2]["params"]["params"], 65536)
        self.assertEqual(records[2]["params"]["layers"], 4)
        self.assertEqual(records[2]["metrics"]["wrong"], 0)
        # the command line wins over the file
        r, js = self.run_zero(2, "--config", cfg, "--stage", "1", "-n", "3")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(list(zero_records(load_json(js))), [1])

    def test_options_it_does_not_use_are_said_once(self):
        r, js = self.run_zero(2, "--params", "4K", "--layers", "2", "--stage", "2", "-n", "2", "-w", "0",
                              "--zero1-reduce", "reduce-scatter", "--check-steps", "2")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        ignored = [line for line in r.stderr.splitlines() if " ignored: " in line]
        self.assertEqual([line.split(" ignored:")[0] for line in ignored],
                         ["warning: --check-steps 2", "warning: --zero1-reduce reduce-scatter"], r.stderr)
        self.assertIn("warning: --zero1-reduce reduce-scatter ignored: it is stage 1's, and --stage runs no stage 1",
                      ignored)
        self.assertEqual(sum(w["code"] == "option_ignored" for w in load_json(js)["warnings"]), 2)
        # those it never uses (the collectives' sweep loop) are unknown here
        r, _ = self.run_zero(2, "--params", "4K", "--layers", "2", "--show-faults")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("error: unknown option '--show-faults' for zero", r.stderr)
        # where they apply: nothing to say
        r, js = self.run_zero(2, "--params", "4K", "--layers", "2", "--stage", "1", "-n", "2", "-w", "0",
                              "--zero1-reduce", "reduce-scatter", "--check", "--check-steps", "2")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn(" ignored: ", r.stderr)

    def test_bad_input_runs_nothing(self):
        not_json, unknown, no_dp = self.path("a.json"), self.path("b.json"), self.path("c.json")
        with open(not_json, "w") as f:
            f.write("{zero_opt_level: 2")
        with open(unknown, "w") as f:
            json.dump({"zero_opt_level": 1, "zero_stage": 2}, f)
        with open(no_dp, "w") as f:
            json.dump({"enable_data_parallel": False}, f)
        cases = [
            (2, ["--params", "0"], "--params"),
            (2, ["--stage", "4"], "--stage 4"),
            (2, ["--layers", "0"], "--layers 0"),
            (2, ["--params", "10", "--layers", "11"], "--layers 11"),
            (2, ["--dtype", "int8"], "int8"),
            (2, ["--zero1-reduce", "ring"], "ring"),
            (2, ["--config", self.path("missing.json")], "missing.json"),
            (2, ["--config", not_json], "not valid JSON"),
            (2, ["--config", unknown], "unknown key \"zero_stage\""),
            (2, ["--config", no_dp], "enable_data_parallel"),
            (4, ["--params", "6", "--layers", "2"], "4 ranks share layers of 3 parameters"),
            (2, ["--params", "64T"], "needs"),
        ]
        for args, needle, js, r in run_bad_input(self, cases, "zero"):
            with self.subTest(args=args):
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(needle, lines[0])
                self.assertNotIn("stage", r.stdout.replace("# zero: ZeRO stages", ""))
                self.assertFalse(os.path.exists(js))


class Train(Workdir):
    """distbench train: data parallelism equal to one rank on the global batch, for bucket sizes and overlap modes at
    np 1-3; the figures add up; bad input."""

    def test_bucket_takes_a_size_and_the_older_spelling_its_mib(self):
        # --bucket 64K is --bucket-mb 0.0625: the same buckets; both at once is one error line
        buckets = []
        for flag, value in (("--bucket", "64K"), ("--bucket-mb", "0.0625")):
            js = self.path("b.json")
            r = mpirun(2, "train", "--layers", "3", "--hidden", "64", "--batch", "16", "--steps", "2", flag, value,
                       "--json", js)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            buckets.append(load_json(js)["records"][0]["params"]["buckets"])
        self.assertEqual(buckets[0], buckets[1])
        r = single("train", "--bucket", "1M", "--bucket-mb", "1")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)
        r = single("zero", "--bucket", "2X")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--bucket", r.stderr)

    def test_check_across_buckets_overlap_and_ranks(self):
        for np in (1, 2, 3):
            for bucket in ("0", "0.01", "25"):
                with self.subTest(np=np, bucket=bucket):
                    js = self.path(f"t{np}.json")
                    r = mpirun(np, "train", "--layers", "3", "--hidden", "64", "--batch", "48", "--steps", "8",
                               "--bucket-mb", bucket, "--check", "--json", js)
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    report = load_json(js)
                    self.assertEqual(report["status"], "complete")
                    records = report["records"]
                    self.assertEqual([rec["params"]["overlap"] for rec in records], ["on", "off"])
                    for rec in records:
                        m = rec["metrics"]
                        self.assertEqual(m["wrong"], 0, m)
                        self.assertLess(m["max_rel_diff"], 1e-3)
                        self.assertLess(m["loss_last"], m["loss_first"])
                        # exposed: what the steps waited for after their backward, a part of the step
                        self.assertGreaterEqual(m["exposed_ms"], 0, m)
                        self.assertLessEqual(m["exposed_ms"], m["step_ms"], m)
                        if m["overlap_efficiency"] is not None:
                            self.assertTrue(0 <= m["overlap_efficiency"] <= 1, m)
                        self.assertAlmostEqual(m["samples_per_s"], 48 / (m["step_ms"] / 1e3),
                                               delta=1e-6 * m["samples_per_s"])
                        if np == 1:
                            self.assertLess(m["comm_ms"], 1.0)  # one rank: nothing to send
                    buckets = records[0]["params"]["buckets"]
                    self.assertEqual(buckets, {"0": 6, "0.01": 2, "25": 1}[bucket])  # 10 KiB: {fc2, fc1}, {fc0}

    def test_scaling_against_one_rank_alone(self):
        js = self.path("s.json")
        r = mpirun(2, "train", "--layers", "3", "--hidden", "64", "--batch", "32", "--steps", "5", "--scaling",
                   "--overlap", "on", "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        m = load_json(js)["records"][0]["metrics"]
        self.assertGreater(m["samples_per_s_1rank"], 0)
        self.assertAlmostEqual(m["scaling_efficiency"], m["samples_per_s"] / (2 * m["samples_per_s_1rank"]), places=9)
        r = mpirun(2, "train", "--layers", "3", "--hidden", "64", "--batch", "32", "--steps", "5", "--overlap", "on",
                   "--json", js)
        self.assertIsNone(load_json(js)["records"][0]["metrics"]["scaling_efficiency"])

    def test_trace_holds_every_rank_layer_and_bucket(self):
        trace = self.path("trace.json")
        r = mpirun(3, "train", "--layers", "3", "--hidden", "32", "--batch", "12", "--steps", "4", "--warmup", "1",
                   "--bucket-mb", "0", "--trace", trace)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        spans = [e for e in events if e["ph"] == "X"]
        for rank in range(3):
            mine = [e for e in spans if e["pid"] == rank]
            # 2 modes x 4 steps x (3 forward + 3 backward + 6 per-tensor allreduces + 1 update)
            self.assertEqual(len(mine), 2 * 4 * 13, rank)
            for mode in (0, 1):
                names = [e["name"] for e in mine if e["tid"] == 2 * mode]
                self.assertEqual(names.count("fc2 backward"), 4)
                comm = [e for e in mine if e["tid"] == 2 * mode + 1]
                self.assertEqual(len(comm), 4 * 6)
                self.assertTrue(all(e["dur"] >= 0 for e in comm))
        names = [e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
        self.assertIn("overlap on: communication", names)
        # overlap on: the first bucket's allreduce starts before the backward ends (the last layer's gradients go
        # first); overlap off: after it
        for mode, before in ((0, True), (1, False)):
            step_spans = [e for e in spans if e["pid"] == 0 and e["tid"] in (2 * mode, 2 * mode + 1)]
            first_comm = min(e["ts"] for e in step_spans if e["tid"] == 2 * mode + 1)
            last_backward_end = [e["ts"] + e["dur"] for e in step_spans if e["name"] == "fc0 backward"][0]
            self.assertEqual(first_comm < last_backward_end, before, mode)

    def test_zero_stages_end_where_one_rank_ends(self):
        for np in (2, 3):
            for stage in ("1", "2", "3"):
                with self.subTest(np=np, stage=stage):
                    js, trace = self.path(f"z{np}{stage}.json"), self.path(f"z{np}{stage}.trace.json")
                    r = mpirun(np, "train", "--layers", "3", "--hidden", "64", "--batch", "48", "--steps", "6",
                               "--bucket-mb", "0.01", "--zero", stage, "--check", "--json", js, "--trace", trace)
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    self.assertIn(f"ZeRO-{stage}", r.stdout)
                    for rec in load_json(js)["records"]:
                        self.assertEqual(rec["params"]["zero"], int(stage))
                        self.assertEqual(rec["metrics"]["wrong"], 0, rec["metrics"])
                    with open(trace) as f:
                        names = {e["name"].split(" (")[0].split(" ", 2)[-1] for e in json.load(f)["traceEvents"]
                                 if e["ph"] == "X" and e["tid"] % 2 == 1}
                    reduction = "allreduce" if stage == "1" else "reduce-scatter"
                    self.assertEqual(names, {reduction, "allgather of parameters"}, names)

    def test_bfloat16_gradients(self):
        js = self.path("bf16.json")
        r = mpirun(2, "train", "--layers", "3", "--hidden", "64", "--batch", "48", "--steps", "6", "--dtype", "bf16",
                   "--zero", "2", "--check", "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("gradients travel as bfloat16", r.stdout)
        report = load_json(js)
        for rec in report["records"]:
            self.assertEqual(rec["params"]["dtype"], "bfloat16")
            self.assertEqual(rec["metrics"]["wrong"], 0)
            self.assertGreater(rec["metrics"]["max_rel_diff"], 0)  # rounded on the way

    def test_tensor_parallel_groups(self):
        for np, tp in ((2, "2"), (4, "2")):
            with self.subTest(np=np, tp=tp):
                js = self.path(f"tp{np}.json")
                r = mpirun(np, "train", "--layers", "5", "--hidden", "64", "--batch", "48", "--steps", "6",
                           "--tp-size", tp, "--zero", "2", "--check", "--json", js)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn(f"replicas of {tp} tensor-parallel ranks", r.stdout)
                for rec in load_json(js)["records"]:
                    self.assertEqual(rec["params"]["tp_size"], int(tp))
                    self.assertEqual(rec["metrics"]["wrong"], 0, rec["metrics"])
                    # a rank holds its part of the model: fewer than the whole model's parameters
                    self.assertLess(rec["params"]["parameters"], 64 * 64 * 4 + 64 * 10)

    def test_bad_input_runs_nothing(self):
        cases = [
            (2, ["--tp-size", "3"], "--tp-size 3"),
            (2, ["--tp-size", "0"], "--tp-size 0"),
            (2, ["--tp-size", "2", "--layers", "2"], "at least 3 layers"),
            (2, ["--tp-size", "2", "--hidden", "63"], "--hidden 63"),
            (2, ["--tp-size", "2", "--scaling"], "--scaling"),
            (2, ["--zero", "4"], "--zero 4"),
            (2, ["--dtype", "fp16"], "--dtype"),
            (2, ["--zero", "-1"], "--zero -1"),
            (2, ["--batch", "7"], "--batch 7"),
            (2, ["--layers", "0"], "--layers 0"),
            (2, ["--hidden", "0"], "--hidden 0"),
            (2, ["--bucket-mb", "-1"], "--bucket-mb"),
            (2, ["--model", "resnet"], "resnet"),
            (2, ["--check", "--optimizer", "adam"], "--optimizer sgd"),
            (2, ["--check", "--warmup", "0"], "--warmup 1"),
            (2, ["--overlap", "maybe"], "--overlap"),
            (2, ["--hidden", "1000000", "--layers", "4"], "lower --hidden"),
            (2, ["--trace", "/nonexistent-dir/t.json"], "/nonexistent-dir"),
        ]
        for args, needle, js, r in run_bad_input(self, cases, "train"):
            with self.subTest(args=args):
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(needle, lines[0])
                self.assertFalse(os.path.exists(js))


class TensorParallel(Workdir):
    """distbench tp: TorchShard's operations exact along both dims and forward and backward, in groups that divide
    the world; the layers equal to one rank's; bad input."""

    def test_operations_in_groups(self):
        for np, group, dtype in ((4, "2", "fp32"), (3, "3", "bf16"), (2, "0", "fp16")):
            with self.subTest(np=np, group=group, dtype=dtype):
                js = self.path(f"ops{np}.json")
                r = mpirun(np, "tp", "--group-size", group, "--shape", "48x96", "--dtype", dtype, "--check", "-n",
                           "5", "--json", js)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                report = load_json(js)
                self.assertEqual(report["status"], "complete")
                records = report["records"]
                # scatter and gather: 2 passes x 2 dims; reduce and copy: 2 passes
                self.assertEqual(len(records), 12)
                g = np if group == "0" else int(group)
                for rec in records:
                    p, m = rec["params"], rec["metrics"]
                    self.assertEqual(m["wrong"], 0, rec)
                    self.assertEqual(p["group_size"], g)
                    self.assertEqual(p["groups"], np // g)
                    self.assertGreater(m["time_us"], 0)
                    factor = {"allgather": (g - 1) / g, "allreduce": 2 * (g - 1) / g}.get(p["primitive"])
                    if factor is None:
                        self.assertIsNone(m["busbw_gbps"])
                    else:
                        self.assertAlmostEqual(m["busbw_gbps"], m["algbw_gbps"] * factor, places=6)
                        self.assertAlmostEqual(m["algbw_gbps"], p["bytes"] / (m["time_us"] * 1e3), delta=1e-6 *
                                               m["algbw_gbps"])
                kinds = {(r["params"]["op"], r["params"]["pass"]): r["params"]["primitive"] for r in records}
                self.assertEqual(kinds[("copy", "backward")], "allreduce")
                self.assertEqual(kinds[("scatter", "backward")], "allgather")

    def test_layers_match_one_rank(self):
        js = self.path("layers.json")
        r = mpirun(4, "tp", "--group-size", "2", "--layer", "all", "--in", "64", "--out", "96", "--batch", "8",
                   "--check", "-n", "5", "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        records = load_json(js)["records"]
        self.assertEqual([x["params"]["layer"] for x in records], ["column", "row", "mlp"])
        for rec in records:
            m = rec["metrics"]
            self.assertEqual(m["wrong"], 0, m)
            self.assertLess(m["max_rel_diff"], 1e-3)
            self.assertGreaterEqual(m["comm_share"], 0)
            self.assertLessEqual(m["comm_share"], 1)
            self.assertGreater(m["tflops"], 0)
            # the parts shown come from the step shown: they fit in it (device marks inside a host-timed step)
            self.assertLessEqual(m["forward_ms"] + m["backward_ms"], m["step_ms"] * 1.0001, m)

    def test_options_it_does_not_use_are_said_once(self):
        js = self.path("tp.json")
        r = mpirun(2, "tp", "--shape", "8x8", "--op", "copy", "-n", "2", "-w", "0", "--in", "64", "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        ignored = [line for line in r.stderr.splitlines() if " ignored: " in line]
        self.assertEqual([line.split(" ignored:")[0] for line in ignored], ["warning: --in 64"], r.stderr)
        self.assertEqual(sum(w["code"] == "option_ignored" for w in load_json(js)["warnings"]), 1)

    def test_bad_input_runs_nothing(self):
        cases = [
            (2, ["--group-size", "3"], "--group-size 3"),
            (2, ["--group-size", "-1"], "--group-size -1"),
            (2, ["--shape", "4096"], "ROWSxCOLS"),
            (2, ["--shape", "0x8"], "ROWSxCOLS"),
            (2, ["--dim", "2"], "--dim 2"),
            (2, ["--dim", "rows"], "--dim rows"),
            (2, ["--op", "split"], "--op split"),
            (2, ["--dtype", "int8"], "--dtype int8"),
            (2, ["--shape", "5x8"], "5 rows"),
            (2, ["--layer", "conv"], "--layer conv"),
            (2, ["--layer", "row", "--in", "7"], "--in"),
            (2, ["--layer", "column", "--out", "0"], "--out 0"),
            (2, ["--shape", "1000000x1000000"], "lower --shape"),
        ]
        for args, needle, js, r in run_bad_input(self, cases, "tp"):
            with self.subTest(args=args):
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(needle, lines[0])
                self.assertFalse(os.path.exists(js))


class CompareGate(Workdir):
    """distbench compare on real reports: a report against itself, a slowed-down copy, reports that cannot be
    compared, and every output format; and the sweep's bandwidth floor."""

    @classmethod
    def setUpClass(cls):
        """A real report whose samples are then made steady (each case's median, within +/-1 %): the tests check
        the gate's logic and formats, not this machine's noise (bench/compare_gate.py measures that), and a busy
        CI machine must not make them flaky."""
        cls._shared = tempfile.TemporaryDirectory()
        cls.base = os.path.join(cls._shared.name, "base.json")
        r = mpirun(2, "allreduce", "-b", "64K", "-e", "1M", "-n", "20", "--json", cls.base)
        assert r.returncode == 0, r.stderr
        report = load_json(cls.base)
        for rec in report["records"]:
            for phase in rec["phases"]:
                median = sorted(phase["samples_us"])[len(phase["samples_us"]) // 2]
                phase["samples_us"] = [median * (1 + 0.002 * ((i * 7) % 11 - 5)) for i in range(20)]
        with open(cls.base, "w") as f:
            json.dump(report, f)

    @classmethod
    def tearDownClass(cls):
        cls._shared.cleanup()

    def scaled(self, name, factor):
        report = load_json(self.base)
        for rec in report["records"]:
            for phase in rec["phases"]:
                phase["samples_us"] = [x * factor for x in phase["samples_us"]]
        path = self.path(name)
        with open(path, "w") as f:
            json.dump(report, f)
        return path

    def runs(self, name, factor, k=5):
        """k reports of the base scaled by `factor`, run i's by a further 1 + 0.004 (i - (k - 1) / 2): runs of one build
        with distinct medians (the gate tests the runs' medians), as files for BASELINE... CANDIDATE...."""
        return [self.scaled(f"{name}{i}.json", factor * (1 + 0.004 * (i - (k - 1) / 2))) for i in range(k)]

    def test_a_report_against_itself_is_no_regression(self):
        r = single("compare", *self.runs("base", 1), *self.runs("again", 1), "--candidates", "5")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("# verdict: OK", r.stdout)
        self.assertIn("0 slower, 0 faster, 10 same, 0 unknown, 0 missing, 0 new", r.stdout)

    def test_one_run_a_side_is_not_judged_unless_threshold_only(self):
        # The samples of one run share its machine's state: one run a side is no evidence of a change at --alpha, so
        # the gate fails closed, saying what to give it (the README's old gate: `compare base.json cand.json`).
        slow = self.scaled("slow.json", 1.2)
        for args in ([self.base, self.base], [self.base, slow]):
            r = single("compare", *args)
            self.assertEqual(r.returncode, 7, r.stdout + r.stderr)
            self.assertEqual(r.stdout, "")
            self.assertEqual(error_lines(r.stderr), [
                "error: 1 baseline run and 1 candidate run are too few to test at --alpha 0.01: the samples of a run "
                "share its machine's state, so the gate tests the runs' medians, and a rank test of them needs 5 runs "
                "a side (or e.g. 9 baseline runs against 3 candidate runs: --candidates 3); give it more runs, run "
                "both sides interleaved (--run-baseline, --run-candidate), or judge on the threshold alone, with no "
                "test (--threshold-only)"])
        r = single("compare", self.base, slow, "--threshold-only", "--format", "json")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        gate = json.loads(r.stdout)
        self.assertEqual(gate["mode"], "threshold-only")
        for case in gate["cases"]:
            self.assertEqual(case["verdict"], "SLOWER")
            self.assertIn("no significance test: --threshold-only", case["reason"])
            self.assertIsNone(case["p"])
            self.assertEqual(len(case["baseline_runs"]), 1)
        r = single("compare", self.base, self.base, "--threshold-only", "--rounds", "9", "--alpha", "0.05")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("; threshold-only, no significance test: 1 baseline run, 1 candidate run)", r.stdout)
        # a file against itself, and the options of the other mode, one line each
        self.assertEqual([line for line in r.stderr.splitlines() if line.startswith("warning:")], [
            "warning: --rounds 9 ignored: it is for interleaved runs (--run-baseline, --run-candidate), not report "
            "files",
            "warning: --alpha 0.05 ignored: --threshold-only judges without a test",
            f"warning: {self.base} is both a baseline and a candidate run: it cannot differ from itself"], r.stderr)
        r = single("compare", "--run-baseline", "true", "--run-candidate", "true", "--threshold-only")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(error_lines(r.stderr), ["error: --threshold-only is for report files; interleaved rounds are "
                                                 "paired and tested (--rounds)"])

    def test_every_case_slower_by_a_fifth_fails_the_gate_naming_each(self):
        base = self.runs("base", 1)
        r = single("compare", *base, *self.runs("slow", 1.2), "--candidates", "5")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        rows = [line for line in r.stdout.splitlines() if not line.startswith("#")]
        self.assertEqual(len(rows), 10)
        self.assertTrue(all(" SLOWER (+20.0% beyond the 5% threshold (p 0.0079 < 0.01 over 5 and 5 runs" in line
                            for line in rows), r.stdout)
        self.assertIn("# verdict: REGRESSION", r.stdout)
        # the same regression whose view cannot be written: a failure (8), never read as the regression's 1
        with open("/dev/full", "w") as full:
            r = subprocess.run([BINARY, "compare", *base, *self.runs("slow", 1.2), "--candidates", "5"], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(r.returncode, 8, r.stderr)
        self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)
        r = single("compare", *base, *self.runs("fast", 1 / 1.2), "--candidates", "5", "--metric", "busbw")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("0 slower, 10 faster", r.stdout)

    def test_every_format_parses(self):
        base, slow = self.runs("base", 1), self.runs("slow", 1.2)
        outputs = {}
        for fmt in ["markdown", "json", "junit", "html"]:
            out = self.path("out." + fmt)
            r = single("compare", *base, *slow, "--candidates", "5", "--format", fmt, "--output", out)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertTrue(r.stdout.startswith("REGRESSION: 10 slower"), r.stdout)
            with open(out) as f:
                outputs[fmt] = f.read()
        report = json.loads(outputs["json"])
        self.assertEqual(report["summary"]["slower"], 10)
        self.assertEqual(report["baselines"], base)
        self.assertEqual(report["mode"], "runs")
        self.assertEqual({case["baseline_samples"] for case in report["cases"]}, {100})  # five runs of 20 samples
        for case in report["cases"]:
            self.assertEqual([run["samples"] for run in case["candidate_runs"]], [20] * 5)
            self.assertTrue(all(run["low"] <= run["median"] <= run["high"] for run in case["baseline_runs"]), case)
        suite = ElementTree.fromstring(outputs["junit"])
        self.assertEqual(suite.get("failures"), "10")
        self.assertEqual(len(suite.findall(".//testcase")), 10)
        self.assertEqual(len(suite.findall(".//failure")), 10)
        self.assertIn("| case | baseline time (us) |", outputs["markdown"])
        self.assertTrue(outputs["html"].lstrip().lower().startswith("<!doctype html>"))
        self.assertNotIn("<script", outputs["html"])
        svgs = re.findall(r"<svg\b.*?</svg>", outputs["html"], re.S)
        self.assertEqual(len(svgs), 2)  # one plot per placement
        svg_path, png_path = self.path("compare.svg"), self.path("compare.png")
        with open(svg_path, "w") as f:
            f.write(svgs[0])
        root = ElementTree.parse(svg_path).getroot()
        self.assertEqual(len(root.findall(".//{http://www.w3.org/2000/svg}polyline")), 2)  # baseline, candidate
        rsvg = shutil.which("rsvg-convert")
        if rsvg is None:
            self.skipTest("rsvg-convert is not installed (apt-get install librsvg2-bin; scripts/setup-debian.sh does)")
        rendered = subprocess.run([rsvg, "-o", png_path, svg_path], capture_output=True, text=True, timeout=60)
        self.assertEqual(rendered.returncode, 0, rendered.stderr)
        _, _, pixels = read_png(png_path)
        self.assertGreater(len({p[:3] for row in pixels for p in row}), 20, "a blank or nearly blank picture")
        ringed = sum(1 for row in pixels for p in row if p[0] > 180 and p[1] < 60 and p[2] < 60)
        self.assertGreater(ringed, 50, "the SLOWER cases are not ringed in red")

    def test_filter_keeps_the_matching_cases(self):
        r = single("compare", *self.runs("base", 1), *self.runs("slow", 1.2), "--candidates", "5", "--filter",
                   "placement=in-place,bytes>=512K")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("2 slower, 0 faster, 0 same", r.stdout)

    def test_reports_that_cannot_be_compared(self):
        corrupt = self.path("corrupt.json")
        with open(corrupt, "w") as f:
            f.write("{\"schema_version\": 2, ")
        r = single("compare", self.base, corrupt)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)
        self.assertIn(f"report '{corrupt}': malformed distbench report: not valid JSON", r.stderr)

        future = load_json(self.base)
        future["schema_version"] = 5
        path = self.path("future.json")
        with open(path, "w") as f:
            json.dump(future, f)
        r = single("compare", self.base, path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unsupported report schema_version 5", r.stderr)

        other = load_json(self.base)
        other["environment"]["world_size"] = 4
        path = self.path("four.json")
        with open(path, "w") as f:
            json.dump(other, f)
        r = single("compare", self.base, path)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(error_lines(r.stderr), ["error: baseline 1 ran on 2 ranks and the candidate on 4; compare "
                                                 "runs of the same world size"])
        r = single("compare", self.base)
        self.assertEqual(r.returncode, 2)
        r = single("compare", self.base, self.path("missing.json"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read report", r.stderr)
        r = single("compare", self.base, self.base, "--threshold", "five")
        self.assertEqual(r.returncode, 2)

    def edited(self, name, edit):
        report = load_json(self.base)
        edit(report)
        path = self.path(name)
        with open(path, "w") as f:
            json.dump(report, f)
        return path

    def edited_runs(self, name, edit=lambda report: None, k=5):
        """k runs of the base report, edited, each its own run (its own start time: the gate refuses a run given
        twice on one side)."""
        def stamped(i):
            def edit_and_stamp(report):
                edit(report)
                report["start_time"] = f"2026-01-01T00:00:{i:02d}Z"
            return edit_and_stamp
        return [self.edited(f"{i}{name}", stamped(i)) for i in range(k)]

    def test_the_gate_fails_closed_when_it_cannot_judge(self):
        # exit 7 and one error line whenever the gate could not judge; 2 for reports no statistic may read
        def status(report):
            report["status"], report["error"] = "interrupted", "interrupted by signal 2 (SIGINT)"

        def collective(report):
            for rec in report["records"]:
                rec["params"]["collective"] = "alltoall"

        def drop_last(report):
            report["records"].pop()

        def null_sample(report):
            report["records"][0]["phases"][0]["samples_us"][3] = None

        def twice(report):
            report["records"].append(report["records"][0])

        five = self.edited_runs("b.json")  # five runs a side (of one report: the cases here are refused before any test)
        cands = ["--candidates", "5"]
        rows = [
            ("interrupted candidate", [self.base, self.edited("i.json", status)], 7,
             "candidate run 1 is interrupted (interrupted by signal 2 (SIGINT)): a run that did not complete"),
            ("one run a side", [self.base, self.base], 7,
             "1 baseline run and 1 candidate run are too few to test at --alpha 0.01"),
            ("4 runs against 4", [self.base] * 8 + ["--candidates", "4"], 7,
             "4 baseline runs and 4 candidate runs are too few to test at --alpha 0.01"),
            ("another collective", self.edited_runs("a.json", collective) + five + cands, 7,
             "nothing to compare: no case is in both the baseline and the candidate (10 only in the baseline, 10 "
             "only in the candidate)"),
            ("a misspelt filter", [self.base, self.base, "--filter", "dtyp=float32"], 2,
             "--filter: no case has a field 'dtyp'"),
            ("a filter that keeps nothing", five + five + cands + ["--filter", "bytes>1G"], 7,
             "nothing to compare: neither side has a measured case (after --filter)"),
            ("a case missing", five + self.edited_runs("m.json", drop_last) + cands, 7,
             "the gate could not judge: 1 baseline case is not in the candidate"),
            ("a null sample", five + self.edited_runs("n.json", null_sample) + cands, 2,
             "has sample 4 = nan: not a positive time"),
            ("a run given twice", [self.base] * 5 + five + cands, 2,
             "baseline 1 and baseline 2 are one run given twice (the same start time and samples)"),
            ("a case twice", self.edited_runs("t.json", twice) + five + cands, 2, "appears twice"),
        ]
        for what, args, code, words in rows:
            with self.subTest(what):
                r = single("compare", *args)
                self.assertEqual(r.returncode, code, r.stdout + r.stderr)
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(words, lines[0])
        r = single("compare", *five, *self.edited_runs("m.json", drop_last), *cands, "--allow-missing")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("# verdict: OK", r.stdout)

    def test_interleaved_runs_pair_both_sides_round_by_round(self):
        # Both sides are real distbench runs under mpirun; the candidate's samples are then set to about a second per
        # operation, so that the verdict does not depend on this machine's noise (bench/compare_gate.py measures
        # real changes): a paired test of 8 rounds needs every round's ratio above 1, and beside two busy processes
        # a candidate made 4 times slower lost a round in 2 of 2 repetitions (a baseline launch 4 times slower than
        # its partner); no launch of a 64-128 KiB allreduce takes a second per operation.
        import shlex
        slow_down = self.path("slow_down.py")
        with open(slow_down, "w") as f:
            f.write("import json, sys\n"
                    "r = json.load(open(sys.argv[1]))\n"
                    "for rec in r['records']:\n"
                    "    for ph in rec['phases']:\n"
                    "        ph['samples_us'] = [1e6 * (1 + 0.001 * i) for i in range(len(ph['samples_us']))]\n"
                    "json.dump(r, open(sys.argv[2], 'w'))\n")
        run = shlex.join(MPIRUN + ["-np", "2", BINARY, "allreduce", "-b", "64K", "-e", "128K", "-n", "10", "-w", "1",
                                   "--placement", "out-of-place"])
        candidate = f"{run} --json {{report}}.raw && {shlex.quote(sys.executable)} {shlex.quote(slow_down)} " \
                    "{report}.raw {report}"
        runs, out = self.path("runs"), self.path("gate.json")
        r = single("compare", "--run-baseline", run, "--run-candidate", candidate, "--rounds", "8", "--runs-dir",
                   runs, "--format", "json", "--output", out, timeout=600)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertTrue(r.stdout.startswith("REGRESSION: 2 slower"), r.stdout)
        self.assertEqual(len(re.findall(r"compare: \[\d+/16\] round \d candidate", r.stderr)), 8, r.stderr)
        gate = load_json(out)
        self.assertEqual((gate["mode"], gate["rounds"]), ("interleaved", 8))
        for case in gate["cases"]:
            self.assertEqual(case["verdict"], "SLOWER")
            self.assertIn("paired over 8 rounds", case["reason"])
            self.assertEqual(len(case["round_ratios"]), 8)
            self.assertTrue(all(ratio > 1 for ratio in case["round_ratios"]), case["round_ratios"])
        kept = sorted(name for name in os.listdir(runs) if name.endswith(".json"))
        self.assertEqual(len(kept), 16)
        self.assertEqual(load_json(os.path.join(runs, "round01-baseline.json"))["status"], "complete")

    def test_interleaved_runs_fail_closed_and_end_with_an_interrupt(self):
        runs = self.path("runs")
        r = single("compare", "--run-baseline", "true", "--run-candidate", "exit 3", "--rounds", "8", "--runs-dir",
                   runs)
        self.assertEqual(r.returncode, 7, r.stderr)
        self.assertEqual(error_lines(r.stderr), [f"error: round 1's baseline run wrote no report at {runs}/"
                                                 "round01-baseline.json: end the command with distbench's arguments "
                                                 "(--json PATH is appended), or put {report} where the report's path "
                                                 "goes"])
        r = single("compare", "--run-baseline", "true", "--run-candidate", "true", "--runs-dir", runs)
        self.assertEqual(r.returncode, 2)
        self.assertIn("the folder is not empty", r.stderr)
        # Too few rounds to ever reach --alpha: refused before anything runs.
        few = self.path("few")
        r = single("compare", "--run-baseline", "true", "--run-candidate", "true", "--rounds", "3", "--runs-dir", few)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(error_lines(r.stderr), ["error: --rounds 3 can never show a change at --alpha 0.01: the "
                                                 "signed-rank test needs 8 rounds or more there; raise --rounds to 8 "
                                                 "(or --alpha)"])
        self.assertFalse(os.path.exists(few))
        r = single("compare", self.base, self.base, "--run-baseline", "true", "--run-candidate", "true")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(error_lines(r.stderr), ["error: give either report files or --run-baseline and "
                                                 "--run-candidate, not both"])
        # Ctrl-C while a run is going: the run's whole process group ends with the gate, which says where the runs
        # are and exits as the signal says.
        pid_file = self.path("sleeper.pid")
        proc = subprocess.Popen([BINARY, "compare", "--run-baseline", f"sleep 120 & echo $! > {pid_file}; wait; true",
                                 "--run-candidate", "true", "--runs-dir", self.path("runs2")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while not (os.path.exists(pid_file) and os.path.getsize(pid_file) > 0) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(pid_file), "the baseline run never started")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertEqual(len(error_lines(err)), 1, err)
        self.assertIn("error: interrupted by signal 2 (SIGINT); the runs so far are in", err)
        with open(pid_file) as f:
            sleeper = int(f.read())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(sleeper, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            self.fail(f"the interrupted run's child {sleeper} still runs")

    def test_relative_options_read_alike_everywhere(self):
        # A percentage is written 5% or 5; a bare fraction is ambiguous and refused, in every subcommand.
        slow = self.scaled("slow.json", 1.2)
        gate = [*self.runs("base", 1), *self.runs("slow", 1.2), "--candidates", "5"]
        self.assertEqual(single("compare", *gate, "--threshold", "25%").returncode, 0)
        self.assertEqual(single("compare", *gate, "--threshold", "25").returncode, 0)
        self.assertEqual(single("compare", *gate, "--threshold", "15%").returncode, 1)
        # (health's bad input exits 3, "unknown", as monitoring systems expect)
        for command, code in ((["compare", self.base, slow, "--threshold"], 2), (["health", "--tolerance"], 3),
                              (["allreduce", "--max-noise"], 2)):
            with self.subTest(command[0]):
                r = single(*command, "0.05")
                self.assertEqual(r.returncode, code, r.stderr)
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn("0.05 is ambiguous: a bare number is a percentage here (0.05%), a fraction elsewhere; "
                              "write 5% or 0.05%", lines[0])
        out = self.path("view.md")
        self.assertEqual(single("compare", *gate, "--format", "md", "-o", out).returncode, 1)
        with open(out) as f:
            self.assertIn("| case | baseline time (us) |", f.read())
        r = single("report", self.base, "--format", "markdown", "-o", out)  # -o/--output and both names, everywhere
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            self.assertIn("|", f.read())

    def test_bandwidth_floor_fails_the_run_with_exit_code_6(self):
        js = self.path("floor.json")
        r = mpirun(2, "allreduce", "-b", "64K", "-e", "256K", "-n", "3", "--min-busbw", "1000", "--json", js)
        self.assertEqual(r.returncode, 6, r.stderr)
        self.assertIn("# Bandwidth floor: FAILED: avg busbw", r.stdout)
        self.assertEqual(len([line for line in error_lines(r.stderr) if "bandwidth floor" in line]), 1, r.stderr)
        report = load_json(js)
        self.assertEqual(report["status"], "complete")
        self.assertEqual(report["summary"]["bandwidth_floor_ok"], 0)
        r = mpirun(2, "allreduce", "-b", "64K", "-e", "256K", "-n", "3", "--min-busbw", "0.001", "--min-busbw-at",
                   "128K")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("# Bandwidth floor: OK: lowest busbw at sizes >= 128 KiB", r.stdout)
        r = single("allreduce", "--min-busbw-at", "1M")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(error_lines(r.stderr), ["error: --min-busbw-at needs a floor to judge: add --min-busbw GBPS "
                                                 "or --min-algbw GBPS"])


class Faults(Workdir):
    def start_sweep(self, js, *extra, np=2):
        # Sizes grow to 64 MiB with many samples: a sweep long enough to interrupt.
        return subprocess.Popen(MPIRUN + ["-np", str(np), BINARY, "allreduce", "-b", "1K", "-e", "64M", "-n", "200",
                                          "--json", js, *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def rank_pid(self, js, rank):
        pids = rank_pids(js)
        self.assertIn(rank, pids, f"no process of rank {rank} writing {js}: {pids}")
        return pids[rank]

    def test_killed_rank_leaves_finished_sizes(self):
        js = self.path("k.json")
        proc = self.start_sweep(js, "-T", "30")
        try:
            wait_for_results(self, js, 4, proc)
            os.kill(self.rank_pid(js, 1), signal.SIGKILL)
            began = time.time()
            proc.wait(timeout=40)
            self.assertNotEqual(proc.returncode, 0)
            self.assertLess(time.time() - began, 40)
        finally:
            proc.kill()
            proc.communicate()
        report = load_json(js)
        # The launcher ends the root with SIGTERM once rank 1 is gone: the root says so in the report (it cannot tell
        # this from Ctrl-C, which mpirun turns into the same SIGTERM; the message names both).
        self.assertEqual(report["status"], "interrupted")
        self.assertEqual(report["signal"], 15)
        self.assertIn("interrupted by signal 15 (SIGTERM)", report["error"])
        self.assertIn("another rank failed", report["error"])
        self.assertGreaterEqual(len(collective_results(report)), 4)
        self.assert_only_the_report(js)
        self.assertTrue(all(res["wrong"] == 0 for res in collective_results(report)))

    def assert_only_the_report(self, js):
        """The report and nothing else: no temporary file left half-written beside it."""
        self.assertEqual(os.listdir(os.path.dirname(js)), [os.path.basename(js)])

    def stop_one_rank(self, rank, np=3, timeout_s=3):
        js = self.path(f"stop{rank}.json")
        proc = self.start_sweep(js, "-T", str(timeout_s), np=np)
        assert_stopped_rank_ends_job(self, proc, js, rank, np, timeout_s)

    def test_hung_middle_rank_trips_the_timeout(self):
        # A rank neither the root nor the last, stopped at whatever step it is in. The root and the last rank stopped
        # at each kind of step are e2e_stopped_steps' table (np 2: rank 0 and rank 1).
        self.stop_one_rank(1)

    def test_terminated_root_marks_the_report_interrupted(self):
        # What the launcher does to the root when another rank fails first, or on Ctrl-C: SIGTERM. The root keeps the
        # report's word (interrupted, with the signal and the step) and leaves no temporary file.
        js = self.path("term.json")
        proc = self.start_sweep(js, "-T", "30")
        try:
            wait_for_results(self, js, 4, proc)
            os.kill(self.rank_pid(js, 0), signal.SIGTERM)
            _, err = proc.communicate(timeout=40)
            self.assertNotEqual(proc.returncode, 0, err)
        finally:
            proc.kill()
            proc.communicate()
        report = load_json(js)
        self.assertEqual(report["status"], "interrupted")
        self.assertIn("interrupted by signal 15", report["error"])
        self.assertIn("allreduce", report["error"])
        self.assertGreaterEqual(len(collective_results(report)), 4)
        self.assert_only_the_report(js)


class ReportViews(Workdir):
    """`distbench report`: views of a JSON report, read back without MPI."""
    EXAMPLE = os.path.join(SOURCE_ROOT, "reports", "example.json")

    def assert_usage_error(self, result, *needles):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        lines = error_lines(result.stderr)
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertEqual(result.stderr.strip(), lines[0])
        for needle in needles:
            self.assertIn(needle, lines[0])

    def test_plots_of_adjacent_doubles_and_denormals_end_at_once(self):
        # An axis over values one ULP apart or of denormals once looped until bad_alloc (model --link-gbps 1e-323 took
        # 1.3 GB) or drew at NaN: each page is written at once, every coordinate a number. Capped at 2 GB of address
        # space, so that the old loop ends in bad_alloc instead of taking the machine's memory.
        cap = lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # noqa: E731
        with open(self.EXAMPLE) as f:
            report = json.load(f)
        for i, record in enumerate(report["records"]):
            v = 1.0 if i % 2 == 0 else math.nextafter(1.0, 2.0)
            record["metrics"]["time_us"] = v
            for phase in record["phases"]:
                for key in phase.get("rank_spread_us", {}):
                    phase["rank_spread_us"][key] = v
        adjacent = self.path("adjacent.json")
        with open(adjacent, "w") as f:
            json.dump(report, f)
        for args in (["report", adjacent, "--format", "html"],
                     ["model", self.EXAMPLE, "--link-gbps", "1e-323", "--format", "html"]):
            with self.subTest(" ".join(args[:1] + args[2:])):
                r = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60, preexec_fn=cap)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertLess(len(r.stdout), 1 << 20)
                self.assertIn("<svg", r.stdout)
                self.assertNotIn("nan", r.stdout.lower())
                self.assertNotRegex(r.stdout, r"\d{20,}")

    def test_html_plot_renders_to_a_picture_with_axes_lines_and_legend(self):
        rsvg = shutil.which("rsvg-convert")
        if rsvg is None:
            self.skipTest("rsvg-convert is not installed (apt-get install librsvg2-bin; scripts/setup-debian.sh does)")
        page = self.path("example.html")
        r = single("report", self.EXAMPLE, "--format", "html", "--output", page)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.dir), ["example.html"])  # no temporary file left
        with open(page, encoding="utf-8") as f:
            html = f.read()
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        self.assertNotIn("<script", html)
        svg = re.search(r"<svg\b.*?</svg>", html, re.S).group(0)
        svg_path, png_path = self.path("plot.svg"), self.path("plot.png")
        with open(svg_path, "w", encoding="utf-8") as f:
            f.write(svg)
        root = ElementTree.parse(svg_path).getroot()  # well-formed XML
        ns = "{http://www.w3.org/2000/svg}"
        self.assertEqual(root.tag, ns + "svg")
        self.assertEqual(len(root.findall(f".//{ns}polyline")), 2)  # out-of-place and in-place
        rendered = subprocess.run([rsvg, "-o", png_path, svg_path], capture_output=True, text=True, timeout=60)
        self.assertEqual(rendered.returncode, 0, rendered.stderr)
        if os.environ.get("DISTBENCH_KEEP_PNG"):
            shutil.copy(png_path, os.environ["DISTBENCH_KEEP_PNG"])

        width, height, pixels = read_png(png_path)
        self.assertEqual((width, height), (760, 420))
        colours = {p[:3] for row in pixels for p in row}
        self.assertGreater(len(colours), 20, "a blank or nearly blank picture")
        white = sum(1 for row in pixels for p in row if p[:3] == (255, 255, 255))
        self.assertGreater(white, width * height // 2, "the background is not white")
        self.assertLess(white, width * height * 0.98, "almost nothing drawn")

        def near(colour, pixel, tolerance=12):
            return all(abs(a - b) <= tolerance for a, b in zip(colour, pixel[:3]))
        for name, colour in (("first series", (0x1f, 0x77, 0xb4)), ("second series", (0xff, 0x7f, 0x0e)),
                             ("frame", (0x44, 0x44, 0x44))):
            hits = sum(1 for row in pixels for p in row if near(colour, p))
            self.assertGreater(hits, 100, f"the {name}'s colour is hardly in the picture")

    def test_markdown_is_a_table_with_a_row_per_record(self):
        r = single("report", self.EXAMPLE, "--format", "md")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = load_json(self.EXAMPLE)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "## distbench allreduce")
        table = [line for line in lines if line.startswith("|")]

        def cells(line):
            self.assertTrue(line.startswith("| ") and line.endswith(" |"), line)
            # each cell as Markdown renders it: a backslash escape is the character it escapes
            return [re.sub(r"\\(.)", r"\1", c.strip()) for c in re.split(r"(?<!\\)\|", line[1:-1])]
        header, rule, rows = cells(table[0]), cells(table[1]), [cells(line) for line in table[2:]]
        self.assertEqual(len(rule), len(header))
        for c in rule:
            self.assertRegex(c, r"^:?-{3,}:?$")
        self.assertEqual(len(rows), len(report["records"]))
        for row, record in zip(rows, report["records"]):
            self.assertEqual(len(row), len(header))
            self.assertEqual(row[header.index("bytes")], str(record["params"]["bytes"]))
            self.assertEqual(row[header.index("placement")], record["params"]["placement"])
            self.assertEqual(row[header.index("status")], "ok")
        self.assertIn("busbw_gbps (GB/s)", header)
        # md is the default, and --output writes what stdout shows
        out = self.path("r.md")
        self.assertEqual(single("report", self.EXAMPLE, "--output", out).returncode, 0)
        with open(out) as f:
            self.assertEqual(f.read(), r.stdout)

    def test_csv_has_a_line_per_record(self):
        r = single("report", os.path.join(SOURCE_ROOT, "reports", "latency-example.json"), "--format", "csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(r.stdout.splitlines()))
        self.assertEqual([row["bytes"] for row in rows], ["1", "8", "64", "512", "4096", "32768"])
        self.assertIn("latency_us", rows[0])

    def test_bad_input_is_one_error_line(self):
        self.assert_usage_error(single("report", self.path("missing.json")), "missing.json", "No such file")
        bad = self.path("bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        self.assert_usage_error(single("report", bad), "bad.json", "not valid JSON")
        self.assert_usage_error(single("report", self.EXAMPLE, "--format", "pdf"), "pdf")
        self.assert_usage_error(single("report", self.EXAMPLE, "--output", "/nonexistent-dir/r.html"),
                                "/nonexistent-dir/r.html")
        self.assertEqual(sorted(os.listdir(self.dir)), ["bad.json"])


# The bad-input cases (every subcommand's options refused: test names with one of these in them). `--errors` runs only
# them (e2e_cli_errors, which scripts/test.sh runs under the sanitizers), `--runs` the rest (e2e_cli); neither, all.
ERROR_CASES = ("bad_input", "bad_options", "BadInput")
PART = sys.argv.pop(1) if sys.argv[1:2] in (["--errors"], ["--runs"]) else None


def load_tests(loader, tests, pattern):
    if PART is None:
        return tests
    wanted = PART == "--errors"

    def cases(suite):
        for t in suite:
            yield from cases(t) if isinstance(t, unittest.TestSuite) else [t]
    return unittest.TestSuite(t for t in cases(tests) if any(e in t.id() for e in ERROR_CASES) == wanted)


if __name__ == "__main__":
    unittest.main(verbosity=2)
