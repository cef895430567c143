#!/usr/bin/env python3
"""distbench's env:// connector as torchrun-style launchers start it: N plain processes with MASTER_ADDR, MASTER_PORT,
RANK and WORLD_SIZE, no MPI. The job forms and `info` sees it; a launch that cannot work ends within -T, each process
with one error line naming its rank and host; a peer that dies, stops or fails mid-run ends the others (env_soak keeps
the connector busy); stray connections to rank 0's port do not disturb the rendezvous.

Environment: DISTBENCH (the binary), ENV_SOAK (the soak program, tests/env/env_soak.cpp).
"""
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import free_port, torchrun_env  # noqa: E402

BINARY = os.environ.get("DISTBENCH", "")
SOAK = os.environ.get("ENV_SOAK", "")
SLACK = 5.0  # seconds a process may take past its -T to be gone, on a busy 2-core machine
ANSWER_GRACE = 5.0  # how much longer than rank 0 a rank waits for rank 0's word (rendezvous.cpp: kAnswerGrace)


def list_json():
    import json
    return json.loads(subprocess.run([BINARY, "list", "--json"], capture_output=True, text=True, check=True,
                                     timeout=30).stdout)


def built_backends():
    return {b["name"] for b in list_json()["backends"]}


def error_lines(text):
    return [line for line in text.splitlines() if line.startswith("error:")]



