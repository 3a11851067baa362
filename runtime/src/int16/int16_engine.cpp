// Int16Engine: checks the exponent rules and packs every conv once (one layer's unpacked parameters in
// memory at a time), then runs frames layer by layer on int16 buffers (one per layer, or reused once
// dead), convs on the thread pool (the process-wide one unless a thread count is given).
#include "fpgacnn/int16_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/thread_pool.hpp"
#include "fpgacnn/error.hpp"
#include "int16/activation_code.hpp"
#include "int16/aligned_buffer.hpp"
#include "int16/exponent_rules.hpp"
#include "int16/host_logistic.hpp"
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
    if (layer.type == LayerType::Route || layer.reads(produced)) return;
    throw Error(int16_detail::describe_layer(layer) + ": input shape " +
                int16_detail::shape_text(layer.input) + " but " + producer + " produces " +
                int16_detail::shape_text(produced));
}

/// The smallest free buffer that holds `need` values, else the largest (it is grown); end() if none.
std::vector<std::size_t>::iterator pick_free_buffer(std::vector<std::size_t>& free_buffers,
                                                    const std::vector<std::size_t>& buffer_sizes,
                                                    std::size_t need) {
    auto best = free_buffers.end();
    for (auto it = free_buffers.begin(); it != free_buffers.end(); ++it) {
        if (best == free_buffers.end()) {
            best = it;
            continue;
        }
        const std::size_t size = buffer_sizes[*it];
        const std::size_t best_size = buffer_sizes[*best];
        const bool smaller_fit = size >= need && (best_size < need || size < best_size);
        const bool larger_misfit = size < need && best_size < need && size > best_size;
        if (smaller_fit || larger_misfit) best = it;
    }
    return best;
}

/// Which buffer holds each layer's output. Keeping them all: one per layer. Else a layer's buffer is
/// reused once its last reader has run (the next layer, or a later route), as the device arena does.
std::vector<std::size_t> assign_buffers(const std::vector<Layer>& layers, bool keep_all,
                                        std::vector<std::size_t>& buffer_sizes) {
    const std::size_t n = layers.size();
    std::vector<std::size_t> buffer_of(n);
    if (keep_all) {
        for (std::size_t i = 0; i < n; ++i) {
            buffer_of[i] = i;
            buffer_sizes.push_back(layers[i].output.size());
        }
        return buffer_of;
    }
    std::vector<std::size_t> last_read(n);
    // The last layer is the result, and so is every yolo head (YOLOv3 has three) and a classifier's
    // softmax (a [cost] may follow it): kept to the end.
    for (std::size_t i = 0; i < n; ++i) {
        const bool output = layers[i].type == LayerType::Yolo || layers[i].type == LayerType::Softmax;
        last_read[i] = i + 1 == n || output ? n : i;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (layers[i].type == LayerType::Route) {
            for (const int source : layers[i].route().inputs) {
                if (source >= 0 && static_cast<std::size_t>(source) < i)
                    last_read[source] = std::max(last_read[source], i);
            }
            continue;
        }
        if (i > 0) last_read[i - 1] = std::max(last_read[i - 1], i);
        if (layers[i].type == LayerType::Shortcut) {
            const int from = layers[i].shortcut().from;
            if (from >= 0 && static_cast<std::size_t>(from) < i)
                last_read[from] = std::max(last_read[from], i);
        }
    }
    std::vector<std::size_t> free_buffers;
    std::vector<bool> released(n, false);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (released[j] || last_read[j] >= i) continue;
            released[j] = true;
            free_buffers.push_back(buffer_of[j]);
        }
        const std::size_t need = layers[i].output.size();
        // The result gets a buffer of its own and of its exact size (layer_output() returns it).
        const auto best = i + 1 < n ? pick_free_buffer(free_buffers, buffer_sizes, need) : free_buffers.end();
        if (best == free_buffers.end()) {
            buffer_of[i] = buffer_sizes.size();
            buffer_sizes.push_back(need);
        } else {
            buffer_of[i] = *best;
            buffer_sizes[*best] = std::max(buffer_sizes[*best], need);
            free_buffers.erase(best);
        }
    }
    return buffer_of;
}

}  // namespace

