# Zero copy: arrays are read in place (never converted silently), forward() hands over the runtime's
# own output buffer, and a thousand calls leave the resident set flat.
import sys

import cv2
import numpy as np
import pytest

from conftest import SAMPLE_IMAGES, detector


@pytest.fixture(scope="module")
def det(model):
    with detector(model, device="cpu", precision="float") as d:
        yield d


@pytest.fixture(scope="module")
def dog():
    return cv2.imread(str(SAMPLE_IMAGES[0]))


@pytest.mark.parametrize("bad, why", [
    (lambda a: a.astype(np.float32), "float32"),
    (lambda a: a[:, ::2], "non-contiguous"),
    (lambda a: np.asfortranarray(a), "non-contiguous"),
    (lambda a: a[:, :, 0], "shape (576, 768)"),
    (lambda a: np.dstack([a, a[:, :, :1]]), "shape (576, 768, 4)"),
    (lambda a: a.tolist(), "list"),
])
def test_wrong_arrays_raise_type_error(det, dog, bad, why):
    for call in (det.detect, det.submit, det.forward):
        with pytest.raises(TypeError, match="C-contiguous uint8 array of shape \\(H, W, 3\\)") as raised:
            call(bad(dog))
        assert why in str(raised.value)


def test_submitted_array_is_held_not_copied(det, dog):
    frame = dog.copy()
    before = sys.getrefcount(frame)
    future = det.submit(frame)
    det.flush()
    future.result()
    # The pipeline held the array object itself (a copy would not count), and let it go.
    assert sys.getrefcount(frame) == before


def test_read_in_place_sees_the_callers_bytes(det, dog):
    # The same bytes through a view with other strides is refused; through the array itself they are
    # what the detector reads: changing the array in place changes the result.
    frame = dog.copy()
    first = det.forward(frame)
    frame[:] = 0
    assert not np.array_equal(first, det.forward(frame))


def test_forward_returns_runtime_memory_owned_by_its_base(det, dog):
    out = det.forward(dog)
    assert out.dtype == np.float32 and out.ndim == 3 and out.flags.c_contiguous
    assert not out.flags.owndata and type(out.base).__name__ == "PyCapsule"
    kept = out.copy()
    again = det.forward(cv2.imread(str(SAMPLE_IMAGES[1])))
    assert not np.shares_memory(out, again)
    assert np.array_equal(out, kept), "a later forward() changed an earlier array"
    del det  # the array outlives nothing it needs: its base owns the buffer
    assert np.isfinite(out).all()


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_thousand_calls_leave_rss_flat(det, dog):
    small = cv2.resize(dog, (160, 120))
    for _ in range(100):  # warm up: allocator pools, OpenBLAS buffers
        det.detect(small)
        det.forward(small)
    start = rss_kib()
    for i in range(1000):
        if i % 2:
            det.detect(small)
        else:
            det.forward(small)
        if i % 10 == 0:
            det.submit(small).result()
    grown = rss_kib() - start
    # forward() alone hands over ~(C*H*W*4) bytes a call; leaking them would grow by tens of MB.
    assert grown < 4096, f"RSS grew by {grown} KiB over 1000 calls"
