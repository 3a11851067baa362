// What both front ends of fpgacnn-serve (REST on Boost.Beast, gRPC) call: the models of the model
// repository, their instance pools, and one inference. Transport-independent: a front end turns
// the Open Inference Protocol's messages into an InferenceRequest, calls InferenceCore::infer, and
// turns the InferenceResponse or the ServeError into the protocol's answer (ServeError's kind says
// which HTTP status and which gRPC code, each mapped once in http_status / grpc_code_name).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fpgacnn::serve {

class SharedMemoryRegions;

/// Why a request failed; each kind is one HTTP status and one gRPC status code.
enum class ErrorKind {
    InvalidArgument,  // 400 / INVALID_ARGUMENT: malformed body, wrong datatype or shape, bad parameter
    NotFound,         // 404 / NOT_FOUND: unknown model or version
    Unauthenticated,  // 401 / UNAUTHENTICATED: missing or wrong bearer token
    Forbidden,      // 403 / PERMISSION_DENIED: a feature the server was not started with (--allow-client-shm)
    AlreadyExists,  // 400 / ALREADY_EXISTS: a shared-memory region name already registered
    PayloadTooLarge,    // 413 / INVALID_ARGUMENT: body or tensor above the configured limits
    ResourceExhausted,  // 503 / RESOURCE_EXHAUSTED: the model's admission queue is full
    Unavailable,        // 503 / UNAVAILABLE: no instance of the model is in rotation, or draining
    DeadlineExceeded,   // 504 / DEADLINE_EXCEEDED: the request's deadline passed before its result
    Internal,           // 500 / INTERNAL: a failure that is not the client's (after the retry)
};

int http_status(ErrorKind kind);
/// The gRPC status code's number (grpc::StatusCode values: INVALID_ARGUMENT = 3, ...).
int grpc_code(ErrorKind kind);

/// Every failure a front end must report to its client: the kind and a one-line reason naming the
/// model / input / parameter and what was wrong.
class ServeError : public std::runtime_error {
public:
    ServeError(ErrorKind kind, const std::string& reason) : std::runtime_error(reason), kind_(kind) {}
    ErrorKind kind() const { return kind_; }

private:
    ErrorKind kind_;
};

/// The model's one input, `image`, in either of its two forms (docs/tools/fpgacnn-serve.md).
struct ImageInput {
    enum class Form {
        Encoded,    // BYTES [1]: one encoded JPEG / PNG file
        RgbPixels,  // UINT8 [H, W, 3]: RGB pixels, row-major
    };
    Form form = Form::Encoded;
    /// The file's bytes, or H * W * 3 pixels: a view into what `storage` keeps alive (a request's
    /// buffer taken over from its message, or a registered shared-memory region's mapping), so pixels
    /// reach the detector without a copy.
    std::string_view bytes;
    std::shared_ptr<const void> storage;
    int height = 0;  // RgbPixels only
    int width = 0;   // RgbPixels only

    /// `bytes` become all of `owned`.
    void hold(std::string owned) {
        auto held = std::make_shared<const std::string>(std::move(owned));
        bytes = *held;
        storage = std::move(held);
    }
};

struct InferenceRequest {
    std::string model;
    std::string model_version;  // empty: the only version ("1")
    std::string id;             // echoed in the response (clients tag requests with it)
    ImageInput image;
    std::optional<float> thresh;  // request parameters; unset: the model's configured values
    std::optional<float> nms;
    /// When the answer stops being useful (gRPC deadline, REST `timeout` parameter); unset: none.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    /// Output names the client asked for; empty: all four.
    std::vector<std::string> requested_outputs;
};

/// The four outputs, N detections each (fpgacnn-detect's numbers for the same image).
struct InferenceResponse {
    std::string model;
    std::string model_version;
    std::string id;
    std::vector<float> boxes;           // N x 4: left, top, right, bottom in pixels of the given image
    std::vector<float> scores;          // N
    std::vector<std::int32_t> classes;  // N
    std::vector<std::string> labels;    // N
    std::vector<std::string> outputs;   // which of boxes / scores / classes / labels to send, in order
};

/// A tensor's name, the protocol's datatype name ("BYTES", "UINT8", "FP32", "INT32") and shape
/// (-1: any size).
struct TensorMetadata {
    std::string name;
    std::string datatype;
    std::vector<std::int64_t> shape;
};

struct ModelMetadata {
    std::string name;
    std::vector<std::string> versions;
    std::string platform;  // "fpgacnn_darknet"
    std::vector<TensorMetadata> inputs;
    std::vector<TensorMetadata> outputs;
};

struct ServerMetadata {
    std::string name;     // "fpgacnn"
    std::string version;  // the library's version
    std::vector<std::string> extensions;
};

/// The server's models and their instances. Every method is thread-safe (both front ends call it
/// from their own threads at once).
class InferenceCore {
public:
    virtual ~InferenceCore() = default;

    /// The process runs (false only once shutdown has begun).
    virtual bool live() const = 0;
    /// Every model has at least one instance in rotation, and no shutdown has begun.
    virtual bool ready() const = 0;
    virtual ServerMetadata server_metadata() const = 0;
    virtual std::vector<std::string> model_names() const = 0;
    /// Throws ServeError(NotFound) for an unknown model or version.
    virtual bool model_ready(const std::string& name, const std::string& version) const = 0;
    /// Throws ServeError(NotFound) for an unknown model or version.
    virtual ModelMetadata model_metadata(const std::string& name, const std::string& version) const = 0;
    /// Runs one request on the model's least-loaded instance; blocks until the result. Throws
    /// ServeError for every failure (admission full, deadline passed, invalid input, ...).
    virtual InferenceResponse infer(InferenceRequest request) = 0;
    /// The Prometheus text exposition of every metric (GET /metrics).
    virtual std::string metrics_text() const = 0;
    /// The system shared-memory regions clients registered (shared_memory_regions.hpp), which both
    /// front ends' register / status / unregister calls and shared-memory inputs use.
    virtual SharedMemoryRegions& shared_memory() = 0;
};

}  // namespace fpgacnn::serve
