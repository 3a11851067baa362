#!/usr/bin/env bash
# Makes build/sysroot-<arch>/: the target's libraries and headers for a cross build, unpacked from
# Debian's packages of that architecture (same release and mirror as this machine's apt sources).
# Usage: scripts/make-sysroot.sh arm64|armhf          (idempotent: skips a complete sysroot)
#
# Why mmdebstrap --variant=extract and not `dpkg --add-architecture` + apt-get: a mirror's indexes
# for two architectures can be at different versions for a while, and multiarch apt then refuses
# to co-install libopencv-dev:<arch> beside the host's packages. Extracting into a folder needs no
# agreement with the host, but runs no maintainer scripts, so the BLAS/LAPACK alternatives' links
# are made here by hand.
#
# The packages' shared-library dependency data (their `symbols` and `shlibs` control files) is kept
# in build/sysroot-<arch>/DEBIAN/: dpkg-shlibdeps, run by `cpack -G DEB` on a cross build
# (scripts/cross-package.sh), reads a library's dependency information from the DEBIAN folder above
# it when no installed package owns the file, so the cross packages' Depends come from the target's
# own packages (docs/install.md). Extracting installs nothing, so there is no dpkg database to ask.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
arch="${1:-}"
case "$arch" in
  arm64) triplet=aarch64-linux-gnu ;;
  armhf) triplet=arm-linux-gnueabihf ;;
  *) echo "usage: $0 arm64|armhf" >&2; exit 2 ;;
esac
sysroot="$repo/build/sysroot-$arch"
marker="$sysroot/.fpgacnn-sysroot"

# Everything the cross build links or includes, plus the C and C++ runtimes qemu runs it with; the
# target's Python (headers, python3.11 and numpy, which the python3-fpgacnn check imports under qemu)
# and pybind11's headers (architecture-independent) for the Python package (python/CMakeLists.txt).
# (No libxrt-dev: Debian 12 builds XRT for amd64 only, so cross builds use FPGACNN_WITH_XRT=OFF.)
packages=(libc6-dev libstdc++-12-dev
          libopencv-dev libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev
          libopenblas-dev libopenblas0-pthread libboost-dev
          libgtest-dev libgmock-dev libbenchmark-dev libstb-dev
          python3-dev libpython3.11-dev python3-numpy pybind11-dev)
# The marker's first line names the layout: a sysroot made before DEBIAN/ was kept is made again.
want="$(printf '%s\n' "layout 2: DEBIAN/symbols, DEBIAN/shlibs" "$arch" "${packages[@]}")"
if [[ -f "$marker" && "$(cat "$marker")" == "$want" ]]; then
  echo "make-sysroot: $sysroot is complete"
  exit 0
fi

command -v mmdebstrap >/dev/null || {
  echo "make-sysroot: mmdebstrap is missing: apt-get install mmdebstrap" >&2
  exit 1
}
# shellcheck source=/dev/null
suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
[[ -n "$suite" ]] || { echo "make-sysroot: no VERSION_CODENAME in /etc/os-release" >&2; exit 1; }

# The machine's apt sources for this release (deb822 stanzas or one-line entries whose suite is
# <suite> or, unless $1 is "release-only", <suite>-*), so the sysroot comes from the mirror apt
# already uses; written as deb822 to stdout.
release_sources() {
  local only_release="$1" file
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [[ -f "$file" ]] || continue
    if [[ "$file" == *.sources ]]; then
      awk -v suite="$suite" -v only="$only_release" 'BEGIN { RS = ""; ORS = "\n\n" }
        function wanted(word) { return word == suite || (!only && index(word, suite "-") == 1) }
        { n = split($0, lines, "\n"); out = ""; keep = 0
          for (i = 1; i <= n; i++) {
            if (lines[i] ~ /^#/ || lines[i] ~ /^Architectures:/) continue
            if (lines[i] ~ /^Suites:/) {
              m = split(lines[i], words, /[ \t]+/); kept = ""
              for (j = 2; j <= m; j++) if (wanted(words[j])) kept = kept " " words[j]
              if (kept == "") next
              lines[i] = "Suites:" kept; keep = 1
            }
            out = out lines[i] "\n"
          }
          if (keep) printf "%s\n", out }' "$file"
    else
      # deb [options] URI suite components...
      awk -v suite="$suite" -v only="$only_release" '$1 == "deb" {
        i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i + 1) == suite || (!only && index($(i + 1), suite "-") == 1)) {
          comps = ""; for (j = i + 2; j <= NF; j++) comps = comps " " $j
          printf "Types: deb\nURIs: %s\nSuites: %s\nComponents:%s\n\n", $i, $(i + 1), comps } }' "$file"
    fi
  done
}
sources="$(mktemp --suffix=.sources)"
trap 'rm -f "$sources"' EXIT
release_sources "" >"$sources"
if ! grep -q '^URIs:' "$sources"; then
  echo "make-sysroot: no apt source for '$suite' in /etc/apt/sources.list*; cannot pick a mirror" >&2
  exit 1
