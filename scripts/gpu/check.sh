#!/usr/bin/env bash
# The GPU checklist (GPU.md), run on a GPU machine from the repository root with the bundle that
# scripts/gpu/bundle.sh made in .gpu/. Unpacks the bundled Open MPI into a prefix (never over /), finds NCCL (the
# nvidia-nccl-cu13 wheel, or NCCL_LIB), and runs the phases named (default: all). All output goes to $OUT/check.log,
# the phases' reports and full output to $OUT/work.tar.gz:
#
#   env       GPU, driver, NCCL, `distbench list` and `info` (1 and 2 ranks)
#   tests     every single-process gpu test executable, then phase mpitests
#   mpitests  test_nccl_ranks under mpirun -np 2 and 4 (the missing-peer test on its own)
#   one       1 rank: allreduce -b 8 -e 8G -f 2 against the device copy bandwidth (target >= 0.9 from 64 MiB)
#   peer      nccl-tests all_reduce_perf at the same sizes against distbench in both timings (nccl-tests' and
#             sampled; needs .gpu/peers/all_reduce_perf), and in-place alltoall on 1 rank (staging outside the events)
#   staging   1 rank: in-place alltoall (staged) against out of place, host clock and device events
#   rounds    ROUNDS (5) interleaved rounds of all_reduce_perf and distbench (ROUNDS_DB_FLAGS): ratio of medians
#             per size (+-2%)
#   ranksperf the same at 2 and 4 ranks on the one GPU (RANKS_NP; ROUNDS, default 3 here) against nccl-tests built
#             with MPI=1 (.gpu/peers/all_reduce_perf_mpi), NCCL over sockets
#   flags     1 rank: -G (CUDA graphs), -g 2 (must fail clearly on one GPU), -R (registered buffers), -m, -z
#   canary    2 ranks on the one GPU (NCCL_HOSTID per rank), one small allreduce with NCCL_DEBUG=INFO
#   timeout   -T 10 with one rank stopped (SIGSTOP), rank 1 then rank 0: the job must end within the timeout
#   ranks     2 and 4 ranks on one GPU: every collective x dtype x op x placement, #wrong = 0
#   flags2    2 ranks: -G and -R
#   latency   distbench latency over the backend, 2 and 4 ranks on the one GPU (NCCL_HOSTID per rank), #wrong = 0
#   train     distbench train on the GPU (cuBLAS, kernels, NCCL): 1 rank --check and bucket sizes, 2 ranks --check
#   tp        distbench tp on the GPU: the operations (fp32, bf16) and the layers, 1 rank and 2, --check
#   datacheck all_reduce_perf with and without its data check (-c 1, -c 0) beside distbench, 8 MiB-256 MiB, 3 rounds
#   warmup    all_reduce_perf with and without -w (its warm-up of every size) against distbench --blocks 1, both ways
#   gap       all_reduce_perf at 8 MiB-8 GiB against distbench's allocators (--alloc) and one block (--blocks 1)
#   blocks    every block's time in order (20 blocks; -w 0/1/5, cudaMalloc) at 128 MiB-1 GiB
#   cublas    why cublasCreate crashed (libraries loaded, weak symbols, a stack), and the math tests without cuBLAS
#   dropin    nccl-tests' output as a drop-in: one command line in nccl-tests' spelling run by each *_perf carried in
#             .gpu/peers and by distbench; header lines, row layout, type and operator names and footer compared
#   timings   --timing nccl-tests,sampled,osu at 1 rank and sampled,imb at 2 ranks: every case each way, #wrong = 0
#   model     NCCL_ALGO=Ring allreduce and allgather at 2, 3, 4 ranks on the one GPU; distbench model fits 2+3, predicts 4
#   sharing   2 processes on the one GPU without MPS (warning gpu_shared) and under an MPS daemon started for it
#   health    distbench health on the GPU: NVML's readings, the GPU and datasheet checks at 1 rank, --gpus-per-node 2
#             (must fail), 2 ranks on the one GPU (HEALTH_FLAGS: more options, e.g. --level long)
#   zero      distbench zero on the GPU: --check of every stage (1 rank bf16 and fp32; 2 and 4 ranks), and a large
#             model (ZERO_PARAMS, 2G) timed: update >= 0.8 of the copy bandwidth, device memory within 10% of formulas
#
# Every mpirun runs under a guard: when it outlives its limit the ranks' stacks are taken (cuda-gdb, when there)
# into $WORK/TAG.bt before the job is ended.
#
#   OUT=/tmp/out bash scripts/gpu/check.sh [PHASE ...]      (as root: Open MPI is told root is fine)
#
# Exit code: the number of failed checks (0: all passed). Environment: BUNDLE (.gpu), PFX (/tmp/distbench-pfx),
# WORK (/tmp/distbench-gpu: JSON reports, full console output), NCCL_LIB (the folder with libnccl.so.2), BACKEND
# (nccl; `mpi` rehearses the phases ranks and timeout on a machine without a GPU), MAXBYTES (8G), DEADLINE
# (seconds: phases and runs that would start later are skipped; 0: none), MPITESTS, RANKS_NP, RANKS_COLLS (subsets
# of phases mpitests and ranks; see their defaults below), MPS (1: every phase under an MPS daemon).
set -u
set -o pipefail
cd "$(dirname "$0")/../.."
BUNDLE=$(cd "${BUNDLE:-.gpu}" && pwd) || { echo "error: no bundle (run scripts/gpu/bundle.sh first)" >&2; exit 2; }
OUT=${OUT:-/tmp/distbench-gpu-out}
# the peers travel packed (bundle.sh)
[ -f "$BUNDLE/peers.tar.gz" ] && [ ! -d "$BUNDLE/peers" ] && tar -C "$BUNDLE" -xzf "$BUNDLE/peers.tar.gz"
[ -f "$BUNDLE/tests.tar.gz" ] && [ ! -d "$BUNDLE/tests" ] && tar -C "$BUNDLE" -xzf "$BUNDLE/tests.tar.gz"
PFX=${PFX:-/tmp/distbench-pfx}
WORK=${WORK:-/tmp/distbench-gpu}
BACKEND=${BACKEND:-nccl}
MAXBYTES=${MAXBYTES:-8G}  # the largest size of phases one and peer
mkdir -p "$OUT" "$WORK"
exec > >(tee -a "$OUT/check.log") 2>&1  # all output in one file: few files come back from $OUT
DEADLINE=${DEADLINE:-0}
MPITESTS=${MPITESTS:-"np2:NcclMpi/* np2:NcclMpi.AWaitForAMissingPeer* np4:NcclMpi/* np1:NcclZero.* np2:NcclZero.* np4:NcclZero.*"}  # which test_nccl_ranks runs
RANKS_NP=${RANKS_NP:-"2 4"}  # phase ranks: rank counts and collectives
RANKS_COLLS=${RANKS_COLLS:-"allreduce reduce-scatter allgather broadcast reduce alltoall gather scatter sendrecv"}
phases=${*:-env canary tests one peer rounds flags timeout ranks flags2}
# Rows of a report, schema 1 (`results`) or 2 (`records` with `params` and `metrics`), as flat dicts with the keys
# bytes, placement, dtype, op, status, skip_reason, time_shown_us, algbw_gbps, wrong. Imported by the checks below.
cat > "$WORK/report_rows.py" <<'EOF'
def rows(report):
    if "records" not in report:
        return report["results"]
    out = []
    for r in report["records"]:
        if r.get("kind", "collective") != "collective":
            continue
        m = r.get("metrics") or {}
        row = dict(r["params"])
        row.update(status=r["status"], skip_reason=r.get("skip_reason"), time_shown_us=m.get("time_us"),
                   algbw_gbps=m.get("algbw_gbps"), wrong=m.get("wrong"))
        out.append(row)
    return out
EOF
# all_reduce_perf's table and distbench's collective records, by size (and placement), for the peer comparisons.
cat > "$WORK/peer_rows.py" <<'EOF'
import json
def nccl_tests(path):
    """{bytes: {"out-of-place": time_us, "in-place": time_us, "busbw": out-of-place busbw}} from nccl-tests' table."""
    nt = {}
    for line in open(path):
        f = line.split()
        # size count type redop root | out-of-place: time algbw busbw #wrong | in-place: time algbw busbw #wrong
        if len(f) >= 13 and f[0].isdigit():
            nt[int(f[0])] = {"out-of-place": float(f[5]), "in-place": float(f[9]), "busbw": float(f[7])}
    return nt
def records(path):
    """{bytes: {placement: metrics}} of a distbench report's measured collective records."""
    out = {}
    for r in json.load(open(path))["records"]:
        if r.get("kind", "collective") == "collective" and r["status"] == "ok":
            out.setdefault(r["params"]["bytes"], {})[r["params"]["placement"]] = r["metrics"]
    return out
EOF
export PYTHONPATH="$WORK${PYTHONPATH:+:$PYTHONPATH}"
fail() { echo "CHECK FAILED: $*"; echo "$*" >> "$WORK/failures"; }  # phases run in a pipeline: count in a file
: > "$WORK/failures"

# ---- the environment -------------------------------------------------------------------------------------------
ORIG_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
py() { LD_LIBRARY_PATH="$ORIG_LD_LIBRARY_PATH" python3 "$@"; }  # the machine's Python, without the bundle's libraries

