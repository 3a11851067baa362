#!/usr/bin/env python3
"""The robustness suite (issue 13, docs/reliability.md): generated malformed inputs for every input
format (cfg, weights, quantized model, images, names files, device strings) and every tool's flags
and outputs, each run as a child process and checked for

  - the exit code of apps/common/exit_codes.hpp (2 command line, 1 input/model/device/output, 0 ok);
  - a one-line message naming the problem (a file, flag or layer), and no crash, sanitizer report,
    "unexpected failure" or uncaught exception;
  - no output file left behind by a failed run (and no temporary file by any run);
  - bounded time (a per-case timeout: a hang fails) and bounded memory (the child's peak RSS from
    wait4; no RLIMIT_AS, which AddressSanitizer's shadow memory cannot live with).

Cases run in parallel on small models: the fuzzers' toy network (tests/fuzz/data/tiny.cfg, 16x16).
Usage: run_robustness.py --build-dir build/release [--jobs N] [--markdown FILE] [--only SUBSTRING]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

# Lines that mean a crash or a bug rather than a handled error, whatever the exit code.
FORBIDDEN = re.compile(r"unexpected failure|terminate called|AddressSanitizer|LeakSanitizer|"
                       r"runtime error:|Segmentation fault|what\(\):|Traceback")

TOOLS = {
    "detect": ("detect", "fpgacnn-detect"),
    "bench": ("bench", "fpgacnn-bench"),
    "quantize": ("quantize", "fpgacnn-quantize"),
    "plan": ("plan", "fpgacnn-plan"),
    "synth": ("synth-weights", "fpgacnn-synth-weights"),
    "camera": ("camera", "fpgacnn-camera"),
}


class Case:
    def __init__(self, group, what, tool, args, expect, token=None, outputs=(), stdin_devnull=True):
        self.group = group              # the input format or tool, for the matrix
        self.what = what                # what was tried, one line
        self.tool = tool
        self.args = list(args)
        self.expect = expect if isinstance(expect, (set, frozenset)) else {expect}
        self.token = token              # a piece of the error message (file, flag or layer); None: any
        self.outputs = list(outputs)    # paths that must not exist after a failed run
        self.result = None


class Suite:
    def __init__(self, options):
        self.options = options
        self.build = os.path.abspath(options.build_dir)
        self.source = os.path.abspath(options.source_dir)
        self.work = tempfile.mkdtemp(prefix="fpgacnn-robustness-")
        self.cases = []
        self.counter = 0

    # ---- helpers -------------------------------------------------------------------------------
    def tool(self, name):
        folder, binary = TOOLS[name]
        return os.path.join(self.build, "apps", folder, binary)

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def write(self, name, data):
        path = self.path("inputs", name)
        mode = "wb" if isinstance(data, (bytes, bytearray)) else "w"
        with open(path, mode) as f:
            f.write(data)
        return path

    def out_dir(self):
        """A fresh folder for one case's outputs."""
        self.counter += 1
        path = self.path("outputs", str(self.counter))
        os.makedirs(path)
        return path

    def add(self, *args, **kwargs):
        self.cases.append(Case(*args, **kwargs))

    def run_tool(self, name, args):
        subprocess.run([self.tool(name)] + args, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=self.env())

    def env(self):
        env = dict(os.environ)
        # A fixed budget, so refusals do not depend on the machine's free memory at the moment.
        env["FPGACNN_MEMORY_LIMIT"] = "1G"
        env["OPENBLAS_NUM_THREADS"] = "1"
        env["OMP_NUM_THREADS"] = "1"
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        return env

    # ---- fixtures ------------------------------------------------------------------------------
    def prepare(self):
        os.makedirs(self.path("inputs"))
        os.makedirs(self.path("outputs"))
        shutil.copy(os.path.join(self.source, "tests/fuzz/data/tiny.cfg"), self.path("inputs", "tiny.cfg"))
        self.cfg = self.path("inputs", "tiny.cfg")
        with open(self.cfg) as f:
            self.cfg_text = f.read()
        self.weights = self.path("inputs", "tiny.weights")
        self.run_tool("synth", ["-q", "--cfg", self.cfg, "--seed", "1", "--out", self.weights])
        with open(self.weights, "rb") as f:
            self.weights_bytes = f.read()
        self.image = self.path("inputs", "dog.jpg")
        shutil.copy("/usr/share/darknet/data/dog.jpg", self.image)
        with open(self.image, "rb") as f:
            self.jpeg = f.read()
        self.fq16 = self.path("inputs", "tiny.fq16")
        self.run_tool("quantize", ["-q", "--cfg", self.cfg, "--weights", self.weights, "--images", self.image,
                                   "--out", self.fq16])
        with open(self.fq16, "rb") as f:
            self.fq16_bytes = f.read()
        self.names = self.write("names.txt", "thing\n")
        self.fifo = self.path("inputs", "fifo")
        os.mkfifo(self.fifo)
        self.folder = self.path("inputs", "folder")
        os.makedirs(self.folder)
        self.images = self.path("inputs", "images")  # bench's frames
        os.makedirs(self.images)
        shutil.copy(self.image, self.images)
        self.png = self.write("small.png", png_bytes(8, 8))

    # ---- the cases -----------------------------------------------------------------------------
    def model_args(self, cfg=None, weights=None):
        return ["--cfg", cfg or self.cfg, "--weights", weights or self.weights]

    def detect_case(self, group, what, extra, inputs, expect, token, cfg=None, weights=None, dumps=True):
        out = self.out_dir()
        outputs = []
        args = ([] if "--device" in extra else ["--device", "cpu"]) + self.model_args(cfg, weights)
        if dumps:
            args += ["--output", os.path.join(out, "annotated"), "--dump-region", os.path.join(out, "r.bin")]
            outputs = [os.path.join(out, "annotated"), os.path.join(out, "r.bin")]
        self.add(group, what, "detect", args + extra + inputs, expect, token, outputs)

    def cfg_cases(self):
        text = self.cfg_text
        net_end = text.index("[convolutional]")
        variants = []
        # Every key of the toy cfg given values that no layer accepts.
        lines = text.splitlines()
        keyed = [(i, line.split("=")[0]) for i, line in enumerate(lines) if "=" in line]
        bad_values = ["-1", "abc", "99999999999999999999", "nan"]
        for index, key in keyed:
            for value in bad_values:
                mutated = list(lines)
                mutated[index] = key + "=" + value
                variants.append((f"{key}={value!r} (cfg line {index + 1})", "\n".join(mutated) + "\n", {0, 1}))
        structural = [
            ("empty file", "", 1),
            ("only comments", "# nothing\n; nothing\n", 1),
            ("no [net] section", text[net_end:], 1),
            ("[net] only", text[:net_end], 1),
            ("unknown section", text + "[lstm]\noutput=4\n", 1),
            ("unknown key", text.replace("[maxpool]", "[maxpool]\nfrobnicate=3", 1), {0, 1}),
            ("section header not closed", text.replace("[maxpool]", "[maxpool", 1), 1),
            ("a line without '='", text.replace("[maxpool]", "[maxpool]\nsize 2", 1), {0, 1}),
            ("NUL bytes", text.replace("filters=4", "filters=4\0\0", 1), {0, 1}),
            ("binary garbage", bytes(range(256)) * 8, 1),
            ("one line of 1 MB", "[net]\nwidth=" + "1" * (1 << 20) + "\n", 1),
            ("a cfg above the 4 MiB cap", "#" * (5 << 20), 1),
            ("width=0", text.replace("width=16", "width=0"), 1),
            ("width=-16", text.replace("width=16", "width=-16"), 1),
            ("width 2^20+", text.replace("width=16", "width=2000000"), 1),
            ("channels=0", text.replace("channels=3", "channels=0"), 1),
            ("channels=100000", text.replace("channels=3", "channels=100000"), 1),
            ("32768x32768 input (2^31 values)", text.replace("width=16", "width=32768")
             .replace("height=16", "height=32768"), 1),
            # GBs even as int16 (the cfg-time check counts what every path holds; 4096x4096 would only
            # exceed the float path's, which fpgacnn-plan never allocates).
            ("16384x16384 input (GB of activations)", text.replace("width=16", "width=16384")
             .replace("height=16", "height=16384"), 1),
            ("filters=2^31", text.replace("filters=4", "filters=2147483647", 1), 1),
            ("filters=70000", text.replace("filters=4", "filters=70000", 1), 1),
            ("size=0", text.replace("size=3", "size=0", 1), 1),
            ("size=-3", text.replace("size=3", "size=-3", 1), 1),
            ("stride=0", text.replace("stride=1", "stride=0", 1), 1),
            ("maxpool stride=0", text.replace("size=2\nstride=2", "size=2\nstride=0", 1), 1),
            ("unknown activation", text.replace("activation=leaky", "activation=sparkly", 1), 1),
            ("route to a later layer", text.replace("layers=-3", "layers=5", 1), 1),
            ("route to itself", text.replace("layers=-3", "layers=0", 1).replace("layers=-1,-3", "layers=-1,-1"),
             {0, 1}),
            ("route far back", text.replace("layers=-3", "layers=-100", 1), 1),
            ("route with no layers", text.replace("layers=-3", "layers=", 1), 1),
            ("route of 40000 layers", text.replace("layers=-3", "layers=" + ",".join(["-1"] * 40000), 1), 1),
            ("reorg stride=0", text.replace("[reorg]\nstride=2", "[reorg]\nstride=0"), 1),
            ("reorg stride=3 (not dividing)", text.replace("[reorg]\nstride=2", "[reorg]\nstride=3"), 1),
            ("region classes=0", text.replace("classes=1", "classes=0"), 1),
            ("region classes=-1", text.replace("classes=1", "classes=-1"), 1),
            ("region num=3 with 2 anchors", text.replace("num=2", "num=3"), 1),
            ("region num=0", text.replace("num=2", "num=0"), 1),
            ("region coords=5", text.replace("coords=4", "coords=5"), 1),
            ("anchors not numbers", text.replace("anchors=1,1, 2,2", "anchors=a,b,c,d"), 1),
            ("region filters mismatch", text.replace("filters=12", "filters=13"), 1),
            ("two [net] sections", text + text[:net_end], 1),
            ("100 truncations", None, None),
        ]
        for what, body, expect in structural:
            if body is None:
                continue
            variants.append((what, body, expect))
        # Truncations at every few bytes: a shorter network may still be valid (0) or not (1).
        for cut in range(1, len(text), max(1, len(text) // 20)):
            variants.append((f"truncated to {cut} bytes", text[:cut], {0, 1}))
        for n, (what, body, expect) in enumerate(variants):
            cfg = self.write(f"cfg_{n}.cfg", body)
            token = None if expect == {0, 1} else f"cfg_{n}.cfg"
            self.add("cfg", what, "plan", ["--cfg", cfg], expect, token)
            if n % 4 == 0:  # a quarter again through the tools that also write files
                out = self.out_dir()
                target = os.path.join(out, "w.weights")
                self.add("cfg", what + " (synth-weights)", "synth",
                         ["-q", "--cfg", cfg, "--seed", "1", "--out", target], expect, token, [target])
            if n % 8 == 0:
                self.detect_case("cfg", what + " (detect)", ["-q"], [self.image], expect, token, cfg=cfg)
        # Files that are not files.
        for what, path, expect, token in [
            ("a FIFO as --cfg", self.fifo, 1, "not a regular file"),
            ("/dev/zero as --cfg", "/dev/zero", 1, "not a regular file"),
            ("/dev/urandom as --cfg", "/dev/urandom", 1, "not a regular file"),
            ("/dev/null as --cfg", "/dev/null", 1, "not a regular file"),
            ("a folder as --cfg", self.folder, 2, "--cfg"),
            ("a missing --cfg", self.path("inputs", "missing.cfg"), 2, "--cfg"),
        ]:
            self.add("cfg", what, "plan", ["--cfg", path], expect, token)
            self.detect_case("cfg", what + " (detect)", ["-q"], [self.image], expect, token, cfg=path)

    def weights_cases(self):
        data = self.weights_bytes
        variants = []
        for cut in [0, 1, 4, 11, 12, 15, 16, 19, 20, 24, 40, 100, 500, len(data) // 2, len(data) - 4,
                    len(data) - 1]:
            variants.append((f"truncated to {cut} of {len(data)} bytes", data[:cut], 1))
        variants.append(("4 bytes too many", data + b"\0\0\0\0", 1))
        variants.append(("1 byte too many", data + b"\0", 1))
        for what, header in [("major version -1", struct.pack("<iii", -1, 2, 0)),
                             ("major version 1000 (transposed)", struct.pack("<iii", 1000, 0, 0)),
                             ("minor version 1000", struct.pack("<iii", 0, 1000, 0))]:
            variants.append((what, header + data[12:], 1))
        # The 0.1 header has a 32-bit 'seen': same floats, 4 bytes shorter header -> size mismatch.
        variants.append(("version 0.1 header on a 0.2 body", struct.pack("<iii", 0, 1, 0) + data[12:], 1))
        header = 20
        floats = (len(data) - header) // 4
        for name, value in [("NaN", float("nan")), ("+inf", float("inf")), ("-inf", float("-inf")),
                            ("3e38", 3e38), ("-1e7", -1e7)]:
            for position in [0, floats // 3, floats - 1]:
                offset = header + 4 * position
                mutated = data[:offset] + struct.pack("<f", value) + data[offset + 4:]
                variants.append((f"{name} at float {position}", mutated, 1))
        variants.append(("all zeros (valid: no detections)", data[:header] + bytes(len(data) - header), 0))
        variants.append(("random bytes of the right size", os.urandom(len(data)), {0, 1}))
        for n, (what, body, expect) in enumerate(variants):
            path = self.write(f"weights_{n}.weights", body)
            token = f"weights_{n}.weights" if expect == 1 else None
            self.detect_case("weights", what, ["-q"], [self.image], expect, token, weights=path)
        for what, path, expect, token in [("a FIFO as --weights", self.fifo, 1, "not a regular file"),
                                          ("/dev/zero as --weights", "/dev/zero", 1, "not a regular file"),
                                          ("a folder as --weights", self.folder, 2, "--weights"),
                                          ("a missing --weights", self.path("inputs", "none.weights"), 2,
                                           "--weights")]:
            self.detect_case("weights", what, ["-q"], [self.image], expect, token, weights=path)
        # bench and quantize read weights too.
        bad = self.write("short.weights", data[:100])
        self.add("weights", "truncated weights (bench)", "bench",
                 ["-q", "--cfg", self.cfg, "--weights", bad, "--frames", "1", "--images", self.images], 1,
                 "short.weights")
        out = self.out_dir()
        self.add("weights", "truncated weights (quantize)", "quantize",
                 ["-q", "--cfg", self.cfg, "--weights", bad, "--images", self.image, "--out",
                  os.path.join(out, "q.fq16")], 1, "short.weights", [os.path.join(out, "q.fq16")])

    def quantized_cases(self):
        data = self.fq16_bytes
        variants = []
        for cut in [0, 1, 8, 16, 32, 64, len(data) // 2, len(data) - 1]:
            variants.append((f"truncated to {cut} of {len(data)} bytes", data[:cut]))
        for offset in list(range(0, 64, 3)) + list(range(64, len(data), max(1, len(data) // 24))):
            mutated = bytearray(data)
            mutated[offset] ^= 0x5A
            variants.append((f"byte {offset} flipped", bytes(mutated)))
        variants.append(("a byte appended", data + b"\0"))
        variants.append(("a .weights file given as --quantized", self.weights_bytes))
        variants.append(("a cfg given as --quantized", self.cfg_text.encode()))
        variants.append(("random bytes", os.urandom(len(data))))
        for n, (what, body) in enumerate(variants):
            path = self.write(f"model_{n}.fq16", body)
            self.detect_case("quantized", what, ["-q", "--precision", "int16", "--quantized", path], [self.image],
                             1, f"model_{n}.fq16")
        for what, path, expect, token in [("a FIFO as --quantized", self.fifo, 1, "not a regular file"),
                                          ("a folder as --quantized", self.folder, 2, "--quantized"),
                                          ("a missing --quantized", self.path("x.fq16"), 2, "--quantized")]:
            self.detect_case("quantized", what, ["-q", "--precision", "int16", "--quantized", path], [self.image],
                             expect, token)
        self.detect_case("quantized", "the valid model (emu device)",
                         ["-q", "--device", "emu", "--quantized", self.fq16], [self.image], 0, None)

    def image_cases(self):
        jpeg = self.jpeg
        variants = []
        for cut in [2, 10, 100, 300, 600, 1000]:
            variants.append((f"JPEG truncated to {cut} bytes (in the headers)", jpeg[:cut], 1, True))
        for cut in [len(jpeg) // 4, len(jpeg) // 2, len(jpeg) - 100]:
            variants.append((f"JPEG truncated to {cut} bytes (in the scan: damaged)", jpeg[:cut], 0, False))
        corrupt = bytearray(jpeg)
        for i in range(len(jpeg) // 2, len(jpeg) // 2 + 400, 7):
            corrupt[i] = 0xFF if i % 2 else 0x00
        variants.append(("JPEG with a corrupt scan (damaged)", bytes(corrupt), {0}, False))
        png = png_bytes(8, 8)
        for cut in [8, 20, 33, len(png) - 12]:
            variants.append((f"PNG truncated to {cut} bytes", png[:cut], 1, True))
        variants += [
            ("empty file", b"", 1, True),
            ("text with a .jpg name", b"this is not a jpeg", 1, True),
            ("TIFF signature", b"II*\0" + bytes(200), 1, True),
            ("DICOM signature", bytes(128) + b"DICM" + bytes(100), 1, True),
            ("JPEG 2000 signature", b"\0\0\0\x0cjP  \r\n\x87\n" + bytes(100), 1, True),
            ("OpenEXR signature", b"\x76\x2f\x31\x01" + bytes(100), 1, True),
            ("PPM 100000x100000 (pixel cap)", b"P6\n100000 100000\n255\n" + bytes(64), 1, True),
            ("PPM 20000x20000 (memory budget)", b"P6\n20000 20000\n255\n" + bytes(64), 1, True),
            ("PPM 0x0", b"P6\n0 0\n255\n", 1, True),
            ("PPM with a negative width", b"P6\n-5 5\n255\n" + bytes(75), 1, True),
            ("BMP 60000x60000 header", bmp_header(60000, 60000), 1, True),
            ("BMP 0x0 header", bmp_header(0, 0), 1, True),
            ("PNG 65535x65535 header", png_header(65535, 65535), 1, True),
            ("JPEG SOF of 65000x65000", jpeg_sof(65000, 65000), 1, True),
            ("JPEG SOF of 0x0", jpeg_sof(0, 0), 1, True),
        ]
        for n, (what, body, expect, named) in enumerate(variants):
            path = self.write(f"image_{n}.jpg", body)
            token = f"image_{n}.jpg" if expect == 1 else None
            self.detect_case("image", what, ["-q"], [path], expect, token, dumps=expect != {0} and named)
            if not named:  # the damaged ones: refused with --strict-images
                self.detect_case("image", what + " with --strict-images", ["-q", "--strict-images"], [path], 1,
                                 f"image_{n}.jpg")
        for what, path, expect, token in [("a FIFO as the image", self.fifo, 1, "not a regular file"),
                                          ("/dev/zero as the image", "/dev/zero", 1, "not a regular file"),
                                          ("an empty folder", self.folder, 1, "no images"),
                                          ("a missing image", self.path("none.jpg"), 1, "none.jpg")]:
            self.detect_case("image", what, ["-q"], [path], expect, token)
        # One bad image among good ones: the others still run, the exit code reports it.
        mixed = self.path("inputs", "mixed")
        os.makedirs(mixed)
        shutil.copy(self.image, os.path.join(mixed, "a.jpg"))
        with open(os.path.join(mixed, "b.jpg"), "wb") as f:
            f.write(b"broken")
        shutil.copy(self.image, os.path.join(mixed, b"c\xff.jpg".decode("utf-8", "surrogateescape")))
        self.add("image", "a folder with a broken image and a non-UTF-8 name (--json)", "detect",
                 ["-q", "--json"] + self.model_args() + [mixed], 1, "b.jpg")
        # Calibration images of quantize.
        bad = self.write("calib_bad.jpg", b"garbage")
        out = self.out_dir()
        self.add("image", "a broken calibration image (quantize)", "quantize",
                 ["-q"] + self.model_args() + ["--images", bad, "--out", os.path.join(out, "q.fq16")], 1,
                 "calib_bad.jpg", [os.path.join(out, "q.fq16")])

    def names_cases(self):
        for what, body, expect in [
            ("empty names file", "", 1),
            ("invalid UTF-8 names (--json)", b"\xc3\x28\n\xff\xfe\n", 0),
            ("NUL bytes in names", b"a\0b\n", 0),
            ("a names file above the 4 MiB cap", "x\n" * (3 << 20), 1),
            ("one name of 64 KiB", "n" * (1 << 16) + "\n", 0),
            ("100000 names for 1 class", "name\n" * 100000, 0),
        ]:
            path = self.write(f"names_{len(self.cases)}.txt", body)
            token = os.path.basename(path) if expect == 1 else None
            self.detect_case("names", what, ["-q", "--json", "--thresh", "0", "--names", path], [self.image],
                             expect, token)
        for what, path, expect, token in [("a FIFO as --names", self.fifo, 1, "not a regular file"),
                                          ("/dev/zero as --names", "/dev/zero", 1, "not a regular file"),
                                          ("a folder as --names", self.folder, 2, "--names"),
                                          ("a missing --names", self.path("none.names"), 2, "--names")]:
            self.detect_case("names", what, ["-q", "--names", path], [self.image], expect, token)

    def device_cases(self):
        specs = ["", "gpu", "fpga9", "CPU", "cpu:1", "cpu:", "emu:", "emu:bogus", "emu:lenient:lenient",
                 "xrt", "xrt:", "xrt:99", "xrt:zz:zz.z", "xrt:0/cu99", "xrt:0@/no/such.xclbin", "uio",
                 "uio:", "uio:../../etc/passwd", "uio:none:addr99", "uio:none:udmabuf-1", "uio:x:poll:poll",
                 "auto:x", "a" * 5000, "\u00e9mu", "emu\tx", "-", "emu;rm -rf /"]
        for n, spec in enumerate(specs):
            shown = spec if len(spec) < 40 else spec[:10] + f"... ({len(spec)} chars)"
            self.detect_case("device", f"--device {shown!r}", ["-q", "--device", spec, "--precision", "int16",
                                                                "--quantized", self.fq16], [self.image], 1,
                             None)
        # FPGACNN_UIO_ROOT pointing nowhere: no device found, a clear error.
        self.add("device", "bench --device uio:x", "bench",
                 ["-q", "--cfg", self.cfg, "--device", "uio:x", "--frames", "1", "--images", self.images], 1,
                 "uio")

    def flag_cases(self):
        numbers = ["nan", "-nan", "inf", "-inf", "1e999", "abc", "", "0x1p3z", "--", "1,5"]
        detect_base = ["-q"] + self.model_args()
        for flag in ["--thresh", "--nms", "--hier"]:
            for value in numbers + ["-0.5", "1.5"]:
                self.add("flags", f"detect {flag} {value!r}", "detect", detect_base + [flag, value, self.image], 2,
                         None if value in ("--",) else flag)
        sizes = ["0x0", "abc", "3x3x3", "99999999999x32", "32x99999999999", "x32", "32x", "-32x32", "32.5x32",
                 "2000000x32", "", "32X32X", " 32x32"]
        per_tool = {
            "detect": detect_base + [self.image],
            "bench": ["-q", "--cfg", self.cfg, "--frames", "1"],
            "quantize": ["-q"] + self.model_args() + ["--out", self.path("outputs", "never.fq16")],
            "plan": ["--cfg", self.cfg],
            "synth": ["-q", "--cfg", self.cfg, "--seed", "1", "--out", self.path("outputs", "never.weights")],
        }
        for tool, base in per_tool.items():
            for size in sizes:
                self.add("flags", f"{tool} --input {size!r}", tool, base + ["--input", size], 2, "--input")
            self.add("flags", f"{tool} unknown flag", tool, base + ["--frobnicate"], 2, "frobnicate")
            self.add("flags", f"{tool} no arguments", tool, [], 2, None)
        numeric = {
            "bench": ["--frames", "--warmup", "--in-flight", "--device-workers", "--power-interval"],
            "quantize": ["--percentile", "--activation-margin", "--accumulator-margin"],
            "plan": ["--clock-mhz", "--bandwidth", "--port-bits", "--burst-overhead", "--tm", "--tn", "--tr",
                     "--tc", "--max-kernel", "--max-stride"],
            "camera": ["--max-fps", "--port", "--jpeg-quality", "--client-queue", "--max-clients", "--thresh",
                       "--nms"],
        }
        camera_base = ["-q"] + self.model_args() + ["--input", self.image, "--once", "--port", "0"]
        for tool, flags in numeric.items():
            base = camera_base if tool == "camera" else per_tool[tool]
            for flag in flags:
                for value in ["nan", "inf", "-1", "99999999999999999999", "abc", "1e999"]:
                    if (tool, flag, value) == ("bench", "--warmup", "-1"):
                        pass
                    self.add("flags", f"{tool} {flag} {value}", tool, base + [flag, value], 2, flag)
        for value in ["-5", "-0x1", "18446744073709551616", "1e3", "nan", "0x10", "abc", ""]:
            self.add("flags", f"synth-weights --seed {value!r}", "synth",
                     ["-q", "--cfg", self.cfg, "--seed", value, "--out", self.path("outputs", "never.weights")], 2,
                     "--seed")
        for what, args in [("--precision double", ["--precision", "double"]),
                           ("--fallback gpu", ["--fallback", "gpu"]),
                           ("--precision float with --quantized", ["--precision", "float", "--quantized", self.fq16]),
                           ("--dump-layers with two images", ["--dump-layers", self.path("outputs", "never")])]:
            self.add("flags", f"detect {what}", "detect", detect_base + args + [self.image, self.image], 2,
                     args[0])
        self.add("flags", "camera without --input", "camera", ["-q"] + self.model_args(), 2, "--input")
        self.add("flags", "plan --port-bits 17", "plan", ["--cfg", self.cfg, "--port-bits", "17"], 2, "--port-bits")

    def output_cases(self):
        fifo_out = self.path("outputs", "fifo-out")
        os.mkfifo(fifo_out)
        file_out = self.write("a-file", "x")
        targets = [
            ("a folder that does not exist", lambda d: os.path.join(d, "no", "such", "x.out"), 2, "does not exist"),
            ("under /proc (cannot be created)", lambda d: "/proc/fpgacnn-x.out", 1, "cannot write"),
            ("an existing folder", lambda d: d, 2, "is a folder"),
            ("/dev/null (would be replaced)", lambda d: "/dev/null", 2, "not a regular file"),
            ("a FIFO", lambda d: fifo_out, 2, "not a regular file"),
            ("below a file", lambda d: os.path.join(file_out, "x.out"), 2, "does not exist"),
        ]
        for what, target, expect, token in targets:
            out = self.out_dir()
            path = target(out)
            self.add("outputs", f"detect --dump-region: {what}", "detect",
                     ["-q"] + self.model_args() + ["--dump-region", path, self.image], expect, token)
            self.add("outputs", f"bench --csv: {what}", "bench",
                     ["-q", "--cfg", self.cfg, "--frames", "1", "--csv", path], expect, token)
            self.add("outputs", f"quantize --out: {what}", "quantize",
                     ["-q"] + self.model_args() + ["--images", self.image, "--out", path], expect, token)
            self.add("outputs", f"synth-weights --out: {what}", "synth",
                     ["-q", "--cfg", self.cfg, "--seed", "1", "--out", path], expect, token)
        for flag in ["--output", "--dump-layers"]:
            for what, path, expect, token in [("under /proc", "/proc/fpgacnn-dir/sub", 1, "cannot write"),
                                              ("below a file", os.path.join(file_out, "sub"), 2, "is a file")]:
                self.add("outputs", f"detect {flag}: {what}", "detect",
                         ["-q"] + self.model_args() + [flag, path, self.image], expect, token)
        # A failing model after the outputs were checked: nothing written.
        for flag in ["--output", "--dump-layers"]:
            out = self.out_dir()
            target = os.path.join(out, "d")
            bad = self.write(f"bad-{flag[2:]}.weights", self.weights_bytes[:50])
            self.add("outputs", f"detect {flag} with broken weights", "detect",
                     ["-q", "--cfg", self.cfg, "--weights", bad, flag, target, self.image], 1,
                     f"bad-{flag[2:]}.weights", [target])

    def build_cases(self):
        self.cfg_cases()
        self.weights_cases()
        self.quantized_cases()
        self.image_cases()
        self.names_cases()
        self.device_cases()
        self.flag_cases()
        self.output_cases()
        if self.options.only:
            self.cases = [c for c in self.cases if self.options.only in c.group + " " + c.what]
        if self.options.sample > 1:
            self.cases = self.cases[::self.options.sample]

    # ---- running -------------------------------------------------------------------------------
    def run_case(self, case):
        out_path = self.path("outputs", f"stdout.{id(case)}")
        err_path = self.path("outputs", f"stderr.{id(case)}")
        started = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen([self.tool(case.tool)] + case.args, stdout=out, stderr=err,
                                       stdin=subprocess.DEVNULL, env=self.env(), start_new_session=True,
                                       cwd=self.work)
            timed_out = threading.Event()

            def kill():
                timed_out.set()
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

            timer = threading.Timer(self.options.timeout, kill)
            timer.start()
            _, status, usage = os.wait4(process.pid, 0)
            timer.cancel()
            process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - started
        with open(err_path, "rb") as f:
            stderr = f.read().decode("utf-8", "replace")
        os.unlink(out_path)
        os.unlink(err_path)
        problems = []
        code = process.returncode
        if timed_out.is_set():
            problems.append(f"timed out after {self.options.timeout} s")
        if code not in case.expect:
            problems.append(f"exit code {code}, expected {sorted(case.expect)}")
        peak_mb = usage.ru_maxrss / 1024.0
        if peak_mb > self.options.max_rss_mb:
            problems.append(f"peak RSS {peak_mb:.0f} MB above {self.options.max_rss_mb} MB")
        forbidden = FORBIDDEN.search(stderr)
        if forbidden:
            problems.append(f"stderr shows '{forbidden.group(0)}'")
        message = error_line(stderr, TOOLS[case.tool][1])
        if code in (1, 2):
            if not message:
                problems.append("no error message")
            elif case.token and case.token not in message:
                problems.append(f"the message does not name '{case.token}'")
        if code != 0:
            for path in case.outputs:
                if os.path.exists(path):
                    problems.append(f"left {path} behind")
        # This case's own output folders only: other cases run at the same time.
        for folder in {os.path.dirname(p) for p in case.outputs if p.startswith(self.path("outputs"))}:
            for root, _, names in os.walk(folder):
                for name in names:
                    if ".partial" in name or ".tmp-" in name or "write-probe" in name:
                        problems.append(f"temporary file {os.path.join(root, name)} left behind")
        case.result = dict(code=code, seconds=seconds, peak_mb=peak_mb, message=message, problems=problems)
        return case

    def run(self):
        self.prepare()
        self.build_cases()
        started = time.monotonic()
        failures = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.options.jobs) as pool:
            for case in pool.map(self.run_case, self.cases):
                if case.result["problems"]:
                    failures.append(case)
        elapsed = time.monotonic() - started
        for case in failures:
            print(f"FAIL [{case.group}] {case.what}: {'; '.join(case.result['problems'])}\n"
                  f"     {TOOLS[case.tool][1]} {' '.join(case.args)[:300]}\n"
                  f"     message: {case.result['message'][:300]}")
        slowest = max(self.cases, key=lambda c: c.result["seconds"])
        biggest = max(self.cases, key=lambda c: c.result["peak_mb"])
        print(f"{len(self.cases)} cases, {len(failures)} failed, {elapsed:.1f} s with {self.options.jobs} jobs; "
              f"slowest {slowest.result['seconds']:.2f} s ({slowest.what}), "
              f"largest peak RSS {biggest.result['peak_mb']:.0f} MB ({biggest.what})")
        if self.options.markdown:
            write_matrix(self.cases, self.options.markdown)
        if not failures:
            shutil.rmtree(self.work, ignore_errors=True)
        else:
            print(f"inputs and outputs kept in {self.work}")
        return 1 if failures else 0


def error_line(stderr, binary):
    """The first line reporting an error: '<tool>: ...' (command line) or '[error] ...' (spdlog)."""
    for line in stderr.splitlines():
        if line.startswith(binary + ": ") or "[error]" in line:
            return line
    return ""


def write_matrix(cases, path):
    """The bad-input matrix of docs/reliability.md: per format and exit code, what was tried."""
    groups = {}
    for case in cases:
        key = (case.group, case.result["code"])
        groups.setdefault(key, []).append(case)
    order = ["cfg", "weights", "quantized", "image", "names", "device", "flags", "outputs"]
    with open(path, "w") as f:
        f.write("| input | cases | exit | what was tried (examples) | example message |\n|---|---|---|---|---|\n")
        for group in order:
            for (g, code), members in sorted(groups.items(), key=lambda item: item[0][1]):
                if g != group:
                    continue
                examples = []
                for case in members:
                    label = case.what.replace("|", "\\|")
                    if label not in examples:
                        examples.append(label)
                picked = examples if len(examples) <= 8 else [examples[i * len(examples) // 8] for i in range(8)]
                shown = "; ".join(picked) + (f"; ... ({len(examples) - 8} more)" if len(examples) > 8 else "")
                message = next((c.result["message"] for c in members if c.result["message"]), "")
                message = re.sub(r"/tmp/fpgacnn-robustness-[^/ ]+/\w+/", "", message)
                message = message.replace("|", "\\|")[:160]
                shown_message = f"`{message}`" if message else "(none: success)"
                f.write(f"| {group} | {len(members)} | {code} | {shown} | {shown_message} |\n")


def png_bytes(width, height):
    import zlib
    raw = b"".join(b"\0" + bytes(3 * width) for _ in range(height))
    return png_header(width, height, body=zlib.compress(raw))


def png_header(width, height, body=b""):
    import zlib

    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def bmp_header(width, height):
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + 16, 0, 0, 54) + info + bytes(16)


def jpeg_sof(width, height):
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    return b"\xff\xd8" + sof + b"\xff\xd9"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--max-rss-mb", type=float, default=1536.0, help="peak RSS per case")
    parser.add_argument("--markdown", help="write the bad-input matrix (markdown table) here")
    parser.add_argument("--only", help="run only the cases whose group or description holds this")
    parser.add_argument("--sample", type=int, default=1,
                        help="run every Nth case only (sanitizer builds: each case is a process start "
                             "of about a second there)")
    return Suite(parser.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
