#include "grpc_messages.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "protocol_tensors.hpp"

namespace fpgacnn::serve {

namespace {

using inference::InferParameter;
using inference::ModelInferRequest;

ServeError invalid(const std::string& reason) { return ServeError(ErrorKind::InvalidArgument, reason); }

/// A probability parameter: clients send doubles, but also integers (0, 1) or text ("0.3") depending
/// on their language's type for the value; the range is checked by the model pool.
float probability_parameter(const std::string& request_id, const std::string& name,
                            const InferParameter& parameter) {
    const std::string where = "request '" + request_id + "': parameter '" + name + "'";
    switch (parameter.parameter_choice_case()) {
        case InferParameter::kDoubleParam:
            return static_cast<float>(parameter.double_param());
        case InferParameter::kInt64Param:
            return static_cast<float>(parameter.int64_param());
        case InferParameter::kStringParam: {
            const std::string& text = parameter.string_param();
            char* end = nullptr;
            errno = 0;
            const double value = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value))
                throw invalid(where + " must be a number, got the text '" + text + "'");
            return static_cast<float>(value);
        }
        default:
            throw invalid(where + " must be a number (double_param, int64_param or string_param)");
    }
}

/// The typed contents of the `image` input as the raw form image_from_tensor reads: UINT8 pixels
/// from uint_contents (each 0..255), the BYTES element(s) from bytes_contents.
std::string raw_from_contents(const std::string& request_id,
                              const ModelInferRequest::InferInputTensor& input) {
    const inference::InferTensorContents& contents = input.contents();
    if (input.datatype() == "UINT8") {
        std::string raw;
        raw.reserve(static_cast<std::size_t>(contents.uint_contents_size()));
        for (const std::uint32_t value : contents.uint_contents()) {
            if (value > 255) {
                throw invalid("request '" + request_id + "' input '" + input.name() + "': UINT8 value " +
                              std::to_string(value) + " in uint_contents is above 255");
            }
            raw += static_cast<char>(value);
        }
        return raw;
    }
    if (input.datatype() == "BYTES")
        return join_raw_bytes({contents.bytes_contents().begin(), contents.bytes_contents().end()});
    return {};  // image_from_tensor names the datatype it does not serve
}

/// The input's shared-memory parameters, when it names a region (shared_memory_region a string,
/// shared_memory_offset / shared_memory_byte_size int64s, as Triton's clients send them).
std::optional<SharedMemoryInput> shared_memory_of(const std::string& request_id,
                                                  const ModelInferRequest::InferInputTensor& input) {
    const auto& parameters = input.parameters();
    const auto region = parameters.find(kSharedMemoryRegionParameter);
    if (region == parameters.end()) return std::nullopt;
    const std::string where = "request '" + request_id + "' input '" + input.name() + "'";
    if (region->second.parameter_choice_case() != InferParameter::kStringParam)
        throw invalid(where + ": " + kSharedMemoryRegionParameter + " must be a string_param");
    SharedMemoryInput shared;
    shared.region = region->second.string_param();
    const auto int64_of = [&](const char* parameter) -> std::optional<std::int64_t> {
        const auto found = parameters.find(parameter);
        if (found == parameters.end()) return std::nullopt;
        if (found->second.parameter_choice_case() != InferParameter::kInt64Param)
            throw invalid(where + ": " + parameter + " must be an int64_param");
        return found->second.int64_param();
    };
    shared.offset = int64_of(kSharedMemoryOffsetParameter).value_or(0);
    shared.byte_size = int64_of(kSharedMemoryByteSizeParameter);
    return shared;
}

bool has_typed_contents(const inference::InferTensorContents& c) {
    return c.bool_contents_size() || c.int_contents_size() || c.int64_contents_size() ||
           c.uint_contents_size() || c.uint64_contents_size() || c.fp32_contents_size() ||
           c.fp64_contents_size() || c.bytes_contents_size();
}

template <typename Tensor>
void fill_tensor(Tensor& tensor, const std::string& name, const std::string& datatype,
                 const std::vector<std::int64_t>& shape) {
    tensor.set_name(name);
    tensor.set_datatype(datatype);
    for (const std::int64_t dimension : shape) tensor.add_shape(dimension);
}

}  // namespace