if [ ! -x "$PFX/usr/bin/mpirun" ]; then
  rm -rf "$PFX"
  mkdir -p "$PFX"
  for deb in "$BUNDLE"/debs/*.deb; do dpkg-deb -x "$deb" "$PFX"; done
  # Debian names the launchers through update-alternatives, which dpkg-deb -x does not run.
  ln -sf mpirun.openmpi "$PFX/usr/bin/mpirun"
  ln -sf mpiexec.openmpi "$PFX/usr/bin/mpiexec"
  # General-purpose libraries: keep the machine's own where it has one (newer than Debian 12's; programs of the
  # machine would otherwise load ours through LD_LIBRARY_PATH).
  for lib in libz.so.1 libudev.so.1 libatomic.so.1 libbsd.so.0 libmd.so.0 libnuma.so.1 libpciaccess.so.0 \
             libnl-3.so.200 libnl-route-3.so.200; do
    if ldconfig -p | grep -q "^[[:space:]]*$lib "; then
      rm -f "$PFX"/lib/x86_64-linux-gnu/"$lib"* "$PFX"/usr/lib/x86_64-linux-gnu/"$lib"*
    fi
  done
fi
if [ -z "${NCCL_LIB:-}" ]; then
  NCCL_LIB=$(py -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null) \
    || NCCL_LIB=""
fi
[ -n "$NCCL_LIB" ] && [ -e "$NCCL_LIB/libnccl.so.2" ] || echo "warning: libnccl.so.2 not found (NCCL_LIB='$NCCL_LIB')"
# cuBLAS (train's matrix products on the GPU; distbench opens it at run time): the toolkit's, else a wheel's.
if [ -z "${CUBLAS_LIB:-}" ]; then
  for d in "${CUDA_HOME:-/usr/local/cuda}/lib64" \
      $(py -c "import nvidia, os; print(' '.join(list(nvidia.__path__)))" 2>/dev/null); do
    f=$(find "$d" -name 'libcublas.so.13*' 2>/dev/null | head -1)
    [ -n "$f" ] && { CUBLAS_LIB=$(dirname "$f"); break; }
  done
fi
[ -n "${CUBLAS_LIB:-}" ] && NCCL_LIB="$NCCL_LIB:$CUBLAS_LIB" || echo "warning: libcublas.so.13 not found (CUBLAS_LIB)"

export PATH="$BUNDLE/bin:$PFX/usr/bin:$PATH"
LD_LIBRARY_PATH="$PFX/usr/lib/x86_64-linux-gnu/openmpi/lib:$PFX/usr/lib/x86_64-linux-gnu:$PFX/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$NCCL_LIB${ORIG_LD_LIBRARY_PATH:+:$ORIG_LD_LIBRARY_PATH}"
# Open MPI relocated: its prefix (OPAL_PREFIX), PMIx's own (Debian installs PMIx under .../pmix2, and without
# PMIX_PKGLIBDIR and PMIX_PKGDATADIR it looks for its components and help files in /usr), and what Debian's
# /etc/openmpi/openmpi-mca-params.conf would say (not read from the prefix). No ssh there: one host needs no agent.
export OPAL_PREFIX="$PFX/usr"
export PMIX_PREFIX="$PFX/usr/lib/x86_64-linux-gnu/pmix2"
export PMIX_PKGLIBDIR="$PMIX_PREFIX/lib/pmix" PMIX_PKGDATADIR="$PMIX_PREFIX/share/pmix"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_mtl='^ofi'
export OMPI_MCA_osc='^ucx,pt2pt' OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_plm_rsh_agent=false
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
MPIRUN=(mpirun --oversubscribe --bind-to none)
# Several ranks on one GPU: NCCL refuses one device twice unless each rank claims a host of its own.
HOSTID_WRAP=(sh -c 'NCCL_HOSTID=distbench-rank$OMPI_COMM_WORLD_RANK exec "$@"' sh)

time_left() { if [ "$DEADLINE" -gt 0 ]; then echo $((DEADLINE - SECONDS)); else echo 999999; fi; }
LINEBUF=(stdbuf -oL -eL)  # output of a rank that is killed is otherwise lost in its stdio buffer

children() {  # children PID: the processes whose parent is PID (no procps needed)
  local p
  for p in /proc/[0-9]*; do
    [ "$(awk '/^PPid:/ {print $2}' "$p/status" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
  done
}

backtraces() {  # backtraces PID: the state and stacks of PID's children (the ranks, for an mpirun)
  local gdb pid
  gdb=$(command -v cuda-gdb || ls "${CUDA_HOME:-/usr/local/cuda}/bin/cuda-gdb" 2>/dev/null)
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv 2>&1
  for pid in $(children "$1" | head -2); do  # two ranks at most: attaching takes time
    echo "----- pid $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" | cut -c1-200)"
    grep -E '^(State|Threads)' "/proc/$pid/status"
    for t in /proc/$pid/task/*; do echo "  task ${t##*/} $(cat "$t/comm") $(cat "$t/wchan" 2>/dev/null)"; done
    [ -n "$gdb" ] && timeout 45 "$gdb" -q -batch -p "$pid" -ex 'info threads' -ex 'thread apply all bt 30' 2>&1 \
      | grep -v '^\[New LWP' | head -400
  done
}

guarded() {  # guarded SECS TAG CMD...: CMD's output in $WORK/TAG.out; past SECS, stacks in $WORK/TAG.bt, then ended
  local secs=$1 tag=$2 job t=0 rc
  shift 2
  "$@" > "$WORK/$tag.out" 2>&1 &
  job=$!
  while [ $t -lt "$secs" ] && kill -0 $job 2>/dev/null; do sleep 1; t=$((t + 1)); done
  if kill -0 $job 2>/dev/null; then
    echo "$tag: still running after $secs s: stacks in $tag.bt (first hang only), then ending the job"
    [ -f "$WORK/stacks.taken" ] || { touch "$WORK/stacks.taken"; backtraces $job > "$WORK/$tag.bt" 2>&1; }
    kill -TERM $job 2>/dev/null; sleep 5
    for pid in $(children $job); do kill -KILL "$pid" 2>/dev/null; done
    kill -KILL $job 2>/dev/null
    wait $job
    return 124
  fi
  wait $job; rc=$?
  return $rc
}

run_phase() {  # run_phase NAME: the function phase_NAME, its output in $OUT/NAME.log
  local name=$1 t0=$SECONDS
  if [ "$(time_left)" -lt 30 ]; then
    echo "=== phase $name skipped: deadline"; echo "$name: skipped (deadline)" >> "$WORK/failures"; return
  fi
  echo "=== phase $name"
  "phase_$name" 2>&1 | tee "$WORK/$name.log"
  echo "=== phase $name done in $((SECONDS - t0)) s"
}

# ---- phases ------------------------------------------------------------------------------------------------------
phase_env() {
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version 2>/dev/null | tail -2
  py -c "import nvidia.nccl; print('nccl wheel:', list(nvidia.nccl.__path__)[0])"
  py -m pip show nvidia-nccl-cu13 2>/dev/null | grep -E '^(Name|Version)'
  echo "NCCL_LIB=$NCCL_LIB"; ls -la "${NCCL_LIB%%:*}"
  echo "CUBLAS_LIB=${CUBLAS_LIB:-}"
  echo "bundle: $(cat "$BUNDLE/SOURCE_COMMIT" 2>/dev/null)"
  ldd "$BUNDLE/bin/distbench"
  mpirun --version | head -1
  distbench --version
  distbench list
  echo "--- distbench info (singleton)"
  distbench info; echo "rc=$?"
  echo "--- mpirun -np 2 distbench info"
  "${MPIRUN[@]}" -np 2 "${HOSTID_WRAP[@]}" distbench info; echo "rc=$?"
}

gtest_summary() {  # gtest_summary NAME OUTPUT_FILE RC: counts, every test not passed with its reason; fails on skips
  py - "$@" "$(nvidia-smi -L > /dev/null 2>&1 && echo gpu || echo none)" <<'EOF'
import re, sys
name, path, rc, gpu = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "gpu"
# Under mpirun the ranks' output goes through a pseudo-terminal: gtest colours it unless told not to.
lines = re.sub(r"\x1b\[[0-9;]*m", "", open(path, errors="replace").read()).splitlines()
status, reason, current, last = {}, {}, None, []
for line in lines:
    m = re.match(r"\[ RUN      \] (\S+)", line)
    if m:
        current, last = m.group(1), []
        continue
    m = re.match(r"\[ +(OK|SKIPPED|FAILED) +\] (\S+) \(\d+ ms\)", line)
    if m and m.group(2) == current:
        status[current] = m.group(1)
        if m.group(1) != "OK":
            reason[current] = " | ".join(l.strip() for l in last if l.strip())[:300]
        current = None
    elif current:
        last.append(line)
counts = {k: sum(1 for v in status.values() if v == k) for k in ("OK", "SKIPPED", "FAILED")}
print(f"{name:<32} rc={rc} passed={counts['OK']} skipped={counts['SKIPPED']} failed={counts['FAILED']}")
for test, why in reason.items():
    print(f"    {status[test]}: {test}: {why}")
if rc != 0 and not status:
    print("    no test ran; last lines:", *lines[-8:], sep="\n    ")
# On a GPU machine a test skipped for want of a device means the device code never ran.
no_device = [t for t, why in reason.items() if status[t] == "SKIPPED" and "no CUDA device" in why]
sys.exit(1 if rc != 0 or counts["FAILED"] or (gpu and no_device) or not status else 0)
EOF
}

phase_tests() {
  local t name rc
  for t in "$BUNDLE"/tests/test_*; do
    name=$(basename "$t")
    [ "$name" = test_nccl_ranks ] && continue
    timeout 300 "$t" > "$WORK/$name.out" 2>&1; rc=$?
    gtest_summary "$name" "$WORK/$name.out" $rc || fail "$name (rc=$rc; or tests skipped on a GPU machine)"
  done
  phase_mpitests
}

phase_mpitests() {
  local - entry np filter tag secs rc
  set -f  # the filters' * are gtest's, not the shell's
  canary_failed mpitests && return
  # As tests/gpu/meson.build runs it; the test gives each rank its own NCCL_HOSTID when ranks outnumber GPUs.
  for entry in $MPITESTS; do
    np=${entry%%:*}; np=${np#np}; filter=${entry#*:}
    [ $np -eq 4 ] && [ -f "$WORK/mpitests-np2.failed" ] && { echo "np=4 $filter not run: np=2 failed"; continue; }
    [ "$(time_left)" -lt 70 ] && { echo "deadline: test_nccl_ranks np=$np $filter not run"; continue; }
    case "$filter" in
      'NcclMpi/*') tag=collectives; secs=60 ;;
      NcclMpi.AWaitForAMissingPeer*) tag=missing_peer; secs=45 ;;
      *) tag=$(echo "$filter" | tr -c 'A-Za-z0-9\n' _); secs=90 ;;
    esac
    tag="test_nccl_ranks_np$np-$tag"
    guarded $secs "$tag" "${MPIRUN[@]}" --mca mpi_yield_when_idle 1 --mca btl self,vader,tcp \
      --mca btl_tcp_if_include lo -np $np "${LINEBUF[@]}" "$BUNDLE/tests/test_nccl_ranks" --gtest_filter="$filter" \
      --gtest_color=no
    rc=$?
    gtest_summary "test_nccl_ranks -np $np $filter" "$WORK/$tag.out" $rc || fail "test_nccl_ranks np=$np $filter rc=$rc"
    if [ $rc -ne 0 ]; then
      [ $np -eq 2 ] && [ "$filter" = 'NcclMpi/*' ] && touch "$WORK/mpitests-np2.failed"
      echo "    last lines:"; tail -25 "$WORK/$tag.out" | sed 's/^/    | /'
      [ -f "$WORK/$tag.bt" ] && grep -E '^-----|^State|#[0-9]+ ' "$WORK/$tag.bt" \
        | grep -v -E ' in (poll|epoll_wait|nanosleep|clock_nanosleep|__GI___poll|sched_yield|pthread_cond_wait)' \
        | head -80 | sed 's/^/    bt /'
    fi
  done
}

