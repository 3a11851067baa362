// Tensors in a feature-map arena held as 16-bit words, at either storage width (contract 5: an 8-bit
// tensor takes one signed byte per element, arith::fm_element_bytes), for tests that lay out the
// kernel's arena themselves.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn::test {

/// Writes `values` into a word arena as a tensor stored at `bits` from element `offset` of that width
/// (arith::fm_element_bytes: 8-bit tensors one signed byte per element, at any byte).
inline void write_tensor(std::vector<int16_t>& arena, std::size_t offset, int bits,
                         const std::vector<int16_t>& values) {
    if (bits == arith::kNarrowBits) {
        auto* bytes = reinterpret_cast<int8_t*>(arena.data());
        for (std::size_t i = 0; i < values.size(); ++i) bytes[offset + i] = static_cast<int8_t>(values[i]);
        return;
    }
    std::copy(values.begin(), values.end(), arena.begin() + static_cast<std::ptrdiff_t>(offset));
}

/// `count` elements of a tensor stored at `bits` from element `offset`, widened to int16.
inline std::vector<int16_t> read_tensor(const std::vector<int16_t>& arena, std::size_t offset,
                                        std::size_t count, int bits) {
    if (bits == arith::kNarrowBits) {
        const auto* bytes = reinterpret_cast<const int8_t*>(arena.data());
        return std::vector<int16_t>(bytes + offset, bytes + offset + count);
    }
    return std::vector<int16_t>(arena.begin() + static_cast<std::ptrdiff_t>(offset),
                                arena.begin() + static_cast<std::ptrdiff_t>(offset + count));
}

}  // namespace fpgacnn::test
