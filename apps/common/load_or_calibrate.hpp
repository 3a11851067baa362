// The int16 model fpgacnn-detect, fpgacnn-camera and fpgacnn-bench run, and the backend options
// their --device / --precision / --quantized flags come to.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/detector.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn::apps {

/// Loaded from `quantized_file` (written by fpgacnn-quantize) when one is given, else calibrated now
/// on darknet's sample images (a fixed set, so an image's detections do not depend on which other
/// images are in the run) or, when those are not installed, on `fallback_images`. Throws Error when
/// there is nothing to calibrate on.
std::shared_ptr<const QuantizedNetwork> load_or_calibrate(
    const Network& network, const std::string& quantized_file, bool progress,
    const std::vector<std::string>& fallback_images = {});

/// make_backend's options for the flags: the device resolved once (so "auto" lists the devices
/// once, not per backend), the precision resolved for it and, for int16, load_or_calibrate().
BackendOptions resolve_backend_options(const Network& network, const std::string& device, Precision precision,
                                       const std::string& quantized_file, bool progress,
                                       const std::vector<std::string>& fallback_images = {});

}  // namespace fpgacnn::apps
