// fpgacnn-serve's command line: the flag names Triton users know (--model-repository, --http-port,
// --grpc-port) plus the safety and admission limits of docs/tools/fpgacnn-serve.md. What the
// deployment files assume of these flags is packaging/kubernetes/server-interface.json.
#pragma once

#include <string>

#include "front_end.hpp"
#include "model_pool.hpp"

namespace CLI {
class App;
}

namespace fpgacnn::serve {

struct ServeOptions {
    std::string model_repository;
    std::string bind = "127.0.0.1";
    int http_port = 8000;  // REST and /metrics; 0: the system picks (the listening line tells which)
    int grpc_port = 8001;  // inference.GRPCInferenceService; 0: the system picks
    int max_queue = PoolOptions{}.max_queue;
    std::string fallback = "none";  // "cpu": a failed device's frames go to the CPU backend
    std::string tls_cert_file;
    std::string tls_key_file;
    std::string auth_token_file;
    std::size_t max_body_bytes = FrontEndOptions{}.max_body_bytes;
    int threads = FrontEndOptions{}.threads;
    bool allow_client_shm = false;  // clients on this host may register shared-memory regions
    int drain_seconds = 30;         // SIGTERM: requests in flight get this long before the server exits
    int verbosity = 0;
    bool quiet = false;
};

void add_serve_options(CLI::App& app, ServeOptions& options);

/// The front ends' options from the command line (the token read from its file: Error naming the
/// file when it cannot be read or is empty).
FrontEndOptions front_end_options(const ServeOptions& options, int port);

PoolOptions pool_options(const ServeOptions& options);

}  // namespace fpgacnn::serve