struct Int16Engine::Impl {
    Int16Isa isa = Int16Isa::Scalar;
    TensorShape input_shape;
    bool keep_outputs = true;
    std::vector<Layer> layers;
    std::vector<std::unique_ptr<Int16PackedConv>> convs;  // per layer; null for non-conv layers
    std::vector<Int16ShortcutArgs> shortcuts;             // per layer; used by [shortcut] layers only
    std::vector<int> output_q;                            // per layer; [crop] needs its exponent
    std::vector<int> output_bits;                         // and width
    std::vector<std::vector<int16_t>> buffers;            // the layers' outputs (assign_buffers)
    std::vector<std::size_t> buffer_of;                   // layer -> buffer
    std::vector<const int16_t*> output_data;              // layer -> its output (routes read them)
    std::vector<std::size_t> output_sizes;
    int16_detail::AlignedBuffer<int16_t> scratch;  // the convs' packed input, one at a time
    std::vector<double> layer_ms;
    std::unique_ptr<ThreadPool> own_pool;  // only for an explicit thread count
    ThreadPool* pool = nullptr;
};

Int16Engine::Int16Engine(const QuantizedNetwork& network, Int16Isa isa, int threads, bool keep_layer_outputs)
    : impl_(std::make_unique<Impl>()) {
    if (!int16_isa_supported(isa)) {
        throw Error(std::string("Int16Engine: this CPU does not support the ") + isa_name(isa) +
                    " path; use best_int16_isa()");
    }
    if (network.network.layers.empty()) throw Error("Int16Engine: the network has no layers");
    int16_detail::check_exponent_rules(network);
    Impl& d = *impl_;
    d.isa = isa;
    d.keep_outputs = keep_layer_outputs;
    d.input_shape = network.network.input;
    const std::vector<Layer>& layers = network.network.layers;
    std::size_t scratch_size = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const Layer& layer = layers[i];
        if (i == 0) {
            check_input_shape(layer, d.input_shape, "the network input");
        } else {
            check_input_shape(layer, layers[i - 1].output, "layer " + std::to_string(i - 1));
        }
        d.layers.push_back(shape_only(layer));
        if (layer.type == LayerType::Convolutional) {
            // One layer's unpacked parameters at a time: read from the model file when they are there.
            const ResidentLayer resident(network, i);
            const QuantizedLayer& q = resident.get();
            const Int16ConvArgs args = int16_conv_args(layer, q, int16_detail::layer_input_bits(network, i));
            d.convs.push_back(
                std::make_unique<Int16PackedConv>(args, q.weights.data(), q.biases.data(), isa));
            scratch_size = std::max(scratch_size, d.convs.back()->packed_input_size());
        } else {
            d.convs.push_back(nullptr);
        }
        Int16ShortcutArgs shortcut;
        if (layer.type == LayerType::Shortcut) {
            const QuantizedLayer& q = network.layers[i];
            shortcut = {q.input_q, network.layers[static_cast<std::size_t>(layer.shortcut().from)].output_q,
                        q.output_q, q.output_bits};
        }
        d.shortcuts.push_back(shortcut);
        d.output_q.push_back(network.layers[i].output_q);
        d.output_bits.push_back(network.layers[i].output_bits);
        if ((layer.type == LayerType::Region || layer.type == LayerType::Yolo) &&
            layer.output.size() != layer.input.size()) {
            throw Error(int16_detail::describe_layer(layer) +
                        ": a region layer's output must have its input's shape");
        }
    }
    // After packing, so the one layer's unpacked parameters read above are gone before these exist.
    std::vector<std::size_t> buffer_sizes;
    d.buffer_of = assign_buffers(d.layers, keep_layer_outputs, buffer_sizes);
    for (const std::size_t size : buffer_sizes) d.buffers.emplace_back(size);
    for (std::size_t i = 0; i < d.layers.size(); ++i) {
        d.output_data.push_back(d.buffers[d.buffer_of[i]].data());
        d.output_sizes.push_back(d.layers[i].output.size());
    }
    d.scratch = int16_detail::AlignedBuffer<int16_t>(scratch_size);
