// DeviceQueue: owns the arena and parameter buffers on a device and runs frames through a
// submission thread. The arena holds the plan's feature maps (reused when dead) followed by two input
// slots that nothing else uses, so the host can upload frame N+1 while the kernel computes frame N.
// Route layers need no command (their producers wrote into place); the last layer's output is read
// back before the next frame's commands can overwrite it. 8-bit tensors sit in the arena one byte per
// element (arith::fm_element_bytes) and are widened to int16 values when read back.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "exec/host_layers.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"

namespace fpgacnn {

namespace {

// Not the pair mode (int8_pairs): it changes the kernel's cycles, never a plan's tiles or results.
bool same_maxima(const KernelMaxima& a, const KernelMaxima& b) {
    return a.tm == b.tm && a.tn == b.tn && a.tr == b.tr && a.tc == b.tc && a.max_kernel == b.max_kernel &&
           a.max_stride == b.max_stride;
}

/// One frame between submit() and collect().
struct Frame {
    int slot = 0;
    bool slot_released = false;   // layer 0 has read the input slot
    bool capture_layers = false;  // keep every layer's output (QueueOptions or this frame asked)
    bool done = false;
    std::exception_ptr error;
    std::vector<int16_t> output;
    std::vector<std::vector<int16_t>> layer_outputs;
    std::vector<CommandStats> stats;
};

}  // namespace

struct DeviceQueue::Impl {
    Device& device;
    std::shared_ptr<const QuantizedNetwork> network;
    QueueOptions options;
    CommandList list;
    DeviceBuffer arena;
    DeviceBuffer parameters;
    std::size_t slot_offsets[kInputSlots] = {};  // int16 elements into the arena

    // Shared with the submission thread, under `mutex`.
    mutable std::mutex mutex;
    std::condition_variable changed;
    std::deque<Frame> frames;     // submitted, oldest first; the thread runs them in order
    std::size_t next_to_run = 0;  // index into `frames` of the first frame not yet run
    bool slot_busy[kInputSlots] = {};
    bool stopping = false;
    std::thread submitter;

    // Results of the last collected frame (caller's thread only).
    std::vector<int16_t> output;
    std::vector<std::vector<int16_t>> layer_outputs;
    std::vector<CommandStats> stats;

    Impl(Device& d, std::shared_ptr<const QuantizedNetwork> n, CommandList l, QueueOptions o)
        : device(d), network(std::move(n)), options(o), list(std::move(l)) {}

    int16_t* arena_host() const { return static_cast<int16_t*>(arena.host()); }

    void allocate_buffers() {
        const NetworkPlan& plan = list.plan;
        const std::size_t alignment = std::max(1, plan.options.alignment_elements);
        std::size_t end = align_up(std::max<std::size_t>(1, plan.arena_elements), alignment);
        for (std::size_t& slot : slot_offsets) {
            slot = end;
            end = align_up(end + plan.input.elements, alignment);
        }
        const std::size_t parameter_bytes = 2 * std::max<std::size_t>(1, plan.parameter_words);
        if (!list.parameters.empty() && list.parameters.size() != plan.parameter_words) {
            throw Error(device.name() + ": the command list carries " +
                        std::to_string(list.parameters.size()) + " parameter values, its plan places " +
                        std::to_string(plan.parameter_words) + "; build it with build_command_list");
        }
        // Parameters first: while they stream in, one layer is in host memory twice (read from the
        // model, written into the buffer), so the arena is not yet there to add to that peak.
        parameters = device.allocate(parameter_bytes, BufferRole::Parameters, "parameters");
        auto* host = static_cast<int16_t*>(parameters.host());
        // Each range goes to the device as soon as it is written and the host gives it up (only the
        // kernel reads parameters), so the host never holds the whole buffer beside the device's.
        const auto upload = [&](std::size_t first, std::size_t count) {
            device.sync(parameters, SyncDirection::ToDevice, 2 * first, 2 * count);
            device.release_host_copy(parameters, 2 * first, 2 * count);
        };
        if (list.parameters.empty()) {
            write_parameters(plan, *network, host, upload);
            if (plan.parameter_words == 0) upload(0, parameter_bytes / 2);  // the 1-element placeholder
        } else {
            std::copy(list.parameters.begin(), list.parameters.end(), host);
            upload(0, parameter_bytes / 2);
        }
        arena = device.allocate(2 * end, BufferRole::FeatureMaps, "feature-map arena");
    }

    /// Copies [range) of the arena back from the device into `out`, one int16 value per element at
    /// either storage width (an 8-bit tensor's bytes are widened).
    void read_back(const ArenaRange& range, std::vector<int16_t>& out) {
        device.sync(arena, SyncDirection::FromDevice, range.byte_offset(), range.bytes());
        if (range.bits == arith::kNarrowBits) {
            const auto* bytes = static_cast<const int8_t*>(arena.host()) + range.offset;
            out.assign(bytes, bytes + range.elements);
            return;
        }
        out.assign(arena_host() + range.offset, arena_host() + range.end());
    }

