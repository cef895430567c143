#!/bin/sh
# Prepares .gpu/ (git-ignored) for a GPU machine that has CUDA and NCCL but no MPI and no registry: the stripped
# distbench binary and gpu test executables of a build made here, and the Debian 12 runtime packages Open MPI needs,
# which scripts/gpu/check.sh unpacks there into a prefix (never over /). Peers such as nccl-tests are not fetched:
# pass a folder of binaries you built yourself and they are copied into .gpu/peers/.
#
#   sh scripts/gpu/bundle.sh BUILD_DIR [PEER_BIN_DIR [PEER ...]]
#
# BUILD_DIR: a build configured with CUDA and NCCL found (meson setup BUILD_DIR; `NCCL: YES` in its summary).
# PEER_BIN_DIR: e.g. nccl-tests' build/ folder; the PEER binaries named after it are copied (default:
# all_reduce_perf; each is ~4 MiB and the working tree that travels is limited).
# Needs apt-get (Debian 12) for the .deb files; run as root or with a writable partial folder.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bundle.sh BUILD_DIR [PEER_BIN_DIR]}
peers=${2:-}
[ $# -gt 2 ] && shift 2 && peer_names="$*" || peer_names=all_reduce_perf
build=$(cd "$build" && pwd)
out="$root/.gpu"

[ -x "$build/src/cli/distbench" ] || { echo "error: $build/src/cli/distbench not built" >&2; exit 2; }
ls "$build"/tests/gpu/test_* >/dev/null 2>&1 || {
  echo "error: $build/tests/gpu has no test executables (was NCCL found? see meson's summary)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/bin" "$out/tests" "$out/debs"
cp "$build/src/cli/distbench" "$out/bin/"
for t in "$build"/tests/gpu/test_*; do
  [ -f "$t" ] && [ -x "$t" ] && cp "$t" "$out/tests/"
done
strip --strip-debug "$out"/bin/* "$out"/tests/*  # keep the symbol table: stacks of a hang name functions

# Open MPI 4.1.4 and what it loads, minus what any Ubuntu 24.04 / Debian 12 base image has (libc, libstdc++, ...).
# zlib, udev, numa, ... may or may not be there: check.sh drops the bundled copy where the machine has its own.
packages="openmpi-bin openmpi-common libopenmpi3 libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
  libfabric1 libucx0 libibverbs1 ibverbs-providers librdmacm1 libnl-3-200 libnl-route-3-200 libpsm-infinipath1
  libpsm2-2 libnuma1 libmunge2 libatomic1 libbsd0 libmd0 libudev1 zlib1g libpciaccess0 libfmt9
  libsqlite3-0"
# apt-get download writes into the current folder; as root it warns that _apt cannot access it (harmless).
(cd "$out/debs" && apt-get download $packages 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
n=$(ls "$out"/debs/*.deb | wc -l)
want=$(echo $packages | wc -w)
[ "$n" -eq "$want" ] || { echo "error: got $n .deb files for $want packages" >&2; exit 1; }

if [ -n "$peers" ]; then
  mkdir -p "$out/peers"
  for p in $peer_names; do
    cp "$peers/$p" "$out/peers/"
  done
  strip --strip-unneeded "$out"/peers/* 2>/dev/null || true
  # nccl-tests' binaries share most of their bytes (~5 MiB each, 0.7 MiB for five in one tar.gz): carried packed,
  # check.sh unpacks them; the working tree that travels is limited to 64 MiB.
  tar -C "$out" -czf "$out/peers.tar.gz" peers && rm -rf "$out/peers"
fi

# The gpu test executables each link CUDA's runtime statically (~4.3 MiB each, 43 MiB for ten; 14 MiB packed): carried
# packed as well, check.sh unpacks them.
tar -C "$out" -czf "$out/tests.tar.gz" tests && rm -rf "$out/tests"

# The commit the binaries were built from (the build's version.hpp), not the checkout's HEAD.
sed -n 's/.*kGitSha = "\([^"]*\)".*/\1/p' "$build/version.hpp" 2>/dev/null > "$out/SOURCE_COMMIT"
[ -s "$out/SOURCE_COMMIT" ] || echo unknown > "$out/SOURCE_COMMIT"
du -sh "$out"
