#!/usr/bin/python3
"""The scale benchmark of distbench itself: how each part of a run grows with ranks and nodes, the laws fitted to
it, and where those laws lead (1,000 and 2,048 nodes, 4,096, 16,384 and 100,000 ranks).

    /usr/bin/python3 bench/scale.py --local 2,4,8,16,32,64,128,256 --out /tmp/scale
    /usr/bin/python3 bench/scale.py --cluster 2,4,8,12,16,20,26 --out /tmp/scale        (root: network namespaces)
    /usr/bin/python3 bench/scale.py --refit /tmp/scale/scale.json --svg docs/scale.svg

Series (each N is one job; a series may be run alone, its runs replace the same series' runs in --results):
  local    np N on this host: mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1, shared memory.
           The same sweep at every N (--sweep): 24 sizes of 8 .. 192 B, both placements, 48 records, as many as
           the default sweep (8 B .. 64 MiB) has, with exactly 10 samples and 2 warm-up calls per case, so that what
           grows with N is the tool's own work (gathers, per-rank figures, reports), not the copying of data.
  cluster  N hosts made of network namespaces (tests/cluster/netns_cluster.sh; CLUSTER_SUBNET 10.79.0, an id of its
           own), one rank per host, TCP over veths: `health` (--health) and the same sweep. The cluster is made once
           with the largest N hosts; a job of N ranks runs on the first N (--host).

Per job it records: wall time of mpirun (launch to exit), and from the reports the phases inside it — sweep: the
first case's start (-S 1 timestamps, the root's clock) less the launch (start-up: launcher, MPI_Init, setup), the
cases (first start to last end), per case what is not timed samples (warm-up, calibration, barrier, verification,
the gathers to rank 0, the reports' rewrites), and the last case's end to mpirun's exit (final reports, farewell,
MPI_Finalize, teardown); health: each phase's own seconds (its phase.seconds records). Where the report has a
"startup" section (each phase of forming the job, per rank) or the console a line with the outputs' write time,
those are read too. Rank 0's peak resident memory, and the last rank's: GNU time's %M (the wait4 rusage of the
rank's process: the kernel's high-water RSS, VmHWM, exact, not sampled), through a wrapper that mpirun starts in
place of distbench and that runs GNU time for the watched ranks only (the floor it adds, GNU time's own RSS before
its exec, is printed). Bytes of every output (JSON, CSV, Markdown, JSON Lines, --prom, a per-rank side file where
the product has one, stdout and stderr), console lines, records and per-rank entries in the JSON, for health the
link pairs measured; and the time `distbench report` and `distbench compare` take to read the JSON back.

Honest figures on a 2-core machine: with N > 2 ranks on 2 cores every time figure measures oversubscription (each
collective waits for its ranks to be scheduled) as much as distbench; sizes, records, pairs and memory are not
affected. Run it on a quiet machine, or read the times as an upper bound; --repeat K runs each N K times and keeps
each time figure's median.

Every law is fitted (bench/scale_fit.py: log-log slope, and the best of 1, log n, n, n log n, n^2 by relative
residual) and printed with its value at the targets; --svg draws the curves (bench/scale_svg.py); --results keeps
everything (JSON). A benchmark to read, not a test: exits 0 whatever the figures are, non-zero only when the
harness itself cannot run (a job that fails or times out is recorded as such and the series goes on).
"""

import argparse
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import common  # noqa: E402  (same folder: finding distbench)
import scale_fit  # noqa: E402
import scale_svg  # noqa: E402

PROG = "scale"
NETNS = os.path.join(ROOT, "tests", "cluster", "netns_cluster.sh")
SWEEP = "allreduce -b 8 -e 192 -i 8 -n 10 -w 2 -S 1 --progress off"
HEALTH = "health -T 120 --memory-bytes 16M"
TARGETS = (1000, 2048, 4096, 16384, 100000)
LOCAL_MCA = ["--mca", "mpi_yield_when_idle", "1", "--mca", "pml", "ob1", "--mca", "btl", "self,vader"]
# What a time figure is; the others (bytes, memory, counts) are not affected by oversubscription.
TIME_KEYS = re.compile(r"(_s$|^phase\.|^startup\.)")

LAUNCHER_LINE = re.compile(rb"^\[[^\]\s:]+:\d+\] ")

WRAPPER = """#!/bin/sh
# bench/scale.py: the watched ranks run under GNU time (%M: peak RSS in KiB from wait4), the others as they are.
dir=$1; watch=$2; shift 2
r=${OMPI_COMM_WORLD_RANK:-${RANK:-x}}
case " $watch " in *" $r "*) exec /usr/bin/time -f "%M %e %U %S" -o "$dir/rss.$r" "$@" ;; esac
exec "$@"
"""


def parse_list(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of whole numbers")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': every N must be at least 1")
    return values


