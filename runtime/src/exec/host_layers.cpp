#include "exec/host_layers.hpp"

#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16/host_logistic.hpp"

namespace fpgacnn::exec_detail {

void run_host_layer(const QuantizedNetwork& network, const NetworkPlan& plan, const LayerPlan& lp,
                    const ArenaReader& read, const ArenaWriter& write) {
    const auto index = static_cast<std::size_t>(lp.index);
    const Layer& layer = network.network.layers[index];
    std::vector<int16_t> input;
    std::vector<int16_t> output(layer.output.size());
    switch (layer.type) {
        case LayerType::Convolutional: {
            // activation=logistic: the command ran linear; the logistic step on its output, in place.
            const QuantizedLayer& q = network.layers[index];
            read(lp.output, output);
            int16_detail::int16_logistic_in_place(output.data(), output.size(), q.output_q, q.output_bits);
            break;
        }
        case LayerType::Upsample:
            read(lp.input, input);
            int16_upsample(layer, input.data(), output.data());
            break;
        case LayerType::Shortcut: {
            const auto from = static_cast<std::size_t>(layer.shortcut().from);
            std::vector<int16_t> added;
            read(lp.input, input);
            read(plan.layers[from].output, added);
            const QuantizedLayer& q = network.layers[index];
            int16_shortcut(layer, {q.input_q, network.layers[from].output_q, q.output_q, q.output_bits},
                           input.data(), added.data(), network.network.layers[from].output, output.data());
            break;
        }
        case LayerType::Route: {
            // int16_route takes every layer's output by index; only the sources are read back.
            std::vector<std::vector<int16_t>> sources(network.network.layers.size());
            std::vector<const int16_t*> data(sources.size(), nullptr);
            std::vector<std::size_t> sizes(sources.size(), 0);
            for (const int source : layer.route().inputs) {
                const auto s = static_cast<std::size_t>(source);
                read(plan.layers.at(s).output, sources[s]);
                data[s] = sources[s].data();
                sizes[s] = sources[s].size();
            }
            int16_route(layer, data, sizes, output.data());
            break;
        }
        case LayerType::AvgPool:
            read(lp.input, input);
            int16_avgpool(layer, input.data(), output.data());
            break;
        case LayerType::Crop: {
            read(lp.input, input);
            const QuantizedLayer& q = network.layers[index];
            int16_crop(layer, q.output_q, q.output_bits, input.data(), output.data());
            break;
        }
        default:
            throw Error("layer " + std::to_string(lp.index) + " (" + layer_type_name(layer.type) +
                        ") is not a host layer");
    }
    write(lp.output, output);
}

}  // namespace fpgacnn::exec_detail
