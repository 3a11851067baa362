// Int16Engine: checks the exponent rules and packs every conv once, then runs frames layer by
// layer on per-layer int16 buffers, convs on the thread pool (the process-wide one unless a
// thread count is given).
#include "fpgacnn/int16_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "core/thread_pool.hpp"
#include "fpgacnn/error.hpp"
#include "int16/exponent_rules.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

namespace {

// The layer without its float parameters (the engine only needs shapes and kinds).
Layer shape_only(const Layer& layer) {
    Layer copy;
    copy.type = layer.type;
    copy.index = layer.index;
    copy.cfg_line = layer.cfg_line;
    copy.input = layer.input;
    copy.output = layer.output;
    if (layer.type == LayerType::Convolutional) {
        const ConvParams& conv = layer.conv();
        ConvParams params;
        params.filters = conv.filters;
        params.size = conv.size;
        params.stride = conv.stride;
        params.pad = conv.pad;
        params.activation = conv.activation;
        copy.params = params;
    } else if (layer.type == LayerType::Region) {
        RegionParams params = layer.region();
        copy.params = params;
    } else {
        copy.params = layer.params;
    }
    return copy;
}

void check_input_shape(const Layer& layer, const TensorShape& produced, const std::string& producer) {
    if (layer.type == LayerType::Route || layer.input == produced) return;
    throw Error(int16_detail::describe_layer(layer) + ": input shape " +
                int16_detail::shape_text(layer.input) + " but " + producer + " produces " +
                int16_detail::shape_text(produced));
}

}  // namespace

struct Int16Engine::Impl {
    Int16Isa isa = Int16Isa::Scalar;
    TensorShape input_shape;
    std::vector<Layer> layers;
    std::vector<std::unique_ptr<Int16PackedConv>> convs;  // per layer; null for non-conv layers
    std::vector<std::vector<int16_t>> outputs;
    std::vector<double> layer_ms;
    std::unique_ptr<ThreadPool> own_pool;  // only for an explicit thread count
    ThreadPool* pool = nullptr;
};

Int16Engine::Int16Engine(const QuantizedNetwork& network, Int16Isa isa, int threads)
    : impl_(std::make_unique<Impl>()) {
    if (!int16_isa_supported(isa)) {
        throw Error(std::string("Int16Engine: this CPU does not support the ") + isa_name(isa) +
                    " path; use best_int16_isa()");
    }
    if (network.network.layers.empty()) throw Error("Int16Engine: the network has no layers");
    int16_detail::check_exponent_rules(network);
    Impl& d = *impl_;
    d.isa = isa;
    d.input_shape = network.network.input;
    const std::vector<Layer>& layers = network.network.layers;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const Layer& layer = layers[i];
        if (i == 0) {
            check_input_shape(layer, d.input_shape, "the network input");
        } else {
            check_input_shape(layer, layers[i - 1].output, "layer " + std::to_string(i - 1));
        }
        d.layers.push_back(shape_only(layer));
        d.outputs.emplace_back(layer.output.size());
        if (layer.type == LayerType::Convolutional) {
            const QuantizedLayer& q = network.layers[i];
            d.convs.push_back(std::make_unique<Int16PackedConv>(int16_conv_args(layer, q), q.weights.data(),
                                                                q.biases.data(), isa));
        } else {
            d.convs.push_back(nullptr);
        }
        if (layer.type == LayerType::Region && layer.output.size() != layer.input.size()) {
            throw Error(int16_detail::describe_layer(layer) +
                        ": a region layer's output must have its input's shape");
        }
    }
    d.layer_ms.resize(d.layers.size());
    if (threads > 0) {
        d.own_pool = std::make_unique<ThreadPool>(threads);
        d.pool = d.own_pool.get();
    } else {
        d.pool = &ThreadPool::shared();
    }
}

Int16Engine::~Int16Engine() = default;

const std::vector<int16_t>& Int16Engine::run(const int16_t* input) {
    Impl& d = *impl_;
    auto layer_start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < d.layers.size(); ++i) {
        const Layer& layer = d.layers[i];
        const int16_t* in = i == 0 ? input : d.outputs[i - 1].data();
        int16_t* out = d.outputs[i].data();
        switch (layer.type) {
            case LayerType::Convolutional:
                d.convs[i]->run(in, out, d.pool);
                break;
            case LayerType::MaxPool:
                int16_maxpool(layer, in, out, d.pool);
                break;
            case LayerType::Reorg:
                int16_reorg(layer, in, out);
                break;
            case LayerType::Route:
                int16_route(layer, d.outputs, out);
                break;
            case LayerType::Region:
                std::copy(in, in + layer.input.size(), out);
                break;
        }
        const auto layer_end = std::chrono::steady_clock::now();
        d.layer_ms[i] = std::chrono::duration<double, std::milli>(layer_end - layer_start).count();
        layer_start = layer_end;
    }
    return d.outputs.back();
}

const std::vector<int16_t>& Int16Engine::layer_output(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= impl_->outputs.size()) {
        throw Error("Int16Engine::layer_output: no layer " + std::to_string(i) + " (the network has " +
                    std::to_string(impl_->outputs.size()) + ")");
    }
    return impl_->outputs[static_cast<std::size_t>(i)];
}

const std::vector<double>& Int16Engine::layer_milliseconds() const { return impl_->layer_ms; }

Int16Isa Int16Engine::isa() const { return impl_->isa; }

}  // namespace fpgacnn