def help_text(distbench, command):
    proc = subprocess.run([distbench, command, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=60, env=dict(os.environ, COLUMNS="200"))
    return proc.stdout


def product_features(distbench):
    """What this build offers beyond today's main, found in --help (others add them while this script exists)."""
    sweep, health = help_text(distbench, "allreduce"), help_text(distbench, "health")
    return {"per_rank": re.search(r"--per-rank\b(?!-)", sweep) is not None,
            "per_rank_file": "--per-rank-file" in sweep,
            "links": "--links" in health,
            "plan_links": "--plan-links" in health}


def link_plan(distbench, nodes, extra):
    """(pairs, rounds) of the link schedule health builds for `nodes` (--plan-links: the same code, no job)."""
    proc = subprocess.run([distbench, "health", "--plan-links", str(nodes)] + extra, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)
    pairs = re.search(r"^pairs:\s*(\d+)", proc.stdout, re.MULTILINE)
    rounds = re.search(r"^rounds:\s*(\d+)", proc.stdout, re.MULTILINE)
    if proc.returncode != 0 or not pairs:
        return None, None
    return int(pairs.group(1)), int(rounds.group(1)) if rounds else None


def git_sha():
    proc = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    return proc.stdout.strip() or "unknown"


# ---------------------------------------------------------------------------------------------------- one job

def output_flags(tool, features, workdir, kinds):
    files = {"json": "report.json", "csv": "report.csv", "md": "report.md", "jsonl": "report.jsonl"}
    if tool == "health":
        files["prom"] = "report.prom"
    files = {k: v for k, v in files.items() if k in kinds}
    flags = []
    for kind, name in files.items():
        flags += [f"--{kind}", os.path.join(workdir, name)]
    if tool == "sweep" and features.get("per_rank_file") and "per_rank_file" in kinds:
        files["per_rank_file"] = "per-rank.jsonl"
        flags += ["--per-rank-file", os.path.join(workdir, "per-rank.jsonl")]
    return flags, files


def read_rss(workdir, rank):
    """(peak RSS KiB, user+sys CPU s) from GNU time's file for `rank`, or (None, None)."""
    try:
        with open(os.path.join(workdir, f"rss.{rank}")) as f:
            lines = [ln.split() for ln in f.read().splitlines() if ln.strip()]
    except OSError:
        return None, None
    for fields in reversed(lines):  # a first line "Command exited with non-zero status" may precede the figures
        if len(fields) == 4:
            try:
                kib, _, user, system = (float(v) for v in fields)
                return int(kib), user + system
            except ValueError:
                continue
    return None, None


def kill_group(proc):
    """Ends the job this script started (its own process group), TERM then KILL."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def run_job(launch, np_, tool_argv, workdir, timeout, features, tool, kinds):
    """Runs one job; the raw figures (wall, exit, console, files, memory)."""
    os.makedirs(workdir, exist_ok=True)
    for name in os.listdir(workdir):
        os.unlink(os.path.join(workdir, name))
    wrapper = os.path.join(workdir, "..", "rss-wrapper.sh")
    flags, files = output_flags(tool, features, workdir, kinds)
    watch = f"0 {np_ - 1}"
    cmd = launch + [wrapper, workdir, watch] + tool_argv + flags
    load = os.getloadavg()[0]
    began_epoch, began = time.time(), time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout + 30)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        rc = "timeout"
    except BaseException:  # Ctrl-C of this script: the job it started goes with it
        kill_group(proc)
        raise
    wall = time.monotonic() - began
    with open(os.path.join(workdir, "console.out"), "wb") as f:
        f.write(out)
    with open(os.path.join(workdir, "console.err"), "wb") as f:
        f.write(err)
    # Open MPI's own lines ("[nodeA:1234] plm:rsh: Warning: ...", one per daemon in the namespaces) are the
    # launcher's, not distbench's: counted apart.
    lines = (out + err).splitlines(keepends=True)
    launcher = [ln for ln in lines if LAUNCHER_LINE.match(ln)]
    job = {"n": np_, "tool": tool, "rc": rc, "wall_s": wall, "load_before": load, "load_after": os.getloadavg()[0],
           "launch_epoch": began_epoch,
           "exit_epoch": began_epoch + wall, "command": " ".join(cmd),
           "bytes": {"stdout": len(out), "stderr": len(err),
                     "console": len(out) + len(err) - sum(map(len, launcher)),
                     "launcher": sum(map(len, launcher))},
           "console_lines": len(lines) - len(launcher)}
    for kind, name in files.items():
        path = os.path.join(workdir, name)
        if os.path.exists(path):
            job["bytes"][kind] = os.path.getsize(path)
    job["rss0_kib"], job["cpu0_s"] = read_rss(workdir, 0)
    job["rss_last_kib"], job["cpu_last_s"] = read_rss(workdir, np_ - 1)
    job["stderr_tail"] = err.decode(errors="replace")[-600:] if rc != 0 else ""
    job["report_write_s"] = console_write_time(out.decode(errors="replace") + err.decode(errors="replace"))
    return job, os.path.join(workdir, files.get("json", "report.json"))


def console_write_time(text):
    """The outputs' write time from the console line that says it, in seconds, or None (not on today's main)."""
    for line in text.splitlines():
        if re.search(r"(?i)\b(reports?|outputs?)\b", line) and re.search(r"(?i)\bwr(ote|itten|ite|iting)\b", line):
            m = re.search(r"([\d.]+)\s*(ms|s)\b", line)
            if m:
                return float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
    return None


# -------------------------------------------------------------------------------------------- reading reports

def load_report(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def startup_section(doc):
    """{phase: slowest rank's seconds} from the report's "startup" section, when the product writes one."""
    section = doc.get("startup") if isinstance(doc, dict) else None
    if not isinstance(section, dict):
        return {}
    phases = section.get("phases", section)
    items = list(phases.items()) if isinstance(phases, dict) else [
        ((p.get("name") or p.get("phase")), p) for p in phases if isinstance(p, dict)]
    if "late_s" in section:
        items.append(("late_s", section["late_s"]))
    out = {}
    for name, value in items:
        seconds = slowest_seconds(value)
        if name and seconds is not None:
            out[re.sub(r"_s$", "", str(name))] = seconds
    return out


def slowest_seconds(value):
    """The largest figure over ranks of a startup phase, in seconds: a number, or a distribution's max."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, dict):
        return None
    for key, scale in (("max_s", 1.0), ("max_ms", 1e-3), ("max_us", 1e-6), ("slowest_s", 1.0), ("max", 1.0),
                       ("seconds", 1.0), ("s", 1.0)):
        if isinstance(value.get(key), (int, float)):
            return float(value[key]) * scale
    for key, sub in value.items():
        if isinstance(sub, dict) and key not in ("slowest", "fastest", "ranks"):
            got = slowest_seconds(sub)
            if got is not None:
                return got
    return None


def record_ranks(doc):
    """Mean per-rank entries in a record of the JSON report (what grows with ranks x records)."""
    recs = doc.get("records", [])
    if not recs:
        return 0
    return statistics.mean(len(r.get("ranks") or []) for r in recs)


def sweep_phases(job, doc):
    """The sweep's phases from its records' start times (-S 1: the root's clock, the machine's clock here)."""
    recs = [r for r in doc.get("records", []) if r.get("status") == "ok"]
    starts = sorted(r["metrics"]["start_time_s"] for r in recs if "start_time_s" in r.get("metrics", {}))
    if len(starts) < 2:
        return
    spans = [b - a for a, b in zip(starts, starts[1:])]
    last = statistics.median(spans)
    timed = 0.0
    for r in recs:
        t = next((p for p in r.get("phases", []) if p.get("name") == "time"), None)
        if t:
            timed += t["time_us"]["mean"] * t["time_us"]["samples"] * r.get("ops_per_sample", 1) * 1e-6
    job["startup_s"] = starts[0] - job["launch_epoch"]
    job["cases_s"] = starts[-1] - starts[0] + last
    job["sampled_s"] = timed
    job["case_overhead_s"] = max(job["cases_s"] - timed, 0.0) / len(recs)
    job["end_s"] = job["exit_epoch"] - (starts[-1] + last)


def health_phases(job, doc):
    phases, pairs, directed, verdicts = {}, set(), 0, {}
    for r in doc.get("records", []):
        p = r.get("params", {})
        if p.get("phase") == "phase" and p.get("metric") == "phase.seconds":
            value = (r.get("metrics") or {}).get("value")
            if isinstance(value, (int, float)):
                phases[p.get("subject", "?")] = float(value)
        elif p.get("phase") == "links" and p.get("metric") == "link.bandwidth_gbps":
            ends = re.split(r"<->|->", p.get("subject", ""))
            if len(ends) == 2:
                pairs.add(tuple(sorted(ends)))
                directed += 1
        elif p.get("metric") == "node.status":
            verdicts[p.get("status", "?")] = verdicts.get(p.get("status", "?"), 0) + 1
    for name, seconds in phases.items():
        job[f"phase.{name}_s"] = seconds
    job["phases_s"] = sum(phases.values())
    job["outside_phases_s"] = job["wall_s"] - job["phases_s"]
    job["link_pairs"] = len(pairs)
    job["link_measurements"] = directed
    n = job["n"]
    if job.get("plan_rounds"):  # the build's own schedule (--plan-links)
        job["link_rounds"] = job["plan_rounds"]
    else:  # every pair, round robin (docs/health.md)
        job["link_rounds"] = (n - 1 if n % 2 == 0 else n) if n > 1 else 0
    if job["link_rounds"] and "phase.links_s" in job:
        job["links_per_round_s"] = job["phase.links_s"] / job["link_rounds"]
    job["verdicts"] = verdicts


def read_back(distbench, report, workdir, timeout):
    """Seconds `distbench report` and `distbench compare` (the report against itself, one run a side: judged with
    --threshold-only, as a test needs 5 runs a side) take to read the JSON."""
    out = {}
    for key, argv in (("read_report_s", [distbench, "report", report, "--format", "csv"]),
                      ("read_compare_s", [distbench, "compare", report, report, "--threshold-only"])):
        began = time.monotonic()
        try:
            proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout,
                                  cwd=workdir)
            ok = proc.returncode in (0, 1, 7)  # compare's verdict codes: reading worked
        except subprocess.TimeoutExpired:
            ok = False
        out[key] = time.monotonic() - began if ok else None
    return out


