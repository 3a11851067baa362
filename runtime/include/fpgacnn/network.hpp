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
    int c = 0;  ///< channels (feature maps)
    int h = 0;  ///< height, pixels
    int w = 0;  ///< width, pixels
    /// Elements: c * h * w (not bytes).
    std::size_t size() const { return static_cast<std::size_t>(c) * h * w; }
    /// Same c, h and w.
    bool operator==(const TensorShape& o) const { return c == o.c && h == o.h && w == o.w; }
    /// Any of c, h, w differs.
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
    Activation activation = Activation::Linear;  ///< applied after the bias (cfg `activation=`)
    /// The cfg's batch_normalize=1: the .weights file stores scales, mean and variance per filter
    /// (stays true after fold_batchnorm(); bn_folded() tells whether the arrays were merged).
    bool batch_normalize = false;
    /// The layer is darknet's [connected]: output = weights x the whole input flattened. Its Layer::input
    /// is that flattening (c*h*w x 1 x 1, the same CHW values) and it is a 1x1 convolution over it
    /// (size 1, stride 1, no padding; weights [outputs][inputs], darknet's order). Set by the cfg
    /// parser; the .weights file stores a connected layer's arrays in its own order (biases, weights,
    /// then batch-norm).
    bool connected = false;
    /// Weights in darknet order: [filters][channels][size][size]. After fold_batchnorm()
    /// the batch-norm is merged into weights/biases and bn_* are empty.
    std::vector<float> weights;
    std::vector<float> biases;       ///< one per filter (darknet's beta when batch_normalize is set)
    std::vector<float> bn_scales;    ///< batch-norm gamma, one per filter; empty without BN or once folded
    std::vector<float> bn_mean;      ///< batch-norm rolling mean, one per filter; empty likewise
    std::vector<float> bn_variance;  ///< batch-norm rolling variance, one per filter; empty likewise
    /// True when the layer has batch-norm and fold_batchnorm() has merged it into weights and biases.
    bool bn_folded() const { return batch_normalize && bn_scales.empty(); }
};

/// [maxpool]: darknet pads only right/bottom by (padding - padding/2) and left/top by padding/2;
/// out = (in + padding - size) / stride + 1 with padding = size - 1 by default.
struct FPGACNN_API MaxPoolParams {
    int size = 2;     ///< window side, pixels
    int stride = 2;   ///< step between windows, pixels
    int padding = 1;  ///< total padding per axis, pixels (split as above; cfg default size - 1)
};

