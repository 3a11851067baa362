#!/usr/bin/env python3
"""fpgacnn-serve's gRPC conformance (issue 14): a Python client generated at test time from
apps/serve/grpc_service.proto with grpc_tools.protoc (Debian's python3-grpc-tools, python3-grpcio),
as any Open Inference Protocol user would make one, talks to the real fpgacnn-serve binary:

  - every RPC of inference.GRPCInferenceService (ServerLive, ServerReady, ModelReady, ServerMetadata,
    ModelMetadata, ModelInfer) answers as the protocol says;
  - the detections of darknet's sample images, sent as encoded files (BYTES [1], raw and typed
    contents), equal fpgacnn-detect --json's for the same model and thresholds;
  - the same pixels as UINT8 [H, W, 3] and as an encoded PNG give the same detections, equal to
    fpgacnn-detect's on that PNG;
  - unknown model NOT_FOUND, wrong datatype / shape INVALID_ARGUMENT with a reason, a bearer token;
  - the system shared-memory extension (--allow-client-shm): a region of a POSIX shared-memory object
    the test creates, registered with SystemSharedMemoryRegister, gives the same detections as the
    bytes sent in the request (pixels and an encoded file); status, unregister and their errors.

The server runs as a user starts it (--model-repository, --grpc-port, --http-port, --auth-token-file,
--allow-client-shm)
and must exit 0 on SIGTERM at the end.
Usage: grpc_conformance_test.py --build-dir BUILD --shared-dir SHARED   (ctest passes both;
FPGACNN_SHARED_DIR overrides the latter, as for the C++ tests)
"""
import argparse
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest
from multiprocessing import shared_memory

import grpc
from grpc_tools import protoc

from protocol_samples import detect_json as protocol_samples_detect_json
from protocol_samples import (DARKNET_DATA, SAMPLES, SKIPPED, assert_same_detections, detection_objects,
                              free_port, png_bytes, raw_bytes, split_raw_bytes, test_pixels, yolo_lite_files)

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO_DIR = os.path.join(SOURCE_DIR, "apps", "serve")
THRESH = 0.25  # the repository's model.json and fpgacnn-detect --thresh: the same value on both sides
TOKEN = "conformance-token"

ARGS = None  # parsed command line
pb = None  # the generated grpc_service_pb2
pb_grpc = None  # the generated grpc_service_pb2_grpc


def generate_client(out_dir):
    """grpc_service_pb2(_grpc).py from the project's .proto, imported as modules."""
    global pb, pb_grpc
    os.makedirs(out_dir, exist_ok=True)
    status = protoc.main(["grpc_tools.protoc", f"--proto_path={PROTO_DIR}", f"--python_out={out_dir}",
                          f"--grpc_python_out={out_dir}", os.path.join(PROTO_DIR, "grpc_service.proto")])
    if status != 0:
        raise RuntimeError(f"grpc_tools.protoc failed on {PROTO_DIR}/grpc_service.proto ({status})")
    sys.path.insert(0, out_dir)
    import grpc_service_pb2
    import grpc_service_pb2_grpc
    pb, pb_grpc = grpc_service_pb2, grpc_service_pb2_grpc


def infer_request(name, datatype, shape, raw, request_id, typed=False, thresh=None):
    request = pb.ModelInferRequest(model_name="yolo-lite", id=request_id)
    tensor = request.inputs.add(name=name, datatype=datatype, shape=shape)
    if typed and datatype == "BYTES":
        tensor.contents.bytes_contents.extend(split_raw_bytes(raw))
    elif typed:
        tensor.contents.uint_contents.extend(raw)
    else:
        request.raw_input_contents.append(raw)
    if thresh is not None:
        request.parameters["thresh"].double_param = thresh
    return request


def detections_of(response):
    """fpgacnn-detect --json's detection objects from a ModelInferResponse's raw outputs."""
    outputs = {t.name: (t, raw) for t, raw in zip(response.outputs, response.raw_output_contents)}
    count = list(outputs["scores"][0].shape)[0]
    boxes = struct.unpack(f"<{4 * count}f", outputs["boxes"][1])
    scores = struct.unpack(f"<{count}f", outputs["scores"][1])
    classes = struct.unpack(f"<{count}i", outputs["classes"][1])
    labels = [label.decode() for label in split_raw_bytes(outputs["labels"][1])]
    return detection_objects(boxes, scores, classes, labels)


