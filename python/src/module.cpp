// fpgacnn._fpgacnn: the compiled half of the Python package (python/fpgacnn/__init__.py is the API).
// Built on libfpgacnn's installed headers only, plus the tools' own code where the package returns
// what a tool prints (tool_commands.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "errors.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/logging.hpp"
#include "fpgacnn/version.hpp"
#include "native_detector.hpp"
#include "tool_commands.hpp"

namespace py = pybind11;

namespace {

py::list list_devices() {
    std::vector<fpgacnn::DeviceInfo> devices;
    {
        py::gil_scoped_release release;  // opening each device to describe it may take a moment
        devices = fpgacnn::list_devices();
    }
    py::list list;
    for (const fpgacnn::DeviceInfo& d : devices) {
        list.append(py::dict(py::arg("spec") = d.spec, py::arg("name") = d.name, py::arg("usable") = d.usable,
                             py::arg("detail") = d.detail));
    }
    return list;
}

}  // namespace

PYBIND11_MODULE(_fpgacnn, module) {
    module.doc() = "fpgacnn's compiled core; import fpgacnn for the API.";
    // The library's version (the one the package runs with, fpgacnn::version()), not the headers'.
    module.attr("__version__") = fpgacnn::version();
    fpgacnn::python::register_errors(module);
    fpgacnn::python::register_detector(module);
    fpgacnn::python::register_tool_commands(module);
    module.def("list_devices", &list_devices,
               "Every device this machine offers, usable or not (fpgacnn-detect --list-devices).");
    py::enum_<fpgacnn::LogLevel>(module, "LogLevel")
        .value("quiet", fpgacnn::LogLevel::Quiet)
        .value("warn", fpgacnn::LogLevel::Warn)
        .value("info", fpgacnn::LogLevel::Info)
        .value("debug", fpgacnn::LogLevel::Debug)
        .value("trace", fpgacnn::LogLevel::Trace);
    module.def("set_log_level", &fpgacnn::set_log_level, py::arg("level"),
               "The level of the library's log on stderr.");
}
