#!/usr/bin/env bash
# Configures and builds fpgacnn into build/<name> (default: build/release).
# Usage: [FPGACNN_BUILD_TARGETS="t1 t2"] scripts/build.sh [name] [extra cmake args...]
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
fi
cmake -S . -B "build/$name" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
# FPGACNN_BUILD_TARGETS="a b": build only those targets (scripts/demo.sh builds just its tools).
targets=()
[[ -n "${FPGACNN_BUILD_TARGETS:-}" ]] && read -r -a targets <<<"--target ${FPGACNN_BUILD_TARGETS}"
cmake --build "build/$name" --parallel "$(nproc)" "${targets[@]}"
