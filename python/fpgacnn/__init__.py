"""fpgacnn: darknet YOLOv2 detectors on FPGA accelerators or the bit-exact CPU fallback.

numpy in, detections out::

    import cv2, fpgacnn
    det = fpgacnn.Detector("yolo.cfg", "yolo.weights", names="voc.names", device="cpu", precision="int16")
    for d in det.detect(cv2.imread("dog.jpg")):
        print(d.label, d.score, d.left, d.top, d.right, d.bottom)

Images are uint8 H x W x 3 arrays (BGR as OpenCV gives them; rgb=True for RGB) read in place, or
paths. The GIL is released while the runtime works, so other Python threads keep running. See
docs/python.md for the whole API and its relation to the command-line tools.
"""

import atexit
import concurrent.futures
import json
import os
import queue
import threading
import weakref

from . import _fpgacnn
from ._fpgacnn import Detection, DeviceError, Error, ModelError
from ._fpgacnn import __version__  # libfpgacnn's version (CMakeLists.txt's project(VERSION))

__all__ = ["Detector", "Detection", "Error", "ModelError", "DeviceError", "list_devices", "quantize", "plan",
           "set_log_level"]


def list_devices():
    """Every device this machine offers, usable or not, as dicts (spec, name, usable, detail).

    ``spec`` is what ``Detector(device=...)`` takes; the same list as ``fpgacnn-detect --list-devices``.
    """
    return _fpgacnn.list_devices()


def set_log_level(level):
    """The library's log level on stderr: "quiet", "warn" (the package's default), "info", "debug" or "trace"."""
    try:
        _fpgacnn.set_log_level(getattr(_fpgacnn.LogLevel, level))
    except AttributeError:
        raise ValueError(f"set_log_level: {level!r} is not one of quiet, warn, info, debug, trace") from None


def _is_path(image):
    return isinstance(image, (str, bytes, os.PathLike))


def _input_size_text(input_size):
    if input_size is None:
        return ""
    if isinstance(input_size, str):
        return input_size
    width, height = input_size
    return f"{int(width)}x{int(height)}"


class Detector:
    """A darknet YOLOv2 detector on a device (an accelerator, its emulator, or the CPU).

    The arguments are fpgacnn-detect's flags:

    cfg, weights: the darknet model (weights may be None with a quantized file: int16 needs no floats).
    quantized: a fixed-point model file from fpgacnn-quantize / fpgacnn.quantize(); without one, int16
        and int8 calibrate on darknet's sample images when the detector is made.
    names: the class names file; without it labels are the class numbers.
    device: "auto" (the first usable accelerator, else the CPU), "cpu", "emu", "xrt:0", "uio:NAME", ...
        (list_devices()).
    precision: "auto", "float", "int16", "int8" or "mixed".
    input_size: (width, height) or "WxH", replacing the cfg's.
    thresh, nms: darknet's detection threshold and NMS overlap.
    verify_every: golden-twin check of one frame in N against the CPU int16 backend (devices only).
    fallback_cpu: after a DeviceError, continue on the CPU int16 backend (the same results).

    Raises ModelError when the model cannot be loaded, DeviceError when the device fails, Error for
    the rest (an unknown device, an impossible device / precision pair).

    The detector is thread-safe. detect() and forward() run on the calling thread without the GIL;
    submit() queues frames into the runtime's pipeline (pre-processing, device, post-processing
    overlap) and returns concurrent.futures.Future objects. close() (or a with block) finishes the
    frames in flight and frees the device.
    """

    def __init__(self, cfg, weights=None, *, quantized=None, names=None, device="auto", precision="auto",
                 input_size=None, thresh=0.5, nms=0.45, verify_every=0, fallback_cpu=False):
        self._native = _fpgacnn.NativeDetector(
            os.fspath(cfg), os.fspath(weights) if weights is not None else "",
            os.fspath(quantized) if quantized is not None else "", os.fspath(names) if names is not None else "",
            device, precision, _input_size_text(input_size), float(thresh), float(nms), int(verify_every),
            bool(fallback_cpu))
        self._completions = queue.SimpleQueue()
        self._completer = None
        self._completer_lock = threading.Lock()
        # A detector dropped without close() still ends its completion thread (after the frames queued).
        weakref.finalize(self, self._completions.put, None)
        _live_detectors.add(self)

    def detect(self, image, rgb=False):
        """The objects in one image: a uint8 H x W x 3 array (BGR; rgb=True for RGB) or a path.

        Returns a list of Detection (label, class_id, score, left, top, right, bottom), the numbers
        fpgacnn-detect prints for the same image. An array that is not C-contiguous uint8 H x W x 3
        raises TypeError (it is never copied silently).
        """
        if _is_path(image):
            return self._native.detect_path(os.fsdecode(image))
        return self._native.detect_array(image, rgb)

    def detect_many(self, images, rgb=False):
        """detect() of each image (arrays or paths), pipelined through submit(); a list of lists."""
        futures = [self.submit(image, rgb) for image in images]
        return [future.result() for future in futures]

    def submit(self, image, rgb=False):
        """Queues one image for the pipeline; returns a concurrent.futures.Future of its detections.

        Returns at once unless 4 frames are already in flight (then it waits for the oldest: a
        camera loop is paced by the device). The array is read in place and must not change until
        the future is done. A frame's failure is raised by its future's result().
        """
        if _is_path(image):
            pending = self._native.submit_path(os.fsdecode(image))
        else:
            pending = self._native.submit_array(image, rgb)
        future = concurrent.futures.Future()
        future.set_running_or_notify_cancel()
        self._completions.put((pending, future))
        self._start_completer()
        return future

    def forward(self, image, rgb=False):
        """The network's raw output for one image, for callers who decode boxes themselves.

        A YOLOv2 net ([region]): the region layer's activated values, one C x H x W float32 array. A
        YOLOv3 / YOLOv4 net ([yolo] heads): a list of such arrays, one per head in layer order (each
        head's activated values, as darknet's l.output). The arrays share the memory the runtime
        produced (no copy); later calls do not change them.
        """
        if _is_path(image):
            return self._native.forward(os.fsdecode(image), False, True)
        return self._native.forward(image, rgb, False)

    def flush(self):
        """Waits until every submitted frame is finished."""
        self._native.flush()

    @property
    def layer_times(self):
        """Per-layer times of the last detect() / forward(): dicts (layer, milliseconds, on_device, bytes_moved, cycles)."""
        return self._native.layer_times()

    @property
    def last_timing(self):
        """Times of the last detect() inside the runtime, in ms: ms (all), pre_ms (letterbox), device_ms, post_ms."""
        return self._native.last_timing()

    @property
    def info(self):
        """network (cfg), layers, input_size (w, h), device, precision, gop (per frame), thresh, nms."""
        return self._native.info()

    @property
    def verification(self):
        """Golden-twin counters: every, frames_verified, mismatches, fell_back."""
        return self._native.verification()

    def close(self):
        """Finishes the frames in flight and frees the device; the detector cannot be used afterwards."""
        self._native.close()
        with self._completer_lock:
            completer, self._completer = self._completer, None
        if completer is not None:
            self._completions.put(None)
            completer.join()
        _live_detectors.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        try:
            info = self.info
        except Error:
            return "<fpgacnn.Detector (closed)>"
        return (f"<fpgacnn.Detector {info['network']} {info['input_size'][0]}x{info['input_size'][1]} "
                f"on {info['device']}, {info['precision']}>")

    def _start_completer(self):
        with self._completer_lock:
            if self._completer is None:
                # One thread hands results to the futures: the runtime completes frames in submission
                # order, so waiting on each in turn loses nothing.
                self._completer = threading.Thread(target=_complete_futures, args=(self._completions,),
                                                   name="fpgacnn-futures", daemon=True)
                self._completer.start()