    /// Writes int16 values into [range) of the arena (narrowed to bytes for an 8-bit tensor: the values
    /// are already within its width) and syncs that range to the device.
    void write_to_arena(const ArenaRange& range, const std::vector<int16_t>& values) {
        if (range.bits == arith::kNarrowBits) {
            auto* bytes = static_cast<int8_t*>(arena.host()) + range.offset;
            for (std::size_t i = 0; i < range.elements; ++i) bytes[i] = static_cast<int8_t>(values[i]);
        } else {
            std::copy(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(range.elements),
                      arena_host() + range.offset);
        }
        device.sync(arena, SyncDirection::ToDevice, range.byte_offset(), range.bytes());
    }

    /// The frame's result: the last layer's output, or every yolo head's one after the other.
    void read_result(std::vector<int16_t>& result) {
        const NetworkPlan& plan = list.plan;
        result.clear();
        std::vector<int16_t> head;
        for (const LayerPlan& lp : plan.layers) {
            if (lp.type != LayerType::Yolo) continue;
            read_back(lp.output, head);
            result.insert(result.end(), head.begin(), head.end());
        }
        if (result.empty()) read_back(plan.output, result);
    }

    /// Every layer of one frame, on the submission thread. Layer 0 reads the frame's input slot.
    void run_frame(Frame& frame) {
        const NetworkPlan& plan = list.plan;
        if (frame.capture_layers) frame.layer_outputs.assign(plan.layers.size(), {});
        std::size_t next = 0;
        for (const LayerPlan& lp : plan.layers) {
            if (lp.on_device) {
                DeviceCommand command = list.commands[next++];
                if (lp.index == 0) {
                    command.command.input_offset = static_cast<uint32_t>(slot_offsets[frame.slot]);
                }
                device.start(command, arena, parameters);
                frame.stats.push_back(device.wait(options.layer_timeout));
                if (lp.index == 0) release_slot(frame);
            }
            if (lp.on_host) {
                // A host layer 0 ([crop] in vgg-16.cfg) reads the frame's input slot, as a command would; a
                // logistic conv (on the device too) passes its own output through the logistic.
                LayerPlan host = lp;
                if (lp.index == 0) host.input.offset = slot_offsets[frame.slot];
                exec_detail::run_host_layer(
                    *network, plan, host,
                    [&](const ArenaRange& range, std::vector<int16_t>& out) { read_back(range, out); },
                    [&](const ArenaRange& range, const std::vector<int16_t>& values) {
                        write_to_arena(range, values);
                    });
                if (lp.index == 0 && !lp.on_device) release_slot(frame);
            }
            // Routes and the region layer are read where their producers wrote, before reuse overwrites it.
            if (frame.capture_layers)
                read_back(lp.output, frame.layer_outputs[static_cast<std::size_t>(lp.index)]);
        }
        read_result(frame.output);
    }

    void release_slot(Frame& frame) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            slot_busy[frame.slot] = false;
            frame.slot_released = true;
        }
        changed.notify_all();
    }

    void submission_loop() {
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            changed.wait(lock, [&] { return stopping || next_to_run < frames.size(); });
            if (next_to_run >= frames.size()) return;  // stopping with nothing left to run
            Frame& frame = frames[next_to_run];        // deque: stays valid while others are appended
            lock.unlock();
            try {
                run_frame(frame);
            } catch (...) {
                frame.error = std::current_exception();
            }
            lock.lock();
            if (!frame.slot_released) slot_busy[frame.slot] = false;  // layer 0 failed
            frame.done = true;
            ++next_to_run;
            changed.notify_all();
        }
    }
};

DeviceQueue::DeviceQueue(Device& device, std::shared_ptr<const QuantizedNetwork> network,
                         QueueOptions options)
    : DeviceQueue(
          device, network,
          [&] {
              if (!network) throw Error(device.name() + ": DeviceQueue needs a quantized network");
              PlanOptions plan_options;
              plan_options.maxima = device.maxima();
              return plan_command_list(*network, plan_options);
          }(),
          options) {}

