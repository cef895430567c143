#!/usr/bin/env python3
"""End-to-end tests of the flags distbench shares with nccl-tests: -r -1, fractional and IEC sizes, -c N, -N, -S,
-C, and the warning for an option the collective has no use for. Each runs the binary under a real mpirun with tiny
sizes and few samples.

Environment: DISTBENCH (path of the binary), DISTBENCH_SOURCE_ROOT (the source tree).
"""
import math
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import collective_results, error_lines, load_json, run_concurrently  # noqa: E402
from test_cli import Workdir, mpirun, single  # noqa: E402

QUICK = ["-n", "3", "-w", "1", "--backend", "mpi"]


def ignored_warnings(stderr):
    """The warnings about ignored options (a busy machine may add noise warnings of its own)."""
    return [line for line in stderr.splitlines() if line.startswith("warning:") and " ignored: " in line]


# A table row as scripts written for nccl-tests match it: size, count, type, redop, root, then time, algbw, busbw and
# #wrong out of place and in place.
NUMBER = r"(-|[0-9.]+(?:e[+-]?[0-9]+)?)"
ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)" + (r"\s+" + NUMBER) * 3 + r"\s+(\d+|N/A)"
                 + (r"\s+" + NUMBER) * 3 + r"\s+(\d+|N/A)\s*$")


def shell(script, text):
    """What a shell pipeline (grep, awk) prints for `text` on its standard input."""
    import subprocess
    return subprocess.run(["sh", "-c", script], input=text, capture_output=True, text=True, check=True).stdout.split()


def nccl_tests_fields(text):
    """The fields scripts take from nccl-tests' output: the rows by a regex, the footer by grep and awk."""
    rows = [m.groups() for line in text.splitlines() if (m := ROW.match(line))]
    return {"rows": rows,
            "avg_busbw": shell("grep 'Avg bus bandwidth' | awk '{print $6}'", text),
            "out_of_bounds": shell("grep 'Out of bounds values' | awk '{print $7, $8}'", text),
            "closing": text.split("# Avg bus bandwidth", 1)[1].splitlines()[1:2] if "# Avg bus bandwidth" in text else []}


