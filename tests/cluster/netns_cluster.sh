#!/bin/sh
# A real multi-host MPI cluster on one machine: each "host" is a network namespace with its own eth0 (a veth) on a
# private /24, all joined by a bridge that lives in one more namespace. Nothing is added to the root namespace and
# no traffic can leave the namespaces. mpirun reaches the hosts through a generated rsh agent (instead of ssh) that
# enters the host's namespace with a private hostname (UTS namespace) and a private /etc/hosts (bind-mounted in a
# private mount namespace; the real /etc/hosts is never touched).
#
# Usage (CLUSTER_DIR: a work directory, required):
#   netns_cluster.sh up [N]            create hosts nodeA.. (N, default 3, at most 26); writes into $CLUSTER_DIR:
#                                      hostfile (nodeX slots=$CLUSTER_SLOTS), hosts, rsh (the agent), id, subnet
#   netns_cluster.sh down              kill every process in the cluster's namespaces and delete them (idempotent)
#   netns_cluster.sh run ARGS...       run `mpirun <cluster flags> ARGS...` inside nodeA
#   netns_cluster.sh exec HOST CMD...  run CMD inside HOST's network namespace (e.g. tc, ip)
#   netns_cluster.sh shape HOST MBIT   limit HOST's egress to MBIT Mbit/s (htb), packets under 128 bytes first
#   netns_cluster.sh ns HOST           print the network namespace name of HOST
#   netns_cluster.sh hosts             print the host names, one a line
#
# Environment: CLUSTER_DIR (required); CLUSTER_ID (namespace name prefix, default db<pid of `up`>; remembered in
# $CLUSTER_DIR/id); CLUSTER_SUBNET (first three octets, default 10.77.0); CLUSTER_SLOTS (slots per host, default
# 2); CLUSTER_BTL (default tcp,self).
set -eu

die() { echo "netns_cluster: $*" >&2; exit 1; }

[ -n "${CLUSTER_DIR:-}" ] || die "set CLUSTER_DIR to a work directory"
SUBNET=${CLUSTER_SUBNET:-10.77.0}
SLOTS=${CLUSTER_SLOTS:-2}
BTL=${CLUSTER_BTL:-tcp,self}
LETTERS="A B C D E F G H I J K L M N O P Q R S T U V W X Y Z"

# The namespace prefix of this cluster: CLUSTER_ID, else what `up` remembered; empty when there is no cluster.
cluster_prefix() {
    if [ -n "${CLUSTER_ID:-}" ]; then
        echo "$CLUSTER_ID"
    elif [ -f "$CLUSTER_DIR/id" ]; then
        cat "$CLUSTER_DIR/id"
    fi
}

# Every namespace whose name starts with "<prefix>-".
cluster_namespaces() {
    ip netns list 2>/dev/null | awk -v p="$1-" 'index($1, p) == 1 { print $1 }'
}

# Kill everything that runs in the namespace: TERM, up to 3 s for it to go, then KILL, up to 3 s more.
kill_namespace_processes() {
    ns=$1
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    i=0
    while [ $i -lt 30 ]; do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -n "$pids" ] || return 0
        sleep 0.1
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    i=0
    while [ $i -lt 30 ]; do
        [ -n "$(ip netns pids "$ns" 2>/dev/null || true)" ] || return 0
        sleep 0.1
        i=$((i + 1))
    done
    echo "netns_cluster: processes still alive in $ns: $(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')" >&2
}

cmd_down() {
    prefix=$(cluster_prefix)
    [ -n "$prefix" ] || return 0
    for ns in $(cluster_namespaces "$prefix"); do
        kill_namespace_processes "$ns"
    done
    for ns in $(cluster_namespaces "$prefix"); do
        ip netns del "$ns" 2>/dev/null || echo "netns_cluster: could not delete namespace $ns" >&2
    done
    rm -f "$CLUSTER_DIR/id"
    left=$(cluster_namespaces "$prefix")
    [ -z "$left" ] || die "namespaces left behind: $left"
}