def analyse(job, report_path, distbench, workdir, read_timeout):
    doc = load_report(report_path)
    if doc is None:
        job["status"] = "no report"
        return job
    job["status"] = doc.get("status")
    job["records"] = len(doc.get("records", []))
    job["record_ranks"] = record_ranks(doc)
    job["world_size"] = (doc.get("environment") or {}).get("world_size")
    for name, seconds in startup_section(doc).items():
        job[f"startup.{name}_s"] = seconds
    if job["tool"] == "health":
        health_phases(job, doc)
    else:
        sweep_phases(job, doc)
    job.update(read_back(distbench, report_path, workdir, read_timeout))
    return job


# --------------------------------------------------------------------------------- readers of large reports

def write_synthetic_report(source, n, path):
    """The source report with n ranks in every record: its per-rank entries repeated in turn (rank i, host
    node<i // 8>), streamed record by record. What a sweep of the same records at n ranks would write, to time the
    readers at rank counts this machine cannot run."""
    top = {k: v for k, v in source.items() if k != "records"}
    env = dict(top.get("environment") or {})
    first = (env.get("ranks") or [{}])[0]
    env["world_size"] = n
    env["ranks"] = [dict(first, rank=i, host=f"node{i // 8:05d}", local_rank=i % 8) for i in range(n)]
    top["environment"] = env
    with open(path, "w") as f:  # laid out as distbench writes its reports (indent 2), so the bytes compare
        f.write(json.dumps(top, indent=2)[:-2] + ',\n  "records": [\n')
        for k, rec in enumerate(source.get("records", [])):
            rec = dict(rec)
            if "nranks" in rec.get("params", {}):
                rec["params"] = dict(rec["params"], nranks=n)
            ranks = rec.get("ranks") or []
            if ranks:
                rec["ranks"] = [dict(ranks[i % len(ranks)], rank=i, host=f"node{i // 8:05d}") for i in range(n)]
            text = json.dumps(rec, indent=2).replace("\n", "\n    ")
            f.write((",\n    " if k else "    ") + text)
        f.write("\n  ]\n}\n")


