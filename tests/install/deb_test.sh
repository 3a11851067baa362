#!/usr/bin/env bash
# The Debian packages on this machine, as root: `cpack -G DEB` in the build folder makes them,
# lintian must report no errors, `apt-get install ./*.deb` installs them, /usr/bin/fpgacnn-detect
# detects what the build tree's fpgacnn-detect does, detect-minimal builds against /usr with
# pkg-config, the camera's user, unit (systemd-analyze verify) and udev rules are in place; then
# `apt-get purge` must leave nothing behind: no file of the packages, no /etc/default/fpgacnn-camera,
# no fpgacnn user or group. The machine ends as it began (the packages are purged on any failure), so
# the stages after this one never see /usr/include/fpgacnn or /usr/lib/.../libfpgacnn.
# Usage: tests/install/deb_test.sh [BUILD_DIR]     (default build/release, already built)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$repo/build/release}" && pwd)"
test_name=deb_test
source "$repo/tests/install/common.sh"
packages=("$lib_package" libfpgacnn-dev fpgacnn-tools fpgacnn-camera)
# python3-fpgacnn where the build has the Python package (python/CMakeLists.txt).
[[ -d "$build/python/fpgacnn" ]] && packages+=(python3-fpgacnn)

if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
  say "SKIP: needs root and apt-get (installs packages on this machine; CI runs it as root)"
  exit 0
fi
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
    fail "$p is already installed; this test installs and purges the packages itself (apt-get purge ${packages[*]})"
  fi
done
getent passwd fpgacnn >/dev/null && fail "user fpgacnn exists before the packages are installed; purge would remove it"

