// The training phases through the emu device's command queue (train_fixed::*_on_device): the same bits
// as the CPU fixed-point twin, the footprint checks of the new commands, and (slow label) the SQNR of
// the fixed-point gradients against float on yolov2-tiny's conv layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/command_footprint.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "train_fixed/train_fixed.hpp"

namespace fpgacnn::test {
namespace {

using train_fixed::ConvShape;

std::vector<int16_t> train_values(std::mt19937& rng, std::size_t n, int limit) {
    std::uniform_int_distribution<int> d(-limit, limit - 1);
    std::vector<int16_t> v(n);
    for (int16_t& x : v) x = static_cast<int16_t>(d(rng));
    return v;
}

TEST(TrainDevice, EmuRunsBothPhasesThroughTheQueueAsTheTwin) {
    const auto device = make_emu_device();
    std::mt19937 rng(36);
    // Stride 2 with a 3x3 window and channel counts off the reference build's Tm = 32 / Tn = 4; a tile
    // grid of several tiles (in 60 > Tr = 26).
    for (const ConvShape& s :
         {train_fixed::conv_shape(6, 60, 44, 37, 3, 2, 1), train_fixed::conv_shape(35, 30, 29, 9, 3, 1, 1)}) {
        const int batch = 2;
        const auto x = train_values(rng, s.input_elements() * batch, 1 << 14);
        const auto dy = train_values(rng, s.output_elements() * batch, 1 << 14);
        const auto w = train_values(rng, s.weight_elements(), 1 << 10);
        CommandStats stats;
        EXPECT_EQ(train_fixed::conv_backward_on_device(*device, s, batch, dy, w, 14, &stats),
                  train_fixed::conv_backward(s, batch, dy, w, 14));
        EXPECT_GT(stats.param_read_bytes, 0u);
        EXPECT_EQ(train_fixed::weight_gradient_on_device(*device, s, batch, x, dy, 20, &stats),
                  train_fixed::weight_gradient(s, batch, x, dy, 20));
        EXPECT_EQ(stats.fm_write_bytes, 2 * s.weight_elements());
    }
}

TEST(TrainDevice, FootprintsOfTheTrainingCommands) {
    const ConvShape s = train_fixed::conv_shape(3, 8, 8, 5, 3, 2, 1);  // out 4x4
    KernelMaxima maxima;
    kernel::LayerCommand wg = train_fixed::phase_command(kernel::kOpWeightGradient, s, 2, 8, maxima);
    wg.input_offset = 0, wg.error_offset = 1000, wg.output_offset = 2000;
    const CommandFootprint f = command_footprint(wg, maxima);
    EXPECT_EQ(f.input.end, 2u * 3 * 8 * 8 * 2);
    EXPECT_EQ(command_error_span(wg).begin, 2000u);
    EXPECT_EQ(command_error_span(wg).end, 2000u + 2u * 5 * 4 * 4 * 2);
    EXPECT_EQ(f.output.end - f.output.begin, 2u * 5 * 3 * 9);
    kernel::LayerCommand bp = train_fixed::phase_command(kernel::kOpConvBackward, s, 2, 8, maxima);
    EXPECT_EQ(command_footprint(bp, maxima).weights.end,
              2u * kernel::reordered_weight_words(3, 5, 3, static_cast<uint32_t>(maxima.tm),
                                                  static_cast<uint32_t>(maxima.tn), 16));
    EXPECT_EQ(command_error_span(bp).end, 0u);

    // An error that overlaps the gradient it produces is refused with the command's name.
    const auto device = make_emu_device();
    DeviceBuffer arena = device->allocate(8192, BufferRole::FeatureMaps, "arena");
    DeviceBuffer params = device->allocate(2, BufferRole::Parameters, "params");
    wg.error_offset = wg.output_offset;
    try {
        check_command_fits("emu: WG", wg, maxima, arena, params);
        ADD_FAILURE() << "overlap accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("error"), std::string::npos) << e.what();
    }
}

TEST(TrainDevice, WrongTensorSizesNameThePhase) {
    const auto device = make_emu_device();
    const ConvShape s = train_fixed::conv_shape(3, 8, 8, 5, 3, 1, 1);
    const std::vector<int16_t> too_short(10);
    const std::vector<int16_t> w(s.weight_elements());
    try {
        train_fixed::conv_backward_on_device(*device, s, 1, too_short, w, 8);
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("conv backward: the error has 10 values"), std::string::npos)
            << e.what();
    }
}

// ---- SQNR of the fixed-point gradients against float (slow label) ----

struct FloatPhases {
    std::vector<float> dx, dw;
};

/// The float reference: BP and WG of one image by their definitions, double sums.
FloatPhases float_phases(const ConvShape& s, const std::vector<float>& x, const std::vector<float>& w,
                         const std::vector<float>& dy) {
    const int k = s.kernel_size;
    std::vector<double> dx(s.input_elements(), 0.0), dw(s.weight_elements(), 0.0);
    for (int m = 0; m < s.out_c; ++m)
        for (int r = 0; r < s.out_h; ++r)
            for (int c = 0; c < s.out_w; ++c) {
                const double e = dy[(static_cast<std::size_t>(m) * s.out_h + r) * s.out_w + c];
                if (e == 0) continue;
                for (int n = 0; n < s.in_c; ++n)
                    for (int i = 0; i < k; ++i) {
                        const int h = r * s.stride + i - s.pad;
                        if (h < 0 || h >= s.in_h) continue;
                        for (int j = 0; j < k; ++j) {
                            const int v = c * s.stride + j - s.pad;
                            if (v < 0 || v >= s.in_w) continue;
                            const std::size_t wi =
                                ((static_cast<std::size_t>(m) * s.in_c + n) * k + i) * k + j;
                            const std::size_t xi = (static_cast<std::size_t>(n) * s.in_h + h) * s.in_w + v;
                            dx[xi] += e * w[wi];
                            dw[wi] += e * x[xi];
                        }
                    }
            }
    return {std::vector<float>(dx.begin(), dx.end()), std::vector<float>(dw.begin(), dw.end())};
}

double largest_magnitude(const std::vector<float>& v) {
    double m = 0;
    for (float f : v) m = std::max(m, static_cast<double>(std::fabs(f)));
    return m;
}

std::vector<int16_t> to_fixed(const std::vector<float>& v, int q) {
    std::vector<int16_t> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = arith::quantize(v[i], q);
    return out;
}

double sqnr_db(const std::vector<float>& reference, const std::vector<int16_t>& fixed, int q) {
    double signal = 0, noise = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double d = reference[i] - arith::dequantize(fixed[i], q);
        signal += static_cast<double>(reference[i]) * reference[i];
        noise += d * d;
    }
    return noise == 0 ? 999.0 : 10.0 * std::log10(signal / noise);
}

