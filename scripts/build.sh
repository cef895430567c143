#!/bin/sh
# Configures (once) and builds the distbench binary in ./build (only it: the tests are built by scripts/test.sh),
# then installs it so that `distbench` is on PATH. Extra arguments go to `meson setup` (e.g. -Dnccl=disabled).
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release "$@"
fi
meson compile -C build distbench
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO meson install -C build --quiet --no-rebuild
