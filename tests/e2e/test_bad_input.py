#!/usr/bin/env python3
"""Every kind of bad input, one row each, on the real binary: options, sizes, memory, report paths, hostfiles,
reports handed to `compare`, launcher variables left over from another job. Each row must end with its documented
exit code, print exactly one `error:` line holding the row's words (and nothing of ours besides: no warning, no
stack, no sanitizer report, no exception text), run nothing (within seconds, whatever it asked for), and leave
nothing half-written (the row's report path stays absent, and no temporary file appears in its folder).

A row is (name, ranks, arguments, code, words, extra): ranks 0 runs the binary alone, N under mpirun -np N;
"{dir}" in an argument is the row's own folder, prepared by the row's `files` (name → bytes) and `setup` (a
function of the folder that returns a context to keep open while the row runs, e.g. a lock).

Environment: DISTBENCH (the binary), DISTBENCH_SOURCE_ROOT (the source tree).
"""
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from distbench_testing import error_lines  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "distbench")
CPU_DISTANCE = os.environ.get("DISTBENCH_CPU_DISTANCE")  # bench/'s placement probe
SOURCE = os.environ.get("DISTBENCH_SOURCE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle",
          "1", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]
NOTHING_RAN_S = 20  # a refused run ends at once; a run that started its sweep would take far longer with these sizes
OUR_NOISE = ("warning:", "terminate called", "what():", "Sanitizer", "runtime error:", "Aborted", "core dumped",
             "unexpected failure", "json.exception", "std::")


def mem_available_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def fits_without_scratch_size():
    """An allreduce size whose two buffers fit in each of 2 ranks' share of the memory, but not with MPI's scratch
    (half a buffer) and the reserve: the check that counted buffers only approved it, and the run was OOM-killed."""
    per_rank = mem_available_bytes() // 2
    return f"{per_rank * 10 // 22 // (1 << 20)}M"  # 2 buffers = 91 % of the share; + scratch = 114 %


def example_report():
    with open(os.path.join(SOURCE, "reports", "example.json"), "rb") as f:
        return f.read()


def report_with(change):
    """The example report, changed by `change` (a function of the parsed JSON), as bytes."""
    report = json.loads(example_report())
    change(report)
    return json.dumps(report).encode()


def set_field(path, value):
    def change(report):
        node = report
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


@contextlib.contextmanager
def held_lock(dir):
    """Another live run writing {dir}/r.json: the file exists and someone holds its lock."""
    path = os.path.join(dir, "r.json")
    with open(path, "w") as f:
        f.write("{}")
    with open(path) as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def fifo(dir):
    os.mkfifo(os.path.join(dir, "pipe"))
    yield


@contextlib.contextmanager
def symlink(dir):
    """{dir}/link.json points to {dir}/target.json, a file someone else owns."""
    with open(os.path.join(dir, "target.json"), "w") as f:
        f.write("theirs")
    os.symlink(os.path.join(dir, "target.json"), os.path.join(dir, "link.json"))
    yield


