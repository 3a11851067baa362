#include "model_pool.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/error.hpp"
#include "image_input.hpp"
#include "load_or_calibrate.hpp"
#include "protocol_tensors.hpp"

namespace fpgacnn::serve {

namespace {

using Clock = std::chrono::steady_clock;

/// The devices a model's instances spread over: its `device` values when named, else ("auto") every usable
/// accelerator of the host (the emu device is a test device, never picked by auto), else the CPU.
std::vector<std::string> instance_devices(const ModelConfig& config) {
    if (config.devices != std::vector<std::string>{"auto"}) return config.devices;
    std::vector<std::string> accelerators;
    for (const DeviceInfo& info : list_devices()) {
        if (info.usable && info.spec != "cpu" && info.spec.rfind("emu", 0) != 0)
            accelerators.push_back(info.spec);
    }
    if (accelerators.empty()) accelerators.push_back("cpu");
    return accelerators;
}

void check_outputs(const InferenceRequest& request) {
    const std::vector<std::string>& known = output_names();
    for (const std::string& name : request.requested_outputs) {
        if (std::find(known.begin(), known.end(), name) == known.end())
            throw ServeError(ErrorKind::InvalidArgument,
                             "request '" + request.id + "': unknown output '" + name +
                                 "' (the outputs are boxes, scores, classes, labels)");
    }
}

void check_probability(const std::optional<float>& value, const char* name, const std::string& id) {
    if (value && (!std::isfinite(*value) || *value < 0 || *value > 1)) {
        throw ServeError(ErrorKind::InvalidArgument, "request '" + id + "': parameter '" + name +
                                                         "' must be a number in [0, 1], got " +
                                                         std::to_string(*value));
    }
}

}  // namespace

struct ModelPool::Instance {
    std::string device;
    std::unique_ptr<Detector> detector;
    std::atomic<bool> in_rotation{true};
    std::atomic<int> picked{0};  // chosen and not yet submitted (Detector counts the rest)
    std::atomic<std::int64_t> busy_us{0};

