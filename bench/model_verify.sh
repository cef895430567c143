#!/bin/sh
# The measurements behind docs/model.md's verification tables: `distbench model` against links of a known rate.
# A cluster of 4 hosts made of network namespaces (tests/cluster/netns_cluster.sh), one rank per host, every host's
# egress shaped to RATE Mbit/s (netns_cluster.sh shape); per rate, ring allreduce and ring allgather sweeps
# (Open MPI's coll_tuned algorithm forced, so that the report records it) at 2, 3 and 4 hosts with Open MPI's TCP
# eager limit raised to 4 MiB (every message in one protocol), the same at 2 and 4 hosts at Open MPI's default limit
# (64 KiB; files *-default-*), and `distbench latency` between two hosts. Then, without the cluster, one allreduce
# sweep on this host (shared memory) up to 64 MiB, where page faults and caches show. Reports go to OUT; read them
# with `distbench model` (docs/model.md).
#
# Usage (root; about 4 minutes on 2 cores): sh bench/model_verify.sh BUILD_DIR OUT_DIR [RATE_MBIT...]
# (default rates: 100 200)
set -eu
[ $# -ge 2 ] || { echo "usage: model_verify.sh BUILD_DIR OUT_DIR [RATE_MBIT...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$1" && pwd)/src/cli/distbench
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
rates=${*:-100 200}
script="$here/../tests/cluster/netns_cluster.sh"
export CLUSTER_DIR="$out/cluster" CLUSTER_ID="dbm$$" CLUSTER_SLOTS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "start: $(uptime)" > "$out/load.txt"  # a busy machine (load above its 2 cores) spoils the small sizes
sh "$script" up 4
trap 'sh "$script" down' EXIT INT TERM

eager="--mca btl_tcp_eager_limit 4194304 --mca btl_tcp_rndv_eager_limit 4194304 --mca btl_tcp_max_send_size 4194304"
sweep() {  # sweep COLLECTIVE NP FILE [MPIRUN OPTIONS]
    c=$1 np=$2 file=$3
    shift 3
    # shellcheck disable=SC2086
    sh "$script" run --timeout 300 -np "$np" --mca coll_tuned_use_dynamic_rules 1 \
        --mca "coll_tuned_${c}_algorithm" ring "$@" \
        "$bin" "$c" -b 8 -e 2M -f 4 -n 10 -w 3 -c 0 --placement out-of-place --timing sampled -q --json "$file"
}

for rate in $rates; do
    for h in $(sh "$script" hosts); do sh "$script" shape "$h" "$rate"; done
    for np in 2 3 4; do
        # shellcheck disable=SC2086
        sweep allreduce "$np" "$out/allreduce-${rate}mbit-np$np.json" $eager
        # shellcheck disable=SC2086
        sweep allgather "$np" "$out/allgather-${rate}mbit-np$np.json" $eager
    done
    for np in 2 4; do
        sweep allreduce "$np" "$out/allreduce-default-${rate}mbit-np$np.json"
    done
    sh "$script" run --timeout 120 -np 2 "$bin" latency -b 8 -e 8 -n 200 -q --json "$out/latency-${rate}mbit.json"
done
sh "$script" down
trap - EXIT INT TERM

# One host, shared memory: no --malloc-reuse, so that the library's fresh buffers fault in where they do.
mpirun -np 2 --bind-to none --mca pml ob1 --mca btl self,vader "$bin" allreduce -b 8 -e 64M -f 2 -c 0 \
    --placement out-of-place --show-faults -q --json "$out/allreduce-onehost-np2.json"
echo "end: $(uptime)" >> "$out/load.txt"
cat "$out/load.txt"
echo "reports in $out"
