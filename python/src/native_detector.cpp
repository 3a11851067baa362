#include "native_detector.hpp"

#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "../../apps/common/load_or_calibrate.hpp"
#include "array_frames.hpp"
#include "errors.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/vision.hpp"

namespace py = pybind11;

namespace fpgacnn::python {

namespace {

struct DetectorArguments {
    std::string cfg;
    std::string weights;
    std::string quantized;
    std::string names;
    std::string device;
    std::string precision;
    std::string input_size;
    float thresh = 0;
    float nms = 0;
    int verify_every = 0;
    bool fallback_cpu = false;
};

// What fpgacnn-detect's run() builds from the same flags (apps/detect/main.cpp), with model
// failures as ModelError: loading the files and calibrating or loading the fixed-point model.
std::unique_ptr<Detector> make_detector(const DetectorArguments& a) {
    const Precision precision = parse_precision(a.precision);
    const std::string device = resolve_device(a.device);
    std::optional<InputSizeOverride> input_override;
    if (!a.input_size.empty()) input_override = parse_input_size(a.input_size);
    Network network =
        as_model_error([&] { return apps::load_model_files(a.cfg, a.weights, input_override); });
    std::vector<std::string> names;
    if (!a.names.empty()) names = as_model_error([&] { return load_class_names(a.names); });
    DetectorOptions options;
    options.backend = as_model_error(
        [&] { return apps::resolve_backend_options(network, device, precision, a.quantized, false); });
    options.backend.cpu_fallback = a.fallback_cpu;
    options.thresh = a.thresh;
    options.nms = a.nms;
    options.verify.every = a.verify_every;
    return std::make_unique<Detector>(std::move(network), std::move(names), options);
}

// One frame given to submit(): its future, waited on by the package's completion thread.
class PendingFrame {
public:
    explicit PendingFrame(std::future<DetectionResult> future) : future_(std::move(future)) {}

    std::vector<Detection> wait() {
        if (!future_.valid()) throw Error("PendingFrame.wait: the result was already taken");
        py::gil_scoped_release release;
        return future_.get().detections;
    }

private:
    std::future<DetectionResult> future_;
};

class NativeDetector {
public:
    explicit NativeDetector(const DetectorArguments& arguments)
        : cfg_(arguments.cfg), precision_(arguments.precision) {
        py::gil_scoped_release release;  // loading, calibrating and opening a device take a while
        detector_ = make_detector(arguments);
        precision_ = precision_name(detector_->options().backend.precision);
    }
    ~NativeDetector() {
        try {
            close();
        } catch (...) {  // a destructor must not throw; close() only fails if the GIL cannot be released
        }
    }
    NativeDetector(const NativeDetector&) = delete;
    NativeDetector& operator=(const NativeDetector&) = delete;

    // The destructor finishes the frames in flight, whose arrays are released with the GIL taken.
    void close() {
        std::shared_ptr<Detector> detector;
        {
            std::lock_guard<std::mutex> lock(live_);
            detector = std::move(detector_);
        }
        if (!detector) return;
        py::gil_scoped_release release;
        detector.reset();
    }

    std::vector<Detection> detect_array(const py::handle& image, bool rgb) {
        FrameInput frame = frame_of_array(image, rgb, "Detector.detect");
        return run_released([&](Detector& d) { return kept(d.detect(frame)); });
    }

    std::vector<Detection> detect_path(const std::string& path) {
        return run_released([&](Detector& d) { return kept(d.detect(load_image(path))); });
    }

    // The C++ API's loops that benchmarks/python_overhead.py compares the Python ones with, in the same
    // process on the same arrays: `frames` detect() calls, or submit() calls with at most `in_flight`
    // futures waited on oldest first (Detector.submit's pattern in a camera loop). Seconds taken.
    double time_cpp_loop(const py::list& images, int frames, int in_flight) {
        std::vector<FrameInput> inputs;
        for (const py::handle image : images) inputs.push_back(frame_of_array(image, false, "time_cpp_loop"));
        if (inputs.empty() || frames <= 0) throw Error("time_cpp_loop: needs images and frames > 0");
        return run_released(
            [&](Detector& d) {
                const auto start = std::chrono::steady_clock::now();
                std::deque<std::future<DetectionResult>> futures;
                for (int i = 0; i < frames; ++i) {
                    const FrameInput& input = inputs[static_cast<std::size_t>(i) % inputs.size()];
                    if (in_flight <= 0) {
                        d.detect(input);
                        continue;
                    }
                    if (static_cast<int>(futures.size()) == in_flight) {
                        futures.front().get();
                        futures.pop_front();
                    }
                    futures.push_back(d.submit(input));
                }
                for (auto& future : futures) future.get();
                return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            },
            in_flight <= 0);
    }

