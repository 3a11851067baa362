// The kernel's training phases (BP, WG on the Tm x Tn array) against the CPU fixed-point twin
// (runtime/src/train_fixed), bit for bit, over random layers: K 1/3/5 (up to the build's), stride 1/2,
// pads, channel counts that are not multiples of Tm / Tn, small and ragged tiles, batches. Built once per
// kernel variant (tests/CMakeLists.txt): the twin knows nothing of tiles, so each build's tiling is checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "train_fixed/train_fixed.hpp"

namespace fpgacnn::test {
namespace {

using train_fixed::ConvShape;

int uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

std::vector<int16_t> random_values(std::mt19937& rng, std::size_t n, int limit) {
    std::vector<int16_t> v(n);
    for (int16_t& x : v) x = static_cast<int16_t>(uniform(rng, -limit, limit - 1));
    return v;
}

struct Case {
    ConvShape shape;
    int batch = 1;
    int tile_rows = 1, tile_cols = 1;
    std::string text() const {
        const ConvShape& s = shape;
        return std::to_string(s.in_c) + "x" + std::to_string(s.in_h) + "x" + std::to_string(s.in_w) + " -> " +
               std::to_string(s.out_c) + "x" + std::to_string(s.out_h) + "x" + std::to_string(s.out_w) +
               " K" + std::to_string(s.kernel_size) + " S" + std::to_string(s.stride) + " P" +
               std::to_string(s.pad) + " batch " + std::to_string(batch) + " tile " +
               std::to_string(tile_rows) + "x" + std::to_string(tile_cols);
    }
};

Case random_case(std::mt19937& rng) {
    const int sizes[3] = {1, 3, 5};
    Case c;
    int k = 1;
    do {
        k = sizes[uniform(rng, 0, 2)];
    } while (k > kernel::kMaxK);
    const int stride = uniform(rng, 1, std::min(3, kernel::kMaxS));  // 3 where the build has it
    const int pad = uniform(rng, 0, k - 1);
    // Inputs at least K - 2 pad so the output has a pixel; channel counts around Tm and Tn.
    const int min_in = std::max(1, k - 2 * pad);
    c.shape =
        train_fixed::conv_shape(uniform(rng, 1, 2 * kernel::kTn + 3), uniform(rng, min_in, 23),
                                uniform(rng, min_in, 23), uniform(rng, 1, kernel::kTm + 7), k, stride, pad);
    c.batch = uniform(rng, 1, 3);
    c.tile_rows = uniform(rng, 1, kernel::kTr);
    c.tile_cols = uniform(rng, 1, kernel::kTc);
    return c;
}

/// Runs one phase command on the kernel with the tensors placed one after the other in a fresh arena.
std::vector<int16_t> run_kernel(kernel::LayerCommand c,
                                const std::vector<const std::vector<int16_t>*>& inputs,
                                std::size_t output_words, const std::vector<int16_t>& params) {
    std::vector<int16_t> arena;
    std::vector<uint32_t> offsets;
    for (const auto* input : inputs) {
        offsets.push_back(static_cast<uint32_t>(arena.size()));
        arena.insert(arena.end(), input->begin(), input->end());
    }
    c.output_offset = static_cast<uint32_t>(arena.size());
    arena.resize(arena.size() + output_words, static_cast<int16_t>(0x5A5A));
    c.input_offset = offsets[0];
    if (offsets.size() > 1) c.error_offset = offsets[1];
    const std::vector<int16_t> no_params(1, 0);
    const int16_t* p = params.empty() ? no_params.data() : params.data();
    EXPECT_EQ(kernel::run_layer(c, arena.data(), arena.data(), p, nullptr), kernel::kCommandOk);
    return std::vector<int16_t>(arena.begin() + c.output_offset, arena.end());
}

/// How many outputs differ, and the first one's index (for the message).
::testing::AssertionResult same_values(const std::vector<int16_t>& kernel, const std::vector<int16_t>& twin) {
    if (kernel.size() != twin.size()) return ::testing::AssertionFailure() << "sizes differ";
    std::size_t wrong = 0, first = 0;
    for (std::size_t i = 0; i < kernel.size(); ++i) {
        if (kernel[i] == twin[i]) continue;
        if (wrong++ == 0) first = i;
    }
    if (wrong == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << wrong << " of " << kernel.size() << " values differ, first at "
                                         << first << ": kernel " << kernel[first] << ", twin " << twin[first];
}

TEST(TrainPhases, BackwardMatchesTheTwinOnRandomLayers) {
    std::mt19937 rng(20261128);
    for (int trial = 0; trial < 150; ++trial) {
        const Case c = random_case(rng);
        SCOPED_TRACE(c.text());
        const ConvShape& s = c.shape;
        // Full-range errors and weights with shifts around the sums' size: rounding, saturation and the
        // int32 wrap all happen somewhere in the run.
        const auto dy = random_values(rng, s.output_elements() * static_cast<std::size_t>(c.batch), 1 << 15);
        const auto w = random_values(rng, s.weight_elements(), 1 << uniform(rng, 4, 15));
        const int shift = uniform(rng, 10, 26);
        kernel::LayerCommand cmd =
            train_fixed::phase_command(kernel::kOpConvBackward, s, c.batch, shift, kernel::compiled_maxima());
        cmd.tile_rows = static_cast<uint32_t>(c.tile_rows),
        cmd.tile_cols = static_cast<uint32_t>(c.tile_cols);
        const auto params = train_fixed::backward_weights(s, w, kernel::kTm, kernel::kTn);
        const auto from_kernel =
            run_kernel(cmd, {&dy}, s.input_elements() * static_cast<std::size_t>(c.batch), params);
        EXPECT_TRUE(same_values(from_kernel, train_fixed::conv_backward(s, c.batch, dy, w, shift)));
    }
}

TEST(TrainPhases, WeightGradientMatchesTheTwinOnRandomLayers) {
    std::mt19937 rng(1128);
    for (int trial = 0; trial < 150; ++trial) {
        const Case c = random_case(rng);
        SCOPED_TRACE(c.text());
        const ConvShape& s = c.shape;
        const auto x = random_values(rng, s.input_elements() * static_cast<std::size_t>(c.batch), 1 << 15);
        const auto dy = random_values(rng, s.output_elements() * static_cast<std::size_t>(c.batch), 1 << 15);
        const int shift = uniform(rng, -4, 40);
        kernel::LayerCommand cmd = train_fixed::phase_command(kernel::kOpWeightGradient, s, c.batch, shift,
                                                              kernel::compiled_maxima());
        cmd.tile_rows = static_cast<uint32_t>(c.tile_rows),
        cmd.tile_cols = static_cast<uint32_t>(c.tile_cols);
        const auto from_kernel = run_kernel(cmd, {&x, &dy}, s.weight_elements(), {});
        EXPECT_TRUE(same_values(from_kernel, train_fixed::weight_gradient(s, c.batch, x, dy, shift)));
    }
}

TEST(TrainPhases, KernelSmallerThanStrideWritesZeros) {
    // K = 1, S = 2: three of the four stride classes have no taps; their dX pixels are 0, not garbage.
    const ConvShape s = train_fixed::conv_shape(3, 6, 7, 5, 1, 2, 0);
    std::mt19937 rng(7);
    const auto dy = random_values(rng, s.output_elements(), 1 << 12);
    const auto w = random_values(rng, s.weight_elements(), 1 << 12);
    kernel::LayerCommand cmd =
        train_fixed::phase_command(kernel::kOpConvBackward, s, 1, 8, kernel::compiled_maxima());
    const auto dx = run_kernel(cmd, {&dy}, s.input_elements(),
                               train_fixed::backward_weights(s, w, kernel::kTm, kernel::kTn));
    for (int n = 0; n < s.in_c; ++n)
        for (int h = 0; h < s.in_h; ++h)
            for (int x = 0; x < s.in_w; ++x)
                if (h % 2 != 0 || x % 2 != 0) {
                    EXPECT_EQ(dx[(static_cast<std::size_t>(n) * s.in_h + h) * s.in_w + x], 0);
                }
    EXPECT_TRUE(same_values(dx, train_fixed::conv_backward(s, 1, dy, w, 8)));
}

TEST(TrainPhases, KernelRefusesMalformedTrainingCommands) {
    const ConvShape s = train_fixed::conv_shape(3, 6, 6, 5, 3, 1, 1);
    kernel::LayerCommand good =
        train_fixed::phase_command(kernel::kOpWeightGradient, s, 2, 8, kernel::compiled_maxima());
    EXPECT_EQ(kernel::check_command(good), kernel::kCommandOk);
    kernel::LayerCommand c = good;
    c.batch = 0;
    EXPECT_EQ(kernel::check_command(c), kernel::kCommandBadTraining);
    c = good, c.batch = kernel::kMaxTrainBatch + 1;
    EXPECT_EQ(kernel::check_command(c), kernel::kCommandBadTraining);
    c = good, c.input_bits = 8;
    EXPECT_EQ(kernel::check_command(c), kernel::kCommandBadTraining);
    c = good, c.leaky = 1;
    EXPECT_EQ(kernel::check_command(c), kernel::kCommandBadTraining);
    c = good, c.out_h = 5;
    EXPECT_EQ(kernel::check_command(c), kernel::kCommandShapeMismatch);
    c = good, c.op = 8;  // past the last op (7, shortcut)
    EXPECT_EQ(kernel::check_command(c), kernel::kCommandBadOp);
}

}  // namespace
}  // namespace fpgacnn::test