def port_is_free(port):
    """Whether a listening socket could take `port` on 127.0.0.1 now."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False

class Job:
    """Processes started as a torchrun-style launcher starts them; each one's exit code, output and time to end."""

    def __init__(self, world, port=None):
        self.world = world
        self.port = port or free_port()
        self.procs = {}
        self.began = time.monotonic()

    def start(self, rank, argv, world=None, env=None):
        e = torchrun_env(rank, self.world if world is None else world, "127.0.0.1", self.port)
        e.update(env or {})
        self.procs[rank] = subprocess.Popen(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return self.procs[rank]

    def finish(self, timeout):
        """{rank: (code, stdout, stderr, seconds since the job began)}; a process still running at `timeout` is
        killed and fails the test."""
        out = {}
        deadline = time.monotonic() + timeout
        for rank, p in self.procs.items():
            try:
                o, e = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                o, e = p.communicate()
                raise AssertionError(f"rank {rank} still ran after {timeout} s\n{o}\n{e}")
            out[rank] = (p.returncode, o, e, time.monotonic() - self.began)
        return out

    def kill_all(self):
        for p in self.procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()


class EnvTest(unittest.TestCase):
    def setUp(self):
        self.jobs = []

    def tearDown(self):
        for job in self.jobs:
            job.kill_all()

    def job(self, world, port=None):
        j = Job(world, port)
        self.jobs.append(j)
        return j

    def info(self, n, *args):
        job = self.job(n)
        for r in range(n):
            job.start(r, [BINARY, "info", *args])
        return job, job.finish(60)

    def assert_one_error_each(self, results, code, pattern, rank_of=None):
        """Each process exited `code` with one error line naming its rank (rank_of: the RANK a process was given,
        where it differs from its place in the job) and its host."""
        for place, (rc, _, err, _) in results.items():
            with self.subTest(process=place):
                self.assertEqual(rc, code, err)
                lines = error_lines(err)
                self.assertEqual(len(lines), 1, err)
                self.assertRegex(lines[0], rf"^error: rank {(rank_of or {}).get(place, place)} \([^)]+\): ")
                self.assertRegex(lines[0], pattern)


class Forms(EnvTest):
    def test_info_sees_every_rank_and_the_endpoint(self):
        for n in (1, 2, 4):
            with self.subTest(n=n):
                job, res = self.info(n)
                code, out, err, _ = res[0]
                self.assertEqual(code, 0, err)
                self.assertIn(f"job formed by: env:// rendezvous at 127.0.0.1:{job.port} (MASTER_PORT)", out)
                self.assertIn(f"ranks: {n} on 1 host", out)
                self.assertRegex(out, rf"\n  \S+\s+{n} ranks?: {','.join(str(r) for r in range(n))}\n")
                self.assertIn("backend in use:", out)
                for r in range(1, n):
                    self.assertEqual(res[r][0], 0, res[r][2])
                    self.assertEqual(res[r][1], "", "only rank 0 prints")

    def test_info_json(self):
        import json
        job, res = self.info(3, "--json")
        doc = json.loads(res[0][1])
        self.assertEqual(doc["connector"]["kind"], "env")
        self.assertEqual(doc["ranks"], 3)
        self.assertEqual([h["ranks"] for h in doc["hosts"]], [[0, 1, 2]])
        mpi = [b for b in doc["backends"] if b["name"] == "mpi"]
        if mpi:
            self.assertFalse(mpi[0]["available"])
            self.assertIn("MPI launcher", mpi[0]["reason"])

    def test_slurms_variables_form_the_job(self):
        # What srun --mpi=none gives 2 tasks, and no torchrun variable: env:// forms the job from Slurm's (auto does
        # so in a build without MPI), rank 0 on the step's first node at the port derived from the job and step ids
        # (one picked free here: 20000 + 10 x (job mod 1000) + step mod 10).
        launcher = "env" if "mpi" in built_backends() else "auto"
        port = next((p for p in range(20000 + os.getpid() % 10000, 30000) if port_is_free(p)), None)
        if port is None:
            self.skipTest("no free port from 20000 to 29999")
        job_id, step_id = 5000 + (port - 20000) // 10, (port - 20000) % 10
        job = self.job(2, port)
        for r in range(2):
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("SLURM_", "OMPI_", "PMIX_", "PMI_")) and k not in (
                       "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")}
            env.update(SLURM_JOB_ID=str(job_id), SLURM_STEP_ID=str(step_id), SLURM_PROCID=str(r),
                       SLURM_STEP_NUM_TASKS="2", SLURM_STEP_NODELIST="127.0.0.1", SLURM_NODEID="0",
                       SLURM_LOCALID=str(r), SLURM_STEP_TASKS_PER_NODE="2")
            job.procs[r] = subprocess.Popen([BINARY, "info", "--launcher", launcher, "-T", "30"], env=env,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        res = job.finish(40)
        self.assertEqual([res[r][0] for r in range(2)], [0, 0], res)
        self.assertIn(f"job formed by: env:// rendezvous at 127.0.0.1:{port} (from Slurm's variables: job {job_id} "
                      f"step {step_id})\n", res[0][1])
        self.assertIn("ranks: 2 on 1 host", res[0][1])
        self.assertIn("no job secret is set", res[0][2])  # Slurm gives none

    def test_rank0_may_start_last(self):
        job = self.job(3)
        job.start(1, [BINARY, "info", "-T", "30"])
        job.start(2, [BINARY, "info", "-T", "30"])
        time.sleep(1.5)
        job.start(0, [BINARY, "info", "-T", "30"])
        res = job.finish(40)
        self.assertEqual([res[r][0] for r in range(3)], [0, 0, 0], res)
        self.assertIn("ranks: 3 on 1 host", res[0][1])

    def test_the_agents_store_port_is_left_to_torchrun(self):
        # torchrun's agent serves its store on MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True): rank 0 takes the
        # next port, and a process listening on MASTER_PORT does not disturb it.
        job = self.job(2)
        # A free port whose next port is free too: the test needs both, and an ephemeral port's neighbour may be in
        # use (a clean-clone CI run found it taken, and rank 0 refused, rightly). Probed, then released for rank 0
        # to take; what remains is the short race with another process taking it meanwhile.
        agent = None
        for _ in range(50):
            candidate = socket.socket()
            candidate.bind(("127.0.0.1", 0))
            job.port = candidate.getsockname()[1]
            if job.port < 65535 and port_is_free(job.port + 1):
                agent = candidate
                break
            candidate.close()
        if agent is None:
            self.skipTest("no free port with a free next port in 50 tries")
        with agent:
            agent.listen(8)
            for r in range(2):
                job.start(r, [BINARY, "info", "-T", "20"], env={"TORCHELASTIC_USE_AGENT_STORE": "True"})
            res = job.finish(30)
        self.assertEqual(res[0][0], 0, res[0][2])
        self.assertEqual(res[1][0], 0, res[1][2])
        self.assertIn(f"127.0.0.1:{job.port + 1} (MASTER_PORT + 1, as torchrun's agent store holds MASTER_PORT)",
                      res[0][1])

    def test_a_benchmark_needs_a_backend_that_runs_with_the_job(self):
        if built_backends() & {"nccl"} and any(b["available"] for b in list_json()["backends"] if b["name"] == "nccl"):
            self.skipTest("a GPU is visible: nccl runs with env://")
        if "mpi" in built_backends():
            cases = ((["allreduce"], 5, r"no backend of this build can run here.*mpi: it needs processes started by an "
                                        r"MPI launcher"),
                     (["allreduce", "--backend", "mpi"], 5, r"backend 'mpi' cannot run here: it needs processes started "
                                                            r"by an MPI launcher"))
        else:
            cases = ((["allreduce"], 5, r"no backend of this build can run here"),
                     (["allreduce", "--backend", "mpi"], 2, r"backend 'mpi' is not built into this distbench"))
        for args, code, pattern in cases:
            with self.subTest(args=args):
                job = self.job(2)
                for r in range(2):
                    job.start(r, [BINARY, *args])
                res = job.finish(60)
                self.assertEqual([res[r][0] for r in range(2)], [code, code], res)
                # found alike by every rank: each process's own output (torchrun's logs) says it once, rank 1's
                # line named
                self.assertEqual(len(error_lines(res[0][2])), 1, res)
                self.assertRegex(error_lines(res[0][2])[0], pattern)
                self.assertEqual(len(error_lines(res[1][2])), 1, res)
                self.assertRegex(error_lines(res[1][2])[0], "^error: rank 1: .*" + pattern)


class WrongLaunches(EnvTest):
    T = 3

    def test_a_rank_outside_the_world(self):
        job = self.job(3)
        for r in (0, 1):
            job.start(r, [BINARY, "info", "-T", str(self.T)])
        bad = job.start(2, [BINARY, "info", "-T", str(self.T)], env={"RANK": "7"})
        res = job.finish(self.T + 30)
        code, _, err, took = res[2]
        self.assertEqual(code, 2, err)
        self.assertEqual(error_lines(err), ["error: RANK='7' is not a whole number from 0 to 2; it must be this "
                                            "process's rank, below WORLD_SIZE=3"])
        del bad
        self.assert_one_error_each({r: res[r] for r in (0, 1)}, 4, r"rank 2 did not join rank 0 at 127\.0\.0\.1:\d+ "
                                                                   r"\(MASTER_PORT\) within 3 s")
        for r in (0, 1):
            self.assertLess(res[r][3], self.T + SLACK)

    def test_two_processes_claim_one_rank(self):
        job = self.job(3)
        job.start(0, [BINARY, "info", "-T", "30"])
        job.start(1, [BINARY, "info", "-T", "30"])
        time.sleep(0.5)
        job.start(2, [BINARY, "info", "-T", "30"], env={"RANK": "1"})
        res = job.finish(40)
        self.assert_one_error_each(res, 2, r"RANK=1 is claimed by two processes, on \S+ \(pid \d+\) and on \S+ "
                                           r"\(pid \d+\): give each process its own RANK", rank_of={2: 1})
        for r in res:
            self.assertLess(res[r][3], 20, "a clash ends the rendezvous at once, not at -T")

    def test_world_sizes_differ(self):
        job = self.job(2)
        job.start(0, [BINARY, "info", "-T", "30"])
        job.start(1, [BINARY, "info", "-T", "30"], world=3)
        res = job.finish(40)
        self.assert_one_error_each(res, 2, r"has WORLD_SIZE=3, rank 0 has WORLD_SIZE=2: every process must be given "
                                           r"the same WORLD_SIZE")

    def test_a_peer_that_never_arrives(self):
        job = self.job(3)
        for r in (0, 1):
            job.start(r, [BINARY, "info", "-T", str(self.T)])
        res = job.finish(self.T + 30)
        self.assert_one_error_each(res, 4, r"rank 2 did not join rank 0 .* within 3 s \(-T/--timeout\); 2 of 3 did")
        for r in res:
            self.assertGreater(res[r][3], self.T - 0.5)
            self.assertLess(res[r][3], self.T + SLACK)

    def test_rank0s_port_in_use(self):
        with socket.socket() as other:
            other.bind(("0.0.0.0", 0))
            other.listen(8)
            job = self.job(2, port=other.getsockname()[1])
            for r in range(2):
                job.start(r, [BINARY, "info", "-T", str(self.T)])
            res = job.finish(self.T + 30)
        code, _, err, took = res[0]
        self.assertEqual(code, 2, err)
        self.assertEqual(len(error_lines(err)), 1, err)
        self.assertRegex(err, rf"error: rank 0 \(\S+\): port {job.port} \(MASTER_PORT\) is in use by another process")
        self.assertLess(took, SLACK)
        # rank 1 reached whatever listens there, and nothing that speaks the protocol answered
        code, _, err, took = res[1]
        self.assertEqual(code, 4, err)
        self.assertEqual(len(error_lines(err)), 1, err)
        self.assertIn("did not complete the rendezvous within 3 s", err)
        self.assertLess(took, self.T + ANSWER_GRACE + SLACK)

    def test_nobody_listens(self):
        job = self.job(2)
        job.start(1, [BINARY, "info", "-T", str(self.T)])
        res = job.finish(self.T + 30)
        self.assert_one_error_each(res, 4, r"could not reach rank 0 at 127\.0\.0\.1:\d+ \(MASTER_PORT\) within 3 s "
                                           r"\(-T/--timeout\): connect to 127\.0\.0\.1:\d+: Connection refused")

    def test_missing_and_bad_variables(self):
        for env, pattern in (({"MASTER_ADDR": ""}, r"^error: MASTER_ADDR is not set"),
                             ({"MASTER_PORT": "http"}, r"^error: MASTER_PORT='http' is not a whole number from 1 to "
                                                       r"65535"),
                             ({"WORLD_SIZE": "0"}, r"^error: WORLD_SIZE='0' is not a whole number")):
            with self.subTest(env=env):
                job = self.job(1)
                job.start(0, [BINARY, "info", "--launcher", "env"], env=env)
                res = job.finish(20)
                self.assertEqual(res[0][0], 2, res[0][2])
                self.assertEqual(len(error_lines(res[0][2])), 1, res[0][2])
                self.assertRegex(res[0][2], pattern)


class Strays(EnvTest):
    def connect(self, port, deadline=10):
        end = time.monotonic() + deadline
        while True:
            try:
                return socket.create_connection(("127.0.0.1", port), timeout=2)
            except OSError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.05)

    def test_stray_connections_do_not_disturb_the_rendezvous(self):
        job = self.job(3)
        job.start(0, [BINARY, "info", "-T", "60"])
        held = []
        magic = struct.pack("<IHHII", 0x31454244, 1, 1, 0, 0)  # a hello's first 16 bytes
        strays = [
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",                        # a web client
            magic + struct.pack("<QQ", 0, 1 << 40),                     # a hello announcing a terabyte
            magic + struct.pack("<QQ", 0, 9) + b"not json!",            # a hello that is not JSON
            magic + struct.pack("<QQ", 0, 2) + b"{}",                   # a hello without the fields
            struct.pack("<IHHII", 0x31454244, 1, 5, 0, 0) + struct.pack("<QQ", 0, 4) + b"data",  # data, unasked
            b"\x00" * 7,                                                # too short, then gone
            b"",                                                        # connect and close
        ]
        for payload in strays:
            s = self.connect(job.port)
            if payload:
                s.sendall(payload)
            s.close()
        for _ in range(300):  # silent connections, held open: more than rank 0 keeps waiting at once
            held.append(self.connect(job.port))
        job.start(1, [BINARY, "info", "-T", "60"])
        job.start(2, [BINARY, "info", "-T", "60"])
        res = job.finish(70)
        for s in held:
            s.close()
        for r in range(3):
            self.assertEqual(res[r][0], 0, res[r][2])
            self.assertEqual(error_lines(res[r][2]), [])
        self.assertIn("ranks: 3 on 1 host", res[0][1])