canary_failed() {  # canary_failed PHASE: true (and a failure recorded) when the canary ran and failed
  [ -f "$WORK/canary.done" ] && [ ! -f "$WORK/canary.ok" ] && fail "$1: not run, the canary failed"
}

phase_canary() {
  local rc
  guarded 60 canary env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV "${MPIRUN[@]}" -np 2 "${LINEBUF[@]}" \
    "${HOSTID_WRAP[@]}" distbench allreduce --backend $BACKEND -b 8 -e 1M -f 1024 -n 3 -T 30
  rc=$?
  echo "2-rank allreduce rc=$rc"
  grep -v -E 'NCCL INFO (cudaDriverVersion|Bootstrap|comm 0x|Channel|Connected|Using network|init.cc.*Init START)' \
    "$WORK/canary.out" | head -60
  if [ $rc -ne 0 ]; then
    fail "canary: 2 ranks on one GPU rc=$rc"
    [ -f "$WORK/canary.bt" ] && head -150 "$WORK/canary.bt"
  fi
  touch "$WORK/canary.done"; [ $rc -eq 0 ] && touch "$WORK/canary.ok"
}

phase_latency() {
  local rc np
  for np in 2 4; do
    guarded 120 latency$np "${MPIRUN[@]}" -np $np "${LINEBUF[@]}" "${HOSTID_WRAP[@]}" \
      distbench latency --backend $BACKEND -b 1 -e 1M -f 4 -T 60 --json "$WORK/latency$np.json"
    rc=$?
    echo "latency np $np rc=$rc"
    cat "$WORK/latency$np.out"
    [ $rc -eq 0 ] || fail "latency np $np rc=$rc"
    py - "$WORK/latency$np.json" <<'PYEOF' || fail "latency np $np report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema_version"] == 4 and r["benchmark"] == "latency" and r["status"] == "complete", r["status"]
wrong = [x["metrics"].get("wrong") for x in r["records"]]
print("records", len(r["records"]), "backend", r["backend"], "wrong", wrong)
assert all(w == 0 for w in wrong), wrong
PYEOF
  done
}

phase_one() {
  local rc
  echo "--- distbench info (copy bandwidth)"
  distbench info | tee "$WORK/info.txt"
  echo "--- distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 2"
  distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 2 --json "$WORK/one.json"; rc=$?
  echo "rc=$rc"
  [ $rc -eq 0 ] || fail "one-rank sweep rc=$rc"
  py - "$WORK/info.txt" "$WORK/one.json" <<'EOF' || fail "algbw / copy bandwidth below 0.9"
import json, re, sys
from report_rows import rows
info = open(sys.argv[1]).read()
report = json.load(open(sys.argv[2]))
versions = report.get("environment", {}).get("versions", {}) or report.get("versions", {})
m = re.search(r"copy\.gpu0\.d2d:?\s*([\d.]+) GB/s", info)
d2d_info = float(m.group(1)) if m else None
d2d_run = None
for k, v in versions.items():
    if k.endswith(".d2d"):
        d2d_run = float(re.match(r"([\d.]+)", v).group(1))
print(f"device copy (bytes copied): info {d2d_info} GB/s, in the sweep's report {d2d_run} GB/s")
copy = d2d_run or d2d_info
if not copy:
    print("no device copy bandwidth found (distbench info: copy.gpu0.d2d)")
    sys.exit(1)
ok = True
print(f"{'bytes':>12} {'placement':>13} {'time_us':>10} {'algbw GB/s':>11} {'ratio':>6}")
for r in rows(report):
    if r["bytes"] < 64 << 20 or r["status"] != "ok" or r["algbw_gbps"] is None:  # None: in place, one rank
        continue
    ratio = r["algbw_gbps"] / copy
    print(f"{r['bytes']:>12} {r['placement']:>13} {r['time_shown_us']:>10.1f} {r['algbw_gbps']:>11.1f} {ratio:>6.3f}")
    if r["placement"] == "out-of-place" and ratio < 0.9:
        ok = False
wrong = sum(r["wrong"] or 0 for r in rows(report))
print("sum #wrong:", wrong)
sys.exit(0 if ok and wrong == 0 else 1)
EOF
}

phase_peer() {
  local peer="$BUNDLE/peers/all_reduce_perf" rc
  [ -x "$peer" ] || { fail "no $peer"; return; }
  echo "--- all_reduce_perf -b 8 -e $MAXBYTES -f 2 -g 1"
  "$peer" -b 8 -e $MAXBYTES -f 2 -g 1 | tee "$WORK/nccl-tests.txt"; rc=$?
  echo "rc=$rc"
  [ $rc -eq 0 ] || fail "all_reduce_perf rc=$rc"
  echo "--- distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 2 (default timing: nccl-tests; right after)"
  distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 2 --columns device --json "$WORK/peer.json" \
    | tee "$WORK/peer-distbench.txt"; rc=$?
  echo "rc=$rc"
  [ $rc -eq 0 ] || fail "distbench nccl-tests timing rc=$rc"
  echo "--- distbench allreduce ... --timing sampled"
  distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 2 --timing sampled --json "$WORK/peer-sampled.json" \
    > "$WORK/peer-sampled.txt"; rc=$?
  echo "rc=$rc"
  [ $rc -eq 0 ] || fail "distbench sampled timing rc=$rc"
  echo "--- all_reduce_perf again (the peer's own run-to-run spread)"
  "$peer" -b 8 -e $MAXBYTES -f 2 -g 1 > "$WORK/nccl-tests-2.txt"
  py - "$WORK/nccl-tests.txt" "$WORK/nccl-tests-2.txt" "$WORK/peer.json" "$WORK/peer-sampled.json" <<'EOF' \
    || fail "nccl-tests timing not within 2% of all_reduce_perf at every size"
import sys
from peer_rows import nccl_tests, records
nt, nt2 = nccl_tests(sys.argv[1]), nccl_tests(sys.argv[2])
db, sampled = records(sys.argv[3]), records(sys.argv[4])
print("time in us; ratios distbench / nccl-tests (< 1: distbench reads faster). nt2/nt: the peer's second run / its first.")
print("dev: the device's events around the same blocks; host/dev: how far the host clock reads above them.")
within = total = 0
for placement in ("out-of-place", "in-place"):
    print(f"\n{placement}")
    print(f"{'bytes':>11} {'nt':>9} {'nt2/nt':>7} {'db':>9} {'db/nt':>6} {'dev':>9} {'host/dev':>8} {'sampled':>9}"
          f" {'smp/nt':>6}")
    for size in sorted(nt):
        m, s = db.get(size, {}).get(placement), sampled.get(size, {}).get(placement)
        if m is None or s is None:
            continue
        t_nt, t_db, t_s = nt[size][placement], m["time_us"], s["time_us"]
        dev = m.get("device_time_us") or float("nan")
        again = nt2.get(size, {}).get(placement, float("nan")) / t_nt
        ratio = t_db / t_nt
        total += placement == "out-of-place"
        within += placement == "out-of-place" and abs(ratio - 1) <= 0.02
        print(f"{size:>11} {t_nt:>9.2f} {again:>7.3f} {t_db:>9.2f} {ratio:>6.3f} {dev:>9.2f} {t_db / dev:>8.3f}"
              f" {t_s:>9.2f} {t_s / t_nt:>6.3f}")
print(f"\nout of place, nccl-tests timing within +-2% of all_reduce_perf: {within} of {total} sizes")
sys.exit(0 if within == total and total > 0 else 1)
EOF
  phase_staging
}

phase_staging() {
  local rc
  echo "--- alltoall on 1 rank, in place (its input staged when the case's warm-up starts) against out of place"
  distbench alltoall --backend $BACKEND -b 1M -e 256M -f 4 --columns device --json "$WORK/staging.json" \
    | tee "$WORK/staging.txt"; rc=$?
  [ $rc -eq 0 ] || fail "alltoall staging rc=$rc"
}

phase_rounds() {
  # ROUNDS interleaved rounds of all_reduce_perf and distbench's default (nccl-tests) timing at the same sizes,
  # compared as ratios of medians per size (one run of each reads up to +-50% apart at small sizes on its own);
  # then each once with blocks of 200 after 20 warm-up operations, for sizes where a short block reads slow.
  local peer="$BUNDLE/peers/all_reduce_perf" k
  [ -x "$peer" ] || { fail "no $peer"; return; }
  for k in $(seq 1 "${ROUNDS:-5}"); do
    [ "$(time_left)" -lt 60 ] && { echo "deadline: round $k not run"; break; }
    "$peer" -b 8 -e $MAXBYTES -f 2 -g 1 > "$WORK/rounds-nt-$k.txt" || fail "all_reduce_perf round $k"
    distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 2 ${ROUNDS_DB_FLAGS:-} --json "$WORK/rounds-db-$k.json" -q \
      || fail "distbench round $k"
    echo "round $k done at ${SECONDS}s"
  done
  "$peer" -b 8 -e $MAXBYTES -f 2 -g 1 -n 200 -w 20 > "$WORK/rounds-nt-long.txt"
  distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 2 -n 200 -w 20 ${ROUNDS_DB_FLAGS:-} --json "$WORK/rounds-db-long.json" -q
  py - "$WORK" <<'EOF' || fail "nccl-tests timing: median ratio outside +-2% of all_reduce_perf at some size"
import glob, statistics, sys
from peer_rows import nccl_tests, records as distbench
work = sys.argv[1]
nts = [nccl_tests(p) for p in sorted(glob.glob(f"{work}/rounds-nt-[0-9]*.txt"))]
dbs = [distbench(p) for p in sorted(glob.glob(f"{work}/rounds-db-[0-9]*.json"))]
long_nt, long_db = nccl_tests(f"{work}/rounds-nt-long.txt"), distbench(f"{work}/rounds-db-long.json")
print(f"{len(nts)} rounds; time in us, medians over rounds; ratio distbench / nccl-tests; spread = max/min of a tool's rounds")
print(f"{'bytes':>11} {'nt':>9} {'nt spread':>9} {'db':>9} {'db spread':>9} {'db/nt':>6} {'dev':>9} {'-n 200 db/nt':>12}")
within = total = 0
for size in sorted(nts[0]):
    t_nt = [n[size]["out-of-place"] for n in nts if size in n]
    t_db = [d[size]["out-of-place"]["time_us"] for d in dbs if size in d]
    dev = [d[size]["out-of-place"].get("device_time_us") for d in dbs if size in d]
    if not t_nt or not t_db:
        continue
    ratio = statistics.median(t_db) / statistics.median(t_nt)
    total += 1
    within += abs(ratio - 1) <= 0.02
    lr = float("nan")
    if size in long_nt and size in long_db:
        lr = long_db[size]["out-of-place"]["time_us"] / long_nt[size]["out-of-place"]
    devm = statistics.median([d for d in dev if d]) if any(dev) else float("nan")
    print(f"{size:>11} {statistics.median(t_nt):>9.2f} {max(t_nt) / min(t_nt):>9.3f} {statistics.median(t_db):>9.2f}"
          f" {max(t_db) / min(t_db):>9.3f} {ratio:>6.3f} {devm:>9.2f} {lr:>12.3f}")
print(f"out of place, ratio of medians within +-2%: {within} of {total} sizes")
sys.exit(0 if within == total and total > 0 else 1)
EOF
}

