#include "plan/arena_layout.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "core/layer_inputs.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn::plan_detail {

namespace {

constexpr int kNetworkInput = -1;

struct Buffer {
    int bits = arith::kDataBits;  // of its elements
    std::size_t words = 0;        // 16-bit words they take

    int first_write = std::numeric_limits<int>::max();
    int last_read = std::numeric_limits<int>::min();
    std::size_t offset = 0;  // words
};

struct Placement {
    int buffer = -1;
    std::size_t offset = 0;  // elements into the buffer
};

// A region, yolo or softmax layer is read by the host where its conv wrote (dropout and cost alike); a
// single-input route without groups is its source. A route with groups copies a channel slice on the host
// into a buffer of its own.
bool is_alias(const Layer& layer) {
    // [softmax] is an output layer like [region]; [dropout] and [cost] are identities at inference.
    const bool identity =
        layer.type == LayerType::Softmax || layer.type == LayerType::Dropout || layer.type == LayerType::Cost;
    return identity || layer.type == LayerType::Region || layer.type == LayerType::Yolo ||
           (layer.type == LayerType::Route && layer.route().inputs.size() == 1 && layer.route().groups == 1);
}

class Placer {
public:
    Placer(const Network& network, const std::vector<int>& output_bits)
        : net_(network),
          bits_(output_bits),
          placement_(network.layers.size()),
          host_routes_(network.layers.size()) {}

    ArenaLayout run(std::size_t alignment) {
        const int count = static_cast<int>(net_.layers.size());
        input_ = new_buffer(net_.input.size(), arith::kNetworkInputBits, kNetworkInput);
        place_concatenations();
        for (int i = 0; i < count; ++i) {
            const Layer& layer = net_.layers[static_cast<std::size_t>(i)];
            if (is_alias(layer)) {
                placement_[i] = placement_of(alias_source(i));
            } else if (placement_[i].buffer < 0) {
                placement_[i] = Placement{new_buffer(layer.output.size(), bits_of(i), i), 0};
            }
            buffers_[placement_[i].buffer].first_write =
                std::min(buffers_[placement_[i].buffer].first_write, i);
            for (int source : core::layer_inputs(net_, i)) {
                Buffer& b = buffers_[placement_of(source).buffer];
                b.last_read = std::max(b.last_read, i);
            }
        }
        // The last layer's output is read by the host after the frame, and so is every yolo head's.
        buffers_[placement_of(count - 1).buffer].last_read = count;
        for (int i = 0; i < count; ++i) {
            if (net_.layers[static_cast<std::size_t>(i)].type == LayerType::Yolo)
                buffers_[placement_of(i).buffer].last_read = count;
        }
        return assign_offsets(alignment);
    }

private:
    int bits_of(int tensor) const {
        return tensor == kNetworkInput ? arith::kNetworkInputBits : bits_[static_cast<std::size_t>(tensor)];
    }

    int new_buffer(std::size_t elements, int bits, int producer) {
        Buffer b;
        b.bits = bits;
        b.words = (elements * arith::fm_element_bytes(bits) + 1) / 2;  // size_t: checked after placement
        b.first_write = producer;
        buffers_.push_back(b);
        return static_cast<int>(buffers_.size()) - 1;
    }

    Placement placement_of(int tensor) const {
        return tensor == kNetworkInput ? Placement{input_, 0} : placement_[static_cast<std::size_t>(tensor)];
    }

    /// The tensor an alias layer stands for, following chains of aliases.
    int alias_source(int i) const {
        const Layer& layer = net_.layers[static_cast<std::size_t>(i)];
        const int source = layer.type == LayerType::Route ? layer.route().inputs[0] : i - 1;
        if (source == kNetworkInput || !is_alias(net_.layers[static_cast<std::size_t>(source)]))
            return source;
        return alias_source(source);
    }

    void check_route(const Layer& layer) const {
        for (int source : layer.route().inputs) {
            if (source < 0 || source >= layer.index) {
                throw Error(describe_layer(layer) + ": route input " + std::to_string(source) +
                            " is not an earlier layer; the planner only places earlier layers' outputs");
            }
            const TensorShape& shape = net_.layers[static_cast<std::size_t>(source)].output;
            if (shape.h != layer.output.h || shape.w != layer.output.w) {
                throw Error(describe_layer(layer) + ": route input layer " + std::to_string(source) + " is " +
                            std::to_string(shape.w) + "x" + std::to_string(shape.h) + ", the route is " +
                            std::to_string(layer.output.w) + "x" + std::to_string(layer.output.h));
            }
        }
    }