def timed_reader(argv, workdir, name, timeout):
    """(seconds, peak RSS KiB, exit) of one reader under GNU time."""
    out = os.path.join(workdir, f"rss.{name}")
    began = time.monotonic()
    try:
        proc = subprocess.run(["/usr/bin/time", "-f", "%M %e %U %S", "-o", out] + argv, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout, cwd=workdir)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    seconds = time.monotonic() - began
    kib, _ = read_rss(workdir, name)
    return seconds, kib, rc


def run_readers(args, ns, results):
    source_path = args.readers_from or newest_local_report(args.out)
    if not source_path:
        sys.exit(f"{PROG}: --readers needs a report to grow: run --local first or pass --readers-from REPORT")
    with open(source_path) as f:
        source = json.load(f)
    base = os.path.join(args.out, "readers")
    for n in ns:
        workdir = os.path.join(base, f"n{n:06d}")
        os.makedirs(workdir, exist_ok=True)
        path = os.path.join(workdir, "report.json")
        write_synthetic_report(source, n, path)
        job = {"series": "readers", "tool": "report", "n": n, "rc": 0, "source": source_path,
               "records": len(source.get("records", [])), "bytes": {"json": os.path.getsize(path)}}
        # report --format json writes the report again through the run's own JSON reporter (replay): reading plus
        # writing; --format csv reads it and writes a few lines, so their difference is the JSON writer's time.
        job["load_before"] = os.getloadavg()[0]
        for name, argv in (("report", [args.distbench, "report", path, "--format", "csv"]),
                           ("rewrite", [args.distbench, "report", path, "--format", "json", "--output",
                                        os.path.join(workdir, "again.json")]),
                           ("compare", [args.distbench, "compare", path, path, "--threshold-only"]),
                           ("model", [args.distbench, "model", path])):
            # the fastest of --repeat reads: one process on a shared machine only ever loses time to others
            tries = [timed_reader(argv, workdir, name, args.timeout) for _ in range(args.repeat)]
            seconds, kib, rc = min(tries, key=lambda t: (t[2] != 0, t[0]))
            job[f"read_{name}_s"] = seconds if rc == 0 else None  # a refusal's time is no reading time
            job[f"rss_{name}_kib"], job[f"rc_{name}"] = kib, rc
        job["read_write_json_s"] = (job["read_rewrite_s"] - job["read_report_s"]
                                    if job["read_rewrite_s"] and job["read_report_s"] else None)
        for name in (path, os.path.join(workdir, "again.json")):  # hundreds of MB at 16,384 ranks
            if os.path.exists(name):
                os.unlink(name)
        results[("readers", "report", n)] = job
        print(f"# readers N={n}: JSON {job['bytes']['json']} B, exits: report {job['rc_report']}, rewrite "
              f"{job['rc_rewrite']}, compare "
              f"{job['rc_compare']}, model {job['rc_model']}", file=sys.stderr, flush=True)


def newest_local_report(out):
    base = os.path.join(out, "local")
    found = sorted(d for d in os.listdir(base) if d.startswith("sweep-n")) if os.path.isdir(base) else []
    for d in reversed(found):
        path = os.path.join(base, d, "report.json")
        if load_report(path) and load_report(path).get("status") == "complete":
            return path
    return None


# ------------------------------------------------------------------------------------------------ the series

def local_launch(np_, timeout, mpirun):
    return [mpirun, "--allow-run-as-root", "-np", str(np_), "--oversubscribe", "--bind-to", "none",
            "--timeout", str(timeout)] + LOCAL_MCA


class Cluster:
    """The namespace cluster of this run: made on entry, and always taken down (processes and namespaces)."""

    def __init__(self, hosts, workdir, subnet):
        self.hosts = hosts
        self.env = dict(os.environ, CLUSTER_DIR=os.path.join(workdir, "cluster"), CLUSTER_ID=f"dbscale{os.getpid()}",
                        CLUSTER_SUBNET=subnet, CLUSTER_SLOTS="1")

    def sh(self, *args, check=True):
        return subprocess.run(["sh", NETNS, *args], env=self.env, check=check, stdout=subprocess.PIPE, text=True)

    def __enter__(self):
        self.sh("up", str(self.hosts))
        self.names = self.sh("hosts").stdout.split()
        return self

    def __exit__(self, *exc):
        self.sh("down", check=False)
        return False

    def launch(self, np_, timeout):
        settings = [f"{k}={self.env[k]}" for k in ("CLUSTER_DIR", "CLUSTER_ID", "CLUSTER_SUBNET", "CLUSTER_SLOTS")]
        return ["env", *settings, "sh", NETNS, "run", "--timeout", str(timeout), "-np", str(np_), "--host", ",".join(self.names[:np_])]


def run_series(args, series, tool, ns, launch_for, features, results):
    base = os.path.join(args.out, series)
    os.makedirs(base, exist_ok=True)
    wrapper = os.path.join(base, "rss-wrapper.sh")
    with open(wrapper, "w") as f:
        f.write(WRAPPER)
    os.chmod(wrapper, 0o755)
    argv = [args.distbench] + (args.health.split() if tool == "health" else args.sweep.split() + args.extra.split())
    for n in ns:
        tries = []
        for k in range(args.repeat):
            workdir = os.path.join(base, f"{tool}-n{n:05d}-{k}")
            job, report = run_job(launch_for(n), n, argv, workdir, args.timeout, features, tool,
                                  args.outputs.split(","))
            if tool == "health" and features.get("plan_links"):
                job["plan_pairs"], job["plan_rounds"] = link_plan(args.distbench, n, link_options(argv))
            job = analyse(job, report, args.distbench, workdir, args.timeout)
            job["series"] = series
            tries.append(job)
            print(f"# {series} {tool} N={n} try {k + 1}/{args.repeat}: exit {job['rc']}, {job['wall_s']:.1f} s, "
                  f"{job.get('status')}, JSON {job['bytes'].get('json', 0)} B, rank 0 {job['rss0_kib']} KiB",
                  file=sys.stderr, flush=True)
        results[(series, tool, n)] = combine(tries)
        if all(t["rc"] != 0 for t in tries) and args.stop_on_failure:
            print(f"# {series} {tool}: N={n} failed; larger N not tried", file=sys.stderr)
            break


