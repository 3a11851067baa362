// What the gRPC front end's tests share beyond recording_core.hpp: a client stub on the front end's
// port, and the ModelInfer requests of darknet's sample images in both input forms.
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
#include "recording_core.hpp"
#include "repository_core.hpp"
#include "serve_test_repository.hpp"
#include "test_paths.hpp"

namespace fpgacnn::serve::test_support {

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

}  // namespace fpgacnn::serve::test_support
