#!/usr/bin/env bash
# The .debs of a cross build (scripts/cross-package.sh), checked without an ARM machine:
# - the five packages, each with the target's Architecture field and the files it should ship;
# - every ELF file in them is built for the target (machine, and the hard-float ABI on armhf): no
#   file of this machine's architecture slipped in;
# - Depends: dpkg-shlibdeps found the target's libraries (libc6, libstdc++6, OpenCV, ...), and every
#   dependency is satisfied by the package versions the sysroot was made from (the target's archive),
#   except our own packages and adduser (architecture-independent, not in the sysroot);
# - lintian reports no errors (when installed);
# - unpacked (dpkg-deb -x) over a throw-away copy of the sysroot, the packaged tools run under qemu:
#   --help of each, fpgacnn-detect --list-devices, and a detection on darknet's dog.jpg equal to the
#   build tree's fpgacnn-detect's; python3-fpgacnn imported by the sysroot's python3 (the target's
#   interpreter, under qemu as well) and its Detector's detections on dog.jpg equal to the packaged
#   fpgacnn-detect --json's. Maintainer scripts are not run (no ARM dpkg here).
# Usage: tests/cross/check-debs.sh arm64|armhf [DEBS_DIR]    (default build/cross-<arch>/debs)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
arch="${1:-}"
case "$arch" in
  arm64) triplet=aarch64-linux-gnu machine=AArch64 ;;
  armhf) triplet=arm-linux-gnueabihf machine=ARM ;;
  *) echo "usage: $0 arm64|armhf [DEBS_DIR]" >&2; exit 2 ;;
esac
build="$repo/build/cross-$arch"
debs_dir="$(realpath -m "${2:-$build/debs}")"
sysroot="$repo/build/sysroot-$arch"
say() { echo "check-debs[$arch]: $*"; }
fail() {
  echo "check-debs[$arch]: FAIL: $*" >&2
  exit 1
}
started=$SECONDS

