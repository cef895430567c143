"""A namespace cluster of one rank a host (netns_cluster.sh) for a test module's lifetime, as run_with_fixture
(tests/support/distbench_testing.py) drives it: up() builds it and shapes the named hosts' egress (a reason to skip
where it cannot), down() removes it and its folder, leftovers() names any namespace left behind."""
import os
import shutil
import subprocess
import tempfile

from test_cluster import skip_reason

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netns_cluster.sh")


class NetnsCluster:
    def __init__(self, name, hosts, shaped_mbit):
        """`name`: the folder's and the namespaces' prefix; `hosts`: how many; `shaped_mbit`: {host: Mbit/s}, or
        {"*": Mbit/s} for every host."""
        self.tmp = tempfile.mkdtemp(prefix=f"distbench-{name}-")
        self.env = dict(os.environ, CLUSTER_DIR=self.tmp, CLUSTER_ID=f"db{name[:4]}{os.getpid()}", CLUSTER_SLOTS="1")
        self.hosts = hosts
        self.shaped_mbit = shaped_mbit
        self.is_up = False

    def script(self, *args, timeout=120):
        r = subprocess.run(["sh", SCRIPT, *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"netns_cluster.sh {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
        return r

    def up(self):
        why = skip_reason()
        if why:
            return why
        self.is_up = True
        self.script("up", str(self.hosts))
        shaped = self.shaped_mbit
        if "*" in shaped:
            shaped = {host: shaped["*"] for host in self.script("hosts").stdout.split()}
        for host, mbit in shaped.items():
            try:
                self.script("shape", host, str(mbit))
            except RuntimeError as e:  # a kernel without htb or the u32 classifier
                return f"cannot shape a link to {mbit} Mbit/s: {e}"
        return None

    def down(self):
        if not self.is_up:
            return
        self.is_up = False
        try:
            subprocess.run(["sh", SCRIPT, "down"], env=self.env, capture_output=True, timeout=60)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def leftovers(self):
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        return [line for line in left.splitlines() if line.startswith(self.env["CLUSTER_ID"] + "-")]

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run(self, np, *args, timeout=60):
        """`mpirun -np NP ARGS` inside the cluster, bounded by mpirun's own --timeout and `timeout` + 30 s here."""
        return subprocess.run(["sh", SCRIPT, "run", "--timeout", str(timeout), "-np", str(np), *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout + 30)
