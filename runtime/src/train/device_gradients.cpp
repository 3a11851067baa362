#include "train/device_gradients.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "float/layer_checks.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn::train {

namespace {

using train_fixed::ConvShape;

const char* const kCpuFloat = "cpu";
const char* const kCpuFixed = "cpu-fixed";

// A result exponent comes from the previous batch's largest magnitude with this many bits to spare, so
// a result that grows between batches still fits.
constexpr int kHeadroomBits = 2;
// A result reaching this magnitude outgrew that headroom: it may have saturated (or, in BP, its int32
// sum may have wrapped: the error exponent's cap only guarantees a sum whose result fits int16), so
// the command runs again at the safe exponent.
constexpr int kOutgrownMagnitude = 1 << 14;
// A result whose exponent could be this many bits finer (the safe bound is loose, or the gradients
// shrank) runs again at the exponent its own largest value gives.
constexpr int kCoarseBits = 3;
// An all-zero result says only that every value is below half a step: the next try is this much finer.
constexpr int kZeroResultStep = 14;
// Runs of one phase of one batch at most (the first, one at the safe exponent, refinements).
constexpr int kMaxRuns = 4;
// The safe exponents come from bounds on the float tensors; the quantized ones may exceed them by
// their rounding.
constexpr double kBoundMargin = 1.01;

double max_abs(const float* values, std::size_t count) {
    double largest = 0;
    for (std::size_t i = 0; i < count; ++i)
        largest = std::max(largest, static_cast<double>(std::fabs(values[i])));
    return largest;
}

int max_magnitude(const std::vector<int16_t>& values) {
    int largest = 0;
    for (const int16_t v : values) largest = std::max(largest, std::abs(static_cast<int>(v)));
    return largest;
}

std::vector<int16_t> quantize_values(const float* values, std::size_t count, int q) {
    const double scale = std::ldexp(1.0, q);
    std::vector<int16_t> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = arith::quantize_scaled(values[i], scale);
    return out;
}

void add_dequantized(const std::vector<int16_t>& values, int q, float* out) {
    const float scale = std::ldexp(1.0f, -q);  // exact: q is within the contract's exponent range
    for (std::size_t i = 0; i < values.size(); ++i) out[i] += static_cast<float>(values[i]) * scale;
}

/// The largest sum of |weights| reaching one input channel: with the error's largest magnitude, a
/// bound on |dX| (every dX value sums at most each weight of its channel once).
double largest_channel_weight_sum(const ConvShape& s, const std::vector<float>& weights) {
    const std::size_t taps = static_cast<std::size_t>(s.kernel_size) * s.kernel_size;
    std::vector<double> sums(static_cast<std::size_t>(s.in_c), 0.0);
    for (int m = 0; m < s.out_c; ++m)
        for (int n = 0; n < s.in_c; ++n) {
            const float* w = weights.data() + (static_cast<std::size_t>(m) * s.in_c + n) * taps;
            for (std::size_t t = 0; t < taps; ++t) sums[static_cast<std::size_t>(n)] += std::fabs(w[t]);
        }
    return sums.empty() ? 0.0 : *std::max_element(sums.begin(), sums.end());
}

/// The largest sum of |dY| of one output channel over the batch: with |X|'s largest, a bound on |dW|.
double largest_channel_error_sum(const ConvShape& s, int images, const float* dy) {
    const std::size_t plane = static_cast<std::size_t>(s.out_h) * s.out_w;
    double largest = 0;
    for (int m = 0; m < s.out_c; ++m) {
        double sum = 0;
        for (int b = 0; b < images; ++b) {
            const float* e = dy + b * s.output_elements() + static_cast<std::size_t>(m) * plane;
            for (std::size_t i = 0; i < plane; ++i) sum += std::fabs(e[i]);
        }
        largest = std::max(largest, sum);
    }
    return largest;
}

std::uint64_t useful_macs(const ConvShape& s, int images) {
    return static_cast<std::uint64_t>(s.in_c) * s.out_c * s.kernel_size * s.kernel_size * s.out_h * s.out_w *
           static_cast<std::uint64_t>(images);
}

PhaseTotals phase_totals(const CommandStats& stats, double milliseconds, std::uint64_t macs) {
    PhaseTotals t;
    t.commands = 1;
    t.useful_macs = macs;
    t.fm_read_bytes = stats.fm_read_bytes;
    t.fm_write_bytes = stats.fm_write_bytes;
    t.param_read_bytes = stats.param_read_bytes;
    t.cycles = stats.cycles;
    t.milliseconds = milliseconds;
    return t;
}

/// The exponent a result computed at `q` should have had: its largest value with kHeadroomBits to spare
/// (kZeroResultStep finer for an all-zero result).
int fitted_exponent(const std::vector<int16_t>& result, int q) {
    const int largest = max_magnitude(result);
    if (largest == 0) return std::min(q + kZeroResultStep, 2 * arith::kMaxExponent);
    return train_fixed::dynamic_exponent(std::ldexp(static_cast<double>(largest), kHeadroomBits - q));
}

/// How a phase's result exponent is settled for one batch: start from the last batch's (or the safe
/// bound), run again at the safe exponent when the result outgrew its headroom, and again at the
/// result's own fitted exponent when that is kCoarseBits finer. `run(q)` runs the phase with the result
/// at q (the caller derives the other exponents and the shift from it, and may lower q to keep the
/// shift in the kernel's range) and returns the result and the q it used.
template <typename Run>
std::pair<std::vector<int16_t>, int> settle_exponent(int first, int safe, PhaseTotals& totals,
                                                     const Run& run) {
    int q = first;
    bool measured = false;  // q fitted to this batch's own result: no further refinement
    for (int runs = 1;; ++runs) {
        auto [result, used] = run(q);
        if (runs > 1) ++totals.reruns;
        if (runs == kMaxRuns) return {std::move(result), used};
        if (!measured && used > safe && max_magnitude(result) >= kOutgrownMagnitude) {
            q = safe;
            continue;
        }
        const int fitted = fitted_exponent(result, used);
        if (!measured && fitted >= used + kCoarseBits) {
            measured = max_magnitude(result) > 0;
            q = fitted;
            continue;
        }
        return {std::move(result), used};
    }
}

struct PhaseOutput {
    std::vector<int16_t> values;
    CommandStats stats;
    double milliseconds = 0;
};

/// One phase on `device` through its queue (its own time), or on the CPU twin (wall clock) without one.
template <typename OnDevice, typename OnCpu>
PhaseOutput run_phase(Device* device, const OnDevice& on_device, const OnCpu& on_cpu) {
    PhaseOutput out;
    if (device != nullptr) {
        out.values = on_device(*device, &out.stats);
        out.milliseconds = out.stats.milliseconds;
        return out;
    }
    const auto start = std::chrono::steady_clock::now();
    out.values = on_cpu();
    out.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

bool openable_driver(const std::string& spec) {
    for (const DeviceDriver& driver : device_drivers()) {
        if (driver.open && (spec == driver.prefix || spec.rfind(driver.prefix + ":", 0) == 0)) return true;
    }
    return false;
}

}  // namespace

PhaseTotals& PhaseTotals::operator+=(const PhaseTotals& other) {
    commands += other.commands;
    reruns += other.reruns;
    useful_macs += other.useful_macs;
    fm_read_bytes += other.fm_read_bytes;
    fm_write_bytes += other.fm_write_bytes;
    param_read_bytes += other.param_read_bytes;
    cycles += other.cycles;
    milliseconds += other.milliseconds;
    return *this;
}

void DeviceGradients::RecentExponents::add(int q) {
    fitted_[static_cast<std::size_t>(next_)] = q;
    next_ = (next_ + 1) % kBatches;
    count_ = std::min(count_ + 1, kBatches);
}

int DeviceGradients::RecentExponents::start(int safe) const {
    if (count_ == 0) return safe;
    return std::max(*std::min_element(fitted_.begin(), fitted_.begin() + count_), safe);
}

std::string training_device_values_text() {
    std::string text = std::string(kCpuFloat) + ", " + kCpuFixed;
    for (const DeviceDriver& driver : device_drivers()) {
        if (driver.open) text += ", " + driver.grammar;
    }
    return text;
}

std::unique_ptr<DeviceGradients> open_device_gradients(const std::string& spec, const Network& network,
                                                       int batch) {
    if (spec == kCpuFloat) return nullptr;
    if (spec == kCpuFixed) return std::make_unique<DeviceGradients>(nullptr, network, batch);
    if (!openable_driver(spec)) {
        throw Error("--device '" + spec + "': training runs on " + training_device_values_text() +
                    " (cpu: float; the others run BP and WG in the kernel's fixed point)");
    }
    return std::make_unique<DeviceGradients>(open_device(spec), network, batch);
}

DeviceGradients::DeviceGradients(std::unique_ptr<Device> device, const Network& network, int batch)
    : device_(std::move(device)) {
    if (device_) {
        name_ = device_->name();
        maxima_ = device_->maxima();
        // A device that cannot run the phases says so now (its DeviceError names it), not after the
        // first forward pass.
        const ConvShape probe = train_fixed::conv_shape(1, 1, 1, 1, 1, 1, 0);
        const std::vector<int16_t> one{1};
        train_fixed::conv_backward_on_device(*device_, probe, 1, one, one, 0);
        train_fixed::weight_gradient_on_device(*device_, probe, 1, one, one, 0);
    } else {
        name_ = std::string(kCpuFixed) + " (the CPU fixed-point twin of the kernel's BP and WG)";
        maxima_ = native_kernel_fingerprint().maxima;
    }
    layers_.resize(network.layers.size());
    const int command_batch = std::min(batch, kernel::kMaxTrainBatch);
    for (const Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        LayerState& state = layers_[static_cast<std::size_t>(layer.index)];
        const ConvParams& conv = layer.conv();
        state.shape = train_fixed::conv_shape(layer.input.c, layer.input.h, layer.input.w, conv.filters,
                                              conv.size, conv.stride, conv.pad);
        state.totals.layer = layer.index;
        state.runs = true;
        for (const uint32_t op : {kernel::kOpConvBackward, kernel::kOpWeightGradient}) {
            const kernel::LayerCommand command =
                train_fixed::phase_command(op, state.shape, command_batch, 0, maxima_);
            const kernel::CommandCheck check = kernel::check_command(command, maxima_);
            if (state.runs && check != kernel::kCommandOk) {
                spdlog::warn(
                    "{}: the kernel build of {} cannot run its {}: {}; its dX and dW are computed in "
                    "float",
                    detail::describe_layer(layer), name_, op == kernel::kOpConvBackward ? "BP" : "WG",
                    kernel::command_check_text(check));
                state.runs = false;
            }
        }
    }
}

bool DeviceGradients::runs(int layer) const {
    return layer >= 0 && static_cast<std::size_t>(layer) < layers_.size() &&
           layers_[static_cast<std::size_t>(layer)].runs;
}

std::vector<LayerGradientTotals> DeviceGradients::totals() const {
    std::vector<LayerGradientTotals> all;
    for (const LayerState& state : layers_) {
        if (state.runs) all.push_back(state.totals);
    }
    return all;
}

// BP: Qdx settled by settle_exponent, Qe the error's dynamic exponent capped so BP's int32 sum holds
// (train_fixed::error_exponent), the shift kept in the kernel's range.
void DeviceGradients::add_input_delta(LayerState& state, int images, const float* delta,
                                      const std::vector<float>& weights,
                                      const std::vector<int16_t>& weights_q, int weight_q,
                                      float* input_delta) {
    const ConvShape& s = state.shape;
    const std::size_t count = s.output_elements() * static_cast<std::size_t>(images);
    const double max_dy = max_abs(delta, count);
    const int safe =
        train_fixed::dynamic_exponent(max_dy * largest_channel_weight_sum(s, weights) * kBoundMargin);
    const int first = state.delta_q.start(safe);
    auto [result, delta_q] = settle_exponent(first, safe, state.totals.backward, [&](int wanted) {
        const int error_q = train_fixed::error_exponent(max_dy, weight_q, wanted);
        const int q = std::min(wanted, weight_q + error_q - arith::kExactMinOutputShift);
        const std::vector<int16_t> dy_q = quantize_values(delta, count, error_q);
        const int shift = weight_q + error_q - q;
        PhaseOutput out = run_phase(
            device_.get(),
            [&](Device& device, CommandStats* stats) {
                return train_fixed::conv_backward_on_device(device, s, images, dy_q, weights_q, shift, stats);
            },
            [&] { return train_fixed::conv_backward(s, images, dy_q, weights_q, shift); });
        state.totals.backward += phase_totals(out.stats, out.milliseconds, useful_macs(s, images));
        return std::make_pair(std::move(out.values), q);
    });
    add_dequantized(result, delta_q, input_delta);
    state.totals.delta_q = delta_q;
    state.delta_q.add(fitted_exponent(result, delta_q));
}

// WG: X and dY at their dynamic exponents, Qg settled by settle_exponent; the error's exponent lowered
// when the shift would leave the kernel's range.
void DeviceGradients::add_weight_gradient(LayerState& state, int images, const float* input,
                                          const float* delta, std::vector<float>& weight_updates) {
    const ConvShape& s = state.shape;
    const std::size_t x_count = s.input_elements() * static_cast<std::size_t>(images);
    const std::size_t dy_count = s.output_elements() * static_cast<std::size_t>(images);
    const double max_x = max_abs(input, x_count);
    const int input_q = train_fixed::dynamic_exponent(max_x);
    const std::vector<int16_t> x_q = quantize_values(input, x_count, input_q);
    const int dynamic_error_q = train_fixed::dynamic_exponent(max_abs(delta, dy_count));
    const int safe =
        train_fixed::dynamic_exponent(max_x * largest_channel_error_sum(s, images, delta) * kBoundMargin);
    const int first = state.gradient_q.start(safe);
    int error_q = dynamic_error_q;
    auto [result, gradient_q] = settle_exponent(first, safe, state.totals.weight_gradient, [&](int wanted) {
        error_q = std::min(dynamic_error_q, wanted + arith::kExactMaxOutputShift - input_q);
        const int q = std::min(wanted, input_q + error_q - arith::kExactMinOutputShift);
        const std::vector<int16_t> dy_q = quantize_values(delta, dy_count, error_q);
        const int shift = input_q + error_q - q;
        PhaseOutput out = run_phase(
            device_.get(),
            [&](Device& device, CommandStats* stats) {
                return train_fixed::weight_gradient_on_device(device, s, images, x_q, dy_q, shift, stats);
            },
            [&] { return train_fixed::weight_gradient(s, images, x_q, dy_q, shift); });
        state.totals.weight_gradient += phase_totals(out.stats, out.milliseconds, useful_macs(s, images));
        return std::make_pair(std::move(out.values), q);
    });
    add_dequantized(result, gradient_q, weight_updates.data());
    state.totals.input_q = input_q, state.totals.error_q = error_q, state.totals.gradient_q = gradient_q;
    state.gradient_q.add(fitted_exponent(result, gradient_q));
}

void DeviceGradients::add_gradients(const Layer& layer, int batch, const float* input, const float* delta,
                                    float* input_delta, ConvGradients& gradients) {
    if (!runs(layer.index)) {
        throw Error(detail::describe_layer(layer) + ": its gradients do not run on " + name_);
    }
    LayerState& state = layers_[static_cast<std::size_t>(layer.index)];
    const ConvShape& s = state.shape;
    const std::vector<float>& weights = layer.conv().weights;
    // The weights as the forward convolution used them: batch-norm is not folded in training (it runs
    // on the host after the convolution), so these are the conv's own.
    const int weight_q = train_fixed::dynamic_exponent(max_abs(weights.data(), weights.size()));
    state.totals.weight_q = weight_q;
    std::vector<int16_t> weights_q;
    if (input_delta != nullptr) weights_q = quantize_values(weights.data(), weights.size(), weight_q);
    // A command takes at most kMaxTrainBatch images (its WG sum's bound); a larger batch runs in parts
    // whose gradients add in float.
    for (int first = 0; first < batch; first += kernel::kMaxTrainBatch) {
        const int images = std::min(kernel::kMaxTrainBatch, batch - first);
        const float* delta_part = delta + static_cast<std::size_t>(first) * s.output_elements();
        add_weight_gradient(state, images, input + static_cast<std::size_t>(first) * s.input_elements(),
                            delta_part, gradients.weight_updates);
        if (input_delta != nullptr) {
            add_input_delta(state, images, delta_part, weights, weights_q, weight_q,
                            input_delta + static_cast<std::size_t>(first) * s.input_elements());
        }
    }
}

}  // namespace fpgacnn::train