    /// Every multi-input route becomes one buffer; its sources are placed at their channel slices.
    void place_concatenations() {
        for (const Layer& layer : net_.layers) {
            if (layer.type != LayerType::Route) continue;
            check_route(layer);
            if (layer.route().inputs.size() < 2 || layer.route().groups != 1) continue;
            const int buffer = new_buffer(layer.output.size(), bits_of(layer.index), layer.index);
            placement_[static_cast<std::size_t>(layer.index)] = Placement{buffer, 0};
            // A tensor can sit in one concatenation only: a second route joining it (YOLOv4-tiny's
            // layer 23 feeds routes 24 and 34) copies its inputs on the host into a buffer of its own.
            if (feeds_placed_concatenation(layer)) {
                host_routes_[static_cast<std::size_t>(layer.index)] = true;
                continue;
            }
            std::size_t offset = 0;
            for (int source : layer.route().inputs) {
                int tensor = source;
                if (is_alias(net_.layers[static_cast<std::size_t>(tensor)])) tensor = alias_source(tensor);
                if (tensor == kNetworkInput) {
                    throw Error(describe_layer(layer) +
                                ": concatenating the network input is not supported by the planner");
                }
                const Layer& producer = net_.layers[static_cast<std::size_t>(tensor)];
                if (bits_of(tensor) != bits_of(layer.index)) {
                    throw Error(describe_layer(layer) + ": input layer " + std::to_string(tensor) +
                                " is stored at " + std::to_string(bits_of(tensor)) + " bits, the route at " +
                                std::to_string(bits_of(layer.index)) +
                                "; a concatenation's inputs share its width (docs/arithmetic.md)");
                }
                if (producer.type == LayerType::Route) {
                    throw Error(
                        describe_layer(layer) + ": input layer " + std::to_string(tensor) +
                        " is itself a concatenation; nested concatenations are not supported by the planner");
                }
                Placement& p = placement_[static_cast<std::size_t>(tensor)];
                if (p.buffer >= 0) {
                    throw Error(describe_layer(layer) + ": layer " + std::to_string(tensor) +
                                " already feeds another concatenation; a tensor can be placed in only one "
                                "(add a copy layer to the cfg or run on the cpu device)");
                }
                p = Placement{buffer, offset};
                offset += producer.output.size();
            }
            if (offset != layer.output.size()) {
                throw Error(describe_layer(layer) + ": the route's inputs hold " + std::to_string(offset) +
                            " values, its output shape " + std::to_string(layer.output.size()));
            }
        }
    }

    bool feeds_placed_concatenation(const Layer& route) const {
        for (int source : route.route().inputs) {
            int tensor = source;
            if (is_alias(net_.layers[static_cast<std::size_t>(tensor)])) tensor = alias_source(tensor);
            if (tensor != kNetworkInput && placement_[static_cast<std::size_t>(tensor)].buffer >= 0)
                return true;
        }
        return false;
    }

    /// Greedy by size: each buffer goes at the lowest aligned offset that no buffer alive at the
    /// same time occupies. A layer's input stays alive during the layer, so it never shares with
    /// the layer's output.
    ArenaLayout assign_offsets(std::size_t alignment) {
        std::vector<int> order(buffers_.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return buffers_[a].words > buffers_[b].words; });
        std::vector<int> placed;
        ArenaLayout layout;
        for (int id : order) {
            Buffer& b = buffers_[id];
            if (b.last_read < b.first_write) b.last_read = b.first_write;  // written, never read
            std::vector<std::pair<std::size_t, std::size_t>> taken;
            for (int other : placed) {
                const Buffer& o = buffers_[other];
                if (o.last_read < b.first_write || b.last_read < o.first_write) continue;
                taken.emplace_back(o.offset, o.offset + o.words);
            }
            std::sort(taken.begin(), taken.end());
            std::size_t candidate = 0;
            for (const auto& [begin, end] : taken) {
                if (candidate + b.words <= begin) break;
                candidate = std::max(candidate, align_up(end, alignment));
            }
            b.offset = candidate;
            placed.push_back(id);
            layout.elements = std::max(layout.elements, align_up(b.offset + b.words, alignment));
            layout.elements_without_reuse += align_up(b.words, alignment);
        }
        layout.input = range_in(input_, 0, net_.input.size());
        layout.host_routes = host_routes_;
        for (std::size_t i = 0; i < net_.layers.size(); ++i) {
            const Placement p = placement_[i];
            layout.outputs.push_back(range_in(p.buffer, p.offset, net_.layers[i].output.size()));
        }
        return layout;
    }

    /// `elements` at `offset` elements into a buffer, counted in elements of the buffer's width from
    /// the arena base (words for 16-bit, bytes for 8-bit buffers).
    ArenaRange range_in(int buffer, std::size_t offset, std::size_t elements) const {
        const Buffer& b = buffers_[static_cast<std::size_t>(buffer)];
        const std::size_t per_word = 2 / arith::fm_element_bytes(b.bits);
        return ArenaRange{b.offset * per_word + offset, elements, b.bits};
    }

    const Network& net_;
    const std::vector<int>& bits_;
    std::vector<Placement> placement_;
    std::vector<bool> host_routes_;
    std::vector<Buffer> buffers_;
    int input_ = -1;
};

}  // namespace

ArenaLayout place_tensors(const Network& network, std::size_t alignment,
                          const std::vector<int>& output_bits) {
    if (network.layers.empty()) throw Error(network.cfg_path + ": the network has no layers to plan");
    if (output_bits.size() != network.layers.size()) {
        throw Error(network.cfg_path + ": " + std::to_string(output_bits.size()) + " output widths for " +
                    std::to_string(network.layers.size()) + " layers");
    }
    if (alignment == 0) alignment = 1;
    return Placer(network, output_bits).run(alignment);
}

}  // namespace fpgacnn::plan_detail