phase_ranksperf() {
  # 2 and 4 ranks on the one GPU (NCCL_HOSTID per rank: NCCL goes over sockets), nccl-tests built with MPI=1
  # (.gpu/peers/all_reduce_perf_mpi) against distbench's default timing: ROUNDS interleaved rounds, ratio of medians.
  local peer="$BUNDLE/peers/all_reduce_perf_mpi" np k
  [ -x "$peer" ] || { fail "no $peer (nccl-tests built with MPI=1)"; return; }
  for np in ${RANKS_NP:-2 4}; do
    for k in $(seq 1 "${ROUNDS:-3}"); do
      [ "$(time_left)" -lt 60 ] && { echo "deadline: np $np round $k not run"; break; }
      guarded 120 "ranksperf-nt-np$np-$k" "${MPIRUN[@]}" -np $np "${HOSTID_WRAP[@]}" "$peer" -b 8 -e 4M -f 4 -g 1 \
        || fail "all_reduce_perf_mpi np $np round $k"
      guarded 120 "ranksperf-db-np$np-$k" "${MPIRUN[@]}" -np $np "${HOSTID_WRAP[@]}" distbench allreduce --backend $BACKEND \
        -b 8 -e 4M -f 4 --placement out-of-place -q --json "$WORK/ranksperf-db-np$np-$k.json" || fail "distbench np $np round $k"
    done
    py - "$WORK" "$np" <<'EOF' || fail "np $2: nccl-tests timing outside +-2% of all_reduce_perf (median ratio)"
import glob, statistics, sys
from peer_rows import nccl_tests, records
work, np = sys.argv[1], sys.argv[2]
def distbench(path):  # out of place: (time, busbw, wrong) by size
    return {size: (m["out-of-place"]["time_us"], m["out-of-place"]["busbw_gbps"], m["out-of-place"]["wrong"])
            for size, m in records(path).items() if "out-of-place" in m}
nts = [nccl_tests(p) for p in sorted(glob.glob(f"{work}/ranksperf-nt-np{np}-*.out"))]
dbs = [distbench(p) for p in sorted(glob.glob(f"{work}/ranksperf-db-np{np}-*.json"))]
print(f"np {np}, {len(nts)} rounds, out of place; time us, busbw GB/s: medians; spread = max/min over a tool's rounds")
print(f"{'bytes':>10} {'nt time':>10} {'spread':>7} {'db time':>10} {'spread':>7} {'time ratio':>10} {'busbw ratio':>11} {'wrong':>5}")
within = total = 0
for size in sorted(nts[0]) if nts else []:
    t = [n[size]["out-of-place"] for n in nts if size in n]; b = [n[size]["busbw"] for n in nts if size in n]
    dt = [d[size][0] for d in dbs if size in d]; db = [d[size][1] for d in dbs if size in d]
    if not t or not dt:
        continue
    ratio = statistics.median(dt) / statistics.median(t)
    total += 1; within += abs(ratio - 1) <= 0.02
    wrong = sum(d[size][2] or 0 for d in dbs if size in d)
    print(f"{size:>10} {statistics.median(t):>10.1f} {max(t) / min(t):>7.3f} {statistics.median(dt):>10.1f}"
          f" {max(dt) / min(dt):>7.3f} {ratio:>10.3f} {statistics.median(db) / statistics.median(b) if statistics.median(b) else float('nan'):>11.3f} {wrong:>5}")
print(f"np {np}: within +-2%: {within} of {total} sizes")
sys.exit(0 if total and within == total else 1)
EOF
  done
}

phase_ranks() {
  local np coll root rc ops roots
  canary_failed ranks && return
  for np in $RANKS_NP; do
    for coll in $RANKS_COLLS; do
      ops=(); roots=(0)
      case $coll in allreduce|reduce-scatter|reduce) ops=(-o sum,prod,min,max,avg);; esac
      case $coll in broadcast|reduce|gather|scatter) roots=(0 $((np - 1)));; esac
      for root in "${roots[@]}"; do
        local tag="np$np-$coll-r$root" t0=$SECONDS
        if [ "$(time_left)" -lt 60 ]; then
          echo "deadline: $tag not run"; echo "$tag: not run (deadline)" >> "$WORK/failures"; continue
        fi
        guarded 120 "$tag" "${MPIRUN[@]}" -np $np "${HOSTID_WRAP[@]}" distbench "$coll" --backend $BACKEND \
          -b 8 -e 2M -f 16 -d all "${ops[@]}" -r "$root" --placement both -n 2 -w 1 --min-samples 2 --max-time 0.01 -T 60 --json "$WORK/$tag.json"
        rc=$?
        py - "$WORK/$tag.json" "$tag" "$rc" "$((SECONDS - t0))" <<'EOF' || fail "$tag"
import json, sys, collections
from report_rows import rows
path, tag, rc, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
try:
    report = json.load(open(path))
except Exception as e:
    print(f"{tag:<28} rc={rc} {secs}s no report: {e}")
    sys.exit(1)
res = rows(report)
ok = [r for r in res if r["status"] == "ok"]
skipped = collections.Counter(r.get("skip_reason") for r in res if r["status"] != "ok")
wrong = sum(r["wrong"] or 0 for r in ok)
unchecked = sum(1 for r in ok if r["wrong"] is None)
bad = sorted({(r["dtype"], r["op"], r["placement"]) for r in ok if r["wrong"]})
print(f"{tag:<28} rc={rc} {secs:>3}s cases={len(res)} ok={len(ok)} skipped={sum(skipped.values())} "
      f"unchecked={unchecked} #wrong={wrong} status={report.get('status', '?')}")
for reason, n in skipped.items():
    print(f"    skipped {n}: {reason}")
if bad:
    print("    wrong in:", bad[:20])
sys.exit(0 if rc == 0 and wrong == 0 and unchecked == 0 and len(ok) > 0 else 1)
EOF
        [ $rc -eq 0 ] || tail -5 "$WORK/$tag.out"
      done
    done
  done
}

# The job must be gone within -T plus a few seconds of the launcher's clean-up after one rank is stopped.
stopped_rank() {  # stopped_rank NP RANK_TO_STOP
  local np=$1 victim=$2 pid t0 rc
  rm -f "$WORK"/rank*.pid
  t0=$SECONDS
  timeout -s KILL 90 "${MPIRUN[@]}" -np "$np" sh -c \
    'echo $$ > '"$WORK"'/rank$OMPI_COMM_WORLD_RANK.pid; NCCL_HOSTID=distbench-rank$OMPI_COMM_WORLD_RANK exec "$@"' sh \
    distbench allreduce --backend $BACKEND -b 1M -e 1M -n 100000 -T 10 --json "$WORK/stopped-np$np-r$victim.json" \
    > "$WORK/stopped-np$np-r$victim.txt" 2>&1 &
  local job=$!
  sleep 8
  pid=$(cat "$WORK/rank$victim.pid" 2>/dev/null)
  echo "stopping rank $victim (pid $pid) $((SECONDS - t0)) s after the start"
  local t_stop=$SECONDS
  kill -STOP "$pid"
  wait $job; rc=$?
  local took=$((SECONDS - t_stop))
  echo "mpirun exit code $rc, $took s after SIGSTOP (-T 10)"
  if [ -e "/proc/$pid" ]; then  # Z: a zombie nobody reaped (harmless); T: still stopped, left behind
    echo "rank $victim (pid $pid) still exists, state $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null): killing it"
    kill -KILL "$pid" 2>/dev/null
  fi
  tail -15 "$WORK/stopped-np$np-r$victim.txt"
  py -c "import json, sys; r = json.load(open(sys.argv[1])); print('report:', r.get('status'), '|', r.get('error'))" \
    "$WORK/stopped-np$np-r$victim.json" 2>&1
  [ $rc -ne 0 ] && [ $took -le 25 ] || fail "stopped rank $victim of $np: rc=$rc after $took s"
}

phase_flags() {
  local rc
  echo "--- -G 10 (CUDA graphs), 1 rank"
  distbench allreduce --backend $BACKEND -b 8 -e 256M -f 4 -G 10 --json "$WORK/graph1.json"; rc=$?
  echo "rc=$rc"; [ $rc -eq 0 ] || fail "-G 1 rank rc=$rc"
  echo "--- -g 2 on a machine with one GPU (expect a clear error)"
  distbench allreduce --backend $BACKEND -g 2; rc=$?
  echo "rc=$rc"; [ $rc -ne 0 ] || fail "-g 2 did not fail"
  echo "--- -R 1 (registered buffers), 1 rank"
  distbench allreduce --backend $BACKEND -b 8 -e 256M -f 4 -R 1; rc=$?
  echo "rc=$rc"; [ $rc -eq 0 ] || fail "-R 1 rank rc=$rc"
  echo "--- -m 4 (aggregated) and -z 1 (blocking), 1 rank"
  distbench allreduce --backend $BACKEND -b 8 -e 64M -f 8 -m 4; rc=$?
  echo "rc=$rc"; [ $rc -eq 0 ] || fail "-m 4 rc=$rc"
  distbench allreduce --backend $BACKEND -b 8 -e 64M -f 8 -z 1; rc=$?
  echo "rc=$rc"; [ $rc -eq 0 ] || fail "-z 1 rc=$rc"
}

phase_flags2() {
  local rc coll
  canary_failed flags2 && return
  echo "--- -G 5, 2 ranks, all dtypes"
  guarded 90 graph2 "${MPIRUN[@]}" -np 2 "${HOSTID_WRAP[@]}" distbench allreduce --backend $BACKEND -b 8 -e 1M -f 8 \
    -d all -G 5 -n 3 --json "$WORK/graph2.json"; rc=$?
  tail -4 "$WORK/graph2.out"; echo "rc=$rc"; [ $rc -eq 0 ] || fail "-G 2 ranks rc=$rc"
  echo "--- -R 1, 2 ranks, reduce-scatter and allgather"
  for coll in reduce-scatter allgather; do
    guarded 90 "reg2-$coll" "${MPIRUN[@]}" -np 2 "${HOSTID_WRAP[@]}" distbench $coll --backend $BACKEND -b 8 -e 1M \
      -f 8 -R 1 -n 3; rc=$?
    tail -3 "$WORK/reg2-$coll.out"; echo "rc=$rc"; [ $rc -eq 0 ] || fail "-R 2 ranks $coll rc=$rc"
  done
}

