#include "crosscheck_models.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>

#include "fpgacnn/darknet.hpp"

namespace fpgacnn::crosscheck {
namespace {

// Synthetic weights only need to be the same on both sides; any fixed seed does.
constexpr std::uint64_t kSyntheticSeed = 20180914;

ModelSpec shared_model(const std::string& name, const std::string& folder, const std::string& cfg,
                       const std::string& weights, const std::string& names) {
    ModelSpec spec;
    spec.name = name;
    spec.cfg_path = test::shared_model_file(folder, cfg);
    spec.weights_path = test::shared_model_file(folder, weights);
    spec.names_path = test::shared_model_file(folder, names);
    spec.needs_shared_models = true;
    return spec;
}

ModelSpec synthetic_model(const std::string& name, const std::string& cfg, int input_size) {
    ModelSpec spec;
    spec.name = name;
    spec.cfg_path = test::darknet_file("cfg/" + cfg);
    spec.names_path = test::darknet_file("data/coco.names");
    spec.input_size = input_size;
    return spec;
}

ModelSpec classifier_model(const std::string& name, const std::string& cfg, int input_size) {
    ModelSpec spec = synthetic_model(name, cfg, input_size);
    spec.names_path = test::darknet_file("data/imagenet.shortnames.list");
    return spec;
}

}  // namespace

ModelSpec yolo_lite_voc() {
    return shared_model("yolo_lite_voc", "yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg",
                        "tiny-yolov2-trial3-noBatch.weights", "voc.names");
}

ModelSpec yolo_lite_voc_bn() {
    return shared_model("yolo_lite_voc_bn", "yolo-lite-voc-bn", "tiny-yolov2-trial3.cfg",
                        "tiny-yolov2-trial3.weights", "voc.names");
}

ModelSpec yolo_lite_coco() {
    return shared_model("yolo_lite_coco", "yolo-lite-coco", "trial6.cfg", "trial6_653550.weights",
                        "coco.names");
}

ModelSpec yolov2_tiny_synthetic() { return synthetic_model("yolov2_tiny_synthetic", "yolov2-tiny.cfg", 416); }

ModelSpec yolov2_synthetic() { return synthetic_model("yolov2_synthetic", "yolov2.cfg", 416); }

ModelSpec yolov3_tiny_synthetic() { return synthetic_model("yolov3_tiny_synthetic", "yolov3-tiny.cfg", 416); }

ModelSpec yolov3_320_synthetic() { return synthetic_model("yolov3_320_synthetic", "yolov3.cfg", 320); }

ModelSpec yolov3_416_synthetic() { return synthetic_model("yolov3_416_synthetic", "yolov3.cfg", 416); }

ModelSpec darknet19_synthetic() { return classifier_model("darknet19_synthetic", "darknet19.cfg", 64); }

ModelSpec resnet50_synthetic() { return classifier_model("resnet50_synthetic", "resnet50.cfg", 64); }

ModelSpec alexnet_synthetic() { return classifier_model("alexnet_synthetic", "alexnet.cfg", 131); }

ModelSpec tiny_classifier_synthetic() {
    return classifier_model("tiny_classifier_synthetic", "tiny.cfg", 64);
}

ModelSpec classifier_layers_synthetic() {
    ModelSpec spec;
    spec.name = "classifier_layers_synthetic";
    spec.cfg_path = test::source_dir() + "/tests/crosscheck/classifier_layers.cfg";
    return spec;
}

PreparedModel prepare_model(const ModelSpec& spec) {
    std::optional<InputSizeOverride> size;
    if (spec.input_size > 0) size = InputSizeOverride{spec.input_size, spec.input_size};

    PreparedModel prepared;
    prepared.cfg_path = spec.cfg_path;
    prepared.width = spec.input_size;
    prepared.height = spec.input_size;
    prepared.weights_path = spec.weights_path;
    if (prepared.weights_path.empty()) {
        // Generate, save, and load back from the file: darknet then reads the very bytes we use.
        Network generated = load_darknet_cfg(spec.cfg_path, size);
        fill_synthetic_weights(generated, kSyntheticSeed);
        prepared.weights_path =
            (std::filesystem::path(test::scratch_dir("crosscheck-" + spec.name)) / "synthetic.weights")
                .string();
        save_darknet_weights(generated, prepared.weights_path);
    }
    prepared.network = load_darknet_model(spec.cfg_path, prepared.weights_path, size);
    if (!spec.names_path.empty()) prepared.class_names = load_class_names(spec.names_path);
    return prepared;
}

Image letterboxed_sample(const std::string& image_name, const Network& network) {
    const Image image = load_image(test::darknet_file("data/" + image_name));
    return letterbox_image(image, network.input.w, network.input.h);
}

void PrintTo(const ModelSpec& spec, std::ostream* out) {
    *out << spec.name << " (" << (spec.cfg_path.empty() ? "<shared/ absent>" : spec.cfg_path) << ")";
}

std::string model_param_name(const testing::TestParamInfo<ModelSpec>& info) { return info.param.name; }

}  // namespace fpgacnn::crosscheck
