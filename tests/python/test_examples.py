# The examples run: detect.py on darknet's images, camera_loop.py on a video file (no camera in CI),
# and the notebook executed by Debian's jupyter-nbconvert.
import json
import os
import pathlib
import shutil
import subprocess
import sys

import cv2
import pytest

import fpgacnn

from conftest import SAMPLE_IMAGES, detector

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def model_args(model):
    return [model["cfg"], model["weights"], model["names"]]


def test_detect_py_prints_the_detections(model, tmp_path):
    if model["input_size"]:
        pytest.skip("detect.py runs the cfg's input size")
    out = subprocess.run([sys.executable, str(EXAMPLES / "detect.py"), *model_args(model), str(SAMPLE_IMAGES[0]),
                          "--device", "cpu", "--precision", "float", "--output", str(tmp_path)],
                         check=True, capture_output=True, text=True).stdout
    with detector(model, device="cpu", precision="float") as det:
        expected = det.detect(str(SAMPLE_IMAGES[0]))
    for d in expected:
        assert f"{d.label}: {d.score * 100:.0f}%  (left {d.left}, top {d.top}" in out
    assert (tmp_path / "dog.jpg").exists()


def test_camera_loop_on_a_video_file(model, tmp_path):
    if model["input_size"]:
        pytest.skip("camera_loop.py runs the cfg's input size")
    video = tmp_path / "clip.avi"
    frame = cv2.imread(str(SAMPLE_IMAGES[0]))
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (frame.shape[1], frame.shape[0]))
    for _ in range(6):
        writer.write(frame)
    writer.release()
    annotated = tmp_path / "annotated.avi"
    out = subprocess.run([sys.executable, str(EXAMPLES / "camera_loop.py"), *model_args(model), "--source",
                          str(video), "--device", "cpu", "--precision", "float", "--output", str(annotated)],
                         check=True, capture_output=True, text=True).stdout
    lines = [line for line in out.splitlines() if line.startswith("frame ")]
    assert len(lines) == 6 and all("dog" in line for line in lines), out
    capture = cv2.VideoCapture(str(annotated))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == 6


def test_notebook_executes(model, tmp_path):
    nbconvert = shutil.which("jupyter-nbconvert")
    if nbconvert is None:
        pytest.skip("jupyter-nbconvert is not installed (apt-get install jupyter-nbconvert python3-ipykernel)")
    # The kernel runs in the notebook's folder: the package's folder as an absolute path.
    package_parent = str(pathlib.Path(fpgacnn.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=package_parent, FPGACNN_CFG=model["cfg"], FPGACNN_WEIGHTS=model["weights"], FPGACNN_NAMES=model["names"],
               FPGACNN_INPUT_SIZE=model["input_size"], FPGACNN_THRESH=str(model["thresh"]))
    subprocess.run([nbconvert, "--to", "notebook", "--execute", "--output-dir", str(tmp_path),
                    str(EXAMPLES / "fpgacnn.ipynb")], check=True, env=env, capture_output=True, text=True)
    executed = json.loads((tmp_path / "fpgacnn.ipynb").read_text())
    outputs = [o for c in executed["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert any("'label': " in "".join(o.get("text", "")) for o in outputs), "the detections cell printed none"