RULE_MISSPELT = json.dumps({"rules": [{"metric": "memory.copy_gpbs", "compare": ">=", "threshold": 1}]}).encode()
RULE_TOO_LARGE = b'{"rules": [{"metric": "memory.copy_gbps", "compare": ">=", "threshold": 1e400}]}'
SIZE_OVER_MEMORY = fits_without_scratch_size()
ROWS = [
    # options
    ("unknown command", 0, ["allreduc"], 2, ["allreduc", "did you mean 'allreduce'"], {}),
    ("unknown flag", 0, ["allreduce", "--maxbyte", "8"], 2, ["--maxbyte", "did you mean '--maxbytes'"], {}),
    ("negative timeout", 0, ["allreduce", "-T", "-1"], 2, ["-T/--timeout", "positive number of seconds"], {}),
    ("NaN timeout", 0, ["allreduce", "-T", "nan"], 2, ["-T/--timeout", "'nan'"], {}),
    ("infinite timeout", 0, ["allreduce", "-T", "inf"], 2, ["-T/--timeout", "'inf'"], {}),
    ("NaN max-time", 0, ["allreduce", "--max-time", "nan"], 2, ["--max-time", "'nan'"], {}),
    ("NaN max-noise", 0, ["allreduce", "--max-noise", "nan"], 2, ["--max-noise", "'nan'"], {}),
    ("infinite bandwidth floor", 0, ["allreduce", "--min-busbw", "inf"], 2, ["--min-busbw", "'inf'"], {}),
    ("zero iterations", 0, ["allreduce", "-n", "0"], 2, ["-n/--iters", "whole number from 1"], {}),
    ("bad average", 0, ["allreduce", "-a", "mean"], 2, ["-a/--average", "rank0, avg, min or max"], {}),
    ("bad placement", 0, ["allreduce", "--placement", "inplace"], 2, ["--placement", "did you mean 'in-place'"], {}),
    ("unknown backend", 0, ["allreduce", "--backend", "gloo"], 2, ["backend 'gloo' is not built into this distbench"], {}),
    ("unknown launcher", 0, ["allreduce", "--launcher", "ssh"], 2, ["--launcher", "ssh"], {}),
    # sizes
    ("size with no number", 0, ["allreduce", "-e", "M"], 2, ["-e/--maxbytes: 'M' is not a size"], {}),
    ("size with a bad unit", 0, ["allreduce", "-e", "8Q"], 2, ["-e/--maxbytes: '8Q' is not a size"], {}),
    ("negative size", 0, ["allreduce", "-b", "-8"], 2, ["-b/--minbytes: '-8' is not a size"], {}),
    ("minimum above maximum", 0, ["allreduce", "-b", "1M", "-e", "1K"], 2, ["-b/--minbytes", "-e/--maxbytes"], {}),
    ("size beyond 64 bits", 0, ["allreduce", "-b", "8", "-e", "99999999999999999999T"], 2, ["-e/--maxbytes: '99999999999999999999T' is too large"], {}),
    ("root outside the job", 2, ["broadcast", "-e", "64", "-r", "5"], 2, ["-r/--root", "5"], {}),
    ("more tensors than the largest size holds elements", 0,
     ["allreduce", "--tensors", "1000000000", "--json", "{dir}/r.json"], 2,
     ["--tensors 1000000000", "16777216 of float32 in -e/--maxbytes 64 MiB", "give --tensors 16777216 or fewer",
      "-e 3.73 GiB or more"], {}),
    ("group size not dividing the job", 2, ["allreduce", "-e", "64", "--group-size", "3"], 2, ["--group-size", "3"],
     {}),
    # checked before anything runs (issue 16, items 1 and 12)
    ("count over MPI's per-call limit", 0, ["allreduce", "-d", "int8", "-b", "3G", "-e", "3G", "--json", "{dir}/r.json"],
     2, ["3221225472 elements", "limit of 2147483647", "-d/--datatype"], {}),
    ("a size whose bytes wrap at 2^64", 0, ["allreduce", "-b", "8388608T", "-e", "8388608T", "--json", "{dir}/r.json"],
     2, ["-e/--maxbytes"], {}),
    ("buffers that fit only without MPI's scratch", 2,
     ["allreduce", "-b", SIZE_OVER_MEMORY, "-e", SIZE_OVER_MEMORY, "-n", "2", "-w", "1", "--json", "{dir}/r.json"], 2,
     # the reserve is the host's, each of its ranks keeping a part (96 ranks on 24 GiB, each taking all of it,
     # refused an 8 B sweep): the ranks sharing the memory are counted and said
     ["for the library's own", "each of the 2 ranks sharing the memory", "lower -e/--maxbytes"], {}),
    # report paths (items 4 and 9)
    ("one file for two reports", 0, ["allreduce", "-e", "64", "--json", "{dir}/r.out", "--csv", "{dir}/r.out"], 2,
     ["--json and --csv both name the file", "give each its own file"], {}),
    ("one file under two spellings", 0,
     ["allreduce", "-e", "64", "--json", "{dir}/r.out", "--md", "{dir}/../{base}/r.out"], 2,
     ["--json and --md both name the file"], {}),
    ("two reports on stdout", 0, ["allreduce", "-e", "64", "--json", "-", "--csv", "-"], 2,
     ["--json and --csv both go to stdout", "only one report"], {}),
    ("a report another live run is writing", 2, ["allreduce", "-e", "64", "--json", "{dir}/r.json"], 2,
     ["being written by another run", "another path"], {"setup": held_lock}),
    ("a per-rank form none of auto, all, summary", 0, ["allreduce", "-e", "64", "--per-rank", "some"], 2,
     ["--per-rank", "'some' is not auto, all or summary"], {}),
    ("a per-rank file and the report in one file", 0,
     ["latency", "-e", "64", "--json", "{dir}/r.out", "--per-rank-file", "{dir}/r.out"], 2,
     ["--json and --per-rank-file both name the file"], {}),
    ("a per-rank file onto a device", 0, ["zero", "--per-rank-file", "/dev/full"], 2,
     ["/dev/full", "not a regular file"], {}),
    ("a per-rank file another live run is writing", 0, ["allreduce", "-e", "64", "--per-rank-file", "{dir}/r.json"],
     2, ["being written by another run", "another path"], {"setup": held_lock}),
    ("an empty report path", 0, ["allreduce", "-e", "64", "--json", ""], 2, ["--json", "empty"], {}),
    ("an empty CSV path", 0, ["allreduce", "-e", "64", "--csv", ""], 2, ["--csv", "empty"], {}),
    ("a report in a missing folder", 0, ["allreduce", "-e", "64", "--json", "{dir}/no/r.json"], 2,
     ["does not exist"], {}),
    ("a report path that is a folder", 0, ["allreduce", "-e", "64", "--json", "{dir}"], 2, ["is a directory"], {}),
    ("a report name over the file-name limit", 0, ["allreduce", "-e", "64", "--json", "{dir}/" + "r" * 256], 2,
     ["256 bytes", "at most 255"], {}),
    # launcher variables left over from another job (item 10): this process still says what is wrong
    ("a bad value with OMPI_COMM_WORLD_RANK=1 set", 0, ["allreduce", "-n", "0"], 2, ["-n/--iters"],
     {"env": {"OMPI_COMM_WORLD_RANK": "1"}}),
    ("a bad value with PMIX_RANK=3 set", 0, ["allreduce", "-n", "0"], 2, ["-n/--iters"], {"env": {"PMIX_RANK": "3"}}),
    ("a bad value with RANK=2 set", 0, ["allreduce", "-n", "0"], 2, ["-n/--iters"], {"env": {"RANK": "2"}}),
    # hostfiles (items 7, 11, 14)
    ("a missing hostfile", 0, ["hostfile", "check", "{dir}/none"], 2, ["cannot read", "{dir}/none"], {}),
    ("slots over the int range on one line", 0, ["hostfile", "check", "{dir}/h"], 2, ["slots"],
     {"files": {"h": b"a slots=99999999999\n"}}),
    ("a slot total over the int range", 0, ["hostfile", "check", "{dir}/h"], 2, ["slots"],
     {"files": {"h": b"a:2147483647\nb:1\n"}}),
    ("two hosts of 2^31-1 slots", 0, ["hostfile", "check", "{dir}/h"], 2, ["slots"],
     {"files": {"h": b"a slots=2147483647\nb slots=2147483647\n"}}),
    ("a hostfile that is a device", 0, ["hostfile", "check", "/dev/zero"], 2, ["/dev/zero", "not a regular file"], {}),
    ("a hostfile that never ends", 0, ["hostfile", "check", "/dev/urandom"], 2, ["/dev/urandom", "not a regular file"],
     {}),
    ("a hostfile that is a pipe", 0, ["hostfile", "check", "{dir}/pipe"], 2, ["not a regular file"], {"setup": fifo}),
    ("a hostfile that is a folder", 0, ["hostfile", "check", "{dir}"], 2, ["not a regular file"], {}),
    ("a huge hostfile", 0, ["hostfile", "check", "{dir}/h"], 2, ["{dir}/h", "larger than"],
     {"files": {"h": b"a slots=1\n" * 300000}}),
    ("a NUL in a hostfile", 0, ["hostfile", "check", "{dir}/h"], 2, ["\\x00", "h:1"],
     {"files": {"h": b"node\x00b slots=2\n"}}),
    ("a 100 KB host name", 0, ["hostfile", "check", "{dir}/h"], 2, ["h:1", "..."],
     {"files": {"h": b"n" * 100000 + b" slots=x\n"}, "max_line": 400}),
    ("a hostfile with bare CR line ends", 0, ["hostfile", "check", "{dir}/h"], 2, ["h:2", "slots=y"],
     {"files": {"h": b"a slots=2\rb slots=y\r"}}),
    ("an empty hostfile", 0, ["hostfile", "check", "{dir}/h"], 2, ["{dir}/h"], {"files": {"h": b""}}),
    # reports handed to compare (item 8)
    ("a report that is not JSON", 0, ["compare", "{dir}/a.json", "{dir}/a.json"], 2, ["a.json"],
     {"files": {"a.json": b"{\"schema_version\": 1, \"records\": [\n"}}),
    ("a number beyond double in a report", 0, ["compare", "{dir}/a.json", "{dir}/a.json"], 2, ["a.json"],
     {"files": {"a.json": b"{\"schema_version\": 1e400}"}}),
    ("schema_version 2^32+1", 0, ["compare", "{dir}/a.json", "{dir}/a.json"], 2, ["a.json", "schema_version"],
     {"files": {"a.json": report_with(set_field(["schema_version"], 4294967297))}}),
    ("a negative sample count", 0, ["compare", "{dir}/a.json", "{dir}/a.json"], 2,
     ["a.json", "records[0].phases[0].time_us.samples", "-1"],
     {"files": {"a.json": report_with(lambda r: r["records"][0]["phases"][0]["time_us"].__setitem__("samples", -1))}}),
    ("a float where an integer belongs", 0, ["compare", "{dir}/a.json", "{dir}/a.json"], 2,
     ["a.json", "records[0].ops_per_sample", "2.5"],
     {"files": {"a.json": report_with(lambda r: r["records"][0].__setitem__("ops_per_sample", 2.5))}}),
    ("a float too large for an int in a report", 0, ["compare", "{dir}/a.json", "{dir}/a.json"], 2,
     ["a.json", "records[0].ops_per_sample", "1e+30"],
     {"files": {"a.json": report_with(lambda r: r["records"][0].__setitem__("ops_per_sample", 1e30))}}),
    ("a report that is a device", 0, ["compare", "/dev/zero", "/dev/zero"], 2, ["/dev/zero", "not a regular file"], {}),
    # the newer surfaces (issue 29): sizes checked, not wrapped; numbers finite; outputs claimed like --json's
    ("a tensor whose bytes wrap at 2^64", 0, ["tp", "--shape", "4611686018427387904x4"], 2,
     ["--shape 4611686018427387904x4", "2^56 elements"], {}),
    ("a tensor of 2^63 rows", 0, ["tp", "--shape", "9223372036854775808x2"], 2, ["--shape", "2^56 elements"], {}),
    ("a layer of 2^62 inputs", 0, ["tp", "--layer", "column", "--in", "4611686018427387904"], 2,
     ["--in 4611686018427387904", "2^56 elements"], {}),
    ("a model of 2^62 inputs", 0, ["train", "--inputs", "4611686018427387904"], 2,
     ["--inputs 4611686018427387904", "2^56 elements"], {}),
    ("a negative layer count", 0, ["train", "--layers", "-1"], 2, ["--layers", "'-1' is not a whole number of 0 or more"],
     {}),
    ("a negative tensor width", 0, ["tp", "--layer", "row", "--out", "-4"], 2, ["--out", "'-4' is not a whole number"],
     {}),
    ("an infinite learning rate", 0, ["train", "--lr", "inf"], 2, ["--lr", "inf is not a finite number"], {}),
    ("a NaN bus bandwidth for health", 0, ["health", "--expect-busbw", "nan"], 3,
     ["--expect-busbw", "nan is not a finite number"], {}),
    ("a trace onto a device", 0, ["train", "--trace", "/dev/full", "--steps", "1"], 2,
     ["/dev/full", "not a regular file"], {}),
    ("a trace onto a FIFO", 0, ["train", "--trace", "{dir}/pipe", "--steps", "1"], 2, ["pipe", "not a regular file"],
     {"setup": fifo}),
    ("a report path that is a symbolic link", 0, ["allreduce", "-e", "64", "--json", "{dir}/link.json"], 2,
     ["link.json", "symbolic link"], {"setup": symlink}),
    ("a view written over the report it shows", 0,
     ["report", "{dir}/a.json", "--format", "html", "--output", "{dir}/a.json"], 2,
     ["--output", "that is the report this run reads"], {"files": {"a.json": example_report()}}),
    ("a comparison written over its baseline", 0,
     ["compare", "{dir}/a.json", "{dir}/b.json", "--format", "junit", "--output", "{dir}/./a.json"], 2,
     ["--output", "that is a report this run reads"], {"files": {"a.json": example_report(), "b.json": example_report()}}),
    ("health's report and Prometheus file in one file", 0, ["health", "--json", "{dir}/h.out", "--prom", "{dir}/h.out"],
     3, ["--json and --prom both name the file"], {}),
    ("health's Prometheus file over its rules", 0, ["health", "--rules", "{dir}/r.json", "--prom", "{dir}/r.json"], 3,
     ["--prom", "that is --rules this run reads"], {"files": {"r.json": b'{"rules": []}'}}),
    ("a health allreduce larger than memory", 0, ["health", "--allreduce-bytes", "1T"], 3,
     ["--allreduce-bytes", "lower --allreduce-bytes"], {}),
    ("a misspelt health rule", 0, ["health", "--rules", "{dir}/r.json"], 3, ["rule 1", "matches no metric"],
     {"files": {"r.json": RULE_MISSPELT}}),
    ("a number beyond double in health rules", 0, ["health", "--rules", "{dir}/r.json"], 3,
     ["the number 1e400 is beyond the range of a double"], {"files": {"r.json": RULE_TOO_LARGE}}),
    ("a health link schedule of no known kind", 0, ["health", "--links", "ring"], 3,
     ["--links", "'ring' is not auto, all or scaled"], {}),
    ("a health link plan for one node", 0, ["health", "--plan-links", "1"], 3,
     ["--plan-links", "1 is not a node count from 2 to 100000"], {}),
    ("a health level of no known kind", 0, ["health", "--level", "fast"], 3,
     ["--level", "'fast' is not quick, standard or long"], {}),
    ("a negative soak", 0, ["health", "--soak-seconds", "-1"], 3, ["--soak-seconds", "-1"], {}),
    ("a number beyond double in zero's config", 0, ["zero", "--config", "{dir}/z.json"], 2,
     ["z.json", "the number 1e400 is beyond the range of a double"], {"files": {"z.json": b'{"bucket_mb": 1e400}'}}),
    # distbench model (issue 33)
    ("a model of no report", 0, ["model"], 2, ["no report given", "distbench model run.json"], {}),
    ("a model of two collectives", 0, ["model", "{dir}/a.json", "{dir}/b.json", "-o", "{dir}/m.txt"], 2,
     ["several collectives (allreduce, allgather)", "--collective"],
     {"files": {"a.json": example_report(), "b.json": report_with(
         lambda r: [x["params"].__setitem__("collective", "allgather") for x in r["records"]])}}),
    ("a model of one size", 0, ["model", "{dir}/a.json"], 2, ["one size only (8 B)", "-b 8 -e 64M"],
     {"files": {"a.json": report_with(
         lambda r: r.__setitem__("records", [x for x in r["records"] if x["params"]["bytes"] == 8]))}}),
    ("an MPI algorithm asked of an nccl report", 0, ["model", "{dir}/a.json", "--algorithm", "ring"], 2,
     ["--algorithm ring names an Open MPI algorithm", "nccl backend"],
     {"files": {"a.json": report_with(
         lambda r: [x["params"].__setitem__("backend", "nccl") for x in r["records"]])}}),
    ("an algorithm the collective lacks", 0, ["model", "{dir}/a.json", "--algorithm", "bruck"], 2,
     ["allreduce has no such algorithm here"], {"files": {"a.json": example_report()}}),
    ("a model of a latency report", 0, ["model", "{dir}/a.json"], 2, ["holds a 'latency' run"],
     {"files": {"a.json": report_with(lambda r: r.__setitem__("benchmark", "latency"))}}),
    ("a model predicted at one rank", 0, ["model", "{dir}/a.json", "--predict-np", "1"], 2,
     ["--predict-np", "rank count from 2"], {"files": {"a.json": example_report()}}),
    ("a model predicted at a sweep that runs backwards", 0, ["model", "{dir}/a.json", "--predict-sizes", "64K,1M:1K"],
     2, ["--predict-sizes", "'1M:1K'", "first size (1 MiB) is above its last"], {"files": {"a.json": example_report()}}),
    ("a model fitted to a range of one size", 0, ["model", "{dir}/a.json", "--fit-sizes", "64K"], 2,
     ["--fit-sizes", "give MIN:MAX, MIN: or :MAX"], {"files": {"a.json": example_report()}}),
    ("a model predicted at more sizes than a sweep holds", 0,
     ["model", "{dir}/a.json", "--predict-sizes", "1:1G:1.0001"], 2,
     ["'1:1G:1.0001' would hold more than 10000 sizes", "larger FACTOR", "narrower MIN:MAX"],
     {"files": {"a.json": example_report()}}),
    ("a model of a case of 2^62 bytes", 0, ["model", "{dir}/a.json"], 2,
     ["a.json' holds a case of 4.61169e+18 bytes", "above the 1 PiB a model takes", "damaged"],
     {"files": {"a.json": report_with(lambda r: r["records"][-1]["params"].__setitem__("bytes", 1 << 62))}}),
    ("a model of a case of 1e300 bytes", 0, ["model", "{dir}/a.json"], 2,
     ["a.json' holds a case of 1e+300 bytes", "above the 1 PiB a model takes"],
     {"files": {"a.json": report_with(lambda r: r["records"][-1]["params"].__setitem__("bytes", 1e300))}}),
    ("a model written over its report", 0, ["model", "{dir}/a.json", "--format", "html", "-o", "{dir}/a.json"], 2,
     ["--output", "that is a report this run reads"], {"files": {"a.json": example_report()}}),
]


