# fpgacnn.plan() and fpgacnn.quantize() return what the tools' --json print.
import json
import subprocess

import fpgacnn
from conftest import tool


def test_plan_is_fpgacnn_plan_json(model):
    size = ["--input", model["input_size"]] if model["input_size"] else []
    args = ["--cfg", model["cfg"], "--clock-mhz", "200", "--tm", "16", *size]
    expected = json.loads(subprocess.run([tool("fpgacnn-plan"), *args, "--json"], check=True, capture_output=True,
                                         text=True).stdout)
    assert fpgacnn.plan(model["cfg"], clock_mhz=200, tm=16, input_size=model["input_size"] or None) == expected
    assert expected["kernel"]["tm"] == 16 and expected["clock_mhz"] == 200


def test_quantize_is_fpgacnn_quantize_json(model, tmp_path):
    size = ["--input", model["input_size"]] if model["input_size"] else []
    out = tmp_path / "tool.q16"
    expected = json.loads(subprocess.run(
        [tool("fpgacnn-quantize"), "--cfg", model["cfg"], "--weights", model["weights"], "--out", str(out),
         "--json", "--quiet", *size], check=True, capture_output=True, text=True).stdout)
    mine = tmp_path / "python.q16"
    actual = fpgacnn.quantize(model["cfg"], model["weights"], str(mine), input_size=model["input_size"] or None)
    assert actual.pop("out") == str(mine) and expected.pop("out") == str(out)
    assert actual == expected
    assert mine.read_bytes() == out.read_bytes()
