# The package's detections are fpgacnn-detect --json's, on darknet's sample images, for arrays (read in
# place, BGR or RGB) and paths, on the CPU in float and int16 and on the emulated accelerator.
import cv2
import pytest

from conftest import SAMPLE_IMAGES, detect_json, detector


def as_tool_json(detections):
    return [{"class": d.label, "class_id": d.class_id, "prob": round(d.score, 6), "left": d.left, "top": d.top,
             "right": d.right, "bottom": d.bottom} for d in detections]


def same(actual, expected):
    # prob: the tool prints float32 rounded to 6 decimals; so does as_tool_json (1e-9 for the print).
    assert len(actual) == len(expected), (actual, expected)
    for a, e in zip(actual, expected):
        assert a["prob"] == pytest.approx(e["prob"], abs=1e-9), (a, e)
        assert {k: v for k, v in a.items() if k != "prob"} == {k: v for k, v in e.items() if k != "prob"}


CONFIGURATIONS = {
    "cpu-float": ({"device": "cpu", "precision": "float"}, ["--device", "cpu", "--precision", "float"], SAMPLE_IMAGES),
    "cpu-int16": ({"device": "cpu", "precision": "int16"}, ["--device", "cpu", "--precision", "int16"], SAMPLE_IMAGES),
    # The emulator runs the kernel's C++ one multiply at a time: two images.
    "emu-int16": ({"device": "emu"}, ["--device", "emu"], SAMPLE_IMAGES[:2]),
}


@pytest.mark.parametrize("name", list(CONFIGURATIONS))
def test_detections_equal_fpgacnn_detect(model, quantized, name):
    options, flags, images = CONFIGURATIONS[name]
    with_file = options.get("precision") != "float"
    if with_file:
        options = {**options, "quantized": quantized}
        flags = flags + ["--quantized", quantized]
    with detector(model, **options) as det:
        total = 0
        for image in images:
            expected = detect_json(model, image, *flags)
            total += len(expected)
            bgr = cv2.imread(str(image))
            same(as_tool_json(det.detect(bgr)), expected)
            same(as_tool_json(det.detect(str(image))), expected)
            same(as_tool_json(det.detect(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), rgb=True)), expected)
            same(as_tool_json(det.submit(bgr).result()), expected)
        assert total > 0, "no detections at all: the comparison would prove nothing"


def test_detect_many_and_as_dict(model):
    with detector(model, device="cpu", precision="float") as det:
        images = [cv2.imread(str(p)) for p in SAMPLE_IMAGES]
        many = det.detect_many(images)
        assert [[d.as_dict() for d in ds] for ds in many] == [[d.as_dict() for d in det.detect(i)] for i in images]
        first = many[0][0].as_dict()
        assert set(first) == {"label", "class_id", "score", "left", "top", "right", "bottom"}
        info = det.info
        assert info["precision"] == "float" and info["device"].startswith("cpu") and info["gop"] > 0
        assert len(det.layer_times) == info["layers"]