class BadInput(unittest.TestCase):
    def run_row(self, name, ranks, args, code, words, extra):
        base = tempfile.mkdtemp(prefix="bad-input-")
        dir = os.path.join(base, "row")
        os.mkdir(dir)
        try:
            for file, content in extra.get("files", {}).items():
                with open(os.path.join(dir, file), "wb") as f:
                    f.write(content)
            subst = {"dir": dir, "base": "row"}
            argv = [a.format(**subst) for a in args]
            words = [w.format(**subst) for w in words]
            env = dict(os.environ, **extra.get("env", {}))
            command = ([BINARY] if ranks == 0 else MPIRUN + ["-np", str(ranks), BINARY]) + argv
            before = set(os.listdir(dir))
            setup = extra.get("setup")
            with (setup(dir) if setup else contextlib.nullcontext()):
                before = set(os.listdir(dir))
                start = time.monotonic()
                r = subprocess.run(command, capture_output=True, text=True, errors="replace", env=env, timeout=60)
                took = time.monotonic() - start
            said = f"{name}: exit {r.returncode} after {took:.1f} s\nstdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-4000:]}"
            self.assertEqual(r.returncode, code, said)
            lines = error_lines(r.stderr)
            self.assertEqual(len(lines), 1, said)
            for word in words:
                self.assertIn(word, lines[0], said)
            self.assertLessEqual(len(lines[0]), extra.get("max_line", 600), said)
            for noise in OUR_NOISE:
                self.assertNotIn(noise, r.stderr, said)
            self.assertLess(took, NOTHING_RAN_S, said)
            self.assertEqual(set(os.listdir(dir)), before, f"{name}: files appeared or vanished in the row's folder")
            print(f"  {name}: exit {r.returncode}, {took:.2f} s: {lines[0][:160]}", file=sys.stderr)
        finally:
            shutil.rmtree(base, ignore_errors=True)

    def test_every_row(self):
        for row in ROWS:
            with self.subTest(row[0]):
                self.run_row(*row)

    def test_the_placement_probe_times_two_different_cpus_only(self):
        """bench's distbench-cpu-distance: one CPU twice (it once timed a thread pinging itself) or a negative CPU is
        one error line and exit 1, nothing on stdout."""
        self.assertIsNotNone(CPU_DISTANCE, "DISTBENCH_CPU_DISTANCE names the probe's binary")
        for cpus, words in [("0,0", "--cpus 0,0 names CPU 0 twice"), ("1,1", "names CPU 1 twice"), ("-1,0", "-1")]:
            with self.subTest(cpus):
                r = subprocess.run([CPU_DISTANCE, f"--cpus={cpus}", "--round-trips", "2"], capture_output=True,
                                   text=True, timeout=30)
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertEqual(r.stdout, "")
                lines = error_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(words, lines[0])

    def test_views_that_cannot_be_written_to_stdout_fail(self):
        """`report`, `compare` and `model` in every format, with standard output on a full disk: one line, and exit 1
        (compare: 8, a failure that CI must not read as its 1, a regression), not 0."""
        dir = tempfile.mkdtemp(prefix="bad-input-full-")
        try:
            path = os.path.join(dir, "a.json")
            with open(path, "wb") as f:
                f.write(example_report())
            commands = [["report", path, "--format", f] for f in ("md", "csv", "html")]
            commands += [["compare", path, path, "--threshold-only", "--format", f]
                         for f in ("text", "markdown", "json", "junit", "html")]
            commands += [["model", path, "--format", f] for f in ("text", "markdown", "json", "csv", "html")]
            for args in commands:
                with self.subTest(" ".join(args[:1] + args[-2:])), open("/dev/full", "w") as full:
                    r = subprocess.run([BINARY] + args, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
                    lines = error_lines(r.stderr)
                    self.assertEqual(r.returncode, 8 if args[0] == "compare" else 1, r.stderr)
                    self.assertEqual(len(lines), 1, r.stderr)
                    self.assertIn("cannot write to standard output: No space left on device", lines[0])
                    # no source location on a user's line (it says what failed and what to do)
                    self.assertTrue(lines[0].endswith("(a full disk, a closed pipe)"), lines[0])
            # where it was thrown, inside src/ and not in the build machine's folders, only when asked for
            with open("/dev/full", "w") as full:
                r = subprocess.run([BINARY, "report", path], stdout=full, stderr=subprocess.PIPE, text=True,
                                   timeout=60, env={**os.environ, "DISTBENCH_DEBUG": "1"})
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertRegex(error_lines(r.stderr)[0], r" \[core/sys/text_file\.cpp:\d+\]$")
        finally:
            shutil.rmtree(dir, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
