#include "repository_core.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "../common/process_cpu.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/version.hpp"
#include "model_repository.hpp"

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

/// The HELP and TYPE lines that open a metric family.
void family(std::string& text, const char* name, const char* type, const char* help) {
    text += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

RepositoryCore::RepositoryCore(const std::string& repository, const PoolOptions& options,
                               const std::string& power_root, ClientSharedMemory client_shared_memory)
    // Sampled once a second: a scrape interval is seconds long, and reading sysfs costs little.
    : power_(std::make_unique<PowerMonitor>(nullptr, power_root, std::chrono::milliseconds(1000))),
      shared_memory_(client_shared_memory) {
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
    ServerMetadata metadata{"fpgacnn", fpgacnn::version(), {"binary_tensor_data"}};
    if (shared_memory_.allowed()) metadata.extensions.emplace_back("system_shared_memory");
    return metadata;
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
    ModelPool& model = pool(request.model, request.model_version);
    return model.infer(std::move(request));
}

std::string RepositoryCore::metrics_text() const {
    std::string text;
    std::map<std::string, PoolStats> stats;
    for (const auto& [name, pool] : pools_) stats.emplace(name, pool->stats());

    family(text, "fpgacnn_requests_total", "counter", "Inference requests received per model.");
    for (const auto& [name, s] : stats)
        text += fmt::format("fpgacnn_requests_total{{model=\"{}\"}} {}\n", label_value(name), s.requests);
    family(text, "fpgacnn_request_failures_total", "counter",
           "Inference requests answered with an error per model.");
    for (const auto& [name, s] : stats)
        text +=
            fmt::format("fpgacnn_request_failures_total{{model=\"{}\"}} {}\n", label_value(name), s.failures);
    family(text, "fpgacnn_requests_rejected_total", "counter",
           "Requests refused because the admission queue was full.");
    for (const auto& [name, s] : stats)
        text += fmt::format("fpgacnn_requests_rejected_total{{model=\"{}\"}} {}\n", label_value(name),
                            s.rejected);
    family(text, "fpgacnn_requests_retried_total", "counter",
           "Requests moved to another instance after a device failure.");
    for (const auto& [name, s] : stats)
        text +=
            fmt::format("fpgacnn_requests_retried_total{{model=\"{}\"}} {}\n", label_value(name), s.retried);
    family(text, "fpgacnn_queue_depth", "gauge", "Requests admitted and not yet answered per model.");
    for (const auto& [name, s] : stats)
        text += fmt::format("fpgacnn_queue_depth{{model=\"{}\"}} {}\n", label_value(name), s.queue_depth);
    family(text, "fpgacnn_request_duration_seconds", "histogram", "Latency of answered requests per model.");
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
    family(text, "fpgacnn_frames_in_flight", "gauge", "Frames inside each instance's pipeline.");
    for (const auto& [name, s] : stats)
        for (std::size_t i = 0; i < s.instances.size(); ++i)
            text += fmt::format("fpgacnn_frames_in_flight{{model=\"{}\",instance=\"{}\",device=\"{}\"}} {}\n",
                                label_value(name), i, label_value(s.instances[i].device),
                                s.instances[i].in_flight);
    family(text, "fpgacnn_instance_in_rotation", "gauge",
           "1 while an instance takes requests, 0 after its device failed.");
    for (const auto& [name, s] : stats)
        for (std::size_t i = 0; i < s.instances.size(); ++i)
            text += fmt::format(
                "fpgacnn_instance_in_rotation{{model=\"{}\",instance=\"{}\",device=\"{}\"}} {}\n",
                label_value(name), i, label_value(s.instances[i].device), s.instances[i].in_rotation ? 1 : 0);
    family(text, "fpgacnn_device_busy_seconds_total", "counter",
           "Time each instance's backend spent on frames.");
    for (const auto& [name, s] : stats)
        for (std::size_t i = 0; i < s.instances.size(); ++i)
            text += fmt::format(
                "fpgacnn_device_busy_seconds_total{{model=\"{}\",instance=\"{}\",device=\"{}\"}} {}\n",
                label_value(name), i, label_value(s.instances[i].device), s.instances[i].busy_ms / 1000.0);
    // Prometheus's standard process metric: with the requests counter it gives the server's CPU
    // per request (docs/tools/fpgacnn-serve.md, "Throughput").
    family(text, "process_cpu_seconds_total", "counter", "User and system CPU time of the server process.");
    text += fmt::format("process_cpu_seconds_total {}\n", apps::process_cpu_seconds());
    append_power_metrics(text, stats);
    return text;
}

void RepositoryCore::append_power_metrics(std::string& text,
                                          const std::map<std::string, PoolStats>& stats) const {
    const PowerReport power = power_->current();
    if (!power.available) {
        // A comment, not a metric: Prometheus convention is to leave out what cannot be measured.
        text += "# fpgacnn power metrics unavailable: " + power.reason + "\n";
        return;
    }
    std::uint64_t frames = 0;
    for (const auto& [name, s] : stats) frames += s.latency_count;
    family(text, "fpgacnn_power_source_info", "gauge", "The sensors the power metrics read (always 1).");
    text += fmt::format("fpgacnn_power_source_info{{source=\"{}\"}} 1\n", label_value(power.source));
    family(text, "fpgacnn_power_watts", "gauge", "Host power over the last sampling interval (1 s).");
    text += fmt::format("fpgacnn_power_watts {}\n", power.latest_watts);
    family(text, "fpgacnn_energy_joules_total", "counter", "Host energy since the server started.");
    text += fmt::format("fpgacnn_energy_joules_total {}\n", power.joules);
    if (frames > 0) {
        family(text, "fpgacnn_energy_per_frame_joules", "gauge",
               "Host energy since the server started over the requests answered (idle time included).");
        text +=
            fmt::format("fpgacnn_energy_per_frame_joules {}\n", power.joules / static_cast<double>(frames));
    }
}

}  // namespace fpgacnn::serve
