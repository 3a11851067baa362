# Detector.forward() on a YOLOv3 net: one array per [yolo] head, in layer order, views into one buffer
# the runtime handed over, and the values detect() decodes (its best score is the heads' best
# objectness times class probability).
import os
import subprocess

import numpy as np
import pytest

import fpgacnn
from conftest import SAMPLE_IMAGES, tool

CFG = "/usr/share/darknet/cfg/yolov3-tiny.cfg"


@pytest.fixture(scope="module")
def yolo_detector(tmp_path_factory):
    if not os.path.exists(CFG):
        pytest.skip("darknet's yolov3-tiny.cfg is not installed")
    weights = tmp_path_factory.mktemp("yolo") / "yolov3-tiny.weights"
    subprocess.run([tool("fpgacnn-synth-weights"), "--cfg", CFG, "--seed", "3", "--out", str(weights), "--quiet"],
                   check=True)
    with fpgacnn.Detector(CFG, str(weights), names="/usr/share/darknet/data/coco.names", device="cpu",
                          precision="float", input_size="160x160", thresh=0.001) as det:
        yield det


def test_forward_returns_each_head_in_layer_order(yolo_detector):
    heads = yolo_detector.forward(str(SAMPLE_IMAGES[0]))
    assert isinstance(heads, list) and len(heads) == 2
    # yolov3-tiny: 3 anchors x (4 + 1 + 80) maps; strides 32 then 16 at 160 x 160.
    assert [h.shape for h in heads] == [(255, 5, 5), (255, 10, 10)]
    for head in heads:
        assert head.dtype == np.float32 and head.flags.c_contiguous and not head.flags.owndata
    assert heads[0].base is heads[1].base, "the heads share the runtime's one buffer"
    assert not np.shares_memory(heads[0], heads[1])
    for head in heads:
        per_anchor = head.reshape(3, 85, *head.shape[1:])
        logistic = np.concatenate([per_anchor[:, 0:2], per_anchor[:, 4:]], axis=1)
        assert ((logistic > 0) & (logistic < 1)).all(), "x, y, objectness and classes are logistic outputs"


def test_forward_holds_what_detect_decodes(yolo_detector):
    image = str(SAMPLE_IMAGES[0])
    detections = yolo_detector.detect(image)
    assert detections, "thresh 0.001 keeps boxes even on synthetic weights"
    best = 0.0
    for head in yolo_detector.forward(image):
        per_anchor = head.reshape(3, 85, *head.shape[1:]).astype(np.float64)
        best = max(best, float((per_anchor[:, 4:5] * per_anchor[:, 5:]).max()))
    # darknet's get_yolo_detections: prob = objectness * class probability; NMS keeps the best box.
    assert max(d.score for d in detections) == pytest.approx(best, rel=1e-5)