cmd_up() {
    n=${1:-3}
    case "$n" in ''|*[!0-9]*) die "up: N must be a number, got '$n'" ;; esac
    if [ "$n" -lt 1 ] || [ "$n" -gt 26 ]; then die "up: N must be 1..26, got $n"; fi
    [ "$(id -u)" -eq 0 ] || die "up: needs root (ip netns add)"
    mkdir -p "$CLUSTER_DIR"
    CLUSTER_DIR=$(cd "$CLUSTER_DIR" && pwd)
    cmd_down                                   # a cluster left in this directory goes first
    prefix=${CLUSTER_ID:-db$$}
    case "$prefix" in *[!A-Za-z0-9_.]*|'') die "CLUSTER_ID may hold letters, digits, '_' and '.' only" ;; esac
    [ -z "$(cluster_namespaces "$prefix")" ] || die "namespaces named $prefix-* exist already"
    echo "$prefix" > "$CLUSTER_DIR/id"
    trap 'cmd_down' EXIT                       # a failure half way leaves nothing behind
    trap 'exit 130' INT TERM

    br="$prefix-br"
    ip netns add "$br"
    ip -n "$br" link set lo up
    ip -n "$br" link add br0 type bridge
    ip -n "$br" link set br0 up

    : > "$CLUSTER_DIR/hostfile"
    printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' > "$CLUSTER_DIR/hosts"
    cases=""
    i=1
    for letter in $LETTERS; do
        [ $i -le "$n" ] || break
        host="node$letter"
        ns="$prefix-$host"
        ip netns add "$ns"
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
        ip -n "$ns" link set lo up
        # eth0 in the host, its peer port$letter on the bridge (both created in place: no name in the root ns)
        ip -n "$ns" link add eth0 type veth peer name "port$letter" netns "$br"
        ip -n "$ns" addr add "$SUBNET.$((10 + i))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$br" link set "port$letter" master br0
        ip -n "$br" link set "port$letter" up
        echo "$host slots=$SLOTS" >> "$CLUSTER_DIR/hostfile"
        echo "$SUBNET.$((10 + i)) $host" >> "$CLUSTER_DIR/hosts"
        cases="$cases    $host) ns=$ns ;;
"
        i=$((i + 1))
    done
    echo "$SUBNET.0/24" > "$CLUSTER_DIR/subnet"

    # The rsh agent. mpirun calls it as `rsh [options] HOST WORDS...` and expects ssh's behaviour: WORDS joined by
    # spaces and run by a shell on HOST, with a login-like environment (not mpirun's). `rsh --exec HOST ARGV...`
    # runs ARGV as is (used to start mpirun itself inside the first host). Where $CLUSTER_DIR/profile.HOST exists,
    # the shell on HOST sources it first (rsh mode: the MPI daemons, so every rank on HOST unless HOST is the first):
    # one host with another limit or variable (`ulimit -S -l 64; export NCCL_X=1`) for health's drift phase.
    cat > "$CLUSTER_DIR/rsh" <<EOF
#!/bin/sh
# Generated by netns_cluster.sh up: an rsh/ssh stand-in reaching the namespace hosts of cluster $prefix.
set -eu
mode=rsh
if [ "\${1:-}" = "--exec" ]; then mode=exec; shift; fi
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
[ \$# -ge 2 ] || { echo "rsh agent: usage: rsh [--exec] HOST COMMAND..." >&2; exit 255; }
host=\$1; shift
case "\$host" in
$cases    *) echo "rsh agent: unknown host '\$host'" >&2; exit 255 ;;
esac
if [ \$mode = rsh ]; then
    if [ -f "$CLUSTER_DIR/profile.\$host" ]; then set -- ". '$CLUSTER_DIR/profile.\$host';" "\$@"; fi
    set -- env -i PATH="\$PATH" HOME="\${HOME:-/root}" LANG="\${LANG:-C.UTF-8}" /bin/sh -c "\$*"
fi
exec ip netns exec "\$ns" unshare --uts --mount /bin/sh -c \\
    'hostname "\$1" && mount --bind "\$2" /etc/hosts && shift 2 && exec "\$@"' enter "\$host" "$CLUSTER_DIR/hosts" "\$@"