class MidRun(EnvTest):
    """env_soak: allgathers and barriers, checked, until told to stop; a peer killed, stopped or failing."""
    N = 4
    T = 3

    def soak(self, seconds=60, fail=None):
        job = self.job(self.N)
        extra = [str(fail[0]), str(fail[1])] if fail else []
        for r in range(self.N):
            job.start(r, [SOAK, str(seconds), str(self.T), *extra])
        # every rank has formed the job when it says so on stdout
        for r, p in job.procs.items():
            line = p.stdout.readline()
            self.assertRegex(line, rf"^rank {r} of {self.N} formed the job", f"rank {r}")
        return job

    def test_a_killed_peer_ends_the_others_with_one_line_each(self):
        for victim in (2, 0):
            with self.subTest(victim=victim):
                job = self.soak()
                time.sleep(0.5)
                job.procs[victim].kill()
                killed_at = time.monotonic()
                res = job.finish(30)
                survivor = 1 if victim == 0 else 0
                for r, (code, _, err, _) in res.items():
                    if r == victim:
                        self.assertEqual(code, -signal.SIGKILL)
                        continue
                    self.assertEqual(code, 1, err)
                    self.assertLess(res[r][3] - (killed_at - job.began), SLACK, "ended at once, not at -T")
                    # one line each: the loss as this rank saw it, or the word of the rank that speaks for the job
                    lines = error_lines(err)
                    self.assertEqual(len(lines), 1, err)
                    self.assertRegex(lines[0], rf"^error: rank {r} \(\S+\): (rank {survivor} \(\S+\) ended the job "
                                               r"\(exit 1, its word over the connection from 127\.0\.0\.1:\d+\): )?"
                                               rf"rank {victim} \(\S+\) left the job without a goodbye")
                self.assertRegex(error_lines(res[survivor][2])[0],
                                 rf"^error: rank {survivor} \(\S+\): rank {victim} \(\S+\) left the job without a "
                                 r"goodbye")

    def test_a_failing_rank_ends_the_job_with_its_code(self):
        job = self.soak(fail=(2, 0.5))
        res = job.finish(30)
        # the failing rank in its own words; every other rank names it and the connection its word came over
        self.assertEqual(error_lines(res[2][2]), [error_lines(res[2][2])[0]], res[2][2])
        self.assertRegex(error_lines(res[2][2])[0], r"^error: rank 2 \(\S+\): soak: failing on purpose")
        for r in (0, 1, 3):
            lines = error_lines(res[r][2])
            self.assertEqual(len(lines), 1, res[r][2])
            self.assertRegex(lines[0], rf"^error: rank {r} \(\S+\): rank 2 \(\S+\) ended the job \(exit 3, its word "
                                       r"over the connection from 127\.0\.0\.1:\d+\): soak: failing on purpose")
        self.assertEqual({res[r][0] for r in res}, {3}, "every rank leaves with the failing rank's code")

    def test_a_stopped_peer_is_named_and_goes_when_continued(self):
        job = self.soak()
        time.sleep(0.5)
        job.procs[3].send_signal(signal.SIGSTOP)
        stopped_at = time.monotonic()
        others = {r: p for r, p in job.procs.items() if r != 3}
        res = {}
        for r, p in others.items():
            o, e = p.communicate(timeout=self.T + 30)
            res[r] = (p.returncode, o, e, time.monotonic() - stopped_at)
        # rank 0, which waited, names the stopped rank; the others name rank 0's word and its connection
        for r in res:
            self.assertEqual(len(error_lines(res[r][2])), 1, res[r][2])
        self.assertRegex(error_lines(res[0][2])[0], r"^error: rank 0 \(\S+\): (barrier|allgather): rank 3 \(\S+\) "
                                                    r"sent nothing in time")
        for r in (1, 2):
            self.assertRegex(error_lines(res[r][2])[0],
                             rf"^error: rank {r} \(\S+\): rank 0 \(\S+\) ended the job \(exit 4, its word over the "
                             r"connection from 127\.0\.0\.1:\d+\): (barrier|allgather): rank 3 \(\S+\) sent nothing in time")
        for r, (code, _, err, took) in res.items():
            self.assertEqual(code, 4, err)
            self.assertLess(took, self.T + SLACK)
        # the stopped rank learns of the job's end as soon as it runs again
        job.procs[3].send_signal(signal.SIGCONT)
        o, e = job.procs[3].communicate(timeout=15)
        self.assertNotEqual(job.procs[3].returncode, 0, e)


def main():
    for name, path in (("DISTBENCH", BINARY), ("ENV_SOAK", SOAK)):
        if not path or not os.access(path, os.X_OK):
            print(f"error: set {name} to the program's path (got '{path}')", file=sys.stderr)
            return 1
    prog = unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]], exit=False)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
