# The package as `cmake --install` puts it under a prefix (components lib and python_site): it imports from
# there, finds libfpgacnn by its run path (no LD_LIBRARY_PATH), and detects.
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SAMPLE_IMAGES


def test_installed_package_imports_and_detects(model, tmp_path):
    build = os.environ.get("FPGACNN_BUILD_DIR")
    if not build:
        pytest.skip("FPGACNN_BUILD_DIR (the build folder to install from) is not set")
    prefix = tmp_path / "prefix"
    for component in ("lib", "python_site"):
        subprocess.run(["cmake", "--install", build, "--prefix", str(prefix), "--component", component], check=True,
                       capture_output=True)
    packages = list(prefix.glob("lib/python3*/dist-packages/fpgacnn"))
    assert len(packages) == 1, list(prefix.rglob("*"))
    installed = {p.name for p in packages[0].iterdir()}
    assert {"__init__.py", "__init__.pyi", "py.typed"} <= installed
    assert any(name.startswith("_fpgacnn.cpython-") for name in installed)
    script = (
        "import fpgacnn, sys\n"
        f"assert fpgacnn.__file__.startswith({str(prefix)!r}), fpgacnn.__file__\n"
        f"det = fpgacnn.Detector({model['cfg']!r}, {model['weights']!r}, names={model['names']!r}, device='cpu',"
        f" precision='float', input_size={model['input_size'] or None!r}, thresh={model['thresh']!r})\n"
        f"print(len(det.detect({str(SAMPLE_IMAGES[0])!r})))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(packages[0].parent)
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True, env=env,
                         cwd=tmp_path).stdout
    assert int(out.strip()) > 0
