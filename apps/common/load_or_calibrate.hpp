// The int16 model fpgacnn-detect, fpgacnn-camera and fpgacnn-bench run, and the backend options
// their --device / --precision / --quantized flags come to.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn::apps {

/// The cfg with its --weights loaded and batch-norm folded, or the cfg alone when `weights` is empty
/// (int16 from a --quantized file needs no float weights).
Network load_model_files(const std::string& cfg, const std::string& weights,
                         std::optional<InputSizeOverride> input_override = std::nullopt);

/// Loaded from `quantized_file` (written by fpgacnn-quantize) when one is given, its parameters left
/// in the file until a backend packs or uploads them (ParameterLoading::OnDemand); else calibrated now
/// on darknet's sample images (a fixed set, so an image's detections do not depend on which other
/// images are in the run) or, when those are not installed, on `fallback_images`. Throws Error when
/// there is nothing to calibrate on. Either way `network` and the model's copy of it keep their
/// shapes only (release_float_parameters): fixed point never reads the float weights again.
/// `precision` (a fixed-point one; Auto counts as Mixed): calibration's widths (all 16, or 8 for the
/// conv layers with Int8); a file must have its widths (require_precision_widths); Mixed needs a file.
std::shared_ptr<const QuantizedNetwork> load_or_calibrate(
    Network& network, const std::string& quantized_file, bool progress,
    const std::vector<std::string>& fallback_images = {}, Precision precision = Precision::Int16);

/// make_backend's options for the flags: the device resolved once (so "auto" lists the devices
/// once, not per backend), the precision resolved for it and, for fixed point, load_or_calibrate()
/// (which frees `network`'s float parameters).
BackendOptions resolve_backend_options(Network& network, const std::string& device, Precision precision,
                                       const std::string& quantized_file, bool progress,
                                       const std::vector<std::string>& fallback_images = {});

}  // namespace fpgacnn::apps
