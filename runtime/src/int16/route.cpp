// darknet's [route] on int16: the sources' CHW outputs one after the other (a channel
// concatenation). Only valid when every source is at the route's exponent (the engine checks).
#include <algorithm>
#include <cstddef>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

void int16_route(const Layer& layer, const std::vector<std::vector<int16_t>>& layer_outputs,
                 int16_t* output) {
    const std::string what = int16_detail::describe_layer(layer);
    if (layer.type != LayerType::Route) throw Error("int16_route called on " + what);
    std::size_t total = 0;
    for (const int source : layer.route().inputs) {
        if (source < 0 || static_cast<std::size_t>(source) >= layer_outputs.size() || source >= layer.index) {
            throw Error(what + ": route input " + std::to_string(source) + " is not an earlier layer");
        }
        total += layer_outputs[source].size();
    }
    if (total != layer.output.size()) {
        throw Error(what + ": its inputs hold " + std::to_string(total) +
                    " values but its output shape needs " + std::to_string(layer.output.size()));
    }
    for (const int source : layer.route().inputs) {
        output = std::copy(layer_outputs[source].begin(), layer_outputs[source].end(), output);
    }
}

}  // namespace fpgacnn
