#!/usr/bin/env python3
"""A report of many ranks made from a real small one, for checking what the readers do at a scale this machine
cannot run: the same records (parameters, metrics, phases, samples), but WORLD ranks on hosts of --ranks-per-host,
every record's ranks kept in the summary form a run above 64 ranks writes (reports/SCHEMA.md, "rank_summary").

    synth_report.py SMALL.json --ranks 4096 -o BIG.json [--ranks-per-host 8] [--per-rank-file BIG.ranks.jsonl]

SMALL.json: any collective report of schema 4 (records in either form; run it with --per-rank summary or all).
Each record's summary keeps the small run's quantiles, and names ranks spread over the big world (rank r of the
small run becomes rank r * WORLD / small-world, on its host). --per-rank-file also writes the side file such a run
would write (--per-rank-file): for each record, a value per rank drawn from the record's quantiles (seeded: the same
file each time). The environment lists every rank, as a real report of that size does; `nranks` becomes WORLD.

Then time the readers and note the sizes (bench/README.md, "Reports at 4,096 ranks"):
    for f in md json csv jsonl html; do /usr/bin/time -f "$f %e s" distbench report BIG.json --format $f >/dev/null; done
    /usr/bin/time -f "compare %e s" distbench compare BIG.json BIG.json >/dev/null
    /usr/bin/time -f "model %e s" distbench model BIG.json >/dev/null
"""
import argparse
import bisect
import json
import random
import sys

QUANTILES = ("min", "p05", "p25", "median", "p75", "p95", "max")
AT = (0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0)


def percentile(sorted_values, q):
    """numpy's default (linear between closest ranks), as the tool's."""
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summary_of(ranks, keys):
    """The rank_summary of a record in the full form, as distbench writes it."""
    out = {"ranks": len(ranks), "figures": {}}
    for key in keys:
        pairs = [(r[key], r["rank"], r["host"]) for r in ranks if r.get(key) is not None]
        values = sorted(v for v, _, _ in pairs)
        figure = {"ranks": len(values)}
        for name, q in zip(QUANTILES, AT):
            figure[name] = percentile(values, q)
        figure["mean"] = sum(values) / len(values) if values else None
        by_value = sorted(pairs, key=lambda p: (p[0], p[1]))
        ends = lambda chosen: [{"rank": r, "host": h, "value": v} for v, r, h in chosen]  # noqa: E731
        figure["highest"] = ends(sorted(by_value[-3:], key=lambda p: (-p[0], p[1])))
        figure["lowest"] = ends(by_value[:3])
        out["figures"][key] = figure
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--ranks", type=int, required=True, help="ranks of the synthetic world")
    ap.add_argument("--ranks-per-host", type=int, default=8)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--per-rank-file", help="also write the side file a run of that size writes")
    args = ap.parse_args()

    with open(args.report) as f:
        small = json.load(f)
    if small.get("schema_version") != 4 or small.get("benchmark") != "collective":
        sys.exit(f"error: {args.report}: a collective report of schema 4 is needed (a run of this distbench)")
    world, per_host = args.ranks, args.ranks_per_host
    small_world = small["environment"]["world_size"]
    host_of = lambda r: f"node{r // per_host:05d}"  # noqa: E731
    moved = lambda r: min(world - 1, r * world // max(1, small_world))  # noqa: E731
    keys = [f["key"] for f in small["layout"]["rank_figures"]]

    big = dict(small)
    env = dict(small["environment"])
    env["world_size"] = world
    env["ranks"] = [{"rank": r, "host": host_of(r), "local_rank": r % per_host, "cpus": str(r % per_host)}
                    for r in range(world)]
    big["environment"] = env
    records = []
    for rec in small["records"]:
        rec = dict(rec)
        if rec["params"].get("nranks") == small_world:
            rec["params"] = dict(rec["params"], nranks=world)
        summary = rec.pop("rank_summary", None)
        if "ranks" in rec:
            summary = summary_of(rec.pop("ranks"), keys) if rec["status"] == "ok" else None
            if summary is None:
                rec["ranks"] = []
        if summary is not None:
            summary = json.loads(json.dumps(summary))
            summary["ranks"] = world
            for figure in summary["figures"].values():
                figure["ranks"] = world if figure["ranks"] == small_world else figure["ranks"]
                for end in figure["highest"] + figure["lowest"]:
                    end["rank"] = moved(end["rank"])
                    end["host"] = host_of(end["rank"])
            rec["rank_summary"] = summary
        records.append(rec)
    big["records"] = records
    big["schema_version"] = 4
    with open(args.output, "w") as f:
        json.dump(big, f, indent=2)
        f.write("\n")

    if args.per_rank_file:
        rng = random.Random(55)
        hosts = [host_of(r) for r in range(0, world, per_host)]
        with open(args.per_rank_file, "w") as f:
            header = {"type": "per_rank", "version": 1, "benchmark": "collective", "world_size": world,
                      "hosts": hosts, "host_of_rank": [r // per_host for r in range(world)]}
            f.write(json.dumps(header, separators=(",", ":")) + "\n")
            for i, rec in enumerate(records):
                line = {"type": "record", "index": i, "kind": rec["kind"], "params": rec["params"],
                        "status": rec["status"], "ranks": 0, "figures": {}}
                if "rank_summary" in rec:
                    line["ranks"] = world
                    for key, figure in rec["rank_summary"]["figures"].items():
                        q = [figure[name] for name in QUANTILES]
                        if q[0] is None:
                            line["figures"][key] = [None] * world
                            continue

                        def draw(u):
                            k = max(1, bisect.bisect_left(AT, u))
                            t = (u - AT[k - 1]) / (AT[k] - AT[k - 1])
                            return q[k - 1] + (q[k] - q[k - 1]) * t
                        line["figures"][key] = [draw(rng.random()) for _ in range(world)]
                f.write(json.dumps(line, separators=(",", ":")) + "\n")
            f.write(json.dumps({"type": "end", "status": "complete", "records": len(records), "reason": None},
                               separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
