// One exception type for every user-facing failure: the message names the file / layer /
// device involved and what to do about it, so callers can print it as is.
#pragma once

#include <stdexcept>
#include <string>
#include "fpgacnn/export.hpp"

namespace fpgacnn {

class FPGACNN_API Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// A failure of the accelerator rather than of the model or the input: the device cannot be opened,
/// does not answer, times out, vanished, reports a wrong status, or its kernel build cannot run
/// what was asked (fingerprint, maxima). Thrown by the drivers and the device queue; the CPU would
/// not hit it, so `--fallback cpu` continues on the CPU after a DeviceError, and only then.
class FPGACNN_API DeviceError : public Error {
public:
    explicit DeviceError(const std::string& message) : Error(message) {}
};

}  // namespace fpgacnn
