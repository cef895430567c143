#!/usr/bin/python3
"""distbench in each peer's timing method against that peer, interleaved, in one go.

    /usr/bin/python3 bench/compare_methods.py --osu OSU_DIR --imb IMB-MPI1          # 6 collectives, 7 rounds
    /usr/bin/python3 bench/compare_methods.py --osu OSU_DIR --collectives allreduce,reduce --rounds 3 --np 3
    /usr/bin/python3 bench/compare_methods.py --osu OSU_DIR --imb IMB-MPI1 --collectives reduce --size-per-run

For each round and collective it runs, under `mpirun --allow-run-as-root -np N --bind-to none`, each peer with its
own defaults and distbench with that peer's method over the same sizes, out of place, float32, sum:

    osu_<coll> -m B:E -f -T mpi_float                 distbench COLL --timing osu -b B' -e E' -f 2 -d float32
    IMB-MPI1 <Coll> -msglog b:e -npmin N              distbench COLL --timing imb -b B' -e E' -f 2 -d float32

(the peers' iteration and warm-up counts are their defaults, which distbench's --timing osu|imb reproduce:
src/benchmarks/collective/peer_counts.hpp). With --size-per-run --run-seconds S every run of a size times at least S
seconds of calls, the same count in both tools (OSU `-i N`, IMB `-iter N -iter_policy off`, distbench `-n N`, each
with the peer's warm-up for that count), chosen from one calibration sweep before the rounds: a run of 1000 calls of
0.3 us lasts 0.3 ms and lands in whichever speed the shared machine is in. The order of the four runs rotates from
round to round. Per size it keeps each tool's median over rounds and prints distbench / peer (and the pair and the
fastest rounds' ratio); the issue's targets: within 1.05 at the median of sizes and 1.10 at every size.

Placement: a shared VM's host runs its two vCPUs on cores that share an L3 or not, moves them within seconds, and
every tool's small sizes run up to 3x slower in the far placement (0.17 or 0.5 us an 8 B allreduce, for a whole run
of a second or part of one). Before and after every run the script reads how far apart CPUs 0 and 1 are now
(build/bench/distbench-cpu-distance: a cache line's one-way time, a few ms) and calls the run near (both readings
under --near-ns), far (both above) or moved. The `near` and `far` columns compare only the runs each tool made in
that placement (median over them, and how many each tool had), like for like where the rounds' medians compare
whichever placement most rounds drew.

Sizes: OSU gives allreduce, reduce, broadcast and reduce-scatter the buffer every rank passes, as distbench does, and
IMB the first three; for allgather and alltoall (and IMB's Reduce_scatter) the peer's size is one rank's block,
distbench's the whole buffer: distbench runs at N x the peer's size, and the tables show the peer's size.

Needs only the Python standard library. Builds nothing: OSU and IMB are built by hand outside the tree
(bench/README.md); a peer not given is left out. Exits 0 whatever the ratios are (non-zero when a run fails).

--against-itself runs each peer a second time in distbench's place: an A/A series, the same tables with the peer
against itself, which says how close two runs of one tool come on this machine with these rounds and estimators.
"""

import argparse
import collections
import copy
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import peers  # noqa: E402

COLLECTIVES = ("allreduce", "reduce", "broadcast", "reduce-scatter", "allgather", "alltoall")
OSU = {"allreduce": "osu_allreduce", "reduce": "osu_reduce", "broadcast": "osu_bcast",
       "reduce-scatter": "osu_reduce_scatter", "allgather": "osu_allgather", "alltoall": "osu_alltoall"}
IMB = {"allreduce": "Allreduce", "reduce": "Reduce", "broadcast": "Bcast", "reduce-scatter": "Reduce_scatter",
       "allgather": "Allgather", "alltoall": "Alltoall"}
