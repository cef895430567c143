#!/usr/bin/env python3
"""End-to-end tests of what a user reads when the command line is wrong, and of `list` and `info` for people and for
tools: one `error:` line naming the option (never CLI11's range text), "did you mean" for typos, self-contained help,
proper plurals, and `list --json` / `info --json`.

Environment: DISTBENCH (path of the binary), DISTBENCH_SOURCE_ROOT (the source tree).
"""
import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import error_lines  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "mpi_yield_when_idle", "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]
COLLECTIVES = ["allreduce", "reduce-scatter", "allgather", "broadcast", "reduce", "alltoall", "gather", "scatter",
               "sendrecv"]


def single(*args, timeout=60):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout)


def mpirun(np, *args, timeout=120):
    return subprocess.run(MPIRUN + ["-np", str(np), BINARY, *args], capture_output=True, text=True, timeout=timeout)


def nesting(line):
    """How deep parentheses nest in `line`: "a (b)" is 1, "a (b (c))" is 2."""
    depth = deepest = 0
    for c in line:
        depth += {"(": 1, ")": -1}.get(c, 0)
        deepest = max(deepest, depth)
    return deepest


class ErrorLine(unittest.TestCase):
    def assert_one_error(self, result, *needles, code=2):
        """Exit `code`, and stderr is exactly one line, `error: ...`, holding every needle and no CLI11 noise."""
        self.assertEqual(result.returncode, code, result.stdout + result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)
        lines = error_lines(result.stderr)
        self.assertEqual(len(lines), 1, result.stderr)
        line = lines[0]
        for needle in needles:
            self.assertIn(needle, line)
        self.assertNotRegex(line, r"\d{20,}")  # the largest double, written out
        for noise in ("1.79", "e+308", "not in range", "Could not convert", "A subcommand is required",
                      "The following argument", "required but received", " OR ", "->"):
            self.assertNotIn(noise, line)
        return line


class BadValues(ErrorLine):
    def test_a_bad_value_names_the_option_and_says_what_is_wanted(self):
        cases = [
            (["allreduce", "-T", "-1"], "-T/--timeout: -1 is not a positive number of seconds"),
            (["allreduce", "-T", "0"], "-T/--timeout: 0 is not a positive number of seconds"),
            (["allreduce", "--timeout", "soon"], "-T/--timeout: 'soon' is not a number of seconds"),
            (["allreduce", "-n", "0"], "-n/--iters: 0 is not a whole number from 1 to 1000000"),
            (["allreduce", "-n", "2.5"], "-n/--iters: '2.5' is not a whole number"),
            (["allreduce", "-w", "-3"], "-w/--warmup-iters: -3 is not a whole number from 0 to"),
            (["allreduce", "-a", "5"], "-a/--average: '5' is not rank0, avg, min or max"),
            (["allreduce", "-a", "mean"], "-a/--average: 'mean' is not rank0, avg, min or max"),
            (["allreduce", "-g", "0"], "-g/--ngpus: 0 is not a whole number from 1 to 64"),
            (["allreduce", "-g", "65"], "-g/--ngpus: 65 is not a whole number from 1 to 64"),
            (["allreduce", "-z", "2"], "-z/--blocking: '2' is not 0 or 1"),
            (["allreduce", "--max-noise", "-1"], "--max-noise: -1 is not a percentage from 0% to 1000%"),
            (["allreduce", "--max-time", "-0.5"], "--max-time: -0.5 is not 0 or more seconds"),
            (["allreduce", "--min-busbw", "-1"], "--min-busbw: -1 is not 0 or more GB/s"),
            (["allreduce", "--group-size", "-2"], "--group-size: -2 is less than 0"),
            (["allreduce", "--tensors", "0"], "--tensors: 0 is less than 1"),
            (["allreduce", "--placement", "inplace"], "--placement: 'inplace' is not out-of-place, in-place or both; "
                                                      "did you mean 'in-place'?"),
            (["latency", "-T", "-1"], "-T/--timeout: -1 is not a positive number of seconds"),
            (["zero", "-n", "0"], "-n/--iters: 0 is not a whole number"),
            (["train", "--optimizer", "adamw"], "--optimizer: 'adamw' is not sgd or adam; did you mean 'adam'?"),
            (["train", "--steps", "many"], "--steps: 'many' is not a whole number"),
            (["train", "--lr", "fast"], "--lr: 'fast' is not a number"),
            (["allreduce", "--show-faults=maybe"], "--show-faults: 'maybe' is not true or false"),
            (["tp", "-g", "100"], "-g/--ngpus: 100 is not a whole number from 1 to 64"),
            (["compare", "a.json", "b.json", "--metric", "busbww"], "--metric: 'busbww' is not time, busbw or "
                                                                     "algbw; did you mean 'busbw'?"),
            (["report", "x.json", "--format", "pdf"], "--format: 'pdf' is not json, csv, md, jsonl, nccl-tests-json or html"),
        ]
        for args, needle in cases:
            with self.subTest(args=args):
                self.assert_one_error(single(*args), needle)

    def test_the_line_says_where_to_look_unless_it_suggests_a_word(self):
        line = self.assert_one_error(single("allreduce", "-T", "-1"))
        self.assertTrue(line.endswith("; see 'distbench allreduce --help'"), line)
        line = self.assert_one_error(single("train", "--optimizer", "adamw"))
        self.assertTrue(line.endswith("did you mean 'adam'?"), line)

    def test_a_missing_value_or_argument(self):
        self.assert_one_error(single("allreduce", "-T"), "-T/--timeout needs a value")
        self.assert_one_error(single("hostfile", "check"), "FILE is missing: hostfile to check")
        self.assert_one_error(single("compare"), "compare needs a baseline report and a candidate report")

    def test_health_keeps_its_unknown_exit_code(self):
        self.assert_one_error(single("health", "--bogus"), "unknown option '--bogus' for health", code=3)
        # the other runs' -q: said why it is not there, and why 3 (Nagios' unknown), not 2
        self.assert_one_error(single("health", "-q"), "unknown option '-q' for health: its table is its verdict",
                              "exits 3, Nagios' unknown", code=3)

    def test_a_miss_names_what_to_write_instead(self):
        cases = [
            (["zero", "--params", "1X"], "--params: '1X' is not a count of parameters; write a whole number"),
            (["train", "-n", "5"], "unknown option '-n' for train: it times --steps N steps after --warmup N"),
            (["allreduce", "--timing", "nccl"], "did you mean 'nccl-tests'?"),
            (["allreduce", "-y", "0"], "not supported: nccl-tests' -y (use the default stream)"),
            (["allreduce", "-u", "1"], "not supported: nccl-tests' -u (misalign the buffers)"),
            (["allreduce", "-M", "1"], "not supported: nccl-tests' -M (report memory)"),
        ]
        for args, needle in cases:
            with self.subTest(args=args):
                line = self.assert_one_error(single(*args), needle)
                self.assertNotIn("did you mean '-m'", line)
                if "not supported" in needle:  # nccl-tests' flags that docs/collectives.md lists as such
                    self.assertNotIn("unknown option", line)
                    self.assertTrue(line.endswith("see docs/collectives.md, \"nccl-tests' flags\""), line)


