// Network and weights fingerprints: what a quantized file must match to be used with a network.
#include <cstring>

#include "fpgacnn/quantized_file.hpp"
#include "quant/byte_io.hpp"

namespace fpgacnn {

namespace {

void shape(ByteWriter& out, const TensorShape& s) {
    out.i32(s.c);
    out.i32(s.h);
    out.i32(s.w);
}

void float_bits(ByteWriter& out, float v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    out.u32(bits);
}

void layer_params(ByteWriter& out, const Layer& layer) {
    switch (layer.type) {
        case LayerType::Convolutional: {
            const ConvParams& c = layer.conv();
            out.i32(c.filters);
            out.i32(c.size);
            out.i32(c.stride);
            out.i32(c.pad);
            out.i32(static_cast<int>(c.activation));
            out.i32(c.batch_normalize ? 1 : 0);
            // Only when set, so that the fingerprints of the existing quantized files stay valid.
            if (c.connected) out.i32(1);
            break;
        }
        case LayerType::MaxPool:
            out.i32(layer.maxpool().size);
            out.i32(layer.maxpool().stride);
            out.i32(layer.maxpool().padding);
            break;
        case LayerType::Route:
            out.i32(static_cast<int>(layer.route().inputs.size()));
            for (int input : layer.route().inputs) out.i32(input);
            // Only when set, so that the fingerprints of the YOLOv2 networks' quantized files stay valid.
            if (layer.route().groups != 1) {
                out.i32(layer.route().groups);
                out.i32(layer.route().group_id);
            }
            break;
        case LayerType::Reorg:
            out.i32(layer.reorg().stride);
            break;
        case LayerType::Region: {
            const RegionParams& r = layer.region();
            out.i32(r.classes);
            out.i32(r.coords);
            out.i32(r.num);
            out.i32(r.softmax ? 1 : 0);
            out.i32(static_cast<int>(r.anchors.size()));
            for (float a : r.anchors) float_bits(out, a);
            break;
        }
        case LayerType::Upsample:
            out.i32(layer.upsample().stride);
            break;
        case LayerType::Shortcut:
            out.i32(layer.shortcut().from);
            out.i32(static_cast<int>(layer.shortcut().activation));
            break;
        case LayerType::Yolo: {
            const YoloParams& y = layer.yolo();
            out.i32(y.classes);
            out.i32(y.total);
            out.i32(static_cast<int>(y.mask.size()));
            for (int m : y.mask) out.i32(m);
            for (float a : y.anchors) float_bits(out, a);
            float_bits(out, y.scale_x_y);
            break;
        }
        case LayerType::Softmax:
            out.i32(layer.softmax().groups);
            float_bits(out, layer.softmax().temperature);
            break;
        case LayerType::Crop:
            out.i32(layer.crop().noadjust ? 1 : 0);
            break;
        case LayerType::AvgPool:  // no parameters besides the shapes
        case LayerType::Dropout:
        case LayerType::Cost:
            break;
        case LayerType::Unsupported: {
            const std::string& section = std::get<UnsupportedParams>(layer.params).section;
            out.i32(static_cast<int>(section.size()));
            out.raw(section.data(), section.size());
            break;
        }
    }
}

}  // namespace

std::uint64_t network_fingerprint(const Network& network) {
    ByteWriter out;
    const char tag[] = "fpgacnn-network-v1";
    out.raw(tag, sizeof tag - 1);
    shape(out, network.input);
    out.i32(static_cast<int>(network.layers.size()));
    for (const Layer& layer : network.layers) {
        out.i32(static_cast<int>(layer.type));
        shape(out, layer.input);
        shape(out, layer.output);
        layer_params(out, layer);
    }
    return fnv1a(out.bytes().data(), out.size());
}

std::uint64_t weights_fingerprint(const Network& network) {
    std::uint64_t hash = kFnvOffsetBasis;
    auto add = [&hash](const std::vector<float>& values) {
        for (float v : values) {
            std::uint8_t bytes[4];
            std::uint32_t bits = 0;
            std::memcpy(&bits, &v, sizeof bits);
            for (int i = 0; i < 4; ++i) bytes[i] = static_cast<std::uint8_t>(bits >> (8 * i));
            hash = fnv1a(bytes, 4, hash);
        }
    };
    for (const Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        add(layer.conv().weights);
        add(layer.conv().biases);
    }
    return hash;
}

}  // namespace fpgacnn
