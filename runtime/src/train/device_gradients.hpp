// A conv layer's own gradients (dX and dW) in the kernel's fixed point (contract 6, docs/arithmetic.md
// "Training phases"), for the float trainer's backward pass (fpgacnn-train --device): the error dY at a
// per-batch dynamic exponent, the layer's input X and its weights at theirs, BP and WG run on a Device
// through its command queue (or on the CPU fixed-point twin), and the results dequantized and added to
// the float trainer's gradients. Everything else of the backward pass stays on the host in float: the
// activation's derivative, batch-norm's backward (its scale and bias gradients, and the delta it hands
// the convolution), the bias gradient, the other layers and the SGD update.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/device.hpp"
#include "fpgacnn/network.hpp"
#include "train/conv_train.hpp"
#include "train_fixed/train_fixed.hpp"

namespace fpgacnn::train {

/// What one phase (BP or WG) of one layer cost over a run: its commands' sums.
struct PhaseTotals {
    std::uint64_t commands = 0;          ///< commands run (a rerun at the safe exponent counts)
    std::uint64_t reruns = 0;            ///< of them, reruns after the result outgrew its headroom
    std::uint64_t useful_macs = 0;       ///< N * M * K * K * R * C per image
    std::uint64_t fm_read_bytes = 0;     ///< CommandStats' traffic (0 on the CPU twin: no device)
    std::uint64_t fm_write_bytes = 0;    ///< "
    std::uint64_t param_read_bytes = 0;  ///< "
    std::uint64_t cycles = 0;            ///< where the device counts them (rtl), else 0
    double milliseconds = 0;             ///< the device's time (the twin's wall clock)

    PhaseTotals& operator+=(const PhaseTotals& other);
};

/// One conv layer's phases, with the exponents of its last batch.
struct LayerGradientTotals {
    int layer = 0;
    PhaseTotals backward;         ///< BP (dX); no commands for the network's first layer
    PhaseTotals weight_gradient;  ///< WG (dW)
    int weight_q = 0, input_q = 0, error_q = 0, delta_q = 0, gradient_q = 0;  ///< Qw, Qx, Qe(WG), Qdx, Qg
};

/// The --device values of fpgacnn-train: "cpu" (float, no fixed point), "cpu-fixed" (the CPU twin) and
/// every accelerator driver's grammar, e.g. "cpu, cpu-fixed, emu[:lenient], rtl[...]".
std::string training_device_values_text();

/// The fixed-point gradients a --device value asks for: null for "cpu" (float training), the CPU twin
/// for "cpu-fixed", else the device open_device opens. Throws Error listing the values for any other
/// value, and the device's own errors (naming it) when it cannot be opened or cannot run BP and WG.
class DeviceGradients;
std::unique_ptr<DeviceGradients> open_device_gradients(const std::string& spec, const Network& network,
                                                       int batch);

class DeviceGradients {
public:
    /// The phases on `device`, or on the CPU fixed-point twin when `device` is null (with the kernel maxima
    /// of this library's build, so it falls back on the same layers as the emu). A conv layer whose BP or WG
    /// command the build refuses (kernel::check_command) keeps its float gradients, with one warning naming
    /// the layer and the reason. A device is first asked to run one tiny BP and WG: a device that cannot (the
    /// rtl build refuses them) throws its DeviceError here, before any training.
    DeviceGradients(std::unique_ptr<Device> device, const Network& network, int batch);

    /// "emu (Tm=32 ...)", or "cpu-fixed (the CPU fixed-point twin)".
    const std::string& name() const { return name_; }
    /// Whether conv layer `layer`'s dX and dW run here (else in float).
    bool runs(int layer) const;
    /// From `delta` (the batch's d loss / d conv output, conv_backward_to_conv_output) and the layer's
    /// `input`: dW added to gradients.weight_updates and, when `input_delta` is not null, dX added to it.
    void add_gradients(const Layer& layer, int batch, const float* input, const float* delta,
                       float* input_delta, ConvGradients& gradients);
    /// Every layer that runs here, in network order.
    std::vector<LayerGradientTotals> totals() const;

private:
    /// The exponents one phase's results fitted over the last batches. The next batch starts from the
    /// coarsest (the largest recent result): the errors of consecutive batches of other images differ
    /// by more than a result's headroom, and a result that outgrows it costs the phase two more runs.
    class RecentExponents {
    public:
        void add(int q);
        /// The coarsest recent exponent, but not coarser than `safe` (the first batch: `safe`).
        int start(int safe) const;

    private:
        static constexpr int kBatches = 4;
        std::array<int, kBatches> fitted_{};
        int count_ = 0;
        int next_ = 0;
    };
    struct LayerState {
        bool runs = false;
        train_fixed::ConvShape shape;
        LayerGradientTotals totals;
        RecentExponents delta_q, gradient_q;
    };
    void add_input_delta(LayerState& state, int images, const float* delta, const std::vector<float>& weights,
                         const std::vector<int16_t>& weights_q, int weight_q, float* input_delta);
    void add_weight_gradient(LayerState& state, int images, const float* input, const float* delta,
                             std::vector<float>& weight_updates);

    std::unique_ptr<Device> device_;
    std::string name_;
    KernelMaxima maxima_;
    std::vector<LayerState> layers_;  // by network layer index
};

}  // namespace fpgacnn::train
