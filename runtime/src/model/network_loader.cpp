// load_darknet_cfg / load_darknet_model: [net] options, then one builder per section in order.
#include <spdlog/spdlog.h>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "model/cfg_parser.hpp"
#include "model/layer_builders.hpp"

namespace fpgacnn {

namespace {

using model::CfgFile;
using model::CfgSection;
using model::SectionReader;

bool is_one_of(const std::string& name, std::initializer_list<const char*> spellings) {
    for (const char* spelling : spellings) {
        if (name == spelling) return true;
    }
    return false;
}

// Options of [net] that only drive training, data augmentation or other darknet forks.
void ignore_training_options(SectionReader& reader) {
    reader.ignore({"batch",
                   "subdivisions",
                   "learning_rate",
                   "momentum",
                   "decay",
                   "time_steps",
                   "notruth",
                   "random",
                   "adam",
                   "B1",
                   "B2",
                   "eps",
                   "inputs",
                   "max_crop",
                   "min_crop",
                   "max_ratio",
                   "min_ratio",
                   "center",
                   "clip",
                   "angle",
                   "aspect",
                   "saturation",
                   "exposure",
                   "hue",
                   "policy",
                   "burn_in",
                   "power",
                   "step",
                   "scale",
                   "steps",
                   "scales",
                   "gamma",
                   "max_batches",
                   "flip",
                   "mosaic",
                   "mixup",
                   "cutmix",
                   "blur",
                   "gaussian_noise",
                   "letter_box",
                   "track",
                   "augment_speed",
                   "sequential_subdivisions",
                   "try_fix_nan",
                   "loss_scale",
                   "dynamic_minibatch",
                   "optimized_memory",
                   "workspace_size_limit_MB",
                   "label_smooth_eps",
                   "resize",
                   "mosaic_bound",
                   "adversarial_lr",
                   "attention",
                   "show_receptive_field",
                   "cudnn_half",
                   "contrastive",
                   "unsupervised"});
}

TensorShape read_net_section(const CfgFile& cfg, const std::optional<InputSizeOverride>& input_override) {
    if (cfg.sections.empty()) {
        throw Error(cfg.path + ": the cfg has no sections (empty file?); a darknet cfg starts with [net]");
    }
    const CfgSection& first = cfg.sections.front();
    SectionReader reader(cfg, first, -1);
    if (!is_one_of(first.name, {"net", "network"})) {
        reader.fail("the first section must be [net] (or [network])",
                    "add a [net] section with width, height "
                    "and channels at the top of the file");
    }
    const std::string side_hint = "give the network input size in pixels, e.g. width=416 height=416";
    TensorShape input;
    input.w = reader.integer_in_range("width", 0, 0, model::kMaxImageSide, side_hint);
    input.h = reader.integer_in_range("height", 0, 0, model::kMaxImageSide, side_hint);
    input.c = reader.integer_in_range("channels", 3, 1, model::kMaxFilters, "channels is 3 for RGB images");
    ignore_training_options(reader);
    reader.reject_unknown_options();
    if (input_override) {
        input.w = input_override->width;
        input.h = input_override->height;
    }
    if (input.w < 1 || input.h < 1) {
        reader.fail("the network input size is missing (width and height must be positive)",
                    side_hint + ", or pass --input WxH");
    }
    const auto values = static_cast<std::int64_t>(input.c) * input.h * input.w;
    if (values > model::kMaxTensorValues) {
        reader.fail("the network input " + model::shape_text(input) + " holds " + std::to_string(values) +
                        " values, more than the limit of " + std::to_string(model::kMaxTensorValues),
                    "use a smaller input size (--input WxH) or fewer channels");
    }
    return input;
}

Layer build_known_layer(SectionReader& reader, int index, const std::vector<Layer>& earlier,
                        const TensorShape& input, bool planning) {
    const std::string& name = reader.section().name;
    if (is_one_of(name, {"convolutional", "conv"})) return model::build_convolutional(reader, index, input);
    if (is_one_of(name, {"maxpool", "max"})) return model::build_maxpool(reader, index, input);
    if (name == "route") return model::build_route(reader, index, earlier);
    if (name == "reorg") return model::build_reorg(reader, index, input);
    if (name == "region") return model::build_region(reader, index, input);
    if (name == "upsample") return model::build_upsample(reader, index, input);
    if (name == "shortcut") return model::build_shortcut(reader, index, earlier, input);
    if (name == "yolo") return model::build_yolo(reader, index, input);
    if (is_one_of(name, {"connected", "conn"})) return model::build_connected(reader, index, input);
    if (is_one_of(name, {"avgpool", "avg"})) return model::build_avgpool(reader, index, input);
    if (is_one_of(name, {"softmax", "soft"})) return model::build_softmax(reader, index, input);
    if (name == "dropout") return model::build_dropout(reader, index, input);
    if (name == "cost") return model::build_cost(reader, index, input);
    if (name == "crop") return model::build_crop(reader, index, input);
    if (planning && model::is_planning_only_section(name))
        return model::build_unsupported(reader, index, input);
    if (is_one_of(name, {"net", "network"})) {
        reader.fail("a second [" + name + "] section", "keep a single [net] section at the top of the file");
    }
    reader.fail(
        "unsupported section [" + name + "]",
        "fpgacnn runs YOLOv2 / YOLOv3 / YOLOv4-tiny detectors and darknet's classifiers: [convolutional], "
        "[maxpool], [route], [reorg], [region], [upsample], [shortcut], [yolo], [connected], [avgpool], "
        "[softmax], [dropout], [cost] and [crop]");
}

Layer build_layer(const CfgFile& cfg, const CfgSection& section, int index, const std::vector<Layer>& earlier,
                  const TensorShape& input, bool planning) {
    SectionReader reader(cfg, section, index);
    Layer layer = build_known_layer(reader, index, earlier, input, planning);
    model::require_within_limits(reader, layer);
    return layer;
}

// Before any weights or activations exist: a cfg that cannot run on any path here is refused with the
// numbers. The float path's larger need is checked when its weights load (a board running from a
// quantized model never loads them).
void require_memory_for(const Network& network) {
    const NetworkMemory memory = estimate_network_memory(network);
    require_host_memory(
        memory.minimum(),
        network.cfg_path + " at " + std::to_string(network.input.w) + "x" + std::to_string(network.input.h),
        "int16 parameters " + bytes_text(memory.quantized_parameters) +
            ", the largest layer's input and output " + bytes_text(memory.largest_layer_io) +
            ", the least any path holds",
        "use a smaller --input or a smaller network");
}

Network build_network(const CfgFile& cfg, const std::optional<InputSizeOverride>& input_override,
                      bool planning = false) {
    const std::string& cfg_path = cfg.path;
    Network network;
    network.cfg_path = cfg_path;
    network.input = read_net_section(cfg, input_override);
    if (cfg.sections.size() < 2) {
        throw Error(cfg_path +
                    ": the cfg has a [net] section but no layers; add [convolutional] ... [region]");
    }
    TensorShape previous_output = network.input;
    for (std::size_t s = 1; s < cfg.sections.size(); ++s) {
        const int index = static_cast<int>(s) - 1;
        network.layers.push_back(
            build_layer(cfg, cfg.sections[s], index, network.layers, previous_output, planning));
        previous_output = network.layers.back().output;
    }
    require_memory_for(network);
    spdlog::debug("{}: {} layers, input {}x{}x{}", cfg_path, network.layers.size(), network.input.w,
                  network.input.h, network.input.c);
    return network;
}

}  // namespace

Network load_darknet_cfg(const std::string& cfg_path, std::optional<InputSizeOverride> input_override) {
    return build_network(model::read_cfg_file(cfg_path), input_override);
}

Network load_darknet_cfg_for_planning(const std::string& cfg_path,
                                      std::optional<InputSizeOverride> input_override) {
    return build_network(model::read_cfg_file(cfg_path), input_override, /*planning=*/true);
}

Network parse_darknet_cfg(const std::string& text, const std::string& name,
                          std::optional<InputSizeOverride> input_override) {
    return build_network(model::parse_cfg_text(text, name), input_override);
}

Network load_darknet_model(const std::string& cfg_path, const std::string& weights_path,
                           std::optional<InputSizeOverride> input_override) {
    Network network = load_darknet_cfg(cfg_path, input_override);
    load_darknet_weights(network, weights_path);
    fold_batchnorm(network);
    return network;
}

}  // namespace fpgacnn