work="$(mktemp -d /tmp/fpgacnn-deb-test.XXXXXX)"
installed=0
cleanup() {
  if ((installed)); then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

(cd "$build" && cpack -G DEB -B "$work/debs" >"$work/cpack.log" 2>&1) || {
  cat "$work/cpack.log"
  fail "cpack -G DEB failed"
}
debs=("$work"/debs/*.deb)
((${#debs[@]} == ${#packages[@]})) || fail "cpack made ${#debs[@]} packages, expected ${#packages[@]}: ${debs[*]}"
say "packages: $(cd "$work/debs" && echo *.deb)"

if command -v lintian >/dev/null; then
  lintian --allow-root "${debs[@]}" >"$work/lintian.txt" 2>&1 || true
  sed "s/^/  lintian: /" "$work/lintian.txt"
  grep -q '^E: ' "$work/lintian.txt" && fail "lintian reports errors (above)"
  say "lintian: no errors"
else
  say "lintian not installed (scripts/install-deps.sh --with-tests): lintian check skipped"
fi

# Every file the packages ship (directories like /usr/bin are shared with other packages).
for deb in "${debs[@]}"; do
  dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -v '/$' | sed 's|^\./|/|'
done >"$work/files.txt"

installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${debs[@]}" >"$work/apt.log" 2>&1 || {
  cat "$work/apt.log"
  fail "apt-get install ./*.deb failed"
}
say "installed: $(dpkg-query -W -f='${Package} ${Version}  ' "${packages[@]}")"

# The packaged tool finds the same objects as the build tree's.
choose_model /usr/bin/fpgacnn-synth-weights "$work"
/usr/bin/fpgacnn-detect --device cpu -q --cfg "$cfg" --weights "$weights" --names "$names" "$image" \
  >"$work/packaged.txt" || fail "/usr/bin/fpgacnn-detect failed on $image"
"$build/apps/detect/fpgacnn-detect" --device cpu -q --cfg "$cfg" --weights "$weights" --names "$names" "$image" \
  >"$work/built.txt" || fail "the build tree's fpgacnn-detect failed on $image"
diff -u <(without_time <"$work/built.txt") <(without_time <"$work/packaged.txt") ||
  fail "/usr/bin/fpgacnn-detect's detections differ from the build tree's (diff above)"
say "/usr/bin/fpgacnn-detect: $(($(wc -l <"$work/packaged.txt") - 1)) detections, as the build tree's"

# python3-fpgacnn: Debian's python3 imports the package from /usr/lib/python3/dist-packages and detects
# what /usr/bin/fpgacnn-detect does.
if [[ " ${packages[*]} " == *" python3-fpgacnn "* ]]; then
  (cd "$work" && env -u PYTHONPATH -u LD_LIBRARY_PATH /usr/bin/python3 -c "
import fpgacnn, sys
assert fpgacnn.__file__.startswith('/usr/lib/python3/dist-packages/'), fpgacnn.__file__
det = fpgacnn.Detector(sys.argv[1], sys.argv[2], names=sys.argv[3], device='cpu')
for d in det.detect(sys.argv[4]):
    print(f'{d.label}: {d.score * 100:.0f}%  (left {d.left}, top {d.top}, right {d.right}, bottom {d.bottom})')
" "$cfg" "$weights" "$names" "$image" >"$work/python.txt") || fail "import fpgacnn from python3-fpgacnn failed"
  diff -u <(tail -n +2 "$work/packaged.txt") "$work/python.txt" ||
    fail "python3-fpgacnn's detections differ from /usr/bin/fpgacnn-detect's (diff above)"
  say "python3-fpgacnn: /usr/bin/python3 -c 'import fpgacnn' detects what fpgacnn-detect does"
fi

# libfpgacnn-dev: the example builds against /usr with plain pkg-config and runs without a RUNPATH.
cp -r "$repo/examples/detect-minimal" "$work/example"
make -C "$work/example" >"$work/make.log" 2>&1 || {
  cat "$work/make.log"
  fail "examples/detect-minimal does not build against the installed libfpgacnn-dev"
}
"$work/example/detect-minimal" "$cfg" "$weights" "$names" "$image" >"$work/example.txt" ||
  fail "detect-minimal built against /usr failed"
expect_same_detections "detect-minimal against libfpgacnn-dev" "$work/packaged.txt" "$work/example.txt"

# fpgacnn-camera: its system user and group, the conffile, udev rules and a unit systemd accepts.
uid="$(getent passwd fpgacnn | cut -d: -f3)"
[[ -n "$uid" ]] || fail "fpgacnn-camera did not create user fpgacnn"
((uid < 1000)) || fail "user fpgacnn has uid $uid, expected a system user"
getent group fpgacnn >/dev/null || fail "fpgacnn-camera did not create group fpgacnn"
grep -q '^/etc/default/fpgacnn-camera$' /var/lib/dpkg/info/fpgacnn-camera.conffiles ||
  fail "/etc/default/fpgacnn-camera is not a conffile of fpgacnn-camera"
[[ -f /usr/lib/udev/rules.d/60-fpgacnn.rules ]] || fail "fpgacnn-camera did not install its udev rules"
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify /usr/lib/systemd/system/fpgacnn-camera.service >"$work/verify.txt" 2>&1 || {
    cat "$work/verify.txt"
    fail "systemd-analyze verify rejects fpgacnn-camera.service"
  }
  say "systemd-analyze verify: fpgacnn-camera.service is valid"
  # fpgacnn-serve's unit (in fpgacnn-tools where the build has gRPC; packaging/fpgacnn-serve.service.in).
  if [[ -f /usr/lib/systemd/system/fpgacnn-serve.service ]]; then
    grep -q '^/etc/default/fpgacnn-serve$' /var/lib/dpkg/info/fpgacnn-tools.conffiles ||
      fail "/etc/default/fpgacnn-serve is not a conffile of fpgacnn-tools"
    systemd-analyze verify /usr/lib/systemd/system/fpgacnn-serve.service >"$work/verify.txt" 2>&1 || {
      cat "$work/verify.txt"
      fail "systemd-analyze verify rejects fpgacnn-serve.service"
    }
    say "systemd-analyze verify: fpgacnn-serve.service is valid"
  fi
else
  say "systemd-analyze not installed: unit check skipped"
fi

DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >"$work/purge.log" 2>&1 || {
  cat "$work/purge.log"
  fail "apt-get purge failed"
}
installed=0
left=()
while IFS= read -r f; do
  [[ -e "$f" || -L "$f" ]] && left+=("$f")
done <"$work/files.txt"
((${#left[@]} == 0)) || fail "purge left files of the packages behind: ${left[*]}"
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ -z "$status" || "$status" == *not-installed ]] || fail "$p is '$status' after purge"
done
getent passwd fpgacnn >/dev/null && fail "purge left user fpgacnn behind"
getent group fpgacnn >/dev/null && fail "purge left group fpgacnn behind"
[[ -e /usr/include/fpgacnn ]] && fail "purge left /usr/include/fpgacnn behind"
say "purged: $(wc -l <"$work/files.txt") files, the user and group fpgacnn and /etc/default/fpgacnn-camera are gone"
say "PASS"
