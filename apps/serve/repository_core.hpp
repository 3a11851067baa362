// The InferenceCore of fpgacnn-serve: the model repository's models, each a ModelPool, and the
// Prometheus text of their counters (docs/tools/fpgacnn-serve.md, "Metrics").
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/power.hpp"
#include "inference_core.hpp"
#include "model_pool.hpp"
#include "shared_memory_regions.hpp"

namespace fpgacnn::serve {

class RepositoryCore final : public InferenceCore {
public:
    /// Loads every valid model of `repository`; a model that fails to load is reported in problems()
    /// like a malformed folder, and the others serve. Throws Error when the repository is not a folder.
    /// The host's power is sampled from the first readable source under `power_root` (hwmon rails,
    /// powercap energy; a fake sysfs tree in tests) for the power metrics.
    /// `client_shared_memory`: whether clients may register system shared-memory regions
    /// (--allow-client-shm); the server metadata then lists the extension.
    RepositoryCore(const std::string& repository, const PoolOptions& options,
                   const std::string& power_root = "/",
                   ClientSharedMemory client_shared_memory = ClientSharedMemory::Refused);

    /// One line per skipped folder or model, naming it and why.
    const std::vector<std::string>& problems() const { return problems_; }
    /// From now on live() and ready() are false (SIGTERM: drain, then exit).
    void begin_shutdown() { shutting_down_ = true; }

    bool live() const override { return !shutting_down_; }
    bool ready() const override;
    ServerMetadata server_metadata() const override;
    std::vector<std::string> model_names() const override;
    bool model_ready(const std::string& name, const std::string& version) const override;
    ModelMetadata model_metadata(const std::string& name, const std::string& version) const override;
    InferenceResponse infer(InferenceRequest request) override;
    std::string metrics_text() const override;
    SharedMemoryRegions& shared_memory() override { return shared_memory_; }

private:
    ModelPool& pool(const std::string& name, const std::string& version) const;
    /// Watts, joules and joules per answered request, when a power source could be read.
    void append_power_metrics(std::string& text, const std::map<std::string, PoolStats>& stats) const;

    std::map<std::string, std::unique_ptr<ModelPool>> pools_;
    std::vector<std::string> problems_;
    std::atomic<bool> shutting_down_{false};
    std::unique_ptr<PowerMonitor> power_;
    SharedMemoryRegions shared_memory_;
};

}  // namespace fpgacnn::serve
