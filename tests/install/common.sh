# shellcheck shell=bash disable=SC2034,SC2154  # sourced: its variables are the caller's, and the other way
# Shared by tests/install/*.sh (which set test_name and repo): messages, the sample image and the model
# both tests detect with. Sets cfg, weights, names (and model_kind) once choose_model has run.
image=/usr/share/darknet/data/dog.jpg

say() { echo "${test_name}: $*"; }
fail() {
  echo "${test_name}: FAIL: $*" >&2
  exit 1
}

# YOLO-LITE (VOC) from the project's shared folder when present, else yolov2-tiny-voc with synthetic
# weights made by `synth_tool` (the detections are then meaningless but must still agree).
choose_model() {
  local synth_tool="$1" work="$2"
  local shared="${FPGACNN_SHARED_DIR:-$repo/../shared}/models/yolo-lite-voc"
  if [[ -f "$shared/tiny-yolov2-trial3-noBatch.weights" ]]; then
    model_kind="YOLO-LITE ($shared)"
    cfg="$shared/tiny-yolov2-trial3-noBatch.cfg"
    weights="$shared/tiny-yolov2-trial3-noBatch.weights"
    names="$shared/voc.names"
  else
    model_kind="yolov2-tiny-voc with synthetic weights (no $shared)"
    cfg=/usr/share/darknet/cfg/yolov2-tiny-voc.cfg
    weights="$work/yolov2-tiny-voc.synthetic.weights"
    names=/usr/share/darknet/data/voc.names
    "$synth_tool" --cfg "$cfg" --seed 1 --out "$weights" -q || fail "$synth_tool could not write synthetic weights"
  fi
  say "model: $model_kind"
}

# fpgacnn-detect's text output without the timing ("Predicted in N ms."), which differs run to run.
without_time() { sed -E 's/: Predicted in [0-9.]+ ms\.$/: Predicted in <ms> ms./'; }

# Checks that `actual_file` (a detect-minimal run) equals `expected_file` (fpgacnn-detect's) but for
# the timing; `what` names the build in the message.
expect_same_detections() {
  local what="$1" expected_file="$2" actual_file="$3"
  if ! diff -u <(without_time <"$expected_file") <(without_time <"$actual_file"); then
    fail "$what: detect-minimal's output differs from fpgacnn-detect's (diff above)"
  fi
  say "$what: same output as fpgacnn-detect ($(($(wc -l <"$expected_file") - 1)) detections)"
}

# The SONAME's number (FPGACNN_SOVERSION, stated once in CMakeLists.txt) and the library package's name.
soversion="$(sed -nE 's/^set\(FPGACNN_SOVERSION ([0-9]+)\)/\1/p' "$repo/CMakeLists.txt")"
[[ -n "$soversion" ]] || fail "no set(FPGACNN_SOVERSION N) in $repo/CMakeLists.txt"
lib_package="libfpgacnn$soversion"
# The release's version (project(VERSION) in CMakeLists.txt, the one place it is stated).
project_version="$(sed -nE 's/^project\(fpgacnn VERSION ([0-9]+\.[0-9]+\.[0-9]+) .*/\1/p' "$repo/CMakeLists.txt")"
[[ -n "$project_version" ]] || fail "no project(fpgacnn VERSION x.y.z ...) in $repo/CMakeLists.txt"
