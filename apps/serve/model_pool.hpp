// One model of the repository as a pool of instances (docs/tools/fpgacnn-serve.md): each instance a
// pipelined Detector on one device; a request goes to the least-loaded instance in rotation, waits
// at most until its deadline, and is refused at once when the model's admission queue is full. A
// device that fails takes its instance out of rotation and the request is retried once elsewhere.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fpgacnn/detector.hpp"
#include "inference_core.hpp"
#include "model_repository.hpp"

namespace fpgacnn::serve {

struct PoolOptions {
    /// Requests admitted per model at once (queued or running); more get ResourceExhausted at once.
    int max_queue = 64;
    /// --fallback cpu: a failing device's frames move to the CPU int16 backend instead of failing.
    bool cpu_fallback = false;
};

/// What /metrics reports of one model (read with ModelPool::stats; thread-safe counters).
struct PoolStats {
    std::uint64_t requests = 0;
    std::uint64_t failures = 0;  // answered with an error (any kind)
    std::uint64_t rejected = 0;  // of which: admission queue full
    std::uint64_t retried = 0;   // requests moved to another instance after a device failure
    int queue_depth = 0;         // admitted and not yet answered
    /// Latency histogram of answered requests: counts of latencies <= kLatencyBucketsMs[i], cumulative.
    std::vector<std::uint64_t> latency_buckets;
    double latency_sum_ms = 0;
    std::uint64_t latency_count = 0;
    struct Instance {
        std::string device;
        bool in_rotation = true;
        int in_flight = 0;
        double busy_ms = 0;  // sum of the frames' device times
    };
    std::vector<Instance> instances;
};

/// Upper bounds of the latency histogram's buckets, in milliseconds (the last bucket is +Inf).
inline const std::vector<double>& latency_buckets_ms() {
    static const std::vector<double> buckets = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};
    return buckets;
}

class ModelPool {
public:
    /// Loads the model and makes its instances; throws Error naming the file or device when it cannot.
    ModelPool(ModelConfig config, const PoolOptions& options);
    ~ModelPool();
    ModelPool(const ModelPool&) = delete;
    ModelPool& operator=(const ModelPool&) = delete;

    const ModelConfig& config() const { return config_; }
    /// At least one instance is in rotation.
    bool ready() const;
    /// Throws ServeError for every failure.
    InferenceResponse infer(InferenceRequest request);
    PoolStats stats() const;

private:
    struct Instance;
    Instance* least_loaded(const Instance* excluding);
    InferenceResponse answer(const InferenceRequest& request, const DetectionResult& result) const;
    void record_latency(double ms);

    ModelConfig config_;
    PoolOptions options_;
    std::vector<std::string> class_names_;
    std::vector<std::unique_ptr<Instance>> instances_;
    std::atomic<int> queue_depth_{0};
    mutable std::mutex stats_mutex_;
    PoolStats counters_;
};

}  // namespace fpgacnn::serve
