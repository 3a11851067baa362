// libFuzzer harness: fpgacnn-serve's REST request bodies (apps/serve/rest_messages.cpp) and routes. The
// first byte picks the encoding: plain JSON, or the binary tensor data extension with an
// Inference-Header-Content-Length made of the second byte (a byte count, or text that is not one).
// Whatever the bytes, the only failure allowed is ServeError(InvalidArgument): any other exception
// (a JSON type error slipping through, a length check missed) is a bug.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rest_messages.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::uint8_t mode = data[0];
    const std::uint8_t length_byte = data[1];
    const std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);
    std::optional<std::string> json_length;
    if (mode & 1) json_length = std::to_string(static_cast<std::size_t>(length_byte) * (mode & 2 ? 1 : 8));
    if (mode & 4) json_length = std::string(1, static_cast<char>(length_byte)) + "x";
    try {
        const fpgacnn::serve::RestInferRequest request = fpgacnn::serve::request_from_rest(
            "m", "", body, json_length ? std::optional<std::string_view>(*json_length) : std::nullopt);
        // What parsed is a whole request: an image of either form with its bytes.
        if (request.inference.image.bytes.empty()) __builtin_trap();
    } catch (const fpgacnn::serve::ServeError& e) {
        if (e.kind() != fpgacnn::serve::ErrorKind::InvalidArgument) __builtin_trap();
    }
    // A model route always names its model.
    using fpgacnn::serve::RestRouteKind;
    const fpgacnn::serve::RestRoute route = fpgacnn::serve::route_rest(mode & 8 ? "POST" : "GET", body);
    const bool model_route = route.kind == RestRouteKind::ModelMetadata ||
                             route.kind == RestRouteKind::ModelReady || route.kind == RestRouteKind::Infer;
    if (model_route && route.model.empty()) __builtin_trap();
    return 0;
}
