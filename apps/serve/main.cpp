// fpgacnn-serve: the detector as a network service on the Open Inference Protocol (KServe v2 /
// Triton): gRPC inference.GRPCInferenceService and the REST routes /v2/... with /metrics, for every
// model of a model repository, each model's requests spread over the host's accelerators
// (docs/tools/fpgacnn-serve.md). SIGTERM / SIGINT: readiness turns false, the front ends stop
// accepting, requests in flight finish (at most --drain-seconds), exit 0.
#include <pthread.h>

#include <csignal>
#include <future>
#include <iostream>
#include <memory>
#include <vector>

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "../common/exit_codes.hpp"
#include "../common/guarded_main.hpp"
#include "../common/parse_then_run.hpp"
#include "fpgacnn/allocator_tuning.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"
#include "front_end.hpp"
#include "repository_core.hpp"
#include "serve_options.hpp"

using namespace fpgacnn;
using namespace fpgacnn::serve;

namespace {

/// SIGINT and SIGTERM blocked in this thread and, inherited, in every thread started after it (gRPC's,
/// the pools', OpenBLAS's), so only wait_for_stop_signal's sigwait ever receives them.
sigset_t block_stop_signals() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &signals, nullptr) != 0) throw Error("cannot block SIGINT / SIGTERM");
    return signals;
}

const char* wait_for_stop_signal(const sigset_t& signals) {
    int signal = 0;
    while (sigwait(&signals, &signal) != 0) {
    }
    return signal == SIGINT ? "SIGINT" : "SIGTERM";
}

void print_listening(const char* what, const std::string& bind, unsigned short port, bool tls) {
    // Machine-readable (scripts and tests read the ports from these lines when given port 0).
    std::cout << "listening: " << what << " " << (tls ? "(TLS) " : "") << bind << ":" << port << std::endl;
}

int run(const ServeOptions& options) {
    const sigset_t stop_signals = block_stop_signals();
    const FrontEndOptions grpc_options = front_end_options(options, options.grpc_port);
    const FrontEndOptions http_options = front_end_options(options, options.http_port);

    RepositoryCore core(options.model_repository, pool_options(options), "/",
                        options.allow_client_shm ? ClientSharedMemory::Allowed : ClientSharedMemory::Refused);
    // Only now: set before loading, the loaders' large temporary blocks would stay in the heap.
    spdlog::debug("{}", tune_allocator_for_frames());
    const std::vector<std::string> models = core.model_names();
    if (models.empty()) {
        throw Error(options.model_repository +
                    ": no model to serve (every folder was skipped: see the warnings above); each model "
                    "needs a folder "
                    "with a model.json (docs/tools/fpgacnn-serve.md)");
    }
    spdlog::info("serving {} model(s) from {}: {}", models.size(), options.model_repository,
                 fmt::join(models, ", "));

    std::vector<std::unique_ptr<FrontEnd>> front_ends;
    front_ends.push_back(start_grpc_front_end(core, grpc_options));
    print_listening("grpc", options.bind, front_ends.back()->port(), !options.tls_cert_file.empty());
    front_ends.push_back(start_rest_front_end(core, http_options));
    print_listening("http", options.bind, front_ends.back()->port(), !options.tls_cert_file.empty());

    const char* signal = wait_for_stop_signal(stop_signals);
    spdlog::info("{}: draining the requests in flight (at most {} s), then exiting", signal,
                 options.drain_seconds);
    core.begin_shutdown();
    // Both front ends stop accepting at once and share one deadline.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.drain_seconds);
    std::vector<std::future<void>> drains;
    drains.reserve(front_ends.size());
    for (auto& front_end : front_ends) {
        drains.push_back(
            std::async(std::launch::async, [&front_end, deadline] { front_end->drain(deadline); }));
    }
    for (auto& drain : drains) drain.get();
    spdlog::info("drained; exiting");
    return apps::kExitSuccess;
}

int serve_main(int argc, char** argv) {
    ServeOptions options;
    return apps::parse_then_run(
        "fpgacnn-serve: object detection as a service on the KServe v2 / Triton inference protocol "
        "(REST and gRPC), every accelerator of the host behind one endpoint",
        [&](CLI::App& app) { add_serve_options(app, options); }, argc, argv,
        [&] {
            set_log_level(log_level_from_flags(options.quiet, options.verbosity, LogLevel::Info));
            return run(options);
        });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-serve", serve_main, argc, argv);
}