    // The C++ Detector::detect's own times of the last detect(): what the binding adds is the
    // caller's wall time minus `ms` (benchmarks/python_overhead.py).
    py::dict last_timing() {
        std::lock_guard<std::mutex> lock(calls_);
        return py::dict(py::arg("ms") = last_.milliseconds, py::arg("pre_ms") = last_.pre_ms,
                        py::arg("device_ms") = last_.device_ms, py::arg("post_ms") = last_.post_ms);
    }

    PendingFrame submit_array(const py::handle& image, bool rgb) {
        FrameInput frame = frame_of_array(image, rgb, "Detector.submit");
        return PendingFrame(run_released([&](Detector& d) { return d.submit(std::move(frame)); }, false));
    }

    PendingFrame submit_path(const std::string& path) {
        return PendingFrame(run_released([&](Detector& d) { return d.submit(load_image(path)); }, false));
    }

    // The output the runtime handed over, owned by the arrays' base: no copy, and no later call
    // changes it. A [region] net: its activated output as one C x H x W array. [yolo] nets: a list with
    // each head's (layer order), views into that one buffer (the runtime concatenates the heads).
    py::object forward(const py::handle& image, bool rgb, bool is_path) {
        std::optional<FrameInput> frame;
        std::string path;
        if (is_path) {
            path = py::str(image);
        } else {
            frame = frame_of_array(image, rgb, "Detector.forward");
        }
        std::vector<TensorShape> heads;
        bool region = false;
        auto* output = new std::vector<float>(run_released([&](Detector& d) {
            is_path ? d.detect(load_image(path)) : d.detect(*frame);
            const Network& network = d.network();
            for (const int i : network.output_layer_indices()) {
                const Layer& head = network.layers[static_cast<std::size_t>(i)];
                heads.push_back(head.output);
                region = head.type == LayerType::Region;  // a [region] net has one output layer
            }
            return d.take_region_output();
        }));
        py::capsule owner(output, [](void* vector) { delete static_cast<std::vector<float>*>(vector); });
        const auto array_at = [&](const TensorShape& shape, std::size_t offset) {
            return py::array_t<float>({shape.c, shape.h, shape.w}, output->data() + offset, owner);
        };
        if (region) return array_at(heads.front(), 0);
        py::list arrays;
        std::size_t offset = 0;
        for (const TensorShape& shape : heads) {
            arrays.append(array_at(shape, offset));
            offset += shape.size();
        }
        return std::move(arrays);
    }

    py::list layer_times() {
        const std::vector<LayerTiming> times = run_released([](Detector& d) { return d.layer_times(); });
        py::list list;
        for (const LayerTiming& t : times) {
            list.append(py::dict(py::arg("layer") = t.layer, py::arg("milliseconds") = t.milliseconds,
                                 py::arg("on_device") = t.on_device, py::arg("bytes_moved") = t.bytes_moved,
                                 py::arg("cycles") = t.cycles));
        }
        return list;
    }

    py::dict info() {
        const std::shared_ptr<Detector> detector = live();
        const Network& network = detector->network();
        return py::dict(py::arg("network") = cfg_, py::arg("layers") = network.layers.size(),
                        py::arg("input_size") = py::make_tuple(network.input.w, network.input.h),
                        py::arg("device") = detector->device_name(), py::arg("precision") = precision_,
                        py::arg("gop") = 2.0 * static_cast<double>(network.conv_macs()) / 1e9,
                        py::arg("thresh") = detector->options().thresh,
                        py::arg("nms") = detector->options().nms);
    }

    py::dict verification() {
        const VerificationStats stats = live()->verification();
        return py::dict(py::arg("every") = stats.every, py::arg("frames_verified") = stats.frames_verified,
                        py::arg("mismatches") = stats.mismatches, py::arg("fell_back") = stats.fell_back);
    }

    void flush() {
        run_released([](Detector& d) {
            d.flush();
            return 0;
        });
    }

private:
    // Keeps the times of `result` (called under calls_) and hands back its detections.
    std::vector<Detection> kept(DetectionResult result) {
        last_ = result;
        last_.detections.clear();
        return std::move(result.detections);
    }

    std::shared_ptr<Detector> live() {
        std::lock_guard<std::mutex> lock(live_);
        if (!detector_) throw Error("fpgacnn.Detector: used after close()");
        return detector_;
    }

