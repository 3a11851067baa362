#!/usr/bin/env bash
# The "slow" label: the long load tests that CI (scripts/run-tests.sh) leaves out to stay within its
# hour. Run it before merging a change to fpgacnn-serve, fpgacnn-camera, their HTTP / gRPC code or
# the pipeline they share, and before a release:
#   serve_e2e.load  16 gRPC clients for 60 s against fpgacnn-serve with a stalled connection beside
#                   them (nothing lost or mixed up, RSS bounded, exit 0 on SIGTERM)
#   CameraLoad.*    50 MJPEG readers and one silent client for 30 s against fpgacnn-camera (RSS
#                   bounded, every reader served, the silent client's frames dropped and counted)
#   RtlZedboard.*   YOLO-LITE on the RTL twin's Zedboard build (Tm=35 Tn=4 Tr=Tc=22, Verilator):
#                   every layer bit-exact with the CPU, the latency model within 10 % / 5 %
#   RtlSmall.*      YOLOv3 at 64x64 on the small RTL build (23 shortcuts, 2 upsamples; 2-4 minutes):
#                   the same checks
#   synth.rtl_small scripts/synth-rtl.sh on the small RTL build (yosys: keys, one DSP48E1 a multiplier)
# Measured on 2 cores (AMD EPYC): 61 s + 31 s of tests, both cores busy; the build is the release
# build's (incremental after scripts/run-tests.sh). Installs what it needs, like scripts/run-tests.sh.
# Usage: scripts/run-slow-tests.sh [build-name]     (default release: build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:-release}"
bash scripts/install-deps.sh --with-tests
# The same configuration as CI's release leg; the slow executables are built (the default).
bash scripts/build.sh "$name" -DFPGACNN_WITH_SERVE=ON -DFPGACNN_BUILD_SLOW_TESTS=ON
ctest --test-dir "build/$name" -L '^slow$' --output-on-failure -j "$(nproc)"
