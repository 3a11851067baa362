#!/usr/bin/python3
"""The Python package's cost against the C++ API, in one run on one machine (docs/python.md, Speed).

    /usr/bin/python3 benchmarks/python_overhead.py --bench build/release/apps/bench/fpgacnn-bench \
        --cfg MODEL.cfg --quantized MODEL.q16 [--device cpu --precision int16] [--frames 300 --rounds 3]

Each round runs fpgacnn-bench (the C++ Detector: detect() one frame after the other, then submit() as
fast as back-pressure allows, on 8-bit RGB pixels: --pixels) and then the same through fpgacnn in this
process (Detector.detect on cv2 arrays, then Detector.submit with the same frames in flight), on the
same images. Rounds alternate so that the machine's other load falls on both; the medians are compared.
On a busy shared machine the two processes' frame times differ by more than the binding costs, so the
binding's own cost is also measured inside each Python call: its wall time minus the time the C++
Detector::detect measured for itself (Detector.last_timing), i.e. the argument checks, the GIL release
and re-acquisition and the conversion of the detections.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque

import cv2

sys.path.insert(0, os.environ.get("FPGACNN_PYTHON_DIR", ""))
import fpgacnn  # noqa: E402

IMAGES = ["dog", "person", "horses", "kite", "eagle", "giraffe"]  # fpgacnn-bench's default frames


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def cpp_round(args, folder):
    flags = [args.bench, "--cfg", args.cfg, "--quantized", args.quantized, "--device", args.device, "--precision",
             args.precision, "--pixels", "--images", folder, "--frames", str(args.frames), "--warmup", "10",
             "--in-flight", str(args.in_flight), "--json", "-q"]
    report = json.loads(subprocess.run(flags, check=True, capture_output=True, text=True).stdout)
    single = report["single_frame"]
    return single["seconds"] * 1e3 / single["frames"], report["pipelined"]["fps"]


def python_round(args, detector, frames):
    for i in range(10):  # warm-up, as fpgacnn-bench's --warmup
        detector.detect(frames[i % len(frames)])
    start = time.perf_counter()
    added = []  # per call: the Python call's wall time minus the C++ Detector::detect's own time
    for i in range(args.frames):
        call_start = time.perf_counter()
        detector.detect(frames[i % len(frames)])
        added.append((time.perf_counter() - call_start) * 1e3 - detector.last_timing["ms"])
    single_ms = (time.perf_counter() - start) * 1e3 / args.frames
    python_round.added.extend(added)
    in_flight = deque()
    start = time.perf_counter()
    for i in range(args.frames):
        if len(in_flight) == args.in_flight:
            in_flight.popleft().result()
        in_flight.append(detector.submit(frames[i % len(frames)]))
    for future in in_flight:
        future.result()
    return single_ms, args.frames / (time.perf_counter() - start)


python_round.added = []


def interleaved(args, detector, frames, blocks=30, block=20):
    """The C++ API's loops (Detector.time_cpp_loop: the same calls in C++, in this process, on the same
    arrays) against the Python ones, alternating in short blocks so that load spikes hit both alike;
    the median of the blocks' ratios is reported."""
    native = detector._native
    single, pipe = [], []  # per block: (C++ seconds, Python seconds)
    for _ in range(blocks):
        cpp = native.time_cpp_loop(frames, block, 0)
        start = time.perf_counter()
        for i in range(block):
            detector.detect(frames[i % len(frames)])
        single.append((cpp, time.perf_counter() - start))
        cpp = native.time_cpp_loop(frames, block, args.in_flight)
        start = time.perf_counter()
        in_flight = deque()
        for i in range(block):
            if len(in_flight) == args.in_flight:
                in_flight.popleft().result()
            in_flight.append(detector.submit(frames[i % len(frames)]))
        for future in in_flight:
            future.result()
        pipe.append((cpp, time.perf_counter() - start))
    return single, pipe, block


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True, help="the fpgacnn-bench binary")
    parser.add_argument("--cfg", required=True)
    parser.add_argument("--quantized", required=True)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="int16")
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--in-flight", type=int, default=4, help="the Detector's max_in_flight (4)")
    args = parser.parse_args()

    paths = [f"/usr/share/darknet/data/{name}.jpg" for name in IMAGES]
    frames = [cv2.imread(p) for p in paths]
    detector = fpgacnn.Detector(args.cfg, quantized=args.quantized, device=args.device, precision=args.precision)
    cpp, python = [], []
    with tempfile.TemporaryDirectory() as folder:
        for p in paths:
            os.symlink(p, os.path.join(folder, os.path.basename(p)))
        for _ in range(args.rounds):
            cpp.append(cpp_round(args, folder))
            python.append(python_round(args, detector, frames))
        single_blocks, pipe_blocks, block = interleaved(args, detector, frames)
    detector.close()

    def median(rows, k):
        return statistics.median(r[k] for r in rows)

    cpp_ms, py_ms = median(cpp, 0), median(python, 0)
    cpp_fps, py_fps = median(cpp, 1), median(python, 1)
    print(f"CPU: {cpu_model()} ({os.cpu_count()} cores); {os.path.basename(args.cfg)} {args.device} {args.precision}, "
          f"{args.frames} frames x {args.rounds} rounds (medians)")
    print("fpgacnn-bench (its own process) against this process:")
    print(f"single frame   C++ detect()  {cpp_ms:8.3f} ms   Python detect()  {py_ms:8.3f} ms   "
          f"overhead {100 * (py_ms - cpp_ms) / cpp_ms:+.2f} %")
    added_ms = statistics.median(python_round.added)
    print(f"binding        per call: Python wall time - C++ Detector::detect time = {added_ms * 1e3:.1f} us "
          f"(median of {len(python_round.added)}), {100 * added_ms / py_ms:.3f} % of a frame")
    print(f"pipelined      C++ submit()  {cpp_fps:8.1f} FPS  Python submit()  {py_fps:8.1f} FPS  "
          f"ratio {100 * py_fps / cpp_fps:.1f} %")
    print(f"same process, {len(single_blocks)} alternating blocks of {block} frames each way "
          "(Detector.time_cpp_loop = the same loop through the C++ API), median of the blocks:")
    c = statistics.median(b[0] for b in single_blocks) * 1e3 / block
    p = statistics.median(b[1] for b in single_blocks) * 1e3 / block
    overhead = statistics.median((py - cpp) / cpp for cpp, py in single_blocks)
    print(f"  single frame C++ {c:.3f} ms  Python {p:.3f} ms  overhead {100 * overhead:+.2f} %")
    c = statistics.median(b[0] for b in pipe_blocks)
    p = statistics.median(b[1] for b in pipe_blocks)
    ratio = statistics.median(cpp / py for cpp, py in pipe_blocks)
    print(f"  pipelined    C++ {block / c:.1f} FPS  Python {block / p:.1f} FPS  ratio {100 * ratio:.1f} %")
    print("fpgacnn-bench rounds (C++ ms, C++ FPS, Python ms, Python FPS): " +
          "; ".join(f"{c[0]:.2f}, {c[1]:.0f}, {p[0]:.2f}, {p[1]:.0f}" for c, p in zip(cpp, python)))


if __name__ == "__main__":
    main()
