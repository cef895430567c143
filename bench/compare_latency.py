#!/usr/bin/python3
"""Compare distbench latency's one-way ping-pong times with OSU Micro-Benchmarks' osu_latency, interleaved, in one go.

    /usr/bin/python3 bench/compare_latency.py                       # 1 B .. 4 MiB, 5 rounds
    /usr/bin/python3 bench/compare_latency.py --rounds 7 --keep /tmp/latency-runs
    /usr/bin/python3 bench/compare_latency.py --osu /opt/osu/libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency

For each round it runs, under `mpirun --allow-run-as-root -np 2 --bind-to core`,
    distbench latency -b 1 -e 4M -f 2 --json X
    osu_latency -m 1:4194304
alternating which goes first from round to round. Both double the size from -b to -e. Both report the one-way
time as half a round trip averaged over many round trips: distbench's `latency_us` (the mean over ranks of each
rank's mean over its samples, each sample k back-to-back round trips timed as one) and OSU's "Avg Latency(us)"
(rank 0's total over its timed iterations, each one round trip timed on its own, divided by twice the
iterations). osu_latency keeps its own defaults: 10000 timed iterations after 100 warm-up ones up to 8 KiB, 1000
after 10 above. distbench keeps its own too: 5 warm-up round trips, a calibration that sets k so that a sample
lasts about 0.5 ms, then 20 samples (fewer, never below 10, where they would outlast 0.05 s). Per size the
script keeps, for each tool, the median over rounds, and prints distbench / OSU; `ratio(med)` divides distbench's
median sample (`latency_median_us`, median over rounds) by the same OSU mean, for reference (OSU prints no median
without -z). `ratio(pair)` is the median over rounds of each round's own distbench / OSU: the two runs of a round
follow each other within seconds, so a machine mode that lasts a minute (every tool 3x slower, then back) moves
both sides of a pair alike, where it moves a median over rounds by whatever share of rounds it caught; `spread` is
the largest over the smallest of those per-round ratios.

What each times: osu_latency is MPI_Send then MPI_Recv on rank 0 and MPI_Recv then MPI_Send on rank 1 in
MPI_COMM_WORLD, MPI_CHAR, one buffer each way (s_buf, r_buf), a clock read around every round trip, no barrier
inside the timed loop. distbench's MPI backend makes the same calls: MPI_Send then MPI_Recv on the pair's first
rank, MPI_Recv then MPI_Send on the second, MPI_BYTE, from a send buffer into a separate receive buffer, on the
pair's own communicator (split from MPI_COMM_WORLD), and checks every received message once after sampling
(untimed). What differs is the clock: a read around k back-to-back round trips per sample instead of around each
one. OSU prints two decimals, so sub-microsecond rows carry up to about 2 % rounding in its column.

--np N > 2 gives distbench N/2 pairs at once (rank pairs 0-1, 2-3, ...); osu_latency only runs on two ranks, so
it stays at -np 2 and the table then compares N/2 concurrent pairs against one.

Needs only the Python standard library and an osu_latency binary (OSU Micro-Benchmarks 5.x-7.x; build it outside
this tree, e.g. `mpicc -O2 -DPACKAGE_VERSION='"7.4"' -Ic/util c/mpi/pt2pt/standard/osu_latency.c c/util/osu_util.c
c/util/osu_util_mpi.c c/util/osu_util_graph.c c/util/osu_util_papi.c -lm -o /tmp/peers/osu/osu_latency` in OSU
7.4's source). Builds nothing: build distbench first. This is a benchmark to read, not a test: it exits 0 whatever
the ratios are (non-zero only when a run fails).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (same folder: size parsing, formatting, running, --keep)

MiB = 1 << 20
DEFAULT_OSU = "/tmp/peers/osu/osu_latency"
OSU_HEADER = re.compile(r"#\s*(OSU MPI.*Latency Test\S*\s+v?\S+)")
OSU_ROW = re.compile(r"^\s*(\d+)\s+([0-9.]+(?:[eE][-+]?\d+)?)\b")


def find_osu(given):
    path = given or DEFAULT_OSU
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        sys.exit(f"compare_latency: no osu_latency binary at {path}; build it from OSU Micro-Benchmarks' source "
                 f"(see this script's --help) and pass --osu PATH")
    return os.path.abspath(path)


def run_distbench(args, tmpdir, rnd):
    """{bytes: {mean, median, k}}, wrong bytes, wall seconds of one `distbench latency` sweep."""
    report = os.path.join(tmpdir, "latency.json")
    cmd = common.launcher(args) + [args.distbench, "latency", "-b", str(args.minbytes), "-e", str(args.maxbytes),
                                   "-f", "2", "--json", report]
    _, _, wall = common.run(cmd, "distbench latency")
    with open(report) as f:
        text = f.read()
    common.keep(args, f"round{rnd + 1}-distbench.json", text)
    doc = json.loads(text)
    if doc.get("status") != "complete":
        sys.exit(f"compare_latency: distbench latency report status is {doc.get('status')!r}: {doc.get('error')}")
    cases, wrong = {}, 0
    for rec in doc["records"]:
        if rec.get("status") != "ok":
            continue
        m = rec["metrics"]
        cases[int(rec["params"]["bytes"])] = {"mean": float(m["latency_us"]), "median": float(m["latency_median_us"]),
                                              "k": int(rec["ops_per_sample"])}
        wrong += max(int(m.get("wrong") or 0), 0)  # null: not checked
    if not cases:
        sys.exit("compare_latency: distbench latency's report has no measured size")
    return cases, wrong, wall


def run_osu(args, rnd):
    """{bytes: {mean}}, OSU's header line, wall seconds of one osu_latency run."""
    two = argparse.Namespace(**{**vars(args), "np": 2})  # osu_latency runs on exactly two ranks
    cmd = common.launcher(two) + [args.osu, "-m", f"{args.minbytes}:{args.maxbytes}"]
    out, _, wall = common.run(cmd, "osu_latency")
    common.keep(args, f"round{rnd + 1}-osu.txt", out)
    cases, header = {}, None
    for line in out.splitlines():
        if line.lstrip().startswith("#"):
            m = OSU_HEADER.match(line.strip())
            if m and header is None:
                header = m.group(1)
            continue
        m = OSU_ROW.match(line)
        if m:
            cases[int(m.group(1))] = {"mean": float(m.group(2))}
    if not cases:
        sys.exit(f"compare_latency: osu_latency printed no size rows:\n{out[-2000:]}")
    return cases, header, wall


