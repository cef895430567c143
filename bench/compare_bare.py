#!/usr/bin/python3
"""Compare distbench's MPI timings with a bare C++ loop that calls MPI directly, interleaved, in one go.

    /usr/bin/python3 bench/compare_bare.py                  # 9 collectives, 8 B .. 16 MiB, 5 rounds
    /usr/bin/python3 bench/compare_bare.py --placement in-place --rounds 7
    /usr/bin/python3 bench/compare_bare.py --collectives allreduce,allgather --mpi4py

For each round and collective it runs, under `mpirun --allow-run-as-root -np 2 --bind-to core`,
    distbench COLL --placement P -d float32 -o sum -b 8 -e 16M -f 2 -n 20 -w 5 --json X
and bench/bare_loop.cpp (distbench-bare-loop) over the same cases, with each case's k (ops_per_sample) and n
(samples) taken from distbench's report: the bare loop does not calibrate, so both time the same calls. The order
alternates from round to round; when the bare loop goes first it takes k and n from the previous round's report
of that collective (round 1 always starts with distbench). Per size it keeps, for each tool, the median over
rounds of each run's median time per operation (the median of the per-sample averages over ranks), and prints
distbench / bare; `ratio(mean)` does the same with each run's mean. The target is <= 1.02 at every size.
With --mpi4py (out-of-place allreduce, reduce-scatter and allgather only) it also runs bench/mpi4py_peer.py
in the same rotation and adds its time.

Needs only the Python standard library (and Debian's python3-mpi4py for --mpi4py). Builds nothing: build
distbench and distbench-bare-loop first (see bench/README.md). This is a benchmark to read, not a test: it exits
0 whatever the ratios are (non-zero only when a run fails).
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (same folder: size parsing, formatting, running, --keep)
import peers  # noqa: E402  (IMB-MPI1 and OSU: their commands and tables)

COLLECTIVES = ("allreduce", "reduce-scatter", "allgather", "broadcast", "reduce", "alltoall", "gather", "scatter",
               "sendrecv")
PEER_COLLECTIVES = common.COLLECTIVES  # what mpi4py_peer.py runs (out-of-place only)
TARGET = 1.02
MiB = 1 << 20


def find_bare(given):
    path = given or os.path.join(common.ROOT, "build", "bench", "distbench-bare-loop")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        sys.exit(f"compare_bare: no bare-loop binary at {path}; build it with the project (ninja -C build builds "
                 f"build/bench/distbench-bare-loop) or by hand (mpicxx -O2 -std=c++20 -DOMPI_SKIP_MPICXX=1 "
                 f"bench/bare_loop.cpp -o /tmp/distbench-bare-loop) and pass --bare PATH")
    return os.path.abspath(path)


def run_distbench(args, collective, tmpdir, rnd):
    """{bytes: {count, k, n, median, mean}}, wrong elements, wall seconds of one distbench sweep."""
    report = os.path.join(tmpdir, f"{collective}.json")
    cmd = common.launcher(args) + [
        args.distbench, collective, "--placement", args.placement, "-d", "float32", "-o", "sum",
        "-b", str(args.minbytes), "-e", str(args.maxbytes), "-f", "2", "-n", str(args.iters),
        "-w", str(args.warmup), "--mpi-thread", args.mpi_thread, "--huge-pages", args.huge_pages, "--json", report]
    _, _, wall = common.run(cmd, f"distbench {collective}")
    with open(report) as f:
        text = f.read()
    common.keep(args, f"round{rnd + 1}-{collective}-distbench.json", text)
    doc = json.loads(text)
    if doc.get("status") != "complete":
        sys.exit(f"compare_bare: distbench {collective} report status is {doc.get('status')!r}: {doc.get('error')}")
    cases, wrong = {}, 0
    # the share of the buffers in huge pages (the run's, all sizes' buffers together: one size's with --size-per-run)
    versions = doc.get("environment", {}).get("versions", {})
    try:
        huge = int(versions["memory.buffer_huge_page_bytes"]) / max(int(versions["memory.buffer_bytes"]), 1)
    except (KeyError, ValueError):
        huge = None
    # how far apart the two ranks' CPUs were at the run's start and end (ns one way; None: not measured)
    cpu_ns = tuple(cpu_distance_ns(versions.get(f"cpu_distance.{when}", "")) for when in ("start", "end"))
    for r in common.report_cases(doc):
        if r.get("placement") != args.placement:
            continue
        cases[int(r["bytes"])] = {
            "count": int(r["count"]), "k": int(r["ops_per_sample"]), "n": int(r["time_us"]["samples"]),
            "median": float(r["time_us"]["median"]), "mean": float(r["time_us"]["mean"]), "huge": huge,
            "cpu_ns": cpu_ns}
        wrong += max(int(r.get("wrong") or 0), 0)  # null: not checked
    return cases, wrong, wall


def run_bare(args, collective, plan, tmpdir, rnd):
    """{bytes: {count, k, n, median, mean}}, wall seconds of one bare-loop run over `plan`'s cases."""
    cases_file = os.path.join(tmpdir, f"{collective}.cases")
    with open(cases_file, "w") as f:
        f.write("# count k n, from distbench's report (bytes, in the order distbench measured them)\n")
        for size in sorted(plan):
            c = plan[size]
            f.write(f"{c['count']} {c['k']} {c['n']}  # {size}\n")
    cmd = common.launcher(args) + [args.bare, collective, "--placement", args.placement, "-w", str(args.warmup),
                                   "--thread", args.mpi_thread, "--huge-pages", args.huge_pages, "--cases", cases_file]
    out, _, wall = common.run(cmd, f"bare loop {collective}")
    common.keep(args, f"round{rnd + 1}-{collective}-bare.jsonl", out)
    cases = {}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            r = json.loads(line)
            cases[int(r["bytes"])] = {"count": r["count"], "k": r["ops_per_sample"], "n": r["samples"],
                                      "median": float(r["median_us"]), "mean": float(r["mean_us"])}
    if len(cases) != len(plan):
        sys.exit(f"compare_bare: the bare loop printed {len(cases)} cases of {len(plan)} for {collective}")
    return cases, wall


