#!/usr/bin/env python3
"""End-to-end tests of --help as a user reads it, for every command, with stdout not a terminal: no line over 100
columns (80 with COLUMNS=80), no parser placeholder (TEXT, FLOAT, INT, =[...]), the option groups in their order, each
command showing only the options that apply to it (while nccl-tests' flags stay accepted), defaults in one style, the
exit codes at the end, and every pointer (a docs page and its heading, another command, another option) resolving.

Environment: DISTBENCH (path of the binary), DISTBENCH_SOURCE_ROOT (the source tree, for docs/ and README.md).
"""
import json
import os
import re
import subprocess
import unittest

BINARY = os.environ.get("DISTBENCH", "distbench")
ROOT = os.environ.get("DISTBENCH_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "mpi_yield_when_idle", "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]

COLLECTIVES = ["allreduce", "reduce-scatter", "allgather", "broadcast", "reduce", "alltoall", "gather", "scatter",
               "sendrecv"]
REDUCING = {"allreduce", "reduce-scatter", "reduce"}
ROOTED = {"broadcast", "reduce", "gather", "scatter"}
BENCHMARKS = ["latency", "health", "zero", "train", "tp"]
TOOLS = ["compare", "model", "report", "info", "list", "hostfile", "hostfile check", "history", "history ingest",
         "history list", "history runs", "history show", "history export", "history check"]
COMMANDS = [""] + COLLECTIVES + BENCHMARKS + TOOLS  # "": distbench --help
SHARED_ORDER = ["Sweep", "Sampling", "Verification", "Reports", "Output", "Backend", "Launch"]
NCCL_ONLY = ["--ngpus", "--agg-iters", "--cudagraph", "--blocking", "--register", "--alloc"]
PLACEHOLDER = re.compile(r"\b(TEXT|FLOAT|INT|UINT|BOOLEAN)\b|=\[|\bREQUIRED\b")
POINTER = re.compile(r"\b(docs/[\w.-]+\.md|README\.md)(?:, '([^']+)')?")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
SECTION = re.compile(r"^([A-Z][^:]*):$")
ENTRY = re.compile(r"^  (-\w, )?(--[\w-]+)|^      (--[\w-]+)")


