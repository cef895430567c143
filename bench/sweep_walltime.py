#!/usr/bin/python3
"""Wall time of a whole allreduce sweep: distbench against Intel MPI Benchmarks (IMB-MPI1), interleaved.

    /usr/bin/python3 bench/sweep_walltime.py --imb /tmp/peers/imb/IMB-MPI1 --rounds 3

Each round runs, under `mpirun --allow-run-as-root -np 2 --bind-to none`,
    IMB-MPI1 Allreduce                                             (IMB's defaults: 0 B .. 4 MiB, float sum)
    distbench allreduce -b 8 -e 4M --placement out-of-place --json X   (distbench's defaults otherwise)
alternating which goes first, and records each job's wall time (mpirun start-up and teardown included). It
prints every time, the median of each tool and the ratio distbench / IMB, plus what each sweep timed: IMB's
sizes and repetitions (from its table) and distbench's sizes, operations per sample and samples (from its JSON).
distbench's defaults, per size: 5 warm-up calls, a calibration choosing k calls per sample so that a sample lasts
about 0.5 ms, 20 samples (fewer, never below 10, when they would outlast 0.05 s of sampling: no -n is passed)
and a verification call.

IMB is not part of this repository and nothing here builds it: build IMB-MPI1 by hand from its public source
(github.com/intel/mpi-benchmarks) outside the repository; see bench/README.md. Needs only the Python standard
library. A benchmark to read, not a test: exits 0 whatever the times are (non-zero only when a run fails).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (same folder: finding distbench, mpirun command, running)

# One row of IMB's result table for a collective: "#bytes #repetitions t_min t_max t_avg".
IMB_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def run_imb(args):
    out, _, wall = common.run(common.launcher(args) + [args.imb] + args.imb_args, "IMB-MPI1")
    rows = [(int(m.group(1)), int(m.group(2)), float(m.group(5)))
            for m in map(IMB_ROW.match, out.splitlines()) if m]
    return wall, rows


def run_distbench(args, report):
    cmd = common.launcher(args) + [args.distbench] + args.distbench_args + ["--json", report]
    _, _, wall = common.run(cmd, "distbench")
    with open(report) as f:
        doc = json.load(f)
    rows = [(int(r["bytes"]), int(r["ops_per_sample"]), int(r["time_us"]["samples"]), float(r["time_shown_us"]))
            for r in common.report_cases(doc)]
    return wall, rows, doc["config"].get("warmup_iters")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--imb", default="/tmp/peers/imb/IMB-MPI1", help="IMB-MPI1 binary (default %(default)s)")
    p.add_argument("--distbench", help="distbench binary (default: build/src/cli/distbench, else distbench on PATH)")
    p.add_argument("--rounds", type=int, default=3, help="runs of each tool, interleaved (default 3)")
    p.add_argument("--np", type=int, default=2, help="ranks (default 2)")
    p.add_argument("--imb-args", default="Allreduce", help="IMB-MPI1 arguments (default: %(default)s)")
    p.add_argument("--distbench-args", default="allreduce -b 8 -e 4M --placement out-of-place",
                   help="distbench arguments, --json is added (default: %(default)s)")
    p.add_argument("--mpirun", default="mpirun")
    args = p.parse_args()
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    if not (os.path.isfile(args.imb) and os.access(args.imb, os.X_OK)):
        sys.exit(f"sweep_walltime: no IMB-MPI1 at {args.imb}; build it from github.com/intel/mpi-benchmarks outside "
                 f"the repository (bench/README.md) or pass --imb PATH")
    args.distbench = common.find_distbench(args.distbench)
    if shutil.which(args.mpirun) is None:
        sys.exit(f"sweep_walltime: {args.mpirun} not found (apt-get install openmpi-bin)")
    args.imb_args = args.imb_args.split()
    args.distbench_args = args.distbench_args.split()

    walls = {"distbench": [], "imb": []}
    imb_rows, dist_rows, warmup = [], [], None
    with tempfile.TemporaryDirectory(prefix="distbench-walltime-") as tmpdir:
        report = os.path.join(tmpdir, "report.json")
        for rnd in range(args.rounds):
            order = ("distbench", "imb") if rnd % 2 == 0 else ("imb", "distbench")
            for tool in order:
                if tool == "imb":
                    wall, imb_rows = run_imb(args)
                else:
                    wall, dist_rows, warmup = run_distbench(args, report)
                walls[tool].append(wall)
                print(f"# round {rnd + 1}/{args.rounds} {tool:<9} {wall:6.2f} s", file=sys.stderr, flush=True)

    launch = " ".join(common.launcher(args))
    print(f"sweep wall time, {launch}, {args.rounds} interleaved rounds (s, mpirun start-up included)")
    print(f"distbench: {args.distbench} {' '.join(args.distbench_args)}")
    print(f"IMB:       {args.imb} {' '.join(args.imb_args)}")
    print()
    for tool, label in (("distbench", "distbench"), ("imb", "IMB-MPI1")):
        print(f"{label:<10} " + " ".join(f"{w:6.2f}" for w in walls[tool]) +
              f"   median {statistics.median(walls[tool]):6.2f}")
    ratio = statistics.median(walls["distbench"]) / statistics.median(walls["imb"])
    print(f"ratio distbench / IMB (medians): {ratio:.2f}")
    print()
    if imb_rows:
        reps = sorted({r for _, r, _ in imb_rows})
        print(f"IMB (last run): {len(imb_rows)} sizes, {common.format_bytes(imb_rows[0][0])} .. "
              f"{common.format_bytes(imb_rows[-1][0])}; repetitions per size "
              + ", ".join(f"{common.format_bytes(b)}: {r}" for b, r, _ in imb_rows)
              + f"; {sum(r for _, r, _ in imb_rows)} timed calls in all (distinct counts: {reps})")
    if dist_rows:
        timed = sum(k * n for _, k, n, _ in dist_rows)
        print(f"distbench (last run): {len(dist_rows)} sizes, {common.format_bytes(dist_rows[0][0])} .. "
              f"{common.format_bytes(dist_rows[-1][0])}; ops per sample x samples per size "
              + ", ".join(f"{common.format_bytes(b)}: {k}x{n}" for b, k, n, _ in dist_rows)
              + f"; {timed} timed calls in all, plus {warmup} warm-up calls and a calibration per size, and a "
                f"verification call per size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
