"""What the end-to-end, cluster and Slurm tests share: reading reports, finding a job's processes and ranks, watching
them end, the one check of a job whose rank hangs under -T, health reports and their Prometheus text, and running a
script's tests around a fixture that must always be stopped (the cluster's namespaces, Slurm's daemons). The test
scripts add this folder to sys.path."""
import atexit
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

SKIP = 77  # meson's exit status for a skipped test


def run_concurrently(calls, workers=3):
    """The results of `calls` (functions of no argument, each starting and awaiting its own processes), in order,
    several at once: a job of bad input ends at once, and most of its second is mpirun starting and wiring up, which
    waits rather than computes. Each call keeps its own timeout, so a hang still ends the test."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda call: call(), calls))


# Set by scripts/sanitize.sh: the binary runs under AddressSanitizer and UndefinedBehaviorSanitizer, whose allocator
# refuses mallopt and whose shadow memory counts in every resident-memory figure.
SANITIZERS = os.environ.get("DISTBENCH_SANITIZERS", "")
skip_under_sanitizers = unittest.skipIf(SANITIZERS != "", f"the binary runs under sanitizers ({SANITIZERS}): its "
                                        "allocator and shadow memory are not glibc's")


class Workdir(unittest.TestCase):
    """A test case with a temporary folder of its own, removed afterwards."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def collective_results(report):
    """The collective records of a schema 2 to 4 report (every rank's figures kept), each flattened into the fields a
    test reads: its parameters,
    its metrics (time_shown_us for the table's time), and from its "time" phase samples_us and time_us (the
    summary); os_per_op holds each rank's counters per operation, as lists over ranks."""
    assert report["schema_version"] in (2, 3, 4), report["schema_version"]
    flat = []
    for rec in report["records"]:
        res = dict(rec["params"])
        res.update(rec["metrics"])
        res["time_shown_us"] = rec["metrics"].get("time_us")
        res["status"], res["skip_reason"] = rec["status"], rec["skip_reason"]
        res["ops_per_sample"] = rec["ops_per_sample"]
        phase = next((p for p in rec["phases"] if p["name"] == "time"), None)
        res["samples_us"] = phase["samples_us"] if phase else []
        res["time_us"] = phase["time_us"] if phase else None
        res["ranks"] = rec["ranks"]
        res["os_per_op"] = {key: [r.get(key + "_per_op") for r in rec["ranks"]]
                            for key in ("minor_faults", "major_faults", "voluntary_switches", "involuntary_switches")}
        flat.append(res)
    return flat


def error_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def running(pid):
    """Whether process `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def holders(marker, program=None):
    """Live processes with `marker` as one of their arguments (e.g. the job's report path), of `program` only when
    given (the basename of their argv[0])."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if program is not None and (not argv or os.path.basename(argv[0]) != program.encode()):
            continue
        if marker.encode() in argv and running(int(entry)):
            found.append(int(entry))
    return found


def distbench_pids(marker):
    """Live distbench processes whose command line holds `marker` (e.g. the job's report path)."""
    return holders(marker, "distbench")


def rank_pids(marker, variable="OMPI_COMM_WORLD_RANK"):
    """{world rank: pid} of the distbench processes whose command line holds `marker` (network namespaces share the
    machine's process IDs, so this finds the ranks of every test host), by the rank the launcher put in their
    environment: mpirun's OMPI_COMM_WORLD_RANK, or `variable` (srun's SLURM_PROCID)."""
    found = {}
    prefix = f"{variable}=".encode()
    for pid in distbench_pids(marker):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        for var in env:
            if var.startswith(prefix):
                found[int(var.split(b"=", 1)[1])] = pid
    return found


def missing_slurm_tool(tools):
    """Why a Slurm test cannot run here (the first of `tools` not installed), or None."""
    for tool in tools:
        if shutil.which(tool) is None:
            return f"'{tool}' not found (apt-get install slurmd slurmctld slurm-client munge)"
    return None


def end_slurm_jobs(proc, run):
    """Cleanup of a test that started a step (`proc`, its srun): whatever the test left (it failed half-way), the
    step and every job end, so that the next test finds the nodes free (a step left running holds their CPUs, and
    the next srun or sbatch --wait would wait for them past meson's timeout). `run(argv)` runs a Slurm client."""
    if proc.poll() is None:
        proc.kill()
    proc.communicate()
    run(["scancel", "--full", "--user", "root"])
    deadline = time.monotonic() + 20
    while run(["squeue", "-h", "-o", "%i"]).stdout.split() and time.monotonic() < deadline:
        time.sleep(0.2)


def run_with_fixture(fixture, label):
    """Runs this script's test cases with `fixture` up: fixture.up() starts it (returning a reason to skip, or None),
    fixture.down() stops it and must be safe to call twice, fixture.leftovers() lists what is still there after. It is
    always stopped, even when meson's timeout sends SIGTERM or on Ctrl-C. Returns meson's exit status: 0, 77 (skipped)
    or 1 (a test failed, or the fixture left something behind)."""
    atexit.register(fixture.down)

    def on_signal(signum, _frame):
        fixture.down()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    began = time.monotonic()
    try:
        why = fixture.up()
        if why:
            print(f"SKIP: {why}")
            return SKIP
        prog = unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]], exit=False)
        ok = prog.result.wasSuccessful()
    finally:
        fixture.down()
    left = fixture.leftovers()
    print(f"{label} tests took {time.monotonic() - began:.1f} s; left behind: {left or 'none'}", file=sys.stderr)
    return 0 if ok and not left else 1


