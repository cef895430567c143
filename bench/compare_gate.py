#!/usr/bin/python3
"""Does `distbench compare` keep quiet on a noisy machine and catch a real slowdown? A/A and A/B on real sweeps.

    /usr/bin/python3 bench/compare_gate.py --runs 5             # 10 A/A gates of 5 runs a side, then the slowdowns
    /usr/bin/python3 bench/compare_gate.py --threshold-only     # 10 A/A pairs, one run a side, judged without a test
    /usr/bin/python3 bench/compare_gate.py --pairs 20 -- -b 8 -e 1M   # other sweep flags after --

A/A: --pairs times, --runs back-to-back runs of the same sweep (default `distbench allreduce`, 8 B .. 64 MiB, both
placements, under `mpirun --allow-run-as-root -np 2 --bind-to none`) as the baseline, then --runs more as the
candidate, compared by `distbench compare` with its default settings (time, 5 %, 1 us, alpha 0.01; the test on the
runs' medians needs 5 runs a side there), or with --threshold-only (no test: the opt-in's false-alarm rate). Each
gate that fails (exit 1) is a false alarm; the target is none. A gate that declines to judge (exit 7: too few runs
for the test) is counted apart: with one run a side and no --threshold-only, every one declines. A/B: --runs
baseline runs, then as many of candidates that are really slower: Open MPI's allreduce forced to another algorithm
through MCA parameters (`coll_tuned_use_dynamic_rules 1`, `coll_tuned_allreduce_algorithm N`: 1 basic linear, 2
nonoverlapping, 3 recursive doubling, 4 ring), and the same sweep under a competing CPU load (a busy process per
core). For each it prints the verdict counts and the exit code.

--interleaved: the gate runs both sides itself (`distbench compare --run-baseline --run-candidate --rounds R`),
--gates times A/A (the same command on both sides) and --gates times A/B (the candidate with --slow-mca, an Open MPI
setting measured to cost about 10 % at the sizes judged); prints each gate's verdicts and the counts: false alarms
among the A/A gates, catches among the A/B gates. The report-based windows (--window) and the interleaved gates are
the two ways to beat run-to-run drift; this measures both with the same sweep.

Needs only the Python standard library. Builds nothing. A benchmark to read: exits 0 whatever it finds (non-zero
only when a run itself fails).
"""

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (same folder: finding distbench, running)


def sweep(args, path, mca=()):
    cmd = common.launcher(args)
    for key, value in mca:
        cmd += ["--mca", key, value]
    cmd += [args.distbench, args.collective, "--json", path] + args.sweep
    common.run(cmd, f"distbench {args.collective}")


NOT_JUDGED = {"slower": "-", "faster": "-", "same": "-", "unknown": "-", "geomean_ratio": float("nan")}