EOF
    chmod +x "$CLUSTER_DIR/rsh"

    # Every host reaches every other one (bounded: 2 s per ping; skipped where there is no ping).
    if command -v ping > /dev/null; then
        for h in $(cmd_hosts); do
            # shellcheck disable=SC2013
            for addr in $(awk -v s="$SUBNET." 'index($1, s) == 1 { print $1 }' "$CLUSTER_DIR/hosts"); do
                ip netns exec "$prefix-$h" ping -q -c 1 -W 2 "$addr" > /dev/null || die "up: $h cannot reach $addr"
            done
        done
    fi
    trap - EXIT INT TERM
    echo "cluster $prefix: $n host(s) in $CLUSTER_DIR"
}

cmd_hosts() {
    [ -f "$CLUSTER_DIR/hostfile" ] || die "no cluster in $CLUSTER_DIR (run up first)"
    awk '{ print $1 }' "$CLUSTER_DIR/hostfile"
}

cmd_ns() {
    [ $# -eq 1 ] || die "usage: ns HOST"
    prefix=$(cluster_prefix)
    [ -n "$prefix" ] || die "no cluster in $CLUSTER_DIR (run up first)"
    cmd_hosts | grep -qx "$1" || die "no host '$1' in this cluster"
    echo "$prefix-$1"
}

cmd_exec() {
    [ $# -ge 2 ] || die "usage: exec HOST COMMAND..."
    ns=$(cmd_ns "$1")
    shift
    exec ip netns exec "$ns" "$@"
}

# HOST's egress limited to MBIT Mbit/s by htb, with packets under 128 bytes (TCP ACKs, MPI's control messages) in a
# class of their own that goes first, as a switch's fair queueing would let them: behind a plain FIFO shaper (tbf)
# they wait for the bulk data queued ahead of them and the link idles (this kernel has neither fq_codel nor sfq).
# Both classes share the one rate. Replaces any shaping HOST had.
cmd_shape() {
    [ $# -eq 2 ] || die "usage: shape HOST MBIT"
    case "$2" in ''|*[!0-9]*) die "shape: MBIT must be a whole number of Mbit/s, got '$2'" ;; esac
    [ "$2" -ge 10 ] || die "shape: MBIT must be at least 10"
    ns=$(cmd_ns "$1")
    rate=$2
    ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null || true
    ip netns exec "$ns" tc qdisc add dev eth0 root handle 1: htb default 20
    ip netns exec "$ns" tc class add dev eth0 parent 1: classid 1:1 htb rate "${rate}mbit" ceil "${rate}mbit" quantum 30000
    ip netns exec "$ns" tc class add dev eth0 parent 1:1 classid 1:10 htb rate "$((rate / 10))mbit" \
        ceil "${rate}mbit" prio 0 quantum 30000
    ip netns exec "$ns" tc class add dev eth0 parent 1:1 classid 1:20 htb rate "$((rate - rate / 10))mbit" \
        ceil "${rate}mbit" prio 1 quantum 30000
    # IPv4 total length (bytes 2-3 of the header) below 128
    ip netns exec "$ns" tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match u16 0x0000 0xff80 at 2 flowid 1:10
}

cmd_run() {
    if [ ! -x "$CLUSTER_DIR/rsh" ] || [ -z "$(cluster_prefix)" ]; then die "no cluster in $CLUSTER_DIR (run up first)"; fi
    subnet=$(cat "$CLUSTER_DIR/subnet")
    first=$(cmd_hosts | head -n 1)
    exec "$CLUSTER_DIR/rsh" --exec "$first" mpirun --allow-run-as-root --hostfile "$CLUSTER_DIR/hostfile" \
        --mca plm_rsh_agent "$CLUSTER_DIR/rsh" --mca plm_rsh_no_tree_spawn 1 \
        --mca pml ob1 --mca btl "$BTL" --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$subnet" \
        --bind-to none --mca mpi_yield_when_idle 1 "$@"
}

[ $# -ge 1 ] || die "usage: netns_cluster.sh up [N] | down | run MPIRUN-ARGS... | exec HOST CMD... | shape HOST MBIT | ns HOST | hosts"
sub=$1
shift
case "$sub" in
    up) cmd_up "$@" ;;
    down) cmd_down ;;
    run) cmd_run "$@" ;;
    exec) cmd_exec "$@" ;;
    shape) cmd_shape "$@" ;;
    ns) cmd_ns "$@" ;;
    hosts) cmd_hosts ;;
    *) die "unknown command '$sub'" ;;
esac
