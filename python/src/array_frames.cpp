#include "array_frames.hpp"

#include <memory>
#include <string>

#include <pybind11/numpy.h>

namespace py = pybind11;

namespace fpgacnn::python {

namespace {

std::string describe(const py::array& array) {
    std::string shape = "(";
    for (py::ssize_t i = 0; i < array.ndim(); ++i)
        shape += (i > 0 ? ", " : "") + std::to_string(array.shape(i));
    shape += array.ndim() == 1 ? ",)" : ")";
    return std::string(py::str(array.dtype())) + " array of shape " + shape;
}

[[noreturn]] void refuse(const char* what, const std::string& got) {
    throw py::type_error(std::string(what) +
                         ": expected a C-contiguous uint8 array of shape (H, W, 3) (BGR as cv2 gives it, or "
                         "RGB with rgb=True) or an image path; got " +
                         got);
}

}  // namespace

FrameInput frame_of_array(const py::handle& image, bool rgb, const char* what) {
    if (!py::isinstance<py::array>(image)) refuse(what, std::string(py::str(py::type::handle_of(image))));
    const auto array = py::reinterpret_borrow<py::array>(image);
    if (!array.dtype().is(py::dtype::of<std::uint8_t>()) || array.ndim() != 3 || array.shape(2) != 3)
        refuse(what, describe(array));
    if ((array.flags() & py::array::c_style) == 0) {
        refuse(what, "a non-contiguous " + describe(array) +
                         " (np.ascontiguousarray(image) makes the copy this call will not make silently)");
    }
    RgbPixelsView view(static_cast<const std::uint8_t*>(array.data()),
                       static_cast<std::size_t>(array.nbytes()), static_cast<int>(array.shape(1)),
                       static_cast<int>(array.shape(0)));
    view.bgr = !rgb;
    // The owner keeps the array alive while the pipeline reads it; its last reference may be dropped
    // on a pipeline thread, which must hold the GIL to release a Python object.
    auto* owned = new py::object(py::reinterpret_borrow<py::object>(image));
    std::shared_ptr<const void> owner(owned, [](const py::object* object) {
        py::gil_scoped_acquire gil;
        delete object;
    });
    return FrameInput(view, std::move(owner));
}

}  // namespace fpgacnn::python