def compare(args, base, cand):
    """base, cand: a report or a list of reports (each a run). Exit 7 (too few runs for the test) is a gate that
    declined to judge: its summary is all dashes."""
    base = base if isinstance(base, list) else [base]
    cand = cand if isinstance(cand, list) else [cand]
    only = ["--threshold-only"] if args.threshold_only else []
    proc = subprocess.run([args.distbench, "compare", *base, *cand, "--candidates", str(len(cand)), *only, "--format",
                           "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode == 7 and "too few to test" in proc.stderr:
        return proc.returncode, NOT_JUDGED, []
    if proc.returncode not in (0, 1):
        sys.exit(f"compare_gate: distbench compare failed (exit {proc.returncode}): {proc.stderr}")
    doc = json.loads(proc.stdout)
    slower = [f"{c['label']} {c['change'] * 100:+.0f}%" for c in doc["cases"] if c["verdict"] == "SLOWER"]
    return proc.returncode, doc["summary"], slower


def sweeps(args, tmp, name, count, mca=()):
    """`count` back-to-back runs of the sweep: their reports."""
    paths = [os.path.join(tmp, f"{name}-{i}.json") for i in range(count)]
    for path in paths:
        sweep(args, path, mca)
    return paths


def interleaved_gate(args, tmp, name, candidate_mca):
    """One interleaved gate: (exit code, summary, [SLOWER cases], seconds)."""
    def command(mca):
        cmd = common.launcher(args)
        for key, value in mca:
            cmd += ["--mca", key, value]
        return " ".join(cmd + [args.distbench, args.collective] + args.sweep)
    began = time.monotonic()
    proc = subprocess.run([args.distbench, "compare", "--run-baseline", command(()), "--run-candidate",
                           command(candidate_mca), "--rounds", str(args.rounds), "--runs-dir",
                           os.path.join(tmp, name), "--format", "json"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"compare_gate: distbench compare failed (exit {proc.returncode}): {proc.stderr}")
    doc = json.loads(proc.stdout)
    slower = [f"{c['label']} {c['change'] * 100:+.1f}%" for c in doc["cases"] if c["verdict"] == "SLOWER"]
    return proc.returncode, doc["summary"], slower, time.monotonic() - began


def interleaved(args, tmp):
    mca = [tuple(kv.split("=", 1)) for kv in args.slow_mca.split(",") if kv]
    print(f"interleaved gates: {args.rounds} rounds each; A/B candidate with "
          f"{' '.join(f'--mca {k} {v}' for k, v in mca)}")
    for kind, candidate_mca in (("A/A", ()), ("A/B", mca)):
        failed = 0
        for i in range(args.gates):
            rc, s, slower, took = interleaved_gate(args, tmp, f"{kind[-1]}{i}", candidate_mca)
            failed += rc == 1
            print(f"{kind} gate {i + 1:2}: exit {rc}  slower {s['slower']}, faster {s['faster']}, same {s['same']}, "
                  f"unknown {s['unknown']}; geomean {s['geomean_ratio']:.4f}; {took:.0f} s"
                  + (f"  SLOWER: {', '.join(slower)}" if slower else ""), flush=True)
        print(f"{kind}: the interleaved gate failed {failed} of {args.gates}", flush=True)


def burn(stop_at):
    while time.monotonic() < stop_at:
        pass


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--distbench", help="distbench binary (default: build/src/cli/distbench, else distbench on PATH)")
    p.add_argument("--pairs", type=int, default=10, help="A/A gates (default 10)")
    p.add_argument("--runs", type=int, default=1, help="runs a side of each A/A and A/B gate (default 1; the test at "
                   "alpha 0.01 needs 5)")
    p.add_argument("--threshold-only", action="store_true", help="compare with --threshold-only (no test): the "
                   "opt-in's false-alarm rate")
    p.add_argument("--np", type=int, default=2)
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--bind-to", default="none", help="mpirun --bind-to (default none)")
    p.add_argument("--no-slowdowns", action="store_true", help="A/A only")
    p.add_argument("--window", type=int, default=0, help="also judge windows: K baseline runs against C candidate "
                   "runs, taken from consecutive runs (with --candidates C; default 0: pairs only)")
    p.add_argument("--candidates", type=int, default=2)
    p.add_argument("--collective", default="allreduce")
    p.add_argument("--algorithms", default="1,2", help="coll_tuned_allreduce_algorithm values to try (default 1,2)")
    p.add_argument("--interleaved", action="store_true", help="only the interleaved gates (A/A, then A/B)")
    p.add_argument("--gates", type=int, default=20, help="interleaved gates of each kind (default 20)")
    p.add_argument("--rounds", type=int, default=20, help="rounds per interleaved gate (default 20, as compare)")
    p.add_argument("--slow-mca", default="coll_tuned_use_dynamic_rules=1,coll_tuned_allreduce_algorithm=2",
                   help="the A/B candidate's MCA settings, key=value,... (default: allreduce algorithm 2)")
    p.add_argument("sweep", nargs="*", help="flags for the sweep (after --)")
    args = p.parse_args()
    if args.interleaved and args.threshold_only:
        p.error("--threshold-only is for report files; the interleaved gates pair and test their rounds")
    args.distbench = common.find_distbench(args.distbench)
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    with tempfile.TemporaryDirectory(prefix="distbench-gate-") as tmp:
        if args.interleaved:
            interleaved(args, tmp)
            return
        print(f"distbench {args.collective} {' '.join(args.sweep)} at np {args.np}; distbench compare with its "
              f"defaults (time, 5%, 1 us, alpha 0.01){', --threshold-only' if args.threshold_only else ''}; "
              f"{args.runs} run(s) a side")
        failed = declined = 0
        for i in range(args.pairs):
            a, b = sweeps(args, tmp, f"a{i}", args.runs), sweeps(args, tmp, f"b{i}", args.runs)
            rc, s, slower = compare(args, a, b)
            failed += rc == 1
            declined += rc == 7
            print(f"A/A gate {i + 1:2}: exit {rc}  slower {s['slower']}, faster {s['faster']}, same {s['same']}, "
                  f"unknown {s['unknown']}; geomean {s['geomean_ratio']:.4f}"
                  + (f"  SLOWER: {', '.join(slower)}" if slower else ""), flush=True)
        print(f"A/A: the gate failed {failed} of {args.pairs} gates ({args.runs} run(s) a side; "
              f"{declined} declined to judge: too few runs)")
        if args.window > 0:
            # More runs, back to back, after the pairs; then every window of K baselines followed by C candidates.
            runs = [os.path.join(tmp, f"a{i}-0.json") for i in range(args.pairs)]
            need = args.pairs + args.window + args.candidates - 1
            for i in range(len(runs), need):
                runs.append(os.path.join(tmp, f"r{i}.json"))
                sweep(args, runs[-1])
            failed = declined = 0
            trials = need - args.window - args.candidates + 1
            for i in range(trials):
                base = runs[i:i + args.window]
                cand = runs[i + args.window:i + args.window + args.candidates]
                rc, s, slower = compare(args, base, cand)
                failed += rc == 1
                declined += rc == 7
                print(f"A/A window {i + 1:2} ({args.window} baselines, {args.candidates} candidate runs): exit {rc}  "
                      f"slower {s['slower']}, faster {s['faster']}, same {s['same']}; geomean "
                      f"{s['geomean_ratio']:.4f}" + (f"  SLOWER: {', '.join(slower)}" if slower else ""), flush=True)
            print(f"A/A windows: the gate failed {failed} of {trials} ({declined} declined to judge: too few runs)")

        if args.no_slowdowns:
            return
        base = sweeps(args, tmp, "base", args.runs)
        for algorithm in [a for a in args.algorithms.split(",") if a]:
            cand = sweeps(args, tmp, f"alg{algorithm}", args.runs,
                          [("coll_tuned_use_dynamic_rules", "1"), ("coll_tuned_allreduce_algorithm", algorithm)])
            rc, s, slower = compare(args, base, cand)
            print(f"A/B coll_tuned_allreduce_algorithm {algorithm}: exit {rc}  slower {s['slower']}, faster "
                  f"{s['faster']}, same {s['same']}; geomean {s['geomean_ratio']:.4f}", flush=True)
        stop_at = time.monotonic() + 600 * args.runs
        burners = [multiprocessing.Process(target=burn, args=(stop_at,)) for _ in range(os.cpu_count() or 1)]
        for b in burners:
            b.start()
        try:
            cand = sweeps(args, tmp, "loaded", args.runs)
        finally:
            for b in burners:
                b.terminate()
        rc, s, slower = compare(args, base, cand)
        print(f"A/B under a competing CPU load ({len(burners)} busy processes): exit {rc}  slower {s['slower']}, "
              f"faster {s['faster']}, same {s['same']}; geomean {s['geomean_ratio']:.4f}")


if __name__ == "__main__":
    main()