class NcclTestsOutput(Workdir):
    """distbench's console output read by parsers written for nccl-tests' (a regex over the rows, grep and awk on the
    footer) gives the same fields as the same parsers give on real all_reduce_perf output (tests/data: nccl-tests
    2.19.6, one rank on an H200, trimmed)."""

    def test_parsers_written_for_nccl_tests_read_distbench(self):
        with open(os.path.join(os.environ["DISTBENCH_SOURCE_ROOT"], "tests", "data",
                               "nccl_tests_all_reduce_sample.txt")) as f:
            peer = nccl_tests_fields(f.read())
        self.assertEqual(len(peer["rows"]), 7)
        self.assertEqual(peer["rows"][0][:5], ("8", "2", "float", "sum", "-1"))
        self.assertEqual(peer["avg_busbw"], ["0"])
        self.assertEqual(peer["out_of_bounds"], ["0", "OK"])
        self.assertEqual(peer["closing"], ["#"])

        js = self.path("r.json")
        r = mpirun(2, "allreduce", "-b", "8", "-e", "4K", "-f", "8", "-d", "float32,float16,float64", *QUICK,
                   "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        ours = nccl_tests_fields(r.stdout)
        self.assertEqual([row[:5] for row in ours["rows"]],
                         [(str(size), str(size // width), name, "sum", "-1")
                          for name, width in (("float", 4), ("half", 2), ("double", 8)) for size in (8, 64, 512, 4096)])
        summary = load_json(js)["summary"]
        self.assertEqual(len(ours["avg_busbw"]), 1, r.stdout)  # one line, however many types
        self.assertAlmostEqual(float(ours["avg_busbw"][0]), summary["avg_busbw_gbps"], delta=1e-5 * summary[
            "avg_busbw_gbps"])
        self.assertEqual(ours["out_of_bounds"], ["0", "OK"])
        self.assertEqual(ours["closing"], ["#"])


NCCL_TYPE = {"float32": "float", "float64": "double", "float16": "half", "bfloat16": "bfloat16", "int32": "int32",
             "int8": "int8", "uint8": "uint8", "int64": "int64", "uint64": "uint64"}


def parse_like_nccl_tests(text):
    """A parser as people write them for nccl-tests' logs: '#' lines skipped (one naming i_min says that -I's four
    per-iteration columns follow each placement), each other line split on whitespace and read by position: size,
    count, type, redop, root, then time, algbw, busbw and #wrong out of place and in place ("N/A" when not checked),
    and with -S the date and time after them. Any word that does not read raises, as such a script would."""
    rows, per = [], 4
    for line in text.splitlines():
        if line.startswith("#"):
            per = 8 if "i_min" in line else per
            continue
        if not line.strip():
            continue
        f = line.split()
        wrong = lambda w: None if w == "N/A" else int(w)  # noqa: E731
        row = {"size": int(f[0]), "count": int(f[1]), "type": f[2], "redop": f[3], "root": int(f[4]), "words": f}
        for name, at in (("out-of-place", 5), ("in-place", 5 + per)):
            row[name] = (float(f[at]), float(f[at + 1]), float(f[at + 2]), wrong(f[at + 3]))
        rows.append(row)
    return rows


class NcclTestsParserMatrix(Workdir):
    """Every flag that changes distbench's rows, read by a nccl-tests-style parser: nccl-tests' columns stay where
    nccl-tests puts them (cycles as '# cycle N' lines, a placement not run as "nan" and "N/A", distbench's own columns
    after them), and each figure read by position is the one the JSON report holds for that row."""

    RUNS = [  # (np, args): ops, types, -N, -S, checks, one placement, every extra column, a root, one rank, methods
        (2, ["allreduce", "-b", "8", "-e", "1K", "-f", "8", "-d", "float32,float64", "-o", "sum,max", "-N", "2", "-S",
             "1"]),
        (2, ["reduce-scatter", "-b", "8", "-e", "1K", "-f", "8", "--placement", "out-of-place", "--columns", "all",
             "--show-faults", "-c", "3"]),
        (2, ["broadcast", "-b", "8", "-e", "64", "-f", "8", "-r", "-1", "--placement", "in-place", "-c", "0", "-S",
             "1", "--columns", "median,mean"]),
        (1, ["allreduce", "-b", "8", "-e", "64", "-f", "8"]),
        (2, ["allgather", "-b", "8", "-e", "64", "-f", "8", "--timing", "sampled,osu"]),
    ]

    def test_a_nccl_tests_parser_reads_every_flag_combination(self):
        paths = [self.path(f"m{i}.json") for i in range(len(self.RUNS))]
        results = run_concurrently([lambda n=n, a=a, js=js: mpirun(n, *a, "-n", "3", "-w", "1", "--backend", "mpi",
                                                                  "--json", js)
                                    for (n, a), js in zip(self.RUNS, paths)])
        for (n, args), js, r in zip(self.RUNS, paths, results):
            with self.subTest(np=n, args=" ".join(args)):
                self.assertEqual(r.returncode, 0, r.stderr)
                rows = parse_like_nccl_tests(r.stdout)
                report = load_json(js)
                self.check_rows(rows, report, args)
                if "-S" in args:  # nccl-tests' stamp: its date and time, two words after the in-place #wrong
                    for row in rows:
                        self.assertRegex(" ".join(row["words"][13:15]), r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
                if "-N" in args:
                    self.assertEqual(re.findall(r"^# cycle (\d+)$", r.stdout, re.M), ["1", "2"], r.stdout)

        # distbench history reads nccl-tests' text: distbench's own rows with -N and -S go in as nccl-tests' would
        # (their trailing columns, with --columns or --show-faults, it refuses as not nccl-tests' rows)
        logs = []
        for i in (0, 3):
            logs.append(self.path(f"m{i}.txt"))
            with open(logs[-1], "w") as f:
                f.write(results[i].stdout)
        for log, (_, args) in zip(logs, [self.RUNS[i] for i in (0, 3)]):
            h = subprocess.run([os.environ["DISTBENCH"], "history", "ingest", self.path("h.sqlite"), log, "--format",
                                "nccl-tests", "--collective", args[0]], capture_output=True, text=True, timeout=60)
            self.assertEqual(h.returncode, 0, h.stderr)

    def check_rows(self, rows, report, args):
        """Each parsed row against its records in the report: the keys, and each placement's time, algbw, busbw and
        #wrong (as printed: within rounding), "nan" where the placement was not run."""
        records = [x for x in collective_results(report) if x["status"] == "ok"]
        timing = report["config"]["timings"][0]
        keyed = {}
        for x in records:
            if x.get("timing", timing) == timing:
                keyed.setdefault((x.get("cycle", 1), x["bytes"], x["dtype"], x["op"], x["root"]), {})[x["placement"]] = x
        self.assertEqual(len(rows), len(keyed), "a row per measured size, type, op, root and cycle")
        for row, (key, by_placement) in zip(rows, keyed.items()):
            _, size, dtype, op, root = key
            first = next(iter(by_placement.values()))
            self.assertEqual((row["size"], row["count"], row["type"], row["redop"], row["root"]),
                             (size, first["count"], NCCL_TYPE[dtype], op, root), row["words"])
            for placement in ("out-of-place", "in-place"):
                time, algbw, busbw, wrong = row[placement]
                x = by_placement.get(placement)
                if x is None:
                    self.assertTrue(math.isnan(time) and math.isnan(busbw), row["words"])
                    self.assertIsNone(wrong, row["words"])
                    continue
                self.assertAlmostEqual(time, x["time_shown_us"], delta=0.006 + 1e-3 * x["time_shown_us"])
                for got, want in ((algbw, x["algbw_gbps"]), (busbw, x["busbw_gbps"])):
                    if want is None:  # nothing moved (one rank, in place)
                        self.assertTrue(math.isnan(got), row["words"])
                    else:
                        self.assertAlmostEqual(got, want, delta=0.006 + 1e-3 * want)
                self.assertEqual(wrong, None if x["wrong"] is None else int(x["wrong"]))


class EveryRoot(Workdir):
    def test_minus_one_runs_each_rank_as_the_root(self):
        for collective in ("broadcast", "reduce", "gather", "scatter"):
            with self.subTest(collective=collective):
                js = self.path(f"{collective}.json")
                r = mpirun(3, collective, "-r", "-1", "-b", "96", "-e", "192", *QUICK, "--json", js)
                self.assertEqual(r.returncode, 0, r.stderr)
                report = load_json(js)
                self.assertEqual(report["config"]["root"], -1)
                results = collective_results(report)
                rows = sorted({(x["bytes"], x["root"]) for x in results})
                self.assertEqual(rows, [(b, root) for b in (96, 192) for root in (0, 1, 2)])
                self.assertEqual(len(results), 2 * 3 * 2)  # sizes x roots x placements
                for x in results:
                    self.assertEqual(x["wrong"], 0, x)

    def test_a_root_outside_the_group_says_how_to_pick_one(self):
        r = mpirun(2, "broadcast", "-r", "2", "-b", "8", "-e", "8", *QUICK)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("or -1 for each of them in turn", r.stderr)


class Sizes(Workdir):
    def test_fractional_and_iec_sizes(self):
        js = self.path("s.json")
        r = mpirun(2, "allreduce", "-b", "1MiB", "-e", "1.5M", "-f", "1.25", *QUICK, "-c", "0", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        sizes = sorted({x["bytes"] for x in collective_results(load_json(js))})
        self.assertEqual(sizes, [1048576, 1310720])  # 1.25 MiB; the next, 1.5625 MiB, is past 1.5M = 1572864
        self.assertEqual(load_json(js)["config"]["sizes"][-1], 1310720)
        r = mpirun(2, "allreduce", "-b", "1.5M", "-e", "1.5M", *QUICK, "-c", "0", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([x["bytes"] for x in collective_results(load_json(js))], [1572864, 1572864])
        r = mpirun(2, "allreduce", "-b", "1KiB", "-e", "1Ki", *QUICK, "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual({x["bytes"] for x in collective_results(load_json(js))}, {1024})

    def test_bad_sizes_exit_2_with_one_error_line(self):
        for bad in ("1.5.2M", "-1M", "1X", "M", "1.M"):
            with self.subTest(size=bad):
                r = single("allreduce", f"--maxbytes={bad}")
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(f"'{bad}' is not a size", lines[0])
                self.assertIn("1.5M", lines[0])


class Checks(Workdir):
    def test_three_checks_and_none(self):
        js = self.path("c.json")
        r = mpirun(2, "reduce-scatter", "-b", "64", "-e", "256", "-c", "3", *QUICK, "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = load_json(js)
        self.assertEqual(report["config"]["check_iters"], 3)
        self.assertIn("check: 3 times per case", r.stdout)
        self.assertTrue(all(x["wrong"] == 0 for x in collective_results(report)))
        r = mpirun(2, "reduce-scatter", "-b", "64", "-e", "256", "-c", "0", *QUICK, "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = load_json(js)
        self.assertFalse(report["config"]["check"])
        self.assertTrue(all(x["wrong"] is None for x in collective_results(report)))
        self.assertIn("N/A", r.stdout)


class Cycles(Workdir):
    def test_two_cycles_double_the_rows(self):
        js = self.path("n.json")
        r = mpirun(2, "allgather", "-b", "64", "-e", "256", "-N", "2", *QUICK, "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        results = collective_results(load_json(js))
        self.assertEqual(len(results), 3 * 2 * 2)  # sizes x placements x cycles
        self.assertEqual([x["cycle"] for x in results], [1] * 6 + [2] * 6)
        self.assertEqual([x["bytes"] for x in results[:6]], [x["bytes"] for x in results[6:]])
        # as nccl-tests prints -N: the rows again, no column of their own; a "# cycle N" line before each cycle's
        lines = [line for line in r.stdout.splitlines() if re.match(r"^\s+\d+\s+\d+\s+float", line)
                 or re.match(r"^# cycle \d+$", line)]
        self.assertEqual([line.split()[0] for line in lines], ["#", "64", "128", "256", "#", "64", "128", "256"],
                         r.stdout)
        self.assertEqual([line for line in lines if line.startswith("#")], ["# cycle 1", "# cycle 2"])

    def test_forever_is_refused_with_a_way_to_run_long(self):
        r = single("allreduce", "-N", "0")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)
        self.assertIn("-N 1000", r.stderr)


class TimestampsAndCpuTime(Workdir):
    def test_timestamps_in_the_table_and_the_records(self):
        js = self.path("t.json")
        r = mpirun(2, "allreduce", "-b", "8", "-e", "32", "-S", "1", *QUICK, "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("timestamp", r.stdout)
        stamps = re.findall(r"  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", r.stdout, re.M)  # nccl-tests' form, at the end
        self.assertEqual(len(stamps), 3, r.stdout)
        self.assertEqual(stamps, sorted(stamps))
        starts = [x["start_time_s"] for x in collective_results(load_json(js))]
        self.assertEqual(len(starts), 6)
        self.assertEqual(starts, sorted(starts))
        self.assertGreater(starts[0], 1.7e9)
        r = mpirun(2, "allreduce", "-b", "8", "-e", "32", *QUICK, "--json", js)
        self.assertNotIn("timestamp", r.stdout)
        self.assertNotIn("start_time_s", collective_results(load_json(js))[0])

    def test_cpu_time_titles_the_column(self):
        js = self.path("t.json")
        r = mpirun(2, "allreduce", "-b", "8", "-e", "8", "-C", "1", *QUICK, "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("cputime", r.stdout)
        self.assertTrue(load_json(js)["config"]["cpu_time"])


class Timing(Workdir):
    def test_nccl_tests_timing_times_blocks_of_n_at_rotating_positions(self):
        js = self.path("t.json")
        # In-place alltoall and sendrecv are the calls a backend may stage: each still checks out.
        for coll in ("allreduce", "alltoall", "sendrecv", "allgather"):
            r = mpirun(2, coll, "-b", "64", "-e", "64K", "-f", "32", "--timing", "nccl-tests", "-n", "7", "-w", "1",
                       "--backend", "mpi", "--json", js)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("timing: nccl-tests", r.stdout)
            self.assertIn("each a block of 7 operations (-n)", r.stdout)
            report = load_json(js)
            self.assertEqual(report["config"]["timing"], "nccl-tests")
            self.assertEqual(report["config"]["block_iters"], 7)
            rows = collective_results(report)
            self.assertEqual(len(rows), 6, coll)
            for row in rows:
                self.assertEqual(row["ops_per_sample"], 7, row)  # a block is -n operations, not a calibrated count
                self.assertEqual(row["wrong"], 0, row)
                self.assertGreaterEqual(len(row["samples_us"]), 10, row)  # blocks per case: the default rule
                self.assertNotIn("device_time_us", row)  # the host clock is where MPI's calls run
        # Over MPI the default stays the sampled method (as IMB and OSU time), and says so.
        r = mpirun(2, "allreduce", "-b", "64", "-e", "64", *QUICK, "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("timing: sampled", r.stdout)
        self.assertEqual(load_json(js)["config"]["timing"], "sampled")

    def test_osu_and_imb_timing_time_one_call_at_a_time_with_the_peers_counts(self):
        js = self.path("p.json")
        # OSU: 1000 calls up to 8 KiB, 100 above; IMB: min(1000, 40 MiB / size); -n in their place when given
        for method, sizes, expected in (("osu", ("4", "16K", "4096"), [1000, 100]),
                                        ("imb", ("64K", "1M", "16"), [640, 40]),
                                        ("osu", ("4", "16K", "4096", "-n", "7", "-w", "0"), [7, 7])):
            r = mpirun(2, "allreduce", "-b", sizes[0], "-e", sizes[1], "-f", sizes[2], *sizes[3:], "--timing", method,
                       "--placement", "out-of-place", "--backend", "mpi", "--json", js)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"timing: {method} (--timing): the host clock around each call", r.stdout)
            report = load_json(js)
            self.assertEqual(report["config"]["timing"], method)
            rows = collective_results(report)
            self.assertEqual([len(row["samples_us"]) for row in rows], expected, method)
            for row in rows:
                self.assertEqual(row["ops_per_sample"], 1, row)  # one call per sample, never calibrated
                self.assertEqual(row["wrong"], 0, row)
        # their loops have no blocks and no list of tensors: one line each
        for extra in (["--blocks", "3"], ["--tensors", "4"]):
            r = single("allreduce", "--timing", "imb", *extra, "-b", "64", "-e", "64")
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)

    def test_osu_and_imb_timing_call_reduce_scatter_as_the_peers_do(self):
        js = self.path("rs.json")
        # IMB and OSU call MPI_Reduce_scatter (one count per rank); distbench's own timing MPI_Reduce_scatter_block.
        # Both placements, at a group size that does not divide evenly into MPI's algorithms' halves; checked.
        for method, form in (("osu", "vector"), ("imb", "vector"), ("sampled", "block")):
            r = mpirun(3, "reduce-scatter", "-b", "12", "-e", "96K", "-f", "32", "-n", "4", "-w", "1", "--timing",
                       method, "--backend", "mpi", "--json", js)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(("call: MPI_Reduce_scatter with equal counts" in r.stdout), form == "vector", r.stdout)
            report = load_json(js)
            self.assertEqual(report["config"]["call_form"], form)
            rows = collective_results(report)
            self.assertEqual(len(rows), 6, rows)  # 3 sizes, 2 placements
            for row in rows:
                self.assertEqual(row["wrong"], 0, row)

    def test_one_rank_in_place_moves_nothing_and_has_no_bandwidth(self):
        js = self.path("t.json")
        r = single("allreduce", "-b", "1K", "-e", "4K", "-f", "4", "-n", "3", "-w", "1", "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = collective_results(load_json(js))
        for row in rows:
            if row["placement"] == "in-place":
                self.assertIsNone(row["algbw_gbps"], row)
                self.assertIsNone(row["busbw_gbps"], row)
            else:
                self.assertGreater(row["algbw_gbps"], 0, row)
            self.assertEqual(row["wrong"], 0, row)
        self.assertIn("2 in-place cases ran on one rank", r.stderr)


def field_ends(line):
    """Where each field of a line ends (the column after its last character): the layout of a right-aligned row."""
    return [m.end() for m in re.finditer(r"\S+", line)]


class NcclTestsLayout(Workdir):
    """The table as nccl-tests prints it: the three header lines byte for byte, and every row's fields ending in the
    same columns as the rows of real all_reduce_perf output (tests/data), so that a fixed-column reader (cut -c, awk
    on a column range, a diff of two runs) reads both alike."""

    def test_header_and_rows_line_up_with_all_reduce_perf(self):
        with open(os.path.join(os.environ["DISTBENCH_SOURCE_ROOT"], "tests", "data",
                               "nccl_tests_all_reduce_sample.txt")) as f:
            peer = f.read().splitlines()
        peer_header, peer_rows = peer[:3], [line for line in peer if ROW.match(line)]
        self.assertEqual({tuple(field_ends(line)) for line in peer_rows}, {tuple(field_ends(peer_rows[0]))})

        r = mpirun(2, "allreduce", "-b", "8", "-e", "1M", "-f", "32", "-d", "float32,bfloat16", *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn(peer_header[0], lines, r.stdout)
        start = lines.index(peer_header[0])
        self.assertEqual(lines[start:start + 3], peer_header)
        rows = [line for line in lines if ROW.match(line)]
        self.assertEqual(len(rows), 8, r.stdout)
        for row in rows:
            self.assertEqual(field_ends(row), field_ends(peer_rows[0]), f"{row!r} against {peer_rows[0]!r}")
        self.assertEqual([row.split()[2] for row in rows], ["float"] * 4 + ["bfloat16"] * 4)


    def test_unchecked_runs_print_what_nccl_tests_prints_under_c_0(self):
        # nccl-tests under -c 0: "    N/A" (one column narrower than a count) and "Out of bounds values : 0 OK"
        r = mpirun(2, "allreduce", "-b", "8", "-e", "64", "-f", "8", "-c", "0", *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line for line in r.stdout.splitlines() if ROW.match(line)]
        self.assertEqual(len(rows), 2, r.stdout)
        with open(os.path.join(os.environ["DISTBENCH_SOURCE_ROOT"], "tests", "data",
                               "nccl_tests_all_reduce_c0_sample.txt")) as f:  # all_reduce_perf -c 0, one H200
            peer_rows = [line for line in f.read().splitlines() if ROW.match(line)]
        for row in rows:
            self.assertEqual(field_ends(row), field_ends(peer_rows[0]), f"{row!r} against {peer_rows[0]!r}")
            self.assertEqual(row.count("N/A"), 2, repr(row))
        fields = nccl_tests_fields(r.stdout)
        self.assertEqual(fields["out_of_bounds"], ["0", "OK"])
        self.assertIn("# Out of bounds values : 0 OK (nothing was checked)", r.stdout.splitlines())


class IgnoredOptions(Workdir):
    def test_each_ignored_option_is_warned_about_once(self):
        r = mpirun(2, "allgather", "-o", "max", "-b", "64", "-e", "64", *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(ignored_warnings(r.stderr), ["warning: -o/--op max ignored: allgather does not reduce"])
        r = mpirun(2, "sendrecv", "-r", "1", "-b", "64", "-e", "64", *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(ignored_warnings(r.stderr),
                         ["warning: -r/--root 1 ignored: sendrecv has no root (only broadcast, reduce, gather and "
                          "scatter do)"])
        r = mpirun(2, "reduce", "-o", "max", "-r", "1", "-b", "64", "-e", "64", *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(ignored_warnings(r.stderr), [])

    def test_nccl_tests_command_lines_run_as_written(self):
        # its long spellings, -t 1 and -p: the run goes on, -p said to be ignored once
        r = mpirun(2, "allreduce", "-t", "1", "-p", "1", "--warmup_iters", "1", "--agg_iters", "1", "--run_cycles", "1",
                   "--report_cputime", "0", "-b", "64", "-e", "64", "-n", "3", "--backend", "mpi")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("warm-up: 1 iterations", r.stdout)
        self.assertEqual([w.split(":")[1].strip() for w in ignored_warnings(r.stderr)], ["-p/--parallel_init ignored"])
        # threads beyond one: one line that says what to run instead, exit code 2, nothing started
        r = single("allreduce", "-t", "4", "-b", "64", "-e", "64")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(error_lines(r.stderr)), 1, r.stderr)
        self.assertIn("start 4 times the processes instead", r.stderr)

    def test_the_warning_lands_in_the_report(self):
        js = self.path("w.json")
        r = mpirun(2, "allreduce", "-r", "1", "-b", "64", "-e", "64", *QUICK, "--json", js)
        self.assertEqual(r.returncode, 0, r.stderr)
        warnings = [w for w in load_json(js)["warnings"] if w["code"] == "option_ignored"]
        self.assertEqual([w["message"] for w in warnings],
                         ["-r/--root 1 ignored: allreduce has no root (only broadcast, reduce, gather and scatter do)"])


if __name__ == "__main__":
    unittest.main()
