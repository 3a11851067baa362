#!/usr/bin/env bash
# The CPU int16 path of a cross-built fpgacnn-detect, run under qemu, against this machine's native
# build: every layer's output (--dump-layers) of YOLO-LITE VOC on darknet's dog.jpg must be the
# same bytes. Both runs use one quantized model made here by the native fpgacnn-quantize, so the
# comparison is of the integer arithmetic alone (calibration runs the float path, whose OpenBLAS
# sums legitimately differ between architectures). The cross run must also have used NEON.
# Usage: tests/cross/compare-int16-dumps.sh arm64|armhf [CROSS_BUILD_DIR [NATIVE_BUILD_DIR]]
#   defaults: build/cross-<arch> and build/release. Exit 0 equal, 1 different or failed,
#   77 skipped (the model, the sample image or a build is missing: the message says which).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
arch="${1:-}"
[[ "$arch" == arm64 || "$arch" == armhf ]] || { echo "usage: $0 arm64|armhf [CROSS_BUILD [NATIVE_BUILD]]" >&2; exit 2; }
cross_build="$(realpath -m "${2:-$repo/build/cross-$arch}")"
native_build="$(realpath -m "${3:-$repo/build/release}")"
models="${FPGACNN_SHARED_DIR:-$repo/../shared}/models/yolo-lite-voc"
cfg="$models/tiny-yolov2-trial3-noBatch.cfg"
weights="$models/tiny-yolov2-trial3-noBatch.weights"
image=/usr/share/darknet/data/dog.jpg

skip() { echo "SKIPPED: $*"; exit 77; }
[[ -f "$cfg" && -f "$weights" ]] || skip "YOLO-LITE VOC is not in $models (set FPGACNN_SHARED_DIR)"
[[ -f "$image" ]] || skip "$image is missing (apt-get install darknet)"
tool() {  # the executable named $2 in build folder $1
  find "$1" -name "$2" -type f -perm -u+x -not -path '*/CMakeFiles/*' -print -quit 2>/dev/null
}
native_detect="$(tool "$native_build" fpgacnn-detect)"
native_quantize="$(tool "$native_build" fpgacnn-quantize)"
cross_detect="$(tool "$cross_build" fpgacnn-detect)"
[[ -n "$native_detect" && -n "$native_quantize" ]] ||
  skip "no native fpgacnn-detect/fpgacnn-quantize in $native_build (bash scripts/build.sh release)"
[[ -n "$cross_detect" ]] || skip "no fpgacnn-detect in $cross_build (scripts/cross-build.sh $arch)"

work="$cross_build/int16-dumps"
rm -rf "$work"
mkdir -p "$work/native" "$work/$arch"
"$native_quantize" --cfg "$cfg" --weights "$weights" --images "$image" --out "$work/yolo-lite.fq16" -q \
  >"$work/quantize.log" 2>&1 || { cat "$work/quantize.log"; echo "FAILED: native fpgacnn-quantize"; exit 1; }
detect_args=(--cfg "$cfg" --weights "$weights" --quantized "$work/yolo-lite.fq16" --device cpu
             --precision int16 --json)
"$native_detect" "${detect_args[@]}" --dump-layers "$work/native" "$image" >"$work/native.json" \
  2>"$work/native.log" || { cat "$work/native.log"; echo "FAILED: native fpgacnn-detect"; exit 1; }
"$repo/scripts/cross-run.sh" "$arch" "$cross_detect" "${detect_args[@]}" --dump-layers "$work/$arch" \
  "$image" >"$work/$arch.json" 2>"$work/$arch.log" ||
  { cat "$work/$arch.log"; echo "FAILED: fpgacnn-detect under qemu ($arch)"; exit 1; }

grep -o 'device cpu (int16, [a-z0-9]*)' "$work/$arch.log" || true
grep -q 'device cpu (int16, neon)' "$work/$arch.log" ||
  { cat "$work/$arch.log"; echo "FAILED: the $arch run did not use the NEON path"; exit 1; }
layers=0
different=0
for native_file in "$work/native"/layer_*.bin; do
  name="$(basename "$native_file")"
  layers=$((layers + 1))
  if ! cmp "$native_file" "$work/$arch/$name"; then different=$((different + 1)); fi
done
extra="$(comm -13 <(ls "$work/native") <(ls "$work/$arch") | wc -l)"
((layers > 0)) || { echo "FAILED: the native run wrote no layer dumps"; exit 1; }
if ((different > 0 || extra > 0)); then
  echo "FAILED: $different of $layers layer dumps differ, $extra extra files from $arch ($work)"
  exit 1
fi
without_time() { sed -E 's/"ms":[0-9.e+-]+,?//' "$1"; }
cmp -s <(without_time "$work/native.json") <(without_time "$work/$arch.json") || {
  diff <(without_time "$work/native.json") <(without_time "$work/$arch.json") | head
  echo "FAILED: same layer outputs but different detections"
  exit 1
}
echo "int16 dumps: all $layers layers of YOLO-LITE identical between $(uname -m) and $arch under qemu"
