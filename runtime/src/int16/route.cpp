// darknet's [route] on int16: the sources' CHW outputs one after the other (a channel
// concatenation; with groups, one channel slice of each). Only valid when every source is at the route's
// exponent (the engine checks).
#include <algorithm>
#include <cstddef>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

void int16_route(const Layer& layer, const std::vector<const int16_t*>& layer_outputs,
                 const std::vector<std::size_t>& layer_sizes, int16_t* output) {
    const std::string what = int16_detail::describe_layer(layer);
    if (layer.type != LayerType::Route) throw Error("int16_route called on " + what);
    std::size_t total = 0;
    for (const int source : layer.route().inputs) {
        if (source < 0 || static_cast<std::size_t>(source) >= layer_outputs.size() ||
            layer_sizes.size() != layer_outputs.size() || source >= layer.index) {
            throw Error(what + ": route input " + std::to_string(source) + " is not an earlier layer");
        }
        total +=
            layer_sizes[static_cast<std::size_t>(source)] / static_cast<std::size_t>(layer.route().groups);
    }
    if (total != layer.output.size()) {
        throw Error(what + ": its inputs hold " + std::to_string(total) +
                    " values but its output shape needs " + std::to_string(layer.output.size()));
    }
    const RouteParams& route = layer.route();
    for (const int source : route.inputs) {
        const std::size_t part =
            layer_sizes[static_cast<std::size_t>(source)] / static_cast<std::size_t>(route.groups);
        const int16_t* first =
            layer_outputs[static_cast<std::size_t>(source)] + part * static_cast<std::size_t>(route.group_id);
        output = std::copy(first, first + part, output);
    }
}

void int16_route(const Layer& layer, const std::vector<std::vector<int16_t>>& layer_outputs,
                 int16_t* output) {
    std::vector<const int16_t*> data;
    std::vector<std::size_t> sizes;
    for (const std::vector<int16_t>& values : layer_outputs) {
        data.push_back(values.data());
        sizes.push_back(values.size());
    }
    int16_route(layer, data, sizes, output);
}

}  // namespace fpgacnn
