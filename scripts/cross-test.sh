#!/usr/bin/env bash
# One CI leg for a Debian ARM target: makes the sysroot, cross-builds only what the leg tests and
# runs those tests under qemu-user. Usage: scripts/cross-test.sh arm64|armhf [--all]
#   built: libfpgacnn, fpgacnn-detect, test_int16, test_emu, test_uio (the in-process UIO tests)
#   run:   the int16 ISA tests (every path against the scalar reference), the emu device and
#          kernel-vs-int16 tests, the UIO driver against the simulated IP (in-process tests),
#          fpgacnn-detect --list-devices, and the int16 layer dumps of YOLO-LITE against the native
#          build (tests/cross/compare-int16-dumps.sh; needs build/release, made here if missing).
#   then:  the .deb packages (scripts/cross-package.sh: the other tools, the Python package, cpack) and their checks
#          (tests/cross/check-debs.sh: architecture, files, ELF machine, Depends, lintian, the
#          packaged tools under qemu).
#   not run here: UioCli.* (test_uio_cli: they start fpgacnn-detect and fpgacnn-sim-uio as child
#   processes, which qemu-user cannot follow without binfmt_misc); everything else of the cross build
#   is run with `scripts/cross-build.sh <arch>` then `ctest --test-dir build/cross-<arch> -E '^UioCli\.'`.
#   --all: also the bit-exact networks that are only bigger instances of the layers the others run
#   (about 100 s a leg under qemu on 2 cores, which CI leaves out; the native build runs them all).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
arch="${1:-}"
[[ "$arch" == arm64 || "$arch" == armhf ]] || { echo "usage: $0 arm64|armhf [--all]" >&2; exit 2; }
# The yolov2- and yolov3-sized bit-exact networks: the same layer code as the tiny, YOLO-LITE and
# darknet19 ones that stay (upsample, shortcut, route groups, mixed widths and the host's ops included),
# at 3 to 8 times the MACs; together half of the leg's test time under qemu.
bigger_networks='BitExact\.(MixedWidthsYolov3At160|Yolov3At96OnAKernelWithoutTheOpsRunsThemOnTheHost|MixedWidthsYolov2At128|Yolov2At160)$'
exclude=(-E "$bigger_networks")
[[ "${2:-}" == --all ]] && exclude=()
build="build/cross-$arch"
started=$SECONDS
phase() { echo "cross-test[$arch]: $1 ($((SECONDS - started)) s so far)"; }

if [[ ! -x build/release/apps/detect/fpgacnn-detect || ! -x build/release/apps/quantize/fpgacnn-quantize ]]; then
  if [[ -f build/release/CMakeCache.txt ]]; then
    cmake --build build/release --parallel "$(nproc)" --target fpgacnn-detect fpgacnn-quantize
  else
    bash scripts/build.sh release
  fi
fi
bash scripts/make-sysroot.sh "$arch"
phase "sysroot ready"
bash scripts/cross-build.sh "$arch" --target fpgacnn-detect --target test_int16 --target test_emu \
  --target test_uio
phase "built"

if [[ "$arch" == armhf ]]; then
  # The NEON files are the only ones built with -mfpu=neon. An inline function they instantiate
  # out of line (a weak symbol) could be the copy the linker keeps for the whole library, and run
  # NEON code on a CPU without it: they must define no weak symbols.
  weak="$(find "$build" -name '*_neon.cpp.o' -exec arm-linux-gnueabihf-nm --defined-only {} + | awk '$2 ~ /^[WVu]$/')"
  [[ -z "$weak" ]] || { echo "cross-test: NEON objects define weak symbols:"; echo "$weak"; exit 1; }
fi

# Which int16 paths ran: the ISA test prints them; under qemu the best one must be NEON.
isa_line="$(bash scripts/cross-run.sh "$arch" "$build/tests/test_int16" \
  --gtest_filter='Int16Isa.EverySupportedPath*' | grep 'int16 paths tested')"
echo "cross-test[$arch]: $isa_line"
[[ "$isa_line" == *"best: neon"* ]] || { echo "cross-test: the NEON path did not run on $arch"; exit 1; }

log="$build/cross-test.log"
ctest --test-dir "$build" -L fast --output-on-failure -j "$(nproc)" "${exclude[@]}" \
  -R '^(Int16[A-Za-z]*|ThreadPool|BitExact|Detections|DeviceQueuePipeline|KernelFingerprint|EmuDevice|KernelVsInt16|UioDevice|UioFaults|cross)\.' \
  | tee "$log"
grep -Eq 'cross\.int16_dumps_match_native \.+ +Passed' "$log" || {
  echo "cross-test: the int16 dump comparison did not pass (see above; it needs the shared models)"
  exit 1
}
phase "$(grep -Eo '[0-9]+% tests passed.*' "$log")"

bash scripts/cross-package.sh "$arch"
phase "packaged"
bash tests/cross/check-debs.sh "$arch"
phase "packages checked"
