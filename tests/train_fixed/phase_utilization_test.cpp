// The array's utilization per phase (useful MACs / (Tm * Tn * array cycles)), counted by the kernel's own
// loops: run_command with a Traffic policy that adds up the pipelined cycles of every array pass
// (pass_cycles). Only the cycles of the MAC loops: loads and stores (overlapped in FP and BP, not in WG)
// are the planner's model to add. Reference build only; label slow (it runs full-size layers).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "fpgacnn/kernel/config.hpp"
#include "run_command.hpp"
#include "train_fixed/train_fixed.hpp"

namespace fpgacnn::test {
namespace {

#ifdef FPGACNN_TRAIN_REFERENCE_BUILD

struct ArrayCycles {
    uint64_t cycles = 0;
    void fm_read(uint32_t, uint32_t) {}
    void fm_write(uint32_t, uint32_t) {}
    void param_read(uint32_t) {}
    void array_cycles(uint64_t n) { cycles += n; }
};

/// Array cycles of one command on one image, its tensors placed in a zero arena.
uint64_t cycles_of(kernel::LayerCommand c, std::size_t arena_words, std::size_t param_words) {
    std::vector<int16_t> arena(arena_words, 0), params(std::max<std::size_t>(param_words, 1), 0);
    ArrayCycles counter;
    const kernel::CommandCheck check = kernel::detail::run_command(
        c, arena.data(), arena.data(), reinterpret_cast<const int8_t*>(arena.data()),
        reinterpret_cast<int8_t*>(arena.data()), params.data(), counter);
    EXPECT_EQ(check, kernel::kCommandOk);
    return counter.cycles;
}

TEST(TrainUtilization, Yolov2TinyAndAStrideTwoLayerPerPhase) {
    struct Layer {
        int in_c, size, out_c, k, stride;
    };
    // yolov2-tiny.cfg's conv layers at 416 x 416, then a 3x3 stride-2 layer (yolov3's downsampling).
    const Layer layers[] = {{3, 416, 16, 3, 1},    {16, 208, 32, 3, 1},   {32, 104, 64, 3, 1},
                            {64, 52, 128, 3, 1},   {128, 26, 256, 3, 1},  {256, 13, 512, 3, 1},
                            {512, 13, 1024, 3, 1}, {1024, 13, 512, 3, 1}, {512, 13, 425, 1, 1},
                            {64, 104, 128, 3, 2}};
    const kernel::Maxima maxima = kernel::compiled_maxima();
    const double array_macs = static_cast<double>(maxima.tm) * maxima.tn;
    std::printf("Tm=%d Tn=%d Tr=%d Tc=%d: array-cycle utilization (useful MACs / (Tm Tn cycles))\n",
                maxima.tm, maxima.tn, maxima.tr, maxima.tc);
    std::printf(
        "forward layer                 useful MACs   FP util   BP util   WG util   BP zero-inserted util\n");
    for (const Layer& l : layers) {
        const train_fixed::ConvShape s =
            train_fixed::conv_shape(l.in_c, l.size, l.size, l.out_c, l.k, l.stride, l.k / 2);
        const double useful = static_cast<double>(s.weight_elements()) * s.out_h * s.out_w;
        const std::size_t arena = s.input_elements() + s.output_elements() + s.weight_elements();

        kernel::LayerCommand fp = train_fixed::phase_command(kernel::kOpConvBackward, s, 1, 0, maxima);
        fp.op = kernel::kOpConv;
        fp.tile_rows = static_cast<uint32_t>(std::min(s.out_h, maxima.tr));
        fp.tile_cols = static_cast<uint32_t>(std::min(s.out_w, maxima.tc));
        fp.output_offset = static_cast<uint32_t>(s.input_elements());
        const uint32_t weight_words = kernel::reordered_weight_words(
            static_cast<uint32_t>(s.out_c), static_cast<uint32_t>(s.in_c),
            static_cast<uint32_t>(s.kernel_size), static_cast<uint32_t>(maxima.tm),
            static_cast<uint32_t>(maxima.tn), 16);
        fp.bias_offset = weight_words;
        const std::size_t fp_params =
            weight_words +
            kernel::padded_bias_elements(static_cast<uint32_t>(s.out_c), static_cast<uint32_t>(maxima.tm));
        const uint64_t fp_cycles = cycles_of(fp, arena, fp_params);

        kernel::LayerCommand bp = train_fixed::phase_command(kernel::kOpConvBackward, s, 1, 0, maxima);
        bp.output_offset = static_cast<uint32_t>(s.output_elements());
        const uint64_t bp_cycles = cycles_of(bp, arena, weight_words + 64);

        kernel::LayerCommand wg = train_fixed::phase_command(kernel::kOpWeightGradient, s, 1, 0, maxima);
        wg.error_offset = static_cast<uint32_t>(s.input_elements());
        wg.output_offset = static_cast<uint32_t>(s.input_elements() + s.output_elements());
        const uint64_t wg_cycles = cycles_of(wg, arena, 0);

        // BP without the stride classes: a stride-1 conv over dX with every tap on the zero-inserted error,
        // ceil(N/Tm) ceil(M/Tn) K^2 H W cycles (tile edges aside).
        const double zero_inserted =
            static_cast<double>(
                kernel::div_ceil(static_cast<uint32_t>(s.in_c), static_cast<uint32_t>(maxima.tm))) *
            kernel::div_ceil(static_cast<uint32_t>(s.out_c), static_cast<uint32_t>(maxima.tn)) *
            s.kernel_size * s.kernel_size * s.in_h * s.in_w;
        std::printf("%4dx%3dx%3d -> %4d K%d S%d  %12.0f   %6.1f%%   %6.1f%%   %6.1f%%   %6.1f%%\n", l.in_c,
                    l.size, l.size, l.out_c, l.k, l.stride, useful, 100 * useful / (array_macs * fp_cycles),
                    100 * useful / (array_macs * bp_cycles), 100 * useful / (array_macs * wg_cycles),
                    100 * useful / (array_macs * zero_inserted));
        // Each phase does its useful MACs and no more than the padding of its channel groups adds.
        EXPECT_LE(useful, array_macs * static_cast<double>(bp_cycles));
        EXPECT_LE(useful, array_macs * static_cast<double>(wg_cycles));
        if (l.stride > 1) {
            EXPECT_LT(static_cast<double>(bp_cycles), zero_inserted / 2);
        }
    }
}

#else

TEST(TrainUtilization, ReferenceBuildOnly) {
    GTEST_SKIP() << "the utilization table is the reference build's";
}

#endif

}  // namespace
}  // namespace fpgacnn::test
