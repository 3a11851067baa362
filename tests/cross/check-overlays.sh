#!/usr/bin/env bash
# The board files in packaging/: both device-tree overlays compile with `dtc -@` without warnings
# and carry what the UIO driver looks for (docs/drivers.md): a generic-uio node named as the IP the
# simulated UIO tree names it (the driver finds /sys/class/uio/uioN/name by it) with a register
# window of at least the IP's register space, an interrupt, a u-dma-buf device and the bitstream
# for the FPGA manager; the Kria app folder's shell.json is what dfx-mgr reads.
# Usage: tests/cross/check-overlays.sh [OUT_DIR]    Exit 0 good, 1 bad, 77 skipped (no dtc).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$repo/build/overlays}"
if ! command -v dtc >/dev/null || ! command -v fdtget >/dev/null; then
  echo "SKIPPED: dtc/fdtget are missing (apt-get install device-tree-compiler)"
  exit 77
fi
# The IP's register space: register_space_bytes() in kernels/include/fpgacnn/kernel/register_map.hpp
# (256 bytes for both address widths); the UIO name: tests/support/sim_uio/sim_uio.hpp.
min_window=256
uio_name="$(sed -nE 's/.*std::string name = "([a-z0-9_]+)";.*/\1/p' "$repo/tests/support/sim_uio/sim_uio.hpp")"
[[ -n "$uio_name" ]] || { echo "FAILED: cannot read the simulated IP's UIO name"; exit 1; }
bitstream=fpgacnn.bit.bin
mkdir -p "$out"
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

for source in "$repo"/packaging/dts/*.dtso; do
  name="$(basename "$source" .dtso)"
  dtbo="$out/$name.dtbo"
  if ! dtc -@ -I dts -O dtb -o "$dtbo" "$source" 2>"$out/$name.log"; then
    cat "$out/$name.log"; fail "$name does not compile"; continue
  fi
  [[ -s "$out/$name.log" ]] && { cat "$out/$name.log"; fail "$name compiles with warnings"; }
  [[ "$(fdtget "$dtbo" /fragment@0/__overlay__ firmware-name)" == "$bitstream" ]] ||
    fail "$name: fragment@0 does not load $bitstream"
  overlay=/fragment@1/__overlay__
  ip="$(fdtget -l "$dtbo" "$overlay" | grep "^$uio_name@" || true)"
  if [[ -z "$ip" ]]; then
    fail "$name: no node $uio_name@... (generic-uio names the UIO device after it)"
  else
    [[ "$(fdtget "$dtbo" "$overlay/$ip" compatible)" == generic-uio ]] || fail "$name: $ip is not generic-uio"
    read -r -a reg <<<"$(fdtget -t u "$dtbo" "$overlay/$ip" reg)"
    size="${reg[${#reg[@]} - 1]}"
    ((size >= min_window)) || fail "$name: $ip's register window $size < $min_window bytes"
    fdtget "$dtbo" "$overlay/$ip" interrupts >/dev/null || fail "$name: $ip has no interrupt"
  fi
  udmabuf=""
  for node in $(fdtget -l "$dtbo" "$overlay"); do
    [[ "$(fdtget "$dtbo" "$overlay/$node" compatible 2>/dev/null)" == ikwzm,u-dma-buf ]] && udmabuf="$node"
  done
  if [[ -z "$udmabuf" ]]; then
    fail "$name: no u-dma-buf node"
  else
    [[ "$(fdtget "$dtbo" "$overlay/$udmabuf" device-name)" == udmabuf0 ]] || fail "$name: u-dma-buf is not udmabuf0"
    fdtget -t u "$dtbo" "$overlay/$udmabuf" size >/dev/null || fail "$name: u-dma-buf has no size"
  fi
  for label in fpga_full amba; do
    fdtget "$dtbo" /__fixups__ "$label" >/dev/null 2>&1 || fail "$name: does not refer to &$label"
  done
  echo "$name.dtbo: $ip (window ${size:-?} bytes), $udmabuf, loads $bitstream"
done

shell="$repo/packaging/kria/fpgacnn/shell.json"
python3 - "$shell" <<'PY' || fail "packaging/kria/fpgacnn/shell.json"
import json, sys
shell = json.load(open(sys.argv[1]))
assert shell.get("shell_type") == "XRT_FLAT", shell
assert shell.get("num_slots") == "1", shell
PY
((failures == 0)) || exit 1
echo "overlays and Kria app folder: good"