PER_RANK_BLOCK = ("allgather", "alltoall")  # the peers' size is one rank's block
# IMB-MPI1 also sizes Reduce_scatter by one rank's block (its 512 KiB at np 2 runs as OSU's 1 MiB, measured)
IMB_PER_RANK_BLOCK = PER_RANK_BLOCK + ("reduce-scatter",)
# --run-seconds: at most this many calls per run (the peers' barrier after each call takes longer than a small call)
MAX_CALLS = 1_000_000  # also distbench's largest -n


def distbench_times(args, collective, method, tmpdir, rnd):
    """{peer's size: distbench's table time (us)} of one run in the peer's method."""
    blocks = IMB_PER_RANK_BLOCK if method == "imb" else PER_RANK_BLOCK
    scale = args.np if collective in blocks else 1
    path = os.path.join(tmpdir, f"{collective}-{method}-{rnd}.json")
    cmd = common.launcher(args) + [args.distbench, collective, "--timing", method, "-b", str(args.minbytes * scale),
                                   "-e", str(args.maxbytes * scale), "-f", "2", "-d", "float32", "-o", "sum",
                                   "--placement", "out-of-place", "-c", "0", "-q", "--json", path]
    calls = calls_at(args, collective, method)
    if calls:  # --run-seconds: the calls both tools time at this size, and the peer's warm-up for that count
        cmd += ["-n", str(calls), "-w", str(warmup(method, args.minbytes, calls))]
    common.run(cmd, f"distbench {collective} --timing {method}")
    with open(path) as f:
        doc = json.load(f)
    # distbench rounds a size down to whole elements per rank (reduce-scatter at N = 3: 1024 B runs as 1020 B); each
    # case is keyed by the size asked for, the nearest one at or above it, as the peers print it.
    asked = sorted(doc["config"]["sizes"])
    times = {}
    for case in common.report_cases(doc):
        size = min((a for a in asked if a >= case["bytes"]), default=case["bytes"])
        times[size // scale] = case["time_shown_us"]
    return times


def osu_times(args, collective):
    binary = peers.find_osu(args.osu, collective) if collective in peers.OSU_NAMES else None
    if binary is None:
        for root, _, files in os.walk(args.osu):
            if OSU[collective] in files:
                binary = os.path.join(root, OSU[collective])
                break
    if binary is None:
        return None
    cmd = [binary, "-m", f"{args.minbytes}:{args.maxbytes}", "-f", "-T", "mpi_float"]
    calls = calls_at(args, collective, "osu")
    if calls:
        cmd += ["-i", str(calls), "-x", str(warmup("osu", args.minbytes, calls))]
    out, _, _ = common.run(common.launcher(args) + cmd, OSU[collective])
    return peers.parse_osu(out)


def imb_times(args, collective):
    logs = peers.power_of_two_range(args.minbytes, args.maxbytes)
    cmd = [args.imb, IMB[collective], "-npmin", str(args.np), "-msglog", f"{logs[0]}:{logs[1]}"]
    calls = calls_at(args, collective, "imb")
    if calls:  # IMB warms up a tenth of -iter itself
        cmd += ["-iter", str(calls), "-iter_policy", "off", "-time", "600"]
    out, _, _ = common.run(common.launcher(args) + cmd, f"IMB-MPI1 {IMB[collective]}")
    return peers.parse_imb(out)


def probe(args):
    """How far apart CPUs 0 and 1 are now (ns one way), or None without a probe or when it failed."""
    if not args.probe:
        return None
    result = subprocess.run([args.probe], capture_output=True, text=True, timeout=10)
    if result.returncode != 0:
        print(f"compare_methods.py: the placement probe failed: {result.stderr.strip()}", file=sys.stderr)
        return None
    return json.loads(result.stdout)["ns"]


def placement(args, before, after):
    """'near', 'far' or 'moved' from the probe's readings around a run; None when either is missing."""
    if before is None or after is None:
        return None
    near = (before < args.near_ns, after < args.near_ns)
    return "near" if all(near) else "far" if not any(near) else "moved"


def find_probe(given):
    if given == "none":
        return None
    path = given or os.path.join(common.ROOT, "build", "bench", "distbench-cpu-distance")
    if os.access(path, os.X_OK):
        return os.path.abspath(path)
    if given:
        sys.exit(f"compare_methods.py: no placement probe at {given}; build it (ninja -C build) or pass --probe none")
    return None


def calls_at(args, collective, method):
    """--run-seconds: the calls of this part's size (None without it: the peers' own counts); a size distbench did not
    run in the calibration (reduce-scatter's 4 B at 2 ranks: less than one float per rank) takes the nearest larger
    size's count."""
    if not getattr(args, "counts", None):
        return None
    counts = args.counts[(collective, method)]
    larger = [s for s in sorted(counts) if s >= args.minbytes]
    return counts[larger[0]] if larger else default_calls(method, args.minbytes)


def default_calls(method, size):
    """The peer's own count of timed calls at a size (its peer's size): OSU 7.x and IMB-MPI1's rules."""
    if method == "osu":
        return 1000 if size <= 8192 else 100
    return max(1, min(1000, (40 << 20) // size))


def warmup(method, size, calls):
    """The untimed calls before `calls` timed ones: OSU's by size (-x), IMB's a tenth of the count, at least 10."""
    if method == "osu":
        return 100 if size <= 8192 else 10
    return calls // 10 if calls // 10 >= 10 else min(10, calls)


def calibrate(args, collectives, methods, tmpdir):
    """--run-seconds: {(collective, method): {peer's size: calls}} so that a run of each size times at least
    run_seconds of calls (never fewer than the peer's own count), from one distbench sweep per collective and method."""
    counts = {}
    for c in collectives:
        for m in methods:
            whole = copy.copy(args)
            whole.size_per_run = False
            times = distbench_times(whole, c, m, tmpdir, "calibration")
            counts[(c, m)] = {size: max(default_calls(m, size),
                                        min(MAX_CALLS, math.ceil(args.run_seconds * 1e6 / max(t, 1e-3))))
                              for size, t in times.items()}
            print(f"calibration {c} --timing {m}: calls per size "
                  + ", ".join(f"{size}: {n}" for size, n in sorted(counts[(c, m)].items())), file=sys.stderr)
    return counts


def in_placement(times, places, size, where):
    """The times of the rounds whose run of `size` met placement `where`."""
    return [r[size] for r, q in zip(times, places) if q.get(size) == where]


def placement_ratio(d_times, p_times):
    """(distbench's median / the peer's, cell text) over the runs of one placement; (None, '-') when a tool had none."""
    if not d_times or not p_times:
        return None, "-"
    ratio = statistics.median(d_times) / statistics.median(p_times)
    return ratio, f"{ratio:.3f} {len(d_times)}/{len(p_times)}"


def table(collective, method, peer_runs, db_runs, peer_places=None, db_places=None, against_itself=False):
    """One comparison's table and summary lines; against_itself: the second tool's runs are the peer's again."""
    sizes = sorted(set.intersection(*(set(r) for r in peer_runs + db_runs)), key=int)
    placed = bool(peer_places and db_places)
    peer = "OSU" if method == "osu" else "IMB-MPI1"
    second = f"{peer} again" if against_itself else "distbench"
    print(f"\n{collective}, " + (f"{peer} against itself (A/A: its runs interleaved as two tools)" if against_itself
                                  else f"--timing {method} against {peer}")
          + f" ({len(peer_runs)} rounds; us, medians over rounds; spread = max/min over rounds; pair = the median over"
          f" rounds of each round's own {second} / peer; fastest = {second}'s fastest round / the peer's"
          + (f"; near, far = {second} / peer over the runs that met that placement, {second}'s runs/the peer's"
             if placed else "") + ")")
    print(f"{'bytes':>10} {'peer':>10} {'spread':>7} {'again' if against_itself else 'distbench':>10} {'spread':>7}"
          f" {'ratio':>7} {'pair':>7} {'fastest':>7}" + (f" {'near':>12} {'far':>12}" if placed else ""))
    estimates = {"ratio": [], "pair": [], "fastest": [], "near": [], "far": []}
    for s in sizes:
        p = [r[s] for r in peer_runs]
        d = [r[s] for r in db_runs]
        ratio = statistics.median(d) / statistics.median(p)
        pair, _ = common.paired_ratio(d, p)
        estimates["ratio"].append(ratio)
        estimates["pair"].append(pair)
        estimates["fastest"].append(min(d) / min(p))
        cells = ""
        if placed:
            for where in ("near", "far"):
                r, text = placement_ratio(in_placement(db_runs, db_places, s, where),
                                          in_placement(peer_runs, peer_places, s, where))
                if r is not None:
                    estimates[where].append(r)
                cells += f" {text:>12}"
        print(f"{s:>10} {statistics.median(p):>10.2f} {max(p) / min(p):>7.3f} {statistics.median(d):>10.2f}"
              f" {max(d) / min(d):>7.3f} {ratio:>7.3f} {pair:>7.3f} {estimates['fastest'][-1]:>7.3f}{cells}")
    for label, rs in estimates.items():
        if rs:
            print(f"median {label} {statistics.median(rs):.3f}, range {min(rs):.3f}-{max(rs):.3f};"
                  f" within 1.10: {sum(abs(r - 1) <= 0.10 for r in rs)} of {len(rs)} sizes")
    if placed:
        for who, places in (("peer", peer_places), ("the second run" if against_itself else "distbench", db_places)):
            counts = collections.Counter(q for rnd in places for q in rnd.values())
            print(f"placements of {who}'s runs: " + ", ".join(f"{counts[w]} {w or 'unread'}"
                                                              for w in ("near", "far", "moved", None)))


def raw_runs(path):
    """--tables-from: the runs of the last '# raw after round' line of an earlier run's output."""
    with open(path) as f:
        lines = [line for line in f if line.startswith("# raw after round")]
    if not lines:
        sys.exit(f"compare_methods.py: no '# raw after round' line in {path}")
    raw = json.loads(lines[-1].split(" ", 5)[5])
    # [peer runs, distbench runs] or, from a run with the placement probe, also [peer placements, distbench's]
    return {tuple(key.split(" ")): tuple(value) for key, value in raw.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--osu", help="an OSU build tree or install prefix (finds osu_<collective> in it)")
    parser.add_argument("--imb", help="the IMB-MPI1 binary")
    parser.add_argument("--distbench", help="the distbench binary (default: build/src/cli/distbench, else on PATH)")
    parser.add_argument("--collectives", default=",".join(COLLECTIVES))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--mpirun", default="mpirun")
    parser.add_argument("-b", "--minbytes", type=common.parse_size, default=4)
    parser.add_argument("-e", "--maxbytes", type=common.parse_size, default=1 << 20)
    parser.add_argument("--size-per-run", action="store_true",
                        help="launch every tool once per size instead of once per sweep, the four runs of a size back "
                             "to back, so that a pair's runs lie a second or two apart (one mpirun start-up per size "
                             "and tool: about 2 minutes a round for the 6 collectives at 4 B .. 1 MiB)")
    parser.add_argument("--run-seconds", type=float, default=0,
                        help="with --size-per-run: every run of a size times at least this many seconds of calls, the "
                             "same count in both tools (from a calibration sweep), so that each run spans the shared "
                             "machine's changes of speed (default 0: the peers' own counts)")
    parser.add_argument("--probe", help="the placement probe (default: build/bench/distbench-cpu-distance when built; "
                                        "'none': no near/far columns)")
    parser.add_argument("--near-ns", type=float, default=110,
                        help="a run met the near placement when the probe read under this (ns one way) before and "
                             "after it (default 110: the development VM read 25-72 near, 138-402 far)")
    parser.add_argument("--against-itself", action="store_true",
                        help="run each peer a second time where distbench would run (an A/A series: how far two runs "
                             "of one tool drift apart on this machine, the floor under every estimator); with "
                             "--tables-from: label an earlier A/A run's tables so")
    parser.add_argument("--tables-from", metavar="OUTPUT",
                        help="print the tables of an earlier run's saved output (its last raw line) and run nothing")
    args = parser.parse_args()
    if args.tables_from:
        for (c, m), value in raw_runs(args.tables_from).items():
            if any(value[0]):
                table(c, m, *value, against_itself=args.against_itself)
        return
    if args.run_seconds > 0 and not args.size_per_run:
        sys.exit("compare_methods.py: --run-seconds needs --size-per-run (a count per size is given per launch)")
    args.distbench = common.find_distbench(args.distbench)
    args.probe = find_probe(args.probe)
    collectives = [c for c in args.collectives.split(",") if c]
    for c in collectives:
        if c not in COLLECTIVES:
            sys.exit(f"compare_methods.py: {c} is not one of {', '.join(COLLECTIVES)}")
    methods = [m for m, given in (("osu", args.osu), ("imb", args.imb)) if given]
    if not methods:
        sys.exit("compare_methods.py: give --osu and/or --imb (built by hand outside the tree: bench/README.md)")
    # (peer runs, distbench runs): one {size: us} per round, filled by one run or, with --size-per-run, one per size;
    # then (with the probe) the placement each of those runs met, one {size: 'near'|'far'|'moved'|None} per round
    runs = {(c, m): ([], [], [], []) for c in collectives for m in methods}
    with tempfile.TemporaryDirectory() as tmpdir:
        if args.run_seconds > 0:
            args.counts = calibrate(args, collectives, methods, tmpdir)
        for rnd in range(args.rounds):
            for c in collectives:
                steps = [(m, tool) for m in methods for tool in ("peer", "distbench")]
                shift = rnd % len(steps)
                for m in methods:
                    for series in runs[(c, m)]:
                        series.append({})
                for part in common.sweep_parts(args):
                    reading = probe(args)
                    for m, tool in steps[shift:] + steps[:shift]:
                        # side 1 is distbench's, or with --against-itself the peer's second run
                        side = 1 if tool == "distbench" else 0
                        if side == 1 and not args.against_itself:
                            times = distbench_times(part, c, m, tmpdir, rnd)
                        else:
                            times = (osu_times(part, c) if m == "osu" else imb_times(part, c)) or {}
                        before, reading = reading, probe(args)
                        runs[(c, m)][side][-1].update(times)
                        runs[(c, m)][side + 2][-1].update({size: placement(args, before, reading) for size in times})
            print(f"round {rnd + 1} of {args.rounds} done", file=sys.stderr)
            # every round's raw figures as they come, so that a run cut short still leaves what it measured
            print("# raw after round", rnd + 1, json.dumps({f"{c} {m}": v for (c, m), v in runs.items()}), flush=True)
    print(("A/A: each peer against itself, its second run in distbench's place; " if args.against_itself else "")
          + f"distbench: {args.distbench}; placement probe: {args.probe or 'none'} (near under {args.near_ns:g} ns); "
          f"np {args.np}; "
          f"{'one run per size' if args.size_per_run else 'one run per sweep'} and tool, {args.rounds} rounds"
          + (f"; each run at least {args.run_seconds:g} s of calls, the same count in both tools"
             if args.run_seconds > 0 else "; the peers' own counts"))
    for (c, m), value in runs.items():
        if any(value[0]):
            table(c, m, *(value if args.probe else value[:2]), against_itself=args.against_itself)


if __name__ == "__main__":
    main()
