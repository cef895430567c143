#!/usr/bin/python3
"""Compare distbench's MPI timings with the same collectives timed through mpi4py, interleaved, in one go.

    /usr/bin/python3 bench/compare_mpi4py.py --rounds 3 --memory

For each round and each collective (allreduce, reduce-scatter, allgather) it runs the distbench sweep
(--placement out-of-place -d float32 -o sum -b 8 -e 64M -f 2 -n 20 -w 5) and bench/mpi4py_peer.py over the same
sizes, both under `mpirun --allow-run-as-root -np 2 --bind-to none`, alternating which of the two goes first from
one round to the next. -n is passed explicitly to both, so both take exactly that many samples per size (distbench
plans no sampling budget then); each calibrates its own k (samples of about 0.5 ms, the peer copying distbench's
calibration). Per size it keeps the median over rounds of each tool's time (the mean time per operation,
averaged over ranks: distbench's time_shown_us) and prints distbench / mpi4py. A ratio <= 1.0 means distbench
adds nothing over a thin MPI wrapper. With --memory it also measures the peak resident memory of each rank of
`distbench allreduce -b 8 -e S` with /usr/bin/time -v, for S in 64M and 256M, against 4*S + 64 MiB.

The environment reaches both tools (mpirun passes it to local ranks): run the script with
GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296 to stop the per-call page faults of
Open MPI's reduction temporaries in both (what distbench's --malloc-reuse does); add --peer-page-offset 16 then, or
the peer's large buffers move into the heap while distbench's stay where malloc puts them by default.

Needs only the Python standard library (the peer needs Debian's python3-mpi4py). Builds nothing.
This is a benchmark to read, not a test: it exits 0 whatever the ratios are (non-zero only when a run fails).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # noqa: E402  (same folder: what the bench scripts share)
    COLLECTIVES, PEER, MiB, find_distbench, format_bytes, keep, launcher, parse_size, report_cases, run, run_peer,
    sweep_flags)


def run_distbench(args, collective, tmpdir, rnd):
    report = os.path.join(tmpdir, f"{collective}.json")
    cmd = launcher(args) + [args.distbench, collective, "--placement", "out-of-place", "-d", "float32", "-o", "sum",
                            "--json", report] + sweep_flags(args)
    _, _, wall = run(cmd, f"distbench {collective}")
    with open(report) as f:
        text = f.read()
    keep(args, f"round{rnd + 1}-{collective}-distbench.json", text)
    doc = json.loads(text)
    times, wrong = {}, 0
    for r in report_cases(doc):
        if r.get("placement") != "out-of-place":
            continue
        times[int(r["bytes"])] = (float(r["time_shown_us"]), float(r["time_us"]["median"]))
        wrong += max(int(r.get("wrong") or 0), 0)  # -1 or null: not checked
    return times, wrong, wall


def compare(args):
    # results[collective][tool][bytes] -> per-round (mean, median) us; walls[collective][tool] -> list of seconds
    results = {c: {"distbench": {}, "mpi4py": {}} for c in args.collectives}
    walls = {c: {"distbench": [], "mpi4py": []} for c in args.collectives}
    wrong = {"distbench": 0, "mpi4py": 0}
    with tempfile.TemporaryDirectory(prefix="distbench-vs-mpi4py-") as tmpdir:
        for rnd in range(args.rounds):
            order = ("distbench", "mpi4py") if rnd % 2 == 0 else ("mpi4py", "distbench")
            for c in args.collectives:
                for tool in order:
                    if tool == "distbench":
                        times, w, wall = run_distbench(args, c, tmpdir, rnd)
                    else:
                        times, w, wall = run_peer(args, c, rnd)
                    wrong[tool] += w
                    walls[c][tool].append(wall)
                    for size, t in times.items():
                        results[c][tool].setdefault(size, []).append(t)
                    print(f"# round {rnd + 1}/{args.rounds} {c:<14} {tool:<9} {wall:6.1f} s", file=sys.stderr,
                          flush=True)

    primary = 0 if args.stat == "mean" else 1  # index into each run's (mean, median) pair
    stat = "mean time per op" if args.stat == "mean" else "median sample"
    print(f"distbench vs mpi4py, np={args.np}, float32 sum out-of-place, {stat} (us), median of {args.rounds} "
          f"interleaved rounds")
    print(f"distbench: {args.distbench}")
    if args.peer_page_offset >= 0:
        print(f"mpi4py peer buffers: mmap, {args.peer_page_offset} bytes after a page boundary")
    else:
        print("mpi4py peer buffers: array.array (malloc)")
    print(f"'ratio' = distbench / mpi4py of the {stat}; 'ratio(other)' = the same with the "
          f"{'median sample' if primary == 0 else 'mean time per op'} of each run, for reference")
    worst = [(0.0, None, None), (0.0, None, None)]
    over, total = [0, 0], 0
    for c in args.collectives:
        print()
        print(f"## {c}")
        print(f"{'size':>10} {'bytes':>10} {'distbench us':>13} {'mpi4py us':>12} {'ratio':>7}      {'ratio(other)':>12}")
        d, m = results[c]["distbench"], results[c]["mpi4py"]
        for size in sorted(set(d) | set(m)):
            if size not in d or size not in m:
                print(f"{format_bytes(size):>10} {size:>10}  only one tool ran this size")
                continue
            total += 1
            ratios = []
            for k in (primary, 1 - primary):
                td = statistics.median(run[k] for run in d[size])
                tm = statistics.median(run[k] for run in m[size])
                ratio = td / tm if tm > 0 else float("inf")
                ratios.append((td, tm, ratio))
                which = 0 if k == primary else 1
                if ratio > 1.0:
                    over[which] += 1
                if ratio > worst[which][0]:
                    worst[which] = (ratio, c, size)
            td, tm, ratio = ratios[0]
            flag = " > 1" if ratio > 1.0 else ""
            print(f"{format_bytes(size):>10} {size:>10} {td:>13.2f} {tm:>12.2f} {ratio:>7.3f} {flag:<4} "
                  f"{ratios[1][2]:>12.3f}")
        wd = ", ".join(f"{w:.1f}" for w in walls[c]["distbench"])
        wm = ", ".join(f"{w:.1f}" for w in walls[c]["mpi4py"])
        print(f"wall time per sweep (s, incl. mpirun start-up): distbench {wd}; mpi4py {wm}")

    print()
    other = "median sample" if primary == 0 else "mean time per op"
    for which, label in ((0, stat), (1, other)):
        r, c, size = worst[which]
        if c is not None:
            print(f"max ratio{'' if which == 0 else ' (' + other + ')'} {r:.3f} ({c} {format_bytes(size)}); "
                  f"{over[which]} of {total} sizes exceed 1.0")
    all_d = [w for c in args.collectives for w in walls[c]["distbench"]]
    print(f"distbench sweep wall time: max {max(all_d):.1f} s, mean {statistics.mean(all_d):.1f} s "
          f"(over {len(all_d)} sweeps)")
    if wrong["distbench"] or wrong["mpi4py"]:
        print(f"WARNING: wrong result elements: distbench {wrong['distbench']}, mpi4py {wrong['mpi4py']}")


MAXRSS = re.compile(r"Maximum resident set size \(kbytes\):\s*(\d+)")

# Each rank runs `/usr/bin/time -v -o DIR/time.RANK PROGRAM...`: one report file per rank, so the ranks' reports
# cannot interleave on mpirun's forwarded stderr (which splits unbuffered writes).
RANK_WRAPPER = ('r="${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-$$}}}"; '
                'exec "$1" -v -o "$0/time.$r" "${@:2}"')


def peak_rss(args, argv, what, tmpdir):
    """Peak resident set size in MiB of each rank of `argv` run under mpirun and /usr/bin/time -v."""
    outdir = tempfile.mkdtemp(prefix="rss-", dir=tmpdir)
    cmd = launcher(args) + ["bash", "-c", RANK_WRAPPER, outdir, args.time] + argv
    _, _, wall = run(cmd, what)
    peaks = {}
    for name in sorted(os.listdir(outdir)):
        with open(os.path.join(outdir, name)) as f:
            m = MAXRSS.search(f.read())
        if m:
            peaks[name.split(".", 1)[1]] = int(m.group(1)) / 1024.0
    if len(peaks) != args.np:
        sys.exit(f"compare_mpi4py: found {len(peaks)} 'Maximum resident set size' reports for {args.np} ranks "
                 f"of {what} in {outdir}")
    return peaks, wall


def memory(args):
    print()
    print(f"## peak memory per rank (/usr/bin/time -v), allreduce float32 out-of-place, sweep from 8 B to S; "
          f"bound 4*S + 64 MiB")
    print(f"{'tool':<10} {'S':>8} {'rank':>5} {'peak MiB':>10} {'bound MiB':>10} {'':>6}  wall s")
    exceeded = 0
    with tempfile.TemporaryDirectory(prefix="distbench-memory-") as tmpdir:
        for size in args.memory_sizes:
            bound = (4 * size + 64 * MiB) / MiB
            tools = [("distbench", [args.distbench, "allreduce", "-b", "8", "-e", str(size), "--placement",
                                    "out-of-place", "-d", "float32", "-o", "sum"])]
            if args.memory_peer:
                tools.append(("mpi4py", [args.python, PEER, "allreduce", "-b", "8", "-e", str(size)]))
            for tool, argv in tools:
                peaks, wall = peak_rss(args, argv, f"{tool} --memory {format_bytes(size)}", tmpdir)
                for rank in sorted(peaks, key=lambda r: int(r) if r.isdigit() else r):
                    ok = peaks[rank] <= bound
                    if tool == "distbench" and not ok:
                        exceeded += 1
                    print(f"{tool:<10} {format_bytes(size):>8} {rank:>5} {peaks[rank]:>10.1f} {bound:>10.1f} "
                          f"{'ok' if ok else 'OVER':>6}  {wall:.1f}")
    print(f"distbench ranks over the bound: {exceeded}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--distbench", help="distbench binary (default: build/src/cli/distbench, else distbench on PATH)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the median over rounds is compared")
    p.add_argument("--collectives", default=",".join(COLLECTIVES),
                   help="comma-separated subset of " + ", ".join(COLLECTIVES))
    p.add_argument("--np", type=int, default=2, help="ranks (default 2)")
    p.add_argument("-b", "--minbytes", type=parse_size, default=8)
    p.add_argument("-e", "--maxbytes", type=parse_size, default=64 * MiB)
    p.add_argument("-f", "--stepfactor", type=float, default=2.0)
    p.add_argument("-n", "--iters", type=int, default=20, help="samples per size, both tools: exactly this many (default 20)")
    p.add_argument("-w", "--warmup", type=int, default=5, help="warm-up operations, both tools (default 5)")
    p.add_argument("--stat", choices=("mean", "median"), default="mean",
                   help="per-run time: mean over samples (distbench's shown time, default) or median sample")
    p.add_argument("--memory", action="store_true", help="also measure peak memory per rank (/usr/bin/time -v)")
    p.add_argument("--memory-sizes", default="64M,256M", help="largest sizes S of the --memory sweeps")
    p.add_argument("--memory-peer", action="store_true", help="with --memory, also measure the mpi4py peer")
    p.add_argument("--peer-page-offset", type=int, default=-1, metavar="BYTES",
                   help="give the peer mmap buffers starting BYTES after a page boundary (0: page-aligned; 16: "
                        "where malloc and distbench put large buffers); default -1: array.array from malloc")
    p.add_argument("--mpi-thread", default="single", choices=("single", "funneled", "serialized", "multiple"),
                   help="MPI's thread level in both tools (default single, as IMB and OSU run)")
    p.add_argument("--keep", metavar="DIR", help="keep every run's raw output (distbench JSON, peer JSON lines) here")
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--python", default="/usr/bin/python3", help="interpreter with mpi4py for the peer")
    p.add_argument("--time", default="/usr/bin/time", help="GNU time, for --memory")
    args = p.parse_args()

    args.collectives = [c.strip() for c in args.collectives.split(",") if c.strip()]
    bad = [c for c in args.collectives if c not in COLLECTIVES]
    if bad or not args.collectives:
        p.error(f"--collectives takes {', '.join(COLLECTIVES)}")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    args.memory_sizes = [parse_size(s) for s in args.memory_sizes.split(",") if s.strip()]
    args.distbench = find_distbench(args.distbench)
    if shutil.which(args.mpirun) is None:
        sys.exit(f"compare_mpi4py: {args.mpirun} not found (apt-get install openmpi-bin)")

    began = time.monotonic()
    compare(args)
    if args.memory:
        memory(args)
    print(f"\ntotal wall time {time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
