// darknet's [route]: the listed layers' outputs (or one channel slice of each, with groups), one
// after the other (a channel concatenation in CHW order).
#include <algorithm>
#include <cstddef>

#include "float/layer_checks.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

void route_forward(const Layer& layer, const std::vector<std::vector<float>>& layer_outputs, float* output) {
    detail::require_layer_type(layer, LayerType::Route, "route_forward");
    std::size_t total = 0;
    for (const int source : layer.route().inputs) {
        if (source < 0 || static_cast<std::size_t>(source) >= layer_outputs.size() || source >= layer.index) {
            throw Error(detail::describe_layer(layer) + ": route input " + std::to_string(source) +
                        " is not an earlier layer");
        }
        total += layer_outputs[source].size() / static_cast<std::size_t>(layer.route().groups);
    }
    if (total != layer.output.size()) {
        throw Error(detail::describe_layer(layer) + ": its inputs hold " + std::to_string(total) +
                    " values but its output shape needs " + std::to_string(layer.output.size()));
    }
    // With groups (AlexeyAB's route): the group_id-th of `groups` equal parts of each input, which in
    // CHW order is a contiguous block of channels.
    const RouteParams& route = layer.route();
    for (const int source : route.inputs) {
        const std::size_t part = layer_outputs[source].size() / static_cast<std::size_t>(route.groups);
        const float* begin = layer_outputs[source].data() + part * static_cast<std::size_t>(route.group_id);
        output = std::copy(begin, begin + part, output);
    }
}

}  // namespace fpgacnn