def measure(args):
    tools = ("distbench", "osu")
    runs = {t: {} for t in tools}  # runs[tool][bytes] -> list of per-round dicts
    walls = {t: [] for t in tools}
    last_k = {}
    wrong, header = 0, None
    with tempfile.TemporaryDirectory(prefix="distbench-vs-osu-") as tmpdir:
        for rnd in range(args.rounds):
            order = tools if rnd % 2 == 0 else tuple(reversed(tools))
            for part in common.sweep_parts(args):
                for tool in order:
                    if tool == "distbench":
                        cases, w, wall = run_distbench(part, tmpdir, rnd)
                        wrong += w
                        last_k.update({size: c["k"] for size, c in cases.items()})
                    else:
                        cases, h, wall = run_osu(part, rnd)
                        header = header or h
                    walls[tool].append(wall)
                    for size, c in cases.items():
                        runs[tool].setdefault(size, []).append(c)
                    print(f"# round {rnd + 1}/{args.rounds} {tool:<9} {wall:6.1f} s", file=sys.stderr, flush=True)
    return runs, walls, last_k, wrong, header


def report(args, runs, walls, last_k, wrong, header):
    d, o = runs["distbench"], runs["osu"]
    print(f"distbench latency vs OSU osu_latency, one-way time (us) = half a round trip, median over {args.rounds} "
          f"interleaved rounds")
    print(f"distbench: {args.distbench} (np={args.np}, {args.np // 2} pair{'s' if args.np > 2 else ''} at once)")
    print(f"osu:       {args.osu} (np=2; {header or 'version not printed'})")
    print("'distbench us' = latency_us (mean over samples, OSU's figure); 'median us' = latency_median_us; "
          "'osu us' = OSU's Avg Latency; 'ratio' = distbench / osu; 'ratio(med)' = distbench median / osu; "
          "'ratio(pair)' = median over rounds of that round's distbench / osu, 'spread' = their max / min; "
          "'k' = round trips per sample in the last distbench report")
    print()
    print(f"{'size':>10} {'bytes':>10} {'k':>6} {'distbench us':>13} {'median us':>10} {'osu us':>10} "
          f"{'ratio':>7} {'ratio(med)':>10} {'ratio(pair)':>11} {'spread':>7}")
    ratios, med_ratios, pair_ratios = [], [], []
    for size in sorted(set(d) | set(o)):
        if size not in d or size not in o:
            print(f"{common.format_bytes(size):>10} {size:>10}  only {'distbench' if size in d else 'osu'} "
                  f"ran this size")
            continue
        td = statistics.median(r["mean"] for r in d[size])
        tm = statistics.median(r["median"] for r in d[size])
        to = statistics.median(r["mean"] for r in o[size])
        ratio = td / to if to > 0 else float("inf")
        ratio_med = tm / to if to > 0 else float("inf")
        ratio_pair, spread = common.paired_ratio([r["mean"] for r in d[size]], [r["mean"] for r in o[size]])
        ratios.append((ratio, size))
        med_ratios.append((ratio_med, size))
        pair_ratios.append((ratio_pair, size))
        print(f"{common.format_bytes(size):>10} {size:>10} {last_k.get(size, 0):>6} {td:>13.3f} {tm:>10.3f} "
              f"{to:>10.2f} {ratio:>7.3f} {ratio_med:>10.3f} {ratio_pair:>11.3f} {spread:>7.2f}")
    print()
    for label, rs in (("ratio", ratios), ("ratio(med)", med_ratios), ("ratio(pair)", pair_ratios)):
        if rs:
            (worst, at), (best, best_at) = max(rs), min(rs)
            print(f"{label}: max {worst:.3f} ({common.format_bytes(at)}), "
                  f"median {statistics.median(r for r, _ in rs):.3f}, min {best:.3f} ({common.format_bytes(best_at)}) "
                  f"over {len(rs)} sizes")
    print(f"wall time per run (s, incl. mpirun start-up): {common.wall_summary(walls)}")
    if wrong:
        print(f"WARNING: distbench found {wrong} wrong bytes (osu_latency does not verify without -c)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--distbench", help="distbench binary (default: build/src/cli/distbench, else distbench on PATH)")
    p.add_argument("--osu", help=f"osu_latency binary (default: {DEFAULT_OSU})")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the median over rounds is compared")
    p.add_argument("--np", type=int, default=2,
                   help="distbench's ranks, an even number (default 2); osu_latency always runs on 2")
    p.add_argument("-b", "--minbytes", type=common.parse_size, default=1, help="smallest message, both tools (1)")
    p.add_argument("-e", "--maxbytes", type=common.parse_size, default=4 * MiB,
                   help="largest message, both tools (4M, osu_latency's default)")
    p.add_argument("--size-per-run", action="store_true",
                   help="launch both tools once per size (-b S -e S, osu_latency -m S:S) instead of once per sweep, "
                        "back to back, so that a pair's runs lie a second apart (one mpirun start-up per size and "
                        "tool; each tool keeps its own warm-up per size either way)")
    p.add_argument("--keep", metavar="DIR",
                   help="keep every run's raw output (distbench JSON, osu_latency stdout) here")
    p.add_argument("--no-aslr", action="store_true",
                   help="start every job without address-space randomisation (setarch -R), in every tool alike: "
                        "small-message times then vary far less from run to run (bench/README.md)")
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--bind-to", default="core", choices=("core", "none"),
                   help="mpirun --bind-to (default core: each rank keeps its core; with none, where the scheduler "
                        "puts the two ranks changes small-message times by 2x from run to run on a 2-core VM)")
    args = p.parse_args()

    if args.rounds < 1 or args.np < 2 or args.np % 2 != 0:
        p.error("need --rounds >= 1 and an even --np >= 2")
    if args.minbytes < 1 or args.maxbytes < args.minbytes:
        p.error("need 1 <= -b <= -e")
    args.distbench = common.find_distbench(args.distbench)
    if subprocess.run([args.distbench, "latency", "--help"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        sys.exit(f"compare_latency: {args.distbench} has no latency command (an older install on PATH?); pass "
                 f"--distbench {os.path.join(common.ROOT, 'build', 'src', 'cli', 'distbench')}")
    args.osu = find_osu(args.osu)
    if shutil.which(args.mpirun) is None:
        sys.exit(f"compare_latency: {args.mpirun} not found (apt-get install openmpi-bin)")

    began = time.monotonic()
    report(args, *measure(args))
    print(f"\ntotal wall time {time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
