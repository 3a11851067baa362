"""What the Open Inference Protocol end-to-end tests of fpgacnn-serve share (grpc_conformance_test.py,
rest_conformance_test.py): the raw BYTES encoding, a deterministic test picture and its PNG (zlib only,
no imaging library), a free loopback port, fpgacnn-detect --json as the reference, and the comparison
of detections against it."""
import json
import os
import socket
import struct
import subprocess
import zlib

DARKNET_DATA = "/usr/share/darknet/data"
SAMPLES = ["dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "kite.jpg", "person.jpg", "scream.jpg"]
MODEL_FILES = ("tiny-yolov2-trial3-noBatch.cfg", "tiny-yolov2-trial3-noBatch.weights", "voc.names")
SKIPPED = 77  # ctest's SKIP_RETURN_CODE of these tests


def raw_bytes(elements):
    """The protocol's raw BYTES encoding: each element a 4-byte little-endian length, then its bytes."""
    return b"".join(struct.pack("<I", len(e)) + e for e in elements)


def split_raw_bytes(raw):
    elements, at = [], 0
    while at < len(raw):
        (length,) = struct.unpack_from("<I", raw, at)
        elements.append(raw[at + 4:at + 4 + length])
        at += 4 + length
    return elements


def png_bytes(width, height, rgb):
    """An 8-bit RGB PNG of the pixels."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + rgb[y * width * 3:(y + 1) * width * 3] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def test_pixels(width=320, height=240):
    """A deterministic picture with edges and colour (what the pixel form sends)."""
    out = bytearray()
    for y in range(height):
        for x in range(width):
            block = ((x // 40) + (y // 40)) % 3
            out += bytes(((x * 255) // width if block == 0 else 40, (y * 255) // height if block == 1 else 90,
                          200 if block == 2 else (x ^ y) & 0xFF))
    return bytes(out)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def yolo_lite_files(shared_dir):
    """cfg, weights and names of YOLO-LITE VOC under shared/models."""
    model = os.path.join(shared_dir, "models", "yolo-lite-voc")
    return [os.path.join(model, name) for name in MODEL_FILES]


def detect_json(build_dir, shared_dir, images, thresh):
    """fpgacnn-detect --json on the images (float on the CPU): image -> its detection objects."""
    cfg, weights, names = yolo_lite_files(shared_dir)
    command = [os.path.join(build_dir, "apps", "detect", "fpgacnn-detect"), "--cfg", cfg, "--weights", weights,
               "--names", names, "--device", "cpu", "--precision", "float", "--thresh", str(thresh), "--json",
               *images]
    run = subprocess.run(command, capture_output=True, text=True, check=True)
    return {entry["image"]: entry["detections"] for entry in map(json.loads, run.stdout.splitlines())}


def detection_objects(boxes, scores, classes, labels):
    """fpgacnn-detect --json's detection objects from the four outputs."""
    return [{"left": int(boxes[4 * i]), "top": int(boxes[4 * i + 1]), "right": int(boxes[4 * i + 2]),
             "bottom": int(boxes[4 * i + 3]), "prob": scores[i], "class_id": classes[i], "class": labels[i]}
            for i in range(len(scores))]


def assert_same_detections(test, got, expected, what):
    """Equal boxes, classes and labels; probabilities within float rounding of the JSON text."""
    test.assertEqual(len(got), len(expected), f"{what}: {got} vs {expected}")
    for g, e in zip(got, expected):
        for key in ("left", "top", "right", "bottom", "class_id", "class"):
            test.assertEqual(g[key], e[key], f"{what}: {key} of {g} vs {e}")
        test.assertAlmostEqual(g["prob"], e["prob"], delta=1e-6, msg=f"{what}: {g} vs {e}")