phase_train() {  # data-parallel training on the GPU (cuBLAS, kernels, NCCL): --check, buckets, trace, figures
  local rc b tag
  echo "--- 1 rank, 8 x 2048 wide, --check, --trace"
  guarded 300 train1 distbench train --backend $BACKEND --layers 8 --hidden 2048 --batch 256 --steps 30 --check \
    --json "$WORK/train1.json" --trace "$WORK/train1.trace.json"; rc=$?
  cat "$WORK/train1.out"; [ $rc -eq 0 ] || fail "train 1 rank rc=$rc"
  for b in 25 0; do
    echo "--- 1 rank, many small tensors (64 x 256), --bucket-mb $b"
    guarded 300 "train1-b$b" distbench train --backend $BACKEND --layers 64 --hidden 256 --batch 256 --steps 30 \
      --bucket-mb $b --overlap on --json "$WORK/train1-b$b.json"; rc=$?
    cat "$WORK/train1-b$b.out"; [ $rc -eq 0 ] || fail "train 1 rank bucket $b rc=$rc"
  done
  canary_failed train && return
  for b in 0 1; do
    tag="train2-b$b"
    echo "--- 2 ranks on the one GPU (NCCL over sockets), --bucket-mb $b, --check, --trace"
    guarded 300 "$tag" "${MPIRUN[@]}" -np 2 "${LINEBUF[@]}" "${HOSTID_WRAP[@]}" distbench train --backend $BACKEND \
      --layers 6 --hidden 512 --batch 64 --steps 20 --bucket-mb $b --check --json "$WORK/$tag.json" \
      --trace "$WORK/$tag.trace.json"; rc=$?
    cat "$WORK/$tag.out"; [ $rc -eq 0 ] || fail "train 2 ranks bucket $b rc=$rc"
  done
  echo "--- 2 ranks on the one GPU: ZeRO-3 with bfloat16 gradients, --check"
  guarded 300 train2-z3 "${MPIRUN[@]}" -np 2 "${LINEBUF[@]}" "${HOSTID_WRAP[@]}" distbench train --backend $BACKEND \
    --layers 6 --hidden 512 --batch 64 --steps 10 --bucket-mb 1 --zero 3 --dtype bf16 --check \
    --json "$WORK/train2-z3.json"; rc=$?
  cat "$WORK/train2-z3.out"; [ $rc -eq 0 ] || fail "train 2 ranks ZeRO-3 bf16 rc=$rc"
  echo "--- 2 ranks on the one GPU: tensor parallelism (--tp-size 2), ZeRO-2, --check"
  guarded 300 train2-tp "${MPIRUN[@]}" -np 2 "${LINEBUF[@]}" "${HOSTID_WRAP[@]}" distbench train --backend $BACKEND \
    --layers 5 --hidden 512 --batch 64 --steps 10 --tp-size 2 --zero 2 --check --json "$WORK/train2-tp.json"; rc=$?
  cat "$WORK/train2-tp.out"; [ $rc -eq 0 ] || fail "train 2 ranks --tp-size 2 rc=$rc"
  echo "--- 2 ranks on the one GPU, compute above communication (a large batch, 4 x 1024, 64 inputs): overlap on/off"
  guarded 300 train2-big "${MPIRUN[@]}" -np 2 "${LINEBUF[@]}" "${HOSTID_WRAP[@]}" distbench train --backend $BACKEND \
    --layers 4 --hidden 1024 --inputs 64 --batch 131072 --steps 8 --warmup 2 --json "$WORK/train2-big.json" \
    --trace "$WORK/train2-big.trace.json"; rc=$?
  cat "$WORK/train2-big.out"; [ $rc -eq 0 ] || fail "train 2 ranks large batch rc=$rc"
  py - "$WORK" <<'PYEOF' || fail "train reports"
import glob, json, os, sys
ok = True
for path in sorted(glob.glob(os.path.join(sys.argv[1], "train*.json"))):
    if path.endswith(".trace.json"):
        continue
    r = json.load(open(path))
    print(os.path.basename(path), r["status"], "backend", r["backend"])
    ok &= r["status"] == "complete"
    for x in r["records"]:
        p, m = x["params"], x["metrics"]
        print(f"  overlap {p['overlap']:>3} buckets {p['buckets']:>3}: step {m['step_ms']:.3f} ms, compute "
              f"{m['compute_ms']:.3f}, comm {m['comm_ms']:.3f}, exposed {m['exposed_ms']:.3f}, hidden "
              f"{m['overlap_efficiency']}, {m['samples_per_s']:.0f} samples/s, loss {m['loss_first']:.4f} -> "
              f"{m['loss_last']:.4f}, max rel diff {m['max_rel_diff']}, wrong {m['wrong']}")
        ok &= m["wrong"] in (None, 0) and m["loss_last"] == m["loss_last"]  # checked, and a number
    trace = path[:-5] + ".trace.json"
    if os.path.exists(trace):
        events = json.load(open(trace))["traceEvents"]
        ranks = sorted({e["pid"] for e in events if e["ph"] == "X"})
        names = {e["name"].split(" ")[0] for e in events if e["ph"] == "X"}
        print(f"  trace: {len(events)} events, ranks {ranks}, kinds {sorted(names)}")
        ok &= len(ranks) == r["world_size"] if "world_size" in r else len(ranks) >= 1
sys.exit(0 if ok else 1)
PYEOF
}

phase_tp() {  # tensor parallelism on the GPU: the operations and the layers (cuBLAS), 1 rank and 2 on the one GPU
  local rc tag
  echo "--- 1 rank: the operations, 8192x8192 fp32 and bf16, --check"
  for dt in fp32 bf16; do
    guarded 200 "tp1-$dt" distbench tp --backend $BACKEND --shape 8192x8192 --dtype $dt --check \
      --json "$WORK/tp1-$dt.json"; rc=$?
    cat "$WORK/tp1-$dt.out"; [ $rc -eq 0 ] || fail "tp ops 1 rank $dt rc=$rc"
  done
  echo "--- 1 rank: the layers, in 4096 out 16384 batch 64 and batch 2048, --check"
  for b in 64 2048; do
    guarded 200 "tp1-layers-$b" distbench tp --backend $BACKEND --layer all --in 4096 --out 16384 --batch $b \
      --check --json "$WORK/tp1-layers-$b.json"; rc=$?
    cat "$WORK/tp1-layers-$b.out"; [ $rc -eq 0 ] || fail "tp layers 1 rank batch $b rc=$rc"
  done
  canary_failed tp && return
  echo "--- 2 ranks on the one GPU (sockets): operations and layers, --check"
  guarded 200 tp2 "${MPIRUN[@]}" -np 2 "${LINEBUF[@]}" "${HOSTID_WRAP[@]}" distbench tp --backend $BACKEND \
    --shape 1024x1024 --check -n 5 --json "$WORK/tp2.json"; rc=$?
  cat "$WORK/tp2.out"; [ $rc -eq 0 ] || fail "tp ops 2 ranks rc=$rc"
  guarded 200 tp2-layers "${MPIRUN[@]}" -np 2 "${LINEBUF[@]}" "${HOSTID_WRAP[@]}" distbench tp --backend $BACKEND \
    --layer all --in 1024 --out 4096 --batch 64 --check -n 5 --json "$WORK/tp2-layers.json"; rc=$?
  cat "$WORK/tp2-layers.out"; [ $rc -eq 0 ] || fail "tp layers 2 ranks rc=$rc"
}

phase_datacheck() {  # all_reduce_perf with its data check on (-c 1, its default) and off, distbench beside, 3 rounds
  local peer="$BUNDLE/peers/all_reduce_perf" k
  [ -x "$peer" ] || { fail "no $peer"; return; }
  for k in 1 2 3; do
    "$peer" -b 8M -e "${DC_MAX:-256M}" -f 2 -g 1 -c 1 > "$WORK/dc-nt-c1-$k.txt" 2>&1
    "$peer" -b 8M -e "${DC_MAX:-256M}" -f 2 -g 1 -c 0 > "$WORK/dc-nt-c0-$k.txt" 2>&1
    distbench allreduce --backend $BACKEND -b 8M -e "${DC_MAX:-256M}" -f 2 ${DC_DB_FLAGS:-} -q --json "$WORK/dc-db-$k.json" > /dev/null 2>&1
  done
  py - "$WORK" <<'PYEOF'
import glob, statistics, sys
from peer_rows import nccl_tests, records
w = sys.argv[1]
c1 = [nccl_tests(p) for p in sorted(glob.glob(f"{w}/dc-nt-c1-*.txt"))]
c0 = [nccl_tests(p) for p in sorted(glob.glob(f"{w}/dc-nt-c0-*.txt"))]
db = [records(p) for p in sorted(glob.glob(f"{w}/dc-db-*.json"))]
print(f"{'bytes':>10} {'nt -c 1':>9} {'nt -c 0':>9} {'distbench':>9} {'db/c1':>6} {'db/c0':>6}  (medians of 3, us, out of place)")
for b in sorted(c1[0]):
    m1 = statistics.median(x[b]["out-of-place"] for x in c1)
    m0 = statistics.median(x[b]["out-of-place"] for x in c0)
    d = statistics.median(x[b]["out-of-place"]["time_us"] for x in db)
    print(f"{b:>10} {m1:9.2f} {m0:9.2f} {d:9.2f} {d / m1:6.3f} {d / m0:6.3f}")
PYEOF
}

