// The gRPC service's messages (grpc_service.proto) turned into the InferenceCore's types and back,
// apart from any network so they can be tested alone. The tensors themselves go through
// protocol_tensors.hpp, so a request means the same over gRPC as over REST.
#pragma once

#include <chrono>
#include <optional>

#include "grpc_service.pb.h"
#include "inference_core.hpp"
#include "shared_memory_regions.hpp"

namespace fpgacnn::serve {

/// ModelInferRequest -> InferenceRequest: model, version, id, the `image` input from
/// raw_input_contents (one entry per input, same order) or from the input's typed contents
/// (uint_contents for UINT8, bytes_contents for BYTES), the `thresh` / `nms` parameters
/// (double_param, or int64_param / string_param holding a number) and the requested outputs' names.
/// Other parameters are ignored, as the protocol lets a server do. The raw contents are moved out
/// of `message` (no copy of the pixels). An input with the shared-memory parameters is read from
/// `regions` (null: the extension is off, such a request is refused). Throws ServeError naming what
/// is wrong; leaves the deadline unset.
InferenceRequest request_from_grpc(inference::ModelInferRequest& message,
                                   const SharedMemoryRegions* regions = nullptr);

/// InferenceResponse -> ModelInferResponse: every output in raw_output_contents (raw little-endian,
/// BYTES as 4-byte lengths + bytes), one entry per entry of `outputs`.
void response_to_grpc(const InferenceResponse& response, inference::ModelInferResponse& message);

void metadata_to_grpc(const ServerMetadata& metadata, inference::ServerMetadataResponse& message);
void metadata_to_grpc(const ModelMetadata& metadata, inference::ModelMetadataResponse& message);

/// A call's gRPC deadline (system clock; time_point::max() when the client set none) as a
/// steady-clock deadline for InferenceRequest::deadline, measured from the two clocks' `now`s.
std::optional<std::chrono::steady_clock::time_point> steady_deadline(
    std::chrono::system_clock::time_point deadline, std::chrono::system_clock::time_point system_now,
    std::chrono::steady_clock::time_point steady_now);

}  // namespace fpgacnn::serve
