// What the gRPC front end's tests share: a model repository with YOLO-LITE, a core that records (and
// can hold) the requests the front end hands it, a client stub on the front end's port, and the
// ModelInfer requests of darknet's sample images in both input forms.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/vision.hpp"
#include "front_end.hpp"
#include "grpc_service.grpc.pb.h"
#include "protocol_tensors.hpp"
#include "repository_core.hpp"
#include "serve_test_repository.hpp"
#include "test_paths.hpp"

namespace fpgacnn::serve::test_support {

inline std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Passes every call to the RepositoryCore; keeps the last InferenceRequest and the kind of the last
/// ServeError, and while held, makes infer wait (before the model sees the request) until released.
class RecordingCore final : public InferenceCore {
public:
    explicit RecordingCore(InferenceCore& inner) : inner_(inner) {}

    bool live() const override { return inner_.live(); }
    bool ready() const override { return inner_.ready(); }
    ServerMetadata server_metadata() const override { return inner_.server_metadata(); }
    std::vector<std::string> model_names() const override { return inner_.model_names(); }
    bool model_ready(const std::string& name, const std::string& version) const override {
        return inner_.model_ready(name, version);
    }
    ModelMetadata model_metadata(const std::string& name, const std::string& version) const override {
        return inner_.model_metadata(name, version);
    }
    std::string metrics_text() const override { return inner_.metrics_text(); }

    InferenceResponse infer(InferenceRequest request) override {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            last_request_ = request;
            ++entered_;
            changed_.notify_all();
            changed_.wait(lock, [&] { return !held_; });
        }
        try {
            return inner_.infer(std::move(request));
        } catch (const ServeError& e) {
            const std::lock_guard<std::mutex> lock(mutex_);
            last_error_ = e.kind();
            throw;
        }
    }

    void hold() {
        const std::lock_guard<std::mutex> lock(mutex_);
        held_ = true;
    }
    void release() {
        const std::lock_guard<std::mutex> lock(mutex_);
        held_ = false;
        changed_.notify_all();
    }
    /// Waits until `count` infer calls have arrived in all; returns the last one's request.
    InferenceRequest wait_for_calls(int count) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return entered_ >= count; });
        return last_request_;
    }
    InferenceRequest last_request() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return last_request_;
    }
    std::optional<ErrorKind> last_error() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return last_error_;
    }

private:
    InferenceCore& inner_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool held_ = false;
    int entered_ = 0;
    InferenceRequest last_request_;
    std::optional<ErrorKind> last_error_;
};

inline std::unique_ptr<inference::GRPCInferenceService::Stub> stub_for(
    unsigned short port,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials = grpc::InsecureChannelCredentials()) {
    return inference::GRPCInferenceService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(port), credentials));
}

/// A client context whose call fails rather than hangs if something goes wrong.
inline std::unique_ptr<grpc::ClientContext> context_with_deadline(
    std::chrono::seconds timeout = std::chrono::seconds(120)) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + timeout);
    return context;
}

/// ModelInfer of an encoded file as BYTES [1] in raw_input_contents.
inline inference::ModelInferRequest encoded_request(const std::string& image_file, const std::string& id) {
    inference::ModelInferRequest request;
    request.set_model_name("yolo-lite");
    request.set_id(id);
    auto* input = request.add_inputs();
    input->set_name("image");
    input->set_datatype("BYTES");
    input->add_shape(1);
    request.add_raw_input_contents(join_raw_bytes({file_text(image_file)}));
    return request;
}

/// The file's RGB pixels as the server decodes them (load_image: floats of byte / 255).
inline std::string rgb_pixels(const Image& image) {
    std::string pixels;
    pixels.reserve(static_cast<std::size_t>(image.w) * image.h * 3);
    for (int y = 0; y < image.h; ++y)
        for (int x = 0; x < image.w; ++x)
            for (int c = 0; c < 3; ++c)
                pixels +=
                    static_cast<char>(static_cast<unsigned char>(std::lround(image.at(x, y, c) * 255.0f)));
    return pixels;
}

/// ModelInfer of the file's pixels as UINT8 [H, W, 3] in raw_input_contents.
inline inference::ModelInferRequest pixel_request(const std::string& image_file, const std::string& id) {
    const Image image = load_image(image_file);
    inference::ModelInferRequest request;
    request.set_model_name("yolo-lite");
    request.set_id(id);
    auto* input = request.add_inputs();
    input->set_name("image");
    input->set_datatype("UINT8");
    input->add_shape(image.h);
    input->add_shape(image.w);
    input->add_shape(3);
    request.add_raw_input_contents(rgb_pixels(image));
    return request;
}

/// The same request with its input moved from raw_input_contents into the typed contents.
inline inference::ModelInferRequest as_typed_contents(inference::ModelInferRequest request) {
    const std::string raw = request.raw_input_contents(0);
    request.clear_raw_input_contents();
    auto* contents = request.mutable_inputs(0)->mutable_contents();
    if (request.inputs(0).datatype() == "UINT8") {
        for (const char byte : raw) contents->add_uint_contents(static_cast<unsigned char>(byte));
    } else {
        for (const std::string_view element : split_raw_bytes(raw, "test"))
            contents->add_bytes_contents(std::string(element));
    }
    return request;
}

/// A response's detections, decoded from raw_output_contents as a client does.
struct Detections {
    std::vector<float> boxes;
    std::vector<float> scores;
    std::vector<std::int32_t> classes;
    std::vector<std::string> labels;
    bool operator==(const Detections& other) const {
        return boxes == other.boxes && scores == other.scores && classes == other.classes &&
               labels == other.labels;
    }
};

template <typename Value>
std::vector<Value> raw_values(const std::string& raw) {
    std::vector<Value> values(raw.size() / sizeof(Value));
    if (!values.empty()) std::memcpy(values.data(), raw.data(), values.size() * sizeof(Value));
    return values;
}

inline Detections detections_of(const inference::ModelInferResponse& response) {
    Detections d;
    for (int i = 0; i < response.outputs_size() && i < response.raw_output_contents_size(); ++i) {
        const std::string& name = response.outputs(i).name();
        const std::string& raw = response.raw_output_contents(i);
        if (name == "boxes") d.boxes = raw_values<float>(raw);
        if (name == "scores") d.scores = raw_values<float>(raw);
        if (name == "classes") d.classes = raw_values<std::int32_t>(raw);
        if (name == "labels")
            for (const std::string_view label : split_raw_bytes(raw, "labels")) d.labels.emplace_back(label);
    }
    return d;
}

inline Detections detections_of(const InferenceResponse& response) {
    return {response.boxes, response.scores, response.classes, response.labels};
}

}  // namespace fpgacnn::serve::test_support