def _complete_futures(completions):
    while True:
        item = completions.get()
        if item is None:
            return
        pending, future = item
        try:
            future.set_result(pending.wait())
        except BaseException as error:  # the frame's own failure belongs to its future
            future.set_exception(error)


# Detectors still open when the interpreter exits are closed first, while their frames' arrays can
# still be released.
_live_detectors = weakref.WeakSet()


@atexit.register
def _close_live_detectors():
    for detector in list(_live_detectors):
        detector.close()


def _flags(options):
    """Keyword arguments as a tool's flags: name_with_underscores=value -> --name-with-underscores value
    (input_size -> --input);
    True -> the flag alone, False / None -> left out, a list -> the flag then each value."""
    flags = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        # input_size: the tools' --input, named as Detector's argument.
        flag = "--input" if name == "input_size" else "--" + name.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif isinstance(value, (list, tuple)):
            flags.append(flag)
            flags.extend(os.fspath(v) if isinstance(v, os.PathLike) else str(v) for v in value)
        else:
            flags.append(flag)
            flags.append(os.fspath(value) if isinstance(value, os.PathLike) else str(value))
    return flags


def quantize(cfg, weights, out, **options):
    """Calibrates a model to fixed point and writes the quantized model file `out`: fpgacnn-quantize.

    Keyword arguments are the tool's flags with underscores (images=[...], precision="int8",
    widths="0=16", explore=True, max_loss=2.0, percentile=99.9, report=True, input_size="416x416",
    plot="widths.png", ...); docs/tools/fpgacnn-quantize.md lists them and their defaults. Returns the
    dict fpgacnn-quantize --json prints. Raises ModelError when the model cannot be loaded and Error
    for a bad flag.
    """
    flags = _flags({"cfg": cfg, "weights": weights, "out": out, **options}) + ["--quiet"]
    return json.loads(_fpgacnn.run_quantize(flags))


def plan(cfg, **options):
    """How a cfg maps onto the accelerator: fpgacnn-plan (tiles, arena, traffic, estimated latency).

    Keyword arguments are the tool's flags with underscores (quantized=FILE, input_size="416x416",
    clock_mhz=150, bandwidth=4.2, port_bits=64, tm=32, tn=4, tr=26, tc=26, explore=True, board="xc7z020",
    ...); docs/tools/fpgacnn-plan.md lists them and their defaults. Returns the dict
    fpgacnn-plan --json prints. Raises ModelError when the cfg cannot be loaded and Error for a bad flag.
    """
    return json.loads(_fpgacnn.run_plan(_flags({"cfg": cfg, **options})))


set_log_level("warn")
