#!/bin/sh
# Configures (once) and builds distbench in ./build, then installs the binary so that `distbench` is on PATH.
# Extra arguments go to `meson setup` (e.g. -Dnccl=disabled).
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release "$@"
fi
meson compile -C build
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO meson install -C build --quiet --no-rebuild