# The library package is named after the SONAME's number (FPGACNN_SOVERSION in CMakeLists.txt).
soversion="$(sed -nE 's/^set\(FPGACNN_SOVERSION ([0-9]+)\)/\1/p' "$repo/CMakeLists.txt")"
lib_package="libfpgacnn$soversion"
packages=("$lib_package" libfpgacnn-dev fpgacnn-tools fpgacnn-camera python3-fpgacnn)
declare -A deb
for p in "${packages[@]}"; do
  matches=("$debs_dir/${p}_"*"_$arch.deb")
  [[ -f "${matches[0]}" && ${#matches[@]} -eq 1 ]] ||
    fail "expected one ${p}_<version>_$arch.deb in $debs_dir (scripts/cross-package.sh $arch)"
  deb[$p]="${matches[0]}"
  field="$(dpkg-deb --field "${deb[$p]}" Architecture)"
  [[ "$field" == "$arch" ]] || fail "$p: Architecture is '$field', expected $arch"
done
all_debs=("${deb[@]}")
((${#all_debs[@]} == $(find "$debs_dir" -maxdepth 1 -name '*.deb' | wc -l))) ||
  fail "$debs_dir holds other .debs besides the ${#packages[@]} packages"
version="$(dpkg-deb --field "${deb[$lib_package]}" Version)"
say "${#packages[@]} packages, version $version, Architecture: $arch"

# The files each package must ship (the same layout as the amd64 packages, in the target's triplet).
expect_files() {
  local p="$1" f
  shift
  local listing
  listing="$(dpkg-deb --fsys-tarfile "${deb[$p]}" | tar -t | sed 's|^\./|/|')"
  for f in "$@"; do
    grep -qxF "$f" <<<"$listing" || fail "$p does not ship $f"
  done
  if grep -E 'x86_64|amd64' <<<"$listing"; then fail "$p ships paths of another architecture (above)"; fi
}
lib="/usr/lib/$triplet"
expect_files "$lib_package" "$lib/libfpgacnn.so.$soversion" "$lib/libfpgacnn.so.${version%-*}" \
  "$lib/fpgacnn/opencv_image_codecs.so" "/usr/share/doc/$lib_package/copyright"
expect_files libfpgacnn-dev "$lib/libfpgacnn.so" "$lib/pkgconfig/fpgacnn.pc" "$lib/cmake/fpgacnn/fpgacnnConfig.cmake" \
  /usr/include/fpgacnn/detector.hpp /usr/include/fpgacnn/drivers/device_registry.hpp
# The tools package's programs (fpgacnn-camera has its own package); the ELF count below follows them.
tools=(fpgacnn-detect fpgacnn-classify fpgacnn-quantize fpgacnn-plan fpgacnn-bench fpgacnn-train fpgacnn-synth-weights)
expect_files fpgacnn-tools "${tools[@]/#//usr/bin/}" "$lib/fpgacnn/opencv_video_files.so"
expect_files fpgacnn-camera /usr/bin/fpgacnn-camera /usr/lib/systemd/system/fpgacnn-camera.service \
  /usr/lib/udev/rules.d/60-fpgacnn.rules /etc/default/fpgacnn-camera
# The target's interpreter (the sysroot's python3 -> python3.N) names the extension: .cpython-3N-<triplet>.so.
python="$(readlink "$sysroot/usr/bin/python3")"
[[ "$python" =~ ^python3\.([0-9]+)$ ]] || fail "the sysroot's usr/bin/python3 is '$python', not python3.N"
extension="_fpgacnn.cpython-3${BASH_REMATCH[1]}-$triplet.so"
site=/usr/lib/python3/dist-packages/fpgacnn
expect_files python3-fpgacnn "$site/__init__.py" "$site/__init__.pyi" "$site/$extension"
grep -q "^libfpgacnn $soversion $lib_package (>= $version)" <(dpkg-deb --info "${deb[$lib_package]}" shlibs) ||
  fail "$lib_package has no shlibs line for libfpgacnn.so.$soversion"
say "file lists as expected"

work="$build/check-debs"
rm -rf "$work"
mkdir -p "$work/unpacked"
for p in "${packages[@]}"; do dpkg-deb -x "${deb[$p]}" "$work/unpacked"; done

# Every ELF file: the target's machine (readelf -h), on armhf the hard-float ABI.
elves=0
while IFS= read -r -d '' f; do
  header="$(readelf -h "$f" 2>/dev/null)" || continue  # not an ELF file
  grep -Eq "Machine: +$machine\$" <<<"$header" ||
    fail "${f#"$work/unpacked"} is not an $machine ELF file: $(grep Machine: <<<"$header")"
  if [[ "$arch" == armhf ]]; then
    grep -q 'hard-float ABI' <<<"$header" || fail "${f#"$work/unpacked"} is not built for the hard-float ABI"
  fi
  elves=$((elves + 1))
done < <(find "$work/unpacked" -type f -print0)
expected_elves=$((1 + 2 + ${#tools[@]} + 1 + 1))
((elves == expected_elves)) || fail "found $elves ELF files, expected $expected_elves (the library, its two media plugins, ${#tools[@]} tools, fpgacnn-camera, the Python extension)"
runpath="$(readelf -d "$work/unpacked/usr/bin/fpgacnn-detect" | grep -o 'RUNPATH.*' || true)"
[[ "$runpath" == *"[\$ORIGIN/../lib/$triplet]"* ]] || fail "fpgacnn-detect's RUNPATH is '$runpath'"
runpath="$(readelf -d "$work/unpacked$site/$extension" | grep -o 'RUNPATH.*' || true)"
[[ "$runpath" == *"[\$ORIGIN/../../../../lib/$triplet]"* ]] || fail "$extension's RUNPATH is '$runpath'"
say "$elves ELF files, all $machine$([[ "$arch" == armhf ]] && echo ', hard-float')"

# Depends: the shared libraries' packages were found, and the sysroot's versions satisfy them.
depends_lib="$(dpkg-deb --field "${deb[$lib_package]}" Depends)"
depends_names="$(tr ',|' '\n' <<<"$depends_lib" | awk '{print $1}')"
for needed in libc6 libstdc++6 libgcc-s1 libopencv-core406 libopencv-imgcodecs406 libspdlog1.10-fmt9 libfmt9; do
  grep -qxF "$needed" <<<"$depends_names" ||
    fail "$lib_package's Depends lacks $needed (dpkg-shlibdeps did not see the sysroot?): $depends_lib"
done
# Versions by name: real packages, then virtual ones ("-": provided without a version, which
# satisfies only an unversioned relation).
declare -A available
while read -r name ver _; do available[$name]="${available[$name]:-} $ver"; done \
  < <(cat "$sysroot/DEBIAN/packages" "$sysroot/DEBIAN/provides")
satisfied() {  # one relation, e.g. "libc6 (>= 2.34)" or "adduser"
  local name op want have
  read -r name op want <<<"$(sed -E 's/[()]//g' <<<"$1")"
  [[ "$name" == "$lib_package" || "$name" == adduser ]] && return 0
  for have in ${available[$name]:-}; do
    [[ -z "$op" ]] && return 0
    [[ "$have" != - ]] && dpkg --compare-versions "$have" "$op" "$want" && return 0
  done
  return 1
}
relations=0
for p in "${packages[@]}"; do
  depends="$(dpkg-deb --field "${deb[$p]}" Depends)"
  IFS=',' read -ra groups <<<"$depends"
  for group in "${groups[@]}"; do
    ok=0
    IFS='|' read -ra alternatives <<<"$group"
    for alternative in "${alternatives[@]}"; do
      if satisfied "$(xargs <<<"$alternative")"; then ok=1; break; fi
    done
    ((ok)) || fail "$p: '$(xargs <<<"$group")' is not satisfied by the $arch packages the sysroot holds"
    relations=$((relations + 1))
  done
done
say "Depends: $relations relations, each satisfied by the sysroot's $arch package versions"
say "$lib_package Depends: $depends_lib"
depends_python="$(dpkg-deb --field "${deb[python3-fpgacnn]}" Depends)"
for needed in "$lib_package (= $version)" python3-numpy; do
  grep -qF "$needed" <<<"$depends_python" || fail "python3-fpgacnn's Depends lacks '$needed': $depends_python"
done

if command -v lintian >/dev/null; then
  lintian --allow-root "${all_debs[@]}" >"$work/lintian.txt" 2>&1 || true
  sed 's/^/  lintian: /' "$work/lintian.txt"
  if grep -q '^E: ' "$work/lintian.txt"; then fail "lintian reports errors (above)"; fi
  say "lintian: no errors"
else
  say "lintian not installed: lintian check skipped"
fi

# The packaged tools under qemu, over a copy of the sysroot (hard links: cheap, and the packages'
# files are all new, so nothing of the sysroot is written through a link).
root="$work/root"
cp -al "$sysroot" "$root"
for p in "${packages[@]}"; do dpkg-deb -x "${deb[$p]}" "$root"; done
run() { FPGACNN_SYSROOT="$root" "$repo/scripts/cross-run.sh" "$arch" "$@"; }
for tool in "${tools[@]}" fpgacnn-camera; do
  run "$root/usr/bin/$tool" --help >"$work/$tool.help" 2>&1 || { cat "$work/$tool.help"; fail "$tool --help failed"; }
  grep -q -- '--' "$work/$tool.help" || fail "$tool --help printed no options"
done
run "$root/usr/bin/fpgacnn-detect" --list-devices >"$work/devices.txt" 2>&1 ||
  { cat "$work/devices.txt"; fail "fpgacnn-detect --list-devices failed"; }
if ! grep -q '^cpu' "$work/devices.txt" || ! grep -q '^emu' "$work/devices.txt"; then
  cat "$work/devices.txt"
  fail "--list-devices does not list cpu and emu"
fi
say "under qemu: each tool's --help; --list-devices: $(grep -Po '^[a-z]+(?=\t)' "$work/devices.txt" | xargs)"

# One detection, the packaged binary against the build tree's (both under qemu, same bits expected).
image=/usr/share/darknet/data/dog.jpg
models="${FPGACNN_SHARED_DIR:-$repo/../shared}/models/yolo-lite-voc"
if [[ -f "$image" && -f "$models/tiny-yolov2-trial3-noBatch.weights" && -x "$build/apps/detect/fpgacnn-detect" ]]; then
  args=(--device cpu -q --cfg "$models/tiny-yolov2-trial3-noBatch.cfg"
        --weights "$models/tiny-yolov2-trial3-noBatch.weights" --names "$models/voc.names" "$image")
  run "$root/usr/bin/fpgacnn-detect" "${args[@]}" >"$work/packaged.txt" 2>&1 ||
    { cat "$work/packaged.txt"; fail "the packaged fpgacnn-detect failed on $image"; }
  run "$build/apps/detect/fpgacnn-detect" "${args[@]}" >"$work/built.txt" 2>&1 ||
    { cat "$work/built.txt"; fail "the build tree's fpgacnn-detect failed on $image"; }
  no_time() { sed -E 's/: Predicted in [0-9.]+ ms\.$//' "$1"; }
  diff -u <(no_time "$work/built.txt") <(no_time "$work/packaged.txt") ||
    fail "the packaged fpgacnn-detect's detections differ from the build tree's (diff above)"
  grep -q '^dog: ' "$work/packaged.txt" || { cat "$work/packaged.txt"; fail "no dog found in $image"; }
  say "packaged fpgacnn-detect (YOLO-LITE, dog.jpg): $(grep -c '%' "$work/packaged.txt") detections, as the build tree's"

  # The Python package, imported by the target's interpreter (found in the root's dist-packages, as on
  # the board), against the packaged tool's --json: the same classes, boxes and scores.
  run "$root/usr/bin/fpgacnn-detect" --json "${args[@]}" >"$work/packaged.json" 2>"$work/packaged.json.err" ||
    { cat "$work/packaged.json.err"; fail "the packaged fpgacnn-detect --json failed on $image"; }
  run "$root/usr/bin/$python" -c "
import json, sys, fpgacnn
assert fpgacnn.__file__ == '$root$site/__init__.py', fpgacnn.__file__
det = fpgacnn.Detector(sys.argv[1], sys.argv[2], names=sys.argv[3], device='cpu')
print(json.dumps([d.as_dict() for d in det.detect(sys.argv[4])]))" \
    "$models/tiny-yolov2-trial3-noBatch.cfg" "$models/tiny-yolov2-trial3-noBatch.weights" "$models/voc.names" \
    "$image" >"$work/python.json" 2>&1 || { cat "$work/python.json"; fail "python3-fpgacnn failed on $image under qemu"; }
  /usr/bin/python3 - "$work/packaged.json" "$work/python.json" <<'PY' || fail "python3-fpgacnn's detections differ from fpgacnn-detect --json's (above)"
import json, sys
tool = json.loads(open(sys.argv[1]).read().splitlines()[-1])["detections"]
python = json.loads(open(sys.argv[2]).read().splitlines()[-1])
key = lambda d, score: (d["class_id"], d["left"], d["top"], d["right"], d["bottom"], round(d[score], 5))
a = sorted(key(d, "prob") for d in tool)
b = sorted(key(d, "score") for d in python)
print("fpgacnn-detect --json:", a)
print("python3-fpgacnn:      ", b)
sys.exit(0 if a == b and a else 1)
PY
  say "python3-fpgacnn under qemu ($python of the sysroot): import, Detector on dog.jpg: $(grep -o class_id "$work/python.json" | wc -l) detections, as fpgacnn-detect --json's"
else
  run "$root/usr/bin/$python" -c "import fpgacnn; assert fpgacnn.list_devices()" >"$work/python.txt" 2>&1 ||
    { cat "$work/python.txt"; fail "python3-fpgacnn does not import under qemu"; }
  say "python3-fpgacnn under qemu ($python of the sysroot): import and list_devices() (no model for a detection)"
  say "detection skipped: needs $image, YOLO-LITE in $models and $build/apps/detect/fpgacnn-detect"
fi
rm -rf "$root"
say "PASS ($((SECONDS - started)) s)"
