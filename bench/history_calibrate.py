#!/usr/bin/python3
"""Calibrates `distbench history check` on real runs of this machine: false change points in A/A histories, and how
soon a known step is found, for each detector setting; then the costs at scale.

    /usr/bin/python3 bench/history_calibrate.py collect DIR [--aa 300] [--histories 10] -- [sweep flags]
    /usr/bin/python3 bench/history_calibrate.py score DIR
    /usr/bin/python3 bench/history_calibrate.py scale [--runs 1000] [--cases 100]

collect: real runs of one build, under `mpirun -np 2 --bind-to core` (default sweep: allreduce 64 KiB .. 1 MiB, x4,
20 samples, out-of-place: 3 cases a run). First --aa runs back to back (DIR/aa: the A/A material, cut into histories
of 30), then --histories step histories of 30 runs (DIR/step/hNN), whose runs 20..30 force an Open MPI allreduce
algorithm (--slow-mca, default recursive doubling) in place of the tuned choice: a real step, of whatever size that
algorithm costs here (printed).

score: three kinds of 30-run history, each ingested run by run into a fresh database (`history ingest`), with
`history check` after every run from the 10th on, at each detector setting (--max-p x --min-segment):
  A/A          DIR/aa cut into histories of 30: every change point is a false one; every check that exits 1 a false
               alarm of the gate (CI runs the check after each run, so this is the rate a team would live with);
  injected     the same A/A histories with every time of runs 20..30 scaled by --step (1.10): real run-to-run noise,
               a known step of exactly that size;
  real step    DIR/step: the real algorithm change from run 20.
A step counts as found when the full history has a change point within 3 runs of run 20 (the issue's measure); the
gate's delay is the number of runs after run 20 until the first check that exits 1.

scale: a synthetic history of --runs runs of --cases cases (a real report's record, copied over sizes and dtypes,
with seeded noise), ingested once; prints the time of one report's ingest and of `history check` on the whole
database. Targets: ingest <= 0.1 s, check <= 5 s.

Only the Python standard library. A benchmark to read: exits 0 whatever it finds.
"""

import argparse
import copy
import glob
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

HISTORY = 30
STEP_AT = 20  # the first slow run, counted from 1
FOUND_WITHIN = 3
FIRST_CHECK = 10
DEFAULT_SWEEP = ["allreduce", "-b", "64K", "-e", "1M", "-f", "4", "-n", "20", "--placement", "out-of-place", "-q"]


def collect(args):
    os.makedirs(os.path.join(args.dir, "aa"), exist_ok=True)
    sweep = args.sweep or DEFAULT_SWEEP
    base = [args.mpirun, "--allow-run-as-root", "-np", "2", "--bind-to", "core"]
    for i in range(1, args.aa + 1):
        common.run(base + [args.distbench, *sweep, "--json", os.path.join(args.dir, "aa", f"run{i:03d}.json")], "run")
    mca = []
    for kv in args.slow_mca.split(","):
        key, value = kv.split("=")
        mca += ["--mca", key, value]
    for h in range(1, args.histories + 1):
        folder = os.path.join(args.dir, "step", f"h{h:02d}")
        os.makedirs(folder, exist_ok=True)
        for i in range(1, HISTORY + 1):
            cmd = base + (mca if i >= STEP_AT else []) + [args.distbench, *sweep, "--json",
                                                          os.path.join(folder, f"run{i:02d}.json")]
            common.run(cmd, "run")
    print(f"collected {args.aa} A/A runs and {args.histories} step histories in {args.dir}")


def scaled(report, factor):
    """The report with every time multiplied by factor (bandwidths divided): the same run, `factor` slower."""
    doc = copy.deepcopy(report)
    for rec in doc.get("records", []):
        for phase in rec.get("phases", []):
            stats = phase.get("time_us", {})
            for key in list(stats):
                if key not in ("samples", "outliers", "noise_pct", "median_ci_pct") and isinstance(stats[key], float):
                    stats[key] *= factor
            phase["samples_us"] = [x * factor for x in phase.get("samples_us", [])]
            spread = phase.get("rank_spread_us")
            if spread:
                for key in spread:
                    spread[key] *= factor
        metrics = rec.get("metrics", {})
        for key in list(metrics):
            if metrics[key] is None:
                continue
            if key.startswith("time"):
                metrics[key] *= factor
            elif key.endswith("bw_gbps"):
                metrics[key] /= factor
        for rank in rec.get("ranks", []):
            if isinstance(rank.get("time_us"), float):
                rank["time_us"] *= factor
    return doc


def settings(args):
    return [(p, m) for p in args.max_p for m in args.min_segment]


