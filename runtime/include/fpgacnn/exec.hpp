// Running a quantized network on a Device: the command list built once per network (plan, shifts,
// packed parameters) and a queue that owns the device buffers, submits one command per layer, waits
// with a deadline and reports the failing layer.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/export.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

/// Everything a device needs for one network, independent of any device instance.
struct FPGACNN_API CommandList {
    NetworkPlan plan;                     ///< the network planned for the kernel build (plan_network)
    std::vector<DeviceCommand> commands;  ///< the device layers, in execution order
    /// Re-ordered weights and padded biases at the plan's offsets (build_command_list); empty from
    /// plan_command_list: DeviceQueue then writes them from the network straight into the device buffer.
    std::vector<int16_t> parameters;
};

/// Plans the network for a kernel build and fills in the exponents. Throws DeviceError naming the
/// layer that does not fit the build, Error naming the layer whose exponents no kernel can run.
FPGACNN_API CommandList plan_command_list(const QuantizedNetwork& network, const PlanOptions& options);
/// plan_command_list plus the packed parameters on the host (tools and tests that need the buffer).
FPGACNN_API CommandList build_command_list(const QuantizedNetwork& network, const PlanOptions& options);

/// How a DeviceQueue runs its frames.
struct FPGACNN_API QueueOptions {
    /// Per-command deadline; a layer that takes longer fails the frame with an Error naming it.
    std::chrono::milliseconds layer_timeout{60000};
    /// Sync every layer's output back and keep it for every frame (layer_output()); costs one sync
    /// per layer. A single frame can ask for the same with submit(input, true).
    bool capture_layers = false;
    /// Testing the drivers' ownership checks: skip the input sync before the first command.
    bool skip_input_sync = false;
};

/// Runs frames on a device. Frames can be pipelined: submit() uploads a frame into one of two input
/// slots (outside the arena's reused space) and hands the whole network to the queue's own
/// submission thread, which starts every layer's command, waits for each with the deadline and reads
/// the output back; meanwhile the caller can submit (upload) the next frame. collect() returns the
/// frames' outputs in submission order.
class FPGACNN_API DeviceQueue {
public:
    /// Frames in flight at most: one computing, one uploaded and waiting.
    static constexpr int kInputSlots = 2;

    /// Allocates the arena (plus the input slots) and the parameter buffer on `device` and writes the
    /// re-ordered parameters straight into it, one layer at a time (write_parameters; no host copy of
    /// the whole buffer), then syncs it once. The device must outlive the queue; its maxima decide the
    /// plan.
    DeviceQueue(Device& device, std::shared_ptr<const QuantizedNetwork> network, QueueOptions options = {});
    /// Same with a command list built elsewhere (e.g. for a bitstream by fpgacnn-plan): its packed
    /// parameters are copied when it has them, else written from `network`. Throws
    /// DeviceError naming both kernel builds when the list was planned for other maxima than the
    /// device's.
    DeviceQueue(Device& device, std::shared_ptr<const QuantizedNetwork> network, CommandList commands,
                QueueOptions options = {});
    ~DeviceQueue();
    DeviceQueue(const DeviceQueue&) = delete;
    DeviceQueue& operator=(const DeviceQueue&) = delete;

    /// One frame, synchronously: `input` holds network.input.size() int16 values at the network's
    /// input exponent. Returns the last layer's output (for YOLOv2: the region layer's int16 input), or for a
    /// network with [yolo] heads every head's int16 input one after the other.
    /// Needs no frame in flight from submit().
    /// With capture_layers, this frame's layer outputs are kept (as QueueOptions::capture_layers
    /// does for every frame).
    const std::vector<int16_t>& run(const int16_t* input, bool capture_layers = false);

    /// Pipelined: copies `input` into a free input slot, syncs it to the device and queues the whole
    /// network for it. Blocks while kInputSlots frames are in flight (back-pressure), at most for the
    /// time those frames take. Safe to call while the submission thread runs another frame.
    /// capture_layers: keep this frame's layer outputs (one extra sync per layer for this frame only).
    void submit(const int16_t* input, bool capture_layers = false);
    /// The oldest submitted frame's output; blocks until it is done. Rethrows that frame's Error
    /// (naming the device and the failing layer); later frames are unaffected by the throw itself.
    const std::vector<int16_t>& collect();
    /// Frames submitted and not yet collected.
    int in_flight() const;

    /// Output of layer i from the last collected frame (needs QueueOptions::capture_layers, or that
    /// frame submitted with capture_layers).
    const std::vector<int16_t>& layer_output(int i) const;
    /// Every layer's output of the last collected frame, indexed by network layer; empty when that
    /// frame kept none. Routes hold their concatenation, the region layer its int16 input.
    const std::vector<std::vector<int16_t>>& layer_outputs() const;
    /// Per device command of the last collected frame: traffic and time.
    const std::vector<CommandStats>& last_stats() const;
    /// The plan, commands and (when held) packed parameters the queue runs.
    const CommandList& commands() const;
    /// The device the queue runs on (given to the constructor).
    Device& device() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// The detection pipeline's Backend on a device: the letterboxed float input quantized at the
/// network's input exponent, DeviceQueue, and the region layer's input dequantized and activated in
/// float on the host, exactly as the CPU int16 backend does (so both give identical detections).
/// `device_spec` as open_device() takes it ("emu", ...). With capture_layers, layer_output() works
/// (one extra sync per layer).
FPGACNN_API std::unique_ptr<Backend> make_device_backend(std::shared_ptr<const QuantizedNetwork> network,
                                                         const std::string& device_spec,
                                                         bool capture_layers = false);

}  // namespace fpgacnn
