#!/usr/bin/env bash
# Synthesises the kernel's RTL (kernels/rtl) with yosys for the build a config file describes and writes
# its resource counts and a cell-delay bound on the clock period as JSON (issue 32, item 4).
#
# Usage: scripts/synth-rtl.sh --config FILE --json OUT [--top fpgacnn_accel] [--keep DIR]
#                             [--rtl-dir DIR] [--family xc7|xcup] [--yosys PROGRAM]
#
#   --config FILE   what `fpgacnn-plan --explore --config-out FILE` writes: FPGACNN_PART,
#                   FPGACNN_CLOCK_MHZ, FPGACNN_TM, _TN, _TR, _TC, _MAX_K, _MAX_S, _INT8_PAIRS,
#                   _PORT_BITS (KEY=VALUE lines; '#' comments and blank lines are skipped; the file is
#                   parsed, not sourced)
#   --json OUT      the result (written whole or not at all: a temporary file moved into place)
#   --top NAME      top module (default fpgacnn_accel)
#   --keep DIR      keep the generated package, yosys scripts, logs, stat JSON and the netlist
#                   (netlist.v, netlist.edif for Vivado) in DIR instead of a temporary folder
#   --rtl-dir DIR   the RTL sources (default kernels/rtl): every DIR/*.sv, packages first
#   --family F      yosys's synth_xilinx family instead of the one derived from the part
#   --yosys PROG    the yosys binary (default: yosys on PATH; tested with Debian's 0.23)
#
# Steps (a progress line each on stderr):
#   1. the config is read and checked (all keys present, numbers where numbers belong);
#   2. the contract package fpgacnn_contract_pkg is generated from kernels/include by
#      kernels/rtl/gen/gen_contract_pkg.cpp (compiled with g++ into the work folder);
#   3. yosys: read_verilog -sv the package, then the RTL (-defer), hierarchy -chparam with the maxima,
#      synth_xilinx -family F -flatten -noiopad -top TOP (no -abc9: it crashes on inferred block RAM in
#      yosys 0.23), stat -json -tech xilinx, write the netlist;
#   4. yosys: the netlist re-read over read_verilog -lib -specify +/xilinx/cells_sim.v
#      +/xilinx/cells_xtra.v, then sta: the longest path through the cells' delays (prjxray's Artix-7
#      timing data), without routing: a lower bound on the clock period, not an Fmax; then the same
#      without the FDCE/FDPE asynchronous CLR/PRE -> Q arcs (sta_clocked: paths launched by a clock
#      edge or an input, not by the reset);
#   5. the JSON.
#
# JSON keys: the device cells (xc7: dsp48e1, ramb36e1, ramb18e1, carry4; xcup: dsp48e2, ramb36e2,
# ramb18e2, uram288, carry8), bram_18k (2 x RAMB36 + RAMB18), lut (LUT1..LUT6), lutram (LUT-RAM cells),
# lutram_luts (the LUTs those cells occupy), srl (SRL16E/SRLC32E cells), lut_total (lut + lutram_luts
# + srl: to compare with Vivado's Slice LUTs, logic + memory), ff (all FD* cells), inv (INV cells,
# counted in no LUT figure), muxf7, muxf8, cells (every cell type and count), dsp48e1_by_source (the
# RTL file:line of each DSP's multiplication), memories (block / LUT RAM cells per RTL memory),
# sta_ns, sta_mhz_bound, sta_path (with each cell's RTL source where yosys kept one), sta_warnings,
# sta_clocked_ns, sta_clocked_mhz_bound, sta_clocked_path, the maxima (tm, tn, tr, tc, max_k, max_s,
# int8_pairs, port_bits), parameters (what was set on the top module), part, family, clock_mhz,
# yosys_version, seconds (and per step), config, rtl_files, git_commit.
set -euo pipefail

prog="synth-rtl"
repo="$(cd "$(dirname "$0")/.." && pwd)"

