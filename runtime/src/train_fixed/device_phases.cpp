// Submitting one training phase of one layer through a device's command queue: the arena holds the
// phase's inputs then its output, the parameter buffer BP's weights (WG has none, but every device
// takes a parameter buffer: one word).
#include <algorithm>
#include <cstring>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/command_footprint.hpp"
#include "train_fixed/train_fixed.hpp"

namespace fpgacnn::train_fixed {

namespace {

constexpr std::chrono::milliseconds kPhaseTimeout{600000};

struct Placed {
    std::vector<const std::vector<int16_t>*> inputs;  // in arena order
    std::size_t output_words = 0;
};

/// Uploads `inputs` one after the other into a fresh arena (the command's offsets must match) and
/// `params`, runs `command` with output_offset after the inputs, and returns the output.
std::vector<int16_t> run_phase(Device& device, kernel::LayerCommand command, const Placed& placed,
                               const std::vector<int16_t>& params, const char* description,
                               CommandStats* stats) {
    std::vector<std::size_t> offsets;
    std::size_t words = 0;
    for (const auto* input : placed.inputs) {
        offsets.push_back(words);
        words += input->size();
    }
    const std::size_t output_offset = words;
    words += placed.output_words;
    DeviceBuffer arena = device.allocate(words * 2, BufferRole::FeatureMaps, "training arena");
    DeviceBuffer parameters = device.allocate(std::max<std::size_t>(params.size(), 1) * 2,
                                              BufferRole::Parameters, "training parameters");
    auto* arena_words = static_cast<int16_t*>(arena.host());
    for (std::size_t i = 0; i < placed.inputs.size(); ++i)
        std::memcpy(arena_words + offsets[i], placed.inputs[i]->data(), placed.inputs[i]->size() * 2);
    device.sync(arena, SyncDirection::ToDevice, 0, output_offset * 2);
    if (!params.empty()) {
        std::memcpy(parameters.host(), params.data(), params.size() * 2);
        device.sync(parameters, SyncDirection::ToDevice, 0, params.size() * 2);
    }
    command.output_offset = static_cast<uint32_t>(output_offset);
    DeviceCommand job;
    job.description = description;
    job.command = command;
    device.start(job, arena, parameters);
    const CommandStats done = device.wait(kPhaseTimeout);
    if (stats != nullptr) *stats = done;
    device.sync(arena, SyncDirection::FromDevice, output_offset * 2, placed.output_words * 2);
    return std::vector<int16_t>(arena_words + output_offset,
                                arena_words + output_offset + placed.output_words);
}

}  // namespace

std::vector<int16_t> conv_backward_on_device(Device& device, const ConvShape& shape, int batch,
                                             const std::vector<int16_t>& dy,
                                             const std::vector<int16_t>& weights, int shift,
                                             CommandStats* stats) {
    require_sizes("conv backward", dy.size(), shape.output_elements() * static_cast<std::size_t>(batch),
                  "the error");
    require_sizes("conv backward", weights.size(), shape.weight_elements(), "the weights");
    const KernelMaxima maxima = device.maxima();
    kernel::LayerCommand c = phase_command(kernel::kOpConvBackward, shape, batch, shift, maxima);
    Placed placed;
    placed.inputs = {&dy};
    placed.output_words = shape.input_elements() * static_cast<std::size_t>(batch);
    const std::vector<int16_t> params = backward_weights(shape, weights, maxima.tm, maxima.tn);
    return run_phase(device, c, placed, params, "conv backward (BP)", stats);
}

std::vector<int16_t> weight_gradient_on_device(Device& device, const ConvShape& shape, int batch,
                                               const std::vector<int16_t>& x, const std::vector<int16_t>& dy,
                                               int shift, CommandStats* stats) {
    require_sizes("weight gradient", x.size(), shape.input_elements() * static_cast<std::size_t>(batch),
                  "the input");
    require_sizes("weight gradient", dy.size(), shape.output_elements() * static_cast<std::size_t>(batch),
                  "the error");
    kernel::LayerCommand c = phase_command(kernel::kOpWeightGradient, shape, batch, shift, device.maxima());
    Placed placed;
    placed.inputs = {&x, &dy};
    placed.output_words = shape.weight_elements();
    // Offsets are known before the upload: X first, then dY.
    c.input_offset = 0;
    c.error_offset = static_cast<uint32_t>(x.size());
    return run_phase(device, c, placed, {}, "weight gradient (WG)", stats);
}

}  // namespace fpgacnn::train_fixed
