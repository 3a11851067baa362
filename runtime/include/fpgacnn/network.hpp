// The network IR: what a darknet .cfg + .weights becomes once parsed.
// Every backend (float reference, int16 CPU, FPGA kernel) consumes this one description.
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace fpgacnn {

/// Channels x height x width, darknet's (and the kernel's) memory order: CHW, width fastest.
struct TensorShape {
    int c = 0;
    int h = 0;
    int w = 0;
    std::size_t size() const { return static_cast<std::size_t>(c) * h * w; }
    bool operator==(const TensorShape& o) const { return c == o.c && h == o.h && w == o.w; }
    bool operator!=(const TensorShape& o) const { return !(*this == o); }
};

enum class Activation { Linear, Leaky };

/// [convolutional]: M = filters output maps, N = input channels, K x K kernel.
struct ConvParams {
    int filters = 0;  // M
    int size = 1;     // K
    int stride = 1;   // S
    int pad = 0;      // pixels of zero padding on each side (darknet: pad=1 means size/2)
    Activation activation = Activation::Linear;
    bool batch_normalize = false;
    // Weights in darknet order: [filters][channels][size][size]. After fold_batchnorm()
    // the batch-norm is merged into weights/biases and bn_* are empty.
    std::vector<float> weights;
    std::vector<float> biases;
    std::vector<float> bn_scales;
    std::vector<float> bn_mean;
    std::vector<float> bn_variance;
    bool bn_folded() const { return batch_normalize && bn_scales.empty(); }
};

/// [maxpool]: darknet pads only right/bottom by (padding - padding/2) and left/top by padding/2;
/// out = (in + padding - size) / stride + 1 with padding = size - 1 by default.
struct MaxPoolParams {
    int size = 2;
    int stride = 2;
    int padding = 1;
};

/// [route]: concatenation along channels of earlier layers' outputs (absolute indexes).
struct RouteParams {
    std::vector<int> inputs;
};

/// [reorg]: darknet's (quirky) space-to-depth; see docs/darknet-semantics.md.
struct ReorgParams {
    int stride = 2;
};

/// [region]: YOLOv2 output layer. Layout per anchor n: [x, y, w, h, objectness, classes...],
/// each a w*h plane.
struct RegionParams {
    int classes = 0;
    int coords = 4;
    int num = 0;
    bool softmax = true;
    std::vector<float> anchors;  // 2 * num values, in grid cells
};

enum class LayerType { Convolutional, MaxPool, Route, Reorg, Region };

struct Layer {
    LayerType type = LayerType::Convolutional;
    int index = 0;     // position in the network, as darknet counts it
    int cfg_line = 0;  // line of the section header in the cfg, for error messages
    TensorShape input;
    TensorShape output;
    std::variant<ConvParams, MaxPoolParams, RouteParams, ReorgParams, RegionParams> params;

    const ConvParams& conv() const { return std::get<ConvParams>(params); }
    ConvParams& conv() { return std::get<ConvParams>(params); }
    const MaxPoolParams& maxpool() const { return std::get<MaxPoolParams>(params); }
    const RouteParams& route() const { return std::get<RouteParams>(params); }
    const ReorgParams& reorg() const { return std::get<ReorgParams>(params); }
    const RegionParams& region() const { return std::get<RegionParams>(params); }
};

struct Network {
    std::string cfg_path;
    std::string weights_path;  // empty until weights are loaded
    TensorShape input;         // c x h x w of the network input (after any --input override)
    std::vector<Layer> layers;
    bool weights_loaded = false;

    /// Multiply-accumulates of one forward pass (conv layers only).
    std::size_t conv_macs() const;
    /// Index of the last [region] layer; throws if the network has none.
    int region_layer_index() const;
};

const char* layer_type_name(LayerType type);

}  // namespace fpgacnn