    // `work` on the detector without the GIL. detect() and forward() are serialised here (`serialise`)
    // so that forward's take_region_output() takes its own frame's output; submit() runs beside them.
    template <typename Work>
    auto run_released(const Work& work, bool serialise = true) -> decltype(work(std::declval<Detector&>())) {
        std::shared_ptr<Detector> detector = live();
        py::gil_scoped_release release;
        // Dropped here, without the GIL: if close() ran meanwhile, this destroys the detector, which
        // waits for frames whose arrays are released with the GIL taken.
        const auto drop = [&] { detector.reset(); };
        try {
            std::unique_lock<std::mutex> lock(calls_, std::defer_lock);
            if (serialise) lock.lock();
            auto result = work(*detector);
            drop();
            return result;
        } catch (...) {
            drop();
            throw;
        }
    }

    std::string cfg_;
    std::string precision_;
    std::mutex live_;  // detector_ against close()
    std::shared_ptr<Detector> detector_;
    std::mutex calls_;
    DetectionResult last_;  // the last detect()'s times (no detections), under calls_
};

}  // namespace

void register_detector(py::module_& module) {
    py::class_<Detection>(module, "Detection", "One object found in an image, in pixels of that image.")
        .def_property_readonly(
            "label", [](const Detection& d) { return d.class_name; }, "class name (from names=; else the id)")
        .def_readonly("class_id", &Detection::class_id)
        .def_property_readonly(
            "score", [](const Detection& d) { return d.prob; }, "class probability, 0..1")
        .def_readonly("left", &Detection::left)
        .def_readonly("top", &Detection::top)
        .def_readonly("right", &Detection::right)
        .def_readonly("bottom", &Detection::bottom)
        .def(
            "as_dict",
            [](const Detection& d) {
                return py::dict(py::arg("label") = d.class_name, py::arg("class_id") = d.class_id,
                                py::arg("score") = d.prob, py::arg("left") = d.left, py::arg("top") = d.top,
                                py::arg("right") = d.right, py::arg("bottom") = d.bottom);
            },
            "The detection as a dict (label, class_id, score, left, top, right, bottom).")
        .def("__repr__", [](const Detection& d) {
            return "Detection(label=" + std::string(py::repr(py::str(d.class_name))) +
                   ", class_id=" + std::to_string(d.class_id) + ", score=" + std::to_string(d.prob) +
                   ", left=" + std::to_string(d.left) + ", top=" + std::to_string(d.top) +
                   ", right=" + std::to_string(d.right) + ", bottom=" + std::to_string(d.bottom) + ")";
        });

    py::class_<PendingFrame>(module, "PendingFrame",
                             "A submitted frame (internal: Detector.submit's Future).")
        .def("wait", &PendingFrame::wait, "Blocks (without the GIL) until the frame's detections are ready.");

    py::class_<NativeDetector>(module, "NativeDetector", "The C++ Detector (internal: use fpgacnn.Detector).")
        .def(py::init([](std::string cfg, std::string weights, std::string quantized, std::string names,
                         std::string device, std::string precision, std::string input_size, float thresh,
                         float nms, int verify_every, bool fallback_cpu) {
                 return std::make_unique<NativeDetector>(
                     DetectorArguments{std::move(cfg), std::move(weights), std::move(quantized),
                                       std::move(names), std::move(device), std::move(precision),
                                       std::move(input_size), thresh, nms, verify_every, fallback_cpu});
             }),
             py::arg("cfg"), py::arg("weights"), py::arg("quantized"), py::arg("names"), py::arg("device"),
             py::arg("precision"), py::arg("input_size"), py::arg("thresh"), py::arg("nms"),
             py::arg("verify_every"), py::arg("fallback_cpu"))
        .def("detect_array", &NativeDetector::detect_array, py::arg("image"), py::arg("rgb"))
        .def("detect_path", &NativeDetector::detect_path, py::arg("path"))
        .def("submit_array", &NativeDetector::submit_array, py::arg("image"), py::arg("rgb"))
        .def("submit_path", &NativeDetector::submit_path, py::arg("path"))
        .def("forward", &NativeDetector::forward, py::arg("image"), py::arg("rgb"), py::arg("is_path"))
        .def("layer_times", &NativeDetector::layer_times)
        .def("last_timing", &NativeDetector::last_timing)
        .def("time_cpp_loop", &NativeDetector::time_cpp_loop, py::arg("images"), py::arg("frames"),
             py::arg("in_flight"),
             "benchmarks/python_overhead.py: the C++ API's detect (in_flight 0) or submit loop")
        .def("info", &NativeDetector::info)
        .def("verification", &NativeDetector::verification)
        .def("flush", &NativeDetector::flush)
        .def("close", &NativeDetector::close);
}

}  // namespace fpgacnn::python
