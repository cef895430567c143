#!/usr/bin/env python3
"""Starts a program as N plain processes with torchrun's variables (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
LOCAL_RANK, LOCAL_WORLD_SIZE), as a torchrun-style launcher would, waits for all of them (bounded), ends any left
after the timeout, and exits with the first non-zero exit code by rank (0 when all succeed).

    launch.py -n N [--timeout S] [--addr A] [--port P] -- PROGRAM ARGS...

No MPI is involved: the processes form the job through distbench's env:// rendezvous.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_env(rank, world, addr, port, base=None):
    env = dict(os.environ if base is None else base)
    env.update(MASTER_ADDR=addr, MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world),
               LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world))
    for name in ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"):
        env.pop(name, None)  # an MPI launcher's variables would make distbench pick MPI
    return env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--addr", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not command:
        ap.error("no program given")
    port = a.port or free_port()
    procs = [subprocess.Popen(command, env=torchrun_env(r, a.n, a.addr, port)) for r in range(a.n)]
    deadline = time.monotonic() + a.timeout
    codes = [None] * a.n
    while time.monotonic() < deadline and any(c is None for c in codes):
        for r, p in enumerate(procs):
            if codes[r] is None:
                codes[r] = p.poll()
        time.sleep(0.05)
    late = [r for r, c in enumerate(codes) if c is None]
    for r in late:
        procs[r].send_signal(signal.SIGKILL)
        procs[r].wait()
    if late:
        print(f"launch.py: ranks {late} still ran after {a.timeout:g} s; ended them", file=sys.stderr)
        return 124
    return next((c for c in codes if c != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
