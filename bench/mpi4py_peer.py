#!/usr/bin/python3
"""Time allreduce / reduce-scatter / allgather with mpi4py the way distbench times them.

Run under MPI, e.g.
    mpirun -np 2 --bind-to none /usr/bin/python3 bench/mpi4py_peer.py allreduce -b 8 -e 64M

Needs only Debian's python3-mpi4py (no numpy): buffers are array.array('f') (or, with --page-offset, views of
anonymous mmap memory) handed to mpi4py as explicit [buffer, count, MPI.FLOAT] message specs.

Sizes follow distbench's (and nccl-tests') convention, float32, sum, out-of-place:
    allreduce       S = count * 4                    Allreduce(send[count], recv[count])
    reduce-scatter  S = count * nranks * 4 (input)   Reduce_scatter_block(send[count*n], recv[count])
    allgather       S = count * nranks * 4 (output)  Allgather(send[count], recv[count*n])
where count = (S // 4) for allreduce and (S // 4) // nranks for the others; sizes whose count is 0 are skipped.

Method, as in distbench's src/core/comm/sampler.cpp: fill the send buffer, -w warm-up operations, a calibration
(a probe batch doubled from 1 until it lasts at least 0.05 ms, then two more probes of that batch, the fastest of
the three counting, each judged on the slowest rank's time via allreduce MAX) that sets
k = ceil(0.5 ms / time per op) operations per sample (1..10000), a barrier, then -n samples of k back-to-back
operations timed with a monotonic clock. The time per operation of a sample is its time / k; each rank takes the
mean over its samples, and the time reported is that mean averaged over the ranks (distbench's time_shown_us with
the default -a avg).

Always exactly -n samples, as distbench takes with an explicit -n (compare_mpi4py.py and compare_bare.py pass it to
both tools); distbench's default of 20 samples cut to as few as 10 when they would outlast 0.05 s of sampling is
not reproduced here. MPI starts at --mpi-thread's level, single by default as in distbench, IMB and OSU
(mpi4py's own default would be MULTIPLE).
One difference remains by construction: the loop is Python's.

Rank 0 prints one JSON object per line and size:
    {"tool": "mpi4py", "collective": ..., "bytes": S, "count": ..., "nranks": ..., "ops_per_sample": k,
     "samples": n, "time_us": <mean per op, averaged over ranks>, "median_us": <median sample, averaged over
     ranks>, "min_us": ..., "max_us": ..., "wrong": <elements that differ from the expected value>,
     "rank0_samples_us": [rank 0's time per operation of each sample],
     "buffer_bytes": <send + receive bytes per rank>, "buffer_huge_page_bytes": <the smallest, over the ranks, of
     their huge-page bytes (AnonHugePages of the mappings holding them, read after the samples); null for mmap
     views>}
"""

import argparse
import array
import functools
import json
import math
import mmap
import sys
import time

import mpi4py

THREAD_LEVELS = ("single", "funneled", "serialized", "multiple")


def requested_thread_level(argv):
    """--mpi-thread's value (single unless given), read before MPI is imported; main() checks it again."""
    for i, arg in enumerate(argv):
        if arg == "--mpi-thread" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--mpi-thread="):
            return arg.split("=", 1)[1]
    return "single"


mpi4py.rc.thread_level = requested_thread_level(sys.argv[1:])  # must be set before MPI is imported
from mpi4py import MPI  # noqa: E402

TARGET_SAMPLE_SECONDS = 0.5e-3  # same constants as src/core/comm/sampler.cpp
MAX_OPS_PER_SAMPLE = 10000
PROBE_SECONDS = 0.05e-3
PROBE_REPEATS = 2
FLOAT_BYTES = 4

COLLECTIVES = ("allreduce", "reduce-scatter", "allgather")
CHECK_CHUNK = 1 << 18  # elements filled / compared at a time (1 MiB)


