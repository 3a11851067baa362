#include "model/layer_builders.hpp"

namespace fpgacnn::model {

namespace {

// darknet: negative entries count back from the route itself, others are absolute indexes.
int resolve_route_input(SectionReader& reader, int route_index, int written) {
    const int resolved = written < 0 ? route_index + written : written;
    const CfgOption* option = reader.find("layers");
    const std::string quoted = "route input " + std::to_string(written);
    if (resolved < 0) {
        reader.fail(
            option,
            quoted + " points before the first layer (there is no layer " + std::to_string(resolved) + ")",
            "use -1.." + std::to_string(-route_index) + " (relative) or 0.." +
                std::to_string(route_index - 1) + " (absolute)");
    }
    if (resolved >= route_index) {
        reader.fail(option,
                    quoted + " refers to layer " + std::to_string(resolved) + ", which is " +
                        (resolved == route_index ? "the route itself" : "a later layer") +
                        "; a route can only concatenate earlier layers",
                    "use an index below " + std::to_string(route_index) + " or a negative offset");
    }
    return resolved;
}

}  // namespace

Layer build_route(SectionReader& reader, int index, const std::vector<Layer>& earlier) {
    Layer layer;
    layer.type = LayerType::Route;
    layer.index = index;
    layer.cfg_line = reader.section().line;
    RouteParams route;
    const std::vector<int> written = reader.integer_list("layers");
    // AlexeyAB's darknet (YOLOv4-tiny): each input contributes its group_id-th of `groups` channel slices.
    route.groups =
        reader.integer_in_range("groups", 1, 1, kMaxChannels, "groups is the number of channel slices");
    route.group_id =
        reader.integer_in_range("group_id", 0, 0, route.groups - 1,
                                "group_id picks one slice: 0.." + std::to_string(route.groups - 1));
    reader.reject_unknown_options();
    if (written.empty()) reader.fail("option 'layers' is missing", "add e.g. layers=-1,-4");

    for (const int entry : written) route.inputs.push_back(resolve_route_input(reader, index, entry));
    const TensorShape& first = earlier[static_cast<std::size_t>(route.inputs.front())].output;
    layer.output = TensorShape{0, first.h, first.w};
    std::int64_t channels = 0;  // summed in 64 bits: each input may have up to kMaxChannels
    for (const int input : route.inputs) {
        const TensorShape& shape = earlier[static_cast<std::size_t>(input)].output;
        if (shape.w != first.w || shape.h != first.h) {
            reader.fail(reader.find("layers"),
                        "route inputs differ in size: layer " + std::to_string(route.inputs.front()) +
                            " gives " + shape_text(first) + " but layer " + std::to_string(input) +
                            " gives " + shape_text(shape),
                        "all inputs of a route must share width and height (insert a [reorg] or [maxpool])");
        }
        if (shape.c % route.groups != 0) {
            reader.fail(reader.find("groups"),
                        "layer " + std::to_string(input) + " gives " + shape_text(shape) +
                            ", whose channels do not split into groups=" + std::to_string(route.groups),
                        "use a groups value that divides every input's channel count");
        }
        channels += shape.c / route.groups;
        if (channels > kMaxChannels) {
            reader.fail(reader.find("layers"),
                        "the route would concatenate more than " + std::to_string(kMaxChannels) +
                            " channels (the limit; " + std::to_string(channels) + " after layer " +
                            std::to_string(input) + ")",
                        "this is far above any real network; check the route's 'layers'");
        }
    }
    layer.output.c = static_cast<int>(channels);
    // A route reads several producers, so its "input" is the concatenation it outputs.
    layer.input = layer.output;
    layer.params = std::move(route);
    return layer;
}

Layer build_reorg(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer;
    layer.type = LayerType::Reorg;
    layer.index = index;
    layer.cfg_line = reader.section().line;
    layer.input = input;
    ReorgParams reorg;
    reorg.stride =
        reader.integer_in_range("stride", 1, 1, kMaxKernel, "stride must be positive, e.g. stride=2");
    reader.require_default("reverse", 0, "only the forward (space-to-depth) reorg is implemented");
    reader.require_default("flatten", 0, "flattening reorg is not implemented");
    reader.require_default("extra", 0, "reorg with extra outputs is not implemented");
    reader.reject_unknown_options();

    if (input.w % reorg.stride != 0 || input.h % reorg.stride != 0) {
        reader.fail("reorg on odd sizes: input " + shape_text(input) + " is not divisible by stride " +
                        std::to_string(reorg.stride),
                    "use a network input that is a multiple of 32 (e.g. --input 416x416)");
    }
    layer.output =
        TensorShape{input.c * reorg.stride * reorg.stride, input.h / reorg.stride, input.w / reorg.stride};
    layer.params = reorg;
    return layer;
}

}  // namespace fpgacnn::model
