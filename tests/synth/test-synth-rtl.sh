#!/usr/bin/env bash
# Test of scripts/synth-rtl.sh (issue 32, item 4): the kernel's RTL synthesised with yosys at the small
# CI maxima (Tm=8 Tn=4 Tr=Tc=8) must give a JSON with every key, one DSP48E1 per multiplier of the
# Tm x Tn array and three for the leaky product (Tm x Tn + 3 in all); a bad config and a failing yosys
# must stop the script with an error and leave no JSON.
# Slow (one yosys run: 2-4 minutes on this 2-core machine): run by hand,
#   tests/synth/test-synth-rtl.sh [--keep DIR]
# Exit status 77 (ctest's skip) when yosys, python3 or the RTL's top module is missing.
# FPGACNN_SYNTH_RTL_DIR=DIR synthesises DIR/*.sv instead of kernels/rtl (for work on the script itself).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
script="$repo/scripts/synth-rtl.sh"
rtl_dir="${FPGACNN_SYNTH_RTL_DIR:-$repo/kernels/rtl}"
keep=()
if [[ "${1:-}" == "--keep" ]]; then keep=(--keep "$2"); fi

for tool in yosys python3 g++; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
grep -qsE '^[[:space:]]*module[[:space:]]+fpgacnn_accel\b' "$rtl_dir"/*.sv ||
  { echo "SKIP: no module fpgacnn_accel in $rtl_dir"; exit 77; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/test-synth-rtl.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

tm=8 tn=4 tr=8 tc=8
# The format fpgacnn-plan --explore --config-out writes (comment lines included).
cat >"$tmp/ci.env" <<EOF
# the small CI build of issue 32 (written by tests/synth/test-synth-rtl.sh)
FPGACNN_PART=xc7z020clg484-1
FPGACNN_CLOCK_MHZ=150
FPGACNN_TM=$tm
FPGACNN_TN=$tn
FPGACNN_TR=$tr
FPGACNN_TC=$tc
FPGACNN_MAX_K=3
FPGACNN_MAX_S=2
FPGACNN_INT8_PAIRS=1
FPGACNN_PORT_BITS=16
EOF

# --- errors: no yosys run, no JSON -------------------------------------------------------------------
expect_error() {  # name, expected text in the message, config file
  local name="$1" text="$2" config="$3" out="$tmp/err-$1.json"
  if "$script" --config "$config" --json "$out" 2>"$tmp/err-$name.txt"; then
    fail "$name: the script succeeded"
  elif ! grep -q -- "$text" "$tmp/err-$name.txt"; then
    fail "$name: message does not say '$text': $(cat "$tmp/err-$name.txt")"
  elif [[ -e "$out" ]]; then
    fail "$name: a JSON was written"
  else
    echo "ok: $name ($(grep -m 1 'error' "$tmp/err-$name.txt"))"
  fi
}
grep -v '^FPGACNN_TN=' "$tmp/ci.env" >"$tmp/missing.env"
expect_error missing_key "missing FPGACNN_TN" "$tmp/missing.env"
sed 's/^FPGACNN_TR=.*/FPGACNN_TR=8x/' "$tmp/ci.env" >"$tmp/nan.env"
expect_error not_a_number "FPGACNN_TR='8x' is not a non-negative integer" "$tmp/nan.env"
sed 's/^FPGACNN_CLOCK_MHZ=.*/FPGACNN_CLOCK_MHZ=fast/' "$tmp/ci.env" >"$tmp/clock.env"
expect_error bad_clock "FPGACNN_CLOCK_MHZ='fast' is not a positive number" "$tmp/clock.env"
sed 's/^FPGACNN_PART=.*/FPGACNN_PART=ep4ce22f17c6/' "$tmp/ci.env" >"$tmp/part.env"
expect_error unknown_part "no synth_xilinx family known for part" "$tmp/part.env"
expect_error no_config "does not exist" "$tmp/no-such.env"

# A yosys failure (a syntax error in the top) stops the script with yosys's error and no JSON.
mkdir -p "$tmp/broken-rtl"
printf 'module fpgacnn_accel #(parameter int TM = 1) (input logic a;\nendmodule\n' >"$tmp/broken-rtl/top.sv"
if "$script" --config "$tmp/ci.env" --json "$tmp/broken.json" --rtl-dir "$tmp/broken-rtl" 2>"$tmp/broken.txt"; then
  fail "yosys_failure: the script succeeded"
elif ! grep -q 'yosys failed (synth, exit status 1): .*syntax error' "$tmp/broken.txt"; then
  fail "yosys_failure: no yosys error in the message: $(tail -n 5 "$tmp/broken.txt")"
elif [[ -e "$tmp/broken.json" ]]; then
  fail "yosys_failure: a JSON was written"
else
  echo "ok: yosys_failure ($(grep -m 1 'yosys failed' "$tmp/broken.txt"))"
fi

