#!/usr/bin/env bash
# Configures and builds fpgacnn into build/<name> (default: build/release).
# Usage: scripts/build.sh [name] [extra cmake args...]
#   FPGACNN_BUILD_TARGETS="t1 t2": build only these targets (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:-release}"
shift || true
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# ccache (when installed) makes rebuilds of unchanged files, other build folders and later CI runs on
# the same machine cheap; CCACHE_BASEDIR lets checkouts at other paths share the cache.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd .. && pwd)}"
  # Without this, ccache puts the build folder into the hash of every -g compile, so build folders never
  # share objects: CI's explored-kernel build (scripts/test-explored-build.sh) compiled fpgacnn_core,
  # _int16, _plan and the test support again on a fresh machine, the same flags and sources as
  # build/release. Safe: the only difference is the compile directory recorded in the debug info, and
  # with CCACHE_BASEDIR the source paths are relative, so they resolve from either folder.
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
fi
cmake -S . -B "build/$name" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
targets=()
for target in ${FPGACNN_BUILD_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "build/$name" --parallel "$(nproc)" "${targets[@]}"