/// [route]: concatenation along channels of earlier layers' outputs (absolute indexes).
/// With groups > 1 (AlexeyAB's darknet, YOLOv4-tiny) each input contributes only its channel slice
/// [group_id * c / groups, (group_id + 1) * c / groups).
struct FPGACNN_API RouteParams {
    std::vector<int>
        inputs;        ///< absolute layer indexes, concatenated in this order (cfg's relative ones resolved)
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

/// [reorg]: darknet's space-to-depth, quirky (see docs/darknet-semantics.md).
struct FPGACNN_API ReorgParams {
    int stride = 2;  ///< block side: c x h x w becomes (c * stride^2) x (h / stride) x (w / stride)
};

/// [region]: YOLOv2 output layer. Layout per anchor n: [x, y, w, h, objectness, classes...],
/// each a w*h plane.
struct FPGACNN_API RegionParams {
    int classes = 0;  ///< class scores per anchor
    int coords = 4;   ///< box coordinates per anchor (fpgacnn accepts 4 only)
    int num = 0;      ///< anchors per grid cell
    /// Class scores through a softmax per cell and anchor (cfg softmax=1); otherwise each through
    /// the logistic.
    bool softmax = true;
    std::vector<float> anchors;  ///< 2 * num values, in grid cells
};

/// A section fpgacnn parses for planning only (load_darknet_cfg_for_planning: [local]): its output
/// shape is darknet's, nothing runs it.
struct FPGACNN_API UnsupportedParams {
    std::string section;  ///< "local", ...
};

/// [avgpool]: darknet's global average, out[c] = (sum of channel c's h*w values) / (h*w); output c x 1 x 1.
struct FPGACNN_API AvgPoolParams {};

/// [softmax]: darknet's softmax_cpu over `groups` equal slices of the flattened input, each
/// exp(x/temperature - max/temperature) / sum; the output has the input's shape.
struct FPGACNN_API SoftmaxParams {
    int groups = 1;            ///< slices, each softmaxed alone (cfg `groups`)
    float temperature = 1.0f;  ///< cfg `temperature`
};

/// [dropout]: identity at inference (darknet's forward_dropout_layer returns unless training).
struct FPGACNN_API DropoutParams {
    float probability = 0.5f;  ///< the training-time drop probability (unused at inference)
};

/// [cost]: identity at inference; darknet's network output is the last layer before it
/// (get_network_output skips cost layers).
struct FPGACNN_API CostParams {};

/// [crop] at inference (darknet's forward_crop_layer with net.train = 0): the centred output window,
/// each value x * 2 - 1 (x unchanged with noadjust=1).
struct FPGACNN_API CropParams {
    bool noadjust = false;  ///< cfg `noadjust`: keep the values (else map [0, 1] to [-1, 1])
};

/// The kind of a layer, one per cfg section fpgacnn knows ([convolutional], [maxpool], ...); Layer::params
/// holds the matching *Params. Unsupported: a section parsed for planning only (UnsupportedParams).
/// darknet's [connected] is a Convolutional layer with ConvParams::connected set.
enum class LayerType {
    Convolutional,
    MaxPool,
    Route,
    Reorg,
    Region,
    Upsample,
    Shortcut,
    Yolo,
    Unsupported,
    AvgPool,  ///< [avgpool], AvgPoolParams
    Softmax,  ///< [softmax], SoftmaxParams
    Dropout,  ///< [dropout], DropoutParams
    Cost,     ///< [cost], CostParams
    Crop,     ///< [crop], CropParams
};

/// One layer of a Network: its kind, shapes and parameters (weights included for conv layers).
/// The accessors conv(), maxpool(), ... return the parameters of that kind and throw
/// std::bad_variant_access when the layer is of another kind (check `type` first).
struct FPGACNN_API Layer {
    LayerType type = LayerType::Convolutional;  ///< which alternative `params` holds
    int index = 0;                              ///< position in the network, as darknet counts it
    int cfg_line = 0;                           ///< line of the section header in the cfg, for error messages
    TensorShape input;   ///< shape of the tensor the layer reads (a route: the concatenation, = output)
    TensorShape output;  ///< shape of the tensor it writes
    /// The section's parameters, the alternative matching `type`.
    std::variant<ConvParams, MaxPoolParams, RouteParams, ReorgParams, RegionParams, UpsampleParams,
                 ShortcutParams, YoloParams, UnsupportedParams, AvgPoolParams, SoftmaxParams, DropoutParams,
                 CostParams, CropParams>
        params;

