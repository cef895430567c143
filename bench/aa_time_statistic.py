#!/usr/bin/env python3
"""Which time statistic is steadiest from run to run? The same small sweep A/A (np 2, allreduce, out of place),
several times over: each round one run timed by samples (--timing sampled, the JSON's samples) and one timed as
nccl-tests times (--timing nccl-tests, one timed block per case). Per statistic and size, the spread between runs is
the largest value over the smallest; the script prints per statistic the median of that spread over sizes, the worst
size's, and the size where it was worst. A statistic that one preempted sample can move shows a large spread on a
busy machine.

Statistics: the mean of the samples (the table's time before the median became the headline), the median, the
trimmed mean (10% cut from each end), the interquartile mean ((n+1)//4 samples cut from each end, as distbench's
Summary::iqm), and nccl-tests' block time (the row's time under --timing nccl-tests: its timed blocks of many
iterations, as one long block, averaged over ranks).

    python3 bench/aa_time_statistic.py --runs 6                    # np 2, allreduce 8 B .. 1 MiB
    python3 bench/aa_time_statistic.py --runs 8 -e 64K --keep /tmp/aa
    python3 bench/aa_time_statistic.py --from /tmp/aa                # the figures of kept runs again

Only the Python standard library.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

import common


def trimmed_mean(xs, cut):
    """The mean after removing floor(cut * n) samples from each end (none when that leaves nothing)."""
    xs = sorted(xs)
    k = int(cut * len(xs))
    if 2 * k >= len(xs):
        k = 0
    kept = xs[k:len(xs) - k]
    return sum(kept) / len(kept)


def interquartile_mean(xs):
    """distbench's Summary::iqm: (n+1)//4 samples left out at each end (the median for n <= 3)."""
    xs = sorted(xs)
    k = (len(xs) + 1) // 4
    kept = xs[k:len(xs) - k]
    return sum(kept) / len(kept)


STATISTICS = {
    "mean": lambda xs: sum(xs) / len(xs),
    "median": statistics.median,
    "trimmed 10%": lambda xs: trimmed_mean(xs, 0.10),
    "interquartile mean": interquartile_mean,
}
BLOCK = "nccl-tests block"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--runs", type=int, default=6, help="rounds (each: one sampled run and one nccl-tests run)")
    p.add_argument("--np", type=int, default=2)
    p.add_argument("-b", "--minbytes", type=common.parse_size, default=8)
    p.add_argument("-e", "--maxbytes", type=common.parse_size, default=1 << 20)
    p.add_argument("--collective", default="allreduce")
    p.add_argument("--distbench", help="the binary (default: this tree's build, then PATH)")
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--keep", help="folder to keep each run's JSON report in")
    p.add_argument("--from", dest="source", help="read the runs kept in this folder (--keep) instead of running")
    return p.parse_args()


def one_run(args, exe, timing, folder, name, influence):
    path = os.path.join(folder, name)
    if not args.source:
        cmd = common.launcher(args) + ["--mca", "mpi_yield_when_idle", "1", exe, args.collective,
                                       "-b", str(args.minbytes), "-e", str(args.maxbytes),
                                       "--placement", "out-of-place", "--timing", timing, "--json", path]
        common.run(cmd, f"distbench {timing}")
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for rec in doc["records"]:
        if rec["status"] != "ok":
            continue
        size = rec["params"]["bytes"]
        if timing == "nccl-tests":
            out[size] = {BLOCK: rec["metrics"]["time_us"]}
        else:
            samples = next(p for p in rec["phases"] if p["name"] == "time")["samples_us"]
            out[size] = {k: f(samples) for k, f in STATISTICS.items()}
            preempted = statistics.median(samples) * 100
            for k, f in STATISTICS.items():
                moved = max(f(samples[:i] + [preempted] + samples[i + 1:]) for i in range(len(samples)))
                influence.setdefault(k, []).append(moved / out[size][k])
    return out


def main():
    args = parse_args()
    exe = args.source or common.find_distbench(args.distbench)
    print(f"# {common.PROG}: {exe}, np {args.np}, {args.collective} out of place, "
          f"{common.format_bytes(args.minbytes)} .. {common.format_bytes(args.maxbytes)}, {args.runs} runs each")
    values = {}  # statistic -> size -> [value per run]
    influence = {}  # statistic -> [how far one preempted sample moved it, per case]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.source or args.keep or tmp
        os.makedirs(folder, exist_ok=True)
        for rnd in range(args.runs):
            for timing in ("sampled", "nccl-tests"):
                name = f"run{rnd + 1}-{timing}.json"
                for size, stats in one_run(args, exe, timing, folder, name, influence).items():
                    for k, v in stats.items():
                        values.setdefault(k, {}).setdefault(size, []).append(v)
            print(f"# round {rnd + 1} of {args.runs} done", file=sys.stderr)
    print(f"{'statistic':<20} {'median max/min':>15} {'worst max/min':>14} {'at size':>10}")
    for k in list(STATISTICS) + [BLOCK]:
        spreads = {s: max(v) / min(v) for s, v in values.get(k, {}).items() if v and min(v) > 0}
        if not spreads:
            continue
        worst = max(spreads, key=spreads.get)
        print(f"{k:<20} {statistics.median(spreads.values()):>15.2f} {spreads[worst]:>14.2f} "
              f"{common.format_bytes(worst):>10}")
    print("# one sample of a case replaced by 100 x its median: the statistic's new value / its old")
    print(f"{'statistic':<20} {'median':>15} {'worst':>14}")
    for k, moved in influence.items():
        print(f"{k:<20} {statistics.median(moved):>15.2f} {max(moved):>14.2f}")
    print("# per size (max/min over runs):")
    sizes = sorted(next(iter(values.values())))
    print(f"{'size':>10} " + " ".join(f"{k[:12]:>12}" for k in list(STATISTICS) + [BLOCK]))
    for s in sizes:
        cells = []
        for k in list(STATISTICS) + [BLOCK]:
            v = values.get(k, {}).get(s, [])
            cells.append(f"{max(v) / min(v):>12.2f}" if v and min(v) > 0 else f"{'-':>12}")
        print(f"{common.format_bytes(s):>10} " + " ".join(cells))


if __name__ == "__main__":
    main()
