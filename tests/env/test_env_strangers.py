#!/usr/bin/env python3
"""A stranger against a real env:// job (3 plain processes with torchrun's variables): a process that speaks the
protocol (whichever version rank 0 speaks) but does not hold the job's secret, and one that floods, trickles or
holds a connection. The job must be left unharmed — or, for a rank given the wrong secret, end within -T with one
error line per process that names the connection turned away.

- a hello claiming a rank outside WORLD_SIZE is turned away (it once overflowed rank 0's heap);
- without a secret, rank 0 warns once that anyone who reaches its port can join;
- with a secret, a stranger is turned away: it never reads the table, and its abort frames end nothing;
- a flood after a valid header: rank 0 ends within -T plus slack, its peak memory bounded, and a job formed meanwhile
  forms;
- a silent or trickling connection is dropped within the handshake's budget;
- a rank given a wrong secret is turned away at once, and rank 0 names its connection at the deadline;
- a job on 127.0.0.1 listens on 127.0.0.1 only.

Environment: DISTBENCH (the binary), ENV_SOAK (the soak program, tests/env/env_soak.cpp).
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_env_launch import BINARY, SLACK, SOAK, EnvTest, error_lines  # noqa: E402

MAGIC = 0x31454244
HELLO, WELCOME, REJECT, PEER_HELLO, DATA, ABORT, BYE, CHALLENGE, ACCEPTED = range(1, 10)
HANDSHAKE_SECONDS = 5.0  # admission.hpp: kHandshakeSeconds
MAX_HANDSHAKE_BYTES = 64 * 1024
MAX_PEAK_MIB = 100  # rank 0 of `info` needs about 25 MiB; a flood may not add more than a few handshake frames


def frame(kind, payload=b""):
    return struct.pack("<IHHIIQQ", MAGIC, 1, kind, 0, 0, 0, len(payload)) + payload


def connect(port, host="127.0.0.1", deadline=10.0):
    end = time.monotonic() + deadline
    while True:
        try:
            return socket.create_connection((host, port), timeout=2)
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


class Stranger:
    """A process that speaks the env:// protocol without the job's secret. It answers rank 0's challenge when one
    comes (or, to an older rank 0 that sends none, says its hello straight away) and records every frame it gets."""

    def __init__(self, port):
        self.sock = connect(port)
        self.buffer = b""
        self.got = []  # the types of the frames received
        self.closed = False

    def read_frame(self, timeout):
        end = time.monotonic() + timeout
        while True:
            if len(self.buffer) >= 32:
                length = struct.unpack_from("<Q", self.buffer, 24)[0]
                if len(self.buffer) >= 32 + length:
                    kind = struct.unpack_from("<H", self.buffer, 6)[0]
                    payload = self.buffer[32:32 + length]
                    self.buffer = self.buffer[32 + length:]
                    self.got.append(kind)
                    return kind, payload
            left = end - time.monotonic()
            if left <= 0 or self.closed:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return None
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                return None
            self.buffer += chunk

    def hello(self, rank, world, claims_secret=False, extra=None):
        """Claims `rank` of `world`, with a proof that is not one (random bytes) when it claims a secret."""
        challenge = self.read_frame(1.0)
        body = {"rank": rank, "world_size": world, "host": "stranger", "port": 0, "pid": 4242, "run_id": ""}
        body.update(extra or {})
        if challenge and challenge[0] == CHALLENGE:
            body.update(protocol="distbench-env/2", nonce=os.urandom(32).hex(), secret=claims_secret)
            payload = (os.urandom(32) if claims_secret else bytes(32)) + json.dumps(body).encode()
        else:  # a rank 0 that challenges nobody
            body.update(protocol="distbench-env/1")
            payload = json.dumps(body).encode()
        self.send(frame(HELLO, payload))

    def send(self, data):
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            return False

    def listen(self, seconds):
        """Every frame that comes within `seconds` (or until the connection closes)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and self.read_frame(end - time.monotonic()):
            pass
        return self.got

    def close(self):
        self.sock.close()


