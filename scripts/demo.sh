#!/usr/bin/env bash
# The main job: installs dependencies, builds fpgacnn's library and the two tools it needs (not the
# test suite) and detects objects in darknet's sample images with the first trained model it finds
# (device chosen automatically).
#
# Usage: scripts/demo.sh [--cfg C --weights W [--names N]] [IMAGE...] [-- extra fpgacnn-detect flags]
# Model search order: --cfg/--weights (or FPGACNN_CFG/FPGACNN_WEIGHTS), models/yolov3-tiny.weights (with
# Debian's yolov3-tiny.cfg unless models/yolov3-tiny.cfg is there), models/<name>.cfg + .weights,
# ../shared/models/yolo-lite-voc, and last synthetic weights (detections then meaningless).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

cfg="${FPGACNN_CFG:-}"; weights="${FPGACNN_WEIGHTS:-}"; names="${FPGACNN_NAMES:-}"
images=(); extra=()
while (($#)); do
  case "$1" in
    --cfg) cfg="$2"; shift 2 ;;
    --weights) weights="$2"; shift 2 ;;
    --names) names="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) images+=("$1"); shift ;;
  esac
done

bash scripts/install-deps.sh
# Only the two tools this script runs, in a build folder of its own (no tests, no benchmarks), so the
# demo and the test suite's build/release never reconfigure each other.
echo "demo: building fpgacnn-detect and fpgacnn-synth-weights in build/demo (a fresh build takes about" \
  "3 min on 2 cores; later runs only rebuild what changed)"
FPGACNN_BUILD_TARGETS="fpgacnn-detect fpgacnn-synth-weights" bash scripts/build.sh demo \
  -DFPGACNN_BUILD_TESTS=OFF -DFPGACNN_BUILD_BENCHMARKS=OFF
apps="$repo/build/demo/apps"

names_for_cfg() {  # darknet's names file matching the cfg's class count
  local classes
  classes=$(grep -E '^\s*classes\s*=' "$1" | tail -n 1 | tr -dc '0-9')
  case "$classes" in
    80) echo /usr/share/darknet/data/coco.names ;;
    20) echo /usr/share/darknet/data/voc.names ;;
    *) echo "" ;;
  esac
}

source_note=""
if [[ -n "$cfg" || -n "$weights" ]]; then
  [[ -n "$cfg" && -n "$weights" ]] || { echo "demo: give both --cfg and --weights" >&2; exit 2; }
  source_note="the model you named"
fi
# darknet's YOLOv3-tiny first when its weights are there (models/README.md says where darknet publishes
# them): Debian ships its cfg, so the .weights file alone is enough.
if [[ -z "$cfg" && -e models/yolov3-tiny.weights ]]; then
  cfg=/usr/share/darknet/cfg/yolov3-tiny.cfg
  [[ -e models/yolov3-tiny.cfg ]] && cfg=models/yolov3-tiny.cfg
  weights=models/yolov3-tiny.weights; source_note="models/yolov3-tiny.weights"
  [[ -e models/yolov3-tiny.names ]] && names=models/yolov3-tiny.names
fi
if [[ -z "$cfg" ]]; then
  for w in models/*.weights; do
    [[ -e "$w" ]] || continue
    if [[ -e "${w%.weights}.cfg" ]]; then
      cfg="${w%.weights}.cfg"; weights="$w"; source_note="models/ folder"
      [[ -e "${w%.weights}.names" ]] && names="${w%.weights}.names"
      break
    fi
  done
fi
shared_model="${FPGACNN_SHARED_DIR:-$repo/../shared}/models/yolo-lite-voc"
if [[ -z "$cfg" && -e "$shared_model/tiny-yolov2-trial3-noBatch.weights" ]]; then
  cfg="$shared_model/tiny-yolov2-trial3-noBatch.cfg"
  weights="$shared_model/tiny-yolov2-trial3-noBatch.weights"
  names="$shared_model/voc.names"
  source_note="YOLO-LITE VOC from ../shared/models"
fi
synthetic=0
if [[ -z "$cfg" ]]; then
  synthetic=1
  cfg=/usr/share/darknet/cfg/yolov2-tiny.cfg
  weights="$repo/build/demo/yolov2-tiny.synthetic.weights"
  "$apps/synth-weights/fpgacnn-synth-weights" --cfg "$cfg" --seed 1 --out "$weights"
  source_note="SYNTHETIC weights"
fi
[[ -n "$names" ]] || names="$(names_for_cfg "$cfg")"
if ((${#images[@]} == 0)); then
  for f in dog person horses eagle giraffe kite; do images+=("/usr/share/darknet/data/$f.jpg"); done
fi

echo "demo: model: $cfg + $weights ($source_note)"
if ((synthetic)); then
  cat >&2 <<'WARN'
demo: WARNING: no trained weights were found, so this run uses SYNTHETIC (random) weights.
demo: WARNING: the pipeline runs for real, but its detections are MEANINGLESS.
demo: WARNING: put darknet's yolov3-tiny.weights into models/ (see models/README.md) for real detections.
WARN
fi
out="$repo/build/demo-output"
mkdir -p "$out"
name_args=()
[[ -n "$names" ]] && name_args=(--names "$names")
"$apps/detect/fpgacnn-detect" --cfg "$cfg" --weights "$weights" "${name_args[@]}" --device auto --output "$out" \
  "${extra[@]}" "${images[@]}"
echo "demo: annotated images are in $out"
