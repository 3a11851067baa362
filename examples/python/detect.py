#!/usr/bin/python3
"""Detect objects in images with fpgacnn and print them as fpgacnn-detect's text output does.

    /usr/bin/python3 examples/python/detect.py MODEL.cfg MODEL.weights CLASSES.names IMAGE... \
        [--device cpu] [--precision int16] [--quantized MODEL.q16] [--output annotated/]
"""
import argparse
import os
import time

import cv2

import fpgacnn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cfg")
    parser.add_argument("weights")
    parser.add_argument("names")
    parser.add_argument("images", nargs="+")
    parser.add_argument("--device", default="auto", help="auto, cpu, emu, xrt:0, uio:NAME (fpgacnn.list_devices())")
    parser.add_argument("--precision", default="auto", help="auto, float, int16, int8, mixed")
    parser.add_argument("--quantized", help="quantized model file from fpgacnn-quantize")
    parser.add_argument("--output", help="folder for copies of the images with their boxes drawn")
    args = parser.parse_args()

    with fpgacnn.Detector(args.cfg, args.weights, names=args.names, device=args.device, precision=args.precision,
                          quantized=args.quantized) as detector:
        for path in args.images:
            image = cv2.imread(path)  # BGR uint8 H x W x 3: read in place by the detector
            if image is None:
                raise SystemExit(f"{path}: cannot read the image")
            start = time.perf_counter()
            detections = detector.detect(image)
            print(f"{path}: Predicted in {(time.perf_counter() - start) * 1e3:.1f} ms.")
            for d in detections:
                print(f"{d.label}: {d.score * 100:.0f}%  (left {d.left}, top {d.top}, right {d.right}, "
                      f"bottom {d.bottom})")
            if args.output:
                os.makedirs(args.output, exist_ok=True)
                for d in detections:
                    cv2.rectangle(image, (d.left, d.top), (d.right, d.bottom), (0, 200, 255), 2)
                    cv2.putText(image, d.label, (d.left, max(d.top - 4, 10)), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                                (0, 200, 255), 2)
                cv2.imwrite(os.path.join(args.output, os.path.basename(path)), image)


if __name__ == "__main__":
    main()