def parse_size(text):
    """Bytes from '64M', '8', '1K', '2GiB' (binary suffixes, like distbench's parse_size)."""
    t = text.strip()
    digits = 0
    while digits < len(t) and t[digits].isdigit():
        digits += 1
    if digits == 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size")
    suffix = t[digits:].lower()
    shifts = {"": 0, "b": 0, "k": 10, "m": 20, "g": 30, "t": 40}
    unit = suffix[:1]
    rest = suffix[1:]
    if unit not in shifts or (unit not in ("", "b") and rest not in ("", "b", "ib")) or (unit == "b" and rest):
        raise argparse.ArgumentTypeError(f"'{text}' is not a size")
    return int(t[:digits]) << shifts[unit]


def size_sweep(min_bytes, max_bytes, factor):
    """distbench's size_sweep (multiplicative form): floor(size * factor), at least size + 1."""
    sizes = []
    size = min_bytes
    while size <= max_bytes:
        sizes.append(size)
        size = max(size + 1, int(math.floor(size * factor)))
    return sizes


def shape(collective, size_bytes, nranks):
    """(count, send elements, recv elements, reported bytes) for a requested size, or None when count is 0."""
    elements = size_bytes // FLOAT_BYTES
    if collective == "allreduce":
        count = elements
        send, recv = count, count
    elif collective == "reduce-scatter":
        count = elements // nranks
        send, recv = count * nranks, count
    else:  # allgather
        count = elements // nranks
        send, recv = count, count * nranks
    if count == 0:
        return None
    reported = (count if collective == "allreduce" else count * nranks) * FLOAT_BYTES
    return count, send, recv, reported


