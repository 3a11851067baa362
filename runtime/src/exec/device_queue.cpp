// DeviceQueue: owns the arena and parameter buffers on a device and runs frames: input in, one
// command per device layer (start, bounded wait), output back. Route layers need no command (their
// producers wrote into place); the region layer's input is the network output.
#include <algorithm>
#include <cstring>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"

namespace fpgacnn {

namespace {

bool same_maxima(const KernelMaxima& a, const KernelMaxima& b) {
    return a.tm == b.tm && a.tn == b.tn && a.tr == b.tr && a.tc == b.tc && a.max_kernel == b.max_kernel &&
           a.max_stride == b.max_stride;
}

}  // namespace

struct DeviceQueue::Impl {
    Device& device;
    std::shared_ptr<const QuantizedNetwork> network;
    QueueOptions options;
    CommandList list;
    DeviceBuffer arena;
    DeviceBuffer parameters;
    std::vector<int16_t> output;
    std::vector<std::vector<int16_t>> layer_outputs;
    std::vector<CommandStats> stats;

    Impl(Device& d, std::shared_ptr<const QuantizedNetwork> n, QueueOptions o)
        : device(d), network(std::move(n)), options(o) {}

    int16_t* arena_host() const { return static_cast<int16_t*>(arena.host); }

    /// Copies [range) of the arena back from the device into `out`.
    void read_back(const ArenaRange& range, std::vector<int16_t>& out) {
        device.sync(arena, SyncDirection::FromDevice, 2 * range.offset, 2 * range.elements);
        out.assign(arena_host() + range.offset, arena_host() + range.end());
    }
};

DeviceQueue::DeviceQueue(Device& device, std::shared_ptr<const QuantizedNetwork> network,
                         QueueOptions options)
    : impl_(std::make_unique<Impl>(device, std::move(network), options)) {
    Impl& d = *impl_;
    if (!d.network) throw Error(device.name() + ": DeviceQueue needs a quantized network");
    PlanOptions plan_options;
    plan_options.maxima = device.maxima();
    d.list = build_command_list(*d.network, plan_options);
    if (!same_maxima(d.list.plan.options.maxima, device.maxima())) {
        throw Error(device.name() + ": the plan was made for another kernel build");
    }
    const std::size_t arena_bytes = 2 * std::max<std::size_t>(1, d.list.plan.arena_elements);
    const std::size_t parameter_bytes = 2 * std::max<std::size_t>(1, d.list.parameters.size());
    d.arena = device.allocate(arena_bytes, BufferRole::FeatureMaps, "feature-map arena");
    try {
        d.parameters = device.allocate(parameter_bytes, BufferRole::Parameters, "parameters");
        std::memcpy(d.parameters.host, d.list.parameters.data(), 2 * d.list.parameters.size());
        device.sync(d.parameters, SyncDirection::ToDevice, 0, parameter_bytes);
    } catch (...) {
        device.free_buffer(d.arena);
        throw;
    }
    d.layer_outputs.resize(d.list.plan.layers.size());
}

DeviceQueue::~DeviceQueue() {
    // A command that timed out may still hold the buffers: the device frees them when it closes.
    try {
        impl_->device.free_buffer(impl_->arena);
        impl_->device.free_buffer(impl_->parameters);
    } catch (const Error&) {
    }
}

const std::vector<int16_t>& DeviceQueue::run(const int16_t* input) {
    Impl& d = *impl_;
    const NetworkPlan& plan = d.list.plan;
    std::copy(input, input + plan.input.elements, d.arena_host() + plan.input.offset);
    if (!d.options.skip_input_sync) {
        d.device.sync(d.arena, SyncDirection::ToDevice, 2 * plan.input.offset, 2 * plan.input.elements);
    }
    d.stats.clear();
    std::size_t next = 0;
    for (const LayerPlan& lp : plan.layers) {
        if (lp.on_device) {
            const DeviceCommand& command = d.list.commands[next++];
            d.device.start(command, d.arena, d.parameters);
            d.stats.push_back(d.device.wait(d.options.layer_timeout));
        }
        // Routes and the region layer are read where their producers wrote, before reuse overwrites it.
        if (d.options.capture_layers)
            d.read_back(lp.output, d.layer_outputs[static_cast<std::size_t>(lp.index)]);
    }
    d.read_back(plan.output, d.output);
    return d.output;
}

const std::vector<int16_t>& DeviceQueue::layer_output(int i) const {
    const Impl& d = *impl_;
    if (!d.options.capture_layers) {
        throw Error(d.device.name() + ": layer outputs are kept only with QueueOptions::capture_layers");
    }
    if (i < 0 || static_cast<std::size_t>(i) >= d.layer_outputs.size()) {
        throw Error(d.device.name() + ": no layer " + std::to_string(i) + " (the network has " +
                    std::to_string(d.layer_outputs.size()) + ")");
    }
    return d.layer_outputs[static_cast<std::size_t>(i)];
}

const std::vector<CommandStats>& DeviceQueue::last_stats() const { return impl_->stats; }
const CommandList& DeviceQueue::commands() const { return impl_->list; }
Device& DeviceQueue::device() const { return impl_->device; }

}  // namespace fpgacnn