TEST(TrainSqnr, Yolov2TinyLayersFixedPointGradientsAgainstFloat) {
    // yolov2-tiny.cfg's nine conv layers at 416x416 (the maxpools between them halve the size), one
    // image. Synthetic data: X the leaky ReLU of N(0, 1) (the image for layer 1: U[0, 1)), He-scaled
    // N(0, 2 / (N K K)) weights, errors N(0, 1e-3) times the leaky derivative. Exponents chosen per batch
    // from each tensor's largest magnitude (train_fixed::dynamic_exponent); dX's and dW's from the float
    // result's (a trainer takes them from the previous batch); the error's capped so BP's int32 sum
    // holds its result (train_fixed::error_exponent).
    struct Layer {
        int in_c, size, out_c, k;
    };
    const Layer layers[] = {{3, 416, 16, 3},    {16, 208, 32, 3},   {32, 104, 64, 3},
                            {64, 52, 128, 3},   {128, 26, 256, 3},  {256, 13, 512, 3},
                            {512, 13, 1024, 3}, {1024, 13, 512, 3}, {512, 13, 425, 1}};
    const auto device = make_emu_device();
    std::mt19937 rng(2);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::printf(
        "layer  shape                      SQNR dX (dB)  SQNR dW (dB)  Qw  Qe  Qdx  Qg   BP ms   WG ms\n");
    int index = 0;
    for (const Layer& l : layers) {
        ++index;
        const ConvShape s = train_fixed::conv_shape(l.in_c, l.size, l.size, l.out_c, l.k, 1, l.k / 2);
        std::vector<float> x(s.input_elements()), w(s.weight_elements()), dy(s.output_elements());
        for (float& v : x) {
            const float g = normal(rng);
            v = index == 1 ? unit(rng) : (g > 0 ? g : 0.1f * g);
        }
        const float scale = std::sqrt(2.0f / static_cast<float>(l.in_c * l.k * l.k));
        for (float& v : w) v = scale * normal(rng);
        for (float& v : dy) v = 1e-3f * normal(rng) * (unit(rng) < 0.5f ? 1.0f : 0.1f);
        const FloatPhases ref = float_phases(s, x, w, dy);
        const int qx = train_fixed::dynamic_exponent(largest_magnitude(x));
        const int qw = train_fixed::dynamic_exponent(largest_magnitude(w));
        const int qdx = train_fixed::dynamic_exponent(largest_magnitude(ref.dx));
        const int qe = train_fixed::error_exponent(largest_magnitude(dy), qw, qdx);
        const int qg = train_fixed::dynamic_exponent(largest_magnitude(ref.dw));
        CommandStats bp_stats, wg_stats;
        const auto dx = train_fixed::conv_backward_on_device(*device, s, 1, to_fixed(dy, qe), to_fixed(w, qw),
                                                             qw + qe - qdx, &bp_stats);
        const auto dw = train_fixed::weight_gradient_on_device(*device, s, 1, to_fixed(x, qx),
                                                               to_fixed(dy, qe), qx + qe - qg, &wg_stats);
        const double sqnr_dx = sqnr_db(ref.dx, dx, qdx), sqnr_dw = sqnr_db(ref.dw, dw, qg);
        std::printf("%5d  %4dx%3dx%3d -> %4d K%d  %12.1f  %12.1f  %2d  %2d  %3d  %2d  %6.0f  %6.0f\n", index,
                    l.in_c, l.size, l.size, l.out_c, l.k, sqnr_dx, sqnr_dw, qw, qe, qdx, qg,
                    bp_stats.milliseconds, wg_stats.milliseconds);
        // int16 with a per-batch exponent keeps gradients far above the noise a training step tolerates.
        EXPECT_GT(sqnr_dx, 40.0) << "layer " << index;
        EXPECT_GT(sqnr_dw, 40.0) << "layer " << index;
    }
}

}  // namespace
}  // namespace fpgacnn::test
