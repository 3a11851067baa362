#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then what a user of that prefix does: every installed
# header compiles on its own with only the prefix's include folder; the tools run (also after the
# prefix is moved: RUNPATH $ORIGIN); examples/detect-minimal builds against it with find_package and
# with pkg-config + its Makefile, and both builds print the same detections as fpgacnn-detect on
# darknet's dog.jpg.
# Usage: tests/install/install_test.sh [BUILD_DIR]     (default build/release, already built)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$repo/build/release}" && pwd)"
test_name=install_test
source "$repo/tests/install/common.sh"

work="$(mktemp -d /tmp/fpgacnn-install-test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || {
  cat "$work/install.log"
  fail "cmake --install failed"
}
triplet="$(basename "$(dirname "$(find "$prefix/lib" -name libfpgacnn.so -print -quit)")")"
libdir="$prefix/lib/$triplet"
[[ -L "$libdir/libfpgacnn.so" && -f "$libdir/libfpgacnn.so.$soversion" ]] || fail "no libfpgacnn.so / .so.$soversion in $libdir"
soname="$(readelf -d "$libdir/libfpgacnn.so" | sed -nE 's/.*Library soname: \[(.*)\]/\1/p')"
[[ "$soname" == "libfpgacnn.so.$soversion" ]] || fail "SONAME is '$soname', expected libfpgacnn.so.$soversion"
for f in "$libdir/cmake/fpgacnn/fpgacnnConfig.cmake" "$libdir/cmake/fpgacnn/fpgacnnConfigVersion.cmake" \
  "$libdir/pkgconfig/fpgacnn.pc" "$prefix/include/fpgacnn/detector.hpp"; do
  [[ -f "$f" ]] || fail "missing $f"
done
say "installed into $prefix (library in lib/$triplet, SONAME $soname)"

# Every place a user reads the version says CMakeLists.txt's: the library file's name, the tools'
# --version, pkg-config, the CMake package's version file (and the Python package's, below).
[[ -f "$libdir/libfpgacnn.so.$project_version" ]] || fail "no $libdir/libfpgacnn.so.$project_version"
detect_version="$(env -u LD_LIBRARY_PATH "$prefix/bin/fpgacnn-detect" --version | head -1)"
[[ "$detect_version" == "fpgacnn-detect $project_version"* ]] ||
  fail "fpgacnn-detect --version says '$detect_version', not version $project_version"
pc_version="$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --modversion fpgacnn)"
[[ "$pc_version" == "$project_version" ]] || fail "pkg-config --modversion fpgacnn says $pc_version, not $project_version"
grep -q "^set(PACKAGE_VERSION \"$project_version\")" "$libdir/cmake/fpgacnn/fpgacnnConfigVersion.cmake" ||
  fail "fpgacnnConfigVersion.cmake does not set PACKAGE_VERSION $project_version"
say "version $project_version: library file, fpgacnn-detect --version, pkg-config, CMake package"

# Each public header alone, with nothing but the installed include folder (no source tree, no
# third-party -I): what a consumer's compiler sees.
cxx="${CXX:-c++}"
count=0
while IFS= read -r header; do
  relative="${header#"$prefix/include/"}"
  echo "#include \"$relative\"" | "$cxx" -std=c++17 -fsyntax-only -Wall -Werror -I "$prefix/include" -x c++ - \
    2>"$work/header.err" || {
    cat "$work/header.err" >&2
    fail "installed header $relative does not compile on its own against $prefix/include"
  }
  count=$((count + 1))
done < <(find "$prefix/include" -name '*.hpp' | sort)
say "$count installed headers compile on their own"

# The tools run from the prefix, and from wherever the prefix is moved to.
env -u LD_LIBRARY_PATH "$prefix/bin/fpgacnn-detect" --help >/dev/null || fail "installed fpgacnn-detect does not run"
mv "$prefix" "$work/moved"
env -u LD_LIBRARY_PATH "$work/moved/bin/fpgacnn-detect" --help >/dev/null ||
  fail "fpgacnn-detect does not run after the prefix moved (RUNPATH should be \$ORIGIN-relative)"
mv "$work/moved" "$prefix"
say "installed tools run (also from a moved prefix)"

choose_model "$prefix/bin/fpgacnn-synth-weights" "$work"
"$prefix/bin/fpgacnn-detect" --device cpu -q --cfg "$cfg" --weights "$weights" --names "$names" "$image" \
  >"$work/expected.txt" || fail "fpgacnn-detect failed on $image"
if [[ "$model_kind" == YOLO-LITE* ]] && ! grep -q '^dog: ' "$work/expected.txt"; then
  fail "fpgacnn-detect found no dog in $image with YOLO-LITE: $(cat "$work/expected.txt")"
