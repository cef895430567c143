"""The published peers for compare_bare.py: Intel MPI Benchmarks (IMB-MPI1) and the OSU micro-benchmarks, run as
their users run them and read from their own tables.

Built by hand outside the tree (bench/README.md says how); nothing here fetches or builds them. Only the
collectives whose size means the same in all three tools are compared: allreduce, broadcast and reduce (bytes = the
buffer every rank passes). How each peer times a size:
  IMB-MPI1 <Coll> -iter N -iter_policy off -sync S: N calls, each timed alone with MPI_Wtime; -sync 1 (IMB's
    default) puts a barrier after every call (outside the timing), -sync 0 runs them back to back; t_avg is each
    rank's mean time per call, averaged over the ranks. The thread level is -thread_level (IMB's default: single).
  osu_<coll> -i N -x W -f -T mpi_float: W untimed calls, then N calls each timed alone with a barrier after it;
    "Avg Latency(us)" is each rank's mean per call averaged over the ranks. MPI_Init: the single level, always.
Both therefore give a mean per call, and are set against distbench's mean per operation.
"""

import math
import os
import re

IMB_NAMES = {"allreduce": "Allreduce", "broadcast": "Bcast", "reduce": "Reduce"}
OSU_NAMES = {"allreduce": "osu_allreduce", "broadcast": "osu_bcast", "reduce": "osu_reduce"}
COLLECTIVES = tuple(IMB_NAMES)


def find_osu(directory, collective):
    """The osu_<coll> binary under `directory` (an install prefix or a build tree), or None."""
    name = OSU_NAMES.get(collective)
    if name is None:
        return None
    for root, _, files in os.walk(directory):
        if name in files and os.access(os.path.join(root, name), os.X_OK):
            return os.path.join(root, name)
    return None


def power_of_two_range(minbytes, maxbytes):
    """IMB's -msglog A:B for the powers of two within [minbytes, maxbytes], or None when there is none."""
    low = max(0, math.ceil(math.log2(max(minbytes, 1))))
    high = math.floor(math.log2(maxbytes))
    return (low, high) if low <= high else None


def imb_command(imb, collective, args):
    logs = power_of_two_range(args.minbytes, args.maxbytes)
    if collective not in IMB_NAMES or logs is None or args.placement != "out-of-place":
        return None  # IMB's collectives run out of place only
    command = [imb, IMB_NAMES[collective], "-npmin", str(args.np), "-msglog", f"{logs[0]}:{logs[1]}"]
    if args.peer_iters is not None:  # None: IMB's own repetition rule (1000, fewer for large messages)
        command += ["-iter", str(args.peer_iters), "-iter_policy", "off", "-time", "600"]
    return command + ["-sync", str(args.imb_sync), "-thread_level", args.mpi_thread]


def parse_imb(text):
    """{bytes: t_avg us} from IMB-MPI1's table (#bytes #repetitions t_min t_max t_avg); size 0 left out."""
    times = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 5 and all(re.fullmatch(r"[0-9.]+", f) for f in fields):
            size = int(fields[0])
            if size > 0:
                times[size] = float(fields[4])
    return times


def osu_command(osu_binary, args):
    command = [osu_binary, "-m", f"{args.minbytes}:{args.maxbytes}", "-f", "-T", "mpi_float"]
    if args.peer_iters is not None:  # None: OSU's own rule (1000 calls after 100 up to 8 KiB, 100 after 10 above)
        command += ["-i", str(args.peer_iters), "-x", str(args.warmup)]
    if args.placement == "in-place":
        command.append("-l")
    return command


def parse_osu(text):
    """{bytes: Avg Latency us} from an OSU collective's table (Size Avg Min Max Iterations, with -f)."""
    times = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2 and not line.startswith("#") and re.fullmatch(r"\d+", fields[0]):
            times[int(fields[0])] = float(fields[1])
    return times


def peer_iters(text):
    """--peer-iters: a count of calls, or 'default' (None): each peer's own iteration rule, as a user runs it."""
    if text == "default":
        return None
    count = int(text)
    if count < 1:
        raise ValueError(text)
    return count


def iters_text(flag, iters):
    return f"{flag} {iters}" if iters is not None else "its own iteration rule"
