#include "server_load.hpp"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "../common/process_cpu.hpp"
#include "bench_run.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "grpc_service.grpc.pb.h"
#include "protocol_tensors.hpp"
#include "shared_memory_object.hpp"

namespace fpgacnn::bench {
namespace {

using Clock = std::chrono::steady_clock;

/// Its own TCP connection per client (gRPC would otherwise share one between channels to the same
/// address, and the clients would measure one connection's multiplexing instead).
std::shared_ptr<grpc::Channel> own_channel(const std::string& address) {
    grpc::ChannelArguments arguments;
    arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    arguments.SetMaxReceiveMessageSize(64 << 20);
    arguments.SetMaxSendMessageSize(64 << 20);
    return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments);
}

std::string status_name(grpc::StatusCode code) {
    static const std::map<grpc::StatusCode, std::string> names = {
        {grpc::StatusCode::CANCELLED, "CANCELLED"},
        {grpc::StatusCode::UNKNOWN, "UNKNOWN"},
        {grpc::StatusCode::INVALID_ARGUMENT, "INVALID_ARGUMENT"},
        {grpc::StatusCode::DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED"},
        {grpc::StatusCode::NOT_FOUND, "NOT_FOUND"},
        {grpc::StatusCode::RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"},
        {grpc::StatusCode::UNAUTHENTICATED, "UNAUTHENTICATED"},
        {grpc::StatusCode::INTERNAL, "INTERNAL"},
        {grpc::StatusCode::UNAVAILABLE, "UNAVAILABLE"},
    };
    const auto it = names.find(code);
    return it != names.end() ? it->second : "code " + std::to_string(static_cast<int>(code));
}

/// The server's name and version, once it answers and the model is ready (waits at most 10 s for
/// the connection).
std::string check_server(const std::string& address, const std::string& model) {
    const auto stub = inference::GRPCInferenceService::NewStub(own_channel(address));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    context.set_wait_for_ready(true);
    inference::ServerMetadataResponse metadata;
    const grpc::Status status = stub->ServerMetadata(&context, inference::ServerMetadataRequest(), &metadata);
    if (!status.ok()) {
        throw Error("--server " + address + ": no fpgacnn-serve answers there (" +
                    status_name(status.error_code()) + ": " + status.error_message() +
                    "); start it, or check the address and its --grpc-port");
    }
    grpc::ClientContext ready_context;
    ready_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    inference::ModelReadyRequest request;
    request.set_name(model);
    inference::ModelReadyResponse ready;
    const grpc::Status ready_status = stub->ModelReady(&ready_context, request, &ready);
    if (!ready_status.ok() || !ready.ready()) {
        throw Error("--server " + address + ": model '" + model + "' is not ready (" +
                    (ready_status.ok()
                         ? std::string("not in rotation")
                         : status_name(ready_status.error_code()) + ": " + ready_status.error_message()) +
                    ")");
    }
    return metadata.name() + " " + metadata.version();
}

/// The input `image` of one file, in the form the requests carry it.
struct ImagePayload {
    std::string datatype;             // BYTES or UINT8
    std::vector<std::int64_t> shape;  // [1] or [H, W, 3]
    std::string raw;                  // the raw input contents
};

ImagePayload encoded_payload(const std::string& path) {
    return {"BYTES", {1}, serve::join_raw_bytes({read_image_file(path)})};
}

ImagePayload pixel_payload(const std::string& path) {
    // The library's decode (cv::imread's pixels, in RGB order), with its checks and its messages.
    const std::string encoded = read_image_file(path);
    const RgbPixels rgb =
        decode_rgb_pixels(reinterpret_cast<const std::uint8_t*>(encoded.data()), encoded.size(), path);
    const auto* first = reinterpret_cast<const char*>(rgb.data.data());
    return {"UINT8", {rgb.height, rgb.width, 3}, std::string(first, first + rgb.data.size())};
}

/// ModelInfer's full method name, for the generic stub that sends pre-serialized requests.
constexpr const char* kModelInferMethod = "/inference.GRPCInferenceService/ModelInfer";

/// One image's request serialized once, without an id: every call sends these bytes as they are
/// (gRPC slices are shared by reference count, so nothing is copied or serialized again), so the
/// client's CPU per request is the connection's, not a 1.3 MB copy and encode of the same pixels.
/// With `region`, the request names that shared-memory region (the image at its start) instead.
grpc::Slice serialized_request(const std::string& model, const ImagePayload& image,
                               const std::string& region) {
    inference::ModelInferRequest request;
    request.set_model_name(model);
    auto* input = request.add_inputs();
    input->set_name(serve::kImageInputName);
    input->set_datatype(image.datatype);
    for (const std::int64_t extent : image.shape) input->add_shape(extent);
    if (region.empty()) {
        request.add_raw_input_contents(image.raw);
    } else {
        auto& parameters = *input->mutable_parameters();
        parameters[serve::kSharedMemoryRegionParameter].set_string_param(region);
        parameters[serve::kSharedMemoryByteSizeParameter].set_int64_param(
            static_cast<std::int64_t>(image.raw.size()));
    }
    return grpc::Slice(request.SerializeAsString());
}

/// A client's shared-memory object, registered with the server as a region of the same name for as
/// long as this lives (unregistered, then unlinked, at the end).
class RegisteredRegion {
public:
    RegisteredRegion(const std::string& address, const std::string& name, std::size_t byte_size)
        : address_(address), name_(name), memory_("/" + name, byte_size) {
        const auto stub = inference::GRPCInferenceService::NewStub(own_channel(address_));
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
        inference::SystemSharedMemoryRegisterRequest request;
        request.set_name(name_);
        request.set_key(memory_.key());
        request.set_byte_size(byte_size);
        inference::SystemSharedMemoryRegisterResponse response;
        const grpc::Status status = stub->SystemSharedMemoryRegister(&context, request, &response);
        if (!status.ok()) {
            throw Error("--server " + address_ + " --shared-memory: the server did not register region '" +
                        name_ + "' (" + status_name(status.error_code()) + ": " + status.error_message() +
                        "); the server must run on this host, as this user, with --allow-client-shm");
        }
    }
    ~RegisteredRegion() {
        const auto stub = inference::GRPCInferenceService::NewStub(own_channel(address_));
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
        inference::SystemSharedMemoryUnregisterRequest request;
        request.set_name(name_);
        inference::SystemSharedMemoryUnregisterResponse response;
        stub->SystemSharedMemoryUnregister(&context, request,
                                           &response);  // best effort: the object goes anyway
    }
    RegisteredRegion(const RegisteredRegion&) = delete;
    RegisteredRegion& operator=(const RegisteredRegion&) = delete;

    const std::string& name() const { return name_; }
    SharedMemoryObject& memory() { return memory_; }

private:
    std::string address_;
    std::string name_;
    SharedMemoryObject memory_;
};

/// One client's requests: the shared serialized requests, or, with shared memory, its own region and
/// requests naming it (the client writes each image into the region before sending its request).
struct ClientRequests {
    std::vector<grpc::Slice> serialized;
    std::unique_ptr<RegisteredRegion> region;
};

/// The request with `id`: the id's field, then the serialized image request. Protobuf parses
/// concatenated messages as one (a later field's value joins or replaces an earlier one), so the
/// server reads one request holding the image and this id.
grpc::ByteBuffer request_with_id(const std::string& id, const grpc::Slice& image_request) {
    inference::ModelInferRequest head;
    head.set_id(id);
    const grpc::Slice slices[] = {grpc::Slice(head.SerializeAsString()), image_request};
    return grpc::ByteBuffer(slices, 2);
}

/// What the clients share: the next request's number and the results.
struct LoadState {
    std::atomic<int> next{0};
    std::mutex mutex;
    std::vector<double> latency_ms;
    ServerLoadResult result;
};

void run_client(const ServerLoadOptions& options, const std::vector<ImagePayload>& images,
                ClientRequests& requests, Clock::time_point stop_at, LoadState& state) {
    grpc::TemplatedGenericStub<grpc::ByteBuffer, inference::ModelInferResponse> stub(
        own_channel(options.address));
    while (Clock::now() < stop_at) {
        const int n = state.next++;
        if (n >= options.requests) break;
        const std::string id = fmt::format("bench-{}", n);
        const std::size_t image = static_cast<std::size_t>(n) % images.size();
        // Timed from here: writing the image into the region is the client's part of the transfer.
        const Clock::time_point start = Clock::now();
        if (requests.region) requests.region->memory().write(images[image].raw);
        const grpc::ByteBuffer request = request_with_id(id, requests.serialized[image]);
        grpc::ClientContext context;
        // gRPC takes deadlines on the system clock only.
        context.set_deadline(std::chrono::system_clock::now() +
                             std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                 std::chrono::duration<double>(options.call_timeout_s)));
        inference::ModelInferResponse response;
        std::promise<grpc::Status> answered;
        stub.UnaryCall(&context, kModelInferMethod, grpc::StubOptions(), &request, &response,
                       [&answered](grpc::Status status) { answered.set_value(std::move(status)); });
        const grpc::Status status = answered.get_future().get();
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        std::lock_guard<std::mutex> lock(state.mutex);
        ++state.result.sent;
        if (!status.ok()) {
            ++state.result.failures[status_name(status.error_code())];
            continue;
        }
        ++state.result.answered;
        state.latency_ms.push_back(ms);
        if (response.id() != id) ++state.result.wrong_ids;
        for (int i = 0; i < response.outputs_size(); ++i) {
            if (response.outputs(i).name() == "scores" && response.outputs(i).shape_size() == 1)
                state.result.detections += static_cast<std::uint64_t>(response.outputs(i).shape(0));
        }
    }
}

}  // namespace

ServerLoadResult run_server_load(const ServerLoadOptions& options) {
    if (options.images.empty()) throw Error("--server: no images to send (give --images DIR)");
    std::vector<ImagePayload> images;
    images.reserve(options.images.size());
    std::size_t largest = 0;
    for (const std::string& path : options.images) {
        images.push_back(options.send_pixels ? pixel_payload(path) : encoded_payload(path));
        largest = std::max(largest, images.back().raw.size());
    }
    LoadState state;
    state.result.address = options.address;
    state.result.model = options.model;
    state.result.clients = options.clients;
    state.result.sent_pixels = options.send_pixels;
    state.result.shared_memory = options.shared_memory;
    state.result.server = check_server(options.address, options.model);
    std::vector<ClientRequests> client_requests(static_cast<std::size_t>(options.clients));
    for (std::size_t client = 0; client < client_requests.size(); ++client) {
        ClientRequests& requests = client_requests[client];
        if (options.shared_memory) {
            requests.region = std::make_unique<RegisteredRegion>(
                options.address, fmt::format("fpgacnn-bench-{}-{}", getpid(), client), largest);
        }
        const std::string region = requests.region ? requests.region->name() : std::string();
        // Without shared memory every client sends the same serialized requests (slices share them).
        if (client > 0 && region.empty()) {
            requests.serialized = client_requests[0].serialized;
            continue;
        }
        for (const ImagePayload& image : images)
            requests.serialized.push_back(serialized_request(options.model, image, region));
    }
    const Clock::time_point start = Clock::now();
    const double cpu_start = apps::process_cpu_seconds();
    const Clock::time_point stop_at =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.seconds));
    std::vector<std::thread> clients;
    clients.reserve(static_cast<std::size_t>(options.clients));
    for (ClientRequests& requests : client_requests)
        clients.emplace_back([&] { run_client(options, images, requests, stop_at, state); });
    for (std::thread& client : clients) client.join();
    ServerLoadResult result = state.result;
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.throughput = result.seconds > 0 ? result.answered / result.seconds : 0;
    result.latency = percentiles(state.latency_ms);
    if (result.sent > 0)
        result.client_cpu_ms_per_request = (apps::process_cpu_seconds() - cpu_start) * 1000.0 / result.sent;
    return result;
}