phase_warmup() {  # all_reduce_perf with and without its warm-up of every size against distbench's
  # WARMUP_ROUNDS (5) interleaved rounds, -b 8 -e MAXBYTES -f 2, out of place: all_reduce_perf as it is (-w 1: one
  # operation at each size, doubling, before the sweep) and with -w 0; distbench --timing nccl-tests --blocks 1 (its
  # reproduction of all_reduce_perf, now with the same warm-up of every size) and with -w 0 (no warm-up at all); and
  # .gpu/peers/distbench_alt the same way as distbench when that binary was carried.
  local peer="$BUNDLE/peers/all_reduce_perf" k
  [ -x "$peer" ] || { fail "no $peer"; return; }
  local db=(distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 2 -q --timing nccl-tests --blocks 1)
  for k in $(seq 1 "${WARMUP_ROUNDS:-5}"); do
    [ "$(time_left)" -lt 40 ] && { echo "deadline: round $k not run"; break; }
    "$peer" -b 8 -e $MAXBYTES -f 2 -g 1 > "$WORK/warmup-nt-$k.txt" 2>&1
    "$peer" -b 8 -e $MAXBYTES -f 2 -g 1 -w 0 > "$WORK/warmup-nt0-$k.txt" 2>&1
    "${db[@]}" --json "$WORK/warmup-db-$k.json" > "$WORK/warmup-db-$k.out" 2>&1 || fail "distbench warmup round $k"
    "${db[@]}" -w 0 --json "$WORK/warmup-db0-$k.json" > /dev/null 2>&1 || fail "distbench -w 0 warmup round $k"
    if [ -x "$BUNDLE/peers/distbench_alt" ]; then  # a variant built by hand (e.g. one that fills its buffers first)
      "$BUNDLE/peers/distbench_alt" "${db[@]:1}" --json "$WORK/warmup-dbalt-$k.json" > /dev/null 2>&1 \
        || fail "distbench_alt warmup round $k"
    fi
    echo "round $k done at ${SECONDS}s"
  done
  grep -m1 "warm-up" "$WORK/warmup-db-1.out"
  py - "$WORK" <<'PYEOF'
import glob, statistics, sys
from peer_rows import nccl_tests, records
w = sys.argv[1]
def nt(v): return [{b: r["out-of-place"] for b, r in nccl_tests(p).items()} for p in sorted(glob.glob(f"{w}/warmup-{v}-*.txt"))]
def db(v, key="time_us"):
    return [{b: r["out-of-place"].get(key) for b, r in records(p).items()} for p in sorted(glob.glob(f"{w}/warmup-{v}-*.json"))]
runs = {"nt": nt("nt"), "nt0": nt("nt0"), "db": db("db"), "db0": db("db0"), "dbdev": db("db", "device_time_us"),
        "dbalt": db("dbalt")}
runs = {k: v for k, v in runs.items() if v}
print(f"medians of {len(runs['nt'])} rounds, us, out of place; then each / nt (all_reduce_perf -w 1 -c 1);"
      " nt spread = max/min of its rounds")
print(f"{'bytes':>11} " + " ".join(f"{k:>8}" for k in runs) + f" {'ntspr':>6} " + " ".join(f"{k:>6}" for k in runs if k != "nt"))
within = total = 0
for b in sorted(runs["nt"][0]):
    med = {k: statistics.median(x[b] for x in v if b in x and x[b]) for k, v in runs.items()}
    spread = max(x[b] for x in runs["nt"]) / min(x[b] for x in runs["nt"])
    total += 1
    within += abs(med["db"] / med["nt"] - 1) <= 0.02
    print(f"{b:>11} " + " ".join(f"{med[k]:8.2f}" for k in runs) + f" {spread:6.3f} " +
          " ".join(f"{med[k] / med['nt']:6.3f}" for k in runs if k != "nt"))
print(f"db / nt within +-2%: {within} of {total} sizes")
PYEOF
}

phase_gap() {  # all_reduce_perf (-c 0 and its default -c 1) against distbench's allocators and block counts
  # 3 interleaved rounds, -b 8M -e GAP_MAX (8G), out of place. distbench: as is (nccl-tests' timing, ncclMemAlloc,
  # blocks per the sampling rule), --blocks 1 (all_reduce_perf's one block), and both with --alloc cudaMalloc. (The
  # first version of this phase, at 76b3015, also ran a cudaMalloc build of all_reduce_perf, -n 200, and -R 1: see
  # docs/measurements/2026-11-26-gpu-h200-alloc-gap.md.)
  local peer="$BUNDLE/peers/all_reduce_perf" k max=${GAP_MAX:-8G}
  [ -x "$peer" ] || { fail "no $peer"; return; }
  local db=(distbench allreduce --backend $BACKEND -b 8M -e "$max" -f 2 -q)
  for k in 1 2 3; do
    "$peer" -b 8M -e "$max" -f 2 -g 1 -c 0 > "$WORK/gap-nt-$k.txt" 2>&1
    "$peer" -b 8M -e "$max" -f 2 -g 1 > "$WORK/gap-ntc1-$k.txt" 2>&1
    "${db[@]}" --json "$WORK/gap-db-$k.json" > "$WORK/gap-db-$k.out" 2>&1
    "${db[@]}" --timing nccl-tests --blocks 1 --json "$WORK/gap-db1-$k.json" > /dev/null 2>&1
    "${db[@]}" --alloc cudaMalloc --json "$WORK/gap-dbc-$k.json" > /dev/null 2>&1
    "${db[@]}" --alloc cudaMalloc --blocks 1 --json "$WORK/gap-dbc1-$k.json" > /dev/null 2>&1
    echo "round $k done at ${SECONDS}s"
  done
  echo "--- distbench's own findings (round 1, as is)"; grep -i "warning" "$WORK/gap-db-1.out" | grep -v "nothing moves"
  py - "$WORK" <<'PYEOF'
import glob, statistics, sys
from peer_rows import nccl_tests, records
w = sys.argv[1]
def nt(v): return [{b: r["out-of-place"] for b, r in nccl_tests(p).items()} for p in sorted(glob.glob(f"{w}/gap-{v}-*.txt"))]
def db(v): return [{b: r["out-of-place"]["time_us"] for b, r in records(p).items()} for p in sorted(glob.glob(f"{w}/gap-{v}-*.json"))]
runs = {"nt": nt("nt"), "ntc1": nt("ntc1"), "db": db("db"), "db1": db("db1"), "dbc": db("dbc"), "dbc1": db("dbc1")}
runs = {k: v for k, v in runs.items() if v}
print("medians of 3 rounds, us, out of place; then each variant / nt (-c 0)")
print(f"{'bytes':>10} " + " ".join(f"{k:>8}" for k in runs) + "  " + " ".join(f"{k:>6}" for k in runs if k != "nt"))
for b in sorted(runs["nt"][0]):
    med = {k: statistics.median(x[b] for x in v if b in x) for k, v in runs.items()}
    print(f"{b:>10} " + " ".join(f"{med[k]:8.2f}" for k in runs) + "  " +
          " ".join(f"{med[k] / med['nt']:6.3f}" for k in runs if k != "nt"))
PYEOF
}

phase_blocks() {  # the time of every block, in order, at 128-512 MiB with 8 GiB buffers: which blocks read slow
  local peer="$BUNDLE/peers/all_reduce_perf" v
  local db=(distbench allreduce --backend $BACKEND -b 64M -e 8G -f 2 -q --timing nccl-tests --blocks 20 --placement out-of-place)
  "$peer" -b 64M -e 8G -f 2 -g 1 -c 0 > "$WORK/blocks-nt.txt" 2>&1
  "${db[@]}" --json "$WORK/blocks-w1.json" > /dev/null 2>&1
  "${db[@]}" -w 5 --json "$WORK/blocks-w5.json" > /dev/null 2>&1
  "${db[@]}" -w 0 --json "$WORK/blocks-w0.json" > /dev/null 2>&1
  "${db[@]}" --alloc cudaMalloc --json "$WORK/blocks-cm.json" > /dev/null 2>&1
  py - "$WORK" <<'PYEOF'
import json, sys
from peer_rows import nccl_tests
w = sys.argv[1]
nt = nccl_tests(f"{w}/blocks-nt.txt")
for v in ["w1", "w5", "w0", "cm"]:
    rep = json.load(open(f"{w}/blocks-{v}.json"))
    for r in rep["records"]:
        b = r["params"]["bytes"]
        if r["status"] != "ok" or b not in (134217728, 268435456, 536870912, 1073741824):
            continue
        ph = {p["name"]: p["samples_us"] for p in r["phases"]}
        print(f"{v:>5} {b >> 20:>5} MiB nt {nt[b]['out-of-place']:8.2f} host " +
              " ".join(f"{x:.1f}" for x in ph["time"]) + " | device " + " ".join(f"{x:.1f}" for x in ph.get("device", [])))
PYEOF
}

phase_cublas() {  # why cuBLAS crashed in cublasCreate: which libraries load, weak symbols, a stack; the rest of the math
  local lib=${CUBLAS_LIB%%:*} t="$BUNDLE/tests/test_cuda_math" tool
  echo "CUBLAS_LIB=$lib"; ls -la "$lib" | grep -E 'cublas|cudart|nvJit|nvrtc' | head -20
  ldd "$lib/libcublas.so.13" 2>&1 | head -20
  tool=$(command -v nm || command -v readelf)
  echo "--- undefined dynamic symbols of libcublas.so.13 (weak ones: 'w'; via $tool)"
  if [ -n "$tool" ] && [ "${tool##*/}" = nm ]; then nm -D --undefined-only "$lib/libcublas.so.13" | grep -v GLIBC | head -40
  elif [ -n "$tool" ]; then readelf --dyn-syms -W "$lib/libcublas.so.13" | awk '$7 == "UND"' | grep -v GLIBC | head -40; fi
  echo "--- torch's matmul on this GPU"
  py -c "import torch; a=torch.randn(256,256,device='cuda'); print('torch', torch.__version__, 'cuda', torch.version.cuda, 'matmul sum', float((a@a).abs().sum()))" 2>&1 | tail -2
  echo "--- the math tests that need no cuBLAS"
  timeout 120 "$t" --gtest_filter='*Optimizers*:*MixedPrecision*:*Bfloat16*:*CopyRows*:*ACollective*:*Marks*' \
    > "$WORK/cuda_math_nogemm.out" 2>&1; rc=$?
  gtest_summary test_cuda_math-no-gemm "$WORK/cuda_math_nogemm.out" $rc || fail "test_cuda_math without gemm rc=$rc"
  echo "--- the gemm test: libraries the loader opens"
  LD_DEBUG=libs timeout 60 "$t" --gtest_filter='*Gemm*' 2>&1 | grep -E 'calling init: .*(cu|nv)|trying file=.*(cublas|cudart)' \
    | sed 's/^ *[0-9]*: *//' | sort -u | head -30
  for pre in "" "$lib/libcudart.so.13"; do
    [ -n "$pre" ] && [ ! -e "$pre" ] && continue
    LD_PRELOAD=$pre timeout 60 "$t" --gtest_filter='*Gemm*' > "$WORK/gemm.out" 2>&1; rc=$?
    echo "gemm test with LD_PRELOAD='$pre': rc=$rc $(grep -E '^\[ +(OK|FAILED) ' "$WORK/gemm.out" | head -1)"
  done
  if command -v gdb > /dev/null; then
    timeout 120 gdb -q -batch -ex run -ex bt -ex 'info registers rip rax rdx' -ex 'frame 1' -ex 'x/6i $pc-16' \
      -ex 'info sharedlibrary' --args "$t" --gtest_filter='*Gemm*' 2>&1 | grep -v -E 'New Thread|exited|^\[Thread' \
      | tail -60
  fi
}