def check(args, db, max_p, min_segment):
    proc = subprocess.run([args.distbench, "history", "check", db, "--format", "json", "--max-p", f"{max_p:g}",
                           "--min-segment", str(min_segment), "--window", str(args.window), "--alpha",
                           f"{args.alpha:g}"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 1, 7):
        sys.exit(f"history_calibrate: history check failed (exit {proc.returncode}): {proc.stderr.strip()}")
    doc = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, doc


def change_points(doc):
    """Each series' change points as 1-based run positions in the history."""
    out = {}
    for case in doc.get("cases", []):  # a fresh database per history: run ids count its runs from 1
        out[case["label"]] = [cp["run"] for cp in case.get("series", {}).get("change_points", [])]
    return out


def play(args, files, factor_from):
    """Ingests the history run by run, checking after each from FIRST_CHECK on at every setting. Returns, per
    setting, the exit codes of the checks (by run) and the final change points."""
    result = {s: {"exits": {}, "cps": {}} for s in settings(args)}
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "history.db")
        for i, path in enumerate(files, start=1):
            if factor_from is not None and i >= STEP_AT:
                with open(path) as f:
                    doc = scaled(json.load(f), factor_from)
                path = os.path.join(tmp, f"run{i:02d}.json")
                with open(path, "w") as f:
                    json.dump(doc, f)
            common.run([args.distbench, "history", "ingest", db, path, "--label", f"run{i}"], "history ingest")
            if i < FIRST_CHECK:
                continue
            for s in settings(args):
                code, doc = check(args, db, *s)
                result[s]["exits"][i] = code
                if code == 1:  # which rule failed it: a change point in the window, or the newest run alone
                    alone = any(c["verdict"] == "SLOWER" and c.get("series", {}).get("newest_alone")
                                for c in doc.get("cases", []))
                    result[s].setdefault("by_newest_alone", []).append(alone)
                if i == len(files):
                    result[s]["cps"] = change_points(doc)
    return result


def histories(args):
    aa = sorted(glob.glob(os.path.join(args.dir, "aa", "*.json")))
    aa = [aa[k:k + HISTORY] for k in range(0, len(aa) - HISTORY + 1, HISTORY)]
    step = [sorted(glob.glob(os.path.join(d, "*.json"))) for d in sorted(glob.glob(os.path.join(args.dir, "step", "h*")))]
    return aa, [h for h in step if len(h) == HISTORY]


def real_step_sizes(step):
    """Per case, the median over histories of (median of runs 20..30) / (median of runs 1..19)."""
    ratios = {}
    for files in step:
        per_case = {}
        for i, path in enumerate(files, start=1):
            with open(path) as f:
                for rec in json.load(f)["records"]:
                    label = common.format_bytes(rec["params"]["bytes"])
                    per_case.setdefault(label, ([], []))[i >= STEP_AT].append(rec["phases"][0]["time_us"]["median"])
        for label, (before, after) in per_case.items():
            ratios.setdefault(label, []).append(statistics.median(after) / statistics.median(before))
    return {label: statistics.median(r) for label, r in ratios.items()}


def tally(kind, runs, stepped):
    """Per setting: (change points per history, histories with a step found within 3 runs, gate failures among the
    checks, the gate's delays)."""
    rows = {}
    for s in runs[0]:
        cps = [sum(len(v) for v in r[s]["cps"].values()) for r in runs]
        series = [v for r in runs for v in r[s]["cps"].values()]
        found = sum(any(abs(c - STEP_AT) <= FOUND_WITHIN for c in v) for v in series)
        if stepped:
            false_cps = sum(sum(abs(c - STEP_AT) > FOUND_WITHIN for c in v) for v in series)
            fails = [min([i for i, code in r[s]["exits"].items() if code == 1 and i >= STEP_AT] or [None], key=lambda
                         x: x if x is not None else 1e9) for r in runs]
            delays = [f - STEP_AT for f in fails if f is not None]
            early = sum(any(code == 1 for i, code in r[s]["exits"].items() if i < STEP_AT) for r in runs)
            in_history = sum(any(abs(c - STEP_AT) <= FOUND_WITHIN for v in r[s]["cps"].values() for c in v) for r in runs)
            within = sum(d <= FOUND_WITHIN for d in delays)
            rows[s] = (f"{found}/{len(series)} series ({in_history}/{len(runs)} histories) with a change point within "
                       f"{FOUND_WITHIN} runs of the step; gate caught it within {FOUND_WITHIN} runs in {within}/"
                       f"{len(runs)}; other change points "
                       f"{false_cps}; gate failed before run {STEP_AT} in {early}/{len(runs)}, caught the step in "
                       f"{len(delays)}/{len(runs)} (runs after the step: "
                       f"{statistics.median(delays) if delays else '-'} median, {max(delays) if delays else '-'} max)")
        else:
            checks = sum(len(r[s]["exits"]) for r in runs)
            failed = sum(code == 1 for r in runs for code in r[s]["exits"].values())
            alone = sum(sum(r[s].get("by_newest_alone", [])) for r in runs)
            rows[s] = (f"change points per history {statistics.mean(cps):.2f} (max {max(cps)}, "
                       f"{len(series)} series); gate failed {failed} of {checks} checks ({alone} by the newest "
                       f"run alone, {failed - alone} by a change point in the window)")
    print(f"\n{kind}:")
    for (p, m), text in rows.items():
        print(f"  --max-p {p:<7g} --min-segment {m}: {text}")


