// fpgacnn-serve's gRPC front end: inference.GRPCInferenceService (grpc_service.proto) over an
// InferenceCore. gRPC's synchronous server: InferenceCore::infer blocks until the result, so each
// ModelInfer in progress holds one of FrontEndOptions::threads threads; one more is refused with
// RESOURCE_EXHAUSTED rather than queued without bound, and a few spare threads keep the health
// probes and metadata answering meanwhile.
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <climits>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string_view>

#include "bearer_token.hpp"
#include "fpgacnn/error.hpp"
#include "front_end.hpp"
#include "grpc_messages.hpp"
#include "grpc_service.grpc.pb.h"
#include "shared_memory_regions.hpp"

namespace fpgacnn::serve {

namespace {

using grpc::ServerContext;
using grpc::Status;

/// Server threads beyond FrontEndOptions::threads: gRPC's one poller (it waits for calls rather than
/// serves them, and counts in gRPC's thread quota) and a few for the quick calls, so the health
/// probes and metadata still answer while every inference thread is busy.
constexpr int kPollerThreads = 1;
constexpr int kQuickCallThreads = 3;

Status status_of(const ServeError& e) {
    return {static_cast<grpc::StatusCode>(grpc_code(e.kind())), e.what()};
}

std::string read_pem(const std::string& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("gRPC TLS " + std::string(what) + " '" + path + "' cannot be read");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::shared_ptr<grpc::ServerCredentials> credentials(const FrontEndOptions& options) {
    if (options.tls_cert_file.empty() && options.tls_key_file.empty())
        return grpc::InsecureServerCredentials();
    if (options.tls_cert_file.empty() || options.tls_key_file.empty())
        throw Error("gRPC TLS needs both a certificate and a key file (one of them is missing)");
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back(
        {read_pem(options.tls_key_file, "key file"), read_pem(options.tls_cert_file, "certificate file")});
    return grpc::SslServerCredentials(ssl);
}

class Service final : public inference::GRPCInferenceService::Service {
public:
    Service(InferenceCore& core, std::string auth_token, int infer_threads)
        : core_(core), token_(std::move(auth_token)), infer_threads_(infer_threads) {}

    // The health probes answer without a token, as Kubernetes' probes carry none.
    Status ServerLive(ServerContext* /*context*/, const inference::ServerLiveRequest* /*request*/,
                      inference::ServerLiveResponse* response) override {
        response->set_live(core_.live());
        return Status::OK;
    }

    Status ServerReady(ServerContext* /*context*/, const inference::ServerReadyRequest* /*request*/,
                       inference::ServerReadyResponse* response) override {
        response->set_ready(core_.ready());
        return Status::OK;
    }

    Status ModelReady(ServerContext* context, const inference::ModelReadyRequest* request,
                      inference::ModelReadyResponse* response) override {
        return guarded(context,
                       [&] { response->set_ready(core_.model_ready(request->name(), request->version())); });
    }

    Status ServerMetadata(ServerContext* context, const inference::ServerMetadataRequest* /*request*/,
                          inference::ServerMetadataResponse* response) override {
        return guarded(context, [&] { metadata_to_grpc(core_.server_metadata(), *response); });
    }

    Status ModelMetadata(ServerContext* context, const inference::ModelMetadataRequest* request,
                         inference::ModelMetadataResponse* response) override {
        return guarded(context, [&] {
            metadata_to_grpc(core_.model_metadata(request->name(), request->version()), *response);
        });
    }

    Status ModelInfer(ServerContext* context, const inference::ModelInferRequest* request,
                      inference::ModelInferResponse* response) override {
        return guarded(context, [&] {
            // At most `threads` calls block in infer at once; one more is refused at once rather than
            // taking the threads the quick calls need.
            struct Running {
                std::atomic<int>& calls;
                ~Running() { --calls; }
            } running{infer_calls_};
            if (++infer_calls_ > infer_threads_) {
                throw ServeError(
                    ErrorKind::ResourceExhausted,
                    "all " + std::to_string(infer_threads_) +
                        " inference threads of the gRPC front end are busy (--threads); retry later");
            }
            // gRPC's synchronous API hands over a request it made non-const for this call alone and
            // destroys once the handler returns (grpcpp/support/method_handler.h): taking its pixels
            // over instead of copying them is safe, and saves a 1.3 MB copy per 768x576 request.
            InferenceRequest inference = request_from_grpc(
                const_cast<inference::ModelInferRequest&>(*request), &core_.shared_memory());
            inference.deadline = steady_deadline(context->deadline(), std::chrono::system_clock::now(),
                                                 std::chrono::steady_clock::now());
            response_to_grpc(core_.infer(std::move(inference)), *response);
        });
    }

    Status SystemSharedMemoryStatus(ServerContext* context,
                                    const inference::SystemSharedMemoryStatusRequest* request,
                                    inference::SystemSharedMemoryStatusResponse* response) override {
        return guarded(context, [&] {
            for (const SharedMemoryRegionStatus& region : core_.shared_memory().status(request->name())) {
                inference::SystemSharedMemoryStatusResponse::RegionStatus& entry =
                    (*response->mutable_regions())[region.name];
                entry.set_name(region.name);
                entry.set_key(region.key);
                entry.set_offset(region.offset);
                entry.set_byte_size(region.byte_size);
            }
        });
    }

    Status SystemSharedMemoryRegister(ServerContext* context,
                                      const inference::SystemSharedMemoryRegisterRequest* request,
                                      inference::SystemSharedMemoryRegisterResponse* /*response*/) override {
        return guarded(context, [&] {
            core_.shared_memory().register_region(request->name(), request->key(), request->offset(),
                                                  request->byte_size());
        });
    }

    Status SystemSharedMemoryUnregister(
        ServerContext* context, const inference::SystemSharedMemoryUnregisterRequest* request,
        inference::SystemSharedMemoryUnregisterResponse* /*response*/) override {
        return guarded(context, [&] { core_.shared_memory().unregister(request->name()); });
    }

private:
    /// The bearer token when one is configured, then `body`; every failure becomes the call's status
    /// (nothing a client sends may escape as an exception into gRPC's threads).
    template <typename Body>
    Status guarded(ServerContext* context, Body&& body) {
        try {
            check_token(*context);
            body();
            return Status::OK;
        } catch (const ServeError& e) {
            return status_of(e);
        } catch (const std::exception& e) {
            spdlog::error("gRPC call failed inside the server: {}", e.what());
            return {grpc::StatusCode::INTERNAL, e.what()};
        } catch (...) {
            return {grpc::StatusCode::INTERNAL, "unknown failure"};
        }
    }

    void check_token(const ServerContext& context) const {
        const auto& metadata = context.client_metadata();
        const auto found = metadata.find("authorization");
        std::optional<std::string_view> given;
        if (found != metadata.end()) given = std::string_view(found->second.data(), found->second.size());
        check_bearer_token(token_, given, "metadata");
    }

    InferenceCore& core_;
    const std::string token_;
    const int infer_threads_;
    std::atomic<int> infer_calls_{0};
};

class GrpcFrontEnd final : public FrontEnd {
public:
    GrpcFrontEnd(InferenceCore& core, const FrontEndOptions& options)
        : service_(core, options.auth_token, std::max(options.threads, 1)) {
        const std::string host =
            options.bind.find(':') != std::string::npos ? "[" + options.bind + "]" : options.bind;
        const std::string address = host + ":" + std::to_string(options.port);
        grpc::ServerBuilder builder;
        int selected_port = 0;
        builder.AddListeningPort(address, credentials(options), &selected_port);
        builder.RegisterService(&service_);
        builder.SetMaxReceiveMessageSize(
            static_cast<int>(std::min<std::size_t>(options.max_body_bytes, INT_MAX)));
        builder.SetMaxSendMessageSize(INT_MAX);
        // gRPC sets SO_REUSEPORT by default, which would let a second server (or a second
        // fpgacnn-serve) bind the same port and take half of the calls; a port in use must fail.
        builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
        grpc::ResourceQuota quota("fpgacnn-serve-grpc");
        quota.SetMaxThreads(std::max(options.threads, 1) + kPollerThreads + kQuickCallThreads);
        builder.SetResourceQuota(quota);
        builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::NUM_CQS, 1);
        builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, kPollerThreads);
        builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, kPollerThreads);
        server_ = builder.BuildAndStart();
        if (server_ == nullptr || selected_port == 0) {
            throw Error("gRPC: cannot listen on " + address +
                        " (address in use, not an address of this host, or no permission for the port)");
        }
        port_ = static_cast<unsigned short>(selected_port);
        spdlog::info("gRPC: inference.GRPCInferenceService on {}:{}{}", host, port_,
                     options.tls_cert_file.empty() ? "" : " (TLS)");
    }

    ~GrpcFrontEnd() override { drain(std::chrono::steady_clock::now()); }

    unsigned short port() const override { return port_; }

    void drain(std::chrono::steady_clock::time_point deadline) override {
        std::lock_guard<std::mutex> lock(drain_mutex_);
        if (drained_) return;
        drained_ = true;
        // Shutdown refuses new calls at once, lets those in progress finish until the deadline, then
        // cancels the rest; Wait returns once every handler has returned.
        const auto system_deadline = std::chrono::system_clock::now() +
                                     std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                         deadline - std::chrono::steady_clock::now());
        server_->Shutdown(system_deadline);
        server_->Wait();
    }

private:
    Service service_;
    std::unique_ptr<grpc::Server> server_;
    unsigned short port_ = 0;
    std::mutex drain_mutex_;
    bool drained_ = false;
};

}  // namespace

std::unique_ptr<FrontEnd> start_grpc_front_end(InferenceCore& core, const FrontEndOptions& options) {
    return std::make_unique<GrpcFrontEnd>(core, options);
}

}  // namespace fpgacnn::serve
