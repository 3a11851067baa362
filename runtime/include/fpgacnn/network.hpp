// The network IR: what a darknet .cfg + .weights becomes once parsed.
// Every backend (float reference, int16 CPU, FPGA kernel) consumes this one description.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// Channels x height x width, darknet's (and the kernel's) memory order: CHW, width fastest.
struct FPGACNN_API TensorShape {
    int c = 0;
    int h = 0;
    int w = 0;
    std::size_t size() const { return static_cast<std::size_t>(c) * h * w; }
    bool operator==(const TensorShape& o) const { return c == o.c && h == o.h && w == o.w; }
    bool operator!=(const TensorShape& o) const { return !(*this == o); }
};

/// darknet's activations (activations.h): Linear x; Leaky x > 0 ? x : .1*x (in double); Relu x*(x > 0);
/// Logistic 1/(1 + exp(-x)) (in double); Mish (AlexeyAB's darknet) x*tanh(softplus(x)), float path only.
enum class Activation { Linear, Leaky, Relu, Logistic, Mish };

/// The cfg spelling ("linear", "leaky", "relu", "logistic", "mish").
FPGACNN_API const char* activation_name(Activation activation);

/// [convolutional]: M = filters output maps, N = input channels, K x K kernel.
struct FPGACNN_API ConvParams {
    int filters = 0;  ///< M
    int size = 1;     ///< K
    int stride = 1;   ///< S
    int pad = 0;      ///< pixels of zero padding on each side (darknet: pad=1 means size/2)
    Activation activation = Activation::Linear;
    bool batch_normalize = false;
    /// Weights in darknet order: [filters][channels][size][size]. After fold_batchnorm()
    /// the batch-norm is merged into weights/biases and bn_* are empty.
    std::vector<float> weights;
    std::vector<float> biases;
    std::vector<float> bn_scales;
    std::vector<float> bn_mean;
    std::vector<float> bn_variance;
    bool bn_folded() const { return batch_normalize && bn_scales.empty(); }
};

/// [maxpool]: darknet pads only right/bottom by (padding - padding/2) and left/top by padding/2;
/// out = (in + padding - size) / stride + 1 with padding = size - 1 by default.
struct FPGACNN_API MaxPoolParams {
    int size = 2;
    int stride = 2;
    int padding = 1;
};

/// [route]: concatenation along channels of earlier layers' outputs (absolute indexes).
/// With groups > 1 (AlexeyAB's darknet, YOLOv4-tiny) each input contributes only its channel slice
/// [group_id * c / groups, (group_id + 1) * c / groups).
struct FPGACNN_API RouteParams {
    std::vector<int> inputs;
    int groups = 1;    ///< channel slices each input is cut into (1: the whole input)
    int group_id = 0;  ///< the slice taken, 0 .. groups - 1
};

/// [upsample]: nearest neighbour, out(x, y) = in(x / stride, y / stride); out = in * stride per side.
struct FPGACNN_API UpsampleParams {
    int stride = 2;  ///< output pixels per input pixel along each side
};

/// [shortcut]: out = previous layer's output + layer `from`'s output (absolute index), then
/// `activation`; inputs of other sizes or channel counts are added as darknet's shortcut_cpu does
/// (docs/darknet-semantics.md).
struct FPGACNN_API ShortcutParams {
    int from = 0;                                ///< absolute index of the added layer
    Activation activation = Activation::Linear;  ///< applied after the sum
};

/// [yolo]: YOLOv3 output head. Layout per mask entry n: [x, y, w, h, objectness, classes...], each a
/// w*h plane; anchors are in network-input pixels (all `num` of them; `mask` picks this head's).
struct FPGACNN_API YoloParams {
    int classes = 0;             ///< class scores per box
    int total = 0;               ///< `num`: anchors in the list
    std::vector<int> mask;       ///< the anchors this head predicts (its n = mask.size())
    std::vector<float> anchors;  ///< 2 * total values, pixels
    float scale_x_y = 1.0f;      ///< AlexeyAB's x, y scaling (YOLOv4): x*s - (s - 1)/2 after the logistic
};

/// [reorg]: darknet's (quirky) space-to-depth; see docs/darknet-semantics.md.
struct FPGACNN_API ReorgParams {
    int stride = 2;
};

/// [region]: YOLOv2 output layer. Layout per anchor n: [x, y, w, h, objectness, classes...],
/// each a w*h plane.
struct FPGACNN_API RegionParams {
    int classes = 0;
    int coords = 4;
    int num = 0;
    bool softmax = true;
    std::vector<float> anchors;  ///< 2 * num values, in grid cells
};

/// A section fpgacnn parses for planning only (load_darknet_cfg_for_planning: [connected], [softmax],
/// [avgpool], [dropout], [cost], [crop]): its output shape is darknet's, nothing runs it.
struct FPGACNN_API UnsupportedParams {
    std::string section;  ///< "connected", "softmax", ...
};