#if defined(__GLIBC__)
    // The unpacked layers read one at a time leave freed holes between the packed buffers; give
    // their pages back (a board counts every megabyte, docs/boards.md "Memory").
    malloc_trim(0);
#endif
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
        const int16_t* in = i == 0 ? input : d.output_data[i - 1];
        int16_t* out = d.buffers[d.buffer_of[i]].data();
        switch (layer.type) {
            case LayerType::Convolutional:
                d.convs[i]->run(in, out, d.scratch.data(), d.pool);
                if (int16_detail::has_host_logistic(layer)) {
                    int16_detail::int16_logistic_in_place(out, layer.output.size(), d.output_q[i],
                                                          d.output_bits[i]);
                }
                break;
            case LayerType::MaxPool:
                int16_maxpool(layer, in, out, d.pool);
                break;
            case LayerType::Reorg:
                int16_reorg(layer, in, out);
                break;
            case LayerType::Route:
                int16_route(layer, d.output_data, d.output_sizes, out);
                break;
            case LayerType::Region:
            case LayerType::Yolo:     // activated on the host, in float (docs/arithmetic.md)
            case LayerType::Softmax:  // likewise
            case LayerType::Dropout:  // identities at inference
            case LayerType::Cost:
                std::copy(in, in + layer.input.size(), out);
                break;
            case LayerType::AvgPool:
                int16_avgpool(layer, in, out);
                break;
            case LayerType::Crop:
                int16_crop(layer, d.output_q[i], d.output_bits[i], in, out);
                break;
            case LayerType::Upsample:
                int16_upsample(layer, in, out);
                break;
            case LayerType::Unsupported:  // refused by validate_quantized_network
                throw Error(int16_detail::describe_layer(layer) + " is not run by fpgacnn");
            case LayerType::Shortcut: {
                const auto from = static_cast<std::size_t>(layer.shortcut().from);
                int16_shortcut(layer, d.shortcuts[i], in, d.output_data[from], d.layers[from].output, out);
                break;
            }
        }
        const auto layer_end = std::chrono::steady_clock::now();
        d.layer_ms[i] = std::chrono::duration<double, std::milli>(layer_end - layer_start).count();
        layer_start = layer_end;
    }
    return d.buffers[d.buffer_of.back()];
}

const std::vector<int16_t>& Int16Engine::layer_output(int i) const {
    const Impl& d = *impl_;
    if (i < 0 || static_cast<std::size_t>(i) >= d.layers.size()) {
        throw Error("Int16Engine::layer_output: no layer " + std::to_string(i) + " (the network has " +
                    std::to_string(d.layers.size()) + ")");
    }
    if (!d.keep_outputs && static_cast<std::size_t>(i) + 1 != d.layers.size() &&
        d.layers[static_cast<std::size_t>(i)].type != LayerType::Yolo &&
        d.layers[static_cast<std::size_t>(i)].type != LayerType::Softmax) {
        throw Error("Int16Engine::layer_output: layer " + std::to_string(i) +
                    "'s output is not kept (its buffer is reused); build the engine with keep_layer_outputs "
                    "(BackendOptions::keep_layer_outputs, fpgacnn-detect --dump-layers)");
    }
    return d.buffers[d.buffer_of[static_cast<std::size_t>(i)]];
}

std::size_t Int16Engine::packed_parameter_bytes() const {
    std::size_t bytes = 0;
    for (const auto& conv : impl_->convs)
        if (conv) bytes += conv->packed_parameter_bytes();
    return bytes;
}

const std::vector<double>& Int16Engine::layer_milliseconds() const { return impl_->layer_ms; }

Int16Isa Int16Engine::isa() const { return impl_->isa; }

}  // namespace fpgacnn
