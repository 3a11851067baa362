#!/usr/bin/env python3
"""fpgacnn-serve's REST conformance and fault tests (issue 14), with plain curl as the client, against
the real fpgacnn-serve binary on loopback:

  - every route of the Open Inference Protocol's HTTP/REST binding (/v2/health/live, /v2/health/ready,
    /v2, /v2/models/{name}[/versions/1], .../ready, .../infer) and /metrics answers as the protocol
    says; the health probes need no token, every other route the bearer token;
  - the detections of darknet's sample images, sent as encoded files in both encodings (JSON with a
    base64 element, binary tensor data extension) and returned in both (JSON data, binary outputs),
    equal fpgacnn-detect --json's for the same model and threshold; UINT8 pixels in both encodings equal
    the same pixels sent as a PNG;
  - malformed JSON, wrong datatype or shape, an unknown model, a body above --max-body-bytes and a
    passed `timeout` get their 4xx / 5xx with a reason, and the server goes on; a burst beyond
    --max-queue gets 503 at once for the requests beyond it;
  - the system shared-memory extension (--allow-client-shm): register, status and unregister routes, and
    pixels in a registered region give the inline pixels' detections; off (the second server): 403;
  - faults (a second server): a model whose emu device fails mid-run (fail-after) answers every request
    through its CPU instance, /metrics shows the instance out of rotation and the retry; a model whose
    only device fails answers 503 and turns its readiness (and the server's) false.

Both servers must exit 0 on SIGTERM at the end.
Usage: rest_conformance_test.py --build-dir BUILD --shared-dir SHARED   (FPGACNN_SHARED_DIR overrides)
"""
import argparse
import base64
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest
from multiprocessing import shared_memory

import protocol_samples
from protocol_samples import (DARKNET_DATA, SAMPLES, SKIPPED, detection_objects, free_port, png_bytes, raw_bytes,
                              split_raw_bytes, test_pixels, yolo_lite_files)

THRESH = 0.25
TOKEN = "rest-conformance-token"
MAX_BODY = 4 << 20

ARGS = None
SCRATCH = None


def model_json(**settings):
    cfg, weights, names = yolo_lite_files(ARGS.shared_dir)
    entry = {"cfg": cfg, "weights": weights, "names": names, "thresh": THRESH}
    entry.update(settings)
    return entry


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        length = self.headers.get("inference-header-content-length")
        return json.loads(self.body[:int(length)] if length else self.body)