    int load() const { return picked.load() + detector->frames_in_flight(); }
};

ModelPool::ModelPool(ModelConfig config, const PoolOptions& options)
    : config_(std::move(config)), options_(options), class_names_(load_class_names(config_.names)) {
    if (options_.max_queue < 1) throw Error("fpgacnn-serve: --max-queue must be at least 1");
    counters_.latency_buckets.assign(latency_buckets_ms().size() + 1, 0);
    const std::vector<std::string> devices = instance_devices(config_);
    Network network = apps::load_model_files(config_.cfg, config_.weights);
    // The quantized model once for every int16 instance (a file's parameters stay in the file).
    std::shared_ptr<const QuantizedNetwork> quantized;
    std::vector<BackendOptions> backends;
    for (int i = 0; i < config_.instances; ++i) {
        BackendOptions backend;
        backend.device = resolve_device(devices[static_cast<std::size_t>(i) % devices.size()]);
        backend.precision = resolve_precision(backend.device, config_.precision);
        backend.cpu_fallback = options_.cpu_fallback;
        if (backend.precision == Precision::Float && config_.weights.empty())
            throw Error(config_.folder + "/model.json: precision float on " + backend.device +
                        " needs \"weights\" (the float .weights file)");
        backends.push_back(backend);
    }
    // Float instances copy the network before load_or_calibrate keeps only its shapes.
    std::vector<std::size_t> order(backends.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_partition(order.begin(), order.end(),
                          [&](std::size_t i) { return backends[i].precision == Precision::Float; });
    instances_.resize(backends.size());
    for (std::size_t i : order) {
        BackendOptions& backend = backends[i];
        if (is_fixed_point(backend.precision)) {
            if (!quantized)
                quantized = apps::load_or_calibrate(network, config_.quantized, false, {}, config_.precision);
            backend.quantized = quantized;
        }
        DetectorOptions detector;
        detector.backend = backend;
        detector.thresh = config_.thresh;
        detector.nms = config_.nms;
        auto instance = std::make_unique<Instance>();
        instance->device = backend.device;
        instance->detector = std::make_unique<Detector>(network, class_names_, detector);
        instances_[i] = std::move(instance);
    }
    spdlog::info("model '{}': {} instance(s) on {}", config_.name, instances_.size(), [&] {
        std::string text;
        for (const auto& instance : instances_) text += (text.empty() ? "" : ", ") + instance->device;
        return text;
    }());
}

ModelPool::~ModelPool() = default;  // each Detector finishes its frames before it goes

bool ModelPool::ready() const {
    return std::any_of(instances_.begin(), instances_.end(),
                       [](const auto& i) { return i->in_rotation.load(); });
}

ModelPool::Instance* ModelPool::least_loaded(const Instance* excluding) {
    Instance* best = nullptr;
    int best_load = 0;
    for (const auto& instance : instances_) {
        if (instance.get() == excluding || !instance->in_rotation) continue;
        const int load = instance->load();
        if (best == nullptr || load < best_load) {
            best = instance.get();
            best_load = load;
        }
    }
    if (best != nullptr) ++best->picked;
    return best;
}

InferenceResponse ModelPool::infer(InferenceRequest request) {
    const auto start = Clock::now();
    {
        std::lock_guard<std::mutex> lock(stats_mutex_);
        ++counters_.requests;
    }
    const auto fail = [&](ErrorKind kind, const std::string& reason) -> ServeError {
        std::lock_guard<std::mutex> lock(stats_mutex_);
        ++counters_.failures;
        if (kind == ErrorKind::ResourceExhausted) ++counters_.rejected;
        return ServeError(kind, reason);
    };
    if (++queue_depth_ > options_.max_queue) {
        --queue_depth_;
        throw fail(ErrorKind::ResourceExhausted,
                   "model '" + config_.name + "': " + std::to_string(options_.max_queue) +
                       " requests are already queued (--max-queue); retry later");
    }
    struct Admitted {
        std::atomic<int>& depth;
        ~Admitted() { --depth; }
    } admitted{queue_depth_};
    try {
        check_outputs(request);
        check_probability(request.thresh, "thresh", request.id);
        check_probability(request.nms, "nms", request.id);
        // Shared by the first run and the retry, and handed to the detector without a copy.
        const FrameInput input = detector_input(std::move(request.image), request.id);
        const FrameThresholds thresholds{request.thresh, request.nms};
        // One run on an instance; DeviceError means the instance's device failed.
        const auto run_on = [&](Instance& instance) {
            std::future<DetectionResult> future;
            try {
                future = instance.detector->submit(input, thresholds);
            } catch (...) {
                --instance.picked;
                throw;
            }
            --instance.picked;
            if (request.deadline && future.wait_until(*request.deadline) == std::future_status::timeout) {
                throw ServeError(ErrorKind::DeadlineExceeded,
                                 "request '" + request.id + "' on model '" + config_.name +
                                     "': no result before its deadline (the frame still completes; raise the "
                                     "timeout or add instances)");
            }
            DetectionResult result = future.get();
            instance.busy_us += static_cast<std::int64_t>(result.device_ms * 1000.0);
            return result;
        };
        Instance* first = least_loaded(nullptr);
        if (first == nullptr)
            throw ServeError(ErrorKind::Unavailable,
                             "model '" + config_.name + "' has no instance in rotation");
        DetectionResult result;
        try {
            result = run_on(*first);
        } catch (const DeviceError& e) {
            first->in_rotation = false;
            spdlog::error("model '{}': instance on {} taken out of rotation: {}", config_.name, first->device,
                          e.what());
            Instance* second = least_loaded(first);
            if (second == nullptr)
                throw ServeError(ErrorKind::Unavailable, "model '" + config_.name + "': the device " +
                                                             first->device + " failed (" + e.what() +
                                                             ") and no other instance is in rotation");
            {
                std::lock_guard<std::mutex> lock(stats_mutex_);
                ++counters_.retried;
            }
            try {
                result = run_on(*second);
            } catch (const DeviceError& again) {
                second->in_rotation = false;
                throw ServeError(ErrorKind::Unavailable, "model '" + config_.name + "': the devices " +
                                                             first->device + " and " + second->device +
                                                             " failed; last: " + again.what());
            }
        }
        InferenceResponse response = answer(request, result);
        record_latency(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        return response;
    } catch (const ServeError& e) {
        throw fail(e.kind(), e.what());
    } catch (const std::exception& e) {
        throw fail(ErrorKind::Internal, "model '" + config_.name + "': " + e.what());
    }
}

InferenceResponse ModelPool::answer(const InferenceRequest& request, const DetectionResult& result) const {
    InferenceResponse response;
    response.model = config_.name;
    response.model_version = "1";
    response.id = request.id;
    for (const Detection& d : result.detections) {
        response.boxes.insert(response.boxes.end(),
                              {static_cast<float>(d.left), static_cast<float>(d.top),
                               static_cast<float>(d.right), static_cast<float>(d.bottom)});
        response.scores.push_back(d.prob);
        response.classes.push_back(d.class_id);
        response.labels.push_back(d.class_name);
    }
    response.outputs = request.requested_outputs.empty() ? output_names() : request.requested_outputs;
    return response;
}

void ModelPool::record_latency(double ms) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    const std::vector<double>& bounds = latency_buckets_ms();
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        if (ms <= bounds[i]) ++counters_.latency_buckets[i];
    }
    ++counters_.latency_buckets.back();  // +Inf
    counters_.latency_sum_ms += ms;
    ++counters_.latency_count;
}

PoolStats ModelPool::stats() const {
    PoolStats stats;
    {
        std::lock_guard<std::mutex> lock(stats_mutex_);
        stats = counters_;
    }
    stats.queue_depth = queue_depth_.load();
    for (const auto& instance : instances_) {
        stats.instances.push_back({instance->device, instance->in_rotation.load(), instance->load(),
                                   static_cast<double>(instance->busy_us.load()) / 1000.0});
    }
    return stats;
}

}  // namespace fpgacnn::serve