phase_zero() {  # ZeRO on the GPU: --check of every stage at 1, 2 and 4 ranks, then the timed step of a large model
  local rc np dt
  for dt in bf16 fp32; do
    echo "--- 1 rank, $dt, --check, every stage"
    guarded 200 "zero1-check-$dt" distbench zero --backend $BACKEND --params 10M --layers 7 --dtype $dt \
      --stage all --check --max-time 0.2 --json "$WORK/zero1-check-$dt.json"; rc=$?
    cat "$WORK/zero1-check-$dt.out"; [ $rc -eq 0 ] || fail "zero 1 rank --check $dt rc=$rc"
  done
  canary_failed zero || for np in 2 4; do
    echo "--- $np ranks on the one GPU (sockets), bf16, --check, every stage"
    guarded 200 "zero$np-check" "${MPIRUN[@]}" -np $np "${LINEBUF[@]}" "${HOSTID_WRAP[@]}" distbench zero \
      --backend $BACKEND --params 1M --layers 5 --bucket-mb 0.5 --stage all --check --max-time 0.2 \
      --json "$WORK/zero$np-check.json"; rc=$?
    cat "$WORK/zero$np-check.out"; [ $rc -eq 0 ] || fail "zero $np ranks --check rc=$rc"
  done
  echo "--- 1 rank, ${ZERO_PARAMS:-2G} parameters bf16: the update against the device copy, memory against the formulas"
  guarded 300 zero1-big distbench zero --backend $BACKEND --params "${ZERO_PARAMS:-2G}" --stage all --max-time 1 \
    --json "$WORK/zero1-big.json"; rc=$?
  cat "$WORK/zero1-big.out"; [ $rc -eq 0 ] || fail "zero 1 rank large rc=$rc"
  py - "$WORK" <<'PYEOF' || fail "zero targets (update >= 0.8 of the copy bandwidth, device memory within 10%, #wrong 0)"
import glob, json, os, sys
ok = True
for path in sorted(glob.glob(os.path.join(sys.argv[1], "zero*.json"))):
    r = json.load(open(path))
    for x in r["records"]:
        p, m = x["params"], x["metrics"]
        print(f"{os.path.basename(path):<22} stage {p['stage']} {p['dtype']} np {p['ranks']}: step {m['step_ms']:.3f} ms, "
              f"update {m['update_ms']:.3f} ms = {m['update_gbps']:.0f} GB/s, copy {m['copy_gbps']:.0f} GB/s, "
              f"update/copy {m['update_vs_copy']:.3f}, device {m['device_mb']:.1f} MB vs formulas "
              f"{m['state_mb'] + m['buffer_mb']:.1f} ({m['device_vs_predicted']:.3f}), steps added "
              f"{m['device_step_mb']:.1f} MB, wrong {m['wrong']}")
        ok &= m["wrong"] in (None, 0)
        if "big" in path:
            ok &= m["update_vs_copy"] >= 0.8 and abs(m["device_vs_predicted"] - 1) <= 0.1
sys.exit(0 if ok else 1)
PYEOF
}

phase_dropin() {  # nccl-tests' output, byte for byte where it overlaps: the same command line to the peer and to distbench
  # DROPIN_ARGS (nccl-tests' spelling) to every nccl-tests binary carried (.gpu/peers/<collective>_perf) and to
  # distbench's collective of that name, then `-d all -o all` to all_reduce_perf and distbench allreduce. Checked:
  # the table's three header lines identical, every row's fields ending in the same columns, the same sizes, counts,
  # type, operator and root names row by row, the footer's first two lines in nccl-tests' form and a closing "#".
  local args=(${DROPIN_ARGS:--b 8 -e 64M -f 4 -g 1 -t 1 -w 5 -n 20 -c 1}) pair peer coll ran=0
  for pair in all_reduce:allreduce all_gather:allgather broadcast:broadcast reduce_scatter:reduce-scatter \
              alltoall:alltoall all_reduce:allreduce-types all_reduce:allreduce-ops all_reduce:allreduce-nocheck; do
    peer="$BUNDLE/peers/${pair%%:*}_perf"; coll=${pair#*:}
    [ -x "$peer" ] || { echo "no $peer: $coll not compared"; continue; }
    local line=("${args[@]}")
    # every type with sum, every operator on float (all_reduce_perf -d all -o all stops at f8e4m3 avg: NCCL refuses)
    [ "$coll" = allreduce-types ] && line=(-b 8 -e 64K -f 8 -g 1 -t 1 -w 5 -n 20 -c 1 -d all -o sum)
    [ "$coll" = allreduce-ops ] && line=(-b 8 -e 64K -f 8 -g 1 -t 1 -w 5 -n 20 -c 1 -d float -o all)
    [ "$coll" = allreduce-nocheck ] && line=(-b 8 -e 64K -f 8 -g 1 -t 1 -w 5 -n 20 -c 0)  # "N/A" where #wrong was
    local cmd=$coll
    case $coll in allreduce-*) cmd=allreduce ;; esac
    "$peer" "${line[@]}" > "$WORK/dropin-nt-$coll.txt" 2>&1 || fail "dropin: ${peer##*/} ${line[*]} rc=$?"
    distbench "$cmd" "${line[@]}" > "$WORK/dropin-db-$coll.txt" 2> "$WORK/dropin-db-$coll.err" \
      || fail "dropin: distbench $cmd ${line[*]} rc=$?"
    ran=$((ran + 1))
  done
  [ $ran -gt 0 ] || { fail "dropin: no nccl-tests binary carried"; return; }
  sed -n '/^#  *size/,$p' "$WORK/dropin-nt-allreduce.txt" "$WORK/dropin-db-allreduce.txt" 2>/dev/null | head -60
  py - "$WORK" <<'PYEOF' || fail "dropin: distbench's output differs from nccl-tests' where they overlap"
import glob, re, sys
w = sys.argv[1]
ROW = re.compile(r"^\s+\d+\s+\d+\s+\S+\s+\S+\s+-?\d+\s")
def parts(path):
    lines = open(path).read().splitlines()
    first = next((i for i, l in enumerate(lines) if ROW.match(l)), None)
    rows = [l for l in lines if ROW.match(l)]
    foot = [i for i, l in enumerate(lines) if l.startswith("# Out of bounds values")]
    footer = lines[foot[0]:foot[0] + 3] if foot else []
    return {"header": lines[first - 3:first] if first else [], "rows": rows, "footer": footer}
def ends(line): return [m.end() for m in re.finditer(r"\S+", line)]
bad = 0
for nt_path in sorted(glob.glob(f"{w}/dropin-nt-*.txt")):
    coll = nt_path.rsplit("/dropin-nt-", 1)[1][:-4]
    nt, db = parts(nt_path), parts(f"{w}/dropin-db-{coll}.txt")
    problems = []
    if nt["header"] != db["header"]:
        problems.append(f"header lines differ:\n  nt {nt['header']!r}\n  db {db['header']!r}")
    key = lambda r: tuple(r.split()[:5])
    nt_keys, db_keys = {key(r): r for r in nt["rows"]}, {key(r): r for r in db["rows"]}
    # nccl-tests rounds each rank's count of allgather, reduce-scatter and alltoall down to 16 bytes' worth (8 B
    # reads "0 0"); distbench measures the size asked for: those rows differ by design.
    rounded = lambda k: k[0] == "0" or int(k[0]) < 16 and coll in ("allgather", "reduce-scatter", "alltoall")
    only_nt = [k for k in nt_keys if k not in db_keys and not rounded(k)]
    only_db = [k for k in db_keys if k not in nt_keys and not rounded(k)]
    lacking = coll.startswith("allreduce-")  # nccl-tests has types (fp8) and an operator (mulsum) distbench lacks
    if (only_nt and not lacking) or only_db:
        problems.append(f"rows only in nccl-tests {only_nt[:6]} ({len(only_nt)}), only in distbench {only_db[:6]} ({len(only_db)})")
    # nccl-tests leaves in-place alltoall unchecked ("N/A", one column narrower); distbench checks it: the last
    # field is compared only where both checked.
    def layout(row):
        e = ends(row)
        return e[:-1] if coll == "alltoall" else e
    moved = [(nt_keys[k], db_keys[k]) for k in nt_keys if k in db_keys and layout(nt_keys[k]) != layout(db_keys[k])]
    if moved:
        problems.append(f"{len(moved)} rows laid out differently, e.g.\n  nt {moved[0][0]!r}\n  db {moved[0][1]!r}")
    ok_footer = (len(db["footer"]) == 3 and nt["footer"] and db["footer"][0].startswith(nt["footer"][0])
                 and re.fullmatch(r"# Avg bus bandwidth    : \S+ (OK|FAILED)?", db["footer"][1]) and db["footer"][2] == "#")
    if not ok_footer:
        problems.append(f"footer: nt {nt['footer']!r} db {db['footer']!r}")
    common = [k for k in nt_keys if k in db_keys]
    print(f"{coll}: {len(nt['rows'])} rows nccl-tests, {len(db['rows'])} distbench, {len(common)} in common:"
          f" {'same layout' if not problems else 'DIFFERENT'}")
    for p in problems:
        print("  " + p)
    bad += bool(problems)
    if lacking and only_nt:  # informative: what nccl-tests has that distbench lacks
        print("  type and operator only in nccl-tests:", sorted({k[2:4] for k in only_nt}))
sys.exit(1 if bad else 0)
PYEOF
}

