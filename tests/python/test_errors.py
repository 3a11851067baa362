# Every exception type, with the C++ message.
import cv2
import pytest

import fpgacnn
from conftest import SAMPLE_IMAGES, detector


def test_hierarchy():
    assert issubclass(fpgacnn.Error, RuntimeError)
    assert issubclass(fpgacnn.ModelError, fpgacnn.Error)
    assert issubclass(fpgacnn.DeviceError, fpgacnn.Error)
    assert not issubclass(fpgacnn.DeviceError, fpgacnn.ModelError)


def test_model_errors(model, tmp_path):
    with pytest.raises(fpgacnn.ModelError, match="no-such.cfg"):
        fpgacnn.Detector(str(tmp_path / "no-such.cfg"), model["weights"], device="cpu")
    short = tmp_path / "short.weights"
    short.write_bytes(open(model["weights"], "rb").read()[:1000])
    with pytest.raises(fpgacnn.ModelError, match="short.weights"):
        fpgacnn.Detector(model["cfg"], str(short), device="cpu", input_size=model["input_size"] or None)
    with pytest.raises(fpgacnn.ModelError, match="no-such.names"):
        fpgacnn.Detector(model["cfg"], model["weights"], names=str(tmp_path / "no-such.names"), device="cpu")
    broken = tmp_path / "broken.cfg"
    broken.write_text("[net]\nwidth=64\nheight=64\nchannels=3\n[convolutional]\nfilters=many\n")
    with pytest.raises(fpgacnn.ModelError, match="broken.cfg"):
        fpgacnn.plan(str(broken))
    with pytest.raises(fpgacnn.Error, match="File does not exist"):  # the tool's flag check
        fpgacnn.plan(str(tmp_path / "no-such.cfg"))


def test_device_error(model, quantized):
    with pytest.raises(fpgacnn.DeviceError, match="uio:no-such-device"):
        detector(model, device="uio:no-such-device", quantized=quantized)


def test_plain_errors(model, tmp_path):
    with pytest.raises(fpgacnn.Error, match="no-such-driver"):
        detector(model, device="no-such-driver")
    with pytest.raises(fpgacnn.Error, match="int4"):
        detector(model, device="cpu", precision="int4")
    with pytest.raises(fpgacnn.Error, match="--no-such-flag"):
        fpgacnn.plan(model["cfg"], no_such_flag=3)
    det = detector(model, device="cpu", precision="float")
    with pytest.raises(fpgacnn.Error, match="no-such.jpg"):
        det.detect(str(tmp_path / "no-such.jpg"))
    det.close()
    with pytest.raises(fpgacnn.Error, match="after close"):
        det.detect(cv2.imread(str(SAMPLE_IMAGES[0])))