def help_of(command, columns=None):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    r = subprocess.run([BINARY, *command.split(), "--help"], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, (command, r.stderr)
    assert r.stderr == "", (command, r.stderr)
    return r.stdout


def sections(text):
    """The titles of the sections of a help page ("Sweep", ..., "Exit codes"), in order."""
    return [m.group(1) for line in text.splitlines() for m in [SECTION.match(line)] if m]


def shown_options(text):
    """The long names of the options a help page lists."""
    names = set()
    for line in text.splitlines():
        m = ENTRY.match(line)
        if m:
            names.add(m.group(2) or m.group(3))
    return names


def headings(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        lines, fenced = [], False
        for line in f.read().splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced:
                m = HEADING.match(line)
                if m:
                    lines.append(m.group(1))
        return lines


def built_backends():
    r = subprocess.run([BINARY, "list", "--json"], capture_output=True, text=True, timeout=60)
    return [b["name"] for b in json.loads(r.stdout)["backends"]]


class EveryCommand(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pages = {c: help_of(c) for c in COMMANDS}

    def test_every_line_fits_100_columns_and_80_with_columns_80(self):
        for command, text in self.pages.items():
            for line in text.splitlines():
                self.assertLessEqual(len(line), 100, f"{command!r}: {line!r}")
        for command in COMMANDS:
            for line in help_of(command, columns=80).splitlines():
                self.assertLessEqual(len(line), 80, f"{command!r} at COLUMNS=80: {line!r}")

    def test_no_parser_placeholders_and_one_default_style(self):
        for command, text in self.pages.items():
            with self.subTest(command=command):
                self.assertIsNone(PLACEHOLDER.search(text), text)
                self.assertNotRegex(text, r"\(default [^:]")  # "(default 1)": the old style
                self.assertNotRegex(text, r"--[\w-]+ [A-Z]*=\S")  # "--minbytes TEXT=8": CLI11's
                self.assertNotRegex(text, r"\[default")
                for line in text.splitlines():  # nothing after a default but the end of the description
                    self.assertNotRegex(line, r"\(default: [^)]*\)\s*\S", line)

    def test_groups_in_order_and_the_exit_codes_last(self):
        for command, text in self.pages.items():
            with self.subTest(command=command):
                titles = sections(text)
                self.assertEqual(titles[-1], "Exit codes", text)
                shared = [t for t in titles if t in SHARED_ORDER]
                self.assertEqual(shared, sorted(shared, key=SHARED_ORDER.index), text)
                # the command's own groups come first
                own = [i for i, t in enumerate(titles) if t not in SHARED_ORDER and t != "Exit codes"
                       and t not in ("Arguments", "Options", "Commands", "Collectives", "Benchmarks",
                                     "Reports and tools")]
                first_shared = min([titles.index(t) for t in shared] or [len(titles)])
                self.assertTrue(all(i < first_shared for i in own), titles)
                # the codes are one line each, and nothing follows them
                tail = text[text.index("\nExit codes:\n") + len("\nExit codes:\n"):].splitlines()
                self.assertTrue(tail, text)
                for line in tail:
                    self.assertRegex(line, r"^  \d+(, \d+)?\s{2,}\S", text)

    def test_the_benchmarks_show_their_groups(self):
        expected = {
            "allreduce": ["Sweep", "Sampling", "Verification", "Reports", "Backend", "Launch"],
            "latency": ["Sweep", "Sampling", "Verification", "Reports", "Backend", "Launch"],
            "zero": ["ZeRO step", "Sampling", "Verification", "Reports", "Backend", "Launch"],
            "train": ["Model", "Training", "Sampling", "Verification", "Reports", "Backend", "Launch"],
            "tp": ["Operations", "Layers (--layer)", "Sweep", "Sampling", "Verification", "Reports", "Backend",
                   "Launch"],
            "health": ["Probes", "Verification", "Reports", "Backend", "Launch"],
            "": ["Options", "Collectives", "Benchmarks", "Reports and tools"],
        }
        for command, titles in expected.items():
            self.assertEqual(sections(self.pages[command])[:-1], titles, self.pages[command])

    def test_exit_codes_are_readmes(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        table = readme[readme.index("## Exit codes"):]
        documented = set(re.findall(r"^\| (\d+)", table, re.MULTILINE)) | {"130", "143"}
        for command, text in self.pages.items():
            if command in ("health", "compare"):  # their own conventions, on their docs pages
                continue
            codes = text[text.index("\nExit codes:\n"):]
            for found in re.findall(r"^  (\d+)(?:, (\d+))?", codes, re.MULTILINE):
                for code in filter(None, found):
                    self.assertIn(code, documented, f"{command!r}: exit code {code}")
        self.assertIn("  6  ", self.pages["allreduce"])  # the bandwidth floor: the collectives' alone
        self.assertNotRegex(self.pages["latency"], r"\n  6 ")
        self.assertRegex(self.pages["health"], r"\n  3  unknown")

    def test_every_pointer_resolves(self):
        commands = set(COMMANDS)
        every_option = set().union(*(shown_options(t) for t in self.pages.values()))
        found = 0
        for command, text in self.pages.items():
            flat = " ".join(text.split())  # a pointer may be wrapped over two lines
            for page, heading in POINTER.findall(flat):
                found += 1
                self.assertTrue(os.path.exists(os.path.join(ROOT, page)), f"{command!r} points to {page}")
                if heading:
                    self.assertIn(heading, headings(page), f"{command!r}: {page}, '{heading}'")
            for other in re.findall(r"'distbench ([a-z-]+)'", flat):
                self.assertIn(other, commands, f"{command!r} points to 'distbench {other}'")
            # an option a page mentions is one it shows (the top level and report name other commands' options)
            own = shown_options(text)
            for option in set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text)) - {"--help", "--version"}:
                self.assertIn(option, own if command not in ("", "report") else every_option,
                              f"{command!r} mentions {option}")
        self.assertGreaterEqual(found, 10)


class OnlyWhatApplies(unittest.TestCase):
    def test_each_collective_shows_its_own_options(self):
        nccl = "nccl" in built_backends()
        for c in COLLECTIVES:
            with self.subTest(collective=c):
                options = shown_options(help_of(c))
                self.assertEqual("--op" in options, c in REDUCING, options)
                self.assertEqual("--root" in options, c in ROOTED, options)
                self.assertEqual("--tensors" in options, c == "allreduce", options)
                self.assertEqual("--fuse" in options, c == "allreduce", options)
                for nccl_tests_only in ("--nthreads", "--parallel_init"):
                    self.assertNotIn(nccl_tests_only, options)
                for option in NCCL_ONLY:
                    self.assertEqual(option in options, nccl, option)
                for common in ("--minbytes", "--iters", "--check", "--json", "--backend", "--launcher", "--timeout"):
                    self.assertIn(common, options)

    def test_the_benchmarks_hide_what_they_do_not_use(self):
        unused = {
            "latency": ["--show-faults", "--agg-iters", "--cudagraph", "--op", "--root"],
            "zero": ["--show-faults", "--agg-iters", "--cudagraph"],
            "train": ["--iters", "--warmup-iters", "--max-noise", "--min-samples", "--max-time", "--show-faults"],
            "tp": ["--max-noise", "--min-samples", "--max-time", "--show-faults", "--agg-iters", "--cudagraph"],
            "health": ["--iters", "--quiet", "--progress"],
        }
        for command, names in unused.items():
            options = shown_options(help_of(command))
            for name in names:
                self.assertNotIn(name, options, command)
        self.assertIn("--iters", shown_options(help_of("zero")))
        self.assertIn("--launcher", shown_options(help_of("health")))

    def test_train_and_tp_refuse_the_sampling_they_do_not_do(self):
        # train times --steps steps after --warmup, tp exactly -n steps after -w: neither declares the stopping rule,
        # and train not -n/-w either; a flag not declared is unknown there, as any other (exit 2, one line)
        stopping = ["--max-noise", "--min-samples", "--max-time"]
        self.assertFalse({"--iters", "--warmup-iters", *stopping} & shown_options(help_of("train")))
        self.assertFalse(set(stopping) & shown_options(help_of("tp")))
        self.assertIn("--iters", shown_options(help_of("tp")))
        for command, args, flag in [("train", ["-n", "5"], "-n"), ("train", ["--warmup-iters", "2"], "--warmup-iters"),
                                    ("train", ["--max-time", "1"], "--max-time"), ("tp", ["--max-noise", "2%"],
                                    "--max-noise"), ("tp", ["--show-faults"], "--show-faults"),
                                    ("latency", ["-G", "1"], "-G")]:
            with self.subTest(command=command, flag=flag):
                r = subprocess.run([BINARY, command, *args], capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, 2, r.stderr)
                lines = r.stderr.splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertTrue(lines[0].startswith(f"error: unknown option '{flag}' for {command}"), r.stderr)

    def test_long_pages_stay_short(self):
        # allreduce, the longest: 63 lines, one per report format (the formats table's: a new format adds its line)
        # and one each for --per-rank, --per-rank-file, -I and -K; NCCL's six options (--alloc on two lines) where
        # it is built
        formats = len(re.findall(r"^ +(?:-\w, )?--[a-z-]+ (?:PATH|FILE) +Write ", help_of("allreduce"), re.MULTILINE))
        self.assertGreaterEqual(formats, 5)
        limit = 63 + formats + 4 + (7 if "nccl" in built_backends() else 0)
        for command in COMMANDS:
            self.assertLessEqual(len(help_of(command).splitlines()), limit, command)

    def test_hidden_options_are_still_accepted_with_their_warning(self):
        # nccl-tests' command lines pass -o to every *_perf: accepted where nothing reduces, and said once
        r = subprocess.run(MPIRUN + ["-np", "2", BINARY, "allgather", "-o", "max", "-b", "64", "-e", "64", "-n", "2",
                                     "-w", "0"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("warning: -o/--op max ignored: allgather does not reduce", r.stderr.splitlines())
        # a refused value of a hidden option still names it
        r = subprocess.run([BINARY, "sendrecv", "-t", "2"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertTrue(r.stderr.startswith("error: -t/--nthreads: "), r.stderr)


if __name__ == "__main__":
    unittest.main()
