// Where each conv weight lives in the kernel's re-ordered parameter layout (docs/kernel.md):
// ceil(M/Tm) x ceil(N/Tn) blocks in row-major block order (output-map block major); inside a block
// [ky][kx][n % Tn][m % Tm], so a block is one contiguous burst of Tm*Tn*K*K int16 and the Tm lanes
// of one (tap, input map) are adjacent. Lanes past M or N hold zeros.
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

}  // namespace kernel
}  // namespace fpgacnn