def link_options(argv):
    """The options of a health command line that shape its link schedule (--links, --link-seed), for --plan-links."""
    out = []
    for i, word in enumerate(argv):
        if word in ("--links", "--link-seed") and i + 1 < len(argv):
            out += [word, argv[i + 1]]
        elif word.startswith(("--links=", "--link-seed=")):
            out.append(word)
    return out


def plan_targets(args, features, results):
    """The schedule the build makes at the targets' node counts: exact counts from the code, not a law."""
    if not features.get("plan_links"):
        return
    extra = link_options(args.health.split())
    for n in (26, 100, 1000, 2048, 12500):
        pairs, rounds = link_plan(args.distbench, n, extra)
        if pairs is not None:
            results[("plan", "health", n)] = {"series": "plan", "tool": "health", "n": n, "rc": 0,
                                              "plan_pairs": pairs, "plan_rounds": rounds,
                                              "every_pair": n * (n - 1) // 2,
                                              "bound_4nlog2n": round(4 * n * math.log2(n))}


def combine(tries):
    """One job's figures over repeats: time figures' median, the rest from the first try that ran."""
    ok = [t for t in tries if t["rc"] == 0] or tries
    job = dict(ok[0])
    job["tries"] = len(tries)
    job["failed_tries"] = sum(1 for t in tries if t["rc"] != 0)
    for key in list(job):
        if TIME_KEYS.search(key) and all(isinstance(t.get(key), (int, float)) for t in ok):
            job[key] = statistics.median(t[key] for t in ok)
    return job


# ------------------------------------------------------------------------------------------- laws and output

def metric_keys(jobs):
    keys = set()
    for j in jobs:
        for k, v in j.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in (
                    "n", "rc", "rc_report", "rc_rewrite", "rc_compare", "rc_model", "tries", "load_before", "load_after", "failed_tries", "launch_epoch", "exit_epoch", "world_size"):
                keys.add(k)
        keys.update(f"bytes.{k}" for k in j.get("bytes", {}))
    return sorted(keys)


def value(job, key):
    if key.startswith("bytes."):
        return job.get("bytes", {}).get(key[6:])
    v = job.get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def fit_all(runs):
    fits = {}
    for (series, tool) in sorted({(r["series"], r["tool"]) for r in runs}):
        jobs = [r for r in runs if r["series"] == series and r["tool"] == tool and r["rc"] == 0]
        for key in metric_keys(jobs):
            got = scale_fit.fit([(j["n"], value(j, key)) for j in jobs])
            if got:
                got["at"] = {str(n): scale_fit.predict(got, n) for n in TARGETS}
                fits[f"{series}/{tool}/{key}"] = got
    return fits


def fmt(v, key=""):
    if v is None:
        return "-"
    if key.endswith("_kib"):
        return f"{v / 1024:.1f}M"
    if key.startswith("bytes."):
        return common.format_bytes(int(v)).replace(" ", "")
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


TABLES = {
    "sweep": ["wall_s", "startup_s", "cases_s", "sampled_s", "case_overhead_s", "end_s", "report_write_s",
              "rss0_kib", "rss_last_kib", "records", "record_ranks", "bytes.json", "bytes.csv", "bytes.md",
              "bytes.jsonl", "bytes.per_rank_file", "bytes.console", "read_report_s", "read_compare_s"],
    "health": ["wall_s", "outside_phases_s", "phase.rank_s", "phase.clock_s", "phase.node_s", "phase.job_s",
               "phase.links_s", "phase.isolation_s", "phase.stragglers_s", "links_per_round_s", "link_pairs",
               "rss0_kib", "bytes.json", "bytes.prom", "bytes.md", "bytes.csv", "bytes.console", "console_lines",
               "read_report_s"],
    "health-plan": ["plan_pairs", "plan_rounds", "every_pair", "bound_4nlog2n"],
    "report": ["records", "bytes.json", "read_report_s", "rss_report_kib", "rc_report", "read_rewrite_s",
               "rss_rewrite_kib", "read_write_json_s", "read_compare_s",
               "rss_compare_kib", "rc_compare", "read_model_s", "rss_model_kib", "rc_model"],
}


def print_tables(runs):
    for (series, tool) in sorted({(r["series"], r["tool"]) for r in runs}):
        jobs = sorted((r for r in runs if r["series"] == series and r["tool"] == tool), key=lambda r: r["n"])
        wanted = TABLES["health-plan" if series == "plan" else tool] + [
            k for k in metric_keys(jobs) if k.startswith("startup.") or k.startswith("plan_")]
        keys = [k for k in dict.fromkeys(wanted) if any(value(j, k) is not None for j in jobs)]
        what = {"local": "ranks", "cluster": "hosts, one rank each", "readers": "ranks in a synthetic report",
                "plan": "nodes; the build's --plan-links"}
        print(f"\n## {series} / {tool} (N = {what.get(series, series)})")
        print("| N | exit | " + " | ".join(keys) + " |")
        print("|---|---|" + "---|" * len(keys))
        for j in jobs:
            print(f"| {j['n']} | {j['rc']} | " + " | ".join(fmt(value(j, k), k) for k in keys) + " |")


