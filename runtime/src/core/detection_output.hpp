// Where each output layer's values sit in a detection output (Backend::run: the [region] layer's, or
// every [yolo] head's one after the other), for the backends' layer_output().
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::core {

/// Layer `layer`'s values in `output` when it is one of `output_layers` (or an identity at inference,
/// [cost] / [dropout], right after the last of them: the same values); nullopt otherwise.
inline std::optional<std::vector<float>> output_layer_values(const Network& network,
                                                             const std::vector<int>& output_layers,
                                                             const std::vector<float>& output, int layer) {
    if (!output_layers.empty() && layer > output_layers.back()) {
        bool identities = true;
        for (int i = output_layers.back() + 1; i <= layer && identities; ++i) {
            const LayerType type = network.layers[static_cast<std::size_t>(i)].type;
            identities = type == LayerType::Cost || type == LayerType::Dropout;
        }
        if (identities) layer = output_layers.back();
    }
    std::size_t offset = 0;
    for (const int i : output_layers) {
        const std::size_t size = network.layers[static_cast<std::size_t>(i)].output.size();
        if (i == layer) {
            const auto begin = output.begin() + static_cast<std::ptrdiff_t>(offset);
            return std::vector<float>(begin, begin + static_cast<std::ptrdiff_t>(size));
        }
        offset += size;
    }
    return std::nullopt;
}

}  // namespace fpgacnn::core
