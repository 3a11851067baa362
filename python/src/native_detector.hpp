// The Detector as the Python package's fpgacnn._fpgacnn.Detector (python/fpgacnn/__init__.py wraps it):
// built from the same flags as fpgacnn-detect (apps/common/load_or_calibrate.hpp), detect / submit /
// forward on numpy arrays read in place or image paths, with the GIL released while the runtime works.
#pragma once

#include <pybind11/pybind11.h>

namespace fpgacnn::python {

/// Adds Detector, Detection and PendingFrame to `module`.
void register_detector(pybind11::module_& module);

}  // namespace fpgacnn::python
