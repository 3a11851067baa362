#!/usr/bin/python3
"""After ctest in CI: fails when a suite CI expects did not register, or a test skipped for want of
something CI installs. A test that is not built (test_xrt without libxrt-dev, the darknet cross-checks
without darknet) or that skips (no ../shared/models) passes ctest quietly; here it fails the run.

Usage: check_expected_tests.py BUILD_DIR JUNIT_XML
  JUNIT_XML: written by `ctest --output-junit` for the same run.
"""
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

# Skips that are facts of the machine, not of what CI installed: CPU features, running as root (file
# modes do not apply), a test that is the child process of another.
ALLOWED_SKIPS = [
    r"this CPU has no AVX-512 VNNI",
    r"running as root",
    r"root reads every file",
    r"runs as a child of",
]


def installed(package):
    result = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return result.returncode == 0 and "install ok installed" in result.stdout


def expected_executables():
    """test executables that must have registered tests, each with why."""
    expected = {
        "test_model": "always", "test_float": "always", "test_vision": "always", "test_kernel": "always",
        "test_plan": "always", "test_int16": "always", "test_emu": "always", "test_quant": "always",
        "test_pipeline": "always", "test_cli": "always", "test_integration": "always",
        "test_memory": "always", "test_emu_full": "always", "test_uio": "always", "test_camera": "always",
        "test_rtl_device": "always",
    }
    if installed("darknet"):
        expected["test_crosscheck"] = "the Debian package darknet is installed"
    if installed("libxrt-dev"):
        expected["test_xrt"] = "libxrt-dev is installed"
    if installed("libgrpc++-dev"):
        expected["test_serve"] = "libgrpc++-dev is installed"
    return expected


def expected_tests(build_dir):
    """single tests (not gtest executables) that must be registered, each with why."""
    expected = {}
    sanitized = "FPGACNN_SANITIZE:STRING=\n" not in open(os.path.join(build_dir, "CMakeCache.txt")).read()
    if installed("abi-dumper") and installed("abi-compliance-checker") and not sanitized:
        expected["abi.layout_check"] = "abi-dumper and abi-compliance-checker are installed"
    return expected


def registered(build_dir):
    """test name -> (executable file name, labels), from ctest's own listing."""
    listing = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"], capture_output=True,
                             text=True, check=True)
    tests = {}
    for test in json.loads(listing.stdout).get("tests", []):
        command = test.get("command") or [""]
        labels = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels = prop.get("value", [])
        tests[test["name"]] = (os.path.basename(command[0]), labels)
    return tests


def main():
    build_dir, junit = sys.argv[1], sys.argv[2]
    source_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = []
    tests = registered(build_dir)
    executables = {executable for executable, _ in tests.values()}
    for executable, why in sorted(expected_executables().items()):
        if executable not in executables:
            problems.append(f"{executable} registered no test ({why}): is it built? (cmake's configure output says why not)")
    for name, why in sorted(expected_tests(build_dir).items()):
        if name not in tests:
            problems.append(f"{name} is not registered ({why}): cmake's configure output says why not")
    shared_models = os.path.isdir(os.path.join(source_dir, "..", "shared", "models"))
    ran = set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        ran.add(name)
        status = case.get("status", "")
        output = case.findtext("system-out") or ""
        if case.find("skipped") is not None or status in ("notrun", "disabled"):
            reason = re.search(r"(?:Skipped|SKIPPED)[^\n]*\n?([^\n]*)", output)
            text = reason.group(1).strip() if reason else output.strip()[-200:]
            if any(re.search(allowed, output) for allowed in ALLOWED_SKIPS):
                continue
            hint = " (../shared/models exists: FPGACNN_SHARED_DIR?)" if shared_models and "shared/models" in output else ""
            state = "skipped" if case.find("skipped") is not None else status
            problems.append(f"{name} did not run ({state}): {text}{hint}")
    # The slow label runs in scripts/run-slow-tests.sh, not in this ctest run.
    missing = sorted(name for name, (_, labels) in tests.items() if name not in ran and "slow" not in labels)
    for name in missing:
        problems.append(f"{name} is registered but has no result in {junit}")
    if problems:
        print("check_expected_tests: suites CI expects did not run:", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        sys.exit(1)
    print(f"check_expected_tests: {len(ran)} tests ran; every expected suite registered")


if __name__ == "__main__":
    main()