def print_fits(fits):
    print("\n## Fitted laws (chosen by the smallest relative RMS residual) and their values at the targets")
    print("| curve | law | log-log slope | rms | " + " | ".join(f"N={n}" for n in TARGETS) + " |")
    print("|---|---|---|---|" + "---|" * len(TARGETS))
    for name, f in fits.items():
        key = name.split("/", 2)[2]
        print(f"| {name} | {scale_fit.law_text(f)} | {f['slope']:.2f} | {100 * f['rms_rel']:.0f}% | " +
              " | ".join(fmt(f["at"][str(n)], key) for n in TARGETS) + " |")


def print_ratios(runs):
    print("\n## Ratios")
    for (series, tool) in sorted({(r["series"], r["tool"]) for r in runs}):
        by_n = {r["n"]: r for r in runs if r["series"] == series and r["tool"] == tool and r["rc"] == 0}
        if not by_n:
            continue
        hi = max(by_n)
        lo = 16 if 16 in by_n and hi > 16 else min(by_n)
        if hi == lo:
            continue
        for key in ("rss0_kib", "bytes.json", "bytes.console", "wall_s"):
            a, b = value(by_n[hi], key), value(by_n[lo], key)
            if a and b:
                print(f"{series} {tool}: {key} N{hi} / N{lo} = {a / b:.2f}")


# The compact tables of docs/scale.md: (title, series, tool, [(heading, key, unit)]); unit s, ms, MiB (from KiB
# or bytes), KB (bytes), or "" (as is).
DOC_TABLES = (
    ("sweep, np N on one host (oversubscribed above np 2)", "local", "sweep",
     [("wall s", "wall_s", "s"), ("start-up s", "startup_s", "s"),
      ("of which connect s", "startup.connect_s", "s"), ("first collective s", "startup.first_collective_s", "s"),
      ("cases s", "cases_s", "s"),
      ("per case, not sampled ms", "case_overhead_s", "ms"), ("end s", "end_s", "s"),
      ("rank 0 peak MiB", "rss0_kib", "MiB"), ("last rank MiB", "rss_last_kib", "MiB"),
      ("JSON KB", "bytes.json", "KB"), ("JSONL KB", "bytes.jsonl", "KB"),
      ("per-rank file KB", "bytes.per_rank_file", "KB"), ("CSV KB", "bytes.csv", "KB"),
      ("Markdown KB", "bytes.md", "KB"), ("console KB", "bytes.console", "KB")]),
    ("sweep, N namespace hosts, one rank each", "cluster", "sweep",
     [("wall s", "wall_s", "s"), ("start-up s", "startup_s", "s"),
      ("of which connect s", "startup.connect_s", "s"), ("first collective s", "startup.first_collective_s", "s"),
      ("cases s", "cases_s", "s"),
      ("per case, not sampled ms", "case_overhead_s", "ms"), ("end s", "end_s", "s"),
      ("rank 0 peak MiB", "rss0_kib", "MiB"), ("JSON KB", "bytes.json", "KB"), ("console KB", "bytes.console", "KB")]),
    ("health, N namespace hosts, one rank each", "cluster", "health",
     [("wall s", "wall_s", "s"), ("rank", "phase.rank_s", "s"), ("clock", "phase.clock_s", "s"),
      ("node", "phase.node_s", "s"), ("job", "phase.job_s", "s"), ("links", "phase.links_s", "s"),
      ("isolation", "phase.isolation_s", "s"), ("stragglers", "phase.stragglers_s", "s"),
      ("outside phases", "outside_phases_s", "s"), ("link pairs", "link_pairs", ""),
      ("pairs planned", "plan_pairs", ""), ("rounds", "link_rounds", ""),
      ("s per round", "links_per_round_s", "s"), ("rank 0 peak MiB", "rss0_kib", "MiB"),
      ("JSON KB", "bytes.json", "KB"), (".prom KB", "bytes.prom", "KB"), ("console KB", "bytes.console", "KB"),
      ("console lines", "console_lines", "")]),
    ("the link schedule the build makes for N nodes (--plan-links: its own code, no job)", "plan", "health",
     [("pairs", "plan_pairs", ""), ("rounds", "plan_rounds", ""), ("every pair", "every_pair", ""),
      ("4 n log2 n", "bound_4nlog2n", "")]),
    ("reading a report of N ranks back (synthetic: the np 256 sweep's 48 records, per-rank entries repeated)",
     "readers", "report",
     [("JSON MiB", "bytes.json", "MiB"), ("report s", "read_report_s", "s"), ("report MiB", "rss_report_kib", "MiB"),
      ("JSON written s", "read_write_json_s", "s"), ("compare s", "read_compare_s", "s"),
      ("compare MiB", "rss_compare_kib", "MiB"), ("model s", "read_model_s", "s"), ("model MiB", "rss_model_kib", "MiB")]),
)


def unit_factor(key, unit):
    if unit == "MiB":
        return 1 / 1024 if key.endswith("_kib") else 1 / (1 << 20)
    return {"KB": 1e-3, "ms": 1e3}.get(unit, 1.0)


def number(v):
    """A figure for a table: whole numbers with separators from 1,000, else three significant digits."""
    if abs(v) >= 999.5:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def doc_value(v, key, unit):
    return "-" if v is None else number(v * unit_factor(key, unit))


def doc_law(f, key, unit):
    k = unit_factor(key, unit)
    if f["law"] == "1":
        return number(f["a"] * k)
    return f"{number(f['a'] * k)} + {f['b'] * k:.3g}·{f['law']}"