def run_mpi4py(args, collective, rnd):
    """{bytes: {median, mean}}, wall seconds of one mpi4py_peer.py sweep (common.run_peer)."""
    times, _, wall = common.run_peer(args, collective, rnd)
    return {size: {"mean": t[0], "median": t[1], "huge": t[2]} for size, t in times.items()}, wall


def run_published_peer(args, tool, collective, rnd):
    """{bytes: {median, mean}} (the peer's mean per call in both), wall seconds; None when it has no such run."""
    if tool == "imb":
        command = peers.imb_command(args.imb, collective, args)
        parse = peers.parse_imb
    else:
        binary = peers.find_osu(args.osu, collective)
        command = peers.osu_command(binary, args) if binary else None
        parse = peers.parse_osu
    if command is None:
        return None
    out, _, wall = common.run(common.launcher(args) + command, f"{tool} {collective}")
    common.keep(args, f"round{rnd + 1}-{collective}-{tool}.txt", out)
    return {size: {"median": t, "mean": t} for size, t in parse(out).items()}, wall


def measure(args):
    tools = ["distbench", "bare"] + (["mpi4py"] if args.mpi4py else []) + (["imb"] if args.imb else []) + \
        (["osu"] if args.osu else [])
    # runs[collective][tool][bytes] -> list of per-round {median, mean, ...}
    runs = {c: {t: {} for t in tools} for c in args.collectives}
    walls = {c: {t: [] for t in tools} for c in args.collectives}
    plans = {}  # collective -> the latest distbench report's cases (k and n for the bare loop)
    wrong = 0
    with tempfile.TemporaryDirectory(prefix="distbench-vs-bare-") as tmpdir:
        for rnd in range(args.rounds):
            for c in args.collectives:
                order = tools if rnd % 2 == 0 else list(reversed(tools))
                for part in common.sweep_parts(args):
                    for tool in order:
                        if tool == "mpi4py" and c not in PEER_COLLECTIVES:
                            continue
                        if tool == "distbench":
                            cases, w, wall = run_distbench(part, c, tmpdir, rnd)
                            plans.setdefault(c, {}).update(cases)
                            wrong += w
                        elif tool == "bare":
                            # this part's cases from the latest distbench report (the previous round's when the
                            # bare loop goes first)
                            plan = {s: v for s, v in plans[c].items() if part.minbytes <= s <= part.maxbytes}
                            cases, wall = run_bare(part, c, plan, tmpdir, rnd)
                        elif tool in ("imb", "osu"):
                            ran = run_published_peer(part, tool, c, rnd)
                            if ran is None:
                                continue
                            cases, wall = ran
                        else:
                            cases, wall = run_mpi4py(part, c, rnd)
                        walls[c][tool].append(wall)
                        for size, r in cases.items():
                            runs[c][tool].setdefault(size, []).append(r)
                        print(f"# round {rnd + 1}/{args.rounds} {c:<14} {tool:<9} "
                              f"{common.format_bytes(part.minbytes)}..{common.format_bytes(part.maxbytes)} "
                              f"{wall:6.1f} s", file=sys.stderr, flush=True)
    return runs, walls, plans, wrong


