#!/usr/bin/env python3
"""fpgacnn-serve under load (issue 14, "Load"): the real binary serving YOLO-LITE VOC with two CPU
instances, 16 concurrent gRPC clients for 60 s (fpgacnn-bench --server, each client its own
connection, every request tagged with its own id), while one more client connects and stalls in the
middle of the HTTP/2 preface for the whole run. Loopback only; bounded in time (--seconds) and count.

Checks: every request answered (none lost, none failed), no answer carrying another request's id,
every client served despite the stalled one, the server's RSS not growing after the first third of
the run, exit 0 on SIGTERM.
Prints throughput and latency percentiles (a report, not an assertion: speed is measured, not tested).
Usage: load_test.py --build-dir DIR --shared-dir DIR [--seconds 60] [--clients 16]
"""
import argparse
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

MODEL_FILES = ("tiny-yolov2-trial3-noBatch.cfg", "tiny-yolov2-trial3-noBatch.weights", "voc.names")
# "RSS bounded": the server's RSS in the last third of the run may exceed the highest RSS of the first
# third by at most this much. The first third sees every image size with every client busy (the
# working set: decoded images, gRPC buffers, malloc's per-thread arenas); a leak of even one request's
# image per request (>= 300 KB, thousands of requests) would exceed it.
RSS_CREEP_LIMIT_MIB = 64
SKIPPED = 77


def memory_mib(pid, field):
    """VmRSS / VmHWM of a process in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"/proc/{pid}/status has no {field}")


class RssSampler(threading.Thread):
    """The server's VmRSS every half second while the load runs."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.samples, self.stopped = pid, [], threading.Event()

    def run(self):
        while not self.stopped.wait(0.5):
            try:
                self.samples.append(memory_mib(self.pid, "VmRSS"))
            except (OSError, RuntimeError):
                return


def start_server(build_dir, repository, log):
    """fpgacnn-serve on free loopback ports; returns the process and its gRPC address once it listens."""
    process = subprocess.Popen(
        [os.path.join(build_dir, "apps", "serve", "fpgacnn-serve"), "--model-repository", repository,
         "--grpc-port", "0", "--http-port", "0"],
        stdout=subprocess.PIPE, stderr=log, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            line = process.stdout.readline()
            if not line:
                break
            if line.startswith("listening: grpc "):
                return process, line.split()[-1]
        if process.poll() is not None:
            break
    process.kill()
    process.wait()
    log.seek(0)
    raise RuntimeError(f"fpgacnn-serve did not start listening within 120 s:\n{log.read()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--shared-dir", required=True)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    model = os.path.join(args.shared_dir, "models", "yolo-lite-voc")
    if not os.path.exists(os.path.join(model, MODEL_FILES[1])):
        print(f"skipped: no YOLO-LITE VOC weights under {model}")
        return SKIPPED

    problems = []
    with tempfile.TemporaryDirectory(prefix="fpgacnn-serve-load-") as scratch:
        folder = os.path.join(scratch, "repository", "yolo-lite")
        os.makedirs(folder)
        with open(os.path.join(folder, "model.json"), "w") as f:
            json.dump({"cfg": os.path.join(model, MODEL_FILES[0]), "weights": os.path.join(model, MODEL_FILES[1]),
                       "names": os.path.join(model, MODEL_FILES[2]), "device": ["cpu", "cpu"], "instances": 2,
                       "precision": "int16"}, f)
        with open(os.path.join(scratch, "serve.log"), "w+") as log:
            server, address = start_server(args.build_dir, os.path.dirname(folder), log)
            try:
                loaded_mib = memory_mib(server.pid, "VmRSS")
                # The stalled client: half of HTTP/2's connection preface, then nothing until the end.
                host, port = address.rsplit(":", 1)
                stalled = socket.create_connection((host, int(port)), timeout=10)
                stalled.sendall(b"PRI * HTTP/2.0\r\n")
                sampler = RssSampler(server.pid)
                sampler.start()
                bench = subprocess.run(
                    [os.path.join(args.build_dir, "apps", "bench", "fpgacnn-bench"), "-q", "--json",
                     "--server", address, "--model", "yolo-lite", "--clients", str(args.clients),
                     "--seconds", str(args.seconds), "--requests", "10000000"],
                    capture_output=True, text=True, timeout=args.seconds + 180)
                stalled.close()
                sampler.stopped.set()
                sampler.join()
                peak_mib = memory_mib(server.pid, "VmHWM")
            finally:
                if server.poll() is None:
                    server.send_signal(signal.SIGTERM)
                try:
                    code = server.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    server.kill()
                    code = "killed after 60 s"
            if code != 0:
                log.seek(0)
                problems.append(f"fpgacnn-serve exited with {code} after SIGTERM (expected 0):\n{log.read()}")

    if bench.returncode != 0 and not bench.stdout.strip():
        problems.append(f"fpgacnn-bench --server failed ({bench.returncode}): {bench.stderr.strip()}")
        result = {}
    else:
        result = json.loads(bench.stdout)
        print(f"{result['clients']} clients for {result['seconds']:.1f} s: {result['answered']} of "
              f"{result['sent']} requests answered, {result['throughput_rps']:.1f} requests/s, latency ms "
              f"p50 {result['latency_ms']['p50']:.1f} p99 {result['latency_ms']['p99']:.1f}; server RSS "
              f"{loaded_mib:.0f} MiB loaded, peak {peak_mib:.0f} MiB")
        third = max(len(sampler.samples) // 3, 1)
        early, late = max(sampler.samples[:third]), max(sampler.samples[-third:])
        print(f"server RSS: highest {early:.0f} MiB in the first third of the run, {late:.0f} MiB in the last")
        if result["failures"]:
            problems.append(f"failed requests by status: {result['failures']}")
        if result["answered"] != result["sent"]:
            problems.append(f"{result['sent'] - result['answered']} of {result['sent']} requests lost")
        if result["wrong_ids"]:
            problems.append(f"{result['wrong_ids']} answers carried another request's id")
        if result["answered"] < args.clients:
            problems.append(f"only {result['answered']} answers for {args.clients} clients (the stalled "
                            f"connection held the others?)")
        if late - early > RSS_CREEP_LIMIT_MIB:
            problems.append(f"the server's RSS kept growing: {late:.0f} MiB late in the run against {early:.0f} "
                            f"MiB early (more than {RSS_CREEP_LIMIT_MIB} MiB)")
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
