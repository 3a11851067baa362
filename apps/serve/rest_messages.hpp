// The REST front end's routes and JSON bodies (the Open Inference Protocol's HTTP/REST binding and
// its binary tensor data extension) turned into the InferenceCore's types and back, apart from any
// socket so they can be tested alone. The tensors go through protocol_tensors.hpp, so a request
// means the same over REST as over gRPC.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inference_core.hpp"
#include "shared_memory_regions.hpp"

namespace fpgacnn::serve {

/// Which of the protocol's routes a request is for.
enum class RestRouteKind {
    Live,            // GET  /v2/health/live
    Ready,           // GET  /v2/health/ready
    ServerMetadata,  // GET  /v2
    ModelMetadata,   // GET  /v2/models/{name}[/versions/{version}]
    ModelReady,      // GET  /v2/models/{name}[/versions/{version}]/ready
    Infer,           // POST /v2/models/{name}[/versions/{version}]/infer
    Metrics,         // GET  /metrics (Prometheus text)
    // The system shared-memory extension (shared_memory_regions.hpp):
    SharedMemoryStatus,      // GET  /v2/systemsharedmemory[/region/{region}]/status
    SharedMemoryRegister,    // POST /v2/systemsharedmemory/region/{region}/register
    SharedMemoryUnregister,  // POST /v2/systemsharedmemory[/region/{region}]/unregister
    NotFound,                // 404
    MethodNotAllowed,        // 405: a route above with another method
};

struct RestRoute {
    RestRouteKind kind = RestRouteKind::NotFound;
    std::string model;    // the model routes only
    std::string version;  // empty: the only version
    std::string region;   // the shared-memory routes; empty: every region
};

/// `method` and `target` as on the request line; a query string is ignored.
RestRoute route_rest(std::string_view method, std::string_view target);
/// The method a route answers ("GET" or "POST"), for the Allow header of a 405.
const char* rest_route_method(std::string_view target);
/// The health probes, which answer without a bearer token (Kubernetes' probes carry none).
bool rest_route_is_probe(RestRouteKind kind);

/// An inference request as REST sends it, and how the client wants the outputs back.
struct RestInferRequest {
    InferenceRequest inference;
    /// The request parameter `binary_data_output`: every output as binary data.
    bool all_outputs_binary = false;
    /// Outputs the client asked for with `"parameters": {"binary_data": true}`.
    std::vector<std::string> binary_outputs;
};

/// The body of POST .../infer: JSON, or with the binary tensor data extension (`json_length`: the
/// Inference-Header-Content-Length header's value, its JSON first, then each input that has a
/// `binary_data_size` parameter, in order). JSON `data` of the `image` input: UINT8 numbers (flat or
/// nested as the shape), or BYTES strings (the text's bytes) or `{"b64": "<base64>"}` objects (an
/// encoded file), or the shared-memory parameters naming a region of `regions` (null: the extension is
/// off, such a request is refused). Request parameters `thresh`, `nms` (numbers) and `timeout`
/// (seconds). Throws ServeError naming what is wrong.
RestInferRequest request_from_rest(const std::string& model, const std::string& version,
                                   std::string_view body, std::optional<std::string_view> json_length,
                                   const SharedMemoryRegions* regions = nullptr);

/// A response body: JSON, or JSON followed by the outputs sent as binary data.
struct RestBody {
    std::string bytes;
    /// Set when binary data follows the JSON (the Inference-Header-Content-Length header's value).
    std::optional<std::size_t> json_length;
};

/// The inference response: each output as JSON `data`, or as binary data where `request` asked so.
RestBody response_to_rest(const InferenceResponse& response, const RestInferRequest& request);

/// The body of a shared-memory register call: {"key": string, "offset": number (default 0),
/// "byte_size": number}; throws ServeError(InvalidArgument) naming what is wrong.
SharedMemoryRegionStatus register_request_from_rest(const std::string& region, std::string_view body);
/// The status answer: [{"name", "key", "offset", "byte_size"}, ...].
std::string shared_memory_status_to_json(const std::vector<SharedMemoryRegionStatus>& regions);

std::string metadata_to_json(const ServerMetadata& metadata);
std::string metadata_to_json(const ModelMetadata& metadata);
/// {"error": reason}, the protocol's error body.
std::string error_to_json(const std::string& reason);

/// The bytes of standard base64 text (padding optional, no whitespace); throws
/// ServeError(InvalidArgument) naming `what` when the text is not base64.
std::string decode_base64(std::string_view text, const std::string& what);

}  // namespace fpgacnn::serve