def cpu_distance_ns(text):
    """The nanoseconds of a report's cpu_distance reading ("42 ns one way between ranks ..."); None if unknown."""
    head = text.split(" ", 2)
    if len(head) >= 2 and head[1] == "ns":
        try:
            return float(head[0])
        except ValueError:
            return None
    return None


def cpu_distance_summary(rounds_by_size):
    """One line on distbench's cpu_distance readings over its runs: the machine's placement of the two ranks' CPUs
    (docs/methods.md), to tell a run that saw a slower placement from one that did not."""
    runs = [r["cpu_ns"] for rounds in rounds_by_size.values() for r in rounds
            if r.get("cpu_ns") and None not in r["cpu_ns"]]
    if not runs:
        return "distbench's cpu_distance: not measured (an older build, or no two ranks on one host)"
    readings = sorted(ns for pair in runs for ns in pair)
    parted = sum(1 for a, b in runs if max(a, b) >= 2 * min(a, b))
    return (f"distbench's cpu_distance (ns one way, start and end of each run): median {readings[len(readings) // 2]:.0f}, "
            f"{readings[0]:.0f}..{readings[-1]:.0f}; {parted} of {len(runs)} case runs parted by 2x")


def huge_share(rounds):
    """The median over rounds of a run's share of its buffers in huge pages, as '100%'; '-' when none says."""
    shares = sorted(r["huge"] for r in rounds if r.get("huge") is not None)
    return f"{100 * shares[len(shares) // 2]:>5.0f}%" if shares else f"{'-':>6}"


def median_of(rounds, key):
    return statistics.median(r[key] for r in rounds)


