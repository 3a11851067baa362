// The Open Inference Protocol's tensors of fpgacnn's models (docs/tools/fpgacnn-serve.md, "Model
// I/O"), shared by both front ends so a request means the same over REST and gRPC: the `image`
// input checked and turned into an ImageInput, the raw BYTES encoding (each element a 4-byte
// little-endian length, then its bytes), the `timeout` parameter, and the four outputs in raw
// (little-endian) form, as gRPC's raw_output_contents and REST's binary-tensor extension send them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inference_core.hpp"

namespace fpgacnn::serve {

/// The model's only input.
inline constexpr const char* kImageInputName = "image";
/// The four outputs, in the order a response lists them when the client names none.
const std::vector<std::string>& output_names();

/// Elements of a tensor in the raw BYTES encoding. Throws ServeError(InvalidArgument) naming
/// `tensor` when a length runs past the end.
std::vector<std::string_view> split_raw_bytes(std::string_view raw, const std::string& tensor);
/// The raw BYTES encoding of `elements`.
std::string join_raw_bytes(const std::vector<std::string>& elements);

/// The `image` input from its protocol description and raw contents: BYTES [1] (raw: one element,
/// the encoded file) or UINT8 [H, W, 3] (raw: H * W * 3 pixels, RGB). The input keeps `raw` and
/// views its bytes in it (no copy). Throws ServeError(InvalidArgument) naming the request, the
/// input and what is wrong (name, datatype, shape, byte count).
ImageInput image_from_tensor(const std::string& request_id, const std::string& name,
                             const std::string& datatype, const std::vector<std::int64_t>& shape,
                             std::string raw);

/// The deadline of a REST `timeout` parameter in seconds (> 0, at most a day); throws
/// ServeError(InvalidArgument) otherwise.
std::chrono::steady_clock::time_point deadline_after_seconds(double seconds);

/// One output of a response: the protocol's datatype and shape and the raw little-endian contents.
struct OutputTensor {
    std::string name;
    std::string datatype;
    std::vector<std::int64_t> shape;
    std::string raw;
};

/// The outputs `response.outputs` names, in that order.
std::vector<OutputTensor> output_tensors(const InferenceResponse& response);

}  // namespace fpgacnn::serve
