// Runs one command through the native kernel on a feature-map arena and a parameter buffer with
// guard zones around every tensor, so a test sees both the result and any stray write.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "arena_tensors.hpp"
#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/kernel/weight_layout.hpp"
#ifdef FPGACNN_KERNEL_TEST_RTL
#include "rtl_kernel_check.hpp"  // tests/rtl: the same command on the Verilated RTL
#endif

namespace fpgacnn::test {

inline constexpr int16_t kGuard = 0x5A5A;

struct KernelRun {
    std::vector<int16_t> output;
    kernel::TrafficCounters traffic{};
    kernel::CommandCheck check = kernel::kCommandOk;
    bool guards_intact = true;  // nothing outside the output tensor changed
};

/// Re-orders darknet-order weights into the kernel layout (padded with zeros) and stores them as the
/// parameter buffer holds them at `weight_bits` (8 bits: two per word).
inline std::vector<int16_t> reorder_for_kernel(const std::vector<int16_t>& weights, int out_c, int in_c,
                                               int size, int weight_bits = arith::kDataBits) {
    const kernel::WeightLayout layout{static_cast<uint32_t>(out_c), static_cast<uint32_t>(in_c),
                                      static_cast<uint32_t>(size), static_cast<uint32_t>(kernel::kTm),
                                      static_cast<uint32_t>(kernel::kTn)};
    std::vector<int16_t> reordered(layout.total_elements(), 0);
    for (int m = 0; m < out_c; ++m)
        for (int n = 0; n < in_c; ++n)
            for (int ky = 0; ky < size; ++ky)
                for (int kx = 0; kx < size; ++kx)
                    reordered[layout.index(m, n, ky, kx)] = weights[layout.darknet_index(m, n, ky, kx)];
    std::vector<int16_t> words(layout.total_words(weight_bits));
    kernel::store_weight_blocks(layout, reordered.data(), weight_bits, words.data());
    return words;
}

/// Places input and output in one arena at their widths (order, gaps and, for 8-bit tensors, odd
/// or even byte offsets from `rng`), weights and biases in one parameter buffer, runs the command and
/// checks the guards byte by byte. `command` gets the offsets filled in.
inline KernelRun run_kernel_command(kernel::LayerCommand command, const std::vector<int16_t>& input,
                                    const std::vector<int16_t>& reordered_weights,
                                    const std::vector<int16_t>& padded_biases, std::mt19937& rng) {
    const std::size_t out_elements = static_cast<std::size_t>(command.out_c) * command.out_h * command.out_w;
    const int input_bits = static_cast<int>(command.input_bits);
    const int output_bits = static_cast<int>(command.output_bits);
    // Widths outside the contract (commands the kernel must reject) are placed as 16-bit words.
    const std::size_t in_size = arith::fm_element_bytes(input_bits);
    const std::size_t out_size = arith::fm_element_bytes(output_bits);
    std::uniform_int_distribution<int> gap(0, 40);
    const bool output_first = (rng() & 1u) != 0;
    std::size_t cursor = 2 * static_cast<std::size_t>(gap(rng));  // bytes
    // The next free byte for a tensor of `size`-byte elements: word-aligned for words, and either
    // parity for bytes.
    const auto place = [&](std::size_t size, std::size_t count) {
        if (size == 1) cursor += rng() & 1u;
        cursor = (cursor + size - 1) / size * size;
        const std::size_t at = cursor;
        cursor += size * count + 2 * static_cast<std::size_t>(gap(rng));
        return at;
    };
    std::size_t input_byte = 0, output_byte = 0;
    if (output_first) {
        output_byte = place(out_size, out_elements);
        input_byte = place(in_size, input.size());
    } else {
        input_byte = place(in_size, input.size());
        output_byte = place(out_size, out_elements);
    }
    std::vector<int16_t> arena(cursor / 2 + 2, kGuard);
    command.input_offset = static_cast<uint32_t>(input_byte / in_size);
    command.output_offset = static_cast<uint32_t>(output_byte / out_size);
    write_tensor(arena, command.input_offset, input_bits, input);

    const std::size_t pgap0 = gap(rng), pgap1 = gap(rng);
    std::vector<int16_t> params(pgap0 + reordered_weights.size() + pgap1 + padded_biases.size() + 8, kGuard);
    std::copy(reordered_weights.begin(), reordered_weights.end(),
              params.begin() + static_cast<std::ptrdiff_t>(pgap0));
    const std::size_t bias_at = pgap0 + reordered_weights.size() + pgap1;
    std::copy(padded_biases.begin(), padded_biases.end(),
              params.begin() + static_cast<std::ptrdiff_t>(bias_at));
    command.weight_offset = static_cast<uint32_t>(pgap0);
    command.bias_offset = static_cast<uint32_t>(bias_at);

    KernelRun run;
    const std::vector<int16_t> arena_before = arena;
    run.check = kernel::run_layer(command, arena.data(), arena.data(), params.data(), &run.traffic);
#ifdef FPGACNN_KERNEL_TEST_RTL
    expect_rtl_matches_native(command, arena_before, arena, params, run.check);
#endif
    run.output = read_tensor(arena, command.output_offset, out_elements, output_bits);
    const auto* after = reinterpret_cast<const unsigned char*>(arena.data());
    const auto* before = reinterpret_cast<const unsigned char*>(arena_before.data());
    for (std::size_t i = 0; i < 2 * arena.size(); ++i) {
        const bool in_output = i >= output_byte && i < output_byte + out_size * out_elements;
        if (!in_output && after[i] != before[i]) run.guards_intact = false;
    }
    return run;
}

/// First differing index, or -1.
inline long first_mismatch(const std::vector<int16_t>& a, const std::vector<int16_t>& b) {
    if (a.size() != b.size()) return 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return static_cast<long>(i);
    return -1;
}

inline std::string describe(const kernel::LayerCommand& c) {
    static const char* const names[] = {"conv", "maxpool", "reorg"};
    return std::string(c.op < 3 ? names[c.op] : "?") + " in " + std::to_string(c.in_c) + "x" +
           std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + " out " + std::to_string(c.out_c) + "x" +
           std::to_string(c.out_h) + "x" + std::to_string(c.out_w) + " k" + std::to_string(c.kernel_size) +
           " s" + std::to_string(c.stride) + " p" + std::to_string(c.pad) + " activation " +
           std::to_string(c.leaky) + " bias_shift " + std::to_string(c.bias_shift) + " output_shift " +
           std::to_string(c.output_shift) + " tile " + std::to_string(c.tile_rows) + "x" +
           std::to_string(c.tile_cols) + " output_bits " + std::to_string(c.output_bits) + " weight_bits " +
           std::to_string(c.weight_bits) + " input_bits " + std::to_string(c.input_bits);
}

}  // namespace fpgacnn::test
