// The sections of darknet's classifier cfgs (alexnet, vgg-16, darknet19, resnet50, ...): [connected],
// [avgpool], [softmax], [dropout], [cost] and [crop], with the options and output shapes of darknet's
// parse_* / make_*_layer functions (docs/darknet-semantics.md, "Classifier layers").
#include <string>

#include "model/layer_builders.hpp"

namespace fpgacnn::model {

Layer build_connected(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::Convolutional, index, reader, input);
    ConvParams conv;
    conv.connected = true;
    conv.filters =
        reader.integer_in_range("output", 1, 1, kMaxFilters, "output is a count, e.g. output=1000");
    conv.activation = reader.activation(Activation::Logistic);  // darknet's parse_connected default
    conv.batch_normalize = reader.flag("batch_normalize", false);
    reader.reject_unknown_options();
    // darknet's connected layer reads its input flattened (l.c = inputs, l.h = l.w = 1): the same CHW
    // bytes seen as inputs x 1 x 1, and output = weights x input + bias is then a 1x1 convolution with
    // darknet's weight order [outputs][inputs].
    layer.input = TensorShape{static_cast<int>(input.size()), 1, 1};
    conv.size = 1;
    conv.stride = 1;
    conv.pad = 0;
    layer.output = TensorShape{conv.filters, 1, 1};
    layer.params = std::move(conv);
    return layer;
}

Layer build_avgpool(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::AvgPool, index, reader, input);
    reader.reject_unknown_options();  // darknet's [avgpool] has none: always the global mean
    layer.output = TensorShape{input.c, 1, 1};
    layer.params = AvgPoolParams{};
    return layer;
}

Layer build_softmax(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::Softmax, index, reader, input);
    SoftmaxParams softmax;
    softmax.groups =
        reader.integer_in_range("groups", 1, 1, kMaxFilters, "groups is a count of equal slices, e.g. 1");
    softmax.temperature = reader.real_in_range("temperature", 1.0f, 1e-6f, 1e6f, "temperature is positive");
    if (const CfgOption* tree = reader.find("tree")) {
        reader.fail(tree, "softmax trees (tree=" + tree->value + ", darknet9000) are not implemented",
                    "remove the tree option to get a flat softmax, or use a classifier without a tree");
    }
    reader.require_default("spatial", 0, "spatial softmax is not implemented");
    reader.ignore({"noloss"});
    reader.reject_unknown_options();
    if (input.size() % static_cast<std::size_t>(softmax.groups) != 0) {
        reader.fail("groups=" + std::to_string(softmax.groups) + " does not divide its " +
                        std::to_string(input.size()) + " input values",
                    "use a groups value that divides the input");
    }
    layer.output = input;
    layer.params = softmax;
    return layer;
}

Layer build_dropout(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::Dropout, index, reader, input);
    DropoutParams dropout;
    dropout.probability = reader.real_in_range("probability", 0.5f, 0.0f, 1.0f, "a probability in [0, 1]");
    reader.reject_unknown_options();
    layer.output = input;
    layer.params = dropout;
    return layer;
}

Layer build_cost(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::Cost, index, reader, input);
    reader.ignore({"type", "scale", "ratio", "noobject_scale", "thresh"});  // training only
    reader.reject_unknown_options();
    layer.output = input;
    layer.params = CostParams{};
    return layer;
}

Layer build_crop(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::Crop, index, reader, input);
    CropParams crop;
    // darknet's defaults are 1 x 1; every cfg gives both.
    layer.output = input;
    layer.output.h = reader.integer_in_range("crop_height", 1, 1, kMaxImageSide, "crop_height in pixels");
    layer.output.w = reader.integer_in_range("crop_width", 1, 1, kMaxImageSide, "crop_width in pixels");
    crop.noadjust = reader.flag("noadjust", false);
    reader.ignore({"flip", "angle", "saturation", "exposure", "shift"});  // training-time augmentation
    reader.reject_unknown_options();
    if (layer.output.h > input.h || layer.output.w > input.w) {
        reader.fail("the crop " + shape_text(layer.output) + " is larger than its input " + shape_text(input),
                    "use a network input at least as large as crop_width x crop_height (--input WxH)");
    }
    layer.params = crop;
    return layer;
}

}  // namespace fpgacnn::model