def wait_for_results(test, report, count, proc, limit=60):
    """Waits until `report` holds at least `count` results; fails the test if the job ends first or never does."""
    deadline = time.time() + limit
    while time.time() < deadline:
        if proc.poll() is not None:
            test.fail("the sweep ended before it could be interrupted")
        try:
            if len(load_json(report)["records"]) >= count:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    test.fail(f"no {count} results in {report} within {limit} s")


def assert_stopped_rank_ends_job(test, proc, report, rank, nranks, timeout_s, slack_s=5):
    """SIGSTOP one rank of a running sweep started with -T `timeout_s` and --json `report`: the launcher must exit 4
    and every rank be gone within the timeout + `slack_s`; the report says failed and keeps the sizes finished
    before, and nothing but the report is left beside it."""
    pids = {}
    err = ""
    try:
        wait_for_results(test, report, 4, proc)
        pids = rank_pids(report)
        test.assertEqual(sorted(pids), list(range(nranks)), pids)
        os.kill(pids[rank], signal.SIGSTOP)
        began = time.time()
        _, err = proc.communicate(timeout=60)
        took = time.time() - began
        test.assertEqual(proc.returncode, 4, err)
        test.assertIn(f"did not finish within {timeout_s} s", err)
        test.assertLess(took, timeout_s + slack_s, err)
        # The launcher kills the ranks as it ends, but a killed process still shows as running until the kernel has
        # torn it down, which on a loaded machine can come after the launcher's own exit (a clean-clone CI run beside
        # a compile saw one rank so): what is guaranteed is that every rank is gone within the same bound.
        deadline = began + timeout_s + slack_s
        left = [pid for pid in pids.values() if running(pid)]
        while left and time.time() < deadline:
            time.sleep(0.05)
            left = [pid for pid in left if running(pid)]
        test.assertEqual(left, [], f"still running {timeout_s + slack_s} s after the rank was stopped: {left}")
    finally:
        for pid in pids.values():
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.communicate()
    result = load_json(report)
    test.assertEqual(result["status"], "failed", err)
    test.assertIn("did not finish", result["error"], err)
    test.assertGreaterEqual(len(result["records"]), 4)
    stray = [name for name in os.listdir(os.path.dirname(report)) if name.startswith(os.path.basename(report) + ".")]
    test.assertEqual(stray, [], "temporary files left beside the report")


def health_checks(report):
    """The health report's checks: {(metric, subject): record}."""
    return {(r["params"]["metric"], r["params"]["subject"]): r for r in report["records"]}


def check_prometheus_text(test, path):
    """promtool's verdict on a textfile-collector file where Debian's prometheus package provides promtool; a strict
    line-by-line parse of the exposition format otherwise."""
    promtool = shutil.which("promtool")
    if promtool:
        with open(path, "rb") as f:
            r = subprocess.run([promtool, "check", "metrics"], stdin=f, capture_output=True, text=True, timeout=30)
        test.assertEqual(r.returncode, 0, f"promtool check metrics: {r.stdout}{r.stderr}")
        return
    sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? '
                        r'([-+]?[0-9.eE+-]+|NaN|[+-]Inf)$')
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# HELP ") or line.startswith("# TYPE "):
                continue
            test.assertRegex(line, sample)
