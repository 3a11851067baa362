// darknet's [route]: the listed layers' outputs, one after the other (a channel concatenation in
// CHW order).
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
        total += layer_outputs[source].size();
    }
    if (total != layer.output.size()) {
        throw Error(detail::describe_layer(layer) + ": its inputs hold " + std::to_string(total) +
                    " values but its output shape needs " + std::to_string(layer.output.size()));
    }
    for (const int source : layer.route().inputs) {
        output = std::copy(layer_outputs[source].begin(), layer_outputs[source].end(), output);
    }
}

}  // namespace fpgacnn
