#!/usr/bin/python3
"""A camera (or video file) loop: OpenCV capture -> Detector.submit -> draw, with the device kept busy.

    /usr/bin/python3 examples/python/camera_loop.py MODEL.cfg MODEL.weights CLASSES.names \
        [--source 0 | --source video.avi] [--output annotated.avi] [--frames N] [--show]

Frames are submitted as they arrive; up to --depth of them are in flight while the oldest is drawn,
so capture, pre-processing, the device and post-processing overlap (Detector.submit).
"""
import argparse
import collections
import time

import cv2

import fpgacnn


def draw(frame, detections):
    for d in detections:
        cv2.rectangle(frame, (d.left, d.top), (d.right, d.bottom), (0, 200, 255), 2)
        cv2.putText(frame, f"{d.label} {d.score:.2f}", (d.left, max(d.top - 4, 10)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5, (0, 200, 255), 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cfg")
    parser.add_argument("weights")
    parser.add_argument("names")
    parser.add_argument("--source", default="0", help="camera index or video file")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--quantized")
    parser.add_argument("--output", help="write the annotated frames to this video file (MJPG)")
    parser.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: at the end)")
    parser.add_argument("--depth", type=int, default=3, help="frames in flight")
    parser.add_argument("--show", action="store_true", help="show the frames in a window (q quits)")
    args = parser.parse_args()

    capture = cv2.VideoCapture(int(args.source) if args.source.isdigit() else args.source)
    if not capture.isOpened():
        raise SystemExit(f"{args.source}: cannot open the camera or video")
    writer = None
    in_flight = collections.deque()  # (frame, future), oldest first
    shown = 0
    start = time.perf_counter()
    with fpgacnn.Detector(args.cfg, args.weights, names=args.names, device=args.device, precision=args.precision,
                          quantized=args.quantized) as detector:
        while True:
            ok, frame = capture.read() if not args.frames or shown + len(in_flight) < args.frames else (False, None)
            if ok:
                # The frame array is read in place: it is not touched again until its future is done.
                in_flight.append((frame, detector.submit(frame)))
            if not in_flight:
                break
            if ok and len(in_flight) < args.depth:
                continue
            frame, future = in_flight.popleft()
            detections = future.result()
            draw(frame, detections)
            shown += 1
            print(f"frame {shown}: " + ", ".join(f"{d.label} {d.score:.2f}" for d in detections), flush=True)
            if args.output:
                if writer is None:
                    height, width = frame.shape[:2]
                    writer = cv2.VideoWriter(args.output, cv2.VideoWriter_fourcc(*"MJPG"), 25, (width, height))
                writer.write(frame)
            if args.show:
                cv2.imshow("fpgacnn", frame)
                if cv2.waitKey(1) & 0xFF == ord("q"):
                    break
        # Leaving the with block finishes any frame still in flight.
    elapsed = time.perf_counter() - start
    if writer is not None:
        writer.release()
    print(f"{shown} frames in {elapsed:.2f} s ({shown / elapsed:.1f} FPS) on {args.device}")


if __name__ == "__main__":
    main()
