// What fpgacnn-serve's two front ends (REST on Boost.Beast, gRPC) have in common: where they listen,
// their TLS and bearer-token settings and size limits (set once from the command line), and how the
// server's main starts and drains them. Each front end turns the protocol's messages into
// InferenceCore calls (inference_core.hpp) with the tensors of protocol_tensors.hpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "inference_core.hpp"

namespace fpgacnn::serve {

struct FrontEndOptions {
    std::string bind = "127.0.0.1";  // never all interfaces unless told (--bind)
    unsigned short port = 0;         // 0: the system picks a free one (FrontEnd::port tells which)
    std::string tls_cert_file;       // PEM; both set: TLS, both empty: plain text
    std::string tls_key_file;
    std::string auth_token;  // non-empty: every route but the health probes needs "Bearer <token>"
    std::size_t max_body_bytes = 64u << 20;  // a request body / gRPC message larger is refused
    int threads =
        32;  // inference calls served at once (each blocks a thread; the admission queue bounds work)
};

/// One listening front end. Constructing it binds and starts serving (throws Error naming the
/// address when it cannot); destroying it stops at once.
class FrontEnd {
public:
    virtual ~FrontEnd() = default;
    /// The port it listens on (the chosen one when options.port was 0).
    virtual unsigned short port() const = 0;
    /// Stops accepting new requests, lets those in flight finish until `deadline`, then closes.
    virtual void drain(std::chrono::steady_clock::time_point deadline) = 0;
};

/// The gRPC service inference.GRPCInferenceService (grpc_front_end.cpp).
std::unique_ptr<FrontEnd> start_grpc_front_end(InferenceCore& core, const FrontEndOptions& options);
/// The REST routes /v2/... and /metrics (rest_front_end.cpp).
std::unique_ptr<FrontEnd> start_rest_front_end(InferenceCore& core, const FrontEndOptions& options);

}  // namespace fpgacnn::serve
