# The GIL is released while the runtime works, and futures from several threads come back right.
import sys
import threading
import time

import cv2

from conftest import SAMPLE_IMAGES, detector


def test_python_thread_runs_while_detect_works(model):
    with detector(model, device="cpu", precision="float") as det:
        big = cv2.resize(cv2.imread(str(SAMPLE_IMAGES[0])), (1920, 1440))
        window = {}
        ticks = []
        stop = threading.Event()

        def worker():
            window["enter"] = time.perf_counter()
            for _ in range(5):
                det.detect(big)
            window["exit"] = time.perf_counter()
            stop.set()

        # A long switch interval: without a GIL release inside detect(), the main thread cannot run
        # between "enter" and "exit" at all (the worker is never asked to yield in under 2 s).
        old = sys.getswitchinterval()
        sys.setswitchinterval(2.0)
        try:
            thread = threading.Thread(target=worker)
            thread.start()
            while not stop.is_set():
                ticks.append(time.perf_counter())
            thread.join()
        finally:
            sys.setswitchinterval(old)
        inside = [t for t in ticks if window["enter"] < t < window["exit"]]
        assert len(inside) > 1000, f"{len(inside)} main-thread iterations during 5 detect() calls"


def test_futures_from_four_threads(model):
    with detector(model, device="cpu", precision="float") as det:
        images = [cv2.imread(str(p)) for p in SAMPLE_IMAGES]
        expected = [[d.as_dict() for d in det.detect(i)] for i in images]
        results = {}

        def submitter(thread):
            futures = [(k, det.submit(images[k])) for _ in range(3) for k in range(len(images))]
            results[thread] = [(k, [d.as_dict() for d in f.result(timeout=120)]) for k, f in futures]

        threads = [threading.Thread(target=submitter, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(results) == 4
        for thread, answers in results.items():
            assert len(answers) == 3 * len(images)
            for k, detections in answers:
                assert detections == expected[k], (thread, k)