die() {
  echo "$prog: error: $*" >&2
  exit 1
}
progress() { echo "[$prog] $*" >&2; }
usage() { sed -n '5,18p' "$0" | sed 's/^# \{0,1\}//' >&2; }

config="" json_out="" top="fpgacnn_accel" keep="" rtl_dir="$repo/kernels/rtl" family="" yosys="yosys"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --config) config="${2:-}"; shift 2 || die "--config needs a FILE" ;;
    --json) json_out="${2:-}"; shift 2 || die "--json needs a FILE" ;;
    --top) top="${2:-}"; shift 2 || die "--top needs a NAME" ;;
    --keep) keep="${2:-}"; shift 2 || die "--keep needs a DIR" ;;
    --rtl-dir) rtl_dir="${2:-}"; shift 2 || die "--rtl-dir needs a DIR" ;;
    --family) family="${2:-}"; shift 2 || die "--family needs xc7 or xcup" ;;
    --yosys) yosys="${2:-}"; shift 2 || die "--yosys needs a PROGRAM" ;;
    -h | --help) usage; exit 0 ;;
    *) usage; die "unknown argument '$1'" ;;
  esac
done
[[ -n "$config" ]] || { usage; die "--config FILE is required"; }
[[ -n "$json_out" ]] || { usage; die "--json OUT is required"; }
[[ -f "$config" ]] || die "config '$config' does not exist"
[[ -d "$rtl_dir" ]] || die "RTL folder '$rtl_dir' does not exist"
[[ "$top" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "top '$top' is not a module name"
command -v "$yosys" >/dev/null || die "yosys ('$yosys') is not installed (Debian: apt-get install yosys)"
command -v python3 >/dev/null || die "python3 is needed to read yosys's JSON"
command -v g++ >/dev/null || die "g++ is needed to generate the contract package"
json_dir="$(dirname "$json_out")"
[[ -d "$json_dir" && -w "$json_dir" ]] || die "cannot write '$json_out': '$json_dir' is not a writable folder"

start=$SECONDS

# --- 1. config ---------------------------------------------------------------------------------------
declare -A cfg=()
line_no=0
while IFS= read -r line || [[ -n "$line" ]]; do
  line_no=$((line_no + 1))
  line="${line%$'\r'}"
  [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
  if [[ "$line" =~ ^[[:space:]]*(export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]]; then
    key="${BASH_REMATCH[2]}" value="${BASH_REMATCH[3]}"
    value="${value%%[[:space:]]#*}"                # a trailing comment
    value="${value#"${value%%[![:space:]]*}"}"      # leading blanks
    value="${value%"${value##*[![:space:]]}"}"      # trailing blanks
    if [[ "$value" =~ ^\"(.*)\"$ || "$value" =~ ^\'(.*)\'$ ]]; then value="${BASH_REMATCH[1]}"; fi
    cfg["$key"]="$value"
  else
    die "$config:$line_no: not a KEY=VALUE line: '$line'"
  fi
done <"$config"

int_keys=(FPGACNN_TM FPGACNN_TN FPGACNN_TR FPGACNN_TC FPGACNN_MAX_K FPGACNN_MAX_S FPGACNN_INT8_PAIRS
  FPGACNN_PORT_BITS)
missing=()
for key in FPGACNN_PART FPGACNN_CLOCK_MHZ "${int_keys[@]}"; do
  [[ -n "${cfg[$key]:-}" ]] || missing+=("$key")
done
[[ ${#missing[@]} -eq 0 ]] || die "$config: missing ${missing[*]} (write it with fpgacnn-plan --explore --config-out)"
for key in "${int_keys[@]}"; do
  [[ "${cfg[$key]}" =~ ^[0-9]+$ ]] || die "$config: $key='${cfg[$key]}' is not a non-negative integer"
done
for key in FPGACNN_TM FPGACNN_TN FPGACNN_TR FPGACNN_TC FPGACNN_MAX_K FPGACNN_MAX_S FPGACNN_PORT_BITS; do
  ((10#${cfg[$key]} >= 1)) || die "$config: $key must be at least 1 (is ${cfg[$key]})"
done
[[ "${cfg[FPGACNN_INT8_PAIRS]}" =~ ^[01]$ ]] || die "$config: FPGACNN_INT8_PAIRS must be 0 or 1 (is ${cfg[FPGACNN_INT8_PAIRS]})"
if [[ ! "${cfg[FPGACNN_CLOCK_MHZ]}" =~ ^[0-9]+(\.[0-9]+)?$ || "${cfg[FPGACNN_CLOCK_MHZ]}" =~ ^0+(\.0+)?$ ]]; then
  die "$config: FPGACNN_CLOCK_MHZ='${cfg[FPGACNN_CLOCK_MHZ]}' is not a positive number"
fi
part="${cfg[FPGACNN_PART]}"
[[ "$part" =~ ^[A-Za-z0-9_.-]+$ ]] || die "$config: FPGACNN_PART='$part' is not a part name"
if [[ -z "$family" ]]; then
  case "${part,,}" in
    xc7z* | xc7v* | xc7k* | xc7a* | xc7s*) family=xc7 ;;
    xczu* | xck26* | xck24* | xcu50* | xcu55* | xcu200* | xcu250* | xcu280* | xcvu*p* | xcku*p*) family=xcup ;;
    *) die "$config: no synth_xilinx family known for part '$part' (7-series: xc7, Zynq UltraScale+ / Alveo: xcup; pass --family)" ;;
  esac
fi
case "$family" in
  xc7) dsp_cell=DSP48E1 ram36=RAMB36E1 ram18=RAMB18E1 carry=CARRY4 ;;
  xcup) dsp_cell=DSP48E2 ram36=RAMB36E2 ram18=RAMB18E2 carry=CARRY8 ;;
  *) die "family '$family' is not supported (xc7 or xcup)" ;;
esac
# The build's maxima as the top module's parameters (kernels/rtl/fpgacnn_accel.sv).
declare -A params=(
  [TM]="$((10#${cfg[FPGACNN_TM]}))" [TN]="$((10#${cfg[FPGACNN_TN]}))"
  [TR]="$((10#${cfg[FPGACNN_TR]}))" [TC]="$((10#${cfg[FPGACNN_TC]}))"
  [MAX_K]="$((10#${cfg[FPGACNN_MAX_K]}))" [MAX_S]="$((10#${cfg[FPGACNN_MAX_S]}))"
  [INT8_PAIRS]="$((10#${cfg[FPGACNN_INT8_PAIRS]}))"
)
progress "1/5 config $config: part $part (synth_xilinx -family $family), ${cfg[FPGACNN_CLOCK_MHZ]} MHz," \
  "Tm=${params[TM]} Tn=${params[TN]} Tr=${params[TR]} Tc=${params[TC]} K<=${params[MAX_K]}" \
  "S<=${params[MAX_S]} pairs=${params[INT8_PAIRS]} port_bits=${cfg[FPGACNN_PORT_BITS]}"

# The RTL: packages first (they must be read before the modules naming them), then the modules.
shopt -s nullglob
packages=() modules=()
for f in "$rtl_dir"/*.sv; do
  # A checked-in copy of the generated package is skipped: this script generates it.
  if grep -qE '^[[:space:]]*package[[:space:]]+fpgacnn_contract_pkg\b' "$f"; then continue; fi
  if grep -qE '^[[:space:]]*package[[:space:]]' "$f"; then packages+=("$f"); else modules+=("$f"); fi
done
shopt -u nullglob
[[ ${#modules[@]} -gt 0 ]] || die "no SystemVerilog modules in '$rtl_dir' (*.sv)"
grep -qE "^[[:space:]]*module[[:space:]]+$top\b" "${modules[@]}" ||
  die "no module '$top' in $rtl_dir/*.sv"
# The port width: set only when the top module declares a parameter of that name.
top_files=()
for f in "${modules[@]}"; do
  if grep -qE "^[[:space:]]*module[[:space:]]+$top\b" "$f"; then top_files+=("$f"); fi
done
port_param=""
for name in PORT_BITS WORD_BITS; do
  if grep -qE "parameter[[:space:]]+(int[[:space:]]+)?(unsigned[[:space:]]+)?$name\b" "${top_files[@]}"; then
    port_param="$name"
    params[$name]="$((10#${cfg[FPGACNN_PORT_BITS]}))"
    break
  fi
done
# The RTL's word ports are 16 bits unless its top has a width parameter: other widths are refused
# rather than reported for a design that does not have them.
if [[ -z "$port_param" && "$((10#${cfg[FPGACNN_PORT_BITS]}))" -ne 16 ]]; then
  die "$config: FPGACNN_PORT_BITS=${cfg[FPGACNN_PORT_BITS]}, but $top has no port-width parameter" \
    "(PORT_BITS or WORD_BITS): its word ports are 16 bits"
fi

if [[ -n "$keep" ]]; then
  mkdir -p "$keep" || die "cannot create --keep folder '$keep'"
  work="$(cd "$keep" && pwd)"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/synth-rtl.XXXXXX")"
fi
tmp_json=""
cleanup() {
  [[ -n "$tmp_json" && -f "$tmp_json" ]] && rm -f "$tmp_json"
  [[ -z "$keep" && -d "$work" ]] && rm -rf "$work"
  return 0
}
trap cleanup EXIT

# Runs yosys on a script with its log in the work folder, passing the numbered pass headers (steps
# and their first-level sub-steps) to stderr as progress; on failure prints the log's last lines.
run_yosys() {
  local name="$1" script="$2" t0=$SECONDS status
  set +e
  "$yosys" -l "$work/$name.log" -s "$script" 2>"$work/$name.stderr" |
    awk -v p="[$prog]" -v name="$name" '
      /^[0-9]+\.([0-9]+\.)? Executing / { sub(/ *\(.*$/, ""); printf "%s   %s: %s\n", p, name, $0 > "/dev/stderr"; fflush("/dev/stderr") }' \
      >"$work/$name.stdout"
  status=${PIPESTATUS[0]}
  set -e
  if [[ $status -ne 0 ]]; then
    local first_error
    first_error="$(grep -m 1 -E 'ERROR' "$work/$name.log" "$work/$name.stderr" 2>/dev/null | head -n 1 | cut -d: -f2-)"
    echo "$prog: error: yosys failed ($name, exit status $status)${first_error:+: $first_error}" >&2
    echo "$prog: the last lines of $work/$name.log:" >&2
    tail -n 25 "$work/$name.log" >&2 || true
    if [[ -s "$work/$name.stderr" ]] && ! grep -q ERROR "$work/$name.log"; then tail -n 10 "$work/$name.stderr" >&2; fi
    [[ -n "$keep" ]] || echo "$prog: (run with --keep DIR to keep the logs)" >&2
    exit 1
  fi
  step_seconds=$((SECONDS - t0))
}

# --- 2. contract package -----------------------------------------------------------------------------
t0=$SECONDS
gen_src="$repo/kernels/rtl/gen/gen_contract_pkg.cpp"
[[ -f "$gen_src" ]] || die "$gen_src is missing: the contract package cannot be generated"
progress "2/5 package: g++ $gen_src -> $work/fpgacnn_contract_pkg.sv"
g++ -std=c++17 -O0 -I "$repo/kernels/include" -o "$work/gen_contract_pkg" "$gen_src" 2>"$work/gen.log" ||
  { tail -n 20 "$work/gen.log" >&2; die "compiling $gen_src failed"; }
"$work/gen_contract_pkg" >"$work/fpgacnn_contract_pkg.sv" || die "gen_contract_pkg failed"
seconds_package=$((SECONDS - t0))

# --- 3. synthesis ------------------------------------------------------------------------------------
chparams=""
param_names=(TM TN TR TC MAX_K MAX_S INT8_PAIRS)
[[ -z "$port_param" ]] || param_names+=("$port_param")
for name in "${param_names[@]}"; do chparams+=" -chparam $name ${params[$name]}"; done
{
  echo "# synth-rtl.sh: $part, Tm=${params[TM]} Tn=${params[TN]} Tr=${params[TR]} Tc=${params[TC]}"
  echo "read_verilog -sv $work/fpgacnn_contract_pkg.sv"
  for f in "${packages[@]}"; do echo "read_verilog -sv $f"; done
  echo "read_verilog -sv -noautowire -defer ${modules[*]}"
  echo "hierarchy -top $top$chparams"
  echo "synth_xilinx -family $family -flatten -noiopad -top $top"
  echo "tee -q -o $work/stat.json stat -json -tech xilinx"
  echo "tee -q -o $work/dsp_cells.il dump t:$dsp_cell"
  echo "tee -q -o $work/ram36_cells.txt select -list t:$ram36"
  echo "tee -q -o $work/ram18_cells.txt select -list t:$ram18"
  echo "tee -q -o $work/lutram_cells.txt select -list t:RAM* t:RAMB* %d t:URAM* %d"
  echo "write_verilog $work/netlist.v"
  [[ -z "$keep" ]] || echo "write_edif -pvector bra $work/netlist.edif"
} >"$work/synth.ys"
progress "3/5 yosys synth_xilinx -family $family -flatten -noiopad -top $top (${#packages[@]} package(s) +" \
  "${#modules[@]} file(s) of $rtl_dir;$chparams)"
run_yosys synth "$work/synth.ys"
seconds_synth=$step_seconds
[[ -s "$work/stat.json" ]] || die "yosys wrote no statistics ($work/stat.json)"

# --- 4. sta ------------------------------------------------------------------------------------------
# Twice: as yosys ships the cell models, and without the asynchronous clear / preset -> Q arcs of
# FDCE / FDPE (where registers reset asynchronously, the first run's longest path can start at the
# reset input through CLR -> Q, a path a clocked timing analysis does not follow; with a synchronous
# reset both give the same path).
share="$(dirname "$(command -v "$yosys")")/../share/yosys"
[[ -f "$share/xilinx/cells_sim.v" ]] || die "cannot find yosys's cells_sim.v (looked in $share/xilinx)"
sed -E '/\((CLR|PRE) => Q\) = [0-9]+;/d' "$share/xilinx/cells_sim.v" >"$work/cells_sim_clocked.v"
removed=$(($(wc -l <"$share/xilinx/cells_sim.v") - $(wc -l <"$work/cells_sim_clocked.v")))
[[ $removed -gt 0 ]] || die "found no CLR/PRE -> Q arcs to remove in $share/xilinx/cells_sim.v (another yosys version?)"
for variant in sta sta_clocked; do
  if [[ $variant == sta ]]; then cells_sim="+/xilinx/cells_sim.v"; else cells_sim="$work/cells_sim_clocked.v"; fi
  {
    echo "read_verilog -lib -specify $cells_sim +/xilinx/cells_xtra.v"
    echo "read_verilog $work/netlist.v"
    echo "hierarchy -top $top"
    echo "sta"
  } >"$work/$variant.ys"
done
progress "4/5 yosys sta on the netlist (cell delays of +/xilinx/cells_sim.v, no routing), then again" \
  "without the FDCE/FDPE CLR/PRE -> Q arcs"
run_yosys sta "$work/sta.ys"
seconds_sta=$step_seconds
run_yosys sta_clocked "$work/sta_clocked.ys"
seconds_sta=$((seconds_sta + step_seconds))

# --- 5. JSON -----------------------------------------------------------------------------------------
yosys_version="$("$yosys" -V 2>&1 | head -n 1)"
git_commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$repo" status --porcelain -- "$rtl_dir" kernels/include kernels/rtl/gen 2>/dev/null)" ]]; then
  git_commit+="+uncommitted-rtl"
fi
tmp_json="$(mktemp "$json_dir/.synth-rtl.XXXXXX")"
param_list=""
for name in "${param_names[@]}"; do param_list+="$name=${params[$name]} "; done
progress "5/5 JSON -> $json_out"
SYNTH_STAT="$work/stat.json" SYNTH_DSP_CELLS="$work/dsp_cells.il" SYNTH_WORK="$work" SYNTH_NETLIST="$work/netlist.v" SYNTH_STA_LOG="$work/sta.log" SYNTH_STA_CLOCKED_LOG="$work/sta_clocked.log" SYNTH_OUT="$tmp_json" SYNTH_FAMILY="$family" \
  SYNTH_DSP="$dsp_cell" SYNTH_RAM36="$ram36" SYNTH_RAM18="$ram18" SYNTH_CARRY="$carry" \
  SYNTH_PART="$part" SYNTH_CLOCK="${cfg[FPGACNN_CLOCK_MHZ]}" SYNTH_TOP="$top" SYNTH_PARAMS="$param_list" \
  SYNTH_PORT_BITS="$((10#${cfg[FPGACNN_PORT_BITS]}))" SYNTH_PORT_PARAM="$port_param" \
  SYNTH_YOSYS="$yosys_version" SYNTH_COMMIT="$git_commit" SYNTH_CONFIG="$config" \
  SYNTH_FILES="$(printf '%s\n' "$work/fpgacnn_contract_pkg.sv" "${packages[@]}" "${modules[@]}")" \
  SYNTH_SECONDS="$((SECONDS - start))" SYNTH_SECONDS_SYNTH="$seconds_synth" SYNTH_SECONDS_STA="$seconds_sta" \
  SYNTH_SECONDS_PACKAGE="$seconds_package" SYNTH_REPO="$repo" \
  python3 - <<'EOF' || die "could not write the JSON (see the message above)"
import json, os, re, sys

env = os.environ
with open(env["SYNTH_STAT"]) as f:
    stat = json.load(f)
cells = stat.get("design", {}).get("num_cells_by_type")
if cells is None:  # a design of one module: yosys 0.23 puts it under "modules" as well
    mods = stat.get("modules", {})
    if len(mods) != 1:
        sys.exit("stat JSON has no design.num_cells_by_type")
    cells = next(iter(mods.values()))["num_cells_by_type"]
cells = {k: int(v) for k, v in cells.items()}
unknown = [k for k in cells if k.startswith("$")]
if unknown:
    sys.exit("unmapped cells left after synth_xilinx: " + ", ".join(sorted(unknown)))

def count(pred):
    return sum(n for k, n in cells.items() if pred(k))

# LUTs a LUT-RAM primitive occupies (UG474 / UG574 distributed RAM tables).
lutram_luts = {"RAM16X1S": 1, "RAM16X1D": 2, "RAM32X1S": 1, "RAM32X1D": 2, "RAM64X1S": 1, "RAM64X1D": 2,
               "RAM128X1S": 2, "RAM128X1D": 4, "RAM256X1S": 4, "RAM256X1D": 8, "RAM512X1S": 8,
               "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8, "RAM64M8": 8, "RAM32X16DR8": 8, "RAM64X8SW": 8}
lutram_re = re.compile(r"^RAM\d+(X\d+[SD]|M\d*|X16DR8|X8SW)(_1)?$")
ff_re = re.compile(r"^FD[A-Z]*(_1)?$")
lut = count(lambda k: re.fullmatch(r"LUT[1-6]", k) is not None)
lutram_cells = {k: n for k, n in cells.items() if lutram_re.match(k)}
unknown_lutram = [k for k in lutram_cells if re.sub(r"_1$", "", k) not in lutram_luts]
if unknown_lutram:
    sys.exit("LUT-RAM cells of unknown size: " + ", ".join(unknown_lutram))
lutram = sum(lutram_cells.values())
lutram_l = sum(n * lutram_luts[re.sub(r"_1$", "", k)] for k, n in lutram_cells.items())
srl = count(lambda k: k in ("SRL16E", "SRLC32E", "SRL16", "SRLC16E", "SRLC16"))
dsp, ram36, ram18, carry = env["SYNTH_DSP"], env["SYNTH_RAM36"], env["SYNTH_RAM18"], env["SYNTH_CARRY"]

def rtl_location(src):
    """The RTL operation a cell came from: of the file:line ranges in its src attribute outside yosys's
    own techmap files, the one spanning the fewest lines (the others are the module instances that
    flatten went through, which span their port lists)."""
    best = None
    for entry in (src or "").split("|"):
        m = re.match(r"^(.*):(\d+)(?:\.\d+)?(?:-(\d+))?", entry)
        if m and "/share/yosys/" not in m.group(1):
            span = int(m.group(3) or m.group(2)) - int(m.group(2))
            if best is None or span <= best[0]:
                best = (span, f"{os.path.basename(m.group(1))}:{m.group(2)}")
    return best[1] if best else "unknown"

# Where the DSP cells come from (file:line of the multiplication).
dsp_sources = {}
src = None
with open(env["SYNTH_DSP_CELLS"]) as f:
    for l in f:
        l = l.strip()
        m = re.match(r'^attribute \\src "(.*)"$', l)
        if m:
            src = m.group(1)
        elif l.startswith("cell \\" + dsp + " "):
            where = rtl_location(src)
            dsp_sources[where] = dsp_sources.get(where, 0) + 1
            src = None
        elif l.startswith("cell ") or l.startswith("wire ") or l == "end":
            src = None

# Which memories the block and LUT RAMs hold: cell names with the lane indices ([3] -> [*]) and the
# primitive's position in the memory (.0.1 and what follows) taken out.
memories = {}
for kind, name in ((ram36, "ram36_cells.txt"), (ram18, "ram18_cells.txt"), ("lutram", "lutram_cells.txt")):
    with open(os.path.join(env["SYNTH_WORK"], name)) as f:
        for l in f:
            l = l.strip()
            if not l:
                continue
            mem = re.sub(r"\[\d+\]", "[*]", l.split("/", 1)[-1])
            mem = re.sub(r"\.\d+\.\d+(\..*)?$", "", mem)
            memories.setdefault(mem, {}).setdefault(kind.lower(), 0)
            memories[mem][kind.lower()] += 1

def read_sta(log):
    """sta's "Latest arrival time in 'TOP' is N:" (ps), the path (latest first) and the warnings."""
    sta_ps, path, warnings = None, [], []
    with open(log) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"Latest arrival time in '.*' is (\d+)", line)
        if m:
            sta_ps = int(m.group(1))
            for l in lines[i + 1:]:
                p = re.match(r"^\s+(\d+) (\S+) \((\S+)\)$", l)
                if p:
                    path.append({"arrival_ps": int(p.group(1)), "cell": p.group(2), "arc": p.group(3)})
                elif l.strip() == "" or l.startswith("Arrival histogram"):
                    break
        w = re.match(r"^Warning: (.*)$", line)
        if w and w.group(1) not in warnings:
            warnings.append(w.group(1))
    if sta_ps is None:
        sys.exit(f"sta printed no latest arrival time (see {log})")
    return sta_ps, path, warnings

sta_ps, path, warnings = read_sta(env["SYNTH_STA_LOG"])
clocked_ps, clocked_path, clocked_warnings = read_sta(env["SYNTH_STA_CLOCKED_LOG"])

# The RTL source of each cell on the path, from the netlist's (* src = ... *) attributes (LUTs made
# by abc keep none: "unknown").
wanted = {p["cell"].lstrip("\\") for p in path + clocked_path}
cell_src = {}
attrs, pending = [], []
name_re = r"(\\\S+|[A-Za-z_$][A-Za-z0-9_$]*)"
with open(env["SYNTH_NETLIST"]) as f:
    for l in f:
        t = l.strip()
        if t.startswith("(*") and t.endswith("*)"):
            attrs.append(t)
            continue
        name = None
        m = re.match(r"^[A-Za-z_][A-Za-z0-9_]*\s+(?:#\(|" + name_re + r"\s+\()$", t)
        if m and attrs:  # an instance starts: "TYPE #(" or "TYPE name ("
            pending, name = attrs, m.group(1)
        else:
            m = re.match(r"^\)\s+" + name_re + r"\s+\($", t)  # ") name (" after the parameters
            if m:
                name = m.group(1)
        if name is not None and name.lstrip("\\") in wanted:
            srcs = [re.search(r'src = "([^"]*)"', a) for a in pending]
            cell_src[name.lstrip("\\")] = next((rtl_location(x.group(1)) for x in srcs if x), "unknown")
        attrs = []
for p in path + clocked_path:
    p["src"] = cell_src.get(p["cell"].lstrip("\\"), "unknown")

params = dict(kv.split("=") for kv in env["SYNTH_PARAMS"].split())
result = {
    "top": env["SYNTH_TOP"],
    "part": env["SYNTH_PART"],
    "family": env["SYNTH_FAMILY"],
    "clock_mhz": float(env["SYNTH_CLOCK"]),
    "tm": int(params["TM"]), "tn": int(params["TN"]), "tr": int(params["TR"]), "tc": int(params["TC"]),
    "max_k": int(params["MAX_K"]), "max_s": int(params["MAX_S"]), "int8_pairs": int(params["INT8_PAIRS"]),
    "port_bits": int(env["SYNTH_PORT_BITS"]),
    "port_bits_parameter": env["SYNTH_PORT_PARAM"] or None,
    "parameters": {k: int(v) for k, v in sorted(params.items())},
    dsp.lower(): cells.get(dsp, 0),
    ram36.lower(): cells.get(ram36, 0),
    ram18.lower(): cells.get(ram18, 0),
    "bram_18k": 2 * cells.get(ram36, 0) + cells.get(ram18, 0),
    "lut": lut,
    "lutram": lutram,
    "lutram_luts": lutram_l,
    "srl": srl,
    "lut_total": lut + lutram_l + srl,
    "ff": count(lambda k: ff_re.match(k) is not None),
    dsp.lower() + "_by_source": dict(sorted(dsp_sources.items(), key=lambda kv: (-kv[1], kv[0]))),
    carry.lower(): cells.get(carry, 0),
    "inv": cells.get("INV", 0),
    "muxf7": cells.get("MUXF7", 0),
    "muxf8": cells.get("MUXF8", 0),
    "cells": dict(sorted(cells.items())),
    "memories": dict(sorted(memories.items())),
    "sta_ns": sta_ps / 1000.0,
    "sta_mhz_bound": round(1e6 / sta_ps, 1) if sta_ps > 0 else None,
    "sta_path": path,
    "sta_warnings": warnings,
    "sta_clocked_ns": clocked_ps / 1000.0,
    "sta_clocked_mhz_bound": round(1e6 / clocked_ps, 1) if clocked_ps > 0 else None,
    "sta_clocked_path": clocked_path,
    "yosys_version": env["SYNTH_YOSYS"],
    "seconds": int(env["SYNTH_SECONDS"]),
    "seconds_package": int(env["SYNTH_SECONDS_PACKAGE"]),
    "seconds_synth": int(env["SYNTH_SECONDS_SYNTH"]),
    "seconds_sta": int(env["SYNTH_SECONDS_STA"]),
    "config": env["SYNTH_CONFIG"],
    "rtl_files": [os.path.relpath(p, env["SYNTH_REPO"]) if p.startswith(env["SYNTH_REPO"] + "/") else p
                  for p in env["SYNTH_FILES"].splitlines() if p],
    "git_commit": env["SYNTH_COMMIT"],
}
if env["SYNTH_FAMILY"] == "xcup":
    result["uram288"] = cells.get("URAM288", 0)
with open(env["SYNTH_OUT"], "w") as f:
    json.dump(result, f, indent=2)
    f.write("\n")
EOF
mv -f "$tmp_json" "$json_out"
tmp_json=""
progress "done in $((SECONDS - start)) s: $json_out"
