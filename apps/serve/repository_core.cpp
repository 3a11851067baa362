#include "repository_core.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "fpgacnn/error.hpp"
#include "model_repository.hpp"

#ifndef FPGACNN_SERVE_VERSION
#error "FPGACNN_SERVE_VERSION is set by apps/serve/CMakeLists.txt"
#endif

namespace fpgacnn::serve {

namespace {

/// Prometheus label values: backslash, double quote and newline escaped.
std::string label_value(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\' || c == '"') out += '\\';
        out += c == '\n' ? std::string("\\n") : std::string(1, c);
    }
    return out;
}

}  // namespace

RepositoryCore::RepositoryCore(const std::string& repository, const PoolOptions& options) {
    RepositoryScan scan = scan_model_repository(repository);
    problems_ = std::move(scan.problems);
    for (ModelConfig& config : scan.models) {
        const std::string name = config.name;
        try {
            pools_.emplace(name, std::make_unique<ModelPool>(std::move(config), options));
        } catch (const std::exception& e) {
            problems_.push_back("model '" + name + "' cannot be loaded: " + e.what() + " (model skipped)");
        }
    }
    for (const std::string& problem : problems_) spdlog::warn("{}", problem);
}

bool RepositoryCore::ready() const {
    if (shutting_down_ || pools_.empty()) return false;
    for (const auto& [name, pool] : pools_) {
        if (!pool->ready()) return false;
    }
    return true;
}

ServerMetadata RepositoryCore::server_metadata() const {
    return {"fpgacnn", FPGACNN_SERVE_VERSION, {"binary_tensor_data"}};
}

std::vector<std::string> RepositoryCore::model_names() const {
    std::vector<std::string> names;
    for (const auto& [name, pool] : pools_) names.push_back(name);
    return names;
}

ModelPool& RepositoryCore::pool(const std::string& name, const std::string& version) const {
    const auto it = pools_.find(name);
    if (it == pools_.end()) throw ServeError(ErrorKind::NotFound, "unknown model '" + name + "'");
    if (!version.empty() && version != "1")
        throw ServeError(ErrorKind::NotFound,
                         "model '" + name + "' has no version '" + version + "' (only 1)");
    return *it->second;
}

bool RepositoryCore::model_ready(const std::string& name, const std::string& version) const {
    return !shutting_down_ && pool(name, version).ready();
}

ModelMetadata RepositoryCore::model_metadata(const std::string& name, const std::string& version) const {
    const ModelPool& model = pool(name, version);
    ModelMetadata metadata;
    metadata.name = model.config().name;
    metadata.versions = {"1"};
    metadata.platform = "fpgacnn_darknet";
    // `image`: one encoded file (BYTES [1]) or RGB pixels (UINT8 [H, W, 3]); the protocol's metadata
    // names one datatype per input, so BYTES is listed and the pixel form documented.
    metadata.inputs = {{"image", "BYTES", {1}}};
    metadata.outputs = {{"boxes", "FP32", {-1, 4}},
                        {"scores", "FP32", {-1}},
                        {"classes", "INT32", {-1}},
                        {"labels", "BYTES", {-1}}};
    return metadata;
}

InferenceResponse RepositoryCore::infer(InferenceRequest request) {
    if (shutting_down_) throw ServeError(ErrorKind::Unavailable, "the server is shutting down");
    return pool(request.model, request.model_version).infer(request);
}

std::string RepositoryCore::metrics_text() const {
    std::string text;
    const auto family = [&](const char* name, const char* type, const char* help) {
        text += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    };
    std::map<std::string, PoolStats> stats;
    for (const auto& [name, pool] : pools_) stats.emplace(name, pool->stats());

    family("fpgacnn_requests_total", "counter", "Inference requests received per model.");
    for (const auto& [name, s] : stats)
        text += fmt::format("fpgacnn_requests_total{{model=\"{}\"}} {}\n", label_value(name), s.requests);
    family("fpgacnn_request_failures_total", "counter",
           "Inference requests answered with an error per model.");
    for (const auto& [name, s] : stats)
        text +=
            fmt::format("fpgacnn_request_failures_total{{model=\"{}\"}} {}\n", label_value(name), s.failures);
    family("fpgacnn_requests_rejected_total", "counter",
           "Requests refused because the admission queue was full.");
    for (const auto& [name, s] : stats)
        text += fmt::format("fpgacnn_requests_rejected_total{{model=\"{}\"}} {}\n", label_value(name),
                            s.rejected);
    family("fpgacnn_requests_retried_total", "counter",
           "Requests moved to another instance after a device failure.");
    for (const auto& [name, s] : stats)
        text +=
            fmt::format("fpgacnn_requests_retried_total{{model=\"{}\"}} {}\n", label_value(name), s.retried);
    family("fpgacnn_queue_depth", "gauge", "Requests admitted and not yet answered per model.");
    for (const auto& [name, s] : stats)
        text += fmt::format("fpgacnn_queue_depth{{model=\"{}\"}} {}\n", label_value(name), s.queue_depth);
    family("fpgacnn_request_duration_seconds", "histogram", "Latency of answered requests per model.");
    for (const auto& [name, s] : stats) {
        const std::string model = label_value(name);
        const std::vector<double>& bounds = latency_buckets_ms();
        for (std::size_t i = 0; i < bounds.size(); ++i)
            text += fmt::format("fpgacnn_request_duration_seconds_bucket{{model=\"{}\",le=\"{}\"}} {}\n",
                                model, bounds[i] / 1000.0, s.latency_buckets[i]);
        text += fmt::format("fpgacnn_request_duration_seconds_bucket{{model=\"{}\",le=\"+Inf\"}} {}\n", model,
                            s.latency_buckets.back());
        text += fmt::format("fpgacnn_request_duration_seconds_sum{{model=\"{}\"}} {}\n", model,
                            s.latency_sum_ms / 1000.0);
        text += fmt::format("fpgacnn_request_duration_seconds_count{{model=\"{}\"}} {}\n", model,
                            s.latency_count);
    }
    family("fpgacnn_frames_in_flight", "gauge", "Frames inside each instance's pipeline.");
    for (const auto& [name, s] : stats)
        for (std::size_t i = 0; i < s.instances.size(); ++i)
            text += fmt::format("fpgacnn_frames_in_flight{{model=\"{}\",instance=\"{}\",device=\"{}\"}} {}\n",
                                label_value(name), i, label_value(s.instances[i].device),
                                s.instances[i].in_flight);
    family("fpgacnn_instance_in_rotation", "gauge",
           "1 while an instance takes requests, 0 after its device failed.");
    for (const auto& [name, s] : stats)
        for (std::size_t i = 0; i < s.instances.size(); ++i)
            text += fmt::format(
                "fpgacnn_instance_in_rotation{{model=\"{}\",instance=\"{}\",device=\"{}\"}} {}\n",
                label_value(name), i, label_value(s.instances[i].device), s.instances[i].in_rotation ? 1 : 0);
    family("fpgacnn_device_busy_seconds_total", "counter", "Time each instance's backend spent on frames.");
    for (const auto& [name, s] : stats)
        for (std::size_t i = 0; i < s.instances.size(); ++i)
            text += fmt::format(
                "fpgacnn_device_busy_seconds_total{{model=\"{}\",instance=\"{}\",device=\"{}\"}} {}\n",
                label_value(name), i, label_value(s.instances[i].device), s.instances[i].busy_ms / 1000.0);
    return text;
}

}  // namespace fpgacnn::serve