fi

# Unpacked next to the final folder and renamed at the end: an interrupted run leaves no
# half-made sysroot that a later run would take as complete.
rm -rf "$sysroot" "$sysroot.partial"
mkdir -p "$repo/build"
echo "make-sysroot: unpacking ${#packages[@]} packages and their dependencies for $arch ($suite)"
include="$(IFS=,; echo "${packages[*]}")"
unpack() {
  rm -rf "$sysroot.partial"
  # The downloaded .debs are kept (skip cleanup/apt/cache) for their control files, read below.
  mmdebstrap --quiet --variant=extract --architectures="$arch" --include="$include" \
    --skip=cleanup/apt/cache "$suite" "$sysroot.partial" "$sources"
}
if ! unpack; then
  # mmdebstrap refuses any index that fails to download, and a mirror caught mid-sync (seen here:
  # bookworm-security's armhf index) fails that way; the release itself is enough to build and test.
  echo "make-sysroot: retrying from the '$suite' release alone (without its -updates/-security suites)" >&2
  release_sources 1 >"$sources"
  unpack
fi

# Every unpacked package's symbols and shlibs files, concatenated (both formats are lists of
# per-library entries); its name, version and architecture (DEBIAN/packages) and the virtual packages
# it provides (DEBIAN/provides: name and version, "-" when unversioned), so that a package's Depends
# can be checked against the target's archive (tests/cross/check-debs.sh); then the .debs go.
debian="$sysroot.partial/DEBIAN"
mkdir -p "$debian"
: >"$debian/symbols"
: >"$debian/shlibs"
: >"$debian/provides"
# shellcheck disable=SC2016  # ${Package} and the like are dpkg-deb's fields, not the shell's
for deb in "$sysroot.partial"/var/cache/apt/archives/*.deb; do
  dpkg-deb --show --showformat='${Package} ${Version} ${Architecture}\n' "$deb" >>"$debian/packages"
  dpkg-deb --show --showformat='${Provides}\n' "$deb" | tr ',' '\n' |
    sed -nE 's/^ *([^ (]+) *(\(= *([^)]+)\))?.*$/\1 \3/p' | awk 'NF { print $1, (NF > 1 ? $2 : "-") }' \
    >>"$debian/provides"
  members="$(dpkg-deb --ctrl-tarfile "$deb" | tar -t)"
  for kind in symbols shlibs; do
    if grep -qx "\./$kind" <<<"$members"; then
      dpkg-deb --info "$deb" "$kind" >>"$debian/$kind"
    fi
  done
done
[[ -s "$debian/packages" ]] || { echo "make-sysroot: no packages were downloaded into $sysroot.partial" >&2; exit 1; }
rm -f "$sysroot.partial"/var/cache/apt/archives/*.deb

# The alternatives libopenblas0-pthread's and libopenblas-pthread-dev's maintainer scripts would
# have set up (libblas.so.3 -> openblas-pthread/libblas.so.3, ...), as relative links so they
# resolve inside the sysroot: the linker and qemu's loader then find OpenBLAS where they would on
# the board, and the binaries need no extra run path.
libdir="$sysroot.partial/usr/lib/$triplet"
for lib in libblas.so.3 liblapack.so.3 libopenblas.so.0 libblas.so liblapack.so libopenblas.so; do
  if [[ -e "$libdir/openblas-pthread/$lib" && ! -e "$libdir/$lib" ]]; then
    ln -sfn "openblas-pthread/$lib" "$libdir/$lib"
  fi
done
mkdir -p "$libdir/pkgconfig"
for pc in blas lapack openblas; do
  if [[ -e "$libdir/openblas-pthread/pkgconfig/$pc.pc" && ! -e "$libdir/pkgconfig/$pc.pc" ]]; then
    ln -sfn "../openblas-pthread/pkgconfig/$pc.pc" "$libdir/pkgconfig/$pc.pc"
  fi
done
# Absolute symlinks would point into this machine's root: make them relative to the sysroot.
find "$sysroot.partial" -type l -lname '/*' | while read -r link; do
  target="$(readlink "$link")"
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot.partial$target")" "$link"
done
for lib in libblas.so.3 liblapack.so.3 libopenblas.so.0 pkgconfig/openblas.pc; do
  [[ -e "$libdir/$lib" ]] || {
    echo "make-sysroot: $libdir/$lib is missing after unpacking; see the package list above" >&2
    exit 1
  }
done

printf '%s\n' "$want" >"$sysroot.partial/.fpgacnn-sysroot"
mv "$sysroot.partial" "$sysroot"
echo "make-sysroot: $sysroot ready ($(du -sh "$sysroot" | cut -f1))"