class Flood:
    """Eight connections at once to `port`, each a valid hello header announcing the most a hello may hold, then a
    stream without end, as fast as this machine sends; each connection that is dropped is opened again."""

    def __init__(self, port):
        self.port = port
        self.stop = threading.Event()
        self.sent = 0
        self.threads = [threading.Thread(target=self.run, daemon=True) for _ in range(8)]

    def run(self):
        head = struct.pack("<IHHIIQQ", MAGIC, 1, HELLO, 0, 0, 0, MAX_HANDSHAKE_BYTES)
        chunk = b"x" * (1 << 20)
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(head)
                    while not self.stop.is_set():
                        s.sendall(chunk)
                        self.sent += len(chunk)
            except OSError:
                time.sleep(0.01)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        for t in self.threads:
            t.join(5)


class Measured:
    """A process whose peak memory is measured (wait4's rusage); its stdout and stderr together."""

    def __init__(self, argv, env):
        self.out = tempfile.TemporaryFile()
        self.began = time.monotonic()
        self.proc = subprocess.Popen(argv, env=env, stdout=self.out, stderr=self.out)

    def wait(self, timeout):
        """(exit code or None when it ran past `timeout` and was killed, output, seconds, peak memory in MiB)"""
        end = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid or time.monotonic() > end:
                break
            time.sleep(0.05)
        took = time.monotonic() - self.began
        if not pid:
            self.proc.kill()
            _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.out.seek(0)
        text = self.out.read().decode(errors="replace")
        self.out.close()
        return (self.proc.returncode if pid else None), text, took, usage.ru_maxrss / 1024