enum class LayerType { Convolutional, MaxPool, Route, Reorg, Region, Upsample, Shortcut, Yolo, Unsupported };

struct FPGACNN_API Layer {
    LayerType type = LayerType::Convolutional;
    int index = 0;     ///< position in the network, as darknet counts it
    int cfg_line = 0;  ///< line of the section header in the cfg, for error messages
    TensorShape input;
    TensorShape output;
    std::variant<ConvParams, MaxPoolParams, RouteParams, ReorgParams, RegionParams, UpsampleParams,
                 ShortcutParams, YoloParams, UnsupportedParams>
        params;

    const ConvParams& conv() const { return std::get<ConvParams>(params); }
    ConvParams& conv() { return std::get<ConvParams>(params); }
    const MaxPoolParams& maxpool() const { return std::get<MaxPoolParams>(params); }
    const RouteParams& route() const { return std::get<RouteParams>(params); }
    const ReorgParams& reorg() const { return std::get<ReorgParams>(params); }
    const RegionParams& region() const { return std::get<RegionParams>(params); }
    /// The [upsample] parameters (the layer must be one).
    const UpsampleParams& upsample() const { return std::get<UpsampleParams>(params); }
    /// The [shortcut] parameters (the layer must be one).
    const ShortcutParams& shortcut() const { return std::get<ShortcutParams>(params); }
    /// The [yolo] parameters (the layer must be one).
    const YoloParams& yolo() const { return std::get<YoloParams>(params); }
};

struct FPGACNN_API Network {
    std::string cfg_path;
    std::string weights_path;  ///< empty until weights are loaded
    TensorShape input;         ///< c x h x w of the network input (after any --input override)
    std::vector<Layer> layers;
    bool weights_loaded = false;

    /// Multiply-accumulates of one forward pass (conv layers only).
    std::size_t conv_macs() const;
    /// Index of the last [region] layer; throws if the network has none.
    int region_layer_index() const;
    /// The layers whose activated outputs are the detector's output: the last [region] layer, or
    /// every [yolo] layer in order (YOLOv3 has 3 heads). Throws if the network has neither.
    std::vector<int> output_layer_indices() const;
    /// Floats of the detector's output: the output layers' sizes summed (Backend::run returns their
    /// activated outputs one after the other, in layer order).
    std::size_t detection_output_size() const;
    /// `classes` of the output layers.
    int output_classes() const;
};

FPGACNN_API const char* layer_type_name(LayerType type);

/// Host memory the paths of `network` need at least, in bytes, known from the cfg alone: computed
/// before anything is allocated so that an absurd cfg is refused with numbers instead of ending in
/// std::bad_alloc (docs/reliability.md, "Memory budget"). Each path checks its own part when it
/// allocates it: the cfg every path's minimum, the .weights reader the float weights, the float
/// engine its copy and buffers; a board running from a quantized model never needs the float part.
struct FPGACNN_API NetworkMemory {
    std::uint64_t weights = 0;               ///< float parameters of every conv layer (BN arrays included)
    std::uint64_t activations = 0;           ///< every layer's float output (the float engine keeps them all)
    std::uint64_t workspace = 0;             ///< the largest im2col buffer
    std::uint64_t quantized_parameters = 0;  ///< int16 weights and biases of every conv layer
    std::uint64_t largest_layer_io = 0;      ///< int16 input + output of the layer with the most
    /// The float path: the weights (the float engine holds its own copy), every output, the workspace.
    std::uint64_t float_path() const { return weights + activations + workspace; }
    /// What every path holds at least (the CPU int16 backend's packed weights, a device's parameter
    /// buffer, one layer's input and output): a cfg needing more cannot run anywhere.
    std::uint64_t minimum() const { return quantized_parameters + largest_layer_io; }
};
FPGACNN_API NetworkMemory estimate_network_memory(const Network& network);

/// How much host memory the runtime lets one allocation plan use: FPGACNN_MEMORY_LIMIT when set
/// (bytes, with an optional K, M, G or T suffix, powers of 1024; "off" disables the check), else
/// MemAvailable from /proc/meminfo or what is left of the address-space limit (ulimit -v), the smaller.
struct FPGACNN_API HostMemoryBudget {
    std::uint64_t bytes = 0;
    bool limited = false;
    std::string source;  ///< "MemAvailable in /proc/meminfo", "FPGACNN_MEMORY_LIMIT=2G", ...
};
FPGACNN_API HostMemoryBudget host_memory_budget();

/// Throws Error when `needed` bytes are more than the budget: "<what> needs <needed> (<breakdown>) but
/// <available> are available (<source>); <todo>, or set FPGACNN_MEMORY_LIMIT".
FPGACNN_API void require_host_memory(std::uint64_t needed, const std::string& what,
                                     const std::string& breakdown, const std::string& todo);

/// "1.5 GiB", "12.0 MiB", "512 bytes".
FPGACNN_API std::string bytes_text(std::uint64_t bytes);

}  // namespace fpgacnn
