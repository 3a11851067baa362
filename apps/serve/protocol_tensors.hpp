// The Open Inference Protocol's tensors of fpgacnn's models (docs/tools/fpgacnn-serve.md, "Model
// I/O"), shared by both front ends so a request means the same over REST and gRPC: the `image`
// input checked and turned into an ImageInput, the raw BYTES encoding (each element a 4-byte
// little-endian length, then its bytes), the `timeout` parameter, and the four outputs in raw
// (little-endian) form, as gRPC's raw_output_contents and REST's binary-tensor extension send them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inference_core.hpp"
#include "shared_memory_regions.hpp"

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
/// The same from bytes that `owner` keeps alive (a shared-memory region's mapping).
ImageInput image_from_tensor(const std::string& request_id, const std::string& name,
                             const std::string& datatype, const std::vector<std::int64_t>& shape,
                             std::string_view raw, std::shared_ptr<const void> owner);

/// The parameters of an input sent through system shared memory (shared_memory_region,
/// shared_memory_offset (default 0), shared_memory_byte_size), as both bindings carry them.
inline constexpr const char* kSharedMemoryRegionParameter = "shared_memory_region";
inline constexpr const char* kSharedMemoryOffsetParameter = "shared_memory_offset";
inline constexpr const char* kSharedMemoryByteSizeParameter = "shared_memory_byte_size";
struct SharedMemoryInput {
    std::string region;
    std::int64_t offset = 0;
    std::optional<std::int64_t> byte_size;  // required; unset: the request is refused
};

/// The error of a requested output that names a shared-memory region: outputs (a few hundred bytes)
/// always travel in the response.
ServeError shared_memory_output_error(const std::string& who, const std::string& output);

/// The `image` input from a registered region (shared_memory_regions.hpp). `regions` null: the
/// extension is off (ServeError(Forbidden)). Throws ServeError naming the request, input and region.
ImageInput image_from_shared_memory(const std::string& request_id, const std::string& name,
                                    const std::string& datatype, const std::vector<std::int64_t>& shape,
                                    const SharedMemoryInput& input, const SharedMemoryRegions* regions);

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
