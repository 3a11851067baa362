#include "errors.hpp"

namespace py = pybind11;

namespace fpgacnn::python {

namespace {

// Owned for the life of the process, as the module's other types are (never decref'd at exit, when
// the interpreter may already be gone).
PyObject* new_exception(py::module_& module, const char* name, PyObject* base, const char* doc) {
    const std::string qualified = std::string("fpgacnn.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
    if (type == nullptr) throw py::error_already_set();
    module.attr(name) = py::handle(type);
    return type;
}

}  // namespace

void register_errors(py::module_& module) {
    static PyObject* const error = new_exception(
        module, "Error", PyExc_RuntimeError,
        "Every failure of fpgacnn; the message names the file, layer or device and what to do.");
    static PyObject* const model_error = new_exception(
        module, "ModelError", error,
        "The model cannot be loaded: its cfg, weights, class names or quantized file, or calibration.");
    static PyObject* const device_error =
        new_exception(module, "DeviceError", error,
                      "The accelerator failed: it cannot be opened, does not answer, times out or vanished "
                      "(fallback_cpu=True continues on the CPU after one).");
    // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11 takes a translator of this type
    py::register_exception_translator([](std::exception_ptr raised) {
        try {
            if (raised) std::rethrow_exception(raised);
        } catch (const ModelError& e) {
            PyErr_SetString(model_error, e.what());
        } catch (const DeviceError& e) {
            PyErr_SetString(device_error, e.what());
        } catch (const Error& e) {
            PyErr_SetString(error, e.what());
        }
    });
}

}  // namespace fpgacnn::python