class Help(unittest.TestCase):
    def option_line(self, help_text, option):
        """The option's entry in --help: its line, and the next when the description is wrapped onto it."""
        lines = help_text.splitlines()
        found = [i for i, line in enumerate(lines) if re.match(rf"\s+{re.escape(option)}\b", line)]
        self.assertEqual(len(found), 1, help_text)
        i = found[0]
        wrapped = i + 1 < len(lines) and re.match(r"\s{20,}\S", lines[i + 1])
        return lines[i] + (" " + lines[i + 1].strip() if wrapped else "")

    def test_help_shows_short_rules(self):
        r = single("allreduce", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        # each value named by what it is, what it accepts in words, the default last in one style
        average = self.option_line(r.stdout, "-a, --average HOW")
        self.assertIn("rank0, avg, min or max", average)
        self.assertIn("0..3", average)
        self.assertTrue(average.endswith("(default: avg)"), average)
        self.assertNotIn("->", average)
        self.assertNotIn(" OR ", average)
        self.assertTrue(self.option_line(r.stdout, "-T, --timeout SECONDS").endswith("(default: 300)"))
        self.assertIn("out-of-place, in-place or both", self.option_line(r.stdout, "--placement WHERE"))
        backends = [b["name"] for b in json.loads(single("list", "--json").stdout)["backends"]]
        if "nccl" in backends:  # NCCL's options show where it is built in
            self.assertTrue(self.option_line(r.stdout, "-g, --ngpus N").endswith("(default: 1)"))
        else:
            self.assertNotRegex(r.stdout, r"--ngpus|--cudagraph|--alloc")
        for noise in ("1.79", "FLOAT", "INT:", "TEXT", "POSITIVE", "NONNEGATIVE", "=["):
            self.assertNotIn(noise, r.stdout)
        self.assertNotRegex(r.stdout, r"\d{20,}")

    def test_hostfile_help_is_self_contained(self):
        r = single("hostfile", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("README", r.stdout)
        self.assertNotIn("hostfiles/", r.stdout)
        self.assertIn("node1 slots=4", r.stdout)
        self.assertIn("node1:4", r.stdout)
        self.assertIn("check", r.stdout)

    def test_version(self):
        for flag in ("--version", "-V"):
            with self.subTest(flag=flag):
                r = single(flag)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertRegex(r.stdout, r"^distbench \S+ \(")


class DidYouMean(ErrorLine):
    def test_a_mistyped_command(self):
        line = self.assert_one_error(single("allreduc", "-n", "3"), "unknown command 'allreduc'")
        self.assertEqual(line, "error: unknown command 'allreduc'; did you mean 'allreduce'?")
        self.assert_one_error(single("reduce_scatter"), "did you mean 'reduce-scatter'?")
        line = self.assert_one_error(single("frobnicate"), "unknown command 'frobnicate'", "distbench --help")
        self.assertNotIn("did you mean", line)

    def test_a_mistyped_option(self):
        line = self.assert_one_error(single("allreduce", "--maxbyte", "1M"), "unknown option '--maxbyte'")
        self.assertTrue(line.endswith("did you mean '--maxbytes'?"), line)
        self.assert_one_error(single("allreduce", "--maxbyte=1M"), "did you mean '--maxbytes'?")
        self.assert_one_error(single("train", "--hiden", "64"), "did you mean '--hidden'?")
        line = self.assert_one_error(single("allreduce", "--no-such-thing"), "unknown option '--no-such-thing'",
                                     "see 'distbench allreduce --help'")
        self.assertNotIn("did you mean", line)

    def test_a_mistyped_or_missing_hostfile_command(self):
        line = self.assert_one_error(single("hostfile", "chek", "x"))
        self.assertEqual(line, "error: unknown hostfile command 'chek'; did you mean 'check'?")
        self.assert_one_error(single("hostfile"), "distbench hostfile needs a command: check")

    def test_an_option_before_the_command(self):
        line = self.assert_one_error(single("-v"), "unknown option '-v'", "--version", "--help")
        self.assertNotIn("subcommand", line)
        self.assert_one_error(single("--maxbytes", "1M", "allreduce"), "unknown option '--maxbytes'",
                              "takes a command first")

    def test_no_command_at_all(self):
        self.assert_one_error(single(), "a command is needed", "distbench list", "distbench --help")


class ListAndInfo(unittest.TestCase):
    def test_list_words(self):
        r = single("list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\n  int8 +1 byte, signed integer\n")
        self.assertRegex(r.stdout, r"\n  float32 +4 bytes, floating point\n")
        self.assertNotIn("1 bytes", r.stdout)
        self.assertNotIn("(s)", r.stdout)
        for line in r.stdout.splitlines():
            self.assertLessEqual(nesting(line), 1, line)
        self.assertRegex(r.stdout, r"\n  mpi +MPI .*\n +available here\n")

    def test_list_json_has_every_collective_type_operator_and_backend(self):
        r = single("list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(list(doc)[:2], ["version", "git"])
        self.assertEqual([c["name"] for c in doc["collectives"]], COLLECTIVES)
        for c in doc["collectives"]:
            self.assertEqual(set(c), {"name", "reduces", "rooted", "description"})
            self.assertTrue(c["description"])
        by_name = {c["name"]: c for c in doc["collectives"]}
        self.assertTrue(by_name["allreduce"]["reduces"])
        self.assertFalse(by_name["allreduce"]["rooted"])
        self.assertTrue(by_name["broadcast"]["rooted"])
        types = {t["name"]: t for t in doc["datatypes"]}
        self.assertEqual(types["int8"], {"name": "int8", "bytes": 1, "kind": "signed integer"})
        self.assertEqual(types["float64"]["bytes"], 8)
        ops = {o["name"]: o for o in doc["ops"]}
        self.assertEqual(set(ops), {"sum", "prod", "min", "max", "avg", "band", "bor", "bxor"})
        self.assertEqual(ops["bxor"]["backends"], ["mpi"])
        self.assertTrue(ops["bxor"]["integer_only"])
        self.assertFalse(ops["sum"]["integer_only"])
        self.assertIn("mpi", ops["sum"]["backends"])
        backends = {b["name"]: b for b in doc["backends"]}
        self.assertTrue(backends["mpi"]["available"])
        self.assertIsNone(backends["mpi"]["reason"])
        for b in doc["backends"]:
            self.assertEqual(b["available"], b["reason"] is None)
        # the text and the JSON list the same collectives
        text = single("list").stdout
        section = text.split("collectives:\n")[1].split("datatypes:")[0]
        self.assertEqual([line.split()[0] for line in section.splitlines()], COLLECTIVES)

    def test_info_text_under_mpirun(self):
        r = mpirun(2, "info")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ranks: 2 on 1 host\n", r.stdout)
        self.assertRegex(r.stdout, r"\n  \S+ +2 ranks: 0,1\n")
        self.assertNotIn("(s)", r.stdout)

    def test_info_json_under_mpirun(self):
        r = mpirun(2, "info", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)  # one document: only the first rank prints
        self.assertEqual(doc["ranks"], 2)
        self.assertEqual(sorted(rank for host in doc["hosts"] for rank in host["ranks"]), [0, 1])
        self.assertEqual(len(doc["hosts"]), 1)
        self.assertTrue(doc["version"])
        self.assertEqual(doc["backend"]["name"], "mpi")
        self.assertIsInstance(doc["backend"]["describe"], dict)
        self.assertTrue(doc["backend"]["describe"])
        mpi = next(b for b in doc["backends"] if b["name"] == "mpi")
        self.assertTrue(mpi["available"])
        self.assertIsInstance(mpi["build_versions"], dict)


if __name__ == "__main__":
    unittest.main()
