#!/usr/bin/env bash
# Configures and builds fpgacnn into build/<name> (default: build/release).
# Usage: scripts/build.sh [name] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:-release}"
shift || true
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B "build/$name" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "build/$name" --parallel "$(nproc)"