def make_buffer(n, value, page_offset, use_numpy=False):
    """n float32 elements, all `value`, every page written (so none is faulted in during timing).

    page_offset < 0: an array.array (malloc: below glibc's 128 KiB mmap threshold from the heap, from 128 KiB in a
    map of its own with the data starting 16 bytes into a page, which is where distbench places its host buffers).
    Otherwise anonymous mmap memory starting page_offset bytes after a page boundary, whatever the size (0:
    page-aligned; 16: where malloc puts a large block by default).
    use_numpy: a numpy array from numpy's own allocator, which advises transparent huge pages (MADV_HUGEPAGE) for
    arrays of 4 MiB and more unless NUMPY_MADVISE_HUGEPAGE=0: what an mpi4py user's buffers get.
    """
    if use_numpy:
        import numpy  # only for --numpy: the peer otherwise needs no numpy
        return numpy.full(n, value, dtype=numpy.float32)
    if page_offset < 0:
        return array.array("f", [value]) * n
    skip = page_offset // FLOAT_BYTES
    # Private anonymous memory, as malloc/operator new get (mmap's default for fileno -1 is MAP_SHARED: shmem).
    mapping = mmap.mmap(-1, (max(n, 1) + skip) * FLOAT_BYTES, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    view = memoryview(mapping).cast("f")[skip:skip + n]  # the view keeps the mapping alive
    chunk = array.array("f", [value]) * min(n, CHECK_CHUNK)
    for lo in range(0, n, CHECK_CHUNK):
        hi = min(n, lo + CHECK_CHUNK)
        view[lo:hi] = chunk[:hi - lo]
    return view


def buffer_address(buf):
    """Start address of a buffer's data: numpy arrays and array.array; None for other buffers (mmap views)."""
    if hasattr(buf, "__array_interface__"):
        return buf.__array_interface__["data"][0]
    if isinstance(buf, array.array):
        return buf.buffer_info()[0]
    return None


def anon_huge_bytes(ranges):
    """Huge-page bytes (AnonHugePages, /proc/self/smaps) of the mappings that overlap any of the (start, length)
    ranges, each mapping counted once; None where smaps cannot be read (not Linux)."""
    try:
        with open("/proc/self/smaps") as f:
            text = f.read()
    except OSError:
        return None
    total, overlaps = 0, False
    for line in text.splitlines():
        head = line.split(" ", 1)[0]
        if "-" in head and ":" not in head:  # a mapping's first line, "lo-hi perms ..."
            try:
                lo, hi = (int(x, 16) for x in head.split("-"))
            except ValueError:
                continue
            overlaps = any(lo < start + length and start < hi for start, length in ranges)
        elif line.startswith("AnonHugePages:") and overlaps:
            total += int(line.split()[1]) * 1024
    return total


def make_op(comm, collective, send_spec, recv_spec):
    """A zero-argument callable running one operation; message specs are built once, outside the timed loop."""
    if collective == "allreduce":
        f = comm.Allreduce
    elif collective == "reduce-scatter":
        f = comm.Reduce_scatter_block
    else:
        f = comm.Allgather
    # functools.partial calls f from C: no Python frame of ours between the loop and mpi4py.
    if collective == "allgather":
        return functools.partial(f, send_spec, recv_spec)
    return functools.partial(f, send_spec, recv_spec, MPI.SUM)


def run_batch(op, times):
    """Seconds for `times` back-to-back operations."""
    clock = time.perf_counter
    start = clock()
    for _ in range(times):
        op()
    return clock() - start


def count_wrong_block(recv, begin, end, expected):
    """Elements of recv[begin:end] that are not `expected`, compared a chunk at a time."""
    view = memoryview(recv)
    reference = (array.array("f", [expected]) * min(CHECK_CHUNK, max(end - begin, 0))).tobytes()
    wrong = 0
    for lo in range(begin, end, CHECK_CHUNK):
        hi = min(end, lo + CHECK_CHUNK)
        if view[lo:hi].tobytes() != reference[:(hi - lo) * FLOAT_BYTES]:
            wrong += sum(1 for v in recv[lo:hi] if v != expected)
    return wrong


def count_wrong(collective, recv, count, nranks):
    """Elements of the result that differ from the exact expected values (rank r sends all r + 1)."""
    if collective in ("allreduce", "reduce-scatter"):
        return count_wrong_block(recv, 0, count, float(nranks * (nranks + 1) // 2))
    return sum(count_wrong_block(recv, r * count, (r + 1) * count, float(r + 1)) for r in range(nranks))


def measure(comm, collective, size_bytes, args):
    rank, nranks = comm.Get_rank(), comm.Get_size()
    s = shape(collective, size_bytes, nranks)
    if s is None:
        return None
    count, send_n, recv_n, reported = s
    # array * n writes every element, so all pages are touched before timing (distbench fills its buffers too).
    send = make_buffer(send_n, float(rank + 1), args.page_offset, args.numpy)
    recv = make_buffer(recv_n, 0.0, args.page_offset, args.numpy)
    # Explicit [buffer, count, type] specs. The count is the one MPI takes, per rank for the partitioned side
    # (mpi4py checks it against the buffer: Reduce_scatter_block's send holds nranks blocks of `count`,
    # Allgather's receive holds nranks blocks of `count`).
    op = make_op(comm, collective, [send, count, MPI.FLOAT], [recv, count, MPI.FLOAT])

    if args.warmup > 0:
        run_batch(op, args.warmup)
    # Calibration as distbench's: double a probe batch until it lasts PROBE_SECONDS, then keep the fastest of
    # PROBE_REPEATS more; each decision on the slowest rank's time (every rank must run the same operations).
    batch = 1
    while True:
        slowest = comm.allreduce(run_batch(op, batch), op=MPI.MAX)
        if slowest >= PROBE_SECONDS or batch >= MAX_OPS_PER_SAMPLE:
            break
        batch *= 2
    for _ in range(PROBE_REPEATS):
        slowest = min(slowest, comm.allreduce(run_batch(op, batch), op=MPI.MAX))
    per_op = slowest / batch
    if per_op <= 0:
        k = MAX_OPS_PER_SAMPLE
    else:
        k = int(min(max(math.ceil(TARGET_SAMPLE_SECONDS / per_op), 1), MAX_OPS_PER_SAMPLE))
    comm.Barrier()
    samples = [run_batch(op, k) / k for _ in range(args.iters)]

    mean = sum(samples) / len(samples)
    ordered = sorted(samples)
    mid = len(ordered) // 2
    median = ordered[mid] if len(ordered) % 2 else 0.5 * (ordered[mid - 1] + ordered[mid])
    wrong = count_wrong(collective, recv, count, nranks) if args.check else -1

    # how much of the two buffers the kernel backed with huge pages (after the samples: a later collapse counts)
    addresses = [buffer_address(send), buffer_address(recv)]
    buffer_bytes = (send_n + recv_n) * FLOAT_BYTES
    huge = None
    if None not in addresses:
        huge = anon_huge_bytes([(addresses[0], send_n * FLOAT_BYTES), (addresses[1], recv_n * FLOAT_BYTES)])
    mine = (mean, median, ordered[0], ordered[-1], wrong, huge)
    everyone = comm.gather(mine, root=0)
    if rank != 0:
        return None
    n = len(everyone)
    return {
        "tool": "mpi4py",
        "collective": collective,
        "bytes": reported,
        "count": count,
        "nranks": nranks,
        "ops_per_sample": k,
        "samples": len(samples),
        "time_us": 1e6 * sum(e[0] for e in everyone) / n,
        "median_us": 1e6 * sum(e[1] for e in everyone) / n,
        "min_us": 1e6 * min(e[2] for e in everyone),
        "max_us": 1e6 * max(e[3] for e in everyone),
        "wrong": sum(e[4] for e in everyone) if args.check else -1,
        "rank0_samples_us": [1e6 * t for t in samples],
        # send + receive bytes per rank, and the smallest huge-page share of them over the ranks (None: not known)
        "buffer_bytes": buffer_bytes,
        "buffer_huge_page_bytes": None if any(e[5] is None for e in everyone) else min(e[5] for e in everyone),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("collective", choices=COLLECTIVES)
    p.add_argument("-b", "--minbytes", type=parse_size, default=parse_size("8"))
    p.add_argument("-e", "--maxbytes", type=parse_size, default=parse_size("64M"))
    p.add_argument("-f", "--stepfactor", type=float, default=2.0)
    p.add_argument("-n", "--iters", type=int, default=20, help="timed samples per size")
    p.add_argument("-w", "--warmup", type=int, default=5, help="untimed operations before calibration")
    p.add_argument("--mpi-thread", choices=THREAD_LEVELS, default="single",
                   help="MPI's thread level, as distbench's --mpi-thread (default single)")
    p.add_argument("-c", "--check", type=int, choices=(0, 1), default=1,
                   help="count wrong result elements after the timed samples (outside the timing)")
    p.add_argument("--page-offset", type=int, default=-1, metavar="BYTES",
                   help="diagnostic: put the buffers BYTES (a multiple of 4) after a page boundary in mmap memory "
                        "(0: page-aligned; 16: where malloc and distbench put large buffers); default -1: "
                        "array.array from malloc")
    p.add_argument("--numpy", action="store_true",
                   help="numpy arrays from numpy's allocator (huge pages advised from 4 MiB, as numpy does unless "
                        "NUMPY_MADVISE_HUGEPAGE=0) instead of array.array")
    args = p.parse_args()
    if args.numpy and args.page_offset >= 0:
        p.error("--numpy and --page-offset choose the buffers two ways; give one")
    if args.stepfactor <= 1 or args.iters < 1 or args.warmup < 0 or args.minbytes < 1:
        p.error("need -f > 1, -n >= 1, -w >= 0, -b >= 1")
    if args.page_offset >= 0 and args.page_offset % FLOAT_BYTES:
        p.error("--page-offset must be a multiple of 4")

    comm = MPI.COMM_WORLD
    for size in size_sweep(args.minbytes, args.maxbytes, args.stepfactor):
        row = measure(comm, args.collective, size, args)
        if row is not None:
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
