#!/bin/sh
# distbench health as Slurm's HealthCheckProgram (or in a Prolog or Epilog): this node's own checks, one process and
# no MPI job (--level quick: its GPUs through NVML, memory touched and read back, copy bandwidth), and --slurm-drain:
# a bad node is drained with distbench's reason, and a node distbench drained is resumed once it passes again. Nodes
# drained for another reason are left alone.
#   slurm.conf:  HealthCheckProgram=/etc/slurm/distbench-healthcheck.sh
#                HealthCheckInterval=300
#                HealthCheckNodeState=ANY,CYCLE
# Slurm runs it as root (scontrol update needs root or SlurmUser) with an empty environment but SLURMD_NODENAME, and
# kills it after 60 s: -T keeps each phase well inside. Settings, from the environment where a wrapper sets them:
#   DISTBENCH              the binary (default: distbench on the PATH below)
#   DISTBENCH_HEALTH_ARGS  more options, split on spaces (e.g. "--backend nccl --gpus-per-node 8 --rules /etc/x.rules")
#   DISTBENCH_HEALTH_PROM  a file for node_exporter's textfile collector (default: none)
# Always exits 0: the verdict acts through the drain, and a Prolog that fails would requeue the job and drain the
# node itself with Slurm's reason ("Prolog error"), which distbench would then never resume.
PATH=${PATH:-/usr/local/bin:/usr/bin:/bin}
export PATH
set -- health --level quick --slurm-drain -T 15
[ -z "${DISTBENCH_HEALTH_PROM:-}" ] || set -- "$@" --prom "$DISTBENCH_HEALTH_PROM"
# shellcheck disable=SC2086  # split on purpose
"${DISTBENCH:-distbench}" "$@" ${DISTBENCH_HEALTH_ARGS:-} > /dev/null
exit 0
