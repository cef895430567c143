#!/usr/bin/python3
"""How many warnings a default run prints, and how wide they are: distbench's own default sweeps, N runs each.

    /usr/bin/python3 bench/warning_count.py --runs 3
    /usr/bin/python3 bench/warning_count.py --runs 5 --commands "allreduce;latency" --np 2

Each run is `mpirun --allow-run-as-root -np 2 --bind-to none distbench <command> --json X` with the command's
defaults (by default: allreduce, allgather, broadcast, reduce-scatter and latency, in turn, N rounds). It counts the
`warning:` lines on stderr (progress lines and hints are not warnings), their width in columns (the whole line,
`warning: ` included), and the codes in the JSON report's `warnings` list. It prints each command's counts per run
and the codes that fired, then the totals: warnings per run, the widest line and how many lines are over --width.
A warning is worth printing when it changes what a reader does: the target on an idle machine is none, on a loaded
one at most two, each naming what to do.

Needs only the Python standard library. A benchmark to read, not a test: exits 0 whatever the counts are (non-zero
only when a run fails).
"""

import argparse
import collections
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (same folder: finding distbench, mpirun command, running)

DEFAULT_COMMANDS = "allreduce;allgather;broadcast;reduce-scatter;latency"
WARNING = "warning: "


def one_run(args, command, report):
    """(the printed warning lines, the report's warning codes) of one run of `command` (a list of arguments)."""
    cmd = common.launcher(args) + [args.distbench] + command + ["--json", report]
    _, err, _ = common.run(cmd, "distbench " + " ".join(command))
    lines = [line for line in err.splitlines() if line.startswith(WARNING)]
    with open(report) as f:
        codes = [w["code"] for w in json.load(f).get("warnings", [])]
    return lines, codes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--distbench", help="distbench binary (default: build/src/cli/distbench, else distbench on PATH)")
    p.add_argument("--runs", type=int, default=3, help="runs of each command (default 3)")
    p.add_argument("--np", type=int, default=2, help="ranks (default 2)")
    p.add_argument("--commands", default=DEFAULT_COMMANDS,
                   help="distbench commands with their arguments, ';' between them (default: %(default)s)")
    p.add_argument("--width", type=int, default=100, help="the widest a warning line may be (default 100)")
    p.add_argument("--show", action="store_true", help="print every warning line as it comes")
    p.add_argument("--mpirun", default="mpirun")
    args = p.parse_args()
    if args.runs < 1:
        p.error("--runs must be at least 1")
    args.distbench = common.find_distbench(args.distbench)
    commands = [c.split() for c in args.commands.split(";") if c.strip()]

    per_command = {" ".join(c): {"counts": [], "widths": [], "codes": collections.Counter()} for c in commands}
    all_lines = []
    with tempfile.TemporaryDirectory(prefix="distbench-warnings-") as tmpdir:
        report = os.path.join(tmpdir, "report.json")
        for rnd in range(args.runs):
            for command in commands:
                lines, codes = one_run(args, command, report)
                entry = per_command[" ".join(command)]
                entry["counts"].append(len(lines))
                entry["widths"].extend(len(line) for line in lines)
                entry["codes"].update(set(codes))
                all_lines.extend(lines)
                print(f"# round {rnd + 1}/{args.runs} {' '.join(command):<16} {len(lines)} warnings"
                      + (f", widest {max(len(x) for x in lines)}" if lines else ""), file=sys.stderr, flush=True)
                if args.show:
                    for line in lines:
                        print("#   " + line, file=sys.stderr)

    print(f"warnings of default runs, {' '.join(common.launcher(args))}, {args.runs} runs per command")
    print(f"distbench: {args.distbench}")
    print()
    print(f"{'command':<18} {'per run':<16} {'widest':>6}  codes (runs in which each fired)")
    for name, e in per_command.items():
        codes = ", ".join(f"{c} {n}" for c, n in sorted(e["codes"].items())) or "-"
        print(f"{name:<18} {' '.join(map(str, e['counts'])):<16} {max(e['widths'], default=0):>6}  {codes}")
    counts = [n for e in per_command.values() for n in e["counts"]]
    widths = [len(line) for line in all_lines]
    over = sum(w > args.width for w in widths)
    print()
    print(f"all: {len(counts)} runs, warnings per run median {statistics.median(counts):g}, max {max(counts)}; "
          f"widest line {max(widths, default=0)} columns; {over} of {len(widths)} lines over {args.width}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