def listening(pid):
    """The (address, port) of every TCP socket `pid` listens on, from /proc: addresses as /proc/net/tcp* writes them
    (hex), e.g. ('0100007F', 29500) for 127.0.0.1, ('00000000000000000000000000000000', 29500) for [::]."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            next(f)
            for line in f:
                fields = line.split()
                address, port = fields[1].split(":")
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    found.append((address, int(port, 16)))
    return found


class Strangers(EnvTest):
    T = 4

    def secret_file(self, text):
        f = tempfile.NamedTemporaryFile("w", prefix="distbench-secret-", delete=False)
        f.write(text + "\n")
        f.close()
        self.addCleanup(os.unlink, f.name)
        return {"DISTBENCH_JOB_SECRET_FILE": f.name}

    def assert_formed(self, res):
        for r in range(3):
            self.assertEqual(res[r][0], 0, f"rank {r}: {res[r][2]}")
            self.assertEqual(error_lines(res[r][2]), [], f"rank {r}")
        self.assertIn("ranks: 3 on 1 host", res[0][1])

    def test_a_rank_outside_the_world_is_turned_away(self):
        job = self.job(3)
        job.start(0, [BINARY, "info", "-T", "30"])
        answers = []
        for rank in (3, 5, 1000, (1 << 20) - 1):
            s = Stranger(job.port)
            s.hello(rank, 3)
            answers.append((rank, s.listen(2.0)))
            s.close()
        job.start(1, [BINARY, "info", "-T", "30"])
        job.start(2, [BINARY, "info", "-T", "30"])
        self.assert_formed(job.finish(40))
        for rank, got in answers:
            self.assertNotIn(WELCOME, got, f"RANK={rank} read the table")
            self.assertIn(REJECT, got, f"RANK={rank} was not told why it is turned away")

    def test_without_a_secret_rank0_warns_once(self):
        job = self.job(2)
        for r in range(2):
            job.start(r, [BINARY, "info", "-T", "30"])
        res = job.finish(40)
        for r in range(2):
            self.assertEqual(res[r][0], 0, res[r][2])
        warnings = [line for line in res[0][2].splitlines() if line.startswith("warning:")]
        self.assertEqual(len(warnings), 1, res[0][2])
        self.assertRegex(warnings[0], rf"^warning: rank 0 \(\S+\): no job secret is set: any process that can reach "
                                      rf"127\.0\.0\.1:{job.port} \(MASTER_PORT\) can join this job as a rank, read its "
                                      r"table of ranks, or end it; .*DISTBENCH_JOB_SECRET_FILE.*DISTBENCH_JOB_SECRET")
        self.assertNotIn("warning:", res[1][2], "rank 0 alone says it")
        # with a secret, no warning
        job = self.job(2)
        secret = self.secret_file("a secret of more than sixteen bytes")
        for r in range(2):
            job.start(r, [BINARY, "info", "-T", "30"], env=secret)
        res = job.finish(40)
        for r in range(2):
            self.assertEqual(res[r][0], 0, res[r][2])
            self.assertNotIn("warning:", res[r][2])

    def test_with_a_secret_a_stranger_cannot_join_read_the_table_or_abort(self):
        job = self.job(3)
        secret = self.secret_file("the job's own secret, 32 bytes..")
        job.start(0, [BINARY, "info", "-T", "30"], env=secret)
        job.start(1, [BINARY, "info", "-T", "30"], env=secret)
        strangers = []
        # claims a rank with a proof that is none; claims one without a secret; claims one with an abort to follow
        for rank, claims_secret in ((2, True), (2, False), (1, True)):
            s = Stranger(job.port)
            s.hello(rank, 3, claims_secret)
            s.send(frame(ABORT, json.dumps({"code": 6, "reason": "a stranger ends the job"}).encode()))
            strangers.append(s)
        aborter = Stranger(job.port)  # an abort as its first word
        aborter.read_frame(1.0)
        aborter.send(frame(ABORT, json.dumps({"code": 255, "reason": "a stranger ends the job"}).encode()))
        strangers.append(aborter)
        # rank 1's own listener, while rank 1 waits for rank 2: a stranger there may not abort either
        time.sleep(0.5)
        rank1_ports = [port for _, port in listening(job.procs[1].pid)]
        for port in rank1_ports:
            s = Stranger(port)
            s.send(frame(PEER_HELLO, bytes(32) + json.dumps({"rank": 2, "nonce": "00" * 32, "token": 0}).encode()))
            s.send(frame(ABORT, json.dumps({"code": 3, "reason": "a stranger ends the job"}).encode()))
            strangers.append(s)
        job.start(2, [BINARY, "info", "-T", "30"], env=secret)
        res = job.finish(40)
        got = [s.listen(1.0) for s in strangers]
        for s in strangers:
            s.close()
        self.assert_formed(res)
        self.assertNotIn("warning:", res[0][2])
        for i, frames in enumerate(got):
            self.assertNotIn(WELCOME, frames, f"stranger {i} read the table")
        for i in range(3):
            self.assertIn(REJECT, got[i], f"stranger {i} was not told why it is turned away")

    def test_a_flood_ends_within_T_with_bounded_memory(self):
        T = self.T
        job = self.job(3)
        with Flood(job.port) as flood:
            measured = Measured([BINARY, "info", "-T", str(T)], self.env_of(job, 0))
            code, err, took, peak_mib = measured.wait(T + 30)
        print(f"\n  flood: {flood.sent >> 20} MiB sent; rank 0 alone ended after {took:.1f} s (-T {T}), peak memory "
              f"{peak_mib:.0f} MiB", file=sys.stderr)
        self.assertIsNotNone(code, f"rank 0 still ran {T + 30} s after -T {T}")
        self.assertEqual(code, 4, err)
        self.assertLess(took, T + SLACK, "rank 0 ends within -T, whatever the flood")
        self.assertLess(peak_mib, MAX_PEAK_MIB, f"rank 0's peak memory under a flood of {flood.sent >> 20} MiB")
        self.assertEqual(len(error_lines(err)), 1, err)
        self.assertIn("did not join rank 0", err)

    def test_a_job_forms_during_a_flood(self):
        job = self.job(3)
        with Flood(job.port) as flood:
            measured = Measured([BINARY, "info", "-T", "30"], self.env_of(job, 0))
            time.sleep(1.0)
            job.start(1, [BINARY, "info", "-T", "30"])
            job.start(2, [BINARY, "info", "-T", "30"])
            code, out, took, peak_mib = measured.wait(40)
            res = job.finish(40)
        print(f"\n  flood: {flood.sent >> 20} MiB sent; the job formed in {took:.1f} s, rank 0's peak memory "
              f"{peak_mib:.0f} MiB", file=sys.stderr)
        self.assertEqual(code, 0, out)
        self.assertIn("ranks: 3 on 1 host", out)
        self.assertLess(peak_mib, MAX_PEAK_MIB, f"rank 0's peak memory under a flood of {flood.sent >> 20} MiB")
        for r in (1, 2):
            self.assertEqual(res[r][0], 0, res[r][2])

    def test_a_silent_or_trickling_connection_is_dropped(self):
        job = self.job(3)
        job.start(0, [BINARY, "info", "-T", "30"])
        silent = Stranger(job.port)
        silent.send(frame(HELLO, b"")[:10])  # a header begun, never finished
        trickle = Stranger(job.port)
        began = time.monotonic()
        hello = frame(HELLO, bytes(32) + b'{"protocol": "distbench-env/2"}')
        closed_at = {}
        for i in range(int((HANDSHAKE_SECONDS + 4) / 0.25)):
            if i < len(hello) and not trickle.send(hello[i:i + 1]):
                closed_at.setdefault("trickle", time.monotonic() - began)
            for name, s in (("silent", silent), ("trickle", trickle)):
                if name not in closed_at:
                    s.read_frame(0.25 / 2)
                    if s.closed:
                        closed_at[name] = time.monotonic() - began
            if len(closed_at) == 2:
                break
        for name in ("silent", "trickle"):
            self.assertIn(name, closed_at, f"rank 0 held the {name} connection for {HANDSHAKE_SECONDS + 4} s")
            self.assertLess(closed_at[name], HANDSHAKE_SECONDS + 3)
        silent.close()
        trickle.close()
        job.start(1, [BINARY, "info", "-T", "30"])
        job.start(2, [BINARY, "info", "-T", "30"])
        self.assert_formed(job.finish(40))

    def test_a_rank_with_a_wrong_secret_is_turned_away_and_named(self):
        job = self.job(3)
        right = self.secret_file("the job's own secret, 32 bytes..")
        for r in (0, 1):
            job.start(r, [BINARY, "info", "-T", str(self.T)], env=right)
        job.start(2, [BINARY, "info", "-T", str(self.T)], env={"DISTBENCH_JOB_SECRET": "not the job's secret at all"})
        res = job.finish(self.T + 30)
        code, _, err, took = res[2]
        self.assertEqual(code, 2, err)
        self.assertEqual(len(error_lines(err)), 1, err)
        self.assertRegex(error_lines(err)[0], r"^error: rank 2 \(\S+\): rank 0 at 127\.0\.0\.1:\d+ \(MASTER_PORT\) "
                                              r"turned this process away: this process's job secret is not the one "
                                              r"of rank 0")
        self.assertLess(took, SLACK, "turned away at once, not at -T")
        self.assert_one_error_each({r: res[r] for r in (0, 1)}, 4, r"rank 2 did not join rank 0")
        self.assertRegex(error_lines(res[0][2])[0], r"turned away: a connection from 127\.0\.0\.1:\d+ claiming rank 2 "
                                                    r"with a wrong job secret")
        for r in (0, 1):
            self.assertLess(res[r][3], self.T + SLACK)

    def test_a_job_on_127_0_0_1_listens_there_only(self):
        job = self.job(3)
        for r in (0, 1):
            job.start(r, [BINARY, "info", "-T", "30"])
        end = time.monotonic() + 10
        ports = {}
        while time.monotonic() < end and len(ports) < 2:  # rank 1 opens its listener once it reached rank 0
            for r in (0, 1):
                found = listening(job.procs[r].pid)
                if found:
                    ports[r] = found
            time.sleep(0.1)
        self.assertEqual(sorted(ports), [0, 1], ports)
        for r, found in ports.items():
            for address, port in found:
                self.assertEqual(address, "0100007F", f"rank {r} listens on {address}:{port}, not 127.0.0.1")
                with socket.socket() as other:  # another address of this host: nobody there
                    other.settimeout(2)
                    self.assertNotEqual(other.connect_ex(("127.0.0.2", port)), 0,
                                        f"rank {r}'s port {port} answers on 127.0.0.2")
        self.assertIn(job.port, [port for _, port in ports[0]])
        job.start(2, [BINARY, "info", "-T", "30"])
        self.assert_formed(job.finish(40))

    def env_of(self, job, rank):
        """The environment of a rank whose memory is measured. Under AddressSanitizer (scripts/sanitize.sh), freed
        memory waits in a quarantine of up to 256 MiB before it is reused, which would count every connection the
        flood made: the quarantine is kept small, so that the peak still says what the process holds."""
        from launch import torchrun_env
        env = torchrun_env(rank, job.world, "127.0.0.1", job.port)
        if os.environ.get("DISTBENCH_SANITIZERS"):
            env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=16"
        return env


def main():
    for name, path in (("DISTBENCH", BINARY), ("ENV_SOAK", SOAK)):
        if not path or not os.access(path, os.X_OK):
            print(f"error: set {name} to the program's path (got '{path}')", file=sys.stderr)
            return 1
    prog = unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]], exit=False)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
