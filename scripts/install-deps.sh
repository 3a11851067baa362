#!/usr/bin/env bash
# Installs fpgacnn's build and test dependencies from Debian 12 packages (idempotent; run as root).
# Usage: scripts/install-deps.sh [--with-tests] [--with-cross]
#   --with-cross: the ARM cross builds' tools (scripts/cross-test.sh, docs/boards.md)
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config ccache
          libopencv-dev libjpeg-dev libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev
          libopenblas-dev libopenblas0-pthread
          verilator  # the kernel's RTL twin (kernels/rtl) as Verilated simulation libraries
          libboost-dev  # Boost.Asio/Beast (header-only): fpgacnn-camera's HTTP server; also XRT's headers
          libxrt-dev uuid-dev  # the XRT driver (built when libxrt-dev is present)
          # fpgacnn-serve: the inference protocol's gRPC service, its .proto compiled at build time,
          # the Prometheus metrics
          libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc prometheus-cpp-dev
          python3-dev pybind11-dev python3-numpy  # the Python package (python/, docs/python.md)
          darknet)  # darknet: sample images/cfgs for the main job, reference implementation for tests
for option in "$@"; do
  case "$option" in
    --with-tests)
      packages+=(libgtest-dev libgmock-dev libbenchmark-dev libstb-dev clang-format clang-tidy
                 yosys  # synthesis checks of the kernel's RTL (kernels/rtl)
                 chromium  # chromium: fpgacnn-camera's page checked in a headless browser
                 device-tree-compiler  # the board overlays' test (packaging/dts)
                 lintian  # the Debian packages (tests/install/deb_test.sh)
                 clang  # libFuzzer harnesses (scripts/run-fuzzers.sh)
                 # fpgacnn-serve's conformance tests: a Python client generated from the .proto,
                 # curl for REST, the Kubernetes manifests parsed
                 python3-grpcio python3-grpc-tools python3-protobuf python3-yaml curl
                 # the Python package's tests (tests/python), its OpenCV examples and notebook
                 python3-pytest python3-opencv jupyter-nbconvert python3-ipykernel
                 python3-numpy  # also the YOLOv4-tiny float reference (tests/crosscheck/numpy_darknet_reference.py)
                 python3-matplotlib  # docs figures: scripts/training-utilization.py (docs/training-utilization.md)
                 abi-dumper abi-compliance-checker  # the ABI check against the last release (scripts/check-abi.sh)
                 doxygen)  # the API reference, the `docs` target (cmake/Docs.cmake)
      ;;
    --with-cross)
      # Debian's cross compilers, mmdebstrap for the target sysroot, qemu-user to run the tests.
      packages+=(g++-aarch64-linux-gnu g++-arm-linux-gnueabihf mmdebstrap qemu-user)
      ;;
    *) echo "usage: $0 [--with-tests] [--with-cross]" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
