#!/usr/bin/env bash
# Installs dependencies, builds and runs the whole test suite: clang-format, the release build's
# tests (labels fast, memory and crosscheck), the install test, clang-tidy, the fast tests again under
# AddressSanitizer+UBSan and the threaded ones under ThreadSanitizer, the ARM legs, the fuzzers, and
# last the Debian packages. The "slow" label (the long load tests) is scripts/run-slow-tests.sh.
# Usage: scripts/run-tests.sh [--fast]     (--fast: only the "fast" label, no sanitizer build)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
fast_only=0
[[ "${1:-}" == "--fast" ]] && fast_only=1
jobs="$(nproc)"
# Each leg's wall time, for the notes and for keeping the whole run within CI's hour.
leg_start=$SECONDS
legs=()
leg_done() {
  echo "run-tests: leg '$1' took $((SECONDS - leg_start)) s (run so far $((SECONDS / 60)) min $((SECONDS % 60)) s)"
  legs+=("$1: $((SECONDS - leg_start)) s")
  leg_start=$SECONDS
}
# The legs' times again as the last lines, pass or fail: CI keeps only the end of the output.
leg_summary() {
  local status=$?
  local leg
  for leg in "${legs[@]}"; do echo "run-tests: $leg"; done
  echo "run-tests: exit $status after $((SECONDS / 60)) min $((SECONDS % 60)) s (the leg that failed, if any, is the one after the last above)"
}
trap leg_summary EXIT

bash scripts/install-deps.sh --with-tests
bash scripts/check-style.sh
# The ARM legs' sysroots are downloads (about 150 s each, most of it waiting on the mirror): made in
# the background while the release build compiles, and waited for before the cross legs.
sysroots_pid=
if ((!fast_only)); then
  bash scripts/install-deps.sh --with-cross
  mkdir -p build
  (bash scripts/make-sysroot.sh arm64 && bash scripts/make-sysroot.sh armhf) >build/sysroots.log 2>&1 &
  sysroots_pid=$!
fi

leg_done "dependencies + clang-format"

# fpgacnn-serve must be built here (its dependencies are installed above), not skipped quietly.
bash scripts/build.sh release -DFPGACNN_WITH_SERVE=ON
if ((fast_only)); then
  ctest --test-dir build/release -L fast --output-on-failure -j "$jobs"
  exit 0
fi
# Every label but "slow": serve_e2e.load and CameraLoad.* (61 s + 31 s with both cores busy, measured
# on 2 cores) are soak tests of what the fast label's conformance and end-to-end tests of fpgacnn-serve
# and fpgacnn-camera already check request by request; they run in scripts/run-slow-tests.sh. The
# darknet / OpenCV cross-checks and the 416 bit-exact networks (label crosscheck, about 22 s) stay:
# nothing else compares with darknet itself.
ctest --test-dir build/release -LE '^slow$' --output-on-failure -j "$jobs" --output-junit ctest-junit.xml
# A suite that did not register (test_xrt without libxrt-dev, the darknet cross-checks without darknet)
# or skipped for want of what CI installs (../shared/models) passes ctest quietly: fail here instead.
/usr/bin/python3 scripts/check_expected_tests.py build/release build/release/ctest-junit.xml
leg_done "release build + tests (all labels but slow)"
# The kernel at the maxima fpgacnn-plan --explore chooses for the Zedboard (its own build folder).
bash scripts/test-explored-build.sh build/release xc7z020
leg_done "explored kernel build"
# The library's ABI against the last release's (abi/; fails on a break without a SONAME bump) and the
# API reference (fails on an undocumented public declaration): docs/api-stability.md.
bash scripts/check-abi.sh build/release
cmake --build build/release --target docs
leg_done "ABI check + API reference"
# `cmake --install` to a temporary prefix and examples/detect-minimal built against it (docs/install.md).
bash tests/install/install_test.sh build/release
leg_done "install test"
bash scripts/check-tidy.sh build/release
leg_done "clang-tidy"

# Sanitizer build: the fast tests (the slow cross-checks are the same code on bigger networks). Built
# with clang (installed for the fuzzers), the release build with GCC, so both compilers see the code
# (clang found a test helper GCC read differently). Measured on 2 cores: the whole instrumented build
# costs the same CPU time with either (clang is faster on most files, slower on the Boost.Beast ones),
# the tests run faster under clang's sanitizers (threaded tests under TSan 236 s -> 150 s).
sanitizer_compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
# No Verilator model of the kernel in the sanitizer builds: the RTL tests run in the release build, and
# instrumenting Verilator's generated C++ would only check Verilator (an unknown option is ignored).
no_rtl=(-DFPGACNN_BUILD_RTL=OFF)
bash scripts/build.sh asan -DFPGACNN_SANITIZE=address,undefined -DFPGACNN_BUILD_BENCHMARKS=OFF \
  -DFPGACNN_BUILD_SLOW_TESTS=OFF "${sanitizer_compilers[@]}" "${no_rtl[@]}"
