#include "serve_options.hpp"

#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "../common/exit_codes.hpp"
#include "../common/model_options.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::serve {

void add_serve_options(CLI::App& app, ServeOptions& options) {
    app.add_option("--model-repository", options.model_repository,
                   "folder with one sub-folder per model, each holding a model.json")
        ->required()
        ->check(CLI::ExistingDirectory);
    app.add_option("--bind", options.bind,
                   "address both front ends listen on (0.0.0.0: every interface, e.g. in a container)")
        ->capture_default_str();
    app.add_option("--http-port", options.http_port,
                   "port of the REST routes and /metrics (0: any free port)")
        ->capture_default_str()
        ->check(CLI::Range(0, 65535));
    app.add_option("--grpc-port", options.grpc_port,
                   "port of the gRPC service inference.GRPCInferenceService (0: any free port)")
        ->capture_default_str()
        ->check(CLI::Range(0, 65535));
    app.add_option("--max-queue", options.max_queue,
                   "requests admitted per model at once; beyond it REST 503 / gRPC RESOURCE_EXHAUSTED")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--fallback", options.fallback,
                   "cpu: a failed device's frames go to the CPU backend; none: the instance leaves rotation")
        ->capture_default_str()
        ->check(CLI::IsMember({"none", "cpu"}));
    app.add_option("--tls-cert", options.tls_cert_file,
                   "PEM certificate (with --tls-key: TLS on both front ends)")
        ->check(CLI::ExistingFile);
    app.add_option("--tls-key", options.tls_key_file, "PEM private key of --tls-cert")
        ->check(CLI::ExistingFile);
    app.add_option("--auth-token-file", options.auth_token_file,
                   "file holding a bearer token every route but the health probes then requires")
        ->check(CLI::ExistingFile);
    app.add_option("--max-body-bytes", options.max_body_bytes,
                   "larger request bodies / gRPC messages are refused")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 31));
    app.add_option("--threads", options.threads, "inference calls served at once per front end")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    app.add_flag("--allow-client-shm", options.allow_client_shm,
                 "let clients on this host send inputs through POSIX shared memory (the system shared-memory "
                 "extension: the server maps objects of /dev/shm that clients name)");
    app.add_option("--drain-seconds", options.drain_seconds,
                   "SIGTERM/SIGINT: how long requests in flight may still finish before the server exits")
        ->capture_default_str()
        ->check(CLI::Range(0, 3600));
    apps::add_log_options(app, options.verbosity, options.quiet);
}

namespace {

std::string read_token(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file && !file.eof()) throw Error(path + ": cannot read the bearer token file (--auth-token-file)");
    std::string token = text.str();
    // A token file usually ends with a newline; the token is the text without surrounding white space.
    const auto first = token.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
        throw Error(path + ": the bearer token file (--auth-token-file) is empty; write the token into it");
    }
    token = token.substr(first, token.find_last_not_of(" \t\r\n") - first + 1);
    if (token.find_first_of(" \t\r\n") != std::string::npos) {
        throw Error(path + ": the bearer token (--auth-token-file) must be one word without white space");
    }
    return token;
}

}  // namespace

FrontEndOptions front_end_options(const ServeOptions& options, int port) {
    if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
        throw apps::CommandLineError("--tls-cert and --tls-key go together (TLS needs both)");
    }
    FrontEndOptions front_end;
    front_end.bind = options.bind;
    front_end.port = static_cast<unsigned short>(port);
    front_end.tls_cert_file = options.tls_cert_file;
    front_end.tls_key_file = options.tls_key_file;
    if (!options.auth_token_file.empty()) front_end.auth_token = read_token(options.auth_token_file);
    front_end.max_body_bytes = options.max_body_bytes;
    front_end.threads = options.threads;
    return front_end;
}

PoolOptions pool_options(const ServeOptions& options) {
    PoolOptions pool;
    pool.max_queue = options.max_queue;
    pool.cpu_fallback = options.fallback == "cpu";
    return pool;
}

}  // namespace fpgacnn::serve