phase_timings() {  # --timing a,b on the device: each case timed each way in turn, a column group per method
  local rc
  echo "--- 1 rank: --timing nccl-tests,sampled,osu"
  distbench allreduce --backend $BACKEND -b 8 -e $MAXBYTES -f 8 --timing nccl-tests,sampled,osu \
    --json "$WORK/timings1.json" > "$WORK/timings1.txt" 2>&1; rc=$?
  cat "$WORK/timings1.txt"; echo "rc=$rc"; [ $rc -eq 0 ] || fail "timings 1 rank rc=$rc"
  echo "--- 2 ranks on the one GPU: --timing sampled,imb, every dtype"
  guarded 120 timings2 "${MPIRUN[@]}" -np 2 "${HOSTID_WRAP[@]}" distbench allreduce --backend $BACKEND -b 8 -e 1M \
    -f 32 -d all --timing sampled,imb -n 5 -w 1 --min-samples 2 --max-time 0.05 -T 60 --json "$WORK/timings2.json"
  rc=$?; tail -15 "$WORK/timings2.out"; echo "rc=$rc"; [ $rc -eq 0 ] || fail "timings 2 ranks rc=$rc"
  py - "$WORK/timings1.json" "nccl-tests,sampled,osu" "$WORK/timings2.json" "sampled,imb" <<'PYEOF' || fail "timings reports"
import json, sys, collections
ok = True
for path, want in zip(sys.argv[1::2], sys.argv[2::2]):
    want = want.split(",")
    recs = [r for r in json.load(open(path))["records"] if r.get("kind", "collective") == "collective"]
    by = collections.defaultdict(dict)
    for r in recs:
        p = r["params"]
        by[(p["dtype"], p["placement"], p["bytes"])][p.get("timing")] = r
    wrong = sum((r["metrics"].get("wrong") or 0) for r in recs)
    notok = [r["params"] for r in recs if r["status"] != "ok"]
    missing = [k for k, v in by.items() if sorted(v) != sorted(want)]
    print(f"{path}: {len(recs)} records, {len(by)} cases, methods {want}, #wrong {wrong}, not ok {len(notok)}, "
          f"cases missing a method {len(missing)}")
    ok &= wrong == 0 and not notok and not missing and len(by) > 0
    print(f"{'bytes':>11} {'placement':>13} " + " ".join(f"{m:>11}" for m in want) + "   ratios to " + want[0])
    for (dt, pl, b), v in sorted(by.items()):
        if dt != "float32" or len(v) != len(want):
            continue
        t = [v[m]["metrics"]["time_us"] for m in want]
        print(f"{b:>11} {pl:>13} " + " ".join(f"{x:>11.2f}" for x in t) + "   " +
              " ".join(f"{x / t[0]:.3f}" for x in t[1:]))
sys.exit(0 if ok else 1)
PYEOF
}

phase_model() {  # issue 33 on NCCL: allreduce and allgather at 2, 3 and 4 ranks (NCCL_ALGO=Ring, sockets), model fits
  local np coll rc
  canary_failed model && return
  for coll in allreduce allgather; do
    for np in 2 3 4; do
      guarded 120 model-$coll-np$np env NCCL_ALGO=Ring NCCL_PROTO=Simple "${MPIRUN[@]}" -np $np "${HOSTID_WRAP[@]}" \
        distbench $coll --backend $BACKEND -b 64K -e 16M -f 4 --timing sampled -n 10 -w 2 --min-samples 5 \
        --max-time 0.3 -T 60 --json "$WORK/model-$coll-np$np.json"
      rc=$?; echo "$coll np $np rc=$rc"; tail -12 "$WORK/model-$coll-np$np.out"
      [ $rc -eq 0 ] || fail "model $coll np $np rc=$rc"
    done
    echo "--- distbench model: fitted at 2 and 3 ranks, predicted at 4"
    distbench model "$WORK/model-$coll-np2.json" "$WORK/model-$coll-np3.json" --predict-np 4 \
      --format json -o "$WORK/model-$coll-pred.json"; rc=$?
    distbench model "$WORK/model-$coll-np2.json" "$WORK/model-$coll-np3.json" --predict-np 4; rc=$((rc + $?))
    echo "--- distbench model: fitted at 2, 3 and 4 ranks"
    distbench model "$WORK/model-$coll-np2.json" "$WORK/model-$coll-np3.json" "$WORK/model-$coll-np4.json"
    rc=$((rc + $?)); [ $rc -eq 0 ] || fail "model $coll rc=$rc"
  done
}

mps_control() { command -v nvidia-cuda-mps-control || ls /usr/local/nvidia/bin/nvidia-cuda-mps-control 2>/dev/null; }
mps_env() {  # the daemon's pipe and log folders under $WORK, for it and its clients
  export CUDA_MPS_PIPE_DIRECTORY="$WORK/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$WORK/mps-log"
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
}

phase_sharing() {  # 2 processes on the one GPU: time-sliced without MPS (warning gpu_shared), under MPS (a fact only)
  local m rc
  [ "${MPS:-0}" = 1 ] && { echo "MPS=1: the whole run is under MPS, nothing time-sliced to compare"; return; }
  m=$(mps_control) || { fail "sharing: no nvidia-cuda-mps-control on this machine"; return; }
  local args=(allreduce --backend $BACKEND -b 64K -e 4M -f 8 -n 5 -w 2 --min-samples 5 --max-time 0.2 -T 60)
  guarded 90 sharing-off "${MPIRUN[@]}" -np 2 "${HOSTID_WRAP[@]}" distbench "${args[@]}" --json "$WORK/sharing-off.json"
  rc=$?; tail -12 "$WORK/sharing-off.out"; [ $rc -eq 0 ] || fail "sharing: time-sliced run rc=$rc"
  (
    mps_env
    "$m" -d; echo "MPS daemon started: rc=$?"; sleep 1
    guarded 90 sharing-on "${MPIRUN[@]}" -np 2 "${HOSTID_WRAP[@]}" distbench "${args[@]}" --json "$WORK/sharing-on.json"
    rc=$?; tail -12 "$WORK/sharing-on.out"; [ $rc -eq 0 ] || fail "sharing: MPS run rc=$rc"
    echo quit | "$m"; sleep 1
    echo "after quit, the pipe folder holds: $(ls "$CUDA_MPS_PIPE_DIRECTORY" | tr '\n' ' ')"
    distbench info 2>&1 | grep -i "gpu.sharing" || echo "(one process: no gpu.sharing fact)"
  )
  py - "$WORK/sharing-off.json" "$WORK/sharing-on.json" <<'PYEOF' || fail "sharing: warning and facts"
import json, sys
ok = True
times = {}
for path, mps in zip(sys.argv[1:], (False, True)):
    r = json.load(open(path))
    versions = r.get("environment", {}).get("versions", {})
    fact = versions.get("gpu.sharing", "")
    warned = [w for w in r.get("warnings", []) if w.get("code") == "gpu_shared"]
    print(f"{'MPS' if mps else 'time-sliced'}: gpu.sharing = {fact!r}; gpu_shared warnings: {len(warned)}")
    ok &= ("under MPS" in fact) if mps else ("time-sliced" in fact and len(warned) == 1)
    ok &= not (mps and warned)
    for x in r["records"]:
        if x["params"]["placement"] == "out-of-place":
            times.setdefault(x["params"]["bytes"], []).append(x["metrics"]["time_us"])
for b, t in sorted(times.items()):
    print(f"{b:>10} B: time-sliced {t[0]:9.1f} us, MPS {t[-1]:9.1f} us, ratio {t[0] / t[-1]:.1f}")
sys.exit(0 if ok else 1)
PYEOF
}

phase_timeout() {
  canary_failed timeout && return
  echo "--- -T 10, rank 1 of 2 stopped (SIGSTOP)"
  stopped_rank 2 1
  echo "--- -T 10, rank 0 of 2 stopped (SIGSTOP)"
  stopped_rank 2 0
}

# The health check on a GPU node (docs/health.md, "GPU checks"): what NVML reads (distbench info --json; kept as the
# test data of tests/unit/test_gpu_checks.cpp), a 1-rank check on NCCL with its GPU and datasheet records, the GPU
# count held to --gpus-per-node 2 (one GPU here: must fail, exit 2), and 2 ranks sharing the GPU.
phase_health() {
  local rc
  echo "--- distbench info --json: nvml"
  distbench info --json > "$WORK/info_nvml.json"; echo "rc=$?"
  py -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["nvml"], indent=1))' "$WORK/info_nvml.json"
  distbench info | tail -3
  echo "--- health, 1 rank, nccl, --detail all"
  guarded 150 health1 distbench health --backend nccl --detail all --json "$WORK/health1.json" ${HEALTH_FLAGS:-}; rc=$?
  cat "$WORK/health1.out"; echo "rc=$rc"; [ $rc -eq 0 ] || fail "health 1 rank rc=$rc"
  py - "$WORK/health1.json" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
for r in rep["records"]:
    p, m = r["params"], r.get("metrics") or {}
    if p["phase"] in ("gpu", "phase") or p["metric"].startswith(("hardware.", "memory.copy", "device.", "soak.")):
        v = m.get("value")
        v = "-" if v is None else f"{v:.4g}"
        why = p.get("why") or r.get("skip_reason") or ""
        print(f'{p["phase"]:5} {p["subject"][:30]:30} {p["metric"]:28} {v:>9} {p["unit"]:5} {p["status"]:8} '
              f'{p["limit"][:44]:44} | {why[:110]}')
EOF
  echo "--- health --gpus-per-node 2 (one GPU here: must fail, exit 2)"
  guarded 150 health_count distbench health --backend nccl --gpus-per-node 2; rc=$?
  grep -E "gpu.count|# Health" "$WORK/health_count.out"; echo "rc=$rc"
  [ $rc -eq 2 ] || fail "health --gpus-per-node 2 rc=$rc (want 2)"
  echo "--- health --rules docs/rules/h200-sxm-8gpu.json --prom (8 GPUs a node: must fail here, exit 2)"
  guarded 150 health_rules distbench health --backend nccl --level quick --rules docs/rules/h200-sxm-8gpu.json \
    --prom "$WORK/health.prom"; rc=$?
  grep -E "gpu.count|hardware|# Health" "$WORK/health_rules.out"; echo "rc=$rc"
  [ $rc -eq 2 ] || fail "health --rules h200-sxm-8gpu.json rc=$rc (want 2)"
  grep -E "^distbench_health_(gpu_healthy|datasheet_fraction|status)" "$WORK/health.prom" | head -30
  echo "--- health, 2 ranks on the one GPU"
  guarded 200 health2 "${MPIRUN[@]}" -np 2 "${HOSTID_WRAP[@]}" "${LINEBUF[@]}" distbench health --backend nccl \
    --json "$WORK/health2.json" ${HEALTH_FLAGS:-}; rc=$?
  tail -25 "$WORK/health2.out"; echo "rc=$rc"
}

# MPS=1: every phase under NVIDIA's Multi-Process Service, so that ranks sharing the GPU run at once instead of in
# time slices (about 10x faster over NCCL's sockets); quit at the end.
if [ "${MPS:-0}" = 1 ] && m=$(mps_control); then
  mps_env
  "$m" -d && echo "MPS daemon started ($m)" && trap 'echo quit | "$m"' EXIT
fi
for p in $phases; do
  run_phase "$p"
done
# Everything else (JSON reports, full console and test output) in one archive: few files come back from $OUT.
tar -C "$WORK" -czf "$OUT/work.tar.gz" . 2>/dev/null
failures=$(wc -l < "$WORK/failures")
echo "=== $failures failed check(s)"; cat "$WORK/failures"
sleep 1  # let tee finish check.log
exit "$failures"