class ServeProcess:
    """fpgacnn-serve on a repository holding YOLO-LITE VOC as `yolo-lite` (float on the CPU, thresh
    THRESH), with a bearer token, on free loopback ports; stop() sends SIGTERM, which must drain and
    exit 0."""

    def __init__(self, scratch):
        cfg, weights, names = yolo_lite_files(ARGS.shared_dir)
        folder = os.path.join(scratch, "repository", "yolo-lite")
        os.makedirs(folder)
        with open(os.path.join(folder, "model.json"), "w") as f:
            json.dump({"cfg": cfg, "weights": weights, "names": names, "device": "cpu", "precision": "float",
                       "thresh": THRESH}, f)
        token_file = os.path.join(scratch, "token")
        with open(token_file, "w") as f:
            f.write(TOKEN + "\n")
        grpc_port, http_port = free_port(), free_port()
        self.grpc_address = f"127.0.0.1:{grpc_port}"
        self.log = open(os.path.join(scratch, "serve.log"), "w+")
        self.process = subprocess.Popen(
            [os.path.join(ARGS.build_dir, "apps", "serve", "fpgacnn-serve"),
             "--model-repository", os.path.dirname(folder), "--grpc-port", str(grpc_port),
             "--http-port", str(http_port), "--auth-token-file", token_file, "--allow-client-shm"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.wait_ready()

    def wait_ready(self):
        """ServerReady true, or the server's own words when it exits or never gets ready."""
        for _ in range(600):
            if self.process.poll() is not None:
                raise RuntimeError(f"fpgacnn-serve exited with {self.process.returncode}: {self.output()}")
            # A new channel each time: a channel that found nobody listening waits out a reconnect backoff.
            with grpc.insecure_channel(self.grpc_address) as channel:
                try:
                    if pb_grpc.GRPCInferenceServiceStub(channel).ServerReady(pb.ServerReadyRequest(), timeout=1).ready:
                        return
                except grpc.RpcError:
                    pass
            time.sleep(0.2)
        self.process.kill()
        raise RuntimeError(f"fpgacnn-serve not ready after 120 s: {self.output()}")

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        """SIGTERM; returns the exit code (0: drained and exited as the issue asks)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def detect_json(images, thresh):
    return protocol_samples_detect_json(ARGS.build_dir, ARGS.shared_dir, images, thresh)


class Conformance(unittest.TestCase):
    server = None
    stub = None

    def setUp(self):
        self.metadata = [("authorization", f"Bearer {TOKEN}")]

    def call(self, method, request, metadata=None):
        return getattr(self.stub, method)(request, timeout=120,
                                          metadata=self.metadata if metadata is None else metadata)

    def assert_code(self, code, method, request, metadata=None):
        with self.assertRaises(grpc.RpcError) as caught:
            self.call(method, request, metadata)
        self.assertEqual(caught.exception.code(), code, caught.exception.details())
        return caught.exception.details()

    def assert_same_detections(self, got, expected, what):
        assert_same_detections(self, got, expected, what)

    def test_health_and_metadata(self):
        self.assertTrue(self.call("ServerLive", pb.ServerLiveRequest(), metadata=[]).live)
        self.assertTrue(self.call("ServerReady", pb.ServerReadyRequest(), metadata=[]).ready)
        self.assertTrue(self.call("ModelReady", pb.ModelReadyRequest(name="yolo-lite")).ready)
        server = self.call("ServerMetadata", pb.ServerMetadataRequest())
        self.assertEqual(server.name, "fpgacnn")
        self.assertTrue(server.version)
        model = self.call("ModelMetadata", pb.ModelMetadataRequest(name="yolo-lite", version="1"))
        self.assertEqual((model.name, list(model.versions), model.platform), ("yolo-lite", ["1"], "fpgacnn_darknet"))
        self.assertEqual([(t.name, t.datatype, list(t.shape)) for t in model.inputs], [("image", "BYTES", [1])])
        self.assertEqual([(t.name, t.datatype, list(t.shape)) for t in model.outputs],
                         [("boxes", "FP32", [-1, 4]), ("scores", "FP32", [-1]), ("classes", "INT32", [-1]),
                          ("labels", "BYTES", [-1])])

    def test_sample_images_equal_fpgacnn_detect(self):
        images = [os.path.join(DARKNET_DATA, name) for name in SAMPLES]
        expected = detect_json(images, THRESH)
        found = 0
        for image in images:
            with open(image, "rb") as f:
                raw = raw_bytes([f.read()])
            for typed in (False, True):
                response = self.call("ModelInfer", infer_request("image", "BYTES", [1], raw, image, typed))
                self.assertEqual(response.id, image)
                self.assertEqual(response.model_name, "yolo-lite")
                got = detections_of(response)
                self.assert_same_detections(got, expected[image], f"{image} (typed contents: {typed})")
                found += len(got)
        self.assertGreater(found, 0)

    def test_pixels_equal_the_same_pixels_encoded(self):
        width, height = 320, 240
        pixels = test_pixels(width, height)
        with tempfile.TemporaryDirectory() as folder:
            png = os.path.join(folder, "pattern.png")
            with open(png, "wb") as f:
                f.write(png_bytes(width, height, pixels))
            # A low threshold, so the synthetic picture has detections to compare.
            expected = detect_json([png], 0.05)[png]
            self.assertGreater(len(expected), 0, "the test picture has nothing to compare at thresh 0.05")
            with open(png, "rb") as f:
                encoded = raw_bytes([f.read()])
        for typed in (False, True):
            response = self.call("ModelInfer", infer_request("image", "UINT8", [height, width, 3], pixels, "px",
                                                             typed, thresh=0.05))
            self.assert_same_detections(detections_of(response), expected, f"UINT8 pixels (typed: {typed})")
        response = self.call("ModelInfer", infer_request("image", "BYTES", [1], encoded, "png", thresh=0.05))
        self.assert_same_detections(detections_of(response), expected, "the PNG of the pixels")

    def test_errors_have_their_codes_and_reasons(self):
        with open(os.path.join(DARKNET_DATA, "dog.jpg"), "rb") as f:
            raw = raw_bytes([f.read()])
        unknown = infer_request("image", "BYTES", [1], raw, "u")
        unknown.model_name = "yolo-nope"
        self.assertIn("yolo-nope", self.assert_code(grpc.StatusCode.NOT_FOUND, "ModelInfer", unknown))
        self.assert_code(grpc.StatusCode.NOT_FOUND, "ModelMetadata", pb.ModelMetadataRequest(name="yolo-nope"))
        details = self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, "ModelInfer",
                                   infer_request("image", "FP32", [1], raw, "f"))
        self.assertIn("datatype 'FP32'", details)
        details = self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, "ModelInfer",
                                   infer_request("image", "UINT8", [2, 2], b"\0" * 4, "s"))
        self.assertIn("[H, W, 3]", details)
        self.assert_code(grpc.StatusCode.UNAUTHENTICATED, "ModelMetadata", pb.ModelMetadataRequest(name="yolo-lite"),
                         metadata=[])
        self.assert_code(grpc.StatusCode.UNAUTHENTICATED, "ModelInfer", infer_request("image", "BYTES", [1], raw, "t"),
                         metadata=[("authorization", "Bearer wrong")])
        self.assertTrue(self.call("ServerLive", pb.ServerLiveRequest()).live)

    def test_shared_memory_inputs_equal_the_bytes_sent_inline(self):
        self.assertIn("system_shared_memory", self.call("ServerMetadata", pb.ServerMetadataRequest()).extensions)
        width, height = 320, 240
        pixels = test_pixels(width, height)
        with open(os.path.join(DARKNET_DATA, "dog.jpg"), "rb") as f:
            dog = raw_bytes([f.read()])
        # The region starts 64 bytes into the object (not on a page), the pixels 36 bytes into the region.
        region_offset, pixels_at = 64, 36
        dog_at = pixels_at + len(pixels)
        memory = shared_memory.SharedMemory(create=True, size=region_offset + dog_at + len(dog))
        try:
            memory.buf[region_offset + pixels_at:region_offset + dog_at] = pixels
            memory.buf[region_offset + dog_at:region_offset + dog_at + len(dog)] = dog
            key = "/" + memory.name
            region_size = dog_at + len(dog)
            self.call("SystemSharedMemoryRegister", pb.SystemSharedMemoryRegisterRequest(
                name="conformance", key=key, offset=region_offset, byte_size=region_size))
            status = self.call("SystemSharedMemoryStatus", pb.SystemSharedMemoryStatusRequest()).regions
            self.assertEqual([(r.name, r.key, r.offset, r.byte_size) for r in status.values()],
                             [("conformance", key, region_offset, region_size)])

            def from_region(request_id, datatype, shape, offset, size, thresh=None):
                request = pb.ModelInferRequest(model_name="yolo-lite", id=request_id)
                tensor = request.inputs.add(name="image", datatype=datatype, shape=shape)
                tensor.parameters["shared_memory_region"].string_param = "conformance"
                tensor.parameters["shared_memory_offset"].int64_param = offset
                tensor.parameters["shared_memory_byte_size"].int64_param = size
                if thresh is not None:
                    request.parameters["thresh"].double_param = thresh
                return request

            inline = self.call("ModelInfer", infer_request("image", "UINT8", [height, width, 3], pixels, "in",
                                                           thresh=0.05))
            shared = self.call("ModelInfer", from_region("shm", "UINT8", [height, width, 3], pixels_at, len(pixels),
                                                         0.05))
            self.assertEqual(shared.id, "shm")
            self.assertGreater(len(detections_of(inline)), 0)
            self.assert_same_detections(detections_of(shared), detections_of(inline), "pixels through shared memory")
            dog_path = os.path.join(DARKNET_DATA, "dog.jpg")
            encoded = self.call("ModelInfer", from_region("dog", "BYTES", [1], dog_at, len(dog)))
            self.assert_same_detections(detections_of(encoded), detect_json([dog_path], THRESH)[dog_path],
                                        "dog.jpg through shared memory")

            # Errors: a range beyond the region, a name in use, an unknown region, contents and region at once.
            details = self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, "ModelInfer",
                                       from_region("far", "BYTES", [1], dog_at, len(dog) + 1))
            self.assertIn("outside region 'conformance'", details)
            self.assert_code(grpc.StatusCode.ALREADY_EXISTS, "SystemSharedMemoryRegister",
                             pb.SystemSharedMemoryRegisterRequest(name="conformance", key=key, byte_size=16))
            details = self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, "SystemSharedMemoryRegister",
                                       pb.SystemSharedMemoryRegisterRequest(name="nokey", key="/fpgacnn-no-such-object",
                                                                            byte_size=16))
            self.assertIn("cannot open", details)
            both = from_region("both", "BYTES", [1], dog_at, len(dog))
            both.raw_input_contents.append(dog)
            self.assert_code(grpc.StatusCode.INVALID_ARGUMENT, "ModelInfer", both)
            self.assert_code(grpc.StatusCode.UNAUTHENTICATED, "SystemSharedMemoryStatus",
                             pb.SystemSharedMemoryStatusRequest(), metadata=[])

            self.call("SystemSharedMemoryUnregister", pb.SystemSharedMemoryUnregisterRequest(name="conformance"))
            self.assertEqual(len(self.call("SystemSharedMemoryStatus", pb.SystemSharedMemoryStatusRequest()).regions), 0)
            self.assert_code(grpc.StatusCode.NOT_FOUND, "SystemSharedMemoryStatus",
                             pb.SystemSharedMemoryStatusRequest(name="conformance"))
            details = self.assert_code(grpc.StatusCode.NOT_FOUND, "ModelInfer",
                                       from_region("gone", "BYTES", [1], dog_at, len(dog)))
            self.assertIn("conformance", details)
        finally:
            memory.close()
            memory.unlink()


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--shared-dir", default="")
    ARGS, rest = parser.parse_known_args()
    # As tests/support/test_paths.cpp: the environment overrides the configured folder.
    ARGS.shared_dir = os.environ.get("FPGACNN_SHARED_DIR") or ARGS.shared_dir
    if not os.path.isdir(os.path.join(ARGS.shared_dir, "models", "yolo-lite-voc")):
        print("shared/models not found (--shared-dir / FPGACNN_SHARED_DIR); skipping")
        return SKIPPED
    with tempfile.TemporaryDirectory() as scratch:
        generate_client(os.path.join(scratch, "client"))
        server = ServeProcess(scratch)
        try:
            with grpc.insecure_channel(server.grpc_address) as channel:
                Conformance.stub = pb_grpc.GRPCInferenceServiceStub(channel)
                result = unittest.main(argv=[sys.argv[0], *rest], exit=False).result
        finally:
            code = server.stop()
        if code != 0:
            print(f"fpgacnn-serve exited with {code} after SIGTERM (expected 0):\n{server.output()}")
            return 1
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