    /// The [convolutional] parameters (the layer must be one).
    const ConvParams& conv() const { return std::get<ConvParams>(params); }
    /// The [convolutional] parameters, writable (fold_batchnorm(), the weight loaders).
    ConvParams& conv() { return std::get<ConvParams>(params); }
    /// The [maxpool] parameters (the layer must be one).
    const MaxPoolParams& maxpool() const { return std::get<MaxPoolParams>(params); }
    /// The [route] parameters (the layer must be one).
    const RouteParams& route() const { return std::get<RouteParams>(params); }
    /// The [reorg] parameters (the layer must be one).
    const ReorgParams& reorg() const { return std::get<ReorgParams>(params); }
    /// The [region] parameters (the layer must be one).
    const RegionParams& region() const { return std::get<RegionParams>(params); }
    /// The [upsample] parameters (the layer must be one).
    const UpsampleParams& upsample() const { return std::get<UpsampleParams>(params); }
    /// The [shortcut] parameters (the layer must be one).
    const ShortcutParams& shortcut() const { return std::get<ShortcutParams>(params); }
    /// The [yolo] parameters (the layer must be one).
    const YoloParams& yolo() const { return std::get<YoloParams>(params); }
    /// True when the layer reads a tensor of shape `produced` as it is: the same shape, or for a
    /// [connected] layer (ConvParams::connected) the same values flattened.
    bool reads(const TensorShape& produced) const {
        if (produced == input) return true;
        const auto* conv = std::get_if<ConvParams>(&params);
        return conv != nullptr && conv->connected &&
               input == TensorShape{static_cast<int>(produced.size()), 1, 1};
    }
    /// The [softmax] parameters (the layer must be one).
    const SoftmaxParams& softmax() const { return std::get<SoftmaxParams>(params); }
    /// The [crop] parameters (the layer must be one).
    const CropParams& crop() const { return std::get<CropParams>(params); }
};

/// A parsed darknet network (load_darknet_cfg / load_darknet in fpgacnn/darknet.hpp): the input shape,
/// the layers in cfg order with their shapes, and the float weights once loaded. A plain value: copies
/// are deep (weights included); it does no locking, and the engines and backends built from it read it
/// only, so one Network may be shared by threads that do not modify it.
struct FPGACNN_API Network {
    std::string cfg_path;         ///< the .cfg file it was parsed from, as given (for messages)
    std::string weights_path;     ///< empty until weights are loaded
    TensorShape input;            ///< c x h x w of the network input (after any --input override)
    std::vector<Layer> layers;    ///< in cfg order; layers[i].index == i
    bool weights_loaded = false;  ///< every conv layer's weights and biases are filled (load_darknet_weights)

    /// Multiply-accumulates of one forward pass (conv layers only).
    std::size_t conv_macs() const;
    /// Index of the last [region] layer; throws if the network has none.
    int region_layer_index() const;
    /// The layers whose activated outputs are the detector's output: the last [region] layer, or
    /// every [yolo] layer in order (YOLOv3 has 3 heads), or for a classifier (neither) its last
    /// [softmax] layer. Throws if the network has none of them.
    std::vector<int> output_layer_indices() const;
    /// Floats of the detector's output: the output layers' sizes summed (Backend::run returns their
    /// activated outputs one after the other, in layer order).
    std::size_t detection_output_size() const;
    /// `classes` of the output layers (a classifier: the values of its [softmax] output).
    int output_classes() const;
    /// True when the network is a classifier: no [region] or [yolo] layer, a [softmax] one instead
    /// (darknet's classifier cfgs: darknet19, resnet50, alexnet, ...).
    bool is_classifier() const;
};

/// The cfg section name of a layer type ("convolutional", "maxpool", "route", ...).
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
/// The memory `network`'s paths need, from its shapes alone (weights need not be loaded; nothing is
/// allocated).
FPGACNN_API NetworkMemory estimate_network_memory(const Network& network);

/// How much host memory the runtime lets one allocation plan use: FPGACNN_MEMORY_LIMIT when set
/// (bytes, with an optional K, M, G or T suffix, powers of 1024; "off" disables the check), else
/// MemAvailable from /proc/meminfo or what is left of the address-space limit (ulimit -v), the smaller.
struct FPGACNN_API HostMemoryBudget {
    std::uint64_t bytes = 0;  ///< the budget, bytes (meaningful when `limited`)
    bool limited = false;  ///< false: FPGACNN_MEMORY_LIMIT=off, or no limit could be read: nothing is refused
    std::string source;    ///< "MemAvailable in /proc/meminfo", "FPGACNN_MEMORY_LIMIT=2G", ...
};
/// The budget as described above, read now (the environment and /proc change while a process runs).
FPGACNN_API HostMemoryBudget host_memory_budget();

/// Throws Error when `needed` bytes are more than the budget: "<what> needs <needed> (<breakdown>) but
/// <available> are available (<source>); <todo>, or set FPGACNN_MEMORY_LIMIT".
FPGACNN_API void require_host_memory(std::uint64_t needed, const std::string& what,
                                     const std::string& breakdown, const std::string& todo);

/// "1.5 GiB", "12.0 MiB", "512 bytes".
FPGACNN_API std::string bytes_text(std::uint64_t bytes);

}  // namespace fpgacnn
