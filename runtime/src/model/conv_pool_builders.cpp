#include "model/layer_builders.hpp"

namespace fpgacnn::model {

Layer make_layer(LayerType type, int index, const SectionReader& reader, const TensorShape& input) {
    Layer layer;
    layer.type = type;
    layer.index = index;
    layer.cfg_line = reader.section().line;
    layer.input = input;
    return layer;
}

namespace {

void require_non_empty_output(const SectionReader& reader, const TensorShape& input,
                              const TensorShape& output, const std::string& geometry) {
    if (output.w < 1 || output.h < 1) {
        reader.fail("the output would be empty: input " + shape_text(input) + " with " + geometry,
                    "use a larger network input or a smaller size/stride");
    }
}

}  // namespace

void require_within_limits(const SectionReader& reader, const Layer& layer) {
    const TensorShape& out = layer.output;
    const std::string todo = "this is far above any real network; check the cfg's filters, sizes and routes";
    if (out.c > kMaxChannels) {
        reader.fail("the output would have " + std::to_string(out.c) + " channels, more than the limit of " +
                        std::to_string(kMaxChannels),
                    todo);
    }
    if (out.w > kMaxTensorSide || out.h > kMaxTensorSide) {
        reader.fail("the output would be " + shape_text(out) + ", a side above the limit of " +
                        std::to_string(kMaxTensorSide),
                    todo);
    }
    const auto values = static_cast<std::int64_t>(out.c) * out.h * out.w;
    if (values > kMaxTensorValues) {
        reader.fail("the output " + shape_text(out) + " would hold " + std::to_string(values) +
                        " values, more than the limit of " + std::to_string(kMaxTensorValues) +
                        " (2^31 - 1, so that every index fits in 32 bits)",
                    todo + " (or use a smaller --input)");
    }
    if (layer.type != LayerType::Convolutional) return;
    const ConvParams& conv = layer.conv();
    const std::int64_t weights =
        static_cast<std::int64_t>(conv.filters) * layer.input.c * conv.size * conv.size;
    if (weights > kMaxTensorValues) {
        reader.fail("filters * channels * size^2 = " + std::to_string(conv.filters) + " * " +
                        std::to_string(layer.input.c) + " * " + std::to_string(conv.size) +
                        "^2 = " + std::to_string(weights) + " weights, more than the limit of " +
                        std::to_string(kMaxTensorValues) + " per layer",
                    todo);
    }
}

std::string shape_text(const TensorShape& shape) {
    return std::to_string(shape.w) + "x" + std::to_string(shape.h) + "x" + std::to_string(shape.c);
}

Layer build_convolutional(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::Convolutional, index, reader, input);
    ConvParams conv;
    conv.filters = reader.integer_in_range("filters", 1, 1, kMaxFilters, "filters must be a positive count");
    conv.size = reader.integer_in_range("size", 1, 1, kMaxKernel, "size is the kernel side, e.g. size=3");
    conv.stride =
        reader.integer_in_range("stride", 1, 1, kMaxKernel, "stride must be positive, e.g. stride=1");
    // darknet: pad=1 means "same" padding (size/2) and overrides any explicit `padding`.
    const bool same_padding = reader.flag("pad", false);
    const int explicit_padding =
        reader.integer_in_range("padding", 0, 0, kMaxKernel, "padding is in pixels per side, e.g. padding=1");
    conv.pad = same_padding ? conv.size / 2 : explicit_padding;
    conv.activation = reader.activation(Activation::Logistic);  // darknet's default
    conv.batch_normalize = reader.flag("batch_normalize", false);
    reader.require_default("groups", 1, "grouped convolutions are not implemented");
    reader.require_default("dilation", 1, "dilated convolutions are not implemented");
    reader.require_default("binary", 0, "binary weights are not implemented");
    reader.require_default("xnor", 0, "XNOR networks are not implemented");
    reader.require_default("flipped", 0, "transposed weight files are not supported");
    reader.require_default("dontload", 0, "every layer's weights are read from the .weights file");
    reader.require_default("dontloadscales", 0,
                           "batch-norm parameters are always read from the .weights file");
    reader.ignore({"dot", "dontsave"});
    reader.reject_unknown_options();

    layer.output.c = conv.filters;
    layer.output.h = (input.h + 2 * conv.pad - conv.size) / conv.stride + 1;
    layer.output.w = (input.w + 2 * conv.pad - conv.size) / conv.stride + 1;
    if (input.w + 2 * conv.pad < conv.size || input.h + 2 * conv.pad < conv.size) layer.output.w = 0;
    require_non_empty_output(reader, input, layer.output,
                             "size " + std::to_string(conv.size) + ", stride " + std::to_string(conv.stride) +
                                 ", padding " + std::to_string(conv.pad));
    layer.params = std::move(conv);
    return layer;
}

Layer build_maxpool(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::MaxPool, index, reader, input);
    MaxPoolParams pool;
    // darknet's defaults chain: stride 1, size = stride, padding = size - 1.
    pool.stride =
        reader.integer_in_range("stride", 1, 1, kMaxKernel, "stride must be positive, e.g. stride=2");
    pool.size =
        reader.integer_in_range("size", pool.stride, 1, kMaxKernel, "size is the window side, e.g. size=2");
    pool.padding = reader.integer_in_range("padding", pool.size - 1, 0, kMaxKernel,
                                           "padding is the total of both sides, e.g. padding=1");
    reader.reject_unknown_options();

    layer.output.c = input.c;
    layer.output.h = (input.h + pool.padding - pool.size) / pool.stride + 1;
    layer.output.w = (input.w + pool.padding - pool.size) / pool.stride + 1;
    if (input.w + pool.padding < pool.size || input.h + pool.padding < pool.size) layer.output.w = 0;
    require_non_empty_output(reader, input, layer.output,
                             "size " + std::to_string(pool.size) + ", stride " + std::to_string(pool.stride) +
                                 ", padding " + std::to_string(pool.padding));
    layer.params = pool;
    return layer;
}

}  // namespace fpgacnn::model
