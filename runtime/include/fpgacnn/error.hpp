// One exception type for every user-facing failure: the message names the file / layer /
// device involved and what to do about it, so callers can print it as is.
#pragma once

#include <stdexcept>
#include <string>
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// The exception fpgacnn throws for bad input, misuse and failures; what() is the whole message, meant
/// for the user as it is. DeviceError derives from it for the accelerator's failures.
class FPGACNN_API Error : public std::runtime_error {
public:
    /// `message` names what failed (file, layer, device) and what to do; what() returns it.
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// A failure of the accelerator rather than of the model or the input: the device cannot be opened,
/// does not answer, times out, vanished, reports a wrong status, or its kernel build cannot run
/// what was asked (fingerprint, maxima). Thrown by the drivers and the device queue; the CPU would
/// not hit it, so `--fallback cpu` continues on the CPU after a DeviceError, and only then.
class FPGACNN_API DeviceError : public Error {
public:
    /// `message` names the device and the layer where there is one; what() returns it.
    explicit DeviceError(const std::string& message) : Error(message) {}
};

}  // namespace fpgacnn