InferenceRequest request_from_grpc(ModelInferRequest& message, const SharedMemoryRegions* regions) {
    InferenceRequest request;
    request.model = message.model_name();
    request.model_version = message.model_version();
    request.id = message.id();
    const std::string who = "request '" + request.id + "'";
    for (const auto& [name, parameter] : message.parameters()) {
        if (name == "thresh") request.thresh = probability_parameter(request.id, name, parameter);
        if (name == "nms") request.nms = probability_parameter(request.id, name, parameter);
    }
    if (message.inputs_size() != 1) {
        throw invalid(who + ": the model takes one input, 'image', but the request has " +
                      std::to_string(message.inputs_size()));
    }
    const ModelInferRequest::InferInputTensor& input = message.inputs(0);
    const std::vector<std::int64_t> shape(input.shape().begin(), input.shape().end());
    if (const std::optional<SharedMemoryInput> shared = shared_memory_of(request.id, input)) {
        if (message.raw_input_contents_size() > 0 || has_typed_contents(input.contents())) {
            throw invalid(who + " input '" + input.name() +
                          "': names a shared-memory region and also carries contents (send one)");
        }
        request.image =
            image_from_shared_memory(request.id, input.name(), input.datatype(), shape, *shared, regions);
    } else if (message.raw_input_contents_size() > 0) {
        if (message.raw_input_contents_size() != message.inputs_size()) {
            throw invalid(who + ": raw_input_contents has " +
                          std::to_string(message.raw_input_contents_size()) + " entries for " +
                          std::to_string(message.inputs_size()) + " input(s)");
        }
        if (has_typed_contents(input.contents())) {
            throw invalid(who + " input '" + input.name() +
                          "': both raw_input_contents and typed contents are given (send one)");
        }
        // Moved out of the message: a request's 1.3 MB of pixels are not copied again.
        request.image = image_from_tensor(request.id, input.name(), input.datatype(), shape,
                                          std::move(*message.mutable_raw_input_contents(0)));
    } else {
        request.image = image_from_tensor(request.id, input.name(), input.datatype(), shape,
                                          raw_from_contents(request.id, input));
    }
    for (const ModelInferRequest::InferRequestedOutputTensor& output : message.outputs()) {
        if (output.parameters().count(kSharedMemoryRegionParameter))
            throw shared_memory_output_error(who, output.name());
        request.requested_outputs.push_back(output.name());
    }
    return request;
}

void response_to_grpc(const InferenceResponse& response, inference::ModelInferResponse& message) {
    message.set_model_name(response.model);
    message.set_model_version(response.model_version);
    message.set_id(response.id);
    for (OutputTensor& tensor : output_tensors(response)) {
        fill_tensor(*message.add_outputs(), tensor.name, tensor.datatype, tensor.shape);
        message.add_raw_output_contents(std::move(tensor.raw));
    }
}

void metadata_to_grpc(const ServerMetadata& metadata, inference::ServerMetadataResponse& message) {
    message.set_name(metadata.name);
    message.set_version(metadata.version);
    for (const std::string& extension : metadata.extensions) message.add_extensions(extension);
}

void metadata_to_grpc(const ModelMetadata& metadata, inference::ModelMetadataResponse& message) {
    message.set_name(metadata.name);
    for (const std::string& version : metadata.versions) message.add_versions(version);
    message.set_platform(metadata.platform);
    for (const TensorMetadata& input : metadata.inputs)
        fill_tensor(*message.add_inputs(), input.name, input.datatype, input.shape);
    for (const TensorMetadata& output : metadata.outputs)
        fill_tensor(*message.add_outputs(), output.name, output.datatype, output.shape);
}

std::optional<std::chrono::steady_clock::time_point> steady_deadline(
    std::chrono::system_clock::time_point deadline, std::chrono::system_clock::time_point system_now,
    std::chrono::steady_clock::time_point steady_now) {
    // Beyond a day counts as none: gRPC reports "no deadline" as a far future, and the difference of
    // such a time point would overflow the steady clock.
    constexpr auto kDay = std::chrono::hours(24);
    if (deadline == std::chrono::system_clock::time_point::max() || deadline - system_now > kDay)
        return std::nullopt;
    return steady_now +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline - system_now);
}

}  // namespace fpgacnn::serve