def print_doc_tables(runs, fits):
    """The tables docs/scale.md shows, from the same results."""
    for title, series, tool, cols in DOC_TABLES:
        jobs = sorted((r for r in runs if r["series"] == series and r["tool"] == tool and r["rc"] == 0),
                      key=lambda r: r["n"])
        cols = [c for c in cols if any(value(j, c[1]) is not None for j in jobs)]  # what this build measured
        if not jobs:
            continue
        print(f"\n{title}:\n")
        print("| N | " + " | ".join(h for h, _, _ in cols) + " |")
        print("|---:|" + "---:|" * len(cols))
        for j in jobs:
            print(f"| {j['n']} | " + " | ".join(doc_value(value(j, k), k, u) for _, k, u in cols) + " |")
    print("\nlaws (chosen by relative residual; value at N):\n")
    print("| curve | law | log-log slope | " + " | ".join(f"{n:,}" for n in TARGETS) + " |")
    print("|---|---|---:|" + "---:|" * len(TARGETS))
    for title, series, tool, cols in DOC_TABLES:
        for heading, key, unit in cols:
            f = fits.get(f"{series}/{tool}/{key}")
            if not f:
                continue
            # a time measured on 2 shared cores with many ranks grows with the oversubscription: its law is shown,
            # its extrapolation is not (it would predict this machine, not a cluster)
            oversubscribed = unit in ("s", "ms") and series != "readers"
            values = ["(2 cores)"] * len(TARGETS) if oversubscribed else [
                doc_value(f["at"][str(n)], key, unit) for n in TARGETS]
            print(f"| {series} {tool}: {heading} | {doc_law(f, key, unit)} | {f['slope']:.2f} | " +
                  " | ".join(values) + " |")


def plot(path, runs, fits):
    def series_of(series, tool, key, name, extrapolate=True):
        """A series and its law, carried to 100,000 (extrapolate) or over the measured range only: a time measured
        on 2 shared cores grows with the oversubscription, and its law says nothing of a real cluster."""
        pts = sorted((r["n"], value(r, key)) for r in runs
                     if r["series"] == series and r["tool"] == tool and r["rc"] == 0 and value(r, key))
        f = fits.get(f"{series}/{tool}/{key}")
        curve = None
        if f and pts:
            xs, x, end = [], pts[0][0], 100000 if extrapolate else pts[-1][0]
            while x < end:
                xs.append(x)
                x *= 1.25
            curve = [(x, scale_fit.predict(f, x)) for x in xs + [end]]
            name += f" ~ {f['law']}"
        return {"name": name, "points": pts, "curve": curve}

    def reference(name, law, ns):
        return {"name": name, "points": [], "curve": [(n, law(n)) for n in ns]}

    def scale(s, factor):
        s["points"] = [(x, y * factor) for x, y in s["points"]]
        s["curve"] = [(x, y * factor) for x, y in s["curve"]] if s["curve"] else None
        return s

    marks = [(1000, "1,000"), (16384, "16,384"), (100000, "100,000")]
    mb = 1.0 / (1 << 20)
    panels = [
        {"title": "rank 0 peak RSS", "xlabel": "ranks (local: np on 2 cores; cluster: hosts)", "ylabel": "MiB",
         "marks": marks, "series": [scale(series_of("local", "sweep", "rss0_kib", "sweep, local"), 1 / 1024),
                                    scale(series_of("cluster", "sweep", "rss0_kib", "sweep, cluster"), 1 / 1024),
                                    scale(series_of("cluster", "health", "rss0_kib", "health, cluster"), 1 / 1024)]},
        {"title": "sweep outputs (48 records)", "xlabel": "ranks", "ylabel": "MiB", "marks": marks,
         "series": [scale(series_of("local", "sweep", f"bytes.{k}", k), mb)
                    for k in ("json", "csv", "md", "console", "per_rank_file")]},
        {"title": "sweep phases (np on 2 cores: oversubscription)", "xlabel": "ranks", "ylabel": "seconds",
         "marks": [], "series": [series_of("local", "sweep", k, k.replace("_s", ""), False) for k in
                                 ("wall_s", "startup_s", "cases_s", "case_overhead_s", "end_s")]},
        {"title": "health outputs", "xlabel": "hosts", "ylabel": "MiB", "marks": marks,
         "series": [scale(series_of("cluster", "health", f"bytes.{k}", k), mb) for k in ("json", "prom", "console")]},
        {"title": "health link pairs", "xlabel": "hosts", "ylabel": "pairs", "marks": marks,
         "series": [series_of("cluster", "health", "link_pairs", "measured"),
                    series_of("cluster", "health", "plan_pairs", "planned (--plan-links)"),
                    series_of("plan", "health", "plan_pairs", "planned at 26 ... 12,500 nodes"),
                    reference("every pair: n(n-1)/2", lambda n: n * (n - 1) / 2, (2, 100000)),
                    reference("target: 4 n log2 n", lambda n: 4 * n * math.log2(n),
                              [2 ** k for k in range(1, 17)] + [100000])]},
        {"title": "health phases (hosts on 2 cores: oversubscription)", "xlabel": "hosts", "ylabel": "seconds",
         "marks": [], "series": [series_of("cluster", "health", k, k.replace("phase.", "").replace("_s", ""), False)
                                 for k in ("wall_s", "phase.rank_s", "phase.job_s", "phase.links_s",
                                           "phase.isolation_s", "outside_phases_s")]},
        {"title": "sweep on namespace hosts (2 cores)", "xlabel": "hosts", "ylabel": "seconds", "marks": [],
         "series": [series_of("cluster", "sweep", k, k.replace("_s", ""), False) for k in
                    ("wall_s", "startup_s", "cases_s", "case_overhead_s", "end_s")]},
        {"title": "reading a report back (synthetic, 48 records)", "xlabel": "ranks", "ylabel": "seconds",
         "marks": marks, "series": [series_of("readers", "report", f"read_{k}_s", k)
                                    for k in ("report", "rewrite", "compare", "model")]},
    ]
    for p in panels:
        p["series"] = [s for s in p["series"] if s["points"] or (s["curve"] and any(t["points"] for t in p["series"]))]
    panels = [p for p in panels if p["series"]]
    scale_svg.write_svg(path, panels, "distbench at scale: measured (points) and fitted laws (dashed)")


