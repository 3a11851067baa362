// numpy arrays as the Detector's input, read where they lie: a C-contiguous uint8 H x W x 3 array
// becomes a FrameInput viewing its bytes (BGR as cv2 gives them, or RGB), with the array kept alive
// by the frame. Anything else is refused with a TypeError saying what is expected: a silent
// conversion would copy every frame of a camera loop without the caller knowing.
#pragma once

#include <pybind11/pybind11.h>

#include "fpgacnn/frame_input.hpp"

namespace fpgacnn::python {

/// The frame viewing `image` (checked as above; `what` names the call in the TypeError). The frame
/// holds a reference to the array, released with the GIL taken, so it may outlive the call (submit).
FrameInput frame_of_array(const pybind11::handle& image, bool rgb, const char* what);

}  // namespace fpgacnn::python