std::string server_load_to_text(const ServerLoadResult& r) {
    std::string text = fmt::format("server       {} at {}, model '{}'\n", r.server, r.address, r.model);
    text += fmt::format(
        "clients      {} (one gRPC connection each), {} requests in {:.2f} s, images sent {}\n", r.clients,
        r.sent, r.seconds,
        fmt::format("{}{}",
                    r.sent_pixels ? "as RGB pixels (UINT8)" : "encoded (BYTES, decoded by the server)",
                    r.shared_memory ? " through shared memory" : ""));
    text += fmt::format(
        "answered     {:8.2f} requests/s   latency ms p50 {:.1f}  p90 {:.1f}  p99 {:.1f}  mean {:.1f}\n",
        r.throughput, r.latency.p50, r.latency.p90, r.latency.p99, r.latency.mean);
    text += fmt::format("checked      {} answered, {} with another request's id, {} detections\n", r.answered,
                        r.wrong_ids, r.detections);
    text += fmt::format(
        "client cpu   {:.2f} ms per request (this process, all clients: CPU the server does not get when "
        "both share a machine)\n",
        r.client_cpu_ms_per_request);
    for (const auto& [code, count] : r.failures) text += fmt::format("failed       {} x {}\n", count, code);
    return text;
}

nlohmann::json server_load_to_json(const ServerLoadResult& r) {
    return {
        {"server", r.server},
        {"address", r.address},
        {"model", r.model},
        {"clients", r.clients},
        {"image_input", r.sent_pixels ? "UINT8 pixels" : "BYTES encoded"},
        {"shared_memory", r.shared_memory},
        {"sent", r.sent},
        {"answered", r.answered},
        {"failures", r.failures},
        {"wrong_ids", r.wrong_ids},
        {"detections", r.detections},
        {"seconds", r.seconds},
        {"throughput_rps", r.throughput},
        {"client_cpu_ms_per_request", r.client_cpu_ms_per_request},
        {"latency_ms",
         {{"mean", r.latency.mean}, {"p50", r.latency.p50}, {"p90", r.latency.p90}, {"p99", r.latency.p99}}}};
}

}  // namespace fpgacnn::bench
