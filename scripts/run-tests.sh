#!/usr/bin/env bash
# Installs dependencies, builds and runs the whole test suite: clang-format, the release build's
# tests (fast + slow cross-checks), clang-tidy, then the fast tests again under AddressSanitizer+UBSan.
# Usage: scripts/run-tests.sh [--fast]     (--fast: only the "fast" label, no sanitizer build)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
fast_only=0
[[ "${1:-}" == "--fast" ]] && fast_only=1
jobs="$(nproc)"

bash scripts/install-deps.sh --with-tests
bash scripts/check-style.sh

bash scripts/build.sh release
if ((fast_only)); then
  ctest --test-dir build/release -L fast --output-on-failure -j "$jobs"
  exit 0
fi
ctest --test-dir build/release --output-on-failure -j "$jobs"
bash scripts/check-tidy.sh build/release

# Sanitizer build: the fast tests (the slow cross-checks are the same code on bigger networks).
bash scripts/build.sh asan -DFPGACNN_SANITIZE=address,undefined -DFPGACNN_BUILD_BENCHMARKS=OFF \
  -DFPGACNN_BUILD_SLOW_TESTS=OFF
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan -L fast --output-on-failure -j "$jobs"

# ThreadSanitizer on the multithreaded code that has no OpenBLAS underneath (uninstrumented OpenBLAS
# threads would only produce noise): the int16 backend's thread pool and engine, the DeviceQueue's
# submission thread with the emu device's kernel thread, the uio driver against the simulated IP's
# thread (in-process tests; the uio CLI tests spawn other processes), the detector's pipeline (its
# tests use test backends and the int16 / emu backends; PipelineFloat.* is left out) and the power
# sampler.
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFPGACNN_SANITIZE=thread \
  -DFPGACNN_BUILD_BENCHMARKS=OFF -DFPGACNN_BUILD_SLOW_TESTS=OFF >/dev/null
cmake --build build/tsan --parallel "$jobs" --target test_int16 test_emu test_uio test_pipeline test_power
TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build/tsan \
  -R '^(Int16|DeviceQueuePipeline|KernelFingerprint|UioDevice|UioFaults|Pipeline\.|PowerReaders\.)' \
  --output-on-failure -j "$jobs"

# --- ARM cross legs (issue 12; docs/boards.md) ---
# Per Debian ARM target: the sysroot (downloaded once, kept in build/sysroot-<arch>), a cross build of
# only what the leg tests, and those tests under qemu-user, including the int16 layer dumps of
# YOLO-LITE against build/release's. The rest of the cross build is scripts/cross-build.sh + ctest.
bash scripts/install-deps.sh --with-cross
for arch in arm64 armhf; do
  bash scripts/cross-test.sh "$arch"
done
