// fpgacnn.Error and its subclasses ModelError and DeviceError: the C++ exceptions as Python ones,
// with the C++ message unchanged (it names the file, layer or device and what to do).
#pragma once

#include <pybind11/pybind11.h>

#include "fpgacnn/error.hpp"

namespace fpgacnn::python {

/// A failure to load the model: its cfg, weights, class names or quantized file, or calibration.
/// Raised in Python as fpgacnn.ModelError.
class ModelError : public Error {
public:
    explicit ModelError(const std::string& message) : Error(message) {}
};

/// Runs `load`, turning any fpgacnn::Error it throws other than a DeviceError into a ModelError.
template <typename Load>
auto as_model_error(const Load& load) -> decltype(load()) {
    try {
        return load();
    } catch (const DeviceError&) {
        throw;
    } catch (const ModelError&) {
        throw;
    } catch (const Error& e) {
        throw ModelError(e.what());
    }
}

/// Adds Error (a RuntimeError), ModelError and DeviceError to `module` and translates the C++
/// exceptions to them.
void register_errors(pybind11::module_& module);

}  // namespace fpgacnn::python
