#include "core/carried_widths.hpp"

#include <algorithm>
#include <cstddef>

#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn::core {

std::vector<int> carried_output_bits(const Network& network, const std::vector<int>& conv_output_bits) {
    std::vector<int> bits(network.layers.size(), arith::kNetworkInputBits);
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const Layer& layer = network.layers[i];
        if (layer.type == LayerType::Convolutional) {
            bits[i] = conv_output_bits[i];
        } else if (layer.type == LayerType::Route) {
            int widest = 0;
            for (const int source : layer.route().inputs) {
                if (source >= 0 && static_cast<std::size_t>(source) < i)
                    widest = std::max(widest, bits[static_cast<std::size_t>(source)]);
            }
            bits[i] = widest > 0 ? widest : arith::kNetworkInputBits;
        } else {
            bits[i] = i == 0 ? arith::kNetworkInputBits : bits[i - 1];
        }
    }
    return bits;
}

}  // namespace fpgacnn::core