def report(args, runs, walls, plans, wrong):
    print(f"distbench vs bare MPI loop, np={args.np}, float32 sum {args.placement}, time per operation (us), "
          f"median over {args.rounds} interleaved rounds of each run's median sample")
    print(f"distbench: {args.distbench}")
    print(f"bare loop: {args.bare}")
    print(f"'ratio' = distbench / bare of those medians; 'ratio(mean)' = the same from each run's mean; "
          f"'k' = ops per sample in the last distbench report, 'k!=' = rounds in which the bare loop ran another k "
          f"(it went first, with the previous round's); target: ratio <= {TARGET}")
    if args.imb or args.osu:
        print(f"'d/imb', 'd/osu' = distbench's mean per operation / the peer's mean per call (IMB-MPI1's t_avg with "
              f"-sync {args.imb_sync} {peers.iters_text('-iter', args.peer_iters)}, OSU's Avg Latency with "
              f"{peers.iters_text('-i', args.peer_iters)}), each the "
              f"median over rounds; MPI thread level {args.mpi_thread} (OSU: always single); 'pair' = the median over "
              f"rounds of each round's own distbench / peer (the runs of a round follow each other within seconds, "
              f"so a machine mode of a minute moves both alike), 'spread' = those per-round ratios' max / min")
    worst = {"median": (0.0, None, None), "mean": (0.0, None, None)}
    over = {"median": 0, "mean": 0}
    total = 0
    for c in args.collectives:
        d, b = runs[c]["distbench"], runs[c]["bare"]
        peer = runs[c].get("mpi4py", {}) if c in PEER_COLLECTIVES else {}
        print()
        print(f"## {c}")
        head = f"{'size':>10} {'bytes':>10} {'k':>6} {'k!=':>3} {'distbench us':>13} {'bare us':>11} {'ratio':>7}" \
               f"      {'ratio(mean)':>11}"
        if peer:
            head += f" {'mpi4py us':>11} {'d/mpi4py':>9}"
        if args.huge_pages == "on":
            head += f" {'d huge':>6}" + (f" {'p huge':>6}" if peer else "")
        published = [t for t in ("imb", "osu") if runs[c].get(t)]
        for tool in published:
            head += f" {tool + ' us':>9} {'d/' + tool:>7} {'pair':>6} {'spread':>6}"
        print(head)
        for size in sorted(d):
            if size not in b:
                print(f"{common.format_bytes(size):>10} {size:>10}  no bare-loop run of this size")
                continue
            total += 1
            ratios = {}
            for key in ("median", "mean"):
                td, tb = median_of(d[size], key), median_of(b[size], key)
                ratios[key] = (td, tb, td / tb if tb > 0 else float("inf"))
                if ratios[key][2] > TARGET:
                    over[key] += 1
                if ratios[key][2] > worst[key][0]:
                    worst[key] = (ratios[key][2], c, size)
            td, tb, ratio = ratios["median"]
            flag = f" > {TARGET}" if ratio > TARGET else ""
            # Rounds where the bare loop ran another k than that round's distbench (it went first, with the
            # previous round's k, and distbench's calibration then chose differently).
            k_differs = sum(1 for rd, rb in zip(d[size], b[size]) if rd["k"] != rb["k"])
            line = (f"{common.format_bytes(size):>10} {size:>10} {plans[c][size]['k']:>6} {k_differs:>3} "
                    f"{td:>13.2f} {tb:>11.2f} {ratio:>7.3f}{flag:<7}{ratios['mean'][2]:>10.3f}")
            if peer:
                if size in peer:
                    tp = median_of(peer[size], "median")
                    line += f" {tp:>11.2f} {td / tp if tp > 0 else float('inf'):>9.3f}"
                else:
                    line += f" {'-':>11} {'-':>9}"
            if args.huge_pages == "on":  # the median share of the buffers in huge pages over the rounds
                line += f" {huge_share(d[size])}" + (f" {huge_share(peer.get(size, []))}" if peer else "")
            for tool in published:  # the peer's mean per call against distbench's mean per operation
                if size in runs[c][tool]:
                    tp, dm = median_of(runs[c][tool][size], "mean"), median_of(d[size], "mean")
                    pair, spread = common.paired_ratio([r["mean"] for r in d[size]],
                                                       [r["mean"] for r in runs[c][tool][size]])
                    line += f" {tp:>9.2f} {dm / tp if tp > 0 else float('inf'):>7.3f} {pair:>6.3f} {spread:>6.2f}"
                else:
                    line += f" {'-':>9} {'-':>7} {'-':>6} {'-':>6}"
            print(line)
        print(f"wall time per run (s, incl. mpirun start-up): {common.wall_summary(walls[c])}")
        print(cpu_distance_summary(d))

    print()
    for key, label in (("median", "max ratio"), ("mean", "max ratio(mean)")):
        r, c, size = worst[key]
        if c is not None:
            print(f"{label} {r:.3f} ({c} {common.format_bytes(size)}); {over[key]} of {total} sizes exceed {TARGET}")
    if wrong:
        print(f"WARNING: distbench found {wrong} wrong result elements (the bare loop does not verify)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--distbench", help="distbench binary (default: build/src/cli/distbench, else distbench on PATH)")
    p.add_argument("--bare", help="bare-loop binary (default: build/bench/distbench-bare-loop)")
    p.add_argument("--placement", choices=("out-of-place", "in-place"), default="out-of-place")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the median over rounds is compared")
    p.add_argument("--collectives", default=",".join(COLLECTIVES),
                   help="comma-separated subset of " + ", ".join(COLLECTIVES))
    p.add_argument("--np", type=int, default=2, help="ranks (default 2)")
    p.add_argument("-b", "--minbytes", type=common.parse_size, default=8)
    p.add_argument("-e", "--maxbytes", type=common.parse_size, default=16 * MiB)
    p.add_argument("-n", "--iters", type=int, default=20, help="distbench's samples per size (default 20)")
    p.add_argument("-w", "--warmup", type=int, default=5, help="warm-up operations, every tool (default 5)")
    p.add_argument("--mpi4py", action="store_true",
                   help="also run bench/mpi4py_peer.py (allreduce, reduce-scatter, allgather; out-of-place only)")
    p.add_argument("--mpi-thread", default="single", choices=("single", "funneled", "serialized", "multiple"),
                   help="MPI's thread level in every tool (default single, as distbench, IMB and OSU run)")
    p.add_argument("--huge-pages", default="off", choices=("off", "on"),
                   help="distbench's and the bare loop's buffer policy (default off: malloc's, as IMB and OSU; on: "
                        "MADV_HUGEPAGE from 2 MiB, as numpy)")
    p.add_argument("--numpy", action="store_true",
                   help="with --mpi4py: numpy arrays with numpy's default huge-page advice (from 4 MiB) instead of "
                        "array.array (malloc's pages); needs Debian's python3-numpy")
    p.add_argument("--imb", metavar="PATH", help="also run this IMB-MPI1 (allreduce, broadcast, reduce; out of place)")
    p.add_argument("--imb-sync", type=int, choices=(0, 1), default=0,
                   help="IMB's -sync: 0 (default) calls back to back as distbench; 1 a barrier after each call")
    p.add_argument("--osu", metavar="DIR", help="also run the OSU benchmarks found under DIR (osu_allreduce, "
                                                 "osu_bcast, osu_reduce)")
    p.add_argument("--peer-iters", type=peers.peer_iters, default=1000,
                   help="calls IMB and OSU time per size (default 1000), or 'default': each peer's own rule (OSU 100 "
                        "calls above 8 KiB after 10 warm-up, IMB 1000 shortened for large messages), as a user runs "
                        "them")
    p.add_argument("--size-per-run", action="store_true",
                   help="launch every tool once per size (-b S -e S, OSU -m S:S, IMB -msglog) instead of once per "
                        "sweep, the tools of a size back to back: a pair's runs then lie a second or two apart "
                        "(slower: one mpirun start-up per size and tool)")
    p.add_argument("--keep", metavar="DIR", help="keep every run's raw output (distbench JSON, JSON lines) here")
    p.add_argument("--no-aslr", action="store_true",
                   help="start every job without address-space randomisation (setarch -R), in every tool alike: "
                        "small-message times then vary far less from run to run (bench/README.md)")
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--bind-to", default="core", choices=("core", "none"),
                   help="mpirun --bind-to (default core: each rank keeps its core; with none, where the scheduler "
                        "puts the two ranks changes small-message times by 2x from run to run on a 2-core VM)")
    p.add_argument("--python", default="/usr/bin/python3", help="interpreter with mpi4py for --mpi4py")
    args = p.parse_args()

    args.collectives = [c.strip() for c in args.collectives.split(",") if c.strip()]
    bad = [c for c in args.collectives if c not in COLLECTIVES]
    if bad or not args.collectives:
        p.error(f"--collectives takes {', '.join(COLLECTIVES)}")
    if args.rounds < 1 or args.np < 1 or args.iters < 1 or args.warmup < 0:
        p.error("need --rounds >= 1, --np >= 1, -n >= 1, -w >= 0")
    if args.mpi4py and args.placement != "out-of-place":
        p.error("--mpi4py compares out-of-place calls only (mpi4py_peer.py has no in-place mode)")
    if args.osu and args.mpi_thread != "single":
        p.error("--osu: the OSU benchmarks start MPI at the single level only; leave --mpi-thread at single")
    for path, what in ((args.imb, "--imb"), (args.osu, "--osu")):
        if path and not os.path.exists(path):
            p.error(f"{what} {path}: no such file or directory")
    args.distbench = common.find_distbench(args.distbench)
    args.bare = find_bare(args.bare)
    if shutil.which(args.mpirun) is None:
        sys.exit(f"compare_bare: {args.mpirun} not found (apt-get install openmpi-bin)")
    # What common.run_peer reads: the same sweep for the peer.
    args.stepfactor = 2.0
    args.peer_page_offset = -1

    began = time.monotonic()
    report(args, *measure(args))
    print(f"\ntotal wall time {time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