# --- the small build ---------------------------------------------------------------------------------
echo "synthesising Tm=$tm Tn=$tn Tr=$tr Tc=$tc (yosys, a few minutes) ..."
if ! "$script" --config "$tmp/ci.env" --json "$tmp/ci.json" --rtl-dir "$rtl_dir" "${keep[@]}" 2>"$tmp/ci.txt"; then
  tail -n 30 "$tmp/ci.txt"
  fail "synthesis of the small build failed"
else
  grep -v '^\[synth-rtl\]   ' "$tmp/ci.txt"
  if ! python3 - "$tmp/ci.json" "$tm" "$tn" "$tr" "$tc" <<'EOF'; then
import json, sys

path, tm, tn, tr, tc = sys.argv[1], *map(int, sys.argv[2:])
r = json.load(open(path))
errors = []
keys = ["dsp48e1", "ramb36e1", "ramb18e1", "bram_18k", "lut", "lutram", "lutram_luts", "srl", "lut_total",
        "ff", "carry4", "sta_ns", "sta_mhz_bound", "tm", "tn", "tr", "tc", "max_k", "max_s", "int8_pairs",
        "port_bits", "part", "family", "clock_mhz", "yosys_version", "seconds", "cells", "sta_path",
        "sta_clocked_ns", "sta_clocked_path", "dsp48e1_by_source", "memories", "inv"]
for k in keys:
    if k not in r:
        errors.append(f"key {k} missing")
if not errors:
    if (r["tm"], r["tn"], r["tr"], r["tc"]) != (tm, tn, tr, tc):
        errors.append(f"maxima {r['tm']}/{r['tn']}/{r['tr']}/{r['tc']} are not the config's")
    if r["part"] != "xc7z020clg484-1" or r["family"] != "xc7" or r["clock_mhz"] != 150:
        errors.append("part / family / clock not the config's")
    # One DSP48E1 per multiplier: yosys maps each 25 x 16-bit product of fpgacnn_mac_array (the packed
    # pair operand or an int16 input, times an int16 weight) to one DSP48E1, its product register in
    # MREG. The only other DSPs are the leaky product of fpgacnn_requantize (a 48-bit value, the
    # accumulator or a shortcut's sum, times the 16-bit LEAKY_MULTIPLIER: wider than one 25 x 18
    # multiplier, so three DSP48E1s, once per kernel); the controller multiplies without DSPs (serial
    # multiplier, shifted adds).
    by_file = {}
    for where, n in r["dsp48e1_by_source"].items():
        f = where.split(":")[0]
        by_file[f] = by_file.get(f, 0) + n
    if by_file.get("fpgacnn_mac_array.sv", 0) != tm * tn:
        errors.append(f"the multiplier array has {by_file.get('fpgacnn_mac_array.sv', 0)} DSP48E1s, not "
                      f"Tm x Tn = {tm * tn} (by source: {r['dsp48e1_by_source']})")
    if by_file.get("fpgacnn_requantize.sv", 0) != 3:
        errors.append(f"the leaky product has {by_file.get('fpgacnn_requantize.sv', 0)} DSP48E1s, not 3")
    if r["dsp48e1"] != tm * tn + 3:
        errors.append(f"dsp48e1 {r['dsp48e1']} != Tm x Tn + 3 = {tm * tn + 3} (by source: {r['dsp48e1_by_source']})")
    for k in ("lut", "ff", "carry4"):
        if not isinstance(r[k], int) or r[k] <= 0:
            errors.append(f"{k} = {r[k]} is not a positive count")
    if r["bram_18k"] != 2 * r["ramb36e1"] + r["ramb18e1"]:
        errors.append("bram_18k is not 2 x RAMB36E1 + RAMB18E1")
    if r["lut"] != sum(n for c, n in r["cells"].items() if c in ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6")):
        errors.append("lut is not the sum of LUT1..LUT6")
    if r["ff"] != sum(n for c, n in r["cells"].items() if c.startswith("FD")):
        errors.append("ff is not the sum of the FD* cells")
    if not (0.5 < r["sta_ns"] < 100):
        errors.append(f"sta_ns {r['sta_ns']} is not a plausible cell-delay path")
    if not (0.5 < r["sta_clocked_ns"] <= r["sta_ns"]):
        errors.append(f"sta_clocked_ns {r['sta_clocked_ns']} is not in (0.5, sta_ns]")
    if any(c.startswith("$") for c in r["cells"]):
        errors.append("unmapped yosys cells in the netlist")
for e in errors:
    print("FAIL:", e)
print(json.dumps({k: r.get(k) for k in ["dsp48e1", "dsp48e1_by_source", "ramb36e1", "ramb18e1", "lut",
                                        "lutram", "srl", "ff", "carry4", "sta_ns", "sta_clocked_ns",
                                        "seconds"]}))
sys.exit(1 if errors else 0)
EOF
    fail "the small build's JSON"
  else
    echo "ok: small build"
  fi
fi

if [[ $failures -ne 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
