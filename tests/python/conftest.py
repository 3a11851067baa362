# Shared fixtures of the Python package's tests (run by ctest: tests/python/CMakeLists.txt sets the
# environment). The model: YOLO-LITE VOC from the project's shared/ folder when present, else Debian
# darknet's yolov2-tiny-voc.cfg at 160x160 with fpgacnn-synth-weights' deterministic weights.
import json
import os
import pathlib
import subprocess

import pytest

import fpgacnn

TOOLS = pathlib.Path(os.environ.get("FPGACNN_TOOLS_DIR", ""))
SHARED = pathlib.Path(os.environ.get("FPGACNN_SHARED_DIR", "/nonexistent"))
SAMPLES = pathlib.Path("/usr/share/darknet/data")
SAMPLE_IMAGES = [SAMPLES / n for n in ("dog.jpg", "person.jpg", "horses.jpg", "eagle.jpg")]


def tool(name):
    path = TOOLS / "apps" / name.replace("fpgacnn-", "") / name
    if not path.exists():
        pytest.skip(f"{path} is not built (FPGACNN_TOOLS_DIR)")
    return str(path)


@pytest.fixture(scope="session")
def model(tmp_path_factory):
    """dict: cfg, weights, names, input_size ("" for the cfg's), thresh."""
    lite = SHARED / "models" / "yolo-lite-voc"
    if (lite / "tiny-yolov2-trial3-noBatch.weights").exists():
        return {"cfg": str(lite / "tiny-yolov2-trial3-noBatch.cfg"),
                "weights": str(lite / "tiny-yolov2-trial3-noBatch.weights"), "names": str(lite / "voc.names"),
                "input_size": "", "thresh": 0.5}
    cfg = "/usr/share/darknet/cfg/yolov2-tiny-voc.cfg"
    if not os.path.exists(cfg):
        pytest.skip("neither shared/models/yolo-lite-voc nor darknet's cfgs are installed")
    weights = tmp_path_factory.mktemp("synthetic") / "yolov2-tiny-voc.weights"
    subprocess.run([tool("fpgacnn-synth-weights"), "--cfg", cfg, "--seed", "1", "--out", str(weights), "--quiet"],
                   check=True)
    # Synthetic weights score low: a lower threshold still gives boxes to compare (9 on dog.jpg).
    return {"cfg": cfg, "weights": str(weights), "names": str(SAMPLES / "voc.names"), "input_size": "160x160",
            "thresh": 0.2}


@pytest.fixture(scope="session")
def quantized(model, tmp_path_factory):
    """The model's int16 file from fpgacnn.quantize (calibrated on darknet's samples)."""
    out = tmp_path_factory.mktemp("quantized") / "model.q16"
    options = {"input_size": model["input_size"] or None}
    fpgacnn.quantize(model["cfg"], model["weights"], str(out), **options)
    return str(out)


def detector(model, **options):
    return fpgacnn.Detector(model["cfg"], model["weights"], names=model["names"],
                            input_size=model["input_size"] or None, thresh=model["thresh"], **options)


def detect_json(model, image, *flags):
    """fpgacnn-detect --json's detections of one image."""
    args = [tool("fpgacnn-detect"), "--cfg", model["cfg"], "--weights", model["weights"], "--names",
            model["names"], "--json", "--quiet", "--thresh", str(model["thresh"]), *flags, str(image)]
    if model["input_size"]:
        args += ["--input", model["input_size"]]
    line = subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()
    return json.loads(line)["detections"]
