// Bit-exact, layer by layer, between a device (emu, rtl) and the CPU int16 backend: the helpers the
// emu and rtl device tests share (models with mixed widths, synthetic networks, the comparison).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "emu_test_support.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

/// Every layer of `device` against the CPU int16 backend on each of `isas`; returns the device's
/// per-command statistics of the run.
inline std::vector<CommandStats> expect_device_bit_exact(Device& device,
                                                         const std::shared_ptr<const QuantizedNetwork>& q,
                                                         const std::string& name,
                                                         const std::vector<Int16Isa>& isas) {
    const Network& network = q->network;
    QueueOptions options;
    options.capture_layers = true;
    options.layer_timeout = std::chrono::minutes(10);  // the rtl simulation is slow
    DeviceQueue queue(device, q, options);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q);
    const std::vector<int16_t> actual = queue.run(input.data());
    for (const Int16Isa isa : isas) {
        Int16Engine engine(*q, isa, 0, true);
        const std::vector<int16_t> expected = engine.run(input.data());
        for (std::size_t i = 0; i < network.layers.size(); ++i) {
            const std::vector<int16_t>& on_device = queue.layer_output(static_cast<int>(i));
            const std::vector<int16_t>& cpu = engine.layer_output(static_cast<int>(i));
            const long at = first_difference(on_device, cpu);
            EXPECT_EQ(at, -1) << name << ": layer " << i << " (" << layer_type_name(network.layers[i].type)
                              << ") differs at element " << at << ": " << device.name() << " "
                              << on_device[static_cast<std::size_t>(std::max(at, 0L))] << ", cpu "
                              << isa_name(isa) << " " << cpu[static_cast<std::size_t>(std::max(at, 0L))];
            if (at != -1) return queue.last_stats();
        }
        // The queue's result: the last layer's output, or every yolo head's one after the other.
        std::vector<int16_t> result;
        for (std::size_t i = 0; i < network.layers.size(); ++i) {
            if (network.layers[i].type != LayerType::Yolo) continue;
            const std::vector<int16_t>& head = engine.layer_output(static_cast<int>(i));
            result.insert(result.end(), head.begin(), head.end());
        }
        EXPECT_EQ(actual, result.empty() ? expected : result) << name << ": final output, " << isa_name(isa);
    }
    // The comparison means something only if the output carries information (an 8-bit output has at
    // most 256 values).
    const std::set<int16_t> distinct(actual.begin(), actual.end());
    EXPECT_GT(distinct.size(), q->layers.back().output_bits == arith::kNarrowBits ? 30u : 100u)
        << name << ": the output is nearly constant";
    return queue.last_stats();
}

/// Calibrated with every other conv layer at 8 bits (weights and outputs), on one sample image.
inline std::shared_ptr<const QuantizedNetwork> mixed_widths(const Network& network, int* narrow_layers) {
    CalibrationOptions options;
    options.widths = uniform_conv_widths(network, arith::kNarrowBits);
    int conv = 0;
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        if (network.layers[i].type != LayerType::Convolutional) continue;
        if (conv++ % 2 == 1) options.widths[i] = {arith::kDataBits, arith::kDataBits};
    }
    auto q = std::make_shared<const QuantizedNetwork>(
        calibrate(network, {darknet_file("data/dog.jpg")}, options).quantized);
    *narrow_layers = 0;
    for (const QuantizedLayer& layer : q->layers) *narrow_layers += layer.output_bits == arith::kNarrowBits;
    return q;
}

/// darknet's cfg at size x size with deterministic synthetic weights, batch-norm folded.
inline Network synthetic_network(const std::string& cfg, int size) {
    Network network = load_darknet_cfg(darknet_file(cfg), InputSizeOverride{size, size});
    fill_synthetic_weights(network, 2024);
    fold_batchnorm(network);
    return network;
}

/// YOLO-LITE (VOC) with its trained weights from shared/ (the caller checks FPGACNN_REQUIRE_SHARED_MODELS).
inline Network yolo_lite_network() {
    return load_darknet_model(shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg"),
                              shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights"));
}

}  // namespace fpgacnn::test