# -------------------------------------------------------------------------------------------------------- main

def load_results(paths):
    runs, meta = {}, {}
    for path in paths:
        if os.path.exists(path):
            with open(path) as f:
                doc = json.load(f)
            meta.update(doc.get("meta", {}))
            for r in doc.get("runs", []):
                runs[(r["series"], r["tool"], r["n"])] = r
    return runs, meta


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--local", type=parse_list, default=[], help="np values of the local series, e.g. 2,4,...,256")
    p.add_argument("--cluster", type=parse_list, default=[], help="host counts of the namespace series (1..26)")
    p.add_argument("--readers", type=parse_list, default=[],
                   help="rank counts of synthetic reports read back by report, compare and model (e.g. 1024,16384)")
    p.add_argument("--readers-from", help="the report the synthetic ones grow (default: the local series' largest)")
    p.add_argument("--cluster-tools", default="health,sweep", help="what the cluster series runs (default %(default)s)")
    p.add_argument("--name", default="local", help="the local series' name in the results, to keep a variant "
                   "(another --sweep or --extra) beside the main one (default %(default)s)")
    p.add_argument("--sweep", default=SWEEP, help="the sweep, as distbench arguments (default: %(default)s)")
    p.add_argument("--health", default=HEALTH, help="the health check (default: %(default)s)")
    p.add_argument("--extra", default="", help="more distbench arguments for the sweep's jobs (e.g. '--per-rank "
                   "summary'); health's go in --health")
    p.add_argument("--outputs", default="json,csv,md,jsonl,prom,per_rank_file",
                   help="the outputs each job writes (default %(default)s; prom: health only; per_rank_file where the "
                        "build has --per-rank-file)")
    p.add_argument("--repeat", type=int, default=1,
                   help="jobs per N, time figures keep their median; readers: reads per N, the fastest kept (default 1)")
    p.add_argument("--timeout", type=int, default=900, help="seconds a job may take (mpirun --timeout; default 900)")
    p.add_argument("--stop-on-failure", action="store_true", help="no larger N after an N whose every try failed")
    p.add_argument("--out", default="/tmp/distbench-scale", help="work folder (default %(default)s)")
    p.add_argument("--results", help="results JSON, read and updated (default OUT/scale.json)")
    p.add_argument("--refit", nargs="*", default=None, help="only read these results files, print and plot")
    p.add_argument("--svg", help="write the plot here")
    p.add_argument("--doc", action="store_true", help="print the compact tables of docs/scale.md instead")
    p.add_argument("--subnet", default="10.79.0", help="the namespace cluster's /24 (default %(default)s)")
    p.add_argument("--distbench", help="distbench binary (default: build/src/cli/distbench)")
    p.add_argument("--mpirun", default="mpirun")
    args = p.parse_args()
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    if args.cluster and max(args.cluster) > 26:
        p.error("--cluster: netns_cluster.sh makes at most 26 hosts")
    results_path = args.results or os.path.join(args.out, "scale.json")

    if args.refit is not None:
        runs, meta = load_results(args.refit or [results_path])
    else:
        args.distbench = common.find_distbench(args.distbench)
        if not os.access("/usr/bin/time", os.X_OK):
            sys.exit(f"{PROG}: /usr/bin/time (GNU time) is needed for the peak memory: apt-get install time")
        if shutil.which(args.mpirun) is None:
            sys.exit(f"{PROG}: {args.mpirun} not found (apt-get install openmpi-bin)")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        os.makedirs(args.out, exist_ok=True)
        runs, meta = load_results([results_path])
        features = product_features(args.distbench)
        floor = subprocess.run(["/usr/bin/time", "-f", "%M", "true"], stderr=subprocess.PIPE, text=True).stderr
        meta.update({"distbench": args.distbench, "git": git_sha(), "features": features,
                     "sweep": args.sweep, "health": args.health, "extra": args.extra, "cpus": os.cpu_count(),
                     "time_floor_kib": int(floor.split()[-1]) if floor.split() else None})
        print(f"# distbench {args.distbench} ({meta['git']}), features {features}, GNU time floor "
              f"{meta['time_floor_kib']} KiB", file=sys.stderr)
        got = {}
        if args.local:
            meta["local_load_before"] = os.getloadavg()
            run_series(args, args.name, "sweep", args.local, lambda n: local_launch(n, args.timeout, args.mpirun),
                       features, got)
            meta["local_load_after"] = os.getloadavg()
        if args.cluster:
            with Cluster(max(args.cluster), args.out, args.subnet) as cluster:
                for tool in args.cluster_tools.split(","):
                    run_series(args, "cluster", tool, args.cluster, lambda n: cluster.launch(n, args.timeout),
                               features, got)
            plan_targets(args, features, got)
        if args.readers:
            run_readers(args, args.readers, got)
        for key in {k[:2] for k in got}:  # a series run now replaces the same series' older runs
            runs = {k: v for k, v in runs.items() if k[:2] != key}
        runs.update(got)

    ordered = sorted(runs.values(), key=lambda r: (r["series"], r["tool"], r["n"]))
    fits = fit_all(ordered)
    if args.doc:
        print_doc_tables(ordered, fits)
    else:
        print_tables(ordered)
        print_ratios(ordered)
        print_fits(fits)
    if args.refit is None:
        with open(results_path, "w") as f:
            json.dump({"meta": meta, "runs": ordered, "fits": fits}, f, indent=1)
        print(f"\nresults: {results_path}")
    if args.svg:
        plot(args.svg, ordered, fits)
        print(f"plot: {args.svg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
