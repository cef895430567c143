#!/bin/sh
# Installs what distbench needs to build, test and benchmark on Debian 12 (run as root, or with sudo).
# prometheus brings promtool, which the tests use to check `distbench health --prom` files (its daemon is not
# started by this script); ccache lets the second build of the tests (without MPI) reuse the first's objects; clang and
# its runtimes build the sanitizer tests (scripts/sanitize.sh); Slurm's daemons and munge are started by the Slurm test
# itself (tests/slurm), never as services; gdb stops a rank at each kind of step for the fault table
# (tests/e2e/test_stopped_steps.py); universal-ctags reads where each function ends and clang-format checks
# the format for the house's rules (tests/e2e/test_house.py).
set -eu
packages="meson ninja-build g++ pkg-config git libopenmpi-dev openmpi-bin libcli11-dev nlohmann-json3-dev libfmt-dev
  libsqlite3-dev libgtest-dev libgmock-dev libopenblas-dev python3 python3-mpi4py time procps iproute2 librsvg2-bin
  prometheus ccache clang libclang-rt-14-dev slurmd slurmctld slurm-client munge gdb universal-ctags clang-format"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi
