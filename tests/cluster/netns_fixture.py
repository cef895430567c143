"""A namespace cluster of one rank a host (netns_cluster.sh) for a test module's lifetime, as run_with_fixture
(tests/support/distbench_testing.py) drives it: up() builds it and shapes the named hosts' egress (a reason to skip
where it cannot), down() removes it and its folder, leftovers() names any namespace left behind."""
import os
import shutil
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netns_cluster.sh")


def skip_reason():
    """Why this machine cannot build the cluster, or None."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    if os.geteuid() != 0:
        return "not root (network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN)"
    for tool in ["ip", "unshare", "mpirun", "sh"]:
        if shutil.which(tool) is None:
            return f"'{tool}' not found"
    probe = f"dbprobe{os.getpid()}"
    try:
        r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=20)
        if r.returncode != 0:
            return f"cannot create a network namespace: ip netns add: {r.stderr.strip() or r.returncode}"
        r = subprocess.run(["ip", "netns", "exec", probe, "unshare", "--uts", "--mount", "true"],
                           capture_output=True, text=True, timeout=20)
        if r.returncode != 0:
            return f"cannot create UTS/mount namespaces: unshare: {r.stderr.strip() or r.returncode}"
        r = subprocess.run(["ip", "-n", probe, "link", "add", "eth0", "type", "veth", "peer", "name", "eth1"],
                           capture_output=True, text=True, timeout=20)
        if r.returncode != 0:
            return f"cannot create a veth pair: {r.stderr.strip() or r.returncode}"
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"cannot create a network namespace: {e}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=20)
    return None



class NetnsCluster:
    def __init__(self, name, hosts, shaped_mbit, slots=1):
        """`name`: the folder's and the namespaces' prefix; `hosts`: how many; `shaped_mbit`: {host: Mbit/s}, or
        {"*": Mbit/s} for every host; `slots`: ranks a host."""
        self.tmp = tempfile.mkdtemp(prefix=f"distbench-{name}-")
        # The first host's ranks inherit this environment (mpirun's), the others' start from a login's (the rsh
        # agent), and mpirun forwards OMPI_* only: a caller's NCCL_* or UCX_* would make the first host the odd one
        # out of health's drift phase.
        calm = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "UCX_"))}
        self.env = dict(calm, CLUSTER_DIR=self.tmp, CLUSTER_ID=f"db{name[:4]}{os.getpid()}",
                        CLUSTER_SLOTS=str(slots))
        self.hosts = hosts
        self.shaped_mbit = shaped_mbit
        self.is_up = False

    def script(self, *args, timeout=120, check=True):
        r = subprocess.run(["sh", SCRIPT, *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
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
            r = self.script("down", timeout=60, check=False)
            if r.returncode != 0:
                sys.stderr.write(r.stderr)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def leftovers(self):
        """This cluster's namespaces still there."""
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        return [line for line in left.splitlines() if line.startswith(self.env["CLUSTER_ID"] + "-")]

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run(self, np, *args, timeout=60):
        """`mpirun -np NP ARGS` inside the cluster, bounded by mpirun's own --timeout and `timeout` + 30 s here."""
        return subprocess.run(["sh", SCRIPT, "run", "--timeout", str(timeout), "-np", str(np), *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout + 30)