# Left out here, each the same code on a bigger input as tests that stay in: the yolov2- and
# yolov3-sized bit-exact networks (BitExact's YOLO-LITE, tiny, darknet19 and yolov3-at-96-on-the-device
# networks run the same layers), the explorer's search for yolov2 on the Zedboard (Explore.* on smaller
# workloads) and fpgacnn-quantize --explore run twice on two images (QuantizeCli.ExploreStudy*). Together
# about 6 minutes of CPU under ASan on 2 cores; the release build runs them.
asan_left_out='BitExact\.(Yolov2At160|MixedWidthsYolov2At128|MixedWidthsYolov3At160|Yolov3At96OnAKernelWithoutTheOpsRunsThemOnTheHost)$'
asan_left_out+='|Explore\.ZedboardYolov2BuildFitsAndBeatsTheReferenceBuild$|QuantizeCli\.ExploreScoresTheLossAtTheThresholdTheModelRunsAt$'
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan -L fast -E "$asan_left_out" --output-on-failure -j "$jobs"
leg_done "ASan+UBSan build + fast tests"

# ThreadSanitizer on the multithreaded code: the CPU backends' thread pool with the int16 engine and
# the float path (OpenBLAS runs single-threaded on the pool's threads, so no uninstrumented thread of
# its own does work; two float engines at once share the pool), the DeviceQueue's submission thread
# with the emu device's kernel thread, the uio driver against the simulated IP's thread (in-process
# tests; the uio CLI tests spawn other processes), the detector's pipeline (its tests use test backends
# and the int16 / emu backends; PipelineFloat.* is left out: its image loading through OpenCV reports a
# lock-order inversion inside the uninstrumented libgdal), the power sampler, the golden twin (its CPU
# twin thread beside the device stage and the emu's kernel thread; the emu's injected faults), and
# fpgacnn-serve's front ends (gRPC's handler threads, REST's I/O and inference threads, over the model
# pools; Debian's gRPC, Abseil and OpenSSL are uninstrumented, so tests/serve/tsan-suppressions.txt lists
# their internals). clang, as the ASan build.
# The rtl device's worker thread beside DeviceQueue's, against the release build's (uninstrumented)
# Verilated model, which it loads with dlopen (FPGACNN_TEST_RTL_DIR).
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFPGACNN_SANITIZE=thread \
  -DFPGACNN_BUILD_BENCHMARKS=OFF -DFPGACNN_BUILD_SLOW_TESTS=OFF "${sanitizer_compilers[@]}" "${no_rtl[@]}" \
  -DFPGACNN_TEST_RTL_DIR="$PWD/build/release/rtl" >/dev/null
cmake --build build/tsan --parallel "$jobs" --target test_int16 test_float test_emu test_uio test_pipeline test_power \
  test_serve test_rtl_device
TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/serve/tsan-suppressions.txt" ctest --test-dir build/tsan \
  -R '^(Int16|ThreadPool\.|FloatEngine\.|ConvForward\.|MaxPoolForward\.|DeviceQueuePipeline|KernelFingerprint|UioDevice|UioFaults|Pipeline\.|PowerReaders\.|GoldenTwin\.|EmuFaults\.|Grpc|Rest|RtlDevice\.|RtlBitExact\.Yolov3TinyAt64WithTheUpsampleOnTheHost)' \
  --output-on-failure -j "$jobs"
leg_done "TSan build + threaded tests"

# --- ARM cross legs (issue 12; docs/boards.md) ---
# Per Debian ARM target: the sysroot (made in the background above, kept in build/sysroot-<arch>), a
# cross build of only what the leg tests, and those tests under qemu-user, including the int16 layer
# dumps of YOLO-LITE against build/release's; then the leg's .deb packages, checked under qemu
# (tests/cross/check-debs.sh). The rest of the cross build is scripts/cross-build.sh + ctest.
if ! wait "$sysroots_pid"; then
  cat build/sysroots.log
  echo "run-tests: making the ARM sysroots failed (log above: build/sysroots.log)" >&2
  exit 1
fi
cat build/sysroots.log
leg_done "cross sysroots (made in the background since the start)"
for arch in arm64 armhf; do
  bash scripts/cross-test.sh "$arch"
  leg_done "cross $arch (build, tests under qemu, packages)"
done

# libFuzzer harnesses (tests/fuzz, docs/reliability.md): each parser fuzzed for half a minute
# (FPGACNN_FUZZ_SECONDS to change; CI's whole run must stay within its hour) in its own small clang
# build; any finding fails the run.
bash scripts/run-fuzzers.sh "${FPGACNN_FUZZ_SECONDS:-30}"
leg_done "fuzzers"

# Last: the .debs installed on this machine with apt, used, then purged (tests/install/deb_test.sh
# leaves the machine as it found it, and no stage after it can pick up /usr's copies).
bash tests/install/deb_test.sh build/release
leg_done "Debian packages"