fi

# The image-codecs plugin comes from the prefix, also a moved one (lib/<triplet>/fpgacnn/, found from
# libfpgacnn's own path), not from the build tree: writing the annotated image loads it.
mv "$prefix" "$work/moved"
env -u LD_LIBRARY_PATH LD_DEBUG=files "$work/moved/bin/fpgacnn-detect" --device cpu -q --cfg "$cfg" \
  --weights "$weights" --names "$names" --output "$work/annotated" "$image" >/dev/null 2>"$work/loaded.txt" ||
  fail "fpgacnn-detect --output failed from the moved prefix: $(grep -v 'file=' "$work/loaded.txt")"
mv "$work/moved" "$prefix"
plugin_loaded="$(grep -o 'file=[^ ]*opencv_image_codecs.so' "$work/loaded.txt" | head -1)"
[[ "$plugin_loaded" == "file=$work/moved/lib/$triplet/fpgacnn/opencv_image_codecs.so" ]] ||
  fail "the image-codecs plugin loaded was '${plugin_loaded#file=}', not the moved prefix's"
[[ -s "$work/annotated/$(basename "$image")" ]] || fail "no annotated image written from the moved prefix"
say "the image-codecs plugin loads from the prefix's lib/$triplet/fpgacnn (also moved)"

# The Python package (where the build has it): Debian's python3 imports it from the prefix's
# lib/python3.N/dist-packages, finds libfpgacnn by its run path, and prints fpgacnn-detect's lines.
python_dir="$(find "$prefix/lib" -maxdepth 3 -type d -path '*/dist-packages/fpgacnn' -print -quit)"
if [[ -n "$python_dir" ]]; then
  (cd "$work" && env -u LD_LIBRARY_PATH PYTHONPATH="$(dirname "$python_dir")" /usr/bin/python3 -c "
import fpgacnn, sys
assert fpgacnn.__file__.startswith(sys.argv[5]), fpgacnn.__file__
assert fpgacnn.__version__ == sys.argv[6], f'fpgacnn.__version__ is {fpgacnn.__version__}, not {sys.argv[6]}'
det = fpgacnn.Detector(sys.argv[1], sys.argv[2], names=sys.argv[3], device='cpu')
for d in det.detect(sys.argv[4]):
    print(f'{d.label}: {d.score * 100:.0f}%  (left {d.left}, top {d.top}, right {d.right}, bottom {d.bottom})')
" "$cfg" "$weights" "$names" "$image" "$prefix" "$project_version" >"$work/python.txt") || fail "import fpgacnn from $python_dir failed"
  diff -u <(tail -n +2 "$work/expected.txt") "$work/python.txt" ||
    fail "the installed Python package's detections differ from fpgacnn-detect's (diff above)"
  say "the Python package in ${python_dir#"$prefix/"} (version $project_version) detects what fpgacnn-detect does"
fi

# The example must be built from the prefix, not from this source tree: copy it out.
cp -r "$repo/examples/detect-minimal" "$work/example"
# 1. CMake: find_package(fpgacnn) through CMAKE_PREFIX_PATH.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if ! cmake -S "$work/example" -B "$work/example/build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/cmake.log" 2>&1 || ! cmake --build "$work/example/build" >>"$work/cmake.log" 2>&1; then
  cat "$work/cmake.log"
  fail "examples/detect-minimal does not build with find_package(fpgacnn)"
fi
"$work/example/build/detect-minimal" "$cfg" "$weights" "$names" "$image" >"$work/cmake-run.txt" ||
  fail "detect-minimal (CMake build) failed"
expect_same_detections "find_package build" "$work/expected.txt" "$work/cmake-run.txt"

# 2. pkg-config + the example's Makefile.
PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs fpgacnn | grep -q -- "-lfpgacnn" ||
  fail "pkg-config --libs fpgacnn does not name -lfpgacnn"
PKG_CONFIG_PATH="$libdir/pkgconfig" make -C "$work/example" >"$work/make.log" 2>&1 || {
  cat "$work/make.log"
  fail "examples/detect-minimal does not build with pkg-config and its Makefile"
}
linked="$(ldd "$work/example/detect-minimal" | awk '/libfpgacnn/ {print $3}')"
[[ "$linked" == "$libdir/libfpgacnn.so.$soversion" ]] ||
  fail "the Makefile build loads '$linked', not $libdir/libfpgacnn.so.$soversion"
"$work/example/detect-minimal" "$cfg" "$weights" "$names" "$image" >"$work/make-run.txt" ||
  fail "detect-minimal (Makefile build) failed"
expect_same_detections "pkg-config build" "$work/expected.txt" "$work/make-run.txt"
say "PASS"