def score(args):
    aa, step = histories(args)
    if not aa:
        sys.exit(f"history_calibrate: no A/A runs in {args.dir}/aa (run collect first)")
    print(f"distbench: {args.distbench}")
    print(f"{len(aa)} A/A histories and {len(step)} real-step histories of {HISTORY} runs; checks from run "
          f"{FIRST_CHECK}; --window {args.window}")
    if step:
        sizes = real_step_sizes(step)
        print("real step, median ratio of runs 20..30 to runs 1..19 per case: " +
              ", ".join(f"{k} {v:.2f}" for k, v in sizes.items()))
    tally("A/A", [play(args, h, None) for h in aa], False)
    tally(f"injected step x{args.step:g} from run {STEP_AT}", [play(args, h, args.step) for h in aa], True)
    if step:
        tally(f"real step ({args.slow_mca}) from run {STEP_AT}", [play(args, h, None) for h in step], True)


def synthetic_reports(args, tmp):
    with open(args.template) as f:
        template = json.load(f)
    record = template["records"][0]
    rng = random.Random(58)
    dtypes = ["float32", "float64", "int32", "bfloat16", "float16"]
    sizes = [1 << k for k in range(3, 3 + math.ceil(args.cases / len(dtypes)))]
    records = []
    for dtype in dtypes:
        for size in sizes:
            if len(records) == args.cases:
                break
            rec = copy.deepcopy(record)
            rec["params"]["dtype"] = dtype
            rec["params"]["bytes"] = size
            records.append(rec)
    paths = []
    for i in range(args.runs):
        doc = copy.deepcopy(template)
        doc["records"] = [scaled(r, math.exp(rng.gauss(0, 0.05))) for r in records]
        doc["start_time"] = f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z"
        path = os.path.join(tmp, f"run{i:04d}.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        paths.append(path)
    return paths


def scale(args):
    with tempfile.TemporaryDirectory() as tmp:
        paths = synthetic_reports(args, tmp)
        db = os.path.join(tmp, "history.db")
        began = time.monotonic()
        for start in range(0, len(paths) - 1, 100):
            common.run([args.distbench, "history", "ingest", db, *paths[start:min(start + 100, len(paths) - 1)]],
                       "history ingest")
        bulk = time.monotonic() - began
        _, _, one = common.run([args.distbench, "history", "ingest", db, paths[-1]], "history ingest")
        began = time.monotonic()
        code, doc = check(args, db, args.max_p[0], args.min_segment[0])
        checked = time.monotonic() - began
        print(f"distbench: {args.distbench}")
        print(f"{args.runs} runs x {args.cases} cases: ingest of the first {args.runs - 1} {bulk:.1f} s "
              f"(100 files a call), of one more report {one:.3f} s (target 0.1 s); history check {checked:.2f} s "
              f"(target 5 s), exit {code}; database {os.path.getsize(db) / 1e6:.1f} MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--distbench", default=None)
    parser.add_argument("--mpirun", default="mpirun")
    sub = parser.add_subparsers(dest="what", required=True)
    c = sub.add_parser("collect")
    c.add_argument("dir")
    c.add_argument("--aa", type=int, default=300)
    c.add_argument("--histories", type=int, default=10)
    c.add_argument("--slow-mca", default="coll_tuned_use_dynamic_rules=1,coll_tuned_allreduce_algorithm=3")
    c.add_argument("sweep", nargs="*")
    s = sub.add_parser("score")
    s.add_argument("dir")
    s.add_argument("--slow-mca", default="coll_tuned_use_dynamic_rules=1,coll_tuned_allreduce_algorithm=3")
    s.add_argument("--step", type=float, default=1.10)
    for p in (s, sub.add_parser("scale")):
        p.add_argument("--max-p", type=float, nargs="+", default=[0.01, 0.001, 0.0001])
        p.add_argument("--min-segment", type=int, nargs="+", default=[2, 3, 5])
        p.add_argument("--window", type=int, default=5)
        p.add_argument("--alpha", type=float, default=0.01, help="the newest run's test (history check --alpha)")
    sc = sub.choices["scale"]
    sc.add_argument("--runs", type=int, default=1000)
    sc.add_argument("--cases", type=int, default=100)
    sc.add_argument("--template", default=None, help="a real report to copy (default: one run made here)")
    args = parser.parse_args()
    args.distbench = common.find_distbench(args.distbench)
    if args.what == "collect":
        collect(args)
    elif args.what == "score":
        score(args)
    else:
        if args.template is None:
            sys.exit("history_calibrate: scale needs --template REPORT.json (any collective report)")
        scale(args)


if __name__ == "__main__":
    main()
