// Where each conv weight lives in the kernel's re-ordered parameter layout (docs/kernel.md):
// ceil(M/Tm) x ceil(N/Tn) blocks in row-major block order (output-map block major); inside a block
// [ky][kx][n % Tn][m % Tm], so a block is one contiguous burst of Tm*Tn*K*K elements and the Tm
// lanes of one (tap, input map) are adjacent. Lanes past M or N hold zeros. In the parameter buffer a
// block takes arith::storage_words of its elements at the layer's weight width (8-bit: two per word).
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/layer_command.hpp"

namespace fpgacnn {
namespace kernel {

struct WeightLayout {
    uint32_t out_c;  // M
    uint32_t in_c;   // N
    uint32_t kernel_size;
    uint32_t tm;
    uint32_t tn;

    uint32_t input_blocks() const { return div_ceil(in_c, tn); }
    uint32_t block_elements() const { return tm * tn * kernel_size * kernel_size; }
    uint32_t total_elements() const { return reordered_weight_elements(out_c, in_c, kernel_size, tm, tn); }
    uint32_t blocks() const { return div_ceil(out_c, tm) * input_blocks(); }
    /// Parameter-buffer words of one block / of the whole layer at `bits`.
    uint32_t block_words(int bits) const { return arith::storage_words(block_elements(), bits); }
    uint32_t total_words(int bits) const {
        return reordered_weight_words(out_c, in_c, kernel_size, tm, tn, bits);
    }

    /// Index in the re-ordered buffer of darknet's weight [m][n][ky][kx].
    uint32_t index(uint32_t m, uint32_t n, uint32_t ky, uint32_t kx) const {
        const uint32_t block = (m / tm) * input_blocks() + n / tn;
        return block * block_elements() + ((ky * kernel_size + kx) * tn + n % tn) * tm + m % tm;
    }

    /// Index in darknet's [M][N][K][K] order.
    uint32_t darknet_index(uint32_t m, uint32_t n, uint32_t ky, uint32_t kx) const {
        return ((m * in_c + n) * kernel_size + ky) * kernel_size + kx;
    }
};

/// BP's weight layout (contract 6, kOpConvBackward): the forward weights rotated by 180 degrees and
/// transposed in (m, n), re-ordered as the forward layout of a layer with out_c and in_c swapped, so
/// the array's Tm lanes run over the forward input maps and its Tn lanes over the forward output maps.
/// Always 16-bit. `forward` is the forward layer's layout; the result's total_elements() is BP's size.
inline WeightLayout backward_weight_layout(const WeightLayout& forward) {
    WeightLayout b = forward;
    b.out_c = forward.in_c;
    b.in_c = forward.out_c;
    return b;
}

/// Index in BP's weight layout of darknet's weight [m][n][ky][kx] of the forward layer `forward`.
inline uint32_t backward_weight_index(const WeightLayout& forward, uint32_t m, uint32_t n, uint32_t ky,
                                      uint32_t kx) {
    const uint32_t last = forward.kernel_size - 1;
    return backward_weight_layout(forward).index(n, m, last - ky, last - kx);
}

/// The parameter-buffer words of re-ordered weights (layout.total_elements() values, block after
/// block) at `bits`: a copy at 16 bits; at 8 bits each block packed two per word (arith::pack_narrow,
/// a last odd element with a zero high byte). `words` holds layout.total_words(bits).
inline void store_weight_blocks(const WeightLayout& layout, const int16_t* reordered, int bits,
                                int16_t* words) {
    const uint32_t elements = layout.block_elements();
    const uint32_t stride = layout.block_words(bits);
    for (uint32_t b = 0; b < layout.blocks(); ++b) {
        const int16_t* from = reordered + b * elements;
        int16_t* to = words + b * stride;
        if (bits != arith::kNarrowBits) {
            for (uint32_t i = 0; i < elements; ++i) to[i] = from[i];
            continue;
        }
        for (uint32_t w = 0; w < stride; ++w) {
            const uint32_t low = 2 * w;
            to[w] =
                arith::pack_narrow(from[low], low + 1 < elements ? from[low + 1] : static_cast<int16_t>(0));
        }
    }
}

}  // namespace kernel
}  // namespace fpgacnn