class ServeProcess:
    """fpgacnn-serve on a repository of `models` (folder name -> model.json), with a bearer token, on
    free loopback ports; stop() sends SIGTERM, which must drain and exit 0."""

    def __init__(self, name, models, extra_flags=()):
        root = os.path.join(SCRATCH, name)
        for model, settings in models.items():
            os.makedirs(os.path.join(root, "repository", model))
            with open(os.path.join(root, "repository", model, "model.json"), "w") as f:
                json.dump(settings, f)
        token_file = os.path.join(root, "token")
        with open(token_file, "w") as f:
            f.write(TOKEN + "\n")
        self.http_port = free_port()
        self.base = f"http://127.0.0.1:{self.http_port}"
        self.scratch = root
        self.log = open(os.path.join(root, "serve.log"), "w+")
        self.process = subprocess.Popen(
            [os.path.join(ARGS.build_dir, "apps", "serve", "fpgacnn-serve"),
             "--model-repository", os.path.join(root, "repository"), "--grpc-port", str(free_port()),
             "--http-port", str(self.http_port), "--auth-token-file", token_file,
             "--max-body-bytes", str(MAX_BODY), *extra_flags],
            stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if self.process.poll() is not None:
                raise RuntimeError(f"fpgacnn-serve exited with {self.process.returncode}: {self.output()}")
            if self.curl("GET", "/v2/health/ready", token=False, timeout=2).status == 200:
                return
            time.sleep(0.2)
        self.process.kill()
        raise RuntimeError(f"fpgacnn-serve not ready after 120 s: {self.output()}")

    def curl(self, method, path, body=None, headers=(), token=True, timeout=120):
        """One request with curl; the status (0: no answer), the headers (lower-case names), the body."""
        out = os.path.join(self.scratch, "curl.body")
        head = os.path.join(self.scratch, "curl.head")
        command = ["curl", "-sS", "-X", method, "-o", out, "-D", head, "-w", "%{http_code}", "--max-time",
                   str(timeout), "-H", "Expect:"]
        if token:
            command += ["-H", f"Authorization: Bearer {TOKEN}"]
        for header in headers:
            command += ["-H", header]
        if body is not None:
            data = os.path.join(self.scratch, "curl.data")
            with open(data, "wb") as f:
                f.write(body)
            command += ["--data-binary", f"@{data}"]
        run = subprocess.run(command + [self.base + path], capture_output=True, text=True)
        status = int(run.stdout or 0) if run.stdout.isdigit() else 0
        answer_headers = {}
        if os.path.exists(head):
            with open(head, "rb") as f:
                for line in f.read().decode("latin-1").splitlines()[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        answer_headers[name.strip().lower()] = value.strip()
        content = b""
        if os.path.exists(out):
            with open(out, "rb") as f:
                content = f.read()
            os.remove(out)
        return Answer(status, answer_headers, content)

    def metrics(self):
        return self.curl("GET", "/metrics").body.decode()

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def infer_body(request_id, datatype, shape, payload, binary, extra=None):
    """An infer request: (body, headers). `payload`: the file (BYTES) or the pixels (UINT8)."""
    message = dict(extra or {})
    message["id"] = request_id
    tensor = {"name": "image", "datatype": datatype, "shape": shape}
    tail = b""
    if binary:
        tail = raw_bytes([payload]) if datatype == "BYTES" else payload
        tensor["parameters"] = {"binary_data_size": len(tail)}
    elif datatype == "BYTES":
        tensor["data"] = [{"b64": base64.b64encode(payload).decode()}]
    else:
        tensor["data"] = list(payload)
    message["inputs"] = [tensor]
    text = json.dumps(message).encode()
    if binary:
        return text + tail, ["Content-Type: application/octet-stream", f"Inference-Header-Content-Length: {len(text)}"]
    return text, ["Content-Type: application/json"]


def detections_of(answer):
    """fpgacnn-detect --json's detection objects from an infer answer (JSON data or binary outputs)."""
    message = answer.json()
    length = answer.headers.get("inference-header-content-length")
    at = int(length) if length else 0
    outputs = {}
    for output in message["outputs"]:
        size = output.get("parameters", {}).get("binary_data_size")
        if size is None:
            outputs[output["name"]] = output["data"]
            continue
        raw = answer.body[at:at + size]
        at += size
        count = size // 4
        if output["name"] in ("boxes", "scores"):
            outputs[output["name"]] = list(struct.unpack(f"<{count}f", raw))
        elif output["name"] == "classes":
            outputs[output["name"]] = list(struct.unpack(f"<{count}i", raw))
        else:
            outputs[output["name"]] = [label.decode() for label in split_raw_bytes(raw)]
    return detection_objects(outputs["boxes"], outputs["scores"], outputs["classes"], outputs["labels"])


def detect_json(images, thresh):
    return protocol_samples.detect_json(ARGS.build_dir, ARGS.shared_dir, images, thresh)


def metric(text, name, **labels):
    """The value of one sample of the Prometheus text (None when absent)."""
    for line in text.splitlines():
        match = re.match(r"^(\w+)(\{[^}]*\})? (\S+)$", line)
        if not match or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(match.group(3))
    return None


class Conformance(unittest.TestCase):
    server = None

    def assert_same_detections(self, got, expected, what):
        protocol_samples.assert_same_detections(self, got, expected, what)

    def infer(self, model, body_headers, **kwargs):
        body, headers = body_headers
        return self.server.curl("POST", f"/v2/models/{model}/infer", body, headers, **kwargs)

    def assert_error(self, answer, status, reason):
        self.assertEqual(answer.status, status, answer.body[:300])
        self.assertIn(reason, json.loads(answer.body)["error"])

    def test_routes(self):
        s = self.server
        for path in ("/v2/health/live", "/v2/health/ready"):
            self.assertEqual(s.curl("GET", path, token=False).status, 200, path)
        self.assertEqual(s.curl("GET", "/v2/health/live").json(), {"live": True})
        for path in ("/v2/models/yolo-lite/ready", "/v2/models/yolo-lite/versions/1/ready"):
            self.assertEqual(s.curl("GET", path).status, 200, path)
        server = s.curl("GET", "/v2").json()
        self.assertEqual(server["name"], "fpgacnn")
        self.assertTrue(server["version"])
        for path in ("/v2/models/yolo-lite", "/v2/models/yolo-lite/versions/1"):
            model = s.curl("GET", path).json()
            self.assertEqual((model["name"], model["versions"], model["platform"]), ("yolo-lite", ["1"], "fpgacnn_darknet"))
            self.assertEqual([(t["name"], t["datatype"], t["shape"]) for t in model["outputs"]],
                             [("boxes", "FP32", [-1, 4]), ("scores", "FP32", [-1]), ("classes", "INT32", [-1]),
                              ("labels", "BYTES", [-1])])
        metrics = s.curl("GET", "/metrics")
        self.assertEqual(metrics.status, 200)
        self.assertIn("text/plain", metrics.headers["content-type"])
        self.assertIsNotNone(metric(metrics.body.decode(), "fpgacnn_queue_depth", model="yolo-lite"))
        for path in ("/v2", "/v2/models/yolo-lite", "/v2/models/yolo-lite/ready", "/metrics"):
            self.assertEqual(s.curl("GET", path, token=False).status, 401, path)
            self.assertEqual(s.curl("GET", path, token=False, headers=["Authorization: Bearer nope"]).status, 401)
        self.assertEqual(s.curl("GET", "/v2/models/yolo-lite/infer").status, 405)
        self.assertEqual(s.curl("GET", "/v3").status, 404)

    def test_sample_images_equal_fpgacnn_detect(self):
        images = [os.path.join(DARKNET_DATA, name) for name in SAMPLES]
        expected = detect_json(images, THRESH)
        found = 0
        for index, image in enumerate(images):
            with open(image, "rb") as f:
                data = f.read()
            for binary in (False, True):
                # Outputs as JSON data for half of the images, as binary data for the others.
                extra = {"parameters": {"binary_data_output": True}} if index % 2 else None
                answer = self.infer("yolo-lite", infer_body(image, "BYTES", [1], data, binary, extra))
                self.assertEqual(answer.status, 200, answer.body[:300])
                message = answer.json()
                self.assertEqual((message["id"], message["model_name"]), (image, "yolo-lite"))
                got = detections_of(answer)
                self.assert_same_detections(got, expected[image], f"{image} (binary input: {binary})")
                found += len(got)
        self.assertGreater(found, 0)

    def test_pixels_equal_the_same_pixels_encoded(self):
        width, height = 320, 240
        pixels = test_pixels(width, height)
        png = os.path.join(SCRATCH, "pattern.png")
        with open(png, "wb") as f:
            f.write(png_bytes(width, height, pixels))
        expected = detect_json([png], 0.05)[png]
        self.assertGreater(len(expected), 0, "the test picture has nothing to compare at thresh 0.05")
        with open(png, "rb") as f:
            encoded = f.read()
        low = {"parameters": {"thresh": 0.05}}
        for binary in (False, True):
            answer = self.infer("yolo-lite", infer_body("px", "UINT8", [height, width, 3], pixels, binary, low))
            self.assertEqual(answer.status, 200, answer.body[:300])
            self.assert_same_detections(detections_of(answer), expected, f"UINT8 pixels (binary: {binary})")
        answer = self.infer("yolo-lite", infer_body("png", "BYTES", [1], encoded, True, low))
        self.assert_same_detections(detections_of(answer), expected, "the PNG of the pixels")

    def test_errors_have_their_status_and_reason(self):
        with open(os.path.join(DARKNET_DATA, "dog.jpg"), "rb") as f:
            dog = f.read()
        json_header = ["Content-Type: application/json"]
        self.assert_error(self.infer("yolo-lite", (b"{\"inputs\": [", json_header)), 400, "not valid JSON")
        self.assert_error(self.infer("yolo-lite", infer_body("f", "FP32", [1], dog, True)), 400, "datatype 'FP32'")
        self.assert_error(self.infer("yolo-lite", infer_body("s", "UINT8", [2, 2], b"\0" * 4, True)), 400,
                          "[H, W, 3]")
        self.assert_error(self.infer("yolo-nope", infer_body("u", "BYTES", [1], dog, True)), 404, "yolo-nope")
        self.assert_error(self.infer("yolo-lite", (b" " * (MAX_BODY + 1), json_header)), 413, "--max-body-bytes")
        self.assert_error(self.infer("yolo-lite", infer_body("t", "BYTES", [1], dog, True,
                                                             {"parameters": {"timeout": 1e-6}})), 504, "deadline")
        self.assert_error(self.infer("yolo-lite", infer_body("a", "BYTES", [1], dog, True), token=False), 401,
                          "Bearer")
        self.assertEqual(self.server.curl("GET", "/v2/health/live").status, 200)

    def test_shared_memory_routes_and_inputs(self):
        s = self.server
        self.assertIn("system_shared_memory", s.curl("GET", "/v2").json()["extensions"])
        width, height = 320, 240
        pixels = test_pixels(width, height)
        memory = shared_memory.SharedMemory(create=True, size=100 + len(pixels))
        try:
            memory.buf[100:100 + len(pixels)] = pixels
            key = "/" + memory.name
            json_header = ["Content-Type: application/json"]
            register = json.dumps({"key": key, "offset": 100, "byte_size": len(pixels)}).encode()
            answer = s.curl("POST", "/v2/systemsharedmemory/region/rest/register", register, json_header)
            self.assertEqual(answer.status, 200, answer.body[:300])
            self.assertEqual(s.curl("GET", "/v2/systemsharedmemory/status").json(),
                             [{"name": "rest", "key": key, "offset": 100, "byte_size": len(pixels)}])
            self.assertEqual(s.curl("GET", "/v2/systemsharedmemory/region/rest/status").status, 200)
            self.assert_error(s.curl("POST", "/v2/systemsharedmemory/region/rest/register", register, json_header),
                              400, "already registered")
            self.assertEqual(s.curl("POST", "/v2/systemsharedmemory/region/rest/register", register, json_header,
                                    token=False).status, 401)
            low = {"parameters": {"thresh": 0.05}}
            inline = self.infer("yolo-lite", infer_body("in", "UINT8", [height, width, 3], pixels, True, low))
            self.assertEqual(inline.status, 200, inline.body[:300])
            message = dict(low, id="shm", inputs=[{
                "name": "image", "datatype": "UINT8", "shape": [height, width, 3],
                "parameters": {"shared_memory_region": "rest", "shared_memory_byte_size": len(pixels)}}])
            shared = self.infer("yolo-lite", (json.dumps(message).encode(), json_header))
            self.assertEqual(shared.status, 200, shared.body[:300])
            self.assertGreater(len(detections_of(inline)), 0)
            self.assert_same_detections(detections_of(shared), detections_of(inline), "pixels through shared memory")
            message["inputs"][0]["parameters"]["shared_memory_offset"] = 1
            self.assert_error(self.infer("yolo-lite", (json.dumps(message).encode(), json_header)), 400,
                              "outside region 'rest'")
            self.assertEqual(s.curl("POST", "/v2/systemsharedmemory/region/rest/unregister").status, 200)
            self.assertEqual(s.curl("GET", "/v2/systemsharedmemory/status").json(), [])
            self.assert_error(s.curl("GET", "/v2/systemsharedmemory/region/rest/status"), 404, "rest")
            self.assert_error(self.infer("yolo-lite", (json.dumps(message).encode(), json_header)), 404, "rest")
            self.assertEqual(s.curl("GET", "/v2/systemsharedmemory/region/rest/register").status, 405)
        finally:
            memory.close()
            memory.unlink()

    def test_a_burst_beyond_the_queue_is_refused_at_once(self):
        # --max-queue 2: 16 requests at once from one curl (--parallel); those beyond the queue get 503.
        body, headers = infer_body("burst", "BYTES", [1], open(os.path.join(DARKNET_DATA, "dog.jpg"), "rb").read(),
                                   True)
        data = os.path.join(SCRATCH, "burst.data")
        with open(data, "wb") as f:
            f.write(body)
        url = self.server.base + "/v2/models/yolo-lite/infer"
        one = ["-H", "Expect:", "-H", f"Authorization: Bearer {TOKEN}", *sum((["-H", h] for h in headers), []),
               "--data-binary", f"@{data}", "-o", "/dev/null", "-w", "%{http_code}\\n", url]
        command = ["curl", "-sS", "--parallel", "--parallel-immediate", "--parallel-max", "16", "--max-time", "120",
                   *one]
        for _ in range(15):
            command += ["--next", *one]
        run = subprocess.run(command, capture_output=True, text=True, timeout=300)
        codes = run.stdout.split()
        self.assertEqual(len(codes), 16, f"{codes} {run.stderr}")
        self.assertTrue(set(codes) <= {"200", "503"}, codes)
        self.assertIn("503", codes)
        self.assertIn("200", codes)
        rejected = metric(self.server.metrics(), "fpgacnn_requests_rejected_total", model="yolo-lite")
        self.assertEqual(rejected, codes.count("503"))


class Faults(unittest.TestCase):
    server = None

    def infer_dog(self, model, request_id):
        with open(os.path.join(DARKNET_DATA, "dog.jpg"), "rb") as f:
            body, headers = infer_body(request_id, "BYTES", [1], f.read(), True)
        return self.server.curl("POST", f"/v2/models/{model}/infer", body, headers)

    def test_a_device_failing_mid_run_moves_its_requests_to_the_other_instance(self):
        answers = [self.infer_dog("faulty", f"f{i}") for i in range(8)]
        self.assertEqual([a.status for a in answers], [200] * 8, [a.body[:200] for a in answers])
        first = detections_of(answers[0])
        self.assertGreater(len(first), 0)
        for answer in answers[1:]:
            self.assertEqual(detections_of(answer), first, "the emu and CPU int16 paths must agree bit for bit")
        metrics = self.server.metrics()
        self.assertEqual(metric(metrics, "fpgacnn_instance_in_rotation", model="faulty", device="emu:fail-after=30"), 0)
        self.assertEqual(metric(metrics, "fpgacnn_instance_in_rotation", model="faulty", device="cpu"), 1)
        self.assertEqual(metric(metrics, "fpgacnn_requests_retried_total", model="faulty"), 1)
        self.assertEqual(metric(metrics, "fpgacnn_request_failures_total", model="faulty"), 0)
        self.assertEqual(self.server.curl("GET", "/v2/models/faulty/ready").status, 200)

    def test_shared_memory_is_refused_without_allow_client_shm(self):
        # This server was started without --allow-client-shm.
        self.assertNotIn("system_shared_memory", self.server.curl("GET", "/v2").json()["extensions"])
        answer = self.server.curl("POST", "/v2/systemsharedmemory/region/r/register",
                                  json.dumps({"key": "/fpgacnn-any", "byte_size": 16}).encode(),
                                  ["Content-Type: application/json"])
        self.assertEqual(answer.status, 403, answer.body[:300])
        self.assertIn("--allow-client-shm", json.loads(answer.body)["error"])

    def test_a_model_whose_only_device_fails_is_unavailable_and_not_ready(self):
        answer = self.infer_dog("dead", "d")
        self.assertEqual(answer.status, 503, answer.body[:300])
        self.assertIn("injected failure", json.loads(answer.body)["error"])
        self.assertEqual(self.server.curl("GET", "/v2/models/dead/ready").status, 400)
        self.assertEqual(self.server.curl("GET", "/v2/health/ready", token=False).status, 400)
        self.assertEqual(self.server.curl("GET", "/v2/health/live", token=False).status, 200)
        self.assertEqual(self.infer_dog("faulty", "still").status, 200)


def main():
    global ARGS, SCRATCH
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--shared-dir", default="")
    ARGS, rest = parser.parse_known_args()
    ARGS.shared_dir = os.environ.get("FPGACNN_SHARED_DIR") or ARGS.shared_dir
    if not os.path.isdir(os.path.join(ARGS.shared_dir, "models", "yolo-lite-voc")):
        print("shared/models not found (--shared-dir / FPGACNN_SHARED_DIR); skipping")
        return SKIPPED
    if shutil.which("curl") is None:
        print("curl not found (apt-get install curl); skipping")
        return SKIPPED
    ok = True
    with tempfile.TemporaryDirectory() as scratch:
        SCRATCH = scratch
        servers = {
            Conformance: ("conformance", {"yolo-lite": model_json(device="cpu", precision="float")},
                          ["--max-queue", "2", "--allow-client-shm"]),
            Faults: ("faults", {"faulty": model_json(device=["emu:fail-after=30", "cpu"], precision="int16",
                                                    instances=2),
                                "dead": model_json(device="emu:fail-after=0", precision="int16")}, []),
        }
        for suite, (name, models, flags) in servers.items():
            server = ServeProcess(name, models, flags)
            try:
                suite.server = server
                tests = unittest.defaultTestLoader.loadTestsFromTestCase(suite)
                ok = unittest.TextTestRunner(verbosity=2).run(tests).wasSuccessful() and ok
            finally:
                code = server.stop()
            if code != 0:
                print(f"fpgacnn-serve ({name}) exited with {code} after SIGTERM (expected 0):\n{server.output()}")
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