DeviceQueue::DeviceQueue(Device& device, std::shared_ptr<const QuantizedNetwork> network,
                         CommandList commands, QueueOptions options) {
    if (!network) throw Error(device.name() + ": DeviceQueue needs a quantized network");
    // The list may have been built elsewhere; the network it runs must still keep the contract.
    validate_quantized_network(
        *network, network->network.cfg_path.empty() ? "quantized network" : network->network.cfg_path);
    const KernelMaxima planned = commands.plan.options.maxima;
    if (!same_maxima(planned, device.maxima())) {
        throw DeviceError(
            device.name() + ": the plan was made for a kernel built with " + maxima_text(planned) +
            ", but the device's kernel is " + device.fingerprint().text() +
            "; re-plan for the device (fpgacnn-plan --tm/--tn/--tr/--tc) or load the bitstream the "
            "plan was made for");
    }
    if (!device.maxima().upsample_shortcut) {
        for (const DeviceCommand& c : commands.commands) {
            if (!kernel::is_upsample_shortcut_op(c.command.op)) continue;
            throw DeviceError(device.name() + ": " + c.description +
                              " was planned for a kernel with the upsample / shortcut ops, but the device's "
                              "kernel (" +
                              device.fingerprint().text() +
                              ") has none; re-plan for the device so that those layers run on the host");
        }
    }
    const bool host_first = !commands.plan.layers.empty() && commands.plan.layers.front().on_host;
    if (!host_first && (commands.commands.empty() || commands.commands.front().layer != 0)) {
        throw DeviceError(network->network.cfg_path + ": layer 0 must run on " + device.name() +
                          " or be a host layer (it reads the frame's input slot)");
    }
    impl_ = std::make_unique<Impl>(device, std::move(network), std::move(commands), options);
    impl_->allocate_buffers();
    impl_->submitter = std::thread([d = impl_.get()] { d->submission_loop(); });
}

DeviceQueue::~DeviceQueue() {
    Impl& d = *impl_;
    {
        std::lock_guard<std::mutex> lock(d.mutex);
        d.stopping = true;
    }
    d.changed.notify_all();
    d.submitter.join();  // finishes the frames in flight: each layer's wait is bounded
    // The buffers go with impl_; a command that timed out keeps them alive in the device meanwhile.
}

void DeviceQueue::submit(const int16_t* input, bool capture_layers) {
    Impl& d = *impl_;
    int slot = -1;
    {
        std::unique_lock<std::mutex> lock(d.mutex);
        d.changed.wait(lock, [&] { return !d.slot_busy[0] || !d.slot_busy[1]; });
        slot = d.slot_busy[0] ? 1 : 0;
        d.slot_busy[slot] = true;
    }
    // The upload runs on the caller's thread, while the submission thread may be computing.
    const std::size_t offset = d.slot_offsets[slot];
    const std::size_t elements = d.list.plan.input.elements;
    try {
        std::copy(input, input + elements, d.arena_host() + offset);
        if (!d.options.skip_input_sync) {
            d.device.sync(d.arena, SyncDirection::ToDevice, 2 * offset, 2 * elements);
        }
    } catch (...) {
        {
            std::lock_guard<std::mutex> lock(d.mutex);
            d.slot_busy[slot] = false;
        }
        d.changed.notify_all();
        throw;
    }
    {
        std::lock_guard<std::mutex> lock(d.mutex);
        Frame frame;
        frame.slot = slot;
        frame.capture_layers = capture_layers || d.options.capture_layers;
        d.frames.push_back(std::move(frame));
    }
    d.changed.notify_all();
}

const std::vector<int16_t>& DeviceQueue::collect() {
    Impl& d = *impl_;
    Frame frame;
    {
        std::unique_lock<std::mutex> lock(d.mutex);
        if (d.frames.empty()) throw Error(d.device.name() + ": collect() without a submitted frame");
        d.changed.wait(lock, [&] { return d.frames.front().done; });
        frame = std::move(d.frames.front());
        d.frames.pop_front();
        --d.next_to_run;
    }
    d.stats = std::move(frame.stats);
    d.layer_outputs.clear();  // a failed frame leaves none, rather than an older frame's
    if (frame.error) std::rethrow_exception(frame.error);
    d.output = std::move(frame.output);
    d.layer_outputs = std::move(frame.layer_outputs);
    return d.output;
}

int DeviceQueue::in_flight() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return static_cast<int>(impl_->frames.size());
}

const std::vector<int16_t>& DeviceQueue::run(const int16_t* input, bool capture_layers) {
    if (in_flight() != 0) {
        throw Error(impl_->device.name() + ": run() while " + std::to_string(in_flight()) +
                    " submitted frame(s) are not collected; collect() them first");
    }
    submit(input, capture_layers);
    return collect();
}

const std::vector<int16_t>& DeviceQueue::layer_output(int i) const {
    const Impl& d = *impl_;
    if (d.layer_outputs.empty()) {
        throw Error(d.device.name() +
                    ": the last collected frame kept no layer outputs (QueueOptions::capture_layers, or "
                    "submit() with capture_layers)");
    }
    if (i < 0 || static_cast<std::size_t>(i) >= d.layer_outputs.size()) {
        throw Error(d.device.name() + ": no layer " + std::to_string(i) + " (the last collected frame has " +
                    std::to_string(d.layer_outputs.size()) + ")");
    }
    return d.layer_outputs[static_cast<std::size_t>(i)];
}

const std::vector<std::vector<int16_t>>& DeviceQueue::layer_outputs() const { return impl_->layer_outputs; }
const std::vector<CommandStats>& DeviceQueue::last_stats() const { return impl_->stats; }
const CommandList& DeviceQueue::commands() const { return impl_->list; }
Device& DeviceQueue::device() const { return impl_->device; }

}  // namespace fpgacnn
